/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "types.h"

/* Releases reservations in group slices that belong to no admitted
 * service: what a unit left behind while dld was down. kept: cgroups
 * left alone all the same (NULL-terminated, may be NULL): those of units
 * admitted before a restart that dld could not look up. */
void orphans_release(Manager *m, char * const *kept);
