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
 * Each SIGXCPU is attributed to the instance it arrived in (from one
 * return of sched_wait_interval() to the next), with the CPU time that
 * instance used: a signal is only right for an instance that overran its
 * runtime or ran past its deadline, and a job of RUNTIME/10 overruns only
 * if something (a vCPU stall, under TCG) was charged to it.
 */
#include "dltask.h"

int main(int argc, char **argv)
{
	uint64_t period, runtime, next, t, late, late_max = 0, start, cpu, cpu_prev, used;
	int jobs, i, err, sig_prev, signalled = 0, signalled_light = 0, heavy = 0;
	struct sched_param_ex p = { 0 };
	struct timespec ts;

	if (argc != 4 || (period = strtoull(argv[1], NULL, 10) * NSEC_PER_MSEC) == 0 ||
	    (runtime = strtoull(argv[2], NULL, 10) * NSEC_PER_MSEC) == 0 ||
	    (jobs = atoi(argv[3])) <= 0) {
		fprintf(stderr, "usage: dl-periodic PERIOD_MS RUNTIME_MS JOBS\n");
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
	for (i = 0; (err = sched_setscheduler_ex(0, SCHED_DEADLINE, sizeof(p), &p)) && errno == EBUSY &&
		    i < 200; i++)
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

	start = next = now_ns();
	cpu_prev = thread_cpu_ns();
	sig_prev = xcpu_kernel;
	for (i = 0; i < jobs; i++) {
		spin_cpu_ns(runtime / 10);
		next += period;
		ts = ns_to_ts(next);
		if (sched_wait_interval(&ts, NULL)) {
			fprintf(stderr, "sched_wait_interval: %s\n", strerror(errno));
			return 1;
		}
		t = now_ns();
		cpu = thread_cpu_ns();
		late = t > next ? t - next : 0;
		if (late > late_max)
			late_max = late;
		/* The instance that just ended: its CPU time, its signals. */
		used = cpu - cpu_prev;
		if (used >= runtime / 2)
			heavy++;
		if (xcpu_kernel != sig_prev) {
			signalled++;
			if (used < runtime / 2)
				signalled_light++;
			printf("instance %d: SIGXCPU, used %llu us of CPU\n", i,
			       (unsigned long long)(used / NSEC_PER_USEC));
		}
		cpu_prev = cpu;
		sig_prev = xcpu_kernel;
	}
	printf("instances signalled %d, of them under half the runtime %d; instances that used half the runtime or more %d\n",
	       signalled, signalled_light, heavy);
	printf("jobs %d in %llu ms, latest wake-up %llu us after its activation, SIGXCPU %d\n",
	       jobs, (unsigned long long)((now_ns() - start) / NSEC_PER_MSEC),
	       (unsigned long long)(late_max / NSEC_PER_USEC), (int)xcpu_kernel);
	return 0;
}
