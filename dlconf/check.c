/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <json-c/json.h>

#include "admission.h"
#include "check.h"
#include "dropin.h"
#include "format.h"
#include "predict.h"
#include "timespan.h"
#include "unitname.h"
#include "util.h"

#define ANSI_RED    "\033[0;31m"
#define ANSI_GREEN  "\033[0;32m"
#define ANSI_RESET  "\033[0m"

static bool is_policy_file(const char *path) {
        return endswith(path, ".json");
}

/* The unit a file's request belongs to: the directory for ".../UNIT.d/x.conf",
 * else the file name ("x.service"; "x.conf" becomes "x.service"). Caller frees. */
static char *check_unit_for_path(const char *path) {
        const char *base = strrchr(path, '/');
        char *unit;

        if (base && base > path) {
                /* ".../UNIT.d/NAME.conf": the drop-in directory names the unit. */
                const char *dir = base;
                while (dir > path && dir[-1] != '/')
                        dir--;
                if (base - dir > 2 && strncmp(base - 2, ".d", 2) == 0) {
                        unit = strndup(dir, base - 2 - dir);
                        if (unit && unitname_is_valid(unit))
                                return unit;
                        free(unit);
                }
        }
        base = base ? base + 1 : path;
        if (endswith(base, ".conf")) {
                if (asprintf(&unit, "%.*s.service", (int) (strlen(base) - strlen(".conf")), base) < 0)
                        return NULL;
                return unit;
        }
        return strdup(base);
}

/* The value of key in a unit file's [Service] section (the last
 * assignment), or NULL. Caller frees. */
static char *check_unit_file_service_value(const char *text, const char *key) {
        _cleanup_free_ char *copy = strdup(text);
        char *slice = NULL, *save = NULL;
        bool in_service = false;

        if (!copy)
                return NULL;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *l = strstrip(line), *eq;

                if (*l == '[')
                        in_service = strcmp(l, "[Service]") == 0;
                else if (in_service && (eq = strchr(l, '='))) {
                        *eq = 0;
                        if (strcmp(strstrip(l), key) == 0) {
                                free(slice);
                                slice = strdup(strstrip(eq + 1));
                        }
                }
        }
        return slice;
}

typedef struct Request {
        char *unit;
        char *slice;
        bool invalid;
        bool delegate;          /* Delegate= of its files (the last one), for X-DeadlinePromote= */
        DeadlineRequest req;
        ServiceRequest sr;      /* as dld admits req (valid ones) */
} Request;

static Request *request_for_unit(Request **reqs, size_t *n, const char *unit) {
        Request *nr;

        for (size_t i = 0; i < *n; i++)
                if (streq_ptr((*reqs)[i].unit, unit))
                        return &(*reqs)[i];
        nr = realloc(*reqs, (*n + 1) * sizeof(Request));
        if (!nr)
                return NULL;
        *reqs = nr;
        nr[*n] = (Request) { .unit = strdup(unit) };
        if (!nr[*n].unit)
                return NULL;
        return &nr[(*n)++];
}

static void requests_free(Request *reqs, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(reqs[i].unit);
                free(reqs[i].slice);
                dropin_request_done(&reqs[i].req);
        }
        free(reqs);
}

void check_result_done(CheckResult *r) {
        policy_done(&r->policy);
        diag_list_done(&r->diags);
        for (size_t i = 0; i < r->n_verdicts; i++) {
                free(r->verdicts[i].unit);
                free(r->verdicts[i].group);
                free(r->verdicts[i].reason);
        }
        free(r->verdicts);
        *r = (CheckResult) {};
}

/* Predicts with dld's own code (dld/predict.h): the policy's limits, then
 * the unit's reservation inside its group on the admission model. */
static int predict(CheckResult *res, Request *reqs, size_t n_reqs) {
        _cleanup_free_ ServiceRequest *sr = calloc(n_reqs + 1, sizeof(ServiceRequest));
        _cleanup_free_ Verdict *v = calloc(n_reqs + 1, sizeof(Verdict));
        _cleanup_free_ size_t *which = calloc(n_reqs + 1, sizeof(size_t));
        size_t n = 0;
        int r;

        if (!sr || !v || !which)
                return -ENOMEM;
        for (size_t i = 0; i < n_reqs; i++) {
                if (reqs[i].invalid)
                        continue;
                which[n] = i;
                sr[n++] = reqs[i].sr;
        }
        r = predict_policy(&res->policy, res->cpus, sr, n, v);
        if (r < 0)
                return r;
        res->verdicts = calloc(n + 1, sizeof(CheckVerdict));
        if (!res->verdicts) {
                predict_verdicts_done(v, n);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
                CheckVerdict *cv = &res->verdicts[res->n_verdicts++];
                const Request *rq = &reqs[which[i]];

                *cv = (CheckVerdict) {
                        .unit = strdup(rq->unit),
                        .group = v[i].group >= 0 ? strdup(res->policy.groups[v[i].group].name) : NULL,
                        .admitted = v[i].admitted,
                        .refused_by = v[i].refused_by,
                        .reason = TAKE_PTR(v[i].reason),
                        .runtime_usec = rq->req.runtime_usec,
                        .deadline_usec = rq->req.deadline_usec,
                        .period_usec = rq->req.period_usec,
                        .threads = rq->req.threads,
                        .reserved = v[i].reserved,
                };
                if (!cv->admitted)
                        res->n_refused++;
                if (!cv->unit || (v[i].group >= 0 && !cv->group)) {
                        predict_verdicts_done(v, n);
                        return -ENOMEM;
                }
        }
        return 0;
}

int check_files(CheckResult *ret, const CheckFile *files, size_t n_files, unsigned cpus,
                const SystemBudget *current) {
        Request *reqs = NULL;
        size_t n_reqs = 0;
        bool policy_parse_failed = false;
        int r = 0;

        *ret = (CheckResult) { .cpus = cpus ?: 1 };

        for (size_t i = 0; i < n_files; i++) {
                const CheckFile *cf = &files[i];

                if (!cf->text) {
                        r = diag_add(&ret->diags, cf->path, NULL, "cannot read: %s",
                                     fileio_config_error(cf->read_error)) < 0 ? -ENOMEM : -EINVAL;
                        if (is_policy_file(cf->path)) {
                                policy_parse_failed = true;
                                ret->n_policy_files++;
                        }
                } else if (is_policy_file(cf->path)) {
                        r = policy_parse_n(&ret->policy, cf->path, cf->text, cf->size ?: strlen(cf->text), &ret->diags);
                        if (r == -EINVAL)
                                policy_parse_failed = true;
                        ret->n_policy_files++;
                } else {
                        _cleanup_free_ char *unit = check_unit_for_path(cf->path);
                        _cleanup_free_ char *delegate = NULL;
                        Request *rq;
                        char *slice;

                        if (!unit || !(rq = request_for_unit(&reqs, &n_reqs, unit))) {
                                r = -ENOMEM;
                                goto finish;
                        }
                        slice = check_unit_file_service_value(cf->text, "Slice");
                        if (slice) {
                                free(rq->slice);
                                rq->slice = slice;
                        }
                        delegate = check_unit_file_service_value(cf->text, "Delegate");
                        if (delegate)
                                rq->delegate = dropin_delegate_value(delegate);
                        r = dropin_parse(&rq->req, cf->path, cf->text, &ret->diags);
                        if (r == -EINVAL)
                                rq->invalid = true;
                }
                if (r == -ENOMEM)
                        goto finish;
        }

        for (size_t i = 0; i < n_reqs; i++) {
                if (reqs[i].invalid)
                        continue;
                r = dropin_finish(&reqs[i].req, &ret->diags);
                if (r == -ENOMEM)
                        goto finish;
                if (r == -ENOENT) {
                        r = diag_add(&ret->diags, reqs[i].unit, NULL,
                                     "no deadline request (X-DeadlineRuntime= and X-DeadlinePeriod=) in its files");
                        if (r < 0)
                                goto finish;
                }
                if (r == 0) {
                        _cleanup_free_ char *why = NULL;
                        char where[32];

                        /* As dld builds it: it refuses X-DeadlinePromote=cgroup in a delegated unit. */
                        r = predict_service_request(reqs[i].unit, reqs[i].slice, &reqs[i].req, reqs[i].req.promote,
                                                    reqs[i].delegate, &reqs[i].sr, &why);
                        if (r == -ENOMEM)
                                goto finish;
                        if (r < 0) {
                                snprintf(where, sizeof(where), "line %u", reqs[i].req.promote_at.line);
                                r = diag_add(&ret->diags, reqs[i].req.promote_at.file, where, "%s", why) < 0 ? -ENOMEM : -EINVAL;
                                if (r == -ENOMEM)
                                        goto finish;
                        }
                }
                if (r != 0)
                        reqs[i].invalid = true;
        }

        /* The whole-policy checks only make sense for files that parsed. */
        if (ret->n_policy_files > 0 && !policy_parse_failed) {
                r = policy_validate(&ret->policy, current, &ret->diags);
                if (r == -ENOMEM)
                        goto finish;
                ret->policy_valid = r == 0;
                if (ret->policy_valid)
                        r = predict(ret, reqs, n_reqs);
        }
        r = r == -ENOMEM ? r : 0;
finish:
        requests_free(reqs, n_reqs);
        return r;
}

int check_exit_status(const CheckResult *r) {
        if (r->diags.n > 0)
                return EXIT_DLCONF_INVALID;
        if (r->n_refused > 0)
                return EXIT_DLCONF_REFUSED;
        return EXIT_DLCONF_OK;
}

void check_format(FILE *f, const CheckResult *r, bool color) {
        char a[ADMISSION_PERCENT_MAX], b[ADMISSION_PERCENT_MAX], t1[TIMESPAN_MAX], t2[TIMESPAN_MAX], t3[TIMESPAN_MAX], th[16];
        size_t admitted = r->n_verdicts - r->n_refused;
        unsigned w = 0;

        for (size_t i = 0; i < r->diags.n; i++) {
                _cleanup_free_ char *line = diag_format(&r->diags.items[i]);
                fprintf(f, "%s\n", line ?: "(out of memory)");
        }

        if (r->n_policy_files == 0)
                fprintf(f, "No policy given: requests checked for syntax only.\n");
        else if (!r->policy_valid)
                fprintf(f, "Policy invalid: %zu problem%s.\n", r->diags.n, r->diags.n == 1 ? "" : "s");
        else {
                const SystemBudget *s = &r->policy.system;

                fprintf(f, "Policy valid (%zu file%s). ", r->n_policy_files, r->n_policy_files == 1 ? "" : "s");
                if (s->dl_runtime_us < 0)
                        fprintf(f, "System budget: admission control off.\n");
                else
                        fprintf(f, "System budget: %s of each CPU = %s on %u CPU%s.\n",
                                admission_bw_to_percent(a, sizeof(a), admission_to_ratio(s->dl_period_us, s->dl_runtime_us)),
                                admission_bw_to_percent(b, sizeof(b), admission_capacity(r->cpus, s->dl_runtime_us, s->dl_period_us)),
                                r->cpus, r->cpus == 1 ? "" : "s");
                for (size_t i = 0; i < r->policy.n_groups; i++) {
                        const PolicyGroup *g = &r->policy.groups[i];
                        fprintf(f, "  group %s (%s): %s of each CPU = %s, on refusal: %s\n", g->name, g->slice,
                                admission_bw_to_percent(a, sizeof(a), admission_to_ratio(g->period_us, g->runtime_us)),
                                admission_bw_to_percent(b, sizeof(b), admission_capacity(r->cpus, g->runtime_us, g->period_us)),
                                policy_refusal_action_to_string(g->on_refusal));
                }
        }

        for (size_t i = 0; i < r->n_verdicts; i++)
                w = MAX(w, (unsigned) strlen(r->verdicts[i].unit));
        for (size_t i = 0; i < r->n_verdicts; i++) {
                const CheckVerdict *v = &r->verdicts[i];

                fprintf(f, "%s%-8s%s %-*s runtime %s deadline %s period %s", color ? (v->admitted ? ANSI_GREEN : ANSI_RED) : "",
                        v->admitted ? "admitted" : "refused", color ? ANSI_RESET : "", (int) w, v->unit,
                        timespan_format(t1, sizeof(t1), v->runtime_usec),
                        timespan_format(t2, sizeof(t2), v->deadline_usec),
                        timespan_format(t3, sizeof(t3), v->period_usec));
                if (v->threads != 1)
                        fprintf(f, " x %s threads", admission_threads_to_string(th, sizeof(th), v->threads));
                if (v->admitted)
                        fprintf(f, " in %s: reserves %s\n", v->group, admission_bw_to_percent(a, sizeof(a), v->reserved));
                else
                        fprintf(f, ": refused by %s: %s\n", predict_refused_by_to_string(v->refused_by), v->reason);
        }
        if (r->n_verdicts)
                fprintf(f, "%zu admitted, %zu refused.\n", admitted, r->n_refused);
}

char *check_format_json(const CheckResult *r, JsonMode mode) {
        json_object *o = json_object_new_object(), *errors = json_object_new_array(),
                *groups = json_object_new_array(), *verdicts = json_object_new_array();

        json_object_object_add(o, "valid", json_object_new_boolean(r->diags.n == 0));
        for (size_t i = 0; i < r->diags.n; i++) {
                _cleanup_free_ char *line = diag_format(&r->diags.items[i]);
                json_object_array_add(errors, json_object_new_string(line ?: ""));
        }
        json_object_object_add(o, "errors", errors);
        json_object_object_add(o, "cpus", json_object_new_uint64(r->cpus));
        if (r->policy_valid)
                for (size_t i = 0; i < r->policy.n_groups; i++) {
                        const PolicyGroup *g = &r->policy.groups[i];
                        json_object *j = json_object_new_object();

                        json_object_object_add(j, "name", json_object_new_string(g->name));
                        json_object_object_add(j, "slice", json_object_new_string(g->slice));
                        json_object_object_add(j, "runtime_usec", json_object_new_int64(g->runtime_us));
                        json_object_object_add(j, "period_usec", json_object_new_uint64(g->period_us));
                        json_object_object_add(j, "reserved", json_object_new_uint64(admission_capacity(r->cpus, g->runtime_us, g->period_us)));
                        json_object_object_add(j, "on_refusal", json_object_new_string(policy_refusal_action_to_string(g->on_refusal)));
                        json_object_array_add(groups, j);
                }
        json_object_object_add(o, "groups", groups);
        for (size_t i = 0; i < r->n_verdicts; i++) {
                const CheckVerdict *v = &r->verdicts[i];
                json_object *j = json_object_new_object();

                json_object_object_add(j, "unit", json_object_new_string(v->unit));
                json_object_object_add(j, "group", json_object_new_string(v->group ?: ""));
                json_object_object_add(j, "verdict", json_object_new_string(v->admitted ? "admitted" : "refused"));
                json_object_object_add(j, "refused_by", json_object_new_string(v->admitted ? "" : predict_refused_by_to_string(v->refused_by)));
                json_object_object_add(j, "reason", json_object_new_string(v->reason ?: ""));
                json_object_object_add(j, "runtime_usec", json_object_new_uint64(v->runtime_usec));
                json_object_object_add(j, "deadline_usec", json_object_new_uint64(v->deadline_usec));
                json_object_object_add(j, "period_usec", json_object_new_uint64(v->period_usec));
                json_object_object_add(j, "threads", v->threads == DL_THREADS_ALL ? json_object_new_string("all")
                                                                                 : json_object_new_uint64(v->threads));
                json_object_object_add(j, "reserved", json_object_new_uint64(v->reserved));
                json_object_array_add(verdicts, j);
        }
        json_object_object_add(o, "verdicts", verdicts);
        return format_json_finish(o, mode);
}
