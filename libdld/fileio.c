/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

#include "util.h"

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

int fileio_read_full(const char *path, char **ret, size_t *ret_size) {
        _cleanup_close_ int fd = -1;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        return read_fd_full(fd, READ_FULL_MAX, ret, ret_size);
}

int fileio_write_atomic(const char *path, const char *text) {
        _cleanup_free_ char *tmp = NULL;
        const char *slash = strrchr(path, '/');
        size_t l = strlen(text), done = 0;
        int fd, r = 0;

        if (asprintf(&tmp, "%.*s.#%s.XXXXXX", slash ? (int) (slash - path + 1) : 0, path, slash ? slash + 1 : path) < 0)
                return -ENOMEM;
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        while (done < l && r == 0) {
                ssize_t k = write(fd, text + done, l - done);

                if (k < 0 && errno != EINTR)
                        r = -errno;
                else if (k > 0)
                        done += k;
        }
        if (r == 0 && fchmod(fd, 0644) < 0)
                r = -errno;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0)
                (void) unlink(tmp);
        return r;
}

int fileio_read_config(const char *path, char **ret, size_t *ret_size) {
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

const char *fileio_config_error(int r) {
        switch (r) {
        case -EBADFD:
                return "not a regular file";
        case -EFBIG:
                return "larger than the " CONFIG_FILE_MAX_TEXT " limit";
        default:
                return strerror(-r);
        }
}
