/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_setattr() and sched_getattr() for the whole project: dld, the demo
 * worker, the guest tests and make bench's guest programs. Header-only, so
 * that each of them takes it without linking anything.
 *
 * The structure is the uapi's struct sched_attr (<linux/sched/types.h>,
 * which the series leaves as mainline has it): the tests need all of it
 * (the utilization clamps, sizes around SCHED_ATTR_SIZE_VER1). The helpers
 * pass sizeof(struct sched_attr) as the size: the kernel reads the clamps
 * only when sched_flags asks for them (SCHED_FLAG_UTIL_CLAMP_*), so for
 * any other request that is the same as passing the first
 * SCHED_ATTR_SIZE_VER0 bytes, and a struct read with sched_getattr() can
 * be set back as it is.
 *
 * The two system calls are mainline, with stable numbers: the C library's
 * SYS_sched_setattr and SYS_sched_getattr. Their wrappers here return as
 * syscall(2) and those of dlsched/syscalls.h do, 0 or -1 with errno set,
 * since the tests pass them bad arguments on purpose and read errno; the
 * helpers built on them return 0 or -errno. The names start with dlsched_
 * because the C library declares sched_setattr() and sched_getattr() of
 * its own from glibc 2.41 on.
 */
#ifndef DLSCHED_SCHED_H
#define DLSCHED_SCHED_H

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/sched.h>	/* SCHED_DEADLINE, SCHED_FLAG_* */
/* The uapi's struct sched_param would clash with the C library's. */
#define sched_param kernel_sched_param
#include <linux/sched/types.h>
#undef sched_param

static inline int dlsched_sched_setattr(pid_t pid, const struct sched_attr *attr, unsigned int flags)
{
	return (int)syscall(SYS_sched_setattr, pid, attr, flags);
}

static inline int dlsched_sched_getattr(pid_t pid, struct sched_attr *attr, unsigned int size,
					unsigned int flags)
{
	return (int)syscall(SYS_sched_getattr, pid, attr, size, flags);
}

/* SCHED_DEADLINE with these parameters (nanoseconds) and sched_flags. */
static inline struct sched_attr dlsched_deadline_attr(uint64_t runtime_ns, uint64_t deadline_ns,
						      uint64_t period_ns, uint64_t flags)
{
	struct sched_attr a = {
		.size = sizeof(a),
		.sched_policy = SCHED_DEADLINE,
		.sched_flags = flags,
		.sched_runtime = runtime_ns,
		.sched_deadline = deadline_ns,
		.sched_period = period_ns,
	};
	return a;
}

/* @tid's attributes into @attr, all zero if they cannot be read (the demo
 * worker reports them either way); 0 or -errno. */
static inline int dlsched_get_attr(pid_t tid, struct sched_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	return dlsched_sched_getattr(tid, attr, sizeof(*attr), 0) ? -errno : 0;
}

/* @tid back to @attr, e.g. what dlsched_get_attr() read; 0 or -errno. */
static inline int dlsched_set_attr(pid_t tid, const struct sched_attr *attr)
{
	struct sched_attr a = *attr;

	a.size = sizeof(a);
	return dlsched_sched_setattr(tid, &a, 0) ? -errno : 0;
}

/* SCHED_DEADLINE as dld makes a unit's threads, in microseconds, with
 * reset-on-fork: a deadline task cannot fork otherwise. 0 or -errno. */
static inline int dlsched_set_deadline(pid_t tid, uint64_t runtime_us, uint64_t deadline_us,
				       uint64_t period_us)
{
	struct sched_attr a = dlsched_deadline_attr(runtime_us * 1000, deadline_us * 1000,
						    period_us * 1000, SCHED_FLAG_RESET_ON_FORK);

	return dlsched_set_attr(tid, &a);
}

/* Back to SCHED_OTHER, nice 0; 0 or -errno. */
static inline int dlsched_set_normal(pid_t tid)
{
	struct sched_attr a = { .size = sizeof(a), .sched_policy = SCHED_OTHER };

	return dlsched_set_attr(tid, &a);
}

/* True if @attr is SCHED_DEADLINE with exactly these parameters (microseconds). */
static inline bool dlsched_is_deadline(const struct sched_attr *attr, uint64_t runtime_us,
				       uint64_t deadline_us, uint64_t period_us)
{
	return attr->sched_policy == SCHED_DEADLINE &&
	       attr->sched_runtime == runtime_us * 1000 &&
	       attr->sched_deadline == deadline_us * 1000 &&
	       attr->sched_period == period_us * 1000;
}

#endif
