// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dlb-cap: guarantees at the cap (bench part 2). Runs a task set at once
 * and prints one "BENCH {json}" line for the periodic tasks and one for
 * each overrunning task:
 *
 *   dlb-cap LABEL JOBS SPEC...
 *
 * SPEC is KIND:CGROUP:RUNTIME_US:PERIOD_US:WORK_US, KIND one of
 *   periodic  SCHED_DEADLINE runtime/period (deadline = period), released
 *             every period from a common start, each job WORK_US of its
 *             own CPU time; JOBS jobs. A job that ends after the next
 *             release delays that one (no job is skipped)
 *   overrun   SCHED_DEADLINE, spins without end: the kernel throttles it
 *             every period (SCHED_FLAG_DL_OVERRUN counts the throttles)
 *   cfs       a CPU-bound SCHED_OTHER spinner (RUNTIME/PERIOD/WORK unused)
 * CGROUP is a cgroup v2 directory the task moves into ("-": stays).
 *
 * Every deadline task asks for SCHED_FLAG_DL_OVERRUN: SIGXCPU on each
 * runtime overrun, counted per task (a periodic task should never see
 * one). With DLB_STALLS=FILE (stallwatch's "gap START END" lines), misses
 * whose job window overlaps a guest stall are also counted apart.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "dlb.h"

#define MAX_TASKS 32

enum kind { PERIODIC, OVERRUN, CFS };

struct spec {
	enum kind kind;
	char cgroup[256];
	long runtime_us, period_us, work_us;
};

struct job {
	int64_t release, end;
};

struct shared {
	volatile long overruns[MAX_TASKS];
	volatile int set_failed[MAX_TASKS];
	volatile long jobs_done[MAX_TASKS];
};

static volatile sig_atomic_t xcpu;
static void on_xcpu(int sig)
{
	(void)sig;
	xcpu++;
}

static void parse(const char *s, struct spec *sp)
{
	char kind[16];

	if (sscanf(s, "%15[a-z]:%255[^:]:%ld:%ld:%ld", kind, sp->cgroup, &sp->runtime_us,
		   &sp->period_us, &sp->work_us) != 5)
		dlb_die("bad spec %s", s);
	if (!strcmp(kind, "periodic"))
		sp->kind = PERIODIC;
	else if (!strcmp(kind, "overrun"))
		sp->kind = OVERRUN;
	else if (!strcmp(kind, "cfs"))
		sp->kind = CFS;
	else
		dlb_die("bad kind %s", kind);
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000LL, .tv_nsec = t % 1000000000LL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void child(int idx, const struct spec *sp, long jobs, int64_t start, struct job *rec,
		  struct shared *sh)
{
	struct sigaction sa = { .sa_handler = on_xcpu };

	sigaction(SIGXCPU, &sa, NULL);
	if (strcmp(sp->cgroup, "-"))
		dlb_enter(sp->cgroup);
	/* DLB_NO_DL=1: the task set without SCHED_DEADLINE (a host try-out). */
	if (sp->kind != CFS && !getenv("DLB_NO_DL")) {
		int r = dlb_deadline(sp->runtime_us * 1000ULL, sp->period_us * 1000ULL,
				     sp->period_us * 1000ULL, SCHED_FLAG_DL_OVERRUN);

		if (r) {
			sh->set_failed[idx] = -r;
			_exit(1);
		}
	}
	sleep_until(start);
	if (sp->kind != PERIODIC) {
		for (;;) {
			spin_cpu_ns(1000000);
			sh->overruns[idx] = xcpu;
		}
	}
	for (long k = 0; k < jobs; k++) {
		int64_t release = start + k * sp->period_us * 1000LL;

		sleep_until(release);
		spin_cpu_ns((uint64_t)sp->work_us * 1000);
		rec[k].release = release;
		rec[k].end = dlb_now();
		sh->jobs_done[idx] = k + 1;
		sh->overruns[idx] = xcpu;
	}
	_exit(0);
}

#define MAX_GAPS 4096
static int64_t gap_a[MAX_GAPS], gap_b[MAX_GAPS];
static int n_gaps;

/* stallwatch's lines: "gap START END cpuN". */
static void read_gaps(const char *file)
{
	FILE *f = file ? fopen(file, "re") : NULL;
	char line[256];
	double a, b;

	if (!f)
		return;
	while (n_gaps < MAX_GAPS && fgets(line, sizeof(line), f))
		if (sscanf(line, "gap %lf %lf", &a, &b) == 2) {
			gap_a[n_gaps] = (int64_t)(a * 1e9);
			gap_b[n_gaps] = (int64_t)(b * 1e9);
			n_gaps++;
		}
	fclose(f);
}

static bool in_stall(int64_t from, int64_t to)
{
	for (int i = 0; i < n_gaps; i++)
		if (gap_a[i] < to && gap_b[i] > from)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	struct spec specs[MAX_TASKS];
	pid_t pids[MAX_TASKS];
	struct shared *sh;
	struct job *rec;
	long jobs;
	int n, n_periodic = 0;
	int64_t start, t_end;
	const char *label;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4 || argc - 3 > MAX_TASKS)
		dlb_die("usage: dlb-cap LABEL JOBS KIND:CGROUP:RUNTIME_US:PERIOD_US:WORK_US...");
	label = argv[1];
	jobs = atol(argv[2]);
	n = argc - 3;
	for (int i = 0; i < n; i++)
		parse(argv[3 + i], &specs[i]);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	rec = mmap(NULL, sizeof(*rec) * jobs * n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || rec == MAP_FAILED)
		dlb_die("mmap: %s", strerror(errno));
	memset(sh, 0, sizeof(*sh));
	start = dlb_now() + 300 * 1000000LL;
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			dlb_die("fork: %s", strerror(errno));
		if (pids[i] == 0)
			child(i, &specs[i], jobs, start, rec + (size_t)i * jobs, sh);
	}
	/* The periodic tasks end by themselves; then the others are stopped. */
	for (int i = 0; i < n; i++)
		if (specs[i].kind == PERIODIC) {
			waitpid(pids[i], NULL, 0);
			n_periodic++;
		}
	t_end = dlb_now();
	for (int i = 0; i < n; i++)
		if (specs[i].kind != PERIODIC) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
	read_gaps(getenv("DLB_STALLS"));

	{
		size_t total = (size_t)n_periodic * jobs, m = 0;
		int64_t *resp = calloc(total ? total : 1, sizeof(int64_t));
		int64_t max_late = INT64_MIN;
		long misses = 0, misses_stall = 0, throttles = 0, failed = 0, done = 0;
		double util = 0;
		long period_us = 0;

		for (int i = 0; i < n; i++) {
			const struct spec *sp = &specs[i];

			if (sh->set_failed[i])
				failed++;
			if (sp->kind != PERIODIC)
				continue;
			util += (double)sp->work_us / sp->period_us;
			period_us = sp->period_us;
			throttles += sh->overruns[i];
			done += sh->jobs_done[i];
			for (long k = 0; k < sh->jobs_done[i]; k++) {
				struct job *j = &rec[(size_t)i * jobs + k];
				int64_t dl = j->release + sp->period_us * 1000LL;
				int64_t late = j->end - dl;

				resp[m++] = j->end - j->release;
				if (late > max_late)
					max_late = late;
				if (late > 0) {
					misses++;
					if (in_stall(j->release, j->end))
						misses_stall++;
				}
			}
		}
		dlb_sort(resp, m);
		printf("BENCH {\"test\":\"cap\",\"label\":\"%s\",\"tasks\":%d,\"period_us\":%ld,\"jobs_per_task\":%ld,"
		       "\"jobs\":%ld,\"work_util\":%.3f,\"setattr_failed\":%ld,\"misses\":%ld,"
		       "\"misses_in_stalls\":%ld,\"stalls\":%d,\"max_lateness_us\":%.1f,"
		       "\"resp_us_p50\":%.1f,\"resp_us_p90\":%.1f,\"resp_us_p99\":%.1f,\"resp_us_max\":%.1f,"
		       "\"periodic_throttles\":%ld,\"seconds\":%.2f}\n",
		       label, n_periodic, period_us, jobs, done, util, failed, misses, misses_stall, n_gaps,
		       m ? max_late / 1e3 : 0.0,
		       dlb_quantile(resp, m, 0.5) / 1e3, dlb_quantile(resp, m, 0.9) / 1e3,
		       dlb_quantile(resp, m, 0.99) / 1e3, m ? resp[m - 1] / 1e3 : 0.0,
		       throttles, (t_end - start) / 1e9);
		/* The response times, for the CDF plot: microseconds, sorted, at
		 * most 200 points. */
		printf("BENCH {\"test\":\"cap_cdf\",\"label\":\"%s\",\"resp_us\":[", label);
		for (size_t q = 0; m && q < 200; q++)
			printf("%s%.1f", q ? "," : "", dlb_quantile(resp, m, (q + 1) / 200.0) / 1e3);
		printf("]}\n");
		for (int i = 0; i < n; i++)
			if (specs[i].kind == OVERRUN)
				printf("BENCH {\"test\":\"cap_overrun\",\"label\":\"%s\",\"runtime_us\":%ld,"
				       "\"period_us\":%ld,\"throttles\":%ld,\"periods\":%.0f}\n",
				       label, specs[i].runtime_us, specs[i].period_us, sh->overruns[i],
				       (t_end - start) / 1e3 / specs[i].period_us);
		free(resp);
		return failed ? 1 : 0;
	}
}
