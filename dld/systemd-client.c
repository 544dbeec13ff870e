/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The systemd client: unit properties, jobs, cgroup paths (over sd-bus). */
#include "busprops.h"
#include "log.h"
#include "systemd-client.h"
#include "unitname.h"
#include "util.h"

void systemd_unit_info_done(UnitInfo *u) {
        free(u->active_state);
        free(u->load_state);
        free(u->fragment_path);
        strv_free(u->dropin_paths);
        free(u->cgroup);
        free(u->slice);
        free(u->invocation);
        *u = (UnitInfo) {};
}

static int read_unit_property(sd_bus_message *reply, const char *name, void *userdata) {
        static const char *const strings[] = { "LoadState", "ActiveState", "FragmentPath", "ControlGroup", "Slice" };
        UnitInfo *u = userdata;
        char **string_fields[] = { &u->load_state, &u->active_state, &u->fragment_path, &u->cgroup, &u->slice };
        const char *value;
        const void *id;
        size_t n;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(strings); i++)
                if (streq_ptr(name, strings[i])) {
                        if ((r = sd_bus_message_read(reply, "v", "s", &value)) < 0)
                                return r;
                        free(*string_fields[i]);
                        return (*string_fields[i] = strdup(value)) ? 1 : -ENOMEM;
                }
        if (streq_ptr(name, "DropInPaths")) {
                strv_free(u->dropin_paths);
                u->dropin_paths = NULL;
                if ((r = sd_bus_message_enter_container(reply, 'v', "as")) < 0 ||
                    (r = sd_bus_message_read_strv(reply, &u->dropin_paths)) < 0)
                        return r;
                return sd_bus_message_exit_container(reply) < 0 ? -EBADMSG : 1;
        }
        if (streq_ptr(name, "Delegate")) {
                int delegate;

                /* Delegate=: the unit owns its cgroup subtree (an nspawn
                 * machine): dld leaves its threads alone. A systemd without
                 * the property delegates nothing. */
                if ((r = sd_bus_message_read(reply, "v", "b", &delegate)) < 0)
                        return r;
                u->delegate = delegate;
                return 1;
        }
        if (!streq_ptr(name, "InvocationID"))
                return 0;
        if ((r = sd_bus_message_enter_container(reply, 'v', "ay")) < 0 ||
            (r = sd_bus_message_read_array(reply, 'y', &id, &n)) < 0 ||
            (r = sd_bus_message_exit_container(reply)) < 0)
                return r;
        free(u->invocation);
        return (u->invocation = unitname_id128_to_hex(id, n)) ? 1 : -ENOMEM;
}

/* What dld reads of a service: the Unit interface's properties in one
 * GetAll, and three of the Service interface's, each by Get (its GetAll
 * would make systemd read every accounting file of the cgroup). */
static const char *const service_properties[] = { "ControlGroup", "Slice", "Delegate" };
#define UNIT_INFO_CALLS (1 + ELEMENTSOF(service_properties))

static int unit_info_call(sd_bus *bus, const char *path, size_t i, sd_bus_message **ret) {
        int r = sd_bus_message_new_method_call(bus, ret, SYSTEMD_DEST, path, "org.freedesktop.DBus.Properties",
                                               i == 0 ? "GetAll" : "Get");

        if (r < 0)
                return r;
        return i == 0 ? sd_bus_message_append(*ret, "s", SYSTEMD_UNIT)
                      : sd_bus_message_append(*ret, "ss", SYSTEMD_SERVICE, service_properties[i - 1]);
}

/* A systemd without Delegate= delegates nothing; any other error (the bus
 * going away, a timeout) is one. */
static bool delegate_unknown(const char *property, const sd_bus_error *e) {
        return streq_ptr(property, "Delegate") &&
               sd_bus_error_has_names(e, SD_BUS_ERROR_UNKNOWN_PROPERTY, SD_BUS_ERROR_UNKNOWN_INTERFACE,
                                      SD_BUS_ERROR_INVALID_ARGS);
}

/* Reads reply i (as unit_info_call() asked) into u; error set on failure. */
static int unit_info_read(sd_bus_message *reply, size_t i, const char *unit, UnitInfo *u, sd_bus_error *error) {
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        int r;

        if (e) {
                if (i > 0 && delegate_unknown(service_properties[i - 1], e))
                        return 0;
                (void) sd_bus_error_copy(error, e);
                return -sd_bus_message_get_errno(reply) ?: -EIO;
        }
        r = i == 0 ? busprops_read(reply, read_unit_property, u) : read_unit_property(reply, service_properties[i - 1], u);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "systemd's properties of %s could not be read: %s", unit,
                                               strerror(-r));
        return 0;
}

/* A systemd that lacks one of them is not one dld can follow. */
static int unit_info_check(const UnitInfo *u, sd_bus_error *error) {
        if (!u->load_state || !u->active_state || !u->fragment_path || !u->invocation || !u->cgroup || !u->slice)
                return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS,
                                        "systemd gave a unit without the properties dld needs");
        return 0;
}

int systemd_unit_info(sd_bus *bus, const char *unit, UnitInfo *ret, sd_bus_error *error) {
        _cleanup_free_ char *path = NULL;
        UnitInfo u = {};
        int r;

        r = sd_bus_path_encode(SYSTEMD_UNIT_PREFIX, unit, &path);
        if (r < 0)
                return r;
        for (size_t i = 0; i < UNIT_INFO_CALLS; i++) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL, *reply = NULL;

                r = unit_info_call(bus, path, i, &call);
                if (r >= 0)
                        r = sd_bus_call(bus, call, 0, error, &reply);
                if (r < 0 && i > 0 && delegate_unknown(service_properties[i - 1], error)) {
                        sd_bus_error_free(error);
                        continue;
                }
                if (r < 0 || (r = unit_info_read(reply, i, unit, &u, error)) < 0)
                        goto fail;
        }
        r = unit_info_check(&u, error);
        if (r >= 0) {
                *ret = u;
                return 0;
        }
fail:
        if (!sd_bus_error_is_set(error))
                (void) sd_bus_error_set_errnof(error, r, "cannot ask systemd about %s: %s", unit, strerror(-r));
        systemd_unit_info_done(&u);
        return r;
}

struct UnitInfoQuery {
        char *unit;
        UnitInfo info;
        int result;
        sd_bus_error error;
        unsigned pending;
        UnitInfoHandler done;
        void *userdata;
        struct {
                UnitInfoQuery *query;
                size_t index;
                sd_bus_slot *slot;
        } calls[UNIT_INFO_CALLS];
};

UnitInfoQuery *systemd_unit_info_query_free(UnitInfoQuery *q) {
        if (!q)
                return NULL;
        for (size_t i = 0; i < UNIT_INFO_CALLS; i++)
                sd_bus_slot_unref(q->calls[i].slot);   /* unanswered: its callback goes */
        systemd_unit_info_done(&q->info);
        sd_bus_error_free(&q->error);
        free(q->unit);
        free(q);
        return NULL;
}

static int on_unit_info_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        typeof(((UnitInfoQuery *) NULL)->calls[0]) *c = userdata;
        UnitInfoQuery *q = c->query;

        (void) ret_error;
        if (q->result >= 0)
                q->result = unit_info_read(reply, c->index, q->unit, &q->info, &q->error);
        if (--q->pending > 0)
                return 0;
        if (q->result >= 0)
                q->result = unit_info_check(&q->info, &q->error);
        /* The handler may free q (its slots are held through this callback). */
        q->done(q->result >= 0 ? &q->info : NULL, q->result, &q->error, q->userdata);
        return 0;
}

int systemd_unit_info_async(sd_bus *bus, UnitInfoQuery **ret, const char *unit, UnitInfoHandler done,
                            void *userdata) {
        _cleanup_free_ char *path = NULL;
        UnitInfoQuery *q;
        int r;

        r = sd_bus_path_encode(SYSTEMD_UNIT_PREFIX, unit, &path);
        if (r < 0)
                return r;
        q = calloc(1, sizeof(UnitInfoQuery));
        if (!q || !(q->unit = strdup(unit))) {
                free(q);
                return -ENOMEM;
        }
        q->done = done;
        q->userdata = userdata;
        q->error = SD_BUS_ERROR_NULL;
        /* All asked at once: systemd answers them in order, the last one
         * completes the query. */
        for (size_t i = 0; i < UNIT_INFO_CALLS; i++) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;

                q->calls[i].query = q;
                q->calls[i].index = i;
                r = unit_info_call(bus, path, i, &call);
                if (r >= 0)
                        r = sd_bus_call_async(bus, &q->calls[i].slot, call, on_unit_info_reply, &q->calls[i], 0);
                if (r < 0) {
                        systemd_unit_info_query_free(q);
                        return r;
                }
                q->pending++;
        }
        *ret = q;
        return 0;
}

/* A call not waited for: its failure is logged as "WHAT: why" (userdata,
 * freed with the slot). */
static int on_reply_log_failure(sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const sd_bus_error *e = sd_bus_message_get_error(reply);

        (void) error;
        if (e)
                log_warning("%s: %s", (const char *) userdata, e->message ?: e->name);
        return 0;
}

/* The slot of such a call goes with the bus, and frees its userdata. */
static int slot_float_freeing(sd_bus_slot *slot) {
        (void) sd_bus_slot_set_destroy_callback(slot, free);
        return sd_bus_slot_set_floating(slot, true);
}

int systemd_stop_unit(sd_bus *bus, const char *unit) {
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        char *what = NULL;
        int r;

        if (asprintf(&what, "%s: StopUnit failed", unit) < 0)
                return -ENOMEM;
        /* Not waited for: the job may take as long as the unit's stop. */
        r = sd_bus_call_method_async(bus, &slot, SYSTEMD_DEST, SYSTEMD_PATH, SYSTEMD_MANAGER, "StopUnit",
                                     on_reply_log_failure, what, "ss", unit, "replace");
        if (r < 0) {
                log_warning("%s: %s", what, strerror(-r));
                free(what);
                return r;
        }
        return slot_float_freeing(slot);
}

int systemd_set_cpu_weight_async(sd_bus *bus, sd_bus_slot **ret_slot, const char *unit,
                                 sd_bus_message_handler_t callback, void *userdata) {
        return sd_bus_call_method_async(bus, ret_slot, SYSTEMD_DEST, SYSTEMD_PATH, SYSTEMD_MANAGER,
                                        "SetUnitProperties", callback, userdata, "sba(sv)", unit, 1, 1,
                                        "CPUWeight", "t", (uint64_t) 100);
}

int systemd_start_unit_async(sd_bus *bus, sd_bus_slot **ret_slot, const char *unit,
                             sd_bus_message_handler_t callback, void *userdata) {
        return sd_bus_call_method_async(bus, ret_slot, SYSTEMD_DEST, SYSTEMD_PATH, SYSTEMD_MANAGER,
                                        "StartUnit", callback, userdata, "ss", unit, "replace");
}

int systemd_cpu_controller_async(sd_bus *bus, sd_bus_slot **ret_slot, const char *unit,
                                 sd_bus_message_handler_t callback, void *userdata) {
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        char *what = NULL;
        int r;

        if (asprintf(&what, "%s: cannot set CPUWeight=100", unit) < 0)
                return -ENOMEM;
        r = systemd_set_cpu_weight_async(bus, &slot, unit, on_reply_log_failure, what);
        if (r < 0) {
                free(what);
                return r;
        }
        (void) slot_float_freeing(slot);
        return systemd_barrier_async(bus, ret_slot, callback, userdata);
}

int systemd_barrier_async(sd_bus *bus, sd_bus_slot **ret_slot, sd_bus_message_handler_t callback, void *userdata) {
        return sd_bus_call_method_async(bus, ret_slot, SYSTEMD_DEST, SYSTEMD_PATH, "org.freedesktop.DBus.Peer",
                                        "Ping", callback, userdata, NULL);
}
