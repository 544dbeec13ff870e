/* SPDX-License-Identifier: GPL-2.0-or-later */
/* org.dlsched.Dld1.Manager: see org.dlsched.Dld1.xml. */
#include "bus.h"
#include "containers.h"
#include "dlsched/dld-bus.h"
#include "log.h"
#include "polkit.h"
#include "predict.h"
#include "reload.h"
#include "reservation.h"
#include "service-lookup.h"
#include "service-threads.h"
#include "service.h"
#include "unitname.h"

/* CheckPolicy: the most files one call may hold. */
#define CHECK_POLICY_FILES_MAX 256

/* Anyone may read. Writes by hand need root or polkit (verify_manage());
 * the calls of units starting and of the OCI hook come from root and take
 * root only. */
static int sender_euid(sd_bus_message *msg, uid_t *ret) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        int r;

        r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_EUID, &creds);
        if (r < 0)
                return r;
        return sd_bus_creds_get_euid(creds, ret);
}

static int check_root(sd_bus_message *msg, sd_bus_error *error) {
        uid_t uid;
        int r;

        if ((r = sender_euid(msg, &uid)) < 0)
                return r;
        if (uid != 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "only root may call %s",
                                         sd_bus_message_get_member(msg));
        return 0;
}

static int property_get(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        SystemBudget b = SYSTEM_BUDGET_DEFAULTS;
        uint64_t total = 0;

        (void) bus, (void) path, (void) interface, (void) error;
        (void) kernelfs_read_budget(m->kfs, &b);
        if (strcmp(property, "Version") == 0)
                return sd_bus_message_append(reply, "s", DLD_VERSION);
        if (strcmp(property, "PolicyDirectory") == 0)
                return sd_bus_message_append(reply, "s", m->policy_dir);
        if (strcmp(property, "PolicyFiles") == 0)
                return sd_bus_message_append_strv(reply, m->policy.files ?: (char *[]) { NULL });
        if (strcmp(property, "CgroupHierarchy") == 0)
                return sd_bus_message_append(reply, "s", kernelfs_hierarchy_to_string(m->kfs->hierarchy));
        if (strcmp(property, "CPUs") == 0)
                return sd_bus_message_append(reply, "u", kernelfs_cpus(m->kfs));
        if (strcmp(property, "SystemRuntimeUSec") == 0)
                return sd_bus_message_append(reply, "x", b.dl_runtime_us);
        if (strcmp(property, "SystemPeriodUSec") == 0)
                return sd_bus_message_append(reply, "t", b.dl_period_us);
        if (strcmp(property, "SystemBandwidth") == 0)
                return sd_bus_message_append(reply, "t", admission_capacity(kernelfs_cpus(m->kfs), b.dl_runtime_us, b.dl_period_us));
        if (strcmp(property, "SystemAllocated") == 0) {
                (void) kernelfs_read_total_bw(m->kfs, &total);
                return sd_bus_message_append(reply, "t", total);
        }
        if (strcmp(property, "RTRuntimeUSec") == 0)
                return sd_bus_message_append(reply, "x", b.rt_runtime_us);
        if (strcmp(property, "RTPeriodUSec") == 0)
                return sd_bus_message_append(reply, "t", b.rt_period_us);
        return -ENOENT;
}

static int append_group(Manager *m, sd_bus_message *reply, const PolicyGroup *g) {
        _cleanup_free_ char *cg = unitname_slice_cgroup_path(g->slice);
        unsigned cpus = kernelfs_cpus(m->kfs);
        uint64_t reserved = admission_capacity(cpus, g->runtime_us, g->period_us);
        int64_t allocated = 0;

        if (cg)
                (void) kernelfs_cgroup_read(m->kfs, cg, "cpu.dl_total_bw", &allocated);
        if (allocated < 0)
                allocated = 0;
        return sd_bus_message_append(reply, DLD_GROUP_SIGNATURE, g->name, g->slice, g->runtime_us, g->period_us,
                                     reserved, (uint64_t) allocated,
                                     reserved > (uint64_t) allocated ? reserved - (uint64_t) allocated : (uint64_t) 0,
                                     g->max_request_bw, g->max_services,
                                     service_count_admitted(m, g->name, NULL),
                                     policy_refusal_action_to_string(g->on_refusal));
}

/* Replies with an array of n elements of signature sig, each appended by append(m, reply, i). */
static int reply_array(sd_bus_message *msg, Manager *m, const char *sig, size_t n,
                       int (*append)(Manager *m, sd_bus_message *reply, size_t i), sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        (void) error;
        if ((r = sd_bus_message_new_method_return(msg, &reply)) < 0 ||
            (r = sd_bus_message_open_container(reply, 'a', sig)) < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if ((r = append(m, reply, i)) < 0)
                        return r;
        if ((r = sd_bus_message_close_container(reply)) < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int append_group_at(Manager *m, sd_bus_message *reply, size_t i) {
        return append_group(m, reply, &m->policy.groups[i]);
}

static int method_list_groups(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;

        return reply_array(msg, m, DLD_GROUP_SIGNATURE, m->policy.n_groups, append_group_at, error);
}

/* On the bus, 0 threads is "all" (one per CPU). */
static uint32_t threads_to_bus(unsigned threads) {
        return threads == DL_THREADS_ALL ? 0 : threads;
}

static unsigned threads_from_bus(uint32_t threads) {
        return threads == 0 ? DL_THREADS_ALL : threads;
}

static int append_service(sd_bus_message *reply, const Service *s) {
        return sd_bus_message_append(reply, DLD_SERVICE_SIGNATURE, s->unit, s->group ?: "",
                                     service_state_to_string(s->state),
                                     s->req.runtime_usec, s->req.deadline_usec, s->req.period_usec,
                                     threads_to_bus(s->req.threads),
                                     s->state == SERVICE_ADMITTED ? s->reserved_bw : (uint64_t) 0,
                                     s->threads_dl, s->threads_total,
                                     s->container_id ? "container" : s->manual ? "manual" : "dropin", s->reason ?: "",
                                     s->container_id ?: "", s->container_name ?: "", s->newer_request ?: "");
}

/* Threads are counted when asked: nothing polls them. */
static void count_threads(Manager *m, Service *s) {
        service_threads_count(m, s);
}

static int append_service_at(Manager *m, sd_bus_message *reply, size_t i) {
        count_threads(m, m->services[i]);
        return append_service(reply, m->services[i]);
}

static int method_list_services(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;

        return reply_array(msg, m, DLD_SERVICE_SIGNATURE, m->n_services, append_service_at, error);
}

static int method_get_service(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Manager *m = userdata;
        const char *unit;
        Service *s;
        int r;

        if ((r = sd_bus_message_read(msg, "s", &unit)) < 0)
                return r;
        s = service_find(m, unit) ?: containers_find(m, unit);
        if (!s)
                return sd_bus_error_setf(error, DLD_ERROR_NO_SUCH_SERVICE, "dld does not manage %s", unit);
        count_threads(m, s);
        if ((r = sd_bus_message_new_method_return(msg, &reply)) < 0 ||
            (r = append_service(reply, s)) < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int admit_unit(sd_bus_message *msg, Manager *m, sd_bus_error *error) {
        const char *unit;
        uint64_t runtime, deadline, period;
        uint32_t threads;
        int r;

        if ((r = sd_bus_message_read(msg, "stttu", &unit, &runtime, &deadline, &period, &threads)) < 0)
                return r;
        /* Answered once systemd has told dld about the unit. */
        return service_lookup_admit_manual(m, msg, unit, runtime, deadline, period, threads_from_bus(threads), error);
}

static int release_unit(sd_bus_message *msg, Manager *m, sd_bus_error *error) {
        const char *unit;
        int r;

        if ((r = sd_bus_message_read(msg, "s", &unit)) < 0)
                return r;
        r = service_release_manual(m, unit, error);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, NULL);
}

/* Answered when the reload is done: systemd may have slices to start. */
static int reload(sd_bus_message *msg, Manager *m, sd_bus_error *error) {
        (void) error;
        return reload_request(m, msg);
}

/* The writes by hand, by method name. */
typedef int (*ManageMethod)(sd_bus_message *msg, Manager *m, sd_bus_error *error);
static const struct {
        const char *member;
        ManageMethod method;
} manage_methods[] = {
        { "AdmitUnit", admit_unit },
        { "ReleaseUnit", release_unit },
        { "Reload", reload },
};

static ManageMethod manage_method_of(sd_bus_message *msg) {
        const char *member = sd_bus_message_get_member(msg);

        for (size_t i = 0; member && i < ELEMENTSOF(manage_methods); i++)
                if (strcmp(manage_methods[i].member, member) == 0)
                        return manage_methods[i].method;
        return NULL;
}

/* polkit answered: run the call, or send its refusal. */
static int manage_answered(sd_bus_message *msg, void *userdata, bool authorized, const sd_bus_error *polkit_error) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        ManageMethod method = manage_method_of(msg);
        int r;

        if (!authorized) {
                log_info("%s refused to a caller without root: %s", sd_bus_message_get_member(msg),
                         polkit_error->message ?: polkit_error->name);
                if (sd_bus_error_has_names(polkit_error, SD_BUS_ERROR_ACCESS_DENIED,
                                           SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED))
                        return sd_bus_reply_method_error(msg, polkit_error);
                return sd_bus_reply_method_errorf(msg, SD_BUS_ERROR_ACCESS_DENIED,
                                                  "not root, and polkit could not be asked: %s",
                                                  polkit_error->message ?: polkit_error->name);
        }
        r = method(msg, userdata, &error);
        if (r < 0)
                return sd_bus_reply_method_errno(msg, r, &error);
        return 0;
}

/* A write by hand: root at once; anyone else once polkit allows
 * POLKIT_ACTION_MANAGE. The loop goes on meanwhile: the call is answered
 * when polkit has. */
static int method_manage(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        ManageMethod method = manage_method_of(msg);
        uid_t uid;
        int r;

        if (!method)
                return -EOPNOTSUPP;
        if ((r = sender_euid(msg, &uid)) < 0)
                return r;
        if (uid == 0)
                return method(msg, userdata, error);
        r = polkit_check_async(msg, POLKIT_ACTION_MANAGE, manage_answered, userdata);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "cannot ask polkit: %s", strerror(-r));
        return 1;
}

static int method_prepare_unit(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *unit, *invocation;
        int r;

        if ((r = check_root(msg, error)) < 0)
                return r;
        if ((r = sd_bus_message_read(msg, "ss", &unit, &invocation)) < 0)
                return r;
        /* Answered once decided. */
        return service_lookup_unit_starting(m, msg, unit, invocation, error);
}

static int method_admit_container(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *id, *name, *cgroup, *group;
        uint64_t runtime, deadline, period;
        uint32_t threads;
        int r;

        if ((r = check_root(msg, error)) < 0)
                return r;
        if ((r = sd_bus_message_read(msg, "sssstttu", &id, &name, &cgroup, &group, &runtime, &deadline, &period,
                                     &threads)) < 0)
                return r;
        /* Answered once decided. */
        return containers_admit(m, msg, id, name, cgroup, group, runtime, deadline, period, threads_from_bus(threads),
                                error);
}

static int method_release_container(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *id;
        int r;

        if ((r = check_root(msg, error)) < 0)
                return r;
        if ((r = sd_bus_message_read(msg, "s", &id)) < 0)
                return r;
        r = containers_release(m, id, error);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, NULL);
}

static int method_check_policy(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ ServiceRequest *reqs = NULL;
        _cleanup_free_ Verdict *verdicts = NULL;
        Manager *m = userdata;
        SystemBudget cur = SYSTEM_BUDGET_DEFAULTS;
        const char *name, *text;
        Policy p = {};
        DiagList d = {};
        size_t n_files = 0, in_bytes = 0;
        int r, valid;

        (void) kernelfs_read_budget(m->kfs, &cur);
        if ((r = sd_bus_message_enter_container(msg, 'a', "(ss)")) < 0)
                return r;
        while ((r = sd_bus_message_read(msg, "(ss)", &name, &text)) > 0) {
                /* Anyone may ask: no more than a policy directory holds. */
                size_t l = strlen(text);

                if (++n_files > CHECK_POLICY_FILES_MAX || l > CONFIG_FILE_MAX - in_bytes) {
                        r = sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                              "at most %d files of " CONFIG_FILE_MAX_TEXT " in all may be checked",
                                              CHECK_POLICY_FILES_MAX);
                        goto finish;
                }
                in_bytes += l;
                if (policy_parse(&p, name, text, &d) == -ENOMEM) {
                        r = -ENOMEM;
                        break;
                }
        }
        if (r < 0)
                goto finish;
        valid = d.n == 0 && policy_validate(&p, &cur, &d) == 0;

        if ((r = sd_bus_message_new_method_return(msg, &reply)) < 0 ||
            (r = sd_bus_message_open_container(reply, 'a', "s")) < 0)
                goto finish;
        for (size_t i = 0; i < d.n; i++) {
                _cleanup_free_ char *line = diag_format(&d.items[i]);

                if (!line || (r = sd_bus_message_append(reply, "s", line)) < 0) {
                        r = line ? r : -ENOMEM;
                        goto finish;
                }
        }
        if ((r = sd_bus_message_close_container(reply)) < 0 ||
            (r = sd_bus_message_open_container(reply, 'a', DLD_VERDICT_SIGNATURE)) < 0)
                goto finish;
        if (valid && m->n_services > 0) {
                reqs = calloc(m->n_services, sizeof(ServiceRequest));
                verdicts = calloc(m->n_services, sizeof(Verdict));
                if (!reqs || !verdicts) {
                        r = -ENOMEM;
                        goto finish;
                }
                for (size_t i = 0; i < m->n_services; i++) {
                        _cleanup_free_ char *why = NULL;
                        Service *s = m->services[i];

                        /* As admission reserves it: per CPU for a unit that schedules its own threads. */
                        r = reservation_request(s, &s->req, &reqs[i], &why);
                        if (r < 0) {
                                if (why)
                                        r = sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "%s: %s", s->unit, why);
                                goto finish;
                        }
                }
                if ((r = predict_policy(&p, kernelfs_cpus(m->kfs), reqs, m->n_services, verdicts)) < 0)
                        goto finish;
                for (size_t i = 0; i < m->n_services && r >= 0; i++)
                        r = sd_bus_message_append(reply, DLD_VERDICT_SIGNATURE, reqs[i].unit,
                                                  verdicts[i].admitted ? "admitted" : "refused",
                                                  verdicts[i].reason ?: "");
                predict_verdicts_done(verdicts, m->n_services);
                if (r < 0)
                        goto finish;
        }
        if ((r = sd_bus_message_close_container(reply)) < 0)
                goto finish;
        r = sd_bus_send(NULL, reply, NULL);
finish:
        policy_done(&p);
        diag_list_done(&d);
        return r;
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("PolicyDirectory", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("PolicyFiles", "as", property_get, 0, 0),
        SD_BUS_PROPERTY("CgroupHierarchy", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CPUs", "u", property_get, 0, 0),
        SD_BUS_PROPERTY("SystemRuntimeUSec", "x", property_get, 0, 0),
        SD_BUS_PROPERTY("SystemPeriodUSec", "t", property_get, 0, 0),
        SD_BUS_PROPERTY("SystemBandwidth", "t", property_get, 0, 0),
        SD_BUS_PROPERTY("SystemAllocated", "t", property_get, 0, 0),
        SD_BUS_PROPERTY("RTRuntimeUSec", "x", property_get, 0, 0),
        SD_BUS_PROPERTY("RTPeriodUSec", "t", property_get, 0, 0),
        SD_BUS_METHOD_WITH_ARGS("ListGroups", SD_BUS_NO_ARGS, SD_BUS_RESULT("a" DLD_GROUP_SIGNATURE, groups),
                                method_list_groups, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListServices", SD_BUS_NO_ARGS, SD_BUS_RESULT("a" DLD_SERVICE_SIGNATURE, services),
                                method_list_services, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetService", SD_BUS_ARGS("s", unit), SD_BUS_RESULT(DLD_SERVICE_SIGNATURE, service),
                                method_get_service, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("AdmitUnit",
                                SD_BUS_ARGS("s", unit, "t", runtime_usec, "t", deadline_usec, "t", period_usec, "u", threads),
                                SD_BUS_NO_RESULT, method_manage, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ReleaseUnit", SD_BUS_ARGS("s", unit), SD_BUS_NO_RESULT,
                                method_manage, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("PrepareUnit", SD_BUS_ARGS("s", unit, "s", invocation_id),
                                SD_BUS_RESULT("s", state, "s", reason), method_prepare_unit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("AdmitContainer",
                                SD_BUS_ARGS("s", id, "s", name, "s", cgroup, "s", group, "t", runtime_usec,
                                            "t", deadline_usec, "t", period_usec, "u", threads),
                                SD_BUS_RESULT("s", state, "s", reason), method_admit_container, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ReleaseContainer", SD_BUS_ARGS("s", id), SD_BUS_NO_RESULT,
                                method_release_container, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Reload", NULL, NULL, method_manage, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("CheckPolicy", SD_BUS_ARGS("a(ss)", files),
                                SD_BUS_RESULT("as", errors, "a" DLD_VERDICT_SIGNATURE, verdicts),
                                method_check_policy, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

int bus_register(Manager *m) {
        int r = sd_bus_add_object_vtable(m->bus, NULL, DLD_BUS_PATH, DLD_BUS_INTERFACE, manager_vtable, m);

        if (r < 0)
                log_error("cannot register %s: %s", DLD_BUS_PATH, strerror(-r));
        return r;
}
