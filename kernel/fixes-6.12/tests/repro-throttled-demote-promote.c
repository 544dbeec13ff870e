// SPDX-License-Identifier: GPL-2.0
/*
 * Bug 1 of docs/kernel-bugs.md, fixed in the 6.1 series by patch 0003
 * ("sched/deadline: Do not leave a task throttled when it left
 * SCHED_DEADLINE"): a throttled deadline task moved to SCHED_OTHER keeps
 * dl_throttled; its replenishment timer then finds it no longer a
 * deadline task and leaves without clearing it (6.12: dl_task_timer(),
 * "if (!dl_task(p)) goto unlock;"). Made SCHED_DEADLINE again before its
 * 0-lag time (when the inactive timer would clear its parameters), it is
 * enqueued throttled, with no timer left to replenish it
 * (enqueue_dl_entity(): "if (... dl_se->dl_throttled && !(flags &
 * ENQUEUE_REPLENISH)) return;"): runnable, never run, unkillable.
 *
 * Recipe (no hotplug):
 *   1. a child enters SCHED_DEADLINE, 100 us every 1 s, and spins: it is
 *      throttled after its first tick, its runtime a little negative;
 *   2. it is made SCHED_OTHER; /proc/PID/sched then gives its frozen
 *      dl.runtime and dl.deadline, hence its 0-lag time, deadline +
 *      overrun x 10000 (seconds away for a tick's overrun); it runs
 *      again, then blocks on a pipe;
 *   3. after its deadline (the replenishment timer has fired), by the
 *      runqueue clock the deadline is in, and before its 0-lag time, it
 *      is made SCHED_DEADLINE again while asleep;
 *   4. it is woken: it must run within 3 s (with 20 ms every 1 s).
 * On stock 6.12 it never runs again (the reproducer demotes it at the
 * end, which frees it). If the overrun is too small to leave a usable
 * window, the attempt is repeated (at most 3).
 */
#include "repro.h"

#define RUNTIME (100 * NSEC_PER_USEC)
#define PERIOD (1 * NSEC_PER_SEC)
/*
 * Made SCHED_DEADLINE again with a larger runtime: the bug leaves the task
 * unrun whatever its parameters, and a fixed kernel must be seen to run
 * it even when the host preempts the vCPU (the guest charges that time to
 * the running deadline task, and 100 us can go before it reaches user
 * space).
 */
#define RUNTIME_AGAIN (20 * NSEC_PER_MSEC)
#define MARGIN (400 * NSEC_PER_MSEC)	/* covers the runqueue clocks' skew across CPUs */

struct shared {
	volatile unsigned long count;
	volatile int ready, err, block, blocked;
};

static struct shared *sh;
static int gate[2];
static pid_t task;

static int child(void *arg)
{
	char c;

	(void)arg;
	close(gate[1]);
	sh->err = set_dl(0, RUNTIME, PERIOD);
	sh->ready = 1;
	if (sh->err)
		return 1;
	for (;;) {
		if (sh->block) {
			sh->blocked = 1;
			if (read(gate[0], &c, 1) < 0)
				return 2;
			sh->block = 0;
		}
		sh->count++;
	}
	return 0;
}

/* At exit: a task stuck throttled can only go once it is SCHED_OTHER. */
static void unstick(void)
{
	if (task > 0)
		set_other(task);
}

static bool advances(unsigned long before, int ms)
{
	int t;

	for (t = 0; t < ms; t += 10) {
		if (sh->count != before)
			return true;
		sleep_ms(10);
	}
	return sh->count != before;
}

/* Give up on an attempt that found no usable window. */
static int again(void)
{
	set_other(task);
	kill_kid(task);
	task = 0;
	close(gate[1]);
	return -1;
}

/* One attempt: 1 ran, 0 stuck, -1 no usable window. */
static int attempt(int n)
{
	unsigned long before;
	long long runtime = 1, deadline = 0, window;
	uint64_t now, zerolag;
	int i, err, result;

	memset((void *)sh, 0, sizeof(*sh));
	if (pipe(gate))
		bail("pipe: %s", strerror(errno));
	task = spawn(child, NULL);
	close(gate[0]);
	if (!wait_ready(&sh->ready)) {
		diag("attempt %d: the child did not report its admission in 5 s; again", n);
		return again();
	}
	if (sh->err)
		bail("the child could not enter SCHED_DEADLINE: %s", strerror(-sh->err));
	/*
	 * Throttled: the count stands still and the runtime is spent. Its
	 * dl.runtime and dl.deadline stay as they are until the replenishment
	 * timer fires, at dl.deadline; they are read before the demotion (a
	 * task out of SCHED_DEADLINE has none in /proc/PID/sched), which must
	 * come well before the timer. The times are the runqueue clock's, the
	 * one dl.deadline is in; its 0-lag time is dl.deadline + overrun x
	 * period/runtime.
	 */
	for (i = 0; i < 300; i++) {
		before = sh->count;
		sleep_ms(20);
		if (sh->count != before || proc_sched_field(task, "dl.runtime", &runtime) || runtime >= 0 ||
		    proc_sched_field(task, "dl.deadline", &deadline))
			continue;
		now = rq_clock_now_ns();
		if (!now)
			bail("se.exec_start of /proc/self/sched unreadable");
		if (now + MARGIN < (uint64_t)deadline)
			break;
	}
	if (i == 300) {
		diag("attempt %d: never found throttled well before its deadline; again", n);
		return again();
	}
	err = set_other(task);
	if (err)
		bail("sched_setattr(SCHED_OTHER): %s", strerror(-err));
	window = (long long)((-runtime) * (PERIOD / RUNTIME));
	zerolag = deadline + window;
	diag("attempt %d: demoted with dl.runtime %lld ns, %.0f ms before its deadline; its 0-lag time %.0f ms after it",
	     n, runtime, ((double)deadline - (double)now) / 1e6, window / 1e6);
	if (window < (long long)(4 * MARGIN)) {
		diag("attempt %d: too small an overrun; again", n);
		return again();
	}
	before = sh->count;
	if (!advances(before, 500))
		bail("the task does not run as SCHED_OTHER");
	sh->block = 1;
	for (i = 0; i < 200 && !(sh->blocked && proc_state(task) == 'S'); i++)
		sleep_ms(5);
	if (proc_state(task) != 'S')
		bail("the task did not block");
	/* Past its deadline: the replenishment timer has fired. */
	while ((now = rq_clock_now_ns()) < (uint64_t)deadline + MARGIN)
		sleep_ms(10);
	if (now + MARGIN > zerolag) {
		diag("attempt %d: too late for the window; again", n);
		return again();
	}
	err = set_dl(task, RUNTIME_AGAIN, PERIOD);
	if (err)
		bail("sched_setattr(SCHED_DEADLINE) again: %s", strerror(-err));
	before = sh->count;
	if (write(gate[1], "x", 1) != 1)
		bail("write: %s", strerror(errno));
	result = advances(before, 3000);
	diag("attempt %d: demoted while throttled, replenishment timer passed, promoted %.0f ms before "
	     "its 0-lag time, woken: %s (state %c)", n, ((double)zerolag - (double)now) / 1e6,
	     result ? "it ran" : "it did not run in 3 s", proc_state(task));
	if (!result)
		diag_task_sched(task);
	set_other(task);
	kill_kid(task);
	task = 0;
	close(gate[1]);
	return result;
}

int main(void)
{
	int n, result = -1;

	repro_start("repro-throttled-demote-promote",
		    "docs/kernel-bugs.md #1, 6.1 patch 0003 (a throttled task that left SCHED_DEADLINE and came back stays throttled for ever)",
		    "throttled, demoted, replenishment timer passes, promoted before its 0-lag time: it must run",
		    60);
	require_dl_admission();
	tap_plan(1);
	diag_other_dl_tasks(false);
	sh = shared_alloc(sizeof(*sh));
	repro.before_kill = unstick;
	for (n = 1; n <= 3 && result < 0; n++)
		result = attempt(n);
	if (result < 0)
		tap_skip("no attempt left a usable window between the replenishment and the 0-lag time");
	else
		tap_result(result == 1,
			   "made SCHED_DEADLINE again after its replenishment time, before its 0-lag time: it runs when woken");
	tap_finish();
}
