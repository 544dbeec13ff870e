// SPDX-License-Identifier: GPL-2.0
/*
 * Bug 5 of docs/kernel-bugs.md, fixed in the 6.1 series by patch 0006
 * ("sched/deadline: Do not take back bandwidth a root domain rebuild
 * dropped"): a root domain rebuild (CPU hotplug, cpuset changes) zeroes
 * total_bw and recounts the tasks then in SCHED_DEADLINE
 * (dl_clear_root_domain(), dl_rebuild_rd_accounting(),
 * dl_add_task_root_domain() skips !dl_task(p)). A task that left
 * SCHED_DEADLINE (or exited) before its 0-lag time is no longer counted,
 * but its inactive timer still takes its bandwidth back at that time
 * (inactive_task_timer(), task_non_contending()): a second time. 6.12
 * code is the same.
 *
 * Recipe, as guest test 23 without the throttled-on-offline part:
 *   0. a calibration offline/online cycle of one CPU, so that the fair
 *      servers' bandwidth in the root domain is what a destructive
 *      rebuild leaves (6.12 re-adds the servers there, see repro.h);
 *      then the baseline;
 *   1. a child enters SCHED_DEADLINE (100 ms every 3 s) and spins until
 *      throttled: its 0-lag time is its deadline, about 3 s after the
 *      admission (plus its overrun x 30, from /proc/PID/sched);
 *   2. it is made SCHED_OTHER: its release is left to the inactive timer;
 *   3. before that, a CPU goes offline and online (two rebuilds, neither
 *      counting the task);
 *   4. after its 0-lag time the root domain's total_bw must be the
 *      baseline. On stock 6.12 it is baseline - 34952 (the task's
 *      bandwidth taken back twice; with a larger one it wraps negative
 *      and every admission gets EBUSY).
 * Finally one more offline/online cycle recounts the root domain (it
 * heals what the bug took). Needs 2 CPUs, one hot-pluggable.
 */
#include "repro.h"

#define RUNTIME (100 * NSEC_PER_MSEC)
#define PERIOD (3 * NSEC_PER_SEC)

static int cpu;

static void cycle(const char *why)
{
	int err = cpu_set_online(cpu, false, 10000);

	if (!err)
		err = cpu_set_online(cpu, true, 10000);
	if (err)
		bail("%s: cpu%d offline/online: %s", why, cpu, repro_strerror(err));
	sleep_ms(100);
}

int main(void)
{
	long long base, admitted, mid, end, healed, runtime = 1, bw = dl_bw(RUNTIME, PERIOD);
	uint64_t zerolag, done;
	unsigned long before;
	int i, err, attempt, result = -1;
	struct dl_spinner *sh;
	pid_t pid;

	repro_start("repro-rebuild-total-bw",
		    "docs/kernel-bugs.md #5, 6.1 patch 0006 (a root domain rebuild's bandwidth taken back a second time)",
		    "a task leaves SCHED_DEADLINE before its 0-lag time, a rebuild, then the 0-lag time: total_bw as before",
		    90);
	cpu = require_offlinable_cpu();
	plan_total_bw_checks(2);
	sh = shared_alloc(sizeof(*sh));

	for (attempt = 1; attempt <= 2 && result < 0; attempt++) {
		cycle("calibration");
		base = rd_total_bw(0);
		sleep_ms(100);
		if (rd_total_bw(0) != base)
			diag("the root domain's total_bw moves on its own (%lld, %lld): other deadline activity?",
			     base, rd_total_bw(0));
		diag("attempt %d: after a calibration cycle of cpu%d: root domain total_bw %lld "
		     "(cpu0's fair server %lld)", attempt, cpu, base, fair_server_bw(0));
		pid = spawn_dl_spinner(sh, -1, RUNTIME, PERIOD);
		admitted = rd_total_bw(0);
		/* Throttled once its 100 ms are spent: the count stands still. */
		for (i = 0; i < 100; i++) {
			before = sh->count;
			sleep_ms(30);
			if (before && sh->count == before)
				break;
		}
		if (proc_sched_field(pid, "dl.runtime", &runtime) || runtime > 0) {
			diag("attempt %d: the task is not throttled (dl.runtime %lld); again", attempt, runtime);
			set_other(pid);
			kill_kid(pid);
			/* Its release may still be pending: let it pass before the next baseline. */
			sleep_until(sh->t_admit + PERIOD + 300 * NSEC_PER_MSEC);
			continue;
		}
		zerolag = sh->t_admit + PERIOD + (uint64_t)(-runtime) * (PERIOD / RUNTIME);
		err = set_other(pid);
		if (err)
			bail("sched_setattr(SCHED_OTHER): %s", strerror(-err));
		cycle("the rebuild");
		done = now_ns();
		mid = rd_total_bw(0);
		diag("attempt %d: admitted (delta %lld, bw %lld), throttled (dl.runtime %lld ns), made SCHED_OTHER, "
		     "cpu%d offline and online %.0f ms before its 0-lag time: delta %lld", attempt,
		     admitted - base, bw, runtime, cpu, ((double)zerolag - (double)done) / 1e6, mid - base);
		if (done + 100 * NSEC_PER_MSEC > zerolag) {
			diag("attempt %d: the hotplug took too long, past the 0-lag time; again", attempt);
			kill_kid(pid);
			sleep_until(zerolag + 300 * NSEC_PER_MSEC);
			continue;
		}
		tap_result(admitted - base == bw, "the admission charged the task's bandwidth (delta %lld, want %lld)",
			   admitted - base, bw);
		sleep_until(zerolag + 300 * NSEC_PER_MSEC);
		end = rd_total_bw_wait(base, 1000);
		diag("after its 0-lag time: root domain total_bw %lld, baseline %lld (delta %lld; the bug: -%lld)",
		     end, base, end - base, bw);
		result = end == base;
		kill_kid(pid);
	}
	if (result < 0) {
		tap_skip("no attempt rebuilt the root domain before the task's 0-lag time");
		tap_finish();
	}
	tap_result(result == 1, "after the rebuild and the task's 0-lag time: the root domain's total_bw is the baseline");
	cycle("the final recount");
	healed = rd_total_bw(0);
	diag("after one more offline/online cycle of cpu%d: root domain total_bw %lld", cpu, healed);
	tap_finish();
}
