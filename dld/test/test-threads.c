/* SPDX-License-Identifier: GPL-2.0-or-later */
/* threads_process_hold(): the guard against a reused thread id. A number
 * dld read from a unit's cgroup.threads that now belongs to a task in
 * another cgroup, or to no live task, is never acted on. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "container.h"
#include "tap.h"
#include "threads.h"
#include "util.h"

static char *own_cgroup(void) {
        _cleanup_free_ char *text = NULL;
        char *cg = NULL;

        if (fileio_read_config("/proc/self/cgroup", &text, NULL) < 0 || container_proc_cgroup_cpu_path(text, &cg) < 0)
                return NULL;
        return cg;
}

static pid_t sleeper(void) {
        pid_t pid = fork();

        if (pid == 0) {
                pause();
                _exit(0);
        }
        return pid;
}

static int put(const char *root, const char *rel, const char *text) {
        _cleanup_free_ char *path = NULL, *cmd = NULL;

        if (asprintf(&path, "%s/%s", root, rel) < 0 ||
            asprintf(&cmd, "mkdir -p \"$(dirname '%s')\"", path) < 0 || system(cmd) != 0)
                return -ENOMEM;
        return fileio_write_atomic(path, text);
}

/* The callers go through the guard: a unit's cgroup.threads (a fake tree)
 * that lists a process living elsewhere, as a reused number would, gets it
 * neither limits set nor taken back. Without the guard they would act on
 * it: EINVAL from prlimit() on a kernel without the deadline limits, a
 * change of its limits on one with them. */
static void callers_skip_foreign(pid_t pid) {
        char root[] = "/tmp/test-threads.XXXXXX";
        _cleanup_free_ char *tids = NULL, *cmd = NULL;
        DeadlineRequest req = { .runtime_usec = 2000, .deadline_usec = 20000, .period_usec = 20000, .threads = 1 };
        DeadlineLimits none = dllimits_none(), grant = dllimits_grant(&req);
        ThreadCount count = {};
        KernelFs *kfs = NULL;

        if (!ok(mkdtemp(root) != NULL, "a fake cgroup tree") || asprintf(&tids, "%d\n", (int) pid) < 0)
                return;
        ok(put(root, "sys/fs/cgroup/cgroup.controllers", "cpu\n") == 0 &&
           put(root, "sys/fs/cgroup/dlsched-test.slice/u.service/cgroup.threads", tids) == 0 &&
           kernelfs_new(root, &kfs) == 0, "  whose u.service lists the child, which lives elsewhere");
        is_int(threads_set_limits(kfs, "/dlsched-test.slice/u.service", &none), 0,
               "  taking limits back leaves the child alone");
        is_int(threads_count(kfs, "/dlsched-test.slice/u.service", &grant, &count), 0,
               "  granting limits leaves it alone too");
        kernelfs_free(kfs);
        if (asprintf(&cmd, "rm -rf '%s'", root) >= 0)
                (void) system(cmd);
}

int main(void) {
        _cleanup_free_ char *cg = own_cgroup(), *other = NULL;
        siginfo_t si = {};
        pid_t pid;
        int fd;

        tap_begin();
        if (!ok(cg != NULL, "this process's cgroup (cpu) from /proc/self/cgroup"))
                return tap_done();
        ok(asprintf(&other, "%s%sdlsched-test-other.slice/x.service", cg, endswith(cg, "/") ? "" : "/") > 0,
           "a cgroup below it that the child is not in");

        pid = sleeper();
        fd = threads_process_hold(pid, cg);
        ok(fd >= 0, "a live process in the unit's cgroup is held (%d)", fd);
        if (fd >= 0)
                close(fd);
        is_int(threads_process_hold(pid, other), -ESRCH,
               "a process in another cgroup (what a reused tid can be) is not held: -ESRCH");
        is_int(threads_process_hold(pid, "/dlsched-test-elsewhere.slice"), -ESRCH, "  nor under an unrelated slice");
        callers_skip_foreign(pid);

        /* Exited, its number not free yet (a zombie): not held. */
        kill(pid, SIGKILL);
        ok(waitid(P_PID, (id_t) pid, &si, WEXITED | WNOWAIT) == 0, "the child exited (a zombie)");
        is_int(threads_process_hold(pid, cg), -ESRCH, "an exited process, its number still taken, is not held: -ESRCH");
        /* Reaped: its number free. */
        ok(waitpid(pid, NULL, 0) == pid, "the child reaped");
        is_int(threads_process_hold(pid, cg), -ESRCH, "a number no task has is not held: -ESRCH");
        return tap_done();
}
