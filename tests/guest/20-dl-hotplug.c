// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug against group reservations. A reservation is a fraction of
 * each active CPU, its deadline tasks an absolute bandwidth: taking a CPU
 * offline shrinks what a group (and the pool) can hold. Like mainline's
 * check of the root domain's task bandwidth, the kernel refuses the
 * offline (EBUSY, nothing changes) when anything would no longer fit on
 * the remaining CPUs: a group full of tasks, a reserved parent full with a
 * reserved child and tasks, the pool full with a reservation and tasks.
 * A group that fits exactly on one CPU fewer lets it go, and its totals
 * follow the active CPUs.
 *
 * The pool is half of each CPU, so the root domain's own check (tasks
 * only) never refuses here: only the groups' can.
 */
#include "dlcpu.h"

struct snap {
	const char *cg[3];
	long long total[3], runtime[3], pool;
};

static struct snap snap_take(const char *a, const char *b, const char *c)
{
	struct snap s = { .cg = { a, b, c } };
	int i;

	for (i = 0; i < 3 && s.cg[i]; i++) {
		s.total[i] = cg_total(s.cg[i]);
		s.runtime[i] = cg_read(s.cg[i], "cpu.dl_runtime_us");
	}
	s.pool = pool_total();
	return s;
}

static bool snap_same(const struct snap *s)
{
	bool same = is("pool", pool_total(), s->pool);
	int i;

	for (i = 0; i < 3 && s->cg[i]; i++) {
		same &= is(s->cg[i], cg_total(s->cg[i]), s->total[i]);
		same &= is(s->cg[i], cg_read(s->cg[i], "cpu.dl_runtime_us"), s->runtime[i]);
	}
	return same;
}

/*
 * Offlining the CPU must fail with EBUSY and change nothing in @a, @b, @c
 * (groups, NULL-terminated) or the pool. When the kernel lets it go, say
 * how overcommitted it left them, and bring the CPU back.
 */
static bool offline_refused(const char *a, const char *b, const char *c)
{
	struct snap s = snap_take(a, b, c);
	int n = cpus(), err, i;
	bool ok;

	err = set_online(false);
	if (!err) {
		ksft_print_msg("offline succeeded on %d CPUs: pool %lld (was %lld)\n", cpus(),
			       pool_total(), s.pool);
		for (i = 0; i < 3 && s.cg[i]; i++)
			ksft_print_msg("  %s holds %lld, reserves %lld us of each CPU\n", s.cg[i],
				       cg_total(s.cg[i]), s.runtime[i]);
		if (set_online(true))
			ksft_exit_fail_msg("online again: %s\n", strerror(errno));
		return false;
	}
	ok = is("offline errno", -err, EBUSY) & is("online file", online_file(), 1) &
	     is("online CPUs", cpus(), n);
	return snap_same(&s) && ok;
}

static void start_tasks(struct dl_child *c, int count, const char *cg, uint64_t runtime)
{
	int i;

	for (i = 0; i < count; i++) {
		c[i] = dl_child_start(cg, runtime);
		if (c[i].err)
			ksft_exit_fail_msg("task %d in %s: %s\n", i, cg, strerror(c[i].err));
	}
}

static void stop_tasks(struct dl_child *c, int count)
{
	int i;

	for (i = 0; i < count; i++)
		dl_child_stop(&c[i]);
}

static void reserve(const char *cg, long long runtime_us)
{
	if (cg_write_ll(cg, "cpu.dl_runtime_us", runtime_us))
		ksft_exit_fail_msg("%s: runtime %lld: %s\n", cg, runtime_us, strerror(errno));
}

int main(void)
{
	long long n = cpus(), q = BW_FRACTION(4), e = BW_FRACTION(8);
	struct dl_child c[MAX_CHILDREN];
	int cpu, err;

	ksft_print_header();
	ksft_set_plan(6);
	dl_setup("dltest-20");
	if (n < 2)
		ksft_exit_skip("one CPU: nothing to take offline\n");
	if (n > 16)
		ksft_exit_skip("more than 16 CPUs\n");
	cpu = pick_cpu();
	if (cpu < 0)
		ksft_exit_skip("no CPU but cpu0 can go offline\n");
	ksft_print_msg("taking cpu%d offline\n", cpu);
	atexit(cpus_restore);
	/* Half of each CPU for deadline tasks, half for RT. */
	set_dl_pool(500000, 500000);

	/*
	 * P reserves 1/4 of each CPU, its child C 1/8, and n tasks of 1/8 CPU
	 * in P/U (no reservation: charged to P) fill it: (n + n) / 8 = n / 4.
	 * On n - 1 CPUs P holds (n - 1) / 4 and C takes (n - 1) / 8 of it.
	 */
	cg_create("P");
	cg_create("P/C");
	cg_create("P/U");
	reserve("P", 250000);
	reserve("P/C", 125000);
	start_tasks(c, n, "P/U", TASK_RUNTIME_NS(8));
	ksft_test_result(is("P", cg_total("P"), q * n) && offline_refused("P", "P/C", "P/U"),
			 "a reserved parent full with a reserved child and tasks: offline EBUSY, nothing changes\n");
	stop_tasks(c, n);
	wait_total("P", e * n);
	reserve("P/C", -1);
	reserve("P", -1);

	/*
	 * The pool (1/2 of each CPU) full: R reserves 3/8 of each CPU, n tasks
	 * of 1/8 CPU in an unreserved group take the rest.
	 */
	cg_create("R");
	cg_create("U");
	reserve("R", 375000);
	start_tasks(c, n, "U", TASK_RUNTIME_NS(8));
	ksft_test_result(is("pool", pool_total(), 2 * q * n) && offline_refused("R", "U", NULL),
			 "the pool full with a reservation and tasks: offline EBUSY, nothing changes\n");
	stop_tasks(c, n);
	wait_total("U", 0);
	reserve("R", -1);

	/* G reserves 1/4 of each CPU: n tasks of 1/4 CPU fill it on n CPUs. */
	cg_create("G");
	reserve("G", 250000);
	start_tasks(c, n, "G", TASK_RUNTIME_NS(4));
	ksft_test_result(is("G", cg_total("G"), q * n) && offline_refused("G", NULL, NULL),
			 "a group full of tasks: offline EBUSY, nothing changes\n");

	/* One task fewer: G fits on n - 1 CPUs exactly. */
	dl_child_stop(&c[n - 1]);
	wait_total("G", q * (n - 1));
	err = set_online(false);
	ksft_test_result(is("offline errno", -err, 0) && is("online CPUs", cpus(), n - 1) &&
			 is("G", cg_total("G"), q * (n - 1)) && is("pool", pool_total(), q * (n - 1)),
			 "a group that fits exactly on one CPU fewer: offline succeeds, G %lld, pool %lld\n",
			 q * (n - 1), q * (n - 1));
	err = cpu_down[the_cpu] ? set_online(true) : 0;
	ksft_test_result(is("online errno", -err, 0) && is("online CPUs", cpus(), n) &&
			 is("G", cg_total("G"), q * (n - 1)) && is("pool", pool_total(), q * n),
			 "online again: the pool holds G's reservation on %lld CPUs again\n", n);

	stop_tasks(c, n - 1);
	ksft_test_result(wait_total("G", 0) == 0 && cg_write_ll("G", "cpu.dl_runtime_us", -1) == 0 &&
			 wait_total(NULL, 0) == 0 && is("online file", online_file(), 1) &&
			 is("online CPUs", cpus(), n),
			 "all released: every total 0, cpu%d online\n", cpu);
	if (failures)
		ksft_print_msg("%d mismatches in all\n", failures);
	ksft_finished();
}
