/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "plan.h"
#include "util.h"

const char *plan_knob_name(PlanKnob k) {
        static const char * const names[] = {
                [KNOB_DL_RUNTIME] = "sched_dl_runtime_us",
                [KNOB_DL_PERIOD] = "sched_dl_period_us",
                [KNOB_RT_RUNTIME] = "sched_rt_runtime_us",
                [KNOB_RT_PERIOD] = "sched_rt_period_us",
                [KNOB_GROUP_RUNTIME] = "cpu.dl_runtime_us",
                [KNOB_GROUP_PERIOD] = "cpu.dl_period_us",
        };
        return names[k];
}

static int64_t current_value(const DlModel *m, const PlanGroup *groups, const PlanStep *s) {
        switch (s->knob) {
        case KNOB_DL_RUNTIME:    return m->pool.runtime_us;
        case KNOB_DL_PERIOD:     return (int64_t) m->pool.period_us;
        case KNOB_RT_RUNTIME:    return m->rt_runtime_us;
        case KNOB_RT_PERIOD:     return (int64_t) m->rt_period_us;
        case KNOB_GROUP_RUNTIME: return groups[s->group].node.runtime_us;
        case KNOB_GROUP_PERIOD:  return (int64_t) groups[s->group].node.period_us;
        }
        return 0;
}

/* Tries one write on the model: 0 (done) or the kernel's errno. */
static int try_step(DlModel *m, PlanGroup *groups, const PlanStep *s) {
        DlNode *n;

        switch (s->knob) {
        case KNOB_DL_RUNTIME:
                return admission_model_set_system(m, s->value, m->pool.period_us, m->rt_runtime_us, m->rt_period_us);
        case KNOB_DL_PERIOD:
                return admission_model_set_system(m, m->pool.runtime_us, s->value, m->rt_runtime_us, m->rt_period_us);
        case KNOB_RT_RUNTIME:
                return admission_model_set_system(m, m->pool.runtime_us, m->pool.period_us, s->value, m->rt_period_us);
        case KNOB_RT_PERIOD:
                return admission_model_set_system(m, m->pool.runtime_us, m->pool.period_us, m->rt_runtime_us, s->value);
        case KNOB_GROUP_RUNTIME:
                n = &groups[s->group].node;
                return admission_model_set_reservation(m, n, s->value, n->period_us);
        case KNOB_GROUP_PERIOD:
                n = &groups[s->group].node;
                return admission_model_set_reservation(m, n, n->runtime_us, s->value);
        }
        return -EINVAL;
}

int plan_writes(DlModel *m, PlanGroup *groups, size_t n_groups, const SystemBudget *want,
                PlanStep **ret, size_t *ret_n, PlanStep *ret_blocked) {
        _cleanup_free_ PlanStep *pending = NULL, *done = NULL;
        size_t n_pending = 0, n_done = 0;

        pending = calloc(4 + 2 * n_groups, sizeof(PlanStep));
        done = calloc(4 + 2 * n_groups, sizeof(PlanStep));
        if (!pending || !done)
                return -ENOMEM;

        /* Periods first in the list: with runtime -1 or shrinking runtimes
         * they are free to change; the greedy loop sorts out the rest. */
        pending[n_pending++] = (PlanStep) { .knob = KNOB_DL_PERIOD, .value = (int64_t) want->dl_period_us };
        pending[n_pending++] = (PlanStep) { .knob = KNOB_RT_PERIOD, .value = (int64_t) want->rt_period_us };
        pending[n_pending++] = (PlanStep) { .knob = KNOB_RT_RUNTIME, .value = want->rt_runtime_us };
        pending[n_pending++] = (PlanStep) { .knob = KNOB_DL_RUNTIME, .value = want->dl_runtime_us };
        for (size_t i = 0; i < n_groups; i++) {
                pending[n_pending++] = (PlanStep) { .knob = KNOB_GROUP_PERIOD, .group = i, .value = (int64_t) groups[i].want_period_us };
                pending[n_pending++] = (PlanStep) { .knob = KNOB_GROUP_RUNTIME, .group = i, .value = groups[i].want_runtime_us };
        }

        /* Drop writes that change nothing. */
        for (size_t i = 0; i < n_pending;)
                if (current_value(m, groups, &pending[i]) == pending[i].value) {
                        memmove(&pending[i], &pending[i + 1], (n_pending - i - 1) * sizeof(PlanStep));
                        n_pending--;
                } else
                        i++;

        while (n_pending > 0) {
                bool progress = false;

                for (size_t i = 0; i < n_pending;) {
                        PlanStep s = pending[i];

                        s.old_value = current_value(m, groups, &s);
                        if (try_step(m, groups, &s) == 0) {
                                done[n_done++] = s;
                                memmove(&pending[i], &pending[i + 1], (n_pending - i - 1) * sizeof(PlanStep));
                                n_pending--;
                                progress = true;
                        } else
                                i++;
                }
                if (!progress) {
                        int r = try_step(m, groups, &pending[0]);

                        if (ret_blocked) {
                                *ret_blocked = pending[0];
                                ret_blocked->old_value = current_value(m, groups, &pending[0]);
                        }
                        return r < 0 ? r : -EBUSY;
                }
        }
        *ret = TAKE_PTR(done);
        *ret_n = n_done;
        return 0;
}
