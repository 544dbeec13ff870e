/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/stat.h>

#include "util.h"

bool strv_contains(char * const *l, const char *s) {
        for (size_t i = 0; l && l[i]; i++)
                if (strcmp(l[i], s) == 0)
                        return true;
        return false;
}

size_t strv_length(char * const *l) {
        size_t n = 0;

        while (l && l[n])
                n++;
        return n;
}

int strv_extend(char ***l, const char *s) {
        size_t n = strv_length(*l);
        char **nl, *c;

        c = strdup(s);
        if (!c)
                return -ENOMEM;
        nl = realloc(*l, (n + 2) * sizeof(char *));
        if (!nl) {
                free(c);
                return -ENOMEM;
        }
        nl[n] = c;
        nl[n + 1] = NULL;
        *l = nl;
        return 0;
}

char *strstrip(char *s) {
        char *e;

        while (isspace((unsigned char) *s))
                s++;
        e = s + strlen(s);
        while (e > s && isspace((unsigned char) e[-1]))
                e--;
        *e = 0;
        return s;
}

#define READ_FULL_MAX (1024 * 1024)

/* Reads fd to its end, at most max bytes (-EFBIG beyond), NUL-terminated. */
static int read_fd_full(int fd, size_t max, char **ret, size_t *ret_size) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0, alloc = 0;

        for (;;) {
                ssize_t k;

                if (alloc - size < 4097) {
                        char *nb;

                        if (alloc >= max + 4097)
                                return -EFBIG;
                        alloc = alloc ? alloc * 2 : 4096 + 1;
                        nb = realloc(buf, alloc);
                        if (!nb)
                                return -ENOMEM;
                        buf = nb;
                }
                k = read(fd, buf + size, alloc - size - 1);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        break;
                size += k;
                if (size > max)
                        return -EFBIG;
        }
        if (!buf) {
                buf = strdup("");
                if (!buf)
                        return -ENOMEM;
        }
        buf[size] = 0;
        if (ret_size)
                *ret_size = size;
        *ret = TAKE_PTR(buf);
        return 0;
}

int read_full_file(const char *path, char **ret, size_t *ret_size) {
        _cleanup_close_ int fd = -1;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        return read_fd_full(fd, READ_FULL_MAX, ret, ret_size);
}

int write_full_file(const char *path, const char *text) {
        _cleanup_close_ int fd = -1;
        size_t l = strlen(text);

        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        if (write(fd, text, l) != (ssize_t) l)
                return -EIO;
        return 0;
}

int read_config_file(const char *path, char **ret, size_t *ret_size) {
        _cleanup_close_ int fd = -1;
        struct stat st;

        /* O_NONBLOCK: opening a FIFO nobody writes to must not hang. */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        if ((uint64_t) st.st_size > CONFIG_FILE_MAX)
                return -EFBIG;
        return read_fd_full(fd, CONFIG_FILE_MAX, ret, ret_size);
}

const char *config_file_error(int r) {
        switch (r) {
        case -EBADFD:
                return "not a regular file";
        case -EFBIG:
                return "larger than the " CONFIG_FILE_MAX_TEXT " limit";
        default:
                return strerror(-r);
        }
}

int errorf(char **ret_error, const char *fmt, ...) {
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
