/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy-scale: how dld's policy parsing and validation (dld/policy.c, the
 * pure code dld and dlconf share) grow with the number of groups (bench
 * part 5). For each N given: a policy of one parent group and N - 1
 * groups nested in it, each reserving an equal share, parsed and
 * validated as often as fits in MIN_SECONDS; prints one line per N:
 *
 *   BENCH {"test":"policy_scale","groups":N,"parse_ms":..,"validate_ms":..}
 *
 * (the median of the repetitions). A policy that does not validate fails.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "policy.h"

#define MIN_SECONDS 0.3

static double now(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *policy_text(unsigned n) {
        size_t size = 256 + (size_t) n * 160, len = 0;
        char *t = malloc(size);
        /* Each child's share of the parent's 80%, rounded down in µs: the
         * children's fixed-point sum stays within the parent's. */
        unsigned child = n > 1 ? 800000 / (n - 1) : 0;

        if (!t)
                return NULL;
        len += snprintf(t + len, size - len,
                        "{\"system\":{\"sched_dl_runtime_us\":900000,\"sched_dl_period_us\":1000000,"
                        "\"sched_rt_runtime_us\":50000,\"sched_rt_period_us\":1000000},\"groups\":["
                        "{\"name\":\"top\",\"slice\":\"bench.slice\",\"runtime_us\":800000,\"period_us\":1000000}");
        for (unsigned i = 1; i < n; i++)
                len += snprintf(t + len, size - len,
                                ",{\"name\":\"g%u\",\"slice\":\"bench-g%u.slice\",\"runtime_us\":%u,\"period_us\":1000000}",
                                i, i, child ?: 1);
        snprintf(t + len, size - len, "]}\n");
        return t;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;

        return (x > y) - (x < y);
}

int main(int argc, char **argv) {
        static const SystemBudget current = SYSTEM_BUDGET_DEFAULTS;

        for (int a = 1; a < argc; a++) {
                unsigned n = (unsigned) strtoul(argv[a], NULL, 10);
                char *text = policy_text(n);
                double parse[1000], validate[1000], start = now();
                int reps = 0;

                if (!text || n == 0) {
                        fprintf(stderr, "policy-scale: bad group count %s\n", argv[a]);
                        return 2;
                }
                while (reps < 1000 && (reps < 3 || now() - start < MIN_SECONDS)) {
                        Policy p = {};
                        DiagList d = {};
                        double t0 = now(), t1, t2;
                        int r = policy_parse(&p, "bench.json", text, &d);

                        t1 = now();
                        if (r == 0)
                                r = policy_validate(&p, &current, &d);
                        t2 = now();
                        if (r < 0 || p.n_groups != n) {
                                fprintf(stderr, "policy-scale: %u groups: %s (%zu groups, %zu problems%s%s)\n", n,
                                        strerror(-r), p.n_groups, d.n, d.n ? ": " : "",
                                        d.n ? diag_format(&d.items[0]) : "");
                                return 1;
                        }
                        parse[reps] = (t1 - t0) * 1e3;
                        validate[reps] = (t2 - t1) * 1e3;
                        reps++;
                        policy_done(&p);
                        diag_list_done(&d);
                }
                qsort(parse, reps, sizeof(double), cmp_double);
                qsort(validate, reps, sizeof(double), cmp_double);
                printf("BENCH {\"test\":\"policy_scale\",\"groups\":%u,\"reps\":%d,\"parse_ms\":%.4f,"
                       "\"validate_ms\":%.4f,\"total_ms\":%.4f}\n",
                       n, reps, parse[reps / 2], validate[reps / 2], parse[reps / 2] + validate[reps / 2]);
                free(text);
        }
        return 0;
}
