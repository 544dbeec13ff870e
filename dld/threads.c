/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The threads of a unit's cgroup in and out of SCHED_DEADLINE. */
#include <dlsched/rlimits.h>
#include <dlsched/sched.h>

#include "log.h"
#include "threads.h"
#include "util.h"

static int list_threads(KernelFs *kfs, const char *cgroup, bool subtree, pid_t **ret, size_t *ret_n) {
        return subtree ? kernelfs_cgroup_threads_subtree(kfs, cgroup, ret, ret_n)
                       : kernelfs_cgroup_threads(kfs, cgroup, ret, ret_n);
}

/* Threads of the unit back to SCHED_OTHER (those dld made deadline). */
void threads_to_normal(KernelFs *kfs, const char *cgroup, bool subtree) {
        _cleanup_free_ pid_t *tids = NULL;
        size_t n = 0;

        if (!cgroup || list_threads(kfs, cgroup, subtree, &tids, &n) < 0)
                return;
        for (size_t i = 0; i < n; i++) {
                struct sched_attr a;

                if (dlsched_get_attr(tids[i], &a) == 0 && a.sched_policy == SCHED_DEADLINE)
                        (void) dlsched_set_normal(tids[i]);
        }
}

/* Of the threads switched, those no longer in the unit's cgroup: a thread
 * id read from cgroup.threads may have been reused by then by a task that
 * is not the unit's, which must get its own policy back. */
static void threads_check_owned(KernelFs *kfs, const char *cgroup, bool subtree, const char *unit, const pid_t *changed,
                                const struct sched_attr *before, size_t n) {
        _cleanup_free_ pid_t *now = NULL;
        size_t n_now = 0;

        if (n == 0 || list_threads(kfs, cgroup, subtree, &now, &n_now) < 0)
                return;
        for (size_t i = 0; i < n; i++) {
                bool found = false;

                for (size_t j = 0; j < n_now && !found; j++)
                        found = now[j] == changed[i];
                if (found)
                        continue;
                /* Gone, or someone else's now: the latter gets its policy back. */
                if (dlsched_set_attr(changed[i], &before[i]) == 0)
                        log_warning("%s: thread %d left the unit's cgroup as it was made SCHED_DEADLINE; "
                                    "its previous policy is restored", unit, (int) changed[i]);
        }
}

int threads_to_deadline(KernelFs *kfs, const char *cgroup, bool subtree, const char *unit, const DeadlineRequest *req,
                        ThreadCount *ret_count, pid_t *ret_tid) {
        _cleanup_free_ pid_t *tids = NULL, *changed = NULL;
        _cleanup_free_ struct sched_attr *before = NULL;
        size_t n = 0, n_changed = 0;
        unsigned dl = 0;
        int r;

        r = list_threads(kfs, cgroup, subtree, &tids, &n);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        changed = calloc(n ?: 1, sizeof(pid_t));
        before = calloc(n ?: 1, sizeof(struct sched_attr));
        if (!changed || !before)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                struct sched_attr a;

                if (dlsched_get_attr(tids[i], &a) < 0)
                        continue;       /* gone */
                if (dlsched_is_deadline(&a, req->runtime_usec, req->deadline_usec, req->period_usec)) {
                        dl++;
                        continue;
                }
                r = dlsched_set_deadline(tids[i], req->runtime_usec, req->deadline_usec, req->period_usec);
                if (r == -ESRCH)
                        continue;
                if (r < 0) {
                        threads_check_owned(kfs, cgroup, subtree, unit, changed, before, n_changed);
                        *ret_tid = tids[i];
                        *ret_count = (ThreadCount) { .deadline = dl, .total = n };
                        return r;
                }
                changed[n_changed] = tids[i];
                before[n_changed++] = a;
                dl++;
        }
        threads_check_owned(kfs, cgroup, subtree, unit, changed, before, n_changed);
        *ret_count = (ThreadCount) { .deadline = dl, .total = n };
        return 0;
}

static int get_limits(pid_t pid, DeadlineLimits *ret) {
        if (prlimit(pid, DLSCHED_RLIMIT_DLDLINE, NULL, &ret->dldline) < 0 ||
            prlimit(pid, DLSCHED_RLIMIT_DLRTIME, NULL, &ret->dlrtime) < 0)
                return -errno;
        return 0;
}

static int put_limits(pid_t pid, const DeadlineLimits *l) {
        if (prlimit(pid, DLSCHED_RLIMIT_DLDLINE, &l->dldline, NULL) < 0 ||
            prlimit(pid, DLSCHED_RLIMIT_DLRTIME, &l->dlrtime, NULL) < 0)
                return -errno;
        return 0;
}

/* One pass over tids: the number of processes changed, or the first error. */
static int set_limits_of(const pid_t *tids, size_t n, const DeadlineLimits *limits, bool widen) {
        int r, changed = 0, ret = 0;

        /* Limits are a process's: its other threads then find them set. */
        for (size_t i = 0; i < n; i++) {
                DeadlineLimits have, want = *limits;

                r = get_limits(tids[i], &have);
                if (r == 0 && (widen ? !dllimits_widen(&have, limits, &want) :
                                       !memcmp(&have, &want, sizeof(want))))
                        continue;
                if (r == 0)
                        r = put_limits(tids[i], &want);
                if (r == 0)
                        changed++;
                else if (r != -ESRCH && ret == 0)
                        ret = r;
        }
        return ret < 0 ? ret : changed;
}

int threads_set_limits(KernelFs *kfs, const char *cgroup, const DeadlineLimits *limits) {
        int r = 0;

        /* A process forked while a pass ran may have copied the limits
         * from a parent the pass had not reached yet: pass again until one
         * changes nothing (a fork bomb is bounded). */
        for (int pass = 0; pass < 8; pass++) {
                _cleanup_free_ pid_t *tids = NULL;
                size_t n = 0;

                r = kernelfs_cgroup_threads_all(kfs, cgroup, &tids, &n);
                if (r < 0)
                        return r == -ENOENT ? 0 : r;
                r = set_limits_of(tids, n, limits, false);
                if (r <= 0)
                        break;
        }
        return r < 0 ? r : 0;
}

int threads_count(KernelFs *kfs, const char *cgroup, const DeadlineLimits *grant, ThreadCount *ret_count) {
        _cleanup_free_ pid_t *tids = NULL;
        size_t n = 0;
        unsigned dl = 0;
        int r;

        *ret_count = (ThreadCount) {};
        r = kernelfs_cgroup_threads_all(kfs, cgroup, &tids, &n);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        for (size_t i = 0; i < n; i++) {
                struct sched_attr a;

                if (dlsched_get_attr(tids[i], &a) == 0 && a.sched_policy == SCHED_DEADLINE)
                        dl++;
        }
        *ret_count = (ThreadCount) { .deadline = dl, .total = (unsigned) n };
        r = grant ? set_limits_of(tids, n, grant, true) : 0;
        return r < 0 ? r : 0;
}
