/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Every structured journal entry of dld (fields documented in dld.8 and
 * units/README.md, explained by dld.catalog): refusals, admissions,
 * releases, malformed drop-ins, policies applied or rejected. */

#include <stdint.h>

#include "predict.h"
#include "types.h"

/* A refusal: PRIORITY=4, MESSAGE_ID=DLD_MESSAGE_REFUSED, UNIT=,
 * DLD_RUNTIME_USEC=, DLD_DEADLINE_USEC=, DLD_PERIOD_USEC=,
 * DLD_THREADS_REQUESTED= (X-DeadlineThreads=: a count or "all"), DLD_GROUP=,
 * DLD_FREE_BW= (fixed point, 1<<20 = one CPU; empty if unknown),
 * DLD_FREE_PERCENT=, ERRNO=, DLD_ERRNO_NAME=, DLD_REFUSED_BY=
 * (policy|admission), DLD_REASON=, DLD_ACTION= (degrade|fail|none).
 * Entries about a container (its unit is its scope) also carry
 * DLD_CONTAINER_ID= and DLD_CONTAINER_NAME=, the three kinds here. */
void journal_refused(const Service *s, const char *group, RefusedBy by, int err,
                     uint64_t free_bw, const char *reason, const char *action);
/* PRIORITY=6: DLD_RESERVED_BW= (the unit's cgroup on all CPUs),
 * DLD_RESERVED_BY= (template, or cpu for a unit that schedules its own
 * threads), DLD_RESERVED_RUNTIME_USEC= (its cpu.dl_runtime_us; 0 for a
 * template), DLD_THREADS_REQUESTED=, DLD_FREE_BW=, DLD_THREADS=
 * (SCHED_DEADLINE at admission; with DLD_PROMOTE=none, found so in the
 * unit's subtree), DLD_SOURCE= (dropin, manual, container), DLD_PROMOTE=
 * (cgroup: the template admits the cgroup's tasks; none for a delegated
 * unit or X-DeadlinePromote=none). */
void journal_admitted(const Service *s, uint64_t free_bw);
/* PRIORITY=6: DLD_REASON=. */
/* PRIORITY=5: a template unit's tasks found no room and run as normal
 * tasks (not a refusal): DLD_THREADS=, DLD_THREADS_OVER=, DLD_THREADS_REQUESTED=. */
void journal_threads_over(const Service *s, unsigned deadline, unsigned over);
void journal_released(const Service *s, const char *why);
/* A unit's drop-in keys are malformed: PRIORITY=3, DLD_FILE=, DLD_LINE=. */
void journal_dropin_invalid(const char *unit, const char *file, const char *where, const char *message);
/* A policy applied (DLD_MESSAGE_POLICY_APPLIED) or rejected
 * (DLD_MESSAGE_POLICY_REJECTED): DLD_POLICY_FILES= (space-separated). */
void journal_policy(const char *id, int priority, const char *files, const char *message);
/* What dld needs and lacks at start (privileges.h): PRIORITY=3 (fatal:
 * dld does not start) or 4 (a warning), MESSAGE_ID=DLD_MESSAGE_PRIVILEGE,
 * DLD_NEED= (root, CAP_SYS_NICE, user-namespace, pid-namespace, cgroup,
 * sysctl, bus, journal), DLD_FATAL= (1 or 0). */
void journal_privilege(const char *need, bool fatal, const char *message);
