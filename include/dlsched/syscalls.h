/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The system call numbers of the dlsched kernel series, defined once for
 * the whole project (guest tests, the demo worker, the 32-bit ABI test),
 * and raw wrappers of the calls.
 *
 * The series gives its calls the same numbers in the x86_64 and i386
 * tables and in the generic unistd.h (patches 0008, 0009). Later mainline
 * kernels use 451-454 for other calls (cachestat, fchmodat2,
 * map_shadow_stack, futex_wake), so a series rebased onto one of them has
 * to renumber: then change the numbers here, and nothing else in the
 * project. Wherever the patched uapi headers are on the include path
 * (-isystem build/headers/include), the kernel's __NR_* values are checked
 * against these at compile time, so a header and a kernel that disagree
 * fail the build instead of calling some other system call.
 * DLSCHED_REQUIRE_KERNEL_NR makes the kernel's numbers mandatory (the
 * guest tests define it: their headers are always the patched ones).
 *
 * sched_setattr() and sched_getattr() are mainline calls with stable
 * numbers: their wrappers are in dlsched/sched.h.
 */
#ifndef DLSCHED_SYSCALLS_H
#define DLSCHED_SYSCALLS_H

#include <stddef.h>
#include <sys/syscall.h>	/* the kernel's __NR_*, from <asm/unistd.h> */
#include <sys/types.h>
#include <unistd.h>

#define DLSCHED_NR_sched_wait_interval		451
#define DLSCHED_NR_sched_setscheduler_ex	452
#define DLSCHED_NR_sched_setparam_ex		453
#define DLSCHED_NR_sched_getparam_ex		454

#define DLSCHED_CHECK_NR(name)							\
	_Static_assert(__NR_##name == DLSCHED_NR_##name,			\
		       "the kernel's __NR_" #name " is not DLSCHED_NR_" #name	\
		       " (include/dlsched/syscalls.h)")

#ifdef __NR_sched_wait_interval
DLSCHED_CHECK_NR(sched_wait_interval);
#elif defined(DLSCHED_REQUIRE_KERNEL_NR)
#error "no __NR_sched_wait_interval: build against the patched uapi headers (HEADERS=)"
#endif
#ifdef __NR_sched_setscheduler_ex
DLSCHED_CHECK_NR(sched_setscheduler_ex);
#elif defined(DLSCHED_REQUIRE_KERNEL_NR)
#error "no __NR_sched_setscheduler_ex: build against the patched uapi headers (HEADERS=)"
#endif
#ifdef __NR_sched_setparam_ex
DLSCHED_CHECK_NR(sched_setparam_ex);
#elif defined(DLSCHED_REQUIRE_KERNEL_NR)
#error "no __NR_sched_setparam_ex: build against the patched uapi headers (HEADERS=)"
#endif
#ifdef __NR_sched_getparam_ex
DLSCHED_CHECK_NR(sched_getparam_ex);
#elif defined(DLSCHED_REQUIRE_KERNEL_NR)
#error "no __NR_sched_getparam_ex: build against the patched uapi headers (HEADERS=)"
#endif

/*
 * The wrappers take the kernel's types: the timespecs are the 64-bit
 * struct __kernel_timespec (<linux/time_types.h>) on every ABI, the
 * parameters a struct sched_param_ex (<linux/sched.h> of the patched
 * tree). Only pointers pass through here, so neither definition is needed
 * to include this header. Each returns 0, or -1 with errno set.
 */
struct __kernel_timespec;
struct sched_param_ex;

static inline long dlsched_sched_wait_interval(const struct __kernel_timespec *rqtp,
					       struct __kernel_timespec *rmtp)
{
	return syscall(DLSCHED_NR_sched_wait_interval, rqtp, rmtp);
}

static inline long dlsched_sched_setscheduler_ex(pid_t pid, int policy, unsigned int len,
						 const struct sched_param_ex *param)
{
	return syscall(DLSCHED_NR_sched_setscheduler_ex, pid, policy, len, param);
}

static inline long dlsched_sched_setparam_ex(pid_t pid, unsigned int len,
					     const struct sched_param_ex *param)
{
	return syscall(DLSCHED_NR_sched_setparam_ex, pid, len, param);
}

static inline long dlsched_sched_getparam_ex(pid_t pid, unsigned int len,
					     struct sched_param_ex *param)
{
	return syscall(DLSCHED_NR_sched_getparam_ex, pid, len, param);
}

/*
 * struct sched_param_ex is one layout on every ABI: 64 bytes, no implicit
 * padding, so that a 32-bit program on a 64-bit kernel passes the same
 * bytes as a 64-bit one. Expand this, after <linux/sched.h>, in each
 * program that uses the structure: a header whose layout differs fails
 * the build.
 */
#define DLSCHED_ASSERT_PARAM_EX_LAYOUT()						\
	_Static_assert(sizeof(struct sched_param_ex) == 64, "sizeof sched_param_ex");	\
	_Static_assert(offsetof(struct sched_param_ex, sched_priority) == 0, "sched_priority"); \
	_Static_assert(offsetof(struct sched_param_ex, __reserved1) == 4, "__reserved1");	\
	_Static_assert(offsetof(struct sched_param_ex, sched_runtime) == 8, "sched_runtime"); \
	_Static_assert(offsetof(struct sched_param_ex, sched_deadline) == 24, "sched_deadline"); \
	_Static_assert(offsetof(struct sched_param_ex, sched_period) == 40, "sched_period"); \
	_Static_assert(offsetof(struct sched_param_ex, sched_flags) == 56, "sched_flags");	\
	_Static_assert(offsetof(struct sched_param_ex, __reserved2) == 60, "__reserved2");	\
	_Static_assert(sizeof(struct __kernel_timespec) == 16 &&			\
		       offsetof(struct __kernel_timespec, tv_nsec) == 8, "__kernel_timespec")

#endif
