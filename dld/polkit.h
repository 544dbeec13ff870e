/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Asking polkit whether the sender of a bus call may do an action, without
 * blocking the event loop: the call stays unanswered until polkit's answer
 * comes, then the caller's callback runs with it. Knows nothing of dld. */

#include <stdbool.h>
#include <systemd/sd-bus.h>

/* The action that guards dld's writes (units/org.dlsched.dld1.policy). */
#define POLKIT_ACTION_MANAGE "org.dlsched.dld1.manage"

/* @authorized: polkit said yes. Otherwise @error says why not: polkit's own
 * failure (not running, say), or an access-denied error to send. */
typedef int (*PolkitDone)(sd_bus_message *call, void *userdata, bool authorized, const sd_bus_error *error);

/* Asks polkit about @call's sender; @done runs from the event loop once it
 * knows (not if the bus goes away first). 0 or -errno. */
int polkit_check_async(sd_bus_message *call, const char *action_id, PolkitDone done, void *userdata);
