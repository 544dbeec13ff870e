/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A container's io.dlsched.* annotations, cgroup paths and dld's record. */
#include "container.h"
#include "tap.h"

#define A(k, v) { .key = (k), .value = (v) }
#define RT(v) A("io.dlsched.runtime", v)
#define PE(v) A("io.dlsched.period", v)
#define DL(v) A("io.dlsched.deadline", v)
#define TH(v) A("io.dlsched.threads", v)
#define GR(v) A("io.dlsched.group", v)

/* Parses n annotations; the first problem in *ret_msg. */
static int parse(const Annotation *a, size_t n, DeadlineRequest *r, char **ret_msg, size_t *ret_n) {
        DiagList d = {};
        int k = container_request_parse(a, n, r, &d);

        *ret_msg = d.n > 0 ? diag_format(&d.items[0]) : NULL;
        if (ret_n)
                *ret_n = d.n;
        diag_list_done(&d);
        return k;
}

#define check_good(name, rt, dl, pe, th, grp, ...) do {                                     \
        const Annotation _a[] = { __VA_ARGS__ };                                               \
        DeadlineRequest _r;                                                                     \
        char *_m;                                                                               \
        int _k = parse(_a, ELEMENTSOF(_a), &_r, &_m, NULL);                                     \
        if (is_int(_k, 0, "good: %s", name)) {                                                  \
                ok(_r.runtime_usec == (rt) && _r.deadline_usec == (dl) && _r.period_usec == (pe) && \
                   _r.threads == (th), "good: %s: %llu/%llu/%llu x %u", name,                   \
                   (unsigned long long) _r.runtime_usec, (unsigned long long) _r.deadline_usec, \
                   (unsigned long long) _r.period_usec, _r.threads);                            \
                is_str(_r.group, grp, "good: %s: group", name);                               \
        } else                                                                                  \
                printf("# %s\n", _m ?: "(no message)");                                         \
        free(_m);                                                                               \
        dropin_request_done(&_r);                                                             \
} while (0)

#define check_bad(want, ...) do {                                                               \
        const Annotation _a[] = { __VA_ARGS__ };                                               \
        DeadlineRequest _r;                                                                     \
        char *_m;                                                                               \
        int _k = parse(_a, ELEMENTSOF(_a), &_r, &_m, NULL);                                     \
        ok(_k == -EINVAL && _r.runtime_usec == 0 && !_r.group, "bad: %s", want);                \
        is_str(_m, want, "message: %s", want);                                                  \
        free(_m);                                                                               \
        dropin_request_done(&_r);                                                             \
} while (0)

#define NOT_SPAN "not a time span (expected systemd syntax such as 2ms or 500us)"
#define RANGE "time span out of range (microsecond resolution, at most 584542 years)"
#define NOT_COUNT "not a thread count (expected a number from 1 to 1024, or \"all\" for one per CPU)"
#define KNOWN "(known: io.dlsched.runtime, io.dlsched.period, io.dlsched.deadline, io.dlsched.threads, io.dlsched.group)"

static void test_good(void) {
        check_good("runtime and period", 2000, 20000, 20000, 1, NULL, RT("2ms"), PE("20ms"));
        check_good("every key", 2000, 10000, 20000, 3, "media",
                   A("io.podman.annotations.autoremove", "FALSE"), RT("2ms"), DL("10ms"), PE("20ms"), TH("3"), GR("media"));
        check_good("systemd spans", 1500, 1000000, 1500000, 1, NULL, RT("1500us"), PE("1s 500ms"), DL("1s"));
        check_good("threads all", 1000, 100000, 100000, DL_THREADS_ALL, NULL, RT("1ms"), PE("100ms"), TH("all"));
        check_good("threads 1024", 100, 100000, 100000, 1024, NULL, TH("1024"), RT("100us"), PE("100ms"));
        check_good("runtime = deadline = period", 5000, 5000, 5000, 1, NULL, RT("5ms"), PE("5ms"), DL("5ms"));
        check_good("fraction", 2500, 40000, 40000, 1, NULL, RT("2.5ms"), PE("40ms"));
        check_good("other keys ignored", 2000, 20000, 20000, 1, NULL,
                   A("io.dlsched", "x"), A("org.opencontainers.image.stopSignal", "15"), A("", ""), RT("2ms"), PE("20ms"));
}

static void test_none(void) {
        const Annotation a[] = { A("io.container.manager", "libpod"), A("io.dlschedruntime", "2ms") };
        DeadlineRequest r;
        char *m;

        is_int(parse(a, ELEMENTSOF(a), &r, &m, NULL), -ENOENT, "no io.dlsched.* key: no request");
        ok(!m, "no request: no message");
        free(m);
        is_int(parse(NULL, 0, &r, &m, NULL), -ENOENT, "no annotations at all: no request");
        free(m);
}

static void test_bad(void) {
        /* units and syntax */
        check_bad("io.dlsched.runtime=2xs: " NOT_SPAN, RT("2xs"), PE("20ms"));
        check_bad("runtime 2s, deadline 20ms, period 20ms: runtime is longer than the deadline",
                  RT("2"), PE("20ms"));
        check_bad("io.dlsched.period=ms: " NOT_SPAN, RT("2ms"), PE("ms"));
        check_bad("io.dlsched.period=infinity: " NOT_SPAN, RT("2ms"), PE("infinity"));
        check_bad("io.dlsched.period=20 ms garbage: " NOT_SPAN, RT("2ms"), PE("20 ms garbage"));
        check_bad("io.dlsched.deadline=1.5.5ms: " NOT_SPAN, RT("1ms"), PE("20ms"), DL("1.5.5ms"));
        /* negative, zero */
        check_bad("io.dlsched.runtime=-2ms: " NOT_SPAN, RT("-2ms"), PE("20ms"));
        check_bad("io.dlsched.runtime=0: must be greater than zero", RT("0"), PE("20ms"));
        check_bad("io.dlsched.period=0ms: must be greater than zero", RT("2ms"), PE("0ms"));
        check_bad("io.dlsched.deadline=0: must be greater than zero", RT("2ms"), PE("20ms"), DL("0"));
        /* overflow, resolution */
        check_bad("io.dlsched.runtime=99999999999999999999s: " RANGE, RT("99999999999999999999s"), PE("20ms"));
        check_bad("io.dlsched.period=600000 years: " RANGE, RT("2ms"), PE("600000 years"));
        check_bad("io.dlsched.runtime=0.1us: " RANGE, RT("0.1us"), PE("20ms"));
        /* the kernel's rules */
        check_bad("runtime 30ms, deadline 20ms, period 20ms: runtime is longer than the deadline", RT("30ms"), PE("20ms"));
        check_bad("runtime 2ms, deadline 30ms, period 20ms: deadline is longer than the period",
                  RT("2ms"), PE("20ms"), DL("30ms"));
        check_bad("runtime 5ms, deadline 2ms, period 20ms: runtime is longer than the deadline",
                  RT("5ms"), PE("20ms"), DL("2ms"));
        check_bad("runtime 10us, deadline 50us, period 50us: period is shorter than the kernel's minimum of 100us",
                  RT("10us"), PE("50us"));
        check_bad("runtime 1s, deadline 5s, period 5s: period is longer than the kernel's maximum of 4194304us",
                  RT("1s"), PE("5s"));
        /* empty, whitespace, control characters */
        check_bad("io.dlsched.runtime=: empty value (an annotation cannot reset a key: leave it out)", RT(""), PE("20ms"));
        check_bad("io.dlsched.runtime= 2ms: leading or trailing whitespace", RT(" 2ms"), PE("20ms"));
        check_bad("io.dlsched.period=20ms : leading or trailing whitespace", RT("2ms"), PE("20ms "));
        check_bad("io.dlsched.period: control character in the value", RT("2ms"), PE("20ms\n"));
        check_bad("io.dlsched.runtime: control character in the value", RT("1s\t500ms"), PE("20ms"));
        check_bad("io.dlsched.threads= : leading or trailing whitespace",
                  RT("2ms"), PE("20ms"), TH(" "));
        /* missing keys */
        check_bad("io.dlsched.runtime is missing: a request needs a runtime and a period", PE("20ms"));
        check_bad("io.dlsched.period is missing: a request needs a runtime and a period", RT("2ms"), DL("5ms"));
        check_bad("io.dlsched.runtime is missing: a request needs a runtime and a period", GR("media"));
        /* unknown keys, case */
        check_bad("io.dlsched.runtme: unknown annotation " KNOWN, A("io.dlsched.runtme", "2ms"), RT("2ms"), PE("20ms"));
        check_bad("io.dlsched.: unknown annotation " KNOWN, A("io.dlsched.", "x"), RT("2ms"), PE("20ms"));
        check_bad("io.dlsched.slice: unknown annotation " KNOWN, RT("2ms"), PE("20ms"), A("io.dlsched.slice", "a.slice"));
        check_bad("io.dlsched.Runtime: annotation keys are lowercase " KNOWN, A("io.dlsched.Runtime", "2ms"), PE("20ms"));
        check_bad("IO.DLSCHED.PERIOD: annotation keys are lowercase " KNOWN, RT("2ms"), A("IO.DLSCHED.PERIOD", "20ms"));
        /* duplicates: an OCI runtime passes a map, but a list given twice must not pick one silently */
        check_bad("io.dlsched.runtime=3ms: given twice (a container's annotations hold each key once)",
                  RT("2ms"), PE("20ms"), RT("3ms"));
        check_bad("io.dlsched.runtime=2ms: given twice (a container's annotations hold each key once)",
                  RT("2ms"), PE("20ms"), RT("2ms"));
        /* threads */
        check_bad("io.dlsched.threads=0: must be at least 1 (\"all\" for one per CPU)", RT("2ms"), PE("20ms"), TH("0"));
        check_bad("io.dlsched.threads=1025: more than the limit of 1024 threads", RT("2ms"), PE("20ms"), TH("1025"));
        check_bad("io.dlsched.threads=99999999999999999999: more than the limit of 1024 threads",
                  RT("2ms"), PE("20ms"), TH("99999999999999999999"));
        check_bad("io.dlsched.threads=-1: " NOT_COUNT, RT("2ms"), PE("20ms"), TH("-1"));
        check_bad("io.dlsched.threads=+2: " NOT_COUNT, RT("2ms"), PE("20ms"), TH("+2"));
        check_bad("io.dlsched.threads=2.0: " NOT_COUNT, RT("2ms"), PE("20ms"), TH("2.0"));
        check_bad("io.dlsched.threads=ALL: " NOT_COUNT, RT("2ms"), PE("20ms"), TH("ALL"));
        check_bad("io.dlsched.threads=0x10: " NOT_COUNT, RT("2ms"), PE("20ms"), TH("0x10"));
        /* group */
        check_bad("io.dlsched.group=media/x: not a group name (letters, digits, '_' and '-', at most 64)",
                  RT("2ms"), PE("20ms"), GR("media/x"));
        check_bad("io.dlsched.group=0123456789012345678901234567890123456789012345678901234567890123456789: "
                  "not a group name (letters, digits, '_' and '-', at most 64)",
                  RT("2ms"), PE("20ms"), GR("0123456789012345678901234567890123456789012345678901234567890123456789"));
}

/* Every problem is reported, not only the first. */
static void test_all_problems(void) {
        const Annotation a[] = { RT("2xs"), PE("-1"), TH("0"), A("io.dlsched.foo", "1") };
        DeadlineRequest r;
        char *m;
        size_t n;

        is_int(parse(a, ELEMENTSOF(a), &r, &m, &n), -EINVAL, "four problems: refused");
        is_int(n, 4, "four problems: each reported");
        free(m);
}

static void test_ids(void) {
        char long_id[CONTAINER_ID_MAX + 2];

        ok(container_id_is_valid("3f2a9c0e5b7d41aa8f00c0ffee0123456789abcdef0123456789abcdef012345"), "id: 64 hex digits");
        ok(container_id_is_valid("my_ctr.1-a"), "id: letters, digits, _ . -");
        ok(!container_id_is_valid(""), "id: empty refused");
        ok(!container_id_is_valid(NULL), "id: none refused");
        ok(!container_id_is_valid("-abc"), "id: leading dash refused");
        ok(!container_id_is_valid("a/b"), "id: slash refused");
        ok(!container_id_is_valid("a b"), "id: space refused");
        memset(long_id, 'a', sizeof(long_id) - 1);
        long_id[sizeof(long_id) - 1] = 0;
        ok(!container_id_is_valid(long_id), "id: 129 characters refused");
        long_id[CONTAINER_ID_MAX] = 0;
        ok(container_id_is_valid(long_id), "id: 128 characters");
        ok(container_name_is_valid("media-1"), "name: media-1");
        ok(!container_name_is_valid("a/b"), "name: slash refused");
        ok(!container_name_is_valid("a b"), "name: space refused");
        ok(!container_name_is_valid("a\nb"), "name: newline refused");
        ok(!container_name_is_valid(""), "name: empty refused");
}

static void check_proc(const char *text, int want, const char *path) {
        char *got = NULL;
        int r = container_proc_cgroup_cpu_path(text, &got);

        is_int(r, want, "/proc/PID/cgroup %s: %d", path ?: "(none)", want);
        if (want == 0)
                is_str(got, path, "/proc/PID/cgroup: %s", path);
        free(got);
}

static void check_scope(const char *path, int want, const char *scope) {
        char *got = NULL;
        int r = container_cgroup_scope(path, &got);

        is_int(r, want, "scope of %s", path);
        if (want == 0)
                is_str(got, scope, "scope of %s: %s", path, scope);
        free(got);
}

static void check_split(const char *cgroup, const char *unit, const char *slice) {
        char *u = NULL, *s = NULL;
        int r = container_cgroup_split(cgroup, &u, &s);

        if (unit) {
                is_int(r, 0, "cgroup %s accepted", cgroup);
                is_str(u, unit, "cgroup %s: unit", cgroup);
                is_str(s, slice, "cgroup %s: slice", cgroup);
        } else
                is_int(r, -EINVAL, "cgroup %s refused", cgroup ?: "(null)");
        free(u);
        free(s);
}

static void test_cgroups(void) {
        check_proc("0::/deadline.slice/deadline-media.slice/libpod-abc.scope/container\n", 0,
                   "/deadline.slice/deadline-media.slice/libpod-abc.scope/container");
        check_proc("12:cpuset:/a\n4:cpu,cpuacct:/deadline.slice/libpod-abc.scope\n1:name=systemd:/x\n0::/y\n", 0,
                   "/deadline.slice/libpod-abc.scope");
        check_proc("2:cpuacct,cpu:/v1.slice/x.scope\n", 0, "/v1.slice/x.scope");
        check_proc("0::/a.slice/b.scope", 0, "/a.slice/b.scope");
        check_proc("3:memory:/a\n", -ENOENT, NULL);
        check_proc("", -ENOENT, NULL);
        check_proc("0::/a.slice/b.scope (deleted)\n", -ENOENT, NULL);
        check_proc("garbage\n", -EINVAL, NULL);
        check_proc("x:cpu:/a\n", -EINVAL, NULL);
        check_proc("4:cpu:relative\n", -EINVAL, NULL);

        check_scope("/deadline.slice/deadline-media.slice/libpod-abc.scope/container", 0,
                    "/deadline.slice/deadline-media.slice/libpod-abc.scope");
        check_scope("/machine.slice/libpod-abc.scope", 0, "/machine.slice/libpod-abc.scope");
        check_scope("/a.slice/x.scope/inner.scope/leaf", 0, "/a.slice/x.scope/inner.scope");
        check_scope("/system.slice/podman.service", -ENOENT, NULL);
        check_scope("/a.slice/.scope/x", -ENOENT, NULL);
        check_scope("/", -ENOENT, NULL);

        check_split("/deadline.slice/deadline-media.slice/libpod-abc.scope", "libpod-abc.scope", "deadline-media.slice");
        check_split("/machine.slice/libpod-abc.scope", "libpod-abc.scope", "machine.slice");
        check_split("/deadline.slice/deadline-media.slice/libpod-abc.scope/container", "libpod-abc.scope",
                    "deadline-media.slice");
        check_split("/m.slice/libpod-abc.scope/a/b", "libpod-abc.scope", "m.slice");
        check_split("/m.slice/libpod-abc.scope/../x", NULL, NULL);
        check_split("/m.slice/x.service/container", NULL, NULL);
        check_split("/libpod-abc.scope", NULL, NULL);
        check_split("/libpod-abc.scope/container", NULL, NULL);
        check_split("/a.slice/x.service", NULL, NULL);
        check_split("/a.slice/../x.scope", NULL, NULL);
        check_split("/a.slice//x.scope", NULL, NULL);
        check_split("/a.slice/./x.scope", NULL, NULL);
        check_split("a.slice/x.scope", NULL, NULL);
        check_split("/a.slice/x.scope/", NULL, NULL);
        check_split("/a.service/x.scope", NULL, NULL);
        check_split("", NULL, NULL);
        check_split(NULL, NULL, NULL);
}

static void test_record(void) {
        DeadlineRequest req = {
                .runtime_usec = 2000, .deadline_usec = 10000, .period_usec = 20000, .threads = 3,
        };
        ContainerRecord c;
        DiagList d = {};
        char *text;

        req.group = strdup("media");
        text = container_record_format("abc123", "media-1", "/deadline.slice/deadline-media.slice/libpod-abc123.scope",
                                       "media", &req);
        ok(text && strstr(text, "[Container]\nId=abc123\nName=media-1\n"), "record: formatted");
        ok(text && strstr(text, "\nAdmittedGroup=media\n"), "record: the group that admitted it");
        ok(text && !strstr(text, "by hand"), "record: without the comment of requests by hand");
        if (is_int(container_record_parse("rec", text, &c, &d), 0, "record: parsed back")) {
                is_str(c.id, "abc123", "record: id");
                is_str(c.name, "media-1", "record: name");
                is_str(c.cgroup, "/deadline.slice/deadline-media.slice/libpod-abc123.scope", "record: cgroup");
                ok(c.req.runtime_usec == 2000 && c.req.deadline_usec == 10000 && c.req.period_usec == 20000 &&
                   c.req.threads == 3, "record: request");
                is_str(c.req.group, "media", "record: group");
                is_str(c.admitted_group, "media", "record: admitted to");
                container_record_done(&c);
        }
        diag_list_done(&d);
        free(text);

        /* Refused: no AdmittedGroup=, and so is an older version's record. */
        text = container_record_format("abc123", "media-1", "/a.slice/b.scope", NULL, &req);
        ok(text && !strstr(text, "AdmittedGroup"), "record of a refused container: no AdmittedGroup=");
        if (is_int(container_record_parse("rec", text, &c, &d), 0, "record of a refused container: parsed back")) {
                ok(!c.admitted_group, "record of a refused container: admitted to none");
                container_record_done(&c);
        }
        diag_list_done(&d);
        free(text);
        dropin_request_done(&req);

        for (size_t i = 0; i < 3; i++) {
                static const char *const bad[] = { "", "a/b", "x y" };
                _cleanup_free_ char *t = NULL;

                if (asprintf(&t, "[Container]\nId=a\nName=b\nCgroup=/a.slice/b.scope\nAdmittedGroup=%s\n"
                                 "[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\n", bad[i]) < 0)
                        abort();
                is_int(container_record_parse("rec", t, &c, &d), -EINVAL, "record: AdmittedGroup='%s' refused", bad[i]);
                ok(d.n > 0 && strstr(d.items[d.n - 1].message, "AdmittedGroup="), "  and named");
                diag_list_done(&d);
        }

        is_int(container_record_parse("rec", "[Container]\nId=a\nName=b\n", &c, &d), -EINVAL, "record: no cgroup refused");
        diag_list_done(&d);
        is_int(container_record_parse("rec", "[Container]\nId=a\nName=b\nCgroup=/a.slice/b.scope\n", &c, &d), -EINVAL,
               "record: no request refused");
        diag_list_done(&d);
        is_int(container_record_parse("rec", "[Container]\nId=a\nName=b\nCgroup=/a.slice/b.scope\n[Service]\n"
                                      "X-DeadlineRuntime=5ms\nX-DeadlinePeriod=1ms\n", &c, &d), -EINVAL,
               "record: invalid request refused");
        diag_list_done(&d);
}

int main(void) {
        tap_begin();
        test_good();
        test_none();
        test_bad();
        test_all_problems();
        test_ids();
        test_cgroups();
        test_record();
        return tap_done();
}
