/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The systemd client: what dld asks systemd over the bus (unit properties,
 * start and stop jobs). Knows nothing of dld's own
 * state. Only systemd_unit_info() waits for a reply, and only dld's start
 * calls it; the rest hand the reply to a callback. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

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
/* A service's properties (its Unit interface's, ControlGroup=, Slice=,
 * Delegate=). Waits for the answers: for dld's start only, before it
 * follows anything. */
int systemd_unit_info(sd_bus *bus, const char *unit, UnitInfo *ret, sd_bus_error *error);
/* The same, without waiting: the calls go out at once, and done gets the
 * properties (NULL on failure, r and error say why) when the last answer
 * is in. Freeing the query before cancels it; done may free it. */
typedef struct UnitInfoQuery UnitInfoQuery;
typedef void (*UnitInfoHandler)(const UnitInfo *u, int r, const sd_bus_error *error, void *userdata);
int systemd_unit_info_async(sd_bus *bus, UnitInfoQuery **ret, const char *unit, UnitInfoHandler done,
                            void *userdata);
UnitInfoQuery *systemd_unit_info_query_free(UnitInfoQuery *q);

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
 * file the property brings is there when callback runs, with no polling. */
int systemd_barrier_async(sd_bus *bus, sd_bus_slot **ret_slot, sd_bus_message_handler_t callback, void *userdata);
/* CPUWeight=100 on unit (the systemd way to get the cpu controller along
 * its path; a failure is logged), then the barrier: callback runs once the
 * controller is there, or will not be. */
int systemd_cpu_controller_async(sd_bus *bus, sd_bus_slot **ret_slot, const char *unit,
                                 sd_bus_message_handler_t callback, void *userdata);
