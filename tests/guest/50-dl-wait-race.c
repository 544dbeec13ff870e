// SPDX-License-Identifier: GPL-2.0
/*
 * sched_wait_interval() racing with a demotion. A deadline thread calls
 * sched_wait_interval(NULL, NULL) in a loop while a sibling demotes it to
 * SCHED_OTHER and promotes it again at instants chosen around its calls.
 * The system call looks at the caller's policy before it takes its rq
 * lock: a demotion in between, with the 0-lag time past, has cleared the
 * deadline parameters it then divides by (dl_runtime). Every call must
 * return 0 (deadline) or EINVAL (demoted, NULL rqtp), and the kernel must
 * log no oops or warning.
 *
 * The thread has 40 us every 1 ms with a 100 us deadline: at the start of
 * an instance its 0-lag time (deadline - runtime * period / runtime) is
 * 900 us in the past, so a demotion right after a wake-up releases its
 * bandwidth, and clears its parameters, at once. Runs as root, and as
 * nobody within RLIMIT_DLDLINE 100 us and RLIMIT_DLRTIME 40 us.
 */
#include <stdatomic.h>
#include "dltask.h"

#define USEC NSEC_PER_USEC
#define RUNTIME (40 * USEC)
#define DEADLINE (100 * USEC)
#define PERIOD (1000 * USEC)
/* Per run; two runs. */
#define DURATION_NS (8 * NSEC_PER_SEC)
/*
 * The waiter spins up to this long before each call: it stays well within
 * its runtime, so its 0-lag time stays in the past (see above).
 */
#define WAITER_JITTER_NS (20 * USEC)
/* The demoter acts up to this long after the waiter's next call begins. */
#define DEMOTER_JITTER_NS (40 * USEC)
/* How long it stays demoted, at most. */
#define DEMOTED_MAX_NS (1000 * USEC)

struct race {
	atomic_int stop;
	atomic_int ready;	/* 1: the waiter is a deadline task, -errno: it is not */
	atomic_uint seq;	/* bumped by the waiter before each call */
	pid_t tid;
	long calls, ok, einval, other;
	int other_err;
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void spin_until(uint64_t t)
{
	while (now_ns() < t)
		;
}

static void *waiter(void *arg)
{
	struct race *r = arg;
	uint64_t seed = now_ns() | 1;
	int ret;

	r->tid = (pid_t)syscall(SYS_gettid);
	ret = dl_enter_admitted(RUNTIME, DEADLINE, PERIOD, 0);
	atomic_store(&r->ready, ret ? ret : 1);
	if (ret)
		return NULL;
	while (!atomic_load(&r->stop)) {
		atomic_fetch_add(&r->seq, 1);
		spin_until(now_ns() + xorshift(&seed) % WAITER_JITTER_NS);
		ret = sched_wait_interval(NULL, NULL) ? errno : 0;
		r->calls++;
		if (!ret) {
			r->ok++;
		} else if (ret == EINVAL) {
			r->einval++;
		} else {
			r->other++;
			r->other_err = ret;
		}
	}
	dl_leave();
	return NULL;
}

/*
 * Demote and promote the waiter until DURATION_NS is over; the child
 * test's status.
 */
static int race_run(void)
{
	struct sched_attr other = { .size = sizeof(other), .sched_policy = SCHED_OTHER };
	struct sched_attr dl = dlsched_deadline_attr(RUNTIME, DEADLINE, PERIOD, 0);
	long demotions = 0, promotions = 0, promote_busy = 0;
	static struct race r;
	uint64_t seed = now_ns() | 1, end, t;
	int err = 0, ret, i;
	pthread_t th;
	unsigned int s;

	memset(&r, 0, sizeof(r));
	ret = pthread_create(&th, NULL, waiter, &r);
	CHILD_EXPECT(!ret, "pthread_create: %s\n", strerror(ret));
	while (!atomic_load(&r.ready))
		usleep(1000);
	if (atomic_load(&r.ready) < 0) {
		pthread_join(th, NULL);
		CHILD_EXPECT(0, "the waiter could not enter SCHED_DEADLINE: %s\n",
			     strerror(-atomic_load(&r.ready)));
	}
	end = now_ns() + DURATION_NS;
	while (!err && now_ns() < end) {
		/* Catch the waiter between two calls, or sleeping if it does not come. */
		s = atomic_load(&r.seq);
		t = now_ns();
		while (atomic_load(&r.seq) == s && now_ns() - t < 5 * PERIOD)
			;
		spin_until(now_ns() + xorshift(&seed) % DEMOTER_JITTER_NS);
		if (dlsched_sched_setattr(r.tid, &other, 0)) {
			err = errno;
			ksft_print_msg("demote: %s\n", strerror(err));
			break;
		}
		demotions++;
		usleep(xorshift(&seed) % (DEMOTED_MAX_NS / USEC));
		/* Its bandwidth may still be held until its 0-lag time: EBUSY, again. */
		for (i = 0; i < 100; i++) {
			if (!dlsched_sched_setattr(r.tid, &dl, 0))
				break;
			if (errno != EBUSY) {
				err = errno;
				ksft_print_msg("promote: %s\n", strerror(err));
				break;
			}
			promote_busy++;
			usleep(1000);
		}
		if (i == 100) {
			err = EBUSY;
			ksft_print_msg("promote: EBUSY for 100 ms\n");
		}
		if (!err)
			promotions++;
	}
	atomic_store(&r.stop, 1);
	pthread_join(th, NULL);
	ksft_print_msg("%ld calls: %ld returned 0, %ld EINVAL, %ld other (last %s); %ld demotions, %ld promotions (%ld EBUSY on the way)\n",
		       r.calls, r.ok, r.einval, r.other, r.other ? strerror(r.other_err) : "-",
		       demotions, promotions, promote_busy);
	CHILD_EXPECT(!err, "the demoter failed\n");
	CHILD_EXPECT(!r.other, "%ld calls returned neither 0 nor EINVAL\n", r.other);
	/* Both ways were exercised, or the test proves nothing. */
	CHILD_EXPECT(r.ok > 0 && r.einval > 0 && demotions > 100,
		     "too few calls or demotions to race\n");
	return 0;
}

static int as_root(void *arg)
{
	(void)arg;
	return race_run();
}

static int as_nobody(void *arg)
{
	(void)arg;
	CHILD_EXPECT(!drop_privileges_with_dl_limits(DEADLINE / USEC, RUNTIME / USEC),
		     "limits, privileges: %s\n", strerror(errno));
	return race_run();
}

/* The kernel log from now on: a reader at its end, or -errno. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* Oopses and warnings logged since kmsg_open(), printed. */
static int kmsg_bad_lines(int fd)
{
	static const char *const bad[] = {
		"Oops", "divide error", "BUG:", "WARNING:", "general protection",
	};
	char rec[8192];
	int found = 0;
	size_t i;
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on with the next */
		if (n <= 0)
			break;
		rec[n] = '\0';
		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			if (strstr(rec, bad[i])) {
				ksft_print_msg("kernel: %s", strchr(rec, ';') ? strchr(rec, ';') + 1 : rec);
				found++;
				break;
			}
		}
	}
	return found;
}

int main(void)
{
	const struct child_test tests[] = {
		{ as_root, NULL,
		  "root: sched_wait_interval(NULL) racing with demotions returns 0 or EINVAL" },
		{ as_nobody, NULL,
		  "nobody within its rlimits: sched_wait_interval(NULL) racing with demotions returns 0 or EINVAL" },
	};
	int kmsg, bad;

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(tests) + 1);
	kmsg = kmsg_open();
	run_child_tests(tests, ARRAY_SIZE(tests));
	if (kmsg < 0) {
		ksft_test_result_fail("cannot read /dev/kmsg: %s\n", strerror(-kmsg));
	} else {
		bad = kmsg_bad_lines(kmsg);
		ksft_test_result(!bad, "no oops or warning in the kernel log (%d lines)\n", bad);
		close(kmsg);
	}
	ksft_finished();
}
