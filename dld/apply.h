/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Applying a validated policy (apply.c): the kernel writes in an order the
 * kernel accepts, all or nothing. */

#include "types.h"

/* The slices of np whose cgroups lack the cpu.dl_* files (not started,
 * or without the cpu controller): systemd must set them up first, and
 * reload.c asks it to, without waiting. */
int apply_slices_to_prepare(Manager *m, const Policy *np, char ***ret_slices);

/* Once the slices are ready: 0, or a negative errno with error set (a DLD_ERROR_* and why); the
 * previous policy is then in force again. */
int apply_policy(Manager *m, Policy *np, sd_bus_error *error);
