/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <systemd/sd-journal.h>

#include "container.h"
#include "dld-messages.h"
#include "journal.h"
#include "log.h"
#include "timespan.h"

/* What an entry is about: the unit, or "container NAME (ID)" for a
 * container, whose unit is its scope. */
static const char *subject(const Service *s, char *buf, size_t size) {
        if (!s->container_id)
                return s->unit;
        snprintf(buf, size, "container %s (%.12s)", s->container_name, s->container_id);
        return buf;
}

/* The fields of a container go last: for a unit, the NULL ends the list. */
#define CONTAINER_FIELDS(s) \
        (s)->container_id ? "DLD_CONTAINER_ID=%s" : NULL, (s)->container_id, \
        "DLD_CONTAINER_NAME=%s", (s)->container_name

/* The unit and its request, in every entry about a service. */
#define REQUEST_FIELDS(s) \
        "UNIT=%s", (s)->unit, \
        "OBJECT_SYSTEMD_UNIT=%s", (s)->unit, \
        "DLD_RUNTIME_USEC=%" PRIu64, (s)->req.runtime_usec, \
        "DLD_DEADLINE_USEC=%" PRIu64, (s)->req.deadline_usec, \
        "DLD_PERIOD_USEC=%" PRIu64, (s)->req.period_usec

void journal_refused(const Service *s, const char *group, RefusedBy by, int err,
                     uint64_t free_bw, const char *reason, const char *action) {
        char rt[TIMESPAN_MAX], pe[TIMESPAN_MAX], dl[TIMESPAN_MAX], pct[ADMISSION_PERCENT_MAX] = "", freebuf[32] = "", th[16];
        char who[CONTAINER_NAME_MAX + 64];
        int e = err < 0 ? -err : err;

        timespan_format(rt, sizeof(rt), s->req.runtime_usec);
        timespan_format(dl, sizeof(dl), s->req.deadline_usec);
        timespan_format(pe, sizeof(pe), s->req.period_usec);
        if (free_bw != DL_BW_UNLIMITED) {
                snprintf(freebuf, sizeof(freebuf), "%" PRIu64, free_bw);
                admission_bw_to_percent(pct, sizeof(pct), free_bw);
        }
        admission_threads_to_string(th, sizeof(th), s->req.threads);
        sd_journal_send("MESSAGE=%s: deadline request %s/%s/%s x %s thread%s refused by %s%s%s: %s (%s); %s",
                        subject(s, who, sizeof(who)), rt, dl, pe, th, s->req.threads == 1 ? "" : "s",
                        predict_refused_by_to_string(by), group ? " in group " : "", group ?: "", reason, log_errno_name(e),
                        streq_ptr(action, "fail") ? (s->container_id ? "the container does not run" : "stopping the unit") :
                        streq_ptr(action, "degrade") ? "it runs as a normal task" : "nothing changed",
                        "MESSAGE_ID=" DLD_MESSAGE_REFUSED,
                        "PRIORITY=%d", LOG_WARNING,
                        REQUEST_FIELDS(s),
                        "DLD_THREADS_REQUESTED=%s", th,
                        "DLD_GROUP=%s", group ?: "",
                        "DLD_FREE_BW=%s", freebuf,
                        "DLD_FREE_PERCENT=%s", pct,
                        "ERRNO=%d", e,
                        "DLD_ERRNO_NAME=%s", log_errno_name(e),
                        "DLD_REFUSED_BY=%s", predict_refused_by_to_string(by),
                        "DLD_REASON=%s", reason,
                        "DLD_ACTION=%s", action,
                        CONTAINER_FIELDS(s),
                        NULL);
}

void journal_admitted(const Service *s, uint64_t free_bw) {
        char rt[TIMESPAN_MAX], pe[TIMESPAN_MAX], dl[TIMESPAN_MAX], pct[ADMISSION_PERCENT_MAX] = "unlimited", res[ADMISSION_PERCENT_MAX], th[16];
        char who[CONTAINER_NAME_MAX + 64], thr[96], how[TIMESPAN_MAX + 64];

        if (free_bw != DL_BW_UNLIMITED)
                admission_bw_to_percent(pct, sizeof(pct), free_bw);
        admission_threads_to_string(th, sizeof(th), s->req.threads);
        if (s->promote == PROMOTE_NONE)
                snprintf(thr, sizeof(thr), "threads left to the unit (%u SCHED_DEADLINE in its subtree)", s->threads_dl);
        else if (s->by_template)
                snprintf(thr, sizeof(thr), "its tasks SCHED_DEADLINE as they start (%u now)", s->threads_dl);
        else
                snprintf(thr, sizeof(thr), "%u thread(s) SCHED_DEADLINE", s->threads_dl);
        timespan_format(pe, sizeof(pe), s->req.period_usec);
        if (s->by_template)
                snprintf(how, sizeof(how), "a task template");
        else
                snprintf(how, sizeof(how), "%" PRIu64 "us of each CPU every %s", s->reserved_runtime_us, pe);
        sd_journal_send("MESSAGE=%s: deadline request %s/%s/%s x %s thread%s admitted in group %s: reserves %s "
                        "(%s), %s; %s left in the group",
                        subject(s, who, sizeof(who)),
                        timespan_format(rt, sizeof(rt), s->req.runtime_usec),
                        timespan_format(dl, sizeof(dl), s->req.deadline_usec),
                        pe, th, s->req.threads == 1 ? "" : "s",
                        s->group ?: "-", admission_bw_to_percent(res, sizeof(res), s->reserved_bw), how,
                        thr, pct,
                        "MESSAGE_ID=" DLD_MESSAGE_ADMITTED,
                        "PRIORITY=%d", LOG_INFO,
                        REQUEST_FIELDS(s),
                        "DLD_GROUP=%s", s->group ?: "",
                        "DLD_RESERVED_BW=%" PRIu64, s->reserved_bw,
                        "DLD_RESERVED_RUNTIME_USEC=%" PRIu64, s->reserved_runtime_us,
                        "DLD_RESERVED_BY=%s", s->by_template ? "template" : "cpu",
                        "DLD_THREADS_REQUESTED=%s", th,
                        "DLD_FREE_BW=%" PRIu64, free_bw == DL_BW_UNLIMITED ? 0 : free_bw,
                        "DLD_THREADS=%u", s->threads_dl,
                        "DLD_SOURCE=%s", s->container_id ? "container" : s->manual ? "manual" : "dropin",
                        "DLD_PROMOTE=%s", dropin_promote_to_string(s->promote),
                        CONTAINER_FIELDS(s),
                        NULL);
}

void journal_threads_over(const Service *s, unsigned deadline, unsigned over) {
        char who[CONTAINER_NAME_MAX + 64], th[16];

        admission_threads_to_string(th, sizeof(th), s->req.threads);
        sd_journal_send("MESSAGE=%s: %u task(s) beyond the %s the unit reserves run as normal tasks "
                        "(%u SCHED_DEADLINE)", subject(s, who, sizeof(who)), over, th, deadline,
                        "MESSAGE_ID=" DLD_MESSAGE_THREADS_OVER,
                        "PRIORITY=%d", LOG_NOTICE,
                        "UNIT=%s", s->unit,
                        "OBJECT_SYSTEMD_UNIT=%s", s->unit,
                        "DLD_GROUP=%s", s->group ?: "",
                        "DLD_THREADS=%u", deadline,
                        "DLD_THREADS_OVER=%u", over,
                        "DLD_THREADS_REQUESTED=%s", th,
                        CONTAINER_FIELDS(s),
                        NULL);
}

void journal_released(const Service *s, const char *why) {
        char who[CONTAINER_NAME_MAX + 64];

        sd_journal_send("MESSAGE=%s: deadline reservation released (%s)", subject(s, who, sizeof(who)), why,
                        "MESSAGE_ID=" DLD_MESSAGE_RELEASED,
                        "PRIORITY=%d", LOG_INFO,
                        "UNIT=%s", s->unit,
                        "OBJECT_SYSTEMD_UNIT=%s", s->unit,
                        "DLD_GROUP=%s", s->group ?: "",
                        "DLD_REASON=%s", why,
                        CONTAINER_FIELDS(s),
                        NULL);
}

void journal_dropin_invalid(const char *unit, const char *file, const char *where, const char *message) {
        sd_journal_send("MESSAGE=%s: %s: %s: %s", unit, file ?: "", where ?: "", message,
                        "MESSAGE_ID=" DLD_MESSAGE_DROPIN_INVALID,
                        "PRIORITY=%d", LOG_ERR,
                        "UNIT=%s", unit,
                        "OBJECT_SYSTEMD_UNIT=%s", unit,
                        "DLD_FILE=%s", file ?: "",
                        "DLD_LINE=%s", where ?: "",
                        "DLD_REASON=%s", message,
                        NULL);
}

void journal_policy(const char *id, int priority, const char *files, const char *message) {
        sd_journal_send("MESSAGE=%s", message,
                        "MESSAGE_ID=%s", id,
                        "PRIORITY=%d", priority,
                        "DLD_POLICY_FILES=%s", files,
                        NULL);
}

void journal_privilege(const char *need, bool fatal, const char *message) {
        sd_journal_send("MESSAGE=%s: %s", fatal ? "missing" : "warning", message,
                        "MESSAGE_ID=" DLD_MESSAGE_PRIVILEGE,
                        "PRIORITY=%d", fatal ? LOG_ERR : LOG_WARNING,
                        "DLD_NEED=%s", need,
                        "DLD_FATAL=%d", fatal ? 1 : 0,
                        NULL);
}
