// SPDX-License-Identifier: GPL-2.0
/*
 * Bug 2 of docs/kernel-bugs.md, fixed in the 6.1 series by patch 0004
 * ("sched/deadline: Do not migrate a running task off an offline
 * runqueue"): with CPU hotplug, a deadline task throttled while still
 * running on a CPU going offline (its runqueue already !online) is
 * migrated by its replenishment timer while it runs
 * (dl_task_timer() -> dl_task_offline_migration(), no task_on_cpu()
 * check; 6.12: kernel/sched/deadline.c, the same). It then runs on two
 * CPUs at once, and rb_erase() in set_next_task_dl() dereferences NULL.
 * In 6.12 the runqueue goes offline in sched_cpu_deactivate() while the
 * CPU still runs tasks until balance_push drains it, so the window
 * exists.
 *
 * No deterministic recipe is known: the 6.1 stress (guest test 29) found
 * it. This runs a 15 s stress (stress.h): 4 deadline tasks with 2-5 ms
 * periods, throttled most of the time, while one CPU goes offline and
 * online in a loop. Fails on a hung hotplug, an oops (taint D), a log
 * line naming set_next_task_dl/rb_erase/a NULL dereference/cpuacct, or a
 * deadline task that stopped running. Statistical: a pass proves little.
 * Needs 2 CPUs, one hot-pluggable.
 */
#include "stress.h"

int main(void)
{
	const char *const signature[] = { "set_next_task_dl", "rb_erase", "NULL pointer dereference",
					  "cpuacct", "set_task_cpu", NULL };
	int cpu;

	repro_start("repro-offline-running-migrate",
		    "docs/kernel-bugs.md #2, 6.1 patch 0004 (the replenishment timer migrates a task still running on an offline runqueue)",
		    "deadline tasks throttling while a CPU goes offline and online for 15 s (statistical stress)", 120);
	cpu = require_offlinable_cpu();
	require_dl_admission();
	tap_plan(3);
	stress_run(&cpu, 1, 15 * NSEC_PER_SEC, signature);
	tap_finish();
}
