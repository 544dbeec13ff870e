/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The threads of a unit's cgroup: counted, and given deadline limits. */
#include <poll.h>
#include <sys/syscall.h>
#include <dlsched/rlimits.h>
#include <dlsched/sched.h>

#include "container.h"
#include "log.h"
#include "threads.h"
#include "unitname.h"
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

/* The process of thread @tid (its Tgid), 0 if it is gone. */
static pid_t process_of(pid_t tid) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        const char *p;
        int tgid;

        if (asprintf(&path, "/proc/%d/status", (int) tid) < 0 || fileio_read_config(path, &text, NULL) < 0)
                return 0;
        p = strstr(text, "\nTgid:");
        if (!p || sscanf(p + strlen("\nTgid:"), "%d", &tgid) != 1 || tgid <= 0)
                return 0;
        return (pid_t) tgid;
}

static bool pidfd_alive(int pidfd) {
        struct pollfd p = { .fd = pidfd, .events = POLLIN };

        /* A pidfd polls readable once its process has exited. */
        return poll(&p, 1, 0) == 0;
}

int threads_process_hold(pid_t pid, const char *cgroup) {
        _cleanup_free_ char *path = NULL, *text = NULL, *cg = NULL;
        _cleanup_close_ int fd = -EBADF;
        int r;

        fd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (fd < 0)
                return -errno;
        if (asprintf(&path, "/proc/%d/cgroup", (int) pid) < 0)
                return -ENOMEM;
        r = fileio_read_config(path, &text, NULL);
        if (r == 0)
                r = container_proc_cgroup_cpu_path(text, &cg);
        if (r == -ENOMEM)
                return r;
        if (r < 0 || !unitname_cgroup_is_within(cg, cgroup) || !pidfd_alive(fd))
                return -ESRCH;
        r = fd;
        fd = -EBADF;
        return r;
}

static int process_set_limits(pid_t pid, const char *cgroup, const DeadlineLimits *limits, bool widen) {
        _cleanup_close_ int fd = -EBADF;
        DeadlineLimits have, want = *limits;
        int r;

        fd = threads_process_hold(pid, cgroup);
        if (fd < 0)
                return fd;
        r = get_limits(pid, &have);
        if (r < 0)
                return r;
        if (widen ? !dllimits_widen(&have, limits, &want) : !memcmp(&have, &want, sizeof(want)))
                return 0;
        r = put_limits(pid, &want);
        if (r < 0)
                return r;
        if (!pidfd_alive(fd))
                log_debug("process %d exited while its deadline limits were set", (int) pid);
        return 1;
}

/* One pass over tids: the number of processes changed, or the first error. */
static int set_limits_of(const char *cgroup, const pid_t *tids, size_t n, const DeadlineLimits *limits, bool widen) {
        _cleanup_free_ pid_t *done = calloc(n ?: 1, sizeof(pid_t));
        size_t n_done = 0;
        int r, changed = 0, ret = 0;

        if (!done)
                return -ENOMEM;
        /* Limits are a process's: its other threads then find them set. */
        for (size_t i = 0; i < n; i++) {
                pid_t pid = process_of(tids[i]);
                bool seen = false;

                for (size_t j = 0; j < n_done && !seen; j++)
                        seen = done[j] == pid;
                if (pid == 0 || seen)
                        continue;
                done[n_done++] = pid;
                r = process_set_limits(pid, cgroup, limits, widen);
                if (r > 0)
                        changed++;
                else if (r < 0 && r != -ESRCH && ret == 0)
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
                r = set_limits_of(cgroup, tids, n, limits, false);
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
        r = grant ? set_limits_of(cgroup, tids, n, grant, true) : 0;
        return r < 0 ? r : 0;
}
