// SPDX-License-Identifier: GPL-2.0
/*
 * stallwatch FILE: a witness of the guest's own stalls, for the timing
 * checks. One SCHED_FIFO thread per online CPU, pinned there, sleeps 1 ms
 * at a time; a wake-up more than STALL_NS after the previous one appends
 * "gap START END" (CLOCK_MONOTONIC seconds, as the demo workers log their
 * releases) to FILE. Under TCG the host may stop a vCPU, or the whole
 * guest, for tens of milliseconds; no deadline task on that CPU can run
 * then, and the guest charges that time to whatever was running. A
 * deadline task on the same CPU delays the watcher by at most its runtime
 * (12 ms in the demo), well below STALL_NS. Runs until SIGTERM or SIGINT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "dltask.h"

#define TICK_NS (1000 * 1000LL)
#define STALL_NS (40 * 1000 * 1000LL)

static FILE *out;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void *watch(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	struct timespec tick = { .tv_nsec = TICK_NS };
	int64_t prev, now;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fprintf(stderr, "stallwatch: cpu%d: sched_setaffinity: %s\n", cpu, strerror(errno));
	prev = (int64_t)now_ns();
	for (;;) {
		nanosleep(&tick, NULL);
		now = (int64_t)now_ns();
		if (now - prev > STALL_NS) {
			pthread_mutex_lock(&out_lock);
			fprintf(out, "gap %lld.%06lld %lld.%06lld cpu%d\n", (long long)(prev / NSEC_PER_SEC),
				(long long)(prev % NSEC_PER_SEC / 1000), (long long)(now / NSEC_PER_SEC),
				(long long)(now % NSEC_PER_SEC / 1000), cpu);
			fflush(out);
			pthread_mutex_unlock(&out_lock);
		}
		prev = now;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 1 };
	pthread_attr_t attr;
	sigset_t stop;
	int cpu, sig;

	if (argc != 2) {
		fprintf(stderr, "usage: stallwatch FILE\n");
		return 2;
	}
	out = fopen(argv[1], "we");
	if (!out) {
		fprintf(stderr, "stallwatch: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);

	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		char path[64];
		pthread_t th;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
		if (cpu && access(path, F_OK))
			break;
		if (pthread_create(&th, &attr, watch, (void *)(intptr_t)cpu)) {
			fprintf(stderr, "stallwatch: a SCHED_FIFO watcher on cpu%d: refused\n", cpu);
			return 1;
		}
	}
	sigwait(&stop, &sig);
	return 0;
}
