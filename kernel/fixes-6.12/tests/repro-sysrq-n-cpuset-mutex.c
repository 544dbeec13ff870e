// SPDX-License-Identifier: GPL-2.0
/*
 * The "+1" of docs/kernel-bugs.md ("Found by reading: SysRq-n"), fixed
 * in the 6.1 series by patch 0013 ("sched/core: Do not take
 * cpuset_mutex for normalize_rt_tasks()"): SysRq-n (normalize_rt_tasks(),
 * also "echo n > /proc/sysrq-trigger") demotes every SCHED_DEADLINE user
 * task through __sched_setscheduler(p, &attr, false, false), which takes
 * cpuset_mutex for a deadline task but releases it on success only
 * "if (pi)" (6.12: kernel/sched/syscalls.c). The mutex stays locked for
 * good: the next deadline admission, cpuset write or CPU offline waits
 * for ever (the hung-task detector reports it after 120 s).
 *
 * With one deadline task in the system the lock is taken once (with two
 * or more, the SysRq writer would wait for itself under tasklist_lock and
 * the machine would hang), so the reproducer refuses to run beside other
 * SCHED_DEADLINE tasks. It starts one (5 ms/100 ms, asleep), presses
 * SysRq-n, checks that the task is SCHED_OTHER, and that a new deadline
 * admission completes within 5 s (in a child: on stock 6.12 it hangs,
 * uninterruptibly, and stays behind).
 *
 * After a fail this kernel needs a reboot: CPU hotplug, cpuset writes and
 * deadline admissions hang. SysRq-n also renices every negative-nice user
 * task to 0 and demotes every real-time user task of the system.
 */
#include "repro.h"

static int sleep_dl(void *arg)
{
	volatile int *err = arg;

	*err = set_dl(0, 5 * NSEC_PER_MSEC, 100 * NSEC_PER_MSEC);
	for (;;)
		pause();
	return 0;
}

int main(void)
{
	const char *const atomic_pat[] = { "sleeping function called from invalid context",
					   "scheduling while atomic", NULL };
	volatile int *admitted;
	int n, err, kmsg, policy;
	pid_t pid;

	repro_start("repro-sysrq-n-cpuset-mutex",
		    "docs/kernel-bugs.md, found by reading: SysRq-n (the +1), 6.1 patch 0013 (SysRq-n leaves cpuset_mutex locked)",
		    "SysRq-n beside one SCHED_DEADLINE task, then a new admission must complete within 5 s", 60);
	require_sysrq_trigger();
	require_no_other_dl_tasks("with the bug");
	require_dl_admission();
	tap_plan(2);
	admitted = shared_alloc(sizeof(*admitted));
	*admitted = 1;
	pid = spawn(sleep_dl, (void *)admitted);
	for (n = 0; n < 500 && *admitted == 1; n++)
		sleep_ms(10);
	if (*admitted)
		bail("the child could not enter SCHED_DEADLINE: %s",
		     *admitted == 1 ? "no report" : strerror(-*admitted));
	kmsg = kmsg_open();
	diag("child %d is SCHED_DEADLINE 5 ms/100 ms, asleep; pressing SysRq-n", (int)pid);
	err = timed_write("/proc/sysrq-trigger", "n", 5000);
	if (err)
		bail("SysRq-n: %s", repro_strerror(err));
	policy = policy_of(pid);
	tap_result(policy == SCHED_OTHER, "SysRq-n made the deadline task SCHED_OTHER (policy %d)", policy);
	err = cpuset_mutex_probe(5000);
	if (err == REPRO_EHUNG)
		diag("a SCHED_DEADLINE admission still waits after 5 s: cpuset_mutex was left locked; "
		     "reboot this kernel (hotplug, cpuset writes and admissions now hang)");
	tap_result(!err, "after SysRq-n a new SCHED_DEADLINE task is admitted within 5 s: %s",
		   err ? repro_strerror(err) : "at once");
	if (kmsg_scan(kmsg, atomic_pat, 5) > 0)
		diag("the kernel complained of sleeping in atomic context (the mutex taken under tasklist_lock)");
	tap_finish();
}
