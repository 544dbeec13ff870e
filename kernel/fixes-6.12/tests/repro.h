/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the 6.12 reproducers (kernel/fixes-6.12/tests): TAP
 * output in the kselftest style, mainline interfaces only.
 *
 *   - sched_setattr()/sched_getattr() as raw system calls;
 *   - the root domain's dl_bw->total_bw as 6.12's scheduler debugfs file
 *     prints it (kernel/sched/debug.c, print_dl_rq()):
 *
 *         SEQ_printf(m, "dl_rq[%d]:\n", cpu);
 *         ...
 *         SEQ_printf(m, "  .%-30s: %lld\n", "dl_bw->bw", dl_bw->bw);
 *         SEQ_printf(m, "  .%-30s: %lld\n", "dl_bw->total_bw", dl_bw->total_bw);
 *
 *     The file lists online CPUs only. total_bw is a u64 printed signed:
 *     a wrap shows as a negative number. On 6.12 it includes the fair
 *     servers' bandwidth (52428 per CPU once started, re-added by a
 *     destructive root domain rebuild, dropped by a non-destructive one),
 *     so the reproducers compare deltas around one event, never
 *     absolute values;
 *   - CPU hotplug (/sys/devices/system/cpu/cpuN/online), cgroup v2
 *     cpusets, /proc/sysrq-trigger, /proc/PID/{stat,sched}, /dev/kmsg
 *     and /proc/sys/kernel/tainted.
 *
 * A kernel with one of the bugs may hang the writer of a sysfs or cgroup
 * file for good (a divide error in the CPU hotplug thread, cpuset_mutex
 * left locked): such writes go through a child process with a timeout
 * (timed_write()), and once one hung, the clean-up does not try the
 * hotplug or cgroup writes that would hang too (repro_wedged).
 *
 * Everything a reproducer changes is undone at exit (atexit and a
 * watchdog alarm): its children are killed, the CPUs it took offline come
 * back online, its cgroups are removed.
 */
#ifndef REPRO_H
#define REPRO_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KSFT_PASS 0
#define KSFT_FAIL 1
#define KSFT_SKIP 4

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL

#define REPRO_UNUSED __attribute__((unused))

/* ------------------------------------------------------------------ */
/* TAP                                                                  */

static struct {
	int planned, num, pass, fail, skip;
} tap REPRO_UNUSED;

static inline void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void diag(const char *fmt, ...)
{
	char buf[2048], *line, *save = NULL;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		printf("# %s\n", line);
	fflush(stdout);
}

static inline void tap_result(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void tap_result(bool ok, const char *fmt, ...)
{
	va_list ap;

	tap.num++;
	if (ok)
		tap.pass++;
	else
		tap.fail++;
	printf("%s %d - ", ok ? "ok" : "not ok", tap.num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline void tap_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void tap_skip(const char *fmt, ...)
{
	va_list ap;

	tap.num++;
	tap.skip++;
	printf("ok %d - # SKIP ", tap.num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline void tap_plan(int n)
{
	tap.planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

/* Exit: 1 if a point failed, 4 if every point was skipped, 0 otherwise. */
static inline __attribute__((noreturn)) void tap_finish(void)
{
	while (tap.planned && tap.num < tap.planned)
		tap_skip("not reached");
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n", tap.pass, tap.fail,
	       tap.skip);
	fflush(stdout);
	exit(tap.fail ? KSFT_FAIL : (!tap.pass && tap.skip) ? KSFT_SKIP : KSFT_PASS);
}

/* Before the plan: the whole reproducer does not apply here. */
static inline __attribute__((noreturn)) void skip_all(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline __attribute__((noreturn)) void skip_all(const char *fmt, ...)
{
	va_list ap;

	if (tap.planned) {
		char buf[512];

		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
		while (tap.num < tap.planned)
			tap_skip("%s", buf);
		tap_finish();
	}
	printf("1..0 # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(KSFT_SKIP);
}

/* The reproducer itself cannot go on (not a verdict on the bug). */
static inline __attribute__((noreturn)) void bail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline __attribute__((noreturn)) void bail(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(KSFT_FAIL);
}

/* ------------------------------------------------------------------ */
/* Clean-up at exit                                                     */

#define REPRO_MAX_CPUS 256
#define REPRO_MAX_KIDS 64
#define REPRO_MAX_CGROUPS 8

static struct {
	bool cpu_down[REPRO_MAX_CPUS];	/* taken offline by this reproducer */
	pid_t kids[REPRO_MAX_KIDS];
	void (*before_kill)(void);	/* e.g. demote a task stuck throttled */
	char cgroups[REPRO_MAX_CGROUPS][256];
	bool root_cpuset_enabled;	/* +cpuset written to the root's subtree_control */
	volatile sig_atomic_t wedged;	/* a hotplug or cgroup write hung: do not try more */
	pid_t main_pid;
} repro REPRO_UNUSED;

static inline void repro_add_kid(pid_t pid)
{
	int i;

	for (i = 0; i < REPRO_MAX_KIDS; i++) {
		if (!repro.kids[i]) {
			repro.kids[i] = pid;
			return;
		}
	}
}

static inline void repro_forget_kid(pid_t pid)
{
	int i;

	for (i = 0; i < REPRO_MAX_KIDS; i++)
		if (repro.kids[i] == pid)
			repro.kids[i] = 0;
}

/* Wait up to @ms for @pid; 0 and *@status when it is reaped, -ETIMEDOUT. */
static inline int wait_pid_ms(pid_t pid, int ms, int *status)
{
	int st = 0, i;

	for (i = 0; i <= ms; i += 5) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid) {
			if (status)
				*status = st;
			return 0;
		}
		if (r < 0)
			return -errno;
		usleep(5000);
	}
	return -ETIMEDOUT;
}

/* Kill and reap a child (up to 3 s: a task stuck in the kernel is left). */
static inline void kill_kid(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	if (!wait_pid_ms(pid, 3000, NULL))
		repro_forget_kid(pid);
}

static inline int write_str(const char *path, const char *s);
static inline int timed_write(const char *path, const char *s, int timeout_ms);

static inline void repro_cleanup(void)
{
	char path[128];
	int i, tries;

	if (getpid() != repro.main_pid)
		return;
	if (repro.before_kill)
		repro.before_kill();
	/* Kill first, bring the CPUs back, then reap (a task may sit on an offline CPU). */
	for (i = 0; i < REPRO_MAX_KIDS; i++)
		if (repro.kids[i])
			kill(repro.kids[i], SIGKILL);
	for (i = 1; i < REPRO_MAX_CPUS; i++) {
		if (!repro.cpu_down[i])
			continue;
		if (repro.wedged) {
			printf("# cpu%d left offline: an earlier hotplug or cgroup write hung\n", i);
			continue;
		}
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", i);
		if (!timed_write(path, "1", 10000))
			repro.cpu_down[i] = false;
		else
			printf("# cpu%d could not be brought back online\n", i);
	}
	for (i = 0; i < REPRO_MAX_KIDS; i++)
		if (repro.kids[i])
			kill_kid(repro.kids[i]);
	for (i = REPRO_MAX_CGROUPS - 1; i >= 0; i--) {
		if (!repro.cgroups[i][0] || repro.wedged)
			continue;
		for (tries = 0; tries < 200 && rmdir(repro.cgroups[i]) && errno == EBUSY; tries++)
			usleep(10000);
		repro.cgroups[i][0] = '\0';
	}
	if (repro.root_cpuset_enabled && !repro.wedged &&
	    !timed_write("/sys/fs/cgroup/cgroup.subtree_control", "-cpuset", 5000))
		repro.root_cpuset_enabled = false;
	fflush(stdout);
}

/* The watchdog: async-signal-safe calls only. */
static inline void repro_alarm(int sig)
{
	static const char msg[] = "Bail out! the reproducer overran its time bound (watchdog)\n";
	char path[64];
	int i, fd;

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(KSFT_FAIL);
	for (i = 0; i < REPRO_MAX_KIDS; i++)
		if (repro.kids[i])
			kill(repro.kids[i], SIGKILL);
	for (i = 1; i < REPRO_MAX_CPUS && !repro.wedged; i++) {
		if (!repro.cpu_down[i])
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", i);
		fd = open(path, O_WRONLY);
		if (fd >= 0) {
			if (write(fd, "1", 1) < 0)
				break;
			close(fd);
		}
	}
	_exit(KSFT_FAIL);
}

/*
 * Start: TAP header, which bug, root check, clean-up and a watchdog of
 * @watchdog_s seconds (the reproducers aim at 20 s; the watchdog only
 * catches a hang of the reproducer itself).
 */
static inline void repro_start(const char *name, const char *bug, const char *what,
			       int watchdog_s)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	diag("%s", name);
	diag("bug: %s", bug);
	diag("%s", what);
	repro.main_pid = getpid();
	if (geteuid())
		skip_all("needs root");
	signal(SIGALRM, repro_alarm);
	alarm(watchdog_s);
	atexit(repro_cleanup);
}

/* ------------------------------------------------------------------ */
/* Files                                                                */

static inline int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

static inline int read_buf(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static inline int read_ll(const char *path, long long *v)
{
	char buf[64];
	int err = read_buf(path, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*v = strtoll(buf, NULL, 10);
	return errno ? -errno : 0;
}

/* Distinct results of timed_write() besides 0 and -errno. */
#define REPRO_EHUNG (-100000)	/* the write did not return within the timeout */
#define REPRO_EKILLED (-100001)	/* the writer died of a signal: an oops in the write */

static inline const char *repro_strerror(int err)
{
	if (err == REPRO_EHUNG)
		return "the write hung";
	if (err == REPRO_EKILLED)
		return "the writer was killed (an oops in the kernel?)";
	return strerror(-err);
}

/*
 * Run @fn(@arg) in a child process (exiting with its return value) and
 * wait up to @timeout_ms: a child that hangs in the kernel (for ever, on
 * some of these bugs) is left behind, marks the run wedged and gives
 * REPRO_EHUNG. 0 and its wait status in *@status once reaped, or -errno.
 */
static inline int run_child_timed(int (*fn)(void *), void *arg, int timeout_ms, int *status)
{
	pid_t pid;
	int err;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(fn(arg));
	err = wait_pid_ms(pid, timeout_ms, status);
	if (err == -ETIMEDOUT) {
		repro.wedged = 1;
		return REPRO_EHUNG;
	}
	return err;
}

struct timed_write_args {
	const char *path, *s;
};

static inline int timed_write_fn(void *arg)
{
	const struct timed_write_args *w = arg;
	int err = write_str(w->path, w->s);

	return err ? (-err & 0xff) : 0;
}

/* Write @s to @path from a child process within @timeout_ms (see run_child_timed()). */
static inline int timed_write(const char *path, const char *s, int timeout_ms)
{
	struct timed_write_args w = { .path = path, .s = s };
	int status = 0, err = run_child_timed(timed_write_fn, &w, timeout_ms, &status);

	if (err)
		return err;
	if (WIFSIGNALED(status))
		return REPRO_EKILLED;
	return WEXITSTATUS(status) ? -WEXITSTATUS(status) : 0;
}

/* Taint flags: D (an oops happened), W (a WARN). */
#define TAINT_DIE (1LL << 7)
#define TAINT_WARN (1LL << 9)

static inline long long kernel_tainted(void)
{
	long long t = -1;

	read_ll("/proc/sys/kernel/tainted", &t);
	return t;
}

/* ------------------------------------------------------------------ */
/* The kernel log: new records since kmsg_open()                       */

static inline int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

static inline bool kmsg_match(const char *msg, const char *const *patterns)
{
	int i;

	for (i = 0; patterns && patterns[i]; i++)
		if (strstr(msg, patterns[i]))
			return true;
	return false;
}

/*
 * Read the records logged since the last call. Every record containing
 * one of @hits (NULL-terminated) counts; those and the ones containing
 * one of @shown (may be NULL) are printed as diagnostics, at most
 * @max_print of them. Returns the count, -1 if @fd is not open.
 */
static inline int kmsg_scan_ex(int fd, const char *const *hits, const char *const *shown,
			       int max_print)
{
	char rec[8192], *msg, *nl;
	int count = 0, printed = 0;
	bool hit;
	ssize_t n;

	if (fd < 0)
		return -1;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0) {
			if (errno == EPIPE)	/* overwritten records: go on */
				continue;
			break;
		}
		rec[n] = '\0';
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		hit = kmsg_match(msg, hits);
		if (hit)
			count++;
		if ((hit || kmsg_match(msg, shown)) && printed++ < max_print)
			diag("kernel: %s", msg);
	}
	return count;
}

static inline int kmsg_scan(int fd, const char *const *patterns, int max_print)
{
	return kmsg_scan_ex(fd, patterns, NULL, max_print);
}

/* The signatures of a kernel warning, oops or panic in the log. */
static const char *const kmsg_trouble[] REPRO_UNUSED = {
	"WARNING:", "BUG:", "Oops", "divide error", "general protection", "Kernel panic",
	"Unexpected reschedule", "not properly vacated", "bad unlock balance",
	"RIP:", "Call Trace", NULL,
};

/* ------------------------------------------------------------------ */
/* sched_setattr() / sched_getattr()                                    */

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif
#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif
#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK 0x01
#endif
#ifndef SCHED_FLAG_KEEP_POLICY
#define SCHED_FLAG_KEEP_POLICY 0x08
#endif
#ifndef SCHED_FLAG_KEEP_PARAMS
#define SCHED_FLAG_KEEP_PARAMS 0x10
#endif

/* The uapi's struct sched_attr (SCHED_ATTR_SIZE_VER1, 56 bytes). */
struct repro_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

/* 0 or -errno. */
static inline int repro_setattr(pid_t pid, const struct repro_sched_attr *a)
{
	return syscall(SYS_sched_setattr, pid, a, 0) ? -errno : 0;
}

static inline int repro_getattr(pid_t pid, struct repro_sched_attr *a)
{
	memset(a, 0, sizeof(*a));
	return syscall(SYS_sched_getattr, pid, a, sizeof(*a), 0) ? -errno : 0;
}

static inline struct repro_sched_attr dl_attr(uint64_t runtime, uint64_t deadline, uint64_t period)
{
	struct repro_sched_attr a = {
		.size = sizeof(a),
		.sched_policy = SCHED_DEADLINE,
		.sched_runtime = runtime,
		.sched_deadline = deadline,
		.sched_period = period,
	};
	return a;
}

static inline int set_dl(pid_t pid, uint64_t runtime, uint64_t period)
{
	struct repro_sched_attr a = dl_attr(runtime, period, period);

	return repro_setattr(pid, &a);
}

static inline int set_other(pid_t pid)
{
	struct repro_sched_attr a = { .size = sizeof(a), .sched_policy = SCHED_OTHER };

	return repro_setattr(pid, &a);
}

static inline int policy_of(pid_t pid)
{
	int p = sched_getscheduler(pid);

	return p < 0 ? p : (p & ~SCHED_RESET_ON_FORK);
}

/* The kernel's to_ratio(): bandwidth in 2^-20 units. */
static inline long long dl_bw(uint64_t runtime, uint64_t period)
{
	return period ? (long long)((runtime << 20) / period) : 0;
}

/* ------------------------------------------------------------------ */
/* Clocks and CPU time                                                  */

static inline uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static inline uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static inline void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Sleep until CLOCK_MONOTONIC reaches @t (ns). */
static inline void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / NSEC_PER_SEC, .tv_nsec = t % NSEC_PER_SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Spin for @ns of the calling thread's CPU time. */
static inline void spin_cpu_ns(uint64_t ns)
{
	uint64_t start = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - start < ns)
		;
}

static inline void *shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		bail("mmap: %s", strerror(errno));
	memset(p, 0, size);
	return p;
}

/* ------------------------------------------------------------------ */
/* /proc/PID/stat and /proc/PID/sched                                   */

/* Field @field (1-based, >= 3) of /proc/@pid/stat (or a task's), into @out. */
static inline int proc_stat_field(const char *path, int field, char *out, size_t size)
{
	char buf[1024], *p, *end;
	int i;

	if (read_buf(path, buf, sizeof(buf)))
		return -1;
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	p += 2;		/* field 3 */
	for (i = 3; i < field && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p)
		return -1;
	end = strchr(p, ' ');
	snprintf(out, size, "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
	return 0;
}

/* The CPU @pid last ran on (field 39), -1 if unknown. */
static inline int last_cpu(pid_t pid)
{
	char path[64], f[32];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return proc_stat_field(path, 39, f, sizeof(f)) ? -1 : atoi(f);
}

/* @pid's state letter (field 3), '?' if unknown. */
static inline char proc_state(pid_t pid)
{
	char path[64], f[8];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return proc_stat_field(path, 3, f, sizeof(f)) ? '?' : f[0];
}

/* A numeric field of /proc/@pid/sched ("dl.runtime", "dl.deadline"...). */
static inline int proc_sched_field(pid_t pid, const char *name, long long *v)
{
	char path[64], line[256], fmt[96];
	int found = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/sched", (int)pid);
	snprintf(fmt, sizeof(fmt), "%s : %%lld", name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (found && fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, v) == 1)
			found = 0;
	fclose(f);
	return found;
}

/*
 * The runqueue clock, in which /proc/PID/sched gives dl.deadline, as near
 * now as userspace can read it: the time the caller was last scheduled in
 * (its own se.exec_start, printed in milliseconds), which is within a tick
 * of now for a task that just woke up. CLOCK_MONOTONIC drifts from it by
 * a fraction of a second in a guest. 0 if unreadable.
 */
static inline uint64_t rq_clock_now_ns(void)
{
	char line[256];
	double ms = 0;
	FILE *f;

	sleep_ms(1);
	f = fopen("/proc/self/sched", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "se.exec_start : %lf", &ms) == 1)
			break;
	fclose(f);
	return (uint64_t)(ms * 1e6);
}

/*
 * For a failure: what the scheduler says of @pid (its /proc/PID/sched
 * deadline fields, switches and policy, its state and CPU), against the
 * monotonic clock the rq clock roughly follows.
 */
static inline void diag_task_sched(pid_t pid)
{
	char path[64], line[256];
	FILE *f;

	diag("task %d: state %c, last on CPU %d, CLOCK_MONOTONIC %llu ns", (int)pid, proc_state(pid),
	     last_cpu(pid), (unsigned long long)now_ns());
	snprintf(path, sizeof(path), "/proc/%d/sched", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "dl.", 3) || strstr(line, "nr_switches") || !strncmp(line, "policy", 6) ||
		    strstr(line, "sum_exec_runtime"))
			diag("  %s", line);
	}
	fclose(f);
}

/*
 * User threads in SCHED_DEADLINE (not kernel threads), besides those of
 * process @except; their "pid/tid comm" into @desc.
 */
static inline int count_dl_tasks(pid_t except, char *desc, size_t size)
{
	DIR *procs = opendir("/proc"), *tasks;
	struct dirent *p, *t;
	char path[96], f[32], comm[64];
	int n = 0, pid, tid;
	size_t len;

	if (desc && size)
		desc[0] = '\0';
	if (!procs)
		return 0;
	while ((p = readdir(procs))) {
		pid = atoi(p->d_name);
		if (pid <= 0 || pid == except)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		tasks = opendir(path);
		if (!tasks)
			continue;
		while ((t = readdir(tasks))) {
			tid = atoi(t->d_name);
			if (tid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
			if (proc_stat_field(path, 41, f, sizeof(f)) || atoi(f) != SCHED_DEADLINE)
				continue;
			if (!proc_stat_field(path, 9, f, sizeof(f)) && (strtoul(f, NULL, 10) & 0x00200000))
				continue;	/* PF_KTHREAD */
			n++;
			snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
			if (read_buf(path, comm, sizeof(comm)))
				strcpy(comm, "?");
			comm[strcspn(comm, "\n")] = '\0';
			len = desc ? strlen(desc) : 0;
			if (desc && len + 40 < size)
				snprintf(desc + len, size - len, "%s%d/%d %.16s", n > 1 ? ", " : "", pid, tid,
					 comm);
		}
		closedir(tasks);
	}
	closedir(procs);
	return n;
}

/* Name the other user SCHED_DEADLINE tasks, if any: they share the root domain. */
static inline void diag_other_dl_tasks(bool disturb_deltas)
{
	char others[512];

	if (count_dl_tasks(getpid(), others, sizeof(others)))
		diag("other SCHED_DEADLINE tasks%s: %s",
		     disturb_deltas ? " (their changes would disturb the deltas)" : "", others);
}

/* Skip without /proc/sysrq-trigger (the SysRq-n reproducers). */
static inline void require_sysrq_trigger(void)
{
	if (access("/proc/sysrq-trigger", W_OK))
		skip_all("no /proc/sysrq-trigger (CONFIG_MAGIC_SYSRQ)");
}

/*
 * Skip beside other user SCHED_DEADLINE tasks before a SysRq-n: it would
 * demote them too, and on a kernel without 0013 (@buggy_kernel, as the
 * message words it) two or more deadline tasks hang the machine.
 */
static inline void require_no_other_dl_tasks(const char *buggy_kernel)
{
	char others[512];
	int n = count_dl_tasks(getpid(), others, sizeof(others));

	if (n)
		skip_all("%d other SCHED_DEADLINE task(s) (%s): SysRq-n would demote them too, and on a kernel "
			 "%s two or more deadline tasks hang the machine", n, others, buggy_kernel);
}

/* ------------------------------------------------------------------ */
/* The root domain's total_bw (scheduler debugfs)                      */

#ifndef SCHED_DEBUG_FILE
#define SCHED_DEBUG_FILE "/sys/kernel/debug/sched/debug"
#endif

/* Mount debugfs if needed; 0 if the scheduler's debug file is there. */
static inline int debugfs_ready(void)
{
	if (!access(SCHED_DEBUG_FILE, R_OK))
		return 0;
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	return access(SCHED_DEBUG_FILE, R_OK) ? -errno : 0;
}

/* Skip without the scheduler's debug file: total_bw cannot be read. */
static inline void require_sched_debugfs(void)
{
	if (debugfs_ready())
		skip_all("no " SCHED_DEBUG_FILE " (CONFIG_SCHED_DEBUG, debugfs)");
}

/* Field @field of CPU @cpu's dl_rq block ("dl_bw->total_bw"); -ENOENT. */
static inline long long dl_rq_field(int cpu, const char *field, int *err)
{
	FILE *f = fopen(SCHED_DEBUG_FILE, "re");
	char line[1024], name[64];
	long long v, val = 0;
	int in_cpu = -1, n;

	*err = -ENOENT;
	if (!f) {
		*err = -errno;
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "dl_rq[%d]:", &n) == 1) {
			in_cpu = n;
		} else if (in_cpu == cpu && sscanf(line, " .%63s : %lld", name, &v) == 2 &&
			   !strcmp(name, field)) {
			val = v;
			*err = 0;
			break;
		} else if (line[0] != ' ' && line[0] != '\n') {
			in_cpu = -1;
		}
	}
	fclose(f);
	return val;
}

/* dl_bw->total_bw of the root domain of @cpu (online); bails out if unreadable. */
static inline long long rd_total_bw(int cpu)
{
	int err;
	long long v = dl_rq_field(cpu, "dl_bw->total_bw", &err);

	if (err)
		bail("dl_bw->total_bw of cpu%d in " SCHED_DEBUG_FILE ": %s", cpu, strerror(-err));
	return v;
}

/* Wait up to @ms for cpu0's root domain total_bw to be @want; the last value read. */
static inline long long rd_total_bw_wait(long long want, int ms)
{
	long long v = rd_total_bw(0);
	int t;

	for (t = 0; t < ms && v != want; t += 20) {
		sleep_ms(20);
		v = rd_total_bw(0);
	}
	return v;
}

/* The fair server's bandwidth on @cpu (debugfs fair_server/cpuN), -1 if unknown. */
static inline long long fair_server_bw(int cpu)
{
	char path[128];
	long long runtime, period;

	snprintf(path, sizeof(path), "/sys/kernel/debug/sched/fair_server/cpu%d/runtime", cpu);
	if (read_ll(path, &runtime))
		return -1;
	snprintf(path, sizeof(path), "/sys/kernel/debug/sched/fair_server/cpu%d/period", cpu);
	if (read_ll(path, &period))
		return -1;
	return dl_bw(runtime, period);
}

/* ------------------------------------------------------------------ */
/* CPUs                                                                 */

static inline int ncpus_conf(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > REPRO_MAX_CPUS ? REPRO_MAX_CPUS : (int)n;
}

static inline int ncpus_online(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* 1 online, 0 offline, -1 no online file (cpu0 on x86, or no such CPU). */
static inline int cpu_is_online(int cpu)
{
	char path[64];
	long long v = -1;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	if (read_ll(path, &v))
		return -1;
	return (int)v;
}

/* Take @cpu offline or online (timed); the exit brings it back. 0 or an error. */
static inline int cpu_set_online(int cpu, bool on, int timeout_ms)
{
	char path[64];
	int err;

	if (cpu <= 0 || cpu >= REPRO_MAX_CPUS)
		return -EINVAL;
	if (repro.wedged)
		return REPRO_EHUNG;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	if (!on)
		repro.cpu_down[cpu] = true;	/* before: a hung offline may complete later */
	err = timed_write(path, on ? "1" : "0", timeout_ms);
	if (on && !err)
		repro.cpu_down[cpu] = false;
	if (!on && err && err != REPRO_EHUNG && err != REPRO_EKILLED && cpu_is_online(cpu) == 1)
		repro.cpu_down[cpu] = false;
	return err;
}

/* The highest online CPU below @below that can go offline (not cpu0); -1. */
static inline int offlinable_cpu_below(int below)
{
	int cpu;

	if (below > ncpus_conf())
		below = ncpus_conf();
	for (cpu = below - 1; cpu > 0; cpu--)
		if (cpu_is_online(cpu) == 1)
			return cpu;
	return -1;
}

/* Skip unless a CPU besides cpu0 can go offline; the highest such CPU. */
static inline int require_offlinable_cpu(void)
{
	int cpu;

	if (ncpus_online() < 2)
		skip_all("one CPU: nothing to take offline");
	cpu = offlinable_cpu_below(ncpus_conf());
	if (cpu < 0)
		skip_all("no CPU but cpu0 can go offline");
	return cpu;
}

/* Skip unless two CPUs besides cpu0 can go offline; the two highest, *@x above *@y. */
static inline void require_two_offlinable_cpus(int *x, int *y)
{
	if (ncpus_online() < 3)
		skip_all("fewer than 3 CPUs online: two cannot go offline");
	*x = offlinable_cpu_below(ncpus_conf());
	*y = *x > 0 ? offlinable_cpu_below(*x) : -1;
	if (*x < 0 || *y < 0)
		skip_all("fewer than two CPUs (besides cpu0) can go offline");
}

/* Take @cpu offline (within 10 s) or bail out. */
static inline void cpu_offline_or_bail(int cpu)
{
	int err = cpu_set_online(cpu, false, 10000);

	if (err)
		bail("cpu%d offline: %s", cpu, repro_strerror(err));
}

/* Every configured CPU (the kernel keeps the possible and allowed ones). */
static inline void all_cpus(cpu_set_t *set)
{
	int cpu;

	CPU_ZERO(set);
	for (cpu = 0; cpu < ncpus_conf(); cpu++)
		CPU_SET(cpu, set);
}

static inline int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static inline int unpin_self(void)
{
	cpu_set_t set;

	all_cpus(&set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/*
 * In a child: become SCHED_DEADLINE while running on @cpu. A deadline
 * task may not be pinned (admission wants its affinity to cover the root
 * domain), so it runs on @cpu pinned, widens its affinity, which does not
 * move a running task, and enters SCHED_DEADLINE at once. 0 if it is
 * SCHED_DEADLINE on @cpu, else -errno (-EAGAIN: elsewhere after retries).
 */
static inline int dl_enter_on_cpu(int cpu, uint64_t runtime, uint64_t deadline, uint64_t period)
{
	struct repro_sched_attr a = dl_attr(runtime, deadline, period);
	int tries, err;

	for (tries = 0; tries < 20; tries++) {
		err = pin_self(cpu);
		if (err)
			return err;
		spin_cpu_ns(2 * NSEC_PER_MSEC);
		err = unpin_self();
		if (!err)
			err = repro_setattr(0, &a);
		if (err)
			return err;
		if (sched_getcpu() == cpu)
			return 0;
		err = set_other(0);
		if (err)
			return err;
	}
	return -EAGAIN;
}

/* ------------------------------------------------------------------ */
/* Children                                                             */

/*
 * Fork a child, killed at the reproducer's exit; it runs @fn(@arg) and
 * exits with its return value. With @deathsig it also dies with the
 * reproducer (PR_SET_PDEATHSIG). A child whose wakeup could spin for ever
 * (its pi_lock held by a task an oops killed) goes without: then neither
 * the reproducer's exit nor a pipe closing may wake it (it sleeps in
 * pause() and is stopped with SIGKILL, or left alone after such an oops).
 */
static inline pid_t spawn_opt(int (*fn)(void *), void *arg, bool deathsig)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		bail("fork: %s", strerror(errno));
	if (!pid) {
		if (deathsig)
			prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(fn(arg));
	}
	repro_add_kid(pid);
	return pid;
}

static inline pid_t spawn(int (*fn)(void *), void *arg)
{
	return spawn_opt(fn, arg, true);
}

/* Wait up to 5 s for a child to set *@ready (in shared memory); its value then. */
static inline int wait_ready(volatile int *ready)
{
	int i;

	for (i = 0; i < 500 && !*ready; i++)
		sleep_ms(10);
	return *ready;
}

/* Wait for a child's report that it entered SCHED_DEADLINE (on @cpu, -1: anywhere); bail out if not. */
static inline void wait_child_in_dl(volatile int *ready, volatile int *err, int cpu)
{
	if (wait_ready(ready) && !*err)
		return;
	if (cpu >= 0)
		bail("the child could not enter SCHED_DEADLINE on cpu%d: %s", cpu, strerror(-*err));
	bail("the child could not enter SCHED_DEADLINE: %s", strerror(-*err));
}

/*
 * A child in SCHED_DEADLINE spinning for ever, in shared memory: its count
 * stands still while it is throttled.
 */
struct dl_spinner {
	volatile unsigned long count;
	volatile int ready, err;
	volatile uint64_t t_admit;	/* when its admission returned */
	int cpu;			/* entered on this CPU (dl_enter_on_cpu()), -1: anywhere */
	uint64_t runtime, period;
};

static inline int dl_spinner_fn(void *arg)
{
	struct dl_spinner *s = arg;

	s->err = s->cpu >= 0 ? dl_enter_on_cpu(s->cpu, s->runtime, s->period, s->period)
			     : set_dl(0, s->runtime, s->period);
	s->t_admit = now_ns();
	s->ready = 1;
	if (s->err)
		return 1;
	for (;;)
		s->count++;
	return 0;
}

/*
 * Start a spinner in @s (cleared first) with @runtime every @period, on
 * @cpu (-1: wherever it runs); bails out if it is not SCHED_DEADLINE
 * within 5 s.
 */
static inline pid_t spawn_dl_spinner(struct dl_spinner *s, int cpu, uint64_t runtime, uint64_t period)
{
	pid_t pid;

	memset((void *)s, 0, sizeof(*s));
	s->cpu = cpu;
	s->runtime = runtime;
	s->period = period;
	pid = spawn(dl_spinner_fn, s);
	wait_child_in_dl(&s->ready, &s->err, cpu);
	return pid;
}

/*
 * A thread that moves @target in and out of SCHED_DEADLINE (1 ms/10 ms)
 * as fast as it can while *@run: the policy change the races run against.
 */
struct dl_toggle {
	const volatile int *run;
	pid_t target;
};

static inline void *dl_toggler(void *arg)
{
	const struct dl_toggle *t = arg;

	while (*t->run) {
		set_dl(t->target, 1 * NSEC_PER_MSEC, 10 * NSEC_PER_MSEC);
		set_other(t->target);
	}
	return NULL;
}

/*
 * Can a SCHED_DEADLINE task be admitted within @timeout_ms? Admission
 * takes cpuset_mutex: a kernel where SysRq-n left it locked (bug +1,
 * 0013) hangs here, as does one where an oops killed its holder. 0, or
 * -errno of the admission, or REPRO_EHUNG (the probe is left behind).
 */
/*
 * The probe's reservation is half of its period: leaving at once, its
 * 0-lag time is twice the CPU time it used after its admission (tens of
 * us) away, so its bandwidth is back before a reproducer's baseline.
 */
static inline int cpuset_mutex_probe_fn(void *arg)
{
	int err;

	(void)arg;
	if (unpin_self())
		return 200;
	err = set_dl(0, 10 * NSEC_PER_MSEC, 20 * NSEC_PER_MSEC);
	if (err)
		return -err & 0xff;
	return set_other(0) ? 201 : 0;
}

static inline int cpuset_mutex_probe(int timeout_ms)
{
	int status = 0, err = run_child_timed(cpuset_mutex_probe_fn, NULL, timeout_ms, &status);

	if (err)
		return err;
	if (!WIFEXITED(status))
		return REPRO_EKILLED;
	return -WEXITSTATUS(status);
}

/* Skip the whole reproducer when deadline admission hangs or fails. */
static inline void require_dl_admission(void)
{
	int err = cpuset_mutex_probe(5000);

	if (err == REPRO_EHUNG)
		skip_all("a SCHED_DEADLINE admission hangs for 5 s: cpuset_mutex is held "
			 "(an earlier SysRq-n on a kernel without the 0013 fix, or an oops): reboot first");
	if (err)
		skip_all("cannot admit a SCHED_DEADLINE task: %s", repro_strerror(err));
	sleep_ms(100);	/* the probe's bandwidth is back (see cpuset_mutex_probe_fn()) */
}

/*
 * The start of a reproducer that compares cpu0's root domain total_bw
 * around events: skip without the debugfs file or a working admission,
 * plan @points, and name the other deadline tasks (they move the deltas).
 */
static inline void plan_total_bw_checks(int points)
{
	require_sched_debugfs();
	require_dl_admission();
	tap_plan(points);
	diag_other_dl_tasks(true);
}

/* ------------------------------------------------------------------ */
/* cgroup v2 cpusets                                                    */

#define CGROUP2 "/sys/fs/cgroup"

/* 0 if the cgroup v2 cpuset controller can be used under the root (enabled if needed). */
static inline int cgroup2_cpuset_ready(void)
{
	char buf[512];
	int err;

	if (read_buf(CGROUP2 "/cgroup.controllers", buf, sizeof(buf)))
		return -ENOENT;
	if (!strstr(buf, "cpuset"))
		return -ENOTSUP;
	if (read_buf(CGROUP2 "/cgroup.subtree_control", buf, sizeof(buf)))
		return -ENOENT;
	if (strstr(buf, "cpuset"))
		return 0;
	err = timed_write(CGROUP2 "/cgroup.subtree_control", "+cpuset", 5000);
	if (!err)
		repro.root_cpuset_enabled = true;
	return err;
}

/* Skip without a usable cgroup v2 cpuset controller. */
static inline void require_cgroup2_cpuset(void)
{
	int err = cgroup2_cpuset_ready();

	if (err)
		skip_all("no cgroup v2 cpuset controller at " CGROUP2 ": %s", repro_strerror(err));
}

/* Create /sys/fs/cgroup/@name (removed at exit), its path into @path; bails out if it cannot. */
static inline void cgroup2_create(const char *name, char *path, size_t size)
{
	int i;

	snprintf(path, size, CGROUP2 "/%s", name);
	rmdir(path);
	if (mkdir(path, 0755))
		bail("mkdir %s: %s", path, strerror(errno));
	for (i = 0; i < REPRO_MAX_CGROUPS; i++) {
		if (!repro.cgroups[i][0]) {
			snprintf(repro.cgroups[i], sizeof(repro.cgroups[i]), "%s", path);
			break;
		}
	}
}

/* A child asleep in SCHED_DEADLINE in a cgroup, in shared memory (see spawn_cgroup_dl_sleeper()). */
struct cgroup_dl_sleeper {
	volatile int ready, err, cpu;	/* its report: 0 or -errno, the CPU it was on */
	char cgroup[256];
	int want_cpu;
	uint64_t runtime, period;
};

static inline int cgroup_dl_sleeper_fn(void *arg)
{
	struct cgroup_dl_sleeper *s = arg;
	char procs[300];

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", s->cgroup);
	s->err = write_str(procs, "0");
	if (!s->err)
		s->err = dl_enter_on_cpu(s->want_cpu, s->runtime, s->period, s->period);
	s->cpu = sched_getcpu();
	s->ready = 1;
	/* Asleep until SIGKILL: nothing else may wake it (see spawn_opt()). */
	for (;;)
		pause();
	return 0;
}

/*
 * Start a child that joins the cgroup @cg, enters SCHED_DEADLINE @runtime
 * every @period on @cpu and sleeps there, with no parent-death signal
 * (see spawn_opt()); @s (shared memory) gets its report. Bails out if it
 * could not within 5 s; returns 100 ms later, the child asleep by then.
 */
static inline pid_t spawn_cgroup_dl_sleeper(struct cgroup_dl_sleeper *s, const char *cg, int cpu,
					    uint64_t runtime, uint64_t period)
{
	pid_t pid;

	snprintf(s->cgroup, sizeof(s->cgroup), "%s", cg);
	s->want_cpu = cpu;
	s->runtime = runtime;
	s->period = period;
	pid = spawn_opt(cgroup_dl_sleeper_fn, s, false);
	if (!wait_ready(&s->ready) || s->err)
		bail("the child could not join %s and enter SCHED_DEADLINE on cpu%d: %s", cg, cpu,
		     strerror(-s->err));
	sleep_ms(100);
	return pid;
}

#endif /* REPRO_H */
