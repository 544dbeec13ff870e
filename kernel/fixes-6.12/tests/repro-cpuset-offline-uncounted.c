// SPDX-License-Identifier: GPL-2.0
/*
 * Bug 14 (its second half) of docs/kernel-bugs.md, fixed in the 6.1
 * series by patch 0016 ("sched/deadline: Count a task moved off an
 * offline CPU's root domain in its new one"): when cpuset narrows the
 * affinity of a SCHED_DEADLINE task asleep on an offline CPU (counted in
 * the default root domain, which has no active CPU),
 * set_cpus_allowed_dl() takes its bandwidth out of the default root
 * domain and relies on cpuset_can_attach() to have added it to the
 * destination, which nothing did on this path: the task is counted in
 * no root domain, and its release later takes from the destination what
 * it never held (6.12: kernel/sched/deadline.c, the same code).
 *
 * As guest test 27's third step, on cgroup v2: a child in a cpuset of its
 * own becomes SCHED_DEADLINE (10 ms/100 ms) on the highest CPU X and
 * sleeps; X goes offline; the cpuset's cpuset.cpus is written "0" (no
 * rebuild follows on v2). cpu0's root domain total_bw must then hold the
 * task's 104857 more than just before the write, and once the task has
 * exited, exactly what it held before the write.
 *
 * The same write divides by zero first on a kernel without the 0015 fix
 * (bug 14's first half, see repro-cpuset-offline-divide): on stock 6.12
 * the write oopses (reported as such, and this reproducer then fails for
 * 0015, not 0016); on a kernel with 0015 and without 0016 the two
 * total_bw checks fail (+0, then -104857).
 *
 * Needs 2 CPUs (one hot-pluggable) and the cgroup v2 cpuset controller.
 */
#include "repro.h"

#define RUNTIME (10 * NSEC_PER_MSEC)
#define PERIOD (100 * NSEC_PER_MSEC)

int main(void)
{
	const char *const oops_pat[] = { "divide error", "set_cpus_allowed_dl", "Oops", "BUG:", NULL };
	long long bw = dl_bw(RUNTIME, PERIOD), before, held, after, taint0;
	struct cgroup_dl_sleeper *sh;
	char cg[256], cpus_file[300];
	struct repro_sched_attr a;
	cpu_set_t mask;
	int cpu_x, err, kmsg;
	pid_t pid;

	repro_start("repro-cpuset-offline-uncounted",
		    "docs/kernel-bugs.md #14 (second half), 6.1 patch 0016 (a task moved off an offline CPU's root domain counted nowhere)",
		    "a deadline task asleep on an offline CPU, its cpuset's CPUs written: counted in cpu0's root domain",
		    90);
	cpu_x = require_offlinable_cpu();
	require_sched_debugfs();
	require_dl_admission();
	require_cgroup2_cpuset();
	tap_plan(3);
	sh = shared_alloc(sizeof(*sh));
	cgroup2_create("repro-cpuset-offline-uncounted", cg, sizeof(cg));
	snprintf(cpus_file, sizeof(cpus_file), "%s/cpuset.cpus", cg);
	taint0 = kernel_tainted();
	kmsg = kmsg_open();
	pid = spawn_cgroup_dl_sleeper(sh, cg, cpu_x, RUNTIME, PERIOD);
	if (last_cpu(pid) != cpu_x || proc_state(pid) != 'S')
		bail("the task could not be made to sleep on cpu%d (last cpu %d, state %c)", cpu_x,
		     last_cpu(pid), proc_state(pid));

	cpu_offline_or_bail(cpu_x);
	sleep_ms(200);
	if (repro_getattr(pid, &a) || a.sched_policy != SCHED_DEADLINE)
		bail("the task is no longer SCHED_DEADLINE after cpu%d went offline", cpu_x);

	/* Counted in the default root domain now; cpu0's does not hold it. */
	before = rd_total_bw(0);
	err = timed_write(cpus_file, "0", 10000);
	diag("task %d asleep on offline cpu%d; %s <- \"0\": %s", (int)pid, cpu_x, cpus_file,
	     err ? repro_strerror(err) : "done");
	if (err && err != REPRO_EHUNG && err != REPRO_EKILLED && !(kernel_tainted() & ~taint0 & TAINT_DIE))
		bail("write %s: %s", cpus_file, repro_strerror(err));
	if (err || (kernel_tainted() & ~taint0 & TAINT_DIE)) {
		kmsg_scan(kmsg, oops_pat, 20);
		/* The oops left the task's pi_lock held: waking it would spin for ever. */
		repro_forget_kid(pid);
		repro.wedged = 1;
		diag("the write failed (taint %lld, was %lld): on a kernel without the 0015 fix this is its "
		     "divide error, which hides 0016; see repro-cpuset-offline-divide", kernel_tainted(), taint0);
		tap_result(false, "cpuset.cpus written under the task asleep on an offline CPU");
		tap_skip("not reached");
		tap_skip("not reached");
		tap_finish();
	}
	tap_result(!sched_getaffinity(pid, sizeof(mask), &mask) &&
		   CPU_COUNT(&mask) == 1 && CPU_ISSET(0, &mask),
		   "cpuset.cpus written under the task asleep on an offline CPU: its affinity is cpu0, no oops");
	held = rd_total_bw(0);
	diag("cpu0's root domain total_bw %lld before the write, %lld after (delta %lld, the task's bw %lld)",
	     before, held, held - before, bw);
	tap_result(held - before == bw, "the task's bandwidth is now counted in cpu0's root domain");

	kill_kid(pid);
	after = rd_total_bw_wait(before, 2000);
	diag("after the task exited: cpu0's root domain total_bw %lld (delta %lld from before the write)",
	     after, after - before);
	tap_result(after == before, "after the task exits, cpu0's root domain is back where it was before the write");
	tap_finish();
}
