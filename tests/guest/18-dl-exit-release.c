// SPDX-License-Identifier: GPL-2.0
/*
 * When bandwidth comes back. A deadline task that exits, is killed or
 * leaves SCHED_DEADLINE keeps its bandwidth in the root domain until its
 * 0-lag time, and admission control still counts it; sched_dl_total_bw
 * and cpu.dl_total_bw must count it as well, so that the free bandwidth
 * they imply is exactly what sched_setattr() admits: before the 0-lag
 * time, and after it, when both read their previous values again. Also:
 * removing groups while a dead task's charge is pending, and a task that
 * leaves and re-enters SCHED_DEADLINE before its 0-lag time, and one that
 * moves to other groups meanwhile (its charge stays where it was).
 *
 * The leaving task has runtime Q = P/16 every P = 1 s. It enters
 * SCHED_DEADLINE (a fresh instance), runs part of Q and leaves; its 0-lag
 * time is deadline - (Q - used) * P / Q = enter + used * 16: spinning Q/2
 * puts it about 470 ms after the task left, long enough to look at the
 * numbers under TCG, and at most a period (plus an overrun) away.
 *
 * Requests are made by waiting SCHED_OTHER children promoted with
 * sched_setattr() (no fork inside the window); a blocked task promoted
 * and demoted again never ran as a deadline task and gives back at once.
 */
#include "dlgroup.h"
#include "dltask.h"

#define LEAVE_PERIOD_NS NSEC_PER_SEC
#define LEAVE_RUNTIME_NS (LEAVE_PERIOD_NS / 16)
/* Waiting for the 0-lag time: a period, an overrun, and TCG. */
#define RELEASE_TIMEOUT_NS (2 * LEAVE_PERIOD_NS + NSEC_PER_SEC)

enum leave { LEAVE_EXIT, LEAVE_KILL, LEAVE_DEMOTE };

static const char * const leave_names[] = {
	[LEAVE_EXIT] = "exits",
	[LEAVE_KILL] = "is killed (SIGKILL)",
	[LEAVE_DEMOTE] = "is demoted to SCHED_OTHER",
};

static long long pool_cap;

struct leaver {
	pid_t pid;
	int go;		/* write end: enter SCHED_DEADLINE now */
	int report;	/* read end: sched_setattr()'s errno, once Q * spin ran */
};

/*
 * Fork a child into @cg that, when told to, enters SCHED_DEADLINE
 * (Q every P), runs @spin_ns of CPU time, reports, and then exits
 * (@exit_after) or blocks until the test ends.
 */
static struct leaver leaver_start(const char *cg, uint64_t spin_ns, bool exit_after)
{
	int go[2], report[2], gate;
	struct leaver l;
	char c;

	if (pipe(go) || pipe(report))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	l.pid = dl_child_fork(&gate);
	if (!l.pid) {
		int err = 0;

		close(go[1]);
		close(report[0]);
		if (cg_move(cg, getpid()))
			err = 1000 + errno;
		if (!err && read(go[0], &c, 1) != 1)
			_exit(1);
		if (!err)
			err = -dl_enter(LEAVE_RUNTIME_NS, LEAVE_PERIOD_NS, LEAVE_PERIOD_NS, 0);
		if (!err)
			spin_cpu_ns(spin_ns);
		if (write(report[1], &err, sizeof(err)) != sizeof(err) || exit_after)
			_exit(0);
		while (read(gate, &c, 1) > 0)
			;
		_exit(0);
	}
	close(go[0]);
	close(report[1]);
	l.go = go[1];
	l.report = report[0];
	return l;
}

/* Let it enter SCHED_DEADLINE and run; its sched_setattr() errno. */
static int leaver_go(struct leaver *l)
{
	int err;

	if (write(l->go, "g", 1) != 1 || read(l->report, &err, sizeof(err)) != sizeof(err))
		ksft_exit_fail_msg("child %d did not report\n", l->pid);
	if (err >= 1000)
		ksft_exit_fail_msg("child could not join its group: %s\n", strerror(err - 1000));
	close(l->go);
	close(l->report);
	return err;
}

static void forget_child(pid_t pid)
{
	int i;

	for (i = 0; i < child_count; i++)
		if (children[i] == pid)
			children[i] = 0;
}

static void reap(pid_t pid)
{
	if (waitpid(pid, NULL, 0) != pid)
		ksft_exit_fail_msg("waitpid %d: %s\n", pid, strerror(errno));
	forget_child(pid);
}

/* A runtime every TASK_PERIOD_NS of exactly @bw (the kernel rounds down). */
static uint64_t runtime_of(long long bw)
{
	uint64_t runtime = (bw * TASK_PERIOD_NS + BW_UNIT - 1) / BW_UNIT;

	if (bw <= 0 || bw > BW_UNIT || (long long)dl_ratio(TASK_PERIOD_NS, runtime) != bw)
		ksft_exit_fail_msg("no runtime of bandwidth %lld\n", bw);
	return runtime;
}

/*
 * Admission agrees with the pool's numbers: a waiting child asking for
 * exactly the free bandwidth they imply is admitted, another asking for
 * one fixed-point unit more is refused with EBUSY. The admitted one
 * leaves at once (it never ran as a deadline task).
 */
static bool admits_exactly_free(struct dl_child *fits, struct dl_child *over)
{
	long long free_bw = pool_cap - pool_total();
	int ok_err, over_err;

	ok_err = dl_child_set(fits, runtime_of(free_bw));
	over_err = dl_child_set(over, runtime_of(free_bw + 1));
	if ((!ok_err && dl_child_set(fits, 0)) || (!over_err && dl_child_set(over, 0)))
		ksft_exit_fail_msg("demote: %s\n", strerror(errno));
	if (ok_err || over_err != -EBUSY)
		ksft_print_msg("free %lld: exactly free %s, one more %s\n", free_bw,
			       strerror(-ok_err), strerror(-over_err));
	return !ok_err && over_err == -EBUSY;
}

/* Wait for the pool and @cg (NULL: none) to read these again; ns taken, or -1. */
static long long wait_totals(const char *cg, long long cg_want, long long pool_want,
			     uint64_t since)
{
	for (;;) {
		long long pool = pool_total(), in_cg = cg ? cg_total(cg) : cg_want;

		if (pool == pool_want && in_cg == cg_want)
			return now_ns() - since;
		if (now_ns() - since > RELEASE_TIMEOUT_NS) {
			ksft_print_msg("after %.0f ms: pool %lld (want %lld), %s %lld (want %lld)\n",
				       ms(now_ns() - since), pool, pool_want, cg ? cg : "-", in_cg,
				       cg_want);
			return -1;
		}
		usleep(1000);
	}
}

/*
 * A task of G (no reservation: charged to the pool) leaves in @how after
 * running half its runtime: its bandwidth is still counted, and admission
 * agrees; by its 0-lag time both totals are back, and the larger request
 * fits.
 */
static void leave_case(enum leave how, struct dl_child *fits, struct dl_child *over)
{
	long long b = dl_ratio(LEAVE_PERIOD_NS, LEAVE_RUNTIME_NS);
	long long pool0 = pool_total(), g0 = cg_total("G"), taken;
	const char *name = leave_names[how];
	struct leaver l = leaver_start("G", LEAVE_RUNTIME_NS / 2, how == LEAVE_EXIT);
	long long pending_ns;
	uint64_t left;
	int err, pending;

	err = leaver_go(&l);
	if (err)
		ksft_exit_fail_msg("the task of %lld was refused: %s\n", b, strerror(err));
	if (how == LEAVE_KILL)
		kill(l.pid, SIGKILL);
	if (how == LEAVE_DEMOTE) {
		struct sched_attr other = { .size = sizeof(other), .sched_policy = SCHED_OTHER };

		if (dlsched_sched_setattr(l.pid, &other, 0))
			ksft_exit_fail_msg("demote %d: %s\n", l.pid, strerror(errno));
	} else {
		reap(l.pid);
	}
	left = now_ns();

	/* dl_releases_pending(), which the runner and dlstress wait on, sees it. */
	pending = dl_releases_pending(&pending_ns);
	ksft_test_result(pool_total() == pool0 + b && cg_total("G") == g0 + b && pending >= 1,
			 "a task %s: sched_dl_total_bw %lld and G's cpu.dl_total_bw %lld still count its %lld, released by a queued timer (%d queued, in %.0f ms)\n",
			 name, pool_total(), cg_total("G"), b, pending, ms(pending_ns));
	ksft_test_result(admits_exactly_free(fits, over),
			 "meanwhile exactly the free bandwidth they imply is admitted, one unit more EBUSY\n");
	taken = wait_totals("G", g0, pool0, left);
	ksft_test_result(taken >= 0,
			 "back to %lld and %lld exactly, %.0f ms after it left (limit %.0f ms)\n",
			 pool0, g0, ms(taken), ms(RELEASE_TIMEOUT_NS));
	ksft_test_result(dl_child_set(over, runtime_of(pool_cap - pool0 - b + 1)) == 0 &&
			 dl_child_set(over, 0) == 0 && pool_total() == pool0,
			 "then the larger request is admitted\n");
}

/*
 * A dead task's charge is pending when its group, then that group's
 * reserved parent, are removed: it moves up, and leaves the pool once.
 */
static void remove_case(struct dl_child *fits, struct dl_child *over)
{
	long long b = dl_ratio(LEAVE_PERIOD_NS, LEAVE_RUNTIME_NS);
	long long eighth = BW_FRACTION(8), pool0 = pool_total();
	struct leaver l;
	uint64_t left;
	long long taken;

	/* D and D/E reserve 1/8 of a CPU in all (125000 / n us of each CPU). */
	cg_create("D");
	cg_create("D/E");
	if (cg_write_ll("D", "cpu.dl_runtime_us", 125000 / cpus()) ||
	    cg_write_ll("D/E", "cpu.dl_runtime_us", 125000 / cpus()))
		ksft_exit_fail_msg("reserve D, D/E: %s\n", strerror(errno));
	l = leaver_start("D/E", LEAVE_RUNTIME_NS / 2, true);
	if (leaver_go(&l))
		ksft_exit_fail_msg("the task in D/E was refused\n");
	reap(l.pid);
	left = now_ns();
	ksft_test_result(cg_total("D/E") == b && cg_total("D") == eighth &&
			 pool_total() == pool0 + eighth,
			 "a task in D/E exited: D/E %lld, D %lld, pool %lld\n", b, eighth,
			 pool0 + eighth);
	ksft_test_result(cg_remove("D/E") == 0 && wait_total("D", b) == b &&
			 pool_total() == pool0 + eighth,
			 "D/E removed meanwhile: its reservation is back, D holds the dead task's %lld\n",
			 b);
	ksft_test_result(cg_remove("D") == 0 && wait_total(NULL, pool0 + b) == pool0 + b &&
			 admits_exactly_free(fits, over),
			 "D removed: the pool holds the dead task's %lld only, and admission agrees\n",
			 b);
	taken = wait_totals(NULL, 0, pool0, left);
	ksft_test_result(taken >= 0 && pool_total() == pool0,
			 "at its 0-lag time it leaves the pool once: %lld, %.0f ms after the exit\n",
			 pool0, ms(taken));
}

/*
 * Demoted, then promoted again before its 0-lag time: charged once, in
 * place of what it still held, and checked with that still counted.
 */
static void repromote_case(void)
{
	long long b = dl_ratio(LEAVE_PERIOD_NS, LEAVE_RUNTIME_NS);
	long long pool0 = pool_total(), g0 = cg_total("G"), free_bw;
	struct sched_attr other = { .size = sizeof(other), .sched_policy = SCHED_OTHER };
	struct sched_attr dl = dlsched_deadline_attr(LEAVE_RUNTIME_NS, LEAVE_PERIOD_NS,
						      LEAVE_PERIOD_NS, 0);
	struct sched_attr more;
	struct leaver l = leaver_start("G", LEAVE_RUNTIME_NS / 2, false);
	uint64_t left;
	int more_err, again_err;

	if (leaver_go(&l) || dlsched_sched_setattr(l.pid, &other, 0))
		ksft_exit_fail_msg("enter and demote: %s\n", strerror(errno));
	left = now_ns();
	/* It still holds b: asking for what is free plus b is too much. */
	free_bw = pool_cap - pool_total();
	more = dlsched_deadline_attr(runtime_of(free_bw + b), TASK_PERIOD_NS, TASK_PERIOD_NS, 0);
	more_err = dlsched_sched_setattr(l.pid, &more, 0) ? errno : 0;
	again_err = dlsched_sched_setattr(l.pid, &dl, 0) ? errno : 0;
	ksft_test_result(more_err == EBUSY && again_err == 0 && pool_total() == pool0 + b &&
			 cg_total("G") == g0 + b,
			 "demoted and promoted again before its 0-lag time: free + its own %lld EBUSY (%s), the same again admitted (%s) and charged once\n",
			 b, strerror(more_err), strerror(again_err));
	/* Past the old 0-lag time (about 500 ms after entering), nothing leaves. */
	while (now_ns() - left < LEAVE_PERIOD_NS)
		usleep(50000);
	ksft_test_result(pool_total() == pool0 + b && cg_total("G") == g0 + b,
			 "a period later it is still charged once: pool %lld, G %lld\n",
			 pool0 + b, g0 + b);
	/* Blocked and past its 0-lag time: leaving gives back at once. */
	ksft_test_result(dlsched_sched_setattr(l.pid, &other, 0) == 0 && pool_total() == pool0 &&
			 cg_total("G") == g0,
			 "demoted while blocked past its 0-lag time: back at once\n");
}

/*
 * A demoted task holding its bandwidth until its 0-lag time leaves it
 * where it was charged when it moves: the destination need not hold
 * what the task no longer uses, even a group too small for it, and the
 * bandwidth goes back to its group at the 0-lag time.
 */
static void move_case(void)
{
	long long b = dl_ratio(LEAVE_PERIOD_NS, LEAVE_RUNTIME_NS);
	struct sched_attr other = { .size = sizeof(other), .sched_policy = SCHED_OTHER };
	long long pool0, g0, taken;
	struct leaver l;
	uint64_t left;
	int small_err, room_err;

	/* Small reserves a little less than the task's bandwidth; W none. */
	cg_create("Small");
	cg_create("W");
	if (cg_write_ll("Small", "cpu.dl_runtime_us", 62500 / cpus() - 1))
		ksft_exit_fail_msg("reserve Small: %s\n", strerror(errno));
	pool0 = pool_total();
	g0 = cg_total("G");
	l = leaver_start("G", LEAVE_RUNTIME_NS / 2, false);
	if (leaver_go(&l) || dlsched_sched_setattr(l.pid, &other, 0))
		ksft_exit_fail_msg("enter and demote: %s\n", strerror(errno));
	left = now_ns();
	small_err = -cg_move("Small", l.pid);
	room_err = -cg_move("W", l.pid);
	ksft_test_result(small_err == 0 && room_err == 0 && cg_has("W", l.pid) &&
			 cg_total("Small") == 0 && cg_total("W") == 0 && cg_total("G") == g0 + b &&
			 pool_total() == pool0 + b,
			 "a demoted task leaves what it still holds in G: into Small (%s), then W (%s), G %lld\n",
			 strerror(small_err), strerror(room_err), g0 + b);
	taken = wait_totals("G", g0, pool0, left);
	if (cg_remove("Small"))
		ksft_exit_fail_msg("remove Small: %s\n", strerror(errno));
	ksft_test_result(taken >= 0 && cg_total("W") == 0,
			 "and gives it back to G at its 0-lag time, %.0f ms after it left\n",
			 ms(taken));
}

int main(void)
{
	struct dl_child fits, over;
	int n = cpus();

	ksft_print_header();
	ksft_set_plan(3 * 4 + 4 + 3 + 2 + 1);
	dl_setup("dltest-18");
	/* Half a CPU in all: 500000 / n us of each CPU, exact for these n. */
	if (n != 1 && n != 2 && n != 4 && n != 8)
		ksft_exit_skip("written for 1, 2, 4 or 8 CPUs, not %d\n", n);
	set_dl_pool(500000, 500000 / n);
	pool_cap = dl_ratio(NSEC_PER_SEC, 500000000ULL / n) * n;

	cg_create("G");
	fits = dl_child_start("G", 0);
	over = dl_child_start("G", 0);

	leave_case(LEAVE_EXIT, &fits, &over);
	leave_case(LEAVE_KILL, &fits, &over);
	leave_case(LEAVE_DEMOTE, &fits, &over);
	remove_case(&fits, &over);
	repromote_case();
	move_case();

	ksft_test_result(cg_total("G") == 0 && wait_total(NULL, 0) == 0,
			 "no deadline task left: G and the pool read 0\n");
	ksft_finished();
}
