/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>

#include "dllimits.h"
#include "log.h"
#include "service-threads.h"
#include "threads.h"

/* The service's threads, with its request, counted in the service. A
 * unit whose threads are its own (PROMOTE_NONE: a delegated subtree) is
 * only counted: dld never switches nor moves a thread there, and a
 * subdivision made inside (child cgroups with their own
 * cpu.dl_runtime_us) stays the owner's. Its processes get the deadline
 * limits of the request instead, so that they may enter SCHED_DEADLINE
 * themselves, within the reservation, without CAP_SYS_NICE. */
int service_threads_to_deadline(Manager *m, Service *s, pid_t *ret_tid) {
        ThreadCount c = {};
        int r;

        if (s->promote == PROMOTE_NONE) {
                DeadlineLimits grant = dllimits_grant(&s->req);

                r = threads_count(m->kfs, s->cgroup, &grant, &c);
                if (r < 0 && !s->limits_warned) {
                        log_warning("%s: cannot give the unit's processes the deadline limits of its request "
                                    "(RLIMIT_DLRTIME %" PRIu64 "us, RLIMIT_DLDLINE %" PRIu64 "us): %s; "
                                    "they need CAP_SYS_NICE to enter SCHED_DEADLINE",
                                    s->unit, s->req.runtime_usec, s->req.deadline_usec, strerror(-r));
                        s->limits_warned = true;
                }
                r = 0;
        } else
                r = threads_to_deadline(m->kfs, s->cgroup, s->promote == PROMOTE_SUBTREE, s->unit, &s->req, &c, ret_tid);
        s->threads_dl = c.deadline;
        s->threads_total = c.total;
        return r;
}

void service_threads_to_normal(Manager *m, Service *s) {
        if (s->promote == PROMOTE_NONE) {
                /* Its own deadline tasks are not dld's to change: they stay, but
                 * the limits go before the reservation does. */
                DeadlineLimits none = dllimits_none();

                (void) threads_set_limits(m->kfs, s->cgroup, &none);
                return;
        }
        threads_to_normal(m->kfs, s->cgroup, s->promote == PROMOTE_SUBTREE);
        s->threads_dl = 0;
}

/* Why the kernel refused SCHED_DEADLINE for one of the unit's threads. */
char *service_threads_refusal(Manager *m, const Service *s, const char *which, pid_t tid, int err) {
        char th[16];
        char *reason;

        if (asprintf(&reason, "the kernel refused SCHED_DEADLINE for %s %d (%s): the unit's reservation holds %u threads "
                     "of this size (X-DeadlineThreads=%s)", which, (int) tid, strerror(-err),
                     admission_threads_count(s->req.threads, kernelfs_cpus(m->kfs)),
                     admission_threads_to_string(th, sizeof(th), s->req.threads)) < 0)
                return NULL;
        return reason;
}
