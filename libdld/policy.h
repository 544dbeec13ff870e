/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Deadline policies: JSON files merged in name order (policies/README.md and
 * policies/dld-policy.schema.json describe the format):
 *
 *   {
 *     "system": { "sched_dl_runtime_us": 400000, "sched_dl_period_us": 1000000,
 *                 "sched_rt_runtime_us": 500000, "sched_rt_period_us": 1000000 },
 *     "groups": [
 *       { "name": "media", "slice": "deadline-media.slice",
 *         "runtime_us": 100000, "period_us": 1000000,
 *         "max_request_percent": 5, "max_services": 4, "on_refusal": "degrade" }
 *     ]
 *   }
 *
 * Later files override single "system" keys; groups accumulate and must have
 * distinct names and slices. Parsing and validation are pure: text in,
 * Policy and diagnostics ("FILE: $.json.path: reason") out. */

#include <stdbool.h>
#include <stdint.h>

#include "admission.h"
#include "diag.h"

typedef enum RefusalAction {
        REFUSAL_DEGRADE,        /* the service runs on as a normal task */
        REFUSAL_FAIL,           /* dld stops the unit */
} RefusalAction;

const char *policy_refusal_action_to_string(RefusalAction a);

typedef struct PolicyGroup {
        char *name;
        char *slice;
        int64_t runtime_us;             /* reservation per CPU, >= 0 */
        uint64_t period_us;
        uint64_t max_request_bw;        /* per CPU, fixed point; 0: no limit */
        unsigned max_services;          /* 0: no limit */
        RefusalAction on_refusal;
        bool containers;                /* admits containers (the OCI hook's requests); off by default */
        char *file;                     /* where it is defined */
        char *path;                     /* "$.groups[N]" */
        int parent;                     /* index of the group whose slice holds it, -1: none */
} PolicyGroup;

/* The four sysctls; a policy sets any of them, the rest keep their value. */
typedef struct SystemBudget {
        int64_t dl_runtime_us;
        uint64_t dl_period_us;
        int64_t rt_runtime_us;
        uint64_t rt_period_us;
} SystemBudget;

#define SYSTEM_BUDGET_DEFAULTS ((SystemBudget) {                      \
        .dl_runtime_us = DL_DEFAULT_RUNTIME_US, .dl_period_us = DL_DEFAULT_PERIOD_US, \
        .rt_runtime_us = RT_DEFAULT_RUNTIME_US, .rt_period_us = RT_DEFAULT_PERIOD_US, \
})

typedef struct Policy {
        SystemBudget system;
        bool dl_runtime_set, dl_period_set, rt_runtime_set, rt_period_set;
        char *system_file;              /* last file that set a system key */
        PolicyGroup *groups;
        size_t n_groups;
        char **files;                   /* merged files, in order */
        char **texts;                   /* their texts, as parsed */
} Policy;

void policy_done(Policy *p);

/* Merges one file's JSON text into p. Returns 0, -EINVAL (problems appended
 * to d) or -ENOMEM. */
int policy_parse(Policy *p, const char *file, const char *text, DiagList *d);
/* The same for @size bytes of text (a NUL byte among them is refused). The
 * text must be standard JSON (jsoncheck.h): no duplicate keys, comments,
 * trailing commas, NaN or data after the document. */
int policy_parse_n(Policy *p, const char *file, const char *text, size_t size, DiagList *d);

/* Checks the merged policy as a whole: duplicates, nesting, groups against
 * the system budget and each other, RT + deadline coupling. Keys the policy
 * does not set take their value from current. Fills the groups' parents and
 * p->system. Returns 0, -EINVAL (problems appended to d) or -ENOMEM. */
int policy_validate(Policy *p, const SystemBudget *current, DiagList *d);

/* The group that holds a unit in the given slice: the group with the
 * longest slice containing it; -1 if none. */
int policy_group_for_slice(const Policy *p, const char *slice);
int policy_group_by_name(const Policy *p, const char *name);

/* How many groups a validated group nests in (0: directly in the system
 * pool), and the deepest such level: reservations are made parents first. */
unsigned policy_group_depth(const Policy *p, size_t i);
unsigned policy_max_depth(const Policy *p);

/* Loads every *.json file of dir in name order (parse only). I/O helper
 * shared by dld and dlconf. -ENOENT if dir does not exist. */
int policy_load_directory(Policy *p, const char *dir, DiagList *d);
