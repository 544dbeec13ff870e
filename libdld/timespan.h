/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* systemd's time span syntax (systemd.time(7)): "2ms", "500us", "1s 500ms",
 * "1.5s", "2 min". A bare number is seconds, as in systemd's parse_sec().
 * Microsecond resolution; "infinity" is not a span a deadline can use. */

#include <stddef.h>
#include <stdint.h>

#define USEC_PER_MSEC 1000ULL
#define USEC_PER_SEC  1000000ULL
#define NSEC_PER_USEC 1000ULL

/* 0, -EINVAL (syntax) or -ERANGE (overflow, or a fraction finer than 1us). */
int timespan_parse(const char *s, uint64_t *ret_usec);

/* Shortest exact systemd form: "2ms", "1s 500ms", "0". Returns buf. */
char *timespan_format(char *buf, size_t size, uint64_t usec);
#define TIMESPAN_MAX 64
