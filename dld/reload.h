/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Policy reloads (reload.c): read, validate, get the policy's slices
 * started by systemd without blocking the event loop, apply all or nothing,
 * keep a copy in the run directory. On failure the previous policy stays,
 * and the reason is logged, in STATUS= and in the answer. */

#include "types.h"

/* A reload for call (a Reload method call, answered when done), or, with
 * call NULL, for SIGHUP (READY=1 when done). 0: done and answered; 1:
 * under way, or queued behind the one under way; -ENOMEM: not asked. */
int reload_request(Manager *m, sd_bus_message *call);

/* At start: applies the policy directory, the event loop running until
 * it is done. 0, or a negative errno with error set. */
int reload_at_start(Manager *m, sd_bus_error *error);

/* At start, when the policy on disk is rejected: the one dld last
 * applied (run_dir/applied). -ENOENT: none could be. */
int reload_restore_applied(Manager *m, const char *why);

/* Drops a reload under way and the queued requests, unanswered (dld exits). */
void reload_forget(Manager *m);
