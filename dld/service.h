/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Following services (service.c): deciding for a unit's activation,
 * admitting them (reservation in the unit's cgroup, threads to
 * SCHED_DEADLINE), refusing and releasing. Below the manager and
 * service-lookup.c, which call these from the event loop (the latter once
 * systemd has answered); calls down only. */

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

/* Decides for the activation u of unit (systemd's answer), once: admits
 * its request, if it has one (its unit files', or one admitted by hand
 * before), unless it was released by hand in this run. starting: asked
 * from the unit's ExecStartPre= (u may be activating). A unit followed for
 * another activation is forgotten first (service_unit_inactive()). done
 * (may be NULL) is told the outcome once, as service_admit() says; a
 * decision made already for this activation is not made again (done is
 * told it, or joins the admission under way). */
void service_decide(Manager *m, const char *unit, const UnitInfo *u, bool starting, sd_bus_message *call,
                    ServiceAdmitted done);
/* Whether unit's activation invocation was decided already, so that
 * systemd need not be asked: followed for it (an admitted unit that
 * schedules its own threads gets their deadline limits now that they run),
 * or found to request nothing. False for an unknown invocation (NULL, ""). */
bool service_decided(Manager *m, const char *unit, const char *invocation);
/* The unit stopped: dld forgets it and its records; a reservation whose
 * cgroup lingers is released. */
void service_unit_inactive(Manager *m, const char *unit);

/* Admits by hand (AdmitUnit), systemd's answer u in hand, req checked
 * already (request_check()): an admitted unit gets req in place of its
 * request, only if all of it is accepted (a refusal leaves the admission
 * as it was); any other is admitted with req, a release by hand ended.
 * What req holds is taken, or left for the caller to free. done is told
 * the outcome once: at once for a unit not active or with an admission
 * under way (error set; s NULL, or the service), else as service_admit()
 * says. */
void service_admit_manual(Manager *m, const char *unit, const UnitInfo *u, DeadlineRequest *req,
                          sd_bus_message *call, ServiceAdmitted done);
/* Releases by hand: 0, or a negative errno with error set to a
 * DLD_ERROR_* and why (-ENOMEM alone: not set). */
int service_release_manual(Manager *m, const char *unit, sd_bus_error *error);
