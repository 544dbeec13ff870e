/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What dld needs to start: the decision (privileges.h). */
#include <inttypes.h>
#include <stdarg.h>

#include "privileges.h"
#include "util.h"

void privileges_problems_done(PrivilegeProblems *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->items[i].message);
        free(l->items);
        *l = (PrivilegeProblems) {};
}

static int add(PrivilegeProblems *l, const char *need, bool fatal, const char *fmt, ...) _printf_(4, 5);
static int add(PrivilegeProblems *l, const char *need, bool fatal, const char *fmt, ...) {
        PrivilegeProblem *n;
        char *msg;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        n = realloc(l->items, (l->n + 1) * sizeof(*n));
        if (!n) {
                free(msg);
                return -ENOMEM;
        }
        l->items = n;
        l->items[l->n++] = (PrivilegeProblem) { .need = need, .fatal = fatal, .message = msg };
        if (fatal)
                l->n_fatal++;
        return 0;
}

/* errno name without strerrorname_np's NULL for unknown numbers. */
static const char *err_name(int err) {
        const char *n = strerrorname_np(err < 0 ? -err : err);

        return n ?: "E?";
}

static int check_access(PrivilegeProblems *l, const char *need, const char *what, const PrivilegeAccess *a,
                        const char *how) {
        const char *path = a->path ?: "?";

        if (a->err >= 0)
                return 0;       /* writable, or not probed */
        switch (a->err) {
        case -EROFS:
                return add(l, need, true, "%s %s is mounted read-only (EROFS): dld writes there; %s", what, path, how);
        case -ENOENT:
                return add(l, need, true, "%s %s does not exist (ENOENT): dld writes there; %s", what, path, how);
        case -EACCES:
        case -EPERM:
                return add(l, need, true, "%s %s is not writable by dld (%s): dld writes there and must run as root; %s",
                           what, path, err_name(a->err), how);
        default:
                return add(l, need, true, "%s %s: cannot tell whether it is writable (%s): dld writes there; %s",
                           what, path, err_name(a->err), how);
        }
}

int privileges_check(const PrivilegeProbe *p, PrivilegeProblems *ret) {
        PrivilegeProblems l = {};
        int r = 0;

        *ret = (PrivilegeProblems) {};
        if (p->euid > 0)
                r = add(&l, "root", true,
                        "dld runs as uid %lld, not root: the deadline sysctls and the cgroup files are root's, and "
                        "systemd takes unit changes (CPUWeight=, stopping a unit) from root only; run it as root",
                        p->euid);
        if (r == 0 && p->caps_known == 1 && !(p->cap_effective & (UINT64_C(1) << PRIV_CAP_SYS_NICE)))
                r = add(&l, "CAP_SYS_NICE", true,
                        "dld lacks CAP_SYS_NICE (effective set %#" PRIx64 "): it needs it to make services' threads "
                        "SCHED_DEADLINE (sched_setattr() on other processes) and to reserve bandwidth from the system "
                        "pool (cpu.dl_runtime_us); give it CapabilityBoundingSet=CAP_SYS_NICE (dld.service), "
                        "podman run --cap-add=SYS_NICE, or systemd-nspawn --capability=CAP_SYS_NICE",
                        p->cap_effective);
        /* Not fatal: only units that schedule their own threads need it. */
        if (r == 0 && p->caps_known == 1 && !(p->cap_effective & (UINT64_C(1) << PRIV_CAP_SYS_RESOURCE)))
                r = add(&l, "CAP_SYS_RESOURCE", false,
                        "dld lacks CAP_SYS_RESOURCE (effective set %#" PRIx64 "): it needs it to give the processes "
                        "of a unit that schedules its own threads (X-DeadlinePromote=none, Delegate=yes: an nspawn "
                        "machine) the deadline limits of its request (RLIMIT_DLRTIME, RLIMIT_DLDLINE), without "
                        "which they cannot enter SCHED_DEADLINE; give it "
                        "CapabilityBoundingSet=CAP_SYS_NICE CAP_SYS_RESOURCE (dld.service), podman run "
                        "--cap-add=SYS_RESOURCE, or systemd-nspawn --capability=CAP_SYS_RESOURCE",
                        p->cap_effective);
        if (r == 0 && p->userns_initial == 0)
                r = add(&l, "user-namespace", true,
                        "dld runs in a user namespace other than the host's: the kernel asks for CAP_SYS_NICE in the "
                        "initial user namespace to reserve bandwidth from the system pool, so every reservation would be "
                        "refused (EPERM); run it in the host's user namespace (rootful podman without --userns or "
                        "--uidmap, systemd-nspawn without --private-users)");
        if (r == 0 && p->pidns_initial == 0)
                r = add(&l, "pid-namespace", true,
                        "dld runs in a PID namespace other than the host's: cgroup.threads lists, and sched_setattr() "
                        "takes, thread ids of dld's own namespace, where the host's services are invisible, so no "
                        "thread could be made SCHED_DEADLINE; run it in the host's PID namespace (podman run "
                        "--pid=host; systemd-nspawn always makes its own)");
        if (r == 0)
                r = check_access(&l, "cgroup", "the cgroup hierarchy", &p->cgroup,
                                 "bind the host's /sys/fs/cgroup read-write (podman run --privileged --cgroupns=host, or "
                                 "-v /sys/fs/cgroup:/sys/fs/cgroup:rw; systemd-nspawn --bind=/sys/fs/cgroup)");
        for (size_t i = 0; r == 0 && i < p->n_sysctls && i < PRIV_SYSCTLS_MAX; i++)
                r = check_access(&l, "sysctl", "the scheduler sysctl", &p->sysctls[i],
                                 "bind the host's /proc/sys/kernel read-write (podman run --privileged, or "
                                 "--security-opt systempaths=unconfined; systemd-nspawn --bind=/proc/sys/kernel)");
        if (r == 0 && p->bus < 0)
                r = add(&l, "bus", true,
                        "cannot connect to the system bus %s (%s): dld follows systemd's units and serves dlconf and "
                        "the OCI hook there; bind the host's /run/dbus/system_bus_socket (podman -v "
                        "/run/dbus/system_bus_socket:/run/dbus/system_bus_socket, systemd-nspawn "
                        "--bind=/run/dbus/system_bus_socket)",
                        p->bus_address ?: "/run/dbus/system_bus_socket", err_name(p->bus));
        if (r == 0 && p->journal < 0)
                r = add(&l, "journal", false,
                        "no journal socket /run/systemd/journal/socket (%s): dld's structured entries (refusals, "
                        "admissions, releases) are lost, only its plain lines remain; bind the host's "
                        "/run/systemd/journal",
                        err_name(p->journal));
        if (r < 0) {
                privileges_problems_done(&l);
                return r;
        }
        *ret = l;
        return (int) l.n_fatal;
}

char *privileges_summary(const PrivilegeProblems *l) {
        size_t len = 1;
        char *s;

        for (size_t i = 0; i < l->n; i++)
                if (l->items[i].fatal)
                        len += strlen(l->items[i].need) + 2;
        s = calloc(1, len);
        if (!s)
                return NULL;
        for (size_t i = 0; i < l->n; i++) {
                if (!l->items[i].fatal)
                        continue;
                /* The same need once: its items are added one after another (the sysctls). */
                if (i > 0 && streq_ptr(l->items[i - 1].need, l->items[i].need))
                        continue;
                if (*s)
                        strcat(s, ", ");
                strcat(s, l->items[i].need);
        }
        return s;
}
