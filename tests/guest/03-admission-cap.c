// SPDX-License-Identifier: GPL-2.0
/*
 * Deadline admission control refuses what does not fit: threads that each
 * ask for the same bandwidth are admitted exactly up to the root domain's
 * cap, and the next request fails with EBUSY.
 */
#include <pthread.h>
#include "dltest.h"

#define PERIOD_NS (100 * NSEC_PER_MSEC)
#define MAX_THREADS 256

static int gate[2];

struct worker {
	pthread_t thread;
	int result;
	int ready[2];
};

/* Enter SCHED_DEADLINE, report, then block until the test ends. */
static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	char c;

	w->result = dl_enter(w->result, PERIOD_NS, PERIOD_NS, 0);
	if (write(w->ready[1], "x", 1) != 1)
		return NULL;
	if (!w->result && read(gate[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

int main(void)
{
	static struct worker workers[MAX_THREADS];
	long long cap = dl_admission_cap();
	uint64_t runtime, bw;
	int admitted = 0, expected, i, last_err = 0, err;
	char c;

	ksft_print_header();
	ksft_set_plan(3);
	if (cap <= 0)
		ksft_exit_skip("deadline admission control is off\n");

	/*
	 * Each thread asks for a slice of the cap such that exactly four fit,
	 * whatever the knobs say (never more than one CPU per thread).
	 */
	runtime = (uint64_t)((double)PERIOD_NS * cap / (4.5 * (1 << BW_SHIFT)));
	if (runtime > PERIOD_NS)
		runtime = PERIOD_NS;
	bw = dl_ratio(PERIOD_NS, runtime);
	expected = cap / bw;
	ksft_print_msg("cap %lld (fixed point) on %d CPUs, %llu per thread: expect %d admitted\n",
		       cap, online_cpus(), (unsigned long long)bw, expected);
	if (expected + 1 > MAX_THREADS)
		ksft_exit_fail_msg("cap too large for this test\n");
	if (pipe(gate))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));

	for (i = 0; i <= expected; i++) {
		struct worker *w = &workers[i];

		w->result = runtime;
		if (pipe(w->ready) || pthread_create(&w->thread, NULL, worker_fn, w))
			ksft_exit_fail_msg("thread %d: %s\n", i, strerror(errno));
		if (read(w->ready[0], &c, 1) != 1)
			ksft_exit_fail_msg("thread %d did not report\n", i);
		if (w->result) {
			last_err = -w->result;
			pthread_join(w->thread, NULL);
			break;
		}
		admitted++;
	}
	ksft_test_result(admitted == expected, "%d of %d threads admitted up to the cap\n",
			 admitted, expected);
	ksft_test_result(last_err == EBUSY, "the request past the cap fails with EBUSY (got %s)\n",
			 strerror(last_err));

	/* Release everything, then the same request fits again. */
	close(gate[1]);
	for (i = 0; i < admitted; i++)
		pthread_join(workers[i].thread, NULL);
	/* An exiting deadline task holds its bandwidth until its 0-lag time. */
	for (i = 0; i < 40 && (err = dl_enter(runtime, PERIOD_NS, PERIOD_NS, 0)) == -EBUSY; i++)
		usleep(50000);
	ksft_test_result(err == 0 && dl_leave() == 0,
			 "bandwidth is free again after the threads exit (%s)\n", strerror(-err));
	ksft_finished();
}
