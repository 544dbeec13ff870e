// SPDX-License-Identifier: GPL-2.0
/*
 * Races between the admission paths of the group reservations, each run
 * in rounds for a bounded time: two threads start their operation at the
 * same instant give or take a random offset, then the test checks the
 * invariants and sets the next round up.
 *
 * Attach: a waiting SCHED_OTHER task T is moved from S (no reservation)
 * into D (cgroup.procs) while another thread makes it SCHED_DEADLINE.
 * The move checks D in can_attach() and sched_setattr() checks the group
 * T is in at that instant: T becoming a deadline task between can_attach()
 * and attach() must not enter D unchecked. Every other round a filler
 * task in D leaves it no room for T; in the others it has room for T
 * exactly. Each operation succeeds or fails with EBUSY, and afterwards D
 * holds at most its reservation, and every total is what T's place and
 * policy say.
 *
 * Pool: one thread writes sched_dl_runtime_us down to what just holds the
 * reservations (or back up), the other writes a group's cpu.dl_runtime_us
 * up (or down). The pool never holds more than sched_dl_runtime_us /
 * sched_dl_period_us of each CPU, in the kernel's fixed point, and its
 * total is what the reservations that stand say.
 *
 * T and the filler never run as deadline tasks (they wait in read()), so
 * demoting them gives their bandwidth back at once.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include "dlgroup.h"
#include "dltask.h"

#define RACE_NS (10 * NSEC_PER_SEC)
/* Mismatches printed per race; the rest are only counted. */
#define MAX_REPORTS 5

struct racer {
	pthread_t th;
	int (*op)(struct racer *r);
	const char *path;	/* op_write: the file and the value */
	long long val;
	pid_t pid;		/* op_setattr: the task and its new attributes */
	struct sched_attr attr;
	uint64_t delay;		/* spun after the start of the round */
	uint64_t took;		/* the operation, in ns */
	int err;		/* its errno, 0 for success */
};

static pthread_barrier_t start_bar, done_bar;
static atomic_int racers_stop;
static uint64_t seed = 88172645463325252ULL;
static int reports;

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static int op_write(struct racer *r)
{
	return -write_ll(r->path, r->val);
}

static int op_setattr(struct racer *r)
{
	return dlsched_sched_setattr(r->pid, &r->attr, 0) ? errno : 0;
}

static void *racer_main(void *arg)
{
	struct racer *r = arg;
	uint64_t t;

	for (;;) {
		pthread_barrier_wait(&start_bar);
		if (atomic_load(&racers_stop))
			return NULL;
		t = now_ns() + r->delay;
		while (now_ns() < t)
			;
		t = now_ns();
		r->err = r->op(r);
		r->took = now_ns() - t;
		pthread_barrier_wait(&done_bar);
	}
}

static void racers_start(struct racer *a, struct racer *b)
{
	int err;

	atomic_store(&racers_stop, 0);
	if (pthread_barrier_init(&start_bar, NULL, 3) || pthread_barrier_init(&done_bar, NULL, 3))
		ksft_exit_fail_msg("pthread_barrier_init failed\n");
	err = pthread_create(&a->th, NULL, racer_main, a);
	if (!err)
		err = pthread_create(&b->th, NULL, racer_main, b);
	if (err)
		ksft_exit_fail_msg("pthread_create: %s\n", strerror(err));
}

static void racers_stop_all(struct racer *a, struct racer *b)
{
	atomic_store(&racers_stop, 1);
	pthread_barrier_wait(&start_bar);
	pthread_join(a->th, NULL);
	pthread_join(b->th, NULL);
	pthread_barrier_destroy(&start_bar);
	pthread_barrier_destroy(&done_bar);
}

/*
 * One round: @b starts at a random instant from a quarter of @a's duration
 * before @a to the end of @a (its average, *@window), where the window of
 * a race lies: somewhere inside @a's system call.
 */
static void round_run(struct racer *a, struct racer *b, uint64_t *window)
{
	uint64_t w = *window, span = w + w / 4 + 1, o = rnd() % span;

	if (o >= w / 4) {
		a->delay = 0;
		b->delay = o - w / 4;
	} else {
		a->delay = w / 4 - o;
		b->delay = 0;
	}
	pthread_barrier_wait(&start_bar);
	pthread_barrier_wait(&done_bar);
	*window = (7 * w + a->took) / 8;
}

static bool check(bool cond, const char *fmt, ...)
{
	va_list ap;

	if (!cond && reports++ < MAX_REPORTS) {
		va_start(ap, fmt);
		printf("# ");
		vprintf(fmt, ap);
		va_end(ap);
	}
	return cond;
}

static bool busy_or_ok(int err)
{
	return !err || err == EBUSY;
}

static int policy_of(pid_t pid)
{
	struct sched_attr a = { .size = sizeof(a) };

	if (dlsched_sched_getattr(pid, &a, sizeof(a), 0))
		ksft_exit_fail_msg("sched_getattr %d: %s\n", pid, strerror(errno));
	return a.sched_policy;
}

/* Set @c's policy (0: SCHED_OTHER) or die. */
static void set_or_die(struct dl_child *c, uint64_t runtime)
{
	int err = dl_child_set(c, runtime);

	if (err)
		ksft_exit_fail_msg("sched_setattr %d (runtime %llu): %s\n", c->pid,
				   (unsigned long long)runtime, strerror(-err));
}

/* ---- Attach against sched_setattr() ---- */

static void race_attach(void)
{
	long long n = cpus(), pool0 = pool_total();
	/* D reserves 1/32 of each CPU: n/32 CPU; T and the filler take n/32 each. */
	uint64_t runtime = TASK_RUNTIME_NS(32) * n;
	long long tb = dl_ratio(TASK_PERIOD_NS, runtime), cap = BW_FRACTION(32) * n;
	long outcomes[2][2][2] = { { { 0 } } }, rounds = 0, bad = 0;
	struct racer mover = { .op = op_write }, setter = { .op = op_setattr };
	struct dl_child t, filler;
	char procs[512];
	uint64_t window = 200 * NSEC_PER_USEC, end;
	int full, in_d, is_dl, m, s;

	cg_create("S");
	cg_create("D");
	if (cg_write_ll("D", "cpu.dl_runtime_us", 31250))
		ksft_exit_fail_msg("reserve D: %s\n", strerror(errno));
	t = dl_child_start("S", 0);
	filler = dl_child_start("D", 0);
	/* No cg_path() in the threads: its buffers are not theirs. */
	snprintf(procs, sizeof(procs), "%s", cg_path("D", "cgroup.procs"));
	mover.path = procs;
	mover.val = t.pid;
	setter.pid = t.pid;
	setter.attr = dlsched_deadline_attr(runtime, TASK_PERIOD_NS, TASK_PERIOD_NS, 0);
	racers_start(&mover, &setter);

	end = now_ns() + RACE_NS;
	for (rounds = 0; now_ns() < end; rounds++) {
		long long want_d, want_s, d, sv, pool;

		/* Every other round D is full: the filler holds all of it. */
		full = rounds & 1;
		set_or_die(&filler, full ? runtime : 0);
		if (wait_total("D", full ? tb : 0) != (full ? tb : 0) || wait_total("S", 0) != 0)
			ksft_exit_fail_msg("D or S did not settle before round %ld\n", rounds);

		round_run(&mover, &setter, &window);

		in_d = cg_has("D", t.pid);
		is_dl = policy_of(t.pid) == SCHED_DEADLINE;
		m = !mover.err;
		s = !setter.err;
		outcomes[full][m][s]++;
		d = cg_total("D");
		sv = cg_total("S");
		pool = pool_total();
		want_d = (full ? tb : 0) + (in_d && is_dl ? tb : 0);
		want_s = !in_d && is_dl ? tb : 0;
		if (!check(busy_or_ok(mover.err) && busy_or_ok(setter.err),
			   "round %ld: move %s, sched_setattr %s: want success or EBUSY\n", rounds,
			   strerror(mover.err), strerror(setter.err)) |
		    !check(m == in_d && s == is_dl,
			   "round %ld: move %s but T %s D, sched_setattr %s but T %s SCHED_DEADLINE\n",
			   rounds, strerror(mover.err), in_d ? "in" : "not in",
			   strerror(setter.err), is_dl ? "is" : "is not") |
		    !check(d <= cap, "round %ld (D %s): D holds %lld, more than its reservation %lld\n",
			   rounds, full ? "full" : "with room for T", d, cap) |
		    !check(d == want_d && sv == want_s && pool == pool0 + cap + sv,
			   "round %ld: D %lld S %lld pool %lld, want %lld %lld %lld (T %s D, %s)\n",
			   rounds, d, sv, pool, want_d, want_s, pool0 + cap + want_s,
			   in_d ? "in" : "not in", is_dl ? "deadline" : "other"))
			bad++;

		/* Back: T waiting in S as SCHED_OTHER. */
		if (is_dl)
			set_or_die(&t, 0);
		if (in_d && cg_move("S", t.pid))
			ksft_exit_fail_msg("move T back to S: %s\n", strerror(errno));
	}
	racers_stop_all(&mover, &setter);

	ksft_print_msg("%ld rounds (move/sched_setattr; ok = succeeded, busy = EBUSY), window %.0f us\n",
		       rounds, window / 1e3);
	for (full = 0; full < 2; full++)
		ksft_print_msg("  D %s: ok/ok %ld, ok/busy %ld, busy/ok %ld, busy/busy %ld\n",
			       full ? "full" : "with room for T", outcomes[full][1][1],
			       outcomes[full][1][0], outcomes[full][0][1], outcomes[full][0][0]);
	ksft_test_result(!bad && rounds > 100,
			 "T moved into D while entering SCHED_DEADLINE: D never above its reservation, totals exact (%ld of %ld rounds wrong)\n",
			 bad, rounds);

	set_or_die(&filler, 0);
	dl_child_stop(&t);
	dl_child_stop(&filler);
	if (cg_write_ll("D", "cpu.dl_runtime_us", -1) || cg_remove("D") || cg_remove("S"))
		ksft_exit_fail_msg("remove D, S: %s\n", strerror(errno));
}

/* ---- The pool's knob against reservations ---- */

enum pool_round {
	LOWER_VS_RESERVE,	/* from high, G none: pool down, G up */
	LOWER_VS_RELEASE,	/* from high, G reserved: pool down, G released */
	RAISE_VS_RESERVE,	/* from low, G none: pool up, G up */
};

static const char *const pool_round_names[] = {
	[LOWER_VS_RESERVE] = "pool lowered / G reserved",
	[LOWER_VS_RELEASE] = "pool lowered / G released",
	[RAISE_VS_RESERVE] = "pool raised / G reserved",
};

static void race_pool(void)
{
	/* B holds 1/16 of each CPU; LOW holds exactly that, HIGH 1/4. */
	const long long low = 62500, high = 250000, g_resv = 62500;
	static const enum pool_round order[] = {
		LOWER_VS_RESERVE, LOWER_VS_RELEASE, LOWER_VS_RESERVE, RAISE_VS_RESERVE,
	};
	long long n = cpus(), period = sysctl_read(SYSCTL_DL_PERIOD), pool0;
	long long b_bw = BW_FRACTION(16) * n, g_bw = BW_FRACTION(16) * n;
	long outcomes[3][2][2] = { { { 0 } } }, rounds = 0, bad = 0;
	struct racer knob = { .op = op_write, .path = SYSCTL_DL_RUNTIME };
	struct racer resv = { .op = op_write };
	uint64_t window = 200 * NSEC_PER_USEC, end;
	char g_runtime[512];
	enum pool_round kind;
	int k, g;

	if (period != 1000000)
		ksft_exit_fail_msg("sched_dl_period_us %lld, the test wants 1000000\n", period);
	pool0 = wait_total(NULL, 0);
	if (pool0)
		ksft_exit_fail_msg("the pool holds %lld before the race\n", pool0);
	cg_create("B");
	cg_create("G");
	if (cg_write_ll("B", "cpu.dl_runtime_us", 62500))
		ksft_exit_fail_msg("reserve B: %s\n", strerror(errno));
	snprintf(g_runtime, sizeof(g_runtime), "%s", cg_path("G", "cpu.dl_runtime_us"));
	resv.path = g_runtime;
	racers_start(&knob, &resv);

	end = now_ns() + RACE_NS;
	for (rounds = 0; now_ns() < end; rounds++) {
		long long r, gr, pool, cap;

		kind = order[rounds % ARRAY_SIZE(order)];
		/* Set the round up; in this order every write fits. */
		if (cg_write_ll("G", "cpu.dl_runtime_us", -1) ||
		    write_ll(SYSCTL_DL_RUNTIME, kind == RAISE_VS_RESERVE ? low : high) ||
		    (kind == LOWER_VS_RELEASE && cg_write_ll("G", "cpu.dl_runtime_us", g_resv)))
			ksft_exit_fail_msg("set round %ld up: %s\n", rounds, strerror(errno));
		knob.val = kind == RAISE_VS_RESERVE ? high : low;
		resv.val = kind == LOWER_VS_RELEASE ? -1 : g_resv;

		round_run(&knob, &resv, &window);

		r = sysctl_read(SYSCTL_DL_RUNTIME);
		gr = cg_read("G", "cpu.dl_runtime_us");
		pool = pool_total();
		cap = dl_ratio(period * NSEC_PER_USEC, r * NSEC_PER_USEC) * n;
		k = !knob.err;
		g = !resv.err;
		outcomes[kind][k][g]++;
		if (!check(busy_or_ok(knob.err) && busy_or_ok(resv.err),
			   "round %ld (%s): sysctl %s, reservation %s: want success or EBUSY\n",
			   rounds, pool_round_names[kind], strerror(knob.err), strerror(resv.err)) |
		    !check((r == knob.val) == k && (gr == resv.val) == g,
			   "round %ld (%s): sysctl %s and reads %lld, reservation %s and reads %lld\n",
			   rounds, pool_round_names[kind], strerror(knob.err), r,
			   strerror(resv.err), gr) |
		    !check(pool <= cap,
			   "round %ld (%s): the pool holds %lld, more than sched_dl_runtime_us %lld allows (%lld)\n",
			   rounds, pool_round_names[kind], pool, r, cap) |
		    !check(pool == b_bw + (gr == g_resv ? g_bw : 0),
			   "round %ld (%s): the pool holds %lld, want %lld (G %lld)\n", rounds,
			   pool_round_names[kind], pool, b_bw + (gr == g_resv ? g_bw : 0), gr))
			bad++;
	}
	racers_stop_all(&knob, &resv);

	ksft_print_msg("%ld rounds (sysctl/reservation; ok = succeeded, busy = EBUSY), window %.0f us\n",
		       rounds, window / 1e3);
	for (k = 0; k < 3; k++)
		ksft_print_msg("  %s: ok/ok %ld, ok/busy %ld, busy/ok %ld, busy/busy %ld\n",
			       pool_round_names[k], outcomes[k][1][1], outcomes[k][1][0],
			       outcomes[k][0][1], outcomes[k][0][0]);
	ksft_test_result(!bad && rounds > 100,
			 "sched_dl_runtime_us written against a reservation: the pool never overcommitted, totals exact (%ld of %ld rounds wrong)\n",
			 bad, rounds);

	if (cg_write_ll("G", "cpu.dl_runtime_us", -1) || cg_write_ll("B", "cpu.dl_runtime_us", -1) ||
	    cg_remove("G") || cg_remove("B"))
		ksft_exit_fail_msg("release B, G: %s\n", strerror(errno));
}

int main(void)
{
	long long pool0;

	ksft_print_header();
	ksft_set_plan(3);
	dl_setup("dltest-21");
	if (cpus() > 32)
		ksft_exit_skip("more than 32 CPUs\n");
	pool0 = pool_total();
	/* A quarter of each CPU for deadline tasks. */
	set_dl_pool(750000, 250000);
	seed ^= now_ns();

	race_attach();
	reports = 0;
	race_pool();

	/* Restore the knobs now, and check that they and the pool read as before. */
	dl_cleanup();
	ksft_test_result(sysctl_read(SYSCTL_DL_RUNTIME) == saved_dl_runtime &&
			 sysctl_read(SYSCTL_DL_PERIOD) == saved_dl_period &&
			 sysctl_read(SYSCTL_RT_RUNTIME) == saved_rt_runtime &&
			 sysctl_read(SYSCTL_RT_PERIOD) == saved_rt_period &&
			 wait_total(NULL, pool0) == pool0,
			 "sysctls restored, the pool holds %lld as before\n", pool0);
	ksft_finished();
}
