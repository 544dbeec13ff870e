// SPDX-License-Identifier: GPL-2.0
/*
 * Deadline admission control refuses what does not fit: threads that each
 * ask for the same bandwidth are admitted exactly up to the root domain's
 * cap, and the next request fails with EBUSY.
 */
#include "dltest.h"

#define PERIOD_NS (100 * NSEC_PER_MSEC)

int main(void)
{
	static struct dl_fill fill;
	long long cap = dl_admission_cap();
	uint64_t runtime, bw;
	int expected, i, err;

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
	err = dl_fill(&fill, runtime, PERIOD_NS, expected + 1);
	if (err)
		ksft_exit_fail_msg("admission probe: %s\n", strerror(-err));
	ksft_test_result(fill.admitted == expected, "%d of %d threads admitted up to the cap\n",
			 fill.admitted, expected);
	ksft_test_result(fill.err == EBUSY, "the request past the cap fails with EBUSY (got %s)\n",
			 strerror(fill.err));

	/* Release everything, then the same request fits again. */
	dl_fill_release(&fill);
	/* An exiting deadline task holds its bandwidth until its 0-lag time. */
	for (i = 0; i < 40 && (err = dl_enter(runtime, PERIOD_NS, PERIOD_NS, 0)) == -EBUSY; i++)
		usleep(50000);
	ksft_test_result(err == 0 && dl_leave() == 0,
			 "bandwidth is free again after the threads exit (%s)\n", strerror(-err));
	ksft_finished();
}
