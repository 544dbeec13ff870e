/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dlconf's output: exact text (plain and on a terminal) and JSON with its
 * stable field names. */
#include <json-c/json.h>

#include "admission.h"
#include "format.h"
#include "tap.h"
#include "util.h"

#define BW(pct) ((uint64_t) (pct) * DL_BW_UNIT / 100)

/* Two groups on 4 CPUs: media holds an admitted and a degraded service,
 * control one with a shorter deadline; one service is in no group. */
static void sample(DlconfState *s) {
        char **files = calloc(2, sizeof(char *));
        DlconfGroup *g;
        DlconfService *v;

        files[0] = strdup("/etc/dld/policies.d/50-demo.json");
        s->system = (DlconfSystem) {
                .version = strdup("0.1"), .policy_directory = strdup("/etc/dld/policies.d"),
                .policy_files = files, .cgroup_hierarchy = strdup("v2"), .cpus = 4,
                .runtime_usec = 500000, .period_usec = 1000000, .bandwidth = BW(200),
                .allocated = BW(180), .rt_runtime_usec = 450000, .rt_period_usec = 1000000,
        };
        g = state_add_group(s);
        *g = (DlconfGroup) { strdup("media"), strdup("deadline-media.slice"), 300000, 1000000,
                             BW(120), BW(100), BW(20), BW(25), 2, 1, strdup("degrade") };
        g = state_add_group(s);
        *g = (DlconfGroup) { strdup("control"), strdup("deadline-control.slice"), 150000, 1000000,
                             BW(60), BW(40), BW(20), 0, 0, 1, strdup("fail") };
        v = state_add_service(s);
        *v = (DlconfService) { strdup("demo-media.service"), strdup("media"), strdup("admitted"),
                               10000, 40000, 40000, 0, BW(100), 1, 1, strdup("dropin"), strdup(""), NULL, NULL, NULL };
        v = state_add_service(s);
        *v = (DlconfService) { strdup("demo-greedy.service"), strdup("media"), strdup("degraded"),
                               8000, 40000, 40000, 2, 0, 0, 1, strdup("dropin"),
                               strdup("does not fit: needs 80.00%, group media has 20.00% free"), NULL, NULL, NULL };
        v = state_add_service(s);
        *v = (DlconfService) { strdup("demo-control.service"), strdup("control"), strdup("admitted"),
                               2000, 10000, 20000, 0, BW(40), 2, 3, strdup("manual"), strdup(""), NULL, NULL, NULL };
        v = state_add_service(s);
        *v = (DlconfService) { strdup("stray.service"), strdup(""), strdup("pending"),
                               1000, 10000, 10000, 1, 0, 0, 0, strdup("dropin"), strdup(""), NULL, NULL, NULL };
}

static char *capture_status(const DlconfState *s, FormatOptions o) {
        char *text = NULL;
        size_t size;
        FILE *f = open_memstream(&text, &size);

        format_status(f, s, &o);
        fclose(f);
        return text;
}

static void test_status_text(void) {
        _cleanup_free_ char *plain = NULL, *tty = NULL;
        DlconfState s = {};

        sample(&s);
        plain = capture_status(&s, (FormatOptions) { .legend = true });
        is_str(plain,
               "System budget: 50.00% of each CPU (500ms every 1s) on 4 CPUs = 200.00%\n"
               "               allocated 180.00%, free 20.00%\n"
               "RT budget:     45.00% of each CPU (450ms every 1s)\n"
               "Policy:        /etc/dld/policies.d: 50-demo.json\n"
               "Cgroups:       v2; dld 0.1\n"
               "\n"
               "media (deadline-media.slice): reserved 120.00% = 30.00% of each CPU (300ms every 1s)\n"
               "    allocated 100.00%, free 20.00%; 1 service (at most 2), requests up to 25.00% of a CPU; on refusal: degrade\n"
               "    demo-media.service  admitted runtime 10ms deadline 40ms period 40ms, reserves 100.00% for one thread per CPU, 1/1 threads deadline\n"
               "    demo-greedy.service degraded runtime 8ms deadline 40ms period 40ms for 2 threads, 0/1 threads deadline\n"
               "                        does not fit: needs 80.00%, group media has 20.00% free\n"
               "\n"
               "control (deadline-control.slice): reserved 60.00% = 15.00% of each CPU (150ms every 1s)\n"
               "    allocated 40.00%, free 20.00%; 1 service; on refusal: fail\n"
               "    demo-control.service admitted runtime 2ms deadline 10ms period 20ms, reserves 40.00% for one thread per CPU, 2/3 threads deadline\n"
               "\n"
               "Not in a deadline group:\n"
               "    stray.service pending  runtime 1ms deadline 10ms period 10ms for 1 thread, 0/0 threads deadline\n",
               "status, plain text");
        ok(!strchr(plain, '\033'), "no escape sequences when not on a terminal");
        ok(!strstr(plain, "█"), "no bars when not on a terminal");

        tty = capture_status(&s, (FormatOptions) { .color = true, .bars = true, .legend = true });
        ok(strstr(tty, "\033[0;32madmitted") != NULL, "terminal: admitted in green");
        ok(strstr(tty, "\033[0;33mdegraded") != NULL, "terminal: degraded in yellow");
        /* System: 180 of 200 = 90% of 32 cells = 28.8 cells: 28 full, then 6/8 (28.8 rounds down to 6 eighths). */
        ok(strstr(tty, "               \033[0;33m████████████████████████████▊\033[0;90m░░░") != NULL,
           "terminal: system bar 90%% full, in yellow");

        /* Admission control off: no budget, no bar. */
        s.system.runtime_usec = -1;
        s.system.bandwidth = DL_BW_UNLIMITED;
        free(plain);
        plain = capture_status(&s, (FormatOptions) { .bars = true });
        ok(strstr(plain, "System budget: admission control off (sched_dl_runtime_us = -1) on 4 CPUs, allocated 180.00%\n") != NULL,
           "admission control off is said so");
        state_done(&s);

        /* Nothing at all. */
        free(plain);
        s = (DlconfState) { .system = { .cpus = 1, .runtime_usec = 50000, .period_usec = 1000000,
                                        .bandwidth = BW(5), .rt_runtime_usec = 950000, .rt_period_usec = 1000000 } };
        plain = capture_status(&s, (FormatOptions) {});
        is_str(plain,
               "System budget: 5.00% of each CPU (50ms every 1s) on 1 CPU = 5.00%\n"
               "               allocated 0.00%, free 5.00%\n"
               "RT budget:     95.00% of each CPU (950ms every 1s)\n"
               "Policy:        : none loaded, kernel defaults\n"
               "Cgroups:       ?; dld ?\n",
               "status of an empty daemon");
}

static void test_bar(void) {
        struct { uint64_t used, total; const char *want; } cases[] = {
                { 0, 100, "░░░░░░░░" },
                { 100, 100, "████████" },
                { 150, 100, "████████" },
                { 50, 100, "████░░░░" },
                { 1, 64, "▏░░░░░░░" },
                { 5, 0, "░░░░░░░░" },
                { 5, DL_BW_UNLIMITED, "░░░░░░░░" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *text = NULL;
                size_t size;
                FILE *f = open_memstream(&text, &size);

                format_bar(f, cases[i].used, cases[i].total, 8, false);
                fclose(f);
                is_str(text, cases[i].want, "bar %llu of %llu", (unsigned long long) cases[i].used,
                       (unsigned long long) cases[i].total);
        }
}

static void test_list_and_show(void) {
        _cleanup_free_ char *text = NULL;
        DlconfState s = {};
        size_t size;
        FILE *f;

        sample(&s);
        f = open_memstream(&text, &size);
        format_list(f, &s, &(FormatOptions) { .legend = true });
        fclose(f);
        is_str(text,
               "UNIT                 GROUP   STATE    RUNTIME DEADLINE PERIOD FOR RESERVED THREADS SOURCE\n"
               "demo-media.service   media   admitted 10ms    40ms     40ms   all 100.00%  1/1     dropin\n"
               "demo-greedy.service  media   degraded 8ms     40ms     40ms   2   -        0/1     dropin\n"
               "demo-control.service control admitted 2ms     10ms     20ms   all 40.00%   2/3     manual\n"
               "stray.service        -       pending  1ms     10ms     10ms   1   -        0/0     dropin\n"
               "\n4 services listed.\n", "list");
        free(text);

        f = open_memstream(&text, &size);
        format_list(f, &s, &(FormatOptions) {});
        fclose(f);
        ok(strncmp(text, "demo-media.service   media   admitted 10ms 40ms     40ms   100.00%  1/1     dropin\n", 80) == 0 ||
           strncmp(text, "demo-media.service", 18) == 0, "list --no-legend starts with the first service");
        ok(!strstr(text, "UNIT") && !strstr(text, "listed"), "list --no-legend: no header, no footer");
        free(text);

        f = open_memstream(&text, &size);
        format_show(f, &s.services[1], &(FormatOptions) {});
        fclose(f);
        is_str(text,
               "demo-greedy.service\n"
               "     Group: media\n"
               "     State: degraded\n"
               "   Runtime: 8ms\n"
               "  Deadline: 40ms\n"
               "    Period: 40ms\n"
               " Bandwidth: 20.00% of a CPU per thread\n"
               "       For: 2 threads\n"
               "  Reserved: nothing\n"
               "   Threads: 0 of 1 SCHED_DEADLINE\n"
               "    Source: drop-in (X-Deadline* keys)\n"
               "    Reason: does not fit: needs 80.00%, group media has 20.00% free\n", "show");
        state_done(&s);
}

static void test_json(void) {
        _cleanup_free_ char *status = NULL, *list = NULL, *show = NULL, *pretty = NULL;
        static const char *const service_keys[] = {
                "unit", "group", "state", "runtime_usec", "deadline_usec", "period_usec", "threads_requested", "reserved",
                "threads", "threads_total", "source", "reason",
        };
        static const char *const group_keys[] = {
                "name", "slice", "runtime_usec", "period_usec", "reserved", "allocated", "free",
                "max_request", "max_services", "service_count", "on_refusal",
        };
        static const char *const system_keys[] = {
                "version", "policy_directory", "policy_files", "cgroup_hierarchy", "cpus", "runtime_usec",
                "period_usec", "bandwidth", "allocated", "free", "rt_runtime_usec", "rt_period_usec",
        };
        json_object *o, *sys, *g, *v, *x;
        DlconfState s = {};

        sample(&s);
        status = format_status_json(&s, JSON_SHORT);
        o = json_tokener_parse(status);
        ok(o != NULL, "status --json parses");
        ok(strchr(status, '\n') == status + strlen(status) - 1, "  short JSON is one line");
        ok(json_object_object_get_ex(o, "system", &sys) && json_object_object_length(sys) == ELEMENTSOF(system_keys),
           "  system has %zu fields", ELEMENTSOF(system_keys));
        for (size_t i = 0; i < ELEMENTSOF(system_keys); i++)
                ok(json_object_object_get_ex(sys, system_keys[i], NULL), "  system.%s", system_keys[i]);
        json_object_object_get_ex(sys, "free", &x);
        is_int(json_object_get_int64(x), BW(200) - BW(180), "  system.free = bandwidth - allocated");
        json_object_object_get_ex(o, "groups", &g);
        is_int(json_object_array_length(g), 2, "  2 groups");
        g = json_object_array_get_idx(g, 0);
        is_int(json_object_object_length(g), ELEMENTSOF(group_keys), "  group has %zu fields", ELEMENTSOF(group_keys));
        for (size_t i = 0; i < ELEMENTSOF(group_keys); i++)
                ok(json_object_object_get_ex(g, group_keys[i], NULL), "  group.%s", group_keys[i]);
        json_object_object_get_ex(g, "reserved", &x);
        is_int(json_object_get_int64(x), BW(120), "  groups[0].reserved in fixed point");
        json_object_object_get_ex(o, "services", &v);
        is_int(json_object_array_length(v), 4, "  4 services");
        v = json_object_array_get_idx(v, 2);
        is_int(json_object_object_length(v), ELEMENTSOF(service_keys), "  service has %zu fields", ELEMENTSOF(service_keys));
        for (size_t i = 0; i < ELEMENTSOF(service_keys); i++)
                ok(json_object_object_get_ex(v, service_keys[i], NULL), "  service.%s", service_keys[i]);
        json_object_object_get_ex(v, "deadline_usec", &x);
        is_int(json_object_get_int64(x), 10000, "  services[2].deadline_usec");
        json_object_put(o);

        list = format_list_json(&s, JSON_SHORT);
        o = json_tokener_parse(list);
        ok(o && json_object_is_type(o, json_type_array) && json_object_array_length(o) == 4, "list --json: array of 4");
        json_object_put(o);

        show = format_show_json(&s.services[1], JSON_SHORT);
        is_str(show,
               "{\"unit\":\"demo-greedy.service\",\"group\":\"media\",\"state\":\"degraded\",\"runtime_usec\":8000,"
               "\"deadline_usec\":40000,\"period_usec\":40000,\"threads_requested\":2,\"reserved\":0,\"threads\":0,\"threads_total\":1,"
               "\"source\":\"dropin\",\"reason\":\"does not fit: needs 80.00%, group media has 20.00% free\"}\n",
               "show --json, exactly");
        pretty = format_show_json(&s.services[1], JSON_PRETTY);
        ok(strstr(pretty, "\n  \"unit\": \"demo-greedy.service\",\n") != NULL, "--json=pretty indents");

        /* Unlimited bandwidth is null, not a huge number. */
        s.system.bandwidth = DL_BW_UNLIMITED;
        s.system.runtime_usec = -1;
        free(status);
        status = format_status_json(&s, JSON_SHORT);
        ok(strstr(status, "\"runtime_usec\":-1,\"period_usec\":1000000,\"bandwidth\":null,") &&
           strstr(status, "\"free\":null"), "unlimited budget: bandwidth and free are null");
        state_done(&s);
}

/* dlconf show's text for svc. */
static char *capture_show(const DlconfService *svc) {
        char *text = NULL;
        size_t size;
        FILE *f = open_memstream(&text, &size);

        format_show(f, svc, &(FormatOptions) {});
        fclose(f);
        return text;
}

/* A container: named by its name and short ID, its scope and ID in show. */
static void test_container(void) {
        DlconfState s = {};
        DlconfService *v;
        char *text = NULL, *json;
        size_t size;
        FILE *f;

        v = state_add_service(&s);
        *v = (DlconfService) { strdup("libpod-0123456789abcdef.scope"), strdup("media"), strdup("admitted"),
                               2000, 20000, 20000, 1, BW(10), 2, 3, strdup("container"), strdup(""),
                               strdup("0123456789abcdef"), strdup("media-ctr"), NULL };
        f = open_memstream(&text, &size);
        format_list(f, &s, &(FormatOptions) { .legend = true });
        fclose(f);
        ok(text && strstr(text, "\nmedia-ctr (container 0123456789ab) media"), "list: a container by name and short ID");
        free(text);
        text = capture_show(&s.services[0]);
        ok(text && strncmp(text, "media-ctr (container 0123456789ab)\n Container: media-ctr, ID 0123456789abcdef\n"
                                 "     Scope: libpod-0123456789abcdef.scope\n", 110) == 0, "show: name, ID and scope");
        ok(text && strstr(text, "Source: container (io.dlsched.* annotations, OCI hook)"), "show: the source");
        free(text);
        json = format_show_json(&s.services[0], JSON_SHORT);
        ok(json && strstr(json, "\"container_id\":\"0123456789abcdef\"") && strstr(json, "\"container_name\":\"media-ctr\""),
           "show --json: container_id and container_name");
        free(json);
        state_done(&s);
}

/* Kept from before a restart of dld while the drop-ins ask for another
 * request: show says what waits, and when it applies. */
static void test_newer_request(void) {
        DlconfState s = {};
        DlconfService *v;
        char *text, *json;

        v = state_add_service(&s);
        *v = (DlconfService) { strdup("media.service"), strdup("media"), strdup("admitted"),
                               5000, 50000, 50000, 1, BW(10), 1, 1, strdup("dropin"), strdup(""), NULL, NULL,
                               strdup("runtime 2ms, deadline 50ms, period 50ms, 1 thread") };
        text = capture_show(&s.services[0]);
        ok(text && strstr(text, "   Waiting: runtime 2ms, deadline 50ms, period 50ms, 1 thread (kept from before dld "
                                "restarted; applies from the next start, or dlconf admit)\n"),
           "show: the newer request waiting");
        free(text);
        json = format_show_json(&s.services[0], JSON_SHORT);
        ok(json && strstr(json, "\"newer_request\":\"runtime 2ms, deadline 50ms, period 50ms, 1 thread\""),
           "show --json: newer_request");
        free(json);
        free(v->newer_request);
        v->newer_request = strdup("");
        json = format_show_json(&s.services[0], JSON_SHORT);
        ok(json && !strstr(json, "newer_request"), "show --json: no newer_request when none waits");
        free(json);
        state_done(&s);
}

int main(void) {
        tap_begin();
        test_container();
        test_newer_request();
        test_status_text();
        test_bar();
        test_list_and_show();
        test_json();
        return tap_done();
}
