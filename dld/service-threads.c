/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>

#include <sys/inotify.h>

#include "dllimits.h"
#include "journal.h"
#include "log.h"
#include "service-threads.h"
#include "threads.h"

/* The service's threads once it is admitted. The kernel's task template
 * makes them SCHED_DEADLINE: they are only counted. A unit whose threads
 * are its own (PROMOTE_NONE: a delegated subtree) is only counted too: dld
 * never switches nor moves a thread there, and a subdivision made inside
 * (child cgroups with their own cpu.dl_runtime_us) stays the owner's. Its
 * processes get the deadline limits of the request instead, so that they
 * may enter SCHED_DEADLINE themselves, within the reservation, without
 * CAP_SYS_NICE. */
void service_threads_follow(Manager *m, Service *s) {
        DeadlineLimits grant = dllimits_grant(&s->req);
        ThreadCount c = {};
        int r;

        if (s->promote != PROMOTE_NONE) {
                service_threads_count(m, s);
                return;
        }
        r = threads_count(m->kfs, s->cgroup, &grant, &c);
        if (r < 0 && !s->limits_warned) {
                log_warning("%s: cannot give the unit's processes the deadline limits of its request "
                            "(RLIMIT_DLRTIME %" PRIu64 "us, RLIMIT_DLDLINE %" PRIu64 "us): %s; "
                            "they need CAP_SYS_NICE to enter SCHED_DEADLINE",
                            s->unit, s->req.runtime_usec, s->req.deadline_usec, strerror(-r));
                s->limits_warned = true;
        }
        s->threads_dl = c.deadline;
        s->threads_total = c.total;
}

void service_threads_unfollow(Manager *m, Service *s) {
        /* A template's tasks go back to normal with it (reservation_release()).
         * A unit's own deadline tasks are not dld's to change: they stay, but
         * the limits go before the reservation does. */
        if (s->promote == PROMOTE_NONE) {
                DeadlineLimits none = dllimits_none();

                (void) threads_set_limits(m->kfs, s->cgroup, &none);
        }
}

void service_threads_count(Manager *m, Service *s) {
        ThreadCount c = {};
        unsigned tasks, over;

        if (s->state != SERVICE_ADMITTED && s->state != SERVICE_DEGRADED)
                return;
        (void) threads_count(m->kfs, s->cgroup, NULL, &c);
        s->threads_dl = c.deadline;
        s->threads_total = c.total;
        /* Logged at each new high: a unit that keeps forking past its
         * reservation logs once per level, not once per task. */
        if (s->by_template && kernelfs_template_stat(m->kfs, s->cgroup, &tasks, &over) == 0 &&
            over > s->template_over) {
                log_notice("%s: %u task(s) found no room in the reservation for %u: they run as normal tasks",
                           s->unit, over, admission_threads_count(s->req.threads, kernelfs_cpus(m->kfs)));
                journal_threads_over(s, tasks, over);
                s->template_over = over;
        }
}

static int on_template_stat(sd_event_source *source _unused_, const struct inotify_event *ev, void *userdata) {
        Service *s = userdata;
        Manager *m = s->manager;

        if (ev->mask & IN_IGNORED) {
                /* The cgroup went: the watch with it. */
                s->template_watch = sd_event_source_disable_unref(s->template_watch);
                return 0;
        }
        service_threads_count(m, s);
        return 0;
}

int service_threads_watch(Manager *m, Service *s) {
        _cleanup_free_ char *path = NULL;
        int r;

        if (!s->by_template || s->template_watch)
                return 0;
        path = kernelfs_template_stat_path(m->kfs, s->cgroup);
        if (!path)
                return -ENOMEM;
        s->manager = m;
        r = sd_event_add_inotify(m->event, &s->template_watch, path, IN_MODIFY, on_template_stat, s);
        if (r < 0)
                log_warning("%s: cannot watch %s: %s; dlconf shows its thread counts as of its admission",
                            s->unit, path, strerror(-r));
        return r;
}

void service_threads_unwatch(Service *s) {
        s->template_watch = sd_event_source_disable_unref(s->template_watch);
}
