/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "tap.h"
#include "timespan.h"

static void check_parse(const char *s, int want_r, uint64_t want) {
        uint64_t v = 12345;
        int r = timespan_parse(s, &v);

        if (want_r == 0) {
                if (is_int(r, 0, "parse \"%s\" succeeds", s))
                        is_int(v, want, "parse \"%s\" = %llu us", s, (unsigned long long) want);
        } else
                is_int(r, want_r, "parse \"%s\" fails with %d", s, want_r);
}

static void check_format(uint64_t usec, const char *want) {
        char buf[TIMESPAN_MAX];
        uint64_t back;

        is_str(timespan_format(buf, sizeof(buf), usec), want, "format %llu", (unsigned long long) usec);
        ok(timespan_parse(buf, &back) == 0 && back == usec, "format %s round-trips", want);
}

int main(void) {
        tap_begin();

        check_parse("2ms", 0, 2000);
        check_parse("500us", 0, 500);
        check_parse("500usec", 0, 500);
        check_parse("500\xc2\xb5s", 0, 500);
        check_parse("1s 500ms", 0, 1500000);
        check_parse("1s500ms", 0, 1500000);
        check_parse("  1.5s  ", 0, 1500000);
        check_parse("1", 0, 1000000);
        check_parse("2 min", 0, 120000000);
        check_parse("1m", 0, 60000000);
        check_parse("1min 1msec", 0, 60001000);
        check_parse("1h", 0, 3600000000ULL);
        check_parse("0.5ms", 0, 500);
        check_parse(".5ms", 0, 500);
        check_parse("0", 0, 0);
        check_parse("10 ms 20 us", 0, 10020);

        check_parse("", -EINVAL, 0);
        check_parse("   ", -EINVAL, 0);
        check_parse("ms", -EINVAL, 0);
        check_parse("-1ms", -EINVAL, 0);
        check_parse("+1ms", -EINVAL, 0);
        check_parse("2xs", -EINVAL, 0);
        check_parse("2msx", -EINVAL, 0);
        check_parse("1.2.3s", -EINVAL, 0);
        check_parse("infinity", -EINVAL, 0);
        check_parse("1,5ms", -EINVAL, 0);
        check_parse("0.5us", -ERANGE, 0);
        check_parse("99999999999999999999us", -ERANGE, 0);
        check_parse("999999999999y", -ERANGE, 0);

        check_format(0, "0");
        check_format(2000, "2ms");
        check_format(1500000, "1s 500ms");
        check_format(500, "500us");
        check_format(3600000001ULL, "1h 1us");

        return tap_done();
}
