// SPDX-License-Identifier: GPL-2.0
/*
 * Deadline inheritance (mainline): a nice-19 CFS thread holding a
 * PTHREAD_PRIO_INHERIT mutex that a deadline thread (5 ms every 200 ms)
 * waits for runs with the waiter's deadline parameters: its priority in
 * /proc reads -101 (deadline) until it unlocks, then 39 again, and it runs
 * 60 ms of work ahead of one CPU-bound nice-0 CFS thread per CPU without
 * being throttled to the waiter's 5 ms.
 *
 * The work must take less than 600 ms of wall time. Unboosted, at nice 19
 * against a nice-0 load on every CPU, it would get about 1.5% of a CPU
 * (4 s); boosted but throttled to 5 ms per 200 ms it would need 12 periods
 * (2.4 s). TCG stretches neither by 4x.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include "dltask.h"

#define MSEC NSEC_PER_MSEC
#define WORK (60 * MSEC)
#define MAX_WALL (600 * MSEC)
#define MAX_LOAD 64

static pthread_mutex_t lock;
static sem_t locked, go;
static atomic_bool stop;
static atomic_int holder_tid;

struct holder_result {
	int prio_during, prio_after;
	uint64_t wall;
	int err;
};

/* The "priority" field (18) of /proc/self/task/TID/stat, or INT32_MIN. */
static int thread_prio(int tid)
{
	char path[64], buf[512], *p;
	int i, prio = INT32_MIN;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return prio;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		/* after the comm: field 3 (state) onwards */
		for (i = 3, p = strtok(p + 1, " "); p && i < 18; i++)
			p = strtok(NULL, " ");
		if (p)
			prio = atoi(p);
	}
	fclose(f);
	return prio;
}

static void *holder_fn(void *arg)
{
	struct holder_result *r = arg;
	int tid = (int)syscall(SYS_gettid);
	uint64_t t0;

	holder_tid = tid;
	if (setpriority(PRIO_PROCESS, tid, 19) || pthread_mutex_lock(&lock)) {
		r->err = errno;
		sem_post(&locked);
		return NULL;
	}
	sem_post(&locked);
	sem_wait(&go);
	t0 = now_ns();
	spin_cpu_ns(WORK);
	r->wall = now_ns() - t0;
	r->prio_during = thread_prio(tid);
	pthread_mutex_unlock(&lock);
	r->prio_after = thread_prio(tid);
	return NULL;
}

static void *waiter_fn(void *arg)
{
	int *err = arg;

	*err = dl_enter(5 * MSEC, 200 * MSEC, 200 * MSEC, 0);
	if (*err)
		return NULL;
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	dl_leave();
	return NULL;
}

static void *load_fn(void *arg)
{
	(void)arg;
	while (!stop)
		;
	return NULL;
}

int main(void)
{
	struct holder_result r = { 0 };
	pthread_t holder, waiter, load[MAX_LOAD];
	pthread_mutexattr_t ma;
	int i, nload = 0, waiter_err = 0, boosted = INT32_MIN;
	long long pool0 = dl_pool_total(), pool1;
	uint64_t until;

	ksft_print_header();
	ksft_set_plan(3);
	if (pthread_mutexattr_init(&ma) || pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT) ||
	    pthread_mutex_init(&lock, &ma) || sem_init(&locked, 0, 0) || sem_init(&go, 0, 0))
		ksft_exit_fail_msg("mutex/semaphore setup failed\n");
	if (pthread_create(&holder, NULL, holder_fn, &r))
		ksft_exit_fail_msg("pthread_create: %s\n", strerror(errno));
	sem_wait(&locked);
	if (r.err)
		ksft_exit_fail_msg("holder: %s\n", strerror(r.err));
	ksft_print_msg("holder at nice 19: priority %d\n", thread_prio(holder_tid));

	for (i = 0; i < online_cpus() && i < MAX_LOAD; i++, nload++)
		if (pthread_create(&load[i], NULL, load_fn, NULL))
			break;
	if (pthread_create(&waiter, NULL, waiter_fn, &waiter_err))
		ksft_exit_fail_msg("pthread_create: %s\n", strerror(errno));

	/* The waiter blocks on the mutex: the (sleeping) holder gets its priority. */
	until = now_ns() + 5000 * MSEC;
	while (now_ns() < until && !waiter_err && (boosted = thread_prio(holder_tid)) != -101)
		usleep(1000);
	sem_post(&go);
	pthread_join(holder, NULL);
	pthread_join(waiter, NULL);
	stop = true;
	for (i = 0; i < nload; i++)
		pthread_join(load[i], NULL);

	ksft_print_msg("boosted holder: priority %d while waiting, %d while working, %d after unlock; %.0f ms of work took %.1f ms beside %d CPU-bound threads\n",
		       boosted, r.prio_during, r.prio_after, ms(WORK), ms(r.wall), nload);
	ksft_test_result(!waiter_err && boosted == -101 && r.prio_during == -101,
			 "the CFS holder runs at deadline priority (-101) while a deadline task waits (%s)\n",
			 strerror(-waiter_err));
	ksft_test_result(r.prio_after == 39, "deboosted to nice 19 (39) on unlock (%d)\n", r.prio_after);
	ksft_test_result(r.wall > 0 && r.wall < MAX_WALL,
			 "boosted, it runs ahead of the CPU-bound load and is not throttled (%.1f ms < %.0f ms)\n",
			 ms(r.wall), ms(MAX_WALL));
	/* The waiter's bandwidth returns at its 0-lag time: leave the pool as found. */
	pool1 = dl_pool_wait(pool0);
	if (pool1 != pool0)
		ksft_print_msg("sched_dl_total_bw %lld 3 s after the end, %lld at the start\n", pool1, pool0);
	ksft_finished();
}
