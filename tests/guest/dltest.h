/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the dlsched guest tests: entering and leaving
 * SCHED_DEADLINE (over include/dlsched/sched.h, the project's one set of
 * sched_setattr() wrappers), and small file accessors that return -errno.
 * Output is TAP through kselftest.h.
 */
#ifndef DLTEST_H
#define DLTEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <linux/sched.h>
/* struct sched_attr, dlsched_sched_setattr(), dlsched_deadline_attr(), ... */
#include <dlsched/sched.h>

#include "kselftest.h"

#define BW_SHIFT 20
#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL

/* Fixed-point bandwidth as the kernel computes it (to_ratio() in core.c). */
static inline uint64_t dl_ratio(uint64_t period, uint64_t runtime)
{
	if (!period)
		return 0;
	return (runtime << BW_SHIFT) / period;
}

/* Make the calling thread SCHED_DEADLINE; returns 0 or -errno. */
static inline int dl_enter(uint64_t runtime_ns, uint64_t deadline_ns, uint64_t period_ns, uint64_t flags)
{
	struct sched_attr a = dlsched_deadline_attr(runtime_ns, deadline_ns, period_ns, flags);

	return dlsched_set_attr(0, &a);
}

/* The calling thread back to SCHED_OTHER; returns 0 or -errno. */
static inline int dl_leave(void)
{
	return dlsched_set_normal(0);
}

/*
 * Read what one read(2) gives of @path (proc and sysfs files come whole)
 * into @buf, NUL-terminated; returns its length or -errno.
 */
static inline ssize_t read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return n;
}

/* The text of /proc/@pid/stat after the command's ")", or NULL. */
static inline const char *proc_stat_fields(pid_t pid, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_text(path, buf, size) <= 0)
		return NULL;
	return strrchr(buf, ')');
}

/* Read a file holding one integer; returns 0 or -errno. */
static inline int read_ll(const char *path, long long *val)
{
	char buf[64];
	ssize_t n = read_text(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	errno = 0;
	*val = strtoll(buf, NULL, 10);
	return errno ? -errno : 0;
}

/* Write a string with a single write(2); returns 0 or -errno. */
static inline int write_str(const char *path, const char *s)
{
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return close(fd) ? -errno : 0;
}

static inline int write_ll(const char *path, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	return write_str(path, buf);
}

/*
 * What the root domain of @cpu has handed out: dl_bw->total_bw in the
 * scheduler's debugfs file, which sched_dl_total_bw does not show once
 * groups have a pool of their own. -errno if the file or @cpu is missing.
 */
/*
 * Field @field (e.g. "this_bw", "dl_bw->total_bw") of CPU @cpu's dl_rq in
 * the scheduler's debugfs file; -ENOENT when it is not there.
 */
static inline long long dl_rq_field(int cpu, const char *field)
{
	FILE *f = fopen("/sys/kernel/debug/sched/debug", "re");
	char line[256], name[64];
	long long v, val = -ENOENT;
	int in_cpu = -1, n;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "dl_rq[%d]:", &n) == 1)
			in_cpu = n;
		else if (in_cpu == cpu && sscanf(line, " .%63s : %lld", name, &v) == 2 &&
			 !strcmp(name, field)) {
			val = v;
			break;
		}
	}
	fclose(f);
	return val;
}

/* The total_bw of @cpu's root domain (in 2^-20 units, as dl_bw). */
static inline long long rd_total_bw(int cpu)
{
	return dl_rq_field(cpu, "dl_bw->total_bw");
}

/*
 * The runqueues whose GRUB utilizations (running_bw, this_bw: patch 0032)
 * are not 0, described into @buf ("cpu1 this_bw 78643, ..."); their number.
 * With no deadline task left, and their 0-lag times passed, all are 0.
 */
static inline int rq_bw_nonzero(char *buf, size_t size)
{
	static const char *const fields[] = { "running_bw", "this_bw" };
	long cpu, ncpus = sysconf(_SC_NPROCESSORS_CONF);
	long long v;
	int i, n = 0;

	if (buf && size)
		buf[0] = '\0';
	for (cpu = 0; cpu < ncpus; cpu++) {
		for (i = 0; i < 2; i++) {
			v = dl_rq_field((int)cpu, fields[i]);
			if (!v)
				continue;
			n++;
			if (buf)
				snprintf(buf + strlen(buf), size - strlen(buf), "%scpu%ld %s %lld",
					 n > 1 ? ", " : "", cpu, fields[i], v);
		}
	}
	return n;
}

/* rq_bw_nonzero() is 0 within @wait_ms; otherwise says which are not. */
static inline bool rq_bw_zero(int wait_ms)
{
	char buf[512];
	int t;

	for (t = 0; t <= wait_ms; t += 50) {
		if (!rq_bw_nonzero(NULL, 0))
			return true;
		usleep(50000);
	}
	rq_bw_nonzero(buf, sizeof(buf));
	ksft_print_msg("runqueue utilizations not 0: %s\n", buf);
	return false;
}

/*
 * The bandwidth releases still to come: a task that left SCHED_DEADLINE or
 * exited gives its bandwidth back at its 0-lag time, from its queued
 * inactive_task_timer (/proc/timer_list). An overrun puts that time ahead
 * by the overrun times period/runtime: a vCPU stall charged to a small
 * task under TCG, minutes. Their number (-errno), and in @latest_ns the
 * latest one's time from now.
 */
static inline int dl_releases_pending(long long *latest_ns)
{
	FILE *f = fopen("/proc/timer_list", "re");
	char line[256];
	long long in;
	int n = 0;

	*latest_ns = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		const char *at;

		if (!strstr(line, ", inactive_task_timer,") || !fgets(line, sizeof(line), f))
			continue;
		at = strstr(line, "[in ");
		if (!at || sscanf(at, "[in %lld", &in) != 1)
			continue;
		n++;
		if (in > *latest_ns)
			*latest_ns = in;
	}
	fclose(f);
	return n;
}

/* Taint flags a kernel oops (D) and a WARN (W) set. */
#define TAINT_DIE (1LL << 7)
#define TAINT_WARN (1LL << 9)

/* /proc/sys/kernel/tainted, or -1. */
static inline long long kernel_tainted(void)
{
	long long t = -1;

	read_ll("/proc/sys/kernel/tainted", &t);
	return t;
}

/*
 * The debug kernel (make check-debug: lockdep, KASAN) runs the scheduler's
 * paths many times slower under TCG: wake-ups came 120-157 ms late, and a
 * read of /proc/self/sched overran a 16 ms runtime. Tests that measure
 * wake-up latency, or that budget a runtime for such work, check those
 * figures on the normal kernel only.
 */
static inline bool dl_debug_kernel(void)
{
	return access("/proc/lockdep", F_OK) == 0;
}

static inline int online_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/*
 * The root domain's deadline admission cap in fixed point: per-CPU
 * runtime/period of the deadline knobs (sched_dl_*, this series) or of the
 * RT knobs (mainline), times the online CPUs. -1 when admission is off.
 */
static inline long long dl_admission_cap(void)
{
	long long rt = -1, per = 0;

	if (read_ll("/proc/sys/kernel/sched_dl_runtime_us", &rt) ||
	    read_ll("/proc/sys/kernel/sched_dl_period_us", &per)) {
		if (read_ll("/proc/sys/kernel/sched_rt_runtime_us", &rt) ||
		    read_ll("/proc/sys/kernel/sched_rt_period_us", &per))
			return -1;
	}
	if (rt < 0)
		return -1;
	return (long long)dl_ratio(per, rt) * online_cpus();
}

/*
 * Admission control probe: threads enter SCHED_DEADLINE one after the other
 * with the same parameters until one is refused or @max are in, and hold
 * their bandwidth until dl_fill_release().
 */
#define DL_FILL_MAX 256

struct dl_fill {
	uint64_t runtime, period;
	int admitted;
	int err;		/* errno of the refused request, 0 if none was */
	int gate[2];		/* admitted threads hold until it closes */
	int report[2];		/* each thread writes its sched_setattr() result */
	pthread_t threads[DL_FILL_MAX];
};

static inline void *dl_fill_thread(void *arg)
{
	struct dl_fill *f = arg;
	int ret = dl_enter(f->runtime, f->period, f->period, 0);
	char c;

	if (write(f->report[1], &ret, sizeof(ret)) != sizeof(ret) || ret)
		return NULL;
	while (read(f->gate[0], &c, 1) > 0)
		;
	return NULL;
}

/* Returns 0, or -errno when the probe itself could not run. */
static inline int dl_fill(struct dl_fill *f, uint64_t runtime, uint64_t period, int max)
{
	int i, ret;

	memset(f, 0, sizeof(*f));
	f->runtime = runtime;
	f->period = period;
	if (max > DL_FILL_MAX)
		return -E2BIG;
	if (pipe(f->gate))
		return -errno;
	if (pipe(f->report)) {
		ret = -errno;
		close(f->gate[0]);
		close(f->gate[1]);
		return ret;
	}
	for (i = 0; i < max; i++) {
		ret = pthread_create(&f->threads[i], NULL, dl_fill_thread, f);
		if (ret)
			return -ret;
		if (read(f->report[0], &ret, sizeof(ret)) != sizeof(ret))
			return -EIO;
		if (ret) {
			f->err = -ret;
			pthread_join(f->threads[i], NULL);
			break;
		}
		f->admitted++;
	}
	return 0;
}

/* Let the admitted threads leave and join them. */
static inline void dl_fill_release(struct dl_fill *f)
{
	int i;

	close(f->gate[1]);
	for (i = 0; i < f->admitted; i++)
		pthread_join(f->threads[i], NULL);
	close(f->gate[0]);
	close(f->report[0]);
	close(f->report[1]);
}

/* Kill and reap a child; returns its wait status. */
static inline int kill_child(pid_t pid)
{
	int status = 0;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return status;
}

#endif
