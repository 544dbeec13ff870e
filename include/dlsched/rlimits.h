/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The resource limits of the dlsched kernel series (patch 0006), defined
 * once for the project. RLIMIT_DLDLINE is the shortest relative deadline
 * an unprivileged task may ask for, in microseconds: a minimum, so its soft
 * value is at least its hard one. RLIMIT_DLRTIME is the longest runtime,
 * in microseconds. Where the patched uapi headers are on the include path,
 * their values are checked against these at compile time
 * (include/dlsched/syscalls.h does the same for the system calls).
 */
#ifndef DLSCHED_RLIMITS_H
#define DLSCHED_RLIMITS_H

#include <sys/resource.h>

#define DLSCHED_RLIMIT_DLDLINE	16
#define DLSCHED_RLIMIT_DLRTIME	17

#ifdef RLIMIT_DLDLINE
_Static_assert(RLIMIT_DLDLINE == DLSCHED_RLIMIT_DLDLINE,
	       "the kernel's RLIMIT_DLDLINE is not DLSCHED_RLIMIT_DLDLINE (include/dlsched/rlimits.h)");
#endif
#ifdef RLIMIT_DLRTIME
_Static_assert(RLIMIT_DLRTIME == DLSCHED_RLIMIT_DLRTIME,
	       "the kernel's RLIMIT_DLRTIME is not DLSCHED_RLIMIT_DLRTIME (include/dlsched/rlimits.h)");
#endif

#endif /* DLSCHED_RLIMITS_H */
