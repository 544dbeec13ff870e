/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What dld keeps in its run directory for a restart of itself: requests
 * admitted by hand (manual/UNIT.conf), releases by hand (released/UNIT,
 * the unit's InvocationID), units admitted (admitted/UNIT.conf), containers
 * admitted (containers/ID.conf), the slices whose groups it may have
 * reserved (slices). Each is written aside and renamed into
 * place: a crash leaves the old record or the new one.
 * Each function takes the run directory; none knows the Manager. */

#include <stdbool.h>

#include "dropin.h"
#include "unitrecord.h"

/* run_dir/manual/UNIT.conf, allocated (NULL: out of memory). */
char *records_manual_path(const char *run_dir, const char *unit);
int records_manual_save(const char *run_dir, const char *unit, const DeadlineRequest *req);
void records_manual_remove(const char *run_dir, const char *unit);

/* A release by hand holds for the unit's current run (its invocation ID). */
int records_release_save(const char *run_dir, const char *unit, const char *invocation);
void records_release_remove(const char *run_dir, const char *unit);
/* Was the unit released by hand in this run of it? A record of an earlier
 * run is dropped. */
bool records_release_held(const char *run_dir, const char *unit, const char *invocation);

/* What was admitted for a unit (run_dir/admitted/UNIT.conf, unitrecord.h),
 * so that a restart of dld keeps it while the unit runs. load: 0, -ENOENT,
 * -EINVAL (malformed: the record is logged and removed), -ENOMEM. */
int records_admitted_save(const char *run_dir, const UnitRecord *rec);
int records_admitted_load(const char *run_dir, const char *unit, UnitRecord *ret);
void records_admitted_remove(const char *run_dir, const char *unit);
/* The units with a record (names, allocated; NULL for none). */
char **records_admitted_units(const char *run_dir);

/* run_dir/containers, allocated. */
char *records_containers_dir(const char *run_dir);
int records_container_save(const char *run_dir, const char *id, const char *name, const char *cgroup,
                           const char *admitted_group, const DeadlineRequest *req);
void records_container_remove(const char *run_dir, const char *id);

/* run_dir/slices: every slice whose group dld may have reserved, one per
 * line, so that a dld started again releases a group the policy dropped
 * while it was down, or while it was being applied. load: NULL for none. */
int records_slices_save(const char *run_dir, char * const *slices);
char **records_slices_load(const char *run_dir);
