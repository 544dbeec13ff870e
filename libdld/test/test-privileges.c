/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The privileges check (privileges.h): from what was probed to what is missing. */
#include "privileges.h"
#include "util.h"
#include "tap.h"

#define CAPS_ALL UINT64_C(0x1ffffffffff)
#define CAPS_NICE (UINT64_C(1) << PRIV_CAP_SYS_NICE)
#define CAPS_RESOURCE (UINT64_C(1) << PRIV_CAP_SYS_RESOURCE)

/* What dld has under dld.service: root, CAP_SYS_NICE and CAP_SYS_RESOURCE
 * only, every file writable. */
static PrivilegeProbe good(void) {
        PrivilegeProbe p = PRIVILEGE_PROBE_INIT;

        p.euid = 0;
        p.caps_known = 1;
        p.cap_effective = CAPS_NICE | CAPS_RESOURCE;
        p.userns_initial = 1;
        p.pidns_initial = 1;
        p.cgroup = (PrivilegeAccess) { "/sys/fs/cgroup", 0 };
        p.sysctls[0] = (PrivilegeAccess) { "/proc/sys/kernel/sched_dl_runtime_us", 0 };
        p.sysctls[1] = (PrivilegeAccess) { "/proc/sys/kernel/sched_dl_period_us", 0 };
        p.n_sysctls = 2;
        p.bus = 0;
        p.journal = 0;
        return p;
}

/* Checks p: want_fatal fatal problems, and the first problem's need and a
 * fragment of its message. */
static void check(const PrivilegeProbe *p, int want_fatal, size_t want_n, const char *need, const char *fragment,
                  const char *name) {
        _cleanup_(privileges_problems_done) PrivilegeProblems l = {};
        int r = privileges_check(p, &l);

        is_int(r, want_fatal, "%s: %d fatal", name, want_fatal);
        is_int(l.n, want_n, "%s: %zu problem(s)", name, want_n);
        if (!need)
                return;
        if (l.n == 0) {
                ok(0, "%s: a problem listed", name);
                return;
        }
        is_str(l.items[0].need, need, "%s: the need", name);
        if (!ok(strstr(l.items[0].message, fragment), "%s: the message says \"%s\"", name, fragment))
                printf("#   message: %s\n", l.items[0].message);
}

int main(void) {
        PrivilegeProbe p;

        tap_begin();

        p = good();
        check(&p, 0, 0, NULL, NULL, "dld.service: nothing missing");
        p.cap_effective = CAPS_ALL;
        check(&p, 0, 0, NULL, NULL, "all capabilities (podman --privileged)");

        p = (PrivilegeProbe) PRIVILEGE_PROBE_INIT;
        check(&p, 0, 0, NULL, NULL, "nothing known: nothing reported");

        p = good();
        p.cap_effective = CAPS_ALL & ~CAPS_NICE;
        check(&p, 1, 1, "CAP_SYS_NICE", "lacks CAP_SYS_NICE", "no CAP_SYS_NICE");
        p.cap_effective = 0;
        check(&p, 1, 2, "CAP_SYS_NICE", "--cap-add=SYS_NICE", "no capability at all: says how to add it");
        p.cap_effective = CAPS_NICE;
        check(&p, 0, 1, "CAP_SYS_RESOURCE", "deadline limits of its request",
              "no CAP_SYS_RESOURCE: a warning, dld starts");
        p.caps_known = 0;
        check(&p, 0, 0, NULL, NULL, "capabilities unknown: not reported");

        p = good();
        p.euid = 1000;
        check(&p, 1, 1, "root", "runs as uid 1000, not root", "not root");

        p = good();
        p.userns_initial = 0;
        check(&p, 1, 1, "user-namespace", "initial user namespace", "a user namespace of its own (rootless podman)");
        p.userns_initial = -1;
        check(&p, 0, 0, NULL, NULL, "user namespace unknown: not reported");

        p = good();
        p.pidns_initial = 0;
        check(&p, 1, 1, "pid-namespace", "--pid=host", "a PID namespace of its own (podman's default, nspawn)");
        p.pidns_initial = -1;
        check(&p, 0, 0, NULL, NULL, "PID namespace unknown: not reported");

        p = good();
        p.cgroup.err = -EROFS;
        check(&p, 1, 1, "cgroup", "the cgroup hierarchy /sys/fs/cgroup is mounted read-only (EROFS)",
              "cgroupfs read-only (podman's default)");
        check(&p, 1, 1, "cgroup", "--cgroupns=host", "  says how to bind it");
        p.cgroup.err = -EACCES;
        check(&p, 1, 1, "cgroup", "not writable by dld (EACCES)", "cgroupfs not writable");
        p.cgroup = (PrivilegeAccess) { "/sys/fs/cgroup", -ENOENT };
        check(&p, 1, 1, "cgroup", "/sys/fs/cgroup does not exist (ENOENT)", "no cgroup hierarchy");
        p.cgroup.err = -EIO;
        check(&p, 1, 1, "cgroup", "cannot tell whether it is writable (EIO)", "cgroupfs: another error");
        p.cgroup = (PrivilegeAccess) { NULL, -EROFS };
        check(&p, 1, 1, "cgroup", "hierarchy ? is mounted", "no path: no crash");

        p = good();
        p.sysctls[1].err = -EROFS;
        check(&p, 1, 1, "sysctl", "/proc/sys/kernel/sched_dl_period_us is mounted read-only", "one sysctl read-only");
        p.sysctls[0].err = -EROFS;
        check(&p, 2, 2, "sysctl", "/proc/sys/kernel/sched_dl_runtime_us is mounted read-only",
              "both sysctls read-only: two lines");
        p.sysctls[0].err = -EACCES;
        check(&p, 2, 2, "sysctl", "must run as root", "a sysctl not writable");
        p.sysctls[0].err = 1;
        p.sysctls[1].err = 1;
        check(&p, 0, 0, NULL, NULL, "sysctls not probed: not reported");

        p = good();
        p.bus = -ENOENT;
        check(&p, 1, 1, "bus", "/run/dbus/system_bus_socket (ENOENT)", "no system bus");
        p.bus_address = "unix:path=/x";
        check(&p, 1, 1, "bus", "the system bus unix:path=/x (ENOENT)", "  names DBUS_SYSTEM_BUS_ADDRESS");

        p = good();
        p.journal = -ENOENT;
        check(&p, 0, 1, "journal", "structured entries", "no journal socket: a warning, dld starts");

        /* Everything missing at once: every problem listed, not only the first. */
        {
                _cleanup_(privileges_problems_done) PrivilegeProblems l = {};
                _cleanup_free_ char *summary = NULL;

                p = good();
                p.euid = 1000;
                p.cap_effective = 0;
                p.userns_initial = 0;
                p.pidns_initial = 0;
                p.cgroup.err = -EROFS;
                p.sysctls[0].err = -EROFS;
                p.sysctls[1].err = -EROFS;
                p.bus = -ECONNREFUSED;
                p.journal = -ENOENT;
                is_int(privileges_check(&p, &l), 8, "all missing: 8 fatal");
                is_int(l.n, 10, "all missing: 10 problems (CAP_SYS_RESOURCE and the journal warnings)");
                summary = privileges_summary(&l);
                is_str(summary, "root, CAP_SYS_NICE, user-namespace, pid-namespace, cgroup, sysctl, bus",
                       "the summary names each need once, no warning");
                for (size_t i = 0; i < l.n; i++)
                        ok(l.items[i].message && !strchr(l.items[i].message, '\n'),
                           "all missing: %s: one line", l.items[i].need);
        }
        {
                PrivilegeProblems l = {};
                _cleanup_free_ char *summary = privileges_summary(&l);

                is_str(summary, "", "no problems: empty summary");
        }
        return tap_done();
}
