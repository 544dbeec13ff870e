// SPDX-License-Identifier: GPL-2.0
/*
 * RLIMIT_DLDLINE and RLIMIT_DLRTIME: their defaults and /proc/PID/limits
 * lines, the setrlimit rules (lowering RLIMIT_DLDLINE is privileged), and
 * SCHED_DEADLINE for a task without CAP_SYS_NICE: allowed exactly within
 * the limits (else EPERM), lowering a reservation always allowed, admission
 * control still applied. Root keeps its access with the default limits.
 */
#include "dltask.h"

#define MSEC NSEC_PER_MSEC
#define USEC NSEC_PER_USEC

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
	/* getrlimit(2), the older call, reads the same (x86_64: 64-bit rlim_t) */
	CHILD_EXPECT(!syscall(SYS_getrlimit, RLIMIT_DLDLINE, &l) && l.rlim_cur == RLIM64_INFINITY &&
		     !syscall(SYS_getrlimit, RLIMIT_DLRTIME, &l) && l.rlim_max == 0,
		     "getrlimit: %s\n", strerror(errno));
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
	ret = dl_enter_admitted(500 * USEC, 10 * MSEC, 10 * MSEC, 0);
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
	struct rlimit64 lower = { 14000, 20000 }, inverted = { 25000, 20000 };
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
	/* setrlimit(2), the older call, applies the same rules */
	ret = syscall(SYS_setrlimit, RLIMIT_DLDLINE, &lower) ? -errno : 0;
	CHILD_EXPECT(ret == -EPERM, "setrlimit: lower RLIMIT_DLDLINE: got %s, want EPERM\n",
		     strerror(-ret));
	ret = syscall(SYS_setrlimit, RLIMIT_DLDLINE, &inverted) ? -errno : 0;
	CHILD_EXPECT(ret == -EINVAL, "setrlimit: soft above hard: got %s, want EINVAL\n",
		     strerror(-ret));
	if (expect_line("Min deadline", "15000 20000 us") ||
	    expect_line("Max deadline runtime", "1000 2000 us"))
		return 1;
	return 0;
}

static int expect_setattr(uint64_t runtime, uint64_t deadline, uint64_t period, int want)
{
	int ret = dl_enter_admitted(runtime, deadline, period, 0);

	CHILD_EXPECT(ret == want, "(%.3f, %.3f, %.3f) ms: got %s, want %s\n", ms(runtime), ms(deadline),
		     ms(period), strerror(-ret), strerror(-want));
	return 0;
}

/*
 * Unprivileged, RLIMIT_DLDLINE 10 ms and RLIMIT_DLRTIME 0.5 ms. The
 * reservations fit the series' default pool (5 % of each CPU) beside what
 * the exited children of the test may still hold until their 0-lag time.
 */
static int unpriv_within_limits(void *arg)
{
	(void)arg;
	CHILD_EXPECT(!drop_privileges_with_dl_limits(10000, 500), "limits, privileges: %s\n",
		     strerror(errno));
	if (expect_line("Min deadline", "10000 10000 us") ||
	    expect_line("Max deadline runtime", "500 500 us") ||
	    /* a deadline 1 us too short, a runtime 1 us too long */
	    expect_setattr(500 * USEC, 10 * MSEC - USEC, 10 * MSEC, -EPERM) ||
	    expect_setattr(500 * USEC + USEC, 10 * MSEC, 10 * MSEC, -EPERM) ||
	    /* invalid parameters are still EINVAL, checked first */
	    expect_setattr(3 * MSEC, 2 * MSEC, 10 * MSEC, -EINVAL) ||
	    expect_setattr(500 * USEC, 10 * MSEC, 10 * MSEC, 0) ||
	    expect_setattr(500 * USEC, 20 * MSEC, 40 * MSEC, 0))
		return 1;
	CHILD_EXPECT(!dl_leave(), "leave SCHED_DEADLINE: %s\n", strerror(errno));
	return 0;
}

/* A deadline task may lower its reservation beyond its (lowered) limits. */
static int unpriv_lowering(void *arg)
{
	(void)arg;
	CHILD_EXPECT(!drop_privileges_with_dl_limits(10000, 500), "limits, privileges: %s\n",
		     strerror(errno));
	if (expect_setattr(500 * USEC, 10 * MSEC, 10 * MSEC, 0))
		return 1;
	/* Lowering a normal limit needs no privilege. */
	CHILD_EXPECT(!set_limit(0, RLIMIT_DLRTIME, 250, 250), "lower RLIMIT_DLRTIME: %s\n",
		     strerror(errno));
	/* bandwidth 0.05 -> 0.01875 but density 0.05 -> 0.075: refused */
	if (expect_setattr(375 * USEC, 5 * MSEC, 20 * MSEC, -EPERM) ||
	    /* bandwidth and density 0.05 -> 0.01875, runtime above the new limit */
	    expect_setattr(375 * USEC, 20 * MSEC, 20 * MSEC, 0) ||
	    /* back up to 0.025: beyond the limit and not lower */
	    expect_setattr(500 * USEC, 20 * MSEC, 20 * MSEC, -EPERM) ||
	    /* within the limit again */
	    expect_setattr(250 * USEC, 10 * MSEC, 10 * MSEC, 0))
		return 1;
	return 0;
}

#define PERIOD_NS (100 * MSEC)

/*
 * Unprivileged threads are admitted up to the cap, then EBUSY: each asks
 * for a slice of the cap such that exactly four fit, whatever the knobs say.
 */
static int unpriv_admission(void *arg)
{
	static struct dl_fill fill;
	long long cap = *(long long *)arg;
	uint64_t runtime = (uint64_t)((double)PERIOD_NS * cap / (4.5 * (1 << BW_SHIFT)));
	int expected, ret;

	if (runtime > PERIOD_NS)
		runtime = PERIOD_NS;
	expected = cap / dl_ratio(PERIOD_NS, runtime);
	CHILD_EXPECT(!drop_privileges_with_dl_limits(1000, RLIM64_INFINITY),
		     "limits, privileges: %s\n", strerror(errno));
	ret = dl_fill(&fill, runtime, PERIOD_NS, expected + 1);
	CHILD_EXPECT(!ret, "admission probe: %s\n", strerror(-ret));
	dl_fill_release(&fill);
	CHILD_EXPECT(fill.admitted == expected && fill.err == EBUSY,
		     "%d of %d admitted, then %s (want EBUSY)\n", fill.admitted, expected,
		     strerror(fill.err));
	return 0;
}

int main(void)
{
	const struct child_test tests[] = {
		{ check_defaults, NULL,
		  "defaults: RLIMIT_DLDLINE unlimited, RLIMIT_DLRTIME 0, shown in /proc/self/limits" },
		{ root_unbound, NULL, "CAP_SYS_NICE enters SCHED_DEADLINE with the default limits" },
		{ unpriv_default_eperm, NULL, "unprivileged with the default limits: EPERM" },
		{ unpriv_setrlimit_rules, NULL,
		  "unprivileged setrlimit: lowering RLIMIT_DLDLINE or raising a hard limit is EPERM" },
		{ unpriv_within_limits, NULL,
		  "unprivileged SCHED_DEADLINE exactly within RLIMIT_DLDLINE/RLIMIT_DLRTIME, else EPERM" },
		{ unpriv_lowering, NULL,
		  "unprivileged deadline task may lower bandwidth and density, not raise them" },
	};
	struct rlimit64 l;
	long long cap = dl_admission_cap();
	int ret;

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(tests) + 3);
	run_child_tests(tests, ARRAY_SIZE(tests));
	ret = get_limit(0, RLIM_NLIMITS, &l);
	ksft_test_result(RLIM_NLIMITS == 18 && ret == -EINVAL,
			 "RLIM_NLIMITS is 18 and resource 18 is EINVAL (got %s)\n", strerror(-ret));
	if (cap > 0)
		ksft_test_result(run_child(unpriv_admission, &cap) == 0,
				 "unprivileged requests stay subject to admission control (EBUSY)\n");
	else
		ksft_test_result_skip("admission control is off\n");
	ksft_test_result(run_child(check_defaults, NULL) == 0,
			 "the children's limits did not leak into the test's own\n");
	ksft_finished();
}
