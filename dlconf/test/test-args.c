/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dlconf's command line: verbs, options, and every refusal with its message. */
#include "args.h"
#include "tap.h"
#include "util.h"

/* Parses a space-separated command line; returns the parse result. */
static int parse(const char *cmdline, DlconfArgs *a, char **error) {
        static char buf[512];
        static char *argv[32];
        int argc = 0;

        snprintf(buf, sizeof(buf), "%s", cmdline);
        argv[argc++] = (char *) "dlconf";
        for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
                argv[argc++] = t;
        argv[argc] = NULL;
        return args_parse(argc, argv, a, error);
}

static void accepts(const char *cmdline, VerbId verb, unsigned n_args) {
        _cleanup_free_ char *error = NULL;
        DlconfArgs a;
        int r = parse(cmdline, &a, &error);

        if (!ok(r == 0 && a.verb && a.verb->id == verb && a.n_args == n_args, "accepts '%s'", cmdline))
                printf("#   r=%d error=%s\n", r, error ?: "(none)");
}

static void refuses(const char *cmdline, const char *message) {
        _cleanup_free_ char *error = NULL;
        DlconfArgs a;
        int r = parse(cmdline, &a, &error);

        ok(r == -EINVAL, "refuses '%s'", cmdline);
        is_str(error, message, "  with: %s", message);
}

static void test_verbs(void) {
        _cleanup_free_ char *error = NULL;
        DlconfArgs a;

        accepts("", VERB_STATUS, 0);
        accepts("status", VERB_STATUS, 0);
        accepts("status --json", VERB_STATUS, 0);
        accepts("list --json=pretty --no-legend", VERB_LIST, 0);
        accepts("show media.service", VERB_SHOW, 1);
        accepts("show --json media", VERB_SHOW, 1);
        accepts("check a.json b.conf c.service", VERB_CHECK, 3);
        accepts("check --cpus=8 a.json", VERB_CHECK, 1);
        accepts("reload", VERB_RELOAD, 0);
        accepts("release media", VERB_RELEASE, 1);
        accepts("--color=never status", VERB_STATUS, 0);

        is_int(parse("admit media --runtime 2ms --period=10ms --deadline 5ms", &a, &error), 0, "admit with all three");
        ok(a.have_runtime && a.have_period && a.have_deadline, "  all three seen");
        is_int(a.runtime_usec, 2000, "  runtime 2ms = 2000us");
        is_int(a.deadline_usec, 5000, "  deadline 5ms = 5000us");
        is_int(a.period_usec, 10000, "  period 10ms = 10000us");
        is_str(a.args[0], "media", "  unit argument kept (options may follow it)");

        is_int(parse("admit media --runtime=500us --period=1s", &a, &error), 0, "admit without deadline");
        ok(!a.have_deadline, "  deadline not given");
        is_int(a.period_usec, 1000000, "  period 1s");
        ok(!a.have_threads, "  threads not given");

        is_int(parse("admit media --runtime=1ms --period=10ms --threads=3", &a, &error), 0, "admit --threads=3");
        ok(a.have_threads && a.threads == 3, "  3 threads");
        is_int(parse("admit media --runtime=1ms --period=10ms --threads all", &a, &error), 0, "admit --threads all");
        ok(a.have_threads && a.threads == 0, "  all: 0 on the bus");

        is_int(parse("status --json", &a, &error), 0, "--json");
        is_int(a.json, JSON_SHORT, "  --json is short");
        is_int(parse("status --json=pretty", &a, &error), 0, "--json=pretty");
        is_int(a.json, JSON_PRETTY, "  pretty");
        is_int(parse("check --cpus=8 x.json", &a, &error), 0, "--cpus");
        is_int(a.cpus, 8, "  8 CPUs");
}

static void test_help(void) {
        _cleanup_free_ char *error = NULL, *text = NULL;
        size_t size;
        DlconfArgs a;
        FILE *f;

        is_int(parse("--help", &a, &error), 0, "--help");
        ok(a.help && !a.verb, "  general help");
        is_int(parse("admit --help", &a, &error), 0, "admit --help (no arguments needed)");
        ok(a.help && a.verb && a.verb->id == VERB_ADMIT, "  admit's help");
        is_int(parse("help show", &a, &error), 0, "help show");
        ok(a.help && a.verb && a.verb->id == VERB_SHOW, "  show's help");
        is_int(parse("help", &a, &error), 0, "help");
        ok(a.help && !a.verb, "  general help");
        is_int(parse("--version", &a, &error), 0, "--version");
        ok(a.version, "  version");

        /* Every verb's help names it and its options. */
        for (const Verb *v = args_verbs; v->name; v++) {
                f = open_memstream(&text, &size);
                args_help(f, v);
                fclose(f);
                ok(strncmp(text, "dlconf ", 7) == 0 && strstr(text, v->name) && strstr(text, "--help"),
                   "help of %s", v->name);
                ok(!(v->flags & VERB_JSON) == !strstr(text, "--json"), "  mentions --json iff it takes it");
                free(text);
                text = NULL;
        }
        f = open_memstream(&text, &size);
        args_help(f, NULL);
        fclose(f);
        for (const Verb *v = args_verbs; v->name; v++)
                ok(strstr(text, v->name) != NULL, "general help lists %s", v->name);
        ok(strstr(text, "4 dld unreachable") != NULL, "general help lists the exit codes");
}

static void test_refusals(void) {
        refuses("bogus", "unknown verb 'bogus' (see dlconf --help)");
        refuses("--bogus", "unknown option --bogus");
        refuses("-x", "unknown option -x");
        refuses("show", "show: missing argument UNIT");
        refuses("show a b", "show: unexpected argument 'b'");
        refuses("status extra", "status: unexpected argument 'extra'");
        refuses("check", "check: missing argument FILE...");
        refuses("release", "release: missing argument UNIT");
        refuses("reload --json", "reload: --json applies only to status, list, show and check");
        refuses("admit x --runtime=1ms --period=2ms --json", "admit: --json applies only to status, list, show and check");
        refuses("status --json=yaml", "--json=yaml: expected short or pretty");
        refuses("status --color=sometimes", "--color=sometimes: expected auto, always or never");
        refuses("status --color", "option --color needs a value");
        refuses("status --runtime=1ms", "status: --runtime, --period, --deadline and --threads apply only to admit");
        refuses("status --threads=2", "status: --runtime, --period, --deadline and --threads apply only to admit");
        refuses("admit x --runtime=1ms --period=10ms --threads=0", "--threads=0: expected a number of threads from 1 to 1024, or all");
        refuses("admit x --runtime=1ms --period=10ms --threads=1025", "--threads=1025: expected a number of threads from 1 to 1024, or all");
        refuses("admit x --runtime=1ms --period=10ms --threads=-2", "--threads=-2: expected a number of threads from 1 to 1024, or all");
        refuses("admit x --runtime=1ms --period=10ms --threads=ALL", "--threads=ALL: expected a number of threads from 1 to 1024, or all");
        refuses("admit x --runtime=1ms --period=10ms --threads=3x", "--threads=3x: expected a number of threads from 1 to 1024, or all");
        refuses("admit x --runtime=1ms --period=10ms --threads=", "--threads=: expected a number of threads from 1 to 1024, or all");
        refuses("status --cpus=2", "status: --cpus applies only to check");
        refuses("check --cpus=0 a.json", "--cpus=0: expected a number of CPUs from 1 to 8192");
        refuses("check --cpus=-1 a.json", "--cpus=-1: expected a number of CPUs from 1 to 8192");
        refuses("check --cpus=4x a.json", "--cpus=4x: expected a number of CPUs from 1 to 8192");
        refuses("admit x --period=10ms", "admit: --runtime=TIME is required");
        refuses("admit x --runtime=1ms", "admit: --period=TIME is required");
        refuses("admit --runtime=1ms --period=10ms", "admit: missing argument UNIT --runtime TIME --period TIME [--deadline TIME] [--threads N|all]");
        refuses("admit x --runtime=fast --period=10ms", "--runtime=fast: not a time span (systemd syntax such as 2ms, 500us, 1s)");
        refuses("admit x --runtime=0 --period=10ms", "--runtime=0: must be greater than zero");
        refuses("admit x --runtime=1ms --period=-5ms", "--period=-5ms: not a time span (systemd syntax such as 2ms, 500us, 1s)");
        refuses("admit x --runtime=1ms --period=99999999999999999999s", "--period=99999999999999999999s: time span out of range");
        refuses("admit x --runtime=1ms --period=10ms --deadline=", "--deadline=: not a time span (systemd syntax such as 2ms, 500us, 1s)");
        refuses("admit x --runtime=20ms --period=10ms", "admit: runtime is longer than the deadline");
        refuses("admit x --runtime=1ms --deadline=20ms --period=10ms", "admit: deadline is longer than the period");
        refuses("admit x --runtime=1ms --deadline=2ms --period=10s", "admit: period is longer than the kernel's maximum of 4194304us");
        refuses("admit x --runtime=10us --deadline=50us --period=50us", "admit: period is shorter than the kernel's minimum of 100us");
        refuses("help bogus", "help: unknown verb 'bogus'");
        refuses("help a b", "help: takes at most one verb");
}

static void test_unit_names(void) {
        struct { const char *arg, *want; } good[] = {
                { "media", "media.service" },
                { "media.service", "media.service" },
                { "demo@1.service", "demo@1.service" },
                { "deadline-media.slice", "deadline-media.slice" },
        };
        const char *bad[] = { "", "a/b", "foo.nosuchtype", "bad name" };

        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                _cleanup_free_ char *name = NULL, *error = NULL;
                is_int(args_unit_name(good[i].arg, &name, &error), 0, "unit name '%s'", good[i].arg);
                is_str(name, good[i].want, "  is %s", good[i].want);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_free_ char *name = NULL, *error = NULL, *want = NULL;
                is_int(args_unit_name(bad[i], &name, &error), -EINVAL, "bad unit name '%s'", bad[i]);
                ok(asprintf(&want, "'%s' is not a valid unit name", bad[i]) > 0, "  (message)");
                is_str(error, want, "  says so");
        }
}

int main(void) {
        tap_begin();
        test_verbs();
        test_help();
        test_refusals();
        test_unit_names();
        return tap_done();
}
