/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "types.h"

/* Releases reservations in group slices that belong to no admitted
 * service: what a unit left behind while dld was down. */
void orphans_release(Manager *m);
