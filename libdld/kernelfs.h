/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The only place dld touches the kernel's files: the deadline sysctls in
 * /proc/sys/kernel and the cpu controller's cgroup files. Everything is
 * relative to a root prefix ("" in production) so host tests run it against
 * a fake tree. Cgroup paths are systemd's ControlGroup= form
 * ("/deadline.slice/x.service"), relative to the cpu controller's hierarchy. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy.h"

typedef enum CgroupHierarchy {
        CGROUP_NONE,
        CGROUP_V1,      /* the cpu controller in its own v1 hierarchy */
        CGROUP_V2,      /* unified */
} CgroupHierarchy;

const char *kernelfs_hierarchy_to_string(CgroupHierarchy h);

typedef struct KernelFs {
        char *root;
        CgroupHierarchy hierarchy;
        char *cpu_mount;        /* root + mount point of the cpu controller */
} KernelFs;

int kernelfs_new(const char *root, KernelFs **ret);
KernelFs *kernelfs_free(KernelFs *k);
static inline void kernelfs_freep(KernelFs **k) {
        kernelfs_free(*k);
}

/* /proc/sys/kernel/<name> */
int kernelfs_write_sysctl(KernelFs *k, const char *name, int64_t value);

/* The four bandwidth sysctls; -EOPNOTSUPP if the kernel has no sched_dl_*. */
int kernelfs_read_budget(KernelFs *k, SystemBudget *ret);
/* sched_dl_total_bw (of the root domain of the selected CPU, 0 by default). */
int kernelfs_read_total_bw(KernelFs *k, uint64_t *ret);
/* Number of CPUs in /sys/devices/system/cpu/online, 1 when it cannot be
 * read (the admission model's CPU count). */
unsigned kernelfs_cpus(KernelFs *k);

/* True if the kernel has per-cgroup deadline bandwidth (cpu.dl_runtime_us
 * next to cpu.weight/cpu.shares in a cgroup with the cpu controller);
 * -ENODATA if no cgroup has the cpu controller to tell. */
int kernelfs_dl_groups_supported(KernelFs *k);

/* The cgroup, in the cpu controller's hierarchy. */
bool kernelfs_cgroup_exists(KernelFs *k, const char *cgroup);
/* A unit's cgroup as systemd keeps it, whatever its controllers: the
 * unified hierarchy, or on v1 systemd's own (name=systemd), where a unit
 * without the cpu controller has a cgroup that the cpu hierarchy lacks. */
bool kernelfs_unit_cgroup_exists(KernelFs *k, const char *cgroup);
int kernelfs_cgroup_read(KernelFs *k, const char *cgroup, const char *file, int64_t *ret);
int kernelfs_cgroup_write(KernelFs *k, const char *cgroup, const char *file, int64_t value);

/* A task template (cpu.dl_template): nr tasks of these parameters; nr 0 is "none". */
typedef struct DlTemplate {
        unsigned nr;
        uint64_t runtime_usec, deadline_usec, period_usec;
} DlTemplate;

/* Writes the template (-EBUSY: it does not fit, or the group holds a
 * reservation; -EINVAL: bad values; -ENOENT: no such file, a kernel without
 * templates or a cgroup without the cpu controller). */
int kernelfs_template_write(KernelFs *k, const char *cgroup, const DlTemplate *t);
int kernelfs_template_read(KernelFs *k, const char *cgroup, DlTemplate *ret);
/* cpu.dl_template_stat: the tasks the template made SCHED_DEADLINE, and
 * those it found no room for. Its path, to watch with inotify (IN_MODIFY). */
int kernelfs_template_stat(KernelFs *k, const char *cgroup, unsigned *ret_tasks, unsigned *ret_over);
char *kernelfs_template_stat_path(KernelFs *k, const char *cgroup);

/* Thread ids (cgroup.threads on v2, tasks on v1) of the cgroup and its
 * whole subtree (16 levels at most), subdivisions with a reservation of
 * their own included: to count a delegated unit's threads, never to
 * change them. */
int kernelfs_cgroup_threads_all(KernelFs *k, const char *cgroup, pid_t **ret, size_t *ret_n);

/* Names of the child cgroups. */
int kernelfs_cgroup_children(KernelFs *k, const char *cgroup, char ***ret);
