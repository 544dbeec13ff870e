/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Probing what dld needs (privileges.h): capabilities, user namespace,
 * write access to the files it writes, the bus and the journal. */
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "privprobe.h"
#include "util.h"

/* The proc inode numbers of the initial user and PID namespaces
 * (include/linux/proc_ns.h): fixed since Linux 3.8. */
#define PROC_USER_INIT_INO 0xEFFFFFFDU
#define PROC_PID_INIT_INO 0xEFFFFFFCU

static const char * const sysctls[] = {
        "/proc/sys/kernel/sched_dl_runtime_us", "/proc/sys/kernel/sched_dl_period_us",
        "/proc/sys/kernel/sched_rt_runtime_us", "/proc/sys/kernel/sched_rt_period_us",
};

static int writable(const char *path) {
        return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) < 0 ? -errno : 0;
}

void privprobe_run(KernelFs *kfs, int bus, PrivilegeProbe *ret) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};
        PrivilegeProbe p = PRIVILEGE_PROBE_INIT;
        struct stat st;

        p.euid = (long long) geteuid();
        if (syscall(SYS_capget, &h, d) == 0) {
                p.caps_known = 1;
                p.cap_effective = (uint64_t) d[0].effective | ((uint64_t) d[1].effective << 32);
        }
        if (stat("/proc/self/ns/user", &st) == 0)
                p.userns_initial = st.st_ino == PROC_USER_INIT_INO;
        if (stat("/proc/self/ns/pid", &st) == 0)
                p.pidns_initial = st.st_ino == PROC_PID_INIT_INO;

        p.cgroup.path = kfs->cpu_mount ?: "/sys/fs/cgroup";
        p.cgroup.err = -ENOENT;
        if (kfs->cpu_mount) {
                /* A file as dld writes them (root's, 0644): the cgroup2 root
                 * directory itself is 0555, writable only with CAP_DAC_OVERRIDE,
                 * which dld.service does not keep. */
                _cleanup_free_ char *procs = NULL;

                if (asprintf(&procs, "%s/cgroup.procs", kfs->cpu_mount) < 0)
                        p.cgroup.err = -ENOMEM;
                else
                        p.cgroup.err = writable(procs);
        }
        /* With a root prefix (a test tree) the sysctls are not the real ones. */
        if (!kfs->root || !*kfs->root)
                for (size_t i = 0; i < ELEMENTSOF(sysctls) && i < PRIV_SYSCTLS_MAX; i++) {
                        p.sysctls[p.n_sysctls].path = sysctls[i];
                        p.sysctls[p.n_sysctls++].err = writable(sysctls[i]);
                }
        p.bus = bus;
        p.bus_address = getenv("DBUS_SYSTEM_BUS_ADDRESS");
        p.journal = access("/run/systemd/journal/socket", F_OK) < 0 ? -errno : 0;
        *ret = p;
}
