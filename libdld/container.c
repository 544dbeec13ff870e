/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <strings.h>

#include "container.h"
#include "unitname.h"

enum { KEY_RUNTIME, KEY_PERIOD, KEY_DEADLINE, KEY_THREADS, KEY_GROUP, N_KEYS };

static const char * const key_names[N_KEYS] = {
        [KEY_RUNTIME]  = CONTAINER_ANNOTATION_PREFIX "runtime",
        [KEY_PERIOD]   = CONTAINER_ANNOTATION_PREFIX "period",
        [KEY_DEADLINE] = CONTAINER_ANNOTATION_PREFIX "deadline",
        [KEY_THREADS]  = CONTAINER_ANNOTATION_PREFIX "threads",
        [KEY_GROUP]    = CONTAINER_ANNOTATION_PREFIX "group",
};

#define KNOWN_KEYS "io.dlsched.runtime, io.dlsched.period, io.dlsched.deadline, io.dlsched.threads, io.dlsched.group"

static int problem(DiagList *d, const char *fmt, ...) _printf_(2, 3);
static int problem(DiagList *d, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = diag_addv(d, NULL, NULL, fmt, ap);
        va_end(ap);
        return r < 0 ? -ENOMEM : -EINVAL;
}

/* What is wrong with a value as a whole, before its syntax, or NULL. */
static const char *value_shape(const char *v) {
        size_t l = strlen(v);

        if (l == 0)
                return "empty value (an annotation cannot reset a key: leave it out)";
        for (const char *c = v; *c; c++)
                if (iscntrl((unsigned char) *c))
                        return "control character in the value";
        if (isspace((unsigned char) v[0]) || isspace((unsigned char) v[l - 1]))
                return "leading or trailing whitespace";
        return NULL;
}

/* Parses one io.dlsched.* value into r; set[] says which keys were given. */
static int assign(DeadlineRequest *r, unsigned key, const char *k, const char *v, DiagList *d) {
        char why[DEADLINE_WHY_MAX];
        const char *shape = value_shape(v);
        uint64_t *tv = NULL;

        if (shape)      /* a control character is not shown */
                return strstr(shape, "control") ? problem(d, "%s: %s", k, shape) : problem(d, "%s=%s: %s", k, v, shape);
        switch (key) {
        case KEY_RUNTIME:
                tv = &r->runtime_usec;
                break;
        case KEY_PERIOD:
                tv = &r->period_usec;
                break;
        case KEY_DEADLINE:
                tv = &r->deadline_usec;
                break;
        case KEY_THREADS:
                if (dropin_value_threads(v, &r->threads, why, sizeof(why)) < 0)
                        return problem(d, "%s=%s: %s", k, v, why);
                return 0;
        case KEY_GROUP:
                if (!unitname_group_is_valid(v))
                        return problem(d, "%s=%s: not a group name (letters, digits, '_' and '-', at most 64)", k, v);
                r->group = strdup(v);
                return r->group ? 0 : -ENOMEM;
        }
        if (dropin_value_time(v, tv, why, sizeof(why)) < 0)
                return problem(d, "%s=%s: %s", k, v, why);
        return 0;
}

int container_request_parse(const Annotation *a, size_t n, DeadlineRequest *ret, DiagList *d) {
        DeadlineRequest r = {};
        bool set[N_KEYS] = {}, any = false;
        size_t prefix = strlen(CONTAINER_ANNOTATION_PREFIX);
        char why[DEADLINE_WHY_MAX];
        int err = 0, k;

        *ret = (DeadlineRequest) {};
        for (size_t i = 0; i < n; i++) {
                const char *key = a[i].key ?: "", *value = a[i].value ?: "";
                unsigned which = N_KEYS;

                if (strncasecmp(key, CONTAINER_ANNOTATION_PREFIX, prefix) != 0)
                        continue;       /* someone else's */
                any = true;
                for (unsigned j = 0; j < N_KEYS; j++)
                        if (strcmp(key, key_names[j]) == 0)
                                which = j;
                if (which == N_KEYS) {
                        bool lower = true;

                        for (unsigned j = 0; j < N_KEYS; j++)
                                if (strcasecmp(key, key_names[j]) == 0)
                                        lower = false;
                        k = lower ? problem(d, "%s: unknown annotation (known: " KNOWN_KEYS ")", key)
                                  : problem(d, "%s: annotation keys are lowercase (known: " KNOWN_KEYS ")", key);
                } else if (set[which])
                        k = problem(d, "%s=%s: given twice (a container's annotations hold each key once)", key, value);
                else {
                        set[which] = true;
                        k = assign(&r, which, key, value, d);
                }
                if (k == -ENOMEM) {
                        dropin_request_done(&r);
                        return k;
                }
                if (k < 0)
                        err = k;
        }
        if (!any)
                return -ENOENT;
        if (err == 0 && !set[KEY_RUNTIME])
                err = problem(d, "%s is missing: a request needs a runtime and a period", key_names[KEY_RUNTIME]);
        else if (err == 0 && !set[KEY_PERIOD])
                err = problem(d, "%s is missing: a request needs a runtime and a period", key_names[KEY_PERIOD]);
        if (err == 0) {
                if (!set[KEY_DEADLINE])
                        r.deadline_usec = r.period_usec;
                if (!set[KEY_THREADS])
                        r.threads = 1;
                if (dropin_request_problem(&r, why, sizeof(why)) > 0)
                        err = problem(d, "%s", why);
        }
        if (err < 0) {
                dropin_request_done(&r);
                return err;
        }
        *ret = r;
        return 0;
}

static bool id_char(char c) {
        return isalnum((unsigned char) c) || c == '_' || c == '.' || c == '-';
}

bool container_id_is_valid(const char *id) {
        size_t l = id ? strlen(id) : 0;

        if (l == 0 || l > CONTAINER_ID_MAX || !isalnum((unsigned char) id[0]))
                return false;
        for (const char *c = id; *c; c++)
                if (!id_char(*c))
                        return false;
        return true;
}

bool container_name_is_valid(const char *name) {
        size_t l = name ? strlen(name) : 0;

        if (l == 0 || l > CONTAINER_NAME_MAX)
                return false;
        for (const unsigned char *c = (const unsigned char *) name; *c; c++)
                if (*c <= ' ' || *c >= 0x7f || *c == '/')
                        return false;
        return true;
}

int container_proc_cgroup_cpu_path(const char *text, char **ret) {
        _cleanup_free_ char *v2 = NULL, *v1 = NULL;
        const char *p = text;

        while (p && *p) {
                const char *eol = strchrnul(p, '\n');
                _cleanup_free_ char *line = strndup(p, eol - p);
                char *c1, *c2, *controllers, *path;

                if (!line)
                        return -ENOMEM;
                p = *eol ? eol + 1 : eol;
                if (!*line)
                        continue;
                c1 = strchr(line, ':');
                c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                if (!c1 || !c2 || c1 == line || c2[1] != '/')
                        return -EINVAL;
                for (const char *c = line; c < c1; c++)
                        if (!isdigit((unsigned char) *c))
                                return -EINVAL;
                *c2 = 0;
                controllers = c1 + 1;
                path = c2 + 1;
                if (endswith(path, " (deleted)"))
                        return -ENOENT;
                if (c1 - line == 1 && line[0] == '0' && *controllers == 0) {
                        if (!v2 && !(v2 = strdup(path)))
                                return -ENOMEM;
                        continue;
                }
                for (char *tok = controllers, *next; tok && *tok; tok = next) {
                        next = strchr(tok, ',');
                        if (next)
                                *next++ = 0;
                        if (strcmp(tok, "cpu") == 0 && !v1 && !(v1 = strdup(path)))
                                return -ENOMEM;
                }
        }
        if (v1)
                *ret = TAKE_PTR(v1);
        else if (v2)
                *ret = TAKE_PTR(v2);
        else
                return -ENOENT;
        return 0;
}

int container_cgroup_scope(const char *path, char **ret) {
        const char *end = NULL;

        /* The last component ending in ".scope": the end of the scope's path. */
        for (const char *c = strchr(path, '/'); c; c = strchr(c + 1, '/')) {
                const char *next = strchrnul(c + 1, '/');

                if (next - (c + 1) > 6 && strncmp(next - 6, ".scope", 6) == 0)
                        end = next;
        }
        if (!end)
                return -ENOENT;
        *ret = strndup(path, end - path);
        return *ret ? 0 : -ENOMEM;
}

int container_cgroup_split(const char *cgroup, char **ret_unit, char **ret_slice) {
        _cleanup_free_ char *scope = NULL, *unit = NULL, *slice = NULL;
        const char *last, *parent;
        int r;

        if (!unitname_cgroup_path_is_valid(cgroup))
                return -EINVAL;
        /* The scope, or a cgroup below it (crun's "container"). */
        r = container_cgroup_scope(cgroup, &scope);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return -EINVAL;
        last = strrchr(scope, '/');
        if (last == scope)
                return -EINVAL;         /* a scope needs a slice above it */
        parent = last - 1;
        while (*parent != '/')
                parent--;
        unit = strdup(last + 1);
        slice = strndup(parent + 1, last - parent - 1);
        if (!unit || !slice)
                return -ENOMEM;
        if (!unitname_is_valid(unit) || !unitname_slice_is_valid(slice))
                return -EINVAL;
        if (ret_unit)
                *ret_unit = TAKE_PTR(unit);
        if (ret_slice)
                *ret_slice = TAKE_PTR(slice);
        return 0;
}

void container_record_done(ContainerRecord *c) {
        free(c->id);
        free(c->name);
        free(c->cgroup);
        free(c->admitted_group);
        dropin_request_done(&c->req);
        *c = (ContainerRecord) {};
}

char *container_record_format(const char *id, const char *name, const char *cgroup, const char *admitted_group,
                              const DeadlineRequest *req) {
        _cleanup_free_ char *request = dropin_format(req);
        const char *body = request;
        char *s;

        /* Without dropin_format()'s comment, which is about requests by hand. */
        if (body && body[0] == '#')
                body = strchrnul(body, '\n') + 1;
        if (!request || asprintf(&s, "# dld's record of a container it decided on (dlsched-oci-hook).\n"
                                     "[Container]\nId=%s\nName=%s\nCgroup=%s\n%s%s%s\n%s", id, name, cgroup,
                                 admitted_group ? "AdmittedGroup=" : "", admitted_group ?: "",
                                 admitted_group ? "\n" : "", body) < 0)
                return NULL;
        return s;
}

int container_record_parse(const char *file, const char *text, ContainerRecord *ret, DiagList *d) {
        static const char *const keys[] = { "Id", "Name", "Cgroup", "AdmittedGroup", NULL };
        _cleanup_(container_record_done) ContainerRecord c = {};
        char *values[ELEMENTSOF(keys)];
        int r;

        *ret = (ContainerRecord) {};
        if (dropin_section_read(text, "[Container]", keys, values) < 0)
                return -ENOMEM;
        c.id = values[0];
        c.name = values[1];
        c.cgroup = values[2];
        c.admitted_group = values[3];
        if (!container_id_is_valid(c.id) || !container_name_is_valid(c.name) ||
            container_cgroup_split(c.cgroup, NULL, NULL) < 0)
                return diag_add(d, file, "[Container]", "Id=, Name= or Cgroup= missing or malformed") < 0 ? -ENOMEM : -EINVAL;
        if (c.admitted_group && !unitname_group_is_valid(c.admitted_group))
                return diag_add(d, file, "[Container]", "AdmittedGroup= is not a group name") < 0 ? -ENOMEM : -EINVAL;
        r = dropin_parse_record(&c.req, file, text, d);
        if (r < 0)
                return r;
        *ret = c;
        c = (ContainerRecord) {};
        return 0;
}
