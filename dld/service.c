/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Following services: reading their requests, admitting them (reservation in
 * the unit's cgroup, threads to SCHED_DEADLINE), refusing and releasing. */
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "container.h"
#include "dlsched/dld-bus.h"
#include "journal.h"
#include "log.h"
#include "sched-util.h"
#include "service.h"
#include "systemd-client.h"
#include "threads.h"
#include "timespan.h"
#include "unitname.h"


const char *service_state_to_string(ServiceState s) {
        static const char * const names[] = {
                [SERVICE_ADMITTED] = "admitted",
                [SERVICE_DEGRADED] = "degraded",
                [SERVICE_FAILED] = "failed",
                [SERVICE_RELEASED] = "released",
        };
        return names[s];
}

static Service *service_free(Service *s) {
        if (s) {
                free(s->unit);
                free(s->cgroup);
                free(s->slice);
                free(s->invocation);
                free(s->group);
                free(s->reason);
                free(s->container_id);
                free(s->container_name);
                deadline_request_done(&s->req);
                free(s);
        }
        return NULL;
}

Service *manager_find_service(Manager *m, const char *unit) {
        for (size_t i = 0; i < m->n_services; i++)
                if (strcmp(m->services[i]->unit, unit) == 0)
                        return m->services[i];
        return NULL;
}

unsigned manager_count_admitted(Manager *m, const char *group, const Service *except) {
        unsigned n = 0;

        for (size_t i = 0; i < m->n_services; i++)
                if (m->services[i] != except && m->services[i]->state == SERVICE_ADMITTED &&
                    streq_ptr(m->services[i]->group, group))
                        n++;
        return n;
}

static void service_forget(Manager *m, Service *s) {
        for (size_t i = 0; i < m->n_services; i++)
                if (m->services[i] == s) {
                        memmove(&m->services[i], &m->services[i + 1], (m->n_services - i - 1) * sizeof(Service *));
                        m->n_services--;
                        break;
                }
        service_free(s);
}

void manager_forget_services(Manager *m) {
        while (m->n_services > 0)
                service_free(m->services[--m->n_services]);
        free(m->services);
        m->services = NULL;
}

static char *manual_path(Manager *m, const char *unit) {
        char *p;

        return asprintf(&p, "%s/manual/%s.conf", m->run_dir, unit) < 0 ? NULL : p;
}

/* A release by hand holds for the unit's current run (its invocation ID),
 * across restarts of dld: kept in the run directory too. */
static char *released_path(Manager *m, const char *unit) {
        char *p;

        return asprintf(&p, "%s/released/%s", m->run_dir, unit) < 0 ? NULL : p;
}

/* Writes text to path, in the run directory's subdir (made as needed). */
static int run_file_write(Manager *m, const char *subdir, const char *path, const char *text) {
        _cleanup_free_ char *dir = NULL;

        if (!path || !text || asprintf(&dir, "%s/%s", m->run_dir, subdir) < 0)
                return -ENOMEM;
        (void) mkdir(m->run_dir, 0755);
        (void) mkdir(dir, 0755);
        return write_full_file(path, text);
}

static int release_record(Manager *m, const char *unit, const char *invocation) {
        _cleanup_free_ char *path = released_path(m, unit);

        return run_file_write(m, "released", path, invocation ?: "");
}

static void release_forget(Manager *m, const char *unit) {
        _cleanup_free_ char *path = released_path(m, unit);

        if (path)
                (void) unlink(path);
}

/* Was the unit released by hand in this run of it? A record of an earlier
 * run is dropped. */
static bool release_recorded(Manager *m, const char *unit, const char *invocation) {
        _cleanup_free_ char *path = released_path(m, unit), *text = NULL;

        if (!path || read_config_file(path, &text, NULL) < 0)
                return false;
        if (invocation && *invocation && streq_ptr(strstrip(text), invocation))
                return true;
        release_forget(m, unit);
        return false;
}

/* The unit's request: a manual one (AdmitUnit, kept in the run directory)
 * overrides the X-Deadline keys of its unit file and drop-ins.
 * 0: request in *req; -ENOENT: none; -EINVAL: malformed (logged). */
static int read_request(Manager *m, const char *unit, const UnitInfo *u, DeadlineRequest *req, bool *ret_manual) {
        _cleanup_free_ char *mpath = manual_path(m, unit), *mtext = NULL;
        DiagList d = {};
        int r = 0, k;

        *req = (DeadlineRequest) {};
        *ret_manual = false;
        if (!mpath)
                return -ENOMEM;
        if (read_config_file(mpath, &mtext, NULL) == 0) {
                *ret_manual = true;
                r = dropin_parse(req, mpath, mtext, &d);
        } else {
                if (u->fragment_path && *u->fragment_path) {
                        _cleanup_free_ char *text = NULL;

                        if (read_config_file(u->fragment_path, &text, NULL) == 0)
                                r = dropin_parse(req, u->fragment_path, text, &d);
                }
                for (char **p = u->dropin_paths; p && *p && r != -ENOMEM; p++) {
                        _cleanup_free_ char *text = NULL;

                        k = read_config_file(*p, &text, NULL);
                        if (k == -EBADFD || k == -EFBIG) {
                                /* systemd itself skips such a drop-in: say so, and refuse. */
                                r = diag_add(&d, *p, NULL, "cannot read: %s", config_file_error(k)) < 0 ? -ENOMEM : -EINVAL;
                                continue;
                        }
                        if (k < 0)
                                continue;
                        k = dropin_parse(req, *p, text, &d);
                        if (k < 0)
                                r = k;
                }
        }
        if (r == 0)
                r = dropin_finish(req, &d);
        if (r == 0) {
                char why[DEADLINE_WHY_MAX];
                DeadlinePromote p;

                /* X-DeadlinePromote=cgroup in a delegated unit. */
                if (deadline_promote_resolve(req->promote, u->delegate, &p, why, sizeof(why)) < 0) {
                        char where[32];

                        snprintf(where, sizeof(where), "line %u", req->promote_at.line);
                        r = diag_add(&d, req->promote_at.file, where, "%s", why) < 0 ? -ENOMEM : -EINVAL;
                }
        }
        if (r == -EINVAL)
                for (size_t i = 0; i < d.n; i++) {
                        log_error("%s: %s: %s: %s", unit, d.items[i].file ?: "", d.items[i].where ?: "", d.items[i].message);
                        journal_dropin_invalid(unit, d.items[i].file, d.items[i].where, d.items[i].message);
                }
        diag_list_done(&d);
        if (r < 0)
                deadline_request_done(req);
        return r;
}

/* Free bandwidth where the unit's reservation goes: the group's slice. */
static uint64_t group_free_bw(Manager *m, const char *group) {
        int gi = group ? policy_group_by_name(&m->policy, group) : -1;
        _cleanup_free_ char *cg = NULL;
        int64_t rt, pe, total;
        uint64_t cap;

        if (gi < 0)
                return DL_BW_UNLIMITED;
        cg = systemd_slice_cgroup(m->bus, m->policy.groups[gi].slice);
        if (!cg || kernelfs_cgroup_read(m->kfs, cg, "cpu.dl_runtime_us", &rt) < 0 ||
            kernelfs_cgroup_read(m->kfs, cg, "cpu.dl_period_us", &pe) < 0 ||
            kernelfs_cgroup_read(m->kfs, cg, "cpu.dl_total_bw", &total) < 0 || pe <= 0)
                return DL_BW_UNLIMITED;
        cap = dl_capacity(kernelfs_cpus(m->kfs), rt, (uint64_t) pe);
        if (cap == DL_BW_UNLIMITED)
                return cap;
        return cap > (uint64_t) total ? cap - (uint64_t) total : 0;
}

/* The service's threads, with its request, counted in the service. A
 * unit whose threads are its own (PROMOTE_NONE: a delegated subtree) is
 * only counted: dld never switches nor moves a thread there, and a
 * subdivision made inside (child cgroups with their own
 * cpu.dl_runtime_us) stays the owner's. Its processes get the deadline
 * limits of the request instead, so that they may enter SCHED_DEADLINE
 * themselves, within the reservation, without CAP_SYS_NICE. */
static int service_threads_to_deadline(Manager *m, Service *s, pid_t *ret_tid) {
        ThreadCount c = {};
        int r;

        if (s->promote == PROMOTE_NONE) {
                DeadlineLimits grant = deadline_limits_grant(&s->req);

                r = threads_count(m->kfs, s->cgroup, &grant, &c);
                if (r < 0 && !s->limits_warned) {
                        log_warning("%s: cannot give the unit's processes the deadline limits of its request "
                                    "(RLIMIT_DLRTIME %" PRIu64 "us, RLIMIT_DLDLINE %" PRIu64 "us): %s; "
                                    "they need CAP_SYS_NICE to enter SCHED_DEADLINE",
                                    s->unit, s->req.runtime_usec, s->req.deadline_usec, strerror(-r));
                        s->limits_warned = true;
                }
                r = 0;
        } else
                r = threads_to_deadline(m->kfs, s->cgroup, s->promote == PROMOTE_SUBTREE, s->unit, &s->req, &c, ret_tid);
        s->threads_dl = c.deadline;
        s->threads_total = c.total;
        return r;
}

static void service_threads_to_normal(Manager *m, Service *s) {
        if (s->promote == PROMOTE_NONE) {
                /* Its own deadline tasks are not dld's to change: they stay, but
                 * the limits go before the reservation does. */
                DeadlineLimits none = deadline_limits_none();

                (void) threads_set_limits(m->kfs, s->cgroup, &none);
                return;
        }
        threads_to_normal(m->kfs, s->cgroup, s->promote == PROMOTE_SUBTREE);
        s->threads_dl = 0;
}

static void reservation_release(Manager *m, Service *s) {
        int r;

        if (!s->cgroup)
                return;
        r = kernelfs_cgroup_write(m->kfs, s->cgroup, "cpu.dl_runtime_us", -1);
        if (r < 0 && r != -ENOENT)
                log_warning("%s: cannot release the reservation of %s: %s", s->unit, s->cgroup, strerror(-r));
}

/* Writes the unit cgroup's reservation for req's threads: the per-CPU
 * runtime that holds exactly that many (dl_threads_runtime()), with the
 * request's period. Runtime and period are separate writes, each checked
 * by the kernel: try both orders, restore on failure. -ERANGE: the threads
 * need more than the CPUs. */
static int reservation_set(Manager *m, Service *s) {
        int64_t old_rt, old_pe, rt, pe = (int64_t) s->req.period_usec;
        uint64_t runtime;
        int r;

        r = dl_threads_runtime(s->req.runtime_usec, s->req.period_usec, s->req.threads, kernelfs_cpus(m->kfs), &runtime);
        if (r < 0)
                return r;
        rt = (int64_t) runtime;
        r = kernelfs_cgroup_read(m->kfs, s->cgroup, "cpu.dl_runtime_us", &old_rt);
        if (r < 0)
                return r;
        r = kernelfs_cgroup_read(m->kfs, s->cgroup, "cpu.dl_period_us", &old_pe);
        if (r < 0)
                return r;

        if (old_rt != rt || old_pe != pe)       /* else already in place: dld restarted */
                for (int order = 0; order < 2; order++) {
                        const char *first = order == 0 ? "cpu.dl_period_us" : "cpu.dl_runtime_us";
                        const char *second = order == 0 ? "cpu.dl_runtime_us" : "cpu.dl_period_us";
                        int64_t v1 = order == 0 ? pe : rt, v2 = order == 0 ? rt : pe;
                        int64_t old1 = order == 0 ? old_pe : old_rt;

                        r = kernelfs_cgroup_write(m->kfs, s->cgroup, first, v1);
                        if (r < 0)
                                continue;
                        r = kernelfs_cgroup_write(m->kfs, s->cgroup, second, v2);
                        if (r == 0)
                                break;
                        (void) kernelfs_cgroup_write(m->kfs, s->cgroup, first, old1);
                        if (r != -EINVAL)
                                break;  /* EBUSY in one order is EBUSY in both */
                }
        if (r < 0)
                return r;
        s->reserved_runtime_us = runtime;
        s->reserved_bw = dl_capacity(kernelfs_cpus(m->kfs), rt, s->req.period_usec);
        return 0;
}

/* Why the kernel refused SCHED_DEADLINE for one of the unit's threads. */
static char *thread_refused(Manager *m, const Service *s, const char *which, pid_t tid, int err) {
        char th[16];
        char *reason;

        if (asprintf(&reason, "the kernel refused SCHED_DEADLINE for %s %d (%s): the unit's reservation holds %u threads "
                     "of this size (X-DeadlineThreads=%s)", which, (int) tid, strerror(-err),
                     dl_threads_count(s->req.threads, kernelfs_cpus(m->kfs)),
                     threads_to_string(th, sizeof(th), s->req.threads)) < 0)
                return NULL;
        return reason;
}

/* The request as the admission model takes it. */
static ServiceRequest service_request(const Service *s, const DeadlineRequest *req) {
        return (ServiceRequest) {
                .unit = s->unit, .slice = s->slice, .group = req->group,
                .runtime_usec = req->runtime_usec, .deadline_usec = req->deadline_usec,
                .period_usec = req->period_usec, .threads = req->threads,
        };
}

/* Why the kernel (or the CPU count) refused the reservation for req. */
static char *reservation_refused(Manager *m, const Service *s, const DeadlineRequest *req, int err, uint64_t free_bw) {
        ServiceRequest sr = service_request(s, req);
        _cleanup_free_ char *what = NULL;
        char left[PERCENT_MAX];
        char *reason;

        if (err == -ERANGE)
                return reservation_refusal(&sr, s->group ?: "-", kernelfs_cpus(m->kfs), err, free_bw);
        what = reservation_describe(&sr, kernelfs_cpus(m->kfs));
        if (!what || asprintf(&reason, "the kernel refused %s in %s (%s): %s left in the group", what, s->cgroup,
                              strerror(-err), free_bw == DL_BW_UNLIMITED ? "unknown" :
                              bw_to_percent(left, sizeof(left), free_bw)) < 0)
                return NULL;
        return reason;
}

static int set_reason(Service *s, const char *reason) {
        char *c = strdup(reason);

        if (!c)
                return -ENOMEM;
        free(s->reason);
        s->reason = c;
        return 0;
}

/* Logs the refusal, undoes what was done, and takes the group's action
 * (take_action false: admitted by hand, the caller decides). */
static void service_refuse(Manager *m, Service *s, RefusedBy by, int err, const char *reason,
                           uint64_t free_bw, bool take_action) {
        int gi = s->group ? policy_group_by_name(&m->policy, s->group) : -1;
        RefusalAction action = gi >= 0 ? m->policy.groups[gi].on_refusal : REFUSAL_DEGRADE;
        const char *action_name = take_action ? refusal_action_to_string(action) : "none";

        service_threads_to_normal(m, s);
        reservation_release(m, s);
        (void) set_reason(s, reason);
        log_warning("%s: deadline request refused by %s: %s", s->unit, refused_by_to_string(by), reason);
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

/* error may be NULL (a unit that became active: the refusal is logged). */
static int service_admit(Manager *m, Service *s, bool take_action, sd_bus_error *error) {
        ServiceRequest sr = service_request(s, &s->req);
        _cleanup_free_ char *reason = NULL;
        uint64_t free_bw;
        pid_t tid = 0;
        int gi, r;

        r = policy_check_request(&m->policy, &sr, 0, &gi, &reason);
        if (r == 0 && m->policy.groups[gi].max_services > 0 &&
            manager_count_admitted(m, m->policy.groups[gi].name, s) >= m->policy.groups[gi].max_services) {
                r = asprintf(&reason, "group \"%s\" already holds its maximum of %u services (max_services)",
                             m->policy.groups[gi].name, m->policy.groups[gi].max_services) < 0 ? -ENOMEM : -EPERM;
        }
        free(s->group);
        s->group = gi >= 0 ? strdup(m->policy.groups[gi].name) : NULL;
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                service_refuse(m, s, REFUSED_BY_POLICY, EPERM, reason, group_free_bw(m, s->group), take_action);
                (void) sd_bus_error_set(error, gi < 0 ? DLD_ERROR_NOT_IN_GROUP : DLD_ERROR_REFUSED, reason);
                return -EPERM;
        }

        /* The unit's cgroup needs the cpu controller: ask systemd for it. */
        r = wait_for_dl_file(m->kfs, s->cgroup, 0);
        if (r == -ENOENT && systemd_set_cpu_weight(m->bus, s->unit) >= 0)
                r = wait_for_dl_file(m->kfs, s->cgroup, 2 * USEC_PER_SEC);
        if (r == -ENOENT && !systemd_unit_is_active(m->bus, s->unit)) {
                (void) sd_bus_error_set(error, DLD_ERROR_UNIT_NOT_ACTIVE, "the unit stopped");
                return -ESRCH;  /* gone meanwhile: nothing to refuse */
        }
        if (r < 0) {
                const char *why = r == -ENOENT && !m->dl_groups
                        ? "the kernel has no per-cgroup deadline bandwidth (cpu.dl_runtime_us, CONFIG_DEADLINE_GROUP_SCHED)"
                        : "the unit's cgroup has no cpu.dl_runtime_us (cpu controller not enabled)";

                service_refuse(m, s, REFUSED_BY_ADMISSION, r, why, DL_BW_UNLIMITED, take_action);
                (void) sd_bus_error_set(error, !m->dl_groups ? DLD_ERROR_KERNEL_UNSUPPORTED : DLD_ERROR_REFUSED, why);
                return r;
        }

        r = reservation_set(m, s);
        if (r == -ENOENT && !systemd_unit_is_active(m->bus, s->unit)) {
                (void) sd_bus_error_set(error, DLD_ERROR_UNIT_NOT_ACTIVE, "the unit stopped");
                return -ESRCH;
        }
        if (r < 0) {
                free_bw = group_free_bw(m, s->group);
                reason = reservation_refused(m, s, &s->req, r, free_bw);
                if (!reason)
                        return -ENOMEM;
                service_refuse(m, s, REFUSED_BY_ADMISSION, r, reason, free_bw, take_action);
                (void) sd_bus_error_set(error, DLD_ERROR_REFUSED, reason);
                return r;
        }

        r = service_threads_to_deadline(m, s, &tid);
        if (r < 0) {
                reason = thread_refused(m, s, "thread", tid, r);
                if (!reason)
                        return -ENOMEM;
                service_refuse(m, s, REFUSED_BY_ADMISSION, r, reason, group_free_bw(m, s->group), take_action);
                (void) sd_bus_error_set(error, DLD_ERROR_REFUSED, reason);
                return r;
        }

        s->state = SERVICE_ADMITTED;
        manager_poll_wake(m);
        free(s->reason);
        s->reason = NULL;
        journal_admitted(s, group_free_bw(m, s->group));
        return 0;
}

static int service_new(Manager *m, const char *unit, const UnitInfo *u, DeadlineRequest *req, bool manual, Service **ret) {
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
                service_free(s);
                return -ENOMEM;
        }
        /* read_request() refused what does not resolve (X-DeadlinePromote=cgroup
         * with Delegate=yes); whatever comes here, a delegated unit is never touched. */
        if (deadline_promote_resolve(req->promote, u->delegate, &s->promote, why, sizeof(why)) < 0)
                s->promote = PROMOTE_NONE;
        s->req = *req;
        *req = (DeadlineRequest) {};
        s->manual = manual;
        m->services = ns;
        m->services[m->n_services++] = s;
        *ret = s;
        return 0;
}

int manager_unit_active(Manager *m, const char *unit) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(unit_info_done) UnitInfo u = {};
        DeadlineRequest req;
        bool manual;
        Service *s;
        int r;

        r = systemd_unit_info(m->bus, unit, &u, &e);
        if (r < 0)
                return r;
        s = manager_find_service(m, unit);
        if (s && streq_ptr(s->invocation, u.invocation))
                return 0;       /* already decided for this activation */
        if (s)
                /* Restarted without dld seeing it stop (systemd coalesces
                 * state changes): what was decided is for a past run. */
                manager_unit_inactive(m, unit);
        if (!u.cgroup || !*u.cgroup ||
            !(streq_ptr(u.active_state, "active") || streq_ptr(u.active_state, "reloading")))
                return 0;       /* stopped again before we got here */
        r = read_request(m, unit, &u, &req, &manual);
        if (r < 0)
                return r == -ENOENT || r == -EINVAL ? 0 : r;
        r = service_new(m, unit, &u, &req, manual, &s);
        deadline_request_done(&req);
        if (r < 0)
                return r;
        if (release_recorded(m, unit, u.invocation)) {
                s->state = SERVICE_RELEASED;
                log_info("%s: released by hand in this run of the unit: not admitted again", unit);
                return 0;
        }
        r = service_admit(m, s, true, NULL);
        if (r == -ESRCH)
                service_forget(m, s);
        return r == -ENOMEM ? r : 0;
}

void manager_unit_inactive(Manager *m, const char *unit) {
        Service *s = manager_find_service(m, unit);
        _cleanup_free_ char *mpath = manual_path(m, unit);

        if (mpath)
                (void) unlink(mpath);
        release_forget(m, unit);
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

static int write_manual(Manager *m, const char *unit, const DeadlineRequest *req) {
        _cleanup_free_ char *path = manual_path(m, unit), *text = dropin_format(req);

        return run_file_write(m, "manual", path, text);
}

/* A new request by hand for an admitted service: the new reservation and
 * parameters replace the old ones only if all of them are accepted; a
 * refusal leaves the working admission exactly as it was. */
static int service_readmit(Manager *m, Service *s, DeadlineRequest *req, sd_bus_error *error) {
        ServiceRequest sr = service_request(s, req);
        _cleanup_free_ char *reason = NULL, *why = NULL;
        DeadlineRequest old = s->req;
        Service refused;
        RefusedBy by = REFUSED_BY_POLICY;
        pid_t tid = 0;
        int gi, r;

        r = policy_check_request(&m->policy, &sr, 0, &gi, &reason);
        if (r == -ENOMEM)
                return r;
        if (r == 0 && (!s->group || gi != policy_group_by_name(&m->policy, s->group)))
                r = asprintf(&reason, "the new request is for group \"%s\", the admission is in \"%s\": release it first",
                             m->policy.groups[gi].name, s->group ?: "(none)") < 0 ? -ENOMEM : -EPERM;
        if (r == 0) {
                by = REFUSED_BY_ADMISSION;
                s->req = *req;
                r = reservation_set(m, s);
                if (r < 0) {
                        s->req = old;
                        reason = reservation_refused(m, s, req, r, group_free_bw(m, s->group));
                        if (!reason)
                                return -ENOMEM;
                } else if ((r = service_threads_to_deadline(m, s, &tid)) < 0) {
                        pid_t refused_tid = tid;

                        /* Back to the old parameters, then the old reservation. */
                        s->req = old;
                        (void) service_threads_to_deadline(m, s, &tid);
                        (void) reservation_set(m, s);
                        if (asprintf(&reason, "the kernel refused the new parameters for thread %d (%s)",
                                     (int) refused_tid, strerror(-r)) < 0)
                                return -ENOMEM;
                }
        }
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                refused = *s;
                refused.req = *req;
                journal_refused(&refused, s->group, by, r, group_free_bw(m, s->group), reason, "none");
                log_warning("%s: new request refused by %s, the admission stays as it was: %s", s->unit,
                            refused_by_to_string(by), reason);
                if (asprintf(&why, "%s; the existing admission stays as it was", reason) < 0)
                        return -ENOMEM;
                (void) sd_bus_error_set(error, DLD_ERROR_REFUSED, why);
                return r;
        }
        deadline_request_done(&old);
        s->req = *req;
        *req = (DeadlineRequest) {};
        s->manual = true;
        journal_admitted(s, group_free_bw(m, s->group));
        return 0;
}

/* The numbers of a request from the bus (threads: 1.., DL_THREADS_ALL), as
 * the kernel will take them: 0, or an error set (InvalidRequest). */
static int request_check(const DeadlineRequest *req, sd_bus_error *error) {
        const char *problem = dl_task_params_problem(req->runtime_usec, req->deadline_usec, req->period_usec);

        if (problem)
                return sd_bus_error_setf(error, DLD_ERROR_INVALID_REQUEST,
                                         "runtime %" PRIu64 "us, deadline %" PRIu64 "us, period %" PRIu64 "us: %s",
                                         req->runtime_usec, req->deadline_usec, req->period_usec, problem);
        if (req->threads == 0 || (req->threads > DL_THREADS_MAX && req->threads != DL_THREADS_ALL))
                return sd_bus_error_setf(error, DLD_ERROR_INVALID_REQUEST,
                                         "%u threads: the count is 1 to %u, or all", req->threads, DL_THREADS_MAX);
        return 0;
}

int manager_admit_manual(Manager *m, const char *unit, uint64_t runtime, uint64_t deadline, uint64_t period,
                         unsigned threads, sd_bus_error *error) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(unit_info_done) UnitInfo u = {};
        DeadlineRequest req = {
                .runtime_usec = runtime, .deadline_usec = deadline ?: period, .period_usec = period, .threads = threads,
        };
        Service *s;
        int r;

        if (!unit_name_is_service(unit))
                return sd_bus_error_setf(error, DLD_ERROR_INVALID_REQUEST, "\"%s\" is not a service unit name", unit);
        r = request_check(&req, error);
        if (r < 0)
                return r;
        r = systemd_unit_info(m->bus, unit, &u, &e);
        if (r < 0 || streq_ptr(u.load_state, "not-found"))
                return sd_bus_error_setf(error, DLD_ERROR_NO_SUCH_UNIT, "systemd knows no unit %s", unit);
        if (!streq_ptr(u.active_state, "active") && !streq_ptr(u.active_state, "reloading"))
                return sd_bus_error_setf(error, DLD_ERROR_UNIT_NOT_ACTIVE,
                                         "%s is %s, not active: nothing to admit", unit, u.active_state ?: "unknown");

        release_forget(m, unit);
        s = manager_find_service(m, unit);
        if (s && s->state == SERVICE_ADMITTED) {
                r = service_readmit(m, s, &req, error);
                deadline_request_done(&req);
        } else {
                if (s) {
                        deadline_request_done(&s->req);
                        s->req = req;
                        s->manual = true;
                } else {
                        r = service_new(m, unit, &u, &req, true, &s);
                        if (r < 0)
                                return r;
                }
                r = service_admit(m, s, false, error);
                if (r == -ESRCH)
                        service_forget(m, s);
        }
        if (r < 0)
                return r;
        r = write_manual(m, unit, &s->req);
        if (r < 0)
                log_warning("%s: cannot record the manual admission: %s", unit, strerror(-r));
        return 0;
}

int manager_release_manual(Manager *m, const char *unit, sd_bus_error *error) {
        Service *s = manager_find_service(m, unit);
        _cleanup_free_ char *mpath = manual_path(m, unit);
        int r;

        if (!s)
                return sd_bus_error_setf(error, DLD_ERROR_NO_SUCH_SERVICE, "dld does not manage %s", unit);
        if (s->container_id)
                return sd_bus_error_setf(error, DLD_ERROR_INVALID_REQUEST,
                                         "%s is the scope of container %s: it is released when the container stops",
                                         unit, s->container_name);
        if (mpath)
                (void) unlink(mpath);
        r = release_record(m, unit, s->invocation);
        if (r < 0)
                log_warning("%s: cannot record the release: %s; a restart of dld would admit it again",
                            unit, strerror(-r));
        if (s->state == SERVICE_ADMITTED) {
                service_threads_to_normal(m, s);
                reservation_release(m, s);
                journal_released(s, "released by hand");
        }
        s->state = SERVICE_RELEASED;
        return 0;
}

/* Containers */

static bool request_equal(const DeadlineRequest *a, const DeadlineRequest *b) {
        return a->runtime_usec == b->runtime_usec && a->deadline_usec == b->deadline_usec &&
               a->period_usec == b->period_usec && a->threads == b->threads && streq_ptr(a->group, b->group);
}

Service *manager_find_container(Manager *m, const char *key) {
        Service *found = NULL;
        size_t l = strlen(key);

        for (size_t i = 0; i < m->n_services; i++)
                if (streq_ptr(m->services[i]->container_id, key))
                        return m->services[i];
        /* A short ID: podman shows 12 characters. */
        for (size_t i = 0; l >= 12 && i < m->n_services; i++)
                if (m->services[i]->container_id && strncmp(m->services[i]->container_id, key, l) == 0) {
                        if (found)
                                return NULL;    /* ambiguous */
                        found = m->services[i];
                }
        if (found)
                return found;
        for (size_t i = m->n_services; i > 0; i--)
                if (m->services[i - 1]->container_id && streq_ptr(m->services[i - 1]->container_name, key))
                        return m->services[i - 1];
        return NULL;
}

Service *manager_find_entry(Manager *m, const char *key) {
        return manager_find_service(m, key) ?: manager_find_container(m, key);
}

static char *container_path(Manager *m, const char *id) {
        char *p;

        return asprintf(&p, "%s/containers/%s.conf", m->run_dir, id) < 0 ? NULL : p;
}

static int container_save(Manager *m, const Service *s) {
        _cleanup_free_ char *path = container_path(m, s->container_id),
                *text = container_record_format(s->container_id, s->container_name, s->cgroup, &s->req);

        return run_file_write(m, "containers", path, text);
}

/* Forgets a container: its threads back to normal and its reservation
 * released if it holds one (its cgroup may be gone already), its record
 * removed. */
static void container_forget(Manager *m, Service *s, const char *why) {
        _cleanup_free_ char *path = container_path(m, s->container_id);

        if (path)
                (void) unlink(path);
        if (s->state == SERVICE_ADMITTED) {
                service_threads_to_normal(m, s);
                reservation_release(m, s);
                journal_released(s, why);
        }
        log_info("%s: container %s (%s) forgotten: %s", s->unit, s->container_name, s->container_id, why);
        service_forget(m, s);
}

static int container_new(Manager *m, const char *id, const char *name, const char *cgroup, DeadlineRequest *req,
                         Service **ret) {
        _cleanup_free_ char *unit = NULL, *slice = NULL;
        UnitInfo u = {};
        Service *s;
        int r;

        r = container_cgroup_split(cgroup, &unit, &slice);
        if (r < 0)
                return r;
        u.cgroup = (char *) cgroup;
        u.slice = slice;
        r = service_new(m, unit, &u, req, false, &s);
        if (r < 0)
                return r;
        s->promote = PROMOTE_SUBTREE;   /* crun runs the processes below the scope */
        s->container_id = strdup(id);
        s->container_name = strdup(name);
        if (!s->container_id || !s->container_name) {
                service_forget(m, s);
                return -ENOMEM;
        }
        manager_poll_wake(m);
        *ret = s;
        return 0;
}

int manager_admit_container(Manager *m, const char *id, const char *name, const char *cgroup, const char *group,
                            uint64_t runtime, uint64_t deadline, uint64_t period, unsigned threads,
                            const char **ret_state, const char **ret_reason, sd_bus_error *error) {
        DeadlineRequest req = {
                .runtime_usec = runtime, .deadline_usec = deadline ?: period, .period_usec = period, .threads = threads,
        };
        Service *s;
        int r;

        if (!container_id_is_valid(id))
                return sd_bus_error_setf(error, DLD_ERROR_INVALID_REQUEST,
                                         "\"%s\" is not a container ID (1 to %d of A-Z a-z 0-9 _ . -)", id, CONTAINER_ID_MAX);
        if (!container_name_is_valid(name))
                return sd_bus_error_setf(error, DLD_ERROR_INVALID_REQUEST,
                                         "\"%s\" is not a container name (printable, no space or '/', at most %d)",
                                         name, CONTAINER_NAME_MAX);
        r = container_cgroup_split(cgroup, NULL, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return sd_bus_error_setf(error, DLD_ERROR_INVALID_REQUEST,
                                         "\"%s\" is not a container's scope cgroup (/SLICE.slice/NAME.scope)", cgroup);
        if (*group && !group_name_is_valid(group))
                return sd_bus_error_setf(error, DLD_ERROR_INVALID_REQUEST, "\"%s\" is not a group name", group);
        r = request_check(&req, error);
        if (r < 0)
                return r;
        if (!kernelfs_cgroup_exists(m->kfs, cgroup))
                return sd_bus_error_setf(error, DLD_ERROR_NO_SUCH_UNIT, "the container's cgroup %s does not exist", cgroup);
        if (*group && !(req.group = strdup(group)))
                return -ENOMEM;

        /* The same container again (a second hook stage, a retry): the
         * same answer; else what dld knew of that ID is for a past run. */
        s = NULL;
        for (size_t i = 0; i < m->n_services; i++)
                if (streq_ptr(m->services[i]->container_id, id))
                        s = m->services[i];
        if (s && s->state == SERVICE_ADMITTED && streq_ptr(s->cgroup, cgroup) && request_equal(&s->req, &req)) {
                deadline_request_done(&req);
                *ret_state = service_state_to_string(s->state);
                *ret_reason = "";
                return 0;
        }
        if (s)
                container_forget(m, s, "admitted again");

        r = container_new(m, id, name, cgroup, &req, &s);
        deadline_request_done(&req);
        if (r < 0)
                return r;
        r = service_admit(m, s, true, error);
        if (r == -ENOMEM || r == -ESRCH) {
                service_forget(m, s);
                return r;
        }
        if (s->state == SERVICE_FAILED)
                return r < 0 ? r : -EBUSY;      /* error says why */
        if (s->state == SERVICE_ADMITTED)
                s->container_started = true;
        sd_bus_error_free(error);               /* degraded: an answer, not an error */
        r = container_save(m, s);
        if (r < 0)
                log_warning("%s: cannot record container %s: %s; a restart of dld would forget it",
                            s->unit, s->container_name, strerror(-r));
        *ret_state = service_state_to_string(s->state);
        *ret_reason = s->reason ?: "";
        return 0;
}

int manager_release_container(Manager *m, const char *id, sd_bus_error *error) {
        Service *s = NULL;

        for (size_t i = 0; i < m->n_services; i++)
                if (streq_ptr(m->services[i]->container_id, id))
                        s = m->services[i];
        if (!s)
                return sd_bus_error_setf(error, DLD_ERROR_NO_SUCH_SERVICE, "dld does not manage a container %s", id);
        container_forget(m, s, "the container stopped");
        return 0;
}

void manager_restore_containers(Manager *m) {
        _cleanup_free_ char *dir = NULL;
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;

        if (asprintf(&dir, "%s/containers", m->run_dir) < 0 || !(d = opendir(dir)))
                return;
        while ((de = readdir(d))) {
                _cleanup_(container_record_done) ContainerRecord c = {};
                _cleanup_free_ char *path = NULL, *text = NULL;
                DiagList diag = {};
                Service *s;
                int r;

                if (!endswith(de->d_name, ".conf") || asprintf(&path, "%s/%s", dir, de->d_name) < 0)
                        continue;
                r = read_config_file(path, &text, NULL);
                if (r == 0)
                        r = container_record_parse(path, text, &c, &diag);
                diag_list_done(&diag);
                if (r < 0 || !kernelfs_cgroup_exists(m->kfs, c.cgroup)) {
                        /* Gone while dld was down: the kernel took the reservation back with the cgroup. */
                        (void) unlink(path);
                        continue;
                }
                if (manager_find_container(m, c.id))
                        continue;
                if (container_new(m, c.id, c.name, c.cgroup, &c.req, &s) < 0)
                        continue;
                s->container_started = true;
                r = service_admit(m, s, true, NULL);
                if (r == -ESRCH)
                        service_forget(m, s);
                else
                        log_info("%s: container %s (%s) found again after a restart: %s", s->unit, s->container_name,
                                 s->container_id, service_state_to_string(s->state));
        }
}

void manager_sync_threads(Manager *m) {
        for (size_t i = 0; i < m->n_services; i++) {
                Service *s = m->services[i];
                _cleanup_free_ char *reason = NULL;
                pid_t tid = 0;
                int r;

                /* A container that went without its poststop hook (the
                 * hook failed, dld was down): its cgroup is gone, and the
                 * reservation with it. */
                if (s->container_id && !kernelfs_cgroup_exists(m->kfs, s->cgroup)) {
                        container_forget(m, s, "the container's cgroup is gone");
                        i--;
                        continue;
                }
                if (s->state != SERVICE_ADMITTED)
                        continue;
                /* A delegated unit's threads are only counted (for dlconf):
                 * its whole subtree, once a second rather than every poll. */
                if (s->promote == PROMOTE_NONE) {
                        uint64_t now;

                        /* The event loop's own clock: this runs from its poll timer. */
                        if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0 ||
                            now - s->counted_usec < USEC_PER_SEC)
                                continue;
                        s->counted_usec = now;
                }
                r = service_threads_to_deadline(m, s, &tid);
                if (r >= 0)
                        continue;
                reason = thread_refused(m, s, "new thread", tid, r);
                if (!reason)
                        continue;
                service_refuse(m, s, REFUSED_BY_ADMISSION, r, reason, group_free_bw(m, s->group), !s->manual);
        }
}

bool manager_needs_poll(Manager *m) {
        for (size_t i = 0; i < m->n_services; i++)
                if (m->services[i]->state == SERVICE_ADMITTED || m->services[i]->container_id)
                        return true;
        return false;
}

void manager_poll_wake(Manager *m) {
        int enabled = SD_EVENT_OFF;

        if (!m->poll_source || sd_event_source_get_enabled(m->poll_source, &enabled) < 0 || enabled != SD_EVENT_OFF)
                return;
        if (sd_event_source_set_time_relative(m->poll_source, m->poll_usec) < 0 ||
            sd_event_source_set_enabled(m->poll_source, SD_EVENT_ON) < 0)
                log_warning("cannot start the thread poll: new threads wait for the next admission");
}

static bool is_service_cgroup(Manager *m, const char *cgroup) {
        for (size_t i = 0; i < m->n_services; i++)
                if (m->services[i]->state == SERVICE_ADMITTED && streq_ptr(m->services[i]->cgroup, cgroup))
                        return true;
        return false;
}

/* group_cgroups: the groups' slice cgroups, looked up once per sweep. */
static void release_orphans_under(Manager *m, char * const *group_cgroups, const char *cgroup, unsigned depth) {
        _cleanup_strv_free_ char **children = NULL;

        if (depth > 16 || kernelfs_cgroup_children(m->kfs, cgroup, &children) < 0)
                return;
        for (char **c = children; *c; c++) {
                _cleanup_free_ char *path = NULL;
                int64_t rt;

                if (asprintf(&path, "%s/%s", cgroup, *c) < 0)
                        return;
                if (!strv_contains(group_cgroups, path) && !is_service_cgroup(m, path) &&
                    kernelfs_cgroup_read(m->kfs, path, "cpu.dl_runtime_us", &rt) == 0 && rt > 0) {
                        int r = kernelfs_cgroup_write(m->kfs, path, "cpu.dl_runtime_us", -1);

                        if (r < 0)
                                log_warning("cannot release orphaned reservation of %s: %s", path, strerror(-r));
                        else
                                log_notice("released orphaned reservation of %s (%" PRId64 "us per period): no admitted unit owns it",
                                           path, rt);
                }
                /* Below a unit's cgroup is the unit's own business (a
                 * delegated subtree, a container): only slices are walked. */
                if (endswith(*c, ".slice"))
                        release_orphans_under(m, group_cgroups, path, depth + 1);
        }
}

void manager_release_orphans(Manager *m) {
        _cleanup_strv_free_ char **group_cgroups = NULL;

        for (size_t i = 0; i < m->policy.n_groups; i++) {
                _cleanup_free_ char *cg = systemd_slice_cgroup(m->bus, m->policy.groups[i].slice);

                if (!cg || strv_extend(&group_cgroups, cg) < 0)
                        return;
        }
        for (char **cg = group_cgroups; cg && *cg; cg++)
                if (kernelfs_cgroup_exists(m->kfs, *cg))
                        release_orphans_under(m, group_cgroups, *cg, 0);
}
