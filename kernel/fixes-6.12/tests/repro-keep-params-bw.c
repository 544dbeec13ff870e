// SPDX-License-Identifier: GPL-2.0
/*
 * Bug 7 of docs/kernel-bugs.md, fixed in the 6.1 series by patch 0008
 * ("sched/deadline: Leave the bandwidth alone under
 * SCHED_FLAG_KEEP_PARAMS"): sched_setattr() with SCHED_FLAG_KEEP_PARAMS
 * runs the deadline admission on parameters it then does not apply.
 * Asking SCHED_DEADLINE with it for a SCHED_OTHER task leaves the task
 * SCHED_OTHER but charges the root domain (6.12: syscalls.c, the
 * sched_dl_overflow() call of __sched_setscheduler()), and nothing ever
 * gives it back.
 *
 * On 6.12 sys_sched_setattr() fills the runtime in from the fair task
 * (get_params(): its slice, about 3 ms), so the deadline and period asked
 * here (100 ms) are above it. Checks: the task stays SCHED_OTHER, the
 * root domain's total_bw does not move, and after the task exits it is
 * where it was. On stock 6.12 it grows by slice/100 ms (about 24000)
 * and stays there.
 */
#include "repro.h"

#define PERIOD (100 * NSEC_PER_MSEC)

static int sleep_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 0;
}

int main(void)
{
	struct repro_sched_attr a = dl_attr(2 * NSEC_PER_MSEC, PERIOD, PERIOD), got;
	long long start, before, after, end, slice = -1, charge;
	int err, policy;
	pid_t pid;

	repro_start("repro-keep-params-bw",
		    "docs/kernel-bugs.md #7, 6.1 patch 0008 (SCHED_FLAG_KEEP_PARAMS charges bandwidth)",
		    "SCHED_DEADLINE with SCHED_FLAG_KEEP_PARAMS on a SCHED_OTHER task: nothing charged", 60);
	plan_total_bw_checks(3);
	start = rd_total_bw(0);

	pid = spawn(sleep_forever, NULL);
	sleep_ms(50);
	if (!repro_getattr(pid, &got))
		slice = (long long)got.sched_runtime;	/* 6.12: the fair task's slice */
	charge = slice > 0 ? dl_bw(slice, PERIOD) : -1;
	a.sched_flags = SCHED_FLAG_KEEP_PARAMS;
	before = rd_total_bw(0);
	err = repro_setattr(pid, &a);
	after = rd_total_bw(0);
	policy = policy_of(pid);
	diag("sched_setattr(SCHED_DEADLINE, KEEP_PARAMS, 100 ms/100 ms) on SCHED_OTHER task %d "
	     "(slice %lld ns) = %s; its policy is now %d",
	     (int)pid, slice, err ? strerror(-err) : "0", policy);
	diag("root domain total_bw %lld -> %lld (delta %lld; the bug charges to_ratio(100 ms, slice) = %lld)",
	     before, after, after - before, charge);
	tap_result(policy == SCHED_OTHER, "the task is still SCHED_OTHER");
	tap_result(after == before, "KEEP_PARAMS charged nothing to the root domain");

	kill_kid(pid);
	end = rd_total_bw_wait(start, 1000);
	diag("root domain total_bw %lld at the start, %lld after the task exited (delta %lld)", start,
	     end, end - start);
	tap_result(end == start, "after the task exits: the root domain's total_bw is back where it was");
	tap_finish();
}
