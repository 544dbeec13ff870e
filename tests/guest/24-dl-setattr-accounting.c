// SPDX-License-Identifier: GPL-2.0
/*
 * sched_setattr() calls that must not move the allocated bandwidth, found
 * by the stress (29) as a drift of the root domain's total_bw:
 *
 * 1. SCHED_FLAG_KEEP_PARAMS changes the clamps only: asking for
 *    SCHED_DEADLINE with it leaves a SCHED_OTHER task where it is, and a
 *    deadline task's parameters as they are; neither may charge anything
 *    (patch 0008).
 * 2. A task that has exited (a zombie) is never dequeued again, so it
 *    could never give back bandwidth charged now: SCHED_DEADLINE is
 *    refused with ESRCH (patch 0007).
 * 3. fork() while another thread moves the parent in and out of
 *    SCHED_DEADLINE: a child is never SCHED_DEADLINE, which it would be
 *    with no bandwidth admitted and in the fair class (patch 0009).
 * 4. sched_setattr(SCHED_FLAG_KEEP_POLICY) on a thread that another
 *    thread moves in and out of SCHED_DEADLINE: the call starts over when
 *    the policy changed under it, and must then not release cpuset_mutex
 *    a second time (patch 0012). The debug kernel's lockdep reports that
 *    as a bad unlock balance, a splat that fails the run (make
 *    check-debug); here the totals must come back.
 * 5. SysRq-n (normalize_rt_tasks()) moves a deadline task to SCHED_OTHER
 *    under tasklist_lock, where __sched_setscheduler() must not take
 *    cpuset_mutex, which that path would never release (patch 0013): the
 *    next deadline admission would wait for ever. It also renices and
 *    demotes every other real-time user task of the guest; none of the
 *    guest's own services is one.
 * 6. SysRq-n on a deadline task that is running on another CPU: it must
 *    not be charged the time since boot (normalize_rt_tasks() reset the
 *    task's exec_start, patch 0017), which pushed its 0-lag time, and the
 *    return of its bandwidth, minutes away.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "dlgroup.h"
#include "dltask.h"

struct totals {
	long long pool, rd;
};

static struct totals totals(void)
{
	return (struct totals){ .pool = pool_total(), .rd = rd_total_bw(0) };
}

static bool totals_same(const char *when, struct totals before)
{
	struct totals now = totals();

	if (now.pool == before.pool && now.rd == before.rd)
		return true;
	ksft_print_msg("%s: sched_dl_total_bw %lld -> %lld, root domain total_bw %lld -> %lld\n", when,
		       before.pool, now.pool, before.rd, now.rd);
	return false;
}

/* Up to 5 s for the totals to be @want again (a 0-lag time away). */
static bool totals_back(struct totals want)
{
	int i;

	for (i = 0; i < 50; i++) {
		struct totals now = totals();

		if (now.pool == want.pool && now.rd == want.rd)
			return true;
		usleep(100000);
	}
	return totals_same("back", want);
}

static void keep_params(struct totals start)
{
	/* Small enough to fit the default pool: it must not be charged. */
	struct sched_attr a = dlsched_deadline_attr(2 * NSEC_PER_MSEC, TASK_PERIOD_NS,
						     TASK_PERIOD_NS, 0), got;
	struct dl_child other = dl_child_start(NULL, 0), dl;
	struct totals before = totals();
	int err;

	a.sched_flags = SCHED_FLAG_KEEP_PARAMS;
	err = dlsched_sched_setattr(other.pid, &a, 0) ? errno : 0;
	ksft_print_msg("SCHED_DEADLINE with KEEP_PARAMS on a SCHED_OTHER task: %s\n", strerror(err));
	ksft_test_result(sched_getscheduler(other.pid) == SCHED_OTHER && totals_same("other", before),
			 "KEEP_PARAMS asking SCHED_DEADLINE for a SCHED_OTHER task: it stays SCHED_OTHER, nothing charged\n");
	dl_child_stop(&other);

	/*
	 * sched_setattr() fills the parameters in from the task: they only
	 * differ from its own when another thread changes them meanwhile, a
	 * race the stress (29) runs into; here it must simply do nothing.
	 */
	dl = dl_child_start(NULL, 5 * NSEC_PER_MSEC);
	if (dl.err)
		ksft_exit_fail_msg("a 5 ms deadline child: %s\n", strerror(dl.err));
	before = totals();
	err = dlsched_sched_setattr(dl.pid, &a, 0) ? errno : 0;
	if (dlsched_sched_getattr(dl.pid, &got, sizeof(got), 0))
		ksft_exit_fail_msg("sched_getattr: %s\n", strerror(errno));
	ksft_print_msg("2 ms with KEEP_PARAMS on a 5 ms task: %s, runtime now %llu ns\n", strerror(err),
		       (unsigned long long)got.sched_runtime);
	ksft_test_result(got.sched_runtime == 5 * NSEC_PER_MSEC && totals_same("deadline", before),
			 "KEEP_PARAMS with other parameters for a deadline task: they stay, nothing charged\n");
	dl_child_stop(&dl);
	ksft_test_result(totals_back(start), "once the tasks are gone: the totals are back to the start\n");
}

static void zombie(struct totals start)
{
	struct sched_attr a = dlsched_deadline_attr(10 * NSEC_PER_MSEC, TASK_PERIOD_NS,
						     TASK_PERIOD_NS, 0);
	struct totals before;
	siginfo_t si;
	pid_t pid;
	int err;

	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid)
		_exit(0);
	/* A zombie, not reaped; then time for its last schedule. */
	if (waitid(P_PID, pid, &si, WEXITED | WNOWAIT))
		ksft_exit_fail_msg("waitid: %s\n", strerror(errno));
	usleep(200000);
	before = totals();
	err = dlsched_sched_setattr(pid, &a, 0) ? errno : 0;
	ksft_test_result(err == ESRCH, "SCHED_DEADLINE for a zombie: ESRCH (got %s)\n", strerror(err));
	ksft_test_result(totals_same("zombie", before), "SCHED_DEADLINE for a zombie: nothing charged\n");
	waitpid(pid, NULL, 0);
	ksft_test_result(totals_back(start), "once it is reaped: the totals are back to the start\n");
}

static atomic_int toggling;

/* Moves the thread @arg points at in and out of SCHED_DEADLINE. */
static void *toggler(void *arg)
{
	struct sched_attr dl = dlsched_deadline_attr(1 * NSEC_PER_MSEC, 10 * NSEC_PER_MSEC,
						      10 * NSEC_PER_MSEC, 0);
	struct sched_attr other = { .size = sizeof(other), .sched_policy = SCHED_OTHER };
	pid_t tid = *(pid_t *)arg;

	while (atomic_load(&toggling)) {
		dlsched_sched_setattr(tid, &dl, 0);
		dlsched_sched_setattr(tid, &other, 0);
	}
	return NULL;
}

#define FORK_RACE_NS (3 * NSEC_PER_SEC)

static void fork_race(struct totals start)
{
	unsigned long forks = 0, refused = 0, dl_children = 0;
	pid_t self = syscall(SYS_gettid);
	uint64_t end;
	pthread_t th;
	int status;

	atomic_store(&toggling, 1);
	if (pthread_create(&th, NULL, toggler, &self))
		ksft_exit_fail_msg("pthread_create\n");
	end = now_ns() + FORK_RACE_NS;
	do {
		pid_t pid = fork();

		if (pid < 0) {
			/* EAGAIN: a deadline task without reset-on-fork may not fork */
			if (errno != EAGAIN)
				ksft_exit_fail_msg("fork: %s\n", strerror(errno));
			refused++;
		} else if (!pid) {
			_exit((sched_getscheduler(0) & ~SCHED_RESET_ON_FORK) == SCHED_DEADLINE);
		} else {
			forks++;
			if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status))
				dl_children++;
		}
	} while (now_ns() < end);
	atomic_store(&toggling, 0);
	pthread_join(th, NULL);
	dl_leave();
	ksft_print_msg("fork against sched_setattr: %lu children, %lu refused (EAGAIN), %lu in SCHED_DEADLINE\n",
		       forks, refused, dl_children);
	ksft_test_result(forks && !dl_children,
			 "fork while the parent goes in and out of SCHED_DEADLINE: no child is SCHED_DEADLINE\n");
	ksft_test_result(totals_back(start), "after the fork race: the totals are back to the start\n");
}

/* Sleeps until told to stop: the thread the others change. */
static void *sleeper(void *arg)
{
	atomic_int *tid = arg;

	atomic_store(tid, syscall(SYS_gettid));
	while (atomic_load(&toggling))
		usleep(1000);
	return NULL;
}

#define KEEP_POLICY_RACE_NS (3 * NSEC_PER_SEC)

static void keep_policy_race(struct totals start)
{
	/* Other parameters than the toggler's, so that each call changes something. */
	struct sched_attr keep = dlsched_deadline_attr(2 * NSEC_PER_MSEC, 20 * NSEC_PER_MSEC,
							20 * NSEC_PER_MSEC, 0);
	unsigned long calls = 0, changed = 0;
	atomic_int target = 0;
	pthread_t sleeping, toggling_th;
	pid_t tid;
	uint64_t end;

	keep.sched_flags = SCHED_FLAG_KEEP_POLICY;
	atomic_store(&toggling, 1);
	if (pthread_create(&sleeping, NULL, sleeper, &target))
		ksft_exit_fail_msg("pthread_create\n");
	while (!(tid = atomic_load(&target)))
		usleep(1000);
	if (pthread_create(&toggling_th, NULL, toggler, &tid))
		ksft_exit_fail_msg("pthread_create\n");
	end = now_ns() + KEEP_POLICY_RACE_NS;
	do {
		calls++;
		if (!dlsched_sched_setattr(tid, &keep, 0))
			changed++;
	} while (now_ns() < end);
	atomic_store(&toggling, 0);
	pthread_join(toggling_th, NULL);
	pthread_join(sleeping, NULL);
	ksft_print_msg("sched_setattr(SCHED_FLAG_KEEP_POLICY) against a toggling thread: %lu calls, %lu succeeded\n",
		       calls, changed);
	ksft_test_result(calls > 100 && changed,
			 "sched_setattr(SCHED_FLAG_KEEP_POLICY) races a policy change and completes\n");
	ksft_test_result(totals_back(start), "after the keep-policy race: the totals are back to the start\n");
}

/* 0 if @pid exits within @ms, else -ETIMEDOUT (it is left running). */
static int wait_exit(pid_t pid, int ms, int *status)
{
	int i;

	for (i = 0; i < ms / 10; i++) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

static void sysrq_normalize(struct totals start)
{
	struct dl_child c = dl_child_start(NULL, 5 * NSEC_PER_MSEC);
	int fd, policy, status = 0, err;
	pid_t probe;

	if (c.err)
		ksft_exit_fail_msg("a 5 ms deadline child: %s\n", strerror(c.err));
	fd = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "n", 1) != 1)
		ksft_exit_fail_msg("SysRq-n: %s\n", strerror(errno));
	close(fd);
	policy = sched_getscheduler(c.pid);
	ksft_test_result(policy == SCHED_OTHER, "SysRq-n: the deadline task is SCHED_OTHER (policy %d)\n",
			 policy);
	/* A deadline admission takes cpuset_mutex: it must be free. */
	probe = fork();
	if (probe < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!probe)
		_exit(dl_enter(2 * NSEC_PER_MSEC, TASK_PERIOD_NS, TASK_PERIOD_NS, 0) ? 1 : 0);
	err = wait_exit(probe, 5000, &status);
	ksft_test_result(!err && WIFEXITED(status) && !WEXITSTATUS(status),
			 "after SysRq-n: a new deadline task is admitted (%s)\n",
			 err ? "still waiting after 5 s: cpuset_mutex was left locked" :
			       WIFEXITED(status) && !WEXITSTATUS(status) ? "at once" : "refused");
	if (err)
		ksft_exit_fail_msg("cannot go on with cpuset_mutex locked\n");
	dl_child_stop(&c);
	ksft_test_result(totals_back(start), "after SysRq-n: the totals are back to the start\n");
}

/* @pid's CPU time (ns), the running part included; -1 if it has none. */
static long long cpu_time_ns(pid_t pid)
{
	clockid_t clock;

	if (clock_getcpuclockid(pid, &clock))
		return -1;
	return clock_ns(clock);
}

static void sysrq_running(struct totals start)
{
	long long cpu_before, cpu_after, t_before, t_after;
	int report[2], err = 0, fd;
	pid_t pid;

	/* Room for a 90% task (dl_cleanup() restores the knobs). */
	set_dl_pool(50000, 900000);
	if (pipe(report))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		/* 90% of a CPU, spinning: running at almost any instant. */
		err = -dl_enter(90 * NSEC_PER_MSEC, TASK_PERIOD_NS, TASK_PERIOD_NS, 0);
		if (write(report[1], &err, sizeof(err)) != sizeof(err) || err)
			_exit(1);
		for (;;)
			;
	}
	close(report[1]);
	if (read(report[0], &err, sizeof(err)) != sizeof(err) || err)
		ksft_exit_fail_msg("a spinning 90 ms/100 ms child: %s\n", strerror(err));
	close(report[0]);
	usleep(50000);
	t_before = now_ns();
	cpu_before = cpu_time_ns(pid);
	fd = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "n", 1) != 1)
		ksft_exit_fail_msg("SysRq-n: %s\n", strerror(errno));
	close(fd);
	cpu_after = cpu_time_ns(pid);
	t_after = now_ns();
	ksft_print_msg("SysRq-n on a running task: %lld us of CPU time in %lld us\n",
		       (cpu_after - cpu_before) / 1000, (t_after - t_before) / 1000);
	/*
	 * CPU time is counted on the CPUs' own scheduler clocks, which may
	 * stray from CLOCK_MONOTONIC by a little: 10 ms of slack, against
	 * the seconds since boot the bug charged.
	 */
	ksft_test_result(cpu_before >= 0 && cpu_after >= 0 &&
			 cpu_after - cpu_before <= t_after - t_before + 10 * (long long)NSEC_PER_MSEC,
			 "SysRq-n on a running deadline task: it is charged no more time than passed\n");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ksft_test_result(totals_back(start),
			 "after SysRq-n on a running task: the totals are back to the start\n");
}

int main(void)
{
	struct totals start;

	ksft_print_header();
	ksft_set_plan(15);
	dl_setup("dltest-24");
	start = totals();
	if (start.rd < 0)
		ksft_exit_fail_msg("the root domain's total_bw: %s\n", strerror(-start.rd));
	keep_params(start);
	zombie(start);
	fork_race(start);
	keep_policy_race(start);
	sysrq_normalize(start);
	sysrq_running(start);
	ksft_finished();
}
