/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the bench's guest programs (bench/README.md): clocks, entering
 * and leaving SCHED_DEADLINE (over include/dlsched/sched.h), cgroup v2
 * chains, and results as one JSON object per line ("BENCH {...}"), which
 * bench/run.py collects from the results port.
 */
#ifndef DLB_H
#define DLB_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>
/* Clocks and spin_cpu_ns(), shared with the guest tests (tests/guest/dltask.h). */
#include <dlsched/cpuclock.h>
/* struct sched_attr and the project's sched_setattr() wrappers. */
#include <dlsched/sched.h>

/* The calling thread into SCHED_DEADLINE (nanoseconds); 0 or -errno. */
static inline int dlb_deadline(uint64_t runtime_ns, uint64_t deadline_ns, uint64_t period_ns, uint64_t flags)
{
	struct sched_attr a = dlsched_deadline_attr(runtime_ns, deadline_ns, period_ns, flags);

	return dlsched_set_attr(0, &a);
}

/* The calling thread back to SCHED_OTHER; 0 or -errno. */
static inline int dlb_other(void)
{
	return dlsched_set_normal(0);
}

/* CLOCK_MONOTONIC, signed: the bench subtracts times from one another. */
static inline int64_t dlb_now(void)
{
	return (int64_t)now_ns();
}

static inline void dlb_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("dlb: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static inline int dlb_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int r = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		r = -errno;
	close(fd);
	return r;
}

static inline int dlb_writef(const char *path, const char *fmt, ...)
{
	char buf[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return dlb_write(path, buf);
}

static int dlb_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The q-quantile (0..1) of n sorted values, nearest rank. */
static inline int64_t dlb_quantile(const int64_t *v, size_t n, double q)
{
	size_t i;

	if (!n)
		return 0;
	i = (size_t)(q * (double)n + 0.999999);
	if (i > 0)
		i--;
	return v[i < n ? i : n - 1];
}

static inline void dlb_sort(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), dlb_cmp_i64);
}

/* A chain of cgroup v2 groups below the root: /sys/fs/cgroup/dlb/l2/.../lD
 * for depth D >= 1 (the root itself for depth 0), the cpu controller
 * enabled on the way. Fills leaf (PATH_MAX). */
#define DLB_CG_ROOT "/sys/fs/cgroup"
static inline void dlb_chain(unsigned depth, char *leaf, size_t size)
{
	int len = snprintf(leaf, size, "%s", DLB_CG_ROOT);

	for (unsigned d = 1; d <= depth; d++) {
		char ctl[4200];

		snprintf(ctl, sizeof(ctl), "%s/cgroup.subtree_control", leaf);
		(void)dlb_write(ctl, "+cpu");
		len += snprintf(leaf + len, size - len, d == 1 ? "/dlb" : "/l%u", d);
		if (mkdir(leaf, 0755) && errno != EEXIST)
			dlb_die("mkdir %s: %s", leaf, strerror(errno));
	}
}

/* Moves the calling process into a cgroup directory. */
static inline void dlb_enter(const char *dir)
{
	char procs[4200];
	int r;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	r = dlb_writef(procs, "%d", (int)getpid());
	if (r)
		dlb_die("move into %s: %s", dir, strerror(-r));
}

/* Removes the chain below the root, deepest first (the caller left it). */
static inline void dlb_unchain(unsigned depth)
{
	char path[4200];

	for (unsigned d = depth; d >= 1; d--) {
		int len = snprintf(path, sizeof(path), "%s", DLB_CG_ROOT);

		for (unsigned k = 1; k <= d; k++)
			len += snprintf(path + len, sizeof(path) - len, k == 1 ? "/dlb" : "/l%u", k);
		(void)rmdir(path);
	}
}

static inline bool dlb_patched(void)
{
	return access("/proc/sys/kernel/sched_dl_runtime_us", F_OK) == 0;
}

#endif
