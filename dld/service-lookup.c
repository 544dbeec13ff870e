/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Questions to systemd about a unit (its properties,
 * systemd_unit_info_async()), each answered in the loop: dld never waits
 * for systemd. The answer goes to service.c, which decides; the bus call
 * that waited for it (PrepareUnit, AdmitUnit) is answered here. */
#include "dlsched/dld-bus.h"
#include "log.h"
#include "records.h"
#include "request.h"
#include "service-lookup.h"
#include "service.h"
#include "systemd-client.h"
#include "unitname.h"

typedef enum LookupPurpose {
        LOOKUP_ACTIVE,          /* it became active: decide for it */
        LOOKUP_RESTARTING,      /* a unit followed is activating: a new run? */
        LOOKUP_STARTING,        /* PrepareUnit: decide before its main process starts */
        LOOKUP_ADMIT,           /* AdmitUnit */
} LookupPurpose;

typedef struct UnitLookup {
        Manager *m;
        LookupPurpose purpose;
        char *unit;
        char *invocation;       /* LOOKUP_STARTING: the asking process's activation ("": any) */
        sd_bus_message *call;   /* LOOKUP_STARTING, LOOKUP_ADMIT: the call to answer */
        DeadlineRequest req;    /* LOOKUP_ADMIT */
        UnitInfoQuery *query;
} UnitLookup;

static UnitLookup *lookup_free(UnitLookup *l) {
        if (!l)
                return NULL;
        systemd_unit_info_query_free(l->query);        /* not answered yet: its callback goes */
        sd_bus_message_unref(l->call);
        dropin_request_done(&l->req);
        free(l->unit);
        free(l->invocation);
        free(l);
        return NULL;
}

static void lookup_remove(Manager *m, UnitLookup *l) {
        for (size_t i = 0; i < m->n_lookups; i++)
                if (m->lookups[i] == l) {
                        memmove(&m->lookups[i], &m->lookups[i + 1], (m->n_lookups - i - 1) * sizeof(UnitLookup *));
                        m->n_lookups--;
                        return;
                }
}

static bool lookup_pending(Manager *m, const char *unit, LookupPurpose purpose) {
        for (size_t i = 0; i < m->n_lookups; i++)
                if (m->lookups[i]->purpose == purpose && streq_ptr(m->lookups[i]->unit, unit))
                        return true;
        return false;
}

void service_lookup_forget_all(Manager *m) {
        while (m->n_lookups > 0) {
                UnitLookup *l = m->lookups[--m->n_lookups];

                if (l->call)
                        (void) sd_bus_reply_method_errorf(l->call, DLD_ERROR_UNIT_NOT_ACTIVE,
                                                          "dld is stopping: %s was not decided", l->unit);
                lookup_free(l);
        }
        free(m->lookups);
        m->lookups = NULL;
}

/* PrepareUnit's answer: the state decided ("none": no request). */
static void prepare_answer(Manager *m, Service *s, sd_bus_message *call, int r, const sd_bus_error *error) {
        (void) m, (void) error;
        if (r == -ENOMEM) {
                (void) sd_bus_reply_method_errno(call, r, NULL);
                return;
        }
        if (!s || r == -ESRCH)
                (void) sd_bus_reply_method_return(call, "ss", "none", "");
        else
                (void) sd_bus_reply_method_return(call, "ss", service_state_to_string(s->state), s->reason ?: "");
}

/* AdmitUnit's answer, once admitted or refused. */
static void admit_manual_answer(Manager *m, Service *s, sd_bus_message *call, int r, const sd_bus_error *error) {
        if (r < 0) {
                (void) sd_bus_reply_method_errno(call, r, error);
                return;
        }
        r = records_manual_save(m->run_dir, s->unit, &s->req);
        if (r < 0)
                log_warning("%s: cannot record the manual admission: %s", s->unit, strerror(-r));
        (void) sd_bus_reply_method_return(call, NULL);
}

/* The call of l answered when the lookup gives nothing to decide on:
 * systemd could not be asked (not a verdict on the unit), or knows no
 * such unit. True if answered. */
static bool lookup_answered_empty(UnitLookup *l, int r, const UnitInfo *u, const sd_bus_error *error) {
        if (r < 0)
                (void) sd_bus_reply_method_errorf(l->call, SD_BUS_ERROR_FAILED, "cannot ask systemd about %s: %s",
                                                  l->unit, error && error->message ? error->message : strerror(-r));
        else if (streq_ptr(u->load_state, "not-found"))
                (void) sd_bus_reply_method_errorf(l->call, DLD_ERROR_NO_SUCH_UNIT, "systemd knows no unit %s", l->unit);
        else
                return false;
        return true;
}

static void lookup_starting_answered(Manager *m, UnitLookup *l, int r, const UnitInfo *u, const sd_bus_error *error) {
        if (lookup_answered_empty(l, r, u, error))
                return;
        if (*l->invocation && !streq_ptr(u->invocation, l->invocation)) {
                (void) sd_bus_reply_method_errorf(l->call, DLD_ERROR_UNIT_NOT_ACTIVE,
                                                  "%s is not in its activation %s (systemd has %s)", l->unit,
                                                  l->invocation, u->invocation && *u->invocation ? u->invocation : "none");
                return;
        }
        service_decide(m, l->unit, u, true, l->call, prepare_answer);
}

static void on_lookup_reply(const UnitInfo *info, int r, const sd_bus_error *error, void *userdata) {
        static const UnitInfo none = {};
        const UnitInfo *u = info ?: &none;
        UnitLookup *l = userdata;
        Manager *m = l->m;
        Service *s;

        lookup_remove(m, l);
        switch (l->purpose) {
        case LOOKUP_ACTIVE:
                if (r < 0)
                        log_warning("%s: cannot follow: %s", l->unit, error->message ?: strerror(-r));
                else
                        service_decide(m, l->unit, u, false, NULL, NULL);
                break;
        case LOOKUP_RESTARTING:
                s = service_find(m, l->unit);
                if (r < 0)
                        /* Not a verdict: kept until systemd says it stopped. */
                        log_warning("%s: cannot tell whether it restarted: %s", l->unit,
                                    error->message ?: strerror(-r));
                else if (s && !streq_ptr(u->invocation, s->invocation))
                        service_unit_inactive(m, l->unit);
                break;
        case LOOKUP_STARTING:
                lookup_starting_answered(m, l, r, u, error);
                break;
        case LOOKUP_ADMIT:
                if (!lookup_answered_empty(l, r, u, error))
                        service_admit_manual(m, l->unit, u, &l->req, l->call, admit_manual_answer);
                break;
        }
        lookup_free(l);         /* and its query: sd-bus holds the slot of this answer */
}

/* Asks systemd about unit for purpose; req is taken over (LOOKUP_ADMIT). */
static int lookup_start(Manager *m, LookupPurpose purpose, const char *unit, const char *invocation,
                        sd_bus_message *call, DeadlineRequest *req) {
        UnitLookup *l, **nl;
        int r;

        l = calloc(1, sizeof(UnitLookup));
        if (!l)
                return -ENOMEM;
        *l = (UnitLookup) { .m = m, .purpose = purpose, .unit = strdup(unit), .call = sd_bus_message_ref(call) };
        if (req) {
                l->req = *req;
                *req = (DeadlineRequest) {};
        }
        nl = realloc(m->lookups, (m->n_lookups + 1) * sizeof(UnitLookup *));
        if (nl)
                m->lookups = nl;
        if (!l->unit || !nl || (invocation && !(l->invocation = strdup(invocation)))) {
                lookup_free(l);
                return -ENOMEM;
        }
        r = systemd_unit_info_async(m->bus, &l->query, unit, on_lookup_reply, l);
        if (r < 0) {
                lookup_free(l);
                return r;
        }
        m->lookups[m->n_lookups++] = l;
        return 0;
}

int service_lookup_unit_active(Manager *m, const char *unit, const char *invocation) {
        /* The signal's activation, when it carries one: no call to systemd. */
        if (service_decided(m, unit, invocation))
                return 0;
        /* Asked already: its answer comes after this signal, so it is newer. */
        if (lookup_pending(m, unit, LOOKUP_ACTIVE))
                return 0;
        return lookup_start(m, LOOKUP_ACTIVE, unit, NULL, NULL, NULL);
}

int service_lookup_unit_starting(Manager *m, sd_bus_message *call, const char *unit, const char *invocation,
                                 sd_bus_error *error) {
        int r;

        if (!unitname_is_service(unit))
                return sd_bus_error_setf(error, DLD_ERROR_INVALID_REQUEST, "\"%s\" is not a service unit name", unit);
        r = lookup_start(m, LOOKUP_STARTING, unit, invocation, call, NULL);
        return r < 0 ? r : 1;
}

void service_lookup_unit_restarting(Manager *m, const char *unit, const char *invocation) {
        Service *s = service_find(m, unit);

        if (!s)
                return;
        /* Decided for this activation, from its ExecStartPre=? A signal can
         * be older than the decision: if it disagrees, ask systemd. */
        if (invocation && *invocation && streq_ptr(invocation, s->invocation))
                return;
        if (lookup_pending(m, unit, LOOKUP_RESTARTING))
                return;
        if (lookup_start(m, LOOKUP_RESTARTING, unit, NULL, NULL, NULL) < 0)
                service_unit_inactive(m, unit);
}

int service_lookup_admit_manual(Manager *m, sd_bus_message *call, const char *unit, uint64_t runtime,
                                uint64_t deadline, uint64_t period, unsigned threads, sd_bus_error *error) {
        DeadlineRequest req = {
                .runtime_usec = runtime, .deadline_usec = deadline ?: period, .period_usec = period, .threads = threads,
        };
        int r;

        if (!unitname_is_service(unit))
                return sd_bus_error_setf(error, DLD_ERROR_INVALID_REQUEST, "\"%s\" is not a service unit name", unit);
        r = request_check(&req, error);
        if (r < 0)
                return r;
        r = lookup_start(m, LOOKUP_ADMIT, unit, NULL, call, &req);
        dropin_request_done(&req);
        return r < 0 ? r : 1;
}
