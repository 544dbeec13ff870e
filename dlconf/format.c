/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <json-c/json.h>

#include "admission.h"
#include "format.h"
#include "policy.h"
#include "timespan.h"
#include "unitname.h"
#include "util.h"


#define ANSI_RED    "\033[0;31m"
#define ANSI_GREEN  "\033[0;32m"
#define ANSI_YELLOW "\033[0;33m"
#define ANSI_GREY   "\033[0;90m"
#define ANSI_BOLD   "\033[1m"
#define ANSI_RESET  "\033[0m"

#define BAR_WIDTH 32

static const char *color(const FormatOptions *o, const char *code) {
        return o->color ? code : "";
}

static const char *state_color(const char *state) {
        if (streq_ptr(state, "admitted"))
                return ANSI_GREEN;
        if (streq_ptr(state, "degraded"))
                return ANSI_YELLOW;
        if (streq_ptr(state, "failed"))
                return ANSI_RED;
        return ANSI_GREY;
}

/* Bandwidth as a percentage of one CPU; "unlimited" for DL_BW_UNLIMITED. */
static const char *pct(char buf[static ADMISSION_PERCENT_MAX], uint64_t bw) {
        if (bw == DL_BW_UNLIMITED)
                return "unlimited";
        return admission_bw_to_percent(buf, ADMISSION_PERCENT_MAX, bw);
}

static const char *span(char buf[static TIMESPAN_MAX], uint64_t usec) {
        return timespan_format(buf, TIMESPAN_MAX, usec);
}

void format_bar(FILE *f, uint64_t used, uint64_t total, unsigned width, bool use_color) {
        static const char *const eighths[] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
        uint64_t cells8 = 0;
        unsigned full, part, i;
        const char *c = ANSI_GREEN;

        if (total > 0 && total != DL_BW_UNLIMITED) {
                /* 128-bit: used * width * 8 can exceed 64 bits for big bandwidths. */
                unsigned __int128 x = (unsigned __int128) (used > total ? total : used) * width * 8;
                cells8 = (uint64_t) (x / total);
                if (used * 4 >= total * 3)
                        c = used >= total ? ANSI_RED : ANSI_YELLOW;
        }
        full = cells8 / 8;
        part = cells8 % 8;
        fputs(use_color ? c : "", f);
        for (i = 0; i < full; i++)
                fputs("█", f);
        if (part) {
                fputs(eighths[part], f);
                i++;
        }
        fputs(use_color ? ANSI_GREY : "", f);
        for (; i < width; i++)
                fputs("░", f);
        fputs(use_color ? ANSI_RESET : "", f);
}

/* "3 threads", "1 thread", "one thread per CPU" (X-DeadlineThreads=). */
static const char *threads_words(char *buf, size_t size, uint32_t threads) {
        if (threads == 0)
                snprintf(buf, size, "one thread per CPU");
        else
                snprintf(buf, size, "%" PRIu32 " thread%s", threads, threads == 1 ? "" : "s");
        return buf;
}

static void format_service_line(FILE *f, const DlconfService *svc, const FormatOptions *o, unsigned unit_width) {
        char r[TIMESPAN_MAX], d[TIMESPAN_MAX], p[TIMESPAN_MAX], b[ADMISSION_PERCENT_MAX], t[32], l[DLCONF_LABEL_MAX];

        fprintf(f, "    %s%-*s%s %s%-8s%s runtime %s deadline %s period %s",
                color(o, ANSI_BOLD), (int) unit_width, state_service_label(svc, l, sizeof(l)), color(o, ANSI_RESET),
                color(o, state_color(svc->state)), svc->state, color(o, ANSI_RESET),
                span(r, svc->runtime_usec), span(d, svc->deadline_usec), span(p, svc->period_usec));
        if (svc->reserved)
                fprintf(f, ", reserves %s for %s", pct(b, svc->reserved), threads_words(t, sizeof(t), svc->threads_requested));
        else
                fprintf(f, " for %s", threads_words(t, sizeof(t), svc->threads_requested));
        fprintf(f, ", %u/%u threads deadline\n", svc->threads, svc->threads_total);
        if (svc->reason && *svc->reason)
                fprintf(f, "    %-*s %s%s%s\n", (int) unit_width, "",
                        color(o, state_color(svc->state)), svc->reason, color(o, ANSI_RESET));
}

static unsigned unit_width(const DlconfState *s, const char *group) {
        char l[DLCONF_LABEL_MAX];
        unsigned w = 0;

        for (size_t i = 0; i < s->n_services; i++)
                if (!group || streq_ptr(s->services[i].group, group))
                        w = MAX(w, (unsigned) strlen(state_service_label(&s->services[i], l, sizeof(l))));
        return w;
}

static void format_services_of(FILE *f, const DlconfState *s, const char *group, const FormatOptions *o) {
        unsigned w = unit_width(s, group);

        for (size_t i = 0; i < s->n_services; i++)
                if (streq_ptr(s->services[i].group, group))
                        format_service_line(f, &s->services[i], o, w);
}

static bool group_known(const DlconfState *s, const char *name) {
        for (size_t i = 0; i < s->n_groups; i++)
                if (streq_ptr(s->groups[i].name, name))
                        return true;
        return false;
}

void format_status(FILE *f, const DlconfState *s, const FormatOptions *o) {
        const DlconfSystem *sys = &s->system;
        char a[ADMISSION_PERCENT_MAX], b[ADMISSION_PERCENT_MAX], c[ADMISSION_PERCENT_MAX], d[ADMISSION_PERCENT_MAX];
        char r[TIMESPAN_MAX], p[TIMESPAN_MAX];
        char l[DLCONF_LABEL_MAX];
        unsigned orphan_width = 0;

        if (sys->runtime_usec < 0)
                fprintf(f, "%sSystem budget:%s admission control off (sched_dl_runtime_us = -1) on %u CPU%s, allocated %s\n",
                        color(o, ANSI_BOLD), color(o, ANSI_RESET), sys->cpus, sys->cpus == 1 ? "" : "s",
                        pct(a, sys->allocated));
        else {
                fprintf(f, "%sSystem budget:%s %s of each CPU (%s every %s) on %u CPU%s = %s\n",
                        color(o, ANSI_BOLD), color(o, ANSI_RESET),
                        pct(a, admission_to_ratio(sys->period_usec, sys->runtime_usec)),
                        span(r, sys->runtime_usec), span(p, sys->period_usec), sys->cpus,
                        sys->cpus == 1 ? "" : "s", pct(b, sys->bandwidth));
                fprintf(f, "               allocated %s, free %s\n", pct(c, sys->allocated),
                        pct(d, sys->allocated < sys->bandwidth ? sys->bandwidth - sys->allocated : 0));
                if (o->bars) {
                        fputs("               ", f);
                        format_bar(f, sys->allocated, sys->bandwidth, BAR_WIDTH, o->color);
                        fputc('\n', f);
                }
        }
        if (sys->rt_runtime_usec < 0)
                fprintf(f, "%sRT budget:%s     unlimited (sched_rt_runtime_us = -1)\n",
                        color(o, ANSI_BOLD), color(o, ANSI_RESET));
        else
                fprintf(f, "%sRT budget:%s     %s of each CPU (%s every %s)\n",
                        color(o, ANSI_BOLD), color(o, ANSI_RESET),
                        pct(a, admission_to_ratio(sys->rt_period_usec, sys->rt_runtime_usec)),
                        span(r, sys->rt_runtime_usec), span(p, sys->rt_period_usec));
        fprintf(f, "%sPolicy:%s        %s", color(o, ANSI_BOLD), color(o, ANSI_RESET),
                sys->policy_directory ?: "");
        if (!sys->policy_files || !*sys->policy_files)
                fprintf(f, ": none loaded, kernel defaults\n");
        else {
                for (char **i = sys->policy_files; *i; i++) {
                        const char *base = strrchr(*i, '/');
                        fprintf(f, "%s%s", i == sys->policy_files ? ": " : ", ", base ? base + 1 : *i);
                }
                fputc('\n', f);
        }
        fprintf(f, "%sCgroups:%s       %s; dld %s\n", color(o, ANSI_BOLD), color(o, ANSI_RESET),
                sys->cgroup_hierarchy ?: "?", sys->version ?: "?");

        for (size_t i = 0; i < s->n_groups; i++) {
                const DlconfGroup *g = &s->groups[i];

                fprintf(f, "\n%s%s%s (%s): reserved %s", color(o, ANSI_BOLD), g->name, color(o, ANSI_RESET),
                        g->slice, pct(a, g->reserved));
                if (g->runtime_usec >= 0)
                        fprintf(f, " = %s of each CPU (%s every %s)",
                                pct(b, admission_to_ratio(g->period_usec, g->runtime_usec)),
                                span(r, g->runtime_usec), span(p, g->period_usec));
                fprintf(f, "\n    allocated %s, free %s; %u service%s", pct(c, g->allocated), pct(d, g->free),
                        g->service_count, g->service_count == 1 ? "" : "s");
                if (g->max_services)
                        fprintf(f, " (at most %u)", g->max_services);
                if (g->max_request)
                        fprintf(f, ", requests up to %s of a CPU", pct(a, g->max_request));
                fprintf(f, "; on refusal: %s\n", g->on_refusal);
                if (o->bars) {
                        fputs("    ", f);
                        format_bar(f, g->allocated, g->reserved, BAR_WIDTH, o->color);
                        fputc('\n', f);
                }
                format_services_of(f, s, g->name, o);
        }

        for (size_t i = 0; i < s->n_services; i++)
                if (!group_known(s, s->services[i].group))
                        orphan_width = MAX(orphan_width,
                                           (unsigned) strlen(state_service_label(&s->services[i], l, sizeof(l))));
        if (orphan_width)
                fprintf(f, "\n%sNot in a deadline group:%s\n", color(o, ANSI_BOLD), color(o, ANSI_RESET));
        for (size_t i = 0; i < s->n_services; i++)
                if (!group_known(s, s->services[i].group))
                        format_service_line(f, &s->services[i], o, orphan_width);
}

/* The columns of "dlconf list". */
enum { COL_UNIT, COL_GROUP, COL_STATE, COL_RUNTIME, COL_DEADLINE, COL_PERIOD, COL_FOR, COL_RESERVED, COL_THREADS, COL_SOURCE, N_COLS };

static void service_cells(const DlconfService *svc, char cells[N_COLS][TIMESPAN_MAX + UNIT_NAME_MAX]) {
        char t[TIMESPAN_MAX];

        char l[DLCONF_LABEL_MAX];

        snprintf(cells[COL_UNIT], sizeof(cells[0]), "%s", state_service_label(svc, l, sizeof(l)));
        snprintf(cells[COL_GROUP], sizeof(cells[0]), "%s", *svc->group ? svc->group : "-");
        snprintf(cells[COL_STATE], sizeof(cells[0]), "%s", svc->state);
        snprintf(cells[COL_RUNTIME], sizeof(cells[0]), "%s", span(t, svc->runtime_usec));
        snprintf(cells[COL_DEADLINE], sizeof(cells[0]), "%s", span(t, svc->deadline_usec));
        snprintf(cells[COL_PERIOD], sizeof(cells[0]), "%s", span(t, svc->period_usec));
        if (svc->threads_requested)
                snprintf(cells[COL_FOR], sizeof(cells[0]), "%" PRIu32, svc->threads_requested);
        else
                snprintf(cells[COL_FOR], sizeof(cells[0]), "all");
        if (svc->reserved)
                admission_bw_to_percent(cells[COL_RESERVED], sizeof(cells[0]), svc->reserved);
        else
                snprintf(cells[COL_RESERVED], sizeof(cells[0]), "-");
        snprintf(cells[COL_THREADS], sizeof(cells[0]), "%u/%u", svc->threads, svc->threads_total);
        snprintf(cells[COL_SOURCE], sizeof(cells[0]), "%s", svc->source);
}

void format_list(FILE *f, const DlconfState *s, const FormatOptions *o) {
        static const char *const header[N_COLS] = {
                "UNIT", "GROUP", "STATE", "RUNTIME", "DEADLINE", "PERIOD", "FOR", "RESERVED", "THREADS", "SOURCE"
        };
        char cells[N_COLS][TIMESPAN_MAX + UNIT_NAME_MAX];
        unsigned width[N_COLS];

        for (unsigned c = 0; c < N_COLS; c++)
                width[c] = o->legend ? strlen(header[c]) : 0;
        for (size_t i = 0; i < s->n_services; i++) {
                service_cells(&s->services[i], cells);
                for (unsigned c = 0; c < N_COLS; c++)
                        width[c] = MAX(width[c], (unsigned) strlen(cells[c]));
        }

        if (o->legend) {
                fputs(color(o, ANSI_BOLD), f);
                for (unsigned c = 0; c < N_COLS; c++)
                        fprintf(f, c + 1 < N_COLS ? "%-*s " : "%-*s", (int) width[c], header[c]);
                fprintf(f, "%s\n", color(o, ANSI_RESET));
        }
        for (size_t i = 0; i < s->n_services; i++) {
                service_cells(&s->services[i], cells);
                for (unsigned c = 0; c < N_COLS; c++) {
                        bool last = c + 1 == N_COLS;
                        if (c == COL_STATE)
                                fputs(color(o, state_color(s->services[i].state)), f);
                        /* No padding after the last column: no trailing blanks. */
                        if (last)
                                fputs(cells[c], f);
                        else
                                fprintf(f, "%-*s ", (int) width[c], cells[c]);
                        if (c == COL_STATE)
                                fputs(color(o, ANSI_RESET), f);
                }
                fputc('\n', f);
        }
        if (o->legend)
                fprintf(f, "\n%zu service%s listed.\n", s->n_services, s->n_services == 1 ? "" : "s");
}

void format_show(FILE *f, const DlconfService *svc, const FormatOptions *o) {
        char t[TIMESPAN_MAX], b[ADMISSION_PERCENT_MAX], w[32], l[DLCONF_LABEL_MAX];

        fprintf(f, "%s%s%s\n", color(o, ANSI_BOLD), state_service_label(svc, l, sizeof(l)), color(o, ANSI_RESET));
        if (svc->container_id && *svc->container_id)
                fprintf(f, " Container: %s, ID %s\n     Scope: %s\n", svc->container_name, svc->container_id, svc->unit);
        fprintf(f, "     Group: %s\n", *svc->group ? svc->group : "(none)");
        fprintf(f, "     State: %s%s%s\n", color(o, state_color(svc->state)), svc->state, color(o, ANSI_RESET));
        fprintf(f, "   Runtime: %s\n", span(t, svc->runtime_usec));
        fprintf(f, "  Deadline: %s\n", span(t, svc->deadline_usec));
        fprintf(f, "    Period: %s\n", span(t, svc->period_usec));
        fprintf(f, " Bandwidth: %s of a CPU per thread\n", pct(b, admission_to_ratio(svc->period_usec, svc->runtime_usec)));
        fprintf(f, "       For: %s\n", threads_words(w, sizeof(w), svc->threads_requested));
        fprintf(f, "  Reserved: %s\n", svc->reserved ? pct(b, svc->reserved) : "nothing");
        fprintf(f, "   Threads: %u of %u SCHED_DEADLINE\n", svc->threads, svc->threads_total);
        fprintf(f, "    Source: %s\n", streq_ptr(svc->source, "manual") ? "manual (dlconf admit)" :
                streq_ptr(svc->source, "container") ? "container (io.dlsched.* annotations, OCI hook)" :
                "drop-in (X-Deadline* keys)");
        if (svc->reason && *svc->reason)
                fprintf(f, "    Reason: %s\n", svc->reason);
        if (svc->newer_request && *svc->newer_request)
                fprintf(f, "   Waiting: %s (kept from before dld restarted; applies from the next start, or dlconf admit)\n",
                        svc->newer_request);
}

/* JSON */

static void json_add(json_object *o, const char *key, json_object *v) {
        json_object_object_add(o, key, v);
}

static json_object *json_bw(uint64_t bw) {
        return bw == DL_BW_UNLIMITED ? NULL : json_object_new_uint64(bw);
}

static json_object *json_str(const char *s) {
        return json_object_new_string(s ?: "");
}

static json_object *json_service(const DlconfService *svc) {
        json_object *o = json_object_new_object();

        json_add(o, "unit", json_str(svc->unit));
        json_add(o, "group", json_str(svc->group));
        json_add(o, "state", json_str(svc->state));
        json_add(o, "runtime_usec", json_object_new_uint64(svc->runtime_usec));
        json_add(o, "deadline_usec", json_object_new_uint64(svc->deadline_usec));
        json_add(o, "period_usec", json_object_new_uint64(svc->period_usec));
        json_add(o, "threads_requested", svc->threads_requested ? json_object_new_uint64(svc->threads_requested)
                                                                : json_object_new_string("all"));
        json_add(o, "reserved", json_object_new_uint64(svc->reserved));
        json_add(o, "threads", json_object_new_uint64(svc->threads));
        json_add(o, "threads_total", json_object_new_uint64(svc->threads_total));
        json_add(o, "source", json_str(svc->source));
        json_add(o, "reason", json_str(svc->reason));
        if (svc->newer_request && *svc->newer_request)
                json_add(o, "newer_request", json_str(svc->newer_request));
        if (svc->container_id && *svc->container_id) {
                json_add(o, "container_id", json_str(svc->container_id));
                json_add(o, "container_name", json_str(svc->container_name));
        }
        return o;
}

static json_object *json_group(const DlconfGroup *g) {
        json_object *o = json_object_new_object();

        json_add(o, "name", json_str(g->name));
        json_add(o, "slice", json_str(g->slice));
        json_add(o, "runtime_usec", json_object_new_int64(g->runtime_usec));
        json_add(o, "period_usec", json_object_new_uint64(g->period_usec));
        json_add(o, "reserved", json_object_new_uint64(g->reserved));
        json_add(o, "allocated", json_object_new_uint64(g->allocated));
        json_add(o, "free", json_object_new_uint64(g->free));
        json_add(o, "max_request", json_object_new_uint64(g->max_request));
        json_add(o, "max_services", json_object_new_uint64(g->max_services));
        json_add(o, "service_count", json_object_new_uint64(g->service_count));
        json_add(o, "on_refusal", json_str(g->on_refusal));
        return o;
}

static json_object *json_system(const DlconfSystem *sys) {
        json_object *o = json_object_new_object(), *files = json_object_new_array();

        json_add(o, "version", json_str(sys->version));
        json_add(o, "policy_directory", json_str(sys->policy_directory));
        for (char **i = sys->policy_files; i && *i; i++)
                json_object_array_add(files, json_str(*i));
        json_add(o, "policy_files", files);
        json_add(o, "cgroup_hierarchy", json_str(sys->cgroup_hierarchy));
        json_add(o, "cpus", json_object_new_uint64(sys->cpus));
        json_add(o, "runtime_usec", json_object_new_int64(sys->runtime_usec));
        json_add(o, "period_usec", json_object_new_uint64(sys->period_usec));
        json_add(o, "bandwidth", json_bw(sys->bandwidth));
        json_add(o, "allocated", json_object_new_uint64(sys->allocated));
        json_add(o, "free", sys->bandwidth == DL_BW_UNLIMITED ? NULL :
                 json_object_new_uint64(sys->allocated < sys->bandwidth ? sys->bandwidth - sys->allocated : 0));
        json_add(o, "rt_runtime_usec", json_object_new_int64(sys->rt_runtime_usec));
        json_add(o, "rt_period_usec", json_object_new_uint64(sys->rt_period_usec));
        return o;
}

static json_object *json_services(const DlconfState *s) {
        json_object *a = json_object_new_array();

        for (size_t i = 0; i < s->n_services; i++)
                json_object_array_add(a, json_service(&s->services[i]));
        return a;
}

char *format_json_finish(json_object *o, JsonMode mode) {
        char *text = NULL;
        int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
                (mode == JSON_PRETTY ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED : JSON_C_TO_STRING_PLAIN);

        if (o && asprintf(&text, "%s\n", json_object_to_json_string_ext(o, flags)) < 0)
                text = NULL;
        json_object_put(o);
        return text;
}

char *format_status_json(const DlconfState *s, JsonMode mode) {
        json_object *o = json_object_new_object(), *groups = json_object_new_array();

        json_add(o, "system", json_system(&s->system));
        for (size_t i = 0; i < s->n_groups; i++)
                json_object_array_add(groups, json_group(&s->groups[i]));
        json_add(o, "groups", groups);
        json_add(o, "services", json_services(s));
        return format_json_finish(o, mode);
}

char *format_list_json(const DlconfState *s, JsonMode mode) {
        return format_json_finish(json_services(s), mode);
}

char *format_show_json(const DlconfService *svc, JsonMode mode) {
        return format_json_finish(json_service(svc), mode);
}
