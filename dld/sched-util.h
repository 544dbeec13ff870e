/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif
#define DLD_SCHED_FLAG_RESET_ON_FORK 0x01

typedef struct DlSchedAttr {
        uint32_t size;
        uint32_t sched_policy;
        uint64_t sched_flags;
        int32_t sched_nice;
        uint32_t sched_priority;
        uint64_t sched_runtime;
        uint64_t sched_deadline;
        uint64_t sched_period;
} DlSchedAttr;

int sched_get_attr(pid_t tid, DlSchedAttr *ret);
/* SCHED_DEADLINE with reset-on-fork (a deadline task cannot fork otherwise). */
int sched_set_deadline(pid_t tid, uint64_t runtime_usec, uint64_t deadline_usec, uint64_t period_usec);
/* Back to SCHED_OTHER, nice 0. */
int sched_set_normal(pid_t tid);
/* Back to what sched_get_attr() read. */
int sched_set_attr(pid_t tid, const DlSchedAttr *a);
/* True if tid runs SCHED_DEADLINE with exactly these parameters. */
bool sched_is_deadline(const DlSchedAttr *a, uint64_t runtime_usec, uint64_t deadline_usec, uint64_t period_usec);
