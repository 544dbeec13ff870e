/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <sys/stat.h>

#include "policy.h"
#include "tap.h"

static const SystemBudget defaults = SYSTEM_BUDGET_DEFAULTS;

/* Parses and validates one file "p.json" into a fresh p and d. */
static int validate_text(const char *text, Policy *p, DiagList *d) {
        int r;

        *p = (Policy) {};
        *d = (DiagList) {};
        r = policy_parse(p, "p.json", text, d);
        if (r == 0)
                r = policy_validate(p, &defaults, d);
        return r;
}

/* Parses and validates one file; returns the result and the first message. */
static int check_text(const char *text, Policy *p, char **ret_msg, size_t *ret_n) {
        DiagList d;
        int r;

        r = validate_text(text, p, &d);
        *ret_msg = d.n > 0 ? diag_format(&d.items[0]) : NULL;
        if (ret_n)
                *ret_n = d.n;
        diag_list_done(&d);
        return r;
}

static void check_bad(const char *text, const char *want) {
        Policy p;
        char *msg;

        ok(check_text(text, &p, &msg, NULL) == -EINVAL, "refused: %s", want);
        is_str(msg, want, "message: %s", want);
        free(msg);
        policy_done(&p);
}

#define G(extra) "{\"groups\":[{\"name\":\"media\",\"slice\":\"deadline-media.slice\"," \
        "\"runtime_us\":10000,\"period_us\":1000000" extra "}]}"

static void test_good(void) {
        Policy p;
        char *msg;
        int r;

        r = check_text("{\"system\":{\"sched_dl_runtime_us\":400000,\"sched_rt_runtime_us\":500000},"
                       "\"groups\":["
                       "{\"name\":\"all\",\"slice\":\"deadline.slice\",\"runtime_us\":300000,\"period_us\":1000000},"
                       "{\"name\":\"media\",\"slice\":\"deadline-media.slice\",\"runtime_us\":100000,\"period_us\":1000000,"
                       " \"max_request_percent\":2.5,\"max_services\":3,\"on_refusal\":\"fail\",\"containers\":true,\"description\":\"x\"},"
                       "{\"name\":\"ctl\",\"slice\":\"deadline-ctl.slice\",\"runtime_us\":20000,\"period_us\":100000}"
                       "]}", &p, &msg, NULL);
        if (!is_int(r, 0, "nested policy valid"))
                printf("# %s\n", msg);
        is_int(p.system.dl_runtime_us, 400000, "dl runtime from the policy");
        is_int(p.system.dl_period_us, 1000000, "dl period from the current values");
        is_int(p.system.rt_runtime_us, 500000, "rt runtime from the policy");
        is_int(p.n_groups, 3, "three groups");
        is_int(p.groups[1].parent, 0, "media nests in all");
        is_int(p.groups[2].parent, 0, "ctl nests in all");
        is_int(p.groups[0].parent, -1, "all is top-level");
        is_int(p.groups[1].max_request_bw, 26214, "2.5%% in fixed point");
        is_int(p.groups[1].max_services, 3, "max_services");
        is_int(p.groups[1].on_refusal, REFUSAL_FAIL, "on_refusal fail");
        is_int(p.groups[2].on_refusal, REFUSAL_DEGRADE, "on_refusal defaults to degrade");
        is_int(p.groups[1].containers, true, "containers: true");
        is_int(p.groups[2].containers, false, "containers defaults to false");
        is_int(policy_group_for_slice(&p, "deadline-media-sub.slice"), 1, "sub-slice belongs to media");
        is_int(policy_group_for_slice(&p, "deadline-other.slice"), 0, "other deadline slice belongs to all");
        is_int(policy_group_for_slice(&p, "system.slice"), -1, "system.slice belongs to no group");
        is_int(policy_group_by_name(&p, "ctl"), 2, "group by name");
        free(msg);
        policy_done(&p);

        /* Exactly full: 3 x 10% in 30%. */
        r = check_text("{\"system\":{\"sched_dl_runtime_us\":300000, \"sched_rt_runtime_us\":600000},\"groups\":["
                       "{\"name\":\"a\",\"slice\":\"a.slice\",\"runtime_us\":100000,\"period_us\":1000000},"
                       "{\"name\":\"b\",\"slice\":\"b.slice\",\"runtime_us\":10000,\"period_us\":100000},"
                       "{\"name\":\"c\",\"slice\":\"c.slice\",\"runtime_us\":1000,\"period_us\":10000}]}", &p, &msg, NULL);
        if (!is_int(r, 0, "groups filling the budget exactly are valid"))
                printf("# %s\n", msg);
        free(msg);
        policy_done(&p);

        r = check_text("{}", &p, &msg, NULL);
        is_int(r, 0, "empty policy valid");
        free(msg);
        policy_done(&p);
}

static void test_directory(void) {
        Policy p = {};
        DiagList d = {};
        int r;

        r = policy_load_directory(&p, TEST_DATA "/policies.d", &d);
        if (r == 0)
                r = policy_validate(&p, &defaults, &d);
        if (!is_int(r, 0, "policy directory loads") && d.n)
                printf("# %s\n", d.items[0].message);
        is_int(strv_length(p.files), 2, "two json files merged");
        ok(p.files && strstr(p.files[0], "10-system.json") && strstr(p.files[1], "20-groups.json"), "merged in name order");
        is_int(p.system.dl_runtime_us, 400000, "system from the first file");
        is_int(p.n_groups, 2, "groups from the second file");
        ok(p.n_groups == 2 && strstr(p.groups[1].file, "20-groups.json"), "group remembers its file");
        policy_done(&p);
        diag_list_done(&d);

        is_int(policy_load_directory(&p, TEST_DATA "/nonexistent", &d), -ENOENT, "missing directory: ENOENT");
        policy_done(&p);

        /* Cross-file duplicate, reported with both files. */
        {
                char *msg;

                p = (Policy) {};
                policy_parse(&p, "a.json", G(""), &d);
                policy_parse(&p, "b.json", G(""), &d);
                r = policy_validate(&p, &defaults, &d);
                is_int(r, -EINVAL, "duplicate group across files refused");
                msg = d.n ? diag_format(&d.items[0]) : NULL;
                is_str(msg, "b.json: $.groups[0]: duplicate group name \"media\" (first defined in a.json at $.groups[0])",
                       "duplicate names both files");
                free(msg);
                policy_done(&p);
                diag_list_done(&d);
        }
}

static void test_bad(void) {
        Policy p;
        char *msg;
        size_t n;

        check_bad("{\"system\": ", "p.json: line 1, column 12: invalid JSON: the document ends where a value should be");
        check_bad("{\n  \"groups\": [ } ]\n}", "p.json: line 2, column 15: invalid JSON: unexpected character '}'");
        check_bad("[]", "p.json: $: the policy must be a JSON object, not an array");
        check_bad("0", "p.json: $: the policy must be a JSON object, not an integer");
        check_bad("null", "p.json: $: the policy must be a JSON object, not null");
        check_bad("{\"sytem\": {}}", "p.json: $.sytem: unknown key \"sytem\" (known: system, groups, description, $schema)");
        check_bad("{\"system\": 5}", "p.json: $.system: must be an object, not an integer");
        check_bad("{\"system\": {\"sched_dl_runtime_us\": \"5ms\"}}", "p.json: $.system.sched_dl_runtime_us: must be an integer, not a string");
        check_bad("{\"system\": {\"sched_dl_runtime_us\": -2}}", "p.json: $.system.sched_dl_runtime_us: -2 is out of range (-1 to 2147483647)");
        check_bad("{\"system\": {\"sched_dl_period_us\": 0}}", "p.json: $.system.sched_dl_period_us: 0 is out of range (1 to 2147483647)");
        check_bad("{\"system\": {\"sched_dl_runtime_us\": 99999999999999999999}}",
                  "p.json: $.system.sched_dl_runtime_us: number too large (range -1 to 2147483647)");
        check_bad("{\"system\": {\"sched_dl_runtime_us\": 1.5}}", "p.json: $.system.sched_dl_runtime_us: must be an integer, not a fractional number");
        check_bad("{\"system\": {\"sched_dl_runtime_us\": 2000000}}",
                  "p.json: $.system: runtime is longer than the period (deadline 2000000/1000000 = 200.00%, RT 950000/1000000 = 95.00%; keys not set here keep their current value)");
        check_bad("{\"system\": {\"sched_dl_runtime_us\": 100000}}",
                  "p.json: $.system: deadline and RT bandwidth together exceed 100% of a CPU (deadline 100000/1000000 = 10.00%, RT 950000/1000000 = 95.00%; keys not set here keep their current value)");
        check_bad("{\"system\": {\"sched_dl_budget\": 1}}",
                  "p.json: $.system.sched_dl_budget: unknown key \"sched_dl_budget\" (known: sched_dl_runtime_us, sched_dl_period_us, sched_rt_runtime_us, sched_rt_period_us, description)");
        check_bad("{\"groups\": {}}", "p.json: $.groups: must be an array, not an object");
        check_bad("{\"groups\": [7]}", "p.json: $.groups[0]: must be an object, not an integer");
        check_bad("{\"groups\": [{\"name\":\"a\",\"slice\":\"a.slice\",\"runtime_us\":1}]}",
                  "p.json: $.groups[0]: missing required key \"period_us\"");
        check_bad(G(",\"colour\":\"red\""),
                  "p.json: $.groups[0].colour: unknown key \"colour\" (known: name, slice, runtime_us, period_us, max_request_percent, max_services, on_refusal, containers, description)");
        check_bad("{\"groups\":[{\"name\":\"a b\",\"slice\":\"a.slice\",\"runtime_us\":1,\"period_us\":10}]}",
                  "p.json: $.groups[0].name: \"a b\" is not a group name (1 to 64 letters, digits, '_' or '-')");
        check_bad("{\"groups\":[{\"name\":\"a\",\"slice\":\"a.service\",\"runtime_us\":1,\"period_us\":10}]}",
                  "p.json: $.groups[0].slice: \"a.service\" is not a slice name (such as \"deadline-media.slice\"; not the root slice)");
        check_bad("{\"groups\":[{\"name\":\"a\",\"slice\":\"-.slice\",\"runtime_us\":1,\"period_us\":10}]}",
                  "p.json: $.groups[0].slice: \"-.slice\" is not a slice name (such as \"deadline-media.slice\"; not the root slice)");
        check_bad("{\"groups\":[{\"name\":\"a\",\"slice\":\"a.slice\",\"runtime_us\":20,\"period_us\":10}]}",
                  "p.json: $.groups[0]: runtime_us (20) is larger than period_us (10)");
        check_bad("{\"groups\":[{\"name\":\"a\",\"slice\":\"a.slice\",\"runtime_us\":-1,\"period_us\":10}]}",
                  "p.json: $.groups[0].runtime_us: -1 is out of range (0 to 2147483647)");
        check_bad("{\"groups\":[{\"name\":\"a\",\"slice\":\"a.slice\",\"runtime_us\":1,\"period_us\":0}]}",
                  "p.json: $.groups[0].period_us: 0 is out of range (1 to 2147483647)");
        check_bad(G(",\"max_request_percent\":0"), "p.json: $.groups[0].max_request_percent: 0 is out of range (more than 0, at most 100)");
        check_bad(G(",\"max_request_percent\":\"5%\""), "p.json: $.groups[0].max_request_percent: must be a number, not a string");
        check_bad(G(",\"max_request_percent\":5"),
                  "p.json: $.groups[0]: max_request_percent (5.00%) is larger than the group's own reservation (1.00% of each CPU)");
        check_bad(G(",\"max_services\":0"), "p.json: $.groups[0].max_services: 0 is out of range (1 to 65535)");
        check_bad(G(",\"on_refusal\":\"kill\""), "p.json: $.groups[0].on_refusal: \"kill\" is not an action (\"degrade\" or \"fail\")");
        check_bad(G(",\"on_refusal\":true"), "p.json: $.groups[0].on_refusal: must be a string, not a boolean");
        check_bad(G(",\"containers\":\"yes\""), "p.json: $.groups[0].containers: must be true or false, not a string");
        check_bad(G(",\"containers\":1"), "p.json: $.groups[0].containers: must be true or false, not an integer");
        check_bad(G(",\"containers\":null"), "p.json: $.groups[0].containers: must be true or false, not null");
        check_bad("{\"groups\":[{\"name\":\"a\",\"slice\":\"a.slice\",\"runtime_us\":100000,\"period_us\":1000000}]}",
                  "p.json: $.groups[0]: group \"a\" reserves 10.00% of each CPU, more than the system deadline budget (5.00%, sched_dl_runtime_us/sched_dl_period_us)");
        check_bad("{\"groups\":[{\"name\":\"a\",\"slice\":\"a.slice\",\"runtime_us\":30000,\"period_us\":1000000},"
                  "{\"name\":\"b\",\"slice\":\"b.slice\",\"runtime_us\":30000,\"period_us\":1000000}]}",
                  "p.json: $.groups[1]: group \"b\" (3.00% of each CPU) does not fit together with the groups before it: 2.00% left in the system budget");
        check_bad("{\"groups\":[{\"name\":\"a\",\"slice\":\"a.slice\",\"runtime_us\":10000,\"period_us\":1000000},"
                  "{\"name\":\"b\",\"slice\":\"a-b.slice\",\"runtime_us\":20000,\"period_us\":1000000}]}",
                  "p.json: $.groups[1]: group \"b\" reserves 2.00% of each CPU, more than its enclosing group \"a\" (1.00%)");
        check_bad("{\"groups\":[{\"name\":\"a\",\"slice\":\"a.slice\",\"runtime_us\":1,\"period_us\":10},"
                  "{\"name\":\"b\",\"slice\":\"a.slice\",\"runtime_us\":1,\"period_us\":10}]}",
                  "p.json: $.groups[1]: slice \"a.slice\" already belongs to group \"a\" (p.json at $.groups[0])");
        check_bad("{\"description\": 5}", "p.json: $.description: must be a string, not an integer");

        /* All problems are reported, not just the first. */
        ok(check_text("{\"groups\":[{\"name\":1,\"slice\":2,\"runtime_us\":\"x\",\"period_us\":null}]}", &p, &msg, &n) == -EINVAL,
           "several bad keys refused");
        is_int(n, 4, "one message per bad key");
        free(msg);
        policy_done(&p);
}

static void check_example(const char *name, int want, const char *want_msg) {
        _cleanup_free_ char *text = NULL;
        char path[512];
        Policy p = {};
        DiagList d = {};
        size_t size;
        int r;

        snprintf(path, sizeof(path), "%s/%s", POLICY_EXAMPLES, name);
        r = fileio_read_config(path, &text, &size);
        if (!is_int(r, 0, "shipped example %s: read", name))
                return;
        r = policy_parse_n(&p, path, text, size, &d);
        if (r == 0)
                r = policy_validate(&p, &defaults, &d);
        is_int(r, want, "shipped example %s: %s", name, want ? "refused" : "valid");
        if (want_msg) {
                char *msg = d.n ? diag_format(&d.items[0]) : NULL;

                ok(msg && strstr(msg, want_msg), "shipped example %s: message", name);
                if (msg && !strstr(msg, want_msg))
                        printf("# %s\n", msg);
                free(msg);
        } else if (r < 0 && d.n)
                printf("# %s\n", d.items[0].message);
        policy_done(&p);
        diag_list_done(&d);
}

/* Standard JSON only: each of these was once accepted as a valid policy. */
static void test_strict(void) {
        static const struct {
                const char *text, *want;
        } cases[] = {
                { "{\"groups\":[" "{\"name\":\"a\",\"slice\":\"a.slice\",\"runtime_us\":1000,\"period_us\":10000}"
                  "],\"groups\":[]}",
                  "p.json: $.groups: invalid JSON: duplicate key \"groups\" (only one may be given)" },
                { "{\"system\":{\"sched_dl_runtime_us\":1,\"sched_dl_runtime_us\":2}}",
                  "p.json: $.system.sched_dl_runtime_us: invalid JSON: duplicate key \"sched_dl_runtime_us\" (only one may be given)" },
                { G(",\"runtime_us\":20000"),
                  "p.json: $.groups[0].runtime_us: invalid JSON: duplicate key \"runtime_us\" (only one may be given)" },
                { "{}{\"groups\":[]}", "p.json: line 1, column 3: invalid JSON: data after the end of the document" },
                { G("") G(""), "p.json: line 1, column 100: invalid JSON: data after the end of the document" },
                { "{} garbage", "p.json: line 1, column 4: invalid JSON: data after the end of the document" },
                { "// policy\n{}", "p.json: line 1, column 1: invalid JSON: a comment (JSON has none; use a \"description\" key)" },
                { "{\"groups\":[] /* none */}", "p.json: line 1, column 14: invalid JSON: a ',' or '}' must follow an object member" },
                { G(","), "p.json: line 1, column 98: invalid JSON: a comma before the end of an object" },
                { "{\"groups\":[{\"name\":\"a\",\"slice\":\"a.slice\",\"runtime_us\":1000,\"period_us\":10000},]}",
                  "p.json: line 1, column 79: invalid JSON: a comma before the end of an array" },
                { G(",\"max_request_percent\":NaN"), "p.json: line 1, column 120: invalid JSON: NaN and Infinity are not JSON numbers" },
                { "{\"groups\":[{\"name\":\"a\",\"slice\":\"a.slice\",\"runtime_us\":Infinity,\"period_us\":10000}]}",
                  "p.json: line 1, column 55: invalid JSON: NaN and Infinity are not JSON numbers" },
                { "{\"groups\":[{\"name\":\"a\",\"slice\":\"a.slice\",\"runtime_us\":1000,\"period_us\":010000}]}",
                  "p.json: line 1, column 72: invalid JSON: a number with a leading zero" },
                { "{\"system\":{\"sched_dl_runtime_us\":-0100}}", "p.json: line 1, column 34: invalid JSON: a number with a leading zero" },
                { "{'groups':[]}", "p.json: line 1, column 2: invalid JSON: a key in single quotes (JSON strings take double quotes)" },
                { "{\"description\":\"a\tb\"}", "p.json: line 1, column 18: invalid JSON: control character U+0009 in a string (write it as an escape)" },
                { G(",\"max_request_percent\":0.00000001"),
                  "p.json: $.groups[0].max_request_percent: 0.00000001% is less than the smallest bandwidth the kernel counts (1/1048576 of a CPU, 0.0000954%)" },
                { G(",\"max_request_percent\":0.00009"),
                  "p.json: $.groups[0].max_request_percent: 0.00009% is less than the smallest bandwidth the kernel counts (1/1048576 of a CPU, 0.0000954%)" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                check_bad(cases[i].text, cases[i].want);
}

/* The one file in dir is refused at load, with a message containing want
 * (and at where, if not NULL); then it is removed. */
static void check_file_refused(const char *dir, const char *path, const char *what, const char *where,
                               const char *want) {
        Policy p = {};
        DiagList d = {};

        is_int(policy_load_directory(&p, dir, &d), -EINVAL, "%s is refused", what);
        ok(d.n == 1 && strstr(d.items[0].message, want) && (!where || streq_ptr(d.items[0].where, where)),
           "message: %s", want);
        policy_done(&p);
        diag_list_done(&d);
        if (unlink(path) < 0)
                rmdir(path);
}

/* Files that are not regular, too large, or hold a NUL byte. */
static void test_files(void) {
        char dir[] = "/tmp/dld-test-policy-XXXXXX", path[128];
        _cleanup_free_ char *big = NULL;

        if (!ok(mkdtemp(dir), "temporary directory"))
                return;
        snprintf(path, sizeof(path), "%s/10-fifo.json", dir);
        ok(mkfifo(path, 0600) == 0, "a FIFO named *.json");
        check_file_refused(dir, path, "a FIFO (without waiting for a writer)", NULL, "not a regular file");

        snprintf(path, sizeof(path), "%s/20-dir.json", dir);
        ok(mkdir(path, 0700) == 0, "a directory named *.json");
        check_file_refused(dir, path, "a directory", NULL, "Is a directory");

        snprintf(path, sizeof(path), "%s/30-big.json", dir);
        big = malloc(CONFIG_FILE_MAX + 2);
        if (big) {
                memset(big, ' ', CONFIG_FILE_MAX + 1);
                big[0] = '{';
                big[CONFIG_FILE_MAX] = '}';
                big[CONFIG_FILE_MAX + 1] = '\0';
        }
        ok(big && fileio_write_atomic(path, big) == 0, "a file of 1 MiB + 1 byte");
        check_file_refused(dir, path, "a file over the limit", NULL, "larger than the 1 MiB limit");

        snprintf(path, sizeof(path), "%s/40-nul.json", dir);
        {
                FILE *f = fopen(path, "we");

                if (f) {
                        fwrite("{}\0{}", 1, 5, f);
                        fclose(f);
                }
        }
        check_file_refused(dir, path, "a NUL byte", "line 1, column 3", "a NUL byte");
        rmdir(dir);
}

/* Validation finds duplicates and parents through sorted indices, not by
 * comparing every pair: the same verdicts and messages, in the same order,
 * whatever order the groups come in. */
static void test_indexed(void) {
        Policy p;
        DiagList d;
        int r;

        /* Parents listed after their children, a deeper chain, and a slice
         * that only shares a prefix ("a-bc" is not in "a-b"). */
        r = validate_text(
                         "{\"system\":{\"sched_dl_runtime_us\":900000,\"sched_rt_runtime_us\":50000},\"groups\":["
                         "{\"name\":\"abcd\",\"slice\":\"a-b-c-d.slice\",\"runtime_us\":1000,\"period_us\":1000000},"
                         "{\"name\":\"abc\",\"slice\":\"a-b-c.slice\",\"runtime_us\":10000,\"period_us\":1000000},"
                         "{\"name\":\"abx\",\"slice\":\"a-bc-x.slice\",\"runtime_us\":1000,\"period_us\":1000000},"
                         "{\"name\":\"a\",\"slice\":\"a.slice\",\"runtime_us\":500000,\"period_us\":1000000},"
                         "{\"name\":\"ab\",\"slice\":\"a-b.slice\",\"runtime_us\":100000,\"period_us\":1000000}"
                         "]}", &p, &d);
        is_int(r, 0, "indexed: nested policy, parents listed last, valid");
        is_int(p.groups[0].parent, 1, "indexed: a-b-c-d in a-b-c");
        is_int(p.groups[1].parent, 4, "indexed: a-b-c in a-b (listed after it)");
        is_int(p.groups[2].parent, 3, "indexed: a-bc-x in a, not in a-b");
        is_int(p.groups[3].parent, -1, "indexed: a top-level");
        is_int(p.groups[4].parent, 3, "indexed: a-b in a");
        is_int(policy_max_depth(&p), 3, "indexed: depth 3");
        policy_done(&p);
        diag_list_done(&d);

        /* Three groups named alike, one slice shared: each group is held
         * against every earlier one, in index order, as comparing each pair did. */
        r = validate_text(
                         "{\"groups\":["
                         "{\"name\":\"m\",\"slice\":\"m1.slice\",\"runtime_us\":1000,\"period_us\":1000000},"
                         "{\"name\":\"x\",\"slice\":\"m3.slice\",\"runtime_us\":1000,\"period_us\":1000000},"
                         "{\"name\":\"m\",\"slice\":\"m2.slice\",\"runtime_us\":1000,\"period_us\":1000000},"
                         "{\"name\":\"m\",\"slice\":\"m3.slice\",\"runtime_us\":1000,\"period_us\":1000000}"
                         "]}", &p, &d);
        is_int(r, -EINVAL, "indexed: duplicates refused");
        if (is_int(d.n, 4, "indexed: four problems")) {
                static const char * const want[] = {
                        "p.json: $.groups[2]: duplicate group name \"m\" (first defined in p.json at $.groups[0])",
                        "p.json: $.groups[3]: duplicate group name \"m\" (first defined in p.json at $.groups[0])",
                        "p.json: $.groups[3]: slice \"m3.slice\" already belongs to group \"x\" (p.json at $.groups[1])",
                        "p.json: $.groups[3]: duplicate group name \"m\" (first defined in p.json at $.groups[2])",
                };

                for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                        _cleanup_free_ char *msg = diag_format(&d.items[i]);

                        is_str(msg, want[i], "indexed: problem %zu, in index order", i + 1);
                }
        }
        policy_done(&p);
        diag_list_done(&d);
}

int main(void) {
        tap_begin();
        check_example("demo.json", 0, NULL);
        check_example("nested.json", 0, NULL);
        check_example("broken.json", -EINVAL,
                      "$.groups[1]: group \"control\" (20.00% of each CPU) does not fit together with the groups before it: 10.00% left in the system budget");
        test_good();
        test_directory();
        test_bad();
        test_strict();
        test_files();
        test_indexed();
        return tap_done();
}
