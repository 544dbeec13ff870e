// SPDX-License-Identifier: GPL-2.0
/*
 * Deadline signals: SCHED_FLAG_DL_OVERRUN (mainline, the series'
 * SCHED_SIG_RORUN) sends SIGXCPU, si_code SI_KERNEL, once per throttled
 * instance; SCHED_FLAG_DL_DMISS (this series) sends it when a task runs
 * past its absolute deadline, and never to a task that meets its deadlines.
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
	uint64_t release;	/* if not 0: sleep until then (CLOCK_MONOTONIC) */
};

/*
 * Spin as a deadline task for run_ns of wall time, and exit with the number
 * of SIGXCPU received (SI_KERNEL), or 255 if one had another si_code.
 */
static int spin_counting(void *arg)
{
	struct spin_args *a = arg;
	struct timespec release = ns_to_ts(a->release);
	uint64_t end;

	die_with_parent();
	CHILD_EXPECT(!count_xcpu(), "sigaction: %s\n", strerror(errno));
	if (dl_enter_admitted(a->runtime, a->deadline, a->period, a->flags)) {
		ksft_print_msg("sched_setattr: %s\n", strerror(errno));
		return 254;
	}
	while (a->release && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &release, NULL))
		;
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
	struct sched_attr a = dl_attr(10 * MSEC, 100 * MSEC, 100 * MSEC), got = { 0 };

	(void)arg;
	a.sched_flags = SCHED_FLAG_DL_DMISS;
	CHILD_EXPECT(!sched_setattr(0, &a, 0) && !sched_getattr(0, &got, sizeof(got), 0),
		     "sched_setattr/getattr: %s\n", strerror(errno));
	CHILD_EXPECT(got.sched_flags == SCHED_FLAG_DL_DMISS, "flags read back %#llx\n",
		     (unsigned long long)got.sched_flags);
	/* The next bit is unknown: refused, and the task keeps its flags. */
	a.sched_flags = SCHED_FLAG_ALL << 1 & ~SCHED_FLAG_ALL;
	CHILD_EXPECT(sched_setattr(0, &a, 0) && errno == EINVAL, "flag %#llx: %s, want EINVAL\n",
		     (unsigned long long)a.sched_flags, strerror(errno));
	CHILD_EXPECT(!sched_getattr(0, &got, sizeof(got), 0) && got.sched_flags == SCHED_FLAG_DL_DMISS,
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
 * A CPU-bound task with runtime 10 ms every 100 ms is throttled once in
 * each of the 10 periods it spins through: 10 signals, 9 if a vCPU stall
 * charged to it is paid back over a later period, 11 if an 11th instance
 * begins before it stops. SIGXCPU is not queued, but 90 ms separate two
 * throttlings, time enough to handle each signal.
 */
static void overrun(void)
{
	struct spin_args a = { 10 * MSEC, 100 * MSEC, 100 * MSEC, SCHED_FLAG_DL_OVERRUN, RUN_NS, 0 };
	int periods = RUN_NS / a.period;
	int n = run_child(spin_counting, &a), none;

	ksft_print_msg("overrun: %d SIGXCPU in %d periods\n", n, periods);
	ksft_test_result(n >= periods - 1 && n <= periods + 1,
			 "SCHED_FLAG_DL_OVERRUN: one SIGXCPU (SI_KERNEL) per throttled period (%d, want %d..%d)\n",
			 n, periods - 1, periods + 1);
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
 * Deadline misses by global EDF with constrained deadlines: one CPU-bound
 * hog per CPU (30 ms of runtime, deadline 30 ms, every second) and a victim
 * (30 ms, deadline 40 ms, every second, SCHED_FLAG_DL_DMISS) released
 * together. The hogs' earlier deadlines take every CPU for their first
 * 30 ms; the victim, left with 10 ms before its deadline, is still running
 * when it passes. It gets at most 10 ms plus the spread of the releases
 * before its deadline, so it misses while they are released within 20 ms
 * of one another.
 *
 * They are released by a wake-up at one absolute CLOCK_MONOTONIC instant,
 * 3 s ahead: more than a period after the last of them can have been
 * admitted (dl_enter_admitted() waits up to 2 s), since a constrained
 * deadline task woken before its next period is held until then. Each
 * begins a new instance at that wake-up.
 * The victim spins through 3 periods (2.5 s; the replenishment timers of
 * all five fire together) and misses once per instance. The load,
 * 5 x 3 % of a CPU, fits the series' default pool (5 % of each of 4 CPUs).
 */
static void deadline_miss(void)
{
	struct spin_args victim = { 30 * MSEC, 40 * MSEC, 1000 * MSEC, SCHED_FLAG_DL_DMISS, 2500 * MSEC, 0 };
	struct spin_args hog = { 30 * MSEC, 30 * MSEC, 1000 * MSEC, 0, 2500 * MSEC, 0 };
	int ncpus = online_cpus(), i, status, n = -1, hogs_ok = 0;
	long long cap = dl_admission_cap();
	pid_t hogs[64], vpid;

	if (ncpus < 2 || ncpus > 64 ||
	    (cap > 0 && (long long)(dl_ratio(1000, 30) * (ncpus + 1)) > cap)) {
		ksft_test_result_skip("deadline miss: needs 2..64 CPUs and room for the load\n");
		return;
	}
	/* Room for all five, so that none waits to be admitted. */
	if (dl_wait_room(30 * MSEC * (ncpus + 1), 1000 * MSEC))
		ksft_print_msg("no room for the load: %s\n", strerror(errno));
	victim.release = now_ns() + 3000 * MSEC;
	hog.release = victim.release;
	fflush(stdout);
	for (i = 0; i < ncpus; i++) {
		hogs[i] = fork();
		if (!hogs[i])
			_exit(spin_counting(&hog));
	}
	vpid = fork();
	if (!vpid) {
		status = spin_counting(&victim);
		fflush(stdout);
		_exit(status);
	}
	if (vpid > 0 && waitpid(vpid, &status, 0) == vpid && WIFEXITED(status))
		n = WEXITSTATUS(status);
	for (i = 0; i < ncpus; i++)
		if (hogs[i] > 0 && waitpid(hogs[i], &status, 0) == hogs[i] && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0)
			hogs_ok++;
	ksft_print_msg("deadline miss: %d SIGXCPU in 3 periods, %d of %d hogs admitted and unsignalled\n",
		       n, hogs_ok, ncpus);
	ksft_test_result(hogs_ok == ncpus && n >= 1 && n <= 3,
			 "SCHED_FLAG_DL_DMISS: SIGXCPU (SI_KERNEL) when running past the deadline, at most once per instance (%d, want 1..3)\n",
			 n);
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(5);
	flags_accepted();
	overrun();
	deadline_miss();
	ksft_finished();
}
