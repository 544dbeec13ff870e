// SPDX-License-Identifier: GPL-2.0
/*
 * Deadline signals: SCHED_FLAG_DL_OVERRUN (mainline, the series'
 * SCHED_SIG_RORUN) sends SIGXCPU, si_code SI_KERNEL, once per throttled
 * instance; SCHED_FLAG_DL_DMISS (this series) sends it once per instance
 * that runs past its absolute deadline, and never to a task that meets its
 * deadlines.
 *
 * Counts are checked against the number of periods with a margin for
 * the first and last period and for coalescing (SIGXCPU is not queued).
 */
#include "dltask.h"

#define MSEC NSEC_PER_MSEC
#define RUN_NS (1000 * MSEC)

struct spin_args {
	uint64_t runtime, deadline, period, flags;
	uint64_t run_ns;
};

/*
 * Spin as a deadline task for run_ns of wall time, and exit with the number
 * of SIGXCPU received (SI_KERNEL), or 255 if one had another si_code.
 */
static int spin_counting(void *arg)
{
	struct spin_args *a = arg;
	uint64_t end;

	die_with_parent();
	CHILD_EXPECT(!count_xcpu(), "sigaction: %s\n", strerror(errno));
	if (dl_enter_admitted(a->runtime, a->deadline, a->period, a->flags)) {
		ksft_print_msg("sched_setattr: %s\n", strerror(errno));
		return 254;
	}
	end = now_ns() + a->run_ns;
	while (now_ns() < end)
		;
	dl_leave();
	if (xcpu_other)
		return 255;
	return xcpu_kernel > 250 ? 250 : xcpu_kernel;
}

static int flags_child(void *arg)
{
	struct sched_attr a = dlsched_deadline_attr(5 * MSEC, 100 * MSEC, 100 * MSEC, 0);
	struct sched_attr got = { 0 };

	(void)arg;
	a.sched_flags = SCHED_FLAG_DL_DMISS;
	CHILD_EXPECT(!dlsched_sched_setattr(0, &a, 0) &&
		     !dlsched_sched_getattr(0, &got, sizeof(got), 0),
		     "sched_setattr/getattr: %s\n", strerror(errno));
	CHILD_EXPECT(got.sched_flags == SCHED_FLAG_DL_DMISS, "flags read back %#llx\n",
		     (unsigned long long)got.sched_flags);
	/* The next bit is unknown: refused, and the task keeps its flags. */
	a.sched_flags = SCHED_FLAG_ALL << 1 & ~SCHED_FLAG_ALL;
	CHILD_EXPECT(dlsched_sched_setattr(0, &a, 0) && errno == EINVAL,
		     "flag %#llx: %s, want EINVAL\n", (unsigned long long)a.sched_flags,
		     strerror(errno));
	CHILD_EXPECT(!dlsched_sched_getattr(0, &got, sizeof(got), 0) &&
		     got.sched_flags == SCHED_FLAG_DL_DMISS,
		     "flags after the refused call %#llx\n", (unsigned long long)got.sched_flags);
	return 0;
}

static void flags_accepted(void)
{
	int ret = run_child(flags_child, NULL);

	ksft_test_result(SCHED_FLAG_DL_DMISS == 0x80 && (SCHED_FLAG_ALL & 0x80) && ret == 0,
			 "SCHED_FLAG_DL_DMISS (0x80, in SCHED_FLAG_ALL) is accepted and read back, the next bit is EINVAL\n");
}

/*
 * A CPU-bound task with runtime 5 ms every 100 ms is throttled once in
 * each of the 10 periods it spins through: 10 signals, 9 if a vCPU stall
 * charged to it is paid back over a later period, 11 if an 11th instance
 * begins before it stops. 12 was seen once under TCG (4 vCPUs on 2 host
 * CPUs), so the window is 8..12: the bugs it catches, no signal at all or
 * one per tick while throttled, give 0 or hundreds. SIGXCPU is not
 * queued, but 95 ms separate two throttlings, time enough to handle each
 * signal.
 */
static void overrun(void)
{
	struct spin_args a = { 5 * MSEC, 100 * MSEC, 100 * MSEC, SCHED_FLAG_DL_OVERRUN, RUN_NS };
	int periods = RUN_NS / a.period;
	int n = run_child(spin_counting, &a), none;

	ksft_print_msg("overrun: %d SIGXCPU in %d periods\n", n, periods);
	ksft_test_result(n >= periods - 2 && n <= periods + 2,
			 "SCHED_FLAG_DL_OVERRUN: one SIGXCPU (SI_KERNEL) per throttled period (%d, want %d..%d)\n",
			 n, periods - 2, periods + 2);
	a.flags = 0;
	none = run_child(spin_counting, &a);
	ksft_test_result(none == 0, "no SIGXCPU without the flag (%d)\n", none);
	/* Throttled every period, it never runs past a deadline. */
	a.flags = SCHED_FLAG_DL_DMISS;
	none = run_child(spin_counting, &a);
	ksft_test_result(none == 0, "SCHED_FLAG_DL_DMISS: no SIGXCPU for a throttled task that meets its deadlines (%d)\n",
			 none);
}

/*
 * A deadline miss that does not depend on timing: GRUB reclaiming
 * (SCHED_FLAG_RECLAIM, mainline) lets a task alone on its CPU use what the
 * others leave, up to the RT limit Umax (95 %): its runtime is consumed at
 * the rate max(u / Umax, 1 - Uinact - Uextra) of the elapsed time. A
 * CPU-bound task of 10 ms every 100 ms with a 20 ms deadline consumes it
 * at about u / Umax = 10.5 % of the time, so it runs some 95 ms of each
 * period, 75 ms past its absolute deadline, in every instance, however
 * the host schedules the vCPUs (its runtime goes no faster than that), and
 * is throttled before the next period. With SCHED_FLAG_DL_DMISS: exactly
 * one SIGXCPU (SI_KERNEL) per instance, 10 in the 10 periods it spins
 * through (8..12 for the first and last period, as for the overrun),
 * where a signal at each tick past the deadline would be some 75 per
 * instance; none without the flag. With the throttled task of overrun()
 * (deadline = period, never past it: no signal with the flag), the two
 * tell a deadline miss from a runtime overrun.
 */
static void deadline_miss(void)
{
	struct spin_args a = { 10 * MSEC, 20 * MSEC, 100 * MSEC, SCHED_FLAG_DL_DMISS | SCHED_FLAG_RECLAIM,
			       RUN_NS };
	int periods = RUN_NS / a.period;
	int n = run_child(spin_counting, &a), none;

	ksft_print_msg("deadline miss: %d SIGXCPU in %d periods\n", n, periods);
	ksft_test_result(n >= periods - 2 && n <= periods + 2,
			 "SCHED_FLAG_DL_DMISS: one SIGXCPU (SI_KERNEL) per instance run past its deadline (%d, want %d..%d)\n",
			 n, periods - 2, periods + 2);
	a.flags = SCHED_FLAG_RECLAIM;
	none = run_child(spin_counting, &a);
	ksft_test_result(none == 0, "no SIGXCPU for the same task without the flag (%d)\n", none);
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(6);
	flags_accepted();
	overrun();
	deadline_miss();
	ksft_finished();
}
