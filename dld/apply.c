/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Applying a policy: all or nothing. The writes are ordered on the admission
 * model (plan.c) so that each one is valid when made; if the kernel still
 * refuses one, the writes made so far are undone in reverse order. */
#include <inttypes.h>

#include "apply.h"
#include "dlsched/dld-bus.h"
#include "log.h"
#include "plan.h"
#include "timespan.h"
#include "unitname.h"

typedef struct ApplyGroup {
        char *slice;
        char *cgroup;
} ApplyGroup;

static bool slice_has_dl_files(Manager *m, const char *cgroup) {
        return cgroup && kernelfs_cgroup_read(m->kfs, cgroup, "cpu.dl_runtime_us", &(int64_t) {0}) == 0;
}

int apply_slices_to_prepare(Manager *m, const Policy *np, char ***ret_slices) {
        _cleanup_strv_free_ char **slices = NULL;

        for (size_t i = 0; i < np->n_groups; i++) {
                _cleanup_free_ char *cgroup = unitname_slice_cgroup_path(np->groups[i].slice);

                if (!cgroup)
                        return -ENOMEM;
                if (!slice_has_dl_files(m, cgroup) && strv_extend(&slices, np->groups[i].slice) < 0)
                        return -ENOMEM;
        }
        *ret_slices = TAKE_PTR(slices);
        return 0;
}

/* *cgroup: the slice's cgroup, computed from its name as systemd escapes it. */
static int slice_ready(Manager *m, const char *slice, char **cgroup) {
        char *cg;

        if (slice_has_dl_files(m, *cgroup))
                return 0;
        cg = unitname_slice_cgroup_path(slice);
        if (!cg)
                return -ENOMEM;
        free(*cgroup);
        *cgroup = cg;
        return kernelfs_cgroup_read(m->kfs, cg, "cpu.dl_runtime_us", &(int64_t) {0});
}

static int write_step(Manager *m, const PlanStep *s, const ApplyGroup *groups, int64_t value) {
        if (s->knob == KNOB_GROUP_RUNTIME || s->knob == KNOB_GROUP_PERIOD)
                return kernelfs_cgroup_write(m->kfs, groups[s->group].cgroup, plan_knob_name(s->knob), value);
        return kernelfs_write_sysctl(m->kfs, plan_knob_name(s->knob), value);
}

static const char *step_target(const PlanStep *s, const ApplyGroup *groups) {
        return s->knob == KNOB_GROUP_RUNTIME || s->knob == KNOB_GROUP_PERIOD ? groups[s->group].slice : "/proc/sys/kernel";
}

int apply_policy(Manager *m, Policy *np, sd_bus_error *error) {
        _cleanup_free_ ApplyGroup *ag = NULL;
        _cleanup_free_ PlanGroup *pg = NULL;
        _cleanup_free_ PlanStep *steps = NULL;
        size_t n = 0, n_old, n_steps = 0, done = 0;
        SystemBudget cur;
        PlanStep blocked = {};
        uint64_t total_bw = 0;
        DlModel model;
        int r;

        r = kernelfs_read_budget(m->kfs, &cur);
        if (r < 0)
                return sd_bus_error_setf(error, DLD_ERROR_KERNEL_UNSUPPORTED,
                                         "cannot read the deadline sysctls: %s", strerror(-r));
        if (np->n_groups > 0 && !m->dl_groups)
                return sd_bus_error_set(error, DLD_ERROR_KERNEL_UNSUPPORTED,
                                        "the policy has groups, but the kernel has no per-cgroup deadline bandwidth "
                                        "(cpu.dl_runtime_us, CONFIG_DEADLINE_GROUP_SCHED)");
        (void) kernelfs_read_total_bw(m->kfs, &total_bw);

        /* The groups of the new policy, then those of the old one it drops,
         * and any other slice dld may have reserved (run_dir/slices: a
         * policy dropped while dld was down): their reservations are
         * released (runtime -1). */
        n_old = m->policy.n_groups + strv_length(m->reserved_slices);
        ag = calloc(np->n_groups + n_old + 1, sizeof(ApplyGroup));
        pg = calloc(np->n_groups + n_old + 1, sizeof(PlanGroup));
        if (!ag || !pg)
                return -ENOMEM;
        for (size_t i = 0; i < np->n_groups + n_old; i++) {
                bool is_new = i < np->n_groups;
                const PolicyGroup *g = is_new ? &np->groups[i] :
                        i - np->n_groups < m->policy.n_groups ? &m->policy.groups[i - np->n_groups] : NULL;
                const char *slice = g ? g->slice : m->reserved_slices[i - np->n_groups - m->policy.n_groups];
                bool dup = false;

                for (size_t j = 0; j < n; j++)
                        dup = dup || streq_ptr(ag[j].slice, slice);
                if (dup)
                        continue;
                ag[n].slice = (char *) slice;
                ag[n].cgroup = unitname_slice_cgroup_path(slice);
                if (!ag[n].cgroup) {
                        r = -ENOMEM;
                        goto finish;
                }
                if (is_new) {
                        r = slice_ready(m, g->slice, &ag[n].cgroup);
                        if (r < 0) {
                                (void) sd_bus_error_setf(error, DLD_ERROR_APPLY_FAILED,
                                                         "%s: group \"%s\": slice %s has no cpu.dl_runtime_us: %s",
                                                         g->file, g->name, g->slice, strerror(-r));
                                goto finish;
                        }
                        pg[n].want_runtime_us = g->runtime_us;
                        pg[n].want_period_us = g->period_us;
                } else if (!kernelfs_cgroup_exists(m->kfs, ag[n].cgroup)) {
                        free(ag[n].cgroup);
                        ag[n].cgroup = NULL;
                        continue;       /* gone with its reservation */
                }
                n++;
        }

        /* The model of the kernel as it is now. */
        admission_model_init(&model, kernelfs_cpus(m->kfs), cur.dl_runtime_us, cur.dl_period_us, cur.rt_runtime_us, cur.rt_period_us);
        model.pool.inner = total_bw;
        for (size_t i = 0; i < n; i++) {
                int64_t rt = -1, pe = (int64_t) cur.dl_period_us, inner = 0;

                (void) kernelfs_cgroup_read(m->kfs, ag[i].cgroup, "cpu.dl_runtime_us", &rt);
                (void) kernelfs_cgroup_read(m->kfs, ag[i].cgroup, "cpu.dl_period_us", &pe);
                (void) kernelfs_cgroup_read(m->kfs, ag[i].cgroup, "cpu.dl_total_bw", &inner);
                admission_model_add_observed(&pg[i].node, &model.pool, rt, (uint64_t) pe, (uint64_t) inner);
                if (i >= np->n_groups || pg[i].want_period_us == 0) {
                        pg[i].want_runtime_us = -1;
                        pg[i].want_period_us = (uint64_t) pe;
                }
        }
        /* Parents: the enclosing group with the longest slice. */
        for (size_t i = 0; i < n; i++) {
                ssize_t best = -1;

                for (size_t j = 0; j < n; j++)
                        if (i != j && unitname_slice_contains(ag[j].slice, ag[i].slice) &&
                            (best < 0 || strlen(ag[j].slice) > strlen(ag[best].slice)))
                                best = (ssize_t) j;
                if (best >= 0)
                        pg[i].node.parent = &pg[best].node;
        }

        r = plan_writes(&model, pg, n, &np->system, &steps, &n_steps, &blocked);
        if (r < 0) {
                (void) sd_bus_error_setf(error, DLD_ERROR_APPLY_FAILED,
                                         "the kernel would refuse %s=%" PRId64 " (%s): %s; what is allocated now does not fit the policy",
                                         plan_knob_name(blocked.knob), blocked.value, step_target(&blocked, ag), strerror(-r));
                goto finish;
        }

        for (done = 0; done < n_steps; done++) {
                r = write_step(m, &steps[done], ag, steps[done].value);
                if (r < 0)
                        break;
        }
        if (done < n_steps) {
                PlanStep *s = &steps[done];
                int undo_errors = 0;

                while (done-- > 0)
                        if (write_step(m, &steps[done], ag, steps[done].old_value) < 0)
                                undo_errors++;
                (void) sd_bus_error_setf(error, DLD_ERROR_APPLY_FAILED,
                                         "the kernel refused %s=%" PRId64 " (%s): %s; %s",
                                         plan_knob_name(s->knob), s->value, step_target(s, ag), strerror(-r),
                                         undo_errors ? "some earlier writes could not be undone" : "earlier writes undone");
                goto finish;
        }
        log_info("policy applied with %zu kernel write(s)", n_steps);
        r = 0;
finish:
        /* ag[n]: the one a failure may have left allocated. */
        for (size_t i = 0; i <= n; i++)
                free(ag[i].cgroup);
        return r;
}
