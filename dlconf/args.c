/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>

#include "admission.h"
#include "args.h"
#include "timespan.h"
#include "unitname.h"
#include "util.h"

const Verb args_verbs[] = {
        { "status", VERB_STATUS, 0, 0, VERB_JSON, "",
          "Show the system budget, the groups and their services",
          "Shows the deadline bandwidth of the system (the budget of each CPU, what is\n"
          "allocated and what is free), then each deadline group of the policy with its\n"
          "reservation, use and free share, and the services in it with their parameters.\n"
          "Bars and colours are drawn only on a terminal.\n" },
        { "list", VERB_LIST, 0, 0, VERB_JSON, "",
          "List the services dld follows",
          "Lists every service with a deadline request: its group, state (admitted,\n"
          "degraded, failed, pending), runtime/deadline/period and its threads.\n" },
        { "show", VERB_SHOW, 1, 1, VERB_JSON, "UNIT",
          "Show one service in detail",
          "Shows everything dld knows about UNIT, including why it was refused.\n" },
        { "check", VERB_CHECK, 1, UINT32_MAX, VERB_JSON | VERB_CPUS, "FILE...",
          "Validate a policy and predict verdicts, offline",
          "Reads policy files (*.json, merged in the order given) and unit files or\n"
          "drop-ins with X-Deadline* keys (any other name; each file is one service,\n"
          "named after the file or its directory UNIT.d/). Reports every mistake with\n"
          "its file and place, then, with the same admission model dld uses, which\n"
          "requests the policy would admit and which it would refuse, and why.\n"
          "Without a *.json file, the policy in /etc/dld/policies.d is used. System\n"
          "keys the policy does not set take this machine's values.\n"
          "Needs no daemon and changes nothing. Exit status 6 if a file is invalid,\n"
          "3 if a request would be refused.\n" },
        { "reload", VERB_RELOAD, 0, 0, 0, "",
          "Re-read and apply the policy directory",
          "Asks dld to re-read its policy directory and apply it, all or nothing (as\n"
          "SIGHUP does). If the new policy is invalid or the kernel refuses it, the\n"
          "previous policy stays in force and the reason is printed.\n" },
        { "admit", VERB_ADMIT, 1, 1, VERB_PARAMS, "UNIT --runtime TIME --period TIME [--deadline TIME] [--threads N|all]",
          "Admit a running unit by hand",
          "Reserves bandwidth for the running UNIT in the group of its slice and runs\n"
          "its threads under SCHED_DEADLINE, as a drop-in with X-DeadlineRuntime=,\n"
          "X-DeadlinePeriod=, X-DeadlineDeadline= and X-DeadlineThreads= would. TIME\n"
          "is a systemd time span (2ms, 500us, 1s). The deadline defaults to the\n"
          "period; the reservation holds --threads threads of that size (default 1,\n"
          "\"all\": one per CPU). Holds until 'dlconf release' or until the unit\n"
          "stops. Exit status 3 if refused.\n" },
        { "release", VERB_RELEASE, 1, 1, 0, "UNIT",
          "Release a unit's reservation by hand",
          "Moves UNIT's threads back to SCHED_OTHER and gives its bandwidth back to\n"
          "its group. It is not admitted again until it restarts.\n" },
        { "prepare", VERB_PREPARE, 1, 1, 0, "UNIT",
          "Admit a starting unit before its main process (ExecStartPre=)",
          "Run by the ExecStartPre= line that dlsched-generator adds to every unit\n"
          "with X-Deadline keys: asks dld to admit UNIT, which is starting, so that\n"
          "its cgroup's task template admits the main process as systemd attaches\n"
          "it. Runs itself as SCHED_BATCH, which templates leave alone. Prints dld's\n"
          "verdict; exits 0 even when dld is not running or refuses, so that the\n"
          "unit always starts (dld applies the group's on_refusal itself).\n" },
        { "help", VERB_HELP, 0, 1, 0, "[VERB]",
          "Show this help, or a verb's",
          "" },
        {}
};

static const Verb *verb_find(const char *name) {
        for (const Verb *v = args_verbs; v->name; v++)
                if (streq_ptr(v->name, name))
                        return v;
        return NULL;
}

void args_help(FILE *f, const Verb *verb) {
        if (verb) {
                fprintf(f, "dlconf %s%s%s\n\n%s.\n\n%s", verb->name, *verb->synopsis ? " " : "",
                        verb->synopsis, verb->summary, verb->help);
                fprintf(f, "\nOptions:\n");
                if (verb->flags & VERB_JSON)
                        fprintf(f, "      --json[=short|pretty]  Print JSON (field names are stable)\n");
                if (verb->flags & VERB_PARAMS)
                        fprintf(f,
                                "      --runtime=TIME         CPU time per period (required)\n"
                                "      --period=TIME          The period (required)\n"
                                "      --deadline=TIME        Relative deadline (default: the period)\n");
                if (verb->flags & VERB_CPUS)
                        fprintf(f, "      --cpus=N               Predict for N CPUs (default: this machine's)\n");
                fprintf(f,
                        "      --color=auto|always|never  Colour and bars (auto: on a terminal)\n"
                        "      --no-legend            Leave out headers and footers\n"
                        "  -h, --help                 Show this help\n");
                return;
        }

        fprintf(f,
                "dlconf [OPTIONS...] [VERB] [ARGS...]\n\n"
                "Inspect and control dld, the deadline bandwidth daemon.\n\n"
                "Verbs:\n");
        for (const Verb *v = args_verbs; v->name; v++)
                fprintf(f, "  %-9s %-20s %s\n", v->name,
                        v->flags & VERB_PARAMS ? "UNIT --runtime ..." : v->synopsis, v->summary);
        fprintf(f,
                "\nOptions:\n"
                "  -h, --help                 Show this help ('dlconf VERB --help' for a verb's)\n"
                "      --version              Show the version\n"
                "      --json[=short|pretty]  JSON output of the read verbs (status, list, show, check)\n"
                "      --color=auto|always|never  Colour and bars (auto: on a terminal)\n"
                "      --no-legend            Leave out headers and footers\n"
                "\nWithout a verb, 'status' is run. Exit status: 0 success, 1 failure, 2 usage,\n"
                "3 refused, 4 dld unreachable, 5 permission denied, 6 invalid policy or drop-in.\n"
                "See dlconf(8).\n");
}

int args_unit_name(const char *arg, char **ret, char **ret_error) {
        _cleanup_free_ char *name = NULL;

        *ret_error = NULL;
        if (!strchr(arg, '.')) {
                if (asprintf(&name, "%s.service", arg) < 0)
                        return -ENOMEM;
        } else if (!(name = strdup(arg)))
                return -ENOMEM;
        if (!unitname_is_valid(name))
                return errorf(ret_error, "'%s' is not a valid unit name", arg);
        *ret = TAKE_PTR(name);
        return 0;
}

static int parse_time_option(const char *name, const char *value, uint64_t *ret, char **ret_error) {
        int r = timespan_parse(value, ret);

        if (r == -ERANGE)
                return errorf(ret_error, "--%s=%s: time span out of range", name, value);
        if (r < 0)
                return errorf(ret_error, "--%s=%s: not a time span (systemd syntax such as 2ms, 500us, 1s)", name, value);
        if (*ret == 0)
                return errorf(ret_error, "--%s=%s: must be greater than zero", name, value);
        return 0;
}

enum {
        ARG_VERSION = 0x100,
        ARG_JSON,
        ARG_COLOR,
        ARG_NO_LEGEND,
        ARG_RUNTIME,
        ARG_DEADLINE,
        ARG_PERIOD,
        ARG_CPUS,
        ARG_THREADS,
};

int args_parse(int argc, char *argv[], DlconfArgs *ret, char **ret_error) {
        static const struct option options[] = {
                { "help",      no_argument,       NULL, 'h'           },
                { "version",   no_argument,       NULL, ARG_VERSION   },
                { "json",      optional_argument, NULL, ARG_JSON      },
                { "color",     required_argument, NULL, ARG_COLOR     },
                { "no-legend", no_argument,       NULL, ARG_NO_LEGEND },
                { "runtime",   required_argument, NULL, ARG_RUNTIME   },
                { "deadline",  required_argument, NULL, ARG_DEADLINE  },
                { "period",    required_argument, NULL, ARG_PERIOD    },
                { "cpus",      required_argument, NULL, ARG_CPUS      },
                { "threads",   required_argument, NULL, ARG_THREADS   },
                {}
        };
        DlconfArgs a = {};
        const char *verb_name;
        int c, r;

        *ret_error = NULL;
        /* Reentrant use (tests): restart getopt from scratch, messages are ours. */
        optind = 0;
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":h", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        a.help = true;
                        break;
                case ARG_VERSION:
                        a.version = true;
                        break;
                case ARG_JSON:
                        if (!optarg || streq_ptr(optarg, "short"))
                                a.json = JSON_SHORT;
                        else if (streq_ptr(optarg, "pretty"))
                                a.json = JSON_PRETTY;
                        else
                                return errorf(ret_error, "--json=%s: expected short or pretty", optarg);
                        break;
                case ARG_COLOR:
                        if (streq_ptr(optarg, "auto"))
                                a.color = COLOR_AUTO;
                        else if (streq_ptr(optarg, "always"))
                                a.color = COLOR_ALWAYS;
                        else if (streq_ptr(optarg, "never"))
                                a.color = COLOR_NEVER;
                        else
                                return errorf(ret_error, "--color=%s: expected auto, always or never", optarg);
                        break;
                case ARG_NO_LEGEND:
                        a.no_legend = true;
                        break;
                case ARG_RUNTIME:
                        r = parse_time_option("runtime", optarg, &a.runtime_usec, ret_error);
                        if (r < 0)
                                return r;
                        a.have_runtime = true;
                        break;
                case ARG_DEADLINE:
                        r = parse_time_option("deadline", optarg, &a.deadline_usec, ret_error);
                        if (r < 0)
                                return r;
                        a.have_deadline = true;
                        break;
                case ARG_PERIOD:
                        r = parse_time_option("period", optarg, &a.period_usec, ret_error);
                        if (r < 0)
                                return r;
                        a.have_period = true;
                        break;
                case ARG_CPUS: {
                        char *end;
                        unsigned long n;

                        errno = 0;
                        n = strtoul(optarg, &end, 10);
                        if (errno || end == optarg || *end || n < 1 || n > 8192 || optarg[0] == '-')
                                return errorf(ret_error, "--cpus=%s: expected a number of CPUs from 1 to 8192", optarg);
                        a.cpus = n;
                        break;
                }
                case ARG_THREADS: {
                        char *end;
                        unsigned long n;

                        /* As X-DeadlineThreads=: 1 to 1024, or "all" (0 on the bus). */
                        errno = 0;
                        n = streq_ptr(optarg, "all") ? 0 : strtoul(optarg, &end, 10);
                        if (!streq_ptr(optarg, "all") &&
                            (errno || end == optarg || *end || !isdigit((unsigned char) optarg[0]) || n < 1 || n > DL_THREADS_MAX))
                                return errorf(ret_error, "--threads=%s: expected a number of threads from 1 to %u, or all",
                                              optarg, DL_THREADS_MAX);
                        a.threads = n;
                        a.have_threads = true;
                        break;
                }
                case ':':
                        return errorf(ret_error, "option %s needs a value", argv[optind - 1]);
                case '?':
                default:
                        if (optopt)
                                return errorf(ret_error, "unknown option -%c", optopt);
                        return errorf(ret_error, "unknown option %s", argv[optind - 1]);
                }
        }

        if (a.version) {
                *ret = a;
                return 0;
        }

        verb_name = optind < argc ? argv[optind++] : NULL;
        if (!verb_name)
                a.verb = a.help ? NULL : verb_find("status");
        else if (!(a.verb = verb_find(verb_name)))
                return errorf(ret_error, "unknown verb '%s' (see dlconf --help)", verb_name);

        a.args = argv + optind;
        a.n_args = argc - optind;

        if (a.verb && a.verb->id == VERB_HELP) {
                /* "dlconf help VERB" is "dlconf VERB --help". */
                a.help = true;
                if (a.n_args > 1)
                        return errorf(ret_error, "help: takes at most one verb");
                a.verb = NULL;
                if (a.n_args == 1 && !(a.verb = verb_find(a.args[0])))
                        return errorf(ret_error, "help: unknown verb '%s'", a.args[0]);
                a.n_args = 0;
        }
        if (a.help) {
                *ret = a;
                return 0;
        }

        if (a.n_args < a.verb->min_args)
                return errorf(ret_error, "%s: missing argument %s", a.verb->name, a.verb->synopsis);
        if (a.n_args > a.verb->max_args)
                return errorf(ret_error, "%s: unexpected argument '%s'", a.verb->name, a.args[a.verb->max_args]);
        if (a.json != JSON_OFF && !(a.verb->flags & VERB_JSON))
                return errorf(ret_error, "%s: --json applies only to status, list, show and check", a.verb->name);
        if ((a.have_runtime || a.have_deadline || a.have_period || a.have_threads) && !(a.verb->flags & VERB_PARAMS))
                return errorf(ret_error, "%s: --runtime, --period, --deadline and --threads apply only to admit", a.verb->name);
        if (a.cpus && !(a.verb->flags & VERB_CPUS))
                return errorf(ret_error, "%s: --cpus applies only to check", a.verb->name);

        if (a.verb->flags & VERB_PARAMS) {
                const char *problem;

                if (!a.have_runtime)
                        return errorf(ret_error, "%s: --runtime=TIME is required", a.verb->name);
                if (!a.have_period)
                        return errorf(ret_error, "%s: --period=TIME is required", a.verb->name);
                /* The kernel's own rule (runtime <= deadline <= period, ranges):
                 * say it here rather than after a round trip. */
                problem = admission_task_params_problem(a.runtime_usec,
                                                        a.have_deadline ? a.deadline_usec : a.period_usec,
                                                        a.period_usec);
                if (problem)
                        return errorf(ret_error, "%s: %s", a.verb->name, problem);
        }

        *ret = a;
        return 0;
}
