/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CheckPolicy (bus.c) predicts, for the services dld follows, what their
 * admission does: a unit that schedules its own threads
 * (X-DeadlinePromote=none) reserves per CPU at admission
 * (reservation_set()), and so in the prediction; a unit whose threads dld
 * switches reserves through a task template in both.
 *
 * The call goes over a private connection (a socket pair); the modules
 * below bus.c are fakes (this file defines what bus.c calls), but for
 * reservation.c, whose kernel files are (one cgroup, as in
 * test-reservation.c). */
#include <errno.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus.h"
#include "containers.h"
#include "dlsched/dld-bus.h"
#include "polkit.h"
#include "reload.h"
#include "reservation.h"
#include "service-lookup.h"
#include "service-threads.h"
#include "service.h"
#include "tap.h"
#include "testbus.h"
#include "util.h"

#define CPUS 2

/* The kernel: CPUS CPUs, the default budget, one unit cgroup. */
static struct {
        DlTemplate tmpl;
        int64_t runtime_us, period_us;
} cg;

unsigned kernelfs_cpus(KernelFs *k) {
        (void) k;
        return CPUS;
}

int kernelfs_read_budget(KernelFs *k, SystemBudget *ret) {
        (void) k;
        *ret = SYSTEM_BUDGET_DEFAULTS;
        return 0;
}

int kernelfs_read_total_bw(KernelFs *k, uint64_t *ret) {
        (void) k;
        *ret = 0;
        return 0;
}

const char *kernelfs_hierarchy_to_string(CgroupHierarchy h) {
        (void) h;
        return "unified";
}

int kernelfs_template_read(KernelFs *k, const char *cgroup, DlTemplate *ret) {
        (void) k, (void) cgroup;
        *ret = cg.tmpl;
        return 0;
}

int kernelfs_template_write(KernelFs *k, const char *cgroup, const DlTemplate *t) {
        (void) k, (void) cgroup;
        cg.tmpl = *t;
        return 0;
}

int kernelfs_cgroup_read(KernelFs *k, const char *cgroup, const char *file, int64_t *ret) {
        (void) k, (void) cgroup;
        *ret = streq_ptr(file, "cpu.dl_runtime_us") ? cg.runtime_us : cg.period_us;
        return 0;
}

int kernelfs_cgroup_write(KernelFs *k, const char *cgroup, const char *file, int64_t value) {
        (void) k, (void) cgroup;
        *(streq_ptr(file, "cpu.dl_runtime_us") ? &cg.runtime_us : &cg.period_us) = value;
        return 0;
}

/* What CheckPolicy does not call. */
const char *service_state_to_string(ServiceState s) {
        (void) s;
        return "admitted";
}

Service *service_find(Manager *m, const char *unit) {
        (void) m, (void) unit;
        return NULL;
}

unsigned service_count_admitted(Manager *m, const char *group, const Service *except) {
        (void) m, (void) group, (void) except;
        return 0;
}

void service_threads_count(Manager *m, Service *s) {
        (void) m, (void) s;
}

int service_lookup_unit_starting(Manager *m, sd_bus_message *call, const char *unit, const char *invocation,
                                 sd_bus_error *error) {
        (void) m, (void) call, (void) unit, (void) invocation, (void) error;
        return -EOPNOTSUPP;
}

int service_lookup_admit_manual(Manager *m, sd_bus_message *call, const char *unit, uint64_t runtime,
                                uint64_t deadline, uint64_t period, unsigned threads, sd_bus_error *error) {
        (void) m, (void) call, (void) unit, (void) runtime, (void) deadline, (void) period, (void) threads, (void) error;
        return -EOPNOTSUPP;
}

int service_release_manual(Manager *m, const char *unit, sd_bus_error *error) {
        (void) m, (void) unit, (void) error;
        return -EOPNOTSUPP;
}

Service *containers_find(Manager *m, const char *key) {
        (void) m, (void) key;
        return NULL;
}

int containers_admit(Manager *m, sd_bus_message *call, const char *id, const char *name, const char *cgroup,
                     const char *group, uint64_t runtime, uint64_t deadline, uint64_t period, unsigned threads,
                     sd_bus_error *error) {
        (void) m, (void) call, (void) id, (void) name, (void) cgroup, (void) group, (void) runtime, (void) deadline,
                (void) period, (void) threads, (void) error;
        return -EOPNOTSUPP;
}

int containers_release(Manager *m, const char *id, sd_bus_error *error) {
        (void) m, (void) id, (void) error;
        return -EOPNOTSUPP;
}

int reload_request(Manager *m, sd_bus_message *call) {
        (void) m, (void) call;
        return -EOPNOTSUPP;
}

int polkit_check_async(sd_bus_message *call, const char *action_id, PolkitDone done, void *userdata) {
        (void) call, (void) action_id, (void) done, (void) userdata;
        return -EOPNOTSUPP;
}

/* CheckPolicy(policy) on the client, dld's end answering: the reply, or NULL. */
static sd_bus_message *check_policy(sd_bus *server, sd_bus *client, const char *policy) {
        sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method_async(client, NULL, NULL, DLD_BUS_PATH, DLD_BUS_INTERFACE, "CheckPolicy", testbus_keep,
                                     &reply, "a(ss)", 1, "p.json", policy);
        if (r >= 0)
                r = testbus_run(server, client, &reply);
        if (r < 0)
                printf("# CheckPolicy: %s\n", strerror(-r));
        return reply;
}

typedef struct Answer {
        char *errors;           /* the policy's problems, one a line */
        struct { char *unit, *verdict, *reason; } v[8];
        size_t n;
} Answer;

static void answer_done(Answer *a) {
        free(a->errors);
        for (size_t i = 0; i < a->n; i++) {
                free(a->v[i].unit);
                free(a->v[i].verdict);
                free(a->v[i].reason);
        }
        *a = (Answer) {};
}

static int answer_read(sd_bus_message *reply, Answer *ret) {
        const char *s, *u, *v, *why;
        size_t len = 0;
        FILE *f;
        int r;

        *ret = (Answer) {};
        if (sd_bus_message_is_method_error(reply, NULL))
                return -sd_bus_message_get_errno(reply) ?: -EIO;
        f = open_memstream(&ret->errors, &len);
        if (!f)
                return -ENOMEM;
        if ((r = sd_bus_message_enter_container(reply, 'a', "s")) >= 0) {
                while ((r = sd_bus_message_read(reply, "s", &s)) > 0)
                        fprintf(f, "%s\n", s);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
        }
        fclose(f);
        if (r < 0 || (r = sd_bus_message_enter_container(reply, 'a', DLD_VERDICT_SIGNATURE)) < 0)
                return r;
        while (ret->n < ELEMENTSOF(ret->v) && (r = sd_bus_message_read(reply, DLD_VERDICT_SIGNATURE, &u, &v, &why)) > 0) {
                ret->v[ret->n].unit = strdup(u);
                ret->v[ret->n].verdict = strdup(v);
                ret->v[ret->n++].reason = strdup(why);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        return r < 0 ? r : 0;
}

static size_t verdict_of(const Answer *a, const char *unit) {
        for (size_t i = 0; i < a->n; i++)
                if (streq_ptr(a->v[i].unit, unit))
                        return i;
        return SIZE_MAX;
}

/* A service as dld follows it once it has read the unit's files
 * (request_read(), service_new()): the drop-in's request, its threads'
 * promotion resolved. */
static void service_from_dropin(Service *s, const char *unit, const char *slice, const char *dropin) {
        char why[DEADLINE_WHY_MAX];
        DiagList d = {};

        *s = (Service) { .unit = (char *) unit, .slice = (char *) slice, .cgroup = (char *) "/x.slice/x.service" };
        if (dropin_parse(&s->req, "dl.conf", dropin, &d) < 0 || dropin_finish(&s->req, &d) < 0 ||
            dropin_promote_resolve(s->req.promote, false, &s->promote, why, sizeof(why)) < 0)
                printf("# %s: its drop-in is not a valid request\n", unit);
        diag_list_done(&d);
}

int main(void) {
        /* own: 5.0001% of each CPU, 2 x 52429 = 104858, room for a template
         * of one 10% thread (104857), not for the same thread per CPU
         * (501us of each 10ms: 2 x 52533 = 105066). big: half of each CPU.
         * The system's deadline budget (5% by default) makes room for both. */
        static const char *policy =
                "{\"system\":{\"sched_dl_runtime_us\":600000,\"sched_rt_runtime_us\":300000},\"groups\":[{\"name\":\"own\",\"slice\":\"deadline-own.slice\",\"runtime_us\":50001,\"period_us\":1000000},"
                "{\"name\":\"big\",\"slice\":\"deadline-big.slice\",\"runtime_us\":500000,\"period_us\":1000000}]}";
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *wide_reason = NULL;
        sd_bus *server = NULL, *client = NULL;
        Service own, wide, plain, *services[] = { &own, &wide, &plain };
        Manager m = { .services = services, .n_services = ELEMENTSOF(services) };
        uint64_t own_capacity = admission_capacity(CPUS, 50001, 1000000);
        Answer a = {};
        bool lost;
        size_t i;
        int r;

        tap_begin();
        service_from_dropin(&own, "own.service", "deadline-own.slice",
                            "[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlinePromote=none\n");
        service_from_dropin(&wide, "wide.service", "deadline-big.slice",
                            "[Service]\nX-DeadlineRuntime=80ms\nX-DeadlinePeriod=100ms\nX-DeadlineThreads=3\n"
                            "X-DeadlinePromote=none\n");
        service_from_dropin(&plain, "plain.service", "deadline-big.slice",
                            "[Service]\nX-DeadlineRuntime=10ms\nX-DeadlinePeriod=100ms\nX-DeadlineThreads=2\n");
        ok(own.promote == PROMOTE_NONE && wide.promote == PROMOTE_NONE && plain.promote == PROMOTE_CGROUP,
           "own and wide schedule their own threads (X-DeadlinePromote=none), plain does not");

        /* What admission does for each. */
        cg = (typeof(cg)) { .runtime_us = -1, .period_us = 1000000 };
        is_int(reservation_set(&m, &own, &lost), 0, "admission: own's reservation written");
        ok(!own.by_template && cg.runtime_us == 501 && cg.period_us == 10000,
           "admission: own reserves per CPU, 501us of each 10ms");
        ok(own.reserved_bw > own_capacity, "admission: that is more than group own holds (%" PRIu64 " > %" PRIu64 ")",
           own.reserved_bw, own_capacity);
        cg = (typeof(cg)) { .runtime_us = -1, .period_us = 1000000 };
        is_int(reservation_set(&m, &wide, &lost), -ERANGE, "admission: wide's 3 threads of 80%% need more than 2 CPUs");
        wide_reason = reservation_refusal_reason(&m, &wide, &wide.req, -ERANGE, DL_BW_UNLIMITED);
        cg = (typeof(cg)) { .runtime_us = -1, .period_us = 1000000 };
        is_int(reservation_set(&m, &plain, &lost), 0, "admission: plain's reservation written");
        ok(plain.by_template && cg.tmpl.nr == 2, "admission: plain reserves through a template of 2 tasks");

        r = testbus_connect(&server, &client);
        is_int(r, 0, "a private connection");
        if (r < 0)
                return tap_done();
        m.bus = server;
        is_int(bus_register(&m), 0, "dld's object on it");
        reply = check_policy(server, client, policy);
        ok(reply, "CheckPolicy answers");
        is_int(reply ? answer_read(reply, &a) : -EIO, 0, "its answer reads");
        is_str(a.errors, "", "the policy is valid");
        is_int(a.n, 3, "one verdict for each service");

        i = verdict_of(&a, "own.service");
        ok(i < a.n, "a verdict for own");
        if (i < a.n) {
                is_str(a.v[i].verdict, "refused", "own: refused, as its per-CPU reservation does not fit");
                ok(strstr(a.v[i].reason, "the reservation for 1 thread of 10.00% of a CPU") != NULL,
                   "own: the reason names the per-CPU reservation (%s)", a.v[i].reason);
        }
        i = verdict_of(&a, "wide.service");
        ok(i < a.n, "a verdict for wide");
        if (i < a.n) {
                is_str(a.v[i].verdict, "refused", "wide: refused");
                is_str(a.v[i].reason, wide_reason, "wide: for the reason admission gives");
        }
        i = verdict_of(&a, "plain.service");
        ok(i < a.n, "a verdict for plain");
        if (i < a.n)
                is_str(a.v[i].verdict, "admitted", "plain: admitted, its template fits");

        answer_done(&a);
        for (i = 0; i < ELEMENTSOF(services); i++)
                dropin_request_done(&services[i]->req);
        sd_bus_flush_close_unref(client);
        sd_bus_close_unref(server);
        return tap_done();
}
