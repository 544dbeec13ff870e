/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The threads of a unit's cgroup: counted, and given deadline limits. */
#include <dlsched/rlimits.h>
#include <dlsched/sched.h>

#include "log.h"
#include "threads.h"
#include "util.h"

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
