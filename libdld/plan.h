/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Orders the kernel writes that take the system from its current state to a
 * policy's. Each sysctl or cgroup file write is checked by the kernel on its
 * own, against the values in force at that moment, so the order matters:
 * shrink a group before growing its neighbour, grow the pool before the
 * groups in it, lower runtime before period... The planner replays the writes
 * on the admission model (which fails exactly where the kernel would) and
 * greedily takes any write that is valid now until all are done. Pure. */

#include <stddef.h>
#include <stdint.h>

#include "admission.h"
#include "policy.h"

typedef enum PlanKnob {
        KNOB_DL_RUNTIME,        /* sched_dl_runtime_us */
        KNOB_DL_PERIOD,
        KNOB_RT_RUNTIME,        /* sched_rt_runtime_us */
        KNOB_RT_PERIOD,
        KNOB_GROUP_RUNTIME,     /* cpu.dl_runtime_us of groups[group] */
        KNOB_GROUP_PERIOD,      /* cpu.dl_period_us */
} PlanKnob;

const char *plan_knob_name(PlanKnob k);

typedef struct PlanStep {
        PlanKnob knob;
        size_t group;           /* for the group knobs */
        int64_t value;
        int64_t old_value;      /* to undo it */
} PlanStep;

typedef struct PlanGroup {
        DlNode node;            /* current state, in the model (observed) */
        int64_t want_runtime_us;
        uint64_t want_period_us;
} PlanGroup;

/* m holds the current state, groups[] its group nodes; on success m and the
 * nodes hold the target state and *ret the ordered steps (only those that
 * change something). On failure returns the error of the first write that
 * can never be made (-EBUSY, -EINVAL) and *ret_blocked says which;
 * m is then in an intermediate state (rebuild it). */
int plan_writes(DlModel *m, PlanGroup *groups, size_t n_groups, const SystemBudget *want,
                PlanStep **ret, size_t *ret_n, PlanStep *ret_blocked);
