/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A service's threads: the kernel's task template makes them
 * SCHED_DEADLINE; dld counts them, and follows the template's stat file. */

#include <sys/types.h>

#include "types.h"

/* An admitted service's threads: counted; a unit that schedules its own
 * gets its request's deadline limits (and loses them on unfollow). */
void service_threads_follow(Manager *m, Service *s);
void service_threads_unfollow(Manager *m, Service *s);
/* Counts the unit's threads again (and, for a template unit, those its
 * template had no room for: a new one is logged). */
void service_threads_count(Manager *m, Service *s);
/* A template unit: follows its template's stat file (inotify), so that
 * dld learns of tasks beyond its reservation without polling. */
int service_threads_watch(Manager *m, Service *s);
void service_threads_unwatch(Service *s);
