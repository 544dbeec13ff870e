/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Applying a validated policy (apply.c): the kernel writes in an order the
 * kernel accepts, all or nothing. */

#include "types.h"

/* Before a policy is applied: each of its slices gets the cpu controller
 * the systemd way (CPUWeight=100 makes systemd enable cpu along its path),
 * and one not started yet is started. Waits for nothing: *ret_jobs gets
 * the object paths of the start jobs (their end comes as systemd's
 * JobRemoved signal). Returns 1 if a property was set (systemd_barrier()
 * before the files are read), 0 if every slice was ready already. */
int apply_prepare_slices(Manager *m, const Policy *np, char ***ret_jobs);

/* Once the slices are ready: 0, or a negative errno with error set (a DLD_ERROR_* and why); the
 * previous policy is then in force again. */
int apply_policy(Manager *m, Policy *np, sd_bus_error *error);
