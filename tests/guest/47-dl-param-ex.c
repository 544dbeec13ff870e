// SPDX-License-Identifier: GPL-2.0
/*
 * sched_setscheduler_ex(), sched_setparam_ex(), sched_getparam_ex() and
 * struct sched_param_ex: parameters round-trip through sched_getattr() and
 * sched_getparam_ex(), SCHED_SIG_RORUN/SCHED_SIG_DMISS map to the sched_attr
 * flags, the length rules (larger EINVAL, shorter zero-fills), every bad
 * argument is refused with its errno and changes nothing, and the checks
 * of sched_setattr() (rlimits, permissions) apply.
 */
#include <stddef.h>
#include "dltask.h"

#define MSEC NSEC_PER_MSEC

/* The layout the i386 ABI test (49, helpers/abi32.c) pins as well. */
DLSCHED_ASSERT_PARAM_EX_LAYOUT();

static struct sched_param_ex param_ex(uint64_t runtime, uint64_t deadline, uint64_t period,
				      unsigned int flags)
{
	struct sched_param_ex p = {
		.sched_runtime = { runtime / NSEC_PER_SEC, runtime % NSEC_PER_SEC },
		.sched_deadline = { deadline / NSEC_PER_SEC, deadline % NSEC_PER_SEC },
		.sched_period = { period / NSEC_PER_SEC, period % NSEC_PER_SEC },
		.sched_flags = flags,
	};
	return p;
}

static uint64_t kts_ns(const struct __kernel_timespec *ts)
{
	return ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

/* The calling thread's policy, parameters and flags are these? */
static int expect_attr(unsigned int policy, uint64_t runtime, uint64_t deadline, uint64_t period,
		       uint64_t flags)
{
	struct sched_attr a = { 0 };

	CHILD_EXPECT(!dlsched_sched_getattr(0, &a, sizeof(a), 0), "sched_getattr: %s\n", strerror(errno));
	CHILD_EXPECT(a.sched_policy == policy && a.sched_runtime == runtime &&
		     a.sched_deadline == deadline && a.sched_period == period &&
		     a.sched_flags == flags,
		     "sched_getattr: policy %u (%llu, %llu, %llu) flags %#llx, want %u (%llu, %llu, %llu) flags %#llx\n",
		     a.sched_policy, (unsigned long long)a.sched_runtime,
		     (unsigned long long)a.sched_deadline, (unsigned long long)a.sched_period,
		     (unsigned long long)a.sched_flags, policy, (unsigned long long)runtime,
		     (unsigned long long)deadline, (unsigned long long)period,
		     (unsigned long long)flags);
	return 0;
}

static int set_and_get(void *arg)
{
	struct sched_param_ex p = param_ex(10 * MSEC, 30 * MSEC, 1500 * MSEC,
					   SCHED_SIG_RORUN | SCHED_SIG_DMISS), q;

	(void)arg;
	CHILD_EXPECT(!sched_setscheduler_ex(0, SCHED_DEADLINE, sizeof(p), &p),
		     "sched_setscheduler_ex: %s\n", strerror(errno));
	if (expect_attr(SCHED_DEADLINE, 10 * MSEC, 30 * MSEC, 1500 * MSEC,
			SCHED_FLAG_DL_OVERRUN | SCHED_FLAG_DL_DMISS))
		return 1;
	memset(&q, 0xa5, sizeof(q));
	CHILD_EXPECT(!sched_getparam_ex(0, sizeof(q), &q), "sched_getparam_ex: %s\n", strerror(errno));
	CHILD_EXPECT(q.sched_priority == 0 && kts_ns(&q.sched_runtime) == 10 * MSEC &&
		     kts_ns(&q.sched_deadline) == 30 * MSEC && q.sched_period.tv_sec == 1 &&
		     q.sched_period.tv_nsec == 500 * (long long)MSEC &&
		     q.sched_flags == (SCHED_SIG_RORUN | SCHED_SIG_DMISS) &&
		     q.__reserved1 == 0 && q.__reserved2 == 0,
		     "sched_getparam_ex: prio %d (%llu, %llu, %llu) flags %#x reserved %#x %#x\n",
		     q.sched_priority, (unsigned long long)kts_ns(&q.sched_runtime),
		     (unsigned long long)kts_ns(&q.sched_deadline),
		     (unsigned long long)kts_ns(&q.sched_period), q.sched_flags, q.__reserved1,
		     q.__reserved2);

	/* sched_setparam_ex keeps the policy and replaces the parameters and flags */
	p = param_ex(5 * MSEC, 100 * MSEC, 100 * MSEC, SCHED_SIG_DMISS);
	CHILD_EXPECT(!sched_setparam_ex(0, sizeof(p), &p), "sched_setparam_ex: %s\n", strerror(errno));
	if (expect_attr(SCHED_DEADLINE, 5 * MSEC, 100 * MSEC, 100 * MSEC, SCHED_FLAG_DL_DMISS))
		return 1;

	/* SCHED_FIFO through the same call, and back to SCHED_OTHER */
	p = param_ex(0, 0, 0, 0);
	p.sched_priority = 10;
	CHILD_EXPECT(!sched_setscheduler_ex(0, SCHED_FIFO, sizeof(p), &p),
		     "sched_setscheduler_ex(SCHED_FIFO): %s\n", strerror(errno));
	CHILD_EXPECT(!sched_getparam_ex(0, sizeof(q), &q) && q.sched_priority == 10 &&
		     sched_getscheduler(0) == SCHED_FIFO, "SCHED_FIFO 10 not read back\n");
	p.sched_priority = 0;
	CHILD_EXPECT(!sched_setscheduler_ex(0, SCHED_OTHER, sizeof(p), &p),
		     "sched_setscheduler_ex(SCHED_OTHER): %s\n", strerror(errno));
	return expect_attr(SCHED_OTHER, 0, 0, 0, 0);
}

static int lengths(void *arg)
{
	struct sched_param_ex p = param_ex(5 * MSEC, 100 * MSEC, 100 * MSEC, SCHED_SIG_RORUN), q;
	unsigned char buf[sizeof(q) + 8];
	size_t short_len = offsetof(struct sched_param_ex, sched_flags);
	long ret;

	(void)arg;
	ret = sched_setscheduler_ex(0, SCHED_DEADLINE, sizeof(p) + 1, &p) ? -errno : 0;
	CHILD_EXPECT(ret == -EINVAL, "len sizeof+1: got %s, want EINVAL\n", strerror(-ret));
	if (expect_attr(SCHED_OTHER, 0, 0, 0, 0))
		return 1;
	/* Without the flags field: zero-filled, so no flags. */
	CHILD_EXPECT(!sched_setscheduler_ex(0, SCHED_DEADLINE, short_len, &p),
		     "short len: %s\n", strerror(errno));
	if (expect_attr(SCHED_DEADLINE, 5 * MSEC, 100 * MSEC, 100 * MSEC, 0))
		return 1;
	/* Without the period: zero-filled, so the period is the deadline. */
	p = param_ex(2 * MSEC, 50 * MSEC, 200 * MSEC, 0);
	CHILD_EXPECT(!sched_setparam_ex(0, offsetof(struct sched_param_ex, sched_period), &p),
		     "len without period: %s\n", strerror(errno));
	if (expect_attr(SCHED_DEADLINE, 2 * MSEC, 50 * MSEC, 50 * MSEC, 0))
		return 1;
	/* The getter copies len bytes, no more. */
	memset(buf, 0xa5, sizeof(buf));
	CHILD_EXPECT(!sched_getparam_ex(0, offsetof(struct sched_param_ex, sched_deadline),
					(struct sched_param_ex *)buf), "short get: %s\n", strerror(errno));
	memcpy(&q, buf, sizeof(q));
	CHILD_EXPECT(kts_ns(&q.sched_runtime) == 2 * MSEC &&
		     buf[offsetof(struct sched_param_ex, sched_deadline)] == 0xa5,
		     "short get: runtime %llu, byte past len %#x\n",
		     (unsigned long long)kts_ns(&q.sched_runtime),
		     buf[offsetof(struct sched_param_ex, sched_deadline)]);
	memset(buf, 0xa5, sizeof(buf));
	CHILD_EXPECT(!sched_getparam_ex(0, 0, (struct sched_param_ex *)buf) && buf[0] == 0xa5,
		     "get len 0: %s, first byte %#x\n", strerror(errno), buf[0]);
	ret = sched_getparam_ex(0, sizeof(q) + 1, &q) ? -errno : 0;
	CHILD_EXPECT(ret == -EINVAL, "get len sizeof+1: got %s, want EINVAL\n", strerror(-ret));
	return 0;
}

struct bad_case {
	const char *what;
	pid_t pid;
	int policy;
	struct sched_param_ex p;
	void *ptr;		/* instead of &p when not NULL */
	bool null;
	int err;
};

static int bad_arguments(void *arg)
{
	const uint64_t R = 10 * MSEC, D = 100 * MSEC;
	struct bad_case cases[] = {
		{ "NULL param", 0, SCHED_DEADLINE, param_ex(R, D, D, 0), NULL, true, EINVAL },
		{ "bad pointer", 0, SCHED_DEADLINE, param_ex(R, D, D, 0), (void *)1, false, EFAULT },
		{ "pid -1", -1, SCHED_DEADLINE, param_ex(R, D, D, 0), NULL, false, EINVAL },
		{ "no such pid", 0x3fffffff, SCHED_DEADLINE, param_ex(R, D, D, 0), NULL, false, ESRCH },
		{ "policy -2", 0, -2, param_ex(R, D, D, 0), NULL, false, EINVAL },
		{ "policy 42", 0, 42, param_ex(R, D, D, 0), NULL, false, EINVAL },
		{ "unknown flag", 0, SCHED_DEADLINE, param_ex(R, D, D, 0x1), NULL, false, EINVAL },
		{ "runtime > deadline", 0, SCHED_DEADLINE, param_ex(D, R, D, 0), NULL, false, EINVAL },
		{ "deadline > period", 0, SCHED_DEADLINE, param_ex(R, D, R, 0), NULL, false, EINVAL },
		{ "zero runtime", 0, SCHED_DEADLINE, param_ex(0, D, D, 0), NULL, false, EINVAL },
		/* mainline's floor: 1 << DL_SCALE ns */
		{ "runtime 1023 ns", 0, SCHED_DEADLINE, param_ex(1023, D, D, 0), NULL, false, EINVAL },
		/* sched_deadline_period_max_us, about 4.2 s */
		{ "period 5 s", 0, SCHED_DEADLINE, param_ex(R, D, 5000 * MSEC, 0), NULL, false, EINVAL },
		{ "FIFO priority 100", 0, SCHED_FIFO, param_ex(0, 0, 0, 0), NULL, false, EINVAL },
		{ "FIFO priority -1", 0, SCHED_FIFO, param_ex(0, 0, 0, 0), NULL, false, EINVAL },
		{ "__reserved1 set", 0, SCHED_DEADLINE, param_ex(R, D, D, 0), NULL, false, EINVAL },
		{ "__reserved2 set", 0, SCHED_DEADLINE, param_ex(R, D, D, 0), NULL, false, EINVAL },
	};
	struct sched_param_ex tv_bad = param_ex(R, D, D, 0);
	size_t i;
	long ret;

	(void)arg;
	cases[12].p.sched_priority = 100;
	cases[13].p.sched_priority = -1;
	cases[14].p.__reserved1 = 1;
	cases[15].p.__reserved2 = 0x80000000;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bad_case *c = &cases[i];
		void *ptr = c->null ? NULL : c->ptr ? c->ptr : &c->p;

		ret = sched_setscheduler_ex(c->pid, c->policy, sizeof(c->p), ptr) ? -errno : 0;
		CHILD_EXPECT(ret == -c->err, "%s: got %s, want %s\n", c->what, strerror(-ret),
			     strerror(c->err));
		if (c->policy == SCHED_DEADLINE) {
			ret = sched_setparam_ex(c->pid, sizeof(c->p), ptr) ? -errno : 0;
			/*
			 * setparam keeps SCHED_OTHER: deadline fields are ignored, but
			 * flags and reserved fields are checked first, whatever the policy.
			 */
			CHILD_EXPECT(ret == -c->err || (!ret && c->err == EINVAL && c->pid == 0 &&
							  !c->null && c->p.sched_flags == 0 &&
							  !c->p.__reserved1 && !c->p.__reserved2),
				     "setparam_ex %s: got %s\n", c->what, strerror(-ret));
		}
		if (expect_attr(SCHED_OTHER, 0, 0, 0, 0))
			return 1;
	}
	tv_bad.sched_runtime.tv_nsec = NSEC_PER_SEC;
	ret = sched_setscheduler_ex(0, SCHED_DEADLINE, sizeof(tv_bad), &tv_bad) ? -errno : 0;
	CHILD_EXPECT(ret == -EINVAL, "tv_nsec 1e9: got %s\n", strerror(-ret));
	tv_bad = param_ex(R, D, D, 0);
	tv_bad.sched_deadline.tv_nsec = -1;
	ret = sched_setscheduler_ex(0, SCHED_DEADLINE, sizeof(tv_bad), &tv_bad) ? -errno : 0;
	CHILD_EXPECT(ret == -EINVAL, "tv_nsec -1: got %s\n", strerror(-ret));
	tv_bad = param_ex(R, D, D, 0);
	tv_bad.sched_period.tv_sec = -1;
	ret = sched_setscheduler_ex(0, SCHED_DEADLINE, sizeof(tv_bad), &tv_bad) ? -errno : 0;
	CHILD_EXPECT(ret == -EINVAL, "tv_sec -1: got %s\n", strerror(-ret));
	/* len 0: all zero, so no runtime */
	ret = sched_setscheduler_ex(0, SCHED_DEADLINE, 0, &tv_bad) ? -errno : 0;
	CHILD_EXPECT(ret == -EINVAL, "len 0: got %s\n", strerror(-ret));
	ret = sched_getparam_ex(0, sizeof(tv_bad), NULL) ? -errno : 0;
	CHILD_EXPECT(ret == -EINVAL, "getparam_ex NULL: got %s\n", strerror(-ret));
	ret = sched_getparam_ex(0, sizeof(tv_bad), (void *)1) ? -errno : 0;
	CHILD_EXPECT(ret == -EFAULT, "getparam_ex bad pointer: got %s\n", strerror(-ret));
	ret = sched_getparam_ex(0x3fffffff, sizeof(tv_bad), &tv_bad) ? -errno : 0;
	CHILD_EXPECT(ret == -ESRCH, "getparam_ex no such pid: got %s\n", strerror(-ret));
	return expect_attr(SCHED_OTHER, 0, 0, 0, 0);
}

/* SCHED_RESET_ON_FORK in the policy: the flag is set and the task may fork. */
static int reset_on_fork(void *arg)
{
	struct sched_param_ex p = param_ex(5 * MSEC, 100 * MSEC, 100 * MSEC, 0);
	int status;
	pid_t pid;

	(void)arg;
	CHILD_EXPECT(!sched_setscheduler_ex(0, SCHED_DEADLINE | SCHED_RESET_ON_FORK, sizeof(p), &p),
		     "sched_setscheduler_ex: %s\n", strerror(errno));
	if (expect_attr(SCHED_DEADLINE, 5 * MSEC, 100 * MSEC, 100 * MSEC, SCHED_FLAG_RESET_ON_FORK))
		return 1;
	pid = fork();
	CHILD_EXPECT(pid >= 0, "fork: %s\n", strerror(errno));
	if (!pid)
		_exit(sched_getscheduler(0) == SCHED_OTHER ? 0 : 1);
	CHILD_EXPECT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status),
		     "the child is not SCHED_OTHER\n");
	return 0;
}

/* The rlimits and permission checks of sched_setattr() apply. */
static int unprivileged(void *arg)
{
	struct sched_param_ex p = param_ex(2 * MSEC, 10 * MSEC, 10 * MSEC, 0);
	long ret;

	(void)arg;
	CHILD_EXPECT(!drop_privileges(), "drop privileges: %s\n", strerror(errno));
	ret = sched_setscheduler_ex(0, SCHED_DEADLINE, sizeof(p), &p) ? -errno : 0;
	CHILD_EXPECT(ret == -EPERM, "default limits: got %s, want EPERM\n", strerror(-ret));
	ret = sched_setscheduler_ex(1, SCHED_OTHER, sizeof(p), &p) ? -errno : 0;
	CHILD_EXPECT(ret == -EPERM, "another user's task: got %s, want EPERM\n", strerror(-ret));
	return 0;
}

static int within_rlimits(void *arg)
{
	struct sched_param_ex p = param_ex(500 * NSEC_PER_USEC, 10 * MSEC, 10 * MSEC, SCHED_SIG_RORUN);
	long ret;

	(void)arg;
	CHILD_EXPECT(!drop_privileges_with_dl_limits(10000, 500), "limits, privileges: %s\n",
		     strerror(errno));
	ret = sched_setscheduler_ex(0, SCHED_DEADLINE, sizeof(p), &p) ? -errno : 0;
	CHILD_EXPECT(!ret, "within the limits: %s\n", strerror(-ret));
	p.sched_runtime.tv_nsec += 1000;
	ret = sched_setparam_ex(0, sizeof(p), &p) ? -errno : 0;
	CHILD_EXPECT(ret == -EPERM, "1 us over RLIMIT_DLRTIME: got %s, want EPERM\n", strerror(-ret));
	return expect_attr(SCHED_DEADLINE, 500 * NSEC_PER_USEC, 10 * MSEC, 10 * MSEC,
			   SCHED_FLAG_DL_OVERRUN);
}

int main(void)
{
	const struct child_test tests[] = {
		{ set_and_get, NULL, "set/get round trip, SCHED_SIG_* map to SCHED_FLAG_DL_OVERRUN/DMISS, FIFO and OTHER" },
		{ lengths, NULL, "len larger than the struct is EINVAL, shorter zero-fills, getter copies len" },
		{ bad_arguments, NULL, "bad arguments are refused with their errno and change nothing" },
		{ reset_on_fork, NULL, "SCHED_DEADLINE | SCHED_RESET_ON_FORK sets the flag, the task may fork" },
		{ unprivileged, NULL, "unprivileged: EPERM without rlimits and for another user's task" },
		{ within_rlimits, NULL, "unprivileged within RLIMIT_DLDLINE/RLIMIT_DLRTIME: allowed, 1 us over: EPERM" },
	};

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(tests));
	run_child_tests(tests, ARRAY_SIZE(tests));
	ksft_finished();
}
