/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the task interface tests (40-59): wrappers of the series'
 * system calls, clocks, CPU burning, privilege dropping with deadline
 * rlimits, test cases run in child processes (each leaves the pool as it
 * found it), and SIGXCPU counting.
 *
 * The tests run in the series' default pool (5 % of each CPU, 10 % on the
 * 2-vCPU guest): no request is above 8 % of a CPU, and nothing here
 * changes the system knobs.
 */
#ifndef DLTASK_H
#define DLTASK_H

#include <grp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>
/* The uapi limits; glibc's <sys/resource.h> has its own, without the series' two. */
#include <asm/resource.h>
#include <dlsched/cpuclock.h>
#include <dlsched/syscalls.h>
#include "dltest.h"

#define NSEC_PER_SEC 1000000000ULL
/* The unprivileged identity the tests switch to (nobody/nogroup). */
#define UNPRIV_ID 65534

/*
 * The series' calls under their own names, through the project's header
 * (include/dlsched/syscalls.h, the one place their numbers are defined).
 * The C library's struct timespec is the kernel's struct __kernel_timespec
 * on x86_64, which the tests are built for.
 */
_Static_assert(sizeof(struct timespec) == sizeof(struct __kernel_timespec) &&
	       offsetof(struct timespec, tv_nsec) == offsetof(struct __kernel_timespec, tv_nsec),
	       "struct timespec is not struct __kernel_timespec");

static inline long sched_wait_interval(const struct timespec *rqtp, struct timespec *rmtp)
{
	return dlsched_sched_wait_interval((const struct __kernel_timespec *)rqtp,
					   (struct __kernel_timespec *)rmtp);
}

static inline long sched_setscheduler_ex(pid_t pid, int policy, unsigned int len,
					 struct sched_param_ex *param)
{
	return dlsched_sched_setscheduler_ex(pid, policy, len, param);
}

static inline long sched_setparam_ex(pid_t pid, unsigned int len, struct sched_param_ex *param)
{
	return dlsched_sched_setparam_ex(pid, len, param);
}

static inline long sched_getparam_ex(pid_t pid, unsigned int len, struct sched_param_ex *param)
{
	return dlsched_sched_getparam_ex(pid, len, param);
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

/* prlimit64()'s limits, 64 bits whatever the C library's rlim_t. */
struct rlimit64 {
	uint64_t rlim_cur;
	uint64_t rlim_max;
};

#define RLIM64_INFINITY (~0ULL)

static inline int get_limit(pid_t pid, int resource, struct rlimit64 *old)
{
	return syscall(SYS_prlimit64, pid, resource, NULL, old) ? -errno : 0;
}

static inline int set_limit(pid_t pid, int resource, uint64_t cur, uint64_t max)
{
	struct rlimit64 new = { .rlim_cur = cur, .rlim_max = max };

	return syscall(SYS_prlimit64, pid, resource, &new, NULL) ? -errno : 0;
}

/*
 * As root: set RLIMIT_DLDLINE to @min_deadline_us and RLIMIT_DLRTIME to
 * @max_runtime_us (soft and hard), then drop privileges: the calling task
 * may use SCHED_DEADLINE within these limits only. 0 or -errno.
 */
static inline int drop_privileges_with_dl_limits(uint64_t min_deadline_us, uint64_t max_runtime_us)
{
	int ret = set_limit(0, RLIMIT_DLDLINE, min_deadline_us, min_deadline_us);

	if (!ret)
		ret = set_limit(0, RLIMIT_DLRTIME, max_runtime_us, max_runtime_us);
	return ret ? ret : drop_privileges();
}

#define DLTASK_SYSCTL_TOTAL "/proc/sys/kernel/sched_dl_total_bw"

/* What the system pool holds (this series' sched_dl_total_bw), or -1. */
static inline long long dl_pool_total(void)
{
	long long bw = -1;

	return read_ll(DLTASK_SYSCTL_TOTAL, &bw) ? -1 : bw;
}

/*
 * Wait until the pool holds at most @bw again: an exited deadline task's
 * bandwidth returns at its 0-lag time, up to a period (and any overrun)
 * after the exit, and a test that asks for bandwidth right away may find
 * the pool full. The longest period of these tests is 1 s; 3 s is plenty.
 * Returns what the pool holds.
 */
static inline long long dl_pool_wait(long long bw)
{
	long long total = dl_pool_total();
	int i;

	for (i = 0; i < 300 && total > bw; i++) {
		usleep(10000);
		total = dl_pool_total();
	}
	return total;
}

/*
 * Enter SCHED_DEADLINE, retrying EBUSY for up to 2 s. A deadline process
 * that exited or left the policy holds its bandwidth until its 0-lag time
 * (sched_dl_total_bw shows it), so a request that fits beside nothing but
 * it is refused for up to a period. These tests are not about admission
 * (03, 44, 10-18 are): they wait.
 */
static inline int dl_enter_admitted(uint64_t runtime, uint64_t deadline, uint64_t period,
				    uint64_t flags)
{
	int i, ret = -EBUSY;

	for (i = 0; i < 200 && ret == -EBUSY; i++) {
		ret = dl_enter(runtime, deadline, period, flags);
		if (ret == -EBUSY)
			usleep(10000);
	}
	return ret;
}

/*
 * Room for the largest request of these tests, 8 % of a CPU: they fit the
 * series' default pool (5 % of each CPU) from 2 CPUs up.
 */
#define DLTASK_ROOM_RUNTIME (8 * NSEC_PER_MSEC)
#define DLTASK_ROOM_PERIOD (100 * NSEC_PER_MSEC)

/*
 * Wait until the pool has room for @runtime every @period, by entering
 * SCHED_DEADLINE with it and leaving at once; 0 or -errno.
 */
static inline int dl_wait_room(uint64_t runtime, uint64_t period)
{
	int ret = dl_enter_admitted(runtime, period, period, 0);

	return ret ? ret : dl_leave();
}

/*
 * Run @fn(@arg) in a child process and return its exit status (0-255),
 * or -1 if it did not exit normally. The child starts with room in the
 * pool for DLTASK_ROOM_RUNTIME every DLTASK_ROOM_PERIOD, and the bandwidth
 * it held is back in the pool on return.
 */
static inline int run_child(int (*fn)(void *), void *arg)
{
	long long before = dl_pool_total();
	int status;
	pid_t pid;

	if (dl_admission_cap() > 0 && dl_wait_room(DLTASK_ROOM_RUNTIME, DLTASK_ROOM_PERIOD))
		ksft_print_msg("no room in the pool for %.0f %% of a CPU: %s\n",
			       100.0 * DLTASK_ROOM_RUNTIME / DLTASK_ROOM_PERIOD, strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		status = fn(arg);
		fflush(stdout);
		_exit(status);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (before >= 0 && dl_pool_wait(before) > before)
		ksft_print_msg("the pool holds %lld, %lld before the child\n", dl_pool_total(), before);
	if (!WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* A test case run in a child process: passes when @fn returns 0. */
struct child_test {
	int (*fn)(void *arg);
	void *arg;
	const char *name;
};

/*
 * The exit status of a child test whose measurement a vCPU stall disturbed
 * (see spin_cpu_ns()): run_child_tests() runs it again, up to
 * CHILD_ATTEMPTS times in all. A failure without a stall fails at once.
 */
#define CHILD_STALLED 75
#define CHILD_ATTEMPTS 3
/* The exit status of a child test that does not apply to this kernel. */
#define CHILD_SKIP 77

static inline void run_child_tests(const struct child_test *tests, size_t n)
{
	int attempt, ret;
	size_t i;

	for (i = 0; i < n; i++) {
		for (attempt = 1; (ret = run_child(tests[i].fn, tests[i].arg)) == CHILD_STALLED &&
				  attempt < CHILD_ATTEMPTS; attempt++)
			ksft_print_msg("attempt %d disturbed by a vCPU stall, again\n", attempt);
		if (ret == CHILD_SKIP)
			ksft_test_result_skip("%s\n", tests[i].name);
		else
			ksft_test_result(ret == 0, "%s\n", tests[i].name);
	}
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

/*
 * CHILD_EXPECT() for a measurement a vCPU stall can spoil: when @cond fails
 * and @stalled (a spin_cpu_ns() saw a stall), the child test runs again.
 */
#define CHILD_EXPECT_UNLESS_STALLED(cond, stalled, ...)			\
	do {								\
		if (!(cond)) {						\
			ksft_print_msg(__VA_ARGS__);			\
			return (stalled) ? CHILD_STALLED : 1;		\
		}							\
	} while (0)

#endif
