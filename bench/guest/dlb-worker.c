// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dlb-worker: the service of bench part 3, timing its own promotion.
 *
 *   dlb-worker OUT POLICY THREADS [new] [spawn=N] [gap=US]
 *
 * Notes its own policy first thing in main() (after exec: the policy it
 * was given before it ran), starts THREADS - 1 sleeping threads next to
 * its main thread, then polls (every 500 µs) the policy of all of them
 * until each runs POLICY (6: SCHED_DEADLINE, 1: SCHED_FIFO, systemd's).
 * With "new" it then starts one more thread and polls until that one runs
 * POLICY too. With spawn=N it then starts N short threads one after the
 * other, gap=US apart, each noting its policy at its first instruction. Writes one line
 * to OUT (by rename, so a reader never sees half):
 *
 *   all=NS new=NS first=P threads=T outside=K exec=NS lag=NS
 *
 * all: CLOCK_MONOTONIC time (ns) at which every thread was seen running
 * POLICY, to set against the unit's ActiveEnterTimestampMonotonic; new:
 * ns from the new thread's creation to it running POLICY. -1: not within
 * 10 s. first: the main thread's policy at its start; threads: how many
 * threads noted their policy at their first instruction (main included),
 * outside: how many of them were not running POLICY. exec: CLOCK_MONOTONIC
 * time of the main thread's first instruction. lag: how long a thread ran
 * outside POLICY, at most: 0 when each was in it at its first instruction,
 * from the first one that was not until all were otherwise; -1 when a
 * short-lived thread was outside (it ended before it could be seen in).
 * Then it sleeps until stopped.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include "dlb.h"

#define POLL_US 500
#define LIMIT_NS (10 * 1000000000LL)
#define MAX_THREADS 16

static pid_t tids[MAX_THREADS + 1];
static volatile int n_tids;
static int want_policy;
static atomic_int noted, outside, outside_short;
/* When the first thread outside POLICY ran its first instruction. */
static _Atomic int64_t first_outside_ns = INT64_MAX;

/* A thread's policy at its first instruction, counted. */
static bool note_policy(void)
{
	bool out = (sched_getscheduler(0) & ~SCHED_RESET_ON_FORK) != want_policy;

	if (out) {
		int64_t now = dlb_now(), seen = atomic_load(&first_outside_ns);

		while (now < seen && !atomic_compare_exchange_weak(&first_outside_ns, &seen, now))
			;
		atomic_fetch_add(&outside, 1);
	}
	atomic_fetch_add(&noted, 1);
	return out;
}

static void *sleeper(void *arg)
{
	note_policy();
	tids[(intptr_t)arg] = gettid();
	for (;;)
		pause();
	return NULL;
}

static void *short_lived(void *arg)
{
	(void)arg;
	if (note_policy())
		atomic_fetch_add(&outside_short, 1);
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
	int64_t t0 = dlb_now(), all, new_ns = 0, lag;
	int first = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
	char tmp[4200];
	int policy, threads, spawn = 0, gap_us = 0;
	bool new_thread = false;
	FILE *f;

	if (argc < 4)
		dlb_die("usage: dlb-worker OUT POLICY THREADS [new] [spawn=N] [gap=US]");
	policy = atoi(argv[2]);
	threads = atoi(argv[3]);
	for (int i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "new"))
			new_thread = true;
		else if (!strncmp(argv[i], "spawn=", 6))
			spawn = atoi(argv[i] + 6);
		else if (!strncmp(argv[i], "gap=", 4))
			gap_us = atoi(argv[i] + 4);
		else
			dlb_die("unknown argument %s", argv[i]);
	}
	if (threads < 1 || threads > MAX_THREADS - 1)
		dlb_die("THREADS: 1 to %d", MAX_THREADS - 1);
	if (spawn < 0 || spawn > 100000)
		dlb_die("spawn=: 0 to 100000");
	want_policy = policy;
	if (first != policy) {
		first_outside_ns = t0;
		atomic_fetch_add(&outside, 1);
	}
	atomic_fetch_add(&noted, 1);
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
	for (int i = 0; i < spawn; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, short_lived, NULL) || pthread_join(t, NULL))
			dlb_die("pthread_create failed");
		if (gap_us > 0)
			usleep(gap_us);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	f = fopen(tmp, "we");
	if (!f)
		dlb_die("%s: %s", tmp, strerror(errno));
	if (!atomic_load(&outside))
		lag = 0;
	else if (atomic_load(&outside_short) || all < 0)
		lag = -1;
	else
		lag = all - atomic_load(&first_outside_ns);
	fprintf(f, "all=%lld new=%lld first=%d threads=%d outside=%d exec=%lld lag=%lld\n", (long long)all,
		(long long)new_ns, first, atomic_load(&noted), atomic_load(&outside), (long long)t0, (long long)lag);
	fclose(f);
	if (rename(tmp, argv[1]))
		dlb_die("rename %s: %s", argv[1], strerror(errno));
	for (;;)
		pause();
}
