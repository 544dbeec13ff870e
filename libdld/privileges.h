/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What dld needs to do its work, checked when it starts (so that dld run
 * in a container with one of them missing refuses to start and says what
 * is missing, instead of refusing every service later):
 *
 *   root          the deadline sysctls and the cgroup files are root's
 *                 (dld.service keeps no CAP_DAC_OVERRIDE), and systemd
 *                 takes CPUWeight= and StopUnit from root only;
 *   CAP_SYS_NICE  sched_setattr() on the services' threads, and
 *                 reservations drawn from the system pool (cpu.dl_runtime_us
 *                 of a group's slice or a unit outside a reserved ancestor);
 *   user namespace the kernel asks for CAP_SYS_NICE in the *initial* user
 *                 namespace for the latter: in any other one every
 *                 reservation is EPERM;
 *   pid namespace the host's: cgroup.threads lists, and sched_setattr()
 *                 takes, thread ids of the reader's PID namespace, and the
 *                 host's services are invisible from any other one
 *                 (podman --pid=host; systemd-nspawn always makes its own);
 *   cgroup        write access to the cpu controller's hierarchy (not
 *                 mounted read-only, as podman and nspawn mount it);
 *   sysctl        write access to /proc/sys/kernel/sched_dl_* (the policy's
 *                 system budget);
 *   bus           the system bus (systemd, and dlconf's calls);
 *   journal       the journal's socket: only a warning, the structured
 *                 entries are lost without it.
 *
 * privileges_check() is the decision, pure: from what was probed (the
 * thin I/O layer is privprobe.c) to the list of what is missing, each
 * with its message. Unknown results (-1: could not tell) are no problem.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PRIV_SYSCTLS_MAX 4
/* The capabilities' bits in the capability sets. */
#define PRIV_CAP_SYS_RESOURCE 24
#define PRIV_CAP_SYS_NICE 23

typedef struct PrivilegeAccess {
        const char *path;       /* what was probed */
        int err;                /* 0: writable; -errno of faccessat(W_OK, AT_EACCESS); 1: not probed */
} PrivilegeAccess;

typedef struct PrivilegeProbe {
        long long euid;                 /* -1: unknown */
        int caps_known;                 /* 1: cap_effective holds the effective set */
        uint64_t cap_effective;
        int userns_initial;             /* 1, 0, -1 unknown */
        int pidns_initial;              /* 1, 0, -1 unknown */
        PrivilegeAccess cgroup;         /* the cpu controller's hierarchy (its mount point) */
        PrivilegeAccess sysctls[PRIV_SYSCTLS_MAX];
        size_t n_sysctls;
        int bus;                        /* 0: connected to the system bus, else -errno; 1: not probed */
        const char *bus_address;        /* for the message; NULL: the default socket */
        int journal;                    /* 0: the journal's socket is there, else -errno; 1: not probed */
} PrivilegeProbe;

/* A probe where nothing is known yet (every field "unknown"/"not probed"). */
#define PRIVILEGE_PROBE_INIT \
        { .euid = -1, .userns_initial = -1, .pidns_initial = -1, .cgroup = { .err = 1 }, .bus = 1, .journal = 1 }

typedef struct PrivilegeProblem {
        const char *need;       /* "root", "CAP_SYS_NICE", "user-namespace", "pid-namespace", "cgroup", "sysctl",
                                 * "bus", "journal" */
        bool fatal;             /* false: a warning, dld starts */
        char *message;          /* one line: what is missing, why dld needs it, how to give it */
} PrivilegeProblem;

typedef struct PrivilegeProblems {
        PrivilegeProblem *items;
        size_t n;
        size_t n_fatal;
} PrivilegeProblems;

void privileges_problems_done(PrivilegeProblems *l);

/* Appends every problem of p to ret (emptied first). Returns the number
 * of fatal ones, or -ENOMEM. */
int privileges_check(const PrivilegeProbe *p, PrivilegeProblems *ret);

/* "CAP_SYS_NICE, cgroup, bus": the needs of the fatal problems (for
 * sd_notify's STATUS=); caller frees. NULL on -ENOMEM. */
char *privileges_summary(const PrivilegeProblems *l);
