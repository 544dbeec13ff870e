/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>

#include "jsoncheck.h"
#include "policy.h"
#include "unitname.h"

#define INT_KNOB_MAX INT32_MAX

const char *policy_refusal_action_to_string(RefusalAction a) {
        return a == REFUSAL_FAIL ? "fail" : "degrade";
}

static void group_done(PolicyGroup *g) {
        free(g->name);
        free(g->slice);
        free(g->file);
        free(g->path);
}

void policy_done(Policy *p) {
        for (size_t i = 0; i < p->n_groups; i++)
                group_done(&p->groups[i]);
        free(p->groups);
        free(p->system_file);
        strv_free(p->files);
        strv_free(p->texts);
        *p = (Policy) {};
}

/* Parser state for one file. */
typedef struct Ctx {
        const char *file;
        DiagList *d;
        int error;              /* -EINVAL once a problem was found, -ENOMEM wins */
} Ctx;

static void problem(Ctx *c, const char *path, const char *fmt, ...) _printf_(3, 4);
static void problem(Ctx *c, const char *path, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = diag_addv(c->d, c->file, path, fmt, ap);
        va_end(ap);
        if (r < 0)
                c->error = -ENOMEM;
        else if (c->error == 0)
                c->error = -EINVAL;
}

static const char *json_type_word(json_object *o) {
        switch (json_object_get_type(o)) {
        case json_type_null:    return "null";
        case json_type_boolean: return "a boolean";
        case json_type_double:  return "a fractional number";
        case json_type_int:     return "an integer";
        case json_type_object:  return "an object";
        case json_type_array:   return "an array";
        case json_type_string:  return "a string";
        }
        return "unknown";
}

/* Integer in [min, max]; false (with a problem) otherwise. */
static bool get_int(Ctx *c, json_object *o, const char *path, int64_t min, int64_t max, int64_t *ret) {
        int64_t v;

        if (!json_object_is_type(o, json_type_int)) {
                problem(c, path, "must be an integer, not %s", json_type_word(o));
                return false;
        }
        errno = 0;
        v = json_object_get_int64(o);
        if (errno == ERANGE || v == INT64_MAX || v == INT64_MIN) {
                /* json-c saturates: its text would not be the operator's. */
                problem(c, path, "number too large (range %lld to %lld)", (long long) min, (long long) max);
                return false;
        }
        if (v < min || v > max) {
                problem(c, path, "%s is out of range (%lld to %lld)",
                        json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
                        (long long) min, (long long) max);
                return false;
        }
        *ret = v;
        return true;
}

static bool get_string(Ctx *c, json_object *o, const char *path, const char **ret) {
        if (!json_object_is_type(o, json_type_string)) {
                problem(c, path, "must be a string, not %s", json_type_word(o));
                return false;
        }
        *ret = json_object_get_string(o);
        return true;
}

static bool is_known(const char *key, const char * const *known) {
        for (; *known; known++)
                if (strcmp(key, *known) == 0)
                        return true;
        return false;
}

static void unknown_key(Ctx *c, const char *path, const char *key, const char * const *known) {
        char list[512] = "";

        for (; *known; known++) {
                strncat(list, list[0] ? ", " : "", sizeof(list) - strlen(list) - 1);
                strncat(list, *known, sizeof(list) - strlen(list) - 1);
        }
        problem(c, path, "unknown key \"%s\" (known: %s)", key, list);
}

static char *path_join(const char *base, const char *key) {
        char *s;

        return asprintf(&s, "%s.%s", base, key) < 0 ? NULL : s;
}

static int set_system_file(Policy *p, const char *file) {
        char *f = strdup(file);

        if (!f)
                return -ENOMEM;
        free(p->system_file);
        p->system_file = f;
        return 0;
}

static void parse_system(Ctx *c, Policy *p, json_object *sys) {
        static const char * const known[] = {
                "sched_dl_runtime_us", "sched_dl_period_us", "sched_rt_runtime_us", "sched_rt_period_us",
                "description", NULL,
        };
        bool any = false;

        if (!json_object_is_type(sys, json_type_object)) {
                problem(c, "$.system", "must be an object, not %s", json_type_word(sys));
                return;
        }
        json_object_object_foreach(sys, key, val) {
                _cleanup_free_ char *path = path_join("$.system", key);
                int64_t v;

                if (!path) {
                        c->error = -ENOMEM;
                        return;
                }
                if (!is_known(key, known)) {
                        unknown_key(c, path, key, known);
                        continue;
                }
                if (strcmp(key, "description") == 0) {
                        const char *s;
                        get_string(c, val, path, &s);
                        continue;
                }
                if (strcmp(key, "sched_dl_runtime_us") == 0) {
                        if (get_int(c, val, path, -1, INT_KNOB_MAX, &v))
                                p->system.dl_runtime_us = v, p->dl_runtime_set = any = true;
                } else if (strcmp(key, "sched_rt_runtime_us") == 0) {
                        if (get_int(c, val, path, -1, INT_KNOB_MAX, &v))
                                p->system.rt_runtime_us = v, p->rt_runtime_set = any = true;
                } else if (strcmp(key, "sched_dl_period_us") == 0) {
                        if (get_int(c, val, path, 1, INT_KNOB_MAX, &v))
                                p->system.dl_period_us = v, p->dl_period_set = any = true;
                } else {
                        if (get_int(c, val, path, 1, INT_KNOB_MAX, &v))
                                p->system.rt_period_us = v, p->rt_period_set = any = true;
                }
        }
        if (any && set_system_file(p, c->file) < 0)
                c->error = -ENOMEM;
}

static void parse_group(Ctx *c, Policy *p, json_object *g, const char *gpath) {
        static const char * const known[] = {
                "name", "slice", "runtime_us", "period_us", "max_request_percent",
                "max_services", "on_refusal", "containers", "description", NULL,
        };
        static const char * const required[] = { "name", "slice", "runtime_us", "period_us" };
        PolicyGroup grp = { .parent = -1 }, *n;
        bool valid = true;
        int64_t v;

        if (!json_object_is_type(g, json_type_object)) {
                problem(c, gpath, "must be an object, not %s", json_type_word(g));
                return;
        }
        for (size_t i = 0; i < ELEMENTSOF(required); i++)
                if (!json_object_object_get_ex(g, required[i], NULL)) {
                        problem(c, gpath, "missing required key \"%s\"", required[i]);
                        valid = false;
                }

        json_object_object_foreach(g, key, val) {
                _cleanup_free_ char *path = path_join(gpath, key);
                const char *s;

                if (!path) {
                        c->error = -ENOMEM;
                        goto fail;
                }
                if (!is_known(key, known)) {
                        unknown_key(c, path, key, known);
                        valid = false;
                } else if (strcmp(key, "name") == 0) {
                        if (!get_string(c, val, path, &s))
                                valid = false;
                        else if (!unitname_group_is_valid(s)) {
                                problem(c, path, "\"%s\" is not a group name (1 to 64 letters, digits, '_' or '-')", s);
                                valid = false;
                        } else if (!(grp.name = strdup(s)))
                                c->error = -ENOMEM;
                } else if (strcmp(key, "slice") == 0) {
                        if (!get_string(c, val, path, &s))
                                valid = false;
                        else if (!unitname_slice_is_valid(s)) {
                                problem(c, path, "\"%s\" is not a slice name (such as \"deadline-media.slice\"; not the root slice)", s);
                                valid = false;
                        } else if (!(grp.slice = strdup(s)))
                                c->error = -ENOMEM;
                } else if (strcmp(key, "runtime_us") == 0) {
                        if (get_int(c, val, path, 0, INT_KNOB_MAX, &v))
                                grp.runtime_us = v;
                        else
                                valid = false;
                } else if (strcmp(key, "period_us") == 0) {
                        if (get_int(c, val, path, 1, INT_KNOB_MAX, &v))
                                grp.period_us = v;
                        else
                                valid = false;
                } else if (strcmp(key, "max_services") == 0) {
                        if (get_int(c, val, path, 1, 65535, &v))
                                grp.max_services = v;
                        else
                                valid = false;
                } else if (strcmp(key, "max_request_percent") == 0) {
                        double pct;

                        if (!json_object_is_type(val, json_type_int) && !json_object_is_type(val, json_type_double)) {
                                problem(c, path, "must be a number, not %s", json_type_word(val));
                                valid = false;
                                continue;
                        }
                        pct = json_object_get_double(val);
                        if (!(pct > 0 && pct <= 100)) {
                                problem(c, path, "%s is out of range (more than 0, at most 100)",
                                        json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN));
                                valid = false;
                        } else if (!(grp.max_request_bw = (uint64_t) floor(pct / 100.0 * (double) DL_BW_UNIT))) {
                                /* 0 means "no limit": a tiny limit must not become none. */
                                problem(c, path, "%s%% is less than the smallest bandwidth the kernel counts (1/%llu of a CPU, %.7f%%)",
                                        json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN),
                                        (unsigned long long) DL_BW_UNIT, 100.0 / (double) DL_BW_UNIT);
                                valid = false;
                        }
                } else if (strcmp(key, "on_refusal") == 0) {
                        if (!get_string(c, val, path, &s))
                                valid = false;
                        else if (strcmp(s, "degrade") == 0)
                                grp.on_refusal = REFUSAL_DEGRADE;
                        else if (strcmp(s, "fail") == 0)
                                grp.on_refusal = REFUSAL_FAIL;
                        else {
                                problem(c, path, "\"%s\" is not an action (\"degrade\" or \"fail\")", s);
                                valid = false;
                        }
                } else if (strcmp(key, "containers") == 0) {
                        if (!json_object_is_type(val, json_type_boolean)) {
                                problem(c, path, "must be true or false, not %s", json_type_word(val));
                                valid = false;
                        } else
                                grp.containers = json_object_get_boolean(val);
                } else if (!get_string(c, val, path, &s))       /* description */
                        valid = false;
        }
        if (!valid || c->error == -ENOMEM)
                goto fail;

        if ((uint64_t) grp.runtime_us > grp.period_us) {
                problem(c, gpath, "runtime_us (%lld) is larger than period_us (%llu)",
                        (long long) grp.runtime_us, (unsigned long long) grp.period_us);
                goto fail;
        }
        if (grp.max_request_bw > admission_to_ratio(grp.period_us, grp.runtime_us)) {
                char a[ADMISSION_PERCENT_MAX], b[ADMISSION_PERCENT_MAX];

                problem(c, gpath, "max_request_percent (%s) is larger than the group's own reservation (%s of each CPU)",
                        admission_bw_to_percent(a, sizeof(a), grp.max_request_bw),
                        admission_bw_to_percent(b, sizeof(b), admission_to_ratio(grp.period_us, grp.runtime_us)));
                goto fail;
        }

        grp.file = strdup(c->file);
        grp.path = strdup(gpath);
        n = realloc(p->groups, (p->n_groups + 1) * sizeof(PolicyGroup));
        if (!grp.file || !grp.path || !n) {
                if (n)
                        p->groups = n;
                c->error = -ENOMEM;
                goto fail;
        }
        p->groups = n;
        p->groups[p->n_groups++] = grp;
        return;
fail:
        group_done(&grp);
}

int policy_parse(Policy *p, const char *file, const char *text, DiagList *d) {
        return policy_parse_n(p, file, text, strlen(text), d);
}

int policy_parse_n(Policy *p, const char *file, const char *text, size_t size, DiagList *d) {
        static const char * const known[] = { "system", "groups", "description", "$schema", NULL };
        Ctx c = { .file = file, .d = d };
        _cleanup_free_ char *where = NULL, *reason = NULL;
        json_object *root;
        int r;

        /* What json-c lets through (duplicate keys above all) is refused too. */
        r = jsoncheck_parse_strict(text, size, &root, &where, &reason);
        if (r == -EINVAL)
                return diag_add(d, file, where, "invalid JSON: %s", reason) < 0 ? -ENOMEM : -EINVAL;
        if (r < 0)
                return r;

        if (!json_object_is_type(root, json_type_object))
                problem(&c, "$", "the policy must be a JSON object, not %s", json_type_word(root));
        else {
                json_object_object_foreach(root, key, val) {
                        _cleanup_free_ char *path = path_join("$", key);

                        if (!path) {
                                c.error = -ENOMEM;
                                break;
                        }
                        if (!is_known(key, known))
                                unknown_key(&c, path, key, known);
                        else if (strcmp(key, "system") == 0)
                                parse_system(&c, p, val);
                        else if (strcmp(key, "groups") == 0) {
                                if (!json_object_is_type(val, json_type_array)) {
                                        problem(&c, path, "must be an array, not %s", json_type_word(val));
                                        continue;
                                }
                                for (size_t i = 0; i < json_object_array_length(val); i++) {
                                        char gpath[64];

                                        snprintf(gpath, sizeof(gpath), "$.groups[%zu]", i);
                                        parse_group(&c, p, json_object_array_get_idx(val, i), gpath);
                                }
                        } else {
                                const char *s;
                                get_string(&c, val, path, &s);
                        }
                }
        }
        json_object_put(root);
        if (c.error != -ENOMEM && (strv_extend(&p->files, file) < 0 || strv_extend(&p->texts, text) < 0))
                c.error = -ENOMEM;
        return c.error;
}

int policy_group_by_name(const Policy *p, const char *name) {
        for (size_t i = 0; i < p->n_groups; i++)
                if (streq_ptr(p->groups[i].name, name))
                        return (int) i;
        return -1;
}

int policy_group_for_slice(const Policy *p, const char *slice) {
        int best = -1;

        for (size_t i = 0; i < p->n_groups; i++)
                if (unitname_slice_contains(p->groups[i].slice, slice) &&
                    (best < 0 || strlen(p->groups[i].slice) > strlen(p->groups[best].slice)))
                        best = (int) i;
        return best;
}

unsigned policy_group_depth(const Policy *p, size_t i) {
        unsigned depth = 0;

        for (int j = p->groups[i].parent; j >= 0; j = p->groups[j].parent)
                depth++;
        return depth;
}

unsigned policy_max_depth(const Policy *p) {
        unsigned max = 0;

        for (size_t i = 0; i < p->n_groups; i++) {
                unsigned d = policy_group_depth(p, i);
                if (d > max)
                        max = d;
        }
        return max;
}

static int group_problem(DiagList *d, const PolicyGroup *g, const char *fmt, ...) _printf_(3, 4);
static int group_problem(DiagList *d, const PolicyGroup *g, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = diag_addv(d, g->file, g->path, fmt, ap);
        va_end(ap);
        return r < 0 ? -ENOMEM : -EINVAL;
}

/* Group indices sorted by name or by slice, ties by index: duplicates and
 * enclosing slices are found by binary search instead of comparing every
 * pair of groups (n^2: 5000 groups took 0.7 s to validate, make bench). */
typedef struct GroupOrder {
        const PolicyGroup *groups;
        bool by_slice;
} GroupOrder;

static const char *group_key(const GroupOrder *o, size_t i) {
        return o->by_slice ? o->groups[i].slice : o->groups[i].name;
}

static int group_order_cmp(const void *a, const void *b, void *userdata) {
        const GroupOrder *o = userdata;
        size_t x = *(const size_t *) a, y = *(const size_t *) b;
        int c = strcmp(group_key(o, x), group_key(o, y));

        return c ?: (x > y) - (x < y);
}

static size_t *group_order(const Policy *p, bool by_slice) {
        GroupOrder o = { .groups = p->groups, .by_slice = by_slice };
        size_t *v = calloc(p->n_groups ?: 1, sizeof(size_t));

        if (!v)
                return NULL;
        for (size_t i = 0; i < p->n_groups; i++)
                v[i] = i;
        qsort_r(v, p->n_groups, sizeof(size_t), group_order_cmp, &o);
        return v;
}

/* The first position in @order whose key is @key: the lowest index with
 * that key; p->n_groups if none has it. */
static size_t group_order_find(const Policy *p, const size_t *order, bool by_slice, const char *key) {
        GroupOrder o = { .groups = p->groups, .by_slice = by_slice };
        size_t lo = 0, hi = p->n_groups;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (strcmp(group_key(&o, order[mid]), key) < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo < p->n_groups && strcmp(group_key(&o, order[lo]), key) == 0 ? lo : p->n_groups;
}

/* The group whose slice holds @slice most closely (its longest enclosing
 * slice other than itself: "a-b.slice" and "a.slice" hold "a-b-c.slice"),
 * the lowest index among equals; -1 if none. */
static int group_enclosing(const Policy *p, const size_t *by_slice, const char *slice) {
        size_t l = strlen(slice);
        _cleanup_free_ char *buf = NULL;

        if (l <= 6 || strcmp(slice + l - 6, ".slice") != 0)
                return -1;
        buf = malloc(l + 1);
        if (!buf)
                return -ENOMEM;
        for (size_t la = l - 6; la-- > 1;) {
                size_t pos;

                if (slice[la] != '-')
                        continue;
                memcpy(buf, slice, la);
                strcpy(buf + la, ".slice");
                pos = group_order_find(p, by_slice, true, buf);
                if (pos < p->n_groups)
                        return (int) by_slice[pos];
        }
        return -1;
}

/* Group indices in the order their reservations are made: parents first
 * (by depth), then by index. */
typedef struct DepthOrder {
        const unsigned *depth;
} DepthOrder;

/* How many groups hold group i, from the memo (UINT_MAX: not known yet).
 * Recursion as deep as the slice has dashes. */
static unsigned group_depth_memo(const Policy *p, unsigned *depth, size_t i) {
        if (depth[i] == UINT_MAX)
                depth[i] = p->groups[i].parent < 0 ? 0 : group_depth_memo(p, depth, (size_t) p->groups[i].parent) + 1;
        return depth[i];
}

static int depth_order_cmp(const void *a, const void *b, void *userdata) {
        const DepthOrder *o = userdata;
        size_t x = *(const size_t *) a, y = *(const size_t *) b;

        if (o->depth[x] != o->depth[y])
                return o->depth[x] < o->depth[y] ? -1 : 1;
        return (x > y) - (x < y);
}

int policy_validate(Policy *p, const SystemBudget *current, DiagList *d) {
        _cleanup_free_ DlNode *nodes = NULL;
        _cleanup_free_ size_t *by_name = NULL, *by_slice = NULL, *order = NULL;
        _cleanup_free_ unsigned *depth = NULL;
        SystemBudget eff = *current;
        const char *sysproblem;
        DlModel m;
        int ret = 0, k;

        if (p->dl_runtime_set)
                eff.dl_runtime_us = p->system.dl_runtime_us;
        if (p->dl_period_set)
                eff.dl_period_us = p->system.dl_period_us;
        if (p->rt_runtime_set)
                eff.rt_runtime_us = p->system.rt_runtime_us;
        if (p->rt_period_set)
                eff.rt_period_us = p->system.rt_period_us;
        p->system = eff;

        sysproblem = admission_system_problem(eff.dl_runtime_us, eff.dl_period_us, eff.rt_runtime_us, eff.rt_period_us);
        if (sysproblem) {
                char a[ADMISSION_PERCENT_MAX], b[ADMISSION_PERCENT_MAX];

                k = diag_add(d, p->system_file, "$.system",
                             "%s (deadline %lld/%llu = %s, RT %lld/%llu = %s; keys not set here keep their current value)",
                             sysproblem,
                             (long long) eff.dl_runtime_us, (unsigned long long) eff.dl_period_us,
                             admission_bw_to_percent(a, sizeof(a), eff.dl_runtime_us < 0 ? 0 : admission_to_ratio(eff.dl_period_us, eff.dl_runtime_us)),
                             (long long) eff.rt_runtime_us, (unsigned long long) eff.rt_period_us,
                             admission_bw_to_percent(b, sizeof(b), eff.rt_runtime_us < 0 ? 0 : admission_to_ratio(eff.rt_period_us, eff.rt_runtime_us)));
                if (k < 0)
                        return -ENOMEM;
                ret = -EINVAL;
        }

        /* Duplicates and nesting, each group against the earlier ones with
         * its name or slice (as if every pair were compared, in the same
         * order), and its parent from its slice's prefixes. */
        by_name = group_order(p, false);
        by_slice = group_order(p, true);
        if (!by_name || !by_slice)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_groups; i++) {
                PolicyGroup *g = &p->groups[i];
                size_t a = group_order_find(p, by_name, false, g->name);
                size_t b = group_order_find(p, by_slice, true, g->slice);

                /* Both runs list the earlier groups first, by index: merge them. */
                for (;;) {
                        size_t ja = a < p->n_groups && by_name[a] < i ? by_name[a] : SIZE_MAX;
                        size_t jb = b < p->n_groups && by_slice[b] < i ? by_slice[b] : SIZE_MAX;
                        size_t j = MIN(ja, jb);
                        PolicyGroup *o;

                        if (j == SIZE_MAX)
                                break;
                        if (ja == j)
                                a++;
                        if (jb == j)
                                b++;
                        o = &p->groups[j];
                        if (strcmp(g->name, o->name) == 0)
                                k = group_problem(d, g, "duplicate group name \"%s\" (first defined in %s at %s)",
                                                  g->name, o->file, o->path);
                        else
                                k = group_problem(d, g, "slice \"%s\" already belongs to group \"%s\" (%s at %s)",
                                                  g->slice, o->name, o->file, o->path);
                        if (k == -ENOMEM)
                                return k;
                        ret = k;
                }
                k = group_enclosing(p, by_slice, g->slice);
                if (k == -ENOMEM)
                        return k;
                g->parent = k;
        }
        if (ret < 0)
                return ret;

        /* Fit: apply the reservations to a one-CPU model of the kernel, parents
         * first; every CPU count scales all sides alike. */
        nodes = calloc(p->n_groups ?: 1, sizeof(DlNode));
        if (!nodes)
                return -ENOMEM;
        admission_model_init(&m, 1, eff.dl_runtime_us, eff.dl_period_us, eff.rt_runtime_us, eff.rt_period_us);
        /* Parents first: each group's depth from its parent's (a parent's
         * slice is shorter, so there are no cycles). */
        depth = calloc(p->n_groups ?: 1, sizeof(unsigned));
        order = calloc(p->n_groups ?: 1, sizeof(size_t));
        if (!depth || !order)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_groups; i++)
                depth[i] = UINT_MAX;
        for (size_t i = 0; i < p->n_groups; i++) {
                (void) group_depth_memo(p, depth, i);
                order[i] = i;
        }
        qsort_r(order, p->n_groups, sizeof(size_t), depth_order_cmp, &(DepthOrder) { .depth = depth });
        for (size_t oi = 0; oi < p->n_groups; oi++) {
                size_t i = order[oi];
                PolicyGroup *g = &p->groups[i];
                DlNode *parent = g->parent >= 0 ? &nodes[g->parent] : NULL;
                char a[ADMISSION_PERCENT_MAX], b[ADMISSION_PERCENT_MAX];

                admission_model_add_node(&m, &nodes[i], parent);
                if (admission_model_set_reservation(&m, &nodes[i], g->runtime_us, g->period_us) == 0)
                        continue;

                admission_bw_to_percent(a, sizeof(a), admission_to_ratio(g->period_us, g->runtime_us));
                if (parent && admission_node_capacity(&m, parent) < admission_to_ratio(g->period_us, g->runtime_us))
                        k = group_problem(d, g, "group \"%s\" reserves %s of each CPU, more than its enclosing group \"%s\" (%s)",
                                          g->name, a, p->groups[g->parent].name,
                                          admission_bw_to_percent(b, sizeof(b), admission_node_capacity(&m, parent)));
                else if (!parent && admission_node_capacity(&m, &m.pool) < admission_to_ratio(g->period_us, g->runtime_us))
                        k = group_problem(d, g, "group \"%s\" reserves %s of each CPU, more than the system deadline budget (%s, sched_dl_runtime_us/sched_dl_period_us)",
                                          g->name, a, admission_bw_to_percent(b, sizeof(b), admission_node_capacity(&m, &m.pool)));
                else
                        k = group_problem(d, g, "group \"%s\" (%s of each CPU) does not fit together with the groups before it: %s left in %s",
                                          g->name, a, admission_bw_to_percent(b, sizeof(b), admission_node_free(&m, parent ?: &m.pool)),
                                          parent ? p->groups[g->parent].name : "the system budget");
                if (k == -ENOMEM)
                        return k;
                ret = k;
        }
        return ret;
}

static int json_filter(const struct dirent *de) {
        size_t l = strlen(de->d_name);

        return de->d_name[0] != '.' && l > 5 && strcmp(de->d_name + l - 5, ".json") == 0;
}

/* Loads the given files in the given order (parse only). */
static int policy_load_files(Policy *p, char * const *paths, DiagList *d) {
        int ret = 0;

        for (size_t i = 0; paths && paths[i]; i++) {
                _cleanup_free_ char *text = NULL;
                int k;

                size_t size;

                k = fileio_read_config(paths[i], &text, &size);
                if (k < 0) {
                        if (diag_add(d, paths[i], NULL, "cannot read: %s", fileio_config_error(k)) < 0)
                                return -ENOMEM;
                        ret = -EINVAL;
                        continue;
                }
                k = policy_parse_n(p, paths[i], text, size, d);
                if (k == -ENOMEM)
                        return k;
                if (k < 0)
                        ret = k;
        }
        return ret;
}

int policy_load_directory(Policy *p, const char *dir, DiagList *d) {
        _cleanup_strv_free_ char **paths = NULL;
        struct dirent **list = NULL;
        int n, ret = 0;

        n = scandir(dir, &list, json_filter, alphasort);
        if (n < 0)
                return -errno;
        for (int i = 0; i < n; i++) {
                _cleanup_free_ char *path = NULL;

                if (ret == 0 && (asprintf(&path, "%s/%s", dir, list[i]->d_name) < 0 || strv_extend(&paths, path) < 0))
                        ret = -ENOMEM;
                free(list[i]);
        }
        free(list);
        if (ret < 0)
                return ret;
        return policy_load_files(p, paths, d);
}
