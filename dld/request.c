/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>

#include "dlsched/dld-bus.h"
#include "journal.h"
#include "log.h"
#include "records.h"
#include "request.h"

/* The unit's request: a manual one (AdmitUnit, kept in the run directory)
 * overrides the X-Deadline keys of its unit file and drop-ins.
 * 0: request in *req; -ENOENT: none; -EINVAL: malformed (logged). */
int request_read(const char *run_dir, const char *unit, const UnitInfo *u, DeadlineRequest *req, bool *ret_manual) {
        DiagList d = {};
        int r, k;

        *req = (DeadlineRequest) {};
        *ret_manual = false;
        r = records_manual_load(run_dir, unit, req, &d);
        if (r != -ENOENT)
                *ret_manual = true;
        else {
                r = 0;
                if (u->fragment_path && *u->fragment_path) {
                        _cleanup_free_ char *text = NULL;

                        if (fileio_read_config(u->fragment_path, &text, NULL) == 0)
                                r = dropin_parse(req, u->fragment_path, text, &d);
                }
                for (char **p = u->dropin_paths; p && *p && r != -ENOMEM; p++) {
                        _cleanup_free_ char *text = NULL;

                        k = fileio_read_config(*p, &text, NULL);
                        if (k == -EBADFD || k == -EFBIG) {
                                /* systemd itself skips such a drop-in: say so, and refuse. */
                                r = diag_add(&d, *p, NULL, "cannot read: %s", fileio_config_error(k)) < 0 ? -ENOMEM : -EINVAL;
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
                if (dropin_promote_resolve(req->promote, u->delegate, &p, why, sizeof(why)) < 0) {
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
                dropin_request_done(req);
        return r;
}

/* The numbers of a request from the bus (threads: 1.., DL_THREADS_ALL), as
 * the kernel will take them: 0, or an error set (InvalidRequest). */
int request_check(const DeadlineRequest *req, sd_bus_error *error) {
        const char *problem = admission_task_params_problem(req->runtime_usec, req->deadline_usec, req->period_usec);

        if (problem)
                return sd_bus_error_setf(error, DLD_ERROR_INVALID_REQUEST,
                                         "runtime %" PRIu64 "us, deadline %" PRIu64 "us, period %" PRIu64 "us: %s",
                                         req->runtime_usec, req->deadline_usec, req->period_usec, problem);
        if (req->threads == 0 || (req->threads > DL_THREADS_MAX && req->threads != DL_THREADS_ALL))
                return sd_bus_error_setf(error, DLD_ERROR_INVALID_REQUEST,
                                         "%u threads: the count is 1 to %u, or all", req->threads, DL_THREADS_MAX);
        return 0;
}
