/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Questions to systemd about a unit (service-lookup.c): asked without
 * waiting (systemd_unit_info_async()), answered in the loop, where
 * service.c decides on the answer. Below the manager and the bus, which
 * call these; above service.c. */

#include <stdint.h>
#include <systemd/sd-bus.h>

#include "types.h"

/* A unit became active (or dld starts and finds it active): admits it if it
 * has a request. invocation: its InvocationID as the signal told it (NULL:
 * unknown); an activation decided already costs no call to systemd, nor
 * does one asked about already. 0 or a negative errno. */
int service_lookup_unit_active(Manager *m, const char *unit, const char *invocation);
/* A unit followed is activating: a restart ends what was decided for its
 * previous run, unless the decision is for this activation already
 * (invocation as above). */
void service_lookup_unit_restarting(Manager *m, const char *unit, const char *invocation);
/* A unit's ExecStartPre= asks (PrepareUnit): admits it before its main
 * process starts, so that the template is there when systemd attaches it.
 * invocation: the InvocationID= the asking process runs in ("" any).
 * call is answered with the state ("admitted", "degraded", ... or "none":
 * no request) and the reason, once systemd has told dld about the unit:
 * 1, or a negative errno (error set) for a call refused at once. */
int service_lookup_unit_starting(Manager *m, sd_bus_message *call, const char *unit, const char *invocation,
                                 sd_bus_error *error);
/* Admits by hand (AdmitUnit); threads as X-DeadlineThreads= (DL_THREADS_ALL:
 * one per CPU). call is answered once systemd has told dld about the unit
 * and service_admit_manual() has decided (1), or the request is refused at
 * once (a negative errno, error set). */
int service_lookup_admit_manual(Manager *m, sd_bus_message *call, const char *unit, uint64_t runtime,
                                uint64_t deadline, uint64_t period, unsigned threads, sd_bus_error *error);
/* Drops the questions to systemd not answered yet (dld exits); the calls
 * that waited for them are answered UnitNotActive. */
void service_lookup_forget_all(Manager *m);
