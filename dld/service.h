/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Following services (service.c): reading their requests, admitting them
 * (reservation in the unit's cgroup, threads to SCHED_DEADLINE), refusing
 * and releasing; what is kept of them in the run directory. Below the
 * manager, which calls these from its event loop; calls down only. */

#include "manager.h"

Service *manager_find_service(Manager *m, const char *unit);
/* A container by its ID, the first 12 or more characters of it (if
 * unique), or its name (the latest admitted with it). */
Service *manager_find_container(Manager *m, const char *key);
/* A unit, else a container (GetService). */
Service *manager_find_entry(Manager *m, const char *key);
unsigned manager_count_admitted(Manager *m, const char *group, const Service *except);

/* A unit became active (or dld starts and finds it active): admits it if it
 * has a request. A unit stopped: releases. */
int manager_unit_active(Manager *m, const char *unit);
void manager_unit_inactive(Manager *m, const char *unit);

/* Admits by hand / releases by hand (bus); threads as X-DeadlineThreads=
 * (DL_THREADS_ALL: one per CPU). 0, or a negative errno with error set to
 * a DLD_ERROR_* and why (-ENOMEM alone: not set). */
int manager_admit_manual(Manager *m, const char *unit, uint64_t runtime, uint64_t deadline, uint64_t period,
                         unsigned threads, sd_bus_error *error);
int manager_release_manual(Manager *m, const char *unit, sd_bus_error *error);

/* Containers (the OCI hook, units/CONTAINERS.md): the same admission as a
 * service's, in the container's scope cgroup (container_cgroup_split():
 * its group is the one of the slice above it, or group if not empty),
 * with every thread of the scope's subtree. threads as for
 * manager_admit_manual(). Returns 0 when admitted or degraded (the
 * group's on_refusal: *ret_state "admitted" or "degraded", *ret_reason
 * why it was refused, "" when admitted; both point into the entry), or a
 * negative errno with error set: DLD_ERROR_REFUSED when refused in a
 * group whose on_refusal is "fail" (the hook then fails the container),
 * DLD_ERROR_INVALID_REQUEST, DLD_ERROR_NO_SUCH_UNIT (no such cgroup). The
 * admission is kept in the run directory for a restart of dld. */
int manager_admit_container(Manager *m, const char *id, const char *name, const char *cgroup, const char *group,
                            uint64_t runtime, uint64_t deadline, uint64_t period, unsigned threads,
                            const char **ret_state, const char **ret_reason, sd_bus_error *error);
/* The container stopped: its threads back to normal, its reservation
 * released, dld forgets it. DLD_ERROR_NO_SUCH_SERVICE if dld does not know it. */
int manager_release_container(Manager *m, const char *id, sd_bus_error *error);
/* At start: the containers dld admitted before it restarted, from the run
 * directory, admitted again where their cgroup still exists (the
 * reservation is found in place, nothing is counted twice). */
void manager_restore_containers(Manager *m);

/* Drops dld's memory of every service, leaving the kernel as it is. */
void manager_forget_services(Manager *m);

/* Re-checks the threads of every admitted service (timer). */
void manager_sync_threads(Manager *m);
/* The thread poll (manager.c) runs only while a service is admitted or a
 * container followed: an idle dld never wakes. manager_needs_poll() says
 * whether it has anything to do; manager_poll_wake() restarts it. */
bool manager_needs_poll(Manager *m);
void manager_poll_wake(Manager *m);

/* Releases reservations in group slices that belong to no admitted service. */
void manager_release_orphans(Manager *m);
