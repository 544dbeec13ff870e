// SPDX-License-Identifier: GPL-2.0
/*
 * CBS isolation (mainline): one CPU-bound deadline hog per CPU is throttled
 * to its runtime, and a well-behaved deadline task beside them receives its
 * runtime in every period, measured over 40 periods of 100 ms.
 *
 * The load is sized to the free bandwidth of the pool, whatever the knobs
 * say: each hog gets 60 % of a CPU's share (at most half a CPU), the
 * well-behaved task 75 % of what is left (at most a fifth of a CPU) and has
 * a job of a third of its runtime every period. Under the series' default
 * pool (5 % of each of 4 CPUs) that is 3 ms per hog and 6 ms for the
 * well-behaved task with 2 ms jobs: 18 % of a CPU, which fits.
 *
 * Without the CBS a hog would keep its CPU (share near 1) and, its
 * deadline passing, win every EDF decision against the well-behaved task.
 *
 * What is measured, with the tolerances (W the wall time, about 4 s):
 *  - each hog's CPU share within [0.9 Q/P - 2Q/W, Q/P + (Q + 20 ms)/W]: an
 *    overrun is paid back in the next periods, so only the partial periods
 *    at both ends and one overrun still unpaid at the end (a TCG vCPU stall
 *    of up to 20 ms charged to the hog, 60 ms on the debug kernel, whose
 *    stalls are longer: 33 ms seen) move it; below, 10 % for
 *    replenishment timers that fire late under TCG. One extra runtime per
 *    period (2 Q/P) is far outside.
 *  - the well-behaved task (with SCHED_FLAG_DL_OVERRUN) is never stopped
 *    before it has used its runtime: a job that takes more than half a
 *    period of wall time (1 ms of work) must have been throttled, and is
 *    accepted only if a runtime overrun signal came while it ran. Under TCG
 *    a vCPU stall is charged to the task that runs, so a job may run out of
 *    runtime and end in the next period: it has still received its
 *    runtime, which is what the CBS promises. A task starved by the hogs
 *    waits without an overrun.
 */
#include <math.h>
#include <sys/mman.h>
#include "dltask.h"

#define MSEC NSEC_PER_MSEC
#define PERIOD (100 * MSEC)
#define JOBS 40
#define OVERRUN_NS (20 * MSEC)
#define MAX_HOGS 64

struct good_result {
	int err;
	int jobs;
	int throttled;		/* jobs that took more than half a period */
	int starved;		/* ... without a runtime overrun signal */
	int overruns;		/* SIGXCPU, SI_KERNEL */
	int other_signals;	/* SIGXCPU with another si_code */
};

struct load {
	uint64_t hog_runtime, good_runtime, good_work;
};

static struct load load;

static int good_task(void *arg)
{
	struct good_result *r = arg;
	uint64_t start;
	int i, overruns;

	die_with_parent();
	if (count_xcpu())
		return 1;
	r->err = -dl_enter_admitted(load.good_runtime, PERIOD, PERIOD, SCHED_FLAG_DL_OVERRUN);
	if (r->err)
		return 1;
	/* A deadline task's sched_yield() ends the instance: begin on a period boundary. */
	sched_yield();
	for (i = 0; i < JOBS; i++) {
		start = now_ns();
		overruns = xcpu_kernel;
		spin_cpu_ns(load.good_work);
		if (now_ns() - start > PERIOD / 2) {
			r->throttled++;
			if (xcpu_kernel == overruns)
				r->starved++;
		}
		r->jobs++;
		sched_yield();
	}
	r->overruns = xcpu_kernel;
	r->other_signals = xcpu_other;
	return 0;
}

static void hog(void)
{
	die_with_parent();
	if (dl_enter_admitted(load.hog_runtime, PERIOD, PERIOD, 0))
		_exit(1);
	for (;;)
		;
}

/* Runtime of @frac of a CPU every PERIOD, in whole microseconds. */
static uint64_t runtime_of(double frac)
{
	return (uint64_t)(frac * PERIOD / NSEC_PER_USEC) * NSEC_PER_USEC;
}

/* Size the load to the free bandwidth; false if it is too small to measure. */
static bool size_load(int ncpus)
{
	long long cap = dl_admission_cap(), held = dl_pool_wait(0);
	double free_bw, hog_frac, good_frac;

	if (cap < 0) {
		/* admission control off: the sizes of a 50 % pool */
		cap = (long long)ncpus << (BW_SHIFT - 1);
		held = 0;
	}
	free_bw = (double)(cap - (held > 0 ? held : 0)) / (1 << BW_SHIFT);
	hog_frac = fmin(0.6 * free_bw / ncpus, 0.5);
	good_frac = fmin(0.75 * (free_bw - ncpus * hog_frac), 0.2);
	load.hog_runtime = runtime_of(hog_frac);
	load.good_runtime = runtime_of(good_frac);
	load.good_work = load.good_runtime / 3;
	ksft_print_msg("free pool %.3f CPUs on %d: hogs %.1f ms, well-behaved task %.1f ms (jobs of %.1f ms) every %.0f ms\n",
		       free_bw, ncpus, ms(load.hog_runtime), ms(load.good_runtime), ms(load.good_work),
		       ms(PERIOD));
	return load.hog_runtime >= MSEC && load.good_runtime >= MSEC;
}

int main(void)
{
	int ncpus = online_cpus(), nhogs = 0, i, ok_hogs = 0, status = -1;
	double q_p, lo, hi, share;
	struct good_result *r;
	pid_t hogs[MAX_HOGS], good;
	uint64_t cpu0[MAX_HOGS], t0, elapsed;
	clockid_t clk[MAX_HOGS];

	ksft_print_header();
	ksft_set_plan(3);
	if (ncpus > MAX_HOGS)
		ksft_exit_skip("more than %d CPUs\n", MAX_HOGS);
	if (!size_load(ncpus))
		ksft_exit_skip("the free deadline pool is too small for 1 ms runtimes\n");
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memset(r, 0, sizeof(*r));

	fflush(stdout);
	for (i = 0; i < ncpus; i++) {
		hogs[i] = fork();
		if (!hogs[i])
			hog();
		if (hogs[i] < 0)
			break;
		nhogs++;
	}
	usleep(50000);
	for (i = 0; i < nhogs; i++) {
		if (sched_getscheduler(hogs[i]) != SCHED_DEADLINE)
			ksft_exit_fail_msg("hog %d is not SCHED_DEADLINE (not admitted?)\n", i);
		if (clock_getcpuclockid(hogs[i], &clk[i]))
			ksft_exit_fail_msg("clock_getcpuclockid: %s\n", strerror(errno));
	}
	t0 = now_ns();
	for (i = 0; i < nhogs; i++)
		cpu0[i] = clock_ns(clk[i]);
	good = fork();
	if (!good)
		_exit(good_task(r));
	if (good > 0)
		waitpid(good, &status, 0);
	elapsed = now_ns() - t0;

	q_p = (double)load.hog_runtime / PERIOD;
	lo = 0.9 * q_p - 2.0 * load.hog_runtime / elapsed;
	hi = q_p + (double)(load.hog_runtime + (dl_debug_kernel() ? 3 : 1) * OVERRUN_NS) / elapsed;
	for (i = 0; i < nhogs; i++) {
		share = (double)(clock_ns(clk[i]) - cpu0[i]) / elapsed;
		ksft_print_msg("hog %d: CPU share %.4f over %.0f ms\n", i, share, ms(elapsed));
		if (share >= lo && share <= hi)
			ok_hogs++;
		kill_child(hogs[i]);
	}
	ksft_print_msg("well-behaved task: %d jobs of %.1f ms (runtime %.1f ms), %d throttled, %d runtime overruns, %d stopped without one\n",
		       r->jobs, ms(load.good_work), ms(load.good_runtime), r->throttled, r->overruns,
		       r->starved);

	ksft_test_result(nhogs == ncpus && ok_hogs == nhogs,
			 "%d CPU-bound hogs throttled to their runtime: %d of %d shares within [%.4f, %.4f]\n",
			 ncpus, ok_hogs, nhogs, lo, hi);
	ksft_test_result(WIFEXITED(status) && WEXITSTATUS(status) == 0 && r->jobs == JOBS,
			 "well-behaved task admitted beside them and ran %d of %d jobs (%s)\n", r->jobs,
			 JOBS, strerror(r->err));
	ksft_test_result(r->jobs == JOBS && !r->starved && !r->other_signals,
			 "well-behaved task: never stopped before using its runtime (%d of %d jobs stopped without an overrun)\n",
			 r->starved, r->throttled);
	ksft_finished();
}
