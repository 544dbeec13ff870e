/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "predict.h"
#include "tap.h"
#include "util.h"

/* A finished request from a drop-in's text (NULL if it is not one). */
static bool request_from_dropin(DeadlineRequest *r, const char *text) {
        DiagList d = {};
        bool valid;

        *r = (DeadlineRequest) {};
        valid = dropin_parse(r, "dl.conf", text, &d) == 0 && dropin_finish(r, &d) == 0;
        diag_list_done(&d);
        return valid;
}

/* predict_service_request(): the request as dld admits it, from the
 * drop-in's keys and the unit's Slice= and Delegate=. */
static void test_service_request(void) {
        static const struct {
                DeadlinePromote promote;
                bool delegated, per_cpu;
        } promotions[] = {
                { PROMOTE_AUTO, false, false },         /* dld switches the cgroup's threads: a template */
                { PROMOTE_AUTO, true, true },           /* a delegated unit schedules its own: per CPU */
                { PROMOTE_CGROUP, false, false },
                { PROMOTE_NONE, false, true },
                { PROMOTE_NONE, true, true },
        };
        DeadlineRequest req, bad;
        ServiceRequest sr;
        char *reason = NULL;

        ok(request_from_dropin(&req, "[Service]\nX-DeadlineRuntime=2ms\nX-DeadlineDeadline=5ms\nX-DeadlinePeriod=10ms\n"
                                     "X-DeadlineGroup=media\nX-DeadlineThreads=3\n"), "request: a drop-in with every key");
        is_int(predict_service_request("a.service", "deadline-media.slice", &req, req.promote, false, &sr, &reason), 0,
               "request: built");
        ok(sr.unit && strcmp(sr.unit, "a.service") == 0, "request: unit");
        ok(sr.slice && strcmp(sr.slice, "deadline-media.slice") == 0, "request: slice, the unit's Slice=");
        ok(sr.group == req.group && sr.group && strcmp(sr.group, "media") == 0, "request: group, X-DeadlineGroup= (the request's)");
        is_int(sr.runtime_usec, 2000, "request: runtime");
        is_int(sr.deadline_usec, 5000, "request: deadline");
        is_int(sr.period_usec, 10000, "request: period");
        is_int(sr.threads, 3, "request: threads");
        ok(!sr.per_cpu, "request: no X-DeadlinePromote=, no Delegate=: a template, not per CPU");
        is_str(reason, NULL, "request: no reason");

        for (size_t i = 0; i < ELEMENTSOF(promotions); i++) {
                sr = (ServiceRequest) { .per_cpu = !promotions[i].per_cpu };
                is_int(predict_service_request("a.service", "a.slice", &req, promotions[i].promote, promotions[i].delegated,
                                               &sr, &reason), 0, "promote=%s%s: built",
                       dropin_promote_to_string(promotions[i].promote), promotions[i].delegated ? " with Delegate=yes" : "");
                is_int(sr.per_cpu, promotions[i].per_cpu, "promote=%s%s: %s",
                       dropin_promote_to_string(promotions[i].promote), promotions[i].delegated ? " with Delegate=yes" : "",
                       promotions[i].per_cpu ? "per CPU" : "a template");
        }
        dropin_request_done(&req);

        ok(request_from_dropin(&req, "[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlinePromote=none\n"),
           "X-DeadlinePromote=none: a drop-in");
        is_int(predict_service_request("b.service", NULL, &req, req.promote, false, &sr, &reason), 0,
               "X-DeadlinePromote=none: built, without a slice");
        ok(sr.per_cpu, "X-DeadlinePromote=none: per CPU");
        ok(!sr.slice && !sr.group, "X-DeadlinePromote=none: no slice, no group");
        is_int(sr.deadline_usec, 10000, "defaults: the deadline is the period");
        is_int(sr.threads, 1, "defaults: 1 thread");
        dropin_request_done(&req);

        ok(request_from_dropin(&req, "[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlineThreads=all\n"),
           "X-DeadlineThreads=all: a drop-in");
        is_int(predict_service_request("c.service", "c.slice", &req, req.promote, false, &sr, &reason), 0,
               "X-DeadlineThreads=all: built");
        ok(sr.threads == DL_THREADS_ALL && !sr.per_cpu, "X-DeadlineThreads=all: all, in a template");

        /* What cannot be admitted: nothing built, a reason. */
        is_int(predict_service_request("c.service", "c.slice", &req, PROMOTE_CGROUP, true, &sr, &reason), -EINVAL,
               "X-DeadlinePromote=cgroup with Delegate=yes: -EINVAL");
        ok(reason && strstr(reason, "X-DeadlinePromote=cgroup with Delegate=yes") == reason,
           "X-DeadlinePromote=cgroup with Delegate=yes: says so (%s)", reason);
        free(reason);

        bad = req;
        bad.threads = 0;
        is_int(predict_service_request("c.service", "c.slice", &bad, PROMOTE_AUTO, false, &sr, &reason), -EINVAL,
               "0 threads: -EINVAL");
        is_str(reason, "not a finished request: runtime 1000us, deadline 10000us, period 10000us, 0 threads",
               "0 threads: not a finished request");
        free(reason);
        bad.threads = DL_THREADS_MAX + 1;
        is_int(predict_service_request("c.service", "c.slice", &bad, PROMOTE_AUTO, false, &sr, &reason), -EINVAL,
               "more than DL_THREADS_MAX threads: -EINVAL");
        free(reason);
        bad = req;
        bad.deadline_usec = 0;
        is_int(predict_service_request("c.service", "c.slice", &bad, PROMOTE_AUTO, false, &sr, &reason), -EINVAL,
               "no deadline (not finished): -EINVAL");
        free(reason);
        bad = (DeadlineRequest) { .threads = 1 };
        is_int(predict_service_request("c.service", "c.slice", &bad, PROMOTE_AUTO, false, &sr, &reason), -EINVAL,
               "no runtime nor period: -EINVAL");
        free(reason);
        dropin_request_done(&req);
}

/* The same drop-in, in a unit that schedules its own threads or not:
 * the prediction follows what is reserved. */
static void test_service_request_predicted(void) {
        static const SystemBudget defaults = SYSTEM_BUDGET_DEFAULTS;
        Policy p = {};
        DiagList d = {};
        DeadlineRequest req;
        ServiceRequest sr[2];
        Verdict v[2];
        char *reason = NULL;
        int r;

        /* 5.0001% of each of 2 CPUs: 2 x 52429 = 104858. */
        r = policy_parse(&p, "p.json", "{\"system\":{\"sched_dl_runtime_us\":400000,\"sched_rt_runtime_us\":500000},"
                         "\"groups\":[{\"name\":\"own\",\"slice\":\"own.slice\",\"runtime_us\":50001,\"period_us\":1000000}]}", &d);
        if (r == 0)
                r = policy_validate(&p, &defaults, &d);
        is_int(r, 0, "own: policy valid");
        ok(request_from_dropin(&req, "[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlinePromote=auto\n"),
           "own: 10%% of a CPU, promotion auto");
        is_int(predict_service_request("a.service", "own.slice", &req, req.promote, false, &sr[0], &reason), 0,
               "own: not delegated, built");
        is_int(predict_service_request("a.service", "own.slice", &req, req.promote, true, &sr[1], &reason), 0,
               "own: delegated, built");
        is_int(predict_policy(&p, 2, &sr[0], 1, &v[0]), 0, "own: predicted, not delegated");
        is_int(predict_policy(&p, 2, &sr[1], 1, &v[1]), 0, "own: predicted, delegated");
        ok(v[0].admitted && v[0].reserved == 104857, "own: not delegated: a template of 10%% fits (%" PRIu64 ")", v[0].reserved);
        ok(!v[1].admitted && v[1].refused_by == REFUSED_BY_ADMISSION, "own: delegated: 501us of each CPU's 10ms does not");
        is_str(v[1].reason, "EBUSY: the reservation for 1 thread of 10.00% of a CPU (10.02% on 2 CPUs) does not fit in "
               "group \"own\": 10.00% left", "own: delegated: the reason names the per-CPU reservation");
        predict_verdicts_done(v, 2);
        dropin_request_done(&req);
        policy_done(&p);
        diag_list_done(&d);
}

/* predict_check_services(): the group's max_services, for dld and the predictions. */
static void test_check_services(void) {
        PolicyGroup g = { .name = (char *) "media", .max_services = 2 };
        char *reason = (char *) "x";

        is_int(predict_check_services(&g, 1, &reason), 0, "max_services 2, 1 admitted: one more");
        is_str(reason, NULL, "  no reason");
        is_int(predict_check_services(&g, 2, &reason), -EPERM, "max_services 2, 2 admitted: -EPERM");
        is_str(reason, "group \"media\" already holds its maximum of 2 services (max_services)", "  the reason");
        free(reason);
        g.max_services = 0;
        is_int(predict_check_services(&g, 1000, &reason), 0, "no max_services: no limit");
}

int main(void) {
        static const SystemBudget defaults = SYSTEM_BUDGET_DEFAULTS;
        Policy p = {};
        DiagList d = {};
        Verdict v[8];
        /* media: 5% of each of 2 CPUs, 2 x 52428 = 104856. */
        ServiceRequest reqs[8] = {
                { "a.service", "deadline-media.slice", NULL, 2000, 10000, 100000, DL_THREADS_ALL, false },  /* 2 x 2% */
                { "b.service", "deadline-media.slice", "media", 3000, 10000, 100000, 1, false }, /* 3%, exactly */
                { "c.service", "deadline-media.slice", NULL, 5000, 10000, 100000, 1, false },    /* 5% > max 4% */
                { "d.service", "system.slice", NULL, 1000, 10000, 100000, 1, false },            /* no group */
                { "e.service", "deadline-media.slice", NULL, 1000, 10000, 100000, 4, false },    /* 4%: 3% left */
                { "f.service", "deadline-ctl.slice", "media", 1000, 10000, 100000, 1, false },   /* wrong slice */
                { "g.service", "deadline-ctl.slice", NULL, 8000, 10000, 10000, 3, false },       /* 3 x 80% in 2 x 10% */
                { "h.service", "deadline-ctl.slice", NULL, 1000, 10000, 100000, 1, true },       /* per CPU, rounded up */
        };
        int r;

        tap_begin();
        r = policy_parse(&p, "p.json",
                         "{\"system\":{\"sched_dl_runtime_us\":400000,\"sched_rt_runtime_us\":500000},"
                         "\"groups\":[{\"name\":\"media\",\"slice\":\"deadline-media.slice\",\"runtime_us\":5000,"
                         "\"period_us\":100000,\"max_request_percent\":4,\"max_services\":3},"
                         "{\"name\":\"ctl\",\"slice\":\"deadline-ctl.slice\",\"runtime_us\":1000,\"period_us\":10000}]}", &d);
        if (r == 0)
                r = policy_validate(&p, &defaults, &d);
        is_int(r, 0, "policy valid");

        is_int(predict_policy(&p, 2, reqs, 8, v), 0, "prediction runs");
        ok(v[0].admitted && v[0].group == 0, "a: admitted in media");
        is_int(v[0].reserved, 2 * 20971, "a: reserves its request on each CPU (X-DeadlineThreads=all)");
        ok(v[1].admitted && v[1].group == 0, "b: admitted in media by name");
        is_int(v[1].reserved, 31457, "b: reserves exactly one thread (a task template)");
        ok(!v[2].admitted && v[2].refused_by == REFUSED_BY_POLICY, "c: refused by policy");
        is_str(v[2].reason, "the request (5.00% of a CPU) is larger than group \"media\" allows (max_request_percent 4.00%)", "c: reason");
        ok(!v[3].admitted && v[3].group == -1, "d: no group");
        is_str(v[3].reason, "the unit's slice system.slice belongs to no deadline group of the policy", "d: reason");
        ok(!v[4].admitted && v[4].refused_by == REFUSED_BY_ADMISSION, "e: refused by admission");
        is_str(v[4].reason, "EBUSY: the template for 4 threads of 1.00% of a CPU (4.00% in all) does not fit in group \"media\": 3.00% left",
               "e: reason names the threads and the free bandwidth");
        ok(!v[5].admitted, "f: refused");
        is_str(v[5].reason, "the unit is in deadline-ctl.slice, outside group \"media\" (deadline-media.slice); set Slice=deadline-media.slice",
               "f: reason");

        ok(!v[6].admitted && v[6].refused_by == REFUSED_BY_ADMISSION, "g: refused by admission");
        is_str(v[6].reason, "EBUSY: the template for 3 threads of 80.00% of a CPU (240.00% in all) does not fit in group \"ctl\": 20.00% left",
               "g: reason");

        /* 1% of a CPU per CPU on 2: 501us of each (500us would hold 2 x 5242 < 10485). */
        ok(v[7].admitted, "h: a unit that schedules its own threads: admitted");
        is_int(v[7].reserved, 2 * 5253, "h: reserves per CPU, rounded up to hold its thread");

        predict_verdicts_done(v, 8);
        policy_done(&p);
        diag_list_done(&d);

        test_service_request();
        test_service_request_predicted();
        test_check_services();
        return tap_done();
}
