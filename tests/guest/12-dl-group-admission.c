// SPDX-License-Identifier: GPL-2.0
/*
 * Hierarchical admission: reservations three levels deep, each fitting in
 * its nearest reserved ancestor (or the pool) and holding what is inside
 * it; a group filled to exactly its capacity, refusing one unit (2^-20 of
 * a CPU) more; new parameters of a task in
 * a full group; releasing a reservation (-1) moves its contents up; a 0
 * reservation refuses deadline tasks in its subtree (EPERM); groups
 * without a reservation charge upward. Exact totals after every step.
 */
#include "dlgroup.h"

static bool totals_are(const char *cg, long long want)
{
	long long got = cg ? cg_total(cg) : pool_total();

	if (got != want) {
		ksft_print_msg("%s: total %lld, want %lld\n", cg ? cg : "pool", got, want);
		failures++;
	}
	return got == want;
}

static bool set_expect(const char *cg, long long runtime_us, int want_err)
{
	int err = -cg_write_ll(cg, "cpu.dl_runtime_us", runtime_us);

	if (err != want_err)
		ksft_print_msg("%s: runtime %lld: got %s, want %s\n", cg, runtime_us,
			       strerror(err), strerror(want_err));
	return err == want_err;
}

static bool runtime_is(const char *cg, long long want)
{
	return cg_read(cg, "cpu.dl_runtime_us") == want;
}

/*
 * The smallest bandwidth there is, one unit (2^-20 of a CPU): 2048 ns every
 * 2^31 ns. One unit past a full group is refused as well.
 */
#define UNIT_RUNTIME_NS 2048ULL
#define UNIT_PERIOD_NS (1ULL << 31)

int main(void)
{
	long long n = cpus(), t32 = BW_FRACTION(32);
	long long f4 = BW_FRACTION(4) * n, f8 = BW_FRACTION(8) * n;
	long long f16 = BW_FRACTION(16) * n, f32 = BW_FRACTION(32) * n;
	struct dl_child c[MAX_CHILDREN], extra;
	int i, admitted = 0;

	ksft_print_header();
	ksft_set_plan(24);
	dl_setup("dltest-12");
	if (n + 4 > MAX_CHILDREN)
		ksft_exit_skip("too many CPUs for this test\n");
	/* The pool: 1/4 of each CPU. */
	set_dl_pool(750000, 250000);

	/* Three levels: A 1/8, A/B 1/16, A/B/C 1/32 of each CPU. */
	cg_create("A");
	cg_create("A/B");
	cg_create("A/B/C");
	ksft_test_result(set_expect("A", 125000, 0) && set_expect("A/B", 62500, 0) &&
			 set_expect("A/B/C", 31250, 0) &&
			 totals_are(NULL, f8) && totals_are("A", f16) &&
			 totals_are("A/B", f32) && totals_are("A/B/C", 0),
			 "nested reservations three levels deep: pool %lld, A %lld, B %lld, C 0\n",
			 f8, f16, f32);

	/* C holds n tasks of 1/32 CPU, exactly. */
	for (i = 0; i < n; i++) {
		c[i] = dl_child_start("A/B/C", TASK_RUNTIME_NS(32));
		if (!c[i].err)
			admitted++;
	}
	ksft_test_result(admitted == n && totals_are("A/B/C", f32) && totals_are("A/B", f32) &&
			 totals_are("A", f16) && totals_are(NULL, f8),
			 "C filled to exactly its capacity: %d tasks of 1/32 CPU\n", admitted);
	extra = dl_child_start("A/B/C", TASK_RUNTIME_NS(32));
	ksft_test_result(extra.err == EBUSY && totals_are("A/B/C", f32) && totals_are("A/B", f32),
			 "one more task in the full group: EBUSY (%s), totals unchanged\n",
			 strerror(extra.err));
	dl_child_stop(&extra);
	extra = dl_child_start_period("A/B/C", UNIT_RUNTIME_NS, UNIT_PERIOD_NS);
	ksft_test_result(dl_ratio(UNIT_PERIOD_NS, UNIT_RUNTIME_NS) == 1 && extra.err == EBUSY &&
			 totals_are("A/B/C", f32) && totals_are("A/B", f32),
			 "one unit of bandwidth (2^-20 CPU) more in the full group: EBUSY (%s), totals unchanged\n",
			 strerror(extra.err));
	/* Admitted, 2 us every 2 s would take minutes to exit: demote it first. */
	if (!extra.err)
		dl_child_set(&extra, 0);
	dl_child_stop(&extra);

	/* Shrinking busy groups. */
	ksft_test_result(set_expect("A/B/C", 31249, EBUSY) && runtime_is("A/B/C", 31250) &&
			 totals_are("A/B", f32),
			 "shrinking the full group C: EBUSY, nothing changed\n");
	ksft_test_result(set_expect("A/B", 31249, EBUSY) && runtime_is("A/B", 62500) &&
			 totals_are("A", f16),
			 "shrinking B below C's reservation: EBUSY, nothing changed\n");
	ksft_test_result(set_expect("A/B", 31250, 0) && totals_are("A", f32) &&
			 totals_are("A/B", f32) && set_expect("A/B", 62500, 0) &&
			 totals_are("A", f16),
			 "shrinking B to exactly what it holds, and back\n");

	/* Reservations beside B fit in what A has left, exactly. */
	cg_create("A/D");
	ksft_test_result(set_expect("A/D", 62501, EBUSY) && runtime_is("A/D", -1) &&
			 totals_are("A", f16),
			 "a sibling reservation past A's free bandwidth: EBUSY, nothing changed\n");
	ksft_test_result(set_expect("A/D", 62500, 0) && totals_are("A", f8) &&
			 set_expect("A/D", -1, 0) && totals_are("A", f16),
			 "a sibling reservation filling A exactly, then released\n");

	/* Top-level reservations fit in the pool, exactly. */
	cg_create("E");
	ksft_test_result(set_expect("E", 125001, EBUSY) && runtime_is("E", -1) &&
			 totals_are(NULL, f8),
			 "a top-level reservation past the pool's free bandwidth: EBUSY\n");
	ksft_test_result(set_expect("E", 125000, 0) && totals_are(NULL, f4) &&
			 set_expect("E", -1, 0) && totals_are(NULL, f8),
			 "a top-level reservation filling the pool exactly, then released\n");

	/* New parameters of a task in the full group. */
	ksft_test_result(dl_child_set(&c[0], TASK_RUNTIME_NS(16)) == -EBUSY &&
			 totals_are("A/B/C", f32),
			 "a task in the full group asking for more: EBUSY, nothing changed\n");
	ksft_test_result(dl_child_set(&c[0], TASK_RUNTIME_NS(64)) == 0 &&
			 totals_are("A/B/C", f32 - t32 / 2) &&
			 dl_child_set(&c[0], TASK_RUNTIME_NS(32)) == 0 && totals_are("A/B/C", f32),
			 "a task in the full group asking for less, then its share again\n");
	ksft_test_result(dl_child_set(&c[0], 0) == 0 &&
			 wait_total("A/B/C", f32 - t32) == f32 - t32 && totals_are("A/B", f32),
			 "a task leaving SCHED_DEADLINE gives back its share\n");

	/* -1 moves C's contents up into B. */
	ksft_test_result(set_expect("A/B/C", -1, 0) && totals_are("A/B/C", f32 - t32) &&
			 totals_are("A/B", f32 - t32) && totals_are("A", f16),
			 "releasing C moves its tasks into B: B %lld\n", f32 - t32);
	ksft_test_result(dl_child_set(&c[0], TASK_RUNTIME_NS(32)) == 0 &&
			 totals_are("A/B/C", f32) && totals_are("A/B", f32) &&
			 dl_child_set(&c[0], TASK_RUNTIME_NS(32) + 1000000) == 0 &&
			 totals_are("A/B", f32 + dl_ratio(TASK_PERIOD_NS, TASK_RUNTIME_NS(32) + 1000000) - t32),
			 "without C's reservation its tasks use B's (more than C had)\n");
	ksft_test_result(set_expect("A/B/C", 31250, EBUSY) && runtime_is("A/B/C", -1),
			 "C cannot reserve less than its tasks hold: EBUSY\n");
	ksft_test_result(dl_child_set(&c[0], TASK_RUNTIME_NS(32)) == 0 &&
			 set_expect("A/B/C", 31250, 0) && totals_are("A/B", f32) &&
			 totals_are("A/B/C", f32),
			 "C reserves again exactly what its tasks hold\n");

	/* A group without reservation charges upward. */
	cg_create("A/U");
	extra = dl_child_start("A/U", TASK_RUNTIME_NS(32));
	ksft_test_result(extra.err == 0 && totals_are("A/U", t32) && totals_are("A", f16 + t32) &&
			 totals_are(NULL, f8),
			 "a task in a group without reservation is charged to A\n");
	dl_child_stop(&extra);
	ksft_test_result(wait_total("A/U", 0) == 0 && totals_are("A", f16),
			 "and given back when it exits\n");

	/* A 0 reservation: no deadline task in the subtree. */
	cg_create("Z");
	ksft_test_result(set_expect("Z", 0, 0) && totals_are(NULL, f8),
			 "a 0 reservation holds nothing\n");
	extra = dl_child_start("Z", TASK_RUNTIME_NS(32));
	ksft_test_result(extra.err == EPERM && totals_are("Z", 0),
			 "a deadline task under a 0 reservation: EPERM (%s)\n", strerror(extra.err));
	dl_child_stop(&extra);
	cg_create("Z/Y");
	extra = dl_child_start("Z/Y", TASK_RUNTIME_NS(32));
	ksft_test_result(extra.err == EPERM && set_expect("Z/Y", 1, EBUSY) &&
			 set_expect("Z/Y", 0, 0) && totals_are("Z", 0) && totals_are("Z/Y", 0),
			 "below a 0 reservation: tasks EPERM (%s), reservations EBUSY, 0 allowed\n",
			 strerror(extra.err));
	dl_child_stop(&extra);

	/* Everything gone: every total reads 0. */
	for (i = 0; i < n; i++)
		dl_child_stop(&c[i]);
	ksft_test_result(wait_total("A/B/C", 0) == 0 && totals_are("A/B", f32) &&
			 set_expect("A/B/C", -1, 0) && set_expect("A/B", -1, 0) &&
			 set_expect("A", -1, 0) && set_expect("Z/Y", -1, 0) &&
			 set_expect("Z", -1, 0) && totals_are("A/B/C", 0) &&
			 totals_are("A/B", 0) && totals_are("A", 0) && totals_are(NULL, 0),
			 "all tasks exited, reservations released: every total reads 0\n");
	if (failures)
		ksft_print_msg("%d total mismatches\n", failures);
	ksft_finished();
}
