/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reservation_set(): a new reservation the kernel refuses leaves the old
 * one in place, and says so when the kernel refuses the old one back too.
 * The kernel files are a fake (this file defines the kernelfs calls that
 * reservation.c makes): one cgroup, whose writes fail as a test scripts. */
#include <errno.h>
#include <string.h>

#include "kernelfs.h"
#include "manager.h"
#include "reservation.h"
#include "tap.h"
#include "util.h"

static struct {
        DlTemplate tmpl;
        int64_t runtime_us, period_us;
        int fail[8];            /* the result of each write to come, 0 once used up */
        size_t n_fail, writes;
} cg;

static int next_write(void) {
        return cg.writes < cg.n_fail ? cg.fail[cg.writes++] : (cg.writes++, 0);
}

unsigned kernelfs_cpus(KernelFs *k) {
        (void) k;
        return 2;
}

int kernelfs_template_read(KernelFs *k, const char *cgroup, DlTemplate *ret) {
        (void) k, (void) cgroup;
        *ret = cg.tmpl;
        return 0;
}

int kernelfs_template_write(KernelFs *k, const char *cgroup, const DlTemplate *t) {
        int r = next_write();

        (void) k, (void) cgroup;
        if (r == 0)
                cg.tmpl = *t;
        return r;
}

int kernelfs_cgroup_read(KernelFs *k, const char *cgroup, const char *file, int64_t *ret) {
        (void) k, (void) cgroup;
        *ret = streq_ptr(file, "cpu.dl_runtime_us") ? cg.runtime_us : cg.period_us;
        return 0;
}

int kernelfs_cgroup_write(KernelFs *k, const char *cgroup, const char *file, int64_t value) {
        int r = next_write();

        (void) k, (void) cgroup;
        if (r == 0)
                *(streq_ptr(file, "cpu.dl_runtime_us") ? &cg.runtime_us : &cg.period_us) = value;
        return r;
}

static void kernel(DlTemplate t, int64_t runtime_us, int64_t period_us, int n, const int *fail) {
        cg = (typeof(cg)) { .tmpl = t, .runtime_us = runtime_us, .period_us = period_us, .n_fail = n };
        for (int i = 0; i < n; i++)
                cg.fail[i] = fail[i];
}

static bool template_is(DlTemplate t) {
        return cg.tmpl.nr == t.nr && cg.tmpl.runtime_usec == t.runtime_usec &&
               cg.tmpl.deadline_usec == t.deadline_usec && cg.tmpl.period_usec == t.period_usec;
}

int main(void) {
        const DlTemplate old = { .nr = 1, .runtime_usec = 5000, .deadline_usec = 50000, .period_usec = 50000 };
        const DlTemplate larger = { .nr = 1, .runtime_usec = 9000, .deadline_usec = 50000, .period_usec = 50000 };
        Manager m = {};
        Service s = {
                .unit = (char *) "t.service", .cgroup = (char *) "/t.slice/t.service", .promote = PROMOTE_CGROUP,
                .req = { .runtime_usec = 9000, .deadline_usec = 50000, .period_usec = 50000, .threads = 1 },
        };
        bool lost = true;

        tap_begin();

        /* Template: clear, new (refused), old back. */
        kernel(old, -1, 1000000, 2, (int[]) { 0, -EBUSY });
        is_int(reservation_set(&m, &s, &lost), -EBUSY, "a larger template refused: -EBUSY");
        ok(!lost, "  the old one put back");
        ok(template_is(old), "  and in place");

        kernel(old, -1, 1000000, 3, (int[]) { 0, -EBUSY, -EBUSY });
        is_int(reservation_set(&m, &s, &lost), -EBUSY, "refused, and the old one refused back: -EBUSY");
        ok(lost, "  the caller is told the old one is lost");
        ok(template_is((DlTemplate) {}), "  and the cgroup has none");

        kernel(old, -1, 1000000, 0, NULL);
        is_int(reservation_set(&m, &s, &lost), 0, "a template that fits: taken");
        ok(!lost && template_is(larger) && s.by_template, "  in place, nothing lost");

        kernel(larger, -1, 1000000, 1, (int[]) { -EIO });
        is_int(reservation_set(&m, &s, &lost), 0, "the same template in place: nothing written");
        ok(!lost && cg.writes == 0, "  (no write)");

        /* Per-CPU runtime and period (a delegated unit): period first,
         * then runtime; the period is put back when the runtime is refused. */
        s.promote = PROMOTE_NONE;
        s.req = (DeadlineRequest) { .runtime_usec = 2000, .deadline_usec = 20000, .period_usec = 20000, .threads = 1 };
        kernel((DlTemplate) {}, 5000, 50000, 2, (int[]) { 0, -EBUSY });
        is_int(reservation_set(&m, &s, &lost), -EBUSY, "per-CPU: the runtime refused: -EBUSY");
        ok(!lost && cg.runtime_us == 5000 && cg.period_us == 50000, "  runtime and period as they were");

        kernel((DlTemplate) {}, 5000, 50000, 3, (int[]) { 0, -EBUSY, -EBUSY });
        is_int(reservation_set(&m, &s, &lost), -EBUSY, "per-CPU: refused, and the old period refused back");
        ok(lost, "  the caller is told the old reservation is lost");

        kernel((DlTemplate) {}, 5000, 50000, 0, NULL);
        is_int(reservation_set(&m, &s, &lost), 0, "per-CPU: fits: taken");
        ok(!lost && cg.period_us == 20000 && cg.runtime_us > 0 && !s.by_template, "  in place");

        return tap_done();
}
