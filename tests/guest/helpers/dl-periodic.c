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
 * ending with sched_wait_interval() until the next activation, then one
 * job of 1.5 times the runtime: an overrun the kernel must signal. It
 * prints what it did and exits 0, or 1 on error.
 *
 * Signals are checked against what the kernel was charged. An instance runs
 * from the return of one sched_wait_interval() to the next (the first from
 * sched_setscheduler_ex()). A job of RUNTIME/10 neither overruns nor misses
 * its deadline unless something else happened: under TCG a vCPU the host
 * does not run for milliseconds has the stall charged to the running task
 * (the thread's CPU clock, CLOCK_THREAD_CPUTIME_ID, counts it as the
 * runtime does), or a wake-up comes so late that the job ends past its
 * deadline. The first instance is often one: code run for the first time
 * is translated by TCG and faulted in, on the task's CPU time (4 to 13 ms
 * seen, up to its return from the first sched_wait_interval(); hence the
 * old check's "signalled having used 1.7 ms", which counted from the
 * loop). Such an instance is disturbed: it may explain one SIGXCPU per
 * runtime of CPU it was charged (from half a runtime on), and one more if
 * its job ended within a millisecond of its deadline. A signal reaches the
 * task only when a tick finds it running, some instances after its cause
 * (a job is a tenth of a runtime), never before: at the end of each
 * instance, the signals so far may not outnumber what the disturbed
 * instances so far explain. A kernel that signals clean instances fails,
 * and so does one that never signals the overrun.
 */
#include "dltask.h"

/* What an instance that ended at @end, charged @used of CPU, may explain. */
static int explains(uint64_t used, uint64_t end, uint64_t deadline, uint64_t runtime)
{
	int n = used >= runtime / 2 ? (int)((used + runtime - 1) / runtime) : 0;

	return n + (end + NSEC_PER_MSEC >= deadline);
}

int main(int argc, char **argv)
{
	uint64_t period, runtime, next, t, late, late_max = 0, start, cpu, cpu_prev, used, deadline, end, stall;
	int jobs, i, err, sig_prev, sig, may, signalled = 0, disturbed = 0, sigs = 0, explained = 0, unexplained = 0;
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
	for (i = 0; i < 200; i++) {
		/* The first instance starts in the call. */
		next = now_ns();
		cpu_prev = thread_cpu_ns();
		err = sched_setscheduler_ex(0, SCHED_DEADLINE, sizeof(p), &p);
		if (!err || errno != EBUSY)
			break;
		usleep(10000);
	}
	if (err) {
		fprintf(stderr, "sched_setscheduler_ex: %s\n", strerror(errno));
		return 1;
	}
	deadline = next + period;
	sig_prev = 0;
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
	for (i = 0; i < jobs; i++) {
		stall = spin_cpu_ns(runtime / 10);
		end = now_ns();
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
		sig = xcpu_kernel - sig_prev;
		may = explains(used, end, deadline, runtime);
		sigs += sig;
		explained += may;
		if (sig)
			signalled++;
		if (may)
			disturbed++;
		if (sigs - explained > unexplained)
			unexplained = sigs - explained;
		if (sig || may)
			printf("instance %d: used %llu us of CPU (longest stall %llu us in the job), ended %lld us before its deadline, SIGXCPU %d, explains %d\n",
			       i, (unsigned long long)(used / NSEC_PER_USEC), (unsigned long long)(stall / NSEC_PER_USEC),
			       ((long long)deadline - (long long)end) / (long long)NSEC_PER_USEC, sig, may);
		deadline = next + period;
		cpu_prev = cpu;
		sig_prev = xcpu_kernel;
	}
	printf("jobs %d in %llu ms, latest wake-up %llu us after its activation, SIGXCPU %d\n",
	       jobs, (unsigned long long)((now_ns() - start) / NSEC_PER_MSEC),
	       (unsigned long long)(late_max / NSEC_PER_USEC), sigs);
	printf("instances %d: signalled %d (SIGXCPU %d), disturbed %d (explaining %d), unexplained %d\n",
	       jobs, signalled, sigs, disturbed, explained, unexplained);

	/*
	 * The overrun: throttled once the runtime is spent, until its deadline,
	 * then the rest of the job (half a runtime, ticks to deliver the signal
	 * in) with a new one. One SIGXCPU; more only after a vCPU stall.
	 */
	stall = spin_cpu_ns(runtime * 3 / 2);
	used = thread_cpu_ns() - cpu_prev;
	sig = xcpu_kernel - sig_prev;
	may = stall >= VCPU_STALL_NS || used >= runtime * 3 / 2 + VCPU_STALL_NS ?
	      (int)((used + runtime - 1) / runtime) : 1;
	printf("overrun: used %llu us of CPU (longest stall %llu us), SIGXCPU %d, at most %d, %d left unexplained before\n",
	       (unsigned long long)(used / NSEC_PER_USEC), (unsigned long long)(stall / NSEC_PER_USEC), sig, may,
	       explained - sigs);
	return 0;
}
