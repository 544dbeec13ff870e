/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dlconf: the operator's command line for dld. Thin: argument parsing
 * (args.c), D-Bus calls (client.c) and output (format.c, check.c) live in
 * their own modules; this file has the verbs and their dispatch table. */

#include <sched.h>
#include <glob.h>

#include "args.h"
#include "check.h"
#include "client.h"
#include "container.h"
#include "dlsched/dld-bus.h"
#include "format.h"
#include "policy.h"
#include "util.h"

#define DLCONF_VERSION "0.1"
#define DEFAULT_POLICY_GLOB "/etc/dld/policies.d/*.json"

static void log_error(const char *fmt, ...) _printf_(1, 2);
static void log_error(const char *fmt, ...) {
        va_list ap;

        fputs("dlconf: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}

static bool use_color(const DlconfArgs *a) {
        const char *term = getenv("TERM");

        if (a->color != COLOR_AUTO)
                return a->color == COLOR_ALWAYS;
        if (getenv("NO_COLOR"))
                return false;
        return isatty(STDOUT_FILENO) && term && strcmp(term, "dumb") != 0;
}

static FormatOptions format_options(const DlconfArgs *a) {
        bool c = use_color(a);

        /* Bars need the same terminal that colours do. */
        return (FormatOptions) { .color = c, .bars = c, .legend = !a->no_legend };
}

/* Reports a failed bus call and returns the exit status for it. */
static int bus_failure(const char *what, const sd_bus_error *error, int r) {
        _cleanup_free_ char *msg = client_error_message(error->name, error->message, r);

        log_error("%s%s%s", what ?: "", what ? ": " : "", msg ?: "out of memory");
        return client_exit_status(error->name, r);
}

static int print_json(char *text) {
        if (!text) {
                log_error("out of memory");
                return EXIT_DLCONF_FAILURE;
        }
        fputs(text, stdout);
        free(text);
        return EXIT_DLCONF_OK;
}

/* Each verb takes the command line and what dispatch_verb() set up for it
 * (the needs of its entry in verbs[] below): the bus, NULL if it needs
 * none; unit, args[0] as a unit name, NULL if it needs none (or for show,
 * an argument that is no unit name but may name a container). */

static int status_or_list(const DlconfArgs *a, sd_bus *bus, bool status) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        DlconfState s = {};
        FormatOptions o = format_options(a);
        int r, ret;

        r = client_get_state(bus, &s, &error);
        if (r < 0)
                return bus_failure(NULL, &error, r);
        if (a->json != JSON_OFF)
                ret = print_json(status ? format_status_json(&s, a->json) : format_list_json(&s, a->json));
        else {
                if (status)
                        format_status(stdout, &s, &o);
                else
                        format_list(stdout, &s, &o);
                ret = EXIT_DLCONF_OK;
        }
        state_done(&s);
        return ret;
}

static int verb_status(const DlconfArgs *a, sd_bus *bus, const char *unit) {
        (void) unit;
        return status_or_list(a, bus, true);
}

static int verb_list(const DlconfArgs *a, sd_bus *bus, const char *unit) {
        (void) unit;
        return status_or_list(a, bus, false);
}

/* A container is named by the argument itself, its name or ID. */
static int verb_show(const DlconfArgs *a, sd_bus *bus, const char *unit) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        DlconfService svc = {};
        FormatOptions o = format_options(a);
        int r = -ENOENT, ret = EXIT_DLCONF_OK;

        if (unit)
                r = client_get_service(bus, unit, &svc, &error);
        if ((!unit || (r < 0 && sd_bus_error_has_name(&error, DLD_ERROR_NO_SUCH_SERVICE))) &&
            !streq_ptr(unit, a->args[0])) {
                _cleanup_(sd_bus_error_free) sd_bus_error e2 = SD_BUS_ERROR_NULL;
                int k = client_get_service(bus, a->args[0], &svc, &e2);

                /* Not a container either: the unit's error says it best. */
                if (k >= 0 || !unit) {
                        sd_bus_error_free(&error);
                        error = e2;
                        e2 = SD_BUS_ERROR_NULL;
                        r = k;
                }
        }
        if (r < 0)
                return bus_failure(unit ?: a->args[0], &error, r);
        if (a->json != JSON_OFF)
                ret = print_json(format_show_json(&svc, a->json));
        else
                format_show(stdout, &svc, &o);
        state_service_done(&svc);
        return ret;
}

static void check_files_done(CheckFile *files, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free((char *) files[i].path);
                free((char *) files[i].text);
        }
        free(files);
}

static int check_file_add(CheckFile **files, size_t *n, const char *path) {
        _cleanup_free_ char *text = NULL, *p = NULL;
        CheckFile *nf;
        size_t size = 0;
        int r;

        /* A file that is there but not fit to be read (a FIFO, a device, too
         * large) is a problem of the configuration, reported with the rest. */
        r = fileio_read_config(path, &text, &size);
        if (r < 0 && r != -EBADFD && r != -EFBIG && r != -EISDIR) {
                log_error("check: %s: %s", path, strerror(-r));
                return r;
        }
        p = strdup(path);
        nf = p ? realloc(*files, (*n + 1) * sizeof(CheckFile)) : NULL;
        if (!nf) {
                log_error("out of memory");
                return -ENOMEM;
        }
        *files = nf;
        nf[(*n)++] = (CheckFile) { .path = TAKE_PTR(p), .text = TAKE_PTR(text), .size = size,
                                   .read_error = r };
        return 0;
}

/* A knob of this machine, or the kernel default when it cannot be read. */
static int64_t read_knob(const char *name, int64_t fallback) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        long long v;

        if (asprintf(&path, "/proc/sys/kernel/%s", name) < 0 || fileio_read_full(path, &text, NULL) < 0 ||
            sscanf(text, "%lld", &v) != 1)
                return fallback;
        return v;
}

static int verb_check(const DlconfArgs *a, sd_bus *bus, const char *unit) {
        CheckFile *files = NULL;
        size_t n = 0;
        bool have_policy = false;
        CheckResult res = {};
        SystemBudget current = {
                .dl_runtime_us = read_knob("sched_dl_runtime_us", DL_DEFAULT_RUNTIME_US),
                .dl_period_us = read_knob("sched_dl_period_us", DL_DEFAULT_PERIOD_US),
                .rt_runtime_us = read_knob("sched_rt_runtime_us", RT_DEFAULT_RUNTIME_US),
                .rt_period_us = read_knob("sched_rt_period_us", RT_DEFAULT_PERIOD_US),
        };
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        int r, ret;

        (void) bus, (void) unit;
        for (unsigned i = 0; i < a->n_args; i++)
                if (strlen(a->args[i]) > 5 && strcmp(a->args[i] + strlen(a->args[i]) - 5, ".json") == 0)
                        have_policy = true;
        if (!have_policy) {
                glob_t g = {};

                if (glob(DEFAULT_POLICY_GLOB, 0, NULL, &g) == 0)
                        for (size_t i = 0; i < g.gl_pathc; i++)
                                if (check_file_add(&files, &n, g.gl_pathv[i]) < 0) {
                                        globfree(&g);
                                        check_files_done(files, n);
                                        return EXIT_DLCONF_FAILURE;
                                }
                globfree(&g);
        }
        for (unsigned i = 0; i < a->n_args; i++)
                if (check_file_add(&files, &n, a->args[i]) < 0) {
                        check_files_done(files, n);
                        return EXIT_DLCONF_FAILURE;
                }

        r = check_files(&res, files, n, a->cpus ?: (unsigned) (online > 0 ? online : 1), &current);
        check_files_done(files, n);
        if (r < 0) {
                check_result_done(&res);
                log_error("check: %s", strerror(-r));
                return EXIT_DLCONF_FAILURE;
        }
        if (a->json != JSON_OFF)
                ret = print_json(check_format_json(&res, a->json));
        else {
                check_format(stdout, &res, use_color(a));
                ret = EXIT_DLCONF_OK;
        }
        if (ret == EXIT_DLCONF_OK)
                ret = check_exit_status(&res);
        check_result_done(&res);
        return ret;
}

static int verb_reload(const DlconfArgs *a, sd_bus *bus, const char *unit) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        (void) a, (void) unit;
        r = client_reload(bus, &error);
        return r < 0 ? bus_failure("reload", &error, r) : EXIT_DLCONF_OK;
}

static int verb_admit(const DlconfArgs *a, sd_bus *bus, const char *unit) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = client_admit(bus, unit, a->runtime_usec, a->have_deadline ? a->deadline_usec : 0,
                         a->period_usec, a->have_threads ? a->threads : 1, &error);
        return r < 0 ? bus_failure(unit, &error, r) : EXIT_DLCONF_OK;
}

static int verb_release(const DlconfArgs *a, sd_bus *bus, const char *unit) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        (void) a;
        r = client_release(bus, unit, &error);
        return r < 0 ? bus_failure(unit, &error, r) : EXIT_DLCONF_OK;
}

/* From the unit's ExecStartPre=: never fails the unit. It runs in the
 * unit's cgroup, whose template is about to admit every SCHED_NORMAL task
 * there: as SCHED_BATCH it is not one of the unit's tasks. */
static int verb_prepare(const DlconfArgs *a, sd_bus *bus, const char *unit) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *own = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *state = NULL, *reason = NULL, *msg = NULL;
        const char *invocation = getenv("INVOCATION_ID");
        int r;

        (void) a, (void) bus;
        (void) sched_setscheduler(0, SCHED_BATCH, &(struct sched_param) {});
        r = client_open(&own);
        if (r >= 0)
                r = client_prepare(own, unit, invocation ?: "", &state, &reason, &error);
        if (r < 0) {
                msg = client_error_message(error.name, error.message, r);
                printf("%s: not admitted before its start (%s): it starts as a normal service\n", unit,
                       msg ?: "out of memory");
                return EXIT_DLCONF_OK;
        }
        printf("%s: %s%s%s\n", unit, state, *reason ? ": " : "", reason);
        return EXIT_DLCONF_OK;
}

/* What dispatch_verb() sets up before a verb runs. */
enum {
        NEEDS_UNIT = 1 << 0,            /* args[0] as a unit name ("foo" is foo.service) */
        UNIT_OR_CONTAINER = 1 << 1,     /* with NEEDS_UNIT: or else a container's name or ID */
        NEEDS_BUS = 1 << 2,             /* a connection to the system bus */
};

typedef struct VerbDispatch {
        unsigned needs;
        int (*run)(const DlconfArgs *a, sd_bus *bus, const char *unit);
} VerbDispatch;

/* What each verb of args.c's table runs. The functions are here and not
 * in that table, which would make args.c (the pure parser the tests link)
 * depend on this file; indexed by VerbId, so that no name is spelt twice.
 * "help" has no entry: the parser turns it into --help. */
static const VerbDispatch verbs[_VERB_ID_MAX] = {
        [VERB_STATUS]  = { NEEDS_BUS,                                  verb_status  },
        [VERB_LIST]    = { NEEDS_BUS,                                  verb_list    },
        [VERB_SHOW]    = { NEEDS_UNIT | UNIT_OR_CONTAINER | NEEDS_BUS, verb_show    },
        [VERB_CHECK]   = { 0,                                          verb_check   },
        [VERB_RELOAD]  = { NEEDS_BUS,                                  verb_reload  },
        [VERB_ADMIT]   = { NEEDS_UNIT | NEEDS_BUS,                     verb_admit   },
        [VERB_RELEASE] = { NEEDS_UNIT | NEEDS_BUS,                     verb_release },
        [VERB_PREPARE] = { NEEDS_UNIT,                                 verb_prepare },
};

/* Runs a->verb; returns the exit status. The unit argument is checked
 * before the bus is opened: a bad one is a usage error (exit 2) even
 * where dld cannot be reached. */
static int dispatch_verb(const DlconfArgs *a) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *unit = NULL, *msg = NULL;
        const VerbDispatch *d = a->verb->id < ELEMENTSOF(verbs) ? &verbs[a->verb->id] : NULL;
        int r;

        if (!d || !d->run)
                return EXIT_DLCONF_FAILURE;

        if (d->needs & NEEDS_UNIT) {
                r = args_unit_name(a->args[0], &unit, &msg);
                if (r == -EINVAL && (d->needs & UNIT_OR_CONTAINER) && container_name_is_valid(a->args[0]))
                        r = 0;          /* a container's name or ID, perhaps */
                if (r < 0) {
                        log_error("%s: %s", a->verb->name, msg ?: "out of memory");
                        return EXIT_DLCONF_USAGE;
                }
        }

        if (d->needs & NEEDS_BUS) {
                r = client_open(&bus);
                if (r < 0) {
                        log_error("cannot connect to the system bus: %s", strerror(-r));
                        return EXIT_DLCONF_UNREACHABLE;
                }
        }

        return d->run(a, bus, unit);
}

int main(int argc, char *argv[]) {
        _cleanup_free_ char *error = NULL;
        DlconfArgs a;
        int r;

        r = args_parse(argc, argv, &a, &error);
        if (r < 0) {
                log_error("%s", error ?: "out of memory");
                return EXIT_DLCONF_USAGE;
        }
        if (a.version) {
                printf("dlconf %s\n", DLCONF_VERSION);
                return EXIT_DLCONF_OK;
        }
        if (a.help) {
                args_help(stdout, a.verb);
                return EXIT_DLCONF_OK;
        }
        return dispatch_verb(&a);
}
