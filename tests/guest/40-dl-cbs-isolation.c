// SPDX-License-Identifier: GPL-2.0
/*
 * CBS isolation (mainline): one CPU-bound deadline hog per CPU, each with
 * 50 ms every 100 ms, is throttled to its runtime, and a well-behaved
 * deadline task beside them (20 ms every 100 ms, 10 ms of work per period)
 * completes its work in every period, for 20 periods.
 *
 * Without the CBS the hogs would keep every CPU (share near 1.0) and the
 * well-behaved task would starve. The checks: each hog's CPU share within
 * [0.42, 0.56] (50% plus at most one 1 ms tick of overrun per period and
 * the partial first and last periods), every job of the well-behaved task
 * done within its period, and the 20 jobs within 22 periods of wall time
 * (TCG can delay a wake-up by some milliseconds, not by periods).
 */
#include <sys/mman.h>
#include "dltask.h"

#define MSEC NSEC_PER_MSEC
#define PERIOD (100 * MSEC)
#define HOG_RUNTIME (50 * MSEC)
#define GOOD_RUNTIME (20 * MSEC)
#define GOOD_WORK (10 * MSEC)
#define JOBS 20
#define MAX_HOGS 64

struct good_result {
	int jobs;
	uint64_t max_response;
	uint64_t elapsed;
	int err;
};

static int good_task(void *arg)
{
	struct good_result *r = arg;
	uint64_t start, job, t;
	int i;

	r->err = dl_enter(GOOD_RUNTIME, PERIOD, PERIOD, 0);
	if (r->err)
		return 1;
	/* Begin on a period boundary. */
	sched_yield();
	start = now_ns();
	for (i = 0; i < JOBS; i++) {
		job = now_ns();
		spin_cpu_ns(GOOD_WORK);
		t = now_ns() - job;
		if (t > r->max_response)
			r->max_response = t;
		r->jobs++;
		/* A deadline task's sched_yield() ends the job until the next period. */
		sched_yield();
	}
	r->elapsed = now_ns() - start;
	return 0;
}

static int hog(void *arg)
{
	(void)arg;
	die_with_parent();
	if (dl_enter(HOG_RUNTIME, PERIOD, PERIOD, 0))
		return 1;
	for (;;)
		;
}

int main(void)
{
	int ncpus = online_cpus(), nhogs = 0, i, ok_hogs = 0, status;
	long long cap = dl_admission_cap();
	struct good_result *r;
	pid_t hogs[MAX_HOGS], good;
	uint64_t cpu0[MAX_HOGS], t0, elapsed;
	clockid_t clk[MAX_HOGS];

	ksft_print_header();
	ksft_set_plan(3);
	if (ncpus > MAX_HOGS ||
	    (cap > 0 && (long long)(dl_ratio(PERIOD, HOG_RUNTIME) * ncpus +
				    dl_ratio(PERIOD, GOOD_RUNTIME)) > cap))
		ksft_exit_skip("the load does not fit this machine\n");
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memset(r, 0, sizeof(*r));

	fflush(stdout);
	for (i = 0; i < ncpus; i++) {
		hogs[i] = fork();
		if (!hogs[i])
			_exit(hog(NULL));
		if (hogs[i] < 0)
			break;
		nhogs++;
	}
	usleep(50000);
	t0 = now_ns();
	for (i = 0; i < nhogs; i++) {
		if (clock_getcpuclockid(hogs[i], &clk[i]))
			ksft_exit_fail_msg("clock_getcpuclockid: %s\n", strerror(errno));
		cpu0[i] = clock_ns(clk[i]);
	}
	good = fork();
	if (!good) {
		die_with_parent();
		_exit(good_task(r));
	}
	status = -1;
	if (good > 0)
		waitpid(good, &status, 0);
	elapsed = now_ns() - t0;
	for (i = 0; i < nhogs; i++) {
		double share = (double)(clock_ns(clk[i]) - cpu0[i]) / elapsed;

		ksft_print_msg("hog %d: CPU share %.3f over %.0f ms\n", i, share, ms(elapsed));
		if (share >= 0.42 && share <= 0.56)
			ok_hogs++;
		kill_child(hogs[i]);
	}
	ksft_print_msg("well-behaved task: %d jobs in %.1f ms, longest job %.3f ms (work %.0f ms)\n",
		       r->jobs, ms(r->elapsed), ms(r->max_response), ms(GOOD_WORK));

	ksft_test_result(nhogs == ncpus && ok_hogs == nhogs,
			 "%d CPU-bound hogs throttled to their 50%% share (%d within [0.42, 0.56])\n",
			 nhogs, ok_hogs);
	ksft_test_result(WIFEXITED(status) && WEXITSTATUS(status) == 0 && r->jobs == JOBS &&
			 r->max_response <= PERIOD,
			 "well-behaved task: every job done within its period (%d jobs, longest %.3f ms)\n",
			 r->jobs, ms(r->max_response));
	ksft_test_result(r->jobs == JOBS && r->elapsed <= (JOBS + 2) * PERIOD,
			 "well-behaved task: %d jobs in %.1f ms (at most %d periods)\n", r->jobs,
			 ms(r->elapsed), JOBS + 2);
	ksft_finished();
}
