/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Small helpers shared by dld's modules (systemd style cleanup attributes). */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))

static inline void freep(void *p) {
        free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd) {
        if (*fd >= 0)
                close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

static inline void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

static inline void strv_free(char **l) {
        if (!l)
                return;
        for (char **i = l; *i; i++)
                free(*i);
        free(l);
}
static inline void strv_freep(char ***l) {
        strv_free(*l);
}
#define _cleanup_strv_free_ _cleanup_(strv_freep)

static inline bool endswith(const char *s, const char *suffix) {
        size_t l = strlen(s), n = strlen(suffix);

        return l >= n && strcmp(s + l - n, suffix) == 0;
}

static inline bool startswith(const char *s, const char *prefix) {
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline bool streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return strcmp(a, b) == 0;
}

static inline void *steal_pointer(void *pp) {
        void **p = pp, *r = *p;
        *p = NULL;
        return r;
}
#define TAKE_PTR(p) steal_pointer(&(p))

/* Appends a copy of s to the NULL-terminated list *l (strv.c). */
int strv_extend(char ***l, const char *s);
size_t strv_length(char * const *l);
bool strv_contains(char * const *l, const char *s);
/* Removes (and frees) every entry equal to s, in place: whether there was one. */
bool strv_remove(char **l, const char *s);

/* Words an error into *ret_error (allocated) and returns -EINVAL, or
 * -ENOMEM with *ret_error NULL. */
static inline _printf_(2, 3) int errorf(char **ret_error, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(ret_error, fmt, ap);
        va_end(ap);
        if (r < 0) {
                *ret_error = NULL;
                return -ENOMEM;
        }
        return -EINVAL;
}

/* Strips leading and trailing whitespace in place, returns the start. */
static inline char *strstrip(char *s) {
        char *e;

        while (isspace((unsigned char) *s))
                s++;
        e = s + strlen(s);
        while (e > s && isspace((unsigned char) e[-1]))
                e--;
        *e = 0;
        return s;
}

/* Files (fileio.c). Reads a whole file (up to 1 MiB) into a
 * NUL-terminated buffer. */
int fileio_read_full(const char *path, char **ret, size_t *ret_size);
/* Writes text to a new file beside path (".#NAME.XXXXXX", mode 0644), then
 * renames it over path: a reader, or a restart after a crash, finds the
 * old text or the new, never a part. 0 or -errno; on failure path is as it
 * was and nothing is left beside it. */
int fileio_write_atomic(const char *path, const char *text);
/* Policies and unit files: regular files only (-EISDIR, -EBADFD for a FIFO,
 * a device or a socket, opened without blocking), at most CONFIG_FILE_MAX
 * bytes (-EFBIG). fileio_config_error() words an error for the user. */
#define CONFIG_FILE_MAX (1024 * 1024)
#define CONFIG_FILE_MAX_TEXT "1 MiB"
int fileio_read_config(const char *path, char **ret, size_t *ret_size);
const char *fileio_config_error(int r);
