// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dlb-hot: the scheduler's hot paths, the same program on the patched and
 * the stock kernel (bench part 1) and against cgroup depth (part 5).
 * Each command prints one "BENCH {json}" line.
 *
 *   dlb-hot calib N                a user-space loop of N steps: the emulated
 *                                  CPU's speed during this boot
 *   dlb-hot pipe N                 ping-pong of two processes over pipes on
 *                                  CPU 0: context switches per second
 *   dlb-hot forkexit N             fork, _exit, waitpid: µs per process
 *   dlb-hot hackbench GROUPS LOOPS hackbench's messaging: per group 10
 *                                  senders x 10 receivers over socketpairs,
 *                                  LOOPS 100-byte messages each; seconds
 *   dlb-hot setattr DEPTH R N      sched_setattr() into SCHED_DEADLINE and
 *                                  back, N times, in a cgroup at DEPTH (0:
 *                                  the root), R=1 with a reservation of its
 *                                  own (patched kernel): median ns each way
 *   dlb-hot reswrite DEPTH N       cpu.dl_runtime_us written N times in a
 *                                  group at DEPTH: median ns per write
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "dlb.h"

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
}

/* A fixed user-space loop, no system calls: how fast the emulated CPU ran
 * during this boot. Under TCG it follows the host's load, which the
 * patched/stock ratios must not be mistaken for. */
static int bench_calib(long n)
{
	volatile uint64_t x = 1;
	int64_t t0 = dlb_now(), t1;

	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	t1 = dlb_now();
	printf("BENCH {\"test\":\"calib\",\"iters\":%ld,\"seconds\":%.6f,\"mloops_per_s\":%.3f}\n",
	       n, (t1 - t0) / 1e9, n * 1e3 / (double)(t1 - t0));
	return 0;
}

static int bench_pipe(long n)
{
	int ab[2], ba[2];
	char c = 0;
	int64_t t0, t1;
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		dlb_die("pipe: %s", strerror(errno));
	pin(0);
	pid = fork();
	if (pid < 0)
		dlb_die("fork: %s", strerror(errno));
	if (pid == 0) {
		for (long i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	t0 = dlb_now();
	for (long i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			dlb_die("ping-pong: %s", strerror(errno));
	t1 = dlb_now();
	waitpid(pid, NULL, 0);
	/* Two switches per round trip. */
	printf("BENCH {\"test\":\"pipe\",\"iters\":%ld,\"seconds\":%.6f,\"switches_per_s\":%.1f}\n",
	       n, (t1 - t0) / 1e9, 2.0 * n * 1e9 / (double)(t1 - t0));
	return 0;
}

static int bench_forkexit(long n)
{
	int64_t t0 = dlb_now(), t1;

	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			dlb_die("fork: %s", strerror(errno));
		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	t1 = dlb_now();
	printf("BENCH {\"test\":\"forkexit\",\"iters\":%ld,\"us_per_op\":%.3f,\"ops_per_s\":%.1f}\n",
	       n, (t1 - t0) / 1e3 / n, n * 1e9 / (double)(t1 - t0));
	return 0;
}

#define HB_PAIRS 10
#define HB_MSG 100

static void hb_sender(int *fds, long loops, int start_fd)
{
	char buf[HB_MSG] = { 0 };
	char c;

	/* Wait for the start signal, then write to every receiver. */
	if (read(start_fd, &c, 1) != 1)
		_exit(1);
	for (long i = 0; i < loops; i++)
		for (int r = 0; r < HB_PAIRS; r++)
			if (write(fds[r], buf, HB_MSG) != HB_MSG)
				_exit(1);
	_exit(0);
}

static void hb_receiver(int fd, long loops)
{
	char buf[HB_MSG];
	long want = loops * HB_PAIRS * HB_MSG;

	while (want > 0) {
		ssize_t k = read(fd, buf, want < HB_MSG ? want : HB_MSG);

		if (k <= 0)
			_exit(1);
		want -= k;
	}
	_exit(0);
}

static int bench_hackbench(int groups, long loops)
{
	int start[2];
	int npids = 0, bad = 0;
	pid_t *pids = calloc((size_t)groups * 2 * HB_PAIRS, sizeof(pid_t));
	int64_t t0, t1;

	if (!pids || pipe(start))
		dlb_die("setup: %s", strerror(errno));
	t0 = dlb_now();
	for (int g = 0; g < groups; g++) {
		int wr[HB_PAIRS], rd[HB_PAIRS];

		for (int r = 0; r < HB_PAIRS; r++) {
			int sv[2];

			if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
				dlb_die("socketpair: %s", strerror(errno));
			rd[r] = sv[0];
			wr[r] = sv[1];
		}
		for (int r = 0; r < HB_PAIRS; r++) {
			pid_t pid = fork();

			if (pid == 0)
				hb_receiver(rd[r], loops);
			pids[npids++] = pid;
		}
		for (int s = 0; s < HB_PAIRS; s++) {
			pid_t pid = fork();

			if (pid == 0)
				hb_sender(wr, loops, start[0]);
			pids[npids++] = pid;
		}
		for (int r = 0; r < HB_PAIRS; r++) {
			close(rd[r]);
			close(wr[r]);
		}
	}
	/* One byte per sender starts them all. */
	for (int i = 0; i < groups * HB_PAIRS; i++)
		if (write(start[1], "g", 1) != 1)
			dlb_die("start: %s", strerror(errno));
	for (int i = 0; i < npids; i++) {
		int st;

		if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	t1 = dlb_now();
	free(pids);
	printf("BENCH {\"test\":\"hackbench\",\"groups\":%d,\"loops\":%ld,\"seconds\":%.6f,\"failed\":%d}\n",
	       groups, loops, (t1 - t0) / 1e9, bad);
	return bad ? 1 : 0;
}

static void leave_to_root(unsigned depth)
{
	dlb_enter(DLB_CG_ROOT);
	dlb_unchain(depth);
}

static void reserve(const char *leaf, long runtime_us, long period_us)
{
	char f[4200];
	int r;

	snprintf(f, sizeof(f), "%s/cpu.dl_period_us", leaf);
	r = dlb_writef(f, "%ld", period_us);
	snprintf(f, sizeof(f), "%s/cpu.dl_runtime_us", leaf);
	if (!r)
		r = dlb_writef(f, "%ld", runtime_us);
	if (r)
		dlb_die("reserve %ld/%ld in %s: %s", runtime_us, period_us, leaf, strerror(-r));
}

/* Task: 100 µs every 100 ms (0.1%): entries that have not yet given their
 * bandwidth back (0-lag) still fit the default 5% pool many times over. */
#define SA_RUNTIME 100000ULL
#define SA_PERIOD 100000000ULL

static int bench_setattr(unsigned depth, int reserved, long n)
{
	char leaf[4096];
	int64_t *in = calloc(n, sizeof(*in)), *out = calloc(n, sizeof(*out));
	long busy = 0, done = 0;

	if (!in || !out)
		dlb_die("out of memory");
	if (reserved && !dlb_patched())
		dlb_die("reservations need the patched kernel");
	dlb_chain(depth, leaf, sizeof(leaf));
	if (reserved)
		reserve(leaf, 4000, 100000);	/* 4% of each CPU: within the default 5% pool */
	dlb_enter(leaf);
	while (done < n) {
		int64_t t0 = dlb_now(), t1, t2;
		int r = dlb_deadline(SA_RUNTIME, SA_PERIOD, SA_PERIOD, 0);

		t1 = dlb_now();
		if (r == -EBUSY) {
			/* Bandwidth of earlier entries not yet back: wait for it. */
			busy++;
			usleep(1000);
			continue;
		}
		if (r)
			dlb_die("sched_setattr(SCHED_DEADLINE): %s", strerror(-r));
		r = dlb_other();
		t2 = dlb_now();
		if (r)
			dlb_die("sched_setattr(SCHED_OTHER): %s", strerror(-r));
		in[done] = t1 - t0;
		out[done] = t2 - t1;
		done++;
	}
	if (reserved)
		reserve(leaf, -1, 100000);
	leave_to_root(depth);
	dlb_sort(in, n);
	dlb_sort(out, n);
	printf("BENCH {\"test\":\"setattr\",\"depth\":%u,\"reserved\":%s,\"iters\":%ld,"
	       "\"in_ns_p50\":%lld,\"in_ns_p90\":%lld,\"out_ns_p50\":%lld,\"out_ns_p90\":%lld,"
	       "\"pair_ns_p50\":%lld,\"ebusy\":%ld}\n",
	       depth, reserved ? "true" : "false", n,
	       (long long)dlb_quantile(in, n, 0.5), (long long)dlb_quantile(in, n, 0.9),
	       (long long)dlb_quantile(out, n, 0.5), (long long)dlb_quantile(out, n, 0.9),
	       (long long)(dlb_quantile(in, n, 0.5) + dlb_quantile(out, n, 0.5)), busy);
	free(in);
	free(out);
	return 0;
}

static int bench_reswrite(unsigned depth, long n)
{
	char leaf[4096], f[4200];
	int64_t *t = calloc(n, sizeof(*t));

	if (!t)
		dlb_die("out of memory");
	if (!dlb_patched())
		dlb_die("reservations need the patched kernel");
	dlb_chain(depth, leaf, sizeof(leaf));
	reserve(leaf, 1000, 100000);
	snprintf(f, sizeof(f), "%s/cpu.dl_runtime_us", leaf);
	for (long i = 0; i < n; i++) {
		int64_t t0 = dlb_now();
		int r = dlb_writef(f, "%d", i % 2 ? 1000 : 2000);

		t[i] = dlb_now() - t0;
		if (r)
			dlb_die("write %s: %s", f, strerror(-r));
	}
	reserve(leaf, -1, 100000);
	dlb_unchain(depth);
	dlb_sort(t, n);
	printf("BENCH {\"test\":\"reswrite\",\"depth\":%u,\"iters\":%ld,\"ns_p50\":%lld,\"ns_p90\":%lld}\n",
	       depth, n, (long long)dlb_quantile(t, n, 0.5), (long long)dlb_quantile(t, n, 0.9));
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "calib"))
		return bench_calib(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "pipe"))
		return bench_pipe(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "forkexit"))
		return bench_forkexit(atol(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "hackbench"))
		return bench_hackbench(atoi(argv[2]), atol(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "setattr"))
		return bench_setattr((unsigned)atoi(argv[2]), atoi(argv[3]), atol(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "reswrite"))
		return bench_reswrite((unsigned)atoi(argv[2]), atol(argv[3]));
	fprintf(stderr, "usage: dlb-hot calib N | pipe N | forkexit N | hackbench GROUPS LOOPS | "
		"setattr DEPTH RESERVED N | reswrite DEPTH N\n");
	return 2;
}
