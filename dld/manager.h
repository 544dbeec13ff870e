/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemon's event loop: it owns the Manager (types.h), reads the
 * policy and listens to systemd; the kernel's task templates admit the
 * threads, so nothing polls. */

#include "types.h"

typedef struct ManagerOptions {
        const char *policy_dir;
        const char *run_dir;
        const char *root;       /* kernel file prefix, "" normally */
} ManagerOptions;

int manager_new(const ManagerOptions *o, Manager **ret);
Manager *manager_free(Manager *m);
static inline void manager_freep(Manager **m) {
        manager_free(*m);
}
/* Connects to systemd, applies the policy, follows the active units. */
int manager_start(Manager *m);
/* Takes the bus name and tells systemd dld is ready (after the D-Bus
 * object is registered, bus.h). */
int manager_publish(Manager *m);
int manager_run(Manager *m);
