// SPDX-License-Identifier: GPL-2.0
/*
 * sched_setattr() on a task whose utilization is, for a moment, on no
 * runqueue (patch 0010):
 *
 * 1. A task being woken on another CPU through that CPU's wake list: the
 *    waker took its utilization out of the old runqueue, the new CPU adds
 *    it when it activates the task. A change of policy or parameters in
 *    between must not touch either runqueue; it used to subtract from, or
 *    add to, the new one as well, which then stayed off by the task's
 *    bandwidth (SCHED_WARN_ON()s in __sub_rq_bw(), found by the stress).
 * 2. A child made SCHED_DEADLINE by another thread while it is still
 *    being forked (its pid is found before wake_up_new_task()): its first
 *    enqueue must count it as active, or running_bw underflows when it
 *    blocks.
 *
 * 3. A task moved out of SCHED_DEADLINE while blocked, just as the
 *    handler of its inactive timer, having found it still in
 *    SCHED_DEADLINE, is about to return: the bandwidth must be given back
 *    at once, not left to that handler (patch 0002). It was never given
 *    back: the root domain's total_bw and the pool kept one task's
 *    bandwidth (a stalled vCPU widens the window: a few rounds of the
 *    wake-list race found it in 4 of 5 boots after the earlier tests).
 *
 * Afterwards, with every deadline task gone, each runqueue's running_bw
 * and this_bw (scheduler debugfs, patch 0032) must be 0, and the pool and
 * the root domain back where they were.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "dltask.h"

#define WAKEES 6
#define SETTERS 2
#define RACE_NS (3 * NSEC_PER_SEC)
#define RACE_ROUNDS 8

static atomic_bool stop;
static atomic_int wakee_tid[WAKEES];
static int wake_fd[WAKEES];
static atomic_long changes, wakeups;

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Spins a little, sleeps on its eventfd, and again; in whatever policy it is given. */
static void *wakee(void *arg)
{
	long i = (long)arg;
	uint64_t v;

	wakee_tid[i] = gettid_();
	while (!stop) {
		spin_cpu_ns(50 * NSEC_PER_USEC);
		if (read(wake_fd[i], &v, sizeof(v)) == sizeof(v))
			wakeups++;
	}
	return NULL;
}

/* Wakes the wakees from wherever it runs, so that some wakeups go through a wake list. */
static void *waker(void *arg)
{
	uint64_t one = 1;
	int i;

	(void)arg;
	while (!stop) {
		for (i = 0; i < WAKEES; i++)
			if (write(wake_fd[i], &one, sizeof(one)) < 0)
				break;
		usleep(200);
	}
	for (i = 0; i < WAKEES; i++)
		if (write(wake_fd[i], &one, sizeof(one)) < 0)
			break;
	return NULL;
}

/* Moves the wakees between two deadline reservations and SCHED_OTHER. */
static void *setter(void *arg)
{
	const struct sched_attr small = dlsched_deadline_attr(300 * NSEC_PER_USEC, 4 * NSEC_PER_MSEC,
							      4 * NSEC_PER_MSEC, 0);
	const struct sched_attr big = dlsched_deadline_attr(NSEC_PER_MSEC, 4 * NSEC_PER_MSEC,
							    4 * NSEC_PER_MSEC, 0);
	const struct sched_attr other = { .size = sizeof(other), .sched_policy = SCHED_OTHER };
	unsigned int seed = (unsigned int)(long)arg;

	while (!stop) {
		int tid = wakee_tid[rand_r(&seed) % WAKEES], r = rand_r(&seed) % 3;

		if (tid && !dlsched_sched_setattr(tid, r == 0 ? &small : r == 1 ? &big : &other, 0))
			changes++;
	}
	return NULL;
}

static void wake_list_race_round(void)
{
	pthread_t wakees[WAKEES], wakers[2], setters[SETTERS];
	uint64_t end;
	long i;

	for (i = 0; i < WAKEES; i++) {
		wake_fd[i] = eventfd(0, EFD_CLOEXEC);
		if (wake_fd[i] < 0)
			ksft_exit_fail_msg("eventfd: %s\n", strerror(errno));
		pthread_create(&wakees[i], NULL, wakee, (void *)i);
	}
	for (i = 0; i < 2; i++)
		pthread_create(&wakers[i], NULL, waker, NULL);
	for (i = 0; i < SETTERS; i++)
		pthread_create(&setters[i], NULL, setter, (void *)(i + 1));
	end = now_ns() + RACE_NS;
	while (now_ns() < end)
		usleep(10000);
	stop = true;
	for (i = 0; i < SETTERS; i++)
		pthread_join(setters[i], NULL);
	for (i = 0; i < 2; i++)
		pthread_join(wakers[i], NULL);
	for (i = 0; i < WAKEES; i++) {
		pthread_join(wakees[i], NULL);
		close(wake_fd[i]);
	}
}

static atomic_int fork_target;
static atomic_long new_hits;

/* Asks SCHED_DEADLINE for the pid the next child will get, until it gets it. */
static void *fork_setter(void *arg)
{
	const struct sched_attr a = dlsched_deadline_attr(300 * NSEC_PER_USEC, 4 * NSEC_PER_MSEC,
							  4 * NSEC_PER_MSEC, 0);

	(void)arg;
	while (!stop) {
		int pid = fork_target;

		if (pid && !dlsched_sched_setattr(pid, &a, 0)) {
			new_hits++;
			atomic_compare_exchange_strong(&fork_target, &pid, 0);
		}
	}
	return NULL;
}

static void fork_race(void)
{
	pthread_t th;
	int i, status;
	pid_t pid, last;

	/* Pids are handed out in order: the next child's is the last one's + 1. */
	last = fork();
	if (!last)
		_exit(0);
	if (last < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	waitpid(last, &status, 0);
	stop = false;
	pthread_create(&th, NULL, fork_setter, NULL);
	for (i = 0; i < 300; i++) {
		fork_target = last + 1;
		pid = fork();
		if (pid < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		if (!pid) {
			/* Active, blocked, active again, then gone. */
			spin_cpu_ns(100 * NSEC_PER_USEC);
			usleep(500);
			spin_cpu_ns(100 * NSEC_PER_USEC);
			_exit(0);
		}
		fork_target = 0;
		waitpid(pid, &status, 0);
		last = pid;
	}
	stop = true;
	pthread_join(th, NULL);
	ksft_print_msg("fork race: 300 forks, %ld children made SCHED_DEADLINE\n", (long)new_hits);
	ksft_test_result(new_hits > 0, "fork race: children were made SCHED_DEADLINE\n");
}

static long long pool_start, rd_start;

/* Up to 3 s (a 0-lag time away) for @now() to be @want again. */
static long long wait_for(long long (*now)(void), long long want)
{
	long long v = now();
	int i;

	for (i = 0; i < 300 && v != want; i++) {
		usleep(10000);
		v = now();
	}
	return v;
}

static long long rd0_total_bw(void)
{
	return rd_total_bw(0);
}

/* With every deadline task of @what gone, all its bandwidth is back. */
static void bandwidth_back(const char *what)
{
	long long pool = wait_for(dl_pool_total, pool_start), rd = wait_for(rd0_total_bw, rd_start);

	ksft_test_result(rq_bw_zero(1000), "%s: every runqueue's running_bw and this_bw back to 0\n",
			 what);
	ksft_test_result(pool == pool_start, "%s: sched_dl_total_bw back to %lld (%lld)\n", what,
			 pool_start, pool);
	ksft_test_result(rd == rd_start, "%s: the root domain's total_bw back to %lld (%lld)\n", what,
			 rd_start, rd);
}

/*
 * Rounds of the wake-list race, each ended by a check that the pool and
 * the root domain are back: a bandwidth release lost to a finishing
 * inactive timer shows there.
 */
static void wake_list_race(void)
{
	long long pool = pool_start, rd = rd_start;
	int round;

	for (round = 0; round < RACE_ROUNDS && pool == pool_start && rd == rd_start; round++) {
		stop = false;
		memset(wakee_tid, 0, sizeof(wakee_tid));
		wake_list_race_round();
		pool = wait_for(dl_pool_total, pool_start);
		rd = wait_for(rd0_total_bw, rd_start);
	}
	ksft_print_msg("wake-list race: %d rounds, %ld policy changes, %ld wakeups\n", round,
		       (long)changes, (long)wakeups);
	ksft_test_result(changes > 0 && wakeups > 0,
			 "wake-list race: the wakees were woken and changed policy\n");
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(8);
	if (geteuid())
		ksft_exit_skip("needs root\n");
	if (!rq_bw_zero(1000))
		ksft_exit_fail_msg("a runqueue has deadline utilization before the test\n");
	pool_start = dl_pool_total();
	rd_start = rd_total_bw(0);

	wake_list_race();
	bandwidth_back("wake-list race");
	fork_race();
	bandwidth_back("fork race");
	ksft_finished();
}
