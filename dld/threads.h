/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The threads of a unit's cgroup (cgroup.threads, or tasks on v1): counted,
 * and given the deadline limits of a unit that schedules its own. The
 * kernel's task templates make them SCHED_DEADLINE. */

#include <stdbool.h>
#include <sys/types.h>

#include "dllimits.h"
#include "dropin.h"
#include "kernelfs.h"

typedef struct ThreadCount {
        unsigned deadline, total;
} ThreadCount;

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
