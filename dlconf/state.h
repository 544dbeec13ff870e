/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What dlconf shows: dld's view of the system budget, its deadline groups and
 * the services it follows, as returned by its D-Bus API (field meanings in
 * dld/org.dlsched.Dld1.xml). Filled by client.c, printed by format.c. */

#include <stddef.h>
#include <stdint.h>

typedef struct DlconfSystem {
        char *version;
        char *policy_directory;
        char **policy_files;            /* NULL-terminated, may be NULL */
        char *cgroup_hierarchy;
        unsigned cpus;
        int64_t runtime_usec;           /* -1: admission control off */
        uint64_t period_usec;
        uint64_t bandwidth;             /* UINT64_MAX: unlimited */
        uint64_t allocated;
        int64_t rt_runtime_usec;
        uint64_t rt_period_usec;
} DlconfSystem;

typedef struct DlconfGroup {
        char *name;
        char *slice;
        int64_t runtime_usec;
        uint64_t period_usec;
        uint64_t reserved;
        uint64_t allocated;
        uint64_t free;
        uint64_t max_request;           /* per CPU, 0: no limit */
        uint32_t max_services;          /* 0: no limit */
        uint32_t service_count;
        char *on_refusal;
} DlconfGroup;

typedef struct DlconfService {
        char *unit;
        char *group;
        char *state;                    /* admitted, degraded, failed, pending */
        uint64_t runtime_usec;
        uint64_t deadline_usec;
        uint64_t period_usec;
        uint32_t threads_requested;     /* X-DeadlineThreads=, 0: "all" (one per CPU) */
        uint64_t reserved;              /* on all CPUs together */
        uint32_t threads;
        uint32_t threads_total;
        char *source;                   /* dropin, manual, container */
        char *reason;
        char *container_id;             /* a container's, "" for a unit */
        char *container_name;
        char *newer_request;            /* what the unit's files ask for now, when it differs ("" else) */
} DlconfService;

typedef struct DlconfState {
        DlconfSystem system;
        DlconfGroup *groups;
        size_t n_groups;
        DlconfService *services;
        size_t n_services;
} DlconfState;

void state_service_done(DlconfService *s);

/* How dlconf names an entry: the unit, or "NAME (container ID12)" for a
 * container. Returns s->unit or buf. */
#define DLCONF_LABEL_MAX 300
const char *state_service_label(const DlconfService *s, char *buf, size_t size);
void state_done(DlconfState *s);

/* Appends a zeroed entry and returns it, or NULL on ENOMEM. */
DlconfGroup *state_add_group(DlconfState *s);
DlconfService *state_add_service(DlconfState *s);
