/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>

#include "log.h"

void log_full(int level, const char *fmt, ...) {
        va_list ap;

        fprintf(stderr, "<%d>", level);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}

const char *log_errno_name(int err) {
        const char *n = strerrorname_np(err < 0 ? -err : err);

        return n ?: "E?";
}
