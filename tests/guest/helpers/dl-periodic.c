// SPDX-License-Identifier: GPL-2.0
/*
 * dl-periodic: an example periodic task using each interface of the
 * series' task patches.
 *
 *   dl-periodic PERIOD_MS RUNTIME_MS JOBS
 *
 * Started as root, it grants itself RLIMIT_DLDLINE = PERIOD and
 * RLIMIT_DLRTIME = RUNTIME and becomes nobody; unprivileged, it enters
 * SCHED_DEADLINE with sched_setscheduler_ex() (the 2010 interface, asking
 * for SIGXCPU on overruns and deadline misses), reads its parameters back
 * with sched_getparam_ex(), and runs JOBS jobs of RUNTIME/10 of work, each
 * ending with sched_wait_interval() until the next activation. It prints
 * what it did and exits 0, or 1 on error.
 *
 * Each SIGXCPU is checked against what the kernel did, not against CPU
 * time (what the kernel charges need not be the CPU time the task saw).
 * A signal (SCHED_SIG_RORUN: the runtime ran out, the CBS throttled the
 * task; SCHED_SIG_DMISS: it ran past its deadline) means the instance's
 * job could not end before the instance's deadline: a throttled task runs
 * again only when the replenishment at its deadline comes. An instance
 * (from one return of sched_wait_interval() to the next; the first from
 * sched_setscheduler_ex()) whose job ended less than 1 ms before its
 * deadline (the next activation; for the first, PERIOD after the instant
 * before sched_setscheduler_ex()) is disturbed, and so is one that used
 * half its runtime of CPU (a throttle in the system call that ends the
 * job). Each throttle costs the rest of a period, and each deadline may be
 * missed once, so a disturbed instance whose job ended N whole periods
 * after its deadline explains up to 2 * (N + 1) signals (the first
 * instance, with the program's first run, may be throttled several
 * times). A signal comes at the first tick that finds the task running
 * after its cause, so possibly in a later instance, never before: at the
 * end of every instance the signals so far may not outnumber what the
 * disturbed instances so far explain ("unexplained" counts the instances
 * where they did). A kernel signalling an undisturbed instance fails that.
 *
 * With "overrun" as a fourth argument, one more job spins until the
 * kernel throttles it (seen as a step of 5 ms or more in CLOCK_MONOTONIC
 * that the thread's CPU clock did not make) and then up to 2 ms more of
 * CPU, time for a tick to find it running: it must get a SIGXCPU in that
 * instance.
 */
#include "dltask.h"

#define DISTURBED_MARGIN_NS NSEC_PER_MSEC
#define THROTTLE_GAP_NS (5 * NSEC_PER_MSEC)

/*
 * The overrun job: spin until a step of CLOCK_MONOTONIC that the CPU clock
 * did not make (the task throttled until its replenishment), then until a
 * SIGXCPU arrives or 2 ms more of CPU. Gives up after 40 ms of CPU
 * without a throttle (10 runtimes). Prints what it saw.
 */
static void overrun_job(uint64_t runtime, uint64_t deadline)
{
	uint64_t c0 = thread_cpu_ns(), w = now_ns(), c = c0, wp, cp, gap = 0, resumed = 0, cpu_at = 0;
	int sig0 = xcpu_kernel;

	while (c - c0 < 10 * runtime) {
		wp = w;
		cp = c;
		w = now_ns();
		c = thread_cpu_ns();
		if ((w - wp) - (c - cp) >= THROTTLE_GAP_NS && (w - wp) > (c - cp)) {
			gap = (w - wp) - (c - cp);
			resumed = w;
			cpu_at = cp - c0;
			break;
		}
	}
	if (!gap) {
		printf("overrun: no throttle in %llu us of CPU\n", (unsigned long long)((c - c0) / NSEC_PER_USEC));
		return;
	}
	c = thread_cpu_ns();
	for (cp = c; xcpu_kernel == sig0 && c - cp < 2 * NSEC_PER_MSEC;)
		c = thread_cpu_ns();
	printf("overrun: throttled after %llu us of CPU for %llu us, resumed %lld us after its deadline; SIGXCPU %d\n",
	       (unsigned long long)(cpu_at / NSEC_PER_USEC), (unsigned long long)(gap / NSEC_PER_USEC),
	       ((long long)resumed - (long long)deadline) / 1000, xcpu_kernel - sig0);
}

int main(int argc, char **argv)
{
	uint64_t period, runtime, next, t, late, late_max = 0, start, t0, due, cpu, cpu_prev, used, end;
	int jobs, i, err, sig_prev, disturbed = 0, explained = 0, unexplained = 0;
	bool dist;
	struct sched_param_ex p = { 0 };
	struct timespec ts;

	if ((argc != 4 && (argc != 5 || strcmp(argv[4], "overrun"))) ||
	    (period = strtoull(argv[1], NULL, 10) * NSEC_PER_MSEC) == 0 ||
	    (runtime = strtoull(argv[2], NULL, 10) * NSEC_PER_MSEC) == 0 ||
	    (jobs = atoi(argv[3])) <= 0) {
		fprintf(stderr, "usage: dl-periodic PERIOD_MS RUNTIME_MS JOBS [overrun]\n");
		return 1;
	}
	if (getuid() == 0) {
		err = drop_privileges_with_dl_limits(period / NSEC_PER_USEC, runtime / NSEC_PER_USEC);
		if (err) {
			fprintf(stderr, "rlimits/setuid: %s\n", strerror(-err));
			return 1;
		}
	}
	if (count_xcpu())
		return 1;

	p.sched_runtime = (struct __kernel_timespec){ 0, runtime };
	p.sched_deadline = (struct __kernel_timespec){ period / NSEC_PER_SEC, period % NSEC_PER_SEC };
	p.sched_period = p.sched_deadline;
	p.sched_flags = SCHED_SIG_RORUN | SCHED_SIG_DMISS;
	/* EBUSY: the pool is full for now (a deadline task that just exited). */
	for (i = 0; (t0 = now_ns(), cpu_prev = thread_cpu_ns(),
		     err = sched_setscheduler_ex(0, SCHED_DEADLINE, sizeof(p), &p)) && errno == EBUSY && i < 200; i++)
		usleep(10000);
	if (err) {
		fprintf(stderr, "sched_setscheduler_ex: %s\n", strerror(errno));
		return 1;
	}
	memset(&p, 0, sizeof(p));
	if (sched_getparam_ex(0, sizeof(p), &p)) {
		fprintf(stderr, "sched_getparam_ex: %s\n", strerror(errno));
		return 1;
	}
	printf("uid %d policy %d runtime %lld ns deadline %lld ns period %lld ns flags %#x\n",
	       (int)getuid(), sched_getscheduler(0), (long long)p.sched_runtime.tv_nsec,
	       (long long)(p.sched_deadline.tv_sec * NSEC_PER_SEC + p.sched_deadline.tv_nsec),
	       (long long)(p.sched_period.tv_sec * NSEC_PER_SEC + p.sched_period.tv_nsec),
	       p.sched_flags);

	/* The first instance began at sched_setscheduler_ex(), after t0. */
	due = t0 + period;
	start = next = now_ns();
	sig_prev = 0;
	for (i = 0; i < jobs; i++) {
		spin_cpu_ns(runtime / 10);
		end = now_ns();
		next += period;
		ts = ns_to_ts(next);
		if (sched_wait_interval(&ts, NULL)) {
			fprintf(stderr, "sched_wait_interval: %s\n", strerror(errno));
			return 1;
		}
		t = now_ns();
		cpu = thread_cpu_ns();
		/* The instance that just ended: was it disturbed, are the signals so far explained? */
		used = cpu - cpu_prev;
		dist = end + DISTURBED_MARGIN_NS >= due || used >= runtime / 2;
		/*
		 * The wake-up's latency, after a sleep from an undisturbed job:
		 * a job that ended at its deadline or later (throttled) may be
		 * paying back its overrun, and sleeps until its 0-lag time.
		 */
		late = t > next && !dist ? t - next : 0;
		if (late > late_max)
			late_max = late;
		if (dist) {
			disturbed++;
			explained += 2 * (1 + (end > due ? (end - due) / period : 0));
		}
		if (xcpu_kernel > explained)
			unexplained++;
		if (dist || xcpu_kernel != sig_prev)
			printf("instance %d:%s job ended %lld us before its deadline, %llu us of CPU, SIGXCPU %d (%d so far, %d explained)%s\n",
			       i, dist ? " disturbed," : "", ((long long)due - (long long)end) / 1000,
			       (unsigned long long)(used / NSEC_PER_USEC), xcpu_kernel - sig_prev, (int)xcpu_kernel,
			       explained, xcpu_kernel > explained ? " UNEXPLAINED" : "");
		due = next + period;
		cpu_prev = cpu;
		sig_prev = xcpu_kernel;
	}
	printf("instances disturbed %d, signals %d, instances ending with signals unexplained %d\n",
	       disturbed, (int)xcpu_kernel, unexplained);
	printf("jobs %d in %llu ms, latest wake-up %llu us after its activation, SIGXCPU %d\n",
	       jobs, (unsigned long long)((now_ns() - start) / NSEC_PER_MSEC),
	       (unsigned long long)(late_max / NSEC_PER_USEC), (int)xcpu_kernel);
	if (argc == 5) {
		overrun_job(runtime, due);
		ts = ns_to_ts(next + period);
		if (sched_wait_interval(&ts, NULL)) {
			fprintf(stderr, "sched_wait_interval: %s\n", strerror(errno));
			return 1;
		}
	}
	return 0;
}
