/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The deadline resource limits (RLIMIT_DLDLINE, RLIMIT_DLRTIME) dld gives
 * the processes of an admitted unit that schedules its own threads
 * (X-DeadlinePromote=none, a delegated unit): without CAP_SYS_NICE their
 * sched_setattr() needs them, and admission inside the unit's reserved
 * cgroup keeps what they take within the grant. Pure: threads.c applies it. */

#include <stdbool.h>
#include <sys/resource.h>

#include "dropin.h"

typedef struct DeadlineLimits {
        struct rlimit dldline;  /* a minimum: soft >= hard */
        struct rlimit dlrtime;
} DeadlineLimits;

/* The grant of a request: a runtime up to the request's, a relative
 * deadline down to the request's, soft and hard alike. */
DeadlineLimits dllimits_grant(const DeadlineRequest *req);

/* What the kernel gives a process by default: no deadline at all. */
DeadlineLimits dllimits_none(void);

/* Limits that grant what @have does and @grant too: the longer runtime,
 * the shorter deadline, of soft and hard values each. Returns true if
 * that differs from @have (the process lacks some of the grant). */
bool dllimits_widen(const DeadlineLimits *have, const DeadlineLimits *grant, DeadlineLimits *ret);
