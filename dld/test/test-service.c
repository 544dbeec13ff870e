/* SPDX-License-Identifier: GPL-2.0-or-later */
/* service.c's decisions on the host: a unit's activation decided once
 * (admitted, refused by the policy or by the kernel, the group's
 * on_refusal taken), released and admitted again by hand, bad input
 * refused. service-lookup.c is linked too: its entries (PrepareUnit,
 * AdmitUnit, a unit's state changes) lead there, over a private
 * connection (testbus.h), once the test gives systemd's answer.
 *
 * Linked with the real reservation.c, request.c (the units' files are
 * written in a temporary directory) and journal.c; the rest below them is
 * this file's: the kernel's files (kernelfs_*: a few cgroups, their
 * writes logged and failing as a test scripts), the journal
 * (sd_journal_send(): each entry's fields kept), systemd (systemd_*: its
 * answers given by the test), the records (records_*: kept in memory,
 * in the records' own formats) and the threads (service_threads_*). */
#include <printf.h>
#include <stdarg.h>

#include "dld-messages.h"
#include "dlsched/dld-bus.h"
#include "log.h"
#include "records.h"
#include "service-lookup.h"
#include "service-threads.h"
#include "service.h"
#include "systemd-client.h"
#include "tap.h"
#include "testbus.h"
#include "unitname.h"
#include "util.h"

#define CPUS 2
#define INV1 "0123456789abcdef0123456789abcdef"
#define INV2 "fedcba9876543210fedcba9876543210"
#define MEDIA "/deadline.slice/deadline-media.slice"
#define CONTROL "/deadline.slice/deadline-control.slice"

/* The kernel: the groups' slices and the units' cgroups. */
typedef struct Cgroup {
        char *path;
        bool controller;                /* the cpu controller: cpu.dl_* files */
        DlTemplate tmpl;
        int64_t runtime_us, period_us, total_bw;
} Cgroup;

static struct {
        Cgroup cg[16];
        size_t n;
        int fail[4];                    /* the results of the writes to come, 0 once used up */
        size_t n_fail;
        char **writes;                  /* "UNIT-OR-SLICE FILE VALUE[ (ERRNO)]" */
} kernel;

static Cgroup *cgroup_find(const char *path) {
        for (size_t i = 0; i < kernel.n; i++)
                if (streq_ptr(kernel.cg[i].path, path))
                        return &kernel.cg[i];
        return NULL;
}

static Cgroup *cgroup_add(const char *path, bool controller) {
        Cgroup *c = &kernel.cg[kernel.n++];

        *c = (Cgroup) { .path = strdup(path), .controller = controller, .runtime_us = -1, .period_us = 1000000 };
        return c;
}

/* The cgroup at path with the cpu controller (its cpu.dl_* files), or NULL. */
static Cgroup *cpu_files(const char *path) {
        Cgroup *c = cgroup_find(path);

        return c && c->controller ? c : NULL;
}

/* Logs a write to c ("NAME WHAT", NAME its path's last part) and gives
 * its scripted result. */
static _printf_(2, 3) int kernel_write(const Cgroup *c, const char *fmt, ...) {
        const char *name = strrchr(c->path, '/') ? strrchr(c->path, '/') + 1 : c->path;
        int r = kernel.n_fail > 0 ? kernel.fail[0] : 0;
        _cleanup_free_ char *what = NULL, *line = NULL;
        va_list ap;

        if (kernel.n_fail > 0)
                memmove(kernel.fail, kernel.fail + 1, --kernel.n_fail * sizeof(int));
        va_start(ap, fmt);
        if (vasprintf(&what, fmt, ap) < 0)
                what = NULL;
        va_end(ap);
        if (what && asprintf(&line, "%s %s%s%s%s", name, what, r < 0 ? " (" : "", r < 0 ? log_errno_name(-r) : "",
                             r < 0 ? ")" : "") >= 0)
                (void) strv_extend(&kernel.writes, line);
        return r;
}

static void kernel_fail(int n, const int *results) {
        kernel.n_fail = n;
        for (int i = 0; i < n; i++)
                kernel.fail[i] = results[i];
}

unsigned kernelfs_cpus(KernelFs *k) {
        (void) k;
        return CPUS;
}

bool kernelfs_unit_cgroup_exists(KernelFs *k, const char *cgroup) {
        (void) k;
        return cgroup_find(cgroup);
}

int kernelfs_cgroup_read(KernelFs *k, const char *cgroup, const char *file, int64_t *ret) {
        Cgroup *c = cpu_files(cgroup);

        (void) k;
        if (!c)
                return -ENOENT;
        *ret = streq_ptr(file, "cpu.dl_runtime_us") ? c->runtime_us :
               streq_ptr(file, "cpu.dl_period_us") ? c->period_us : c->total_bw;
        return 0;
}

int kernelfs_cgroup_write(KernelFs *k, const char *cgroup, const char *file, int64_t value) {
        Cgroup *c = cpu_files(cgroup);
        int r;

        (void) k;
        r = c ? kernel_write(c, "%s %" PRId64, file, value) : -ENOENT;
        if (r == 0)
                *(streq_ptr(file, "cpu.dl_runtime_us") ? &c->runtime_us : &c->period_us) = value;
        return r;
}

int kernelfs_template_read(KernelFs *k, const char *cgroup, DlTemplate *ret) {
        Cgroup *c = cpu_files(cgroup);

        (void) k;
        if (!c)
                return -ENOENT;
        *ret = c->tmpl;
        return 0;
}

int kernelfs_template_write(KernelFs *k, const char *cgroup, const DlTemplate *t) {
        Cgroup *c = cpu_files(cgroup);
        int r;

        (void) k;
        r = c ? kernel_write(c, "cpu.dl_template %u %" PRIu64 " %" PRIu64 " %" PRIu64, t->nr, t->runtime_usec,
                             t->deadline_usec, t->period_usec) : -ENOENT;
        if (r == 0)
                c->tmpl = *t;
        return r;
}

/* The kernel writes since the last call, joined by "; " ("" for none). */
static const char *writes(void) {
        static char buf[1024];
        size_t n = 0;

        buf[0] = 0;
        for (char **w = kernel.writes; w && *w; w++)
                n += snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "; " : "", *w);
        strv_free(kernel.writes);
        kernel.writes = NULL;
        return buf;
}

/* The journal: each entry's fields ("NAME=value"), since the test began. */
static struct {
        char **entries[64];
        size_t n, seen;                 /* seen: as journal_new() last told */
} journal;

/* The arguments of one field's format, skipped (as sd_journal_send() does). */
static void skip_args(const char *format, va_list *ap) {
        int types[32];
        size_t n = parse_printf_format(format, ELEMENTSOF(types), types);

        for (size_t i = 0; i < n && i < ELEMENTSOF(types); i++) {
                if (types[i] & PA_FLAG_PTR) {
                        (void) va_arg(*ap, void *);
                        continue;
                }
                switch (types[i] & ~PA_FLAG_MASK) {
                case PA_INT:
                case PA_CHAR:
                        if (types[i] & PA_FLAG_LONG_LONG)
                                (void) va_arg(*ap, long long);
                        else if (types[i] & PA_FLAG_LONG)
                                (void) va_arg(*ap, long);
                        else
                                (void) va_arg(*ap, int);
                        break;
                case PA_DOUBLE:
                case PA_FLOAT:
                        (void) va_arg(*ap, double);
                        break;
                default:                /* PA_STRING, PA_POINTER */
                        (void) va_arg(*ap, void *);
                }
        }
}

int sd_journal_send_with_location(const char *file, const char *line, const char *func, const char *format, ...) {
        char **fields = NULL;
        va_list ap;

        (void) file, (void) line, (void) func;
        va_start(ap, format);
        for (const char *f = format; f; f = va_arg(ap, const char *)) {
                _cleanup_free_ char *field = NULL;
                va_list aq;

                va_copy(aq, ap);
                if (vasprintf(&field, f, aq) >= 0)
                        (void) strv_extend(&fields, field);
                va_end(aq);
                skip_args(f, &ap);
        }
        va_end(ap);
        if (journal.n == ELEMENTSOF(journal.entries)) {
                strv_free(fields);
                return -ENOBUFS;
        }
        journal.entries[journal.n++] = fields;
        return 0;
}

/* Field name of the last entry ("" when it has none). */
static const char *field(const char *name) {
        size_t l = strlen(name);

        for (char **f = journal.n ? journal.entries[journal.n - 1] : NULL; f && *f; f++)
                if (strncmp(*f, name, l) == 0 && (*f)[l] == '=')
                        return *f + l + 1;
        return "";
}

/* How many entries came since the last call. */
static size_t journal_new(void) {
        size_t n = journal.n - journal.seen;

        journal.seen = journal.n;
        return n;
}

static void journal_clear(void) {
        for (size_t i = 0; i < journal.n; i++)
                strv_free(journal.entries[i]);
        journal.n = journal.seen = 0;
}

static const char *message_id(void) {
        const char *id = field("MESSAGE_ID");

        return streq_ptr(id, DLD_MESSAGE_ADMITTED) ? "admitted" : streq_ptr(id, DLD_MESSAGE_REFUSED) ? "refused" :
               streq_ptr(id, DLD_MESSAGE_RELEASED) ? "released" :
               streq_ptr(id, DLD_MESSAGE_DROPIN_INVALID) ? "dropin-invalid" : id;
}

/* systemd: the questions about units, answered when the test says; the
 * units stopped; the cpu controller asked for. */
struct UnitInfoQuery {
        char *unit;
        UnitInfoHandler done;
        void *userdata;
};

static struct {
        UnitInfoQuery *pending[8];
        size_t n;
        unsigned asked;                 /* questions since the last look */
        char **stopped;
        sd_bus_message_handler_t controller_ready;
        void *controller_userdata;
} systemd;

int systemd_unit_info_async(sd_bus *bus, UnitInfoQuery **ret, const char *unit, UnitInfoHandler done,
                            void *userdata) {
        UnitInfoQuery *q;

        (void) bus;
        if (systemd.n == ELEMENTSOF(systemd.pending) || !(q = calloc(1, sizeof(*q))))
                return -ENOMEM;
        *q = (UnitInfoQuery) { .unit = strdup(unit), .done = done, .userdata = userdata };
        systemd.pending[systemd.n++] = q;
        systemd.asked++;
        *ret = q;
        return 0;
}

static bool query_take(UnitInfoQuery *q) {
        for (size_t i = 0; i < systemd.n; i++)
                if (systemd.pending[i] == q) {
                        memmove(&systemd.pending[i], &systemd.pending[i + 1], (--systemd.n - i) * sizeof(q));
                        return true;
                }
        return false;
}

UnitInfoQuery *systemd_unit_info_query_free(UnitInfoQuery *q) {
        if (q) {
                (void) query_take(q);
                free(q->unit);
                free(q);
        }
        return NULL;
}

/* systemd answers the first question about unit with u (NULL: r, an
 * error). Whether there was one. */
static bool systemd_answer(const char *unit, const UnitInfo *u, int r) {
        const sd_bus_error error = SD_BUS_ERROR_MAKE_CONST(SD_BUS_ERROR_NO_REPLY, "no answer");

        for (size_t i = 0; i < systemd.n; i++) {
                UnitInfoQuery *q = systemd.pending[i];

                if (!streq_ptr(q->unit, unit))
                        continue;
                (void) query_take(q);
                q->done(u, u ? 0 : r, u ? NULL : &error, q->userdata);
                return true;
        }
        return false;
}

static unsigned systemd_asked(void) {
        unsigned n = systemd.asked;

        systemd.asked = 0;
        return n;
}

int systemd_stop_unit(sd_bus *bus, const char *unit) {
        (void) bus;
        return strv_extend(&systemd.stopped, unit);
}

int systemd_cpu_controller_async(sd_bus *bus, sd_bus_slot **ret_slot, const char *unit,
                                 sd_bus_message_handler_t callback, void *userdata) {
        (void) bus, (void) unit;
        *ret_slot = NULL;
        systemd.controller_ready = callback;
        systemd.controller_userdata = userdata;
        return 0;
}

/* The records, each kind's text as records.c would write it. */
typedef struct Record {
        const char *kind;               /* "admitted", "manual", "released" */
        char *unit, *text;
} Record;

static struct {
        Record r[16];
        size_t n;
} records;

static Record *record_find(const char *kind, const char *unit) {
        for (size_t i = 0; i < records.n; i++)
                if (streq_ptr(records.r[i].kind, kind) && streq_ptr(records.r[i].unit, unit))
                        return &records.r[i];
        return NULL;
}

static void record_remove(const char *kind, const char *unit) {
        Record *r = record_find(kind, unit);

        if (!r)
                return;
        free(r->unit);
        free(r->text);
        *r = records.r[--records.n];
}

static int record_save(const char *kind, const char *unit, char *text) {
        if (!text)
                return -ENOMEM;
        record_remove(kind, unit);
        records.r[records.n++] = (Record) { .kind = kind, .unit = strdup(unit), .text = text };
        return 0;
}

/* The text of unit's record of kind, NULL for none. */
static const char *record(const char *kind, const char *unit) {
        Record *r = record_find(kind, unit);

        return r ? r->text : NULL;
}

int records_admitted_save(const char *run_dir, const UnitRecord *rec) {
        (void) run_dir;
        return record_save("admitted", rec->unit, unitrecord_format(rec));
}

int records_admitted_load(const char *run_dir, const char *unit, UnitRecord *ret) {
        const char *text = record("admitted", unit);
        DiagList d = {};
        int r;

        (void) run_dir;
        if (!text)
                return -ENOENT;
        r = unitrecord_parse("admitted", text, ret, &d);
        diag_list_done(&d);
        return r;
}

void records_admitted_remove(const char *run_dir, const char *unit) {
        (void) run_dir;
        record_remove("admitted", unit);
}

int records_manual_save(const char *run_dir, const char *unit, const DeadlineRequest *req) {
        (void) run_dir;
        return record_save("manual", unit, dropin_format(req));
}

int records_manual_load(const char *run_dir, const char *unit, DeadlineRequest *req, DiagList *d) {
        const char *text = record("manual", unit);

        (void) run_dir;
        return text ? dropin_parse(req, "manual", text, d) : -ENOENT;
}

void records_manual_remove(const char *run_dir, const char *unit) {
        (void) run_dir;
        record_remove("manual", unit);
}

int records_release_save(const char *run_dir, const char *unit, const char *invocation) {
        (void) run_dir;
        return record_save("released", unit, strdup(invocation ?: ""));
}

void records_release_remove(const char *run_dir, const char *unit) {
        (void) run_dir;
        record_remove("released", unit);
}

bool records_release_held(const char *run_dir, const char *unit, const char *invocation) {
        const char *text = record("released", unit);

        (void) run_dir;
        if (text && streq_ptr(text, invocation))
                return true;
        record_remove("released", unit);
        return false;
}

/* The threads: how often they were followed and watched. */
static struct {
        unsigned followed, unfollowed, watched;
} threads;

void service_threads_follow(Manager *m, Service *s) {
        (void) m, (void) s;
        threads.followed++;
}

void service_threads_unfollow(Manager *m, Service *s) {
        (void) m, (void) s;
        threads.unfollowed++;
}

int service_threads_watch(Manager *m, Service *s) {
        (void) m, (void) s;
        threads.watched++;
        return 0;
}

void service_threads_unwatch(Service *s) {
        (void) s;
}

/* The units: their files in a temporary directory, and what systemd says
 * of each. */
static char dir[] = "/tmp/test-service.XXXXXX";

typedef struct TestUnit {
        char *name, *slice, *cgroup, *file;
} TestUnit;

static TestUnit units[16];
static size_t n_units;

/* Unit name in slice, its unit file text (NULL: none); its cgroup with
 * the cpu controller or not. */
static TestUnit *unit_add(const char *name, const char *slice, const char *text, bool controller) {
        _cleanup_free_ char *sc = unitname_slice_cgroup_path(slice);
        TestUnit *u = &units[n_units++];

        *u = (TestUnit) { .name = strdup(name), .slice = strdup(slice) };
        if (asprintf(&u->cgroup, "%s/%s", sc, name) < 0)
                abort();
        if (text && asprintf(&u->file, "%s/%s", dir, name) >= 0)
                (void) fileio_write_atomic(u->file, text);
        cgroup_add(u->cgroup, controller);
        return u;
}

static TestUnit *unit_get(const char *name) {
        for (size_t i = 0; i < n_units; i++)
                if (streq_ptr(units[i].name, name))
                        return &units[i];
        return NULL;
}

/* What systemd says of unit, in state, for activation invocation. */
static UnitInfo info(const char *name, const char *state, const char *invocation) {
        TestUnit *u = unit_get(name);

        return (UnitInfo) {
                .active_state = (char *) state, .load_state = (char *) "loaded",
                .fragment_path = u->file, .cgroup = u->cgroup, .slice = u->slice,
                .invocation = (char *) invocation,
        };
}

/* What a ServiceAdmitted callback was told. */
static struct {
        unsigned n;
        Service *s;
        int r;
        char error[128];
} told;

static void on_done(Manager *m, Service *s, sd_bus_message *call, int r, const sd_bus_error *error) {
        (void) m, (void) call;
        told.n++;
        told.s = s;
        told.r = r;
        snprintf(told.error, sizeof(told.error), "%s", error && error->name ? error->name : "");
}

static unsigned told_count(void) {
        unsigned n = told.n;

        told.n = 0;
        return n;
}

/* The state of the service dld follows for unit ("-": none). */
static const char *state(Manager *m, const char *unit) {
        Service *s = service_find(m, unit);

        return s ? service_state_to_string(s->state) : "-";
}

/* The bus: calls to dld's end (PrepareUnit, AdmitUnit), to answer. */
static sd_bus *server, *client;
static sd_bus_message *incoming;

typedef struct TestCall {
        sd_bus_message *call, *reply;
        sd_bus_slot *slot;
} TestCall;

/* A call as dld's end receives it: its object /test keeps it, unanswered,
 * for the code under test to answer. */
static sd_bus_message *call_begin(TestCall *c) {
        *c = (TestCall) {};
        if (sd_bus_call_method_async(client, &c->slot, NULL, "/test", "org.dlsched.Test", "Call", testbus_keep,
                                     &c->reply, NULL) < 0 ||
            testbus_run(server, client, &incoming) < 0)
                return NULL;
        c->call = TAKE_PTR(incoming);
        return c->call;
}

static void call_end(TestCall *c) {
        sd_bus_message_unref(c->call);
        sd_bus_message_unref(c->reply);
        sd_bus_slot_unref(c->slot);
        *c = (TestCall) {};
}

/* The answer dld's end gave: the error's name, or the method return's
 * two strings ("STATE REASON"), or "" for an empty one. */
static const char *call_answer(TestCall *c) {
        static char buf[512];
        const char *a = NULL, *b = NULL;

        buf[0] = 0;
        if (testbus_run(server, client, &c->reply) < 0)
                snprintf(buf, sizeof(buf), "(no answer)");
        else if (sd_bus_message_is_method_error(c->reply, NULL))
                snprintf(buf, sizeof(buf), "%s", sd_bus_message_get_error(c->reply)->name);
        else if (sd_bus_message_read(c->reply, "ss", &a, &b) > 0)
                snprintf(buf, sizeof(buf), "%s %s", a, b);
        call_end(c);
        return buf;
}

static Policy policy_of(const char *json) {
        Policy p = {};
        DiagList d = {};

        if (policy_parse(&p, "test.json", json, &d) < 0 || policy_validate(&p, &SYSTEM_BUDGET_DEFAULTS, &d) < 0)
                for (size_t i = 0; i < d.n; i++)
                        printf("# policy: %s\n", d.items[i].message);
        diag_list_done(&d);
        return p;
}

/* A dld: the policy, the groups' slices; no unit followed. */
static void manager_begin(Manager *m) {
        /* media: 10% of each CPU, a request at most 10% of one, 2 services;
         * control: stops a unit refused. The system's budget makes room. */
        static const char *json =
                "{\"system\":{\"sched_dl_runtime_us\":600000,\"sched_rt_runtime_us\":300000},\"groups\":["
                "{\"name\":\"media\",\"slice\":\"deadline-media.slice\",\"runtime_us\":100000,\"period_us\":1000000,"
                "\"max_request_percent\":10,\"max_services\":2,\"on_refusal\":\"degrade\"},"
                "{\"name\":\"control\",\"slice\":\"deadline-control.slice\",\"runtime_us\":100000,"
                "\"period_us\":1000000,\"on_refusal\":\"fail\"}]}";
        Cgroup *c;

        *m = (Manager) { .bus = server, .run_dir = (char *) "/run/dld", .dl_groups = true, .policy = policy_of(json) };
        c = cgroup_add(MEDIA, true);
        c->runtime_us = 100000;
        c = cgroup_add(CONTROL, true);
        c->runtime_us = 100000;
}

static void manager_end(Manager *m) {
        service_lookup_forget_all(m);
        service_forget_all(m);
        policy_done(&m->policy);
        strv_free(m->malformed_cgroups);
        for (size_t i = 0; i < kernel.n; i++)
                free(kernel.cg[i].path);
        kernel.n = 0;
        kernel.n_fail = 0;
        (void) writes();
        for (size_t i = 0; i < n_units; i++) {
                if (units[i].file)
                        (void) unlink(units[i].file);
                free(units[i].name);
                free(units[i].slice);
                free(units[i].cgroup);
                free(units[i].file);
        }
        n_units = 0;
        while (records.n > 0)
                record_remove(records.r[0].kind, records.r[0].unit);
        strv_free(systemd.stopped);
        systemd.stopped = NULL;
        (void) systemd_asked();
        journal_clear();
        (void) told_count();
        threads = (typeof(threads)) {};
}

#define REQUEST(runtime, period) "[Service]\nX-DeadlineRuntime=" runtime "\nX-DeadlinePeriod=" period "\n"

/* The free bandwidth of a group of 10% of each CPU, nothing reserved. */
static const char *free_bw_media(void) {
        static char buf[32];

        snprintf(buf, sizeof(buf), "%" PRIu64, admission_capacity(CPUS, 100000, 1000000));
        return buf;
}

/* Unit name in slice, its files' text (NULL: none), decided for its
 * activation INV1, active, on_done told: what systemd said of it. */
static UnitInfo decide_new(Manager *m, const char *name, const char *slice, const char *text) {
        UnitInfo u;

        unit_add(name, slice, text, true);
        u = info(name, "active", INV1);
        service_decide(m, name, &u, false, NULL, on_done);
        return u;
}

/* The last journal entry is unit's refusal: by whom, the errno's name, in
 * which group, the action taken. */
static void refusal_is(const char *unit, const char *by, const char *err, const char *group, const char *action) {
        is_str(message_id(), "refused", "  MESSAGE_ID: refused");
        is_str(field("UNIT"), unit, "  UNIT=%s", unit);
        is_str(field("DLD_REFUSED_BY"), by, "  DLD_REFUSED_BY=%s", by);
        is_str(field("DLD_ERRNO_NAME"), err, "  DLD_ERRNO_NAME=%s", err);
        is_str(field("DLD_GROUP"), group, "  DLD_GROUP=%s", group);
        is_str(field("DLD_ACTION"), action, "  DLD_ACTION=%s", action);
}

/* dld's answer to a call (call_answer()), once systemd has said u of unit
 * (NULL: it could not be asked); "refused at once" (r < 0). */
static const char *answer_after(TestCall *c, int r, const char *unit, const UnitInfo *u) {
        if (r < 0) {
                call_end(c);
                return "refused at once";
        }
        if (!systemd_answer(unit, u, -ETIMEDOUT)) {
                call_end(c);
                return "systemd not asked";
        }
        return call_answer(c);
}

/* PrepareUnit(unit) from its activation invocation, systemd saying u:
 * dld's answer. */
static const char *prepare(Manager *m, const char *unit, const char *invocation, const UnitInfo *u) {
        TestCall c;

        if (!call_begin(&c))
                return "(no call)";
        return answer_after(&c, service_lookup_unit_starting(m, c.call, unit, invocation, NULL), unit, u);
}

/* AdmitUnit(unit, runtime of each 50ms, 1 thread), systemd saying u: dld's answer. */
static const char *admit_by_hand(Manager *m, const char *unit, uint64_t runtime, const UnitInfo *u) {
        TestCall c;

        if (!call_begin(&c))
                return "(no call)";
        return answer_after(&c, service_lookup_admit_manual(m, c.call, unit, runtime, 0, 50000, 1, NULL), unit, u);
}

/* r: a call refused at once, error set to name (then freed). */
static void refused_at_once(int r, sd_bus_error *error, const char *name, const char *what) {
        ok(r < 0 && streq_ptr(error->name, name), "%s: %s at once", what, name);
        sd_bus_error_free(error);
}

static void test_admitted(Manager *m) {
        UnitInfo u;

        u = decide_new(m, "a.service", "deadline-media.slice", REQUEST("2ms", "50ms"));
        is_int(told_count(), 1, "admitted: the caller is told once");
        ok(told.r == 0 && told.s == service_find(m, "a.service"), "  with 0 and the service");
        is_str(state(m, "a.service"), "admitted", "  the service is admitted");
        is_str(service_find(m, "a.service")->group, "media", "  in the group of its slice");
        is_str(writes(), "a.service cpu.dl_template 1 2000 50000 50000",
               "  its cgroup's template written: 1 task, 2ms/50ms");
        is_int(journal_new(), 1, "  one journal entry");
        is_str(message_id(), "admitted", "  MESSAGE_ID: admitted");
        is_str(field("UNIT"), "a.service", "  UNIT=");
        is_str(field("DLD_GROUP"), "media", "  DLD_GROUP=");
        is_str(field("DLD_RUNTIME_USEC"), "2000", "  DLD_RUNTIME_USEC=");
        is_str(field("DLD_PERIOD_USEC"), "50000", "  DLD_PERIOD_USEC=");
        is_str(field("DLD_RESERVED_BY"), "template", "  DLD_RESERVED_BY=template");
        is_str(field("DLD_SOURCE"), "dropin", "  DLD_SOURCE=dropin");
        is_str(field("DLD_FREE_BW"), free_bw_media(), "  DLD_FREE_BW= the group's slice");
        ok(record("admitted", "a.service") && strstr(record("admitted", "a.service"), "Group=media") &&
           strstr(record("admitted", "a.service"), "Invocation=" INV1),
           "  its record kept: the group and the activation");
        ok(threads.followed == 1 && threads.watched == 1, "  its threads followed, the template's stat watched");
        ok(!systemd.stopped, "  no unit stopped");

        /* The same activation again: from a signal, or dld's own lookup. */
        service_decide(m, "a.service", &u, false, NULL, on_done);
        is_int(told_count(), 1, "decided twice: the caller is told");
        ok(told.r == 0 && told.s == service_find(m, "a.service"), "  that it is decided");
        is_str(writes(), "", "  nothing written again");
        is_int(journal_new(), 0, "  nothing logged again");
        is_int(m->n_services, 1, "  one service");
        ok(service_decided(m, "a.service", INV1), "  service_decided() says so for its activation");
        ok(!service_decided(m, "a.service", INV2) && !service_decided(m, "a.service", NULL),
           "  not for another, nor for an unknown one");
        is_int(service_lookup_unit_active(m, "a.service", INV1), 0, "  active again, in the same activation");
        is_int(systemd_asked(), 0, "  systemd not asked");

        /* dld restarts: the record keeps the decision for the activation. */
        service_forget_all(m);
        service_decide(m, "a.service", &u, false, NULL, on_done);
        is_str(state(m, "a.service"), "admitted", "after a restart of dld: kept admitted, from its record");
        is_str(writes(), "", "  its template in place: nothing written");
        is_int(journal_new(), 0, "  nothing logged");

        /* Another activation: the old decision ends, the new one is made. */
        u.invocation = (char *) INV2;
        service_decide(m, "a.service", &u, false, NULL, NULL);
        is_str(service_find(m, "a.service")->invocation, INV2, "restarted: decided for the new activation");
        is_str(writes(), "a.service cpu.dl_template 0 0 0 0; a.service cpu.dl_template 1 2000 50000 50000",
               "  the old reservation released, the new one written");
        ok(record("admitted", "a.service") && strstr(record("admitted", "a.service"), "Invocation=" INV2),
           "  its record is the new activation's");
}

static void test_refused_by_policy(Manager *m) {
        static const char *no_group = "the unit's slice system.slice belongs to no deadline group of the policy";

        (void) decide_new(m, "stray.service", "system.slice", REQUEST("2ms", "50ms"));
        is_int(told_count(), 1, "no group: the caller is told once");
        is_str(told.error, DLD_ERROR_NOT_IN_GROUP, "  NotInGroup");
        is_str(state(m, "stray.service"), "degraded", "  the service runs degraded");
        ok(!service_find(m, "stray.service")->group, "  in no group");
        is_str(service_find(m, "stray.service")->reason, no_group, "  the reason kept");
        is_str(writes(), "stray.service cpu.dl_runtime_us -1", "  no reservation: only the release of its cgroup's");
        is_int(journal_new(), 1, "  one journal entry");
        refusal_is("stray.service", "policy", "EPERM", "", "degrade");
        is_str(field("ERRNO"), "1", "  ERRNO=1");
        is_str(field("DLD_REASON"), no_group, "  DLD_REASON=");
        is_str(field("DLD_FREE_BW"), "", "  DLD_FREE_BW= empty: no group");
        ok(!record("admitted", "stray.service"), "  no record kept");

        (void) decide_new(m, "big.service", "deadline-media.slice", REQUEST("10ms", "50ms"));
        is_str(told.error, DLD_ERROR_REFUSED, "too large: Refused");
        is_str(state(m, "big.service"), "degraded", "  degraded");
        refusal_is("big.service", "policy", "EPERM", "media", "degrade");
        is_str(field("DLD_REASON"),
               "the request (20.00% of a CPU) is larger than group \"media\" allows (max_request_percent 10.00%)",
               "  DLD_REASON= says by how much");
        is_str(field("DLD_FREE_BW"), free_bw_media(), "  DLD_FREE_BW= the group's");
        is_str(field("DLD_RUNTIME_USEC"), "10000", "  DLD_RUNTIME_USEC= the request's");
        is_str(writes(), "big.service cpu.dl_runtime_us -1", "  no reservation written");

        /* The group's max_services (2). */
        (void) decide_new(m, "a.service", "deadline-media.slice", REQUEST("2ms", "50ms"));
        (void) decide_new(m, "b.service", "deadline-media.slice", REQUEST("2ms", "50ms"));
        (void) decide_new(m, "c.service", "deadline-media.slice", REQUEST("2ms", "50ms"));
        ok(streq_ptr(state(m, "a.service"), "admitted") && streq_ptr(state(m, "b.service"), "admitted"),
           "max_services 2: two services admitted");
        is_str(state(m, "c.service"), "degraded", "  the third degraded");
        is_str(told.error, DLD_ERROR_REFUSED, "  Refused");
        refusal_is("c.service", "policy", "EPERM", "media", "degrade");
        is_str(field("DLD_REASON"), "group \"media\" already holds its maximum of 2 services (max_services)",
               "  DLD_REASON= names max_services");
        is_str(writes(), "a.service cpu.dl_template 1 2000 50000 50000; b.service cpu.dl_template 1 2000 50000 50000; "
               "c.service cpu.dl_runtime_us -1", "  two templates written, none for the third");
        ok(!systemd.stopped, "  degrade: no unit stopped");
}

static void test_refused_by_kernel(Manager *m) {

        kernel_fail(1, (int[]) { -EBUSY });
        (void) decide_new(m, "a.service", "deadline-media.slice", REQUEST("2ms", "50ms"));
        is_str(told.error, DLD_ERROR_REFUSED, "the kernel refuses the template (EBUSY): Refused");
        is_int(told.r, -EBUSY, "  -EBUSY");
        is_str(state(m, "a.service"), "degraded", "  degrade: the service runs degraded");
        is_str(writes(), "a.service cpu.dl_template 1 2000 50000 50000 (EBUSY); a.service cpu.dl_runtime_us -1",
               "  the template refused; the cgroup released");
        is_int(journal_new(), 1, "  one journal entry");
        refusal_is("a.service", "admission", "EBUSY", "media", "degrade");
        is_str(field("ERRNO"), "16", "  ERRNO=16");
        ok(strstr(field("DLD_REASON"), "the kernel refused the template for 1 thread of 4.00% of a CPU in " MEDIA
                  "/a.service (Device or resource busy)"),
           "  DLD_REASON= the kernel's refusal (%s)", field("DLD_REASON"));
        ok(!record("admitted", "a.service"), "  no record kept");
        ok(!systemd.stopped, "  the unit not stopped");

        /* The same in a group that fails the unit. */
        kernel_fail(1, (int[]) { -EBUSY });
        (void) decide_new(m, "ctl.service", "deadline-control.slice", REQUEST("2ms", "50ms"));
        is_str(state(m, "ctl.service"), "failed", "on_refusal fail: the service is failed");
        ok(systemd.stopped && streq_ptr(systemd.stopped[0], "ctl.service") && !systemd.stopped[1],
           "  systemd asked to stop it");
        refusal_is("ctl.service", "admission", "EBUSY", "control", "fail");
}

static void test_admitting(Manager *m) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        TestCall prepare;
        UnitInfo u;

        unit_add("a.service", "deadline-media.slice", REQUEST("2ms", "50ms"), false);
        u = info("a.service", "activating", INV1);
        service_decide(m, "a.service", &u, true, NULL, on_done);
        is_str(state(m, "a.service"), "admitting", "no cpu controller yet: admitting, systemd asked for it");
        ok(systemd.controller_ready, "  the question to systemd sent");
        is_int(told_count(), 0, "  nobody told yet");
        is_int(m->n_admitting, 1, "  one admission under way");

        /* The same activation asked about again meanwhile. */
        service_decide(m, "a.service", &u, true, NULL, on_done);
        is_int(told_count(), 0, "decided again meanwhile: joins the admission under way");
        ok(call_begin(&prepare), "PrepareUnit meanwhile");
        is_int(service_lookup_unit_starting(m, prepare.call, "a.service", INV1, NULL), 1, "  answered later");
        ok(systemd_answer("a.service", &u, 0), "  systemd answers the lookup");
        refused_at_once(service_release_manual(m, "a.service", &error), &error, DLD_ERROR_REFUSED,
                        "ReleaseUnit meanwhile");
        is_str(writes(), "", "  nothing written yet");

        kernel.cg[kernel.n - 1].controller = true;
        systemd.controller_ready(NULL, systemd.controller_userdata, NULL);
        is_int(told_count(), 2, "systemd has the controller: both waiting callers told");
        is_int(told.r, 0, "  admitted");
        is_str(call_answer(&prepare), "admitted ", "  PrepareUnit answered: admitted");
        is_str(state(m, "a.service"), "admitted", "  the service is admitted");
        is_str(writes(), "a.service cpu.dl_template 1 2000 50000 50000", "  one template written");
        is_int(journal_new(), 1, "  one journal entry");
        is_int(m->n_admitting, 0, "  no admission under way");
}

static void test_release_readmit(Manager *m) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        UnitInfo u;

        u = decide_new(m, "a.service", "deadline-media.slice", REQUEST("2ms", "50ms"));
        (void) writes(), (void) journal_new();

        is_int(service_release_manual(m, "a.service", &error), 0, "released by hand");
        is_str(state(m, "a.service"), "released", "  the service is released");
        is_str(writes(), "a.service cpu.dl_template 0 0 0 0", "  its template cleared");
        is_str(message_id(), "released", "  MESSAGE_ID: released");
        is_str(field("DLD_REASON"), "released by hand", "  DLD_REASON=released by hand");
        ok(!record("admitted", "a.service"), "  its admission's record removed");
        is_str(record("released", "a.service"), INV1, "  the release recorded for its activation");
        is_int(threads.unfollowed, 1, "  its threads unfollowed");

        service_decide(m, "a.service", &u, false, NULL, NULL);
        is_str(state(m, "a.service"), "released", "the same activation again: stays released");
        service_forget_all(m);
        service_decide(m, "a.service", &u, false, NULL, NULL);
        is_str(state(m, "a.service"), "released", "after a restart of dld too (its record)");
        is_str(writes(), "", "  nothing written");

        /* AdmitUnit: a request by hand ends the release. */
        is_str(admit_by_hand(m, "a.service", 3000, &u), "", "AdmitUnit a.service 3ms/50ms: succeeds");
        is_int(systemd_asked(), 1, "  once systemd was asked about the unit");
        is_str(state(m, "a.service"), "admitted", "  re-admitted after the release");
        ok(service_find(m, "a.service")->manual, "  by hand");
        is_str(writes(), "a.service cpu.dl_template 1 3000 50000 50000", "  the template of the new request");
        ok(!record("released", "a.service"), "  the release's record removed");
        ok(record("manual", "a.service") && strstr(record("manual", "a.service"), "X-DeadlineRuntime=3ms"),
           "  the request by hand recorded");
        ok(record("admitted", "a.service") && strstr(record("admitted", "a.service"), "Manual=yes"),
           "  the admission's record says by hand");
        is_str(message_id(), "admitted", "  MESSAGE_ID: admitted");
        is_str(field("DLD_SOURCE"), "manual", "  DLD_SOURCE=manual");
        is_str(field("DLD_RUNTIME_USEC"), "3000", "  DLD_RUNTIME_USEC= the new request's");

        /* A new request for the admitted unit: replaces the old one. */
        is_str(admit_by_hand(m, "a.service", 4000, &u), "", "AdmitUnit again, 4ms/50ms: succeeds");
        is_str(writes(), "a.service cpu.dl_template 0 0 0 0; a.service cpu.dl_template 1 4000 50000 50000",
               "  the old template cleared, the new one written");
        is_int(service_find(m, "a.service")->req.runtime_usec, 4000, "  the service has the new request");
        is_str(field("DLD_RUNTIME_USEC"), "4000", "  logged admitted with it");
        ok(record("admitted", "a.service") && strstr(record("admitted", "a.service"), "X-DeadlineRuntime=4ms"),
           "  and recorded");

        /* One the kernel refuses: the old one stays. */
        kernel_fail(2, (int[]) { 0, -EBUSY });
        is_str(admit_by_hand(m, "a.service", 5000, &u), DLD_ERROR_REFUSED,
               "AdmitUnit 5ms/50ms, the kernel refusing it: Refused");
        is_str(writes(), "a.service cpu.dl_template 0 0 0 0; a.service cpu.dl_template 1 5000 50000 50000 (EBUSY); "
               "a.service cpu.dl_template 1 4000 50000 50000", "  the old template put back");
        is_str(state(m, "a.service"), "admitted", "  the service stays admitted");
        is_int(service_find(m, "a.service")->req.runtime_usec, 4000, "  with its old request");
        refusal_is("a.service", "admission", "EBUSY", "media", "none");
        is_str(field("DLD_RUNTIME_USEC"), "5000", "  DLD_RUNTIME_USEC= the refused request's");
        ok(record("admitted", "a.service") && strstr(record("admitted", "a.service"), "X-DeadlineRuntime=4ms"),
           "  its record unchanged");

        /* One the policy refuses: nothing written. */
        is_str(admit_by_hand(m, "a.service", 10000, &u), DLD_ERROR_REFUSED,
               "AdmitUnit 10ms/50ms, larger than the group allows: Refused");
        is_str(writes(), "", "  nothing written");
        is_str(field("DLD_REFUSED_BY"), "policy", "  DLD_REFUSED_BY=policy");
        is_str(state(m, "a.service"), "admitted", "  still admitted");

        /* The kernel refuses the old one back too. */
        kernel_fail(3, (int[]) { 0, -EBUSY, -EBUSY });
        is_str(admit_by_hand(m, "a.service", 5000, &u), DLD_ERROR_REFUSED,
               "AdmitUnit 5ms/50ms, refused, the old one refused back: Refused");
        is_str(state(m, "a.service"), "degraded", "  the service is degraded");
        ok(strstr(service_find(m, "a.service")->reason, "could not be put back"), "  and says why");
        is_str(field("DLD_ACTION"), "none", "  DLD_ACTION=none: admitted by hand");
        ok(!record("admitted", "a.service"), "  its record removed");
        ok(!systemd.stopped, "  the unit not stopped");
        sd_bus_error_free(&error);
}

static void test_bus_entries(Manager *m) {
        UnitInfo u, other;

        unit_add("a.service", "deadline-media.slice", REQUEST("2ms", "50ms"), true);
        unit_add("plain.service", "deadline-media.slice", "[Service]\nExecStart=/bin/true\n", true);
        unit_add("ctl.service", "deadline-control.slice", REQUEST("2ms", "50ms"), true);

        u = info("a.service", "activating", INV1);
        is_str(prepare(m, "a.service", INV1, &u), "admitted ", "PrepareUnit: admitted");
        u = info("plain.service", "activating", INV1);
        is_str(prepare(m, "plain.service", "", &u), "none ", "PrepareUnit for a unit without a request: none");
        is_str(state(m, "plain.service"), "-", "  not followed");
        kernel_fail(1, (int[]) { -EBUSY });
        u = info("ctl.service", "activating", INV1);
        ok(startswith(prepare(m, "ctl.service", INV1, &u), "failed the kernel refused"),
           "PrepareUnit in a group that fails the unit, the kernel refusing: failed, and why");
        ok(systemd.stopped && streq_ptr(systemd.stopped[0], "ctl.service"), "  the unit stopped");
        u = info("a.service", "activating", INV1);
        is_str(prepare(m, "a.service", INV2, &u), DLD_ERROR_UNIT_NOT_ACTIVE,
               "PrepareUnit from another activation: UnitNotActive");
        is_str(prepare(m, "a.service", INV1, NULL), SD_BUS_ERROR_FAILED, "PrepareUnit, systemd not answering: Failed");
        (void) writes(), (void) journal_new(), (void) systemd_asked();

        /* A unit's state changes. */
        is_int(service_lookup_unit_active(m, "b.service", NULL), 0, "active, activation unknown: systemd asked");
        is_int(service_lookup_unit_active(m, "b.service", NULL), 0, "  again before it answers");
        is_int(systemd_asked(), 1, "  asked once");
        service_lookup_unit_restarting(m, "a.service", INV1);
        is_int(systemd_asked(), 0, "activating in the activation decided: systemd not asked");
        service_lookup_unit_restarting(m, "a.service", INV2);
        is_int(systemd_asked(), 1, "activating in another: systemd asked");
        other = info("a.service", "activating", INV2);
        (void) systemd_answer("a.service", &other, 0);
        is_str(state(m, "a.service"), "-", "  a new run: the old decision forgotten");
        ok(!record("admitted", "a.service"), "  its record removed");
        service_lookup_forget_all(m);
        is_int(m->n_lookups, 0, "dld exits: the questions not answered dropped");
}

static void test_bad_input(Manager *m) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        UnitInfo u;

        refused_at_once(service_lookup_unit_starting(m, NULL, "a.socket", "", &error), &error,
                        DLD_ERROR_INVALID_REQUEST, "PrepareUnit a.socket");
        refused_at_once(service_lookup_admit_manual(m, NULL, "a.socket", 2000, 0, 50000, 1, &error), &error,
                        DLD_ERROR_INVALID_REQUEST, "AdmitUnit a.socket");
        refused_at_once(service_lookup_admit_manual(m, NULL, "a.service", 60000, 0, 50000, 1, &error), &error,
                        DLD_ERROR_INVALID_REQUEST, "AdmitUnit with a runtime longer than its period");
        refused_at_once(service_lookup_admit_manual(m, NULL, "a.service", 2000, 0, 50000, 0, &error), &error,
                        DLD_ERROR_INVALID_REQUEST, "AdmitUnit for 0 threads");
        is_int(systemd_asked(), 0, "  systemd not asked for any of them");

        /* A malformed request in the unit's files. */
        u = decide_new(m, "bad.service", "deadline-media.slice",
                       "[Service]\nX-DeadlineRuntime=fast\nX-DeadlinePeriod=50ms\n");
        is_int(told_count(), 1, "a malformed drop-in: the caller is told");
        ok(!told.s && told.r == 0, "  that there is nothing to admit");
        is_str(state(m, "bad.service"), "-", "  the unit is not followed");
        is_str(writes(), "", "  nothing written");
        is_int(journal_new(), 1, "  one journal entry");
        is_str(message_id(), "dropin-invalid", "  MESSAGE_ID: the drop-in is invalid");
        is_str(field("UNIT"), "bad.service", "  UNIT=");
        is_str(field("DLD_FILE"), unit_get("bad.service")->file, "  DLD_FILE= the unit's file");
        is_str(field("DLD_LINE"), "line 2", "  DLD_LINE=");
        ok(strv_contains(m->malformed_cgroups, u.cgroup), "  its cgroup left alone by the orphan sweep");
        ok(service_decided(m, "bad.service", INV1), "  its activation decided: found to request nothing");
        is_int(service_lookup_unit_active(m, "bad.service", INV1), 0, "  active again in it");
        is_int(systemd_asked(), 0, "  systemd not asked");

        unit_add("stray.service", "system.slice", NULL, true);
        u = info("stray.service", "active", INV1);
        is_str(admit_by_hand(m, "stray.service", 2000, &u), DLD_ERROR_NOT_IN_GROUP,
               "AdmitUnit for a unit in no group: NotInGroup");
        is_str(state(m, "stray.service"), "degraded", "  degraded");
        is_str(field("DLD_ACTION"), "none", "  DLD_ACTION=none: by hand, no action");
        ok(!record("manual", "stray.service"), "  no request by hand recorded");

        u = (UnitInfo) { .load_state = (char *) "not-found", .active_state = (char *) "inactive" };
        is_str(admit_by_hand(m, "nosuch.service", 2000, &u), DLD_ERROR_NO_SUCH_UNIT,
               "AdmitUnit for a unit systemd does not know: NoSuchUnit");

        unit_add("idle.service", "deadline-media.slice", NULL, true);
        u = info("idle.service", "inactive", NULL);
        is_str(admit_by_hand(m, "idle.service", 2000, &u), DLD_ERROR_UNIT_NOT_ACTIVE,
               "AdmitUnit for a unit not active: UnitNotActive");
        is_str(state(m, "idle.service"), "-", "  not followed");

        refused_at_once(service_release_manual(m, "nosuch.service", &error), &error, DLD_ERROR_NO_SUCH_SERVICE,
                        "ReleaseUnit for a unit not followed");
        is_str(writes(), "stray.service cpu.dl_runtime_us -1", "no reservation written for any of them");
}

int main(void) {
        static void (* const tests[])(Manager *m) = {
                test_admitted, test_refused_by_policy, test_refused_by_kernel, test_admitting, test_release_readmit,
                test_bus_entries, test_bad_input,
        };
        int r;

        tap_begin();
        if (!mkdtemp(dir)) {
                ok(false, "a temporary directory: %s", strerror(errno));
                return tap_done();
        }
        r = testbus_connect(&server, &client);
        if (r >= 0)
                r = sd_bus_add_object(server, NULL, "/test", testbus_keep, &incoming);
        is_int(r >= 0, 1, "a private connection");
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(tests); i++) {
                Manager m;

                manager_begin(&m);
                tests[i](&m);
                manager_end(&m);
        }
        sd_bus_flush_close_unref(client);
        sd_bus_flush_close_unref(server);
        (void) rmdir(dir);
        return tap_done();
}
