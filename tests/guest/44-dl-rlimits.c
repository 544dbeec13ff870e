// SPDX-License-Identifier: GPL-2.0
/*
 * RLIMIT_DLDLINE and RLIMIT_DLRTIME: their defaults and /proc/PID/limits
 * lines, the setrlimit rules (lowering RLIMIT_DLDLINE is privileged), and
 * SCHED_DEADLINE for a task without CAP_SYS_NICE: allowed exactly within
 * the limits (else EPERM), lowering a reservation always allowed, admission
 * control still applied. Root keeps its access with the default limits.
 */
#include <pthread.h>
/* The uapi limits; glibc's <sys/resource.h> has its own, without these two. */
#include <asm/resource.h>
#include "dltask.h"

struct rlimit64 {
	uint64_t rlim_cur;
	uint64_t rlim_max;
};

#define RLIM64_INFINITY (~0ULL)

#define MSEC NSEC_PER_MSEC
#define USEC NSEC_PER_USEC

static int get_limit(pid_t pid, int res, struct rlimit64 *old)
{
	return syscall(SYS_prlimit64, pid, res, NULL, old) ? -errno : 0;
}

static int set_limit(pid_t pid, int res, uint64_t cur, uint64_t max)
{
	struct rlimit64 new = { .rlim_cur = cur, .rlim_max = max };

	return syscall(SYS_prlimit64, pid, res, &new, NULL) ? -errno : 0;
}

/*
 * The soft and hard columns of a /proc/PID/limits line, whitespace
 * collapsed: "unlimited unlimited us". Returns 0 or -errno.
 */
static int limits_line(const char *name, char *out, size_t len)
{
	char line[256], a[32], b[32], unit[32];
	FILE *f = fopen("/proc/self/limits", "r");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, name, strlen(name)) || line[strlen(name)] != ' ')
			continue;
		unit[0] = '\0';
		if (sscanf(line + strlen(name), "%31s %31s %31s", a, b, unit) >= 2) {
			snprintf(out, len, "%s %s %s", a, b, unit);
			ret = 0;
		}
		break;
	}
	fclose(f);
	return ret;
}

static int expect_line(const char *name, const char *want)
{
	char got[128];
	int ret = limits_line(name, got, sizeof(got));

	CHILD_EXPECT(!ret, "no '%s' line in /proc/self/limits: %s\n", name, strerror(-ret));
	CHILD_EXPECT(!strcmp(got, want), "'%s': got '%s', want '%s'\n", name, got, want);
	return 0;
}

static int check_defaults(void *arg)
{
	struct rlimit64 l;

	(void)arg;
	CHILD_EXPECT(!get_limit(0, RLIMIT_DLDLINE, &l), "getrlimit(RLIMIT_DLDLINE): %s\n", strerror(errno));
	CHILD_EXPECT(l.rlim_cur == RLIM64_INFINITY && l.rlim_max == RLIM64_INFINITY,
		     "RLIMIT_DLDLINE %llu/%llu, want unlimited\n",
		     (unsigned long long)l.rlim_cur, (unsigned long long)l.rlim_max);
	CHILD_EXPECT(!get_limit(0, RLIMIT_DLRTIME, &l), "getrlimit(RLIMIT_DLRTIME): %s\n", strerror(errno));
	CHILD_EXPECT(l.rlim_cur == 0 && l.rlim_max == 0, "RLIMIT_DLRTIME %llu/%llu, want 0/0\n",
		     (unsigned long long)l.rlim_cur, (unsigned long long)l.rlim_max);
	if (expect_line("Min deadline", "unlimited unlimited us") ||
	    expect_line("Max deadline runtime", "0 0 us"))
		return 1;
	return 0;
}

/* Root, with the default limits, is not bound by them. */
static int root_unbound(void *arg)
{
	int ret;

	(void)arg;
	ret = dl_enter(2 * MSEC, 10 * MSEC, 10 * MSEC, 0);
	CHILD_EXPECT(!ret, "root: sched_setattr: %s\n", strerror(-ret));
	return 0;
}

static int unpriv_default_eperm(void *arg)
{
	int ret;

	(void)arg;
	CHILD_EXPECT(!drop_privileges(), "drop privileges: %s\n", strerror(errno));
	ret = dl_enter(1 * MSEC, 1000 * MSEC, 1000 * MSEC, 0);
	CHILD_EXPECT(ret == -EPERM, "default limits: got %s, want EPERM\n", strerror(-ret));
	return 0;
}

/* setrlimit rules as seen by an unprivileged task. */
static int unpriv_setrlimit_rules(void *arg)
{
	int ret;

	(void)arg;
	CHILD_EXPECT(!set_limit(0, RLIMIT_DLDLINE, 10000, 20000), "root sets RLIMIT_DLDLINE: %s\n",
		     strerror(errno));
	CHILD_EXPECT(!set_limit(0, RLIMIT_DLRTIME, 2000, 2000), "root sets RLIMIT_DLRTIME: %s\n",
		     strerror(errno));
	CHILD_EXPECT(!drop_privileges(), "drop privileges: %s\n", strerror(errno));
	ret = set_limit(0, RLIMIT_DLDLINE, 9999, 20000);
	CHILD_EXPECT(ret == -EPERM, "lower RLIMIT_DLDLINE soft: got %s, want EPERM\n", strerror(-ret));
	ret = set_limit(0, RLIMIT_DLDLINE, 10000, 19999);
	CHILD_EXPECT(ret == -EPERM, "lower RLIMIT_DLDLINE hard: got %s, want EPERM\n", strerror(-ret));
	ret = set_limit(0, RLIMIT_DLDLINE, 15000, 20000);
	CHILD_EXPECT(!ret, "raise RLIMIT_DLDLINE soft within hard: %s\n", strerror(-ret));
	ret = set_limit(0, RLIMIT_DLDLINE, 30000, 20000);
	CHILD_EXPECT(ret == -EINVAL, "soft above hard: got %s, want EINVAL\n", strerror(-ret));
	ret = set_limit(0, RLIMIT_DLRTIME, 2000, 2001);
	CHILD_EXPECT(ret == -EPERM, "raise RLIMIT_DLRTIME hard: got %s, want EPERM\n", strerror(-ret));
	ret = set_limit(0, RLIMIT_DLRTIME, 1000, 2000);
	CHILD_EXPECT(!ret, "lower RLIMIT_DLRTIME soft: %s\n", strerror(-ret));
	if (expect_line("Min deadline", "15000 20000 us") ||
	    expect_line("Max deadline runtime", "1000 2000 us"))
		return 1;
	return 0;
}

static int expect_setattr(uint64_t runtime, uint64_t deadline, uint64_t period, int want)
{
	int ret = dl_enter(runtime, deadline, period, 0);

	CHILD_EXPECT(ret == want, "(%.3f, %.3f, %.3f) ms: got %s, want %s\n", ms(runtime), ms(deadline),
		     ms(period), strerror(-ret), strerror(-want));
	return 0;
}

/* Unprivileged, RLIMIT_DLDLINE 10 ms and RLIMIT_DLRTIME 2 ms. */
static int unpriv_within_limits(void *arg)
{
	(void)arg;
	CHILD_EXPECT(!set_limit(0, RLIMIT_DLDLINE, 10000, 10000), "set RLIMIT_DLDLINE: %s\n",
		     strerror(errno));
	CHILD_EXPECT(!set_limit(0, RLIMIT_DLRTIME, 2000, 2000), "set RLIMIT_DLRTIME: %s\n",
		     strerror(errno));
	CHILD_EXPECT(!drop_privileges(), "drop privileges: %s\n", strerror(errno));
	if (expect_line("Min deadline", "10000 10000 us") ||
	    expect_line("Max deadline runtime", "2000 2000 us") ||
	    /* a deadline 1 us too short, a runtime 1 us too long */
	    expect_setattr(2 * MSEC, 10 * MSEC - USEC, 10 * MSEC, -EPERM) ||
	    expect_setattr(2 * MSEC + USEC, 10 * MSEC, 10 * MSEC, -EPERM) ||
	    /* invalid parameters are still EINVAL, checked first */
	    expect_setattr(3 * MSEC, 2 * MSEC, 10 * MSEC, -EINVAL) ||
	    expect_setattr(2 * MSEC, 10 * MSEC, 10 * MSEC, 0) ||
	    expect_setattr(2 * MSEC, 20 * MSEC, 40 * MSEC, 0))
		return 1;
	CHILD_EXPECT(!dl_leave(), "leave SCHED_DEADLINE: %s\n", strerror(errno));
	return 0;
}

/* A deadline task may lower its reservation beyond its (lowered) limits. */
static int unpriv_lowering(void *arg)
{
	(void)arg;
	CHILD_EXPECT(!set_limit(0, RLIMIT_DLDLINE, 10000, 10000), "set RLIMIT_DLDLINE: %s\n",
		     strerror(errno));
	CHILD_EXPECT(!set_limit(0, RLIMIT_DLRTIME, 2000, 2000), "set RLIMIT_DLRTIME: %s\n",
		     strerror(errno));
	CHILD_EXPECT(!drop_privileges(), "drop privileges: %s\n", strerror(errno));
	if (expect_setattr(2 * MSEC, 10 * MSEC, 10 * MSEC, 0))
		return 1;
	/* Lowering a normal limit needs no privilege. */
	CHILD_EXPECT(!set_limit(0, RLIMIT_DLRTIME, 1000, 1000), "lower RLIMIT_DLRTIME: %s\n",
		     strerror(errno));
	/* bandwidth 0.2 -> 0.075 but density 0.2 -> 0.3: refused */
	if (expect_setattr(1500 * USEC, 5 * MSEC, 20 * MSEC, -EPERM) ||
	    /* bandwidth and density 0.2 -> 0.075, runtime above the new limit */
	    expect_setattr(1500 * USEC, 20 * MSEC, 20 * MSEC, 0) ||
	    /* back up to 0.1: beyond the limit and not lower */
	    expect_setattr(2 * MSEC, 20 * MSEC, 20 * MSEC, -EPERM) ||
	    /* within the limit again */
	    expect_setattr(1 * MSEC, 10 * MSEC, 10 * MSEC, 0))
		return 1;
	return 0;
}

#define MAX_THREADS 256
#define PERIOD_NS (100 * MSEC)
#define RUNTIME_NS (90 * MSEC)

static int gate[2];

struct worker {
	pthread_t thread;
	int result;
	int ready[2];
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	char c;

	w->result = dl_enter(RUNTIME_NS, PERIOD_NS, PERIOD_NS, 0);
	if (write(w->ready[1], "x", 1) != 1)
		return NULL;
	if (!w->result && read(gate[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

/* Unprivileged threads are admitted up to the cap, then EBUSY. */
static int unpriv_admission(void *arg)
{
	static struct worker workers[MAX_THREADS];
	long long cap = *(long long *)arg;
	int expected = cap / dl_ratio(PERIOD_NS, RUNTIME_NS), admitted = 0, err = 0, i;
	char c;

	CHILD_EXPECT(expected < MAX_THREADS, "cap too large for this test\n");
	CHILD_EXPECT(!set_limit(0, RLIMIT_DLDLINE, 1000, 1000), "set RLIMIT_DLDLINE: %s\n",
		     strerror(errno));
	CHILD_EXPECT(!set_limit(0, RLIMIT_DLRTIME, RLIM64_INFINITY, RLIM64_INFINITY),
		     "set RLIMIT_DLRTIME: %s\n", strerror(errno));
	CHILD_EXPECT(!drop_privileges(), "drop privileges: %s\n", strerror(errno));
	CHILD_EXPECT(!pipe(gate), "pipe: %s\n", strerror(errno));
	for (i = 0; i <= expected; i++) {
		struct worker *w = &workers[i];

		CHILD_EXPECT(!pipe(w->ready) && !pthread_create(&w->thread, NULL, worker_fn, w),
			     "thread %d: %s\n", i, strerror(errno));
		CHILD_EXPECT(read(w->ready[0], &c, 1) == 1, "thread %d did not report\n", i);
		if (w->result) {
			err = -w->result;
			pthread_join(w->thread, NULL);
			break;
		}
		admitted++;
	}
	close(gate[1]);
	for (i = 0; i < admitted; i++)
		pthread_join(workers[i].thread, NULL);
	CHILD_EXPECT(admitted == expected && err == EBUSY,
		     "%d of %d admitted, then %s (want EBUSY)\n", admitted, expected, strerror(err));
	return 0;
}

int main(void)
{
	struct rlimit64 l;
	long long cap = (dltask_widen_pool(), dl_admission_cap());
	int ret;

	ksft_print_header();
	ksft_set_plan(9);

	ksft_test_result(run_child(check_defaults, NULL) == 0,
			 "defaults: RLIMIT_DLDLINE unlimited, RLIMIT_DLRTIME 0, shown in /proc/self/limits\n");
	ret = get_limit(0, RLIM_NLIMITS, &l);
	ksft_test_result(RLIM_NLIMITS == 18 && ret == -EINVAL,
			 "RLIM_NLIMITS is 18 and resource 18 is EINVAL (got %s)\n", strerror(-ret));
	ksft_test_result(run_child(root_unbound, NULL) == 0,
			 "CAP_SYS_NICE enters SCHED_DEADLINE with the default limits\n");
	ksft_test_result(run_child(unpriv_default_eperm, NULL) == 0,
			 "unprivileged with the default limits: EPERM\n");
	ksft_test_result(run_child(unpriv_setrlimit_rules, NULL) == 0,
			 "unprivileged setrlimit: lowering RLIMIT_DLDLINE or raising a hard limit is EPERM\n");
	ksft_test_result(run_child(unpriv_within_limits, NULL) == 0,
			 "unprivileged SCHED_DEADLINE exactly within RLIMIT_DLDLINE/RLIMIT_DLRTIME, else EPERM\n");
	ksft_test_result(run_child(unpriv_lowering, NULL) == 0,
			 "unprivileged deadline task may lower bandwidth and density, not raise them\n");
	if (cap > 0)
		ksft_test_result(run_child(unpriv_admission, &cap) == 0,
				 "unprivileged requests stay subject to admission control (EBUSY)\n");
	else
		ksft_test_result_skip("admission control is off\n");
	ksft_test_result(run_child(check_defaults, NULL) == 0,
			 "the children's limits did not leak into the test's own\n");
	ksft_finished();
}
