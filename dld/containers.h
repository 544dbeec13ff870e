/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Containers (the OCI hook, units/CONTAINERS.md): the same admission as a
 * service's (service.h), by a task template in the cgroup of the
 * container's init process (its scope, or crun's "container" below it),
 * the scope standing for the unit. Kept in the run directory for a
 * restart of dld. */

#include <systemd/sd-bus.h>

#include "types.h"

/* A container by its ID, the first 12 or more characters of it (if
 * unique), or its name (the latest admitted with it). */
Service *containers_find(Manager *m, const char *key);
/* The container whose scope unit is scope ("libpod-ID.scope"), or NULL. */
Service *containers_find_scope(Manager *m, const char *scope);

/* Admits a container in the cgroup of its init process, a scope or below
 * one (container_cgroup_split(): its group is the one of the slice above
 * the scope, or group if not empty); threads as for
 * service_lookup_admit_manual(). call is answered once decided: the state
 * ("admitted", or "degraded" by the group's on_refusal) and why it was
 * refused ("" when admitted), or DLD_ERROR_REFUSED when refused in a group
 * whose on_refusal is "fail" (the hook then fails the container). Returns
 * 1 (answered, or to be), or a negative errno with error set for a call
 * refused at once: DLD_ERROR_INVALID_REQUEST, DLD_ERROR_NO_SUCH_UNIT (no
 * such cgroup). */
int containers_admit(Manager *m, sd_bus_message *call, const char *id, const char *name, const char *cgroup,
                     const char *group, uint64_t runtime, uint64_t deadline, uint64_t period, unsigned threads,
                     sd_bus_error *error);
/* The container stopped: its threads back to normal, its reservation
 * released, dld forgets it. DLD_ERROR_NO_SUCH_SERVICE if dld does not know it. */
int containers_release(Manager *m, const char *id, sd_bus_error *error);
/* Forgets a container: its threads back to normal and its reservation
 * released if it holds one (its cgroup may be gone already), its record
 * removed; why is logged. */
void containers_forget(Manager *m, Service *s, const char *why);
/* At start: the containers dld admitted before it restarted, from the run
 * directory, admitted again where their cgroup still exists (the
 * reservation is found in place, nothing is counted twice). */
void containers_restore(Manager *m);
