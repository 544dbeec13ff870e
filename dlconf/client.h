/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* dlconf's side of dld's D-Bus API (dld/org.dlsched.Dld1.xml). Each call
 * returns 0 or a negative errno; on failure *error holds what the bus or
 * dld said, which client_exit_status() turns into dlconf's exit status. */

#include <systemd/sd-bus.h>

#include "state.h"

int client_open(sd_bus **ret);
int client_get_state(sd_bus *bus, DlconfState *ret, sd_bus_error *error);
int client_get_service(sd_bus *bus, const char *unit, DlconfService *ret, sd_bus_error *error);
int client_admit(sd_bus *bus, const char *unit, uint64_t runtime_usec, uint64_t deadline_usec,
                 uint64_t period_usec, uint32_t threads, sd_bus_error *error);
int client_release(sd_bus *bus, const char *unit, sd_bus_error *error);
/* PrepareUnit: dld's verdict for a starting unit ("none": no request). */
int client_prepare(sd_bus *bus, const char *unit, const char *invocation, char **ret_state, char **ret_reason,
                   sd_bus_error *error);
int client_reload(sd_bus *bus, sd_bus_error *error);

/* Pure: the exit status (EXIT_DLCONF_*) for a failed call, from the D-Bus
 * error name (may be NULL) and the negative errno. */
int client_exit_status(const char *error_name, int r);

/* Pure: one line for a failed call, without "dlconf: " (caller frees). */
char *client_error_message(const char *error_name, const char *error_message, int r);
