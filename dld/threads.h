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

/*
 * A tid read from cgroup.threads may belong to another task by the time
 * dld acts on it: it exited, and its number went to a new task, maybe in
 * another unit. So dld holds the process with a pidfd, checks that it is
 * in @cgroup (or below) after, acts, and requires it alive through all of
 * it: a process alive since the pidfd was opened kept its number. Returns
 * the pidfd, or -errno (-ESRCH: gone, exited, or in another cgroup now:
 * not this unit's).
 */
int threads_process_hold(pid_t pid, const char *cgroup);
