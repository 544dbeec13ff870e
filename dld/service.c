/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Following services: deciding for an activation on what systemd said about
 * the unit (service-lookup.c asks), reading their requests, admitting them
 * (reservation in the unit's cgroup, threads to SCHED_DEADLINE), refusing,
 * releasing and admitting again by hand. */
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "dlsched/dld-bus.h"
#include "journal.h"
#include "log.h"
#include "records.h"
#include "request.h"
#include "reservation.h"
#include "service-threads.h"
#include "service.h"
#include "systemd-client.h"
#include "timespan.h"


const char *service_state_to_string(ServiceState s) {
        static const char * const names[] = {
                [SERVICE_ADMITTED] = "admitted",
                [SERVICE_DEGRADED] = "degraded",
                [SERVICE_FAILED] = "failed",
                [SERVICE_RELEASED] = "released",
                [SERVICE_ADMITTING] = "admitting",
        };
        return names[s];
}

/* An admission waiting for systemd (the cpu controller of the unit's
 * cgroup), and who waits for its outcome. */
typedef struct AdmitWaiter {
        sd_bus_message *call;           /* NULL: no call to answer */
        ServiceAdmitted done;           /* NULL: nothing to do */
} AdmitWaiter;

typedef struct ServiceAdmission {
        sd_bus_slot *barrier;           /* systemd's answer: the controller is realized */
        bool take_action;
        AdmitWaiter *waiters;
        size_t n_waiters;
} ServiceAdmission;

static ServiceAdmission *admission_free(ServiceAdmission *a) {
        if (!a)
                return NULL;
        sd_bus_slot_unref(a->barrier);
        for (size_t i = 0; i < a->n_waiters; i++)
                sd_bus_message_unref(a->waiters[i].call);
        free(a->waiters);
        free(a);
        return NULL;
}

static int admission_add_waiter(ServiceAdmission *a, sd_bus_message *call, ServiceAdmitted done) {
        AdmitWaiter *w = realloc(a->waiters, (a->n_waiters + 1) * sizeof(AdmitWaiter));

        if (!w)
                return -ENOMEM;
        a->waiters = w;
        a->waiters[a->n_waiters++] = (AdmitWaiter) { .call = sd_bus_message_ref(call), .done = done };
        return 0;
}

static ServiceAdmission *service_take_admission(Manager *m, Service *s) {
        ServiceAdmission *a = s->admission;

        if (a)
                m->n_admitting--;
        s->admission = NULL;
        return a;
}

static void admission_tell(Manager *m, Service *s, const AdmitWaiter *w, size_t n, int r,
                           const sd_bus_error *error) {
        for (size_t i = 0; i < n; i++)
                if (w[i].done)
                        w[i].done(m, s, w[i].call, r, error);
}

static Service *service_free(Manager *m, Service *s) {
        if (s) {
                ServiceAdmission *a = service_take_admission(m, s);

                if (a) {
                        /* Whoever waits is answered: it will not be decided. */
                        const sd_bus_error gone = SD_BUS_ERROR_MAKE_CONST(
                                DLD_ERROR_UNIT_NOT_ACTIVE, "the unit stopped (or dld is stopping) before its admission was decided");

                        admission_tell(m, s, a->waiters, a->n_waiters, -ESRCH, &gone);
                        admission_free(a);
                }
                service_threads_unwatch(s);
                free(s->unit);
                free(s->cgroup);
                free(s->slice);
                free(s->invocation);
                free(s->group);
                free(s->reason);
                free(s->newer_request);
                free(s->container_id);
                free(s->container_name);
                dropin_request_done(&s->req);
                free(s);
        }
        return NULL;
}

Service *service_find(Manager *m, const char *unit) {
        for (size_t i = 0; i < m->n_services; i++)
                if (strcmp(m->services[i]->unit, unit) == 0)
                        return m->services[i];
        return NULL;
}

unsigned service_count_admitted(Manager *m, const char *group, const Service *except) {
        unsigned n = 0;

        for (size_t i = 0; i < m->n_services; i++)
                if (m->services[i] != except && m->services[i]->state == SERVICE_ADMITTED &&
                    streq_ptr(m->services[i]->group, group))
                        n++;
        return n;
}

void service_forget(Manager *m, Service *s) {
        for (size_t i = 0; i < m->n_services; i++)
                if (m->services[i] == s) {
                        memmove(&m->services[i], &m->services[i + 1], (m->n_services - i - 1) * sizeof(Service *));
                        m->n_services--;
                        break;
                }
        service_free(m, s);
}

void service_forget_all(Manager *m) {
        while (m->n_services > 0)
                service_free(m, m->services[--m->n_services]);
        free(m->services);
        m->services = NULL;
        strv_free(m->without_request);
        m->without_request = NULL;
}

static int set_reason(Service *s, const char *reason) {
        char *c = strdup(reason);

        if (!c)
                return -ENOMEM;
        free(s->reason);
        s->reason = c;
        return 0;
}

/* What was admitted for s, kept for a restart of dld (records.h); a
 * container's admission has its own record. */
static void service_keep_record(Manager *m, const Service *s) {
        UnitRecord rec = {
                .unit = s->unit, .invocation = s->invocation, .group = s->group, .cgroup = s->cgroup,
                .manual = s->manual, .req = s->req,
        };
        int r;

        if (s->container_id)
                return;
        r = records_admitted_save(m->run_dir, &rec);
        if (r < 0)
                log_warning("%s: cannot keep the record of its admission: %s; a restart of dld would decide again",
                            s->unit, strerror(-r));
}

/* Logs the refusal, undoes what was done, and takes the group's action
 * (take_action false: admitted by hand, the caller decides). */
static void service_refuse(Manager *m, Service *s, RefusedBy by, int err, const char *reason,
                           uint64_t free_bw, bool take_action) {
        int gi = s->group ? policy_group_by_name(&m->policy, s->group) : -1;
        RefusalAction action = gi >= 0 ? m->policy.groups[gi].on_refusal : REFUSAL_DEGRADE;
        const char *action_name = take_action ? policy_refusal_action_to_string(action) : "none";

        service_threads_unfollow(m, s);
        reservation_release(m, s);
        records_admitted_remove(m->run_dir, s->unit);
        (void) set_reason(s, reason);
        log_warning("%s: deadline request refused by %s: %s", s->unit, predict_refused_by_to_string(by), reason);
        journal_refused(s, s->group, by, err, free_bw, reason, action_name);

        if (take_action && action == REFUSAL_FAIL) {
                s->state = SERVICE_FAILED;
                /* A container being admitted is failed by the hook (its
                 * runtime does not start it); one running is stopped. */
                if (!s->container_id || s->container_started)
                        (void) systemd_stop_unit(m->bus, s->unit);
        } else
                s->state = SERVICE_DEGRADED;
}

/* The kernel refused s's reservation (err): service_refuse() with the
 * kernel's reason, which is returned (NULL on ENOMEM). */
static char *service_refuse_reservation(Manager *m, Service *s, int err, bool take_action) {
        uint64_t free_bw = reservation_group_free_bw(m, s->group);
        char *reason = reservation_refusal_reason(m, s, &s->req, err, free_bw);

        if (reason)
                service_refuse(m, s, REFUSED_BY_ADMISSION, err, reason, free_bw, take_action);
        return reason;
}

/* The group's rules: 0, or s refused (logged, the action taken, error set). */
static int admit_check_policy(Manager *m, Service *s, bool take_action, sd_bus_error *error) {
        _cleanup_free_ char *reason = NULL;
        ServiceRequest sr;
        int gi = -1, r;

        r = reservation_request(s, &s->req, &sr, &reason);
        if (r == 0)
                r = predict_check_request(&m->policy, &sr, &gi, &reason);
        if (r == 0)
                r = predict_check_services(&m->policy.groups[gi],
                                           service_count_admitted(m, m->policy.groups[gi].name, s), &reason);
        /* A container's request comes from its annotations, which whoever
         * runs the container sets: only a group that says so takes them. */
        if (r == 0 && s->container_id && !m->policy.groups[gi].containers)
                r = asprintf(&reason, "group \"%s\" does not admit containers (its policy has no \"containers\": true)",
                             m->policy.groups[gi].name) < 0 ? -ENOMEM : -EPERM;
        free(s->group);
        s->group = gi >= 0 ? strdup(m->policy.groups[gi].name) : NULL;
        if (r == -ENOMEM || r == 0)
                return r;
        service_refuse(m, s, REFUSED_BY_POLICY, -r, reason, reservation_group_free_bw(m, s->group), take_action);
        (void) sd_bus_error_set(error, r == -EINVAL ? DLD_ERROR_INVALID_REQUEST : gi < 0 ? DLD_ERROR_NOT_IN_GROUP
                                : DLD_ERROR_REFUSED, reason);
        return r;
}

/* systemd removes a unit's cgroup when it stops: a kernel file missing
 * there is the unit gone, not a refusal. */
static int unit_stopped(Manager *m, Service *s, sd_bus_error *error) {
        if (kernelfs_unit_cgroup_exists(m->kfs, s->cgroup))
                return 0;
        (void) sd_bus_error_set(error, DLD_ERROR_UNIT_NOT_ACTIVE, "the unit stopped");
        return -ESRCH;          /* nothing to refuse */
}

/* The reservation and the threads, once the unit's cgroup has the cpu
 * controller (controller: what reading its cpu.dl_runtime_us gave). */
static int admit_reserve(Manager *m, Service *s, int controller, bool take_action, sd_bus_error *error) {
        _cleanup_free_ char *reason = NULL;
        int r = controller;

        if (r == -ENOENT && unit_stopped(m, s, error) < 0)
                return -ESRCH;
        if (r < 0) {
                const char *why = r == -ENOENT && !m->dl_groups
                        ? "the kernel has no per-cgroup deadline bandwidth (cpu.dl_runtime_us, CONFIG_DEADLINE_GROUP_SCHED)"
                        : "the unit's cgroup has no cpu.dl_runtime_us (cpu controller not enabled)";

                service_refuse(m, s, REFUSED_BY_ADMISSION, r, why, DL_BW_UNLIMITED, take_action);
                (void) sd_bus_error_set(error, !m->dl_groups ? DLD_ERROR_KERNEL_UNSUPPORTED : DLD_ERROR_REFUSED, why);
                return r;
        }

        r = reservation_set(m, s, &(bool) {false});
        if (r == -ENOENT && unit_stopped(m, s, error) < 0)
                return -ESRCH;
        if (r < 0) {
                reason = service_refuse_reservation(m, s, r, take_action);
                if (!reason)
                        return -ENOMEM;
                (void) sd_bus_error_set(error, DLD_ERROR_REFUSED, reason);
                return r;
        }

        s->state = SERVICE_ADMITTED;
        service_threads_follow(m, s);
        (void) service_threads_watch(m, s);
        free(s->reason);
        s->reason = NULL;
        service_keep_record(m, s);
        journal_admitted(s, reservation_group_free_bw(m, s->group));
        return 0;
}

/* The outcome to whoever waits; a unit that stopped meanwhile is forgotten after. */
static void admission_end(Manager *m, Service *s, const AdmitWaiter *w, size_t n, int r, const sd_bus_error *error) {
        if (s->state == SERVICE_ADMITTING)
                s->state = SERVICE_DEGRADED;    /* -ENOMEM: nothing reserved */
        admission_tell(m, s, w, n, r, error);
        if (r == -ESRCH)
                service_forget(m, s);
}

static int on_controller_ready(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        Service *s = userdata;
        Manager *m = s->manager;
        ServiceAdmission *a = service_take_admission(m, s);
        int r;

        (void) reply, (void) ret_error;
        /* The rules again: another unit of the group may have been admitted,
         * or a reload changed the policy, while this one waited. */
        r = admit_check_policy(m, s, a->take_action, &error);
        if (r == 0) {
                r = kernelfs_cgroup_read(m->kfs, s->cgroup, "cpu.dl_runtime_us", &(int64_t) {0});
                r = admit_reserve(m, s, r, a->take_action, &error);
        }
        admission_end(m, s, a->waiters, a->n_waiters, r, &error);
        admission_free(a);      /* its slot: sd-bus holds it through this callback */
        return 0;
}

/* Asks systemd for the cpu controller of s's cgroup; s waits, and so does w. */
static int admission_start(Manager *m, Service *s, bool take_action, const AdmitWaiter *w) {
        ServiceAdmission *a = calloc(1, sizeof(ServiceAdmission));
        int r;

        if (!a)
                return -ENOMEM;
        a->take_action = take_action;
        r = admission_add_waiter(a, w->call, w->done);
        if (r >= 0)
                r = systemd_cpu_controller_async(m->bus, &a->barrier, s->unit, on_controller_ready, s);
        if (r < 0) {
                admission_free(a);
                return r;
        }
        s->admission = a;
        s->state = SERVICE_ADMITTING;
        m->n_admitting++;
        return 0;
}

void service_admit(Manager *m, Service *s, bool take_action, sd_bus_message *call, ServiceAdmitted done) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        AdmitWaiter w = { .call = call, .done = done };
        int r;

        r = admit_check_policy(m, s, take_action, &error);
        if (r == 0) {
                /* The unit's cgroup needs the cpu controller: asked of
                 * systemd, and read again once it has realized it (no
                 * polling, and the loop goes on meanwhile). */
                r = kernelfs_cgroup_read(m->kfs, s->cgroup, "cpu.dl_runtime_us", &(int64_t) {0});
                if (r == -ENOENT && kernelfs_unit_cgroup_exists(m->kfs, s->cgroup) &&
                    admission_start(m, s, take_action, &w) >= 0)
                        return;
                r = admit_reserve(m, s, r, take_action, &error);
        }
        admission_end(m, s, &w, 1, r, &error);
}

int service_admit_join(Service *s, sd_bus_message *call, ServiceAdmitted done) {
        int r;

        if (!s->admission)
                return 0;
        r = admission_add_waiter(s->admission, call, done);
        return r < 0 ? r : 1;
}

int service_new(Manager *m, const char *unit, const UnitInfo *u, DeadlineRequest *req, bool manual, Service **ret) {
        char why[DEADLINE_WHY_MAX];
        Service *s, **ns;

        s = calloc(1, sizeof(Service));
        if (!s)
                return -ENOMEM;
        s->unit = strdup(unit);
        s->cgroup = u->cgroup ? strdup(u->cgroup) : NULL;
        s->slice = u->slice ? strdup(u->slice) : NULL;
        s->invocation = u->invocation ? strdup(u->invocation) : NULL;
        ns = realloc(m->services, (m->n_services + 1) * sizeof(Service *));
        if (!s->unit || (u->cgroup && !s->cgroup) || (u->slice && !s->slice) || !ns) {
                if (ns)
                        m->services = ns;
                service_free(m, s);
                return -ENOMEM;
        }
        /* read_request() refused what does not resolve (X-DeadlinePromote=cgroup
         * with Delegate=yes); whatever comes here, a delegated unit is never touched. */
        if (dropin_promote_resolve(req->promote, u->delegate, &s->promote, why, sizeof(why)) < 0)
                s->promote = PROMOTE_NONE;
        s->delegated = u->delegate;
        s->req = *req;
        *req = (DeadlineRequest) {};
        s->manual = manual;
        s->state = SERVICE_DEGRADED;    /* until decided */
        s->manager = m;
        m->services = ns;
        m->services[m->n_services++] = s;
        *ret = s;
        return 0;
}

/* Whether s was decided for the activation invocation already. A unit
 * that schedules its own threads then gets its limits, once its processes
 * run (not while it is starting). */
static bool service_decided_for(Manager *m, Service *s, const char *invocation, bool starting) {
        if (!s || !streq_ptr(s->invocation, invocation))
                return false;
        if (!starting && s->state == SERVICE_ADMITTED && s->promote == PROMOTE_NONE)
                service_threads_follow(m, s);
        return true;
}

static char *activation_key(const char *unit, const char *invocation) {
        char *k;

        return asprintf(&k, "%s %s", unit, invocation ?: "") < 0 ? NULL : k;
}

static bool decided_without_request(Manager *m, const char *unit, const char *invocation) {
        _cleanup_free_ char *k = NULL;

        if (!invocation || !*invocation || !(k = activation_key(unit, invocation)))
                return false;
        return strv_contains(m->without_request, k);
}

/* Whether unit's activation invocation (NULL, "": unknown) was decided
 * already: followed for it, or found to request nothing. */
bool service_decided(Manager *m, const char *unit, const char *invocation) {
        Service *s = service_find(m, unit);

        if (invocation && *invocation && service_decided_for(m, s, invocation, false))
                return true;
        return !s && decided_without_request(m, unit, invocation);
}

/* Forgets what was noted for unit's activations (it stopped). */
static void forget_without_request(Manager *m, const char *unit) {
        size_t l = strlen(unit), j = 0;

        for (size_t i = 0; m->without_request && m->without_request[i]; i++) {
                char *k = m->without_request[i];

                if (strncmp(k, unit, l) == 0 && k[l] == ' ')
                        free(k);
                else
                        m->without_request[j++] = k;
        }
        if (m->without_request)
                m->without_request[j] = NULL;
}

static void note_without_request(Manager *m, const char *unit, const char *invocation) {
        _cleanup_free_ char *k = NULL;

        if (!invocation || !*invocation || !(k = activation_key(unit, invocation)))
                return;
        forget_without_request(m, unit);
        (void) strv_extend(&m->without_request, k);    /* only a cache */
}

int service_resume(Manager *m, Service *s) {
        _cleanup_free_ char *reason = NULL;
        int r;

        /* In place already, normally: nothing is written. */
        r = reservation_set(m, s, &(bool) {false});
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                /* Lost while dld was down (someone wrote the cgroup): no action. */
                reason = service_refuse_reservation(m, s, r, false);
                return reason ? r : -ENOMEM;
        }
        s->state = SERVICE_ADMITTED;
        service_threads_follow(m, s);
        (void) service_threads_watch(m, s);
        return 0;
}

/* After a restart of dld: what it admitted for this activation of unit
 * stays as it was, whatever the unit's files or the policy say now (a new
 * request applies from the unit's next start, or by hand). 0: kept;
 * -ENOENT: nothing kept for this activation. */
static int service_adopt(Manager *m, const char *unit, const UnitInfo *u) {
        _cleanup_(unitrecord_done) UnitRecord rec = {};
        DeadlineRequest now;
        bool manual;
        Service *s;
        int r;

        r = records_admitted_load(m->run_dir, unit, &rec);
        if (r < 0)
                return r == -ENOMEM ? r : -ENOENT;
        if (!streq_ptr(rec.invocation, u->invocation) || !streq_ptr(rec.cgroup, u->cgroup)) {
                records_admitted_remove(m->run_dir, unit);     /* an earlier run's */
                return -ENOENT;
        }
        r = service_new(m, unit, u, &rec.req, rec.manual, &s);
        if (r < 0)
                return r;
        s->group = steal_pointer(&rec.group);
        r = service_resume(m, s);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;

        r = request_read(m->run_dir, unit, u, &now, &manual);
        if (r == -ENOMEM)
                return r;
        if (r == 0 && !dropin_request_same(&now, &s->req))
                s->newer_request = dropin_request_describe(&now);
        else if (r == -ENOENT)
                s->newer_request = strdup("none: its files no longer ask for bandwidth");
        else if (r == -EINVAL)
                s->newer_request = strdup("malformed: see the journal");
        if (r == 0)
                dropin_request_done(&now);
        log_info("%s: admitted before dld restarted, kept as it was%s%s", unit,
                 s->newer_request ? "; for its next start its files ask for " : "", s->newer_request ?: "");
        return 0;
}

/* Decides for the activation u of unit, once: admits its request, if it
 * has one. starting: asked from the unit's ExecStartPre= (it is still
 * activating, its main process not yet started). 1: done goes with the
 * admission; else the decision is made (0) or failed (-ENOMEM). */
static int decide(Manager *m, const char *unit, const UnitInfo *u, bool starting, sd_bus_message *call,
                  ServiceAdmitted done) {
        DeadlineRequest req;
        bool manual;
        Service *s;
        int r;

        s = service_find(m, unit);
        if (s && s->admission && streq_ptr(s->invocation, u->invocation))
                return call || done ? service_admit_join(s, call, done) : 0;
        if (service_decided_for(m, s, u->invocation, starting))
                return 0;
        if (s)
                /* Restarted without dld seeing it stop (systemd coalesces
                 * state changes): what was decided is for a past run. */
                service_unit_inactive(m, unit);
        if (!u->cgroup || !*u->cgroup ||
            !(streq_ptr(u->active_state, "active") || streq_ptr(u->active_state, "reloading") ||
              (starting && streq_ptr(u->active_state, "activating"))))
                return 0;       /* stopped again before we got here */
        r = service_adopt(m, unit, u);
        if (r != -ENOENT)
                return r == -ENOMEM ? r : 0;
        r = request_read(m->run_dir, unit, u, &req, &manual);
        if (r == -ENOENT || r == -EINVAL)
                note_without_request(m, unit, u->invocation);
        if (r == -EINVAL && !m->swept)
                (void) strv_extend(&m->malformed_cgroups, u->cgroup);
        if (r < 0)
                return r == -ENOENT || r == -EINVAL ? 0 : r;
        r = service_new(m, unit, u, &req, manual, &s);
        dropin_request_done(&req);
        if (r < 0)
                return r;
        if (records_release_held(m->run_dir, unit, u->invocation)) {
                s->state = SERVICE_RELEASED;
                log_info("%s: released by hand in this run of the unit: not admitted again", unit);
                return 0;
        }
        service_admit(m, s, true, call, done);
        return 1;
}

/* decide(), and done (when given) told the outcome either way. */
void service_decide(Manager *m, const char *unit, const UnitInfo *u, bool starting, sd_bus_message *call,
                    ServiceAdmitted done) {
        int r = decide(m, unit, u, starting, call, done);

        if (r == 1)
                return;
        if (r < 0)
                log_warning("%s: cannot follow: %s", unit, strerror(-r));
        if (done)
                done(m, service_find(m, unit), call, r, NULL);
}

static int admission_under_way(sd_bus_error *error, const char *unit) {
        return sd_bus_error_setf(error, DLD_ERROR_REFUSED,
                                 "an admission of %s is under way: ask again once it is decided", unit);
}

void service_unit_inactive(Manager *m, const char *unit) {
        Service *s = service_find(m, unit);

        forget_without_request(m, unit);
        records_admitted_remove(m->run_dir, unit);
        records_manual_remove(m->run_dir, unit);
        records_release_remove(m->run_dir, unit);
        if (!s)
                return;
        if (s->state == SERVICE_ADMITTED) {
                /* Normally systemd removes the cgroup and the kernel gives the
                 * reservation back; a cgroup that lingers is released here. */
                reservation_release(m, s);
                journal_released(s, "the unit stopped");
        }
        service_forget(m, s);
}

/* A new request by hand for an admitted service: the new reservation and
 * parameters replace the old ones only if all of them are accepted; a
 * refusal leaves the working admission exactly as it was. */
static int service_readmit(Manager *m, Service *s, DeadlineRequest *req, sd_bus_error *error) {
        _cleanup_free_ char *reason = NULL, *why = NULL;
        DeadlineRequest old = s->req;
        ServiceRequest sr;
        Service refused;
        RefusedBy by = REFUSED_BY_POLICY;
        bool lost = false;
        int gi = -1, r;

        r = reservation_request(s, req, &sr, &reason);
        if (r == 0)
                r = predict_check_request(&m->policy, &sr, &gi, &reason);
        if (r == -ENOMEM)
                return r;
        if (r == 0 && (!s->group || gi != policy_group_by_name(&m->policy, s->group)))
                r = asprintf(&reason, "the new request is for group \"%s\", the admission is in \"%s\": release it first",
                             m->policy.groups[gi].name, s->group ?: "(none)") < 0 ? -ENOMEM : -EPERM;
        if (r == 0) {
                by = REFUSED_BY_ADMISSION;
                s->req = *req;
                r = reservation_set(m, s, &lost);
                if (r < 0) {
                        s->req = old;
                        reason = reservation_refusal_reason(m, s, req, r, reservation_group_free_bw(m, s->group));
                        if (!reason)
                                return -ENOMEM;
                } else
                        service_threads_follow(m, s);
        }
        if (r == -ENOMEM)
                return r;
        if (r < 0 && lost) {
                /* The kernel refused the old reservation back (someone took
                 * its room meanwhile): the unit runs as normal tasks now, and
                 * shows the request refused, as any degraded unit does. */
                if (asprintf(&why, "%s; the existing admission could not be put back: the unit runs as normal tasks",
                             reason) < 0)
                        return -ENOMEM;
                s->req = *req;
                *req = old;
                service_refuse(m, s, REFUSED_BY_ADMISSION, r, why, reservation_group_free_bw(m, s->group), false);
                (void) sd_bus_error_set(error, DLD_ERROR_REFUSED, why);
                return r;
        }
        if (r < 0) {
                refused = *s;
                refused.req = *req;
                journal_refused(&refused, s->group, by, r, reservation_group_free_bw(m, s->group), reason, "none");
                log_warning("%s: new request refused by %s, the admission stays as it was: %s", s->unit,
                            predict_refused_by_to_string(by), reason);
                if (asprintf(&why, "%s; the existing admission stays as it was", reason) < 0)
                        return -ENOMEM;
                (void) sd_bus_error_set(error, DLD_ERROR_REFUSED, why);
                return r;
        }
        dropin_request_done(&old);
        s->req = *req;
        *req = (DeadlineRequest) {};
        s->manual = true;
        free(s->newer_request);
        s->newer_request = NULL;
        service_keep_record(m, s);
        journal_admitted(s, reservation_group_free_bw(m, s->group));
        return 0;
}

void service_admit_manual(Manager *m, const char *unit, const UnitInfo *u, DeadlineRequest *req,
                          sd_bus_message *call, ServiceAdmitted done) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        Service *s = NULL;
        int r = 0;

        if (!streq_ptr(u->active_state, "active") && !streq_ptr(u->active_state, "reloading"))
                r = sd_bus_error_setf(&error, DLD_ERROR_UNIT_NOT_ACTIVE, "%s is %s, not active: nothing to admit", unit,
                                      u->active_state ?: "unknown");
        else if (!u->cgroup || !*u->cgroup)     /* it stopped between systemd's answers */
                r = sd_bus_error_setf(&error, DLD_ERROR_UNIT_NOT_ACTIVE, "%s is stopping: nothing to admit", unit);
        if (r < 0)
                goto answer;
        s = service_find(m, unit);
        if (s && s->admission) {
                r = admission_under_way(&error, unit);
                goto answer;
        }
        records_release_remove(m->run_dir, unit);
        if (s && s->state == SERVICE_ADMITTED) {
                r = service_readmit(m, s, req, &error);
                goto answer;
        }
        if (s) {
                dropin_request_done(&s->req);
                s->req = *req;
                *req = (DeadlineRequest) {};
                s->manual = true;
        } else {
                r = service_new(m, unit, u, req, true, &s);
                if (r < 0)
                        goto answer;
        }
        service_admit(m, s, false, call, done);
        return;
answer:
        done(m, s, call, r, &error);
}

int service_release_manual(Manager *m, const char *unit, sd_bus_error *error) {
        Service *s = service_find(m, unit);
        int r;

        if (!s)
                return sd_bus_error_setf(error, DLD_ERROR_NO_SUCH_SERVICE, "dld does not manage %s", unit);
        if (s->admission)
                return admission_under_way(error, unit);
        if (s->container_id)
                return sd_bus_error_setf(error, DLD_ERROR_INVALID_REQUEST,
                                         "%s is the scope of container %s: it is released when the container stops",
                                         unit, s->container_name);
        records_manual_remove(m->run_dir, unit);
        records_admitted_remove(m->run_dir, unit);
        r = records_release_save(m->run_dir, unit, s->invocation);
        if (r < 0)
                log_warning("%s: cannot record the release: %s; a restart of dld would admit it again",
                            unit, strerror(-r));
        if (s->state == SERVICE_ADMITTED) {
                service_threads_unfollow(m, s);
                reservation_release(m, s);
                journal_released(s, "released by hand");
        }
        s->state = SERVICE_RELEASED;
        return 0;
}

