/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Containers (the OCI hook, units/CONTAINERS.md): admitted as services
 * are, by a task template in the cgroup of the container's init, the
 * scope standing for the unit; kept in the run directory for a restart of
 * dld. */
#include "container.h"
#include "containers.h"
#include "dlsched/dld-bus.h"
#include "journal.h"
#include "log.h"
#include "records.h"
#include "request.h"
#include "reservation.h"
#include "service-threads.h"
#include "service.h"
#include "unitname.h"

static bool request_equal(const DeadlineRequest *a, const DeadlineRequest *b) {
        return a->runtime_usec == b->runtime_usec && a->deadline_usec == b->deadline_usec &&
               a->period_usec == b->period_usec && a->threads == b->threads && streq_ptr(a->group, b->group);
}

Service *containers_find(Manager *m, const char *key) {
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

Service *containers_find_scope(Manager *m, const char *scope) {
        for (size_t i = 0; i < m->n_services; i++)
                if (m->services[i]->container_id && streq_ptr(m->services[i]->unit, scope))
                        return m->services[i];
        return NULL;
}

void containers_forget(Manager *m, Service *s, const char *why) {
        records_container_remove(m->run_dir, s->container_id);
        if (s->state == SERVICE_ADMITTED) {
                service_threads_unfollow(m, s);
                reservation_release(m, s);
                journal_released(s, why);
        }
        log_info("%s: container %s (%s) forgotten: %s", s->unit, s->container_name, s->container_id, why);
        service_forget(m, s);
}

static int containers_keep_record(Manager *m, const Service *s) {
        return records_container_save(m->run_dir, s->container_id, s->container_name, s->cgroup,
                                      s->state == SERVICE_ADMITTED ? s->group : NULL, &s->req);
}

static int containers_new(Manager *m, const char *id, const char *name, const char *cgroup, DeadlineRequest *req,
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
        /* The cgroup of the container's init process: its template admits
         * the container's processes, and those podman exec adds. */
        s->promote = PROMOTE_CGROUP;
        s->container_id = strdup(id);
        s->container_name = strdup(name);
        if (!s->container_id || !s->container_name) {
                service_forget(m, s);
                return -ENOMEM;
        }
        *ret = s;
        return 0;
}

/* AdmitContainer's answer: the state; a container failed by its group's
 * on_refusal gets an error (its runtime does not start it). */
static void container_answer(Manager *m, Service *s, sd_bus_message *call, int r, const sd_bus_error *error) {
        if (r == -ENOMEM || r == -ESRCH || s->state == SERVICE_FAILED) {
                (void) sd_bus_reply_method_errno(call, r < 0 ? r : -EBUSY, error);
                return;
        }
        if (s->state == SERVICE_ADMITTED)
                s->container_started = true;
        r = containers_keep_record(m, s);
        if (r < 0)
                log_warning("%s: cannot record container %s: %s; a restart of dld would forget it",
                            s->unit, s->container_name, strerror(-r));
        /* Degraded: an answer, not an error. */
        (void) sd_bus_reply_method_return(call, "ss", service_state_to_string(s->state), s->reason ?: "");
}

int containers_admit(Manager *m, sd_bus_message *call, const char *id, const char *name, const char *cgroup,
                     const char *group, uint64_t runtime, uint64_t deadline, uint64_t period, unsigned threads,
                     sd_bus_error *error) {
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
        if (*group && !unitname_group_is_valid(group))
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
        if (s && streq_ptr(s->cgroup, cgroup) && request_equal(&s->req, &req)) {
                if (s->state == SERVICE_ADMITTED) {
                        dropin_request_done(&req);
                        (void) sd_bus_reply_method_return(call, "ss", service_state_to_string(s->state), "");
                        return 1;
                }
                r = service_admit_join(s, call, container_answer);
                if (r != 0) {
                        dropin_request_done(&req);
                        return r;
                }
        }
        if (s)
                containers_forget(m, s, "admitted again");

        r = containers_new(m, id, name, cgroup, &req, &s);
        dropin_request_done(&req);
        if (r < 0)
                return r;
        service_admit(m, s, true, call, container_answer);
        return 1;
}

int containers_release(Manager *m, const char *id, sd_bus_error *error) {
        Service *s = NULL;

        for (size_t i = 0; i < m->n_services; i++)
                if (streq_ptr(m->services[i]->container_id, id))
                        s = m->services[i];
        if (!s)
                return sd_bus_error_setf(error, DLD_ERROR_NO_SUCH_SERVICE, "dld does not manage a container %s", id);
        containers_forget(m, s, "the container stopped");
        return 0;
}

static void container_restored(Manager *m, Service *s, sd_bus_message *call, int r, const sd_bus_error *error) {
        (void) call, (void) error;
        if (r == -ENOMEM || r == -ESRCH)
                return;         /* forgotten (-ESRCH), or kept without a record */
        if (containers_keep_record(m, s) < 0)
                log_warning("%s: cannot record container %s", s->unit, s->container_name);
        log_info("%s: container %s (%s) found again after a restart: %s", s->unit, s->container_name,
                 s->container_id, service_state_to_string(s->state));
}

void containers_restore(Manager *m) {
        _cleanup_strv_free_ char **ids = records_container_ids(m->run_dir);

        for (char **id = ids; id && *id; id++) {
                _cleanup_(container_record_done) ContainerRecord c = {};
                Service *s;
                int r;

                r = records_container_load(m->run_dir, *id, &c);
                if (r < 0 || !kernelfs_cgroup_exists(m->kfs, c.cgroup)) {
                        /* Gone while dld was down: the kernel took the reservation back with the cgroup. */
                        records_container_remove(m->run_dir, *id);
                        continue;
                }
                if (containers_find(m, c.id))
                        continue;
                if (containers_new(m, c.id, c.name, c.cgroup, &c.req, &s) < 0)
                        continue;
                s->container_started = true;
                if (!c.admitted_group) {
                        /* Refused before, or a record without the group: decide
                         * again, without the group's on_refusal action. */
                        service_admit(m, s, false, NULL, container_restored);
                        continue;
                }
                /* Admitted when dld went down: it stays so, whatever the
                 * policy says now (a running container is never stopped or
                 * degraded by a restart of dld). */
                s->group = steal_pointer(&c.admitted_group);
                r = service_resume(m, s);
                if (r == -ENOMEM) {
                        service_forget(m, s);
                        continue;
                }
                container_restored(m, s, NULL, r, NULL);
        }
}
