// SPDX-License-Identifier: GPL-2.0
/*
 * Bug 4 of docs/kernel-bugs.md, fixed in the 6.1 series by patch 0005
 * ("sched/deadline: Move a throttled task off an offline CPU ..."): a
 * throttled deadline task is not counted in nr_running, so a CPU going
 * offline leaves it queued there for its replenishment timer to move
 * (dl_task_timer() -> dl_task_offline_migration()). Made SCHED_OTHER
 * before that timer fires, __sched_setscheduler() requeues it on the
 * offline CPU (6.12: kernel/sched/syscalls.c goes straight from
 * task_rq_lock() to dequeue_task()/enqueue_task()): it does not run until
 * that CPU comes back, and the resched IPI to the dead CPU warns
 * ("sched: Unexpected reschedule of offline CPU#N!"; on 6.12 the fair
 * server's dl_server_start() may also warn on the offline runqueue).
 *
 * As guest test 23: a child enters SCHED_DEADLINE (1 ms every 4 s) on
 * the highest CPU and spins until throttled; that CPU goes offline; the
 * child is made SCHED_OTHER well before its replenishment time; it must
 * run within 500 ms, and the kernel log must not show those warnings.
 * Needs 2 CPUs, one of them hot-pluggable.
 */
#include "repro.h"

#define RUNTIME (1 * NSEC_PER_MSEC)
#define PERIOD (4 * NSEC_PER_SEC)

int main(void)
{
	const char *const warn_pat[] = { "Unexpected reschedule of offline CPU", "dl_server_start",
					 "not properly vacated", NULL };
	unsigned long before = 0, after = 0;
	int cpu, n, err, kmsg, warned, result = -1;
	struct dl_spinner *sh;
	pid_t pid;

	repro_start("repro-throttled-offline-requeue",
		    "docs/kernel-bugs.md #4, 6.1 patch 0005 (a throttled task on an offline CPU requeued there by sched_setattr())",
		    "a task throttled on a CPU gone offline, made SCHED_OTHER: it runs elsewhere at once", 90);
	cpu = require_offlinable_cpu();
	require_dl_admission();
	tap_plan(2);
	diag_other_dl_tasks(false);
	sh = shared_alloc(sizeof(*sh));
	kmsg = kmsg_open();

	for (n = 1; n <= 3 && result < 0; n++) {
		pid = spawn_dl_spinner(sh, cpu, RUNTIME, PERIOD);
		sleep_ms(100);
		before = sh->count;
		sleep_ms(50);
		if (!before || sh->count != before || last_cpu(pid) != cpu) {
			diag("attempt %d: count %lu -> %lu, last on cpu%d (want throttled on cpu%d); again", n,
			     before, sh->count, last_cpu(pid), cpu);
			set_other(pid);
			kill_kid(pid);
			continue;
		}
		cpu_offline_or_bail(cpu);
		if (now_ns() > sh->t_admit + PERIOD - NSEC_PER_SEC) {
			diag("attempt %d: the offline took until %.0f ms after admission, too near the replenishment; again",
			     n, (now_ns() - sh->t_admit) / 1e6);
			set_other(pid);
			kill_kid(pid);
			err = cpu_set_online(cpu, true, 10000);
			if (err)
				bail("cpu%d online: %s", cpu, repro_strerror(err));
			continue;
		}
		err = set_other(pid);
		if (err)
			bail("sched_setattr(SCHED_OTHER): %s", strerror(-err));
		before = sh->count;
		sleep_ms(500);
		after = sh->count;
		diag("attempt %d: throttled on cpu%d, cpu%d offline, made SCHED_OTHER %.0f ms after admission: "
		     "count %lu -> %lu in 500 ms (state %c, last cpu %d)", n, cpu, cpu,
		     (now_ns() - sh->t_admit) / 1e6, before, after, proc_state(pid), last_cpu(pid));
		result = after != before;
		err = cpu_set_online(cpu, true, 10000);
		if (err)
			bail("cpu%d online again: %s", cpu, repro_strerror(err));
		kill_kid(pid);
	}
	if (result < 0) {
		tap_skip("no attempt got a task throttled on cpu%d before it went offline", cpu);
		tap_skip("not reached");
		tap_finish();
	}
	tap_result(result == 1, "throttled on cpu%d, cpu%d offline, made SCHED_OTHER: it runs at once", cpu, cpu);
	warned = kmsg_scan(kmsg, warn_pat, 10);
	if (warned < 0)
		tap_skip("/dev/kmsg unreadable");
	else
		tap_result(!warned, "no offline-CPU reschedule or dl_server warning in the kernel log (%d)", warned);
	tap_finish();
}
