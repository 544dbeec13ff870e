/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Clocks and CPU burning, shared by the guest tests (tests/guest/dltask.h)
 * and make bench's guest programs (bench/guest/dlb.h).
 */
#ifndef DLSCHED_CPUCLOCK_H
#define DLSCHED_CPUCLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static inline uint64_t thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/*
 * Burn @ns of the calling thread's CPU time. Returns the longest step
 * between two reads of the thread's CPU clock: they come some tens of
 * microseconds apart, so a step of VCPU_STALL_NS or more is time the
 * thread was charged for without running its loop. Under TCG, where the
 * host runs 4 vCPU threads on 2 CPUs, that is a vCPU the host did not run
 * (steps of 4 to 13 ms were traced), and a deadline task pays for it with
 * its runtime.
 */
#define VCPU_STALL_NS 2000000ULL	/* 2 ms */

static inline uint64_t spin_cpu_ns(uint64_t ns)
{
	uint64_t t = thread_cpu_ns(), end = t + ns, prev, step = 0;

	while (t < end) {
		prev = t;
		t = thread_cpu_ns();
		if (t - prev > step)
			step = t - prev;
	}
	return step;
}

#endif
