/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "admission.h"

uint64_t admission_to_ratio(uint64_t period, uint64_t runtime) {
        if (period == 0)
                return 0;
        return (uint64_t) (((unsigned __int128) runtime << DL_BW_SHIFT) / period);
}

unsigned admission_threads_count(unsigned threads, unsigned cpus) {
        return threads == DL_THREADS_ALL ? cpus : threads;
}

uint64_t admission_template_bw(uint64_t runtime_us, uint64_t period_us, unsigned threads, unsigned cpus) {
        return (uint64_t) admission_threads_count(threads, cpus) * admission_to_ratio(period_us, runtime_us);
}

int admission_threads_runtime(uint64_t runtime_us, uint64_t period_us, unsigned threads, unsigned cpus,
                       uint64_t *ret_runtime_us) {
        uint64_t need, per_cpu, rt;

        if (threads == 0 || cpus == 0 || period_us == 0)
                return -EINVAL;
        if (threads == DL_THREADS_ALL)
                rt = runtime_us;
        else {
                /* cpus * floor((rt << 20) / period) >= threads * bw, for the smallest rt. */
                need = (uint64_t) threads * admission_to_ratio(period_us, runtime_us);
                per_cpu = (need + cpus - 1) / cpus;
                rt = (uint64_t) (((unsigned __int128) per_cpu * period_us + DL_BW_UNIT - 1) >> DL_BW_SHIFT);
                /* Runtime 0 would forbid deadline tasks (EPERM): a bandwidth that rounds to 0 needs 1. */
                if (rt == 0)
                        rt = 1;
        }
        if (rt > period_us)
                return -ERANGE;
        *ret_runtime_us = rt;
        return 0;
}

uint64_t admission_capacity(unsigned cpus, int64_t runtime_us, uint64_t period_us) {
        if (runtime_us < 0)
                return DL_BW_UNLIMITED;
        return (uint64_t) cpus * admission_to_ratio(period_us, (uint64_t) runtime_us);
}

const char *admission_task_params_problem(uint64_t runtime_us, uint64_t deadline_us, uint64_t period_us) {
        if (runtime_us == 0 || deadline_us == 0 || period_us == 0)
                return "runtime, deadline and period must be greater than zero";
        if (runtime_us * 1000 < DL_TASK_RUNTIME_MIN_NS)
                return "runtime is below the kernel's minimum of 1024ns";
        if (runtime_us > deadline_us)
                return "runtime is longer than the deadline";
        if (deadline_us > period_us)
                return "deadline is longer than the period";
        if (period_us < DL_TASK_PERIOD_MIN_US)
                return "period is shorter than the kernel's minimum of 100us";
        if (period_us > DL_TASK_PERIOD_MAX_US)
                return "period is longer than the kernel's maximum of 4194304us";
        return NULL;
}

static const char *budget_problem(int64_t runtime, uint64_t period) {
        if (period == 0 || period > INT32_MAX)
                return "period out of range (1 to 2147483647us)";
        if (runtime < -1 || runtime > INT32_MAX)
                return "runtime out of range (-1 to 2147483647us)";
        if (runtime >= 0 && (uint64_t) runtime > period)
                return "runtime is longer than the period";
        return NULL;
}

const char *admission_system_problem(int64_t dl_runtime_us, uint64_t dl_period_us,
                              int64_t rt_runtime_us, uint64_t rt_period_us) {
        const char *p;

        if ((p = budget_problem(dl_runtime_us, dl_period_us)))
                return p;
        if ((p = budget_problem(rt_runtime_us, rt_period_us)))
                return p;
        /* sched_dl_rt_coupling_validate(): exact, in microseconds. */
        if (dl_runtime_us >= 0 && rt_runtime_us >= 0 &&
            (unsigned __int128) rt_runtime_us * dl_period_us + (unsigned __int128) dl_runtime_us * rt_period_us >
            (unsigned __int128) rt_period_us * dl_period_us)
                return "deadline and RT bandwidth together exceed 100% of a CPU";
        return NULL;
}

void admission_model_init(DlModel *m, unsigned cpus,
                   int64_t dl_runtime_us, uint64_t dl_period_us,
                   int64_t rt_runtime_us, uint64_t rt_period_us) {
        *m = (DlModel) {
                .cpus = cpus,
                .pool = { .runtime_us = dl_runtime_us, .period_us = dl_period_us },
                .rt_runtime_us = rt_runtime_us,
                .rt_period_us = rt_period_us,
        };
}

static bool is_holder(const DlModel *m, const DlNode *n) {
        return n == &m->pool || n->runtime_us >= 0 || n->template_bw > 0;
}

uint64_t admission_node_capacity(const DlModel *m, const DlNode *n) {
        if (n->template_bw > 0)
                return n->template_bw;  /* absolute: not per CPU */
        return admission_capacity(m->cpus, n->runtime_us, n->period_us);
}

uint64_t admission_node_charge(const DlModel *m, const DlNode *n) {
        return is_holder(m, n) ? admission_node_capacity(m, n) : n->inner;
}

/* The node whose reservation pays for n's tasks: n or its nearest reserved ancestor, or the pool. */
static DlNode *admission_node_holder(DlModel *m, DlNode *n) {
        while (n && !is_holder(m, n))
                n = n->parent;
        return n ?: &m->pool;
}

uint64_t admission_node_free(DlModel *m, DlNode *n) {
        DlNode *h = admission_node_holder(m, n);
        uint64_t cap = admission_node_capacity(m, h);

        if (cap == DL_BW_UNLIMITED)
                return DL_BW_UNLIMITED;
        return cap > h->inner ? cap - h->inner : 0;
}

/* Adds delta to n's inner and, through nodes without a reservation, to
 * every ancestor up to the first holder. */
static void add_inner(DlModel *m, DlNode *n, int64_t delta) {
        for (; n; n = n->parent) {
                if (delta < 0 && n->inner < (uint64_t) -delta)
                        n->inner = 0;
                else
                        n->inner += delta;
                if (is_holder(m, n))
                        break;
        }
}

static bool fits(DlModel *m, DlNode *holder, uint64_t more) {
        uint64_t cap = admission_node_capacity(m, holder);

        return cap == DL_BW_UNLIMITED || (holder->inner <= cap && more <= cap - holder->inner);
}

void admission_model_add_node(DlModel *m, DlNode *n, DlNode *parent) {
        *n = (DlNode) {
                .parent = parent ?: &m->pool,
                .runtime_us = -1,
                .period_us = m->pool.period_us,
        };
}

void admission_model_add_observed(DlNode *n, DlNode *parent, int64_t runtime_us, uint64_t period_us, uint64_t inner) {
        *n = (DlNode) {
                .parent = parent,
                .runtime_us = runtime_us,
                .period_us = period_us,
                .inner = inner,
        };
}

int admission_model_set_reservation(DlModel *m, DlNode *n, int64_t runtime_us, uint64_t period_us) {
        uint64_t old_charge, new_charge;

        if (period_us == 0 || runtime_us < -1)
                return -EINVAL;
        if (runtime_us >= 0 && (uint64_t) runtime_us > period_us)
                return -EINVAL;
        if (runtime_us >= 0 && n->template_bw > 0)
                return -EBUSY;  /* a reservation or a template, not both */

        old_charge = admission_node_charge(m, n);
        if (runtime_us >= 0) {
                new_charge = admission_capacity(m->cpus, runtime_us, period_us);
                if (new_charge < n->inner)
                        return -EBUSY;  /* smaller than what it already holds */
        } else
                new_charge = n->inner;

        if (new_charge > old_charge &&
            !fits(m, admission_node_holder(m, n->parent), new_charge - old_charge))
                return -EBUSY;

        n->runtime_us = runtime_us;
        n->period_us = period_us;
        add_inner(m, n->parent, (int64_t) new_charge - (int64_t) old_charge);
        return 0;
}

int admission_model_set_template(DlModel *m, DlNode *n, unsigned nr, uint64_t runtime_us, uint64_t period_us) {
        uint64_t old_charge, new_charge, total = 0;

        if (nr > 0) {
                if (nr > DL_THREADS_MAX || admission_task_params_problem(runtime_us, runtime_us, period_us))
                        return -EINVAL;
                if (n->runtime_us >= 0)
                        return -EBUSY;
                total = (uint64_t) nr * admission_to_ratio(period_us, runtime_us);
                if (total < n->inner)
                        return -EBUSY;
        }
        old_charge = admission_node_charge(m, n);
        new_charge = nr > 0 ? total : n->inner;
        if (new_charge > old_charge &&
            !fits(m, admission_node_holder(m, n->parent), new_charge - old_charge))
                return -EBUSY;

        n->template_bw = total;
        add_inner(m, n->parent, (int64_t) new_charge - (int64_t) old_charge);
        return 0;
}

int admission_model_set_system(DlModel *m, int64_t dl_runtime_us, uint64_t dl_period_us,
                        int64_t rt_runtime_us, uint64_t rt_period_us) {
        if (admission_system_problem(dl_runtime_us, dl_period_us, rt_runtime_us, rt_period_us))
                return -EINVAL;
        if (admission_capacity(m->cpus, dl_runtime_us, dl_period_us) < m->pool.inner)
                return -EBUSY;

        m->pool.runtime_us = dl_runtime_us;
        m->pool.period_us = dl_period_us;
        m->rt_runtime_us = rt_runtime_us;
        m->rt_period_us = rt_period_us;
        return 0;
}

char *admission_bw_to_percent(char *buf, size_t size, uint64_t bw) {
        snprintf(buf, size, "%.2f%%", (double) bw * 100.0 / (double) DL_BW_UNIT);
        return buf;
}

const char *admission_threads_to_string(char *buf, size_t size, unsigned threads) {
        if (threads == DL_THREADS_ALL)
                snprintf(buf, size, "all");
        else
                snprintf(buf, size, "%u", threads);
        return buf;
}
