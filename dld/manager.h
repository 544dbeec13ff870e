/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemon's state and event loop: the policy in force, the services it
 * follows, the connection to systemd. */

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "dropin.h"
#include "kernelfs.h"
#include "policy.h"
#include "predict.h"
#include "systemd-client.h"

#define DLD_VERSION "0.1"

#define DLD_DEFAULT_POLICY_DIR "/etc/dld/policies.d"
#define DLD_DEFAULT_RUN_DIR "/run/dld"
/* How often the threads of admitted services are checked for new ones:
 * the bound on how long a new thread runs before it is SCHED_DEADLINE. */
#define DLD_DEFAULT_POLL_USEC (50 * 1000ULL)

typedef enum ServiceState {
        SERVICE_ADMITTED,       /* reservation in place, threads SCHED_DEADLINE */
        SERVICE_DEGRADED,       /* refused, runs as a normal task */
        SERVICE_FAILED,         /* refused, dld stopped it */
        SERVICE_RELEASED,       /* released by hand, until it restarts */
} ServiceState;

const char *service_state_to_string(ServiceState s);

typedef struct Service {
        char *unit;
        char *cgroup;           /* ControlGroup= */
        char *slice;            /* Slice= */
        char *invocation;       /* InvocationID= of the activation it was decided for */
        DeadlineRequest req;
        bool manual;            /* admitted by hand (AdmitUnit) */
        char *group;            /* name of its policy group, NULL if none */
        ServiceState state;
        char *reason;           /* why it was refused */
        unsigned threads_dl, threads_total;
} Service;

typedef struct Manager {
        sd_event *event;
        sd_bus *bus;
        KernelFs *kfs;
        char *policy_dir;
        char *run_dir;
        Policy policy;          /* in force */
        Service **services;
        size_t n_services;
        uint64_t poll_usec;
        sd_event_source *poll_source;
        bool dl_groups;         /* the kernel has cpu.dl_runtime_us */
} Manager;

typedef struct ManagerOptions {
        const char *policy_dir;
        const char *run_dir;
        const char *root;       /* kernel file prefix, "" normally */
        uint64_t poll_usec;
} ManagerOptions;

int manager_new(const ManagerOptions *o, Manager **ret);
Manager *manager_free(Manager *m);
static inline void manager_freep(Manager **m) {
        manager_free(*m);
}
int manager_start(Manager *m);
int manager_run(Manager *m);

/* Reads the policy directory and applies it, all or nothing. On failure the
 * previous policy stays; *ret_error_name is a DLD_ERROR_* and *ret_message
 * says why (both set on failure only; message malloc'ed). */
int manager_reload(Manager *m, const char **ret_error_name, char **ret_message);

/* apply.c: applies a validated policy; same failure contract. */
int manager_apply_policy(Manager *m, Policy *np, const char **ret_error_name, char **ret_message);

/* Sets the D-Bus error name and a formatted message for the caller (the
 * failure contract of manager_reload() and friends); returns -EINVAL. */
int set_error(const char **ret_error, char **ret_message, const char *name, const char *fmt, ...) _printf_(4, 5);

/* Kernel state for the API. */
unsigned manager_cpus(Manager *m);

Service *manager_find_service(Manager *m, const char *unit);
unsigned manager_count_admitted(Manager *m, const char *group, const Service *except);

/* service.c */
/* A unit became active (or dld starts and finds it active): admits it if it
 * has a request. A unit stopped: releases. */
int manager_unit_active(Manager *m, const char *unit);
void manager_unit_inactive(Manager *m, const char *unit);

/* Admits by hand / releases by hand (bus). 0, or a negative errno with
 * *ret_error_name and *ret_message set. */
int manager_admit_manual(Manager *m, const char *unit, uint64_t runtime, uint64_t deadline, uint64_t period,
                         const char **ret_error_name, char **ret_message);
int manager_release_manual(Manager *m, const char *unit, const char **ret_error_name, char **ret_message);

/* Drops dld's memory of every service, leaving the kernel as it is. */
void manager_forget_services(Manager *m);

/* Re-checks the threads of every admitted service (timer). */
void manager_sync_threads(Manager *m);

/* Releases reservations in group slices that belong to no admitted service. */
void manager_release_orphans(Manager *m);

/* bus.c */
int manager_bus_register(Manager *m);

