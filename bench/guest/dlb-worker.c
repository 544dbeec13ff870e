// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dlb-worker: the service of bench part 3, timing its own promotion.
 *
 *   dlb-worker OUT POLICY THREADS [new]
 *
 * Starts THREADS - 1 sleeping threads next to its main thread, then polls
 * (every 500 µs) the policy of all of them until each runs POLICY (6:
 * SCHED_DEADLINE, dld's doing; 1: SCHED_FIFO, systemd's). With "new" it
 * then starts one more thread and polls until that one runs POLICY too.
 * Writes one line to OUT (by rename, so a reader never sees half):
 *
 *   all=NS new=NS
 *
 * all: CLOCK_MONOTONIC time (ns) at which every thread was seen running
 * POLICY, to set against the unit's ActiveEnterTimestampMonotonic; new:
 * ns from the new thread's creation to it running POLICY. -1: not within
 * 10 s. Then it sleeps until stopped.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include "dlb.h"

#define POLL_US 500
#define LIMIT_NS (10 * 1000000000LL)
#define MAX_THREADS 16

static pid_t tids[MAX_THREADS + 1];
static volatile int n_tids;

static void *sleeper(void *arg)
{
	tids[(intptr_t)arg] = gettid();
	for (;;)
		pause();
	return NULL;
}

static bool all_run(int policy, int from, int to)
{
	for (int i = from; i < to; i++)
		/* dld sets SCHED_RESET_ON_FORK, which sched_getscheduler() ORs in. */
		if (!tids[i] || (sched_getscheduler(tids[i]) & ~SCHED_RESET_ON_FORK) != policy)
			return false;
	return true;
}

static int64_t wait_policy(int policy, int from, int to, int64_t since)
{
	while (!all_run(policy, from, to)) {
		if (dlb_now() - since > LIMIT_NS)
			return -1;
		usleep(POLL_US);
	}
	return dlb_now();
}

static void start_thread(int idx)
{
	pthread_t t;

	if (pthread_create(&t, NULL, sleeper, (void *)(intptr_t)idx))
		dlb_die("pthread_create failed");
}

int main(int argc, char **argv)
{
	int64_t t0 = dlb_now(), all, new_ns = 0;
	char tmp[4200];
	int policy, threads;
	bool new_thread;
	FILE *f;

	if (argc < 4)
		dlb_die("usage: dlb-worker OUT POLICY THREADS [new]");
	policy = atoi(argv[2]);
	threads = atoi(argv[3]);
	new_thread = argc > 4 && !strcmp(argv[4], "new");
	if (threads < 1 || threads > MAX_THREADS - 1)
		dlb_die("THREADS: 1 to %d", MAX_THREADS - 1);
	tids[0] = gettid();
	for (int i = 1; i < threads; i++)
		start_thread(i);
	all = wait_policy(policy, 0, threads, t0);
	if (new_thread && all >= 0) {
		int64_t c = dlb_now();

		start_thread(threads);
		new_ns = wait_policy(policy, threads, threads + 1, c);
		if (new_ns >= 0)
			new_ns -= c;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	f = fopen(tmp, "we");
	if (!f)
		dlb_die("%s: %s", tmp, strerror(errno));
	fprintf(f, "all=%lld new=%lld\n", (long long)all, (long long)new_ns);
	fclose(f);
	if (rename(tmp, argv[1]))
		dlb_die("rename %s: %s", argv[1], strerror(errno));
	for (;;)
		pause();
}
