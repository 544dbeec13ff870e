/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A policy reload: the files read and validated, the policy's slices
 * started by systemd (waited for from its JobRemoved signals, never by
 * polling), the kernel writes (apply.c), and a copy of what is in force
 * kept in the run directory. One reload runs at a time; requests that come
 * meanwhile are answered by the next one. */
#include <stdio.h>
#include <systemd/sd-daemon.h>

#include "apply.h"
#include "dlsched/dld-bus.h"
#include "dld-messages.h"
#include "journal.h"
#include "log.h"
#include "records.h"
#include "reload.h"
#include "systemd-client.h"
#include "timespan.h"

/* How long systemd may take to start a policy's slices. Under the D-Bus
 * call timeout (25 s), so that dlconf reload gets dld's answer. */
#define RELOAD_SLICES_TIMEOUT_USEC (20 * USEC_PER_SEC)

static void reload_waiters_done(ReloadWaiters *w) {
        for (size_t i = 0; i < w->n_calls; i++)
                sd_bus_message_unref(w->calls[i]);
        free(w->calls);
        *w = (ReloadWaiters) {};
}

static void policy_load_freep(PolicyLoad **l);
static int load_commit(Manager *m, PolicyLoad *l, sd_bus_error *error);
static int on_job_removed(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error);
static int on_property_set(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error);
static int on_start_queued(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error);
static int on_barrier(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error);
static int on_slices_timeout(sd_event_source *s, uint64_t usec, void *userdata);

static char *files_list(char * const *files) {
        size_t l = 1;
        char *s;

        for (char * const *f = files; f && *f; f++)
                l += strlen(*f) + 1;
        s = calloc(1, l);
        if (!s)
                return NULL;
        for (char * const *f = files; f && *f; f++) {
                if (*s)
                        strcat(s, " ");
                strcat(s, *f);
        }
        return s;
}

/* A copy of the policy applied (records.h), or no answer: a missing
 * directory is then refused, the safe answer. */
static bool applied_copy_exists(Manager *m) {
        _cleanup_strv_free_ char **dirs = NULL;

        return records_policy_copies(m->run_dir, &dirs) != 0;
}

static PolicyLoad *policy_load_free(PolicyLoad *l) {
        if (!l)
                return NULL;
        policy_done(&l->policy);
        free(l->dir);
        free(l->files);
        strv_free(l->jobs);
        for (size_t i = 0; i < l->n_calls; i++)
                sd_bus_slot_unref(l->calls[i]);        /* an unanswered call's callback goes */
        free(l->calls);
        free(l->failure);
        sd_bus_slot_unref(l->job_removed);
        sd_event_source_disable_unref(l->timeout);
        reload_waiters_done(&l->waiters);
        free(l);
        return NULL;
}

/* Reads and validates the policy in dir, then asks systemd for its slices.
 * <0: rejected (error set, never NULL); 0: applied; 1: systemd is starting
 * slices, m->loading holds the policy until load_finish(). */
static int load_begin(Manager *m, const char *dir, sd_bus_error *error) {
        _cleanup_(policy_load_freep) PolicyLoad *l = NULL;
        _cleanup_strv_free_ char **slices = NULL;
        _cleanup_free_ char *files = NULL, *msg = NULL, *first = NULL;
        Policy np = {};
        DiagList d = {};
        SystemBudget cur;
        int r;

        r = kernelfs_read_budget(m->kfs, &cur);
        if (r < 0) {
                (void) sd_bus_error_setf(error, DLD_ERROR_KERNEL_UNSUPPORTED,
                                         "cannot read the deadline sysctls: %s", strerror(-r));
                return r;
        }

        r = policy_load_directory(&np, dir, &d);
        if (r == -ENOENT && (m->policy.n_groups > 0 || applied_copy_exists(m))) {
                /* Gone after a policy was applied: a mistake, more likely than
                 * a wish to release every group (an empty directory says so). */
                r = diag_add(&d, dir, NULL, "the policy directory does not exist (an empty policy is an empty directory)") < 0
                        ? -ENOMEM : -EINVAL;
        } else if (r == -ENOENT)
                r = 0;          /* none, and none applied before: an empty policy */
        if (r == 0)
                r = policy_validate(&np, &cur, &d);
        files = files_list(np.files);
        if (r < 0) {
                first = d.n > 0 ? diag_format(&d.items[0]) : strdup(strerror(-r));
                (void) sd_bus_error_set(error, DLD_ERROR_POLICY_INVALID, first ?: "?");
                for (size_t i = 0; i < d.n; i++) {
                        _cleanup_free_ char *line = diag_format(&d.items[i]);
                        log_error("policy: %s", line ?: d.items[i].message);
                }
                if (asprintf(&msg, "policy in %s rejected (%zu problem(s), first: %s); the previous policy stays in force",
                             dir, d.n, first ?: "?") >= 0)
                        journal_policy(DLD_MESSAGE_POLICY_REJECTED, LOG_ERR, files ?: "", msg);
                /* systemctl status shows it until the next reload. */
                (void) sd_notifyf(false, "STATUS=Policy rejected: %s; the previous one (%zu group(s)) stays in force",
                                  first ?: "?", m->policy.n_groups);
                diag_list_done(&d);
                policy_done(&np);
                return -EINVAL;
        }
        diag_list_done(&d);

        l = calloc(1, sizeof(PolicyLoad));
        if (!l || !(l->dir = strdup(dir))) {
                policy_done(&np);
                return -ENOMEM;
        }
        l->policy = np;
        l->files = TAKE_PTR(files);
        r = apply_slices_to_prepare(m, &l->policy, &slices);
        if (r < 0)
                return r;
        if (!slices)
                return load_commit(m, l, error);
        /* Everything asked without waiting: the match first (the bus takes
         * it before it routes the start calls), then for each slice its
         * CPUWeight= (so that its start realizes it) and its start. */
        r = sd_bus_match_signal_async(m->bus, &l->job_removed, SYSTEMD_DEST, SYSTEMD_PATH, SYSTEMD_MANAGER,
                                      "JobRemoved", on_job_removed, NULL, m);
        if (r < 0)
                return r;
        l->calls = calloc(2 * strv_length(slices) + 1, sizeof(sd_bus_slot *));
        if (!l->calls)
                return -ENOMEM;
        for (char **sl = slices; *sl; sl++) {
                r = systemd_set_cpu_weight_async(m->bus, &l->calls[l->n_calls], *sl, on_property_set, m);
                if (r < 0)
                        return r;
                l->n_calls++;
                r = systemd_start_unit_async(m->bus, &l->calls[l->n_calls], *sl, on_start_queued, m);
                if (r < 0)
                        return r;
                l->n_calls++;
        }
        /* Answered once systemd has realized what the CPUWeight= calls set. */
        r = systemd_barrier_async(m->bus, &l->calls[l->n_calls], on_barrier, m);
        if (r < 0)
                return r;
        l->n_calls++;
        l->pending = l->n_calls;
        r = sd_event_add_time_relative(m->event, &l->timeout, CLOCK_MONOTONIC, RELOAD_SLICES_TIMEOUT_USEC, 0,
                                       on_slices_timeout, m);
        if (r < 0)
                return r;
        log_info("policy in %s: waiting for systemd to start %zu slice(s)", dir, strv_length(slices));
        m->loading = TAKE_PTR(l);
        return 1;
}

static void policy_load_freep(PolicyLoad **l) {
        policy_load_free(*l);
}

/* m->reserved_slices, and run_dir/slices: the slices of p, with those
 * remembered before (keep: a policy about to be applied) or alone (the
 * policy applied: what it dropped was released). */
static int remember_slices(Manager *m, const Policy *p, bool keep) {
        char **slices = NULL;
        int r;

        for (char **s = keep ? m->reserved_slices : NULL; s && *s; s++)
                if (strv_extend(&slices, *s) < 0)
                        goto oom;
        for (size_t i = 0; i < p->n_groups; i++)
                if (!strv_contains(slices, p->groups[i].slice) && strv_extend(&slices, p->groups[i].slice) < 0)
                        goto oom;
        strv_free(m->reserved_slices);
        m->reserved_slices = slices;
        r = records_slices_save(m->run_dir, m->reserved_slices);
        if (r < 0)
                log_warning("cannot keep the policy's slices in %s: %s", m->run_dir, strerror(-r));
        return 0;
oom:
        strv_free(slices);
        return -ENOMEM;
}

/* Applies a policy whose slices are ready (or why they are not, l->failure). */
static int load_commit(Manager *m, PolicyLoad *l, sd_bus_error *error) {
        _cleanup_free_ char *msg = NULL;
        const char *dir = l->dir, *files = l->files;
        int r;

        if (l->failure)
                r = sd_bus_error_setf(error, DLD_ERROR_APPLY_FAILED, "%s", l->failure);
        else {
                /* Before the kernel writes: a crash in the middle leaves a
                 * record of every slice that may hold a reservation. */
                r = remember_slices(m, &l->policy, true);
                if (r >= 0)
                        r = apply_policy(m, &l->policy, error);
        }
        if (r < 0) {
                const char *why = sd_bus_error_is_set(error) ? error->message : strerror(-r);

                if (asprintf(&msg, "policy in %s not applied: %s; the previous policy stays in force", dir, why) >= 0) {
                        log_error("%s", msg);
                        journal_policy(DLD_MESSAGE_POLICY_REJECTED, LOG_ERR, files ?: "", msg);
                }
                (void) sd_notifyf(false, "STATUS=Policy not applied: %s; the previous one (%zu group(s)) stays in force",
                                  why, m->policy.n_groups);
                return r;
        }
        policy_done(&m->policy);
        m->policy = l->policy;
        l->policy = (Policy) {};
        (void) remember_slices(m, &m->policy, false);
        if (asprintf(&msg, "policy applied from %s: %zu group(s), deadline budget %lld/%llu us per CPU",
                     dir, m->policy.n_groups, (long long) m->policy.system.dl_runtime_us,
                     (unsigned long long) m->policy.system.dl_period_us) >= 0) {
                log_info("%s", msg);
                journal_policy(DLD_MESSAGE_POLICY_APPLIED, LOG_INFO, files ?: "", msg);
        }
        /* Services keep their reservations; their group may have a new name. */
        for (size_t i = 0; i < m->n_services; i++) {
                Service *s = m->services[i];
                int gi = s->slice ? policy_group_for_slice(&m->policy, s->slice) : -1;

                free(s->group);
                s->group = gi >= 0 ? strdup(m->policy.groups[gi].name) : NULL;
        }
        (void) sd_notifyf(false, "STATUS=Policy: %zu group(s), %zu service(s)", m->policy.n_groups, m->n_services);
        if (streq_ptr(dir, m->policy_dir)) {
                r = records_policy_save(m->run_dir, &m->policy);
                if (r < 0)
                        log_warning("cannot keep a copy of the policy in %s: %s; a restart of dld would not find it",
                                    m->run_dir, strerror(-r));
        }
        return 0;
}

/* The reload's outcome to whoever asked. */
static void answer(ReloadWaiters *w, int r, const sd_bus_error *error) {
        for (size_t i = 0; i < w->n_calls; i++) {
                if (r < 0)
                        (void) sd_bus_reply_method_errno(w->calls[i], r, error);
                else
                        (void) sd_bus_reply_method_return(w->calls[i], NULL);
        }
        if (w->notify_ready)
                (void) sd_notify(false, "READY=1");
        if (w->ret_error && r < 0)
                (void) sd_bus_error_copy(w->ret_error, error);
        if (w->ret_result)
                *w->ret_result = r;
        if (w->ret_done)
                *w->ret_done = true;
}

static int start(Manager *m, ReloadWaiters *w) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = load_begin(m, m->policy_dir, &error);

        if (r == 1) {
                m->loading->waiters = *w;
                *w = (ReloadWaiters) {};
                return 1;
        }
        if (r < 0 && !sd_bus_error_is_set(&error))
                (void) sd_bus_error_set_errno(&error, r);
        answer(w, r, &error);
        reload_waiters_done(w);
        return 0;
}

/* The slices are ready, or will not be: apply, answer, and start the next
 * reload if one was asked for meanwhile. */
static void load_finish(Manager *m) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(policy_load_freep) PolicyLoad *l = TAKE_PTR(m->loading);
        int r;

        r = load_commit(m, l, &error);
        if (r < 0 && !sd_bus_error_is_set(&error))
                (void) sd_bus_error_set_errno(&error, r);
        answer(&l->waiters, r, &error);
        if (m->reload_queued.pending) {
                ReloadWaiters w = m->reload_queued;

                m->reload_queued = (ReloadWaiters) {};
                w.pending = false;
                (void) start(m, &w);
        }
}

/* Every call answered and every start job over. */
static void load_finish_when_ready(Manager *m) {
        if (m->loading && m->loading->pending == 0 && strv_length(m->loading->jobs) == 0)
                load_finish(m);
}

static int on_job_removed(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        Manager *m = userdata;
        const char *job, *unit, *result;
        uint32_t id;

        (void) ret_error;
        if (!m->loading || sd_bus_message_read(msg, "uoss", &id, &job, &unit, &result) < 0)
                return 0;
        if (!strv_remove(m->loading->jobs, job))
                return 0;
        if (!streq_ptr(result, "done") && !m->loading->failure &&
            asprintf(&m->loading->failure, "systemd could not start %s (its start job ended \"%s\")", unit, result) < 0)
                m->loading->failure = NULL;
        load_finish_when_ready(m);
        return 0;
}

/* A call answered (its slot stays with the load, which unreferences them all). */
static void call_answered(PolicyLoad *l) {
        l->pending--;
}

static int on_property_set(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        Manager *m = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);

        (void) ret_error;
        if (!m->loading)
                return 0;
        if (e)
                log_warning("cannot set CPUWeight=100 on a slice of the policy: %s", e->message ?: e->name);
        call_answered(m->loading);
        load_finish_when_ready(m);
        return 0;
}

static int on_barrier(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        Manager *m = userdata;

        (void) reply, (void) ret_error;
        if (!m->loading)
                return 0;
        call_answered(m->loading);
        load_finish_when_ready(m);
        return 0;
}

static int on_start_queued(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        Manager *m = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        const char *job;

        (void) ret_error;
        if (!m->loading)
                return 0;
        if (e) {
                if (!m->loading->failure &&
                    asprintf(&m->loading->failure, "systemd could not start a slice of the policy: %s",
                             e->message ?: e->name) < 0)
                        m->loading->failure = NULL;
        } else if (sd_bus_message_read(reply, "o", &job) < 0 || strv_extend(&m->loading->jobs, job) < 0) {
                if (!m->loading->failure)
                        m->loading->failure = strdup("cannot follow a slice's start job");
        }
        call_answered(m->loading);
        load_finish_when_ready(m);
        return 0;
}

static int on_slices_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        (void) s, (void) usec;
        if (!m->loading)
                return 0;
        if (!m->loading->failure &&
            asprintf(&m->loading->failure, "systemd has not started the policy's slices within %llu s (%zu start job(s) left)",
                     (unsigned long long) (RELOAD_SLICES_TIMEOUT_USEC / USEC_PER_SEC), strv_length(m->loading->jobs)) < 0)
                m->loading->failure = NULL;
        load_finish(m);
        return 0;
}

int reload_request(Manager *m, sd_bus_message *call) {
        ReloadWaiters w = {};

        if (call) {
                w.calls = calloc(1, sizeof(sd_bus_message *));
                if (!w.calls)
                        return -ENOMEM;
                w.calls[w.n_calls++] = sd_bus_message_ref(call);
        } else
                w.notify_ready = true;
        if (!m->loading)
                return start(m, &w);

        /* One at a time: the next one reads the files as they are then. */
        if (call) {
                sd_bus_message **nc = realloc(m->reload_queued.calls,
                                              (m->reload_queued.n_calls + 1) * sizeof(sd_bus_message *));

                if (!nc) {
                        reload_waiters_done(&w);
                        return -ENOMEM;
                }
                m->reload_queued.calls = nc;
                m->reload_queued.calls[m->reload_queued.n_calls++] = TAKE_PTR(w.calls[0]);
        } else
                m->reload_queued.notify_ready = true;
        m->reload_queued.pending = true;
        reload_waiters_done(&w);
        return 1;
}

/* At start, before dld answers calls: the event loop runs (the watchdog
 * is fed, systemd's signals come in) until the policy is applied. */
static int load_and_wait(Manager *m, const char *dir, sd_bus_error *error) {
        bool done = false;
        int r, result = 0;

        r = load_begin(m, dir, error);
        if (r != 1)
                return r;
        m->loading->waiters.ret_result = &result;
        m->loading->waiters.ret_error = error;
        m->loading->waiters.ret_done = &done;
        while (!done) {
                r = sd_event_run(m->event, UINT64_MAX);
                if (r < 0 || sd_event_get_exit_code(m->event, &(int) {0}) != -ENODATA) {
                        /* Told to exit meanwhile. */
                        m->loading = policy_load_free(m->loading);
                        return sd_bus_error_set_errnof(error, ECANCELED, "dld is stopping");
                }
        }
        return result;
}

int reload_at_start(Manager *m, sd_bus_error *error) {
        /* What an earlier dld may have reserved, whatever the policy now. */
        m->reserved_slices = records_slices_load(m->run_dir);
        return load_and_wait(m, m->policy_dir, error);
}

void reload_forget(Manager *m) {
        m->loading = policy_load_free(m->loading);
        reload_waiters_done(&m->reload_queued);
}

/* At start, when the policy on disk is rejected: the one dld last applied. */
int reload_restore_applied(Manager *m, const char *why) {
        _cleanup_strv_free_ char **dirs = NULL;
        int r;

        r = records_policy_copies(m->run_dir, &dirs);
        if (r < 0)
                return r;
        for (char **dir = dirs; dir && *dir; dir++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                _cleanup_free_ char *msg = NULL;

                if (load_and_wait(m, *dir, &error) < 0)
                        continue;
                if (asprintf(&msg, "the policy in %s was rejected (%s): enforcing the policy last applied, kept in %s",
                             m->policy_dir, why, *dir) >= 0) {
                        log_warning("%s", msg);
                        journal_policy(DLD_MESSAGE_POLICY_REJECTED, LOG_WARNING, "", msg);
                }
                (void) sd_notifyf(false, "STATUS=Policy in %s rejected (%s); enforcing the last applied one (%zu group(s))",
                                  m->policy_dir, why, m->policy.n_groups);
                m->policy_restored = true;
                return 0;
        }
        return -ENOENT;
}
