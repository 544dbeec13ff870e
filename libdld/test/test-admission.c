/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "admission.h"
#include "util.h"
#include "tap.h"

static void test_arithmetic(void) {
        is_int(admission_to_ratio(1000000, 50000), 52428, "to_ratio 5%% rounds down like the kernel");
        is_int(admission_to_ratio(100000, 10000), 104857, "to_ratio 10ms/100ms");
        is_int(admission_to_ratio(1000, 1000), DL_BW_UNIT, "to_ratio of a full CPU is 1 << 20");
        is_int(admission_to_ratio(0, 5), 0, "to_ratio of period 0 is 0");
        is_int(admission_capacity(4, 50000, 1000000), 4 * 52428, "capacity is CPUs times the per-CPU share");
        ok(admission_capacity(4, -1, 1000000) == DL_BW_UNLIMITED, "runtime -1 is unlimited");
}

static void test_task_params(void) {
        ok(!admission_task_params_problem(2000, 10000, 10000), "2ms/10ms/10ms is valid");
        ok(admission_task_params_problem(0, 10000, 10000), "zero runtime refused");
        ok(admission_task_params_problem(1, 10000, 10000), "1us runtime below 1024ns refused");
        ok(admission_task_params_problem(3000, 2000, 10000), "runtime > deadline refused");
        ok(admission_task_params_problem(1000, 20000, 10000), "deadline > period refused");
        ok(admission_task_params_problem(10, 50, 50), "period below 100us refused");
        ok(admission_task_params_problem(1000, 5000000, 5000000), "period above 4s refused");
        ok(!admission_task_params_problem(1000, 4194304, 4194304), "period of exactly the maximum is valid");
}

static void test_system(void) {
        DlModel m;
        DlNode t;

        ok(!admission_system_problem(50000, 1000000, 950000, 1000000), "defaults: 5%% dl + 95%% rt fit");
        ok(admission_system_problem(60000, 1000000, 950000, 1000000), "6%% dl + 95%% rt exceed 100%%");
        ok(admission_system_problem(50001, 1000000, 950000, 1000000), "coupling is exact: 5.0001%% + 95%% exceed 100%%");
        ok(!admission_system_problem(1, 3, 2, 3), "coupling is exact: 1/3 + 2/3 fit");
        ok(!admission_system_problem(50000, 1000000, -1, 1000000), "rt -1 is exempt from the coupling");
        ok(!admission_system_problem(-1, 1000000, 950000, 1000000), "dl -1 is exempt from the coupling");
        ok(admission_system_problem(2000000, 1000000, 0, 1000000), "dl runtime > period refused");
        ok(admission_system_problem(1000, 0, 0, 1000000), "dl period 0 refused");
        ok(admission_system_problem(-2, 1000000, 0, 1000000), "dl runtime -2 refused");

        admission_model_init(&m, 2, 50000, 1000000, 950000, 1000000);
        is_int(admission_model_set_system(&m, 100000, 1000000, 950000, 1000000), -EINVAL, "raising dl without lowering rt: EINVAL");
        is_int(m.pool.runtime_us, 50000, "unchanged after EINVAL");
        is_int(admission_model_set_system(&m, 50000, 1000000, 900000, 1000000), 0, "lowering rt first");
        is_int(admission_model_set_system(&m, 100000, 1000000, 900000, 1000000), 0, "then raising dl");
        admission_model_add_node(&m, &t, NULL);
        is_int(admission_model_set_template(&m, &t, 1, 10, 100), 0, "a template of one task in the pool");
        is_int(m.pool.inner, 104857, "pool allocated = the task's bandwidth");
        is_int(admission_model_set_system(&m, 60000, 1000000, 900000, 1000000), 0, "lowering to 2 x 6%% still holds it");
        /* 2 x 52428 = 104856 < 104857: the kernel's rounding refuses this. */
        is_int(admission_model_set_system(&m, 50000, 1000000, 900000, 1000000), -EBUSY, "lowering below allocated (by rounding): EBUSY");
        is_int(m.pool.runtime_us, 60000, "unchanged after EBUSY");
}

static void test_groups(void) {
        DlModel m;
        DlNode a, b, c, u, z, t[2];
        uint64_t task = admission_to_ratio(1000000, 100000);   /* 104857 */

        /* 4 CPUs, 50% each: pool capacity 2 CPUs. */
        admission_model_init(&m, 4, 500000, 1000000, 500000, 1000000);
        admission_model_add_node(&m, &a, NULL);
        admission_model_add_node(&m, &b, &a);
        admission_model_add_node(&m, &c, &b);

        is_int(a.runtime_us, -1, "a new group holds no reservation");
        is_int(a.period_us, 1000000, "a new group's period is the system period");
        is_int(admission_model_set_reservation(&m, &a, 250000, 1000000), 0, "A: 25%% per CPU");
        is_int(m.pool.inner, 1048576, "pool charged 4 x 25%%");
        is_int(admission_model_set_reservation(&m, &b, 300000, 1000000), -EBUSY, "B larger than A: EBUSY");
        is_int(a.inner, 0, "A unchanged after EBUSY");
        is_int(admission_model_set_reservation(&m, &b, 125000, 1000000), 0, "B: 12.5%% per CPU inside A");
        is_int(a.inner, 524288, "A allocated = B's capacity");
        is_int(m.pool.inner, 1048576, "pool unchanged by nested reservation");

        /* C without a reservation: the templates inside it are charged to B. */
        admission_model_add_node(&m, &t[0], &c);
        admission_model_add_node(&m, &t[1], &c);
        is_int(admission_model_set_template(&m, &t[0], 5, 100000, 1000000), 0, "5 tasks in C's child charged to B");
        is_int(b.inner, 5 * task, "B allocated = 5 tasks");
        is_int(c.inner, 5 * task, "C's inner counts them");
        is_int(admission_model_set_template(&m, &t[1], 1, 100000, 1000000), -EBUSY, "a 6th task does not fit B");
        is_int(b.inner, 5 * task, "B unchanged after refusal");
        is_int(admission_node_free(&m, &c), 524288 - 5 * task, "free bandwidth seen from C");

        is_int(admission_model_set_reservation(&m, &b, 100000, 1000000), -EBUSY, "shrinking busy B below its tasks: EBUSY");
        is_int(b.runtime_us, 125000, "B unchanged");
        is_int(admission_model_set_reservation(&m, &c, 200000, 1000000), -EBUSY, "C larger than B's free part: EBUSY");
        is_int(admission_model_set_reservation(&m, &c, 125000, 1000000), 0, "C reserves all of B, just enough for its tasks");
        is_int(b.inner, 524288, "B now holds C's capacity");
        is_int(c.inner, 5 * task, "C holds its tasks");
        is_int(admission_model_set_reservation(&m, &c, -1, 1000000), 0, "C back to -1 moves its tasks up");
        is_int(b.inner, 5 * task, "B holds the tasks again");

        is_int(admission_model_set_template(&m, &t[0], 0, 0, 0), 0, "the template removed");
        is_int(b.inner, 0, "B empty after it");
        is_int(c.inner, 0, "C empty after it");

        /* 0 forbids deadline tasks in the subtree. */
        admission_model_add_node(&m, &z, &a);
        admission_model_add_node(&m, &u, &z);
        is_int(admission_model_set_reservation(&m, &z, 0, 1000000), 0, "Z: 0 reservation");
        is_int(admission_model_set_template(&m, &u, 1, 100000, 1000000), -EBUSY, "template under a 0 reservation: EBUSY");
        is_int(admission_model_set_reservation(&m, &u, 1000, 1000000), -EBUSY, "reservation under 0: EBUSY");

        /* Reservations dropped (runtime -1) give back what they held. */
        is_int(admission_model_set_reservation(&m, &z, -1, 1000000), 0, "Z back to -1");
        is_int(admission_model_set_reservation(&m, &b, -1, 1000000), 0, "B back to -1");
        is_int(a.inner, 0, "A empty after B gave its reservation back");
        is_int(admission_model_set_reservation(&m, &a, -1, 1000000), 0, "A back to -1");
        is_int(m.pool.inner, 0, "pool empty after A gave its reservation back");
}

static void test_observed(void) {
        DlModel m;
        DlNode g, u;

        admission_model_init(&m, 2, 500000, 1000000, 500000, 1000000);
        m.pool.inner = 400000;
        admission_model_add_observed(&g, &m.pool, 200000, 1000000, 100000);
        admission_model_add_node(&m, &u, &g);
        is_int(admission_node_free(&m, &u), 2 * 209715 - 100000, "free inside an observed group");
        is_int(admission_model_set_reservation(&m, &u, 200000, 1000000), -EBUSY, "unit reservation larger than group free: EBUSY");
        is_int(admission_model_set_reservation(&m, &u, 50000, 1000000), 0, "unit reservation that fits");
        is_int(g.inner, 100000 + 2 * 52428, "group allocated grows by the unit's capacity");
        is_int(m.pool.inner, 400000, "pool unchanged");
}

/* The kernel's test, written again from kernel/patches/0022 and 0024: the values in
 * ns, to_ratio() on u64, a task admitted while tasks_bw + bw <= cap. How
 * many tasks of runtime/period (µs) a unit cgroup of rt/period per CPU on
 * cpus CPUs admits, counting up to limit. */
static unsigned kernel_admits(uint64_t rt_us, uint64_t runtime_us, uint64_t period_us, unsigned cpus, unsigned limit) {
        uint64_t cap = ((rt_us * 1000) << 20) / (period_us * 1000) * cpus;
        uint64_t bw = ((runtime_us * 1000) << 20) / (period_us * 1000), allocated = 0;
        unsigned n = 0;

        while (n < limit) {
                if (bw && allocated + bw > cap)
                        break;
                allocated += bw;
                n++;
        }
        return n;
}

static void test_threads_runtime(void) {
        static const uint64_t runtimes[] = { 2, 3, 5, 7, 9, 10, 13, 17, 50, 99, 100, 101, 333, 1000, 1001, 1234,
                                             2000, 2500, 3000, 9999, 12000, 33333, 50000, 99999, 100000, 1000000 };
        static const uint64_t periods[] = { 100, 101, 128, 997, 1000, 1024, 10000, 20000, 33333, 100000,
                                            1000000, 1048575, 1048576, 1048577, 2097152, 4194304 };
        static const unsigned threads[] = { 1, 2, 3, 4, 5, 7, 8, 13, 64, 1000, DL_THREADS_MAX, DL_THREADS_ALL };
        static const unsigned cpuss[] = { 1, 2, 3, 4, 8, 64 };
        unsigned combos = 0, fit = 0, exact = 0, loose = 0, too_big = 0, wrong = 0;
        uint64_t rt;

        for (size_t a = 0; a < ELEMENTSOF(runtimes); a++)
                for (size_t b = 0; b < ELEMENTSOF(periods); b++)
                        for (size_t c = 0; c < ELEMENTSOF(threads); c++)
                                for (size_t d = 0; d < ELEMENTSOF(cpuss); d++) {
                                        uint64_t R = runtimes[a], P = periods[b];
                                        unsigned C = cpuss[d], N = admission_threads_count(threads[c], C), got;
                                        int k;

                                        if (R > P)
                                                continue;
                                        combos++;
                                        k = admission_threads_runtime(R, P, threads[c], C, &rt);
                                        if (k == -ERANGE) {
                                                /* Right only if a whole-CPU reservation cannot hold them. */
                                                if (kernel_admits(P, R, P, C, N) < N)
                                                        too_big++;
                                                else if (wrong++ < 10)
                                                        printf("# %" PRIu64 "/%" PRIu64 " x%u on %u: ERANGE, but they fit\n", R, P, N, C);
                                                continue;
                                        }
                                        got = kernel_admits(rt, R, P, C, N + 1);
                                        if (k == 0 && rt >= 1 && rt <= P && got == N) {
                                                exact++;
                                                fit++;
                                        } else if (k == 0 && rt >= 1 && rt <= P && got > N &&
                                                   (threads[c] == DL_THREADS_ALL ? rt == R :
                                                    rt == 1 || kernel_admits(rt - 1, R, P, C, N) < N)) {
                                                /* No smaller whole-µs runtime holds the N: documented. */
                                                loose++;
                                                fit++;
                                                if (R > 4 * (uint64_t) C && wrong++ < 10)
                                                        printf("# %" PRIu64 "/%" PRIu64 " x%u on %u: %" PRIu64 "us holds %u, not exact\n",
                                                               R, P, N, C, rt, got);
                                        } else if (wrong++ < 10)
                                                printf("# %" PRIu64 "/%" PRIu64 " x%u on %u: %d, %" PRIu64 "us holds %u\n",
                                                       R, P, N, C, k, rt, got);
                                }
        printf("# %u combinations: %u exact, %u hold more (runtime of a few us per CPU), %u need more than the CPUs\n",
               combos, exact, loose, too_big);
        is_int(wrong, 0, "every reservation holds its threads, refuses one more unless no whole-us runtime can, "
               "and is exact for runtimes over 4us per CPU");
        ok(exact > 0 && loose < exact, "most combinations are exact (%u of %u)", exact, fit);

        /* The README's examples. */
        is_int(admission_threads_runtime(12000, 100000, 1, 2, &rt), 0, "12ms/100ms, 1 thread, 2 CPUs");
        is_int(rt, 6001, "  6001us per CPU: 6000 rounds to 2 x 62914 < 125829");
        is_int(kernel_admits(6000, 12000, 100000, 2, 2), 0, "  (6000us per CPU would refuse the thread)");
        is_int(admission_threads_runtime(12000, 100000, DL_THREADS_ALL, 2, &rt), 0, "12ms/100ms on all CPUs");
        is_int(rt, 12000, "  the request on each CPU");
        is_int(admission_threads_runtime(2000, 20000, 3, 4, &rt), 0, "2ms/20ms, 3 threads, 4 CPUs");
        is_int(kernel_admits(rt, 2000, 20000, 4, 5), 3, "  holds 3 threads, not 4");
        is_int(admission_threads_runtime(2, 4194304, 1, 4, &rt), 0, "a bandwidth that rounds to 0");
        is_int(rt, 1, "  reserves 1us, not 0 (which forbids deadline tasks)");
        is_int(admission_threads_runtime(60000, 100000, 4, 2, &rt), -ERANGE, "4 x 60%% on 2 CPUs: more than the CPUs");
        is_int(admission_threads_runtime(50000, 100000, 4, 2, &rt), 0, "4 x 50%% on 2 CPUs: all of them");
        is_int(rt, 100000, "  the whole period");
        is_int(admission_threads_runtime(1000, 10000, 1, 0, &rt), -EINVAL, "no CPUs: EINVAL");
}


/* The kernel's template arithmetic, written again from kernel/patches/0033:
 * a template reserves nr * to_ratio(period, runtime), the values in ns, and
 * is set while what its holder has allocated plus it fits the holder's
 * capacity, cpus * to_ratio(group period, group runtime). How many units
 * of nr tasks of runtime/period a group of grt/gpe per CPU takes, in order,
 * counting up to limit. */
static unsigned kernel_templates_fit(uint64_t grt_us, uint64_t gpe_us, unsigned cpus, uint64_t runtime_us,
                                     uint64_t period_us, unsigned nr, unsigned limit) {
        uint64_t cap = ((grt_us * 1000) << 20) / (gpe_us * 1000) * cpus;
        uint64_t one = nr * (((runtime_us * 1000) << 20) / (period_us * 1000)), allocated = 0;
        unsigned n = 0;

        while (n < limit && allocated + one <= cap) {
                allocated += one;
                n++;
        }
        return n;
}

/* dlconf check's prediction against the kernel's arithmetic: units with
 * templates fill a group exactly as their tasks would. */
static void test_template_sweep(void) {
        static const uint64_t runtimes[] = { 1, 2, 7, 10, 99, 100, 333, 1000, 1001, 2000, 9999, 10000, 12000, 33333, 50000 };
        static const uint64_t periods[] = { 100, 128, 997, 1000, 10000, 20000, 33333, 100000, 1000000, 4194304 };
        static const unsigned nrs[] = { 1, 2, 3, 4, 7, 64 };
        static const struct { uint64_t rt, pe; } groups[] = {
                { 10000, 100000 }, { 5000, 100000 }, { 1, 1000 }, { 333, 1000 }, { 400000, 1000000 }, { 95000, 100000 },
        };
        static const unsigned cpuss[] = { 1, 2, 3, 4, 8 };
        unsigned combos = 0, wrong = 0;

        for (size_t a = 0; a < ELEMENTSOF(runtimes); a++)
                for (size_t b = 0; b < ELEMENTSOF(periods); b++)
                        for (size_t c = 0; c < ELEMENTSOF(nrs); c++)
                                for (size_t g = 0; g < ELEMENTSOF(groups); g++)
                                        for (size_t d = 0; d < ELEMENTSOF(cpuss); d++) {
                                                uint64_t R = runtimes[a], P = periods[b];
                                                unsigned C = cpuss[d], N = nrs[c], want, got = 0;
                                                DlNode grp, units[40];
                                                DlModel m;

                                                if (R > P || R * 1000 < DL_TASK_RUNTIME_MIN_NS)
                                                        continue;
                                                combos++;
                                                want = kernel_templates_fit(groups[g].rt, groups[g].pe, C, R, P, N, 40);
                                                admission_model_init(&m, C, -1, 1000000, -1, 1000000);
                                                admission_model_add_node(&m, &grp, NULL);
                                                if (admission_model_set_reservation(&m, &grp, (int64_t) groups[g].rt, groups[g].pe) < 0) {
                                                        wrong++;
                                                        continue;
                                                }
                                                for (unsigned i = 0; i < 40; i++) {
                                                        admission_model_add_node(&m, &units[i], &grp);
                                                        if (admission_model_set_template(&m, &units[i], N, R, P) == 0)
                                                                got++;
                                                        else
                                                                break;
                                                }
                                                if (got != want && wrong++ < 10)
                                                        printf("# %" PRIu64 "/%" PRIu64 " x%u in %" PRIu64 "/%" PRIu64
                                                               " on %u: model %u units, kernel %u\n", R, P, N,
                                                               groups[g].rt, groups[g].pe, C, got, want);
                                        }
        printf("# %u template combinations\n", combos);
        ok(combos >= 10000, "at least 10,000 combinations of N, runtime, period, group and CPUs (%u)", combos);
        is_int(wrong, 0, "the model admits exactly the units the kernel's arithmetic admits, in every combination");
}

static void test_templates(void) {
        DlModel m;
        DlNode g, u[6], r;
        unsigned n = 0;

        /* The 4-of-5 case: 10% of each of 4 CPUs holds four 10ms/100ms units. */
        admission_model_init(&m, 4, 950000, 1000000, -1, 1000000);
        admission_model_add_node(&m, &g, NULL);
        is_int(admission_model_set_reservation(&m, &g, 10000, 100000), 0, "group of 10%% per CPU on 4 CPUs");
        for (unsigned i = 0; i < 5; i++) {
                admission_model_add_node(&m, &u[i], &g);
                if (admission_model_set_template(&m, &u[i], 1, 10000, 100000) == 0)
                        n++;
        }
        is_int(n, 4, "five one-thread 10ms/100ms units: four admitted, as four tasks would be");
        is_int(g.inner, 4 * 104857, "the group holds exactly four tasks' bandwidth");
        is_int(admission_node_charge(&m, &u[0]), 104857, "a template charges nr x to_ratio");

        /* A template and a reservation exclude each other; one holds what is inside. */
        admission_model_add_node(&m, &r, &g);
        is_int(admission_model_set_template(&m, &u[4], 0, 0, 0), 0, "\"none\" on a unit without a template");
        is_int(admission_model_set_reservation(&m, &u[0], 1000, 100000), -EBUSY, "reservation over a template: EBUSY");
        is_int(admission_model_set_template(&m, &u[0], 0, 0, 0), 0, "\"none\" gives the template back");
        is_int(g.inner, 3 * 104857, "  to the group");
        is_int(admission_model_set_template(&m, &u[0], 0, 0, 0), 0, "\"none\" twice");
        is_int(admission_model_set_template(&m, &u[0], 1025, 1000, 100000), -EINVAL, "1025 tasks: EINVAL");
        is_int(admission_model_set_template(&m, &u[0], 1, 2000, 1000), -EINVAL, "runtime over the period: EINVAL");
        is_int(admission_model_set_template(&m, &u[0], 2, 10000, 100000), -EBUSY, "two tasks where one is left: EBUSY");
        is_int(g.inner, 3 * 104857, "  the refusal changed nothing");
}

int main(void) {
        tap_begin();
        test_threads_runtime();
        test_arithmetic();
        test_task_params();
        test_system();
        test_groups();
        test_observed();
        test_templates();
        test_template_sweep();
        return tap_done();
}
