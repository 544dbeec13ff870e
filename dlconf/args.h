/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* dlconf's command line: the verb table and option parsing. Pure: no I/O
 * besides writing help text to a FILE the caller gives. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes (documented in dlconf(8)). */
enum {
        EXIT_DLCONF_OK = 0,
        EXIT_DLCONF_FAILURE = 1,        /* anything else: no such unit, apply failed, ... */
        EXIT_DLCONF_USAGE = 2,          /* bad command line */
        EXIT_DLCONF_REFUSED = 3,        /* a request was (or would be) refused */
        EXIT_DLCONF_UNREACHABLE = 4,    /* dld or the system bus cannot be reached */
        EXIT_DLCONF_PERMISSION = 5,     /* not allowed (dld answers root only) */
        EXIT_DLCONF_INVALID = 6,        /* a policy or drop-in is invalid */
        EXIT_DLCONF_NO_ANSWER = 7,      /* dld is on the bus but did not answer in time */
};

typedef enum VerbId {
        VERB_STATUS,
        VERB_LIST,
        VERB_SHOW,
        VERB_CHECK,
        VERB_RELOAD,
        VERB_ADMIT,
        VERB_RELEASE,
        VERB_PREPARE,
        VERB_HELP,
        _VERB_ID_MAX,
} VerbId;

/* What a verb accepts besides its positional arguments. */
enum {
        VERB_JSON = 1 << 0,             /* --json: it is a read verb */
        VERB_PARAMS = 1 << 1,           /* --runtime/--period/--deadline */
        VERB_CPUS = 1 << 2,             /* --cpus */
};

typedef struct Verb {
        const char *name;
        VerbId id;
        unsigned min_args, max_args;
        unsigned flags;
        const char *synopsis;           /* positional arguments */
        const char *summary;            /* one line, for the verb table */
        const char *help;               /* the rest of "dlconf VERB --help" */
} Verb;

/* Every verb, up to an entry with a NULL name. What each one runs is
 * dlconf.c's: this table is the parser's and the help's. */
extern const Verb args_verbs[];

typedef enum ColorMode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorMode;
typedef enum JsonMode { JSON_OFF, JSON_SHORT, JSON_PRETTY } JsonMode;

typedef struct DlconfArgs {
        const Verb *verb;
        char **args;                    /* positional arguments after the verb (borrowed from argv) */
        unsigned n_args;
        bool help;                      /* --help: print the verb's help (or the general one) */
        bool version;
        JsonMode json;
        ColorMode color;
        bool no_legend;
        /* admit */
        bool have_runtime, have_deadline, have_period, have_threads;
        uint64_t runtime_usec, deadline_usec, period_usec;
        uint32_t threads;               /* as on the bus: 0 is "all"; default 1 */
        /* check */
        unsigned cpus;                  /* 0: this machine's */
} DlconfArgs;

/* Parses argv (reordering it, as getopt does). On error returns -EINVAL and
 * sets *ret_error to one line saying what is wrong (caller frees); -ENOMEM
 * if that line cannot be allocated. */
int args_parse(int argc, char *argv[], DlconfArgs *ret, char **ret_error);

/* A unit name from the command line: "foo" means "foo.service", as in
 * systemctl. Returns 0, -EINVAL (with *ret_error set) or -ENOMEM. */
int args_unit_name(const char *arg, char **ret, char **ret_error);

/* "dlconf --help" (verb NULL) or "dlconf VERB --help". */
void args_help(FILE *f, const Verb *verb);
