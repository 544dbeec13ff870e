/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "predict.h"
#include "tap.h"

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
        return tap_done();
}
