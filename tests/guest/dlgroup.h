/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the deadline bandwidth tests (10-39): the system knobs
 * (sched_dl_*), cgroups of the cpu controller in v2 or v1, and deadline
 * child processes that hold a reservation until they are released.
 *
 * Everything a test changes is recorded and undone at exit (also after a
 * failed assertion): children are killed and reaped, cgroups removed
 * deepest first, sysctls restored. The next test assumes defaults.
 *
 * Bandwidth numbers are chosen as powers of two (1/4, 1/16 of a CPU...) so
 * that the kernel's fixed point (BW_SHIFT 20) holds them exactly: a group
 * can be filled to exactly its capacity.
 */
#ifndef DLGROUP_H
#define DLGROUP_H

#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include "dltest.h"

#define SYSCTL_DL_RUNTIME "/proc/sys/kernel/sched_dl_runtime_us"
#define SYSCTL_DL_PERIOD "/proc/sys/kernel/sched_dl_period_us"
#define SYSCTL_DL_TOTAL "/proc/sys/kernel/sched_dl_total_bw"
#define SYSCTL_RT_RUNTIME "/proc/sys/kernel/sched_rt_runtime_us"
#define SYSCTL_RT_PERIOD "/proc/sys/kernel/sched_rt_period_us"

#define BW_UNIT (1LL << BW_SHIFT)
/* Deadline tasks of the tests: period 100 ms. */
#define TASK_PERIOD_NS (100 * NSEC_PER_MSEC)
/* Runtime of a task using 1/n of a CPU. */
#define TASK_RUNTIME_NS(n) (TASK_PERIOD_NS / (n))
/* Fixed-point bandwidth of 1/n of a CPU (n a power of two). */
#define BW_FRACTION(n) (BW_UNIT / (n))

#define MAX_CGROUPS 64
#define MAX_CHILDREN 64

static bool cg_v1;
static char cg_base[128];
static char cg_created[MAX_CGROUPS][256];
static int cg_count;
static pid_t children[MAX_CHILDREN];
static int child_gate[MAX_CHILDREN];
static int child_count;
static long long saved_dl_runtime, saved_dl_period, saved_rt_runtime, saved_rt_period;
static bool sysctls_saved;

/* Mismatches is() found; a test may print the count at its end. */
static int failures;

/* Is @got @want? Says which value differed, and counts it, if not. */
static inline bool is(const char *what, long long got, long long want)
{
	if (got != want) {
		ksft_print_msg("%s: %lld, want %lld\n", what, got, want);
		failures++;
	}
	return got == want;
}

static inline int cpus(void)
{
	return online_cpus();
}

/* Path of @file in the test cgroup @cg ("" is the test's top cgroup). */
static inline const char *cg_path(const char *cg, const char *file)
{
	static char path[4][512];
	static int slot;
	char *p = path[slot++ % 4];

	snprintf(p, sizeof(path[0]), "%s%s%s%s%s", cg_base, *cg ? "/" : "", cg,
		 file ? "/" : "", file ? file : "");
	return p;
}

static inline int cg_write(const char *cg, const char *file, const char *val)
{
	return write_str(cg_path(cg, file), val);
}

static inline int cg_write_ll(const char *cg, const char *file, long long val)
{
	return write_ll(cg_path(cg, file), val);
}

static inline long long cg_read(const char *cg, const char *file)
{
	long long v = 0;
	int err = read_ll(cg_path(cg, file), &v);

	if (err)
		ksft_exit_fail_msg("read %s: %s\n", cg_path(cg, file), strerror(-err));
	return v;
}

static inline long long sysctl_read(const char *path)
{
	long long v = 0;
	int err = read_ll(path, &v);

	if (err)
		ksft_exit_fail_msg("read %s: %s\n", path, strerror(-err));
	return v;
}

/* Allocated from the system pool (of CPU 0's root domain). */
static inline long long pool_total(void)
{
	return sysctl_read(SYSCTL_DL_TOTAL);
}

static inline long long cg_total(const char *cg)
{
	return cg_read(cg, "cpu.dl_total_bw");
}

/*
 * Remove the cgroup at @path; what is still in it (a child's own
 * children, killed by their parent's death a moment later) is killed,
 * for up to 2 s, so that no group and no reservation outlives the test.
 */
static void cg_kill_and_remove(const char *path)
{
	char procs[600], line[32];
	FILE *f;
	int tries;

	for (tries = 0; *path && tries < 200; tries++) {
		if (!rmdir(path) || errno != EBUSY)
			return;
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
		f = fopen(procs, "re");
		if (f) {
			while (fgets(line, sizeof(line), f))
				if (atoi(line) > 0)
					kill(atoi(line), SIGKILL);
			fclose(f);
		}
		usleep(10000);
	}
	if (*path)
		ksft_print_msg("cannot remove %s: %s\n", path, strerror(errno));
}

static void dl_cleanup(void)
{
	int i;

	for (i = 0; i < child_count; i++) {
		if (children[i] > 0) {
			kill(children[i], SIGKILL);
			waitpid(children[i], NULL, 0);
		}
	}
	child_count = 0;
	for (i = cg_count - 1; i >= 0; i--)
		cg_kill_and_remove(cg_created[i]);
	cg_count = 0;
	/*
	 * The root domain releases an exited task's bandwidth at its 0-lag
	 * time, up to a period later, and the coupling may refuse one order
	 * of writes: retry until all four knobs are back.
	 */
	for (i = 0; sysctls_saved && i < 100; i++) {
		long long dr = 0, dp = 0, rr = 0, rp = 0;

		write_ll(SYSCTL_DL_PERIOD, saved_dl_period);
		write_ll(SYSCTL_DL_RUNTIME, saved_dl_runtime);
		write_ll(SYSCTL_RT_PERIOD, saved_rt_period);
		write_ll(SYSCTL_RT_RUNTIME, saved_rt_runtime);
		write_ll(SYSCTL_DL_RUNTIME, saved_dl_runtime);
		read_ll(SYSCTL_DL_RUNTIME, &dr);
		read_ll(SYSCTL_DL_PERIOD, &dp);
		read_ll(SYSCTL_RT_RUNTIME, &rr);
		read_ll(SYSCTL_RT_PERIOD, &rp);
		if (dr == saved_dl_runtime && dp == saved_dl_period &&
		    rr == saved_rt_runtime && rp == saved_rt_period)
			sysctls_saved = false;
		else
			usleep(20000);
	}
}

/*
 * Start a test: find the cpu controller of the running hierarchy, create
 * the test's top cgroup @top, save the sysctls.
 */
static inline void dl_setup(const char *top)
{
	const char *env = getenv("DLSCHED_CGROUP");
	struct stat st;

	if (env)
		cg_v1 = !strcmp(env, "v1");
	else
		cg_v1 = stat("/sys/fs/cgroup/cgroup.controllers", &st) != 0;
	snprintf(cg_base, sizeof(cg_base), "%s/%s",
		 cg_v1 ? "/sys/fs/cgroup/cpu" : "/sys/fs/cgroup", top);
	ksft_print_msg("cgroup %s, base %s, %d CPUs\n", cg_v1 ? "v1" : "v2", cg_base, cpus());

	saved_dl_runtime = sysctl_read(SYSCTL_DL_RUNTIME);
	saved_dl_period = sysctl_read(SYSCTL_DL_PERIOD);
	saved_rt_runtime = sysctl_read(SYSCTL_RT_RUNTIME);
	saved_rt_period = sysctl_read(SYSCTL_RT_PERIOD);
	sysctls_saved = true;
	atexit(dl_cleanup);

	if (!cg_v1 && write_str("/sys/fs/cgroup/cgroup.subtree_control", "+cpu"))
		ksft_exit_fail_msg("enable the cpu controller: %s\n", strerror(errno));
	rmdir(cg_base);
	if (mkdir(cg_base, 0755))
		ksft_exit_fail_msg("mkdir %s: %s\n", cg_base, strerror(errno));
	snprintf(cg_created[cg_count++], sizeof(cg_created[0]), "%s", cg_base);
}

/* Create the test cgroup @cg (its parent must exist). */
static inline void cg_create(const char *cg)
{
	char parent[256], *slash;

	snprintf(parent, sizeof(parent), "%s", cg);
	slash = strrchr(parent, '/');
	if (slash)
		*slash = '\0';
	else
		parent[0] = '\0';
	if (!cg_v1 && cg_write(parent, "cgroup.subtree_control", "+cpu"))
		ksft_exit_fail_msg("enable cpu in %s: %s\n", cg_path(parent, NULL), strerror(errno));
	if (mkdir(cg_path(cg, NULL), 0755))
		ksft_exit_fail_msg("mkdir %s: %s\n", cg_path(cg, NULL), strerror(errno));
	if (cg_count == MAX_CGROUPS)
		ksft_exit_fail_msg("too many cgroups\n");
	snprintf(cg_created[cg_count++], sizeof(cg_created[0]), "%s", cg_path(cg, NULL));
}

/* Remove @cg now; returns 0 or -errno. */
static inline int cg_remove(const char *cg)
{
	const char *path = cg_path(cg, NULL);
	int i;

	if (rmdir(path))
		return -errno;
	for (i = 0; i < cg_count; i++)
		if (!strcmp(cg_created[i], path))
			cg_created[i][0] = '\0';
	return 0;
}

/* Set the system knobs; the order of writes keeps rt + dl <= 100%. */
static inline void set_dl_pool(long long rt_runtime, long long dl_runtime)
{
	int err, tries = 0;

	/*
	 * A deadline task that exited or left the class holds its bandwidth
	 * until its 0-lag time (at most one period), and every write here is
	 * checked against what is held: while the previous test's tasks
	 * drain, any step may say EBUSY. Retry the whole sequence for a while.
	 */
	do {
		if (tries)
			usleep(50000);
		err = write_ll(SYSCTL_DL_RUNTIME, 0);
		if (!err)
			err = write_ll(SYSCTL_RT_RUNTIME, rt_runtime);
		if (!err)
			err = write_ll(SYSCTL_DL_RUNTIME, dl_runtime);
	} while (err == -EBUSY && ++tries < 60);
	if (err)
		ksft_exit_fail_msg("set rt %lld / dl %lld: %s (pool holds %lld)\n", rt_runtime,
				   dl_runtime, strerror(-err), pool_total());
}

/* Move process @pid into @cg; returns 0 or -errno. */
static inline int cg_move(const char *cg, pid_t pid)
{
	return cg_write_ll(cg, "cgroup.procs", pid);
}

/* Is @pid in @cg (as listed by its cgroup.procs)? */
static inline bool cg_has(const char *cg, pid_t pid)
{
	char line[32];
	bool found = false;
	FILE *f = fopen(cg_path(cg, "cgroup.procs"), "re");

	if (!f)
		ksft_exit_fail_msg("open %s: %s\n", cg_path(cg, "cgroup.procs"), strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (atoi(line) == pid)
			found = true;
	fclose(f);
	return found;
}

/* nobody:nogroup, for the unprivileged cases. */
#define NOBODY 65534

/*
 * Run @fn(@arg) in a child as nobody:nogroup and return what it returned
 * (an errno, 0 to 254): a write of a cgroup file as an unprivileged user.
 */
static inline int as_nobody_run(int (*fn)(const void *arg), const void *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(255);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) == 255)
		ksft_exit_fail_msg("the child as nobody failed\n");
	return WEXITSTATUS(status);
}

struct dl_child {
	pid_t pid;
	int slot;
	int err;	/* errno of its sched_setattr(), 0 if admitted */
};

/*
 * Fork a child the test ends by closing its gate (children[], child_gate[];
 * the exit handler kills what is left). Returns the pid, 0 in the child,
 * where *@gate_read is the read end of its gate: at EOF it should exit.
 */
static inline pid_t dl_child_fork(int *gate_read)
{
	int gate[2], i;
	pid_t pid;

	if (child_count == MAX_CHILDREN)
		ksft_exit_fail_msg("too many children\n");
	if (pipe(gate))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		/* Earlier children end when their gate closes: not held here. */
		for (i = 0; i < child_count; i++)
			if (children[i] > 0)
				close(child_gate[i]);
		close(gate[1]);
		*gate_read = gate[0];
		return 0;
	}
	close(gate[0]);
	children[child_count] = pid;
	child_gate[child_count++] = gate[1];
	return pid;
}

/*
 * Fork a child that joins @cg (NULL: stays in the test's cgroup), asks
 * for @runtime_ns every @period_ns (runtime 0: stays SCHED_OTHER), reports
 * the result and, admitted or not, sleeps until dl_child_stop().
 */
static inline struct dl_child dl_child_start_period(const char *cg, uint64_t runtime_ns,
						    uint64_t period_ns)
{
	struct dl_child c = { .slot = child_count };
	int report[2], gate;
	char buf;

	if (pipe(report))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	c.pid = dl_child_fork(&gate);
	if (!c.pid) {
		int err = 0;

		close(report[0]);
		if (cg && cg_move(cg, getpid()))
			err = 1000 + errno;
		if (!err && runtime_ns)
			err = -dl_enter(runtime_ns, period_ns, period_ns, 0);
		if (write(report[1], &err, sizeof(err)) != sizeof(err))
			_exit(1);
		while (read(gate, &buf, 1) > 0)
			;
		_exit(0);
	}
	close(report[1]);
	if (read(report[0], &c.err, sizeof(c.err)) != sizeof(c.err))
		ksft_exit_fail_msg("child %d did not report\n", c.pid);
	close(report[0]);
	if (c.err >= 1000)
		ksft_exit_fail_msg("child could not join %s: %s\n", cg, strerror(c.err - 1000));
	return c;
}

/* dl_child_start_period() every TASK_PERIOD_NS. */
static inline struct dl_child dl_child_start(const char *cg, uint64_t runtime_ns)
{
	return dl_child_start_period(cg, runtime_ns, TASK_PERIOD_NS);
}

/* Let the child exit and reap it. */
static inline void dl_child_stop(struct dl_child *c)
{
	if (children[c->slot] <= 0)
		return;
	close(child_gate[c->slot]);
	waitpid(c->pid, NULL, 0);
	children[c->slot] = 0;
}

/* Switch a child to or from SCHED_DEADLINE; returns 0 or -errno. */
static inline int dl_child_set(struct dl_child *c, uint64_t runtime_ns)
{
	struct sched_attr a = dlsched_deadline_attr(runtime_ns, TASK_PERIOD_NS, TASK_PERIOD_NS, 0);

	if (!runtime_ns)
		a = (struct sched_attr){ .size = sizeof(a), .sched_policy = SCHED_OTHER };
	return dlsched_sched_setattr(c->pid, &a, 0) ? -errno : 0;
}

/*
 * Wait up to 5 s for @cg's cpu.dl_total_bw (or the pool's, cg NULL) to be
 * @want: a removed group gives back when the kernel takes it offline, and
 * a task that exited or left SCHED_DEADLINE at its 0-lag time (at most a
 * period later). Returns the last value read.
 */
static inline long long wait_total(const char *cg, long long want)
{
	long long v = 0;
	int i;

	for (i = 0; i < 500; i++) {
		v = cg ? cg_total(cg) : pool_total();
		if (v == want)
			return v;
		usleep(10000);
	}
	ksft_print_msg("%s: total %lld after 5 s, want %lld\n", cg ? cg : "pool", v, want);
	return v;
}

/* The first line of @file of @cg, without its newline ("" if unreadable). */
static inline const char *cg_read_line(const char *cg, const char *file)
{
	static char buf[4][128];
	static int slot;
	char *b = buf[slot++ % 4];
	FILE *f = fopen(cg_path(cg, file), "re");

	b[0] = '\0';
	if (f) {
		if (!fgets(b, sizeof(buf[0]), f))
			b[0] = '\0';
		fclose(f);
	}
	b[strcspn(b, "\n")] = '\0';
	return b;
}

static inline bool str_is(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want)) {
		ksft_print_msg("%s: \"%s\", want \"%s\"\n", what, got, want);
		failures++;
		return false;
	}
	return true;
}

/* nr_tasks and nr_over of @cg's cpu.dl_template_stat. */
static inline void tmpl_stat(const char *cg, long long *tasks, long long *over)
{
	FILE *f = fopen(cg_path(cg, "cpu.dl_template_stat"), "re");

	*tasks = *over = -1;
	if (!f)
		ksft_exit_fail_msg("open %s: %s\n", cg_path(cg, "cpu.dl_template_stat"), strerror(errno));
	if (fscanf(f, "nr_tasks %lld nr_over %lld", tasks, over) != 2)
		ksft_exit_fail_msg("%s: unexpected content\n", cg_path(cg, "cpu.dl_template_stat"));
	fclose(f);
}

#endif
