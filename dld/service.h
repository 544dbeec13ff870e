/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Following services (service.c): reading their requests, admitting them
 * (reservation in the unit's cgroup, threads to SCHED_DEADLINE), refusing
 * and releasing; what is kept of them in the run directory. Below the
 * manager, which calls these from its event loop; calls down only. */

#include "manager.h"

Service *manager_find_service(Manager *m, const char *unit);
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

/* Drops dld's memory of every service, leaving the kernel as it is. */
void manager_forget_services(Manager *m);

/* Re-checks the threads of every admitted service (timer). */
void manager_sync_threads(Manager *m);

/* Releases reservations in group slices that belong to no admitted service. */
void manager_release_orphans(Manager *m);
