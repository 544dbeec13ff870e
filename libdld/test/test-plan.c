/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plan.h"
#include "tap.h"

static void test_shrink_before_grow(void) {
        DlModel m;
        PlanGroup g[2];
        PlanStep *steps = NULL, blocked;
        size_t n = 0;
        SystemBudget want = { 300000, 1000000, 700000, 1000000 };

        /* Pool 30%: A 20%, B 10%; target A 5%, B 25% (B must wait for A). */
        admission_model_init(&m, 2, 300000, 1000000, 700000, 1000000);
        m.pool.inner = 2 * 209715 + 2 * 104857;
        admission_model_add_observed(&g[0].node, &m.pool, 200000, 1000000, 0);
        admission_model_add_observed(&g[1].node, &m.pool, 100000, 1000000, 0);
        g[0].want_runtime_us = 50000, g[0].want_period_us = 1000000;
        g[1].want_runtime_us = 250000, g[1].want_period_us = 1000000;

        is_int(plan_writes(&m, g, 2, &want, &steps, &n, &blocked), 0, "plan found");
        is_int(n, 2, "two writes");
        ok(n == 2 && steps[0].knob == KNOB_GROUP_RUNTIME && steps[0].group == 0 && steps[0].value == 50000 &&
           steps[0].old_value == 200000, "A shrinks first");
        ok(n == 2 && steps[1].group == 1 && steps[1].value == 250000, "then B grows");
        free(steps);
}

static void test_pool_and_coupling(void) {
        DlModel m;
        PlanGroup g[1];
        PlanStep *steps = NULL, blocked;
        size_t n = 0;
        SystemBudget want = { 400000, 1000000, 500000, 1000000 };

        /* From the defaults (5% + 95%) to 40% dl with a 40% group: rt
         * lowers first, then the pool grows, then the group. */
        admission_model_init(&m, 4, 50000, 1000000, 950000, 1000000);
        admission_model_add_node(&m, &g[0].node, NULL);
        g[0].want_runtime_us = 40000, g[0].want_period_us = 100000;

        is_int(plan_writes(&m, g, 1, &want, &steps, &n, &blocked), 0, "plan found");
        is_int(n, 4, "four writes (rt runtime, dl runtime, group period, group runtime)");
        ok(n == 4 && steps[0].knob == KNOB_RT_RUNTIME, "RT runtime lowers first");
        ok(n == 4 && steps[1].knob == KNOB_DL_RUNTIME, "then the deadline runtime");
        ok(n == 4 && steps[2].knob == KNOB_GROUP_PERIOD && steps[3].knob == KNOB_GROUP_RUNTIME,
           "then the group's period and runtime");
        is_int(m.pool.inner, 4 * admission_to_ratio(100000, 40000), "model holds the group's reservation");
        free(steps);
}

static void test_impossible(void) {
        DlModel m;
        PlanGroup g[1];
        PlanStep *steps = NULL, blocked;
        size_t n = 0;
        SystemBudget want = { 50000, 1000000, 950000, 1000000 };

        /* Tasks in an unreserved group hold 8% of the pool: the group
         * cannot reserve 5%. */
        want.dl_runtime_us = 100000, want.rt_runtime_us = 900000;
        admission_model_init(&m, 1, 100000, 1000000, 900000, 1000000);
        m.pool.inner = 83886;
        admission_model_add_observed(&g[0].node, &m.pool, -1, 1000000, 83886);
        g[0].want_runtime_us = 50000, g[0].want_period_us = 1000000;
        is_int(plan_writes(&m, g, 1, &want, &steps, &n, &blocked), -EBUSY, "group below its tasks: EBUSY");
        ok(blocked.knob == KNOB_GROUP_RUNTIME && blocked.value == 50000, "the blocked write is named");
        free(steps);
}

int main(void) {
        tap_begin();
        test_shrink_before_grow();
        test_pool_and_coupling();
        test_impossible();
        return tap_done();
}
