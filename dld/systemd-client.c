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

/* A slice's cgroup: as computed from its name (systemd's escaping: some
 * components are escaped, cpu-rt.slice lies under /_cpu.slice) when the
 * kernel has it, which costs no call to systemd; else its ControlGroup as
 * systemd names it; else the computed one, while it has none (not started
 * yet). */
char *systemd_slice_cgroup(sd_bus *bus, KernelFs *kfs, const char *slice) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *computed = unitname_slice_cgroup_path(slice), *path = NULL;
        char *cg = NULL;

        if (!computed || kernelfs_cgroup_exists(kfs, computed))
                return TAKE_PTR(computed);
        if (bus && sd_bus_path_encode(SYSTEMD_PATH "/unit", slice, &path) >= 0 &&
            sd_bus_get_property_string(bus, SYSTEMD_DEST, path, "org.freedesktop.systemd1.Slice", "ControlGroup",
                                       &e, &cg) >= 0 && cg && *cg)
                return cg;
        free(cg);
        return TAKE_PTR(computed);
}

static int read_unit_property(sd_bus_message *reply, const char *name, void *userdata) {
        static const char *const strings[] = { "LoadState", "ActiveState", "FragmentPath" };
        UnitInfo *u = userdata;
        char **string_fields[] = { &u->load_state, &u->active_state, &u->fragment_path };
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
                if ((r = sd_bus_message_enter_container(reply, 'v', "as")) < 0 ||
                    (r = sd_bus_message_read_strv(reply, &u->dropin_paths)) < 0)
                        return r;
                return sd_bus_message_exit_container(reply) < 0 ? -EBADMSG : 1;
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

/* The Unit interface's properties dld needs, in one call. */
static int read_unit_properties(sd_bus *bus, const char *path, UnitInfo *u, sd_bus_error *error) {
        int r = busprops_get_all(bus, SYSTEMD_DEST, path, SYSTEMD_UNIT, error, read_unit_property, u);

        if (r < 0)
                return r;
        /* A systemd that lacks one of them is not one dld can follow. */
        if (!u->load_state || !u->active_state || !u->fragment_path || !u->invocation)
                return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "systemd gave a unit without the properties dld needs");
        return 0;
}

int systemd_unit_info(sd_bus *bus, const char *unit, UnitInfo *ret, sd_bus_error *error) {
        _cleanup_free_ char *path = NULL;
        UnitInfo u = {};
        int r;

        r = sd_bus_path_encode(SYSTEMD_PATH "/unit", unit, &path);
        if (r < 0)
                return r;
        if ((r = read_unit_properties(bus, path, &u, error)) < 0)
                goto fail;
        if (unitname_is_service(unit) &&
            ((r = sd_bus_get_property_string(bus, SYSTEMD_DEST, path, SYSTEMD_SERVICE, "ControlGroup", error, &u.cgroup)) < 0 ||
             (r = sd_bus_get_property_string(bus, SYSTEMD_DEST, path, SYSTEMD_SERVICE, "Slice", error, &u.slice)) < 0))
                goto fail;
        if (unitname_is_service(unit)) {
                int delegate = 0;

                /* Delegate=: the unit owns its cgroup subtree (an nspawn
                 * machine): dld leaves its threads alone. A systemd without
                 * the property delegates nothing. */
                if (sd_bus_get_property_trivial(bus, SYSTEMD_DEST, path, SYSTEMD_SERVICE, "Delegate", NULL, 'b',
                                                &delegate) >= 0)
                        u.delegate = delegate;
        }
        *ret = u;
        return 0;
fail:
        systemd_unit_info_done(&u);
        return r;
}

int systemd_set_cpu_weight(sd_bus *bus, const char *unit) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        /* The systemd way to get the cpu controller along the unit's path. */
        r = sd_bus_call_method(bus, SYSTEMD_DEST, SYSTEMD_PATH, SYSTEMD_MANAGER, "SetUnitProperties",
                               &e, NULL, "sba(sv)", unit, 1, 1, "CPUWeight", "t", (uint64_t) 100);
        if (r < 0)
                log_warning("%s: cannot set CPUWeight=100: %s", unit, e.message ?: strerror(-r));
        return r;
}

static int on_stop_unit_reply(sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const sd_bus_error *e = sd_bus_message_get_error(reply);

        (void) error;
        if (e)
                log_warning("%s: StopUnit failed: %s", (const char *) userdata, e->message ?: e->name);
        return 0;
}

int systemd_stop_unit(sd_bus *bus, const char *unit) {
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        char *name = strdup(unit);
        int r;

        if (!name)
                return -ENOMEM;
        /* Not waited for: the job may take as long as the unit's stop. */
        r = sd_bus_call_method_async(bus, &slot, SYSTEMD_DEST, SYSTEMD_PATH, SYSTEMD_MANAGER, "StopUnit",
                                     on_stop_unit_reply, name, "ss", unit, "replace");
        if (r < 0) {
                free(name);
                log_warning("%s: StopUnit failed: %s", unit, strerror(-r));
                return r;
        }
        (void) sd_bus_slot_set_destroy_callback(slot, free);
        return sd_bus_slot_set_floating(slot, true);
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

int systemd_barrier(sd_bus *bus) {
        return sd_bus_call_method(bus, SYSTEMD_DEST, SYSTEMD_PATH, "org.freedesktop.DBus.Peer", "Ping",
                                  NULL, NULL, NULL);
}

bool systemd_unit_is_active(sd_bus *bus, const char *unit) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(systemd_unit_info_done) UnitInfo u = {};

        return systemd_unit_info(bus, unit, &u, &e) >= 0 &&
               (streq_ptr(u.active_state, "active") || streq_ptr(u.active_state, "reloading"));
}
