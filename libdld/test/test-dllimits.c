/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dllimits.h"
#include "tap.h"

static bool limits_eq(const DeadlineLimits *a, rlim_t dl_cur, rlim_t dl_max, rlim_t rt_cur, rlim_t rt_max) {
        return a->dldline.rlim_cur == dl_cur && a->dldline.rlim_max == dl_max &&
               a->dlrtime.rlim_cur == rt_cur && a->dlrtime.rlim_max == rt_max;
}

/* What the kernel checks of every pair: RLIMIT_DLDLINE soft >= hard (a
 * minimum), RLIMIT_DLRTIME soft <= hard. */
static bool limits_valid(const DeadlineLimits *a) {
        return a->dldline.rlim_cur >= a->dldline.rlim_max && a->dlrtime.rlim_cur <= a->dlrtime.rlim_max;
}

int main(void) {
        DeadlineRequest req = { .runtime_usec = 2000, .deadline_usec = 15000, .period_usec = 20000 };
        DeadlineLimits grant, none, have, got;

        tap_begin();

        grant = dllimits_grant(&req);
        ok(limits_eq(&grant, 15000, 15000, 2000, 2000),
           "the grant: deadline down to the request's 15000us, runtime up to its 2000us, soft = hard");
        none = dllimits_none();
        ok(limits_eq(&none, RLIM_INFINITY, RLIM_INFINITY, 0, 0), "no deadline at all: the kernel's default");

        ok(dllimits_widen(&none, &grant, &got) && limits_eq(&got, 15000, 15000, 2000, 2000),
           "a process without limits gets the grant");
        have = got;
        ok(!dllimits_widen(&have, &grant, &got) && limits_eq(&got, 15000, 15000, 2000, 2000),
           "a process that has it is left alone");

        have = (DeadlineLimits) { .dldline = { 1000, 1000 }, .dlrtime = { 50000, 50000 } };
        ok(!dllimits_widen(&have, &grant, &got) && limits_eq(&got, 1000, 1000, 50000, 50000),
           "wider limits set by root are kept, never narrowed");

        /* A process that lowered its soft values keeps them: only what
         * it lacks of the grant is raised. */
        have = (DeadlineLimits) { .dldline = { 30000, 15000 }, .dlrtime = { 1000, 2000 } };
        ok(dllimits_widen(&have, &grant, &got) && limits_eq(&got, 15000, 15000, 2000, 2000),
           "soft values below the grant are raised to it");
        have = (DeadlineLimits) { .dldline = { RLIM_INFINITY, 5000 }, .dlrtime = { 1000, 9000 } };
        ok(dllimits_widen(&have, &grant, &got) && limits_eq(&got, 15000, 5000, 2000, 9000),
           "mixed: each of the four values takes the wider of the two");
        ok(limits_valid(&got), "and the result is a pair the kernel takes (soft >= hard for the deadline)");

        req = (DeadlineRequest) { .runtime_usec = 1, .deadline_usec = 1, .period_usec = 1 };
        grant = dllimits_grant(&req);
        ok(dllimits_widen(&none, &grant, &got) && limits_valid(&got) && limits_eq(&got, 1, 1, 1, 1),
           "the smallest request (1us) is granted as it is");

        return tap_done();
}
