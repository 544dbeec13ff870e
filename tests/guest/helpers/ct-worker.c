// SPDX-License-Identifier: GPL-2.0
/*
 * ct-worker: the workload of test 68's containers (static, the only program
 * in the image tests/guest/Makefile builds: ct-image.tar).
 *
 *   ct-worker THREADS
 *
 * Runs THREADS threads in all (the main thread and THREADS - 1 it
 * creates once started, so after the OCI hook's admission: dld must
 * promote them as it promotes a service's new threads). Each thread reads
 * its own scheduling attributes with sched_getattr() every 20 ms and
 * prints a line each time they change, as seen inside the container:
 *
 *   thread I tid TID policy P runtime NS deadline NS period NS flags 0xF
 *
 * (TID in the container's PID namespace). SIGTERM ends it at once (as
 * PID 1 of the container it has no default action), so podman stop does
 * not wait for its SIGKILL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <dlsched/sched.h>

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_term(int sig) {
	(void) sig;
	_exit(0);
}

static void *watch(void *arg) {
	const long index = (long) arg;
	struct sched_attr last = { .sched_policy = ~0U }, a;
	const struct timespec tick = { 0, 20 * 1000 * 1000 };

	for (;;) {
		memset(&a, 0, sizeof(a));
		if (dlsched_sched_getattr(0, &a, sizeof(a), 0) < 0) {
			pthread_mutex_lock(&out_lock);
			printf("thread %ld sched_getattr: %s\n", index, strerror(errno));
			pthread_mutex_unlock(&out_lock);
			return NULL;
		}
		if (a.sched_policy != last.sched_policy || a.sched_runtime != last.sched_runtime ||
		    a.sched_deadline != last.sched_deadline || a.sched_period != last.sched_period ||
		    a.sched_flags != last.sched_flags) {
			pthread_mutex_lock(&out_lock);
			printf("thread %ld tid %ld policy %u runtime %" PRIu64 " deadline %" PRIu64 " period %" PRIu64
			       " flags 0x%" PRIx64 "\n", index, (long) syscall(SYS_gettid), a.sched_policy,
			       (uint64_t) a.sched_runtime, (uint64_t) a.sched_deadline, (uint64_t) a.sched_period,
			       (uint64_t) a.sched_flags);
			fflush(stdout);
			pthread_mutex_unlock(&out_lock);
			last = a;
		}
		nanosleep(&tick, NULL);
	}
}

int main(int argc, char *argv[]) {
	long threads = argc == 2 ? strtol(argv[1], NULL, 10) : 0;
	struct sigaction sa = { .sa_handler = on_term };

	if (threads < 1 || threads > 64) {
		fprintf(stderr, "usage: ct-worker THREADS (1 to 64)\n");
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (long i = 1; i < threads; i++) {
		pthread_t t;
		int r = pthread_create(&t, NULL, watch, (void *) i);

		if (r) {
			fprintf(stderr, "pthread_create: %s\n", strerror(r));
			return 1;
		}
	}
	watch((void *) 0L);
	return 1;
}
