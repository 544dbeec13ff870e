// SPDX-License-Identifier: GPL-2.0
/*
 * RLIMIT_DLDLINE and RLIMIT_DLRTIME: their defaults and /proc/PID/limits
 * lines, the setrlimit rules (RLIMIT_DLDLINE is a minimum: soft >= hard,
 * lowering the hard value is privileged), and SCHED_DEADLINE for a task
 * without CAP_SYS_NICE: allowed exactly within the limits (the soft
 * RLIMIT_DLDLINE; else EPERM), lowering a reservation always allowed,
 * SCHED_FLAG_RECLAIM never, admission control still applied. Root keeps
 * its access with the default limits.
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

static int expect_limit(int resource, uint64_t cur, uint64_t max, int want)
{
	int ret = set_limit(0, resource, cur, max);

	CHILD_EXPECT(ret == want, "%s {%lld, %lld}: got %s, want %s\n",
		     resource == RLIMIT_DLDLINE ? "RLIMIT_DLDLINE" : "RLIMIT_DLRTIME",
		     (long long)cur, (long long)max, strerror(-ret), strerror(-want));
	return 0;
}

/* The same through setrlimit(2), the older call (x86_64: 64-bit rlim_t). */
static int expect_setrlimit(int resource, uint64_t cur, uint64_t max, int want)
{
	struct rlimit64 l = { cur, max };
	int ret = syscall(SYS_setrlimit, resource, &l) ? -errno : 0;

	CHILD_EXPECT(ret == want, "setrlimit(%d, {%lld, %lld}): got %s, want %s\n", resource,
		     (long long)cur, (long long)max, strerror(-ret), strerror(-want));
	return 0;
}

/*
 * RLIMIT_DLDLINE is a minimum: its soft value may not be below its hard one
 * (EINVAL, nothing changes), RLIM_INFINITY being the largest. RLIMIT_DLRTIME
 * keeps the usual order.
 */
static int root_dldline_order(void *arg)
{
	struct rlimit64 l;

	(void)arg;
	if (expect_limit(RLIMIT_DLDLINE, 20000, 10000, 0) ||
	    expect_limit(RLIMIT_DLDLINE, 10000, 20000, -EINVAL))
		return 1;
	CHILD_EXPECT(!get_limit(0, RLIMIT_DLDLINE, &l) && l.rlim_cur == 20000 && l.rlim_max == 10000,
		     "after EINVAL: RLIMIT_DLDLINE %llu/%llu, want 20000/10000\n",
		     (unsigned long long)l.rlim_cur, (unsigned long long)l.rlim_max);
	if (expect_limit(RLIMIT_DLDLINE, RLIM64_INFINITY, 10000, 0) ||
	    expect_limit(RLIMIT_DLDLINE, 10000, RLIM64_INFINITY, -EINVAL) ||
	    expect_limit(RLIMIT_DLRTIME, 2000, 1000, -EINVAL) ||
	    expect_setrlimit(RLIMIT_DLDLINE, 30000, 10000, 0) ||
	    expect_setrlimit(RLIMIT_DLDLINE, 9999, 10000, -EINVAL) ||
	    expect_line("Min deadline", "30000 10000 us"))
		return 1;
	return 0;
}

/*
 * With the default limits an unprivileged task cannot make RLIMIT_DLDLINE
 * finite: that lowers its hard value, which would grant it deadlines.
 */
static int unpriv_default_locked(void *arg)
{
	(void)arg;
	CHILD_EXPECT(!drop_privileges(), "drop privileges: %s\n", strerror(errno));
	if (expect_limit(RLIMIT_DLDLINE, 10000, 10000, -EPERM) ||
	    expect_limit(RLIMIT_DLDLINE, RLIM64_INFINITY, 10000, -EPERM) ||
	    expect_line("Min deadline", "unlimited unlimited us"))
		return 1;
	return 0;
}

/*
 * setrlimit rules as seen by an unprivileged task: the soft RLIMIT_DLDLINE
 * goes anywhere at or above the hard one, the hard one only up (the more
 * restrictive way); lowering it is EPERM. RLIMIT_DLRTIME: the usual rules.
 */
static int unpriv_setrlimit_rules(void *arg)
{
	(void)arg;
	CHILD_EXPECT(!set_limit(0, RLIMIT_DLDLINE, 20000, 10000), "root sets RLIMIT_DLDLINE: %s\n",
		     strerror(errno));
	CHILD_EXPECT(!set_limit(0, RLIMIT_DLRTIME, 2000, 2000), "root sets RLIMIT_DLRTIME: %s\n",
		     strerror(errno));
	CHILD_EXPECT(!drop_privileges(), "drop privileges: %s\n", strerror(errno));
	if (/* the soft value down to the hard one, not below */
	    expect_limit(RLIMIT_DLDLINE, 10000, 10000, 0) ||
	    expect_limit(RLIMIT_DLDLINE, 9999, 10000, -EINVAL) ||
	    /* and up again, as far as wanted */
	    expect_limit(RLIMIT_DLDLINE, RLIM64_INFINITY, 10000, 0) ||
	    expect_limit(RLIMIT_DLDLINE, 12000, 10000, 0) ||
	    /* the hard value: down EPERM, up allowed, and it bounds the soft one */
	    expect_limit(RLIMIT_DLDLINE, 12000, 9000, -EPERM) ||
	    expect_limit(RLIMIT_DLDLINE, 15000, 15000, 0) ||
	    expect_limit(RLIMIT_DLDLINE, 14999, 15000, -EINVAL) ||
	    expect_limit(RLIMIT_DLDLINE, 15000, 10000, -EPERM) ||
	    expect_limit(RLIMIT_DLDLINE, 20000, 15000, 0) ||
	    expect_limit(RLIMIT_DLRTIME, 2000, 2001, -EPERM) ||
	    expect_limit(RLIMIT_DLRTIME, 3000, 2000, -EINVAL) ||
	    expect_limit(RLIMIT_DLRTIME, 1000, 2000, 0) ||
	    /* setrlimit(2), the older call, applies the same rules */
	    expect_setrlimit(RLIMIT_DLDLINE, 14000, 15000, -EINVAL) ||
	    expect_setrlimit(RLIMIT_DLDLINE, 16000, 14000, -EPERM) ||
	    expect_setrlimit(RLIMIT_DLDLINE, 25000, 15000, 0) ||
	    expect_line("Min deadline", "25000 15000 us") ||
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

/* Admission looks at the soft RLIMIT_DLDLINE, the larger of the two. */
static int unpriv_soft_limit_applies(void *arg)
{
	(void)arg;
	CHILD_EXPECT(!set_limit(0, RLIMIT_DLDLINE, 20000, 15000) &&
		     !set_limit(0, RLIMIT_DLRTIME, 500, 500), "root sets the limits: %s\n",
		     strerror(errno));
	CHILD_EXPECT(!drop_privileges(), "drop privileges: %s\n", strerror(errno));
	/* a deadline between the hard and the soft minimum */
	if (expect_setattr(500 * USEC, 15 * MSEC, 20 * MSEC, -EPERM) ||
	    expect_setattr(500 * USEC, 20 * MSEC, 20 * MSEC, 0))
		return 1;
	CHILD_EXPECT(!dl_leave(), "leave SCHED_DEADLINE: %s\n", strerror(errno));
	/* the soft minimum lowered to the hard one: now it is allowed */
	if (expect_limit(RLIMIT_DLDLINE, 15000, 15000, 0) ||
	    expect_setattr(500 * USEC, 15 * MSEC, 20 * MSEC, 0))
		return 1;
	CHILD_EXPECT(!dl_leave(), "leave SCHED_DEADLINE: %s\n", strerror(errno));
	return 0;
}

/* The calling task's policy, flags and runtime; 0 or -errno. */
static int own_attr(struct sched_attr *a)
{
	return dlsched_get_attr(0, a);
}

/*
 * SCHED_FLAG_RECLAIM lets a task run on bandwidth nobody reserved for it
 * (GRUB): it needs CAP_SYS_NICE, on entry and when added later, even along
 * a change that lowers the reservation (allowed without the flag).
 */
static int unpriv_reclaim(void *arg)
{
	struct sched_attr a;
	int ret;

	(void)arg;
	CHILD_EXPECT(!drop_privileges_with_dl_limits(10000, 500), "limits, privileges: %s\n",
		     strerror(errno));
	ret = dl_enter_admitted(500 * USEC, 10 * MSEC, 10 * MSEC, SCHED_FLAG_RECLAIM);
	CHILD_EXPECT(ret == -EPERM, "entering with RECLAIM: got %s, want EPERM\n", strerror(-ret));
	CHILD_EXPECT(!own_attr(&a) && a.sched_policy != SCHED_DEADLINE,
		     "refused, yet policy %u\n", a.sched_policy);
	if (expect_setattr(500 * USEC, 10 * MSEC, 10 * MSEC, 0))
		return 1;
	ret = dl_enter(500 * USEC, 10 * MSEC, 10 * MSEC, SCHED_FLAG_RECLAIM);
	CHILD_EXPECT(ret == -EPERM, "adding RECLAIM within the limits: got %s, want EPERM\n",
		     strerror(-ret));
	/* Below RLIMIT_DLRTIME now: only "may always lower" admits 375 us. */
	CHILD_EXPECT(!set_limit(0, RLIMIT_DLRTIME, 250, 250), "lower RLIMIT_DLRTIME: %s\n",
		     strerror(errno));
	ret = dl_enter(375 * USEC, 10 * MSEC, 10 * MSEC, SCHED_FLAG_RECLAIM);
	CHILD_EXPECT(ret == -EPERM, "lowering and adding RECLAIM: got %s, want EPERM\n",
		     strerror(-ret));
	CHILD_EXPECT(!own_attr(&a) && a.sched_policy == SCHED_DEADLINE &&
		     !(a.sched_flags & SCHED_FLAG_RECLAIM) && a.sched_runtime == 500 * USEC,
		     "after EPERM: policy %u, flags %#llx, runtime %llu ns\n", a.sched_policy,
		     (unsigned long long)a.sched_flags, (unsigned long long)a.sched_runtime);
	ret = dl_enter(375 * USEC, 10 * MSEC, 10 * MSEC, 0);
	CHILD_EXPECT(!ret, "lowering without RECLAIM: %s\n", strerror(-ret));
	CHILD_EXPECT(!own_attr(&a) && !(a.sched_flags & SCHED_FLAG_RECLAIM) &&
		     a.sched_runtime == 375 * USEC,
		     "after lowering: flags %#llx, runtime %llu ns\n",
		     (unsigned long long)a.sched_flags, (unsigned long long)a.sched_runtime);
	return 0;
}

static int root_reclaim(void *arg)
{
	struct sched_attr a;
	int ret;

	(void)arg;
	ret = dl_enter_admitted(500 * USEC, 10 * MSEC, 10 * MSEC, SCHED_FLAG_RECLAIM);
	CHILD_EXPECT(!ret, "root: entering with RECLAIM: %s\n", strerror(-ret));
	CHILD_EXPECT(!own_attr(&a) && (a.sched_flags & SCHED_FLAG_RECLAIM),
		     "root: flags %#llx, no RECLAIM\n", (unsigned long long)a.sched_flags);
	CHILD_EXPECT(!dl_leave(), "leave SCHED_DEADLINE: %s\n", strerror(errno));
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
		{ root_dldline_order, NULL,
		  "RLIMIT_DLDLINE: soft below hard is EINVAL, soft above hard allowed, RLIM_INFINITY largest" },
		{ unpriv_default_locked, NULL,
		  "unprivileged with the default limits cannot lower the hard RLIMIT_DLDLINE: EPERM" },
		{ unpriv_setrlimit_rules, NULL,
		  "unprivileged setrlimit: soft RLIMIT_DLDLINE anywhere >= hard, hard only raised (else EPERM)" },
		{ unpriv_soft_limit_applies, NULL,
		  "unprivileged SCHED_DEADLINE is bounded by the soft RLIMIT_DLDLINE" },
		{ unpriv_within_limits, NULL,
		  "unprivileged SCHED_DEADLINE exactly within RLIMIT_DLDLINE/RLIMIT_DLRTIME, else EPERM" },
		{ unpriv_lowering, NULL,
		  "unprivileged deadline task may lower bandwidth and density, not raise them" },
		{ unpriv_reclaim, NULL,
		  "unprivileged SCHED_FLAG_RECLAIM: EPERM on entry and when added while lowering" },
		{ root_reclaim, NULL, "CAP_SYS_NICE may use SCHED_FLAG_RECLAIM" },
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
