/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* "dlconf check": validates a policy and service requests offline and
 * predicts, with dld's admission model (dld/admission.h) and the policy's
 * limits, which requests would be admitted. Pure: the caller reads the
 * files. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "args.h"
#include "diag.h"
#include "policy.h"
#include "predict.h"

typedef struct CheckFile {
        const char *path;       /* *.json: policy; anything else: unit file or drop-in */
        const char *text;       /* NULL when it could not be read */
        size_t size;            /* 0: strlen(text) */
        int read_error;         /* why not (fileio_read_config()), reported as a problem */
} CheckFile;

typedef struct CheckVerdict {
        char *unit;
        char *group;            /* NULL: none found */
        bool admitted;
        RefusedBy refused_by;
        char *reason;           /* why refused (NULL when admitted) */
        uint64_t runtime_usec, deadline_usec, period_usec;
        unsigned threads;       /* X-DeadlineThreads=, DL_THREADS_ALL for "all" */
        uint64_t reserved;      /* bandwidth the unit's cgroup would reserve, on all CPUs */
} CheckVerdict;

typedef struct CheckResult {
        unsigned cpus;
        Policy policy;          /* merged and validated (when valid) */
        bool policy_valid;
        size_t n_policy_files;
        DiagList diags;         /* every problem, in file order */
        CheckVerdict *verdicts; /* computed only for a valid policy */
        size_t n_verdicts;
        size_t n_refused;
} CheckResult;

void check_result_done(CheckResult *r);

/* Runs the check: policy files merge in the order given; requests are
 * admitted in the order of their units' first file, each named after its
 * file (the directory for ".../UNIT.d/x.conf", else the file name:
 * "x.service"; "x.conf" becomes "x.service"), in the slice that the last
 * Slice= of a [Service] section of its files names. current supplies the
 * system keys the policy does not set. Returns 0 or -ENOMEM; problems and
 * verdicts are in ret. */
int check_files(CheckResult *ret, const CheckFile *files, size_t n_files, unsigned cpus,
                const SystemBudget *current);

/* Exit status for the result: 0, EXIT_DLCONF_INVALID or EXIT_DLCONF_REFUSED. */
int check_exit_status(const CheckResult *r);

void check_format(FILE *f, const CheckResult *r, bool color);
char *check_format_json(const CheckResult *r, JsonMode mode);
