// SPDX-License-Identifier: GPL-2.0
/*
 * The system-wide deadline knobs: sched_dl_runtime_us / sched_dl_period_us
 * (defaults, bad values, the rt+dl coupling in both directions, -1), the
 * admission they set, EBUSY when lowered below what is admitted, and
 * sched_dl_total_bw (CPU selection, exact allocated values).
 *
 * With CONFIG_DEADLINE_GROUP_SCHED (the guest's config) sched_dl_total_bw
 * reports the groups' pool, one for every CPU, whichever CPU is selected:
 * what the selection can be checked for is which CPUs it accepts (online
 * ones only: a CPU taken offline is EINVAL until it is back) and that
 * every CPU selected reads the exact allocated total.
 */
#include "dlcpu.h"

/* Write @val to @path, expect @want_err (0: success). */
static bool write_expect(const char *path, const char *val, int want_err)
{
	int err = -write_str(path, val);

	if (err != want_err)
		ksft_print_msg("write '%s' to %s: got %s, want %s\n", val, path,
			       strerror(err), strerror(want_err));
	return err == want_err;
}

static bool knobs_are(long long rt_runtime, long long rt_period,
		      long long dl_runtime, long long dl_period)
{
	long long rr = sysctl_read(SYSCTL_RT_RUNTIME), rp = sysctl_read(SYSCTL_RT_PERIOD);
	long long dr = sysctl_read(SYSCTL_DL_RUNTIME), dp = sysctl_read(SYSCTL_DL_PERIOD);

	if (rr != rt_runtime || rp != rt_period || dr != dl_runtime || dp != dl_period)
		ksft_print_msg("knobs rt %lld/%lld dl %lld/%lld, want rt %lld/%lld dl %lld/%lld\n",
			       rr, rp, dr, dp, rt_runtime, rt_period, dl_runtime, dl_period);
	return rr == rt_runtime && rp == rt_period && dr == dl_runtime && dp == dl_period;
}

#define DEFAULTS 950000, 1000000, 50000, 1000000

static void bad_values(void)
{
	static const struct {
		const char *path, *val, *what;
	} bad[] = {
		{ SYSCTL_DL_RUNTIME, "1000001", "runtime > period" },
		{ SYSCTL_DL_PERIOD, "0", "period 0" },
		{ SYSCTL_DL_PERIOD, "40000", "period < runtime" },
		{ SYSCTL_DL_RUNTIME, "abc", "runtime garbage" },
		{ SYSCTL_DL_RUNTIME, "12x", "runtime trailing garbage" },
		{ SYSCTL_DL_PERIOD, "abc", "period garbage" },
		{ SYSCTL_DL_RUNTIME, "-2", "runtime below -1" },
		{ SYSCTL_DL_PERIOD, "-1", "period negative" },
		{ SYSCTL_DL_RUNTIME, "2147483648", "runtime above INT_MAX" },
		{ SYSCTL_DL_PERIOD, "2147483648", "period above INT_MAX" },
		{ SYSCTL_DL_RUNTIME, "99999999999999999999999", "runtime overflow" },
		{ SYSCTL_DL_PERIOD, "99999999999999999999999", "period overflow" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bool ok = write_expect(bad[i].path, bad[i].val, EINVAL);

		ksft_test_result(ok && knobs_are(DEFAULTS), "%s: EINVAL, nothing changed\n",
				 bad[i].what);
	}
}

static void coupling(void)
{
	/* 95% rt + 5% dl is exactly 100%: one more microsecond on either side fails. */
	ksft_test_result(write_expect(SYSCTL_DL_RUNTIME, "50001", EINVAL) && knobs_are(DEFAULTS),
			 "dl write past rt+dl 100%%: EINVAL, nothing changed\n");
	ksft_test_result(write_expect(SYSCTL_RT_RUNTIME, "950001", EINVAL) && knobs_are(DEFAULTS),
			 "rt write past rt+dl 100%%: EINVAL, nothing changed\n");
	ksft_test_result(write_expect(SYSCTL_RT_PERIOD, "999999", EINVAL) && knobs_are(DEFAULTS),
			 "rt period shrinking past rt+dl 100%%: EINVAL, nothing changed\n");

	/* Other periods: compared exactly, 100000/2000000 is 5%. */
	ksft_test_result(write_expect(SYSCTL_DL_PERIOD, "2000000", 0) &&
			 write_expect(SYSCTL_DL_RUNTIME, "100000", 0) &&
			 knobs_are(950000, 1000000, 100000, 2000000) &&
			 write_expect(SYSCTL_DL_RUNTIME, "100001", EINVAL) &&
			 knobs_are(950000, 1000000, 100000, 2000000),
			 "coupling compares exactly across periods (100000/2000000 ok, 100001 EINVAL)\n");
	ksft_test_result(write_expect(SYSCTL_DL_RUNTIME, "50000", 0) &&
			 write_expect(SYSCTL_DL_PERIOD, "1000000", 0) && knobs_are(DEFAULTS),
			 "back to the defaults\n");

	/* -1 on the deadline side is exempt, and then rt may take 100%. */
	ksft_test_result(write_expect(SYSCTL_DL_RUNTIME, "-1", 0) &&
			 write_expect(SYSCTL_RT_RUNTIME, "1000000", 0) &&
			 knobs_are(1000000, 1000000, -1, 1000000),
			 "dl runtime -1 is exempt: rt may then take 100%%\n");
	ksft_test_result(write_expect(SYSCTL_DL_RUNTIME, "1", EINVAL) &&
			 knobs_are(1000000, 1000000, -1, 1000000),
			 "dl runtime 1 with rt at 100%%: EINVAL, nothing changed\n");
	ksft_test_result(write_expect(SYSCTL_RT_RUNTIME, "950000", 0) &&
			 write_expect(SYSCTL_DL_RUNTIME, "50000", 0) && knobs_are(DEFAULTS),
			 "back to the defaults\n");

	/* -1 on the rt side is exempt as well. */
	ksft_test_result(write_expect(SYSCTL_RT_RUNTIME, "-1", 0) &&
			 write_expect(SYSCTL_DL_RUNTIME, "1000000", 0) &&
			 knobs_are(-1, 1000000, 1000000, 1000000),
			 "rt runtime -1 is exempt: dl may then take 100%%\n");
	ksft_test_result(write_expect(SYSCTL_RT_RUNTIME, "1", EINVAL) &&
			 knobs_are(-1, 1000000, 1000000, 1000000),
			 "rt runtime 1 with dl at 100%%: EINVAL, nothing changed\n");
	ksft_test_result(write_expect(SYSCTL_DL_RUNTIME, "50000", 0) &&
			 write_expect(SYSCTL_RT_RUNTIME, "950000", 0) && knobs_are(DEFAULTS),
			 "back to the defaults\n");
}

/* Select each online CPU in turn: each must read @want. */
static bool every_cpu_reads(long long want)
{
	char buf[16];
	int cpu, n = cpus();
	bool ok = true;

	for (cpu = 0; cpu < n; cpu++) {
		snprintf(buf, sizeof(buf), "%d", cpu);
		if (!write_expect(SYSCTL_DL_TOTAL, buf, 0) || pool_total() != want) {
			ksft_print_msg("CPU %d selected: sched_dl_total_bw %lld, want %lld\n", cpu,
				       pool_total(), want);
			ok = false;
		}
	}
	return write_expect(SYSCTL_DL_TOTAL, "0", 0) && ok;
}

static void admission(void)
{
	struct dl_child c[MAX_CHILDREN];
	long long quarter = BW_FRACTION(4);
	int i, n = cpus();

	if (n >= MAX_CHILDREN)
		ksft_exit_fail_msg("too many CPUs for this test\n");
	/* A quarter of each CPU: the pool holds one quarter-CPU task per CPU. */
	set_dl_pool(750000, 250000);
	ksft_test_result(knobs_are(750000, 1000000, 250000, 1000000) && pool_total() == 0,
			 "pool of 250000/1000000 per CPU set, nothing allocated\n");
	for (i = 0; i < n; i++) {
		c[i] = dl_child_start(NULL, TASK_RUNTIME_NS(4));
		if (c[i].err)
			break;
	}
	ksft_test_result(i == n && pool_total() == n * quarter,
			 "%d of %d tasks of 1/4 CPU admitted, sched_dl_total_bw %lld (want %lld)\n",
			 i, n, pool_total(), n * quarter);
	ksft_test_result(every_cpu_reads(n * quarter),
			 "every CPU selected in turn reads the allocated %lld\n", n * quarter);
	if (i < n)
		dl_child_stop(&c[i]);
	c[n] = dl_child_start(NULL, TASK_RUNTIME_NS(4));
	ksft_test_result(c[n].err == EBUSY && pool_total() == n * quarter,
			 "the pool is full: one more fails with EBUSY (%s), total stays %lld\n",
			 strerror(c[n].err), n * quarter);
	dl_child_stop(&c[n]);

	ksft_test_result(write_expect(SYSCTL_DL_RUNTIME, "249999", EBUSY) &&
			 knobs_are(750000, 1000000, 250000, 1000000),
			 "lowering below what is admitted: EBUSY, nothing changed\n");
	ksft_test_result(write_expect(SYSCTL_DL_PERIOD, "1000001", EBUSY) &&
			 knobs_are(750000, 1000000, 250000, 1000000),
			 "lengthening the period below what is admitted: EBUSY, nothing changed\n");

	/* Leaving SCHED_DEADLINE and exiting give back exactly their share (at the 0-lag time). */
	ksft_test_result(dl_child_set(&c[0], 0) == 0 &&
			 wait_total(NULL, (i - 1) * quarter) == (i - 1) * quarter,
			 "a task leaving SCHED_DEADLINE gives back its share: %lld\n", pool_total());
	while (i--)
		dl_child_stop(&c[i]);
	ksft_test_result(wait_total(NULL, 0) == 0, "all tasks gone: sched_dl_total_bw reads 0\n");
}

/* A CPU taken offline cannot be selected until it is back online. */
static void total_bw_offline_cpu(void)
{
	char buf[16];
	int err, cpu = pick_cpu();

	if (cpu < 0) {
		ksft_test_result_skip("sched_dl_total_bw: no CPU to take offline\n");
		ksft_test_result_skip("sched_dl_total_bw: no CPU to take offline\n");
		return;
	}
	atexit(cpus_restore);
	snprintf(buf, sizeof(buf), "%d", cpu);
	err = set_online(false);
	if (err) {
		ksft_test_result_fail("take CPU %d offline: %s\n", cpu, strerror(-err));
		ksft_test_result_skip("CPU %d not offline\n", cpu);
		return;
	}
	ksft_test_result(write_expect(SYSCTL_DL_TOTAL, buf, EINVAL) && pool_total() == 0,
			 "sched_dl_total_bw: CPU %d taken offline: EINVAL\n", cpu);
	ksft_test_result(!set_online(true) && write_expect(SYSCTL_DL_TOTAL, buf, 0) &&
			 pool_total() == 0 && write_expect(SYSCTL_DL_TOTAL, "0", 0),
			 "sched_dl_total_bw: CPU %d back online can be selected again\n", cpu);
}

static void total_bw_cpu(void)
{
	char buf[16];
	int n = cpus();

	ksft_test_result(write_expect(SYSCTL_DL_TOTAL, "0", 0) && pool_total() == 0,
			 "sched_dl_total_bw: CPU 0 selected, reads 0\n");
	snprintf(buf, sizeof(buf), "%d", n - 1);
	ksft_test_result(write_expect(SYSCTL_DL_TOTAL, buf, 0) && pool_total() == 0,
			 "sched_dl_total_bw: last CPU %d selected\n", n - 1);
	snprintf(buf, sizeof(buf), "%d", n);
	ksft_test_result(write_expect(SYSCTL_DL_TOTAL, buf, EINVAL),
			 "sched_dl_total_bw: CPU %d (not online): EINVAL\n", n);
	ksft_test_result(write_expect(SYSCTL_DL_TOTAL, "4096", EINVAL),
			 "sched_dl_total_bw: CPU 4096 (out of range): EINVAL\n");
	ksft_test_result(write_expect(SYSCTL_DL_TOTAL, "-1", EINVAL),
			 "sched_dl_total_bw: CPU -1: EINVAL\n");
	ksft_test_result(write_expect(SYSCTL_DL_TOTAL, "zero", EINVAL),
			 "sched_dl_total_bw: garbage: EINVAL\n");
	ksft_test_result(write_expect(SYSCTL_DL_TOTAL, "0", 0), "CPU 0 selected again\n");
	total_bw_offline_cpu();
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(1 + 12 + 11 + 9 + 8);
	dl_setup("dltest-10");

	ksft_test_result(knobs_are(DEFAULTS) && pool_total() == 0,
			 "defaults: rt 950000/1000000, dl 50000/1000000, nothing allocated\n");
	bad_values();
	coupling();
	total_bw_cpu();
	admission();
	ksft_finished();
}
