/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The systemd client: unit properties, jobs, cgroup paths (over sd-bus). */
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

/* A slice's cgroup as systemd names it (its ControlGroup: systemd escapes
 * some components, cpu-rt.slice lies under /_cpu.slice), or as computed
 * from its name (the same escaping) while it has none: not started yet. */
char *systemd_slice_cgroup(sd_bus *bus, const char *slice) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        char *cg = NULL;

        if (bus && sd_bus_path_encode(SYSTEMD_PATH "/unit", slice, &path) >= 0 &&
            sd_bus_get_property_string(bus, SYSTEMD_DEST, path, "org.freedesktop.systemd1.Slice", "ControlGroup",
                                       &e, &cg) >= 0 && cg && *cg)
                return cg;
        free(cg);
        return unitname_slice_cgroup_path(slice);
}

int systemd_unit_info(sd_bus *bus, const char *unit, UnitInfo *ret, sd_bus_error *error) {
        _cleanup_free_ char *path = NULL;
        UnitInfo u = {};
        int r;

        r = sd_bus_path_encode(SYSTEMD_PATH "/unit", unit, &path);
        if (r < 0)
                return r;
        if ((r = sd_bus_get_property_string(bus, SYSTEMD_DEST, path, SYSTEMD_UNIT, "LoadState", error, &u.load_state)) < 0 ||
            (r = sd_bus_get_property_string(bus, SYSTEMD_DEST, path, SYSTEMD_UNIT, "ActiveState", error, &u.active_state)) < 0 ||
            (r = sd_bus_get_property_string(bus, SYSTEMD_DEST, path, SYSTEMD_UNIT, "FragmentPath", error, &u.fragment_path)) < 0 ||
            (r = sd_bus_get_property_strv(bus, SYSTEMD_DEST, path, SYSTEMD_UNIT, "DropInPaths", error, &u.dropin_paths)) < 0)
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
        {
                const void *id;
                size_t n;
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;

                r = sd_bus_get_property(bus, SYSTEMD_DEST, path, SYSTEMD_UNIT, "InvocationID", error, &reply, "ay");
                if (r < 0)
                        goto fail;
                r = sd_bus_message_read_array(reply, 'y', &id, &n);
                if (r < 0)
                        goto fail;
                u.invocation = calloc(1, 2 * n + 1);
                if (!u.invocation) {
                        r = -ENOMEM;
                        goto fail;
                }
                for (size_t i = 0; i < n; i++)
                        sprintf(u.invocation + 2 * i, "%02x", ((const uint8_t *) id)[i]);
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

static int call_unit_job(sd_bus *bus, const char *method, const char *unit) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_call_method(bus, SYSTEMD_DEST, SYSTEMD_PATH, SYSTEMD_MANAGER, method,
                               &e, NULL, "ss", unit, "replace");
        if (r < 0)
                log_warning("%s: %s failed: %s", unit, method, e.message ?: strerror(-r));
        return r;
}

int systemd_start_unit(sd_bus *bus, const char *unit) {
        return call_unit_job(bus, "StartUnit", unit);
}

int systemd_stop_unit(sd_bus *bus, const char *unit) {
        return call_unit_job(bus, "StopUnit", unit);
}

int systemd_wait_for_dl_file(KernelFs *kfs, const char *cgroup, uint64_t timeout_usec) {
        bool existed = false;

        for (uint64_t waited = 0;; waited += 10000) {
                int64_t v;
                int r = kernelfs_cgroup_read(kfs, cgroup, "cpu.dl_runtime_us", &v);

                if (r != -ENOENT || waited >= timeout_usec)
                        return r;
                /* Removed after it was there: its unit stopped, and the
                 * event loop should not sit out the timeout for it. */
                if (kernelfs_cgroup_exists(kfs, cgroup))
                        existed = true;
                else if (existed)
                        return r;
                /* systemd realizes cgroups from its own event loop: give it time. */
                usleep(10000);
        }
}

bool systemd_unit_is_active(sd_bus *bus, const char *unit) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(systemd_unit_info_done) UnitInfo u = {};

        return systemd_unit_info(bus, unit, &u, &e) >= 0 &&
               (streq_ptr(u.active_state, "active") || streq_ptr(u.active_state, "reloading"));
}
