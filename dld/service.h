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

/* What whoever asked for an admission does with its outcome: r is 0 or a
 * negative errno, with error set for a refusal or -ESRCH (the unit
 * stopped: s is forgotten right after). s is NULL when there was nothing
 * to admit. call: the bus call given with the request (may be NULL). */
typedef void (*ServiceAdmitted)(Manager *m, Service *s, sd_bus_message *call, int r, const sd_bus_error *error);

/* Admits s: the group's rules, the reservation, its threads. A refusal is
 * logged and, with take_action, the group's on_refusal is taken. done (may
 * be NULL) is told the outcome once: now, or, when the unit's cgroup lacks
 * the cpu controller, once systemd has realized it (s is
 * SERVICE_ADMITTING meanwhile; the loop goes on). The caller does not use
 * s after this (-ESRCH forgets it). */
void service_admit(Manager *m, Service *s, bool take_action, sd_bus_message *call, ServiceAdmitted done);
/* s being admitted (SERVICE_ADMITTING): done waits for the same outcome
 * (1). 0: s is not being admitted. */
int service_admit_join(Service *s, sd_bus_message *call, ServiceAdmitted done);
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
 * call is answered with the state ("admitted", "degraded", ... or "none":
 * no request) and the reason, once systemd has told dld about the unit:
 * 1, or a negative errno (error set) for a call refused at once. */
int service_unit_starting(Manager *m, sd_bus_message *call, const char *unit, const char *invocation,
                          sd_bus_error *error);
void service_unit_inactive(Manager *m, const char *unit);
/* Drops the questions to systemd not answered yet (dld exits). */
void service_lookups_forget(Manager *m);

/* Admits by hand (bus); threads as X-DeadlineThreads= (DL_THREADS_ALL:
 * one per CPU). call is answered once systemd has told dld about the unit
 * (1), or the request is refused at once (a negative errno, error set). */
int service_admit_manual(Manager *m, sd_bus_message *call, const char *unit, uint64_t runtime, uint64_t deadline,
                         uint64_t period, unsigned threads, sd_bus_error *error);
/* Releases by hand: 0, or a negative errno with error set to a
 * DLD_ERROR_* and why (-ENOMEM alone: not set). */
int service_release_manual(Manager *m, const char *unit, sd_bus_error *error);
