/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A service's deadline request, from [Service] keys in its unit file and
 * drop-ins (systemd ignores X- keys, and keeps the files for us):
 *
 *   [Service]
 *   X-DeadlineRuntime=2ms      required: CPU time per period (systemd time syntax)
 *   X-DeadlinePeriod=10ms      required: the period
 *   X-DeadlineDeadline=5ms     optional: relative deadline, default the period
 *   X-DeadlineGroup=media      optional: deadline group of the policy; default
 *                              the group whose slice holds the unit
 *   X-DeadlineThreads=2        optional: how many threads of this size the
 *                              unit's reservation holds, 1 to DL_THREADS_MAX
 *                              (1024), or "all": one per CPU; default 1
 *   X-DeadlinePromote=none     optional: which threads dld makes SCHED_DEADLINE:
 *                              "cgroup" (those of the unit's own cgroup),
 *                              "none" (none: the unit schedules its own, within
 *                              its reservation), "auto" (default: "none" for a
 *                              unit with Delegate=yes, "cgroup" otherwise)
 *
 * Files are parsed in systemd's order (unit file, then drop-ins); a later
 * assignment overrides an earlier one and an empty one resets the key. */

#include <stdbool.h>
#include <stdint.h>

#include "admission.h"
#include "diag.h"

typedef struct KeyOrigin {
        char *file;
        unsigned line;
} KeyOrigin;

/* Which threads of a unit dld makes SCHED_DEADLINE (X-DeadlinePromote=). */
typedef enum DeadlinePromote {
        PROMOTE_AUTO,           /* unset: CGROUP, or NONE for a delegated unit */
        PROMOTE_CGROUP,         /* the unit's own cgroup's */
        PROMOTE_NONE,           /* none: dld reserves and accounts, the unit schedules its own */
        _PROMOTE_MAX,
} DeadlinePromote;

const char *dropin_promote_to_string(DeadlinePromote p);

/* What dld does with the threads of a unit whose request says setting,
 * with Delegate=yes or not: *ret is CGROUP or NONE. A delegated unit's
 * subtree belongs to the unit (systemd's Delegate=: a container's own
 * systemd, a service managing its cgroups), whose owner may subdivide the
 * unit's reservation in child cgroups: dld neither switches nor moves its
 * threads. "cgroup" there is -EINVAL with why. */
int dropin_promote_resolve(DeadlinePromote setting, bool delegated, DeadlinePromote *ret, char *why, size_t size);

/* systemd's Delegate= value: a boolean (yes/no, true/false, on/off, 1/0,
 * any case) or a list of controllers (delegates them: true); empty resets
 * (false). */
bool dropin_delegate_value(const char *value);

typedef struct DeadlineRequest {
        uint64_t runtime_usec;
        uint64_t deadline_usec;         /* after dropin_finish(): never 0 */
        uint64_t period_usec;
        char *group;                    /* NULL: the group of the unit's slice */
        unsigned threads;               /* after dropin_finish(): 1.., or DL_THREADS_ALL */
        DeadlinePromote promote;        /* X-DeadlinePromote=, PROMOTE_AUTO if unset */
        KeyOrigin runtime_at, deadline_at, period_at, group_at, threads_at, promote_at;
} DeadlineRequest;

void dropin_request_done(DeadlineRequest *r);

/* Parses one file's text into r. Problems are appended to d with the file
 * and line. Returns 0, -EINVAL if a problem was found, or -ENOMEM. */
int dropin_parse(DeadlineRequest *r, const char *file, const char *text, DiagList *d);

/* After all files: checks the request as a whole and fills the default
 * deadline and thread count. Returns 0 (a valid request), -ENOENT (no keys: no request)
 * or -EINVAL (problems appended to d). */
int dropin_finish(DeadlineRequest *r, DiagList *d);

/* True if any key was set. */
bool dropin_request_present(const DeadlineRequest *r);

/* The values of the keys, shared with the requests of containers
 * (container.h): 0, or -EINVAL/-ERANGE with why (at most size bytes,
 * DEADLINE_WHY_MAX is enough) saying what is wrong with the value, for a
 * message "KEY=VALUE: why". A time span in systemd's syntax, greater than
 * zero; a thread count 1 to DL_THREADS_MAX in decimal digits, or "all"
 * (DL_THREADS_ALL). */
#define DEADLINE_WHY_MAX 256
int dropin_value_time(const char *value, uint64_t *ret, char *why, size_t size);
int dropin_value_threads(const char *value, unsigned *ret, char *why, size_t size);

/* Checks a request's runtime, deadline (filled) and period as the kernel
 * will: 0 if valid, else why ("runtime 2ms, deadline 1ms, period 10ms:
 * ...") and 1 when the runtime is to blame, 2 when the deadline or period. */
int dropin_request_problem(const DeadlineRequest *r, char *why, size_t size);


/* The request of one of dld's records (a whole text, its [Service]
 * section): 0, or -EINVAL with the problems in d ("no request" if it has
 * none), or -ENOMEM. */
int dropin_parse_record(DeadlineRequest *r, const char *file, const char *text, DiagList *d);

/* The values of keys (NULL-terminated) in section ("[Container]") of an
 * ini text, the last one of each, into values[] (NULL where absent;
 * malloc'ed). 0 or -ENOMEM (values[] then all NULL). */
int dropin_section_read(const char *text, const char *section, const char *const *keys, char **values);

/* Whether a and b (both finished) ask for the same admission: runtime,
 * deadline, period, threads, group and X-DeadlinePromote=. */
bool dropin_request_same(const DeadlineRequest *a, const DeadlineRequest *b);

/* A request in one line, for operators: "runtime 2ms, deadline 20ms, period
 * 20ms, 3 threads, group media" (malloc'ed, NULL on ENOMEM). */
char *dropin_request_describe(const DeadlineRequest *r);

/* A drop-in that expresses r (used for requests admitted by hand). */
char *dropin_format(const DeadlineRequest *r);
