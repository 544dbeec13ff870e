/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What dld keeps in its run directory for a restart of itself: requests
 * admitted by hand (manual/UNIT.conf), releases by hand (released/UNIT,
 * the unit's InvocationID), units admitted (admitted/UNIT.conf), containers
 * admitted (containers/ID.conf), the slices whose groups it may have
 * reserved (slices), a copy of the policy in force (applied/). Each is
 * written aside and renamed into place: a crash leaves the old record or
 * the new one. This file alone knows the layout: a dld of another version
 * must find the records of the one before it.
 * Each function takes the run directory; none knows the Manager. */

#include <stdbool.h>

#include "container.h"
#include "dropin.h"
#include "policy.h"
#include "unitrecord.h"

/* A request admitted by hand (run_dir/manual/UNIT.conf, a drop-in). load:
 * parsed into req (dropin_parse(), problems in d with the record's path):
 * 0, -ENOENT (no record, or one that cannot be read), -EINVAL, -ENOMEM. */
int records_manual_save(const char *run_dir, const char *unit, const DeadlineRequest *req);
int records_manual_load(const char *run_dir, const char *unit, DeadlineRequest *req, DiagList *d);
void records_manual_remove(const char *run_dir, const char *unit);
/* The units with a manual record (names, allocated; NULL for none). */
char **records_manual_units(const char *run_dir);

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

/* A container admitted, or refused (admitted_group NULL):
 * run_dir/containers/ID.conf (container.h). load: 0, -ENOENT (no record,
 * or one that cannot be read), -EINVAL (malformed), -ENOMEM. */
int records_container_save(const char *run_dir, const char *id, const char *name, const char *cgroup,
                           const char *admitted_group, const DeadlineRequest *req);
int records_container_load(const char *run_dir, const char *id, ContainerRecord *ret);
void records_container_remove(const char *run_dir, const char *id);
/* The IDs with a record (allocated; NULL for none). */
char **records_container_ids(const char *run_dir);

/* run_dir/slices: every slice whose group dld may have reserved, one per
 * line, so that a dld started again releases a group the policy dropped
 * while it was down, or while it was being applied. load: NULL for none. */
int records_slices_save(const char *run_dir, char * const *slices);
char **records_slices_load(const char *run_dir);

/* The policy in force, as dld parsed it (run_dir/applied/, a file for each
 * of p's files), so that a restart of dld (a crash, kill -9, an upgrade)
 * while the files on disk are broken keeps enforcing it instead of
 * starting without one and releasing every service. Written aside
 * (applied.new/) and renamed into place, the one before it moved to
 * applied.old/ meanwhile. copies: the directories that hold one, newest
 * first: applied/, then applied.old/ (dld died between the two renames);
 * returns how many (*ret allocated, NULL for none) or -ENOMEM. */
int records_policy_save(const char *run_dir, const Policy *p);
int records_policy_copies(const char *run_dir, char ***ret);
