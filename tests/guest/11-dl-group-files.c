// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup files cpu.dl_runtime_us, cpu.dl_period_us, cpu.dl_total_bw:
 * absent in the root, defaults in a new group, every bad value refused
 * with EINVAL and nothing changed, read-only total, valid writes read back
 * exactly and charged to the system pool.
 */
#include "dlgroup.h"

static bool file_is(const char *cg, long long runtime, long long period, long long total)
{
	long long r = cg_read(cg, "cpu.dl_runtime_us"), p = cg_read(cg, "cpu.dl_period_us");
	long long t = cg_total(cg);

	if (r != runtime || p != period || t != total)
		ksft_print_msg("%s: runtime %lld period %lld total %lld, want %lld %lld %lld\n",
			       cg, r, p, t, runtime, period, total);
	return r == runtime && p == period && t == total;
}

static bool write_expect(const char *cg, const char *file, const char *val, int want_err)
{
	int err = -cg_write(cg, file, val);

	if (err != want_err)
		ksft_print_msg("write '%s' to %s/%s: got %s, want %s\n", val, cg, file,
			       strerror(err), strerror(want_err));
	return err == want_err;
}

int main(void)
{
	static const struct {
		const char *file, *val, *what;
	} bad[] = {
		{ "cpu.dl_runtime_us", "-2", "runtime below -1" },
		{ "cpu.dl_runtime_us", "1000001", "runtime > period" },
		{ "cpu.dl_runtime_us", "abc", "runtime garbage" },
		{ "cpu.dl_runtime_us", "12x", "runtime trailing garbage" },
		{ "cpu.dl_runtime_us", "\n", "runtime empty" },
		{ "cpu.dl_runtime_us", "0x10", "runtime hex" },
		{ "cpu.dl_runtime_us", "2147483648", "runtime above INT_MAX" },
		{ "cpu.dl_runtime_us", "99999999999999999999999", "runtime overflow" },
		{ "cpu.dl_period_us", "0", "period 0" },
		{ "cpu.dl_period_us", "-1", "period negative" },
		{ "cpu.dl_period_us", "abc", "period garbage" },
		{ "cpu.dl_period_us", "2147483648", "period above INT_MAX" },
		{ "cpu.dl_period_us", "99999999999999999999999", "period overflow" },
	};
	long long per_cpu_16 = BW_FRACTION(16) * cpus();
	unsigned int i;
	struct stat st;
	int err;

	ksft_print_header();
	ksft_set_plan(3 + 13 + 3 + 8);
	dl_setup("dltest-11");
	/* A pool of a quarter of each CPU, so reservations of 1/16 fit. */
	set_dl_pool(750000, 250000);

	ksft_test_result(stat(cg_path("..", "cpu.dl_runtime_us"), &st) && errno == ENOENT &&
			 stat(cg_path("..", "cpu.dl_period_us"), &st) && errno == ENOENT &&
			 stat(cg_path("..", "cpu.dl_total_bw"), &st) && errno == ENOENT,
			 "the root cgroup has no cpu.dl_* files\n");
	ksft_test_result(file_is("", -1, 1000000, 0),
			 "a new group: runtime -1, period sched_dl_period_us, total 0\n");

	/* The default period follows sched_dl_period_us at creation. */
	if (write_ll(SYSCTL_DL_RUNTIME, 125000) || write_ll(SYSCTL_DL_PERIOD, 500000))
		ksft_exit_fail_msg("set sched_dl_period_us: %s\n", strerror(errno));
	cg_create("later");
	ksft_test_result(file_is("later", -1, 500000, 0) && file_is("", -1, 1000000, 0),
			 "a group created later takes the period in force then (500000)\n");
	if (write_ll(SYSCTL_DL_PERIOD, 1000000))
		ksft_exit_fail_msg("restore sched_dl_period_us: %s\n", strerror(errno));
	set_dl_pool(750000, 250000);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ksft_test_result(write_expect("", bad[i].file, bad[i].val, EINVAL) &&
				 file_is("", -1, 1000000, 0) && pool_total() == 0,
				 "%s: EINVAL, nothing changed\n", bad[i].what);

	/* Period below a set runtime, and runtime above a set period. */
	ksft_test_result(write_expect("", "cpu.dl_runtime_us", "10000", 0) &&
			 write_expect("", "cpu.dl_period_us", "9999", EINVAL) &&
			 file_is("", 10000, 1000000, 0),
			 "period below the runtime: EINVAL, nothing changed\n");
	ksft_test_result(write_expect("", "cpu.dl_period_us", "200000", 0) &&
			 write_expect("", "cpu.dl_runtime_us", "200001", EINVAL) &&
			 file_is("", 10000, 200000, 0),
			 "runtime above the period: EINVAL, nothing changed\n");
	err = cg_write("", "cpu.dl_total_bw", "0");
	ksft_test_result(err && file_is("", 10000, 200000, 0),
			 "cpu.dl_total_bw is read-only (%s)\n", strerror(-err));

	/* Valid writes read back exactly and are charged to the pool. */
	ksft_test_result(write_expect("", "cpu.dl_runtime_us", "-1", 0) &&
			 write_expect("", "cpu.dl_period_us", "1000000", 0) &&
			 file_is("", -1, 1000000, 0) && pool_total() == 0,
			 "back to -1: nothing reserved\n");
	ksft_test_result(write_expect("", "cpu.dl_runtime_us", "62500\n", 0) &&
			 file_is("", 62500, 1000000, 0) && pool_total() == per_cpu_16,
			 "62500/1000000 reserves 1/16 of each CPU: pool total %lld (want %lld)\n",
			 pool_total(), per_cpu_16);
	ksft_test_result(write_expect("", "cpu.dl_period_us", "500000", 0) &&
			 file_is("", 62500, 500000, 0) && pool_total() == 2 * per_cpu_16,
			 "period 500000 doubles it: pool total %lld (want %lld)\n",
			 pool_total(), 2 * per_cpu_16);
	ksft_test_result(write_expect("", "cpu.dl_runtime_us", "0", 0) &&
			 file_is("", 0, 500000, 0) && pool_total() == 0,
			 "runtime 0 reserves nothing\n");
	ksft_test_result(write_expect("", "cpu.dl_runtime_us", "500000", EBUSY) &&
			 file_is("", 0, 500000, 0) && pool_total() == 0,
			 "a whole CPU does not fit in the pool of 1/4: EBUSY, nothing changed\n");
	ksft_test_result(write_expect("", "cpu.dl_runtime_us", "125001", EBUSY) &&
			 write_expect("", "cpu.dl_runtime_us", "125000", 0) &&
			 file_is("", 125000, 500000, 0) && pool_total() == BW_FRACTION(4) * cpus(),
			 "1/4 of each CPU fills the pool exactly (%lld), a microsecond more is EBUSY\n",
			 pool_total());
	ksft_test_result(write_expect("", "cpu.dl_runtime_us", "-1", 0) &&
			 file_is("", -1, 500000, 0) && pool_total() == 0,
			 "-1 releases the reservation: pool total 0\n");
	ksft_test_result(cg_remove("later") == 0, "remove a group\n");
	ksft_finished();
}
