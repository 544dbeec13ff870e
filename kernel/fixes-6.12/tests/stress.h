/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small deadline-plus-hotplug stress for the reproducers of bugs the
 * 6.1 stress (guest test 29) found and no deterministic recipe exists
 * for: SCHED_DEADLINE processes with short periods, throttled most of
 * the time, some sleeping now and then, while one or two threads take
 * CPUs offline and online in a loop. The verdict:
 *   1. every hotplug write completed within 10 s (EBUSY, refused by the
 *      deadline admission control, is fine);
 *   2. no oops (taint D) and no log line matching the bug's signatures
 *      (other warnings are printed but are not this bug's verdict);
 *   3. every deadline task still runs at the end.
 */
#ifndef STRESS_H
#define STRESS_H

#include "repro.h"

#define STRESS_TASKS 4

struct stress_shared {
	volatile unsigned long count[STRESS_TASKS];
	volatile int ready[STRESS_TASKS], err[STRESS_TASKS];
};

static struct stress_shared *stress_sh REPRO_UNUSED;
static volatile int stress_stop REPRO_UNUSED;

struct stress_hotplug {
	int cpu;
	unsigned long cycles, ebusy, errors;
	int first_err, hung;
	pthread_t th;
};

/*
 * Task @arg: period 2, 3 or 5 ms, runtime 30 % of it (4 tasks: 1.2 CPUs,
 * room for two CPUs offline on 4); spins in bursts of up to 3 ms, and
 * sleeps up to 3 ms one burst in three.
 */
static inline int stress_task(void *arg)
{
	static const uint64_t periods[] = { 2 * NSEC_PER_MSEC, 3 * NSEC_PER_MSEC, 5 * NSEC_PER_MSEC };
	long i = (long)arg;
	unsigned int seed = (unsigned int)(i * 7919 + getpid());
	uint64_t period = periods[i % 3];

	if (unpin_self())
		return 1;
	stress_sh->err[i] = set_dl(0, period * 3 / 10, period);
	stress_sh->ready[i] = 1;
	if (stress_sh->err[i])
		return 1;
	for (;;) {
		spin_cpu_ns((rand_r(&seed) % 3000 + 1) * NSEC_PER_USEC);
		if (rand_r(&seed) % 3 == 0)
			usleep(rand_r(&seed) % 3000);
		stress_sh->count[i]++;
	}
	return 0;
}

static inline void *stress_hotplug_thread(void *arg)
{
	struct stress_hotplug *h = arg;
	unsigned int seed = (unsigned int)h->cpu * 31;
	int err;

	while (!stress_stop && !h->hung) {
		err = cpu_set_online(h->cpu, false, 10000);
		if (!err) {
			usleep(rand_r(&seed) % 50000);
			err = cpu_set_online(h->cpu, true, 10000);
		}
		if (err == REPRO_EHUNG || err == REPRO_EKILLED)
			h->hung = 1;
		if (err == -EBUSY)
			h->ebusy++;
		else if (err && !h->errors++)
			h->first_err = err;
		h->cycles++;
		usleep(rand_r(&seed) % 20000);
	}
	return NULL;
}

/*
 * Run the stress for @ns with the CPUs @cpus[0..@ncpus) going offline and
 * online; @signature: the log lines that are this bug's. Emits the three
 * TAP points.
 */
static inline void stress_run(const int *cpus, int ncpus, uint64_t ns, const char *const *signature)
{
	struct stress_hotplug hp[2];
	unsigned long before[STRESS_TASKS];
	long long taint0, taint;
	pid_t pids[STRESS_TASKS];
	bool hung = false, errors = false, running = true;
	uint64_t end;
	int i, kmsg, hits;

	stress_sh = shared_alloc(sizeof(*stress_sh));
	taint0 = kernel_tainted();
	kmsg = kmsg_open();
	for (i = 0; i < STRESS_TASKS; i++) {
		pids[i] = spawn(stress_task, (void *)(long)i);
		if (!wait_ready(&stress_sh->ready[i]) || stress_sh->err[i])
			bail("deadline task %d: %s", i,
			     stress_sh->ready[i] ? strerror(-stress_sh->err[i]) : "no report");
	}
	memset(hp, 0, sizeof(hp));
	for (i = 0; i < ncpus; i++) {
		hp[i].cpu = cpus[i];
		if (pthread_create(&hp[i].th, NULL, stress_hotplug_thread, &hp[i]))
			bail("pthread_create");
	}
	end = now_ns() + ns;
	while (now_ns() < end) {
		sleep_ms(100);
		for (i = 0; i < ncpus; i++)
			if (hp[i].hung)
				end = 0;
	}
	stress_stop = 1;
	for (i = 0; i < ncpus; i++) {
		pthread_join(hp[i].th, NULL);
		diag("cpu%d: %lu offline/online cycles, %lu refused with EBUSY, %lu other errors (first: %s)%s",
		     hp[i].cpu, hp[i].cycles, hp[i].ebusy, hp[i].errors,
		     hp[i].errors ? repro_strerror(hp[i].first_err) : "none", hp[i].hung ? ", HUNG" : "");
		hung |= hp[i].hung;
		errors |= hp[i].errors > 0;
	}
	if (!hung)
		for (i = 0; i < ncpus; i++)
			if (cpu_is_online(cpus[i]) != 1 && cpu_set_online(cpus[i], true, 10000))
				hung = true;
	tap_result(!hung && !errors, "every CPU offline/online write completed (EBUSY aside)");

	taint = kernel_tainted();
	hits = kmsg_scan_ex(kmsg, signature, kmsg_trouble, 30);
	if (taint & ~taint0 & TAINT_WARN && hits <= 0)
		diag("the kernel warned during the stress (taint W), not with this bug's signature: see above");
	tap_result(!(taint & ~taint0 & TAINT_DIE) && hits <= 0,
		   "no oops and no log line with this bug's signature (taint %lld, was %lld; %d lines)", taint,
		   taint0, hits);

	if (hung) {
		tap_skip("the deadline tasks: not checked after a hung hotplug");
		return;
	}
	for (i = 0; i < STRESS_TASKS; i++)
		before[i] = stress_sh->count[i];
	sleep_ms(500);
	for (i = 0; i < STRESS_TASKS; i++) {
		if (stress_sh->count[i] == before[i]) {
			diag("deadline task %d (pid %d) did not run in 500 ms (state %c, last cpu %d)", i,
			     (int)pids[i], proc_state(pids[i]), last_cpu(pids[i]));
			running = false;
		}
	}
	tap_result(running, "every deadline task still runs after the stress");
	for (i = 0; i < STRESS_TASKS; i++)
		kill_kid(pids[i]);
}

#endif /* STRESS_H */
