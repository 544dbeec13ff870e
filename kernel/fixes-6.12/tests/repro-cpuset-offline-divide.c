// SPDX-License-Identifier: GPL-2.0
/*
 * Bug 14 (its first half) of docs/kernel-bugs.md, fixed in the 6.1
 * series by patch 0015 ("sched/deadline: Do not divide by zero moving a
 * task off an offline CPU's root domain"): a SCHED_DEADLINE task asleep
 * on a CPU that went offline keeps that CPU as task_cpu(); the offline
 * CPU's runqueue belongs to the default root domain, where the rebuild
 * after the hotplug counted the task. When cpuset narrows the task's
 * affinity again (a second CPU going offline), set_cpus_allowed_dl()
 * takes the bandwidth out of that root domain with
 * __dl_sub(..., dl_bw_cpus(task_cpu(p))): 0 active CPUs there, a divide
 * error. 6.12 code is the same (kernel/sched/deadline.c), and its cpuset
 * hotplug handling is synchronous, so the oops is in the CPU hotplug
 * path (cpuhp thread of the CPU going down) and the offline never
 * completes.
 *
 * As guest test 27 on cgroup v2: a child in a cpuset of its own (all
 * CPUs) becomes SCHED_DEADLINE (1 ms/100 ms) on the highest CPU X and
 * sleeps there; X goes offline (the task's affinity narrows, it stays
 * SCHED_DEADLINE); then a second CPU Y goes offline: the write must
 * complete within 10 s with no oops. On stock 6.12 it hangs (divide
 * error in set_cpus_allowed_dl() on the console, taint D); the
 * reproducer then leaves the CPUs and the cgroup as they are (further
 * hotplug writes would hang too) and the kernel needs a reboot.
 *
 * Needs 3 CPUs (two hot-pluggable) and the cgroup v2 cpuset controller.
 */
#include "repro.h"

#define RUNTIME (1 * NSEC_PER_MSEC)
#define PERIOD (100 * NSEC_PER_MSEC)

/* Alive, SCHED_DEADLINE 1 ms/100 ms, @cpu out of its affinity. */
static bool task_fine(pid_t pid, int cpu)
{
	struct repro_sched_attr a;
	cpu_set_t mask;
	bool alive = !kill(pid, 0), dl, narrowed;

	dl = !repro_getattr(pid, &a) && a.sched_policy == SCHED_DEADLINE && a.sched_runtime == RUNTIME &&
	     a.sched_period == PERIOD;
	narrowed = !sched_getaffinity(pid, sizeof(mask), &mask) && !CPU_ISSET(cpu, &mask) &&
		   CPU_COUNT(&mask) > 0;
	diag("task %d: alive %d, SCHED_DEADLINE 1 ms/100 ms %d, cpu%d out of its affinity %d", (int)pid,
	     alive, dl, cpu, narrowed);
	return alive && dl && narrowed;
}

int main(void)
{
	const char *const oops_pat[] = { "divide error", "set_cpus_allowed_dl", "Oops", "BUG:", NULL };
	struct cgroup_dl_sleeper *sh;
	long long taint0, taint;
	int cpu_x, cpu_y, err, kmsg, oopses;
	char cg[256];
	pid_t pid;

	repro_start("repro-cpuset-offline-divide",
		    "docs/kernel-bugs.md #14 (first half), 6.1 patch 0015 (divide error narrowing the affinity of a task asleep on an offline CPU)",
		    "a deadline task asleep on an offline CPU, in a cpuset; a second CPU goes offline: no divide error",
		    90);
	require_two_offlinable_cpus(&cpu_x, &cpu_y);
	require_dl_admission();
	require_cgroup2_cpuset();
	tap_plan(3);
	sh = shared_alloc(sizeof(*sh));
	cgroup2_create("repro-cpuset-offline-divide", cg, sizeof(cg));
	taint0 = kernel_tainted();
	kmsg = kmsg_open();
	pid = spawn_cgroup_dl_sleeper(sh, cg, cpu_x, RUNTIME, PERIOD);
	diag("task %d in %s, SCHED_DEADLINE on cpu%d, asleep (state %c, last cpu %d); cpu%d then cpu%d go offline",
	     (int)pid, cg, sh->cpu, proc_state(pid), last_cpu(pid), cpu_x, cpu_y);
	if (last_cpu(pid) != cpu_x || proc_state(pid) != 'S')
		bail("the task could not be made to sleep on cpu%d", cpu_x);

	cpu_offline_or_bail(cpu_x);
	sleep_ms(200);
	tap_result(task_fine(pid, cpu_x), "cpu%d offline under the sleeping task: still SCHED_DEADLINE, affinity narrowed",
		   cpu_x);

	/* Its root domain is now the default one, with no active CPU. */
	err = cpu_set_online(cpu_y, false, 10000);
	taint = kernel_tainted();
	oopses = kmsg_scan(kmsg, oops_pat, 20);
	diag("cpu%d offline: %s; taint %lld (was %lld)", cpu_y, err ? repro_strerror(err) : "done", taint,
	     taint0);
	if (err == REPRO_EHUNG || err == REPRO_EKILLED || (taint & ~taint0 & TAINT_DIE)) {
		diag("the offline of cpu%d did not complete cleanly: a divide error in set_cpus_allowed_dl() "
		     "(see the console) killed the hotplug thread holding the task's locks; the task, the "
		     "CPUs and the cgroup are left as they are: reboot this kernel", cpu_y);
		repro_forget_kid(pid);	/* waking it would spin on its pi_lock for ever */
		repro.wedged = 1;
	}
	tap_result(!err && !(taint & ~taint0 & TAINT_DIE) && oopses <= 0,
		   "cpu%d offline too: cpuset narrows the task out of the default root domain without a divide error",
		   cpu_y);
	if (err || repro.wedged)
		tap_skip("the task after the second offline: not checked");
	else
		tap_result(task_fine(pid, cpu_y), "after cpu%d went offline the task is still SCHED_DEADLINE", cpu_y);
	if (!repro.wedged)
		kill_kid(pid);
	tap_finish();
}
