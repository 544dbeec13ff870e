/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stddef.h>

#include "args.h"
#include "busprops.h"
#include "client.h"
#include "dlsched/dld-bus.h"
#include "util.h"

/* dld answers reads at once: do not hang an operator's shell. */
#define CALL_TIMEOUT_USEC (10 * 1000000ULL)
/* A write by hand from a user other than root waits for polkit, which dld
 * gives the bus's default 25 s (polkitd may have to start first): wait
 * longer, so that a slow polkit reads as dld's answer, not as silence. */
#define MANAGE_TIMEOUT_USEC (30 * 1000000ULL)
/* A reload may also wait for systemd to start the policy's slices, which
 * dld gives 20 s. */
#define RELOAD_TIMEOUT_USEC (50 * 1000000ULL)

int client_open(sd_bus **ret) {
        return sd_bus_open_system(ret);
}

/* Sends @m, a call of dld's @method, and waits @timeout for the answer. A
 * call dld leaves unanswered fails with -ETIMEDOUT and says so in @error. */
static int send_call(sd_bus *bus, sd_bus_message *m, uint64_t timeout, const char *method, sd_bus_error *error,
                     sd_bus_message **reply) {
        int r = sd_bus_call(bus, m, timeout, error, reply);

        if (r == -ETIMEDOUT || sd_bus_error_has_names(error, SD_BUS_ERROR_NO_REPLY, SD_BUS_ERROR_TIMEOUT)) {
                /* dld has the name (or the bus would have said so at once) but is silent. */
                sd_bus_error_free(error);
                sd_bus_error_setf(error, SD_BUS_ERROR_NO_REPLY, "dld did not answer %s in %llu s", method,
                                  (unsigned long long) (timeout / 1000000ULL));
                r = -ETIMEDOUT;
        }
        return r;
}

static int call_timeout(sd_bus *bus, uint64_t timeout, const char *method, sd_bus_error *error,
                        sd_bus_message **reply, const char *types, ...) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        va_list ap;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, DLD_BUS_NAME, DLD_BUS_PATH, DLD_BUS_INTERFACE, method);
        if (r < 0)
                return r;
        if (types) {
                va_start(ap, types);
                r = sd_bus_message_appendv(m, types, ap);
                va_end(ap);
                if (r < 0)
                        return r;
        }
        return send_call(bus, m, timeout, method, error, reply);
}

#define call(bus, method, error, reply, ...) call_timeout(bus, CALL_TIMEOUT_USEC, method, error, reply, __VA_ARGS__)

static int read_str(sd_bus_message *m, char **ret) {
        const char *s;
        int r = sd_bus_message_read_basic(m, 's', &s);

        if (r < 0)
                return r;
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int read_service(sd_bus_message *m, DlconfService *s) {
        const char *unit, *group, *state, *source, *reason, *cid, *cname, *newer;
        int r;

        r = sd_bus_message_read(m, DLD_SERVICE_SIGNATURE, &unit, &group, &state, &s->runtime_usec,
                                &s->deadline_usec, &s->period_usec, &s->threads_requested, &s->reserved, &s->threads,
                                &s->threads_total, &source, &reason, &cid, &cname, &newer);
        if (r <= 0)
                return r;
        s->unit = strdup(unit);
        s->group = strdup(group);
        s->state = strdup(state);
        s->source = strdup(source);
        s->reason = strdup(reason);
        s->container_id = strdup(cid);
        s->container_name = strdup(cname);
        s->newer_request = strdup(newer);
        if (!s->unit || !s->group || !s->state || !s->source || !s->reason || !s->container_id || !s->container_name ||
            !s->newer_request)
                return -ENOMEM;
        return 1;
}

static int read_string_property(sd_bus_message *reply, char **ret) {
        int r = sd_bus_message_enter_container(reply, 'v', "s");

        if (r >= 0)
                r = read_str(reply, ret);
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        return r < 0 ? r : 1;
}

static int read_property(sd_bus_message *reply, const char *name, void *userdata) {
        DlconfSystem *sys = userdata;
        int r;

        if (streq_ptr(name, "Version"))
                return read_string_property(reply, &sys->version);
        if (streq_ptr(name, "PolicyDirectory"))
                return read_string_property(reply, &sys->policy_directory);
        if (streq_ptr(name, "CgroupHierarchy"))
                return read_string_property(reply, &sys->cgroup_hierarchy);
        if (streq_ptr(name, "PolicyFiles")) {
                r = sd_bus_message_enter_container(reply, 'v', "as");
                if (r >= 0)
                        r = sd_bus_message_read_strv(reply, &sys->policy_files);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                return r < 0 ? r : 1;
        }
#define PROP(n, sig, p) if (streq_ptr(name, n)) return (r = sd_bus_message_read(reply, "v", sig, p)) < 0 ? r : 1
        PROP("CPUs", "u", &sys->cpus);
        PROP("SystemRuntimeUSec", "x", &sys->runtime_usec);
        PROP("SystemPeriodUSec", "t", &sys->period_usec);
        PROP("SystemBandwidth", "t", &sys->bandwidth);
        PROP("SystemAllocated", "t", &sys->allocated);
        PROP("RTRuntimeUSec", "x", &sys->rt_runtime_usec);
        PROP("RTPeriodUSec", "t", &sys->rt_period_usec);
#undef PROP
        return 0;
}

static int read_properties(sd_bus *bus, DlconfSystem *sys, sd_bus_error *error) {
        return busprops_get_all(bus, DLD_BUS_NAME, DLD_BUS_PATH, DLD_BUS_INTERFACE, error, read_property, sys);
}

int client_get_state(sd_bus *bus, DlconfState *ret, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *groups = NULL, *services = NULL;
        DlconfState s = {};
        int r;

        r = read_properties(bus, &s.system, error);
        if (r < 0)
                goto fail;
        r = call(bus, "ListGroups", error, &groups, NULL);
        if (r < 0)
                goto fail;
        r = sd_bus_message_enter_container(groups, 'a', DLD_GROUP_SIGNATURE);
        if (r < 0)
                goto fail;
        for (;;) {
                const char *name, *slice, *on_refusal;
                DlconfGroup g = {};

                r = sd_bus_message_read(groups, DLD_GROUP_SIGNATURE, &name, &slice, &g.runtime_usec,
                                        &g.period_usec, &g.reserved, &g.allocated, &g.free,
                                        &g.max_request, &g.max_services, &g.service_count, &on_refusal);
                if (r <= 0)
                        break;
                DlconfGroup *n = state_add_group(&s);
                if (!n) {
                        r = -ENOMEM;
                        goto fail;
                }
                *n = g;
                n->name = strdup(name);
                n->slice = strdup(slice);
                n->on_refusal = strdup(on_refusal);
                if (!n->name || !n->slice || !n->on_refusal) {
                        r = -ENOMEM;
                        goto fail;
                }
        }
        if (r < 0)
                goto fail;

        r = call(bus, "ListServices", error, &services, NULL);
        if (r < 0)
                goto fail;
        r = sd_bus_message_enter_container(services, 'a', DLD_SERVICE_SIGNATURE);
        if (r < 0)
                goto fail;
        for (;;) {
                DlconfService *n = state_add_service(&s);

                if (!n) {
                        r = -ENOMEM;
                        goto fail;
                }
                r = read_service(services, n);
                if (r <= 0) {
                        state_service_done(n);
                        s.n_services--;
                        break;
                }
        }
        if (r < 0)
                goto fail;
        *ret = s;
        return 0;
fail:
        state_done(&s);
        return r;
}

int client_get_service(sd_bus *bus, const char *unit, DlconfService *ret, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        DlconfService s = {};
        int r;

        r = call(bus, "GetService", error, &reply, "s", unit);
        if (r < 0)
                return r;
        r = read_service(reply, &s);
        if (r <= 0) {
                state_service_done(&s);
                return r < 0 ? r : -EBADMSG;
        }
        *ret = s;
        return 0;
}

int client_admit(sd_bus *bus, const char *unit, uint64_t runtime_usec, uint64_t deadline_usec,
                 uint64_t period_usec, uint32_t threads, sd_bus_error *error) {
        return call_timeout(bus, MANAGE_TIMEOUT_USEC, "AdmitUnit", error, NULL, "stttu", unit, runtime_usec,
                            deadline_usec, period_usec, threads);
}

int client_release(sd_bus *bus, const char *unit, sd_bus_error *error) {
        return call_timeout(bus, MANAGE_TIMEOUT_USEC, "ReleaseUnit", error, NULL, "s", unit);
}

int client_prepare(sd_bus *bus, const char *unit, const char *invocation, char **ret_state, char **ret_reason,
                   sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        const char *state, *reason;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, DLD_BUS_NAME, DLD_BUS_PATH, DLD_BUS_INTERFACE, "PrepareUnit");
        if (r < 0)
                return r;
        /* Never start dld for a unit: a dld that is not running is an answer. */
        r = sd_bus_message_set_auto_start(m, false);
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", unit, invocation);
        if (r >= 0)
                r = send_call(bus, m, CALL_TIMEOUT_USEC, "PrepareUnit", error, &reply);
        if (r >= 0)
                r = sd_bus_message_read(reply, "ss", &state, &reason);
        if (r < 0)
                return r;
        *ret_state = strdup(state);
        *ret_reason = strdup(reason);
        return *ret_state && *ret_reason ? 0 : -ENOMEM;
}

int client_reload(sd_bus *bus, sd_bus_error *error) {
        return call_timeout(bus, RELOAD_TIMEOUT_USEC, "Reload", error, NULL, NULL);
}

static const struct {
        const char *name;
        int status;
} error_status[] = {
        { DLD_ERROR_REFUSED,                            EXIT_DLCONF_REFUSED     },
        { DLD_ERROR_POLICY_INVALID,                     EXIT_DLCONF_INVALID     },
        { DLD_ERROR_INVALID_REQUEST,                    EXIT_DLCONF_USAGE       },
        { "org.freedesktop.DBus.Error.AccessDenied",    EXIT_DLCONF_PERMISSION  },
        { "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired", EXIT_DLCONF_PERMISSION },
        { "org.freedesktop.DBus.Error.ServiceUnknown",  EXIT_DLCONF_UNREACHABLE },
        { "org.freedesktop.DBus.Error.NameHasNoOwner",  EXIT_DLCONF_UNREACHABLE },
        { "org.freedesktop.DBus.Error.NoReply",         EXIT_DLCONF_NO_ANSWER   },
        { "org.freedesktop.DBus.Error.Timeout",         EXIT_DLCONF_NO_ANSWER   },
        { "org.freedesktop.DBus.Error.Disconnected",    EXIT_DLCONF_UNREACHABLE },
        { "org.freedesktop.DBus.Error.UnknownObject",   EXIT_DLCONF_UNREACHABLE },
        { "org.freedesktop.DBus.Error.UnknownInterface", EXIT_DLCONF_UNREACHABLE },
};

int client_exit_status(const char *error_name, int r) {
        /* sd-bus names plain errnos "System.Error.EFOO": the errno decides. */
        if (error_name && strncmp(error_name, "System.Error.", strlen("System.Error.")) == 0)
                error_name = NULL;
        for (size_t i = 0; error_name && i < ELEMENTSOF(error_status); i++)
                if (streq_ptr(error_status[i].name, error_name))
                        return error_status[i].status;
        if (r == -EACCES || r == -EPERM)
                return EXIT_DLCONF_PERMISSION;
        /* A call that was sent and not answered: dld is there, but silent. */
        if (!error_name && r == -ETIMEDOUT)
                return EXIT_DLCONF_NO_ANSWER;
        /* No bus at all: nothing to talk to. */
        if (!error_name && (r == -ENOENT || r == -ECONNREFUSED || r == -ENOTCONN ||
                            r == -ECONNRESET || r == -EHOSTDOWN))
                return EXIT_DLCONF_UNREACHABLE;
        return EXIT_DLCONF_FAILURE;
}

char *client_error_message(const char *error_name, const char *error_message, int r) {
        char *s = NULL;
        int k;

        switch (client_exit_status(error_name, r)) {
        case EXIT_DLCONF_UNREACHABLE:
                k = asprintf(&s, "dld is not reachable on the system bus (is dld.service running?): %s",
                             error_message && *error_message ? error_message : strerror(-r));
                break;
        case EXIT_DLCONF_NO_ANSWER:
                k = asprintf(&s, "%s (dld.service is running, but busy, stuck or waiting on polkit)",
                             error_message && *error_message ? error_message : "dld did not answer in time");
                break;
        case EXIT_DLCONF_PERMISSION:
                k = asprintf(&s, "permission denied (%s)",
                             error_message && *error_message ? error_message : strerror(-r));
                break;
        case EXIT_DLCONF_REFUSED:
                k = asprintf(&s, "refused: %s", error_message && *error_message ? error_message : strerror(-r));
                break;
        default:
                k = asprintf(&s, "%s", error_message && *error_message ? error_message : strerror(-r));
        }
        return k < 0 ? NULL : s;
}
