/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* dld's record of a unit it admitted (run_dir/admitted/UNIT.conf), so that
 * a restart of dld finds what it admitted, for which activation of the
 * unit and in which group, and keeps it, whatever the unit's files say by
 * then. An ini text: an [Admission] section with Unit=, Invocation=,
 * Group=, Cgroup= and Manual=, then the request in drop-in form
 * (dropin_format()). Pure: no I/O. */

#include <stdbool.h>

#include "diag.h"
#include "dropin.h"

typedef struct UnitRecord {
        char *unit;             /* a service unit name */
        char *invocation;       /* its InvocationID: 32 lower-case hex digits */
        char *group;            /* the policy group it was admitted in */
        char *cgroup;           /* its cgroup, as systemd named it */
        bool manual;            /* admitted by hand (AdmitUnit) */
        DeadlineRequest req;
} UnitRecord;

void unitrecord_done(UnitRecord *r);

/* malloc'ed, NULL on ENOMEM or when a field is missing. */
char *unitrecord_format(const UnitRecord *r);

/* 0, -EINVAL (problems appended to d, with file) or -ENOMEM. A record
 * whose fields do not all check out is refused whole. */
int unitrecord_parse(const char *file, const char *text, UnitRecord *ret, DiagList *d);
