/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The OCI container state the hook reads on stdin. */
#include "ocistate.h"
#include "tap.h"

#define ID "3f2a9c0e5b7d41aa8f00c0ffee0123456789abcdef0123456789abcdef012345"

static int parse(const char *text, OciState *s, char **ret_error) {
        return ocistate_parse(text, strlen(text), s, ret_error);
}

static void check_bad(const char *text, const char *want, const char *name) {
        OciState s;
        char *error = NULL;

        is_int(parse(text, &s, &error), -EINVAL, "bad: %s", name);
        is_str(error, want, "bad: %s: message", name);
        ok(!s.id && !s.annotations, "bad: %s: nothing returned", name);
        free(error);
}

static void test_good(void) {
        OciState s;
        char *error = NULL, buf[16];
        const char *text =
                "{\"ociVersion\": \"1.0.2-dev\", \"id\": \"" ID "\", \"status\": \"created\", \"pid\": 4242,"
                " \"bundle\": \"/var/lib/containers/storage/overlay-containers/" ID "/userdata\","
                " \"annotations\": {\"io.container.manager\": \"libpod\", \"io.dlsched.runtime\": \"2ms\","
                " \"io.dlsched.period\": \"20ms\", \"io.kubernetes.cri-o.ContainerName\": \"media-1\"}}";

        if (!is_int(parse(text, &s, &error), 0, "podman's state (prestart)")) {
                printf("# %s\n", error);
                free(error);
                return;
        }
        is_str(s.id, ID, "id");
        is_str(s.status, "created", "status");
        is_int(s.pid, 4242, "pid");
        is_str(s.oci_version, "1.0.2-dev", "ociVersion");
        ok(s.bundle && strstr(s.bundle, "/userdata"), "bundle");
        is_int(s.n_annotations, 4, "4 annotations");
        is_str(s.n_annotations > 2 ? s.annotations[2].key : NULL, "io.dlsched.period", "annotations in the state's order");
        is_str(s.n_annotations > 2 ? s.annotations[2].value : NULL, "20ms", "annotation io.dlsched.period");
        is_str(ocistate_name(&s, buf, sizeof(buf)), "media-1", "name from io.kubernetes.cri-o.ContainerName");
        is_int(ocistate_hook_stage(NULL, &s), OCI_HOOK_ADMIT, "created: admit");
        is_int(ocistate_hook_stage("release", &s), OCI_HOOK_RELEASE, "verb release wins");
        is_int(ocistate_hook_stage("stop", &s), -EINVAL, "unknown verb");
        ocistate_done(&s);

        /* poststop: stopped, no pid, no annotations */
        if (is_int(parse("{\"ociVersion\": \"1.0.2\", \"id\": \"abc\", \"status\": \"stopped\", \"bundle\": \"/b\"}", &s, &error),
                   0, "stopped without pid or annotations")) {
                is_int(s.pid, 0, "stopped: pid 0");
                is_int(s.n_annotations, 0, "stopped: no annotations");
                is_str(ocistate_name(&s, buf, sizeof(buf)), "abc", "name: the id when short");
                is_int(ocistate_hook_stage(NULL, &s), OCI_HOOK_RELEASE, "stopped: release");
                ocistate_done(&s);
        }
        free(error);
        error = NULL;
        if (is_int(parse("{\"ociVersion\": \"1.0.2\", \"id\": \"" ID "\", \"status\": \"stopped\", \"pid\": 0,"
                         " \"annotations\": {\"io.podman.annotations.name\": \"bad name\"}}", &s, &error),
                   0, "stopped, pid 0")) {
                is_str(ocistate_name(&s, buf, sizeof(buf)), "3f2a9c0e5b7d", "name: a malformed one is not used, 12 characters of the id");
                ocistate_done(&s);
        }
        free(error);
        error = NULL;
        if (is_int(parse("{\"ociVersion\": \"1.0.2\", \"id\": \"x\", \"status\": \"creating\", \"pid\": 7, \"annotations\": null}",
                         &s, &error), 0, "creating, annotations null")) {
                is_int(s.n_annotations, 0, "annotations null: none");
                ocistate_done(&s);
        }
        free(error);
}

static void test_bad(void) {
        check_bad("", "empty state: expected the container's state as JSON on stdin", "empty");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"a\", \"status\": \"created\", \"pid\": 1",
                  "line 1, column 1: an object that is never closed", "truncated");
        check_bad("[1, 2]", "$: the state must be a JSON object", "an array");
        check_bad("42", "$: the state must be a JSON object", "a number");
        check_bad("null", "$: the state must be a JSON object", "null");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"a\", \"status\": \"created\", \"pid\": 1} {}",
                  "line 1, column 67: data after the end of the document", "two documents");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"a\", \"id\": \"b\", \"status\": \"created\", \"pid\": 1}",
                  "$.id: duplicate key \"id\" (only one may be given)", "duplicate id");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"a\", \"status\": \"created\", \"pid\": 1, "
                  "\"annotations\": {\"io.dlsched.runtime\": \"2ms\", \"io.dlsched.runtime\": \"9ms\"}}",
                  "$.annotations[\"io.dlsched.runtime\"]: duplicate key \"io.dlsched.runtime\" (only one may be given)", "duplicate annotation");
        check_bad("{\"id\": \"a\", \"status\": \"created\", \"pid\": 1}", "$.ociVersion: missing", "no ociVersion");
        check_bad("{\"ociVersion\": \"1.0.2\", \"status\": \"created\", \"pid\": 1}", "$.id: missing", "no id");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"a\", \"pid\": 1}", "$.status: missing", "no status");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"a\", \"status\": \"created\"}",
                  "$.pid: missing, or 0, for a container that is created", "no pid while created");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"a\", \"status\": \"running\", \"pid\": 0}",
                  "$.pid: missing, or 0, for a container that is running", "pid 0 while running");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"a\", \"status\": \"created\", \"pid\": -5}",
                  "$.pid: -5 is out of range", "negative pid");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"a\", \"status\": \"created\", \"pid\": 99999999999}",
                  "$.pid: 99999999999 is out of range", "pid too large");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"a\", \"status\": \"created\", \"pid\": \"12\"}",
                  "$.pid: must be an integer", "pid a string");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"a\", \"status\": \"created\", \"pid\": 1.5}",
                  "$.pid: must be an integer", "pid a fraction");
        check_bad("{\"ociVersion\": 1, \"id\": \"a\", \"status\": \"created\", \"pid\": 1}",
                  "$.ociVersion: must be a string", "ociVersion a number");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"../etc\", \"status\": \"created\", \"pid\": 1}",
                  "$.id: \"../etc\" is not a container ID (1 to 128 of A-Z a-z 0-9 _ . -)", "id with a slash");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"a\", \"status\": \"paused\", \"pid\": 1}",
                  "$.status: \"paused\" is not creating, created, running or stopped", "unknown status");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"a\", \"status\": \"created\", \"pid\": 1, \"annotations\": [\"x\"]}",
                  "$.annotations: must be an object of strings", "annotations an array");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"a\", \"status\": \"created\", \"pid\": 1, "
                  "\"annotations\": {\"io.dlsched.threads\": 2}}",
                  "$.annotations[\"io.dlsched.threads\"]: must be a string", "an annotation a number");
        check_bad("{\"ociVersion\": \"1.0.2\", \"id\": \"a\", \"status\": \"created\", \"pid\": 1,}",
                  "line 1, column 66: a comma before the end of an object", "trailing comma");
}

static void test_size(void) {
        OciState s;
        char *error = NULL;

        is_int(ocistate_parse("{}", OCI_STATE_MAX + 1, &s, &error), -EINVAL, "larger than OCI_STATE_MAX: refused");
        is_str(error, "state larger than 1048576 bytes", "larger than OCI_STATE_MAX: message");
        free(error);
        error = NULL;
        is_int(ocistate_parse("{\"a\": 1}\0{}", 11, &s, &error), -EINVAL, "a NUL byte: refused");
        free(error);
}

#define CMDLINE(s) s, sizeof(s)
static void test_conmon(void) {
        static const char podman[] =
                "/usr/bin/conmon\0--api-version\0" "1\0-c\0" "3f2a9c0e5b7d\0-u\0" "3f2a9c0e5b7d\0-r\0/usr/bin/crun\0"
                "-b\0/var/lib/containers/storage/overlay-containers/3f2a9c0e5b7d/userdata\0-n\0media-1\0--exit-dir\0/run/x";
        char *name = NULL;

        is_int(ocistate_conmon_cmdline_name(CMDLINE(podman), "3f2a9c0e5b7d", &name), 0, "conmon: -n with -c of the container");
        is_str(name, "media-1", "conmon: the name");
        free(name);
        name = NULL;
        is_int(ocistate_conmon_cmdline_name(CMDLINE("conmon\0--cid=abc\0--name=web\0"), "abc", &name), 0, "conmon: --cid= --name=");
        is_str(name, "web", "conmon: the long option's name");
        free(name);
        is_int(ocistate_conmon_cmdline_name(CMDLINE(podman), "ffff", &name), -ENOENT, "conmon: another container's monitor");
        is_int(ocistate_conmon_cmdline_name(CMDLINE("/usr/bin/crun\0-n\0x\0-c\0abc"), "abc", &name), -ENOENT, "conmon: not conmon");
        is_int(ocistate_conmon_cmdline_name(CMDLINE("conmon\0-c\0abc\0-n"), "abc", &name), -ENOENT, "conmon: -n without a value");
        is_int(ocistate_conmon_cmdline_name(CMDLINE("conmon\0-c\0abc\0-n\0a b"), "abc", &name), -ENOENT, "conmon: an invalid name");
        is_int(ocistate_conmon_cmdline_name("conmon", 6, "abc", &name), -ENOENT, "conmon: not NUL-terminated");
        is_int(ocistate_conmon_cmdline_name(NULL, 0, "abc", &name), -ENOENT, "conmon: empty");
}

static void test_runtime_log(void) {
        /* What podman 4.3 runs crun with (the guest's, shortened). */
        static const char crun[] =
                "/usr/bin/crun\0--systemd-cgroup\0--log-format=json\0--log\0/run/containers/x/userdata/oci-log\0"
                "create\0--bundle\0/var/lib/containers/x/userdata\0--pid-file\0/run/p\0x";
        char *path = NULL, *entry = NULL;

        is_int(ocistate_runtime_cmdline_log(CMDLINE(crun), &path), 0, "runtime log: crun as podman runs it");
        is_str(path, "/run/containers/x/userdata/oci-log", "runtime log: the path after --log");
        free(path);
        path = NULL;
        is_int(ocistate_runtime_cmdline_log(CMDLINE("runc\0--log-format\0json\0--log=/l\0create"), &path), 0,
               "runtime log: --log= and --log-format json");
        is_str(path, "/l", "runtime log: the path after --log=");
        free(path);
        path = NULL;
        is_int(ocistate_runtime_cmdline_log(CMDLINE("crun\0--log=/l\0create"), &path), -ENOENT,
               "runtime log: text format (no --log-format): left alone");
        is_int(ocistate_runtime_cmdline_log(CMDLINE("crun\0--log-format=text\0--log=/l"), &path), -ENOENT,
               "runtime log: --log-format=text: left alone");
        is_int(ocistate_runtime_cmdline_log(CMDLINE("crun\0--log-format=json\0--log=oci-log"), &path), -ENOENT,
               "runtime log: a relative path: left alone");
        is_int(ocistate_runtime_cmdline_log(CMDLINE("crun\0--log-format=json\0--log"), &path), -ENOENT,
               "runtime log: --log without a value");
        is_int(ocistate_runtime_cmdline_log(CMDLINE("bash\0-c\0hook"), &path), -ENOENT, "runtime log: a shell");
        is_int(ocistate_runtime_cmdline_log(NULL, 0, &path), -ENOENT, "runtime log: empty");
        ok(path == NULL, "runtime log: nothing allocated when refused");

        is_int(ocistate_runtime_log_entry("dlsched-oci-hook: c1: refused: \"media\" is full\n", "2026-12-05T06:50:17Z", &entry), 0,
               "runtime log entry");
        is_str(entry, "{\"msg\":\"dlsched-oci-hook: c1: refused: \\\"media\\\" is full\\n\",\"level\":\"error\","
                      "\"time\":\"2026-12-05T06:50:17Z\"}\n", "runtime log entry: crun's format, escaped, one line");
        free(entry);
}

static int sched(const char *text, DeadlineRequest *req, char **ret_error) {
        *req = (DeadlineRequest) {};
        return ocistate_scheduler_request(text, strlen(text), req, ret_error);
}

#define SCHED(body) "{\"ociVersion\": \"1.1.0\", \"process\": {\"args\": [\"/w\"], \"scheduler\": " body "}}"

static void check_sched_bad(const char *text, const char *want) {
        DeadlineRequest req;
        char *error = NULL;

        is_int(sched(text, &req, &error), -EINVAL, "process.scheduler refused: %s", want);
        is_str(error, want, "  its message");
        free(error);
}

static void test_scheduler(void) {
        DeadlineRequest req;
        char *error = NULL;

        is_int(sched(SCHED("{\"policy\": \"SCHED_DEADLINE\", \"runtime\": 2000000, \"deadline\": 10000000,"
                           " \"period\": 20000000, \"flags\": [\"SCHED_FLAG_RESET_ON_FORK\"]}"), &req, &error), 0,
               "process.scheduler SCHED_DEADLINE: a request");
        is_int(req.runtime_usec, 2000, "  runtime 2000 us");
        is_int(req.deadline_usec, 10000, "  deadline 10000 us");
        is_int(req.period_usec, 20000, "  period 20000 us");
        is_int(req.threads, 1, "  one task");
        free(error), error = NULL;
        is_int(sched(SCHED("{\"policy\": \"SCHED_DEADLINE\", \"runtime\": 1000000, \"period\": 5000000}"),
                     &req, &error), 0, "no deadline: the period's");
        is_int(req.deadline_usec, 5000, "  deadline 5000 us");
        is_int(sched(SCHED("{\"policy\": \"SCHED_DEADLINE\", \"runtime\": 1000000, \"deadline\": 5000000}"),
                     &req, &error), 0, "no period: the deadline's");
        is_int(req.period_usec, 5000, "  period 5000 us");
        is_int(sched(SCHED("{\"policy\": \"SCHED_FIFO\", \"priority\": 10}"), &req, &error), -ENOENT,
               "another policy: no request");
        is_int(sched("{\"ociVersion\": \"1.1.0\", \"process\": {\"args\": [\"/w\"]}}", &req, &error), -ENOENT,
               "no scheduler: no request");
        is_int(sched("{\"ociVersion\": \"1.1.0\"}", &req, &error), -ENOENT, "no process: no request");
        is_int(sched(SCHED("null"), &req, &error), -ENOENT, "scheduler null: no request");
        ok(!error, "  and no error");

        check_sched_bad(SCHED("{\"policy\": \"SCHED_DEADLINE\", \"period\": 5000000}"),
                        "$.process.scheduler.runtime: required, and more than 0, for SCHED_DEADLINE");
        check_sched_bad(SCHED("{\"policy\": \"SCHED_DEADLINE\", \"runtime\": 0, \"period\": 5000000}"),
                        "$.process.scheduler.runtime: required, and more than 0, for SCHED_DEADLINE");
        check_sched_bad(SCHED("{\"policy\": \"SCHED_DEADLINE\", \"runtime\": 1000000}"),
                        "$.process.scheduler: a deadline or a period is required for SCHED_DEADLINE");
        check_sched_bad(SCHED("{\"policy\": \"SCHED_DEADLINE\", \"runtime\": \"2ms\", \"period\": 5000000}"),
                        "$.process.scheduler.runtime: must be an integer (nanoseconds)");
        check_sched_bad(SCHED("{\"policy\": \"SCHED_DEADLINE\", \"runtime\": 1.5, \"period\": 5000000}"),
                        "$.process.scheduler.runtime: must be an integer (nanoseconds)");
        check_sched_bad(SCHED("{\"policy\": \"SCHED_DEADLINE\", \"runtime\": -1000, \"period\": 5000000}"),
                        "$.process.scheduler.runtime: out of range (0 to 9223372036854775806 ns)");
        check_sched_bad(SCHED("{\"policy\": \"SCHED_DEADLINE\", \"runtime\": 1000500, \"period\": 5000000}"),
                        "$.process.scheduler.runtime: 1000500 ns is not a whole number of microseconds");
        check_sched_bad(SCHED("{\"policy\": \"SCHED_DEADLINE\", \"runtime\": 1000000, \"period\": 99999999999999999999}"),
                        "$.process.scheduler.period: out of range (0 to 9223372036854775806 ns)");
        check_sched_bad(SCHED("{\"policy\": 6, \"runtime\": 1000000, \"period\": 5000000}"),
                        "$.process.scheduler.policy: missing, or not a string");
        check_sched_bad(SCHED("[\"SCHED_DEADLINE\"]"), "$.process.scheduler: must be an object");
        check_sched_bad("{\"process\": 1}", "$.process: must be an object");
        check_sched_bad("[]", "$: the configuration must be a JSON object");
        check_sched_bad(SCHED("{\"policy\": \"SCHED_DEADLINE\", \"runtime\": 1000000, \"runtime\": 2000000,"
                              " \"period\": 5000000}"),
                        "$.process.scheduler.runtime: duplicate key \"runtime\" (only one may be given)");
        check_sched_bad("", "the configuration is empty");
        check_sched_bad(SCHED("{\"policy\": \"SCHED_DEADLINE\", \"runtime\": 6000000, \"deadline\": 5000000}"),
                        "$.process.scheduler: runtime 6000us, deadline 5000us, period 5000us: runtime is longer than the deadline");
        check_sched_bad(SCHED("{\"policy\": \"SCHED_DEADLINE\", \"runtime\": 1000000, \"deadline\": 9000000,"
                              " \"period\": 5000000}"),
                        "$.process.scheduler: runtime 1000us, deadline 9000us, period 5000us: deadline is longer than the period");
        check_sched_bad(SCHED("{\"policy\": \"SCHED_DEADLINE\", \"runtime\": 1000000, \"period\": 5000000000}"),
                        "$.process.scheduler: runtime 1000us, deadline 5000000us, period 5000000us: period is longer than the kernel's maximum of 4194304us");
}

int main(void) {
        tap_begin();
        test_conmon();
        test_runtime_log();
        test_scheduler();
        test_good();
        test_bad();
        test_size();
        return tap_done();
}
