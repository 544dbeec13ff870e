/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A service's threads: to SCHED_DEADLINE with its request (or only
 * counted, for a unit whose threads are its own), and back. */

#include <sys/types.h>

#include "types.h"

/* 0, or the kernel's negative errno for the thread *ret_tid. Counts in
 * s->threads_dl and s->threads_total. */
int service_threads_to_deadline(Manager *m, Service *s, pid_t *ret_tid);
void service_threads_to_normal(Manager *m, Service *s);
/* Why the kernel refused SCHED_DEADLINE for one of the unit's threads
 * (which: "thread", "new thread"); allocated, NULL when out of memory. */
char *service_threads_refusal(Manager *m, const Service *s, const char *which, pid_t tid, int err);
