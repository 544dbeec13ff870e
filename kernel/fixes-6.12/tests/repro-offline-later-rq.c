// SPDX-License-Identifier: GPL-2.0
/*
 * Bug 11 of docs/kernel-bugs.md, fixed in the 6.1 series by patch 0011
 * ("sched/deadline: Do not migrate a throttled task to a CPU going
 * offline"): the replenishment timer of a task throttled on a CPU that
 * went offline moves it to the runqueue find_lock_later_rq() picks, from
 * the cpudl of the offline runqueue's root domain, the default one,
 * which can still offer a CPU that is going down itself: set_task_cpu()
 * warns (WARN_ON_ONCE(!cpu_online(new_cpu))) and the task would not run
 * until that CPU came back (6.12: dl_task_offline_migration(), the same;
 * its rebuild attaches a dying CPU to the default root domain
 * synchronously in sched_cpu_deactivate(), while it still runs tasks).
 *
 * No deterministic recipe is known: the 6.1 stress (guest test 29) found
 * it. This runs a 15 s stress (stress.h): 4 deadline tasks with 2-5 ms
 * periods, throttled most of the time, while two CPUs go offline and
 * online concurrently, each in its own loop. Fails on a hung hotplug, an
 * oops (taint D), a log line naming set_task_cpu or an offline CPU's
 * reschedule, or a deadline task that stopped running. Statistical, and
 * the warning is WARN_ON_ONCE (first hit per boot only). Needs 3 CPUs,
 * two hot-pluggable.
 */
#include "stress.h"

int main(void)
{
	const char *const signature[] = { "set_task_cpu", "Unexpected reschedule of offline CPU",
					  "not properly vacated", NULL };
	int cpus[2];

	repro_start("repro-offline-later-rq",
		    "docs/kernel-bugs.md #11, 6.1 patch 0011 (a throttled task moved to a CPU going offline)",
		    "deadline tasks throttling while two CPUs go offline and online concurrently for 15 s (statistical stress)",
		    120);
	require_two_offlinable_cpus(&cpus[0], &cpus[1]);
	require_dl_admission();
	tap_plan(3);
	stress_run(cpus, 2, 15 * NSEC_PER_SEC, signature);
	tap_finish();
}
