/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "kernelfs.h"

const char *kernelfs_hierarchy_to_string(CgroupHierarchy h) {
        return h == CGROUP_V2 ? "v2" : h == CGROUP_V1 ? "v1" : "none";
}

static bool path_exists(const char *p) {
        return access(p, F_OK) == 0;
}

int kernelfs_new(const char *root, KernelFs **ret) {
        _cleanup_free_ char *probe = NULL;
        KernelFs *k;

        k = calloc(1, sizeof(KernelFs));
        if (!k)
                return -ENOMEM;
        k->root = strdup(root ?: "");
        if (!k->root)
                goto oom;

        /* Unified if the hierarchy's root has cgroup.controllers; else the cpu
         * controller's v1 mount (cpu or cpu,cpuacct). */
        if (asprintf(&probe, "%s/sys/fs/cgroup/cgroup.controllers", k->root) < 0)
                goto oom;
        if (path_exists(probe)) {
                k->hierarchy = CGROUP_V2;
                if (asprintf(&k->cpu_mount, "%s/sys/fs/cgroup", k->root) < 0)
                        goto oom;
        } else {
                static const char * const v1[] = { "cpu", "cpu,cpuacct", "cpuacct,cpu" };

                for (size_t i = 0; i < ELEMENTSOF(v1) && !k->cpu_mount; i++) {
                        char *m;

                        if (asprintf(&m, "%s/sys/fs/cgroup/%s", k->root, v1[i]) < 0)
                                goto oom;
                        if (path_exists(m)) {
                                k->hierarchy = CGROUP_V1;
                                k->cpu_mount = m;
                        } else
                                free(m);
                }
        }
        *ret = k;
        return 0;
oom:
        kernelfs_free(k);
        return -ENOMEM;
}

KernelFs *kernelfs_free(KernelFs *k) {
        if (k) {
                free(k->root);
                free(k->cpu_mount);
                free(k);
        }
        return NULL;
}

static int read_int_file(const char *path, int64_t *ret) {
        _cleanup_free_ char *text = NULL;
        char *end;
        long long v;
        int r;

        r = fileio_read_full(path, &text, NULL);
        if (r < 0)
                return r;
        errno = 0;
        v = strtoll(text, &end, 10);
        if (errno != 0 || end == text || (*end && *end != '\n'))
                return -EBADMSG;
        *ret = v;
        return 0;
}

/* One write(2) of the line: the kernel's verdict is its errno. */
static int write_line_file(const char *path, const char *line) {
        _cleanup_close_ int fd = -1;
        ssize_t n = (ssize_t) strlen(line);

        fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        errno = 0;
        if (write(fd, line, n) != n)
                return errno ? -errno : -EIO;
        return 0;
}

static int write_int_file(const char *path, int64_t value) {
        char buf[32];

        snprintf(buf, sizeof(buf), "%" PRId64 "\n", value);
        return write_line_file(path, buf);
}

static char *sysctl_path(KernelFs *k, const char *name) {
        char *p;

        return asprintf(&p, "%s/proc/sys/kernel/%s", k->root, name) < 0 ? NULL : p;
}

static int kernelfs_read_sysctl(KernelFs *k, const char *name, int64_t *ret) {
        _cleanup_free_ char *p = sysctl_path(k, name);

        return p ? read_int_file(p, ret) : -ENOMEM;
}

int kernelfs_write_sysctl(KernelFs *k, const char *name, int64_t value) {
        _cleanup_free_ char *p = sysctl_path(k, name);

        return p ? write_int_file(p, value) : -ENOMEM;
}

int kernelfs_read_budget(KernelFs *k, SystemBudget *ret) {
        int64_t v[4];
        static const char * const names[] = {
                "sched_dl_runtime_us", "sched_dl_period_us", "sched_rt_runtime_us", "sched_rt_period_us",
        };

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                int r = kernelfs_read_sysctl(k, names[i], &v[i]);

                if (r == -ENOENT && i < 2)
                        return -EOPNOTSUPP;
                if (r < 0)
                        return r;
        }
        if (v[1] <= 0 || v[3] <= 0)
                return -EBADMSG;
        *ret = (SystemBudget) {
                .dl_runtime_us = v[0], .dl_period_us = (uint64_t) v[1],
                .rt_runtime_us = v[2], .rt_period_us = (uint64_t) v[3],
        };
        return 0;
}

int kernelfs_read_total_bw(KernelFs *k, uint64_t *ret) {
        int64_t v;
        int r = kernelfs_read_sysctl(k, "sched_dl_total_bw", &v);

        if (r == -ENOENT)
                return -EOPNOTSUPP;
        if (r < 0)
                return r;
        if (v < 0)
                return -EBADMSG;
        *ret = (uint64_t) v;
        return 0;
}

/* Number of CPUs in /sys/devices/system/cpu/online. */
static int kernelfs_online_cpus(KernelFs *k, unsigned *ret) {
        _cleanup_free_ char *p = NULL, *text = NULL;
        unsigned n = 0;
        char *s, *tok, *save = NULL;
        int r;

        if (asprintf(&p, "%s/sys/devices/system/cpu/online", k->root) < 0)
                return -ENOMEM;
        r = fileio_read_full(p, &text, NULL);
        if (r < 0)
                return r;
        /* "0-3,5,7-8" */
        for (s = strstrip(text); (tok = strtok_r(s, ",", &save)); s = NULL) {
                unsigned a, b;
                char dash;
                int c = sscanf(tok, "%u%c%u", &a, &dash, &b);

                if (c == 1)
                        n++;
                else if (c == 3 && dash == '-' && b >= a)
                        n += b - a + 1;
                else
                        return -EBADMSG;
        }
        if (n == 0)
                return -EBADMSG;
        *ret = n;
        return 0;
}

static char *cgroup_file(KernelFs *k, const char *cgroup, const char *file) {
        char *p;

        if (!k->cpu_mount)
                return NULL;
        if (asprintf(&p, "%s%s%s%s%s", k->cpu_mount,
                     cgroup[0] == '/' ? "" : "/", cgroup,
                     file ? "/" : "", file ?: "") < 0)
                return NULL;
        return p;
}

bool kernelfs_cgroup_exists(KernelFs *k, const char *cgroup) {
        _cleanup_free_ char *p = cgroup_file(k, cgroup, NULL);
        struct stat st;

        return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

bool kernelfs_unit_cgroup_exists(KernelFs *k, const char *cgroup) {
        static const char * const v1_trees[] = { "systemd", "unified" };
        struct stat st;

        if (k->hierarchy != CGROUP_V1)
                return kernelfs_cgroup_exists(k, cgroup);
        for (size_t i = 0; i < ELEMENTSOF(v1_trees); i++) {
                _cleanup_free_ char *tree = NULL, *p = NULL;

                if (asprintf(&tree, "%s/sys/fs/cgroup/%s", k->root, v1_trees[i]) < 0 ||
                    asprintf(&p, "%s%s%s", tree, cgroup[0] == '/' ? "" : "/", cgroup) < 0)
                        return true;    /* the safe answer: not gone */
                if (stat(tree, &st) == 0)
                        return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
        }
        return kernelfs_cgroup_exists(k, cgroup);
}

int kernelfs_cgroup_read(KernelFs *k, const char *cgroup, const char *file, int64_t *ret) {
        _cleanup_free_ char *p = NULL;

        if (!k->cpu_mount)
                return -EOPNOTSUPP;
        p = cgroup_file(k, cgroup, file);
        return p ? read_int_file(p, ret) : -ENOMEM;
}

int kernelfs_cgroup_write(KernelFs *k, const char *cgroup, const char *file, int64_t value) {
        _cleanup_free_ char *p = NULL;

        if (!k->cpu_mount)
                return -EOPNOTSUPP;
        p = cgroup_file(k, cgroup, file);
        return p ? write_int_file(p, value) : -ENOMEM;
}

int kernelfs_template_write(KernelFs *k, const char *cgroup, const DlTemplate *t) {
        _cleanup_free_ char *p = NULL;
        char buf[96];

        if (!k->cpu_mount)
                return -EOPNOTSUPP;
        if (t->nr == 0)
                snprintf(buf, sizeof(buf), "none\n");
        else
                snprintf(buf, sizeof(buf), "%u %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                         t->nr, t->runtime_usec, t->deadline_usec, t->period_usec);
        p = cgroup_file(k, cgroup, "cpu.dl_template");
        return p ? write_line_file(p, buf) : -ENOMEM;
}

int kernelfs_template_read(KernelFs *k, const char *cgroup, DlTemplate *ret) {
        _cleanup_free_ char *p = NULL, *text = NULL;
        DlTemplate t = {};
        int r;

        if (!k->cpu_mount)
                return -EOPNOTSUPP;
        p = cgroup_file(k, cgroup, "cpu.dl_template");
        if (!p)
                return -ENOMEM;
        r = fileio_read_full(p, &text, NULL);
        if (r < 0)
                return r;
        if (strncmp(text, "none", 4) != 0 &&
            sscanf(text, "%u %" SCNu64 " %" SCNu64 " %" SCNu64, &t.nr, &t.runtime_usec, &t.deadline_usec, &t.period_usec) != 4)
                return -EBADMSG;
        *ret = t;
        return 0;
}

char *kernelfs_template_stat_path(KernelFs *k, const char *cgroup) {
        return k->cpu_mount ? cgroup_file(k, cgroup, "cpu.dl_template_stat") : NULL;
}

int kernelfs_template_stat(KernelFs *k, const char *cgroup, unsigned *ret_tasks, unsigned *ret_over) {
        _cleanup_free_ char *p = kernelfs_template_stat_path(k, cgroup), *text = NULL;
        unsigned tasks, over;
        int r;

        if (!p)
                return k->cpu_mount ? -ENOMEM : -EOPNOTSUPP;
        r = fileio_read_full(p, &text, NULL);
        if (r < 0)
                return r;
        if (sscanf(text, "nr_tasks %u nr_over %u", &tasks, &over) != 2)
                return -EBADMSG;
        *ret_tasks = tasks;
        *ret_over = over;
        return 0;
}

/* Thread ids in the cgroup itself (cgroup.threads on v2, tasks on v1). */
static int kernelfs_cgroup_threads(KernelFs *k, const char *cgroup, pid_t **ret, size_t *ret_n) {
        _cleanup_free_ char *p = NULL, *text = NULL;
        _cleanup_free_ pid_t *tids = NULL;
        size_t n = 0, alloc = 0;
        char *s, *tok, *save = NULL;
        int r;

        if (!k->cpu_mount)
                return -EOPNOTSUPP;
        p = cgroup_file(k, cgroup, k->hierarchy == CGROUP_V2 ? "cgroup.threads" : "tasks");
        if (!p)
                return -ENOMEM;
        r = fileio_read_full(p, &text, NULL);
        if (r < 0)
                return r;
        for (s = text; (tok = strtok_r(s, "\n", &save)); s = NULL) {
                char *end;
                long v = strtol(tok, &end, 10);

                if (*end || v <= 0)
                        return -EBADMSG;
                if (n == alloc) {
                        pid_t *nt;

                        alloc = alloc ? alloc * 2 : 16;
                        nt = realloc(tids, alloc * sizeof(pid_t));
                        if (!nt)
                                return -ENOMEM;
                        tids = nt;
                }
                tids[n++] = (pid_t) v;
        }
        *ret = TAKE_PTR(tids);
        *ret_n = n;
        return 0;
}

static int threads_append(pid_t **all, size_t *n_all, const pid_t *tids, size_t n) {
        pid_t *na;

        if (n == 0)
                return 0;
        na = realloc(*all, (*n_all + n) * sizeof(pid_t));
        if (!na)
                return -ENOMEM;
        memcpy(na + *n_all, tids, n * sizeof(pid_t));
        *all = na;
        *n_all += n;
        return 0;
}

static int threads_subtree(KernelFs *k, const char *cgroup, unsigned depth, pid_t **all, size_t *n_all) {
        _cleanup_strv_free_ char **children = NULL;
        _cleanup_free_ pid_t *tids = NULL;
        size_t n = 0;
        int r;

        r = kernelfs_cgroup_threads(k, cgroup, &tids, &n);
        if (r < 0)
                return r;
        r = threads_append(all, n_all, tids, n);
        if (r < 0 || depth >= 16)
                return r;
        r = kernelfs_cgroup_children(k, cgroup, &children);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        for (char **c = children; *c; c++) {
                _cleanup_free_ char *path = NULL;

                if (asprintf(&path, "%s/%s", streq_ptr(cgroup, "/") ? "" : cgroup, *c) < 0)
                        return -ENOMEM;
                r = threads_subtree(k, path, depth + 1, all, n_all);
                if (r < 0 && r != -ENOENT)
                        return r;
        }
        return 0;
}

int kernelfs_cgroup_threads_all(KernelFs *k, const char *cgroup, pid_t **ret, size_t *ret_n) {
        _cleanup_free_ pid_t *all = NULL;
        size_t n = 0;
        int r;

        r = threads_subtree(k, cgroup, 0, &all, &n);
        if (r < 0)
                return r;
        if (!all && !(all = calloc(1, sizeof(pid_t))))
                return -ENOMEM;
        *ret = TAKE_PTR(all);
        *ret_n = n;
        return 0;
}

int kernelfs_cgroup_children(KernelFs *k, const char *cgroup, char ***ret) {
        _cleanup_free_ char *p = NULL;
        _cleanup_strv_free_ char **l = NULL;
        DIR *d;
        struct dirent *de;

        if (!k->cpu_mount)
                return -EOPNOTSUPP;
        p = cgroup_file(k, cgroup, NULL);
        if (!p)
                return -ENOMEM;
        d = opendir(p);
        if (!d)
                return -errno;
        while ((de = readdir(d)))
                if (de->d_type == DT_DIR && de->d_name[0] != '.' && strv_extend(&l, de->d_name) < 0) {
                        closedir(d);
                        return -ENOMEM;
                }
        closedir(d);
        if (!l && !(l = calloc(1, sizeof(char *))))
                return -ENOMEM;
        *ret = TAKE_PTR(l);
        return 0;
}

int kernelfs_dl_groups_supported(KernelFs *k) {
        _cleanup_strv_free_ char **children = NULL;
        const char *marker = k->hierarchy == CGROUP_V2 ? "cpu.weight" : "cpu.shares";
        int r;

        if (!k->cpu_mount)
                return 0;
        r = kernelfs_cgroup_children(k, "/", &children);
        if (r < 0)
                return r;
        for (char **c = children; *c; c++) {
                _cleanup_free_ char *m = cgroup_file(k, *c, marker), *dl = cgroup_file(k, *c, "cpu.dl_runtime_us");

                if (!m || !dl)
                        return -ENOMEM;
                if (path_exists(m))
                        return path_exists(dl);
        }
        return -ENODATA;
}

unsigned kernelfs_cpus(KernelFs *k) {
        unsigned n = 1;

        (void) kernelfs_online_cpus(k, &n);
        return n;
}
