/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The systemd client: what dld asks systemd over the bus (unit properties,
 * start and stop jobs, a slice's cgroup). Knows nothing of dld's own
 * state, and never waits for anything but a reply. */

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

/* A slice's cgroup path: computed (with systemd's escaping) when the
 * kernel has that cgroup, else systemd's ControlGroup, else the computed
 * one (a slice not started yet). */
char *systemd_slice_cgroup(sd_bus *bus, KernelFs *kfs, const char *slice);

/* CPUWeight=100: the systemd way to get the cpu controller along the path. */
int systemd_set_cpu_weight(sd_bus *bus, const char *unit);
/* Asks systemd to stop unit, without waiting: a failure is logged. */
int systemd_stop_unit(sd_bus *bus, const char *unit);

/* Without waiting: callback gets the reply (SetUnitProperties' empty one;
 * StartUnit's job object path, whose end systemd's JobRemoved signal
 * names). Unreferencing *ret_slot cancels the callback. */
int systemd_set_cpu_weight_async(sd_bus *bus, sd_bus_slot **ret_slot, const char *unit,
                                 sd_bus_message_handler_t callback, void *userdata);
int systemd_start_unit_async(sd_bus *bus, sd_bus_slot **ret_slot, const char *unit,
                             sd_bus_message_handler_t callback, void *userdata);

/* A call that systemd answers only once it has realized the cgroups of the
 * properties set before (SetUnitProperties): its main loop empties the
 * cgroup realize queue before it takes the next bus message. So a cgroup
 * file the property brings is there when this returns, with no polling. */
int systemd_barrier(sd_bus *bus);
