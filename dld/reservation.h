/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A service's reservation, and the free bandwidth of its group around it.
 * A unit whose threads dld follows (X-DeadlinePromote=cgroup) reserves
 * through its cgroup's task template (cpu.dl_template): exactly its N
 * tasks' bandwidth, and the kernel makes each task of the cgroup
 * SCHED_DEADLINE as it is attached or forked, while there is room. A
 * unit that schedules its own threads (X-DeadlinePromote=none) reserves
 * per CPU (cpu.dl_runtime_us, cpu.dl_period_us). */

#include "predict.h"
#include "types.h"

/* Free bandwidth where the unit's reservation goes: the group's slice
 * (DL_BW_UNLIMITED when unknown). */
uint64_t reservation_group_free_bw(Manager *m, const char *group);
/* Writes the reservation for s->req's threads; 0 or a negative errno,
 * the cgroup's old values restored: *ret_lost tells when they could not
 * be (the old reservation is gone). -ERANGE: more than the CPUs (per-CPU
 * reservations). Sets s->by_template. */
int reservation_set(Manager *m, Service *s, bool *ret_lost);
void reservation_release(Manager *m, Service *s);
/* req of s as the admission model takes it, and as reservation_set()
 * reserves it (predict_service_request()): 0, -EINVAL with *ret_reason
 * (malloc'ed), -ENOMEM. *ret points into s and req. */
int reservation_request(const Service *s, const DeadlineRequest *req, ServiceRequest *ret, char **ret_reason);
/* Why the kernel (or the CPU count) refused the reservation for req;
 * allocated, NULL when out of memory. */
char *reservation_refusal_reason(Manager *m, const Service *s, const DeadlineRequest *req, int err, uint64_t free_bw);
