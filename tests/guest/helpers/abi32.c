// SPDX-License-Identifier: GPL-2.0
/*
 * abi32: the series' four system calls from a 32-bit (i386) program, which
 * test 49 runs in the 64-bit guest through IA32 emulation. The numbers are
 * the i386 table's (the same as x86_64's, include/dlsched/syscalls.h), and
 * struct sched_param_ex has one layout on both ABIs: 64 bytes, 64-bit
 * timespecs at the same offsets (pinned below at compile time, as in the
 * 64-bit test 47). A kernel that read the 32-bit structure with another
 * layout would set other parameters than sched_getattr() then reports, or
 * swap fields, or refuse it; one that wrote a compat (32-bit) timespec to
 * rmtp would garble the remainder. Prints TAP; runs as root (it enters
 * SCHED_DEADLINE).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>
#include <dlsched/sched.h>
#include <dlsched/syscalls.h>
#include "kselftest.h"

_Static_assert(sizeof(long) == 4 && sizeof(void *) == 4, "abi32 is built with -m32");
DLSCHED_ASSERT_PARAM_EX_LAYOUT();

#define MSEC 1000000LL
#define NSEC_PER_SEC 1000000000LL
/* Under TCG a timer wake-up can come tens of milliseconds late (test 46). */
#define LATE_NS (100 * MSEC)

static struct __kernel_timespec kts(long long ns)
{
	struct __kernel_timespec ts = { .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };

	return ts;
}

static long long kts_ns(const struct __kernel_timespec *ts)
{
	return ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

/* CLOCK_MONOTONIC in ns (the C library's 32-bit timespec holds it until 2106). */
static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static struct sched_param_ex param_ex(long long runtime, long long deadline, long long period,
				      unsigned int flags)
{
	struct sched_param_ex p;

	/* Every byte, the reserved fields too: they must be 0. */
	memset(&p, 0, sizeof(p));
	p.sched_runtime = kts(runtime);
	p.sched_deadline = kts(deadline);
	p.sched_period = kts(period);
	p.sched_flags = flags;
	return p;
}

/* Does sched_getparam_ex() read exactly @want back, reserved fields 0? */
static bool param_reads_back(const struct sched_param_ex *want)
{
	struct sched_param_ex q;

	/* A field the kernel does not write keeps this pattern. */
	memset(&q, 0xa5, sizeof(q));
	if (dlsched_sched_getparam_ex(0, sizeof(q), &q)) {
		ksft_print_msg("sched_getparam_ex: %s\n", strerror(errno));
		return false;
	}
	if (!memcmp(&q, want, sizeof(q)))
		return true;
	ksft_print_msg("read: prio %d rsv1 %#x runtime {%lld, %lld} deadline {%lld, %lld} period {%lld, %lld} flags %#x rsv2 %#x\n",
		       q.sched_priority, q.__reserved1, q.sched_runtime.tv_sec, q.sched_runtime.tv_nsec,
		       q.sched_deadline.tv_sec, q.sched_deadline.tv_nsec, q.sched_period.tv_sec,
		       q.sched_period.tv_nsec, q.sched_flags, q.__reserved2);
	ksft_print_msg("want: prio %d rsv1 %#x runtime {%lld, %lld} deadline {%lld, %lld} period {%lld, %lld} flags %#x rsv2 %#x\n",
		       want->sched_priority, want->__reserved1, want->sched_runtime.tv_sec,
		       want->sched_runtime.tv_nsec, want->sched_deadline.tv_sec,
		       want->sched_deadline.tv_nsec, want->sched_period.tv_sec,
		       want->sched_period.tv_nsec, want->sched_flags, want->__reserved2);
	return false;
}

/* Does the kernel's own view (sched_getattr) match? */
static bool attr_is(unsigned int policy, long long runtime, long long deadline, long long period,
		    unsigned long long flags)
{
	struct sched_attr a;

	memset(&a, 0, sizeof(a));
	if (dlsched_sched_getattr(0, &a, sizeof(a), 0)) {
		ksft_print_msg("sched_getattr: %s\n", strerror(errno));
		return false;
	}
	if (a.sched_policy == policy && a.sched_runtime == (unsigned long long)runtime &&
	    a.sched_deadline == (unsigned long long)deadline &&
	    a.sched_period == (unsigned long long)period && a.sched_flags == flags)
		return true;
	ksft_print_msg("sched_getattr: policy %u (%llu, %llu, %llu) flags %#llx, want %u (%lld, %lld, %lld) flags %#llx\n",
		       a.sched_policy, (unsigned long long)a.sched_runtime,
		       (unsigned long long)a.sched_deadline, (unsigned long long)a.sched_period,
		       (unsigned long long)a.sched_flags, policy, runtime, deadline, period, flags);
	return false;
}

/* -errno of a call's result. */
static int err_of(long ret)
{
	return ret ? -errno : 0;
}

static void on_alarm(int sig)
{
	(void)sig;
}

int main(void)
{
	/* Distinct values, one with whole seconds: a swapped or shifted field shows. */
	struct sched_param_ex p = param_ex(1 * MSEC, 10 * MSEC, 1500 * MSEC,
					   SCHED_SIG_RORUN | SCHED_SIG_DMISS), bad;
	const unsigned long long dl_flags = SCHED_FLAG_DL_OVERRUN | SCHED_FLAG_DL_DMISS;
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { .tv_usec = 20000 } };
	struct __kernel_timespec ts, rem;
	long long t0, target, t;
	int ret, i;

	ksft_print_header();
	ksft_set_plan(13);
	/* The signals asked for below would kill it when a TCG stall makes it miss. */
	signal(SIGXCPU, SIG_IGN);
	ksft_print_msg("32-bit process: sizeof(long) %zu, sizeof(struct sched_param_ex) %zu\n",
		       sizeof(long), sizeof(struct sched_param_ex));

	/* EBUSY: a deadline task that just exited holds its bandwidth up to a period. */
	for (i = 0; (ret = err_of(dlsched_sched_setscheduler_ex(0, SCHED_DEADLINE, sizeof(p), &p))) == -EBUSY &&
		    i < 200; i++)
		usleep(10000);
	ksft_test_result(!ret, "sched_setscheduler_ex(SCHED_DEADLINE, 1 ms / 10 ms / 1.5 s, SCHED_SIG_RORUN|SCHED_SIG_DMISS): %s\n",
			 strerror(-ret));
	if (ret)
		ksft_exit_fail_msg("cannot go on without SCHED_DEADLINE\n");
	ksft_test_result(attr_is(SCHED_DEADLINE, 1 * MSEC, 10 * MSEC, 1500 * MSEC, dl_flags),
			 "sched_getattr sees exactly the parameters and flags set from 32-bit\n");
	ksft_test_result(param_reads_back(&p),
			 "sched_getparam_ex reads every field back exactly, reserved fields 0\n");

	/* 5 % of a CPU: may have to wait for what the previous test left to drain. */
	p = param_ex(1 * MSEC, 10 * MSEC, 20 * MSEC, SCHED_SIG_DMISS);
	for (i = 0; (ret = err_of(dlsched_sched_setparam_ex(0, sizeof(p), &p))) == -EBUSY && i < 200; i++)
		usleep(10000);
	ksft_test_result(!ret && attr_is(SCHED_DEADLINE, 1 * MSEC, 10 * MSEC, 20 * MSEC,
					 SCHED_FLAG_DL_DMISS) && param_reads_back(&p),
			 "sched_setparam_ex(1 ms / 10 ms / 20 ms, SCHED_SIG_DMISS) read back (%s)\n",
			 strerror(-ret));

	/*
	 * An overrun is paid back before the next instance (the 0-lag rule), 20
	 * times its length at this period/runtime ratio: a vCPU stall charged
	 * to the task pushes the wake-up by seconds. Such a call is retried.
	 */
	for (i = 0; i < 3; i++) {
		t0 = now_ns();
		ret = err_of(dlsched_sched_wait_interval(NULL, NULL));
		t = now_ns();
		if (ret || t - t0 <= 20 * MSEC + LATE_NS)
			break;
		ksft_print_msg("sched_wait_interval(NULL) took %.3f ms: an overrun paid back, retrying\n",
			       (t - t0) / 1e6);
	}
	ksft_test_result(!ret && t - t0 <= 20 * MSEC + LATE_NS,
			 "sched_wait_interval(NULL) as a deadline task: %s after %.3f ms (next period)\n",
			 strerror(-ret), (t - t0) / 1e6);

	bad = p;
	bad.__reserved1 = 1;
	ret = err_of(dlsched_sched_setscheduler_ex(0, SCHED_DEADLINE, sizeof(bad), &bad));
	ksft_test_result(ret == -EINVAL && param_reads_back(&p),
			 "sched_setscheduler_ex with __reserved1 1: EINVAL (%s), nothing changed\n",
			 strerror(-ret));
	bad = p;
	bad.__reserved2 = 0x80000000;
	ret = err_of(dlsched_sched_setparam_ex(0, sizeof(bad), &bad));
	ksft_test_result(ret == -EINVAL && param_reads_back(&p),
			 "sched_setparam_ex with __reserved2 0x80000000: EINVAL (%s), nothing changed\n",
			 strerror(-ret));
	ret = err_of(dlsched_sched_setscheduler_ex(0, SCHED_DEADLINE, sizeof(p) + 1, &p));
	ksft_test_result(ret == -EINVAL && param_reads_back(&p),
			 "sched_setscheduler_ex with len 65: EINVAL (%s), nothing changed\n",
			 strerror(-ret));
	ret = err_of(dlsched_sched_getparam_ex(0, sizeof(p) + 1, &bad));
	ksft_test_result(ret == -EINVAL, "sched_getparam_ex with len 65: EINVAL (%s)\n",
			 strerror(-ret));

	bad = param_ex(0, 0, 0, 0);
	ret = err_of(dlsched_sched_setscheduler_ex(0, SCHED_NORMAL, sizeof(bad), &bad));
	ksft_test_result(!ret && attr_is(SCHED_NORMAL, 0, 0, 0, 0),
			 "sched_setscheduler_ex(SCHED_NORMAL) from 32-bit (%s)\n", strerror(-ret));

	/* SCHED_NORMAL: clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) */
	target = now_ns() + 50 * MSEC;
	ts = kts(target);
	ret = err_of(dlsched_sched_wait_interval(&ts, NULL));
	t = now_ns();
	ksft_test_result(!ret && t >= target && t <= target + LATE_NS,
			 "sched_wait_interval(absolute CLOCK_MONOTONIC) as SCHED_NORMAL sleeps until it: %s, woke %+.3f ms\n",
			 strerror(-ret), (t - target) / 1e6);

	/* A 64-bit tv_sec of -1, not a 32-bit one read as 4294967295. */
	ts = kts(0);
	ts.tv_sec = -1;
	ret = err_of(dlsched_sched_wait_interval(&ts, NULL));
	ksft_test_result(ret == -EINVAL, "sched_wait_interval with tv_sec -1: EINVAL (%s)\n",
			 strerror(-ret));

	/* The remainder is a struct __kernel_timespec for 32-bit callers too. */
	memset(&rem, 0xa5, sizeof(rem));
	t0 = now_ns();
	ts = kts(t0 + 1000 * MSEC);
	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL))
		ksft_exit_fail_msg("alarm: %s\n", strerror(errno));
	ret = err_of(dlsched_sched_wait_interval(&ts, &rem));
	t = now_ns();
	ksft_test_result(ret == -EINTR && rem.tv_sec == 0 && rem.tv_nsec >= 0 &&
			 rem.tv_nsec < NSEC_PER_SEC &&
			 kts_ns(&rem) >= t0 + 1000 * MSEC - t - MSEC &&
			 kts_ns(&rem) <= t0 + 1000 * MSEC - t + MSEC + LATE_NS,
			 "interrupted: EINTR (%s), rmtp {%lld, %lld} is the time left (%.3f ms)\n",
			 strerror(-ret), rem.tv_sec, rem.tv_nsec, (t0 + 1000 * MSEC - t) / 1e6);
	ksft_finished();
}
