/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <stdint.h>
#include <strings.h>

#include "admission.h"
#include "dropin.h"
#include "timespan.h"
#include "unitname.h"

#define KEY_PREFIX "X-Deadline"

void dropin_request_done(DeadlineRequest *r) {
        free(r->group);
        free(r->runtime_at.file);
        free(r->deadline_at.file);
        free(r->period_at.file);
        free(r->group_at.file);
        free(r->threads_at.file);
        free(r->promote_at.file);
        *r = (DeadlineRequest) {};
}

bool dropin_request_present(const DeadlineRequest *r) {
        return r->runtime_at.file || r->deadline_at.file || r->period_at.file || r->group_at.file ||
                r->threads_at.file || r->promote_at.file;
}

const char *dropin_promote_to_string(DeadlinePromote p) {
        static const char * const names[_PROMOTE_MAX] = {
                [PROMOTE_AUTO] = "auto",
                [PROMOTE_CGROUP] = "cgroup",
                [PROMOTE_NONE] = "none",
        };
        return (unsigned) p < _PROMOTE_MAX ? names[p] : "?";
}

/* The value of X-DeadlinePromote=: "auto", "cgroup" or "none" (lowercase,
 * as systemd's keywords), else -EINVAL with why. */
static int dropin_value_promote(const char *value, DeadlinePromote *ret, char *why, size_t size) {
        static const DeadlinePromote values[] = { PROMOTE_AUTO, PROMOTE_CGROUP, PROMOTE_NONE };

        for (size_t i = 0; i < ELEMENTSOF(values); i++)
                if (streq_ptr(value, dropin_promote_to_string(values[i]))) {
                        *ret = values[i];
                        return 0;
                }
        snprintf(why, size, "not a choice of threads (expected \"auto\", \"cgroup\" or \"none\")");
        return -EINVAL;
}

bool dropin_delegate_value(const char *value) {
        static const char * const no[] = { "no", "false", "off", "0", "" };

        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                if (strcasecmp(value, no[i]) == 0)
                        return false;
        /* yes, true, on, 1, or controllers ("cpu memory") */
        return true;
}

int dropin_promote_resolve(DeadlinePromote setting, bool delegated, DeadlinePromote *ret, char *why, size_t size) {
        switch (setting) {
        case PROMOTE_AUTO:
                *ret = delegated ? PROMOTE_NONE : PROMOTE_CGROUP;
                return 0;
        case PROMOTE_CGROUP:
                if (delegated) {
                        snprintf(why, size, "X-DeadlinePromote=cgroup with Delegate=yes: the unit's cgroup subtree "
                                 "is delegated to it, and dld neither switches nor moves the threads there (its owner "
                                 "schedules them, within the unit's reservation); use X-DeadlinePromote=none or auto, "
                                 "or Delegate=no");
                        return -EINVAL;
                }
                *ret = setting;
                return 0;
        case PROMOTE_NONE:
                *ret = setting;
                return 0;
        default:
                snprintf(why, size, "X-DeadlinePromote=%s: no such value", dropin_promote_to_string(setting));
                return -EINVAL;
        }
}

static int origin_set(KeyOrigin *o, const char *file, unsigned line) {
        char *f = NULL;

        if (file && !(f = strdup(file)))
                return -ENOMEM;
        free(o->file);
        o->file = f;
        o->line = line;
        return 0;
}

/* Appends a problem at file:line; returns -EINVAL, or -ENOMEM. */
static int line_diag(DiagList *d, const char *file, unsigned line, const char *fmt, ...) _printf_(4, 5);
static int line_diag(DiagList *d, const char *file, unsigned line, const char *fmt, ...) {
        char where[32];
        va_list ap;
        int r;

        snprintf(where, sizeof(where), "line %u", line);
        va_start(ap, fmt);
        r = diag_addv(d, file, where, fmt, ap);
        va_end(ap);
        return r < 0 ? -ENOMEM : -EINVAL;
}

int dropin_value_time(const char *value, uint64_t *ret, char *why, size_t size) {
        int r = timespan_parse(value, ret);

        if (r == -ERANGE) {
                snprintf(why, size, "time span out of range (microsecond resolution, at most 584542 years)");
                return r;
        }
        if (r < 0) {
                snprintf(why, size, "not a time span (expected systemd syntax such as 2ms or 500us)");
                return -EINVAL;
        }
        if (*ret == 0) {
                snprintf(why, size, "must be greater than zero");
                return -EINVAL;
        }
        return 0;
}

/* A count from 1 to DL_THREADS_MAX in decimal digits, or "all" (lowercase,
 * as systemd's keywords such as "infinity"); no sign, no junk. */
int dropin_value_threads(const char *value, unsigned *ret, char *why, size_t size) {
        uint64_t n = 0;

        if (streq_ptr(value, "all")) {
                *ret = DL_THREADS_ALL;
                return 0;
        }
        for (const char *c = value; *c; c++) {
                if (!isdigit((unsigned char) *c)) {
                        snprintf(why, size, "not a thread count (expected a number from 1 to %u, or \"all\" for one per CPU)",
                                 DL_THREADS_MAX);
                        return -EINVAL;
                }
                if (n <= DL_THREADS_MAX)
                        n = n * 10 + (uint64_t) (*c - '0');
        }
        if (n == 0) {
                snprintf(why, size, "must be at least 1 (\"all\" for one per CPU)");
                return -EINVAL;
        }
        if (n > DL_THREADS_MAX) {
                snprintf(why, size, "more than the limit of %u threads", DL_THREADS_MAX);
                return -ERANGE;
        }
        *ret = (unsigned) n;
        return 0;
}

int dropin_request_problem(const DeadlineRequest *r, char *why, size_t size) {
        char rt[TIMESPAN_MAX], dl[TIMESPAN_MAX], pe[TIMESPAN_MAX];
        const char *problem = admission_task_params_problem(r->runtime_usec, r->deadline_usec, r->period_usec);

        if (!problem)
                return 0;
        snprintf(why, size, "runtime %s, deadline %s, period %s: %s",
                 timespan_format(rt, sizeof(rt), r->runtime_usec),
                 timespan_format(dl, sizeof(dl), r->deadline_usec),
                 timespan_format(pe, sizeof(pe), r->period_usec), problem);
        /* Which key to blame: the period for a deadline or period problem. */
        return strstr(problem, "deadline is longer") || strstr(problem, "period") ? 2 : 1;
}

static int assign(DeadlineRequest *r, const char *section, const char *key, const char *value,
                  const char *file, unsigned line, DiagList *d) {
        uint64_t *tv = NULL;
        bool threads = false, promote = false;
        KeyOrigin *at;

        if (streq_ptr(key, KEY_PREFIX "Runtime"))
                tv = &r->runtime_usec, at = &r->runtime_at;
        else if (streq_ptr(key, KEY_PREFIX "Deadline"))
                tv = &r->deadline_usec, at = &r->deadline_at;
        else if (streq_ptr(key, KEY_PREFIX "Period"))
                tv = &r->period_usec, at = &r->period_at;
        else if (streq_ptr(key, KEY_PREFIX "Group"))
                at = &r->group_at;
        else if (streq_ptr(key, KEY_PREFIX "Threads"))
                at = &r->threads_at, threads = true;
        else if (streq_ptr(key, KEY_PREFIX "Promote"))
                at = &r->promote_at, promote = true;
        else
                return line_diag(d, file, line,
                                 "unknown key %s= (known: X-DeadlineRuntime=, X-DeadlinePeriod=, X-DeadlineDeadline=, "
                                 "X-DeadlineGroup=, X-DeadlineThreads=, X-DeadlinePromote=)",
                                 key);

        if (!streq_ptr(section, "Service"))
                return line_diag(d, file, line, "%s= belongs in the [Service] section, not [%s]", key, section ?: "(none)");

        if (*value == 0) {      /* empty assignment resets */
                if (tv)
                        *tv = 0;
                else if (threads)
                        r->threads = 0;
                else if (promote)
                        r->promote = PROMOTE_AUTO;
                else {
                        free(r->group);
                        r->group = NULL;
                }
                return origin_set(at, NULL, 0);
        }

        if (tv) {
                char why[DEADLINE_WHY_MAX];
                uint64_t v;

                if (dropin_value_time(value, &v, why, sizeof(why)) < 0)
                        return line_diag(d, file, line, "%s=%s: %s", key, value, why);
                *tv = v;
        } else if (threads) {
                char why[DEADLINE_WHY_MAX];
                unsigned n = 1;

                if (dropin_value_threads(value, &n, why, sizeof(why)) < 0)
                        return line_diag(d, file, line, "%s=%s: %s", key, value, why);
                r->threads = n;
        } else if (promote) {
                char why[DEADLINE_WHY_MAX];
                DeadlinePromote p;

                if (dropin_value_promote(value, &p, why, sizeof(why)) < 0)
                        return line_diag(d, file, line, "%s=%s: %s", key, value, why);
                r->promote = p;
        } else {
                char *g;

                if (!unitname_group_is_valid(value))
                        return line_diag(d, file, line, "%s=%s: not a group name (letters, digits, '_' and '-', at most 64)", key, value);
                g = strdup(value);
                if (!g)
                        return -ENOMEM;
                free(r->group);
                r->group = g;
        }
        return origin_set(at, file, line);
}

int dropin_parse(DeadlineRequest *r, const char *file, const char *text, DiagList *d) {
        _cleanup_free_ char *section = NULL, *logical = NULL;
        const char *p = text;
        unsigned lineno = 0, start_line = 0;
        size_t llen = 0;
        int ret = 0;

        while (*p) {
                const char *eol = strchrnul(p, '\n');
                size_t n = eol - p;
                bool cont;
                char *nl, *line, *eq;

                lineno++;
                if (!logical)
                        start_line = lineno;

                /* Backslash at the end joins the next line (systemd.syntax(7)). */
                cont = n > 0 && p[n - 1] == '\\';
                nl = realloc(logical, llen + n + 2);
                if (!nl)
                        return -ENOMEM;
                logical = nl;
                memcpy(logical + llen, p, cont ? n - 1 : n);
                llen += cont ? n - 1 : n;
                if (cont)
                        logical[llen++] = ' ';
                logical[llen] = 0;
                p = *eol ? eol + 1 : eol;
                if (cont && *p)
                        continue;

                line = strstrip(logical);
                if (*line == 0 || *line == '#' || *line == ';')
                        goto next;
                if (*line == '[') {
                        size_t l = strlen(line);
                        char *s;

                        if (line[l - 1] != ']') {
                                int k = line_diag(d, file, start_line, "%s: malformed section header", line);
                                if (k == -ENOMEM)
                                        return k;
                                ret = k;
                                goto next;
                        }
                        s = strndup(line + 1, l - 2);
                        if (!s)
                                return -ENOMEM;
                        free(section);
                        section = s;
                        goto next;
                }
                eq = strchr(line, '=');
                if (eq) {
                        char *key, *value;

                        *eq = 0;
                        key = strstrip(line);
                        value = strstrip(eq + 1);
                        if (strncmp(key, KEY_PREFIX, strlen(KEY_PREFIX)) == 0) {
                                int k = assign(r, section, key, value, file, start_line, d);
                                if (k == -ENOMEM)
                                        return k;
                                if (k < 0)
                                        ret = k;
                        }
                } else if (strncmp(line, KEY_PREFIX, strlen(KEY_PREFIX)) == 0) {
                        int k = line_diag(d, file, start_line, "%s: missing '=' and a value", line);
                        if (k == -ENOMEM)
                                return k;
                        ret = k;
                }
        next:
                free(logical);
                logical = NULL;
                llen = 0;
        }
        return ret;
}

int dropin_finish(DeadlineRequest *r, DiagList *d) {
        const KeyOrigin *at;
        char why[DEADLINE_WHY_MAX];
        int k;

        if (!dropin_request_present(r))
                return -ENOENT;

        if (!r->runtime_at.file) {
                at = r->period_at.file ? &r->period_at : r->deadline_at.file ? &r->deadline_at :
                        r->group_at.file ? &r->group_at : r->threads_at.file ? &r->threads_at : &r->promote_at;
                return line_diag(d, at->file, at->line, "X-DeadlineRuntime= is missing: a request needs a runtime and a period");
        }
        if (!r->period_at.file)
                return line_diag(d, r->runtime_at.file, r->runtime_at.line,
                                 "X-DeadlinePeriod= is missing: a request needs a runtime and a period");

        if (!r->deadline_at.file)
                r->deadline_usec = r->period_usec;
        if (!r->threads_at.file)
                r->threads = 1;

        k = dropin_request_problem(r, why, sizeof(why));
        if (k > 0) {
                at = k == 2 ? &r->period_at : &r->runtime_at;
                return line_diag(d, at->file, at->line, "%s", why);
        }
        return 0;
}

int dropin_parse_record(DeadlineRequest *r, const char *file, const char *text, DiagList *d) {
        int k = dropin_parse(r, file, text, d);

        if (k == 0)
                k = dropin_finish(r, d);
        if (k == -ENOENT)
                k = diag_add(d, file, "[Service]", "no request") < 0 ? -ENOMEM : -EINVAL;
        return k;
}

int dropin_section_read(const char *text, const char *section, const char *const *keys, char **values) {
        bool inside = false;
        size_t n = 0;

        while (keys[n])
                values[n++] = NULL;
        for (const char *p = text; *p;) {
                const char *eol = strchrnul(p, '\n');
                _cleanup_free_ char *line = strndup(p, eol - p);
                char *l;

                if (!line)
                        goto nomem;
                p = *eol ? eol + 1 : eol;
                l = strstrip(line);
                if (*l == '[') {
                        inside = strcmp(l, section) == 0;
                        continue;
                }
                for (size_t i = 0; inside && i < n; i++) {
                        size_t kl = strlen(keys[i]);

                        if (strncmp(l, keys[i], kl) == 0 && l[kl] == '=') {
                                free(values[i]);
                                if (!(values[i] = strdup(l + kl + 1)))
                                        goto nomem;
                                break;
                        }
                }
        }
        return 0;
nomem:
        for (size_t i = 0; i < n; i++) {
                free(values[i]);
                values[i] = NULL;
        }
        return -ENOMEM;
}

bool dropin_request_same(const DeadlineRequest *a, const DeadlineRequest *b) {
        return a->runtime_usec == b->runtime_usec && (a->deadline_usec ?: a->period_usec) == (b->deadline_usec ?: b->period_usec) &&
               a->period_usec == b->period_usec && (a->threads ?: 1) == (b->threads ?: 1) && streq_ptr(a->group, b->group) &&
               a->promote == b->promote;
}

char *dropin_request_describe(const DeadlineRequest *r) {
        char rt[TIMESPAN_MAX], dl[TIMESPAN_MAX], pe[TIMESPAN_MAX], th[16];
        unsigned n = r->threads ?: 1;
        char *s;

        if (asprintf(&s, "runtime %s, deadline %s, period %s, %s thread%s%s%s%s%s",
                     timespan_format(rt, sizeof(rt), r->runtime_usec),
                     timespan_format(dl, sizeof(dl), r->deadline_usec ?: r->period_usec),
                     timespan_format(pe, sizeof(pe), r->period_usec),
                     admission_threads_to_string(th, sizeof(th), n), n == 1 ? "" : "s",
                     r->group ? ", group " : "", r->group ?: "",
                     r->promote == PROMOTE_NONE || r->promote == PROMOTE_CGROUP ? ", X-DeadlinePromote=" : "",
                     r->promote == PROMOTE_NONE || r->promote == PROMOTE_CGROUP ? dropin_promote_to_string(r->promote) : "") < 0)
                return NULL;
        return s;
}

char *dropin_format(const DeadlineRequest *r) {
        char rt[TIMESPAN_MAX], dl[TIMESPAN_MAX], pe[TIMESPAN_MAX], th[16];
        bool promote = r->promote == PROMOTE_CGROUP || r->promote == PROMOTE_NONE;
        char *s;

        if (asprintf(&s, "# Written by dld for a request admitted by hand.\n"
                         "[Service]\n"
                         "X-DeadlineRuntime=%s\n"
                         "X-DeadlineDeadline=%s\n"
                         "X-DeadlinePeriod=%s\n"
                         "X-DeadlineThreads=%s\n"
                         "%s%s%s"
                         "%s%s%s",
                     timespan_format(rt, sizeof(rt), r->runtime_usec),
                     timespan_format(dl, sizeof(dl), r->deadline_usec ?: r->period_usec),
                     timespan_format(pe, sizeof(pe), r->period_usec),
                     admission_threads_to_string(th, sizeof(th), r->threads ?: 1),
                     r->group ? "X-DeadlineGroup=" : "", r->group ?: "", r->group ? "\n" : "",
                     promote ? "X-DeadlinePromote=" : "", promote ? dropin_promote_to_string(r->promote) : "",
                     promote ? "\n" : "") < 0)
                return NULL;
        return s;
}
