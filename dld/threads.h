/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The threads of a unit's cgroup in and out of SCHED_DEADLINE (sched_setattr()
 * on every thread listed in cgroup.threads, or tasks on v1). */

#include <stdbool.h>
#include <sys/types.h>

#include "dllimits.h"
#include "dropin.h"
#include "kernelfs.h"

typedef struct ThreadCount {
        unsigned deadline, total;
} ThreadCount;

/* subtree: the threads of the cgroup's descendants too, but for those
 * with a reservation of their own (kernelfs_cgroup_threads_subtree()): a
 * container's processes run in cgroups below its scope. */

/* Every thread of the cgroup to SCHED_DEADLINE with req's parameters. A
 * thread id reused meanwhile by a task outside the cgroup gets its own
 * policy back. Returns 0, or the errno of a refused thread with its id in
 * *ret_tid; the threads counted in *ret_count either way. */
int threads_to_deadline(KernelFs *kfs, const char *cgroup, bool subtree, const char *unit, const DeadlineRequest *req,
                        ThreadCount *ret_count, pid_t *ret_tid);

/* The cgroup's SCHED_DEADLINE threads back to SCHED_OTHER. */
void threads_to_normal(KernelFs *kfs, const char *cgroup, bool subtree);

/* Counts the threads of the cgroup's whole subtree and those of them that
 * are SCHED_DEADLINE, switching none: a unit whose threads are its own
 * business (X-DeadlinePromote=none, a delegated unit). Each of their
 * processes that lacks some of @grant (dllimits.h; NULL: none) gets it.
 * Returns 0 or the first error setting limits (-EPERM: dld lacks
 * CAP_SYS_RESOURCE); the count is made either way. */
int threads_count(KernelFs *kfs, const char *cgroup, const DeadlineLimits *grant, ThreadCount *ret_count);

/* Every process of the cgroup's whole subtree gets exactly @limits (the
 * kernel's defaults, to take a grant back). Returns 0 or the first error;
 * processes that are gone are skipped. */
int threads_set_limits(KernelFs *kfs, const char *cgroup, const DeadlineLimits *limits);
