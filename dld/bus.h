/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* dld's D-Bus API (bus.c, org.dlsched.Dld1.xml): on top of the manager. */

#include "manager.h"

/* The object and its vtable on m->bus; main() then has the manager take
 * the bus name (manager_publish()). */
int bus_register(Manager *m);
