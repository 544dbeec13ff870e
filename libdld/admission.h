/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A model of the kernel's deadline bandwidth admission control (see
 * Documentation/scheduler/sched-deadline.rst, section 4, of the dlsched
 * kernel), used by dld to predict and order its kernel writes, and by
 * dlconf to predict verdicts offline. It mirrors the kernel's arithmetic:
 *
 *  - bandwidth is fixed point, 1 << 20 is one CPU; the bandwidth of
 *    runtime/period is (runtime << 20) / period, rounded down (to_ratio()).
 *  - the system pool and every group reservation give runtime/period of
 *    each CPU of the root domain: capacity = CPUs * to_ratio(period, runtime).
 *  - a group with runtime -1 holds nothing of its own: its tasks, templates
 *    and reserved children are charged to the nearest reserved ancestor (or
 *    the pool); runtime 0 forbids deadline tasks in the subtree (the kernel's
 *    EPERM) and a reservation or template inside it (EBUSY).
 *  - a reservation must fit the free bandwidth of its holder and may not be
 *    smaller than what is allocated inside it (EBUSY); runtime > period or a
 *    zero period is EINVAL.
 *  - the system knobs: rt_runtime/rt_period + dl_runtime/dl_period <= 1,
 *    compared exactly, unless either runtime is -1 (EINVAL), and the pool not
 *    below what it has allocated (EBUSY).
 *  - the number of CPUs is the kernel's num_active_cpus().
 *
 * Nodes are owned by the caller (embedded in its own structures) and point
 * to their parent; operations are all-or-nothing: on error nothing changed.
 * Tasks are not modelled one by one: what they hold comes with a group read
 * from the kernel (admission_model_add_observed()). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DL_BW_SHIFT 20
#define DL_BW_UNIT (UINT64_C(1) << DL_BW_SHIFT)
#define DL_BW_UNLIMITED UINT64_MAX

/* Kernel defaults. */
#define DL_DEFAULT_RUNTIME_US 50000
#define DL_DEFAULT_PERIOD_US  1000000
#define RT_DEFAULT_RUNTIME_US 950000
#define RT_DEFAULT_PERIOD_US  1000000

/* __checkparam_dl(): runtime >= 1 << DL_SCALE ns, period within
 * sched_deadline_period_{min,max}_us (defaults). */
#define DL_TASK_RUNTIME_MIN_NS 1024
#define DL_TASK_PERIOD_MIN_US  100
#define DL_TASK_PERIOD_MAX_US  (1U << 22)

typedef struct DlNode {
        struct DlNode *parent;  /* NULL only for the system pool */
        int64_t runtime_us;     /* -1: no own reservation, 0: no deadline, >0: reserved */
        uint64_t period_us;
        uint64_t inner;         /* allocated inside: tasks + children's charges (cpu.dl_total_bw) */
        uint64_t template_bw;   /* a task template (cpu.dl_template): NR x one task's bandwidth; 0: none */
} DlNode;

typedef struct DlModel {
        unsigned cpus;
        DlNode pool;            /* sched_dl_runtime_us/period_us; inner = sched_dl_total_bw */
        int64_t rt_runtime_us;
        uint64_t rt_period_us;
} DlModel;

/* (runtime << 20) / period, as the kernel's to_ratio(). */
uint64_t admission_to_ratio(uint64_t period, uint64_t runtime);

/* X-DeadlineThreads=: how many threads of the request a unit's reservation
 * holds. DL_THREADS_ALL (the key's value "all") is one per CPU: the request
 * itself reserved on each CPU. DL_THREADS_MAX is a sanity cap (a typo such as
 * 40000 is refused, not turned into a reservation of whole CPUs). */
#define DL_THREADS_ALL UINT32_MAX
#define DL_THREADS_MAX 1024U

/* The per-CPU runtime, in µs every period_us, of a cgroup reservation that
 * the kernel lets hold exactly `threads` tasks of runtime_us/period_us on
 * `cpus` CPUs, and refuses one more: tasks are admitted while their summed
 * to_ratio() stays within cpus * to_ratio(period, runtime) (the kernel's
 * values in ns; scaling both by 1000 leaves the ratio's floor alone). It is
 * the smallest runtime that holds the threads, and it refuses one more
 * thread whenever runtime_us > 4 * cpus (checked in test-admission). For
 * smaller runtimes one µs of the reservation, on every CPU, can be worth
 * more than a thread, no whole-µs runtime holds N and refuses N + 1, and
 * holding the N wins: the reservation is then 1µs per CPU too large at most.
 * DL_THREADS_ALL gives runtime_us itself. Returns 0, -EINVAL (no threads,
 * no CPUs, zero period) or -ERANGE (the threads need more than the whole CPUs). */
int admission_threads_runtime(uint64_t runtime_us, uint64_t period_us, unsigned threads, unsigned cpus,
                       uint64_t *ret_runtime_us);

/* What a task template of `threads` tasks of runtime_us/period_us reserves
 * (cpu.dl_template): exactly threads x to_ratio(period, runtime), whatever
 * the number of CPUs; DL_THREADS_ALL is one task per CPU. */
uint64_t admission_template_bw(uint64_t runtime_us, uint64_t period_us, unsigned threads, unsigned cpus);

/* The threads a reservation holds: `threads`, or cpus for DL_THREADS_ALL. */
unsigned admission_threads_count(unsigned threads, unsigned cpus);

/* CPUs * to_ratio(period, runtime); DL_BW_UNLIMITED for runtime -1. */
uint64_t admission_capacity(unsigned cpus, int64_t runtime_us, uint64_t period_us);

/* Why the kernel would refuse these sched_attr parameters (EINVAL), or NULL. */
const char *admission_task_params_problem(uint64_t runtime_us, uint64_t deadline_us, uint64_t period_us);

/* Why the system knobs are invalid (EINVAL: range, coupling), or NULL. */
const char *admission_system_problem(int64_t dl_runtime_us, uint64_t dl_period_us,
                              int64_t rt_runtime_us, uint64_t rt_period_us);

void admission_model_init(DlModel *m, unsigned cpus,
                   int64_t dl_runtime_us, uint64_t dl_period_us,
                   int64_t rt_runtime_us, uint64_t rt_period_us);

/* A new group under parent (NULL: the pool), as the kernel creates it:
 * runtime -1, the system period, nothing inside. */
void admission_model_add_node(DlModel *m, DlNode *n, DlNode *parent);

/* A group in a known state (read from the kernel); charges nothing, the
 * caller provides consistent values (parents' inner already include it). */
void admission_model_add_observed(DlNode *n, DlNode *parent, int64_t runtime_us, uint64_t period_us, uint64_t inner);

/* What the node costs its holder: its capacity if reserved, else its inner. */
uint64_t admission_node_charge(const DlModel *m, const DlNode *n);
uint64_t admission_node_capacity(const DlModel *m, const DlNode *n);
/* Free bandwidth of n's holder (DL_BW_UNLIMITED without admission control). */
uint64_t admission_node_free(DlModel *m, DlNode *n);

/* cpu.dl_runtime_us / cpu.dl_period_us of n: 0, -EINVAL or -EBUSY. */
int admission_model_set_reservation(DlModel *m, DlNode *n, int64_t runtime_us, uint64_t period_us);

/* cpu.dl_template of n: nr tasks of runtime_us/period_us (nr 0: "none").
 * 0, -EBUSY (n holds a reservation; the template does not fit in its
 * holder, or is smaller than what n holds already) or -EINVAL. */
int admission_model_set_template(DlModel *m, DlNode *n, unsigned nr, uint64_t runtime_us, uint64_t period_us);

/* The four sysctls at once: 0, -EINVAL or -EBUSY. */
int admission_model_set_system(DlModel *m, int64_t dl_runtime_us, uint64_t dl_period_us,
                        int64_t rt_runtime_us, uint64_t rt_period_us);

/* How the model's quantities read: "12.50%" of one CPU for a fixed-point
 * bandwidth; "3", or "all" for DL_THREADS_ALL. */
#define ADMISSION_PERCENT_MAX 32
char *admission_bw_to_percent(char *buf, size_t size, uint64_t bw);
const char *admission_threads_to_string(char *buf, size_t size, unsigned threads);
