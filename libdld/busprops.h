/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Reading a D-Bus object's properties in one call (GetAll): systemd's for
 * dld, dld's for dlconf. */

#include <systemd/sd-bus.h>

/* Called for each property, with reply positioned at its variant: it reads
 * the variant (sd_bus_message_read(reply, "v", ...)) and returns 1, or
 * returns 0 to have it skipped, or a negative errno to stop. */
typedef int (*busprops_each_t)(sd_bus_message *reply, const char *name, void *userdata);

/* GetAll's reply, read: each property handed to each. interface "" in
 * the call asks for every interface's properties (sd-bus's objects, systemd's
 * among them, answer so). */
int busprops_read(sd_bus_message *reply, busprops_each_t each, void *userdata);
int busprops_get_all(sd_bus *bus, const char *destination, const char *path, const char *interface,
                     sd_bus_error *error, busprops_each_t each, void *userdata);
