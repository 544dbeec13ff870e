// SPDX-License-Identifier: GPL-2.0
/*
 * The rules task templates (cpu.dl_template, see 28-dl-template.c) keep
 * against hostile callers, from the table of paths in sched-deadline.rst
 * ("Task templates"), one block of points per rule:
 *
 * R1 hotplug: a per-CPU reservation under a template counts every
 *    possible CPU, whatever is offline when it is written, and so does the
 *    template's own "holds what is inside it" check: bringing a CPU online
 *    never takes a template group past NR * bw.
 * R2 affinity: the template admits only a task whose affinity covers its
 *    root domain; a pinned task (and its child) is counted over, and
 *    admitted when it widens its affinity; an admitted task cannot narrow
 *    it (EBUSY).
 * R3 a template task's own sched_setattr() racing its move out must fit
 *    the destination: none lands SCHED_DEADLINE in a group of 0.
 * R4 a task that left SCHED_DEADLINE keeps its charge in the group that
 *    was charged until its 0-lag time, however often it moves, and moves
 *    into a full template as an over task.
 * R5 over tasks are tried again whenever bandwidth charged inside the
 *    template's subtree goes down, not only at a 0-lag release in the
 *    template group itself.
 * R6 admission and release keep SCHED_FLAG_RESET_ON_FORK and the nice
 *    value.
 * R7 SysRq-n makes the template forget its tasks.
 * R8 any sched_setattr()/sched_setscheduler() on a template task, even one
 *    that changes nothing, makes it the owner's: it leaves the counts at
 *    once and is not admitted again.
 *
 * Outcomes of the template's retry work item are polled for (3 s).
 * Bandwidths are powers of two: a template task of 1/16 of a CPU (6.25 ms
 * every 100 ms) is 65536 exactly. Every group, task and CPU the test
 * touches is put back at exit (dlgroup.h, dlcpu.h), also on failure; each
 * block removes its own at its end, and a last point checks that nothing
 * is left.
 */
#define _GNU_SOURCE	/* sched_setaffinity(), CPU_* */
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include "dlcpu.h"
#include "dltask.h"

#define T_RUNTIME_US 6250
#define T_PERIOD_US 100000
#define T_BW BW_FRACTION(16)
/* The template's retry runs from a work item: its outcome within this. */
#define RETRY_WAIT_MS 3000
/* Long enough for a retry that should not happen to have happened. */
#define SETTLE_US 300000

#define PLAN 37

/* What the pool holds with nothing of the test in it (after set_dl_pool()). */
static long long pool_base;

/* "@nr 6250 100000 100000": @nr tasks of 1/16. */
static const char *tmpl16(long long nr)
{
	static char buf[4][64];
	static int slot;
	char *b = buf[slot++ % 4];

	snprintf(b, sizeof(buf[0]), "%lld %d %d %d", nr, T_RUNTIME_US, T_PERIOD_US, T_PERIOD_US);
	return b;
}

static int write_template(const char *cg, const char *val)
{
	return -cg_write(cg, "cpu.dl_template", val);
}

static bool stat_is(const char *cg, long long tasks, long long over)
{
	long long t, o;
	char what[2][96];

	tmpl_stat(cg, &t, &o);
	snprintf(what[0], sizeof(what[0]), "%s nr_tasks", cg);
	snprintf(what[1], sizeof(what[1]), "%s nr_over", cg);
	return is(what[0], t, tasks) & is(what[1], o, over);
}

/* The same, once the template had the time to retry. */
static bool wait_stat(const char *cg, long long tasks, long long over)
{
	long long t, o;

	for (int i = 0; i < RETRY_WAIT_MS / 10; i++) {
		tmpl_stat(cg, &t, &o);
		if (t == tasks && o == over)
			break;
		usleep(10000);
	}
	return stat_is(cg, tasks, over);
}

/* Is @cg's cpu.dl_total_bw @want (named in the message)? */
static bool total_is(const char *cg, long long want)
{
	char what[96];

	snprintf(what, sizeof(what), "%s cpu.dl_total_bw", cg);
	return is(what, cg_total(cg), want);
}

/* The same after a wait of up to 5 s for 0-lag releases. */
static bool wait_total_is(const char *cg, long long want)
{
	char what[96];

	snprintf(what, sizeof(what), "%s cpu.dl_total_bw", cg);
	return is(what, wait_total(cg, want), want);
}

/* sched_getattr() of @tid; policy -errno if it cannot be read. */
static struct sched_attr attr_of(pid_t tid)
{
	struct sched_attr a;
	int err = dlsched_get_attr(tid, &a);

	if (err)
		a.sched_policy = err;
	return a;
}

static int policy_of(pid_t tid)
{
	return (int)attr_of(tid).sched_policy;
}

static bool policy_is(const char *what, pid_t tid, int want)
{
	return is(what, policy_of(tid), want);
}

/* The policy of @tid becomes @want within the retry's time. */
static bool wait_policy(const char *what, pid_t tid, int want)
{
	for (int i = 0; i < RETRY_WAIT_MS / 10 && policy_of(tid) != want; i++)
		usleep(10000);
	return policy_is(what, tid, want);
}

/* SCHED_DEADLINE with @runtime_us every @period_us (deadline = period). */
static bool is_dl_task(const char *what, pid_t tid, uint64_t runtime_us, uint64_t period_us)
{
	struct sched_attr a = attr_of(tid);
	char w[3][96];

	snprintf(w[0], sizeof(w[0]), "%s: policy", what);
	snprintf(w[1], sizeof(w[1]), "%s: runtime", what);
	snprintf(w[2], sizeof(w[2]), "%s: period", what);
	return is(w[0], a.sched_policy, SCHED_DEADLINE) &
	       is(w[1], a.sched_runtime, runtime_us * NSEC_PER_USEC) &
	       is(w[2], a.sched_period, period_us * NSEC_PER_USEC);
}

static bool is_template_task(const char *what, pid_t tid)
{
	return is_dl_task(what, tid, T_RUNTIME_US, T_PERIOD_US);
}

/* The nice value of @pid from /proc (sched_getattr() has none for deadline tasks). */
static int proc_nice(pid_t pid)
{
	char buf[1024];
	const char *p = proc_stat_fields(pid, buf, sizeof(buf));
	int nice = 99;

	/* After the command: state ... priority (16 fields), then nice. */
	if (!p || sscanf(p + 1, " %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %d",
			 &nice) != 1)
		return 99;
	return nice;
}

/* How many CPUs /sys/devices/system/cpu/possible lists ("0-3", "0,2-5"). */
static int possible_cpus(void)
{
	char buf[256], *s, *tok, *save = NULL;
	int n = 0, a, b;

	if (read_text(CPU_DIR "/possible", buf, sizeof(buf)) <= 0)
		return -1;
	for (s = buf; (tok = strtok_r(s, ",\n", &save)); s = NULL) {
		if (sscanf(tok, "%d-%d", &a, &b) == 2)
			n += b - a + 1;
		else if (sscanf(tok, "%d", &a) == 1)
			n++;
	}
	return n;
}

/*
 * A child group of a template group that tasks may share the parent
 * with: in v2 it is threaded, so that the parent (its threaded domain)
 * may hold processes while the cpu controller is enabled below it.
 */
static void cg_create_sub(const char *cg)
{
	cg_create(cg);
	if (!cg_v1 && cg_write(cg, "cgroup.type", "threaded"))
		ksft_exit_fail_msg("threaded cgroup %s: %s\n", cg, strerror(errno));
}

/* Move thread @tid alone into @cg (cgroup.threads in v2, tasks in v1). */
static int cg_move_thread(const char *cg, pid_t tid)
{
	return cg_write_ll(cg, cg_v1 ? "tasks" : "cgroup.threads", tid);
}

/*
 * The groups and children a block made are removed and killed at its
 * end (the exit handler does the same for whatever is left on failure).
 */
struct block {
	int cg_mark, child_mark, fd_mark;
};

/* The test's ends of the workers' pipes, closed with their block. */
static int worker_fds[2 * MAX_CHILDREN];
static int worker_fd_count;

static struct block block_start(void)
{
	return (struct block){ .cg_mark = cg_count, .child_mark = child_count, .fd_mark = worker_fd_count };
}

static void block_end(struct block b)
{
	int i;

	for (i = child_count - 1; i >= b.child_mark; i--) {
		if (children[i] > 0) {
			kill(children[i], SIGKILL);
			waitpid(children[i], NULL, 0);
			close(child_gate[i]);
		}
		children[i] = 0;
	}
	child_count = b.child_mark;
	while (worker_fd_count > b.fd_mark)
		close(worker_fds[--worker_fd_count]);
	for (i = cg_count - 1; i >= b.cg_mark; i--) {
		if (cg_created[i][0]) {
			char tmpl[600];

			snprintf(tmpl, sizeof(tmpl), "%s/cpu.dl_template", cg_created[i]);
			write_str(tmpl, "none");
			cg_kill_and_remove(cg_created[i]);
		}
		cg_created[i][0] = '\0';
	}
	cg_count = b.cg_mark;
}

/*
 * A worker process: it answers each command on its pipe with a struct
 * wreply.
 *   'd' ARG: make itself SCHED_DEADLINE, ARG ns every 100 ms (err);
 *   'o':     make itself SCHED_OTHER, nice 0 (err);
 *   'f':     fork a child that reports its own policy, nice and flags at
 *            its first instruction, then waits for the worker's end.
 */
struct worker {
	pid_t pid;
	int cmd, reply;
};

struct wcmd {
	char op;
	long long arg;
};

struct wreply {
	int err, policy, nice;
	unsigned long long flags;
	pid_t pid;
};

static struct wreply self_report(void)
{
	struct sched_attr a = attr_of(0);
	struct wreply r = { .policy = (int)a.sched_policy, .nice = a.sched_nice,
			    .flags = a.sched_flags, .pid = getpid() };

	return r;
}

static struct wreply worker_fork(void)
{
	struct wreply r = { .err = 0 };
	int first[2];
	pid_t pid;

	if (pipe(first)) {
		r.err = errno;
		return r;
	}
	pid = fork();
	if (pid < 0) {
		r.err = errno;
		return r;
	}
	if (!pid) {
		r = self_report();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (write(first[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		for (;;)
			pause();
	}
	close(first[1]);
	if (read(first[0], &r, sizeof(r)) != sizeof(r))
		r.err = EIO;
	close(first[0]);
	return r;
}

static void worker_main(int cmd, int reply)
{
	struct wcmd c;
	struct wreply r;

	while (read(cmd, &c, sizeof(c)) == sizeof(c)) {
		memset(&r, 0, sizeof(r));
		switch (c.op) {
		case 'd':
			r.err = -dl_enter(c.arg, TASK_PERIOD_NS, TASK_PERIOD_NS, 0);
			break;
		case 'o':
			r.err = -dl_leave();
			break;
		case 'f':
			r = worker_fork();
			break;
		case 'r':
			/* Runs, so on a CPU its affinity allows. */
			r = self_report();
			break;
		default:
			_exit(1);
		}
		if (write(reply, &r, sizeof(r)) != sizeof(r))
			_exit(1);
	}
	_exit(0);
}

/* A worker in the test's own group, SCHED_OTHER, optionally joining @cg. */
static struct worker worker_start(const char *cg)
{
	struct worker w;
	int cmd[2], reply[2], gate;

	if (pipe(cmd) || pipe(reply))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	w.pid = dl_child_fork(&gate);
	if (!w.pid) {
		close(cmd[1]);
		close(reply[0]);
		close(gate);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		worker_main(cmd[0], reply[1]);
	}
	close(cmd[0]);
	close(reply[1]);
	w.cmd = cmd[1];
	w.reply = reply[0];
	worker_fds[worker_fd_count++] = w.cmd;
	worker_fds[worker_fd_count++] = w.reply;
	if (cg && cg_move(cg, w.pid))
		ksft_exit_fail_msg("move worker %d to %s: %s\n", w.pid, cg, strerror(errno));
	return w;
}

static struct wreply worker_ask(struct worker *w, char op, long long arg)
{
	struct wcmd c = { .op = op, .arg = arg };
	struct wreply r;

	if (write(w->cmd, &c, sizeof(c)) != sizeof(c) || read(w->reply, &r, sizeof(r)) != sizeof(r))
		ksft_exit_fail_msg("worker %d did not answer '%c'\n", w->pid, op);
	return r;
}

/* A process that spins until *@stop (shared memory) is set, then waits. */
static pid_t spinner_start(volatile int *stop)
{
	int gate;
	pid_t pid = dl_child_fork(&gate);

	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		while (!__atomic_load_n(stop, __ATOMIC_RELAXED))
			;
		for (;;)
			pause();
	}
	return pid;
}

/* CPU time of process @pid (ns), -1 if unreadable. */
static long long cpu_ns(pid_t pid)
{
	struct timespec ts;
	clockid_t clock;

	if (clock_getcpuclockid(pid, &clock) || clock_gettime(clock, &ts))
		return -1;
	return ts.tv_sec * (long long)NSEC_PER_SEC + ts.tv_nsec;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void skip_points(int n, const char *why)
{
	while (n--)
		ksft_test_result_skip("%s\n", why);
}

/* ---- R1: hotplug ---- */

static void rule1(void)
{
	struct block b = block_start();
	int P = possible_cpus(), n = cpus(), err;
	long long r16 = dl_ratio(T_PERIOD_US, T_RUNTIME_US), r32 = dl_ratio(T_PERIOD_US, 3125), after;
	bool ok;

	if (n < 2 || P < 2 || pick_cpu() <= 0) {
		skip_points(4, "R1: no CPU to take offline");
		return;
	}
	ksft_print_msg("R1: %d possible CPUs, %d online, cpu%d goes offline\n", P, n, the_cpu);
	cg_create("r1");
	cg_create_sub("r1/c");
	if (cg_write_ll("r1/c", "cpu.dl_period_us", T_PERIOD_US))
		ksft_exit_fail_msg("period of r1/c: %s\n", strerror(errno));

	/* 1: 1/16 of each possible CPU does not fit P-1 tasks of 1/16, whatever is offline. */
	ok = is("template P-1", write_template("r1", tmpl16(P - 1)), 0) &&
	     is("offline", -set_online(false), 0);
	err = -cg_write_ll("r1/c", "cpu.dl_runtime_us", T_RUNTIME_US);
	ok = ok & is("1/16 of each CPU with a CPU offline", err, EBUSY) &
	     is("r1/c cpu.dl_runtime_us", cg_read("r1/c", "cpu.dl_runtime_us"), -1) & total_is("r1", 0);
	ok &= is("online", -set_online(true), 0);
	after = cg_total("r1");
	ok &= is("r1 cpu.dl_total_bw after online", after, 0);
	if (!err)
		ksft_print_msg("R1: accepted on %d CPUs; online again r1 holds %lld, its template %lld\n",
			       n - 1, after, (P - 1) * T_BW);
	cg_write_ll("r1/c", "cpu.dl_runtime_us", -1);
	ksft_test_result(ok, "R1: with cpu%d offline, 1/16 of each CPU in a child of a template of %d x 1/16 "
			 "is EBUSY (counted on all %d possible CPUs); online again the template holds 0\n",
			 the_cpu, P - 1, P);

	/* 2: what fits on every possible CPU is accepted, and online again is exact. */
	ok = is("offline", -set_online(false), 0) &&
	     is("1/32 of each CPU with a CPU offline", -cg_write_ll("r1/c", "cpu.dl_runtime_us", 3125), 0);
	after = cg_total("r1");
	if (after > (P - 1) * T_BW)
		ok &= is("r1 over its template while offline", after, (P - 1) * T_BW);
	ok &= is("online", -set_online(true), 0);
	if (P == n)
		ok &= total_is("r1", P * r32);
	else
		ok &= is("r1 within its template", cg_total("r1") <= (P - 1) * T_BW, 1);
	ok &= is("r1/c back to none", -cg_write_ll("r1/c", "cpu.dl_runtime_us", -1), 0) & total_is("r1", 0);
	ksft_test_result(ok, "R1: 1/32 of each CPU (%d x 1/32 <= %d x 1/16) is accepted with a CPU offline; "
			 "online again r1 holds exactly %lld\n", P, P - 1, P * r32);

	/* 3: the template's own check counts the child's reservation on every possible CPU. */
	ok = is("template P", write_template("r1", tmpl16(P)), 0) &&
	     is("1/16 of each CPU in a template of P", -cg_write_ll("r1/c", "cpu.dl_runtime_us", T_RUNTIME_US), 0) &&
	     total_is("r1", P * r16) && is("offline", -set_online(false), 0);
	err = write_template("r1", tmpl16(P - 1));
	ok = ok & is("shrink the template to P-1 with a CPU offline", err, EBUSY) &
	     str_is("r1 template", cg_read_line("r1", "cpu.dl_template"), tmpl16(P));
	ok &= is("online", -set_online(true), 0);
	after = cg_total("r1");
	ok &= is("r1 cpu.dl_total_bw after online", after, P * r16) &
	      str_is("r1 template after online", cg_read_line("r1", "cpu.dl_template"), tmpl16(P));
	if (!err)
		ksft_print_msg("R1: template shrunk on %d CPUs; online again r1 holds %lld, its template %lld\n",
			       n - 1, after, (P - 1) * T_BW);
	cg_write_ll("r1/c", "cpu.dl_runtime_us", -1);
	write_template("r1", "none");
	ksft_test_result(ok, "R1: with cpu%d offline a template of %d x 1/16 cannot shrink to %d while a child "
			 "reserves 1/16 of each CPU (EBUSY); online again r1 holds exactly its template\n",
			 the_cpu, P, P - 1);

	/* 4: bad input with a CPU offline changes nothing. */
	ok = is("template P-1", write_template("r1", tmpl16(P - 1)), 0) &&
	     is("offline", -set_online(false), 0);
	ok = ok & is("1/8 of each CPU", -cg_write_ll("r1/c", "cpu.dl_runtime_us", 12500), EBUSY) &
	     is("runtime over the period", -cg_write_ll("r1/c", "cpu.dl_runtime_us", 200000), EINVAL) &
	     is("not a number", -cg_write("r1/c", "cpu.dl_runtime_us", "abc"), EINVAL) &
	     is("r1/c cpu.dl_runtime_us", cg_read("r1/c", "cpu.dl_runtime_us"), -1) &
	     is("r1/c cpu.dl_period_us", cg_read("r1/c", "cpu.dl_period_us"), T_PERIOD_US) & total_is("r1", 0);
	ok &= is("online", -set_online(true), 0);
	ok &= total_is("r1", 0) & str_is("r1 template", cg_read_line("r1", "cpu.dl_template"), tmpl16(P - 1));
	ksft_test_result(ok, "R1: bad input with a CPU offline (too large: EBUSY; over the period, not a number: "
			 "EINVAL) changes nothing\n");
	block_end(b);
}

/* ---- R2: affinity ---- */

static void rule2(void)
{
	struct block b = block_start();
	cpu_set_t one, all, none, got;
	struct worker w1, w3;
	struct wreply r;
	pid_t child;
	bool ok;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	CPU_ZERO(&none);
	if (sched_getaffinity(0, sizeof(all), &all))
		ksft_exit_fail_msg("sched_getaffinity: %s\n", strerror(errno));
	/*
	 * The workers start in r2src, a sibling of r2 under the test's group:
	 * moving a task between groups of different cpusets (where the root
	 * has the cpuset controller on, as test 27 leaves it) resets its
	 * affinity to the destination's, which would unpin it.
	 */
	cg_create("r2src");
	cg_create("r2");
	if (write_template("r2", tmpl16(2)))
		ksft_exit_fail_msg("template r2: %s\n", strerror(errno));

	/* 1 */
	w1 = worker_start("r2src");
	ok = is("pin w1 to cpu0", sched_setaffinity(w1.pid, sizeof(one), &one) ? errno : 0, 0) &&
	     is("w1 runs on cpu0", worker_ask(&w1, 'r', 0).err, 0) &&
	     is("attach w1", cg_move("r2", w1.pid), 0);
	ok = ok && policy_is("pinned w1", w1.pid, SCHED_OTHER) & stat_is("r2", 0, 1) & total_is("r2", 0);
	ksft_test_result(ok, "R2: a task pinned to cpu0 attached to a template group with room stays "
			 "SCHED_OTHER and counts in nr_over (0 1)\n");

	/* 2 */
	r = worker_ask(&w1, 'f', 0);
	child = r.pid;
	ok = is("fork", r.err, 0) && is("pinned child's first policy", r.policy, SCHED_OTHER) &
	     stat_is("r2", 0, 2) & total_is("r2", 0);
	ksft_test_result(ok, "R2: a child the pinned task forks there starts SCHED_OTHER and counts in nr_over (0 2)\n");

	/* 3 */
	ok = is("widen w1", sched_setaffinity(w1.pid, sizeof(all), &all) ? errno : 0, 0) &&
	     wait_policy("widened w1", w1.pid, SCHED_DEADLINE) && is_template_task("w1", w1.pid) &&
	     wait_stat("r2", 1, 1) && total_is("r2", T_BW);
	ok = ok && is("widen the child", sched_setaffinity(child, sizeof(all), &all) ? errno : 0, 0) &&
	     wait_policy("widened child", child, SCHED_DEADLINE) && is_template_task("child", child) &&
	     wait_stat("r2", 2, 0) && total_is("r2", 2 * T_BW);
	ksft_test_result(ok, "R2: widened to every CPU, the over task is admitted (1 1), then its child (2 0)\n");

	/* 4 */
	w3 = worker_start("r2src");
	ok = is("pin w3", sched_setaffinity(w3.pid, sizeof(one), &one) ? errno : 0, 0) &&
	     is("w3 runs on cpu0", worker_ask(&w3, 'r', 0).err, 0) &&
	     is("attach w3", cg_move("r2", w3.pid), 0) && wait_stat("r2", 2, 1) &&
	     is("widen w3", sched_setaffinity(w3.pid, sizeof(all), &all) ? errno : 0, 0);
	usleep(SETTLE_US);
	ok = ok && policy_is("w3 without room", w3.pid, SCHED_OTHER) & stat_is("r2", 2, 1) &
	     total_is("r2", 2 * T_BW);
	ksft_test_result(ok, "R2: a pinned task widened when the template is full stays SCHED_OTHER, over (2 1)\n");

	/* 5 */
	ok = is("narrow admitted w1", sched_setaffinity(w1.pid, sizeof(one), &one) ? errno : 0, EBUSY) &&
	     is("w1's affinity", !sched_getaffinity(w1.pid, sizeof(got), &got) && CPU_EQUAL(&got, &all), 1) &&
	     is_template_task("w1", w1.pid) && stat_is("r2", 2, 1);
	ksft_test_result(ok, "R2: an admitted task narrowing its affinity to cpu0 gets EBUSY, stays SCHED_DEADLINE "
			 "on every CPU\n");

	/* 6 */
	ok = is("pin w3 again", sched_setaffinity(w3.pid, sizeof(one), &one) ? errno : 0, 0) &&
	     is("empty affinity", sched_setaffinity(w3.pid, sizeof(none), &none) ? errno : 0, EINVAL) &&
	     is("w3's affinity", !sched_getaffinity(w3.pid, sizeof(got), &got) && CPU_EQUAL(&got, &one), 1);
	usleep(SETTLE_US);
	ok = ok && policy_is("w3", w3.pid, SCHED_OTHER) & stat_is("r2", 2, 1) & total_is("r2", 2 * T_BW);
	ksft_test_result(ok, "R2: bad input: an empty affinity for an over task is EINVAL, it stays pinned and over\n");
	block_end(b);
}

/* ---- R3: a template task's own sched_setattr() racing its move out ---- */

/*
 * A process of R3_THREADS threads in a template group: the main thread
 * waits, the others (racers) each wait for a round, then watch the main
 * thread's policy: the move attaches it first, so when it is SCHED_OTHER
 * the move out has passed can_attach() and the racers are still being
 * attached. Then each racer calls sched_setattr(SCHED_DEADLINE) on itself:
 * the first with the template's parameters (a call that changes nothing),
 * the others with half its runtime (a change that fits the template).
 */
#define R3_THREADS 4
#define R3_RUNTIME_US 25000
#define R3_OWN_RUNTIME_US 12500
#define R3_PERIOD_US 100000
#define R3_NR 8
#define R3_MOVES 1000
#define R3_SECONDS 15.0
/* A racer's call: not made (the main thread stayed SCHED_DEADLINE). */
#define R3_NO_CALL -1

struct r3_shared {
	int gen;		/* futex: the round the racers run */
	int done;		/* racers through with it */
	int quit;
	int ready;
	int tids[R3_THREADS];
	int result[R3_THREADS];	/* errno of a racer's call, R3_NO_CALL */
};

static struct r3_shared *r3;

static long futex(int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static void *r3_racer(void *arg)
{
	int idx = (int)(long)arg, seen = 0, g, pol, res;
	pid_t main_tid = r3->tids[0];
	double until;

	__atomic_store_n(&r3->tids[idx], (int)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&r3->ready, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		while ((g = __atomic_load_n(&r3->gen, __ATOMIC_SEQ_CST)) == seen)
			futex(&r3->gen, FUTEX_WAIT, seen);
		if (__atomic_load_n(&r3->quit, __ATOMIC_SEQ_CST))
			return NULL;
		seen = g;
		res = R3_NO_CALL;
		until = now_s() + 0.5;
		while ((pol = policy_of(main_tid)) == SCHED_DEADLINE && now_s() < until)
			;
		if (pol == SCHED_OTHER)
			res = -dl_enter((idx == 1 ? R3_RUNTIME_US : R3_OWN_RUNTIME_US) * NSEC_PER_USEC,
					R3_PERIOD_US * NSEC_PER_USEC, R3_PERIOD_US * NSEC_PER_USEC, 0);
		__atomic_store_n(&r3->result[idx], res, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&r3->done, 1, __ATOMIC_SEQ_CST);
	}
}

static pid_t r3_process(void)
{
	int gate, i;
	pthread_t th;
	char c;
	pid_t pid = dl_child_fork(&gate);

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	r3->tids[0] = getpid();
	for (i = 1; i < R3_THREADS; i++)
		if (pthread_create(&th, NULL, r3_racer, (void *)(long)i))
			_exit(1);
	while (read(gate, &c, 1) > 0)
		;
	_exit(0);
}

static bool r3_all(int policy)
{
	for (int i = 0; i < R3_THREADS; i++)
		if (policy_of(r3->tids[i]) != policy)
			return false;
	return true;
}

/* Every thread SCHED_OTHER again (the test's call), the process back in @home. */
static void r3_reset(pid_t pid, const char *home)
{
	for (int i = 0; i < R3_THREADS; i++)
		dlsched_set_normal(r3->tids[i]);
	if (cg_move(home, pid))
		ksft_exit_fail_msg("R3: back to %s: %s\n", home, strerror(errno));
}

static void rule3(void)
{
	struct block b = block_start();
	long moves = 0, move_err = 0, not_admitted = 0, landed = 0, z_charged = 0, calls = 0,
	     eperm = 0, succeeded = 0, other_err = 0, no_call = 0, i, t;
	long long tbw = dl_ratio(R3_PERIOD_US, R3_RUNTIME_US), own = dl_ratio(R3_PERIOD_US, R3_OWN_RUNTIME_US), pool0;
	char tmpl[64];
	struct worker w;
	double end;
	pid_t x;
	int k, err;
	bool ok;

	r3 = mmap(NULL, sizeof(*r3), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r3 == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memset(r3, 0, sizeof(*r3));
	cg_create("r3t");
	cg_create("r3z");
	cg_create("r3h");
	pool0 = wait_total(NULL, pool_base);
	snprintf(tmpl, sizeof(tmpl), "%d %d %d %d", R3_NR, R3_RUNTIME_US, R3_PERIOD_US, R3_PERIOD_US);
	if (write_template("r3t", tmpl) || cg_write_ll("r3z", "cpu.dl_runtime_us", 0))
		ksft_exit_fail_msg("R3 groups: %s\n", strerror(errno));
	x = r3_process();
	for (k = 0; k < 500 && __atomic_load_n(&r3->ready, __ATOMIC_SEQ_CST) < R3_THREADS - 1; k++)
		usleep(10000);
	if (__atomic_load_n(&r3->ready, __ATOMIC_SEQ_CST) < R3_THREADS - 1)
		ksft_exit_fail_msg("R3: the racers did not start\n");
	if (cg_move("r3h", x))
		ksft_exit_fail_msg("R3: into r3h: %s\n", strerror(errno));

	end = now_s() + R3_SECONDS;
	for (i = 0; i < R3_MOVES && now_s() < end; i++) {
		err = cg_move("r3t", x);
		if (err || !r3_all(SCHED_DEADLINE)) {
			/* Room still held by the last round's threads until their 0-lag times. */
			not_admitted++;
			r3_reset(x, "r3h");
			wait_total("r3t", 0);
			continue;
		}
		__atomic_store_n(&r3->done, 0, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&r3->gen, 1, __ATOMIC_SEQ_CST);
		futex(&r3->gen, FUTEX_WAKE, INT_MAX);
		err = cg_move("r3z", x);
		moves++;
		if (err && move_err++ < 3)
			ksft_print_msg("R3: move %ld out to r3z: %s\n", moves, strerror(-err));
		for (k = 0; k < 20000 && __atomic_load_n(&r3->done, __ATOMIC_SEQ_CST) < R3_THREADS - 1; k++)
			usleep(50);
		for (k = 1; k < R3_THREADS; k++) {
			int res = __atomic_load_n(&r3->result[k], __ATOMIC_SEQ_CST);

			if (res == R3_NO_CALL) {
				no_call++;
				continue;
			}
			calls++;
			if (!res)
				succeeded++;
			else if (res == EPERM)
				eperm++;
			else if (other_err++ < 3)
				ksft_print_msg("R3: a racer's sched_setattr(): %s\n", strerror(res));
		}
		for (k = 0; k < R3_THREADS; k++) {
			if (policy_of(r3->tids[k]) == SCHED_DEADLINE && cg_has("r3z", x)) {
				if (landed++ < 3)
					ksft_print_msg("R3: move %ld: thread %d is SCHED_DEADLINE in r3z\n",
						       moves, r3->tids[k]);
			}
		}
		t = cg_total("r3z");
		if (t && z_charged++ < 3)
			ksft_print_msg("R3: move %ld: r3z cpu.dl_total_bw %ld\n", moves, t);
		r3_reset(x, "r3h");
	}
	__atomic_store_n(&r3->quit, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&r3->gen, 1, __ATOMIC_SEQ_CST);
	futex(&r3->gen, FUTEX_WAKE, INT_MAX);
	ksft_print_msg("R3: %ld moves out in %ld rounds: %ld calls after the move committed (%ld succeeded, "
		       "%ld EPERM), %ld without a call; %ld rounds not admitted; %ld threads landed "
		       "SCHED_DEADLINE in r3z, r3z charged %ld times\n", moves, i, calls, succeeded, eperm,
		       no_call, not_admitted, landed, z_charged);

	/* 1 */
	ok = is("moves that failed", move_err, 0) & is("threads SCHED_DEADLINE in r3z", landed, 0) &
	     is("moves made", moves >= 100, 1) & is("racer calls made", calls >= moves, 1);
	ksft_test_result(ok, "R3: %ld moves of a %d-thread template process out to a group of 0 while its threads "
			 "sched_setattr(SCHED_DEADLINE) themselves (same or half runtime): none lands SCHED_DEADLINE "
			 "there\n", moves, R3_THREADS);

	/* 2 */
	ok = is("calls that succeeded", succeeded, 0) & is("calls that failed otherwise than EPERM", other_err, 0);
	ksft_test_result(ok, "R3: each such sched_setattr() after the move passed can_attach() fails with EPERM "
			 "(%ld of %ld)\n", eperm, calls);

	/* 3 */
	dl_child_stop(&(struct dl_child){ .pid = x, .slot = b.child_mark });
	ok = is("rounds r3z was charged", z_charged, 0) & total_is("r3z", 0) & wait_total_is("r3t", 0) &
	     is("pool", wait_total(NULL, pool0 + R3_NR * tbw), pool0 + R3_NR * tbw);
	ksft_test_result(ok, "R3: r3z's cpu.dl_total_bw stayed 0; after the 0-lag releases the template group holds "
			 "exactly 0 and the pool exactly its template (%lld)\n", R3_NR * tbw);

	/* 4 */
	w = worker_start("r3t");
	ok = is_dl_task("w in r3t", w.pid, R3_RUNTIME_US, R3_PERIOD_US) && stat_is("r3t", 1, 0) &&
	     is("own sched_setattr", worker_ask(&w, 'd', R3_OWN_RUNTIME_US * NSEC_PER_USEC).err, 0) &&
	     stat_is("r3t", 0, 0) && total_is("r3t", own) && is("move to r3z", cg_move("r3z", w.pid), -EBUSY) &&
	     is("still in r3t", cg_has("r3t", w.pid), 1) &&
	     is_dl_task("w", w.pid, R3_OWN_RUNTIME_US, R3_PERIOD_US) && total_is("r3t", own) && total_is("r3z", 0);
	ksft_test_result(ok, "R3: bad input: a task that made itself SCHED_DEADLINE of half the runtime in the "
			 "template group cannot move to the group of 0 (EBUSY): it stays, totals unchanged\n");
	munmap(r3, sizeof(*r3));
	block_end(b);
}

/* ---- R4: pending charges stay ---- */

static void rule4(void)
{
	struct block b = block_start();
	/* 250 ms every 4 s: 1/16, 65536; used up, its 0-lag time is up to 4 s away. */
	const char *tmpl = "2 250000 4000000 4000000";
	volatile int *stop;
	long long c0[2], pool0;
	pid_t s[2];
	struct worker f, d;
	int i, k;
	bool ok, ran;

	stop = mmap(NULL, sizeof(*stop), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stop == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	*stop = 0;
	cg_create("r4");
	cg_create("r4x");
	cg_create("r4y");
	cg_create("r4f");
	pool0 = wait_total(NULL, pool_base);
	if (write_template("r4", tmpl) || write_template("r4f", tmpl16(1)) ||
	    cg_write_ll("r4y", "cpu.dl_period_us", T_PERIOD_US) || cg_write_ll("r4y", "cpu.dl_runtime_us", 25000))
		ksft_exit_fail_msg("R4 groups: %s\n", strerror(errno));
	f = worker_start("r4f");
	for (i = 0; i < 2; i++) {
		s[i] = spinner_start(stop);
		c0[i] = cpu_ns(s[i]);
		if (cg_move("r4", s[i]))
			ksft_exit_fail_msg("R4: spinner into r4: %s\n", strerror(errno));
	}
	ok = is_dl_task("s1", s[0], 250000, 4000000) && is_dl_task("s2", s[1], 250000, 4000000) &&
	     stat_is("r4", 2, 0) && total_is("r4", 2 * T_BW) && is_template_task("f", f.pid) && stat_is("r4f", 1, 0);
	/* Each uses up most of its 250 ms: 0-lag more than 3 s after it started. */
	for (k = 0, ran = false; ok && k < 300 && !ran; k++) {
		ran = cpu_ns(s[0]) - c0[0] >= 200 * (long long)NSEC_PER_MSEC &&
		      cpu_ns(s[1]) - c0[1] >= 200 * (long long)NSEC_PER_MSEC;
		usleep(10000);
	}
	ok &= is("spinners ran 200 ms", ran, 1);

	/* 1 */
	ok = ok && is("s1 out to r4x", cg_move("r4x", s[0]), 0) && policy_is("s1 in r4x", s[0], SCHED_OTHER) &&
	     is("s2 sets SCHED_OTHER", dlsched_set_normal(s[1]), 0) && stat_is("r4", 0, 0) &&
	     is("s2 out to r4x", cg_move("r4x", s[1]), 0);
	__atomic_store_n(stop, 1, __ATOMIC_RELAXED);
	/* Every move made and checked, whatever an earlier one showed. */
	ok &= total_is("r4", 2 * T_BW) & total_is("r4x", 0);
	ok &= is("s1 to r4y", cg_move("r4y", s[0]), 0) & is("s2 to r4y", cg_move("r4y", s[1]), 0) &
	      total_is("r4", 2 * T_BW) & total_is("r4y", 0) & total_is("r4x", 0);
	ok &= is("s1 back to r4x", cg_move("r4x", s[0]), 0) & is("s2 back to r4x", cg_move("r4x", s[1]), 0) &
	      total_is("r4", 2 * T_BW) & total_is("r4y", 0) & total_is("r4x", 0);
	ksft_test_result(ok, "R4: two tasks that left SCHED_DEADLINE (one let go by its template, one by its own "
			 "choice) moved 3 times before their 0-lag: r4 keeps both charges (%lld), r4x and r4y 0\n",
			 2 * T_BW);

	/* 2 */
	ok = is("s1 into full r4f", cg_move("r4f", s[0]), 0) && is("s1 in r4f", cg_has("r4f", s[0]), 1) &&
	     policy_is("s1 in r4f", s[0], SCHED_OTHER) & stat_is("r4f", 1, 1) & total_is("r4f", T_BW) &
	     total_is("r4", 2 * T_BW);
	ksft_test_result(ok, "R4: such a task moves into a full template (write OK), counted in nr_over there (1 1); "
			 "r4 keeps its charge\n");

	/* 3 */
	ok = wait_total_is("r4", 0) & wait_total_is("r4x", 0) & wait_total_is("r4y", 0) & total_is("r4f", T_BW) &
	     policy_is("s1", s[0], SCHED_OTHER) & policy_is("s2", s[1], SCHED_OTHER);
	ksft_test_result(ok, "R4: at their 0-lag times r4 gives both charges back (0); no other group was charged\n");

	/* 4 */
	d = worker_start("r4x");
	ok = is("d SCHED_DEADLINE in r4x", worker_ask(&d, 'd', TASK_RUNTIME_NS(16)).err, 0) &&
	     total_is("r4x", T_BW) && is("d into full r4f", cg_move("r4f", d.pid), -EBUSY) &&
	     is("d still in r4x", cg_has("r4x", d.pid), 1) && total_is("r4x", T_BW) && total_is("r4f", T_BW) &&
	     is("d into r4y", cg_move("r4y", d.pid), 0) && total_is("r4y", T_BW) && total_is("r4x", 0) &&
	     is_template_task("d", d.pid);
	ksft_test_result(ok, "R4: a SCHED_DEADLINE task that is no template's carries its charge: into the full "
			 "template EBUSY (it stays), into r4y its %lld moves with it\n", T_BW);
	block_end(b);
	wait_total(NULL, pool0);
	munmap((void *)stop, sizeof(*stop));
}

/* ---- R5: retries ---- */

/*
 * Child reservation worth one template task: 1000 us every 16000 * P us
 * of each CPU, counted on the P possible CPUs.
 */
static long long resv_period_us(int P)
{
	return 16000LL * P;
}

static long long resv_charge(int P)
{
	return P * (long long)dl_ratio(resv_period_us(P), 1000);
}

static void rule5(void)
{
	struct block b = block_start();
	int P = possible_cpus();
	long long rc = resv_charge(P);
	struct worker o, w1, w2;
	bool ok;

	cg_create("r5p");

	/* 1: a deadline task moving out */
	cg_create("r5a");
	ok = !write_template("r5a", tmpl16(2));
	o = worker_start("r5p");
	ok = ok && is("o SCHED_DEADLINE", worker_ask(&o, 'd', TASK_RUNTIME_NS(16)).err, 0) &&
	     is("o into r5a", cg_move("r5a", o.pid), 0) && total_is("r5a", T_BW);
	w1 = worker_start("r5a");
	w2 = worker_start("r5a");
	ok = ok && is_template_task("w1", w1.pid) && policy_is("w2", w2.pid, SCHED_OTHER) && stat_is("r5a", 1, 1) &&
	     is("o out", cg_move("r5p", o.pid), 0) && wait_stat("r5a", 2, 0) && is_template_task("w2", w2.pid) &&
	     total_is("r5a", 2 * T_BW);
	ksft_test_result(ok, "R5: a deadline task (not the template's) moving out of the template group: the over "
			 "task is admitted (1 1 -> 2 0)\n");

	/* 2: a task lowering its own runtime */
	cg_create("r5b");
	ok = !write_template("r5b", tmpl16(3));
	o = worker_start("r5p");
	ok = ok && is("o 1/8", worker_ask(&o, 'd', TASK_RUNTIME_NS(8)).err, 0) &&
	     is("o into r5b", cg_move("r5b", o.pid), 0) && total_is("r5b", 2 * T_BW);
	w1 = worker_start("r5b");
	w2 = worker_start("r5b");
	ok = ok && is_template_task("w1", w1.pid) && stat_is("r5b", 1, 1) &&
	     is("o lowers to 1/16", worker_ask(&o, 'd', TASK_RUNTIME_NS(16)).err, 0) &&
	     is_template_task("o", o.pid) && wait_stat("r5b", 2, 0) && is_template_task("w2", w2.pid) && total_is("r5b", 3 * T_BW);
	ksft_test_result(ok, "R5: a deadline task in the template group lowering its own runtime from 1/8 to 1/16: "
			 "the over task is admitted (2 0)\n");

	/* 3, 4: a child group's reservation lowered */
	cg_create("r5c");
	cg_create_sub("r5c/c");
	ok = is("r5c/c period", -cg_write_ll("r5c/c", "cpu.dl_period_us", resv_period_us(P)), 0) &&
	     is("template r5c", write_template("r5c", tmpl16(2)), 0) &&
	     is("r5c/c 1000 us", -cg_write_ll("r5c/c", "cpu.dl_runtime_us", 1000), 0) && total_is("r5c", rc);
	w1 = worker_start("r5c");
	w2 = worker_start("r5c");
	ok = ok && is_template_task("w1", w1.pid) && stat_is("r5c", 1, 1) && total_is("r5c", rc + T_BW) &&
	     is("not a number", -cg_write("r5c/c", "cpu.dl_runtime_us", "abc"), EINVAL) &&
	     is("over the period", -cg_write_ll("r5c/c", "cpu.dl_runtime_us", resv_period_us(P) + 1), EINVAL) &&
	     is("twice as much", -cg_write_ll("r5c/c", "cpu.dl_runtime_us", 2000), EBUSY);
	usleep(SETTLE_US);
	ok = ok && is("r5c/c runtime", cg_read("r5c/c", "cpu.dl_runtime_us"), 1000) &
	     stat_is("r5c", 1, 1) & total_is("r5c", rc + T_BW) & policy_is("w2", w2.pid, SCHED_OTHER);
	ksft_test_result(ok, "R5: bad input: writes to a child's cpu.dl_runtime_us that fail (EINVAL, EBUSY) change "
			 "nothing and admit nobody (1 1)\n");
	ok = is("r5c/c lowered to 0", -cg_write_ll("r5c/c", "cpu.dl_runtime_us", 0), 0) && wait_stat("r5c", 2, 0) &&
	     is_template_task("w2", w2.pid) && total_is("r5c", 2 * T_BW);
	ksft_test_result(ok, "R5: a child group's reservation lowered to 0: the over task is admitted (2 0)\n");

	/* 5: a child group's reservation removed */
	cg_create("r5d");
	cg_create_sub("r5d/c");
	ok = is("r5d/c period", -cg_write_ll("r5d/c", "cpu.dl_period_us", resv_period_us(P)), 0) &&
	     is("template r5d", write_template("r5d", tmpl16(2)), 0) &&
	     is("r5d/c 1000 us", -cg_write_ll("r5d/c", "cpu.dl_runtime_us", 1000), 0);
	w1 = worker_start("r5d");
	w2 = worker_start("r5d");
	ok = ok && stat_is("r5d", 1, 1) && is("r5d/c removed", -cg_write_ll("r5d/c", "cpu.dl_runtime_us", -1), 0) &&
	     wait_stat("r5d", 2, 0) && is_template_task("w2", w2.pid) && total_is("r5d", 2 * T_BW);
	ksft_test_result(ok, "R5: a child group's reservation removed (-1): the over task is admitted (2 0)\n");

	/* 6: a child group removed */
	cg_create("r5e");
	cg_create_sub("r5e/k");
	ok = is("template r5e", write_template("r5e", tmpl16(2)), 0) &&
	     is("template r5e/k", write_template("r5e/k", tmpl16(1)), 0) && total_is("r5e", T_BW);
	w1 = worker_start("r5e");
	w2 = worker_start("r5e");
	ok = ok && stat_is("r5e", 1, 1) && is("rmdir r5e/k", cg_remove("r5e/k"), 0) && wait_stat("r5e", 2, 0) &&
	     is_template_task("w2", w2.pid) && total_is("r5e", 2 * T_BW);
	ksft_test_result(ok, "R5: a child group (with a template of one task) removed: the over task is admitted (2 0)\n");

	/* 7: a 0-lag release in an unreserved child group */
	cg_create("r5f");
	cg_create_sub("r5f/u");
	o = worker_start("r5f");
	ok = is("o into r5f/u", cg_move_thread("r5f/u", o.pid), 0) &&
	     is("o SCHED_DEADLINE in r5f/u", worker_ask(&o, 'd', TASK_RUNTIME_NS(16)).err, 0) &&
	     is("template r5f", write_template("r5f", tmpl16(1)), 0) && total_is("r5f", T_BW);
	w1 = worker_start("r5f");
	ok = ok && policy_is("w1", w1.pid, SCHED_OTHER) && stat_is("r5f", 0, 1) &&
	     is("o sets SCHED_OTHER", worker_ask(&o, 'o', 0).err, 0) && wait_stat("r5f", 1, 0) &&
	     is_template_task("w1", w1.pid) && total_is("r5f", T_BW);
	ksft_test_result(ok, "R5: a deadline task of an unreserved child group giving its bandwidth back (0-lag): "
			 "the over task is admitted (1 0)\n");
	block_end(b);
}

/* ---- R6: flags and nice ---- */

static int set_other_attr(pid_t pid, uint64_t flags, int nice)
{
	struct sched_attr a = { .size = sizeof(a), .sched_policy = SCHED_OTHER, .sched_flags = flags,
				.sched_nice = nice };

	return dlsched_sched_setattr(pid, &a, 0) ? errno : 0;
}

static bool other_with(const char *what, pid_t pid, uint64_t flags, int nice)
{
	struct sched_attr a = attr_of(pid);
	char w[3][96];

	snprintf(w[0], sizeof(w[0]), "%s: policy", what);
	snprintf(w[1], sizeof(w[1]), "%s: reset-on-fork", what);
	snprintf(w[2], sizeof(w[2]), "%s: nice", what);
	return is(w[0], a.sched_policy, SCHED_OTHER) &
	       is(w[1], a.sched_flags & SCHED_FLAG_RESET_ON_FORK, flags) & is(w[2], a.sched_nice, nice);
}

static void rule6(void)
{
	struct block b = block_start();
	struct worker w, w2;
	struct sched_attr before;
	struct wreply r;
	bool ok;

	cg_create("r6");
	cg_create("r6p");
	if (write_template("r6", tmpl16(2)))
		ksft_exit_fail_msg("template r6: %s\n", strerror(errno));
	w = worker_start("r6p");
	w2 = worker_start("r6p");

	/* 1 */
	ok = is("w reset-on-fork, nice -5", set_other_attr(w.pid, SCHED_FLAG_RESET_ON_FORK, -5), 0) &&
	     is("w2 reset-on-fork, nice -5", set_other_attr(w2.pid, SCHED_FLAG_RESET_ON_FORK, -5), 0) &&
	     other_with("w before", w.pid, SCHED_FLAG_RESET_ON_FORK, -5) && is("attach w", cg_move("r6", w.pid), 0) &&
	     is_template_task("w", w.pid) &&
	     is("admitted w: reset-on-fork", attr_of(w.pid).sched_flags & SCHED_FLAG_RESET_ON_FORK,
		SCHED_FLAG_RESET_ON_FORK) & is("admitted w: nice", proc_nice(w.pid), -5) & stat_is("r6", 1, 0);
	ksft_test_result(ok, "R6: admitted, a task keeps SCHED_FLAG_RESET_ON_FORK and nice -5\n");

	/* 2 */
	ok = is("w out", cg_move("r6p", w.pid), 0) && other_with("w released by its move", w.pid,
								  SCHED_FLAG_RESET_ON_FORK, -5);
	ok = ok && is("attach w2", cg_move("r6", w2.pid), 0) && is_template_task("w2", w2.pid) &&
	     is("none", write_template("r6", "none"), 0) &&
	     other_with("w2 released by none", w2.pid, SCHED_FLAG_RESET_ON_FORK, -5);
	ksft_test_result(ok, "R6: released (moved out, or template none) it is SCHED_OTHER with "
			 "SCHED_FLAG_RESET_ON_FORK and nice -5\n");

	/* 3 */
	r = worker_ask(&w, 'f', 0);
	ok = is("fork", r.err, 0) && is("child's policy", r.policy, SCHED_OTHER) & is("child's nice", r.nice, 0) &
	     is("child's reset-on-fork", r.flags & SCHED_FLAG_RESET_ON_FORK, 0);
	ksft_test_result(ok, "R6: the released task's children start at nice 0, without the flag (reset on fork)\n");

	/* 4 */
	before = attr_of(w.pid);
	ok = is("unknown flag", set_other_attr(w.pid, SCHED_FLAG_RESET_ON_FORK | (1ULL << 30), 0), EINVAL) &&
	     other_with("w after", w.pid, before.sched_flags & SCHED_FLAG_RESET_ON_FORK, before.sched_nice);
	ksft_test_result(ok, "R6: bad input: sched_setattr() with an unknown flag is EINVAL, flag and nice unchanged\n");
	block_end(b);
}

/* ---- R7: SysRq-n ---- */

static void rule7(void)
{
	struct block b = block_start();
	struct worker w[5];
	int fd, i;
	bool ok;

	cg_create("r7");
	if (write_template("r7", tmpl16(2)))
		ksft_exit_fail_msg("template r7: %s\n", strerror(errno));
	w[0] = worker_start("r7");
	w[1] = worker_start("r7");
	ok = is_template_task("w1", w[0].pid) && is_template_task("w2", w[1].pid) && stat_is("r7", 2, 0);
	fd = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "n", 1) != 1)
		ksft_exit_fail_msg("SysRq-n: %s\n", strerror(errno));
	close(fd);

	/* 1 */
	ok = ok && policy_is("w1", w[0].pid, SCHED_OTHER) & policy_is("w2", w[1].pid, SCHED_OTHER) &
	     wait_stat("r7", 0, 0);
	ksft_test_result(ok, "R7: SysRq-n makes the template's tasks SCHED_OTHER and the template forgets them (0 0)\n");

	/* 2 */
	ok = wait_total_is("r7", 0);
	usleep(SETTLE_US);
	ok = ok && policy_is("w1", w[0].pid, SCHED_OTHER) & policy_is("w2", w[1].pid, SCHED_OTHER) &
	     stat_is("r7", 0, 0);
	ksft_test_result(ok, "R7: once their bandwidth is back they are not admitted again (0 0)\n");

	/* 3 */
	w[2] = worker_start("r7");
	w[3] = worker_start("r7");
	ok = wait_policy("w3", w[2].pid, SCHED_DEADLINE) && wait_policy("w4", w[3].pid, SCHED_DEADLINE) &&
	     wait_stat("r7", 2, 0) && total_is("r7", 2 * T_BW);
	w[4] = worker_start("r7");
	usleep(SETTLE_US);
	ok = ok && policy_is("w5", w[4].pid, SCHED_OTHER) & stat_is("r7", 2, 1) & total_is("r7", 2 * T_BW);
	for (i = 0; i < 2; i++)
		ok &= policy_is("w1, w2", w[i].pid, SCHED_OTHER);
	ksft_test_result(ok, "R7: tasks entering afterwards are admitted up to the template's 2 (2 0), the next "
			 "counts over (2 1)\n");
	block_end(b);
}

/* ---- R8: the owner's choice ---- */

static void rule8(void)
{
	struct block b = block_start();
	struct sched_attr dl = dlsched_deadline_attr(T_RUNTIME_US * NSEC_PER_USEC, T_PERIOD_US * NSEC_PER_USEC,
						     T_PERIOD_US * NSEC_PER_USEC, 0);
	struct sched_attr bad = dlsched_deadline_attr(2 * T_PERIOD_US * NSEC_PER_USEC, T_PERIOD_US * NSEC_PER_USEC,
						      T_PERIOD_US * NSEC_PER_USEC, 0);
	struct sched_param p0 = { .sched_priority = 0 };
	struct worker w1, w2, w3, w4, w5;
	bool ok;

	cg_create("r8");
	cg_create("r8b");
	cg_create("r8c");
	cg_create("r8p");
	if (write_template("r8", tmpl16(1)) || write_template("r8b", tmpl16(1)) || write_template("r8c", tmpl16(1)))
		ksft_exit_fail_msg("templates r8: %s\n", strerror(errno));
	w1 = worker_start("r8");
	w2 = worker_start("r8");

	/* 1 */
	ok = is_template_task("w1", w1.pid) && policy_is("w2", w2.pid, SCHED_OTHER) && stat_is("r8", 1, 1) &&
	     is("SCHED_OTHER on over w2", dlsched_set_normal(w2.pid), 0) && stat_is("r8", 1, 0);
	ksft_test_result(ok, "R8: sched_setattr(SCHED_OTHER) on an over task already SCHED_OTHER: it leaves "
			 "nr_over at once (1 1 -> 1 0)\n");

	/* 2 */
	ok = is("w1 out", cg_move("r8p", w1.pid), 0);
	/* W1's release at its 0-lag time is when a retry would take w2. */
	wait_total("r8", 0);
	usleep(SETTLE_US);
	ok = ok && policy_is("w2 with room", w2.pid, SCHED_OTHER) & stat_is("r8", 0, 0) & total_is("r8", 0);
	ksft_test_result(ok, "R8: when room returns that task stays SCHED_OTHER (0 0)\n");

	/* 3 */
	w3 = worker_start("r8b");
	w4 = worker_start("r8b");
	ok = is_template_task("w3", w3.pid) && stat_is("r8b", 1, 1) &&
	     is("the same SCHED_DEADLINE on admitted w3", dlsched_set_attr(w3.pid, &dl), 0) && stat_is("r8b", 0, 1) &&
	     is_template_task("w3", w3.pid) &&
	     is("sched_setscheduler(SCHED_OTHER) on over w4", sched_setscheduler(w4.pid, SCHED_OTHER, &p0) ? errno : 0,
		0) && stat_is("r8b", 0, 0) && policy_is("w4", w4.pid, SCHED_OTHER) && total_is("r8b", T_BW);
	ksft_test_result(ok, "R8: a sched_setattr() of the same parameters on an admitted task, and "
			 "sched_setscheduler(SCHED_OTHER) on an over one, take them out of the counts at once (0 0)\n");

	/* 4 */
	w5 = worker_start("r8c");
	ok = is_template_task("w5", w5.pid) && stat_is("r8c", 1, 0) &&
	     is("runtime over the deadline", dlsched_set_attr(w5.pid, &bad), -EINVAL) &&
	     is_template_task("w5", w5.pid) && stat_is("r8c", 1, 0) && total_is("r8c", T_BW);
	ksft_test_result(ok, "R8: bad input: a sched_setattr() that fails (EINVAL) leaves the admitted task as it "
			 "was, counted (1 0)\n");
	block_end(b);
}

/* Entries of @dir that are directories (child groups), "." and ".." aside. */
static int subdirs(const char *dir)
{
	struct dirent *d;
	int n = 0;
	DIR *dp = opendir(dir);

	if (!dp)
		return -1;
	while ((d = readdir(dp)))
		if (d->d_type == DT_DIR && strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			n++;
	closedir(dp);
	return n;
}

/* What the blocks left behind: nothing, before the exit handlers run. */
static void check_clean(void)
{
	int cpu, offline = 0;
	bool ok;

	for (cpu = 1; cpu < CPU_MAX; cpu++)
		if (cpu_online_file(cpu) == 0)
			offline++;
	ok = is("groups left under the test's", subdirs(cg_path("", NULL)), 0) &
	     is("processes left in the test's group", *cg_read_line("", "cgroup.procs") != '\0', 0) &
	     is("children left", child_count, 0) & is("CPUs offline", offline, 0) &
	     is("pool", wait_total(NULL, pool_base), pool_base);
	ksft_test_result(ok, "after R1-R8: no group, process or offline CPU left, the pool back to its %lld\n",
			 pool_base);
}

int main(void)
{
	double t0 = now_s(), t;

	ksft_print_header();
	ksft_set_plan(PLAN);
	dl_setup("t30");
	atexit(cpus_restore);
	/* Three CPUs' worth of deadline bandwidth on four: room for R3's template. */
	set_dl_pool(250000, 750000);
	pool_base = pool_total();

	t = now_s();
	rule1();
	ksft_print_msg("R1 took %.1f s\n", now_s() - t);
	t = now_s();
	rule2();
	ksft_print_msg("R2 took %.1f s\n", now_s() - t);
	t = now_s();
	rule3();
	ksft_print_msg("R3 took %.1f s\n", now_s() - t);
	t = now_s();
	rule4();
	ksft_print_msg("R4 took %.1f s\n", now_s() - t);
	t = now_s();
	rule5();
	ksft_print_msg("R5 took %.1f s\n", now_s() - t);
	t = now_s();
	rule6();
	ksft_print_msg("R6 took %.1f s\n", now_s() - t);
	t = now_s();
	rule7();
	ksft_print_msg("R7 took %.1f s\n", now_s() - t);
	t = now_s();
	rule8();
	ksft_print_msg("R8 took %.1f s\n", now_s() - t);

	check_clean();
	ksft_print_msg("%.1f s in all\n", now_s() - t0);
	if (failures)
		ksft_print_msg("%d mismatches\n", failures);
	ksft_finished();
}
