/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Following services (service.c): admitting them (reservation in the
 * unit's cgroup, threads to SCHED_DEADLINE), refusing and releasing. Below
 * the manager, which calls these from its event loop; calls down only. */

#include <systemd/sd-bus.h>

#include "systemd-client.h"
#include "types.h"

const char *service_state_to_string(ServiceState s);

Service *service_find(Manager *m, const char *unit);
unsigned service_count_admitted(Manager *m, const char *group, const Service *except);

/* A new entry for unit with req (taken over), following u's cgroup. */
int service_new(Manager *m, const char *unit, const UnitInfo *u, DeadlineRequest *req, bool manual, Service **ret);
/* dld forgets s (and frees it); the kernel stays as it is. */
void service_forget(Manager *m, Service *s);
/* Drops dld's memory of every entry, leaving the kernel as it is. */
void service_forget_all(Manager *m);

/* Admits s: the group's rules, the reservation, its threads. A refusal is
 * logged and, with take_action, the group's on_refusal is taken; error
 * (may be NULL) gets a DLD_ERROR_*. 0, -ESRCH (the unit stopped meanwhile:
 * nothing decided), or a negative errno. */
int service_admit(Manager *m, Service *s, bool take_action, sd_bus_error *error);
/* After a restart of dld: s was admitted to s->group before it went down,
 * and stays so, whatever the policy says now (its reservation is set again,
 * normally a no-op). A reservation lost meanwhile is a refusal, logged,
 * with no action taken. 0, or the refusal's negative errno. */
int service_resume(Manager *m, Service *s);

/* A unit became active (or dld starts and finds it active): admits it if it
 * has a request. invocation: its InvocationID as the signal told it (NULL:
 * unknown); an activation decided already costs no call to systemd. */
int service_unit_active(Manager *m, const char *unit, const char *invocation);
/* A unit followed is activating: a restart ends what was decided for its
 * previous run, unless the decision is for this activation already
 * (invocation as above). */
void service_unit_restarting(Manager *m, const char *unit, const char *invocation);
/* A unit's ExecStartPre= asks (PrepareUnit): admits it before its main
 * process starts, so that the template is there when systemd attaches it.
 * invocation: the InvocationID= the asking process runs in ("" any).
 * *ret_state: "admitted", "degraded", ... or "none" (no request). */
int service_unit_starting(Manager *m, const char *unit, const char *invocation, const char **ret_state,
                          const char **ret_reason, sd_bus_error *error);
void service_unit_inactive(Manager *m, const char *unit);

/* Admits by hand / releases by hand (bus); threads as X-DeadlineThreads=
 * (DL_THREADS_ALL: one per CPU). 0, or a negative errno with error set to
 * a DLD_ERROR_* and why (-ENOMEM alone: not set). */
int service_admit_manual(Manager *m, const char *unit, uint64_t runtime, uint64_t deadline, uint64_t period,
                         unsigned threads, sd_bus_error *error);
int service_release_manual(Manager *m, const char *unit, sd_bus_error *error);
