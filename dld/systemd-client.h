/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The systemd client: what dld asks systemd over the bus (unit properties,
 * start and stop jobs, a slice's cgroup), and waiting for systemd to set a
 * cgroup up. Knows nothing of dld's own state. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "kernelfs.h"

/* systemd's bus names dld uses. */
#define SYSTEMD_DEST "org.freedesktop.systemd1"
#define SYSTEMD_PATH "/org/freedesktop/systemd1"
#define SYSTEMD_UNIT_PREFIX "/org/freedesktop/systemd1/unit"
#define SYSTEMD_MANAGER "org.freedesktop.systemd1.Manager"
#define SYSTEMD_UNIT "org.freedesktop.systemd1.Unit"
#define SYSTEMD_SERVICE "org.freedesktop.systemd1.Service"

typedef struct UnitInfo {
        char *active_state;
        char *load_state;
        char *fragment_path;
        char **dropin_paths;
        char *cgroup;
        char *slice;
        char *invocation;       /* hex */
        bool delegate;          /* Delegate=yes: the unit owns its cgroup subtree */
} UnitInfo;
void systemd_unit_info_done(UnitInfo *u);
int systemd_unit_info(sd_bus *bus, const char *unit, UnitInfo *ret, sd_bus_error *error);
bool systemd_unit_is_active(sd_bus *bus, const char *unit);

/* A slice's cgroup path: systemd's ControlGroup, or computed (with
 * systemd's escaping) while it has none. */
char *systemd_slice_cgroup(sd_bus *bus, const char *slice);

/* CPUWeight=100: the systemd way to get the cpu controller along the path. */
int systemd_set_cpu_weight(sd_bus *bus, const char *unit);
int systemd_start_unit(sd_bus *bus, const char *unit);
int systemd_stop_unit(sd_bus *bus, const char *unit);

/* Waits (up to timeout) until cgroup has cpu.dl_runtime_us; -ENOENT at once
 * when the cgroup, seen before, is removed (its unit stopped). */
int systemd_wait_for_dl_file(KernelFs *kfs, const char *cgroup, uint64_t timeout_usec);
