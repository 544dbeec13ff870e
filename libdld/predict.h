/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What a policy says to service requests: the policy's own limits (which
 * group, largest request, most services) and, on the admission model, whether
 * the reservations fit. dld uses the first part on every admission (the
 * kernel has the last word on fit); dlconf check and CheckPolicy use both to
 * predict verdicts without touching the kernel. Pure. */

#include <stdbool.h>
#include <stdint.h>

#include "dropin.h"
#include "policy.h"

typedef struct ServiceRequest {
        const char *unit;
        const char *slice;      /* the unit's Slice= */
        const char *group;      /* X-DeadlineGroup=, NULL: by slice */
        uint64_t runtime_usec, deadline_usec, period_usec;
        unsigned threads;       /* X-DeadlineThreads=: 1.. or DL_THREADS_ALL */
        bool per_cpu;           /* reserved per CPU (threads dld does not switch), not by a template */
} ServiceRequest;

/* The request of unit (in slice, its Slice=; NULL: none) as dld admits it,
 * from its deadline request (finished: dropin_finish(), or checked as one
 * from the bus) and what dld does with its threads: promote is
 * X-DeadlinePromote= as set (PROMOTE_AUTO when unset), or as resolved
 * before, and is resolved here for a unit delegated or not
 * (dropin_promote_resolve()). A unit whose threads dld does not switch
 * (X-DeadlinePromote=none, or auto with Delegate=yes) reserves per CPU.
 * *ret points into unit, slice and req. Returns 0, -EINVAL with
 * *ret_reason (malloc'ed): req is not finished, or promote does not
 * resolve (X-DeadlinePromote=cgroup with Delegate=yes); -ENOMEM. */
int predict_service_request(const char *unit, const char *slice, const DeadlineRequest *req,
                            DeadlinePromote promote, bool delegated, ServiceRequest *ret, char **ret_reason);

typedef enum RefusedBy {
        REFUSED_BY_NONE,
        REFUSED_BY_POLICY,      /* no group, too large, group full of services */
        REFUSED_BY_ADMISSION,   /* the kernel's admission control (predicted or real) */
} RefusedBy;

const char *predict_refused_by_to_string(RefusedBy b);

/* Resolves the request's group and checks the request against the group's
 * max_request_percent. Returns 0 (allowed, *ret_group set) or -EPERM with
 * *ret_reason (malloc'ed; *ret_group is the group if one was found, else
 * -1), -ENOMEM. How many services the group holds is the caller's to know:
 * predict_check_services() then. */
int predict_check_request(const Policy *p, const ServiceRequest *req, int *ret_group, char **ret_reason);

/* The group's max_services: 0 if g, holding admitted services already,
 * takes one more, else -EPERM with *ret_reason (malloc'ed), -ENOMEM. */
int predict_check_services(const PolicyGroup *g, unsigned admitted, char **ret_reason);

typedef struct Verdict {
        bool admitted;
        int group;
        RefusedBy refused_by;
        char *reason;           /* NULL when admitted */
        uint64_t reserved;      /* bandwidth the unit's cgroup reserves, when admitted */
} Verdict;

/* "the template for 2 threads of 10.00% of a CPU (20.00% in all)", or per
 * CPU "the reservation for 2 threads of 10.00% of a CPU (20.01% on 4 CPUs)":
 * what the unit's cgroup reserves for req. malloc'ed, NULL on ENOMEM. */
char *predict_reservation_describe(const ServiceRequest *req, unsigned cpus);

/* Words why a reservation for req's threads could not be made in group
 * (k: its errno; -ERANGE: they need more than the cpus CPUs), with what is
 * left there (DL_BW_UNLIMITED: unknown). malloc'ed, NULL on ENOMEM. */
char *predict_reservation_refusal(const ServiceRequest *req, const char *group, unsigned cpus, int k, uint64_t left);

/* Predicts verdicts for requests admitted in order on an empty system of
 * cpus CPUs under the validated policy p (each request reserves in the
 * unit's cgroup inside its group: a task template of its threads, or per
 * CPU for per_cpu, admission_threads_runtime()). verdicts has n entries; free with predict_verdicts_done(). */
int predict_policy(const Policy *p, unsigned cpus, const ServiceRequest *reqs, size_t n, Verdict *verdicts);
void predict_verdicts_done(Verdict *v, size_t n);
