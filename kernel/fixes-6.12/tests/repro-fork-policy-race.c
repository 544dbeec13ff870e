// SPDX-License-Identifier: GPL-2.0
/*
 * Bug 8 of docs/kernel-bugs.md, fixed in the 6.1 series by patch 0009
 * ("sched/core: Copy the parent's policy and priorities consistently"):
 * fork() copies the parent's policy without a lock (dup_task_struct()),
 * and sched_fork() reads its normal_prio later. A parent moved out of
 * SCHED_DEADLINE in between gives a child whose policy is SCHED_DEADLINE
 * but whose priority is a normal one: it passes the "a deadline task may
 * not fork" check (dl_prio(p->prio)) and runs in the fair class with no
 * bandwidth admitted. 6.12's sched_fork() is unchanged (core.c).
 *
 * As guest test 24: one thread moves the main thread in and out of
 * SCHED_DEADLINE while the main thread forks in a loop for up to 8 s;
 * each child reports its own policy. No child may be SCHED_DEADLINE (the
 * fix: the fork is refused with EAGAIN, or the child is SCHED_OTHER).
 * Statistical: on 6.1 without the fix 139 of 794 children were; a pass
 * after few forks proves little (the count is printed).
 */
#include "repro.h"

#define RACE_NS (8 * NSEC_PER_SEC)
#define ENOUGH_HITS 20

static volatile int toggling = 1;

int main(void)
{
	unsigned long forks = 0, refused = 0, dl_children = 0, fair_prio = 0;
	long long start, end;
	struct dl_toggle toggle = { .run = &toggling };
	uint64_t deadline;
	pthread_t th;
	int status;

	repro_start("repro-fork-policy-race",
		    "docs/kernel-bugs.md #8, 6.1 patch 0009 (fork() racing a policy change: a SCHED_DEADLINE child without bandwidth)",
		    "fork while another thread moves the parent in and out of SCHED_DEADLINE: no child is SCHED_DEADLINE (statistical)",
		    90);
	require_sched_debugfs();
	require_dl_admission();
	tap_plan(2);
	diag_other_dl_tasks(false);
	start = rd_total_bw(0);
	toggle.target = (pid_t)syscall(SYS_gettid);	/* the main thread, which forks */
	if (pthread_create(&th, NULL, dl_toggler, &toggle))
		bail("pthread_create");
	deadline = now_ns() + RACE_NS;
	do {
		pid_t pid = fork();

		if (pid < 0) {
			/* A deadline task without reset-on-fork may not fork. */
			if (errno != EAGAIN)
				bail("fork: %s", strerror(errno));
			refused++;
			continue;
		}
		if (!pid) {
			char f[16] = "";

			if (policy_of(0) != SCHED_DEADLINE)
				_exit(0);
			/* Field 18, priority: 20 for a nice-0 fair task. */
			proc_stat_field("/proc/self/stat", 18, f, sizeof(f));
			_exit(atoi(f) == 20 ? 2 : 1);
		}
		forks++;
		if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status)) {
			dl_children++;
			if (WEXITSTATUS(status) == 2)
				fair_prio++;
		}
	} while (now_ns() < deadline && dl_children < ENOUGH_HITS);
	toggling = 0;
	pthread_join(th, NULL);
	set_other(0);
	diag("%lu children, %lu forks refused (EAGAIN), %lu children SCHED_DEADLINE (%lu of them with a fair priority)",
	     forks, refused, dl_children, fair_prio);
	tap_result(forks > 0, "the race ran (%lu forks while the parent's policy changed)", forks);
	tap_result(!dl_children, "no child is SCHED_DEADLINE (%lu of %lu are)", dl_children, forks);
	end = rd_total_bw_wait(start, 2000);
	if (end != start)
		diag("root domain total_bw %lld at the start, %lld after the race (not a verdict here)",
		     start, end);
	tap_finish();
}
