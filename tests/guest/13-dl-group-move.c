// SPDX-License-Identifier: GPL-2.0
/*
 * Moving deadline tasks between cgroups moves their bandwidth: into an
 * empty group it succeeds, into a full one (or under a 0 reservation) it
 * fails with EBUSY and the task stays where it was, totals unchanged.
 * Tasks that are not SCHED_DEADLINE move freely.
 */
#include "dlgroup.h"

static bool totals_are(const char *cg, long long want)
{
	long long got = cg ? cg_total(cg) : pool_total();

	if (got != want)
		ksft_print_msg("%s: total %lld, want %lld\n", cg ? cg : "pool", got, want);
	return got == want;
}

static bool move_expect(const char *cg, struct dl_child *c, int want_err)
{
	int err = -cg_move(cg, c->pid);

	if (err != want_err)
		ksft_print_msg("move %d to %s: got %s, want %s\n", c->pid, cg,
			       strerror(err), strerror(want_err));
	return err == want_err;
}

int main(void)
{
	long long n = cpus(), f16 = BW_FRACTION(16) * n, q = BW_FRACTION(4);
	struct dl_child a, b, other;

	ksft_print_header();
	ksft_set_plan(9);
	dl_setup("dltest-13");
	set_dl_pool(750000, 250000);

	/* F and G reserve 1/16 of each CPU: n/16 CPU each; tasks of n/16 CPU fill them. */
	cg_create("F");
	cg_create("G");
	cg_create("U");
	cg_create("Z");
	if (cg_write_ll("F", "cpu.dl_runtime_us", 62500) ||
	    cg_write_ll("G", "cpu.dl_runtime_us", 62500) ||
	    cg_write_ll("Z", "cpu.dl_runtime_us", 0))
		ksft_exit_fail_msg("reserve: %s\n", strerror(errno));
	/* A task of n/16 CPU: runtime n * 100ms / 16 (n <= 16). */
	if (n > 16)
		ksft_exit_skip("more than 16 CPUs\n");

	a = dl_child_start("F", TASK_RUNTIME_NS(16) * n);
	ksft_test_result(a.err == 0 && totals_are("F", f16) && totals_are("G", 0),
			 "F filled by one task of %lld/16 CPU\n", n);
	ksft_test_result(move_expect("G", &a, 0) && cg_has("G", a.pid) && !cg_has("F", a.pid) &&
			 totals_are("F", 0) && totals_are("G", f16),
			 "moving it to the empty G moves its bandwidth\n");

	b = dl_child_start("F", TASK_RUNTIME_NS(16) * n);
	ksft_test_result(b.err == 0 && move_expect("G", &b, EBUSY) && cg_has("F", b.pid) &&
			 !cg_has("G", b.pid) && totals_are("F", f16) && totals_are("G", f16),
			 "moving a task from full F to full G: EBUSY, it stays in F\n");
	ksft_test_result(move_expect("Z", &b, EBUSY) && cg_has("F", b.pid) &&
			 totals_are("F", f16) && totals_are("Z", 0),
			 "moving it under a 0 reservation: EBUSY, it stays in F\n");

	/* U has no reservation: it charges the pool (2 * f16 reserved by F and G). */
	ksft_test_result(move_expect("U", &b, 0) && cg_has("U", b.pid) && totals_are("F", 0) &&
			 totals_are("U", f16) && totals_are(NULL, 3 * f16),
			 "moving it to U without reservation charges the pool: %lld\n", 3 * f16);
	ksft_test_result(move_expect("F", &b, 0) && totals_are("F", f16) && totals_are("U", 0) &&
			 totals_are(NULL, 2 * f16),
			 "and back into F\n");

	other = dl_child_start("F", 0);
	ksft_test_result(other.err == 0 && move_expect("G", &other, 0) && move_expect("Z", &other, 0) &&
			 totals_are("G", f16) && totals_are("Z", 0),
			 "a task that is not SCHED_DEADLINE moves into full and 0 groups freely\n");
	ksft_test_result(dl_child_set(&other, TASK_RUNTIME_NS(4)) == -EPERM &&
			 move_expect("U", &other, 0) && dl_child_set(&other, TASK_RUNTIME_NS(4)) == 0 &&
			 totals_are("U", q),
			 "it cannot become SCHED_DEADLINE under 0 (EPERM), but in U it can\n");

	dl_child_stop(&a);
	dl_child_stop(&b);
	dl_child_stop(&other);
	/* Exited tasks give back at their 0-lag time. */
	ksft_test_result(wait_total("F", 0) == 0 && wait_total("G", 0) == 0 &&
			 wait_total("U", 0) == 0 && totals_are(NULL, 2 * f16),
			 "all tasks exited: the groups read 0, the pool holds F and G\n");
	ksft_finished();
}
