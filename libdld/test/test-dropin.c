/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dropin.h"
#include "tap.h"

/* Parses one file and finishes; returns the finish/parse result and the first message. */
static int parse_one(const char *text, DeadlineRequest *r, char **ret_msg) {
        DiagList d = {};
        int k, f;

        *r = (DeadlineRequest) {};
        k = dropin_parse(r, "dl.conf", text, &d);
        f = dropin_finish(r, &d);
        *ret_msg = d.n > 0 ? diag_format(&d.items[0]) : NULL;
        diag_list_done(&d);
        return k < 0 ? k : f;
}

/* @r formatted as a drop-in and parsed back into @back; parse_one()'s result. */
static int round_trip(const DeadlineRequest *r, DeadlineRequest *back) {
        _cleanup_free_ char *text = dropin_format(r), *msg = NULL;

        return parse_one(text ?: "", back, &msg);
}

static void check_good(const char *text, uint64_t rt, uint64_t dl, uint64_t pe, const char *group, const char *name) {
        DeadlineRequest r;
        char *msg;
        int k = parse_one(text, &r, &msg);

        if (is_int(k, 0, "%s: accepted", name)) {
                ok(r.runtime_usec == rt && r.deadline_usec == dl && r.period_usec == pe,
                   "%s: runtime %llu, deadline %llu, period %llu", name,
                   (unsigned long long) r.runtime_usec, (unsigned long long) r.deadline_usec,
                   (unsigned long long) r.period_usec);
                is_str(r.group, group, "%s: group", name);
        } else
                printf("# %s\n", msg ?: "(no message)");
        free(msg);
        dropin_request_done(&r);
}

static void check_bad(const char *text, const char *want_msg) {
        DeadlineRequest r;
        char *msg;
        int k = parse_one(text, &r, &msg);

        ok(k == -EINVAL, "refused: %s", want_msg);
        is_str(msg, want_msg, "message for: %s", want_msg);
        free(msg);
        dropin_request_done(&r);
}

static void check_threads(const char *text, unsigned threads, const char *name) {
        DeadlineRequest r;
        char *msg;
        int k = parse_one(text, &r, &msg);

        if (is_int(k, 0, "%s: accepted", name))
                is_int(r.threads, threads, "%s: threads", name);
        else
                printf("# %s\n", msg ?: "(no message)");
        free(msg);
        dropin_request_done(&r);
}

/* A malformed X-DeadlineThreads= value on line 4 of an otherwise good request. */
static void check_bad_threads(const char *value, const char *want_reason) {
        _cleanup_free_ char *text = NULL, *want = NULL;

        if (asprintf(&text, "[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlineThreads=%s\n", value) < 0 ||
            asprintf(&want, "dl.conf: line 4: X-DeadlineThreads=%s: %s", value, want_reason) < 0)
                abort();
        check_bad(text, want);
}

/* X-DeadlinePromote= on line 4 of an otherwise good request. */
static void check_promote(const char *value, DeadlinePromote want, const char *name) {
        _cleanup_free_ char *text = NULL;
        DeadlineRequest r;
        char *msg;

        if (asprintf(&text, "[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlinePromote=%s\n", value) < 0)
                abort();
        if (is_int(parse_one(text, &r, &msg), 0, "%s: accepted", name))
                is_str(dropin_promote_to_string(r.promote), dropin_promote_to_string(want), "%s: promote", name);
        else
                printf("# %s\n", msg ?: "(no message)");
        free(msg);
        dropin_request_done(&r);
}

#define NOT_A_CHOICE "not a choice of threads (expected \"auto\", \"cgroup\" or \"none\")"
static void check_bad_promote(const char *value) {
        _cleanup_free_ char *text = NULL, *want = NULL;

        if (asprintf(&text, "[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlinePromote=%s\n", value) < 0 ||
            asprintf(&want, "dl.conf: line 4: X-DeadlinePromote=%s: " NOT_A_CHOICE, value) < 0)
                abort();
        check_bad(text, want);
}

/* dropin_promote_resolve(): want_r 0 with *ret want, or -EINVAL with a why containing fragment. */
static void check_resolve(DeadlinePromote setting, bool delegated, int want_r, DeadlinePromote want, const char *fragment) {
        char why[DEADLINE_WHY_MAX] = "";
        DeadlinePromote got = _PROMOTE_MAX;
        int r = dropin_promote_resolve(setting, delegated, &got, why, sizeof(why));
        const char *s = dropin_promote_to_string(setting);

        is_int(r, want_r, "resolve %s, Delegate=%s: %s", s, delegated ? "yes" : "no", want_r == 0 ? "valid" : "refused");
        if (want_r == 0)
                is_str(dropin_promote_to_string(got), dropin_promote_to_string(want), "resolve %s, Delegate=%s: %s", s,
                       delegated ? "yes" : "no", dropin_promote_to_string(want));
        else if (!ok(strstr(why, fragment), "resolve %s, Delegate=%s: why says \"%s\"", s, delegated ? "yes" : "no", fragment))
                printf("#   why: %s\n", why);
}

int main(void) {
        tap_begin();

        check_good("[Service]\nX-DeadlineRuntime=2ms\nX-DeadlinePeriod=10ms\n", 2000, 10000, 10000, NULL, "basic, deadline defaults to period");
        check_good("[Unit]\nDescription=x\n[Service]\nExecStart=/bin/true\nX-DeadlineRuntime = 500us\n"
                   "X-DeadlineDeadline=5ms\nX-DeadlinePeriod=1s 500ms\nX-DeadlineGroup=media\n",
                   500, 5000, 1500000, "media", "all keys, whitespace around '='");
        check_good("# comment\n; other comment\n[Service]\nX-DeadlineRuntime=1ms\nX-DeadlineRuntime=3ms\nX-DeadlinePeriod=\\\n  20ms\n",
                   3000, 20000, 20000, NULL, "later assignment wins, continuation line");
        check_good("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlineGroup=a\nX-DeadlineGroup=\n",
                   1000, 10000, 10000, NULL, "empty assignment resets the group");
        check_good("[Service]\nX-Other=1\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms", 1000, 10000, 10000, NULL,
                   "other X- keys ignored, no final newline");

        check_threads("[Service]\nX-DeadlineRuntime=2ms\nX-DeadlinePeriod=10ms\n", 1, "threads default to 1");
        check_threads("[Service]\nX-DeadlineRuntime=2ms\nX-DeadlinePeriod=10ms\nX-DeadlineThreads=3\n", 3, "X-DeadlineThreads=3");
        check_threads("[Service]\nX-DeadlineRuntime=2ms\nX-DeadlinePeriod=10ms\nX-DeadlineThreads = all \n", DL_THREADS_ALL,
                      "X-DeadlineThreads=all, whitespace around");
        check_threads("[Service]\nX-DeadlineRuntime=2ms\nX-DeadlinePeriod=10ms\nX-DeadlineThreads=1024\n", 1024, "the limit, 1024");
        check_threads("[Service]\nX-DeadlineRuntime=2ms\nX-DeadlinePeriod=10ms\nX-DeadlineThreads=007\n", 7, "leading zeros are decimal");
        check_threads("[Service]\nX-DeadlineRuntime=2ms\nX-DeadlinePeriod=10ms\nX-DeadlineThreads=all\nX-DeadlineThreads=2\n", 2,
                      "a later X-DeadlineThreads= wins");
        check_threads("[Service]\nX-DeadlineRuntime=2ms\nX-DeadlinePeriod=10ms\nX-DeadlineThreads=4\nX-DeadlineThreads=\n", 1,
                      "an empty X-DeadlineThreads= resets to 1");

        {
                DeadlineRequest r;
                char *msg;

                is_int(parse_one("[Service]\nExecStart=/bin/true\n", &r, &msg), -ENOENT, "no keys: no request");
                ok(!msg, "no keys: no message");
                dropin_request_done(&r);
        }

        /* Two files: the drop-in overrides the unit file. */
        {
                DeadlineRequest r = {};
                DiagList d = {};

                dropin_parse(&r, "a.service", "[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\n", &d);
                dropin_parse(&r, "a.service.d/x.conf", "[Service]\nX-DeadlinePeriod=20ms\n", &d);
                is_int(dropin_finish(&r, &d), 0, "drop-in over unit file accepted");
                is_int(r.period_usec, 20000, "drop-in's period wins");
                is_str(r.period_at.file, "a.service.d/x.conf", "origin of the period is the drop-in");
                is_int(r.period_at.line, 2, "origin line of the period");
                diag_list_done(&d);
                dropin_request_done(&r);
        }

        check_bad("[Service]\nX-DeadlineRuntime=2xs\nX-DeadlinePeriod=10ms\n",
                  "dl.conf: line 2: X-DeadlineRuntime=2xs: not a time span (expected systemd syntax such as 2ms or 500us)");
        check_bad("[Service]\nX-DeadlineRuntime=-1ms\nX-DeadlinePeriod=10ms\n",
                  "dl.conf: line 2: X-DeadlineRuntime=-1ms: not a time span (expected systemd syntax such as 2ms or 500us)");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=0\n",
                  "dl.conf: line 3: X-DeadlinePeriod=0: must be greater than zero");
        check_bad("[Service]\nX-DeadlineRuntime=0.1us\nX-DeadlinePeriod=1ms\n",
                  "dl.conf: line 2: X-DeadlineRuntime=0.1us: time span out of range (microsecond resolution, at most 584542 years)");
        check_bad("[Service]\nX-DeadlineRuntime=5ms\nX-DeadlinePeriod=2ms\n",
                  "dl.conf: line 2: runtime 5ms, deadline 2ms, period 2ms: runtime is longer than the deadline");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlineDeadline=20ms\nX-DeadlinePeriod=10ms\n",
                  "dl.conf: line 4: runtime 1ms, deadline 20ms, period 10ms: deadline is longer than the period");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\n",
                  "dl.conf: line 2: X-DeadlinePeriod= is missing: a request needs a runtime and a period");
        check_bad("[Service]\nX-DeadlinePeriod=10ms\n",
                  "dl.conf: line 2: X-DeadlineRuntime= is missing: a request needs a runtime and a period");
        check_bad("[Unit]\nX-DeadlineRuntime=1ms\n[Service]\nX-DeadlinePeriod=10ms\n",
                  "dl.conf: line 2: X-DeadlineRuntime= belongs in the [Service] section, not [Unit]");
        check_bad("[Service]\nX-DeadlineRuntim=1ms\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\n",
                  "dl.conf: line 2: unknown key X-DeadlineRuntim= (known: X-DeadlineRuntime=, X-DeadlinePeriod=, X-DeadlineDeadline=, "
                  "X-DeadlineGroup=, X-DeadlineThreads=, X-DeadlinePromote=)");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlineGroup=my.group\n",
                  "dl.conf: line 4: X-DeadlineGroup=my.group: not a group name (letters, digits, '_' and '-', at most 64)");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=50us\n",
                  "dl.conf: line 2: runtime 1ms, deadline 50us, period 50us: runtime is longer than the deadline");
        check_bad("[Service]\nX-DeadlineRuntime=10us\nX-DeadlinePeriod=50us\n",
                  "dl.conf: line 3: runtime 10us, deadline 50us, period 50us: period is shorter than the kernel's minimum of 100us");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=5s\n",
                  "dl.conf: line 3: runtime 1ms, deadline 5s, period 5s: period is longer than the kernel's maximum of 4194304us");
        check_bad("[Service]\nX-DeadlineRuntime\nX-DeadlinePeriod=10ms\n",
                  "dl.conf: line 2: X-DeadlineRuntime: missing '=' and a value");
        check_bad("[Service\nX-DeadlineRuntime=1ms\n",
                  "dl.conf: line 1: [Service: malformed section header");
        check_bad("X-DeadlineRuntime=1ms\n",
                  "dl.conf: line 1: X-DeadlineRuntime= belongs in the [Service] section, not [(none)]");
        check_bad("[Service]\nX-DeadlineRuntime=ms\nX-DeadlinePeriod=10ms\n",
                  "dl.conf: line 2: X-DeadlineRuntime=ms: not a time span (expected systemd syntax such as 2ms or 500us)");
        check_bad("[Service]\nX-DeadlineRuntime=1.5.5ms\nX-DeadlinePeriod=10ms\n",
                  "dl.conf: line 2: X-DeadlineRuntime=1.5.5ms: not a time span (expected systemd syntax such as 2ms or 500us)");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=infinity\n",
                  "dl.conf: line 3: X-DeadlinePeriod=infinity: not a time span (expected systemd syntax such as 2ms or 500us)");
        check_bad("[Service]\nX-DeadlineRuntime=99999999999999999999s\nX-DeadlinePeriod=10ms\n",
                  "dl.conf: line 2: X-DeadlineRuntime=99999999999999999999s: time span out of range (microsecond resolution, at most 584542 years)");
        check_bad("[Service]\nX-DeadlineRuntime=-0\nX-DeadlinePeriod=10ms\n",
                  "dl.conf: line 2: X-DeadlineRuntime=-0: not a time span (expected systemd syntax such as 2ms or 500us)");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms garbage\n",
                  "dl.conf: line 3: X-DeadlinePeriod=10ms garbage: not a time span (expected systemd syntax such as 2ms or 500us)");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlineDeadline=0\nX-DeadlinePeriod=10ms\n",
                  "dl.conf: line 3: X-DeadlineDeadline=0: must be greater than zero");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlineDeadline=500us\nX-DeadlinePeriod=10ms\n",
                  "dl.conf: line 2: runtime 1ms, deadline 500us, period 10ms: runtime is longer than the deadline");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=1h\n",
                  "dl.conf: line 3: runtime 1ms, deadline 1h, period 1h: period is longer than the kernel's maximum of 4194304us");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlineRuntime=\nX-DeadlinePeriod=10ms\n",
                  "dl.conf: line 4: X-DeadlineRuntime= is missing: a request needs a runtime and a period");
        check_bad("[Service]\nX-DeadlineGroup=media\n",
                  "dl.conf: line 2: X-DeadlineRuntime= is missing: a request needs a runtime and a period");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlineGroup="
                  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
                  "dl.conf: line 4: X-DeadlineGroup=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: "
                  "not a group name (letters, digits, '_' and '-', at most 64)");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlineGroup=a b\n",
                  "dl.conf: line 4: X-DeadlineGroup=a b: not a group name (letters, digits, '_' and '-', at most 64)");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlineGroup=\xc3\x84\n",
                  "dl.conf: line 4: X-DeadlineGroup=\xc3\x84: not a group name (letters, digits, '_' and '-', at most 64)");

#define NOT_A_COUNT "not a thread count (expected a number from 1 to 1024, or \"all\" for one per CPU)"
        check_bad_threads("0", "must be at least 1 (\"all\" for one per CPU)");
        check_bad_threads("000", "must be at least 1 (\"all\" for one per CPU)");
        check_bad_threads("-1", NOT_A_COUNT);
        check_bad_threads("+2", NOT_A_COUNT);
        check_bad_threads("two", NOT_A_COUNT);
        check_bad_threads("ALL", NOT_A_COUNT);
        check_bad_threads("All", NOT_A_COUNT);
        check_bad_threads("all2", NOT_A_COUNT);
        check_bad_threads("2 threads", NOT_A_COUNT);
        check_bad_threads("3x", NOT_A_COUNT);
        check_bad_threads("1.5", NOT_A_COUNT);
        check_bad_threads("0x10", NOT_A_COUNT);
        check_bad_threads("1e3", NOT_A_COUNT);
        check_bad_threads("\"3\"", NOT_A_COUNT);
        check_bad_threads("1025", "more than the limit of 1024 threads");
        check_bad_threads("4294967297", "more than the limit of 1024 threads");
        check_bad_threads("99999999999999999999999999", "more than the limit of 1024 threads");
        check_bad("[Service]\nX-DeadlineThreads=2\n",
                  "dl.conf: line 2: X-DeadlineRuntime= is missing: a request needs a runtime and a period");
        check_bad("[Unit]\nX-DeadlineThreads=2\n",
                  "dl.conf: line 2: X-DeadlineThreads= belongs in the [Service] section, not [Unit]");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlineThreads\n",
                  "dl.conf: line 4: X-DeadlineThreads: missing '=' and a value");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlineThread=2\n",
                  "dl.conf: line 4: unknown key X-DeadlineThread= (known: X-DeadlineRuntime=, X-DeadlinePeriod=, "
                  "X-DeadlineDeadline=, X-DeadlineGroup=, X-DeadlineThreads=, X-DeadlinePromote=)");


        /* X-DeadlinePromote= (nspawn machines and other delegated units, units/CONTAINERS.md). */
        check_promote("none", PROMOTE_NONE, "X-DeadlinePromote=none");
        check_promote("cgroup", PROMOTE_CGROUP, "X-DeadlinePromote=cgroup");
        check_promote("auto", PROMOTE_AUTO, "X-DeadlinePromote=auto");
        check_promote(" none ", PROMOTE_NONE, "X-DeadlinePromote= none , whitespace around");
        check_promote("none\nX-DeadlinePromote=", PROMOTE_AUTO, "an empty X-DeadlinePromote= resets to auto");
        check_promote("cgroup\nX-DeadlinePromote=none", PROMOTE_NONE, "a later X-DeadlinePromote= wins");
        {
                DeadlineRequest r;
                char *msg;

                is_int(parse_one("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\n", &r, &msg), 0, "no X-DeadlinePromote=");
                is_int(r.promote, PROMOTE_AUTO, "  promote is auto");
                free(msg);
                dropin_request_done(&r);
        }
        check_bad_promote("None");
        check_bad_promote("NONE");
        check_bad_promote("subtree");
        check_bad_promote("yes");
        check_bad_promote("no");
        check_bad_promote("0");
        check_bad_promote("1");
        check_bad_promote("true");
        check_bad_promote("cgroup none");
        check_bad_promote("none,cgroup");
        check_bad_promote("\"none\"");
        check_bad_promote("delegate");
        check_bad_promote("all");
        check_bad_promote("\xc3\x84");
        check_bad("[Service]\nX-DeadlinePromote=none\n",
                  "dl.conf: line 2: X-DeadlineRuntime= is missing: a request needs a runtime and a period");
        check_bad("[Unit]\nX-DeadlinePromote=none\n",
                  "dl.conf: line 2: X-DeadlinePromote= belongs in the [Service] section, not [Unit]");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlinePromote\n",
                  "dl.conf: line 4: X-DeadlinePromote: missing '=' and a value");
        check_bad("[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\nX-DeadlinePromotion=none\n",
                  "dl.conf: line 4: unknown key X-DeadlinePromotion= (known: X-DeadlineRuntime=, X-DeadlinePeriod=, "
                  "X-DeadlineDeadline=, X-DeadlineGroup=, X-DeadlineThreads=, X-DeadlinePromote=)");

        check_resolve(PROMOTE_AUTO, false, 0, PROMOTE_CGROUP, NULL);
        check_resolve(PROMOTE_AUTO, true, 0, PROMOTE_NONE, NULL);
        check_resolve(PROMOTE_NONE, false, 0, PROMOTE_NONE, NULL);
        check_resolve(PROMOTE_NONE, true, 0, PROMOTE_NONE, NULL);
        check_resolve(PROMOTE_CGROUP, false, 0, PROMOTE_CGROUP, NULL);
        check_resolve(PROMOTE_CGROUP, true, -EINVAL, 0, "X-DeadlinePromote=cgroup with Delegate=yes");
        check_resolve(_PROMOTE_MAX, false, -EINVAL, 0, "X-DeadlinePromote=?");
        is_str(dropin_promote_to_string(-1), "?", "an out-of-range value has no name");
        {
                static const struct { const char *v; bool want; } dv[] = {
                        { "yes", true }, { "YES", true }, { "true", true }, { "on", true }, { "1", true },
                        { "cpu", true }, { "cpu memory pids", true },
                        { "no", false }, { "No", false }, { "false", false }, { "off", false }, { "0", false }, { "", false },
                };

                for (size_t i = 0; i < ELEMENTSOF(dv); i++)
                        is_int(dropin_delegate_value(dv[i].v), dv[i].want, "Delegate=%s: %s", dv[i].v,
                               dv[i].want ? "delegated" : "not delegated");
        }

        /* The example drop-in for an nspawn machine parses. */
        {
                _cleanup_free_ char *text = NULL;
                DeadlineRequest r = {};
                DiagList d = {};

                is_int(fileio_read_config(UNITS_DIR "/examples/nspawn-machine-deadline.conf", &text, NULL), 0,
                       "units/examples/nspawn-machine-deadline.conf read");
                is_int(dropin_parse(&r, "nspawn-machine-deadline.conf", text ?: "", &d), 0, "  parses");
                is_int(dropin_finish(&r, &d), 0, "  is a valid request");
                ok(r.runtime_usec == 5000 && r.period_usec == 20000 && r.threads == 2, "  5ms every 20ms, 2 threads");
                is_int(r.promote, PROMOTE_AUTO, "  promote auto (none: the machine has Delegate=yes)");
                diag_list_done(&d);
                dropin_request_done(&r);
        }
        {
                DeadlineRequest r = { .runtime_usec = 2000, .period_usec = 10000 }, back;
                char *text;

                r.group = strdup("media");
                is_int(round_trip(&r, &back), 0, "formatted drop-in parses");
                ok(back.runtime_usec == 2000 && back.deadline_usec == 10000 && back.period_usec == 10000,
                   "formatted drop-in round-trips the times");
                is_str(back.group, "media", "formatted drop-in round-trips the group");
                is_int(back.threads, 1, "formatted drop-in: 1 thread when unset");
                dropin_request_done(&back);
                r.threads = DL_THREADS_ALL;
                is_int(round_trip(&r, &back), 0, "formatted drop-in with threads parses");
                is_int(back.threads, DL_THREADS_ALL, "formatted drop-in round-trips \"all\"");
                dropin_request_done(&back);
                r.promote = PROMOTE_NONE;
                is_int(round_trip(&r, &back), 0, "formatted drop-in with X-DeadlinePromote=none parses");
                is_int(back.promote, PROMOTE_NONE, "formatted drop-in round-trips promote none");
                dropin_request_done(&back);
                r.promote = PROMOTE_AUTO;
                text = dropin_format(&r);
                ok(text && !strstr(text, "X-DeadlinePromote"), "formatted drop-in: no X-DeadlinePromote= when auto");
                free(text);
                dropin_request_done(&r);
        }
        {
                DeadlineRequest a = { .runtime_usec = 2000, .period_usec = 20000, .threads = 3 }, b = a;
                _cleanup_free_ char *one = NULL, *all = NULL;

                ok(dropin_request_same(&a, &b), "same: equal requests");
                b.deadline_usec = 20000;
                ok(dropin_request_same(&a, &b), "same: an unset deadline is the period");
                b.runtime_usec = 1000;
                ok(!dropin_request_same(&a, &b), "not same: another runtime");
                b = a;
                b.threads = 2;
                ok(!dropin_request_same(&a, &b), "not same: another thread count");
                b = a;
                b.group = (char *) "media";
                ok(!dropin_request_same(&a, &b), "not same: a group named");
                b = a;
                b.promote = PROMOTE_NONE;
                ok(!dropin_request_same(&a, &b), "not same: X-DeadlinePromote=none");
                b.group = (char *) "media";
                one = dropin_request_describe(&b);
                is_str(one, "runtime 2ms, deadline 20ms, period 20ms, 3 threads, group media, X-DeadlinePromote=none",
                       "described for operators");
                a.threads = DL_THREADS_ALL;
                a.deadline_usec = 10000;
                all = dropin_request_describe(&a);
                is_str(all, "runtime 2ms, deadline 10ms, period 20ms, all threads", "all threads");
        }
        return tap_done();
}
