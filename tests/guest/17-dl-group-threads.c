// SPDX-License-Identifier: GPL-2.0
/*
 * Moving a single deadline thread (cgroup.threads in a v2 threaded
 * subtree, the tasks file in v1) moves its bandwidth and only its own:
 * EBUSY and the thread stays when the destination cannot hold it (too
 * small, or a 0 reservation), exact totals of every group and of the pool
 * before and after each move. The process's other thread stays put.
 */
#include <pthread.h>
#include "dlgroup.h"

static int tid_pipe[2], gate[2];

/* The deadline thread: reports its tid (or -errno), then waits. */
static void *dl_thread(void *arg)
{
	int tid = (int)syscall(SYS_gettid);
	char c;

	(void)arg;
	if (dl_enter(TASK_RUNTIME_NS(4), TASK_PERIOD_NS, TASK_PERIOD_NS, 0))
		tid = -errno;
	if (write(tid_pipe[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	while (read(gate[0], &c, 1) > 0)
		;
	return NULL;
}

static const char *threads_file(void)
{
	return cg_v1 ? "tasks" : "cgroup.threads";
}

static bool has_thread(const char *cg, int tid)
{
	char line[32];
	bool found = false;
	FILE *f = fopen(cg_path(cg, threads_file()), "re");

	if (!f)
		ksft_exit_fail_msg("open %s: %s\n", cg_path(cg, threads_file()), strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (atoi(line) == tid)
			found = true;
	fclose(f);
	return found;
}

/*
 * The groups of the test: t1, t2 and t0 hold reservations; plain, their
 * parent, holds none, so its cpu.dl_total_bw is what it charges the pool:
 * their reservations and any deadline task in it.
 */
static const char *t1, *t2, *t0, *plain;

struct totals {
	long long t1, t2, t0, plain, pool;
};

static bool total_is(const char *name, long long got, long long want)
{
	if (got != want)
		ksft_print_msg("%s: total %lld, want %lld\n", name, got, want);
	return got == want;
}

static bool totals_are(struct totals want)
{
	bool ok = total_is(t1, cg_total(t1), want.t1);

	ok &= total_is(t2, cg_total(t2), want.t2);
	ok &= total_is(t0, cg_total(t0), want.t0);
	ok &= total_is(*plain ? plain : "top", cg_total(plain), want.plain);
	ok &= total_is("pool", pool_total(), want.pool);
	return ok;
}

/* Move thread @tid to @cg: true if the write's errno is @want_err. */
static bool move_expect(const char *cg, int tid, int want_err)
{
	int err = -cg_write_ll(cg, threads_file(), tid);

	if (err != want_err)
		ksft_print_msg("move thread %d to %s: got %s, want %s\n", tid, cg,
			       strerror(err), strerror(want_err));
	return err == want_err;
}

/* Only where @cg is the thread, and nowhere else. */
static bool only_in(const char *cg, int tid)
{
	const char *all[] = { t1, t2, t0, plain };
	bool ok = true;
	unsigned int i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (has_thread(all[i], tid) != (all[i] == cg)) {
			ksft_print_msg("thread %d %s in %s\n", tid,
				       all[i] == cg ? "not" : "also", *all[i] ? all[i] : "top");
			ok = false;
		}
	}
	return ok;
}

int main(void)
{
	long long n = cpus(), q = BW_FRACTION(4);
	/* The reservations, as the pool counts them: 1/16 and 1/32 of each CPU. */
	long long r16 = BW_FRACTION(16) * n, r32 = BW_FRACTION(32) * n;
	int tid, main_tid = 0, report[2];
	const char *home;
	pid_t pid;

	ksft_print_header();
	ksft_set_plan(8);
	dl_setup("dltest-17");
	if (n != 4)
		ksft_exit_skip("written for the default boot's 4 CPUs, not %lld\n", n);
	set_dl_pool(750000, 250000);
	if (!cg_v1) {
		/*
		 * A threaded subtree: the process lives in its threaded domain
		 * dom (no reservation: it charges the pool), its threads may
		 * be anywhere below.
		 */
		cg_create("dom");
		t1 = "dom/t1";
		t2 = "dom/t2";
		t0 = "dom/t0";
		plain = "dom";
		cg_create(t1);
		cg_create(t2);
		cg_create(t0);
		if (cg_write(t1, "cgroup.type", "threaded") || cg_write(t2, "cgroup.type", "threaded") ||
		    cg_write(t0, "cgroup.type", "threaded"))
			ksft_exit_fail_msg("threaded cgroups: %s\n", strerror(errno));
		home = plain;
	} else {
		t1 = "t1";
		t2 = "t2";
		t0 = "t0";
		plain = "";
		cg_create(t1);
		cg_create(t2);
		cg_create(t0);
		home = t1;
	}
	/* t1 holds exactly the thread (1/16 of 4 CPUs = 1/4 CPU), t2 half of it. */
	if (cg_write_ll(t1, "cpu.dl_runtime_us", 62500) || cg_write_ll(t2, "cpu.dl_runtime_us", 31250) ||
	    cg_write_ll(t0, "cpu.dl_runtime_us", 0))
		ksft_exit_fail_msg("reserve: %s\n", strerror(errno));

	if (pipe(tid_pipe) || pipe(gate) || pipe(report))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		int self = (int)syscall(SYS_gettid);
		pthread_t th;

		close(gate[1]);
		/* v2: the process into its domain, its main thread into t1. */
		if (cg_move(home, getpid()) || (!cg_v1 && cg_write_ll(t1, "cgroup.threads", self)))
			self = -errno;
		if (write(report[1], &self, sizeof(self)) != sizeof(self) || self < 0)
			_exit(1);
		if (pthread_create(&th, NULL, dl_thread, NULL))
			_exit(1);
		pthread_join(th, NULL);
		_exit(0);
	}
	children[child_count] = pid;
	child_gate[child_count++] = gate[1];
	close(gate[0]);
	if (read(report[0], &main_tid, sizeof(main_tid)) != sizeof(main_tid) || main_tid < 0)
		ksft_exit_fail_msg("the child could not join %s: %s\n", t1, strerror(-main_tid));
	if (read(tid_pipe[0], &tid, sizeof(tid)) != sizeof(tid))
		ksft_exit_fail_msg("the child's thread did not report\n");
	if (tid < 0)
		ksft_exit_fail_msg("the thread could not become SCHED_DEADLINE: %s\n", strerror(-tid));

	ksft_test_result(only_in(t1, tid) && only_in(t1, main_tid) &&
			 totals_are((struct totals){ .t1 = q, .plain = r16 + r32, .pool = r16 + r32 }),
			 "a deadline thread of 1/4 CPU fills t1 (1/16 of each CPU): t1 %lld, pool %lld\n",
			 q, r16 + r32);
	ksft_test_result(move_expect(t2, tid, EBUSY) && only_in(t1, tid) &&
			 totals_are((struct totals){ .t1 = q, .plain = r16 + r32, .pool = r16 + r32 }),
			 "moving it to t2 (1/32 of each CPU): EBUSY, it stays in t1, totals unchanged\n");
	ksft_test_result(move_expect(t0, tid, EBUSY) && only_in(t1, tid) &&
			 totals_are((struct totals){ .t1 = q, .plain = r16 + r32, .pool = r16 + r32 }),
			 "moving it under a 0 reservation: EBUSY, it stays in t1, totals unchanged\n");
	ksft_test_result(move_expect(plain, tid, 0) && only_in(plain, tid) && only_in(t1, main_tid) &&
			 totals_are((struct totals){ .plain = r16 + r32 + q, .pool = r16 + r32 + q }),
			 "moving it to a group without reservation charges the pool: %lld; the other thread stays in t1\n",
			 r16 + r32 + q);
	ksft_test_result(move_expect(t2, tid, EBUSY) && only_in(plain, tid) &&
			 totals_are((struct totals){ .plain = r16 + r32 + q, .pool = r16 + r32 + q }),
			 "from there to t2: EBUSY again, totals unchanged\n");
	ksft_test_result(cg_write_ll(t2, "cpu.dl_runtime_us", 62500) == 0 &&
			 totals_are((struct totals){ .plain = 2 * r16 + q, .pool = 2 * r16 + q }) &&
			 move_expect(t2, tid, 0) && only_in(t2, tid) && only_in(t1, main_tid) &&
			 totals_are((struct totals){ .t2 = q, .plain = 2 * r16, .pool = 2 * r16 }),
			 "with room in t2 it moves, and its bandwidth with it: t2 %lld, pool %lld\n",
			 q, 2 * r16);
	ksft_test_result(move_expect(t1, tid, 0) && only_in(t1, tid) &&
			 totals_are((struct totals){ .t1 = q, .plain = 2 * r16, .pool = 2 * r16 }),
			 "and back into t1\n");
	dl_cleanup();
	ksft_test_result(wait_total(NULL, 0) == 0, "everything gone: the pool reads 0\n");
	ksft_finished();
}
