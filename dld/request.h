/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A unit's deadline request, as dld reads it (request_read()) or takes it
 * from the bus (request_check()). */

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "dropin.h"
#include "systemd-client.h"

/* The unit's request: a manual one (AdmitUnit, kept in run_dir's records)
 * overrides the X-Deadline keys of its unit file and drop-ins.
 * 0: request in *req; -ENOENT: none; -EINVAL: malformed (logged, and in
 * the journal). */
int request_read(const char *run_dir, const char *unit, const UnitInfo *u, DeadlineRequest *req, bool *ret_manual);
/* The numbers of a request from the bus (threads: 1.., DL_THREADS_ALL), as
 * the kernel will take them: 0, or an error set (InvalidRequest). */
int request_check(const DeadlineRequest *req, sd_bus_error *error);
