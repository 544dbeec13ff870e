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
	int gate;		/* if > 0: start when it reads EOF */
};

/*
 * Spin as a deadline task for run_ns of wall time, and exit with the number
 * of SIGXCPU received (SI_KERNEL), or 255 if one had another si_code.
 */
static int spin_counting(void *arg)
{
	struct spin_args *a = arg;
	uint64_t end;

	char c;

	die_with_parent();
	CHILD_EXPECT(!count_xcpu(), "sigaction: %s\n", strerror(errno));
	if (a->gate > 0 && read(a->gate, &c, 1) < 0)
		return 253;
	if (dl_enter(a->runtime, a->deadline, a->period, a->flags)) {
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

static void flags_accepted(void)
{
	struct sched_attr a = dl_attr(10 * MSEC, 100 * MSEC, 100 * MSEC), got = { 0 };
	pid_t pid = fork();
	int status;

	if (!pid) {
		a.sched_flags = SCHED_FLAG_DL_DMISS;
		if (sched_setattr(0, &a, 0) || sched_getattr(0, &got, sizeof(got), 0))
			_exit(1);
		if (got.sched_flags != SCHED_FLAG_DL_DMISS)
			_exit(2);
		a.sched_flags = SCHED_FLAG_ALL << 1 & ~SCHED_FLAG_ALL;
		if (!sched_setattr(0, &a, 0) || errno != EINVAL)
			_exit(3);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ksft_test_result(SCHED_FLAG_DL_DMISS == 0x80 && (SCHED_FLAG_ALL & 0x80) &&
			 WIFEXITED(status) && WEXITSTATUS(status) == 0,
			 "SCHED_FLAG_DL_DMISS (0x80, in SCHED_FLAG_ALL) is accepted and read back, the next bit is EINVAL (%d)\n",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* A CPU-bound task with runtime 10 ms every 100 ms overruns each period. */
static void overrun(void)
{
	struct spin_args a = { 10 * MSEC, 100 * MSEC, 100 * MSEC, SCHED_FLAG_DL_OVERRUN, RUN_NS, 0 };
	int n = run_child(spin_counting, &a), none;

	ksft_print_msg("overrun: %d SIGXCPU in %d periods\n", n, (int)(RUN_NS / a.period));
	/* 10 periods, and an 11th begun within the second */
	ksft_test_result(n >= 5 && n <= 12,
			 "SCHED_FLAG_DL_OVERRUN: one SIGXCPU (SI_KERNEL) per throttled period (%d, want 5..12)\n",
			 n);
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
 * Deadline misses by global EDF (Dhall's effect): one CPU-bound hog per CPU
 * (120 ms every 200 ms, deadline 120 ms) and a victim (160 ms every 200 ms)
 * released together. The hogs' earlier deadlines take every CPU for the
 * first 120 ms, so the victim cannot run 160 ms before its deadline: it
 * misses as long as they are all released within 80 ms (160 + 120 - 200)
 * of one another, which TCG's wake-up delays stay far below. The total
 * bandwidth, 0.6 per CPU + 0.8, passes admission control.
 */
static void deadline_miss(void)
{
	struct spin_args victim = { 160 * MSEC, 200 * MSEC, 200 * MSEC, SCHED_FLAG_DL_DMISS, 2000 * MSEC, 0 };
	struct spin_args hog = { 120 * MSEC, 120 * MSEC, 200 * MSEC, 0, 2400 * MSEC, 0 };
	int ncpus = online_cpus(), i, status, n = -1, gate[2];
	long long cap = dl_admission_cap();
	pid_t hogs[64], vpid;

	if (ncpus < 2 || ncpus > 64 ||
	    (cap > 0 && (long long)(dl_ratio(200, 120) * ncpus + dl_ratio(200, 160)) > cap)) {
		ksft_test_result_skip("deadline miss: needs 2..64 CPUs and room for the load\n");
		return;
	}
	if (pipe(gate)) {
		ksft_test_result_fail("pipe: %s\n", strerror(errno));
		return;
	}
	/* Everybody waits at the gate, so that they are released together. */
	victim.gate = gate[0];
	hog.gate = gate[0];
	fflush(stdout);
	for (i = 0; i < ncpus; i++) {
		hogs[i] = fork();
		if (!hogs[i]) {
			close(gate[1]);
			_exit(spin_counting(&hog));
		}
	}
	vpid = fork();
	if (!vpid) {
		close(gate[1]);
		status = spin_counting(&victim);
		fflush(stdout);
		_exit(status);
	}
	close(gate[1]);
	if (vpid > 0 && waitpid(vpid, &status, 0) == vpid && WIFEXITED(status))
		n = WEXITSTATUS(status);
	for (i = 0; i < ncpus; i++)
		kill_child(hogs[i]);
	ksft_print_msg("deadline miss: %d SIGXCPU in %d periods\n", n, 10);
	ksft_test_result(n >= 1 && n <= 12,
			 "SCHED_FLAG_DL_DMISS: SIGXCPU (SI_KERNEL) when running past the deadline, at most one per period (%d)\n",
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
