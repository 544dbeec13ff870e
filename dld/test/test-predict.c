/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "predict.h"
#include "tap.h"

int main(void) {
        static const SystemBudget defaults = SYSTEM_BUDGET_DEFAULTS;
        Policy p = {};
        DiagList d = {};
        Verdict v[6];
        ServiceRequest reqs[6] = {
                { "a.service", "deadline-media.slice", NULL, 2000, 10000, 100000 },    /* 2% */
                { "b.service", "deadline-media.slice", "media", 3000, 10000, 100000 }, /* 3% */
                { "c.service", "deadline-media.slice", NULL, 5000, 10000, 100000 },    /* 5% > max 4% */
                { "d.service", "system.slice", NULL, 1000, 10000, 100000 },            /* no group */
                { "e.service", "deadline-media.slice", NULL, 1000, 10000, 100000 },    /* 1%: only 0% left */
                { "f.service", "deadline-ctl.slice", "media", 1000, 10000, 100000 },   /* wrong slice */
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

        is_int(policy_predict(&p, 2, reqs, 6, v), 0, "prediction runs");
        ok(v[0].admitted && v[0].group == 0, "a: admitted in media");
        ok(v[1].admitted && v[1].group == 0, "b: admitted in media by name");
        ok(!v[2].admitted && v[2].refused_by == REFUSED_BY_POLICY, "c: refused by policy");
        is_str(v[2].reason, "the request (5.00% of a CPU) is larger than group \"media\" allows (max_request_percent 4.00%)", "c: reason");
        ok(!v[3].admitted && v[3].group == -1, "d: no group");
        is_str(v[3].reason, "the unit's slice system.slice belongs to no deadline group of the policy", "d: reason");
        ok(!v[4].admitted && v[4].refused_by == REFUSED_BY_ADMISSION, "e: refused by admission");
        is_str(v[4].reason, "EBUSY: the reservation (1.00% of a CPU on each of 2 CPUs = 2.00%) does not fit in group \"media\": 0.00% left",
               "e: reason names the free bandwidth");
        ok(!v[5].admitted, "f: refused");
        is_str(v[5].reason, "the unit is in deadline-ctl.slice, outside group \"media\" (deadline-media.slice); set Slice=deadline-media.slice",
               "f: reason");

        verdicts_done(v, 6);
        policy_done(&p);
        diag_list_done(&d);
        return tap_done();
}
