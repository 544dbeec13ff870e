/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>

#include "dropin.h"
#include "predict.h"
#include "timespan.h"
#include "unitname.h"

const char *predict_refused_by_to_string(RefusedBy b) {
        return b == REFUSED_BY_POLICY ? "policy" : b == REFUSED_BY_ADMISSION ? "admission" : "none";
}

static int refuse(char **ret_reason, const char *fmt, ...) _printf_(2, 3);
static int refuse(char **ret_reason, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(ret_reason, fmt, ap);
        va_end(ap);
        return r < 0 ? -ENOMEM : -EPERM;
}

int predict_service_request(const char *unit, const char *slice, const DeadlineRequest *req,
                            DeadlinePromote promote, bool delegated, ServiceRequest *ret, char **ret_reason) {
        char why[DEADLINE_WHY_MAX], th[16];
        DeadlinePromote resolved;
        int r;

        *ret_reason = NULL;
        if (req->runtime_usec == 0 || req->deadline_usec == 0 || req->period_usec == 0 || req->threads == 0 ||
            (req->threads > DL_THREADS_MAX && req->threads != DL_THREADS_ALL)) {
                r = refuse(ret_reason, "not a finished request: runtime %" PRIu64 "us, deadline %" PRIu64 "us, "
                           "period %" PRIu64 "us, %s threads", req->runtime_usec, req->deadline_usec,
                           req->period_usec, admission_threads_to_string(th, sizeof(th), req->threads));
                return r == -EPERM ? -EINVAL : r;
        }
        if (dropin_promote_resolve(promote, delegated, &resolved, why, sizeof(why)) < 0) {
                r = refuse(ret_reason, "%s", why);
                return r == -EPERM ? -EINVAL : r;
        }

        *ret = (ServiceRequest) {
                .unit = unit, .slice = slice, .group = req->group,
                .runtime_usec = req->runtime_usec, .deadline_usec = req->deadline_usec,
                .period_usec = req->period_usec, .threads = req->threads,
                .per_cpu = resolved != PROMOTE_CGROUP,
        };
        return 0;
}

int predict_check_request(const Policy *p, const ServiceRequest *req, int *ret_group, char **ret_reason) {
        const PolicyGroup *g;
        uint64_t bw;
        int gi;

        *ret_reason = NULL;
        *ret_group = -1;
        if (req->group) {
                gi = policy_group_by_name(p, req->group);
                if (gi < 0)
                        return refuse(ret_reason, "the policy has no group \"%s\" (X-DeadlineGroup=)", req->group);
                if (!req->slice || !unitname_slice_contains(p->groups[gi].slice, req->slice)) {
                        *ret_group = gi;
                        return refuse(ret_reason, "the unit is in %s, outside group \"%s\" (%s); set Slice=%s",
                                      req->slice ?: "no slice", req->group, p->groups[gi].slice, p->groups[gi].slice);
                }
        } else {
                gi = req->slice ? policy_group_for_slice(p, req->slice) : -1;
                if (gi < 0)
                        return refuse(ret_reason, "the unit's slice %s belongs to no deadline group of the policy",
                                      req->slice ?: "(none)");
        }
        *ret_group = gi;
        g = &p->groups[gi];

        bw = admission_to_ratio(req->period_usec, req->runtime_usec);
        if (g->max_request_bw > 0 && bw > g->max_request_bw) {
                char a[ADMISSION_PERCENT_MAX], b[ADMISSION_PERCENT_MAX];

                return refuse(ret_reason, "the request (%s of a CPU) is larger than group \"%s\" allows (max_request_percent %s)",
                              admission_bw_to_percent(a, sizeof(a), bw), g->name, admission_bw_to_percent(b, sizeof(b), g->max_request_bw));
        }
        return 0;
}

int predict_check_services(const PolicyGroup *g, unsigned admitted, char **ret_reason) {
        *ret_reason = NULL;
        if (g->max_services > 0 && admitted >= g->max_services)
                return refuse(ret_reason, "group \"%s\" already holds its maximum of %u services (max_services)",
                              g->name, g->max_services);
        return 0;
}

char *predict_reservation_describe(const ServiceRequest *req, unsigned cpus) {
        char one[ADMISSION_PERCENT_MAX], all[ADMISSION_PERCENT_MAX];
        unsigned n = admission_threads_count(req->threads, cpus);
        uint64_t rt;
        char *s;

        if (req->per_cpu) {
                if (admission_threads_runtime(req->runtime_usec, req->period_usec, req->threads, cpus, &rt) < 0)
                        rt = 0;
                return asprintf(&s, "the reservation for %u thread%s of %s of a CPU (%s on %u CPUs)", n, n == 1 ? "" : "s",
                                admission_bw_to_percent(one, sizeof(one), admission_to_ratio(req->period_usec, req->runtime_usec)),
                                admission_bw_to_percent(all, sizeof(all), admission_capacity(cpus, (int64_t) rt, req->period_usec)),
                                cpus) < 0 ? NULL : s;
        }
        if (n == 1)
                return asprintf(&s, "the template for 1 thread of %s of a CPU",
                                admission_bw_to_percent(one, sizeof(one), admission_to_ratio(req->period_usec, req->runtime_usec))) < 0 ? NULL : s;
        return asprintf(&s, "the template for %u threads of %s of a CPU (%s in all)", n,
                        admission_bw_to_percent(one, sizeof(one), admission_to_ratio(req->period_usec, req->runtime_usec)),
                        admission_bw_to_percent(all, sizeof(all),
                                                admission_template_bw(req->runtime_usec, req->period_usec, req->threads, cpus))) < 0 ? NULL : s;
}

char *predict_reservation_refusal(const ServiceRequest *req, const char *group, unsigned cpus, int k, uint64_t left) {
        _cleanup_free_ char *what = NULL;
        char one[ADMISSION_PERCENT_MAX], free_pct[ADMISSION_PERCENT_MAX], th[16];
        char *s;

        if (k == -ERANGE)
                return asprintf(&s, "ERANGE: %u threads of %s of a CPU (X-DeadlineThreads=%s) need more than the %u CPUs",
                                admission_threads_count(req->threads, cpus),
                                admission_bw_to_percent(one, sizeof(one), admission_to_ratio(req->period_usec, req->runtime_usec)),
                                admission_threads_to_string(th, sizeof(th), req->threads), cpus) < 0 ? NULL : s;
        what = predict_reservation_describe(req, cpus);
        if (!what)
                return NULL;
        return asprintf(&s, "%s: %s does not fit in group \"%s\": %s left",
                        k == -EPERM ? "EPERM" : k == -EINVAL ? "EINVAL" : "EBUSY", what, group,
                        left == DL_BW_UNLIMITED ? "unlimited" : admission_bw_to_percent(free_pct, sizeof(free_pct), left)) < 0 ? NULL : s;
}

void predict_verdicts_done(Verdict *v, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(v[i].reason);
                v[i].reason = NULL;
        }
}

int predict_policy(const Policy *p, unsigned cpus, const ServiceRequest *reqs, size_t n, Verdict *verdicts) {
        _cleanup_free_ DlNode *groups = NULL, *units = NULL;
        _cleanup_free_ unsigned *count = NULL;
        DlModel m;
        unsigned max_depth;

        groups = calloc(p->n_groups + 1, sizeof(DlNode));
        units = calloc(n + 1, sizeof(DlNode));
        count = calloc(p->n_groups + 1, sizeof(unsigned));
        if (!groups || !units || !count)
                return -ENOMEM;

        /* The groups as the policy sets them (validated: they fit), parents first. */
        admission_model_init(&m, cpus, p->system.dl_runtime_us, p->system.dl_period_us,
                      p->system.rt_runtime_us, p->system.rt_period_us);
        max_depth = policy_max_depth(p);
        for (unsigned depth = 0; depth <= max_depth; depth++)
                for (size_t i = 0; i < p->n_groups; i++) {
                        if (policy_group_depth(p, i) != depth)
                                continue;
                        admission_model_add_node(&m, &groups[i], p->groups[i].parent >= 0 ? &groups[p->groups[i].parent] : NULL);
                        (void) admission_model_set_reservation(&m, &groups[i], p->groups[i].runtime_us, p->groups[i].period_us);
                }

        for (size_t i = 0; i < n; i++) {
                const ServiceRequest *r = &reqs[i];
                Verdict *v = &verdicts[i];
                int k, gi;

                *v = (Verdict) { .group = -1 };
                k = predict_check_request(p, r, &gi, &v->reason);
                v->group = gi;
                if (k == 0)
                        k = predict_check_services(&p->groups[gi], count[gi], &v->reason);
                if (k == -ENOMEM)
                        goto oom;
                if (k < 0) {
                        v->refused_by = REFUSED_BY_POLICY;
                        continue;
                }

                admission_model_add_node(&m, &units[i], &groups[gi]);
                if (r->per_cpu) {
                        uint64_t rt;

                        k = admission_threads_runtime(r->runtime_usec, r->period_usec, r->threads, cpus, &rt);
                        if (k == 0)
                                k = admission_model_set_reservation(&m, &units[i], (int64_t) rt, r->period_usec);
                } else
                        k = admission_model_set_template(&m, &units[i], admission_threads_count(r->threads, cpus),
                                                         r->runtime_usec, r->period_usec);
                if (k < 0) {
                        /* The unit's node stays, holding nothing (-1). */
                        v->refused_by = REFUSED_BY_ADMISSION;
                        v->reason = predict_reservation_refusal(r, p->groups[gi].name, cpus, k, admission_node_free(&m, &groups[gi]));
                        if (!v->reason)
                                goto oom;
                        continue;
                }
                v->reserved = admission_node_charge(&m, &units[i]);
                v->admitted = true;
                count[gi]++;
        }
        return 0;
oom:
        predict_verdicts_done(verdicts, n);
        return -ENOMEM;
}
