// SPDX-License-Identifier: GPL-2.0
/*
 * Bug 6 of docs/kernel-bugs.md, fixed in the 6.1 series by patch 0007
 * ("sched/deadline: Refuse deadline parameters for a task that has
 * exited"): sched_setattr() makes a zombie SCHED_DEADLINE. The admission
 * charges the root domain, and a dead task is never dequeued again, so
 * nothing ever gives that bandwidth back. 6.12's __sched_setscheduler()
 * has no TASK_DEAD check (kernel/sched/syscalls.c).
 *
 * Two zombies, as in guest test 24 and the research notes:
 *   1. a child that exited and is not reaped yet (waitid(WNOWAIT));
 *   2. a thread-group leader that exited (SYS_exit) while another thread
 *      of its process lives on.
 * Each must be refused (the fix returns ESRCH) and the root domain's
 * total_bw must not move; once both are reaped it must be where it was.
 * On stock 6.12 both are accepted and total_bw keeps 2 x 10485 for good
 * (until a root domain rebuild recounts it).
 */
#include "repro.h"

#define RUNTIME (1 * NSEC_PER_MSEC)
#define PERIOD (100 * NSEC_PER_MSEC)

static int exit_now(void *arg)
{
	(void)arg;
	return 0;
}

static void *live_on(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* The leader leaves with SYS_exit: its process lives on in the other thread. */
static int leader_exits(void *arg)
{
	pthread_t th;

	(void)arg;
	if (pthread_create(&th, NULL, live_on, NULL))
		return 1;
	syscall(SYS_exit, 0);
	return 2;
}

/* Wait until @pid shows as a zombie, then a little for its last schedule. */
static bool wait_zombie(pid_t pid)
{
	int i;

	for (i = 0; i < 200 && proc_state(pid) != 'Z'; i++)
		sleep_ms(10);
	sleep_ms(200);
	return proc_state(pid) == 'Z';
}

/* sched_setattr(SCHED_DEADLINE) on the zombie @pid: refused and not charged? */
static bool try_zombie(const char *what, pid_t pid)
{
	struct repro_sched_attr got;
	long long before, after;
	int err;

	before = rd_total_bw(0);
	err = set_dl(pid, RUNTIME, PERIOD);
	after = rd_total_bw(0);
	diag("%s (pid %d, state %c): sched_setattr(SCHED_DEADLINE 1 ms/100 ms) = %s; "
	     "root domain total_bw %lld -> %lld (delta %lld)",
	     what, (int)pid, proc_state(pid), err ? strerror(-err) : "0 (accepted)", before,
	     after, after - before);
	if (!repro_getattr(pid, &got) && got.sched_policy == SCHED_DEADLINE)
		diag("%s now reports SCHED_DEADLINE %" PRIu64 "/%" PRIu64 " ns", what,
		     (uint64_t)got.sched_runtime, (uint64_t)got.sched_period);
	if (err && err != -ESRCH)
		diag("refused, but not with ESRCH as the 0007 fix does");
	return err && after == before;
}

int main(void)
{
	long long start, end;
	siginfo_t si;
	pid_t child, leader;
	bool ok;

	repro_start("repro-zombie-setattr",
		    "docs/kernel-bugs.md #6, 6.1 patch 0007 (a zombie made SCHED_DEADLINE)",
		    "sched_setattr(SCHED_DEADLINE) on zombies: refused, nothing charged", 60);
	plan_total_bw_checks(3);
	start = rd_total_bw(0);

	child = spawn(exit_now, NULL);
	if (waitid(P_PID, child, &si, WEXITED | WNOWAIT))
		bail("waitid: %s", strerror(errno));
	if (!wait_zombie(child))
		bail("child %d is not a zombie", (int)child);
	ok = try_zombie("an exited child not reaped yet", child);
	tap_result(ok, "an unreaped zombie child: SCHED_DEADLINE refused, root domain total_bw unchanged");

	leader = spawn(leader_exits, NULL);
	if (!wait_zombie(leader))
		bail("the leader of %d did not become a zombie", (int)leader);
	ok = try_zombie("an exited thread-group leader, its process alive", leader);
	tap_result(ok, "an exited thread-group leader: SCHED_DEADLINE refused, root domain total_bw unchanged");

	waitpid(child, NULL, 0);
	repro_forget_kid(child);
	kill_kid(leader);
	end = rd_total_bw_wait(start, 1000);
	diag("root domain total_bw %lld at the start, %lld after both are reaped (delta %lld; %lld per zombie)",
	     start, end, end - start, dl_bw(RUNTIME, PERIOD));
	tap_result(end == start, "both reaped: the root domain's total_bw is back where it was");
	tap_finish();
}
