/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the task interface tests (40-59): wrappers of the series'
 * system calls, clocks, CPU burning, privilege dropping and SIGXCPU
 * counting.
 */
#ifndef DLTASK_H
#define DLTASK_H

#include <grp.h>
#include <sys/prctl.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>
#include "dltest.h"

#define NSEC_PER_SEC 1000000000ULL
/* The unprivileged identity the tests switch to (nobody/nogroup). */
#define UNPRIV_ID 65534

/*
 * These tests are about task interfaces, not the size of the system pool,
 * and were sized for mainline's 95 % of each CPU: give deadline tasks 60 %
 * of each CPU while they run (RT keeps 35 %), and put the knobs back at
 * exit. A kernel without the dlsched knobs keeps mainline's.
 */
#define DLTASK_SYSCTL_DL "/proc/sys/kernel/sched_dl_runtime_us"
#define DLTASK_SYSCTL_RT "/proc/sys/kernel/sched_rt_runtime_us"

static long long dltask_saved_dl, dltask_saved_rt;
static pid_t dltask_pool_owner;

static void dltask_restore_pool(void)
{
	int i;

	/* Children exiting through exit() must not touch the knobs. */
	if (getpid() != dltask_pool_owner)
		return;
	/* Bandwidth of exited tasks drains at their 0-lag time: retry. */
	for (i = 0; i < 100; i++) {
		if (!write_ll(DLTASK_SYSCTL_DL, dltask_saved_dl) &&
		    !write_ll(DLTASK_SYSCTL_RT, dltask_saved_rt))
			return;
		usleep(50000);
	}
}

static inline void dltask_widen_pool(void)
{
	int i;

	if (read_ll(DLTASK_SYSCTL_DL, &dltask_saved_dl) ||
	    read_ll(DLTASK_SYSCTL_RT, &dltask_saved_rt))
		return;
	dltask_pool_owner = getpid();
	atexit(dltask_restore_pool);
	for (i = 0; i < 60; i++) {
		if (!write_ll(DLTASK_SYSCTL_RT, 350000) && !write_ll(DLTASK_SYSCTL_DL, 600000))
			return;
		usleep(50000);
	}
}

static inline long sched_wait_interval(const struct timespec *rqtp, struct timespec *rmtp)
{
	return syscall(__NR_sched_wait_interval, rqtp, rmtp);
}

static inline long sched_setscheduler_ex(pid_t pid, int policy, unsigned int len,
					 struct sched_param_ex *param)
{
	return syscall(__NR_sched_setscheduler_ex, pid, policy, len, param);
}

static inline long sched_setparam_ex(pid_t pid, unsigned int len, struct sched_param_ex *param)
{
	return syscall(__NR_sched_setparam_ex, pid, len, param);
}

static inline long sched_getparam_ex(pid_t pid, unsigned int len, struct sched_param_ex *param)
{
	return syscall(__NR_sched_getparam_ex, pid, len, param);
}

static inline uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static inline uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static inline uint64_t thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static inline struct timespec ns_to_ts(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };

	return ts;
}

static inline uint64_t ts_to_ns(const struct timespec *ts)
{
	return ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

/* Burn @ns of the calling thread's CPU time. */
static inline void spin_cpu_ns(uint64_t ns)
{
	uint64_t end = thread_cpu_ns() + ns;

	while (thread_cpu_ns() < end)
		;
}

static inline double ms(uint64_t ns)
{
	return ns / 1e6;
}

/* In a child that would load the machine: die with the test. */
static inline void die_with_parent(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

/* Become nobody:nogroup, without supplementary groups; 0 or -errno. */
static inline int drop_privileges(void)
{
	if (setgroups(0, NULL) || setgid(UNPRIV_ID) || setuid(UNPRIV_ID))
		return -errno;
	return 0;
}

/*
 * Run @fn(@arg) in a child process and return its exit status (0-255),
 * or -1 if it did not exit normally.
 */
static inline int run_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		status = fn(arg);
		fflush(stdout);
		_exit(status);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* SIGXCPU with si_code SI_KERNEL (deadline signals) and anything else. */
static volatile sig_atomic_t xcpu_kernel, xcpu_other;

static inline void on_xcpu(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	if (si->si_code == SI_KERNEL)
		xcpu_kernel++;
	else
		xcpu_other++;
}

static inline int count_xcpu(void)
{
	struct sigaction sa = { .sa_sigaction = on_xcpu, .sa_flags = SA_SIGINFO | SA_RESTART };

	xcpu_kernel = 0;
	xcpu_other = 0;
	return sigaction(SIGXCPU, &sa, NULL) ? -errno : 0;
}

/* In a child: report a failed expectation and give up with status 1. */
#define CHILD_EXPECT(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			ksft_print_msg(__VA_ARGS__);			\
			return 1;					\
		}							\
	} while (0)

/* Kill and reap a child; returns its wait status. */
static inline int kill_child(pid_t pid)
{
	int status = 0;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return status;
}

#endif
