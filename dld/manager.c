/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

#include "apply.h"
#include "containers.h"
#include "dlsched/dld-bus.h"
#include "dld-messages.h"
#include "journal.h"
#include "log.h"
#include "manager.h"
#include "orphans.h"
#include "privileges.h"
#include "privprobe.h"
#include "records.h"
#include "reload.h"
#include "service-lookup.h"
#include "service.h"
#include "timespan.h"
#include "unitname.h"

/* The errno each of dld's D-Bus errors stands for: what
 * sd_bus_error_set() returns for it, below the bus as on it. */
static const sd_bus_error_map dld_errors[] = {
        SD_BUS_ERROR_MAP(DLD_ERROR_REFUSED, EBUSY),
        SD_BUS_ERROR_MAP(DLD_ERROR_INVALID_REQUEST, EINVAL),
        SD_BUS_ERROR_MAP(DLD_ERROR_NO_SUCH_UNIT, ENOENT),
        SD_BUS_ERROR_MAP(DLD_ERROR_UNIT_NOT_ACTIVE, ESRCH),
        SD_BUS_ERROR_MAP(DLD_ERROR_NOT_IN_GROUP, EPERM),
        SD_BUS_ERROR_MAP(DLD_ERROR_NO_SUCH_SERVICE, ENOENT),
        SD_BUS_ERROR_MAP(DLD_ERROR_POLICY_INVALID, EINVAL),
        SD_BUS_ERROR_MAP(DLD_ERROR_APPLY_FAILED, EIO),
        SD_BUS_ERROR_MAP(DLD_ERROR_KERNEL_UNSUPPORTED, EOPNOTSUPP),
        SD_BUS_ERROR_MAP_END,
};

int manager_new(const ManagerOptions *o, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = NULL;
        int r;

        r = sd_bus_error_add_map(dld_errors);
        if (r < 0)
                return r;

        m = calloc(1, sizeof(Manager));
        if (!m)
                return -ENOMEM;
        m->policy_dir = strdup(o->policy_dir ?: DLD_DEFAULT_POLICY_DIR);
        m->run_dir = strdup(o->run_dir ?: DLD_DEFAULT_RUN_DIR);
        if (!m->policy_dir || !m->run_dir)
                return -ENOMEM;
        r = kernelfs_new(o->root, &m->kfs);
        if (r < 0)
                return r;
        r = sd_event_default(&m->event);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        /* Forget, do not release: reservations outlive dld. */
        service_lookup_forget_all(m);
        service_forget_all(m);
        reload_forget(m);
        sd_event_source_unref(m->trim_source);
        sd_bus_flush_close_unref(m->bus);
        sd_event_unref(m->event);
        kernelfs_free(m->kfs);
        policy_done(&m->policy);
        strv_free(m->reserved_slices);
        strv_free(m->malformed_cgroups);
        free(m->policy_dir);
        free(m->run_dir);
        free(m);
        return NULL;
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        (void) s, (void) si;
        (void) sd_notify(false, "RELOADING=1");
        /* Logged and in STATUS=; READY=1 when done. */
        if (reload_request(m, NULL) < 0)
                (void) sd_notify(false, "READY=1");
        return 0;
}

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        (void) s, (void) si;
        (void) sd_notify(false, "STOPPING=1");
        log_info("exiting; reservations of running services stay in place");
        return sd_event_exit(m->event, 0);
}

static void handle_state(Manager *m, const char *unit, const char *state, const char *invocation) {
        int r;

        if (!unitname_is_service(unit)) {
                /* A container's scope empties when its processes are gone (the
                 * poststop hook may come later, or never): the kernel took the
                 * bandwidth back with the cgroup. */
                Service *s = containers_find_scope(m, unit);

                if (s && (streq_ptr(state, "inactive") || streq_ptr(state, "failed")))
                        containers_forget(m, s, "the container's cgroup is gone");
                return;
        }
        if (streq_ptr(state, "active") || streq_ptr(state, "reloading")) {
                r = service_lookup_unit_active(m, unit, invocation);
                if (r < 0)
                        log_warning("%s: cannot follow: %s", unit, strerror(-r));
        } else if (streq_ptr(state, "activating"))
                /* After "active", a restart (auto-restart): the old run's
                 * decision no longer holds. A unit admitted from its
                 * ExecStartPre= (PrepareUnit) keeps its decision. */
                service_lookup_unit_restarting(m, unit, invocation);
        else if (streq_ptr(state, "inactive") || streq_ptr(state, "failed") || streq_ptr(state, "deactivating"))
                service_unit_inactive(m, unit);
}

/* Many units starting or stopping at once send thousands of
 * PropertiesChanged signals (each unit's, and its slice's and targets'),
 * queued while dld waits for a reply from systemd: a few MB of heap that
 * glibc keeps once freed. Hand it back when the burst is over. */
#define TRIM_DELAY_USEC USEC_PER_SEC

static int on_trim(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        uint64_t queued = 0;

        (void) usec;
        if (sd_bus_get_n_queued_read(m->bus, &queued) >= 0 && queued > 0) {
                (void) sd_event_source_set_time_relative(s, TRIM_DELAY_USEC);
                return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        }
        (void) malloc_trim(0);
        return 0;
}

static void trim_after_burst(Manager *m) {
        int enabled = SD_EVENT_OFF;

        if (!m->trim_source) {
                (void) sd_event_add_time_relative(m->event, &m->trim_source, CLOCK_MONOTONIC, TRIM_DELAY_USEC,
                                                  USEC_PER_SEC / 10, on_trim, m);
                return;
        }
        if (sd_event_source_get_enabled(m->trim_source, &enabled) < 0 || enabled != SD_EVENT_OFF)
                return;         /* armed already */
        if (sd_event_source_set_time_relative(m->trim_source, TRIM_DELAY_USEC) >= 0)
                (void) sd_event_source_set_enabled(m->trim_source, SD_EVENT_ONESHOT);
}

/* PropertiesChanged of org.freedesktop.systemd1.Unit: ActiveState matters,
 * and InvocationID tells which activation it is about (systemd sends both
 * in every such signal). */
static int on_properties_changed(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        Manager *m = userdata;
        _cleanup_free_ char *unit = NULL, *state = NULL, *invocation = NULL;
        const char *path = sd_bus_message_get_path(msg), *iface;
        int r;

        (void) ret_error;
        trim_after_burst(m);
        if (!m->following)
                return 0;
        if (!path || sd_bus_path_decode(path, SYSTEMD_UNIT_PREFIX, &unit) <= 0)
                return 0;
        r = sd_bus_message_read(msg, "s", &iface);
        if (r < 0 || strcmp(iface, "org.freedesktop.systemd1.Unit") != 0)
                return 0;
        r = sd_bus_message_enter_container(msg, 'a', "{sv}");
        if (r < 0)
                return 0;
        while ((r = sd_bus_message_enter_container(msg, 'e', "sv")) > 0) {
                const char *name, *value;

                if (sd_bus_message_read(msg, "s", &name) < 0)
                        return 0;
                if (strcmp(name, "ActiveState") == 0) {
                        if (sd_bus_message_read(msg, "v", "s", &value) < 0)
                                return 0;
                        state = strdup(value);
                } else if (strcmp(name, "InvocationID") == 0) {
                        const void *id;
                        size_t n;

                        if (sd_bus_message_enter_container(msg, 'v', "ay") < 0 ||
                            sd_bus_message_read_array(msg, 'y', &id, &n) < 0 ||
                            sd_bus_message_exit_container(msg) < 0)
                                return 0;
                        free(invocation);
                        invocation = unitname_id128_to_hex(id, n);
                } else if (sd_bus_message_skip(msg, "v") < 0)
                        return 0;
                if (sd_bus_message_exit_container(msg) < 0)
                        return 0;
        }
        if (state)
                handle_state(m, unit, state, invocation);
        return 0;
}

/* Follows every active service, as after a restart of dld: the kernel and
 * systemd hold the truth, dld's memory is rebuilt from them (each unit
 * asked about without waiting: settle() waits for the answers). */
static int sync_units(Manager *m) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_strv_free_ char **active = NULL;
        const char *name, *active_state;
        int r;

        r = sd_bus_call_method(m->bus, SYSTEMD_DEST, SYSTEMD_PATH, "org.freedesktop.systemd1.Manager",
                               "ListUnits", &e, &reply, NULL);
        if (r < 0) {
                log_error("cannot list units: %s", e.message ?: strerror(-r));
                return r;
        }
        r = sd_bus_message_enter_container(reply, 'a', "(ssssssouso)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(reply, "(ssssssouso)", &name, NULL, NULL, &active_state,
                                        NULL, NULL, NULL, NULL, NULL, NULL)) > 0)
                if (unitname_is_service(name) && (streq_ptr(active_state, "active") || streq_ptr(active_state, "reloading")))
                        if (strv_extend(&active, name) < 0)
                                return -ENOMEM;
        if (r < 0)
                return r;
        reply = sd_bus_message_unref(reply);

        /* The reply is closed before new calls are made from the loop below. */
        for (char **u = active; u && *u; u++)
                handle_state(m, *u, "active", NULL);
        return 0;
}

/* Runs the loop until systemd has answered every question about units and
 * every admission is decided (at start: before the orphan sweep). */
static int settle(Manager *m) {
        while (m->n_lookups > 0 || m->n_admitting > 0) {
                int r = sd_event_run(m->event, UINT64_MAX);

                if (r < 0)
                        return r;
                if (sd_event_get_exit_code(m->event, &(int) {0}) != -ENODATA)
                        return -ECANCELED;      /* SIGTERM meanwhile */
        }
        return 0;
}

/* Records of admissions (records.h) that no unit took back in sync_units():
 * a unit that stopped, or restarted, while dld was down loses its record;
 * one systemd could not tell about keeps it, and its cgroup is returned
 * (allocated, NULL-terminated) for the orphan sweep to leave alone. */
static char **clean_admitted(Manager *m) {
        _cleanup_strv_free_ char **units = records_admitted_units(m->run_dir);
        char **kept = NULL;

        for (char **unit = units; unit && *unit; unit++) {
                _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
                _cleanup_(systemd_unit_info_done) UnitInfo u = {};
                _cleanup_(unitrecord_done) UnitRecord rec = {};

                if (service_find(m, *unit) || records_admitted_load(m->run_dir, *unit, &rec) < 0)
                        continue;
                if (systemd_unit_info(m->bus, *unit, &u, &e) >= 0 &&
                    (!streq_ptr(u.invocation, rec.invocation) ||
                     !(streq_ptr(u.active_state, "active") || streq_ptr(u.active_state, "reloading") ||
                       streq_ptr(u.active_state, "activating")))) {
                        records_admitted_remove(m->run_dir, *unit);
                        continue;
                }
                log_warning("%s: admitted before dld restarted, but not followed now (%s): its reservation in %s stays",
                            *unit, e.message ?: u.active_state ?: "unknown", rec.cgroup);
                (void) strv_extend(&kept, rec.cgroup);
        }
        return kept;
}

/* Manual admissions of units that stopped while dld was not running. */
static void clean_manual(Manager *m) {
        _cleanup_strv_free_ char **units = records_manual_units(m->run_dir);

        for (char **unit = units; unit && *unit; unit++)
                if (!service_find(m, *unit))
                        records_manual_remove(m->run_dir, *unit);
}

/* dld's needs (privileges.h), before it touches anything: each one
 * missing is logged (stderr and the journal), STATUS= names them, and dld
 * does not start (-EPERM, m->privileges_missing: exit status 4). bus: the
 * result of connecting to the system bus. */
static int check_privileges(Manager *m, int bus) {
        _cleanup_(privileges_problems_done) PrivilegeProblems l = {};
        _cleanup_free_ char *summary = NULL;
        PrivilegeProbe p;
        int r;

        privprobe_run(m->kfs, bus, &p);
        r = privileges_check(&p, &l);
        if (r < 0)
                return r;
        for (size_t i = 0; i < l.n; i++) {
                log_full(l.items[i].fatal ? LOG_ERR : LOG_WARNING, "%s: %s",
                         l.items[i].fatal ? "missing" : "warning", l.items[i].message);
                journal_privilege(l.items[i].need, l.items[i].fatal, l.items[i].message);
        }
        if (l.n_fatal == 0)
                return 0;
        summary = privileges_summary(&l);
        log_error("dld cannot work without %s: not starting (units/CONTAINERS.md, \"dld in a container\", "
                  "lists what it needs)", summary ?: "what is listed above");
        (void) sd_notifyf(false, "STATUS=Not started: missing %s (see the journal)", summary ?: "privileges");
        m->privileges_missing = true;
        return -EPERM;
}

int manager_start(Manager *m) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_strv_free_ char **kept = NULL;
        SystemBudget cur;
        sigset_t ss;
        int r, k;

        r = kernelfs_read_budget(m->kfs, &cur);
        if (r == -EOPNOTSUPP) {
                log_error("this kernel has no deadline bandwidth sysctls (/proc/sys/kernel/sched_dl_runtime_us): "
                          "dld needs the dlsched kernel patches");
                return r;
        }
        if (r < 0) {
                log_error("cannot read the deadline sysctls: %s", strerror(-r));
                return r;
        }
        r = kernelfs_dl_groups_supported(m->kfs);
        m->dl_groups = r != 0;  /* unknown (no cgroup with cpu yet): assume so, writes will tell */
        if (r == 0)
                log_warning("this kernel has no per-cgroup deadline bandwidth (cpu.dl_runtime_us, "
                            "CONFIG_DEADLINE_GROUP_SCHED): policies with groups and service requests will be refused");

        sigemptyset(&ss);
        sigaddset(&ss, SIGHUP);
        sigaddset(&ss, SIGTERM);
        sigaddset(&ss, SIGINT);
        sigprocmask(SIG_BLOCK, &ss, NULL);
        if ((r = sd_event_add_signal(m->event, NULL, SIGHUP, on_sighup, m)) < 0 ||
            (r = sd_event_add_signal(m->event, NULL, SIGTERM, on_sigterm, m)) < 0 ||
            (r = sd_event_add_signal(m->event, NULL, SIGINT, on_sigterm, m)) < 0)
                return r;
        r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                return r;

        r = sd_bus_open_system(&m->bus);
        k = check_privileges(m, r);
        if (k < 0)
                return k;
        if (r < 0) {
                log_error("cannot connect to the system bus: %s", strerror(-r));
                return r;
        }
        /* Attached now: the policy's slices may be waited for (reload.c). */
        r = sd_bus_attach_event(m->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return r;
        /* Only the Unit interface's changes (ActiveState is there): matched
         * by the bus on arg0, so that the Service, Slice... properties of
         * every unit do not wake dld. */
        r = sd_bus_add_match(m->bus, NULL,
                             "type='signal',sender='" SYSTEMD_DEST "',"
                             "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                             "path_namespace='/org/freedesktop/systemd1/unit',"
                             "arg0='org.freedesktop.systemd1.Unit'",
                             on_properties_changed, m);
        if (r < 0)
                return r;
        r = sd_bus_call_method(m->bus, SYSTEMD_DEST, SYSTEMD_PATH, "org.freedesktop.systemd1.Manager",
                               "Subscribe", NULL, NULL, NULL);
        if (r < 0) {
                log_error("cannot subscribe to systemd: %s", strerror(-r));
                return r;
        }
        /* The policy first (groups must exist before units are admitted in them). */
        if (reload_at_start(m, &error) < 0 && reload_restore_applied(m, error.message ?: "?") < 0)
                log_error("starting without a policy: %s", error.message ?: "?");
        if (sd_event_get_exit_code(m->event, &(int) {0}) != -ENODATA)
                return -ECANCELED;      /* SIGTERM while the slices started */
        /* From here on the signals count; sync_units() has what came before. */
        m->following = true;
        r = sync_units(m);
        if (r < 0)
                return r;
        /* Before the sweep: a container's scope holds a reservation no unit owns. */
        containers_restore(m);
        /* The sweep needs to know every unit dld follows: systemd answers first. */
        r = settle(m);
        if (r < 0)
                return r;
        clean_manual(m);
        kept = clean_admitted(m);
        for (char **cg = m->malformed_cgroups; cg && *cg; cg++)
                (void) strv_extend(&kept, *cg);
        orphans_release(m, kept);
        m->swept = true;
        strv_free(m->malformed_cgroups);
        m->malformed_cgroups = NULL;
        return 0;
}

int manager_publish(Manager *m) {
        int r;

        r = sd_bus_request_name(m->bus, DLD_BUS_NAME, 0);
        if (r < 0) {
                log_error("cannot own %s: %s", DLD_BUS_NAME, strerror(-r));
                return r;
        }
        /* A policy restored from the run directory keeps its STATUS= (why). */
        if (m->policy_restored)
                (void) sd_notify(false, "READY=1");
        else
                (void) sd_notifyf(false, "READY=1\nSTATUS=Policy: %zu group(s), %zu service(s)",
                                  m->policy.n_groups, m->n_services);
        log_info("dld %s ready: policy %s, %zu service(s) followed", DLD_VERSION, m->policy_dir, m->n_services);
        return 0;
}

int manager_run(Manager *m) {
        return sd_event_loop(m->event);
}
