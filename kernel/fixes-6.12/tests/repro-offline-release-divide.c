// SPDX-License-Identifier: GPL-2.0
/*
 * Bug 3 of docs/kernel-bugs.md, fixed in the 6.1 series by patch 0001
 * ("sched/deadline: Do not divide by zero releasing a task's
 * bandwidth"). kernel-bugs.md files it under the series' own code (its
 * 6.1 crash was in the series' dl_task_release_bw()), but the research
 * notes (build/fixes-612/research.md, "Note on 0001") find the same
 * division in mainline 6.12, unverified: the inactive timer of a task
 * that exited before its 0-lag time releases its bandwidth with
 * __dl_sub(dl_b, p->dl.dl_bw, dl_bw_cpus(task_cpu(p)))
 * (inactive_task_timer(), kernel/sched/deadline.c). If the CPU the task
 * last ran on went offline meanwhile, that CPU's runqueue belongs to the
 * default root domain, which has no active CPU: dl_bw_cpus() is 0, a
 * divide error in hard interrupt context, a kernel panic. This
 * reproducer settles whether mainline reaches it.
 *
 * Recipe: a child becomes SCHED_DEADLINE (100 ms every 4 s) on the
 * highest CPU X, spins 70 ms of its runtime and exits: its 0-lag time is
 * 2.8 s after its admission (deadline - 30 ms x 4 s/100 ms), and its
 * inactive timer is armed for then. X goes offline at once (the rebuild
 * attaches X's runqueue to the default root domain); the reproducer
 * waits past the 0-lag time with X offline. It passes if it is still
 * there, with no new oops (taint D) and no divide error in the log.
 * On a kernel with the division the machine panics at the 0-lag time
 * ("divide error" in inactive_task_timer(), "Fatal exception in
 * interrupt"): the output stops there and the console shows it.
 * Needs 2 CPUs, one hot-pluggable.
 */
#include "repro.h"

#define RUNTIME (100 * NSEC_PER_MSEC)
#define PERIOD (4 * NSEC_PER_SEC)
#define SPENT (70 * NSEC_PER_MSEC)

struct shared {
	volatile int ready, err, cpu;
	volatile uint64_t t_admit;
};

static struct shared *sh;
static int cpu_x;

static int child(void *arg)
{
	(void)arg;
	sh->err = dl_enter_on_cpu(cpu_x, RUNTIME, PERIOD, PERIOD);
	sh->t_admit = now_ns();
	if (sh->err) {
		sh->ready = 1;
		return 1;
	}
	spin_cpu_ns(SPENT);
	sh->cpu = sched_getcpu();
	sh->ready = 1;
	return 0;	/* exits within its 0-lag window, on cpu_x */
}

int main(void)
{
	const char *const oops_pat[] = { "divide error", "inactive_task_timer", "Oops", "BUG:", NULL };
	uint64_t zerolag, offline_done;
	long long taint0, taint;
	int kmsg, oopses, exited_on;
	siginfo_t si;
	pid_t pid;

	repro_start("repro-offline-release-divide",
		    "docs/kernel-bugs.md #3, 6.1 patch 0001 (divide by zero releasing the bandwidth of a task whose last CPU went offline; "
		    "filed as the series' own code, the same division is in mainline inactive_task_timer())",
		    "a deadline task exits within its 0-lag window, its CPU goes offline, the 0-lag time passes: no divide error",
		    60);
	cpu_x = require_offlinable_cpu();
	require_dl_admission();
	tap_plan(2);
	sh = shared_alloc(sizeof(*sh));
	taint0 = kernel_tainted();
	kmsg = kmsg_open();
	pid = spawn(child, NULL);
	if (waitid(P_PID, pid, &si, WEXITED | WNOWAIT))
		bail("waitid: %s", strerror(errno));
	if (sh->err)
		bail("the child could not enter SCHED_DEADLINE on cpu%d: %s", cpu_x, strerror(-sh->err));
	sleep_ms(20);	/* its last schedule, which arms the inactive timer */
	exited_on = last_cpu(pid);
	zerolag = sh->t_admit + PERIOD - (RUNTIME - SPENT) * (PERIOD / RUNTIME);
	cpu_offline_or_bail(cpu_x);
	offline_done = now_ns();
	diag("task %d: SCHED_DEADLINE 100 ms/4 s on cpu%d, spent 70 ms, exited on cpu%d; cpu%d offline "
	     "%.0f ms before its 0-lag time", (int)pid, sh->cpu, exited_on, cpu_x,
	     ((double)zerolag - (double)offline_done) / 1e6);
	if (exited_on != cpu_x || offline_done + 100 * NSEC_PER_MSEC > zerolag) {
		tap_skip("the task did not exit on cpu%d, or cpu%d went offline too late", cpu_x, cpu_x);
		tap_skip("not reached");
		tap_finish();
	}
	tap_result(true, "the task exited on cpu%d within its 0-lag window and cpu%d went offline before it",
		   cpu_x, cpu_x);
	diag("waiting past its 0-lag time with cpu%d offline: a kernel with the division panics now", cpu_x);
	sleep_until(zerolag + 1500 * NSEC_PER_MSEC);
	taint = kernel_tainted();
	oopses = kmsg_scan(kmsg, oops_pat, 20);
	diag("still running %.0f ms after the 0-lag time; taint %lld (was %lld)",
	     ((double)now_ns() - (double)zerolag) / 1e6, taint, taint0);
	tap_result(!(taint & ~taint0 & TAINT_DIE) && oopses <= 0,
		   "the exited task's bandwidth was released with its last CPU offline: no divide error");
	waitpid(pid, NULL, 0);
	repro_forget_kid(pid);
	tap_finish();
}
