/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "timespan.h"
#include "util.h"

static const struct {
        const char *suffix;
        uint64_t usec;
} units[] = {
        /* Longer suffixes first: the first match wins. */
        { "seconds", USEC_PER_SEC },
        { "second",  USEC_PER_SEC },
        { "sec",     USEC_PER_SEC },
        { "s",       USEC_PER_SEC },
        { "minutes", 60 * USEC_PER_SEC },
        { "minute",  60 * USEC_PER_SEC },
        { "min",     60 * USEC_PER_SEC },
        { "months",  2629800 * USEC_PER_SEC },
        { "month",   2629800 * USEC_PER_SEC },
        { "M",       2629800 * USEC_PER_SEC },
        { "msec",    USEC_PER_MSEC },
        { "ms",      USEC_PER_MSEC },
        { "m",       60 * USEC_PER_SEC },
        { "hours",   3600 * USEC_PER_SEC },
        { "hour",    3600 * USEC_PER_SEC },
        { "hr",      3600 * USEC_PER_SEC },
        { "h",       3600 * USEC_PER_SEC },
        { "days",    86400 * USEC_PER_SEC },
        { "day",     86400 * USEC_PER_SEC },
        { "d",       86400 * USEC_PER_SEC },
        { "weeks",   7 * 86400 * USEC_PER_SEC },
        { "week",    7 * 86400 * USEC_PER_SEC },
        { "w",       7 * 86400 * USEC_PER_SEC },
        { "years",   31557600 * USEC_PER_SEC },
        { "year",    31557600 * USEC_PER_SEC },
        { "y",       31557600 * USEC_PER_SEC },
        { "usec",    1 },
        { "us",      1 },
        { "\xc2\xb5s", 1 },     /* µs, MICRO SIGN */
        { "\xce\xbcs", 1 },     /* μs, GREEK SMALL LETTER MU */
};

/* Matches a unit suffix at *p that is not followed by a letter. */
static bool match_unit(const char **p, uint64_t *ret) {
        for (size_t i = 0; i < ELEMENTSOF(units); i++) {
                size_t l = strlen(units[i].suffix);

                if (strncmp(*p, units[i].suffix, l) == 0 && !isalpha((unsigned char) (*p)[l])) {
                        *p += l;
                        *ret = units[i].usec;
                        return true;
                }
        }
        return false;
}

static int add_overflow_u64(uint64_t a, uint64_t b, uint64_t *r) {
        return __builtin_add_overflow(a, b, r) ? -ERANGE : 0;
}

int timespan_parse(const char *s, uint64_t *ret_usec) {
        const char *p = s;
        uint64_t total = 0;
        bool any = false;

        if (!s)
                return -EINVAL;

        for (;;) {
                uint64_t whole = 0, frac = 0, frac_div = 1, mult, part;
                bool digits = false;

                while (isspace((unsigned char) *p))
                        p++;
                if (*p == 0)
                        break;

                if (!isdigit((unsigned char) *p) && *p != '.')
                        return -EINVAL;        /* also rejects signs */
                for (; isdigit((unsigned char) *p); p++) {
                        digits = true;
                        if (__builtin_mul_overflow(whole, 10, &whole) ||
                            __builtin_add_overflow(whole, (uint64_t) (*p - '0'), &whole))
                                return -ERANGE;
                }
                if (*p == '.') {
                        p++;
                        for (; isdigit((unsigned char) *p); p++) {
                                digits = true;
                                if (frac_div >= 1000000000000000000ULL)
                                        return -ERANGE;
                                frac = frac * 10 + (uint64_t) (*p - '0');
                                frac_div *= 10;
                        }
                }
                if (!digits)
                        return -EINVAL;

                while (*p == ' ' || *p == '\t')
                        p++;
                if (*p == 0 || isspace((unsigned char) *p) || isdigit((unsigned char) *p))
                        mult = USEC_PER_SEC;   /* a bare number is seconds */
                else if (!match_unit(&p, &mult))
                        return -EINVAL;

                if (__builtin_mul_overflow(whole, mult, &part))
                        return -ERANGE;
                if (frac > 0) {
                        /* The fraction must come out in whole microseconds. */
                        unsigned __int128 f = (unsigned __int128) frac * mult;

                        if (f % frac_div != 0)
                                return -ERANGE;
                        if (add_overflow_u64(part, (uint64_t) (f / frac_div), &part) < 0)
                                return -ERANGE;
                }
                if (add_overflow_u64(total, part, &total) < 0)
                        return -ERANGE;
                any = true;
        }

        if (!any)
                return -EINVAL;
        *ret_usec = total;
        return 0;
}

char *timespan_format(char *buf, size_t size, uint64_t usec) {
        static const struct {
                const char *suffix;
                uint64_t usec;
        } parts[] = {
                { "d",   86400 * USEC_PER_SEC },
                { "h",   3600 * USEC_PER_SEC },
                { "min", 60 * USEC_PER_SEC },
                { "s",   USEC_PER_SEC },
                { "ms",  USEC_PER_MSEC },
                { "us",  1 },
        };
        size_t used = 0;

        if (size == 0)
                return buf;
        buf[0] = 0;
        if (usec == 0) {
                snprintf(buf, size, "0");
                return buf;
        }
        for (size_t i = 0; i < ELEMENTSOF(parts) && usec > 0; i++) {
                uint64_t n = usec / parts[i].usec;
                int k;

                if (n == 0)
                        continue;
                usec -= n * parts[i].usec;
                k = snprintf(buf + used, size - used, "%s%llu%s", used ? " " : "",
                             (unsigned long long) n, parts[i].suffix);
                if (k < 0 || (size_t) k >= size - used)
                        break;
                used += k;
        }
        return buf;
}
