/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A stand-in for dld on a private bus, for dlconf's host tests: dld's D-Bus
 * API (dld/org.dlsched.Dld1.xml) with fixed answers, including each error
 * dlconf maps to an exit status. Exits on SIGTERM. */
#include <signal.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "dlsched/dld-bus.h"
#include "util.h"

#define BW(pct) ((uint64_t) (pct) * 1048576 / 100)

static int get_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        (void) bus, (void) path, (void) interface, (void) userdata, (void) error;
        if (streq_ptr(property, "Version"))
                return sd_bus_message_append(reply, "s", "0.1-fake");
        if (streq_ptr(property, "PolicyDirectory"))
                return sd_bus_message_append(reply, "s", "/etc/dld/policies.d");
        if (streq_ptr(property, "PolicyFiles"))
                return sd_bus_message_append(reply, "as", 1, "/etc/dld/policies.d/50-demo.json");
        if (streq_ptr(property, "CgroupHierarchy"))
                return sd_bus_message_append(reply, "s", "v2");
        if (streq_ptr(property, "CPUs"))
                return sd_bus_message_append(reply, "u", 4);
        if (streq_ptr(property, "SystemRuntimeUSec"))
                return sd_bus_message_append(reply, "x", (int64_t) 500000);
        if (streq_ptr(property, "SystemPeriodUSec") || streq_ptr(property, "RTPeriodUSec"))
                return sd_bus_message_append(reply, "t", (uint64_t) 1000000);
        if (streq_ptr(property, "SystemBandwidth"))
                return sd_bus_message_append(reply, "t", BW(200));
        if (streq_ptr(property, "SystemAllocated"))
                return sd_bus_message_append(reply, "t", BW(180));
        if (streq_ptr(property, "RTRuntimeUSec"))
                return sd_bus_message_append(reply, "x", (int64_t) 450000);
        return -ENOENT;
}

#define MEDIA "demo-media.service", "media", "admitted", (uint64_t) 10000, (uint64_t) 40000, (uint64_t) 40000, 0, BW(100), 1, 1, "dropin", "", "", "", ""
#define GREEDY "demo-greedy.service", "media", "degraded", (uint64_t) 8000, (uint64_t) 40000, (uint64_t) 40000, 2, (uint64_t) 0, 0, 1, "dropin", \
        "EBUSY: the reservation for 2 threads of 20.00% of a CPU (40.00% on 4 CPUs) does not fit in group \"media\": 20.00% left", "", "", ""
#define CTR_ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define CTR "libpod-" CTR_ID ".scope", "media", "admitted", (uint64_t) 2000, (uint64_t) 20000, (uint64_t) 20000, 1, BW(10), 2, 3, \
        "container", "", CTR_ID, "media-ctr", ""

static int method_list_groups(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        (void) userdata, (void) error;
        return sd_bus_reply_method_return(m, "a" DLD_GROUP_SIGNATURE, 2,
                "media", "deadline-media.slice", (int64_t) 300000, (uint64_t) 1000000, BW(120), BW(100), BW(20), BW(25), 2, 1, "degrade",
                "control", "deadline-control.slice", (int64_t) 150000, (uint64_t) 1000000, BW(60), (uint64_t) 0, BW(60), (uint64_t) 0, 4, 0, "fail");
}

static int method_list_services(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        (void) userdata, (void) error;
        return sd_bus_reply_method_return(m, "a" DLD_SERVICE_SIGNATURE, 3, MEDIA, GREEDY, CTR);
}

static int method_get_service(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *unit;
        int r = sd_bus_message_read(m, "s", &unit);

        (void) userdata;
        if (r < 0)
                return r;
        if (streq_ptr(unit, "demo-media.service"))
                return sd_bus_reply_method_return(m, DLD_SERVICE_SIGNATURE, MEDIA);
        if (streq_ptr(unit, "demo-greedy.service"))
                return sd_bus_reply_method_return(m, DLD_SERVICE_SIGNATURE, GREEDY);
        /* A container: by its name, its ID or 12 characters of it. */
        if (streq_ptr(unit, "media-ctr") || streq_ptr(unit, CTR_ID) || streq_ptr(unit, "0123456789ab"))
                return sd_bus_reply_method_return(m, DLD_SERVICE_SIGNATURE, CTR);
        return sd_bus_error_setf(error, DLD_ERROR_NO_SUCH_SERVICE, "dld follows no unit %s", unit);
}

static int method_admit(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *unit;
        uint64_t runtime, deadline, period;
        uint32_t threads;
        int r = sd_bus_message_read(m, "stttu", &unit, &runtime, &deadline, &period, &threads);

        (void) userdata;
        if (r < 0)
                return r;
        if (streq_ptr(unit, "demo-greedy.service"))
                return sd_bus_error_setf(error, DLD_ERROR_REFUSED,
                                         "EBUSY: the reservation for %u threads of %llu us every %llu us does not fit in group \"media\": 20.00%% left",
                                         threads, (unsigned long long) runtime, (unsigned long long) period);
        if (streq_ptr(unit, "locked.service"))
                return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED, "Access denied");
        if (streq_ptr(unit, "stopped.service"))
                return sd_bus_error_setf(error, DLD_ERROR_UNIT_NOT_ACTIVE, "%s is not running: nothing to admit", unit);
        /* The deadline arrives as 0 when not given: dld defaults it. */
        printf("admit %s %llu %llu %llu %u\n", unit, (unsigned long long) runtime, (unsigned long long) deadline,
               (unsigned long long) period, threads);
        fflush(stdout);
        return sd_bus_reply_method_return(m, NULL);
}

static int method_release(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *unit;
        int r = sd_bus_message_read(m, "s", &unit);

        (void) userdata;
        if (r < 0)
                return r;
        if (!streq_ptr(unit, "demo-media.service"))
                return sd_bus_error_setf(error, DLD_ERROR_NO_SUCH_SERVICE, "dld follows no unit %s", unit);
        return sd_bus_reply_method_return(m, NULL);
}

/* PrepareUnit: demo-media is admitted, demo-greedy refused, demo-control
 * (another activation) an error, slow answers after a second; anything else
 * has no request. */
static int method_prepare(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *unit, *invocation;
        int r = sd_bus_message_read(m, "ss", &unit, &invocation);

        (void) userdata;
        if (r < 0)
                return r;
        printf("PrepareUnit %s %s\n", unit, *invocation ? invocation : "-");
        fflush(stdout);
        if (streq_ptr(unit, "demo-media.service"))
                return sd_bus_reply_method_return(m, "ss", "admitted", "");
        if (streq_ptr(unit, "demo-greedy.service"))
                return sd_bus_reply_method_return(m, "ss", "degraded", "EBUSY: the template for 8 threads does not fit");
        if (streq_ptr(unit, "slow.service"))
                sleep(1);
        if (streq_ptr(unit, "demo-control.service"))
                return sd_bus_error_setf(error, DLD_ERROR_UNIT_NOT_ACTIVE, "%s is not in its activation %s", unit, invocation);
        return sd_bus_reply_method_return(m, "ss", "none", "");
}

/* The OCI hook's calls (dld/test/test-oci-hook.sh): printed; a container
 * named greedy-ctr is refused (on_refusal fail), degraded-ctr degraded. */
static int method_admit_container(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *id, *name, *cgroup, *group;
        uint64_t runtime, deadline, period;
        uint32_t threads;
        int r = sd_bus_message_read(m, "sssstttu", &id, &name, &cgroup, &group, &runtime, &deadline, &period, &threads);

        (void) userdata;
        if (r < 0)
                return r;
        printf("admit-container %s %s %s '%s' %llu %llu %llu %u\n", id, name, cgroup, group, (unsigned long long) runtime,
               (unsigned long long) deadline, (unsigned long long) period, threads);
        fflush(stdout);
        if (streq_ptr(name, "greedy-ctr"))
                return sd_bus_error_setf(error, DLD_ERROR_REFUSED,
                                         "the kernel refused the template for 1 thread of 50.00%% of a CPU in %s "
                                         "(Device or resource busy): 20.00%% left in the group", cgroup);
        if (streq_ptr(name, "degraded-ctr"))
                return sd_bus_reply_method_return(m, "ss", "degraded", "group \"media\" already holds its maximum of 2 services");
        return sd_bus_reply_method_return(m, "ss", "admitted", "");
}

static int method_release_container(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *id;
        int r = sd_bus_message_read(m, "s", &id);

        (void) userdata;
        if (r < 0)
                return r;
        printf("release-container %s\n", id);
        fflush(stdout);
        if (!streq_ptr(id, CTR_ID))
                return sd_bus_error_setf(error, DLD_ERROR_NO_SUCH_SERVICE, "dld does not manage a container %s", id);
        return sd_bus_reply_method_return(m, NULL);
}

static int method_reload(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        (void) userdata;
        if (getenv("FAKE_DLD_BROKEN_POLICY"))
                return sd_bus_error_set(error, DLD_ERROR_POLICY_INVALID,
                                        "/etc/dld/policies.d/60-bad.json: $.groups[0].runtime_us: must be a number; the previous policy stays in force");
        return sd_bus_reply_method_return(m, NULL);
}

/* Every policy is valid and predicts nothing: dlconf check works offline. */
static int method_check_policy(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        (void) userdata, (void) error;
        return sd_bus_reply_method_return(m, "asa" DLD_VERDICT_SIGNATURE, 0, 0);
}

static const sd_bus_vtable vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("PolicyDirectory", "s", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("PolicyFiles", "as", get_property, 0, 0),
        SD_BUS_PROPERTY("CgroupHierarchy", "s", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CPUs", "u", get_property, 0, 0),
        SD_BUS_PROPERTY("SystemRuntimeUSec", "x", get_property, 0, 0),
        SD_BUS_PROPERTY("SystemPeriodUSec", "t", get_property, 0, 0),
        SD_BUS_PROPERTY("SystemBandwidth", "t", get_property, 0, 0),
        SD_BUS_PROPERTY("SystemAllocated", "t", get_property, 0, 0),
        SD_BUS_PROPERTY("RTRuntimeUSec", "x", get_property, 0, 0),
        SD_BUS_PROPERTY("RTPeriodUSec", "t", get_property, 0, 0),
        SD_BUS_METHOD("ListGroups", "", "a" DLD_GROUP_SIGNATURE, method_list_groups, 0),
        SD_BUS_METHOD("ListServices", "", "a" DLD_SERVICE_SIGNATURE, method_list_services, 0),
        SD_BUS_METHOD("GetService", "s", DLD_SERVICE_SIGNATURE, method_get_service, 0),
        SD_BUS_METHOD("AdmitUnit", "stttu", "", method_admit, 0),
        SD_BUS_METHOD("ReleaseUnit", "s", "", method_release, 0),
        SD_BUS_METHOD("PrepareUnit", "ss", "ss", method_prepare, 0),
        SD_BUS_METHOD("AdmitContainer", "sssstttu", "ss", method_admit_container, 0),
        SD_BUS_METHOD("ReleaseContainer", "s", "", method_release_container, 0),
        SD_BUS_METHOD("Reload", "", "", method_reload, 0),
        SD_BUS_METHOD("CheckPolicy", "a(ss)", "a" "sa" DLD_VERDICT_SIGNATURE, method_check_policy, 0),
        SD_BUS_VTABLE_END
};

int main(void) {
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        sigset_t ss;
        int r;

        sigemptyset(&ss);
        sigaddset(&ss, SIGTERM);
        sigprocmask(SIG_BLOCK, &ss, NULL);
        if ((r = sd_event_default(&event)) < 0 ||
            (r = sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL)) < 0 ||
            (r = sd_bus_open_system(&bus)) < 0 ||
            (r = sd_bus_add_object_vtable(bus, NULL, DLD_BUS_PATH, DLD_BUS_INTERFACE, vtable, NULL)) < 0 ||
            (r = sd_bus_request_name(bus, DLD_BUS_NAME, 0)) < 0 ||
            (r = sd_bus_attach_event(bus, event, 0)) < 0) {
                fprintf(stderr, "fake-dld: %s\n", strerror(-r));
                return 1;
        }
        printf("ready\n");
        fflush(stdout);
        return sd_event_loop(event) < 0;
}
