// SPDX-License-Identifier: GPL-2.0
/*
 * Giving back: task exit, leaving SCHED_DEADLINE, a task exiting after its
 * group gave up its reservation, removing groups that hold reservations
 * (top-level and nested). Afterwards every total reads 0.
 *
 * A removed group gives its reservation back when the cgroup goes offline,
 * which the kernel does asynchronously (after an RCU grace period) once
 * rmdir() returned, and a task that exits or leaves SCHED_DEADLINE gives
 * back at its 0-lag time (18 tests that window): the test waits up to 5 s
 * for the totals.
 */
#include "dlgroup.h"

static bool totals_are(const char *cg, long long want)
{
	long long got = cg ? cg_total(cg) : pool_total();

	if (got != want)
		ksft_print_msg("%s: total %lld, want %lld\n", cg ? cg : "pool", got, want);
	return got == want;
}

int main(void)
{
	long long n = cpus(), f16 = BW_FRACTION(16) * n, f32 = BW_FRACTION(32) * n;
	long long t32 = BW_FRACTION(32);
	struct dl_child a, b;

	ksft_print_header();
	ksft_set_plan(8);
	dl_setup("dltest-14");
	set_dl_pool(750000, 250000);

	cg_create("R");
	if (cg_write_ll("R", "cpu.dl_runtime_us", 62500))
		ksft_exit_fail_msg("reserve R: %s\n", strerror(errno));
	a = dl_child_start("R", TASK_RUNTIME_NS(32));
	b = dl_child_start("R", TASK_RUNTIME_NS(32));
	ksft_test_result(a.err == 0 && b.err == 0 && totals_are("R", 2 * t32) &&
			 totals_are(NULL, f16),
			 "two tasks in R: R %lld, pool %lld\n", 2 * t32, f16);
	dl_child_stop(&a);
	ksft_test_result(wait_total("R", t32) == t32 && totals_are(NULL, f16),
			 "a task exits: R gets its share back (at its 0-lag time)\n");
	ksft_test_result(dl_child_set(&b, 0) == 0 && wait_total("R", 0) == 0,
			 "a task leaves SCHED_DEADLINE: R reads 0\n");

	/* Charged to R, then R releases its reservation: the task's share moves to the pool. */
	ksft_test_result(dl_child_set(&b, TASK_RUNTIME_NS(32)) == 0 &&
			 cg_write_ll("R", "cpu.dl_runtime_us", -1) == 0 &&
			 totals_are("R", t32) && totals_are(NULL, t32),
			 "R releases its reservation: its task is charged to the pool\n");
	dl_child_stop(&b);
	ksft_test_result(wait_total("R", 0) == 0 && totals_are(NULL, 0),
			 "the task exits: the pool reads 0\n");

	/* Removing groups that hold reservations. */
	cg_create("P");
	cg_create("P/Q");
	if (cg_write_ll("R", "cpu.dl_runtime_us", 62500) ||
	    cg_write_ll("P", "cpu.dl_runtime_us", 62500) ||
	    cg_write_ll("P/Q", "cpu.dl_runtime_us", 31250))
		ksft_exit_fail_msg("reserve: %s\n", strerror(errno));
	ksft_test_result(totals_are(NULL, 2 * f16) && totals_are("P", f32),
			 "R and P reserve 1/16, P/Q 1/32 of each CPU\n");
	ksft_test_result(cg_remove("P/Q") == 0 && wait_total("P", 0) == 0 &&
			 cg_remove("R") == 0 && wait_total(NULL, f16) == f16,
			 "removing P/Q and R gives their reservations back: P 0, pool %lld\n", f16);
	ksft_test_result(cg_remove("P") == 0 && wait_total(NULL, 0) == 0,
			 "removing P: the pool reads 0\n");
	ksft_finished();
}
