/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sched-util.h"

int sched_get_attr(pid_t tid, DlSchedAttr *ret) {
        memset(ret, 0, sizeof(*ret));
        if (syscall(SYS_sched_getattr, tid, ret, sizeof(*ret), 0) < 0)
                return -errno;
        return 0;
}

int sched_set_deadline(pid_t tid, uint64_t runtime_usec, uint64_t deadline_usec, uint64_t period_usec) {
        DlSchedAttr a = {
                .size = sizeof(a),
                .sched_policy = SCHED_DEADLINE,
                .sched_flags = DLD_SCHED_FLAG_RESET_ON_FORK,
                .sched_runtime = runtime_usec * 1000,
                .sched_deadline = deadline_usec * 1000,
                .sched_period = period_usec * 1000,
        };

        if (syscall(SYS_sched_setattr, tid, &a, 0) < 0)
                return -errno;
        return 0;
}

int sched_set_normal(pid_t tid) {
        DlSchedAttr a = { .size = sizeof(a), .sched_policy = SCHED_OTHER };

        if (syscall(SYS_sched_setattr, tid, &a, 0) < 0)
                return -errno;
        return 0;
}

int sched_set_attr(pid_t tid, const DlSchedAttr *a) {
        DlSchedAttr c = *a;

        c.size = sizeof(c);
        if (syscall(SYS_sched_setattr, tid, &c, 0) < 0)
                return -errno;
        return 0;
}

bool sched_is_deadline(const DlSchedAttr *a, uint64_t runtime_usec, uint64_t deadline_usec, uint64_t period_usec) {
        return a->sched_policy == SCHED_DEADLINE &&
               a->sched_runtime == runtime_usec * 1000 &&
               a->sched_deadline == deadline_usec * 1000 &&
               a->sched_period == period_usec * 1000;
}
