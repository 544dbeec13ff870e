/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemon's state, below every module that reads or changes it: the
 * Manager (the policy in force, the entries it follows, the connection to
 * systemd) and each Service it follows. Types only. */

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "dropin.h"
#include "kernelfs.h"
#include "policy.h"

#define DLD_VERSION "0.1"

#define DLD_DEFAULT_POLICY_DIR "/etc/dld/policies.d"
#define DLD_DEFAULT_RUN_DIR "/run/dld"

typedef enum ServiceState {
        SERVICE_ADMITTED,       /* reservation in place, threads SCHED_DEADLINE */
        SERVICE_DEGRADED,       /* refused, runs as a normal task */
        SERVICE_FAILED,         /* refused, dld stopped it */
        SERVICE_RELEASED,       /* released by hand, until it restarts */
        SERVICE_ADMITTING,      /* waiting for systemd: the cpu controller of its cgroup */
} ServiceState;

struct ServiceAdmission;
struct UnitLookup;

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
        /* Kept from before a restart of dld, while the unit's files now ask
         * for something else: what they ask (for its next start). */
        char *newer_request;
        /* Which threads dld switches (X-DeadlinePromote= and Delegate=,
         * resolved): CGROUP (the task template of its cgroup admits them; a
         * container's too, in the cgroup of its init), NONE (=none, or a
         * delegated unit: reserved per CPU, its threads counted, never
         * touched). */
        DeadlinePromote promote;
        bool delegated;         /* Delegate=yes: the unit owns its cgroup subtree */
        bool limits_warned;     /* PROMOTE_NONE: logged that its deadline limits could not be set */
        unsigned threads_dl, threads_total;
        /* Reserved through its cgroup's task template (X-DeadlinePromote=cgroup):
         * the kernel admits its threads; the template's stat file is watched. */
        bool by_template;
        unsigned template_over;         /* highest nr_over logged: tasks it had no room for */
        sd_event_source *template_watch;
        struct Manager *manager;        /* for template_watch's callback */
        uint64_t reserved_runtime_us;   /* cpu.dl_runtime_us written for its threads (0: a template) */
        uint64_t reserved_bw;           /* what that reserves on all CPUs */
        /* A container (AdmitContainer, the OCI hook) instead of a service:
         * unit is its scope ("libpod-ID.scope"), cgroup the scope's. */
        char *container_id;
        char *container_name;
        bool container_started;         /* admitted before: refusing it later stops its scope */
        struct ServiceAdmission *admission;     /* SERVICE_ADMITTING: who waits, the call to systemd */
} Service;

/* Who waits for the outcome of a policy reload (reload.c). */
typedef struct ReloadWaiters {
        sd_bus_message **calls;         /* Reload calls to answer */
        size_t n_calls;
        bool notify_ready;              /* asked by SIGHUP: READY=1 when done */
        bool pending;                   /* a reload is wanted (queued behind the running one) */
        /* For the wait at start: the result, the error, and that it came. */
        int *ret_result;
        sd_bus_error *ret_error;
        bool *ret_done;
} ReloadWaiters;

/* A policy validated and being applied, while systemd starts its slices. */
typedef struct PolicyLoad {
        Policy policy;
        char *dir;
        char *files;                    /* for the journal */
        char **jobs;                    /* the slices' start jobs not over yet */
        sd_bus_slot **calls;            /* calls to systemd not answered yet (NULL once answered) */
        size_t n_calls;
        unsigned pending;               /* of those */
        char *failure;                  /* why a slice will not be ready */
        sd_bus_slot *job_removed;
        sd_event_source *timeout;
        ReloadWaiters waiters;
} PolicyLoad;

typedef struct Manager {
        sd_event *event;
        sd_bus *bus;
        KernelFs *kfs;
        char *policy_dir;
        char *run_dir;
        Policy policy;          /* in force */
        Service **services;
        size_t n_services;
        /* "UNIT INVOCATION": activations found to request nothing, so that
         * their later state changes cost no call to systemd. */
        char **without_request;
        /* Until the start's orphan sweep: the cgroups of running units whose
         * files ask for bandwidth in a form dld cannot read. What the kernel
         * holds there may be what dld admitted before (its record lost):
         * the sweep leaves it alone. NULL once swept. */
        char **malformed_cgroups;
        bool swept;
        sd_event_source *trim_source;   /* malloc_trim() after a burst of signals */
        PolicyLoad *loading;            /* the reload under way, if any */
        char **reserved_slices;         /* slices whose groups dld may have reserved (run_dir/slices) */
        ReloadWaiters reload_queued;    /* asked for while one was under way */
        bool following;                 /* systemd's unit signals are handled (after the start's sync) */
        /* Questions to systemd about units not answered yet (service-lookup.c):
         * the loop goes on meanwhile. */
        struct UnitLookup **lookups;
        size_t n_lookups;
        unsigned n_admitting;           /* services in SERVICE_ADMITTING */
        bool dl_groups;         /* the kernel has cpu.dl_runtime_us */
        bool policy_restored;   /* started with the copy in run_dir/applied */
        bool privileges_missing; /* manager_start() refused: a need is missing (privileges.h) */
} Manager;
