// SPDX-License-Identifier: GPL-2.0
/*
 * The release half of the 6.1 series' patch 0002 ("sched/deadline:
 * Release the bandwidth of a blocked task ..."), with 0002's
 * hrtimer_is_queued(); listed in the research's summary table (no number
 * in docs/kernel-bugs.md): a SCHED_DEADLINE task that blocked longer ago
 * than its 0-lag time, then moved out of SCHED_DEADLINE while still
 * blocked, keeps its bandwidth in the root domain for good.
 *
 * 6.12: sched_dl_overflow() leaves the release of a task leaving
 * SCHED_DEADLINE "to switched_from_dl() at the 0-lag time", but
 * switched_from_dl() only fixes the runqueue utilizations for a task not
 * queued, and the inactive timer, which fired while the task was still
 * SCHED_DEADLINE, gave nothing back then (kernel/sched/deadline.c).
 *
 * A child enters SCHED_DEADLINE (10 ms/100 ms) and blocks; 300 ms later
 * (its 0-lag time long passed) the reproducer makes it SCHED_OTHER. The
 * root domain's total_bw must drop back by the task's 104857 within a
 * second. On stock 6.12 it stays up (until a root domain rebuild).
 */
#include "repro.h"

#define RUNTIME (10 * NSEC_PER_MSEC)
#define PERIOD (100 * NSEC_PER_MSEC)

struct shared {
	volatile int ready, err;
};

static struct shared *sh;
static int gate[2];

static int dl_then_block(void *arg)
{
	char c;

	(void)arg;
	close(gate[1]);
	sh->err = set_dl(0, RUNTIME, PERIOD);
	sh->ready = 1;
	while (read(gate[0], &c, 1) > 0)
		;
	return 0;
}

int main(void)
{
	long long start, admitted, left, end, bw = dl_bw(RUNTIME, PERIOD);
	int err;
	pid_t pid;

	repro_start("repro-blocked-leave-bw",
		    "research summary table: 6.1 patch 0002 (release part) + 0002 "
		    "(a blocked task leaving SCHED_DEADLINE after its 0-lag time keeps its bandwidth)",
		    "a task made SCHED_OTHER while blocked past its 0-lag time gives its bandwidth back", 60);
	plan_total_bw_checks(3);
	sh = shared_alloc(sizeof(*sh));
	if (pipe(gate))
		bail("pipe: %s", strerror(errno));
	start = rd_total_bw(0);
	pid = spawn(dl_then_block, NULL);
	close(gate[0]);
	wait_child_in_dl(&sh->ready, &sh->err, -1);
	admitted = rd_total_bw(0);
	diag("child %d SCHED_DEADLINE 10 ms/100 ms: root domain total_bw %lld -> %lld (bw %lld)",
	     (int)pid, start, admitted, bw);
	tap_result(admitted - start == bw, "admission charged the task's bandwidth (delta %lld, want %lld)",
		   admitted - start, bw);

	/* Blocked for three periods: its 0-lag time and inactive timer are long past. */
	sleep_ms(300);
	diag("child state %c before the demotion", proc_state(pid));
	err = set_other(pid);
	if (err)
		bail("sched_setattr(SCHED_OTHER): %s", strerror(-err));
	left = rd_total_bw_wait(start, 1000);
	diag("made SCHED_OTHER while blocked: root domain total_bw %lld (start %lld, delta %lld)", left,
	     start, left - start);
	tap_result(left == start, "made SCHED_OTHER while blocked past its 0-lag time: its bandwidth is released");

	close(gate[1]);
	waitpid(pid, NULL, 0);
	repro_forget_kid(pid);
	end = rd_total_bw_wait(start, 1000);
	diag("after the child exited: root domain total_bw %lld (delta %lld)", end, end - start);
	tap_result(end == start, "after the task exits: the root domain's total_bw is back where it was");
	tap_finish();
}
