/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dlsched-demo-worker: a periodic job, as a media or control service runs
 * one, that counts its deadline misses.
 *
 * Instance k is released at start + k * period and must finish within
 * release + deadline. The job burns --work-us of its own CPU time, then the
 * worker waits for the next release with sched_wait_interval() (the
 * series' system call, include/dlsched/syscalls.h: sleep to an absolute
 * CLOCK_MONOTONIC time and start a new instance of the deadline task), or
 * clock_nanosleep(TIMER_ABSTIME) where the kernel lacks it (ENOSYS). A job
 * that finishes after its absolute deadline is a miss; releases that passed
 * while a late job still ran are skipped (and counted as such).
 *
 * dld turns the service's threads to SCHED_DEADLINE after it starts; with
 * --wait-deadline the worker counts nothing until that happened, so the
 * counts describe the reservation and not the seconds before it. A deadline
 * task starts counting at its reservation's next period, so that the
 * releases are the reservation's periods: a constrained deadline task
 * cannot start an instance before its next period, and a release schedule
 * of its own, out of phase with it, would have every job start late.
 *
 * Counters go to --stats FILE (rewritten atomically once a second, key=value
 * lines) and to stdout (the journal) every --report seconds and at exit. */

#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <dlsched/sched.h>
#include <dlsched/syscalls.h>

#define NSEC_PER_USEC INT64_C(1000)
#define NSEC_PER_SEC INT64_C(1000000000)

typedef struct Stats {
        uint64_t instances;     /* jobs run while counting */
        uint64_t misses;        /* jobs that finished after their deadline */
        uint64_t skipped;       /* releases lost while a late job still ran */
        int64_t worst_lateness_ns;      /* finish - deadline, largest (may be negative) */
        int64_t worst_response_ns;      /* finish - release, largest */
        int64_t worst_gap_ns;   /* longest time the job loop did not run: in an
                                 * emulated guest, the host preempting the vCPU */
        int64_t worst_start_ns;  /* job start - release, largest (wake-up latency) */
} Stats;

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
        (void) sig;
        stop = 1;
}

static int64_t now_ns(clockid_t clock) {
        struct timespec ts;

        clock_gettime(clock, &ts);
        return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static struct timespec to_timespec(int64_t ns) {
        return (struct timespec) { .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };
}

static bool is_deadline_task(struct sched_attr *attr) {
        return dlsched_get_attr(0, attr) >= 0 && attr->sched_policy == SCHED_DEADLINE;
}

/* The job: spin until this thread used work_ns of CPU. Returns the longest
 * gap between two looks at the clock. */
static int64_t run_job(int64_t work_ns) {
        int64_t end = now_ns(CLOCK_THREAD_CPUTIME_ID) + work_ns, last = now_ns(CLOCK_MONOTONIC), gap = 0;
        volatile uint64_t x = 0;

        while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end) {
                int64_t t;

                for (int i = 0; i < 100; i++)
                        x += i;
                t = now_ns(CLOCK_MONOTONIC);
                if (t - last > gap)
                        gap = t - last;
                last = t;
        }
        return gap;
}

#define DLSCHED_KNOB "/proc/sys/kernel/sched_dl_runtime_us"

static int have_wait_interval = -1;     /* unknown yet */

/* sched_wait_interval(t), or with a NULL t the task's next period, retried
 * on EINTR unless we are stopping. 0, or -errno. */
static int wait_interval(const struct timespec *t) {
        struct timespec rem;

        if (have_wait_interval < 0)
                have_wait_interval = access(DLSCHED_KNOB, F_OK) == 0;
        if (!have_wait_interval)
                return -ENOSYS;
        for (;;) {
                /* Mainline later gave this number to cachestat(): the worker
                 * calls it only where the dlsched knobs exist, and passes
                 * zeros for cachestat's other arguments, which make it fail
                 * harmlessly (EFAULT). */
                if (syscall(DLSCHED_NR_sched_wait_interval, t, &rem, 0, 0) == 0)
                        return 0;
                if (errno != EINTR)
                        break;
                if (stop)
                        return 0;
        }
        if (errno == ENOSYS)
                have_wait_interval = 0;
        return -errno;
}

/* Waits until the absolute CLOCK_MONOTONIC time t. Returns which way. */
static const char *wait_until(int64_t t) {
        struct timespec ts = to_timespec(t);

        /* Any error but ENOSYS (e.g. EINVAL for a normal task asking for
         * its next period): sleep the plain way this time. */
        if (wait_interval(&ts) == 0)
                return "sched_wait_interval";
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stop)
                ;
        return "clock_nanosleep";
}

/* Ends the deadline task's current instance and waits for its next period,
 * where it has a full runtime: sched_wait_interval(NULL), or sched_yield(),
 * which on a deadline task sleeps until the next replenishment. dld made us
 * a deadline task at some point of our own cycle; releases counted from the
 * return line up with the reservation's periods. */
static const char *wait_next_period(void) {
        if (wait_interval(NULL) == 0)
                return "sched_wait_interval";
        sched_yield();
        return "sched_yield";
}

static void write_stats(const char *path, const char *name, const Stats *s, bool counting,
                        const struct sched_attr *attr, const char *waiter) {
        char tmp[4096];
        FILE *f;

        if (!path)
                return;
        snprintf(tmp, sizeof(tmp), "%s.tmp", path);
        f = fopen(tmp, "we");
        if (!f)
                return;
        fprintf(f, "name=%s\ncounting=%d\npolicy=%s\nruntime_ns=%" PRIu64 "\ndeadline_ns=%" PRIu64
                "\nperiod_ns=%" PRIu64 "\nwait=%s\ninstances=%" PRIu64 "\nmisses=%" PRIu64
                "\nskipped=%" PRIu64 "\nworst_lateness_us=%" PRId64 "\nworst_response_us=%" PRId64
                "\nworst_gap_us=%" PRId64 "\nworst_start_us=%" PRId64 "\n",
                name, counting, attr->sched_policy == SCHED_DEADLINE ? "deadline" : "other",
                (uint64_t) attr->sched_runtime, (uint64_t) attr->sched_deadline, (uint64_t) attr->sched_period, waiter,
                s->instances, s->misses, s->skipped, s->worst_lateness_ns / NSEC_PER_USEC,
                s->worst_response_ns / NSEC_PER_USEC, s->worst_gap_ns / NSEC_PER_USEC,
                s->worst_start_ns / NSEC_PER_USEC);
        if (fclose(f) == 0)
                rename(tmp, path);
}

static void report(const char *name, const Stats *s, const char *waiter, const char *when) {
        printf("%s: %s: %" PRIu64 " instances, %" PRIu64 " deadline misses, %" PRIu64
               " skipped, worst response %" PRId64 "us, worst lateness %" PRId64 "us, worst start %" PRId64
               "us, worst stall %" PRId64 "us (%s)\n",
               name, when, s->instances, s->misses, s->skipped, s->worst_response_ns / NSEC_PER_USEC,
               s->worst_lateness_ns / NSEC_PER_USEC, s->worst_start_ns / NSEC_PER_USEC,
               s->worst_gap_ns / NSEC_PER_USEC, waiter);
        fflush(stdout);
}

static void usage(FILE *f) {
        fprintf(f,
                "dlsched-demo-worker --period-us=N [options]\n\n"
                "Runs a periodic job and counts its deadline misses.\n\n"
                "  --name=NAME            name in reports (default: worker)\n"
                "  --work-us=N            CPU time each job burns (default: 1000)\n"
                "  --period-us=N          release period (required)\n"
                "  --deadline-us=N        relative deadline (default: the period)\n"
                "  --duration=SECONDS     stop after this long (default: run until SIGTERM)\n"
                "  --wait-deadline=SECONDS  count only once the thread is SCHED_DEADLINE,\n"
                "                         waiting at most this long (then count anyway)\n"
                "  --stats=FILE           keep counters in FILE (key=value lines)\n"
                "  --report=SECONDS       print counters this often (default: 10)\n");
}

static bool parse_u64(const char *s, uint64_t *ret) {
        char *end;

        errno = 0;
        if (!s || !*s || *s == '-')
                return false;
        *ret = strtoull(s, &end, 10);
        return errno == 0 && *end == 0;
}

int main(int argc, char *argv[]) {
        static const struct option options[] = {
                { "name",          required_argument, NULL, 'n' },
                { "work-us",       required_argument, NULL, 'w' },
                { "period-us",     required_argument, NULL, 'p' },
                { "deadline-us",   required_argument, NULL, 'd' },
                { "duration",      required_argument, NULL, 't' },
                { "wait-deadline", required_argument, NULL, 'W' },
                { "stats",         required_argument, NULL, 's' },
                { "report",        required_argument, NULL, 'r' },
                { "help",          no_argument,       NULL, 'h' },
                {}
        };
        uint64_t work_us = 1000, period_us = 0, deadline_us = 0, duration_s = 0, wait_s = 0, report_s = 10;
        const char *name = "worker", *stats_path = NULL, *waiter = "none";
        int64_t start, release, next_stats, next_report, end = INT64_MAX, wait_end, waited_from;
        struct sched_attr attr;
        Stats s = { .worst_lateness_ns = INT64_MIN };
        bool counting;
        int c, opt;

        while ((c = getopt_long(argc, argv, "h", options, &opt)) >= 0) {
                bool ok = true;

                switch (c) {
                case 'n': name = optarg; break;
                case 'w': ok = parse_u64(optarg, &work_us); break;
                case 'p': ok = parse_u64(optarg, &period_us); break;
                case 'd': ok = parse_u64(optarg, &deadline_us); break;
                case 't': ok = parse_u64(optarg, &duration_s); break;
                case 'W': ok = parse_u64(optarg, &wait_s); break;
                case 's': stats_path = optarg; break;
                case 'r': ok = parse_u64(optarg, &report_s) && report_s > 0; break;
                case 'h': usage(stdout); return 0;
                default: usage(stderr); return 2;
                }
                if (!ok) {
                        fprintf(stderr, "dlsched-demo-worker: --%s: invalid value '%s'\n", options[opt].name, optarg);
                        return 2;
                }
        }
        if (optind < argc || period_us == 0) {
                fprintf(stderr, "dlsched-demo-worker: %s\n",
                        optind < argc ? "unexpected argument" : "--period-us=N is required");
                return 2;
        }
        if (deadline_us == 0)
                deadline_us = period_us;
        if (deadline_us > period_us || work_us >= deadline_us) {
                fprintf(stderr, "dlsched-demo-worker: need work < deadline <= period\n");
                return 2;
        }

        signal(SIGTERM, on_signal);
        signal(SIGINT, on_signal);
        setvbuf(stdout, NULL, _IOLBF, 0);

        start = now_ns(CLOCK_MONOTONIC);
        if (duration_s)
                end = start + (int64_t) duration_s * NSEC_PER_SEC;
        wait_end = start + (int64_t) wait_s * NSEC_PER_SEC;
        /* Counting starts in the first turn of the loop without --wait-deadline. */
        counting = false;
        printf("%s: job %" PRIu64 "us every %" PRIu64 "us, deadline %" PRIu64 "us%s\n", name, work_us,
               period_us, deadline_us, wait_s == 0 ? "" : "; counting once SCHED_DEADLINE");
        next_stats = start;
        next_report = start + (int64_t) report_s * NSEC_PER_SEC;
        release = waited_from = start;

        while (!stop && release < end) {
                int64_t deadline, finish, next, gap, begin, asked = waited_from;
                bool dl = is_deadline_task(&attr);

                if (!counting && (dl || release >= wait_end)) {
                        counting = true;
                        if (dl) {
                                asked = now_ns(CLOCK_MONOTONIC);
                                waiter = wait_next_period();
                                release = now_ns(CLOCK_MONOTONIC);
                        }
                        if (dl)
                                printf("%s: counting from now on, as a SCHED_DEADLINE task (runtime %" PRIu64
                                       "us, deadline %" PRIu64 "us, period %" PRIu64 "us)\n", name,
                                       (uint64_t) attr.sched_runtime / 1000, (uint64_t) attr.sched_deadline / 1000,
                                       (uint64_t) attr.sched_period / 1000);
                        else
                                printf("%s: counting from now on, as a normal task\n", name);
                }

                deadline = release + (int64_t) deadline_us * NSEC_PER_USEC;
                begin = now_ns(CLOCK_MONOTONIC);
                gap = run_job((int64_t) work_us * NSEC_PER_USEC);
                finish = now_ns(CLOCK_MONOTONIC);

                next = release + (int64_t) period_us * NSEC_PER_USEC;
                if (counting) {
                        s.instances++;
                        if (gap > s.worst_gap_ns)
                                s.worst_gap_ns = gap;
                        if (finish - deadline > s.worst_lateness_ns)
                                s.worst_lateness_ns = finish - deadline;
                        if (begin - release > s.worst_start_ns)
                                s.worst_start_ns = begin - release;
                        if (finish - release > s.worst_response_ns)
                                s.worst_response_ns = finish - release;
                        if (finish > deadline) {
                                s.misses++;
                                /* When (CLOCK_MONOTONIC, as in the kernel's trace
                                 * clock "mono") and where the time went. */
                                fprintf(stderr, "%s: deadline miss: instance %" PRIu64 " finished %" PRId64
                                        "us late (released at %" PRId64 ".%06" PRId64 ", waited for it from %" PRId64
                                        "us, started %" PRId64 "us after release, ran %" PRId64
                                        "us, longest stall %" PRId64 "us)\n",
                                        name, s.instances, (finish - deadline) / NSEC_PER_USEC,
                                        release / NSEC_PER_SEC, release % NSEC_PER_SEC / NSEC_PER_USEC,
                                        (asked - release) / NSEC_PER_USEC,
                                        (begin - release) / NSEC_PER_USEC, (finish - begin) / NSEC_PER_USEC,
                                        gap / NSEC_PER_USEC);
                        }
                }
                /* Releases that went by while this job ran are lost (the
                 * late job is already counted as a miss). */
                while (next <= finish) {
                        if (counting)
                                s.skipped++;
                        next += (int64_t) period_us * NSEC_PER_USEC;
                }

                if (finish >= next_stats) {
                        write_stats(stats_path, name, &s, counting, &attr, waiter);
                        next_stats = finish + NSEC_PER_SEC;
                }
                if (finish >= next_report) {
                        report(name, &s, waiter, "so far");
                        next_report = finish + (int64_t) report_s * NSEC_PER_SEC;
                }
                release = next;
                waited_from = now_ns(CLOCK_MONOTONIC);
                if (release < end && !stop)
                        waiter = wait_until(release);
        }

        if (s.worst_lateness_ns == INT64_MIN)
                s.worst_lateness_ns = 0;
        is_deadline_task(&attr);
        write_stats(stats_path, name, &s, counting, &attr, waiter);
        report(name, &s, waiter, "done");
        return 0;
}
