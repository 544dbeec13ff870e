/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "log.h"
#include "reservation.h"
#include "unitname.h"

/* Free bandwidth where the unit's reservation goes: the group's slice. */
uint64_t reservation_group_free_bw(Manager *m, const char *group) {
        int gi = group ? policy_group_by_name(&m->policy, group) : -1;
        _cleanup_free_ char *cg = NULL;
        int64_t rt, pe, total;
        uint64_t cap;

        if (gi < 0)
                return DL_BW_UNLIMITED;
        cg = unitname_slice_cgroup_path(m->policy.groups[gi].slice);
        if (!cg || kernelfs_cgroup_read(m->kfs, cg, "cpu.dl_runtime_us", &rt) < 0 ||
            kernelfs_cgroup_read(m->kfs, cg, "cpu.dl_period_us", &pe) < 0 ||
            kernelfs_cgroup_read(m->kfs, cg, "cpu.dl_total_bw", &total) < 0 || pe <= 0)
                return DL_BW_UNLIMITED;
        cap = admission_capacity(kernelfs_cpus(m->kfs), rt, (uint64_t) pe);
        if (cap == DL_BW_UNLIMITED)
                return cap;
        return cap > (uint64_t) total ? cap - (uint64_t) total : 0;
}

void reservation_release(Manager *m, Service *s) {
        int r;

        if (!s->cgroup)
                return;
        if (s->by_template)
                /* Its tasks go back to SCHED_OTHER, the reservation to the group. */
                r = kernelfs_template_write(m->kfs, s->cgroup, &(DlTemplate) {});
        else
                r = kernelfs_cgroup_write(m->kfs, s->cgroup, "cpu.dl_runtime_us", -1);
        if (r < 0 && r != -ENOENT)
                log_warning("%s: cannot release the reservation of %s: %s", s->unit, s->cgroup, strerror(-r));
}

static bool template_equal(const DlTemplate *a, const DlTemplate *b) {
        return a->nr == b->nr && a->runtime_usec == b->runtime_usec && a->deadline_usec == b->deadline_usec &&
               a->period_usec == b->period_usec;
}

/* The template for s->req. A different template in place (a new request
 * by hand) goes first, so that every task takes the new parameters: its
 * tasks are normal until the new one admits them again. If the new one
 * does not fit, the old one is put back. */
static int reservation_set_template(Manager *m, Service *s, bool *ret_lost) {
        unsigned cpus = kernelfs_cpus(m->kfs);
        DlTemplate t = {
                .nr = admission_threads_count(s->req.threads, cpus),
                .runtime_usec = s->req.runtime_usec,
                .deadline_usec = s->req.deadline_usec ?: s->req.period_usec,
                .period_usec = s->req.period_usec,
        }, old;
        int r;

        r = kernelfs_template_read(m->kfs, s->cgroup, &old);
        if (r < 0)
                return r;
        if (!template_equal(&old, &t)) {        /* else in place already: dld restarted */
                if (old.nr > 0) {
                        r = kernelfs_template_write(m->kfs, s->cgroup, &(DlTemplate) {});
                        if (r < 0)
                                return r;
                }
                r = kernelfs_template_write(m->kfs, s->cgroup, &t);
                if (r < 0) {
                        int q = old.nr > 0 ? kernelfs_template_write(m->kfs, s->cgroup, &old) : 0;

                        if (q < 0) {
                                log_warning("%s: cannot put the previous task template back in %s: %s", s->unit,
                                            s->cgroup, strerror(-q));
                                *ret_lost = true;
                        }
                        return r;
                }
        }
        s->by_template = true;
        s->reserved_runtime_us = 0;
        s->reserved_bw = admission_template_bw(t.runtime_usec, t.period_usec, t.nr, cpus);
        return 0;
}

/* Writes the unit cgroup's reservation for req's threads: its task
 * template (a container's too), or (a unit that schedules its own threads) the per-CPU
 * runtime that holds exactly that many (admission_threads_runtime()), with the
 * request's period. Runtime and period are separate writes, each checked
 * by the kernel: try both orders, restore on failure. -ERANGE: the threads
 * need more than the CPUs. */
int reservation_set(Manager *m, Service *s, bool *ret_lost) {
        int64_t old_rt, old_pe, rt, pe = (int64_t) s->req.period_usec;
        uint64_t runtime;
        int r, q;

        *ret_lost = false;
        if (s->promote == PROMOTE_CGROUP)
                return reservation_set_template(m, s, ret_lost);

        r = admission_threads_runtime(s->req.runtime_usec, s->req.period_usec, s->req.threads, kernelfs_cpus(m->kfs), &runtime);
        if (r < 0)
                return r;
        rt = (int64_t) runtime;
        r = kernelfs_cgroup_read(m->kfs, s->cgroup, "cpu.dl_runtime_us", &old_rt);
        if (r < 0)
                return r;
        r = kernelfs_cgroup_read(m->kfs, s->cgroup, "cpu.dl_period_us", &old_pe);
        if (r < 0)
                return r;

        if (old_rt != rt || old_pe != pe)       /* else already in place: dld restarted */
                for (int order = 0; order < 2; order++) {
                        const char *first = order == 0 ? "cpu.dl_period_us" : "cpu.dl_runtime_us";
                        const char *second = order == 0 ? "cpu.dl_runtime_us" : "cpu.dl_period_us";
                        int64_t v1 = order == 0 ? pe : rt, v2 = order == 0 ? rt : pe;
                        int64_t old1 = order == 0 ? old_pe : old_rt;

                        r = kernelfs_cgroup_write(m->kfs, s->cgroup, first, v1);
                        if (r < 0)
                                continue;
                        r = kernelfs_cgroup_write(m->kfs, s->cgroup, second, v2);
                        if (r == 0)
                                break;
                        q = kernelfs_cgroup_write(m->kfs, s->cgroup, first, old1);
                        if (q < 0) {
                                log_warning("%s: cannot put %s of %s back to %" PRId64 ": %s", s->unit, first,
                                            s->cgroup, old1, strerror(-q));
                                *ret_lost = true;
                                break;
                        }
                        if (r != -EINVAL)
                                break;  /* EBUSY in one order is EBUSY in both */
                }
        if (r < 0)
                return r;
        s->by_template = false;
        s->reserved_runtime_us = runtime;
        s->reserved_bw = admission_capacity(kernelfs_cpus(m->kfs), rt, s->req.period_usec);
        return 0;
}

/* s->promote is resolved already (service_new()): resolving it again
 * gives the same, the promotion reservation_set() reserves for. */
int reservation_request(const Service *s, const DeadlineRequest *req, ServiceRequest *ret, char **ret_reason) {
        return predict_service_request(s->unit, s->slice, req, s->promote, s->delegated, ret, ret_reason);
}

/* Why the kernel (or the CPU count) refused the reservation for req. */
char *reservation_refusal_reason(Manager *m, const Service *s, const DeadlineRequest *req, int err, uint64_t free_bw) {
        _cleanup_free_ char *what = NULL;
        char left[ADMISSION_PERCENT_MAX];
        ServiceRequest sr;
        char *reason;

        if (reservation_request(s, req, &sr, &reason) < 0)
                return reason;
        if (err == -ERANGE)
                return predict_reservation_refusal(&sr, s->group ?: "-", kernelfs_cpus(m->kfs), err, free_bw);
        what = predict_reservation_describe(&sr, kernelfs_cpus(m->kfs));
        if (!what || asprintf(&reason, "the kernel refused %s in %s (%s): %s left in the group", what, s->cgroup,
                              strerror(-err), free_bw == DL_BW_UNLIMITED ? "unknown" :
                              admission_bw_to_percent(left, sizeof(left), free_bw)) < 0)
                return NULL;
        return reason;
}
