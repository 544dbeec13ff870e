/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Minimal TAP 13 producer for host tests: each check prints "ok N - name"
 * or "not ok N - name" with a diagnostic; tap_done() prints the plan and
 * returns the exit status. */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static unsigned tap_count, tap_failed;

static inline void tap_begin(void) {
        printf("TAP version 13\n");
}

static inline int tap_check(int cond, const char *file, int line, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static inline int tap_check(int cond, const char *file, int line, const char *fmt, ...) {
        va_list ap;

        tap_count++;
        printf("%sok %u - ", cond ? "" : "not ", tap_count);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
        if (!cond) {
                tap_failed++;
                printf("# failed at %s:%d\n", file, line);
        }
        fflush(stdout);
        return cond;
}

#define ok(cond, ...) tap_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_int(got, want, ...) ({                                              \
        long long _g = (got), _w = (want);                                     \
        int _r = ok(_g == _w, __VA_ARGS__);                                    \
        if (!_r)                                                               \
                printf("#   got %lld, want %lld\n", _g, _w);                   \
        _r;                                                                    \
})

#define is_str(got, want, ...) ({                                              \
        const char *_g = (got), *_w = (want);                                  \
        int _r = ok(_g && _w ? strcmp(_g, _w) == 0 : _g == _w, __VA_ARGS__);   \
        if (!_r)                                                               \
                printf("#   got \"%s\"\n#  want \"%s\"\n", _g ?: "(null)", _w ?: "(null)"); \
        _r;                                                                    \
})

static inline int tap_done(void) {
        printf("1..%u\n", tap_count);
        if (tap_failed)
                printf("# %u of %u failed\n", tap_failed, tap_count);
        return tap_failed ? 1 : 0;
}
