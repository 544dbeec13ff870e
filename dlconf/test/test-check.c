/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dlconf check: policies and requests validated and predicted offline. */
#include <json-c/json.h>

#include "check.h"
#include "tap.h"
#include "util.h"

static const SystemBudget defaults = SYSTEM_BUDGET_DEFAULTS;

static const char *const policy =
        "{ \"system\": { \"sched_dl_runtime_us\": 500000, \"sched_rt_runtime_us\": 450000 },\n"
        "  \"groups\": [ { \"name\": \"media\", \"slice\": \"deadline-media.slice\", \"runtime_us\": 300000,\n"
        "                \"period_us\": 1000000, \"max_request_percent\": 25, \"max_services\": 2 } ] }\n";

static char *text_of(const CheckResult *r, bool json) {
        char *text = NULL;
        size_t size;
        FILE *f;

        if (json)
                return check_format_json(r, JSON_SHORT);
        f = open_memstream(&text, &size);
        check_format(f, r, false);
        fclose(f);
        return text;
}

/* The unit a file's request belongs to, and the slice it names, as the
 * verdicts show them. */
#define REQ "X-DeadlineRuntime=1ms\nX-DeadlinePeriod=100ms\n"
static void test_paths(void) {
        CheckFile files[] = {
                { .path = "p/50-demo.json", .text = policy },
                { .path = "/etc/systemd/system/media.service.d/deadline.conf", .text = "[Service]\n" REQ },
                { .path = "m2.service.d/50-x.conf", .text = "[Service]\n" REQ },
                { .path = "units/demo-media.service", .text = "[Service]\n" REQ },
                { .path = "control-loop.conf", .text = "[Service]\n" REQ },
                { .path = "/x/not a unit.d/a.conf", .text = "[Service]\n" REQ },
        };
        static const char *const units[] = {
                "media.service", "m2.service", "demo-media.service", "control-loop.service", "a.service",
        };
        CheckResult r;

        is_int(check_files(&r, files, ELEMENTSOF(files), 4, &defaults), 0, "paths: check runs");
        is_int(r.n_verdicts, ELEMENTSOF(units), "  one verdict a unit");
        for (size_t i = 0; i < ELEMENTSOF(units) && i < r.n_verdicts; i++)
                is_str(r.verdicts[i].unit, units[i], "unit of %s", files[i + 1].path);
        check_result_done(&r);
}

static void test_slice(void) {
        CheckFile files[] = {
                { .path = "p/50-demo.json", .text = policy },
                { .path = "a.service", .text = "[Unit]\nSlice=wrong.slice\n[Service]\nExecStart=/bin/true\n"
                                               " Slice = deadline-media.slice \n" REQ },
                { .path = "b.service", .text = "[Service]\nSlice=other.slice\nSlice=deadline-media.slice\n" REQ },
                { .path = "c.service", .text = "[Service]\nSlice=deadline-media.slice\n" REQ },
                { .path = "c.service.d/x.conf", .text = "[Service]\nSlice=other.slice\n" },
                { .path = "d.service", .text = "[Service]\nExecStart=/bin/true\n" REQ },
        };
        CheckResult r;

        is_int(check_files(&r, files, ELEMENTSOF(files), 4, &defaults), 0, "slices: check runs");
        if (is_int(r.n_verdicts, 4, "  4 verdicts")) {
                is_str(r.verdicts[0].group, "media", "Slice= of [Service], not of [Unit], stripped");
                is_str(r.verdicts[1].group, "media", "the last Slice= wins");
                is_str(r.verdicts[2].group, NULL, "  a drop-in's too");
                is_str(r.verdicts[3].group, NULL, "no Slice=");
        }
        check_result_done(&r);
}

static void test_verdicts(void) {
        CheckFile files[] = {
                { .path = "p/50-demo.json", .text = policy },
                { .path = "a.service", .text = "[Service]\nSlice=deadline-media.slice\nExecStart=/bin/a\n" },
                { .path = "a.service.d/dl.conf", .text = "[Service]\nX-DeadlineRuntime=10ms\nX-DeadlinePeriod=40ms\nX-DeadlineThreads=all\n" },
                { .path = "b.service", .text = "[Service]\nSlice=deadline-media.slice\n" },
                { .path = "b.service.d/dl.conf", .text = "[Service]\nX-DeadlineRuntime=8ms\nX-DeadlinePeriod=40ms\nX-DeadlineThreads=2\n" },
                { .path = "c.service", .text = "[Service]\nSlice=deadline-media.slice\n" },
                { .path = "c.service.d/dl.conf", .text = "[Service]\nX-DeadlineRuntime=12ms\nX-DeadlinePeriod=40ms\n" },
                { .path = "d.service", .text = "[Service]\nSlice=other.slice\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=40ms\n" },
                { .path = "e.service", .text = "[Service]\nSlice=deadline-media-sub.slice\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=40ms\n" },
                { .path = "f.service", .text = "[Service]\nSlice=deadline-media.slice\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=40ms\n" },
        };
        _cleanup_free_ char *text = NULL, *json = NULL;
        CheckResult r;
        json_object *o, *v, *x;

        is_int(check_files(&r, files, ELEMENTSOF(files), 4, &defaults), 0, "check runs");
        ok(r.policy_valid, "policy valid");
        is_int(r.diags.n, 0, "no problems");
        is_int(r.n_verdicts, 6, "6 verdicts, in the order given");
        is_int(r.n_refused, 4, "4 refused");
        ok(r.verdicts[0].admitted && r.verdicts[0].reserved == 4 * ((10000ULL << 20) / 40000), "a admitted, reserves 4 x 25%% (X-DeadlineThreads=all)");
        ok(!r.verdicts[1].admitted && r.verdicts[1].refused_by == REFUSED_BY_ADMISSION, "b refused by admission (2 x 20%% does not fit)");
        is_int(r.verdicts[4].reserved, (1000ULL << 20) / 40000, "e reserves exactly one thread of 2.5%%, not one per CPU");
        ok(!r.verdicts[2].admitted && r.verdicts[2].refused_by == REFUSED_BY_POLICY, "c refused by policy (larger than max_request)");
        ok(!r.verdicts[3].admitted && !r.verdicts[3].group, "d refused: its slice is in no group");
        ok(r.verdicts[4].admitted, "e admitted: a sub-slice of media's slice belongs to media");
        ok(!r.verdicts[5].admitted && strstr(r.verdicts[5].reason, "max_services"), "f refused: media holds its 2 services");
        is_int(check_exit_status(&r), EXIT_DLCONF_REFUSED, "exit status 3 (refused)");

        text = text_of(&r, false);
        ok(strstr(text, "Policy valid (1 file). System budget: 50.00% of each CPU = 200.00% on 4 CPUs.\n"
                        "  group media (deadline-media.slice): 30.00% of each CPU = 120.00%, on refusal: degrade\n"
                        "admitted a.service runtime 10ms deadline 40ms period 40ms x all threads in media: reserves 100.00%\n"
                        "refused  b.service runtime 8ms deadline 40ms period 40ms x 2 threads: refused by admission: EBUSY: "
                        "the template for 2 threads of 20.00% of a CPU (40.00% in all) does not fit in group \"media\": 20.00% left\n"
                        ) != NULL || (printf("# %s", text), false),
           "text: policy summary and verdicts");
        ok(strstr(text, "\n2 admitted, 4 refused.\n") != NULL, "text: totals");

        json = text_of(&r, true);
        o = json_tokener_parse(json);
        ok(o && json_object_object_get_ex(o, "verdicts", &v) && json_object_array_length(v) == 6, "json: 6 verdicts");
        v = json_object_array_get_idx(v, 1);
        ok(json_object_object_get_ex(v, "verdict", &x) && strcmp(json_object_get_string(x), "refused") == 0, "json: b refused");
        ok(json_object_object_get_ex(v, "refused_by", &x) && strcmp(json_object_get_string(x), "admission") == 0, "json: by admission");
        ok(json_object_object_get_ex(o, "valid", &x) && json_object_get_boolean(x), "json: valid");
        json_object_put(o);
        check_result_done(&r);
}

/* Bad input: every problem reported with its file and place, nothing predicted. */
static void test_invalid(void) {
        struct {
                const char *name;
                CheckFile files[3];
                size_t n;
                const char *want;       /* a line of the output */
        } cases[] = {
                { "unknown policy key", { { .path = "p.json", .text = "{ \"groups\": [], \"sytem\": {} }" } }, 1,
                  "p.json: $.sytem: " },
                { "policy not JSON", { { .path = "p.json", .text = "{ groups: " } }, 1, "p.json: " },
                { "group larger than the system budget",
                  { { .path = "p.json", .text = "{ \"groups\": [ { \"name\": \"g\", \"slice\": \"g.slice\", \"runtime_us\": 900000, \"period_us\": 1000000 } ] }" } }, 1,
                  "p.json: $.groups[0]" },
                { "drop-in: bad time span", { { .path = "x.service", .text = "[Service]\nX-DeadlineRuntime=fast\nX-DeadlinePeriod=10ms\n" } }, 1,
                  "x.service: line 2: X-DeadlineRuntime=fast: not a time span" },
                { "drop-in: unknown key", { { .path = "x.service.d/a.conf", .text = "[Service]\nX-DeadlineRuntim=1ms\n" } }, 1,
                  "x.service.d/a.conf: line 2: unknown key X-DeadlineRuntim=" },
                { "drop-in: runtime longer than the deadline",
                  { { .path = "x.conf", .text = "[Service]\nX-DeadlineRuntime=5ms\nX-DeadlineDeadline=2ms\nX-DeadlinePeriod=10ms\n" } }, 1,
                  "x.conf: line 2: runtime 5ms, deadline 2ms, period 10ms: runtime is longer than the deadline" },
                { "drop-in without a request", { { .path = "y.service", .text = "[Service]\nExecStart=/bin/true\n" } }, 1,
                  "y.service: no deadline request (X-DeadlineRuntime= and X-DeadlinePeriod=) in its files" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *text = NULL;
                CheckResult r;

                is_int(check_files(&r, cases[i].files, cases[i].n, 2, &defaults), 0, "%s: check runs", cases[i].name);
                ok(r.diags.n > 0 && r.n_verdicts == 0, "  reported, nothing predicted");
                is_int(check_exit_status(&r), EXIT_DLCONF_INVALID, "  exit status 6 (invalid)");
                text = text_of(&r, false);
                if (!ok(strstr(text, cases[i].want) != NULL, "  says: %s", cases[i].want))
                        printf("#   output: %s\n", text);
                check_result_done(&r);
        }
}

static void test_no_policy(void) {
        CheckFile files[] = { { .path = "m.service", .text = "[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\n" } };
        _cleanup_free_ char *text = NULL;
        CheckResult r;

        is_int(check_files(&r, files, 1, 2, &defaults), 0, "drop-in alone");
        is_int(check_exit_status(&r), 0, "  valid: exit 0");
        text = text_of(&r, false);
        is_str(text, "No policy given: requests checked for syntax only.\n", "  syntax only");
        check_result_done(&r);
}

/* A group of 10% of each of 4 CPUs holds exactly four one-thread services
 * of 10ms/100ms, as it holds four such tasks: the fifth is refused. */
static void test_four_of_five(void) {
        static const char pol[] = "{\"system\":{\"sched_dl_runtime_us\":400000,\"sched_rt_runtime_us\":500000},"
                                  "\"groups\":[{\"name\":\"g\",\"slice\":\"g.slice\",\"runtime_us\":10000,"
                                  "\"period_us\":100000}]}";
        static const char req[] = "[Service]\nSlice=g.slice\nX-DeadlineRuntime=10ms\nX-DeadlinePeriod=100ms\n";
        CheckFile files[] = {
                { .path = "p.json", .text = pol },
                { .path = "s1.service", .text = req }, { .path = "s2.service", .text = req },
                { .path = "s3.service", .text = req }, { .path = "s4.service", .text = req },
                { .path = "s5.service", .text = req },
        };
        CheckResult r;

        is_int(check_files(&r, files, ELEMENTSOF(files), 4, &defaults), 0, "4 of 5: check runs");
        is_int(r.n_verdicts, 5, "  5 verdicts");
        is_int(r.n_refused, 1, "  one refused");
        ok(r.verdicts[3].admitted && !r.verdicts[4].admitted, "  the first four admitted, the fifth refused");
        is_int(r.verdicts[0].reserved, (10000ULL << 20) / 100000, "  each reserves exactly one task's bandwidth");
        ok(r.verdicts[4].reason && strstr(r.verdicts[4].reason, "0.00% left"), "  nothing left for the fifth: %s",
           r.verdicts[4].reason ?: "(none)");
        check_result_done(&r);
}

/* The shipped demo: the policy, its services and their drop-ins, in start order. */
static void test_demo(void) {
        static const char *const paths[] = {
                "policies/examples/demo.json",
                "units/demo/demo-media.service", "units/demo/demo-media.service.d/deadline.conf",
                "units/demo/demo-control.service", "units/demo/demo-control.service.d/deadline.conf",
                "units/demo/demo-greedy.service", "units/demo/demo-greedy.service.d/deadline.conf",
        };
        CheckFile files[ELEMENTSOF(paths)];
        char *texts[ELEMENTSOF(paths)] = {};
        char full[ELEMENTSOF(paths)][512];
        CheckResult r;

        for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
                snprintf(full[i], sizeof(full[i]), "%s/%s", TOP, paths[i]);
                ok(fileio_read_full(full[i], &texts[i], NULL) == 0, "read %s", paths[i]);
                files[i] = (CheckFile) { .path = full[i], .text = texts[i] ?: "" };
        }
        is_int(check_files(&r, files, ELEMENTSOF(files), 4, &defaults), 0, "demo: check runs");
        is_int(r.diags.n, 0, "demo: no problems");
        is_int(r.n_verdicts, 3, "demo: 3 services");
        ok(r.n_verdicts == 3 && r.verdicts[0].admitted && r.verdicts[1].admitted && !r.verdicts[2].admitted,
           "demo: media and control admitted, greedy refused");
        ok(r.n_verdicts == 3 && r.verdicts[2].refused_by == REFUSED_BY_ADMISSION, "demo: greedy refused because it does not fit");
        ok(r.n_verdicts == 3 && streq_ptr(r.verdicts[1].group, "control") && r.verdicts[1].deadline_usec == 50000,
           "demo: control loop in group control with a 50ms deadline");
        check_result_done(&r);
        for (size_t i = 0; i < ELEMENTSOF(paths); i++)
                free(texts[i]);
}

/* The example policies: accepted, and the broken one refused precisely. */
static void test_examples(void) {
        static const struct { const char *path; const char *want; } cases[] = {
                { "policies/examples/demo.json", NULL },
                { "policies/examples/nested.json", NULL },
                { "policies/examples/broken.json",
                  "$.groups[1]: group \"control\" (20.00% of each CPU) does not fit together with the groups before it: "
                  "10.00% left in the system budget" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *text = NULL, *out = NULL;
                char path[512];
                CheckResult r;

                snprintf(path, sizeof(path), "%s/%s", TOP, cases[i].path);
                ok(fileio_read_full(path, &text, NULL) == 0, "read %s", cases[i].path);
                is_int(check_files(&r, &(CheckFile) { .path = path, .text = text ?: "" }, 1, 4, &defaults), 0, "%s: check runs", cases[i].path);
                is_int(check_exit_status(&r), cases[i].want ? EXIT_DLCONF_INVALID : 0, "  exit status %d",
                       cases[i].want ? EXIT_DLCONF_INVALID : 0);
                out = text_of(&r, false);
                if (cases[i].want && !ok(strstr(out, cases[i].want) != NULL, "  says: %s", cases[i].want))
                        printf("#   output: %s\n", out);
                check_result_done(&r);
        }
}

/* X-DeadlinePromote= against Delegate= (an nspawn machine), as dld resolves it. */
static void test_promote(void) {
        _cleanup_free_ char *example = NULL, *msg = NULL;
        char path[512];
        CheckResult r;

        snprintf(path, sizeof(path), "%s/units/examples/nspawn-machine-deadline.conf", TOP);
        ok(fileio_read_full(path, &example, NULL) == 0, "read units/examples/nspawn-machine-deadline.conf");
        {
                CheckFile files[] = {
                        { .path = "p/50-demo.json", .text = policy },
                        { .path = "systemd-nspawn@rt1.service.d/deadline.conf", .text = example ?: "" },
                };

                is_int(check_files(&r, files, ELEMENTSOF(files), 4, &defaults), 0, "nspawn example: check runs");
                is_int(r.diags.n, 0, "nspawn example: no problems");
                is_int(r.n_verdicts, 1, "nspawn example: one verdict");
                ok(r.n_verdicts == 1 && streq_ptr(r.verdicts[0].unit, "systemd-nspawn@rt1.service"),
                   "nspawn example: for systemd-nspawn@rt1.service");
                check_result_done(&r);
        }
        {
                CheckFile files[] = {
                        { .path = "systemd-nspawn@rt1.service.d/deadline.conf", .text = example ?: "" },
                        { .path = "systemd-nspawn@rt1.service.d/promote.conf", .text = "[Service]\nX-DeadlinePromote=cgroup\n" },
                };

                is_int(check_files(&r, files, ELEMENTSOF(files), 4, &defaults), 0, "cgroup with Delegate=yes: check runs");
                is_int(r.diags.n, 1, "cgroup with Delegate=yes: one problem");
                if (r.diags.n > 0)
                        msg = diag_format(&r.diags.items[0]);
                ok(msg && strstr(msg, "systemd-nspawn@rt1.service.d/promote.conf: line 2: X-DeadlinePromote=cgroup with Delegate=yes"),
                   "cgroup with Delegate=yes: the file and line of X-DeadlinePromote=");
                if (msg)
                        printf("# %s\n", msg);
                ok(check_exit_status(&r) != 0, "cgroup with Delegate=yes: check fails");
                check_result_done(&r);
        }
        {
                CheckFile files[] = {
                        { .path = "w.service", .text = "[Service]\nDelegate=cpu memory\nSlice=deadline-media.slice\n" },
                        { .path = "w.service.d/dl.conf",
                          .text = "[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=40ms\nX-DeadlinePromote=cgroup\n" },
                        { .path = "v.service", .text = "[Service]\nDelegate=yes\nSlice=deadline-media.slice\n" },
                        { .path = "v.service.d/dl.conf",
                          .text = "[Service]\nDelegate=no\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=40ms\nX-DeadlinePromote=cgroup\n" },
                        { .path = "u.service", .text = "[Service]\nDelegate=yes\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=40ms\n"
                                                        "X-DeadlinePromote=none\n" },
                };

                is_int(check_files(&r, files, ELEMENTSOF(files), 4, &defaults), 0, "Delegate= variants: check runs");
                is_int(r.diags.n, 1, "Delegate= variants: one problem (w: a list of controllers delegates)");
                ok(r.diags.n > 0 && streq_ptr(r.diags.items[0].file, "w.service.d/dl.conf"), "  in w's drop-in");
                is_int(r.n_verdicts, 0, "Delegate= variants: no policy, syntax only");
                check_result_done(&r);
        }
        {
                /* own: 5.0001% of each of 2 CPUs (104858). A 10% thread fits in
                 * a template (104857), not per CPU (501us of each 10ms: 105066),
                 * as dld reserves for a unit that schedules its own threads. */
                static const char *own =
                        "{ \"system\": { \"sched_dl_runtime_us\": 500000, \"sched_rt_runtime_us\": 450000 },\n"
                        "  \"groups\": [ { \"name\": \"own\", \"slice\": \"own.slice\", \"runtime_us\": 50001,\n"
                        "                \"period_us\": 1000000 } ] }\n";
                CheckFile files[] = {
                        { .path = "p/own.json", .text = own },
                        { .path = "n.service", .text = "[Service]\nSlice=own.slice\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\n"
                                                        "X-DeadlinePromote=none\n" },
                        { .path = "d.service", .text = "[Service]\nSlice=own.slice\nDelegate=yes\nX-DeadlineRuntime=1ms\n"
                                                        "X-DeadlinePeriod=10ms\n" },
                        { .path = "t.service", .text = "[Service]\nSlice=own.slice\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\n" },
                };

                is_int(check_files(&r, files, ELEMENTSOF(files), 2, &defaults), 0, "per CPU: check runs");
                is_int(r.diags.n, 0, "per CPU: no problems");
                is_int(r.n_verdicts, 3, "per CPU: three verdicts");
                if (r.n_verdicts == 3) {
                        ok(!r.verdicts[0].admitted && r.verdicts[0].refused_by == REFUSED_BY_ADMISSION &&
                           strstr(r.verdicts[0].reason, "the reservation for 1 thread of 10.00% of a CPU (10.02% on 2 CPUs)"),
                           "per CPU: X-DeadlinePromote=none reserves per CPU, and does not fit (%s)", r.verdicts[0].reason);
                        ok(!r.verdicts[1].admitted && strstr(r.verdicts[1].reason, "the reservation for"),
                           "per CPU: so does auto with Delegate=yes (%s)", r.verdicts[1].reason);
                        ok(r.verdicts[2].admitted && r.verdicts[2].reserved == 104857,
                           "per CPU: auto without Delegate=: a template, which fits");
                }
                check_result_done(&r);
        }
}

int main(void) {
        tap_begin();
        test_paths();
        test_slice();
        test_promote();
        test_verdicts();
        test_invalid();
        test_no_policy();
        test_four_of_five();
        test_demo();
        test_examples();
        return tap_done();
}
