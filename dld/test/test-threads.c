/* SPDX-License-Identifier: GPL-2.0-or-later */
/* threads_process_hold(): the guard against a reused thread id. A number
 * dld read from a unit's cgroup.threads that now belongs to a task in
 * another cgroup, or to no live task, is never acted on. */
#include <signal.h>
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

        /* Exited, its number not free yet (a zombie): not held. */
        kill(pid, SIGKILL);
        ok(waitid(P_PID, (id_t) pid, &si, WEXITED | WNOWAIT) == 0, "the child exited (a zombie)");
        is_int(threads_process_hold(pid, cg), -ESRCH, "an exited process, its number still taken, is not held: -ESRCH");
        /* Reaped: its number free. */
        ok(waitpid(pid, NULL, 0) == pid, "the child reaped");
        is_int(threads_process_hold(pid, cg), -ESRCH, "a number no task has is not held: -ESRCH");
        return tap_done();
}
