// SPDX-License-Identifier: GPL-2.0
/*
 * docs/kernel-bugs.md, "Found by CI: SysRq-n charges a running task the
 * time since boot", fixed in the 6.1 series by patch 0017 ("sched/core:
 * Do not reset the exec_start of a running task"): normalize_rt_tasks()
 * sets p->se.exec_start = 0 for every user task, without its runqueue
 * lock (6.12: kernel/sched/core.c). For a task running at that moment,
 * the next update_curr() charges it now - 0: the whole time since boot,
 * in its CPU time (sum_exec_runtime) and, for a deadline task, in its
 * runtime, which pushes its 0-lag time (and the return of its bandwidth)
 * about uptime x period/runtime away.
 *
 * 1. A SCHED_OTHER task spinning pinned on one CPU while the reproducer,
 *    pinned on another, presses SysRq-n: its CPU time (which it reads
 *    itself in a loop and publishes; a task's read of its own clock
 *    charges it first) must not grow by more than the wall time (10 ms
 *    of slack). No deadline task
 *    is involved, so bug +1 (0013) cannot interfere. Up to 3 presses, as
 *    the task may be off its CPU at one instant; on stock 6.12 the first
 *    one normally charges it the uptime.
 * 2. A SCHED_DEADLINE task (95 ms/100 ms, spinning on another CPU) the
 *    same: its CPU time, and after it is killed the root domain's
 *    total_bw must be back within 2 s. On stock 6.12 both fail (unless it
 *    was throttled at that instant, 5 % of the time). On a kernel without
 *    the 0013 fix this part also leaves cpuset_mutex locked (see
 *    repro-sysrq-n-cpuset-mutex): the reproducer says so at the end, and
 *    the kernel then needs a reboot.
 *
 * Needs 2 CPUs. Refuses to run beside other SCHED_DEADLINE tasks (SysRq-n
 * demotes them, and two or more hang a kernel without 0013). SysRq-n also
 * renices negative-nice user tasks to 0 and demotes real-time user tasks.
 */
#include "repro.h"

#define SLACK_NS (10 * NSEC_PER_MSEC)
#define DL_RUNTIME (95 * NSEC_PER_MSEC)
#define DL_PERIOD (100 * NSEC_PER_MSEC)

struct shared {
	volatile unsigned long count;
	volatile uint64_t cpu_ns;	/* the spinner's own CPU time, as it last read it */
	volatile int ready, err;
};

static struct shared *sh;
static int spin_cpu;

static int fair_spinner(void *arg)
{
	(void)arg;
	if (pin_self(spin_cpu))
		return 1;
	sh->ready = 1;
	for (;;) {
		sh->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		sh->count++;
	}
	return 0;
}

static int dl_spinner(void *arg)
{
	(void)arg;
	sh->err = dl_enter_on_cpu(spin_cpu, DL_RUNTIME, DL_PERIOD, DL_PERIOD);
	sh->ready = 1;
	if (sh->err)
		return 1;
	for (;;) {
		sh->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		sh->count++;
	}
	return 0;
}

static void start(int (*fn)(void *), pid_t *pid)
{
	int i;

	memset((void *)sh, 0, sizeof(*sh));
	*pid = spawn(fn, NULL);
	if (!wait_ready(&sh->ready) || sh->err)
		bail("the spinner did not start: %s", sh->ready ? strerror(-sh->err) : "no report");
	/* Spinning now. */
	for (i = 0; i < 100 && sh->count < 1000; i++)
		sleep_ms(10);
	sleep_ms(50);
}

/*
 * Press SysRq-n while the spinner spins; the CPU time it was charged and
 * the wall time (ns). The spinner publishes its own CPU time in a loop: a
 * task's read of its own CPU clock charges it first (task_sched_runtime()),
 * and the kernel lets no other process read a per-thread clock. false if
 * the press itself failed.
 */
static bool press(long long *charged, long long *wall)
{
	uint64_t t0, t1, c0, c1;
	int err;

	t0 = now_ns();
	c0 = sh->cpu_ns;
	err = timed_write("/proc/sysrq-trigger", "n", 5000);
	sleep_ms(20);	/* it runs on: its next reads include every charge */
	c1 = sh->cpu_ns;
	t1 = now_ns();
	if (err) {
		diag("SysRq-n: %s", repro_strerror(err));
		return false;
	}
	*charged = (long long)(c1 - c0);
	*wall = (long long)(t1 - t0);
	return true;
}

int main(void)
{
	long long charged = 0, wall = 0, base, after;
	int cpu_self, attempt, err;
	bool ok = true, pressed;
	pid_t pid;

	repro_start("repro-sysrq-n-exec-start",
		    "docs/kernel-bugs.md, found by CI: SysRq-n charges a running task the time since boot, 6.1 patch 0017",
		    "SysRq-n beside a running task: it is charged no more CPU time than passed", 60);
	require_sysrq_trigger();
	if (ncpus_online() < 2)
		skip_all("one CPU: the task must run on another CPU than the SysRq writer");
	require_sched_debugfs();
	require_no_other_dl_tasks("without the 0013 fix");
	require_dl_admission();
	tap_plan(3);
	sh = shared_alloc(sizeof(*sh));
	spin_cpu = offlinable_cpu_below(ncpus_conf());
	if (spin_cpu < 0)
		spin_cpu = 1;
	cpu_self = 0;
	if (pin_self(cpu_self))
		bail("pin to cpu0: %s", strerror(errno));
	diag("the spinners run on cpu%d, SysRq-n is pressed from cpu%d (uptime-sized charges are the bug)",
	     spin_cpu, cpu_self);

	/* 1. A fair task. */
	start(fair_spinner, &pid);
	for (attempt = 1; attempt <= 3 && ok; attempt++) {
		if (!press(&charged, &wall))
			bail("SysRq-n could not be pressed");
		diag("SCHED_OTHER spinner, press %d: charged %.3f ms of CPU time in %.3f ms", attempt,
		     charged / 1e6, wall / 1e6);
		ok = charged <= wall + (long long)SLACK_NS;
	}
	tap_result(ok, "SysRq-n on a running SCHED_OTHER task: charged no more CPU time than passed");
	kill_kid(pid);

	/* 2. A deadline task. */
	base = rd_total_bw(0);
	start(dl_spinner, &pid);
	diag("SCHED_DEADLINE spinner 95 ms/100 ms on cpu%d (last cpu %d): root domain total_bw %lld -> %lld",
	     spin_cpu, last_cpu(pid), base, rd_total_bw(0));
	pressed = press(&charged, &wall);
	if (pressed)
		diag("SCHED_DEADLINE spinner: charged %.3f ms of CPU time in %.3f ms; policy now %d",
		     charged / 1e6, wall / 1e6, policy_of(pid));
	if (pressed)
		tap_result(charged <= wall + (long long)SLACK_NS,
			   "SysRq-n on a running SCHED_DEADLINE task: charged no more CPU time than passed");
	else
		tap_skip("SysRq-n could not be pressed beside the deadline task");
	kill_kid(pid);
	after = rd_total_bw_wait(base, 2000);
	diag("root domain total_bw %lld before the deadline task, %lld 2 s after it was killed (delta %lld)",
	     base, after, after - base);
	tap_result(after == base, "its bandwidth is back in the root domain within 2 s of its exit");
	err = cpuset_mutex_probe(3000);
	if (err == REPRO_EHUNG)
		diag("NOTE: a deadline admission now hangs: SysRq-n left cpuset_mutex locked (bug +1, 0013, "
		     "see repro-sysrq-n-cpuset-mutex); reboot before running other reproducers");
	tap_finish();
}
