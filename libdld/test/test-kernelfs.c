/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>

#include "kernelfs.h"
#include "tap.h"

static char root[] = "/tmp/dld-test-kernelfs-XXXXXX";

static void put(const char *rel, const char *content) {
        char path[512], *slash;
        int fd;

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
                *slash = 0;
                mkdir(path, 0755);
                *slash = '/';
        }
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
                if (write(fd, content, strlen(content)) < 0)
                        perror("write");
                close(fd);
        }
}

static char *get(const char *rel) {
        char path[512], *text = NULL;

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        if (fileio_read_full(path, &text, NULL) < 0)
                return NULL;
        return text;
}

static int rm_one(const char *p, const struct stat *s, int f, struct FTW *w) {
        (void) s, (void) f, (void) w;
        return remove(p);
}

static void test_v2(void) {
        _cleanup_(kernelfs_freep) KernelFs *k = NULL;
        _cleanup_free_ pid_t *tids = NULL;
        _cleanup_strv_free_ char **children = NULL;
        SystemBudget b;
        uint64_t bw;
        int64_t v;
        size_t n;
        char *s;

        put("proc/sys/kernel/sched_dl_runtime_us", "50000\n");
        put("proc/sys/kernel/sched_dl_period_us", "1000000\n");
        put("proc/sys/kernel/sched_rt_runtime_us", "950000\n");
        put("proc/sys/kernel/sched_rt_period_us", "1000000\n");
        put("proc/sys/kernel/sched_dl_total_bw", "209712\n");
        put("sys/devices/system/cpu/online", "0-2,5\n");
        put("sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
        put("sys/fs/cgroup/init.scope/cpu.weight", "100\n");
        put("sys/fs/cgroup/init.scope/cpu.dl_runtime_us", "-1\n");
        put("sys/fs/cgroup/deadline.slice/cpu.dl_runtime_us", "-1\n");
        put("sys/fs/cgroup/deadline.slice/deadline-media.slice/cpu.dl_runtime_us", "100000\n");
        put("sys/fs/cgroup/deadline.slice/deadline-media.slice/cpu.dl_total_bw", "52428\n");
        put("sys/fs/cgroup/deadline.slice/deadline-media.slice/w.service/cgroup.threads", "12\n13\n400\n");
        put("sys/fs/cgroup/deadline.slice/deadline-media.slice/w.service/cpu.dl_runtime_us", "-1\n");

        is_int(kernelfs_new(root, &k), 0, "v2 tree opens");
        is_int(k->hierarchy, CGROUP_V2, "unified hierarchy detected");
        is_int(kernelfs_read_budget(k, &b), 0, "budget read");
        ok(b.dl_runtime_us == 50000 && b.dl_period_us == 1000000 && b.rt_runtime_us == 950000 && b.rt_period_us == 1000000,
           "budget values");
        is_int(kernelfs_read_total_bw(k, &bw), 0, "total bw read");
        is_int(bw, 209712, "total bw value");
        is_int(kernelfs_cpus(k), 4, "online cpus: 0-2,5 is 4 CPUs");
        is_int(kernelfs_dl_groups_supported(k), 1, "dl groups supported when cpu.dl_runtime_us is next to cpu.weight");

        /* Kernel files need no truncation; the fake files do. */
        put("proc/sys/kernel/sched_dl_runtime_us", "");
        is_int(kernelfs_write_sysctl(k, "sched_dl_runtime_us", -1), 0, "sysctl write");
        s = get("proc/sys/kernel/sched_dl_runtime_us");
        is_str(s, "-1\n", "sysctl written as a decimal line");
        free(s);

        ok(kernelfs_cgroup_exists(k, "/deadline.slice/deadline-media.slice"), "slice cgroup exists");
        ok(!kernelfs_cgroup_exists(k, "/deadline.slice/none.slice"), "missing cgroup does not exist");
        is_int(kernelfs_cgroup_read(k, "/deadline.slice/deadline-media.slice", "cpu.dl_total_bw", &v), 0, "cgroup read");
        is_int(v, 52428, "cgroup value");
        put("sys/fs/cgroup/deadline.slice/deadline-media.slice/w.service/cpu.dl_runtime_us", "");
        is_int(kernelfs_cgroup_write(k, "/deadline.slice/deadline-media.slice/w.service", "cpu.dl_runtime_us", 2000), 0, "cgroup write");
        s = get("sys/fs/cgroup/deadline.slice/deadline-media.slice/w.service/cpu.dl_runtime_us");
        is_str(s, "2000\n", "cgroup file written");
        free(s);
        is_int(kernelfs_cgroup_write(k, "/deadline.slice/gone.slice", "cpu.dl_runtime_us", 1), -ENOENT, "write to a missing cgroup: ENOENT");
        is_int(kernelfs_cgroup_threads_all(k, "/deadline.slice/deadline-media.slice/w.service", &tids, &n), 0, "threads read");
        ok(n == 3 && tids[0] == 12 && tids[2] == 400, "thread ids from cgroup.threads");
        is_int(kernelfs_cgroup_children(k, "/deadline.slice", &children), 0, "children listed");
        ok(strv_length(children) == 1 && strcmp(children[0], "deadline-media.slice") == 0, "one child slice");

        /* A delegated unit (an nspawn machine): every thread of its subtree
         * counted, its own subdivisions included. */
        put("sys/fs/cgroup/deadline.slice/deadline-media.slice/libpod-c1.scope/cgroup.threads", "");
        put("sys/fs/cgroup/deadline.slice/deadline-media.slice/libpod-c1.scope/cpu.dl_runtime_us", "3000\n");
        put("sys/fs/cgroup/deadline.slice/deadline-media.slice/libpod-c1.scope/container/cgroup.threads", "50\n51\n");
        put("sys/fs/cgroup/deadline.slice/deadline-media.slice/libpod-c1.scope/container/cpu.dl_runtime_us", "-1\n");
        put("sys/fs/cgroup/deadline.slice/deadline-media.slice/libpod-c1.scope/container/deep/cgroup.threads", "52\n");
        put("sys/fs/cgroup/deadline.slice/deadline-media.slice/libpod-c1.scope/own/cgroup.threads", "60\n");
        put("sys/fs/cgroup/deadline.slice/deadline-media.slice/libpod-c1.scope/own/cpu.dl_runtime_us", "1000\n");
        put("sys/fs/cgroup/deadline.slice/deadline-media.slice/libpod-c1.scope/own/sub/cgroup.threads", "61\n");
        free(tids);
        tids = NULL;
        is_int(kernelfs_cgroup_threads_all(k, "/deadline.slice/deadline-media.slice/libpod-c1.scope", &tids, &n), 0,
               "whole subtree read");
        if (!ok(n == 5, "whole subtree: 5 threads, those of the child with its own reservation too"))
                printf("# %zu threads\n", n);
        else {
                pid_t sum = tids[0] + tids[1] + tids[2] + tids[3] + tids[4];
                is_int(sum, 50 + 51 + 52 + 60 + 61, "whole subtree: threads 50, 51, 52, 60, 61");
        }
        free(tids);
        tids = NULL;
        is_int(kernelfs_cgroup_threads_all(k, "/deadline.slice/deadline-media.slice/gone.scope", &tids, &n), -ENOENT,
               "whole subtree of a missing cgroup: ENOENT");

        put("proc/sys/kernel/sched_dl_total_bw", "garbage\n");
        is_int(kernelfs_read_total_bw(k, &bw), -EBADMSG, "garbage in a knob: EBADMSG");
        put("sys/devices/system/cpu/online", "x\n");
        is_int(kernelfs_cpus(k), 1, "garbage cpu list: 1 CPU");
}

static void test_v1_and_missing(void) {
        _cleanup_(kernelfs_freep) KernelFs *k = NULL, *k2 = NULL;
        _cleanup_free_ pid_t *tids = NULL;
        SystemBudget b;
        size_t n;

        nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        mkdir(root, 0700);
        put("proc/sys/kernel/sched_rt_runtime_us", "950000\n");
        put("proc/sys/kernel/sched_rt_period_us", "1000000\n");
        put("sys/fs/cgroup/cpu,cpuacct/system.slice/cpu.shares", "1024\n");
        put("sys/fs/cgroup/cpu,cpuacct/system.slice/tasks", "7\n");

        is_int(kernelfs_new(root, &k), 0, "v1 tree opens");
        is_int(k->hierarchy, CGROUP_V1, "v1 cpu hierarchy detected");
        is_int(kernelfs_read_budget(k, &b), -EOPNOTSUPP, "kernel without sched_dl_*: EOPNOTSUPP");
        is_int(kernelfs_dl_groups_supported(k), 0, "no cpu.dl_runtime_us next to cpu.shares: unsupported");
        is_int(kernelfs_cgroup_threads_all(k, "/system.slice", &tids, &n), 0, "v1 threads from tasks");
        ok(n == 1 && tids[0] == 7, "v1 thread id");
        put("sys/fs/cgroup/systemd/system.slice/u.service/tasks", "8\n");
        ok(kernelfs_unit_cgroup_exists(k, "/system.slice/u.service") && !kernelfs_cgroup_exists(k, "/system.slice/u.service"),
           "v1: a unit cgroup without the cpu controller is in systemd's hierarchy only");
        ok(!kernelfs_unit_cgroup_exists(k, "/system.slice/gone.service"), "v1: a unit gone is in neither");

        nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        mkdir(root, 0700);
        is_int(kernelfs_new(root, &k2), 0, "empty tree opens");
        is_int(k2->hierarchy, CGROUP_NONE, "no cpu controller");
        is_int(kernelfs_cgroup_write(k2, "/a.slice", "cpu.dl_runtime_us", 1), -EOPNOTSUPP, "cgroup write without controller: EOPNOTSUPP");
}

int main(void) {
        tap_begin();
        if (!mkdtemp(root)) {
                perror("mkdtemp");
                return 1;
        }
        test_v2();
        test_v1_and_missing();
        nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        return tap_done();
}
