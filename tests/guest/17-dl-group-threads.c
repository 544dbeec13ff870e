// SPDX-License-Identifier: GPL-2.0
/*
 * Moving a single deadline thread (cgroup.threads in a v2 threaded
 * subtree, the tasks file in v1) moves its bandwidth: EBUSY and the thread
 * stays when the destination cannot hold it, exact totals either way.
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

static bool totals_are(const char *cg, long long want)
{
	long long got = cg_total(cg);

	if (got != want)
		ksft_print_msg("%s: total %lld, want %lld\n", cg, got, want);
	return got == want;
}

int main(void)
{
	long long f16 = BW_FRACTION(16) * cpus(), q = BW_FRACTION(4);
	const char *t1, *t2, *home;
	pid_t pid;
	int tid, err;

	ksft_print_header();
	ksft_set_plan(4);
	dl_setup("dltest-17");
	if (cpus() != 4)
		ksft_exit_skip("written for the default boot's 4 CPUs, not %d\n", cpus());
	set_dl_pool(750000, 250000);
	t1 = cg_v1 ? "t1" : "dom/t1";
	t2 = cg_v1 ? "t2" : "dom/t2";
	if (!cg_v1) {
		/* A threaded subtree: the process lives in dom, its threads anywhere below. */
		cg_create("dom");
		cg_create(t1);
		cg_create(t2);
		if (cg_write(t1, "cgroup.type", "threaded") || cg_write(t2, "cgroup.type", "threaded"))
			ksft_exit_fail_msg("threaded cgroups: %s\n", strerror(errno));
		home = "dom";
	} else {
		cg_create(t1);
		cg_create(t2);
		home = t1;
	}
	if (cg_write_ll(t1, "cpu.dl_runtime_us", 62500) || cg_write_ll(t2, "cpu.dl_runtime_us", 31250))
		ksft_exit_fail_msg("reserve: %s\n", strerror(errno));

	if (pipe(tid_pipe) || pipe(gate))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		pthread_t th;

		close(gate[1]);
		if (cg_move(home, getpid()) || (!cg_v1 && cg_write_ll(t1, "cgroup.threads", (int)syscall(SYS_gettid))))
			_exit(1);
		if (pthread_create(&th, NULL, dl_thread, NULL))
			_exit(1);
		pthread_join(th, NULL);
		_exit(0);
	}
	children[child_count] = pid;
	child_gate[child_count++] = gate[1];
	close(gate[0]);
	if (read(tid_pipe[0], &tid, sizeof(tid)) != sizeof(tid))
		ksft_exit_fail_msg("the child did not report\n");

	ksft_test_result(tid > 0 && has_thread(t1, tid) && totals_are(t1, q) && f16 == q,
			 "a deadline thread of 1/4 CPU in t1 (1/16 of each CPU): t1 %lld\n", q);
	err = -cg_write_ll(t2, threads_file(), tid);
	ksft_test_result(err == EBUSY && has_thread(t1, tid) && !has_thread(t2, tid) &&
			 totals_are(t1, q) && totals_are(t2, 0),
			 "moving the thread to t2 (1/32 of each CPU): EBUSY (%s), it stays in t1\n",
			 strerror(err));
	ksft_test_result(cg_write_ll(t2, "cpu.dl_runtime_us", 62500) == 0 &&
			 cg_write_ll(t2, threads_file(), tid) == 0 && has_thread(t2, tid) &&
			 totals_are(t1, 0) && totals_are(t2, q),
			 "with room in t2 the thread moves, and its bandwidth with it\n");
	dl_cleanup();
	ksft_test_result(wait_total(NULL, 0) == 0, "everything gone: the pool reads 0\n");
	ksft_finished();
}
