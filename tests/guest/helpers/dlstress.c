// SPDX-License-Identifier: GPL-2.0
/*
 * dlstress: a randomized stress of the series' deadline bandwidth code.
 *
 *   dlstress [--seconds N] [--seed S] [--cgroup v1|v2] [--jobs N] [--no-hotplug]
 *
 * For N seconds (default 60) workers run in parallel, root ones and
 * unprivileged ones (nobody, with RLIMIT_DLDLINE and RLIMIT_DLRTIME
 * raised). Each worker is a loop of short episodes, each in a process of
 * its own, so that fork and exit are part of the load everywhere:
 *
 *   setattr[-user]  threads switching themselves and other tasks of the
 *                   run between SCHED_DEADLINE and the other policies,
 *                   with every flag and invalid parameters; rlimit writes
 *   wait[-user]     sched_wait_interval() in a loop while a sibling thread
 *                   promotes, demotes and signals the sleeper
 *   fork[-user]     children that exit, are killed, exec, fork or start
 *                   threads while SCHED_DEADLINE
 *   fork-template   the same in a group with a task template, which
 *                   admits every child and thread while it has room
 *   cgroup          mkdir and rmdir, reservations and task templates valid
 *                   and invalid, process and thread moves in the private
 *                   subtree dlstress-PID (so tasks fork, start threads and
 *                   move in and out of template groups)
 *   cgroup-user     the same in a delegated subtree, reservations with no
 *                   reserved ancestor (EPERM), privileged writes (EACCES)
 *   template        the task-template rules, in groups of its own below a
 *                   reserved parent (tpl): players and keepers moved
 *                   (cgroup.procs and cgroup.threads) between two template
 *                   groups, a plain group and one reserved 0; the players'
 *                   own sched_setattr() (every policy, reset-on-fork,
 *                   keep-policy/params) and sched_setaffinity() (narrow,
 *                   wide), forks, threads and exits; the keepers started
 *                   SCHED_OTHER with SCHED_RESET_ON_FORK and a negative
 *                   nice; templates set to none, a new NR or new
 *                   parameters under them; a per-CPU reservation in a
 *                   child of a template group, also with a CPU offline;
 *                   CPUs offline and online; SysRq-n. After each step it
 *                   checks a template group's cpu.dl_total_bw <= NR*bw and
 *                   nr_tasks <= NR, no SCHED_DEADLINE task and a total of 0
 *                   in the group reserved 0, the keepers' flag and nice
 *                   kept by the templates and back once released, and
 *                   their children started at nice 0 ("inv:" rows; a
 *                   violation is unexpected). R1-R8 in its comments are
 *                   the rules of tests/guest/30-dl-template-rules.c
 *   sysctl          sched_dl_*, sched_rt_* and sched_dl_total_bw writes
 *   hotplug         CPUs offline and online
 *
 * Every call's result is checked against what that call may return
 * (an errno outside its set, or success where only failure is right, is
 * "unexpected"), and the kernel log is read throughout for splats. At the
 * end everything is undone (CPUs online, sysctls, kernel.sysrq, cgroups), and
 * sched_dl_total_bw, cpu0's root domain total_bw (scheduler debugfs) and
 * every cpu.dl_total_bw must be back to their starting values exactly, and
 * every runqueue's running_bw and this_bw (scheduler debugfs) to 0,
 * once the dead tasks' bandwidth is back (their 0-lag time, at most a
 * period after their exit).
 *
 * It prints the operations per kind with their errors per errno, the
 * splats, the leaked bandwidth, then one "check NAME: ok" or
 * "check NAME: FAIL why" line per criterion (run, errno, tasks, splats,
 * pool, rootdomain, runqueues, groups, cleanup). Exit status: 0 all clean, 1 a check
 * failed, 2 usage or setup error, 4 skipped (not root, or not the dlsched
 * kernel).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <ftw.h>
#include <getopt.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/param.h>
#include <sys/stat.h>
#include "dltask.h"

#define SYS_DL_RUNTIME "/proc/sys/kernel/sched_dl_runtime_us"
#define SYS_DL_PERIOD "/proc/sys/kernel/sched_dl_period_us"
#define SYS_DL_TOTAL "/proc/sys/kernel/sched_dl_total_bw"
#define SYS_RT_RUNTIME "/proc/sys/kernel/sched_rt_runtime_us"
#define SYS_RT_PERIOD "/proc/sys/kernel/sched_rt_period_us"

/* Kernel-internal (schedutil's worker), refused from user space. */
#define SCHED_FLAG_SUGOV_ 0x10000000ULL

#define USEC NSEC_PER_USEC
#define MSEC NSEC_PER_MSEC
#define SEC NSEC_PER_SEC

#define MAX_CPUS 64
#define ERRNO_MAX 134
/* Tasks other workers may pick for sched_setattr() and cgroup moves. */
#define REG_MAX 512
/* Messages about unexpected results: enough to debug, not a flood. */
#define LOG_MAX 200
#define EPISODE_MIN_MS 500
#define EPISODE_MAX_MS 3000
/*
 * An episode still running this long after its end is stuck in the kernel,
 * unless one of its threads is a throttled deadline task whose
 * replenishment is still ahead: paying back an overrun (a vCPU stall
 * charged to a task of 0.25% takes 400 times the stall). Such an episode
 * gets up to STUCK_MAX_NS; a thread throttled past its deadline is stuck.
 */
#define STUCK_NS (30 * SEC)
#define STUCK_MAX_NS (120 * SEC)
/*
 * Every sleep asked for is at most 20 ms, or a period (20 ms); beyond that
 * a wait lasts until the task has paid back its overrun (wait_bound()).
 */
#define WAIT_LONG_NS (10 * SEC)
/* random_dl()'s longest period over its smallest runtime: 20 ms / 100 us. */
#define PAYBACK_RATIO_MIN 200
#define STOP_GRACE_NS (60 * SEC)
/*
 * Dead tasks give back at their 0-lag time: a period (20 ms) plus their
 * overrun times period/runtime, up to 400 times a stall of the vCPU that
 * ran them under TCG: seconds, and one task's release may come after
 * SETTLE_NS with nothing else changing (a 300 ms stall charged to a 0.6 %
 * task: 50 s). The totals may keep going down for up to SETTLE_MAX_NS;
 * they have settled wrong once they stay put SETTLE_NS, unless the pool
 * is above its start (a release may still come): that waits up to
 * SETTLE_MAX_NS.
 */
#define SETTLE_NS (15 * SEC)
#define SETTLE_MAX_NS (120 * SEC)
/*
 * A release still queued (dl_releases_pending()) is waited for, up to this
 * long: a 2 s stall charged to a task of 0.47 % puts it 430 s ahead.
 */
#define SETTLE_PENDING_MAX_NS (300 * SEC)
#define FORK_LIVE 4

enum op {
	OP_SETATTR, OP_SETATTR_OTHER, OP_GETATTR, OP_WAIT, OP_RLIMIT, OP_FORK, OP_THREAD,
	OP_MKDIR, OP_RMDIR, OP_SUBTREE, OP_TYPE, OP_RUNTIME, OP_PERIOD, OP_PROCS, OP_THREADS,
	OP_GROUP_READ, OP_TEMPLATE, OP_TEMPLATE_READ, OP_DENIED,
	OP_SYS_DL_RUNTIME, OP_SYS_DL_PERIOD, OP_SYS_RT_RUNTIME, OP_SYS_RT_PERIOD, OP_SYS_SELECT,
	OP_SYS_READ, OP_CPU_OFF, OP_CPU_ON, OP_CPU_BAD, OP_AFFINITY, OP_SYSRQ, OP_SYSRQ_CTL,
	/* the template episode's invariants, checked as it runs: a violation is unexpected */
	OP_INV_TOTAL, OP_INV_NR, OP_INV_ZERO_DL, OP_INV_ZERO_BW, OP_INV_RELEASED, OP_INV_ADMITTED,
	OP_INV_CHILD,
	OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
	[OP_SETATTR] = "sched_setattr self",
	[OP_SETATTR_OTHER] = "sched_setattr other",
	[OP_GETATTR] = "sched_getattr",
	[OP_WAIT] = "sched_wait_interval",
	[OP_RLIMIT] = "prlimit dl limits",
	[OP_FORK] = "fork",
	[OP_THREAD] = "pthread_create",
	[OP_MKDIR] = "cgroup mkdir",
	[OP_RMDIR] = "cgroup rmdir",
	[OP_SUBTREE] = "cgroup.subtree_control",
	[OP_TYPE] = "cgroup.type",
	[OP_RUNTIME] = "cpu.dl_runtime_us",
	[OP_PERIOD] = "cpu.dl_period_us",
	[OP_PROCS] = "cgroup.procs",
	[OP_THREADS] = "cgroup.threads/tasks",
	[OP_GROUP_READ] = "cpu.dl_total_bw read",
	[OP_TEMPLATE] = "cpu.dl_template",
	[OP_TEMPLATE_READ] = "cpu.dl_template_stat read",
	[OP_DENIED] = "privileged write",
	[OP_SYS_DL_RUNTIME] = "sched_dl_runtime_us",
	[OP_SYS_DL_PERIOD] = "sched_dl_period_us",
	[OP_SYS_RT_RUNTIME] = "sched_rt_runtime_us",
	[OP_SYS_RT_PERIOD] = "sched_rt_period_us",
	[OP_SYS_SELECT] = "sched_dl_total_bw cpu",
	[OP_SYS_READ] = "sched_dl_total_bw read",
	[OP_CPU_OFF] = "cpu offline",
	[OP_CPU_ON] = "cpu online",
	[OP_CPU_BAD] = "cpu online bad value",
	[OP_AFFINITY] = "sched_setaffinity",
	[OP_SYSRQ] = "sysrq-trigger n",
	[OP_SYSRQ_CTL] = "kernel.sysrq",
	[OP_INV_TOTAL] = "inv: total <= NR*bw",
	[OP_INV_NR] = "inv: nr_tasks <= NR",
	[OP_INV_ZERO_DL] = "inv: no deadline in 0-grp",
	[OP_INV_ZERO_BW] = "inv: 0-grp total 0",
	[OP_INV_RELEASED] = "inv: released flag+nice",
	[OP_INV_ADMITTED] = "inv: template keeps flag",
	[OP_INV_CHILD] = "inv: reset-on-fork child",
};

/* Events that are not calls. */
enum ev {
	EV_SIGXCPU, EV_SIGUSR1, EV_KIDS_KILLED, EV_ORPHANS,
	/* failures */
	EV_BAD_EXIT, EV_STUCK, EV_LONG_WAIT, EV_DL_CHILD, EV_BAD_TOTAL, EV_SETUP_FAIL,
	EV_COUNT
};

struct op_stat {
	uint64_t calls, ok;
	uint64_t bad_err;	/* an errno outside the call's set */
	uint64_t bad_ok;	/* success where only failure is right */
	uint64_t err[ERRNO_MAX];	/* [0]: errno values beyond the table */
};

/* Shared by all processes of the run (MAP_SHARED, created before fork). */
struct shared {
	int stop;
	int logged;
	uint64_t ev[EV_COUNT];
	uint64_t episodes[16];
	struct op_stat ops[OP_COUNT][2];	/* [op][0 root, 1 nobody] */
	struct {
		int tid, tgid;
	} reg[REG_MAX];
};

static struct shared *sh;

/* Set before the workers start, read-only afterwards. */
static struct {
	int seconds, jobs;
	uint64_t seed;
	bool v1, hotplug;
	unsigned int only;	/* a mask of kinds, 0 for all */
} opt = { .seconds = 60, .jobs = 1, .hotplug = true };

static char cg_mnt[256];	/* the hierarchy (v2) or the cpu controller's (v1) */
static char cg_top[320];	/* dlstress-PID in it */
static char cg_start[512];	/* where dlstress started: strays go back there */
static int hp_cpus[MAX_CPUS], hp_count;	/* CPUs that can go offline, online at start */
static int ncpus;
static int nr_possible;	/* /sys/devices/system/cpu/possible */
static uint64_t run_end;
static struct {
	long long dl_runtime, dl_period, rt_runtime, rt_period;
	long long sysrq;	/* kernel.sysrq, -1 if unreadable */
} saved;

/* Per process. */
static int as_user;
static int my_kind = -1;
static __thread uint64_t rng_state;

static inline void inc(uint64_t *p)
{
	__atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
}

static inline uint64_t get(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* One write(2) per line: the lines of concurrent processes do not mix. */
static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	ssize_t w;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	w = write(STDOUT_FILENO, buf, n);
	(void)w;
}

/* say() within the run's quota of messages about unexpected results. */
#define note(...)							\
	do {								\
		if (__atomic_fetch_add(&sh->logged, 1, __ATOMIC_RELAXED) < LOG_MAX) \
			say(__VA_ARGS__);				\
	} while (0)

#define E(x) [x] = #x
static const char *const errno_names[ERRNO_MAX] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(ENOEXEC),
	E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(EBUSY), E(EEXIST),
	E(EXDEV), E(ENODEV), E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOSPC),
	E(EROFS), E(EMLINK), E(EPIPE), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOSYS),
	E(ENOTEMPTY), E(ELOOP), E(EOVERFLOW), E(EOPNOTSUPP), E(ETIMEDOUT), E(ESTALE),
};
#undef E

static const char *errname(int e)
{
	static __thread char buf[16];

	if (e > 0 && e < ERRNO_MAX && errno_names[e])
		return errno_names[e];
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

/* The errnos a call may return (zero-terminated), passed by value. */
struct errs {
	int e[8];
};

#define ERRS(...) ((struct errs){ { __VA_ARGS__ } })
#define NO_ERRS ((struct errs){ { 0 } })

enum { MAY_SUCCEED, MUST_FAIL };

static bool errno_in(int err, struct errs set)
{
	int i;

	for (i = 0; i < 8 && set.e[i]; i++)
		if (set.e[i] == err)
			return true;
	return false;
}

static const char *kind_name(void);

/*
 * Count a call of @op that returned @err (0 or an errno): it is
 * unexpected when @err is not in @allowed, or when it succeeded and
 * @how is MUST_FAIL. @fmt describes the call for the message.
 */
static void __attribute__((format(printf, 5, 6)))
account(enum op op, int err, struct errs allowed, int how, const char *fmt, ...)
{
	struct op_stat *s = &sh->ops[op][as_user];
	char what[400];
	va_list ap;

	inc(&s->calls);
	if (!err) {
		inc(&s->ok);
		if (how != MUST_FAIL)
			return;
		inc(&s->bad_ok);
	} else {
		inc(&s->err[err > 0 && err < ERRNO_MAX ? err : 0]);
		if (errno_in(err, allowed))
			return;
		inc(&s->bad_err);
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (err)
		note("unexpected: [%s] %s: %s (%s)", kind_name(), op_names[op], errname(err), what);
	else
		note("unexpected success: [%s] %s (%s)", kind_name(), op_names[op], what);
}

static void rng_seed(uint64_t s)
{
	/* splitmix64: distinct streams from nearby seeds */
	s += 0x9e3779b97f4a7c15ULL;
	s = (s ^ (s >> 30)) * 0xbf58476d1ce4e5b9ULL;
	s = (s ^ (s >> 27)) * 0x94d049bb133111ebULL;
	rng_state = (s ^ (s >> 31)) | 1;
}

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static uint64_t rnd(uint64_t n)
{
	return n ? rng() % n : 0;
}

static uint64_t rnd_range(uint64_t lo, uint64_t hi)
{
	return lo + rnd(hi - lo + 1);
}

static bool chance(int percent)
{
	return rnd(100) < (uint64_t)percent;
}

#define PICK(array) ((array)[rnd(sizeof(array) / sizeof((array)[0]))])

static inline int gettid_(void)
{
	return (int)syscall(SYS_gettid);
}

static bool ending(uint64_t end)
{
	return __atomic_load_n(&sh->stop, __ATOMIC_RELAXED) || now_ns() >= end;
}

/*
 * Burn @us of CPU time, or give up 200 ms after it should have been
 * done: a throttled deadline task, or one set to SCHED_IDLE by another
 * worker, may get little of the CPU.
 */
static void spin_us(uint64_t us)
{
	uint64_t end = thread_cpu_ns() + us * USEC;
	uint64_t wall_end = now_ns() + us * USEC + 200 * MSEC;

	while (thread_cpu_ns() < end && now_ns() < wall_end)
		;
}

/* An integer file, as unsigned 64 bits (cpu.dl_total_bw); 0 or -errno. */
static int read_u64(const char *path, unsigned long long *val)
{
	char buf[64], *end;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	errno = 0;
	*val = strtoull(buf, &end, 10);
	if (end == buf)
		return -EINVAL;
	return errno ? -errno : 0;
}

/* A total above this is an unsigned underflow, not bandwidth (64 CPUs' worth). */
#define TOTAL_PLAUSIBLE (64ULL << BW_SHIFT)

/* ---- The registry: tasks of the run that other workers may act on ---- */

static void reg_add(int tid, int tgid)
{
	int i, zero;

	for (i = 0; i < REG_MAX; i++) {
		zero = 0;
		if (__atomic_compare_exchange_n(&sh->reg[i].tid, &zero, tid, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			__atomic_store_n(&sh->reg[i].tgid, tgid, __ATOMIC_SEQ_CST);
			return;
		}
	}
}

static void reg_del_tid(int tid)
{
	int i;

	for (i = 0; i < REG_MAX; i++) {
		if (__atomic_load_n(&sh->reg[i].tid, __ATOMIC_SEQ_CST) == tid) {
			__atomic_store_n(&sh->reg[i].tgid, 0, __ATOMIC_SEQ_CST);
			__atomic_store_n(&sh->reg[i].tid, 0, __ATOMIC_SEQ_CST);
		}
	}
}

static void reg_del_tgid(int tgid)
{
	int i;

	for (i = 0; i < REG_MAX; i++) {
		if (__atomic_load_n(&sh->reg[i].tgid, __ATOMIC_SEQ_CST) == tgid) {
			__atomic_store_n(&sh->reg[i].tgid, 0, __ATOMIC_SEQ_CST);
			__atomic_store_n(&sh->reg[i].tid, 0, __ATOMIC_SEQ_CST);
		}
	}
}

static bool reg_has(int tid)
{
	int i;

	for (i = 0; i < REG_MAX; i++)
		if (__atomic_load_n(&sh->reg[i].tid, __ATOMIC_SEQ_CST) == tid)
			return true;
	return false;
}

/* A random registered task; @proc: a main thread (tid == tgid). */
static bool reg_pick(int *tid, int *tgid, bool proc)
{
	int i, j, start = rnd(REG_MAX), t, g;

	for (i = 0; i < REG_MAX; i++) {
		j = (start + i) % REG_MAX;
		t = __atomic_load_n(&sh->reg[j].tid, __ATOMIC_SEQ_CST);
		g = __atomic_load_n(&sh->reg[j].tgid, __ATOMIC_SEQ_CST);
		if (t > 0 && g > 0 && (!proc || t == g)) {
			*tid = t;
			*tgid = g;
			return true;
		}
	}
	return false;
}

/*
 * Reap @pid (-1: any child). The tasks of the dead process leave the
 * registry before the pid is released, so that no worker acts on a
 * recycled pid. Returns the pid, 0 if none is ready (!@block), -1 on
 * error (ECHILD: no children).
 */
static pid_t reap(pid_t pid, int *status, bool block)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(pid > 0 ? P_PID : P_ALL, pid > 0 ? (id_t)pid : 0, &si,
		   WEXITED | WNOWAIT | (block ? 0 : WNOHANG)))
		return -1;
	if (!si.si_pid)
		return 0;
	reg_del_tgid(si.si_pid);
	return waitpid(si.si_pid, status, 0);
}

static const char *status_str(int status)
{
	static __thread char buf[64];

	if (WIFEXITED(status))
		snprintf(buf, sizeof(buf), "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, sizeof(buf), "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, sizeof(buf), "wait status %#x", status);
	return buf;
}

static void on_signal(int sig)
{
	inc(&sh->ev[sig == SIGXCPU ? EV_SIGXCPU : EV_SIGUSR1]);
}

/*
 * Deadline tasks asking for SCHED_FLAG_DL_OVERRUN or SCHED_FLAG_DL_DMISS
 * get SIGXCPU, whose default action kills: count it. SIGUSR1 interrupts
 * sched_wait_interval() (EINTR).
 */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGXCPU, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
}

/* ---- sched_setattr() cases ---- */

static uint64_t random_dl_flags(void)
{
	uint64_t f = 0;

	if (chance(20))
		f |= SCHED_FLAG_RESET_ON_FORK;
	if (chance(20))
		f |= SCHED_FLAG_RECLAIM;
	if (chance(25))
		f |= SCHED_FLAG_DL_OVERRUN;
	if (chance(25))
		f |= SCHED_FLAG_DL_DMISS;
	return f;
}

/*
 * Valid deadline parameters: period 1 to 20 ms, mostly 0.5 % to 6 % of a
 * CPU so that most requests fit the default pool (5 % of each CPU) beside
 * the others, some up to 30 % (EBUSY); runtime at least 50 us, deadline
 * between runtime and period.
 */
static void random_dl(struct sched_attr *a)
{
	uint64_t period = rnd_range(1000, 20000) * USEC;
	uint64_t permille = chance(85) ? rnd_range(5, 60) : rnd_range(60, 300);
	uint64_t runtime = period * permille / 1000;

	if (runtime < 50 * USEC)
		runtime = 50 * USEC;
	*a = dlsched_deadline_attr(runtime, chance(40) ? period : rnd_range(runtime, period),
				   period, 0);
	a->sched_flags = random_dl_flags();
}

struct attr_case {
	union {
		struct sched_attr a;
		/* room for a larger, newer struct with a non-zero tail */
		unsigned char raw[sizeof(struct sched_attr) + 16];
	} u;
	unsigned int sys_flags;
	int how;
	struct errs allowed;
	const char *what;
};

static void allow(struct attr_case *c, int err)
{
	int i;

	for (i = 0; i < 7; i++) {
		if (!c->allowed.e[i]) {
			c->allowed.e[i] = err;
			return;
		}
	}
}

static void random_invalid_dl(struct attr_case *c)
{
	struct sched_attr *a = &c->u.a;

	random_dl(a);
	c->how = MUST_FAIL;
	allow(c, EINVAL);
	switch (rnd(8)) {
	case 0:
		a->sched_runtime = rnd(1024);
		c->what = "invalid deadline: runtime below 1024 ns";
		break;
	case 1:
		a->sched_runtime = a->sched_deadline + 1 + rnd(1000);
		c->what = "invalid deadline: runtime above deadline";
		break;
	case 2:
		a->sched_deadline = a->sched_period + 1 + rnd(1000);
		c->what = "invalid deadline: deadline above period";
		break;
	case 3:
		a->sched_deadline = 0;
		a->sched_period = 0;
		c->what = "invalid deadline: deadline 0";
		break;
	case 4:
		a->sched_period = a->sched_deadline = 5 * SEC;
		c->what = "invalid deadline: period above the 4 s maximum";
		break;
	case 5:
		a->sched_period = a->sched_deadline = 50 * USEC;
		a->sched_runtime = 20 * USEC;
		c->what = "invalid deadline: period below the 100 us minimum";
		break;
	case 6:
		a->sched_deadline |= 1ULL << 63;
		c->what = "invalid deadline: deadline with bit 63";
		break;
	default:
		a->sched_priority = rnd_range(1, 99);
		c->what = "invalid deadline: with an RT priority";
		break;
	}
}

static void random_bad_call(struct attr_case *c)
{
	struct sched_attr *a = &c->u.a;

	random_dl(a);
	c->how = MUST_FAIL;
	switch (rnd(6)) {
	case 0:
		a->sched_policy = chance(50) ? (uint32_t)-1 : (uint32_t)rnd_range(7, 100);
		c->what = "unknown policy";
		allow(c, EINVAL);
		break;
	case 1:
		a->sched_flags |= 0x100ULL << rnd(8);
		c->what = "unknown flag";
		allow(c, EINVAL);
		break;
	case 2:
		a->sched_flags |= SCHED_FLAG_SUGOV_;
		c->what = "SCHED_FLAG_SUGOV";
		allow(c, EINVAL);
		/* checked after the permission: nobody beyond its rlimits gets EPERM */
		if (as_user)
			allow(c, EPERM);
		break;
	case 3:
		a->size = 40;	/* below SCHED_ATTR_SIZE_VER0 */
		c->what = "sched_attr size 40";
		allow(c, E2BIG);
		break;
	case 4:
		a->size = sizeof(*a) + 8;
		c->u.raw[sizeof(*a) + rnd(8)] = 1;
		c->what = "larger sched_attr with a non-zero tail";
		allow(c, E2BIG);
		break;
	default:
		c->sys_flags = 1;
		c->what = "sched_setattr flags 1";
		allow(c, EINVAL);
		break;
	}
}

/*
 * A random sched_setattr() request and the errnos it may meet. @other:
 * for another task, which may be gone (ESRCH) or, for nobody, belong to
 * root (EPERM).
 */
static void random_case(struct attr_case *c, bool other)
{
	struct sched_attr *a = &c->u.a;
	int r = rnd(100);

	memset(c, 0, sizeof(*c));
	a->size = sizeof(*a);
	c->how = MAY_SUCCEED;
	if (other)
		allow(c, ESRCH);
	if (other && as_user)
		allow(c, EPERM);

	if (r < 55) {
		random_dl(a);
		c->what = "deadline";
		/* EBUSY: no room; EPERM: a 0 reservation, nobody's rlimits or RECLAIM */
		allow(c, EBUSY);
		allow(c, EPERM);
		if (chance(3)) {
			a->sched_flags |= chance(50) ? SCHED_FLAG_KEEP_POLICY : SCHED_FLAG_KEEP_PARAMS;
			c->what = "deadline, keeping policy or parameters";
			allow(c, EINVAL);
		} else if (chance(3)) {
			a->sched_flags |= SCHED_FLAG_UTIL_CLAMP;
			a->sched_util_min = rnd(1100);
			a->sched_util_max = rnd(1100);
			c->what = "deadline, utilization clamps";
			allow(c, EINVAL);
			allow(c, EOPNOTSUPP);
		} else if (chance(2)) {
			a->sched_flags = SCHED_FLAG_ALL;
			c->what = "deadline, SCHED_FLAG_ALL";
			allow(c, EINVAL);
			allow(c, EOPNOTSUPP);
		}
	} else if (r < 70) {
		random_invalid_dl(c);
	} else if (r < 78) {
		a->sched_policy = SCHED_OTHER;
		a->sched_nice = (int32_t)rnd_range(0, 24) - 5;
		a->sched_flags = chance(20) ? SCHED_FLAG_RESET_ON_FORK : 0;
		c->what = "SCHED_OTHER";
	} else if (r < 82) {
		a->sched_policy = SCHED_BATCH;
		a->sched_nice = rnd(20);
		c->what = "SCHED_BATCH";
	} else if (r < 86) {
		a->sched_policy = SCHED_IDLE;
		c->what = "SCHED_IDLE";
	} else if (r < 93) {
		a->sched_policy = chance(50) ? SCHED_FIFO : SCHED_RR;
		a->sched_priority = rnd_range(1, 20);
		c->what = "SCHED_FIFO/RR";
	} else {
		random_bad_call(c);
	}
	/* nobody: lower nice, leave SCHED_IDLE, RT without RLIMIT_RTPRIO */
	if (as_user && c->how == MAY_SUCCEED)
		allow(c, EPERM);
}

static const char *attr_str(const struct sched_attr *a)
{
	static __thread char buf[200];

	snprintf(buf, sizeof(buf),
		 "size %u policy %d flags %#llx nice %d prio %u runtime %llu deadline %llu period %llu",
		 a->size, (int)a->sched_policy, (unsigned long long)a->sched_flags, a->sched_nice,
		 a->sched_priority, (unsigned long long)a->sched_runtime,
		 (unsigned long long)a->sched_deadline, (unsigned long long)a->sched_period);
	return buf;
}

/* A random request for @tid (0: the calling thread). */
static void setattr_random(int tid)
{
	struct attr_case c;
	int err;

	random_case(&c, tid != 0);
	err = dlsched_sched_setattr(tid, &c.u.a, c.sys_flags) ? errno : 0;
	account(tid ? OP_SETATTR_OTHER : OP_SETATTR, err, c.allowed, c.how, "%s on %d: %s",
		c.what, tid, attr_str(&c.u.a));
}

/* Valid deadline parameters for @tid; true when admitted. */
static bool dl_enter_random(int tid, uint64_t extra_flags)
{
	struct sched_attr a;
	int err;

	random_dl(&a);
	a.sched_flags |= extra_flags;
	err = dlsched_sched_setattr(tid, &a, 0) ? errno : 0;
	account(tid ? OP_SETATTR_OTHER : OP_SETATTR, err,
		tid ? ERRS(EBUSY, EPERM, ESRCH) : ERRS(EBUSY, EPERM), MAY_SUCCEED,
		"deadline on %d: %s", tid, attr_str(&a));
	return !err;
}

static void setattr_other(void)
{
	int tid, tgid;

	if (reg_pick(&tid, &tgid, false))
		setattr_random(tid);
}

static void getattr_random(void)
{
	struct sched_attr a;
	unsigned int size = sizeof(a), flags = 0;
	int r = rnd(10), err;

	if (r == 0)
		size = 40;
	else if (r == 1)
		flags = 1;
	err = dlsched_sched_getattr(0, &a, size, flags) ? errno : 0;
	/*
	 * The values are not checked: another worker may change them while
	 * the kernel copies them out, which it does without a lock.
	 */
	account(OP_GETATTR, err, r < 2 ? ERRS(EINVAL) : NO_ERRS, r < 2 ? MUST_FAIL : MAY_SUCCEED,
		"size %u flags %u", size, flags);
}

/*
 * nobody's deadline rlimits. RLIMIT_DLDLINE is a minimum: its soft value
 * may not go below the hard one (EINVAL) and lowering the hard one takes
 * CAP_SYS_RESOURCE (EPERM); raising either only restricts the task.
 */
static void rlimit_random(void)
{
	struct rlimit64 l;
	int err, r = rnd(5);

	if (get_limit(0, r < 3 ? RLIMIT_DLDLINE : RLIMIT_DLRTIME, &l) ||
	    l.rlim_max == RLIM64_INFINITY || l.rlim_max < 2)
		return;
	switch (r) {
	case 0:
		err = -set_limit(0, RLIMIT_DLDLINE, l.rlim_max - 1, l.rlim_max);
		account(OP_RLIMIT, err, ERRS(EINVAL, EPERM), MUST_FAIL,
			"RLIMIT_DLDLINE soft %llu below hard %llu", (unsigned long long)l.rlim_max - 1,
			(unsigned long long)l.rlim_max);
		break;
	case 1:
		err = -set_limit(0, RLIMIT_DLDLINE, l.rlim_max - 1, l.rlim_max - 1);
		account(OP_RLIMIT, err, ERRS(EPERM, EINVAL), MUST_FAIL,
			"RLIMIT_DLDLINE lowered to %llu", (unsigned long long)l.rlim_max - 1);
		break;
	case 2:
		/* Before the soft >= hard rule: EINVAL (soft above hard). */
		err = -set_limit(0, RLIMIT_DLDLINE, l.rlim_cur + 100, l.rlim_max);
		account(OP_RLIMIT, err, ERRS(EINVAL), MAY_SUCCEED, "RLIMIT_DLDLINE soft raised to %llu",
			(unsigned long long)l.rlim_cur + 100);
		break;
	case 3:
		err = -set_limit(0, RLIMIT_DLRTIME, l.rlim_cur, l.rlim_max + 1);
		account(OP_RLIMIT, err, ERRS(EPERM), MUST_FAIL, "RLIMIT_DLRTIME hard raised to %llu",
			(unsigned long long)l.rlim_max + 1);
		break;
	default:
		err = -set_limit(0, RLIMIT_DLRTIME, l.rlim_cur * 9 / 10, l.rlim_max);
		account(OP_RLIMIT, err, NO_ERRS, MAY_SUCCEED, "RLIMIT_DLRTIME soft lowered to %llu",
			(unsigned long long)l.rlim_cur * 9 / 10);
		break;
	}
}

/* ---- Episodes: setattr ---- */

static void thread_enter(void)
{
	rng_seed(opt.seed ^ ((uint64_t)gettid_() << 20) ^ now_ns());
	reg_add(gettid_(), getpid());
}

static void churn_step(void)
{
	int r = rnd(100);

	if (r < 40)
		setattr_random(0);
	else if (r < 50)
		setattr_other();
	else if (r < 57)
		getattr_random();
	else if (r < 62 && as_user)
		rlimit_random();
	else if (r < 62)
		setattr_random(0);
	else if (r < 82)
		spin_us(rnd(1000));
	else if (r < 95)
		usleep(rnd(2000));
	else
		sched_yield();
}

static void *churn_thread(void *arg)
{
	uint64_t end = *(uint64_t *)arg;

	thread_enter();
	while (!ending(end))
		churn_step();
	/* Exits as it is: often SCHED_DEADLINE. */
	reg_del_tid(gettid_());
	return NULL;
}

static void episode_setattr(uint64_t end)
{
	pthread_t th[2];
	bool started[2];
	int i, ret;

	for (i = 0; i < 2; i++) {
		/* EAGAIN: another worker made this thread SCHED_DEADLINE */
		ret = pthread_create(&th[i], NULL, churn_thread, &end);
		account(OP_THREAD, ret, ERRS(EAGAIN), MAY_SUCCEED, "churn thread");
		started[i] = !ret;
	}
	while (!ending(end))
		churn_step();
	for (i = 0; i < 2; i++)
		if (started[i])
			pthread_join(th[i], NULL);
}

/* ---- Episodes: sched_wait_interval() with a demoting sibling ---- */

struct waiter {
	pthread_t sleeper;
	int tid;
	uint64_t end;
	int done;
};

static void *demoter(void *arg)
{
	struct waiter *w = arg;
	struct sched_attr a;
	int err, r;

	thread_enter();
	while (!__atomic_load_n(&w->done, __ATOMIC_RELAXED) && !ending(w->end)) {
		usleep(rnd(3000));
		r = rnd(100);
		if (r < 45) {
			dl_enter_random(w->tid, 0);
			continue;
		}
		if (r >= 88) {
			pthread_kill(w->sleeper, SIGUSR1);
			continue;
		}
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.sched_policy = r < 80 ? SCHED_OTHER : SCHED_FIFO;
		a.sched_priority = r < 80 ? 0 : rnd_range(1, 10);
		err = dlsched_sched_setattr(w->tid, &a, 0) ? errno : 0;
		/* nobody: no RT, and no way back from SCHED_IDLE another set */
		account(OP_SETATTR_OTHER, err, as_user ? ERRS(EPERM) : NO_ERRS, MAY_SUCCEED,
			"demote the sleeper %d: %s", w->tid, attr_str(&a));
	}
	reg_del_tid(gettid_());
	return NULL;
}

/*
 * The calling thread's CBS runtime left (ns), from /proc/thread-self/sched:
 * negative, an overrun it must pay back before its next instance; 0 when
 * it shows none (not a deadline task).
 */
static int64_t own_dl_runtime(void)
{
	char line[160];
	long long v = 0;
	FILE *f = fopen("/proc/thread-self/sched", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "dl.runtime : %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* The calling thread's period over its runtime, 0 if not a deadline task. */
static uint64_t own_payback_ratio(void)
{
	struct sched_attr a;

	if (dlsched_sched_getattr(0, &a, sizeof(a), 0) || a.sched_policy != SCHED_DEADLINE ||
	    !a.sched_runtime)
		return 0;
	return (a.sched_period ?: a.sched_deadline) / a.sched_runtime + 1;
}

/*
 * How long a sched_wait_interval() may sleep: WAIT_LONG_NS, plus the time
 * to pay back what the task owed: the overrun it had before the call and
 * the CPU time it was charged since (under TCG a vCPU the host did not run
 * is charged to the deadline task on it; 120 ms of that on a 0.5% task is
 * 24 s of periods). Each period pays back one runtime.
 */
static uint64_t wait_bound(int64_t runtime_before, uint64_t charged, uint64_t ratio)
{
	uint64_t debt = (runtime_before < 0 ? (uint64_t)-runtime_before : 0) + charged;

	return WAIT_LONG_NS + debt * ratio;
}

static void wait_once(void)
{
	struct timespec ts, rem, *rq = &ts, *rm = chance(30) ? &rem : NULL;
	struct errs allowed = ERRS(EINTR);
	int r = rnd(100), how = MAY_SUCCEED, err;
	uint64_t t0 = now_ns(), dt, ratio, cpu0, charged, bound;
	int64_t runtime;
	const char *what;

	if (r < 35) {
		/* EINVAL: not (or no longer) a deadline task */
		rq = NULL;
		allowed = ERRS(EINVAL, EINTR);
		what = "the next period";
	} else if (r < 75) {
		ts = ns_to_ts(t0 + rnd(20 * MSEC));
		what = "an absolute time";
	} else if (r < 87) {
		ts = ns_to_ts(t0 - rnd(10 * MSEC));
		what = "a time in the past";
	} else if (r < 94) {
		ts = ns_to_ts(t0);
		if (chance(50))
			ts.tv_nsec = SEC + rnd(1000);
		else
			ts.tv_sec = -1;
		allowed = ERRS(EINVAL);
		how = MUST_FAIL;
		what = "an invalid timespec";
	} else {
		rq = (struct timespec *)16;
		allowed = ERRS(EFAULT);
		how = MUST_FAIL;
		what = "a bad pointer";
	}
	ratio = own_payback_ratio();
	cpu0 = thread_cpu_ns();
	runtime = own_dl_runtime();
	err = sched_wait_interval(rq, rm) ? errno : 0;
	dt = now_ns() - t0;
	charged = thread_cpu_ns() - cpu0;
	account(OP_WAIT, err, allowed, how, "until %s, policy now %d", what, sched_getscheduler(0));
	/* Its parameters may have changed meanwhile: the largest ratio. */
	ratio = MAX(ratio, own_payback_ratio());
	ratio = MAX(ratio, PAYBACK_RATIO_MIN);
	bound = wait_bound(runtime, charged, ratio);
	if (dt > bound) {
		inc(&sh->ev[EV_LONG_WAIT]);
		note("unexpected: [%s] sched_wait_interval until %s slept %.0f ms, allowed %.0f ms "
		     "(runtime before %lld us, %.1f ms charged since, ratio %llu)",
		     kind_name(), what, ms(dt), ms(bound), (long long)runtime / 1000, ms(charged),
		     (unsigned long long)ratio);
	}
}

static void episode_wait(uint64_t end)
{
	struct waiter w = { .sleeper = pthread_self(), .tid = gettid_(), .end = end };
	pthread_t th;
	int ret;

	ret = pthread_create(&th, NULL, demoter, &w);
	account(OP_THREAD, ret, ERRS(EAGAIN), MAY_SUCCEED, "demoter thread");
	while (!ending(end)) {
		if (chance(25))
			dl_enter_random(0, 0);
		spin_us(rnd(600));
		wait_once();
	}
	__atomic_store_n(&w.done, 1, __ATOMIC_RELAXED);
	if (!ret)
		pthread_join(th, NULL);
}

/* ---- Episodes: fork and exit ---- */

enum kid_variant {
	KID_EXIT, KID_DL_EXIT, KID_DL_FORK, KID_DL_THREADS, KID_DL_KILLED, KID_DL_EXEC, KID_DL_WAIT,
	KID_VARIANTS
};

static const char *const kid_names[KID_VARIANTS] = {
	[KID_EXIT] = "exits at once",
	[KID_DL_EXIT] = "exits while deadline",
	[KID_DL_FORK] = "forks while deadline",
	[KID_DL_THREADS] = "deadline threads exit",
	[KID_DL_KILLED] = "killed while deadline",
	[KID_DL_EXEC] = "execs while deadline",
	[KID_DL_WAIT] = "waits for its next period",
};

struct kid {
	pid_t pid;
	int variant;
	bool killed;
	uint64_t kill_at;
};

static void *dl_thread(void *arg)
{
	pthread_t th;
	int ret;

	thread_enter();
	dl_enter_random(0, 0);
	spin_us(rnd(500));
	if (arg) {
		/* A deadline thread's clone: EAGAIN unless reset-on-fork. */
		ret = pthread_create(&th, NULL, dl_thread, NULL);
		account(OP_THREAD, ret, ERRS(EAGAIN), MAY_SUCCEED, "thread of a deadline thread");
		if (!ret)
			pthread_join(th, NULL);
	}
	reg_del_tid(gettid_());
	return NULL;
}

static void kid_run(int variant)
{
	pthread_t th[2];
	int i, ret, status;
	pid_t pid;

	rng_seed(opt.seed ^ ((uint64_t)getpid() << 24) ^ now_ns());
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	reg_add(getpid(), getpid());
	switch (variant) {
	case KID_EXIT:
		break;
	case KID_DL_EXIT:
		dl_enter_random(0, 0);
		spin_us(rnd(500));
		break;
	case KID_DL_FORK: {
		struct sched_attr mine = { 0 }, child;

		/*
		 * Its own parameters, if it got them: refused, it may still be
		 * SCHED_DEADLINE with a template's, which its child may get too.
		 */
		if (dl_enter_random(0, chance(50) ? SCHED_FLAG_RESET_ON_FORK : 0))
			dlsched_get_attr(0, &mine);
		pid = fork();
		/*
		 * EAGAIN: a deadline task without reset-on-fork may not fork,
		 * but in a template group (its child starts normal there).
		 */
		account(OP_FORK, pid < 0 ? errno : 0, ERRS(EAGAIN), MAY_SUCCEED, "fork of a deadline task");
		if (!pid) {
			/* A template may admit it, with the template's parameters, not its parent's. */
			if (!dlsched_get_attr(0, &child) && child.sched_policy == SCHED_DEADLINE &&
			    mine.sched_policy == SCHED_DEADLINE && child.sched_runtime == mine.sched_runtime &&
			    child.sched_deadline == mine.sched_deadline && child.sched_period == mine.sched_period) {
				inc(&sh->ev[EV_DL_CHILD]);
				note("unexpected: [%s] a forked child is SCHED_DEADLINE with its parent's parameters",
				     kind_name());
			}
			_exit(0);
		}
		while (pid > 0 && reap(pid, &status, true) < 0 && errno == EINTR)
			;
		break;
	}
	case KID_DL_THREADS:
		for (i = 0; i < 2; i++) {
			ret = pthread_create(&th[i], NULL, dl_thread, i ? NULL : th);
			account(OP_THREAD, ret, ERRS(EAGAIN), MAY_SUCCEED, "deadline thread");
			if (ret)
				th[i] = 0;
		}
		for (i = 0; i < 2; i++)
			if (th[i])
				pthread_join(th[i], NULL);
		break;
	case KID_DL_KILLED:
		dl_enter_random(0, 0);
		for (i = 0; i < 1000; i++) {
			spin_us(100);
			usleep(1000);
		}
		break;
	case KID_DL_EXEC:
		dl_enter_random(0, 0);
		/* /bin/true knows no SIGXCPU handler: keep it ignored. */
		signal(SIGXCPU, SIG_IGN);
		execl("/bin/true", "true", (char *)NULL);
		break;
	default:
		dl_enter_random(0, 0);
		ret = sched_wait_interval(NULL, NULL) ? errno : 0;
		account(OP_WAIT, ret, ERRS(EINVAL, EINTR), MAY_SUCCEED, "next period, then exit");
		break;
	}
	_exit(0);
}

static void kid_reaped(struct kid *k, int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		k->pid = 0;
		return;
	}
	if (k->killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
		inc(&sh->ev[EV_KIDS_KILLED]);
		k->pid = 0;
		return;
	}
	inc(&sh->ev[EV_BAD_EXIT]);
	note("unexpected: [%s] a child that %s %s", kind_name(), kid_names[k->variant],
	     status_str(status));
	k->pid = 0;
}

static void kids_reap(struct kid *kids, bool block)
{
	int i, status;
	pid_t r;

	for (i = 0; i < FORK_LIVE; i++) {
		if (kids[i].pid <= 0)
			continue;
		do
			r = reap(kids[i].pid, &status, block);
		while (r < 0 && errno == EINTR);
		if (r == kids[i].pid)
			kid_reaped(&kids[i], status);
	}
}

static void episode_fork(uint64_t end)
{
	struct kid kids[FORK_LIVE];
	int i, err;
	pid_t pid;

	memset(kids, 0, sizeof(kids));
	while (!ending(end)) {
		kids_reap(kids, false);
		for (i = 0; i < FORK_LIVE; i++) {
			if (kids[i].pid > 0 && kids[i].kill_at && !kids[i].killed &&
			    now_ns() >= kids[i].kill_at) {
				kill(kids[i].pid, SIGKILL);
				kids[i].killed = true;
			}
		}
		for (i = 0; i < FORK_LIVE && kids[i].pid > 0; i++)
			;
		if (i < FORK_LIVE) {
			int v = rnd(KID_VARIANTS);

			pid = fork();
			err = pid < 0 ? errno : 0;
			/* EAGAIN: another worker made this process SCHED_DEADLINE */
			account(OP_FORK, err, ERRS(EAGAIN), MAY_SUCCEED, "child that %s", kid_names[v]);
			if (!pid)
				kid_run(v);
			if (pid > 0) {
				kids[i] = (struct kid){ .pid = pid, .variant = v };
				if (v == KID_DL_KILLED || chance(10))
					kids[i].kill_at = now_ns() + rnd(30 * MSEC);
			}
		}
		usleep(rnd(2000));
	}
	for (i = 0; i < FORK_LIVE; i++) {
		if (kids[i].pid > 0) {
			kill(kids[i].pid, SIGKILL);
			kids[i].killed = true;
		}
	}
	kids_reap(kids, true);
}

/* ---- cgroups ---- */

/* @file of group @grp of the run's subtree ("" is its top). */
static const char *cgp(const char *grp, const char *file)
{
	static __thread char buf[4][512];
	static __thread int slot;
	char *p = buf[slot++ % 4];

	snprintf(p, sizeof(buf[0]), "%s%s%s%s%s", cg_top, *grp ? "/" : "", grp, file ? "/" : "",
		 file ? file : "");
	return p;
}

static const char *threads_file(void)
{
	return opt.v1 ? "tasks" : "cgroup.threads";
}

/*
 * The groups. Static ones are made at setup: home (where the workers
 * start, no reservation; never a template, which would make the sysctl
 * and hotplug workers SCHED_DEADLINE with a template's small runtime, and
 * stall them for minutes), res and deleg (reserved), thr (v2: a threaded
 * domain; thr/t* are threaded), deleg/sub (delegated to nobody) and nres
 * (delegated to nobody, with no reserved ancestor). The root cgroup
 * worker creates and removes the dynamic ones; nobody its own below
 * deleg/sub and nres.
 */
#define S_DYN 1		/* made and removed by the cgroup worker */
#define S_THREADED 2	/* v2: cgroup.type threaded */
#define S_NOMOVE 4	/* no moves into it */

static const struct slot {
	const char *path;
	unsigned int flags;
} root_slots[] = {
	{ "home", 0 }, { "res", 0 }, { "res/r0", S_DYN }, { "res/r1", S_DYN },
	{ "res/r0/s0", S_DYN }, { "d0", S_DYN }, { "d1", S_DYN }, { "d0/e0", S_DYN },
	{ "d1/e0", S_DYN }, { "d1/e0/f0", S_DYN }, { "thr", 0 }, { "thr/t0", S_THREADED },
	{ "thr/t1", S_DYN | S_THREADED }, { "thr/t2", S_DYN | S_THREADED }, { "deleg", S_NOMOVE },
	{ "tmpl", 0 },
};

#define N_ROOT_SLOTS (sizeof(root_slots) / sizeof(root_slots[0]))

static const char *const user_slots[] = {
	"deleg/sub/x0", "deleg/sub/x1", "deleg/sub/x0/z0", "nres/y0", "nres/y1", "nres/y0/z0",
};

/* Where nobody moves its own processes. */
static const char *const user_homes[] = {
	"deleg/sub/home", "deleg/sub/x0", "deleg/sub/x1", "deleg/sub/x0/z0",
};

static const char *const bad_numbers[] = {
	"-2", "abc", "2147483648", "99999999999999999999", "12x", "0x10", "1.5", "--1",
};

/* Groups below nres draw from the pool: nobody may not reserve there. */
static bool pool_drawn(const char *grp)
{
	return !strncmp(grp, "nres/", 5);
}

static void parent_of(const char *grp, char *out, size_t len)
{
	char *slash;

	snprintf(out, len, "%s", grp);
	slash = strrchr(out, '/');
	if (slash)
		*slash = '\0';
	else
		out[0] = '\0';
}

static void cg_mkdir(const char *grp, bool threaded)
{
	char parent[128];
	int err;

	parent_of(grp, parent, sizeof(parent));
	if (!opt.v1 && chance(70)) {
		/* EBUSY: the parent holds processes (no internal processes in v2) */
		err = -write_str(cgp(parent, "cgroup.subtree_control"), "+cpu");
		account(OP_SUBTREE, err, ERRS(EBUSY, ENOENT, ENODEV, EINVAL, EOPNOTSUPP), MAY_SUCCEED,
			"+cpu in %s", *parent ? parent : "top");
	}
	err = mkdir(cgp(grp, NULL), 0755) ? errno : 0;
	/* ENOENT, ENODEV: the parent was just removed */
	account(OP_MKDIR, err, ERRS(EEXIST, ENOENT, ENODEV), MAY_SUCCEED, "%s", grp);
	if (!err && threaded && !opt.v1) {
		err = -write_str(cgp(grp, "cgroup.type"), "threaded");
		account(OP_TYPE, err, ERRS(EOPNOTSUPP, EBUSY, ENOENT, ENODEV, EINVAL), MAY_SUCCEED,
			"%s threaded", grp);
	}
}

static void cg_rmdir(const char *grp)
{
	int err = rmdir(cgp(grp, NULL)) ? errno : 0;

	account(OP_RMDIR, err, ERRS(EBUSY, ENOENT, ENOTEMPTY), MAY_SUCCEED, "%s", grp);
}

static void cg_subtree_random(const char *grp)
{
	const char *v = chance(60) ? "+cpu" : "-cpu";
	int err;

	if (opt.v1)
		return;
	err = -write_str(cgp(grp, "cgroup.subtree_control"), v);
	account(OP_SUBTREE, err, ERRS(EBUSY, ENOENT, ENODEV, EINVAL, EOPNOTSUPP), MAY_SUCCEED,
		"%s in %s", v, grp);
}

/*
 * A write of cpu.dl_runtime_us. EBUSY: does not fit the nearest reserved
 * ancestor or the pool, or holds less than is allocated inside; EINVAL:
 * the runtime exceeds the group's period (some periods written are 10 ms).
 * nobody: EPERM without a reserved ancestor, and always below nres.
 */
static void cg_runtime_random(const char *grp)
{
	bool user_pool = as_user && pool_drawn(grp);
	struct errs allowed;
	int r = rnd(100), err, how = MAY_SUCCEED;
	const char *v;
	char val[32];

	if (r < 15) {
		v = "-1";
		allowed = ERRS(EBUSY, ENOENT, ENODEV);
	} else if (r < 85) {
		if (r < 22)
			v = "0";
		else if (r < 80)
			snprintf(val, sizeof(val), "%llu",
				 (unsigned long long)rnd_range(200, as_user ? 12000 : 25000));
		else
			snprintf(val, sizeof(val), "%llu", (unsigned long long)rnd_range(25000, 200000));
		if (r >= 22)
			v = val;
		if (user_pool) {
			allowed = ERRS(EPERM, EINVAL, ENOENT, ENODEV);
			how = MUST_FAIL;
		} else if (as_user) {
			allowed = ERRS(EBUSY, EINVAL, EPERM, ENOENT, ENODEV);
		} else {
			allowed = ERRS(EBUSY, EINVAL, ENOENT, ENODEV);
		}
	} else {
		v = PICK(bad_numbers);
		allowed = ERRS(EINVAL, ENOENT, ENODEV);
		how = MUST_FAIL;
	}
	err = -write_str(cgp(grp, "cpu.dl_runtime_us"), v);
	account(OP_RUNTIME, err, allowed, how, "'%s' in %s", v, grp);
}

static void cg_period_random(const char *grp)
{
	static const char *const bad[] = { "0", "-1", "abc", "2147483648", "1x" };
	struct errs allowed;
	int err, how = MAY_SUCCEED;
	const char *v;
	char val[32];

	if (chance(80)) {
		snprintf(val, sizeof(val), "%llu", (unsigned long long)rnd_range(10000, 2000000));
		v = val;
		if (as_user)
			allowed = ERRS(EBUSY, EINVAL, EPERM, ENOENT, ENODEV);
		else
			allowed = ERRS(EBUSY, EINVAL, ENOENT, ENODEV);
	} else {
		v = PICK(bad);
		allowed = ERRS(EINVAL, ENOENT, ENODEV);
		how = MUST_FAIL;
	}
	err = -write_str(cgp(grp, "cpu.dl_period_us"), v);
	account(OP_PERIOD, err, allowed, how, "'%s' in %s", v, grp);
}

static void cg_read_total(const char *grp)
{
	unsigned long long bw;
	int err = -read_u64(cgp(grp, "cpu.dl_total_bw"), &bw);

	account(OP_GROUP_READ, err, ERRS(ENOENT, ENODEV), MAY_SUCCEED, "%s", grp);
	if (!err && bw > TOTAL_PLAUSIBLE) {
		inc(&sh->ev[EV_BAD_TOTAL]);
		note("unexpected: [%s] %s/cpu.dl_total_bw reads %llu", kind_name(), grp, bw);
	}
}

/*
 * A write of cpu.dl_template: "none", a valid template (EBUSY: does not
 * fit, holds less than is allocated inside, or the group has a
 * reservation; nobody: EPERM without a reserved ancestor, EACCES on a
 * file it does not own), or a malformed one (EINVAL).
 */
static void cg_template_random(const char *grp)
{
	static const char *const bad[] = {
		"0 1000 10000 10000", "1025 1000 10000 10000", "1 1000 10000", "1 20000 10000 10000",
		"1 1000 20000 10000", "abc", "1 1000 10000 10000 1", "NONE", "1 1 1 1",
	};
	static const uint64_t periods[] = { 10000, 20000, 50000 };
	bool user_pool = as_user && pool_drawn(grp);
	int r = rnd(100), err, how = MAY_SUCCEED;
	struct errs allowed;
	char val[64];
	const char *v;

	if (r < 25) {
		v = "none";
		allowed = as_user ? ERRS(EACCES, ENOENT, ENODEV) : ERRS(ENOENT, ENODEV);
	} else if (r < 85) {
		uint64_t period = PICK(periods), runtime = rnd_range(200, 3000);

		snprintf(val, sizeof(val), "%llu %llu %llu %llu", (unsigned long long)rnd_range(1, 6),
			 (unsigned long long)runtime, (unsigned long long)rnd_range(runtime, period),
			 (unsigned long long)period);
		v = val;
		if (user_pool) {
			allowed = ERRS(EPERM, EBUSY, EACCES, ENOENT, ENODEV);
			how = MUST_FAIL;
		} else if (as_user) {
			allowed = ERRS(EBUSY, EPERM, EACCES, ENOENT, ENODEV);
		} else {
			allowed = ERRS(EBUSY, ENOENT, ENODEV);
		}
	} else {
		v = PICK(bad);
		allowed = as_user ? ERRS(EINVAL, EACCES, ENOENT, ENODEV) : ERRS(EINVAL, ENOENT, ENODEV);
		how = MUST_FAIL;
	}
	err = -write_str(cgp(grp, "cpu.dl_template"), v);
	account(OP_TEMPLATE, err, allowed, how, "'%s' in %s", v, grp);
}

static void cg_read_template_stat(const char *grp)
{
	unsigned long long tasks = 0, over = 0;
	int err = 0;
	FILE *f = fopen(cgp(grp, "cpu.dl_template_stat"), "re");

	if (!f)
		err = errno;
	else if (fscanf(f, "nr_tasks %llu nr_over %llu", &tasks, &over) != 2)
		err = EIO;
	if (f)
		fclose(f);
	account(OP_TEMPLATE_READ, err, ERRS(ENOENT, ENODEV), MAY_SUCCEED, "%s", grp);
	if (!err && (tasks > 1024 || over > 100000)) {
		inc(&sh->ev[EV_BAD_TOTAL]);
		note("unexpected: [%s] %s/cpu.dl_template_stat reads %llu %llu", kind_name(), grp,
		     tasks, over);
	}
}

/* EBUSY: a deadline task that does not fit, or v2's no-internal-process rule. */
#define MOVE_ERRS ERRS(EBUSY, ESRCH, ENOENT, ENODEV, EOPNOTSUPP, EINVAL)

static const struct slot *movable_slot(void)
{
	const struct slot *s;

	if (chance(35))
		return &root_slots[0];
	do
		s = &root_slots[rnd(N_ROOT_SLOTS)];
	while (s->flags & S_NOMOVE);
	return s;
}

static void cg_move_proc(void)
{
	const struct slot *s = movable_slot();
	int tid, tgid, err;

	if (!reg_pick(&tid, &tgid, true) || !reg_has(tgid))
		return;
	err = -write_ll(cgp(s->path, "cgroup.procs"), tgid);
	account(OP_PROCS, err, MOVE_ERRS, MAY_SUCCEED, "process %d to %s", tgid, s->path);
}

static void cg_move_thread(void)
{
	/* v2: threads move within thr's threaded subtree only (else EOPNOTSUPP) */
	static const char *const v2_targets[] = { "thr", "thr/t0", "thr/t1", "thr/t2" };
	const char *grp = opt.v1 ? movable_slot()->path : PICK(v2_targets);
	int tid, tgid, err;

	if (!reg_pick(&tid, &tgid, false) || !reg_has(tid))
		return;
	err = -write_ll(cgp(grp, threads_file()), tid);
	account(OP_THREADS, err, MOVE_ERRS, MAY_SUCCEED, "thread %d of %d to %s", tid, tgid, grp);
}

static void episode_cgroup(uint64_t end)
{
	const struct slot *s;
	int r;

	while (!ending(end)) {
		r = rnd(100);
		do
			s = &root_slots[rnd(N_ROOT_SLOTS)];
		while (r < 20 && !(s->flags & S_DYN));
		if (r < 10)
			cg_mkdir(s->path, s->flags & S_THREADED);
		else if (r < 18)
			cg_rmdir(s->path);
		else if (r < 20)
			cg_subtree_random(s->path);
		else if (r < 32)
			cg_runtime_random(s->path);
		else if (r < 38)
			cg_period_random(s->path);
		else if (r < 48 && strcmp(s->path, "home"))
			cg_template_random(s->path);
		else if (r < 48)
			cg_read_template_stat(s->path);
		else if (r < 68)
			cg_move_proc();
		else if (r < 85)
			cg_move_thread();
		else if (r < 92)
			cg_read_total(s->path);
		else
			cg_read_template_stat(s->path);
		usleep(rnd(3000));
	}
}

/* nobody's deadline processes, moved around deleg/sub by the episode. */
static void helper_run(uint64_t end)
{
	struct sched_attr a;
	int i;

	rng_seed(opt.seed ^ ((uint64_t)getpid() << 24) ^ now_ns());
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* 1 % to 3 % of a CPU every 10 ms: fits deleg's 1 % of each CPU. */
	a = dlsched_deadline_attr(rnd_range(100, 300) * USEC, 10 * MSEC, 10 * MSEC, 0);
	a.sched_flags = random_dl_flags() & ~SCHED_FLAG_RECLAIM;
	for (i = 0; i < 10 && dlsched_sched_setattr(0, &a, 0); i++)
		usleep(5000);
	while (now_ns() < end + 2 * SEC && !__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		spin_us(rnd(300));
		usleep(rnd(3000));
	}
	_exit(0);
}

/* Writes only root may make: they must fail (EACCES at open, or EPERM). */
static void denied_random(void)
{
	const char *path, *val = "-1";
	char pid[16], cpu[64];
	int err;

	switch (rnd(5)) {
	case 0:
		path = SYS_DL_RUNTIME;
		val = "50000";
		break;
	case 1:
		path = SYS_DL_TOTAL;
		val = "0";
		break;
	case 2:
		if (!hp_count)
			return;
		snprintf(cpu, sizeof(cpu), "/sys/devices/system/cpu/cpu%d/online", hp_cpus[rnd(hp_count)]);
		path = cpu;
		val = "1";
		break;
	case 3:
		path = cgp("res", "cpu.dl_runtime_us");
		break;
	default:
		snprintf(pid, sizeof(pid), "%d", getpid());
		path = cgp("home", "cgroup.procs");
		val = pid;
		break;
	}
	err = -write_str(path, val);
	account(OP_DENIED, err, ERRS(EACCES, EPERM), MUST_FAIL, "'%s' to %s", val, path);
}

static void episode_cgroup_user(uint64_t end)
{
	pid_t helpers[2];
	int i, r, err, status;
	const char *grp;

	for (i = 0; i < 2; i++) {
		helpers[i] = fork();
		account(OP_FORK, helpers[i] < 0 ? errno : 0, NO_ERRS, MAY_SUCCEED, "deadline helper");
		if (!helpers[i])
			helper_run(end);
	}
	while (!ending(end)) {
		r = rnd(100);
		grp = PICK(user_slots);
		if (r < 12) {
			cg_mkdir(grp, false);
		} else if (r < 22) {
			cg_rmdir(grp);
		} else if (r < 34) {
			cg_runtime_random(grp);
		} else if (r < 40) {
			cg_template_random(grp);
		} else if (r < 48) {
			cg_period_random(grp);
		} else if (r < 72) {
			pid_t pid = helpers[rnd(2)];

			grp = PICK(user_homes);
			if (pid <= 0)
				continue;
			err = -write_ll(cgp(grp, "cgroup.procs"), pid);
			account(OP_PROCS, err, MOVE_ERRS, MAY_SUCCEED, "own process %d to %s", pid, grp);
		} else if (r < 84) {
			denied_random();
		} else {
			cg_read_total(grp);
		}
		usleep(rnd(3000));
	}
	for (i = 0; i < 2; i++) {
		if (helpers[i] <= 0)
			continue;
		kill(helpers[i], SIGKILL);
		while (reap(helpers[i], &status, true) < 0 && errno == EINTR)
			;
	}
}

/* ---- sysctls ---- */

static bool restore_sysctls(int tries)
{
	long long dr = -2, dp = -2, rr = -2, rp = -2;
	int i;

	/*
	 * Each write is checked against the others (rt + dl <= 100 %) and
	 * against what is allocated (EBUSY until dead tasks' 0-lag time):
	 * go round until all four are back.
	 */
	for (i = 0; i < tries; i++) {
		write_ll(SYS_DL_PERIOD, saved.dl_period);
		write_ll(SYS_DL_RUNTIME, saved.dl_runtime);
		write_ll(SYS_RT_PERIOD, saved.rt_period);
		write_ll(SYS_RT_RUNTIME, saved.rt_runtime);
		write_ll(SYS_DL_RUNTIME, saved.dl_runtime);
		write_ll(SYS_DL_PERIOD, saved.dl_period);
		if (!read_ll(SYS_DL_RUNTIME, &dr) && !read_ll(SYS_DL_PERIOD, &dp) &&
		    !read_ll(SYS_RT_RUNTIME, &rr) && !read_ll(SYS_RT_PERIOD, &rp) &&
		    dr == saved.dl_runtime && dp == saved.dl_period && rr == saved.rt_runtime &&
		    rp == saved.rt_period)
			return true;
		usleep(20000);
	}
	return false;
}

static void sysctl_write(enum op op, const char *path, const char *val, bool valid)
{
	int err = -write_str(path, val);

	/* EINVAL for valid numbers: runtime > period, or rt + dl above 100 % */
	account(op, err, valid ? ERRS(EINVAL, EBUSY) : ERRS(EINVAL), valid ? MAY_SUCCEED : MUST_FAIL,
		"'%s'", val);
}

static void episode_sysctl(uint64_t end)
{
	static const char *const bad[] = { "-2", "abc", "12x", "2147483648", "99999999999999999999" };
	static const char *const rt_runtimes[] = { "950000", "900000", "940000", "960000" };
	static const char *const rt_periods[] = { "1000000", "1100000", "900000" };
	unsigned long long bw;
	char val[32];
	int r, v, err;

	while (!ending(end)) {
		usleep(rnd_range(2000, 30000));
		r = rnd(100);
		v = rnd(100);
		if (r < 35) {
			if (v < 85) {
				if (v < 50)
					snprintf(val, sizeof(val), "%llu", (unsigned long long)rnd_range(20000, 80000));
				else if (v < 62)
					snprintf(val, sizeof(val), "%lld", saved.dl_runtime);
				else if (v < 67)
					snprintf(val, sizeof(val), "0");
				else if (v < 70)
					snprintf(val, sizeof(val), "-1");	/* admission off, briefly */
				else
					snprintf(val, sizeof(val), "%llu", (unsigned long long)rnd_range(80000, 1100000));
				sysctl_write(OP_SYS_DL_RUNTIME, SYS_DL_RUNTIME, val, true);
			} else {
				sysctl_write(OP_SYS_DL_RUNTIME, SYS_DL_RUNTIME, PICK(bad), false);
			}
		} else if (r < 50) {
			if (v < 80) {
				snprintf(val, sizeof(val), "%llu", v < 40 ? (unsigned long long)saved.dl_period :
					 (unsigned long long)rnd_range(500000, 2000000));
				sysctl_write(OP_SYS_DL_PERIOD, SYS_DL_PERIOD, val, true);
			} else {
				sysctl_write(OP_SYS_DL_PERIOD, SYS_DL_PERIOD, v < 90 ? "0" : PICK(bad), false);
			}
		} else if (r < 62) {
			if (v < 85)
				sysctl_write(OP_SYS_RT_RUNTIME, SYS_RT_RUNTIME, v < 3 ? "-1" : PICK(rt_runtimes),
					     true);
			else
				sysctl_write(OP_SYS_RT_RUNTIME, SYS_RT_RUNTIME, v < 92 ? "-2" : "abc", false);
		} else if (r < 67) {
			if (v < 85)
				sysctl_write(OP_SYS_RT_PERIOD, SYS_RT_PERIOD, PICK(rt_periods), true);
			else
				sysctl_write(OP_SYS_RT_PERIOD, SYS_RT_PERIOD, v < 92 ? "0" : "abc", false);
		} else if (r < 82) {
			if (v < 80) {
				/* EINVAL: the CPU is offline */
				snprintf(val, sizeof(val), "%d", (int)rnd(ncpus + 1));
				sysctl_write(OP_SYS_SELECT, SYS_DL_TOTAL, val, true);
			} else {
				static const char *const bad_cpus[] = { "-1", "4096", "x" };

				sysctl_write(OP_SYS_SELECT, SYS_DL_TOTAL, PICK(bad_cpus), false);
			}
		} else {
			err = -read_u64(SYS_DL_TOTAL, &bw);
			account(OP_SYS_READ, err, NO_ERRS, MAY_SUCCEED, "read");
			if (!err && bw > TOTAL_PLAUSIBLE) {
				inc(&sh->ev[EV_BAD_TOTAL]);
				note("unexpected: [%s] sched_dl_total_bw reads %llu", kind_name(), bw);
			}
		}
	}
	/* Most of the run near the defaults; the final restore is the supervisor's. */
	restore_sysctls(50);
}

/* ---- CPU hotplug ---- */

static const char *cpu_online_path(int cpu)
{
	static __thread char buf[64];

	snprintf(buf, sizeof(buf), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return buf;
}

static bool cpu_online(int cpu)
{
	long long v = 0;

	return !read_ll(cpu_online_path(cpu), &v) && v == 1;
}

static bool all_cpus_online(int tries)
{
	bool ok = false;
	int i, t;

	for (t = 0; t < tries && !ok; t++) {
		if (t)
			usleep(100000);
		ok = true;
		for (i = 0; i < hp_count; i++) {
			if (cpu_online(hp_cpus[i]))
				continue;
			write_str(cpu_online_path(hp_cpus[i]), "1");
			ok &= cpu_online(hp_cpus[i]);
		}
	}
	return ok;
}

static void episode_hotplug(uint64_t end)
{
	int cpu, err, r;

	while (!ending(end)) {
		usleep(rnd_range(20, 300) * 1000);
		cpu = hp_cpus[rnd(hp_count)];
		r = rnd(100);
		if (r < 8) {
			const char *v = chance(50) ? "2" : "x";

			err = -write_str(cpu_online_path(cpu), v);
			account(OP_CPU_BAD, err, ERRS(EINVAL), MUST_FAIL, "'%s' to cpu%d", v, cpu);
		} else if (cpu_online(cpu)) {
			if (online_cpus() < 2)
				continue;
			/* EBUSY: the deadline bandwidth would not fit the CPUs left */
			err = -write_str(cpu_online_path(cpu), "0");
			account(OP_CPU_OFF, err, ERRS(EBUSY), MAY_SUCCEED, "cpu%d", cpu);
		} else {
			err = -write_str(cpu_online_path(cpu), "1");
			account(OP_CPU_ON, err, NO_ERRS, MAY_SUCCEED, "cpu%d", cpu);
		}
	}
	/* Each episode ends with every CPU back. */
	if (!all_cpus_online(50))
		note("[%s] CPUs still offline at the end of an episode", kind_name());
}

/* ---- Episodes: task templates, their rules checked as the run goes ---- */

#define SYSRQ_CTL "/proc/sys/kernel/sysrq"
#define SYSRQ_TRIGGER "/proc/sysrq-trigger"
/* kernel.sysrq's bit for SysRq-n (nice all RT tasks); 1 allows every key. */
#define SYSRQ_ENABLE_RTNICE 256

/*
 * The template episode's groups, below tpl/w (tpl: reserved at setup,
 * 0.5 % of each CPU; w: where its worker lives; in v2 a threaded domain,
 * so that processes and threads move between all of them). Each episode
 * makes them and removes them: two template groups, a plain group, a
 * group with a reservation of 0, and a child of the second template group
 * with a per-CPU reservation.
 */
enum { TG_W, TG_P, TG_Z, TG_TA, TG_TB, TG_C0, TG_N };

static const char *const tg_path[TG_N] = {
	[TG_W] = "tpl/w", [TG_P] = "tpl/w/p", [TG_Z] = "tpl/w/z", [TG_TA] = "tpl/w/ta",
	[TG_TB] = "tpl/w/tb", [TG_C0] = "tpl/w/tb/c0",
};

/*
 * One task's bandwidth of each template group, the same for the whole
 * run: runtime and period (us) are written as k times these, the deadline
 * anywhere between. What a template holds must fit NR*bw, and a new
 * template must hold what is allocated, so the tasks it admitted (each of
 * that bandwidth) are at most NR, whatever NR was when it admitted them.
 */
static const struct {
	uint64_t runtime, period;
} tg_base[TG_N] = {
	[TG_TA] = { 50, 20000 }, [TG_TB] = { 50, 40000 },
};

/* c0's period: its runtime is a few tens of us per CPU. */
#define C0_PERIOD_US 100000
#define TP_ACTORS 8
#define TP_PLAYERS 3
#define TP_KEEPERS 2

/*
 * The episode's tasks. A player calls sched_setattr() (every policy and
 * flag), sched_setaffinity(), forks, starts threads and exits on its own;
 * a racer, one player in three, has a thread that only switches itself to
 * and from SCHED_DEADLINE while the episode shuttles the process between
 * a template group and the group reserved 0 (R3). A keeper sets
 * SCHED_OTHER, SCHED_FLAG_RESET_ON_FORK and a negative nice before
 * anything moves it, and never calls sched_setattr() again: the templates
 * it goes through must leave both (R6).
 */
struct tactor {
	pid_t pid;
	bool keeper;
	bool racer;	/* a player that only switches itself to and from SCHED_DEADLINE */
	bool known;	/* a keeper whose flag and nice only the templates may have touched */
	bool killed;
	bool bad_admitted, bad_released;	/* a violation counted (once per keeper) */
	int nice;
	int grp;	/* a keeper's group (TG_*) */
};

struct tctx {
	struct tactor a[TP_ACTORS];
	bool made[TG_N], usable[TG_N];
	unsigned int nr[TG_N];	/* the template's NR, 0 for none */
	unsigned long long bw[TG_N];
	/* a violation counted, until the invariant holds again */
	bool bad_total[TG_N], bad_nr[TG_N], bad_zero_dl, bad_zero_bw;
	bool hotplugged;
};

/*
 * The nice value of task @tid (0: the caller), through the system call:
 * <sys/resource.h> clashes with dltask.h's rlimit64, and the raw call
 * returns 20 - nice, never negative. 0 or -errno.
 */
static int task_nice(pid_t tid, int *nice)
{
	long r = syscall(SYS_getpriority, 0 /* PRIO_PROCESS */, tid);

	if (r < 0)
		return -errno;
	*nice = 20 - (int)r;
	return 0;
}

/* Per process: messages about invariants, a few per episode and process. */
static int inv_notes[OP_COUNT];

/*
 * An invariant checked during the run. Each check counts as a call of
 * @op; a violation counts as one unexpected result when it begins (*@was:
 * it was already violated at the previous check), so that a state that
 * lasts counts once.
 */
static void __attribute__((format(printf, 4, 5)))
invariant(enum op op, bool holds, bool *was, const char *fmt, ...)
{
	struct op_stat *s = &sh->ops[op][as_user];
	char what[400];
	va_list ap;

	inc(&s->calls);
	if (holds) {
		inc(&s->ok);
		if (was)
			*was = false;
		return;
	}
	if (was && *was)
		return;
	if (was)
		*was = true;
	inc(&s->bad_err);
	if (inv_notes[op]++ >= 4)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	note("unexpected: [%s] %s: %s", kind_name(), op_names[op], what);
}

/* @grp's template: NR (0 for none) and one task's bandwidth. */
static bool tmpl_read(const char *grp, unsigned int *nr, unsigned long long *bw)
{
	unsigned long long n, r, d, p;
	FILE *f = fopen(cgp(grp, "cpu.dl_template"), "re");
	char buf[128];
	bool ok = false;

	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f)) {
		if (!strncmp(buf, "none", 4)) {
			*nr = 0;
			*bw = 0;
			ok = true;
		} else if (sscanf(buf, "%llu %llu %llu %llu", &n, &r, &d, &p) == 4 && p) {
			*nr = n;
			*bw = (r << BW_SHIFT) / p;
			ok = true;
		}
	}
	fclose(f);
	return ok;
}

static bool tmpl_stat_read(const char *grp, unsigned long long *tasks, unsigned long long *over)
{
	FILE *f = fopen(cgp(grp, "cpu.dl_template_stat"), "re");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "nr_tasks %llu nr_over %llu", tasks, over) == 2;
	fclose(f);
	return ok;
}

/* The thread ids in @grp (its cgroup.threads or tasks), at most @max. */
static int group_tids(const char *grp, int *tids, int max)
{
	FILE *f = fopen(cgp(grp, threads_file()), "re");
	char line[32];
	int n = 0;

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f))
		tids[n++] = atoi(line);
	fclose(f);
	return n;
}

/* A keeper: its flag and nice as it set them (R6). */
static void tp_check_keeper(struct tctx *c, struct tactor *k)
{
	bool in_tmpl = c->nr[k->grp] > 0, rof, ok;
	struct sched_attr a;
	int nice = 0;

	if (dlsched_sched_getattr(k->pid, &a, sizeof(a), 0))
		return;
	if (task_nice(k->pid, &nice))
		return;
	rof = a.sched_flags & SCHED_FLAG_RESET_ON_FORK;
	if (in_tmpl) {
		/* admitted (SCHED_DEADLINE) or over (its nice unchanged) */
		ok = rof && (a.sched_policy == SCHED_DEADLINE || nice == k->nice);
		invariant(OP_INV_ADMITTED, ok, &k->bad_admitted,
			  "keeper %d in the template group %s: policy %u, flags %#llx, nice %d "
			  "(set: SCHED_OTHER, reset-on-fork, nice %d)", k->pid, tg_path[k->grp],
			  a.sched_policy, (unsigned long long)a.sched_flags, nice, k->nice);
	} else {
		ok = rof && nice == k->nice && a.sched_policy == SCHED_OTHER;
		invariant(OP_INV_RELEASED, ok, &k->bad_released,
			  "keeper %d released into %s: policy %u, flags %#llx, nice %d "
			  "(want SCHED_OTHER, reset-on-fork, nice %d)", k->pid, tg_path[k->grp],
			  a.sched_policy, (unsigned long long)a.sched_flags, nice, k->nice);
	}
}

/*
 * The invariants, between two steps of the episode (which alone moves its
 * tasks and writes its groups' files): a template group holds at most
 * NR*bw (R1) and counts at most NR tasks (R7); no SCHED_DEADLINE task sits
 * in the group reserved 0, whose total stays 0 (R3); the keepers keep
 * their flag and nice (R6).
 */
static void tp_check(struct tctx *c)
{
	unsigned long long total, tasks, over, bw;
	int g, i, n, tids[128], dl_tid = 0;
	unsigned int nr;
	struct sched_attr a;

	for (g = TG_TA; g <= TG_TB; g++) {
		if (!c->usable[g] || !tmpl_read(tg_path[g], &nr, &bw))
			continue;
		c->nr[g] = nr;
		c->bw[g] = bw;
		if (!nr) {
			c->bad_total[g] = c->bad_nr[g] = false;
			continue;
		}
		if (!read_u64(cgp(tg_path[g], "cpu.dl_total_bw"), &total))
			invariant(OP_INV_TOTAL, total <= nr * bw, &c->bad_total[g],
				  "%s: cpu.dl_total_bw %llu > NR %u * bw %llu = %llu (%d CPUs online, "
				  "%d possible)", tg_path[g], total, nr, bw, nr * bw, online_cpus(),
				  nr_possible);
		if (tmpl_stat_read(tg_path[g], &tasks, &over))
			invariant(OP_INV_NR, tasks <= nr, &c->bad_nr[g],
				  "%s: nr_tasks %llu > NR %u (nr_over %llu)", tg_path[g], tasks, nr,
				  over);
	}
	if (c->usable[TG_Z]) {
		if (!read_u64(cgp(tg_path[TG_Z], "cpu.dl_total_bw"), &total))
			invariant(OP_INV_ZERO_BW, total == 0, &c->bad_zero_bw,
				  "%s (cpu.dl_runtime_us 0): cpu.dl_total_bw %llu", tg_path[TG_Z], total);
		n = group_tids(tg_path[TG_Z], tids, 128);
		for (i = 0; i < n && !dl_tid; i++)
			if (!dlsched_sched_getattr(tids[i], &a, sizeof(a), 0) &&
			    a.sched_policy == SCHED_DEADLINE)
				dl_tid = tids[i];
		invariant(OP_INV_ZERO_DL, !dl_tid, &c->bad_zero_dl,
			  "task %d is SCHED_DEADLINE in %s (cpu.dl_runtime_us 0)", dl_tid, tg_path[TG_Z]);
	}
	for (i = 0; i < TP_ACTORS; i++)
		if (c->a[i].pid > 0 && c->a[i].keeper && c->a[i].known && !c->a[i].killed)
			tp_check_keeper(c, &c->a[i]);
}

/* ---- the episode's tasks ---- */

/* A child of a task with reset-on-fork starts at nice 0 (not below). */
static int keeper_nice;
static bool keeper_child_bad;	/* counted once per keeper */

static void keeper_fork_check(void)
{
	int status, code = 0;
	pid_t pid = fork();

	/*
	 * A keeper may be SCHED_DEADLINE only as a template's, with
	 * reset-on-fork kept: its fork never fails (nor while it leaves).
	 */
	account(OP_FORK, pid < 0 ? errno : 0, NO_ERRS, MAY_SUCCEED,
		"child of a keeper (reset-on-fork, nice %d)", keeper_nice);
	if (!pid)
		_exit(task_nice(0, &code) ? 2 : 100 + code);
	if (pid < 0)
		return;
	while (reap(pid, &status, true) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 2)
		return;
	/* SysRq-n may have set the keeper to nice 0: its child starts at 0 too. */
	code = WEXITSTATUS(status) - 100;
	invariant(OP_INV_CHILD, code >= 0, &keeper_child_bad,
		  "a child of keeper %d (reset-on-fork, nice %d) started at nice %d", getpid(),
		  keeper_nice, code);
}

static bool parent_gone(pid_t parent)
{
	return getppid() != parent || __atomic_load_n(&sh->stop, __ATOMIC_RELAXED);
}

/* Until the episode ends (not at the run's stop: the episode may still move it). */
static void keeper_run(pid_t parent)
{
	while (getppid() == parent) {
		spin_us(rnd(100));
		usleep(rnd(3000));
		if (chance(4))
			keeper_fork_check();
	}
	_exit(0);
}

/* sched_setattr() on itself: every policy and flag, with the rules' errnos. */
static void tp_setattr_self(void)
{
	struct sched_attr a;
	int r = rnd(100), err;

	if (r < 40) {
		/* every policy, reset-on-fork, keep-policy/params, invalid ones */
		setattr_random(0);
		return;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	if (r < 75) {
		uint64_t period = rnd_range(20, 80) * MSEC;

		/* Small enough to fit a template's room, or the plain group's. */
		a = dlsched_deadline_attr(rnd_range(50, 150) * USEC, period, period,
					  chance(50) ? SCHED_FLAG_RESET_ON_FORK : 0);
		err = dlsched_sched_setattr(0, &a, 0) ? errno : 0;
		/* EBUSY: no room; EPERM: a 0 reservation, or affinity narrower than the root domain */
		account(OP_SETATTR, err, ERRS(EBUSY, EPERM), MAY_SUCCEED, "small deadline: %s",
			attr_str(&a));
	} else if (r < 85) {
		/* Changes nothing (but maybe the flag): still the owner's choice (R8). */
		a.sched_flags = SCHED_FLAG_KEEP_POLICY | SCHED_FLAG_KEEP_PARAMS |
				(chance(50) ? SCHED_FLAG_RESET_ON_FORK : 0);
		err = dlsched_sched_setattr(0, &a, 0) ? errno : 0;
		account(OP_SETATTR, err, NO_ERRS, MAY_SUCCEED, "keep policy and parameters: %s",
			attr_str(&a));
	} else if (r < 92) {
		struct sched_param sp = { 0 };

		err = sched_setscheduler(0, chance(30) ? SCHED_OTHER | SCHED_RESET_ON_FORK : SCHED_OTHER,
					 &sp) ? errno : 0;
		account(OP_SETATTR, err, NO_ERRS, MAY_SUCCEED, "sched_setscheduler SCHED_OTHER");
	} else {
		a.sched_policy = SCHED_OTHER;
		a.sched_nice = (int32_t)rnd_range(0, 10) - 5;
		a.sched_flags = SCHED_FLAG_RESET_ON_FORK;
		err = dlsched_sched_setattr(0, &a, 0) ? errno : 0;
		account(OP_SETATTR, err, NO_ERRS, MAY_SUCCEED, "SCHED_OTHER reset-on-fork: %s",
			attr_str(&a));
	}
}

/*
 * Narrow (one CPU) or wide (all). EBUSY: a deadline task may not narrow
 * below its root domain; EINVAL: that CPU is offline.
 */
static void tp_affinity_self(void)
{
	cpu_set_t set;
	int i, cpu, err;

	CPU_ZERO(&set);
	if (chance(50)) {
		for (i = 0; i < ncpus; i++)
			CPU_SET(i, &set);
		err = sched_setaffinity(0, sizeof(set), &set) ? errno : 0;
		account(OP_AFFINITY, err, NO_ERRS, MAY_SUCCEED, "every CPU");
	} else {
		cpu = rnd(ncpus);
		CPU_SET(cpu, &set);
		err = sched_setaffinity(0, sizeof(set), &set) ? errno : 0;
		account(OP_AFFINITY, err, ERRS(EBUSY, EINVAL), MAY_SUCCEED, "cpu%d only", cpu);
	}
}

static void player_step(bool main_thread);

static void *player_thread(void *arg)
{
	int *state = arg, n;

	rng_seed(opt.seed ^ ((uint64_t)gettid_() << 20) ^ now_ns());
	for (n = rnd_range(3, 30); n > 0 && !__atomic_load_n(&sh->stop, __ATOMIC_RELAXED); n--)
		player_step(false);
	/* Exits as it is: SCHED_DEADLINE, pinned or not. */
	__atomic_store_n(state, 2, __ATOMIC_SEQ_CST);
	return NULL;
}

static pthread_t player_th[2];
static int player_th_state[2];	/* 0 none, 1 running, 2 done */

static void player_threads(bool start)
{
	int i, ret;

	for (i = 0; i < 2; i++) {
		if (__atomic_load_n(&player_th_state[i], __ATOMIC_SEQ_CST) == 2) {
			pthread_join(player_th[i], NULL);
			player_th_state[i] = 0;
		}
		if (start && !player_th_state[i]) {
			player_th_state[i] = 1;
			/* EAGAIN: a deadline thread without reset-on-fork, outside a template group */
			ret = pthread_create(&player_th[i], NULL, player_thread, &player_th_state[i]);
			account(OP_THREAD, ret, ERRS(EAGAIN), MAY_SUCCEED, "player thread");
			if (ret)
				player_th_state[i] = 0;
			start = false;
		}
	}
}

static void player_fork(void)
{
	pid_t pid = fork();
	int i;

	/* EAGAIN: a deadline task without reset-on-fork, outside a template group */
	account(OP_FORK, pid < 0 ? errno : 0, ERRS(EAGAIN), MAY_SUCCEED, "child of a player");
	if (pid)
		return;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (chance(50))
		_exit(0);
	rng_seed(opt.seed ^ ((uint64_t)getpid() << 24) ^ now_ns());
	for (i = rnd_range(1, 3); i > 0; i--) {
		tp_setattr_self();
		spin_us(rnd(100));
	}
	_exit(0);
}

/*
 * SCHED_OTHER and a small SCHED_DEADLINE of its own, back to back: while
 * the episode moves it in and out of a template (R3: its own deadline
 * request while it leaves must fit where it goes).
 */
static void player_switch(void)
{
	struct sched_attr a;
	int err;

	if (chance(60)) {
		a = dlsched_deadline_attr(rnd_range(50, 150) * USEC, 40 * MSEC, 40 * MSEC, 0);
		err = dlsched_sched_setattr(0, &a, 0) ? errno : 0;
		account(OP_SETATTR, err, ERRS(EBUSY, EPERM), MAY_SUCCEED, "racer: %s", attr_str(&a));
	} else {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		err = dlsched_sched_setattr(0, &a, 0) ? errno : 0;
		account(OP_SETATTR, err, NO_ERRS, MAY_SUCCEED, "racer: SCHED_OTHER");
	}
}

static void player_burst(void)
{
	struct sched_attr a;
	int n, err;

	for (n = rnd_range(10, 40); n > 0; n--) {
		if (chance(50)) {
			a = dlsched_deadline_attr(rnd_range(50, 150) * USEC, 40 * MSEC, 40 * MSEC, 0);
			err = dlsched_sched_setattr(0, &a, 0) ? errno : 0;
			account(OP_SETATTR, err, ERRS(EBUSY, EPERM), MAY_SUCCEED, "burst: %s",
				attr_str(&a));
		} else {
			memset(&a, 0, sizeof(a));
			a.size = sizeof(a);
			err = dlsched_sched_setattr(0, &a, 0) ? errno : 0;
			account(OP_SETATTR, err, NO_ERRS, MAY_SUCCEED, "burst: SCHED_OTHER");
		}
	}
}

static void player_step(bool main_thread)
{
	int r = rnd(100);

	if (r < 4)
		player_burst();
	else if (r < 30)
		tp_setattr_self();
	else if (r < 42)
		tp_affinity_self();
	else if (r < 48 && main_thread)
		player_fork();
	else if (r < 53 && main_thread)
		player_threads(true);
	else if (r < 75)
		spin_us(rnd(100));
	else
		usleep(rnd(3000));
}

static void *racer_idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void *racer_thread(void *arg)
{
	pid_t parent = *(pid_t *)arg;

	rng_seed(opt.seed ^ ((uint64_t)gettid_() << 20) ^ now_ns());
	while (!parent_gone(parent)) {
		player_switch();
		/* a gap after SCHED_OTHER: a template may admit it meanwhile */
		usleep(rnd(sched_getscheduler(0) == SCHED_DEADLINE ? 300 : 2000));
	}
	_exit(0);
	return NULL;
}

/*
 * A racer: SCHED_BATCH threads, which no template takes, and the racing
 * thread created last, which a move of the process attaches last: the
 * others' attach widens the window in which its own sched_setattr() races
 * the move (R3).
 */
static void racer_run(pid_t parent)
{
	struct sched_attr a = { .size = sizeof(a), .sched_policy = SCHED_BATCH };
	pthread_t th;
	int i, err;

	err = dlsched_sched_setattr(0, &a, 0) ? errno : 0;
	account(OP_SETATTR, err, NO_ERRS, MAY_SUCCEED, "racer: SCHED_BATCH");
	for (i = 0; i < 8; i++) {
		err = pthread_create(&th, NULL, racer_idle, NULL);
		account(OP_THREAD, err, NO_ERRS, MAY_SUCCEED, "racer's idle thread");
	}
	err = pthread_create(&th, NULL, racer_thread, &parent);
	account(OP_THREAD, err, NO_ERRS, MAY_SUCCEED, "racing thread");
	while (!parent_gone(parent))
		usleep(10000);
	_exit(0);
}

static void player_run(pid_t parent, bool racer)
{
	int status;
	pid_t r;

	if (racer)
		racer_run(parent);
	while (!parent_gone(parent)) {
		while ((r = reap(-1, &status, false)) > 0) {
			if (!(WIFEXITED(status) && !WEXITSTATUS(status)) &&
			    !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
				inc(&sh->ev[EV_BAD_EXIT]);
				note("unexpected: [%s] a player's child %s", kind_name(), status_str(status));
			}
		}
		player_threads(false);
		/* exits on its own, its threads with it */
		if (chance(1))
			_exit(0);
		player_step(true);
	}
	_exit(0);
}

/* A new player or keeper, in the episode's group (w); false if none. */
static bool tp_spawn(struct tctx *c, bool keeper)
{
	int i, fds[2], err, nice = -(int)rnd_range(1, 10);
	bool racer = !keeper && chance(35);
	pid_t parent = getpid(), pid;
	char ready = 0;

	for (i = 0; i < TP_ACTORS && c->a[i].pid; i++)
		;
	if (i == TP_ACTORS || pipe2(fds, O_CLOEXEC))
		return false;
	pid = fork();
	account(OP_FORK, pid < 0 ? errno : 0, NO_ERRS, MAY_SUCCEED, "%s", keeper ? "keeper" : "player");
	if (!pid) {
		close(fds[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		rng_seed(opt.seed ^ ((uint64_t)getpid() << 24) ^ now_ns());
		memset(inv_notes, 0, sizeof(inv_notes));
		err = 0;
		if (keeper) {
			/* Before any template: the flag and nice are its own (R6). */
			keeper_nice = nice;
			if (chance(50)) {
				struct sched_attr a = { .size = sizeof(a), .sched_policy = SCHED_OTHER,
							.sched_flags = SCHED_FLAG_RESET_ON_FORK,
							.sched_nice = nice };

				err = dlsched_sched_setattr(0, &a, 0) ? errno : 0;
				account(OP_SETATTR, err, NO_ERRS, MAY_SUCCEED, "keeper: %s", attr_str(&a));
			} else {
				struct sched_param sp = { 0 };

				err = syscall(SYS_setpriority, 0 /* PRIO_PROCESS */, 0, nice) ? errno : 0;
				if (!err)
					err = sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &sp) ?
					      errno : 0;
				account(OP_SETATTR, err, NO_ERRS, MAY_SUCCEED,
					"keeper: nice %d, SCHED_OTHER | SCHED_RESET_ON_FORK", nice);
			}
		}
		ready = err ? 'x' : 'r';
		if (write(fds[1], &ready, 1) != 1)
			_exit(1);
		close(fds[1]);
		if (keeper)
			keeper_run(parent);
		player_run(parent, racer);
	}
	close(fds[1]);
	if (pid > 0 && read(fds[0], &ready, 1) != 1)
		ready = 0;
	close(fds[0]);
	if (pid < 0)
		return false;
	c->a[i] = (struct tactor){ .pid = pid, .keeper = keeper, .racer = racer,
				   .known = keeper && ready == 'r', .nice = nice, .grp = TG_W };
	return true;
}

/*
 * Before the episode's end kills them: its tasks SCHED_OTHER, so that one
 * throttled while it pays back an overrun (under TCG, a vCPU stall
 * charged to 50 us of runtime is hundreds of periods) exits at once.
 */
static void tp_demote(struct tactor *a)
{
	struct sched_attr attr = { .size = sizeof(attr), .sched_policy = SCHED_OTHER };
	char path[64];
	struct dirent *e;
	int tid, err;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", a->pid);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		tid = atoi(e->d_name);
		if (tid <= 0)
			continue;
		err = dlsched_sched_setattr(tid, &attr, 0) ? errno : 0;
		account(OP_SETATTR_OTHER, err, ERRS(ESRCH), MAY_SUCCEED, "%s %d at the end",
			a->keeper ? "keeper" : "player", tid);
	}
	if (d)
		closedir(d);
}

/*
 * The same for every task left in the episode's groups (the players'
 * children, orphans once their parent is killed), but the episode and its
 * worker. Returns how many there were.
 */
static int tp_demote_groups(struct tctx *c)
{
	struct sched_attr attr = { .size = sizeof(attr), .sched_policy = SCHED_OTHER };
	int g, i, n, left = 0, tids[256], err;

	for (g = 0; g < TG_N; g++) {
		if (!c->made[g] && g != TG_W)
			continue;
		n = group_tids(tg_path[g], tids, 256);
		for (i = 0; i < n; i++) {
			if (tids[i] == getpid() || tids[i] == getppid())
				continue;
			left++;
			err = dlsched_sched_setattr(tids[i], &attr, 0) ? errno : 0;
			account(OP_SETATTR_OTHER, err, ERRS(ESRCH), MAY_SUCCEED, "task %d left in %s",
				tids[i], tg_path[g]);
		}
	}
	return left;
}

static void tp_kill(struct tactor *a)
{
	kill(a->pid, SIGKILL);
	a->killed = true;
}

/* Reap the episode's children, and the orphans of its players (a subreaper). */
static void tp_reap(struct tctx *c, bool block)
{
	int i, status;
	pid_t r;

	for (;;) {
		r = reap(-1, &status, block);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		for (i = 0; i < TP_ACTORS && c->a[i].pid != r; i++)
			;
		if (i < TP_ACTORS) {
			bool ok = (WIFEXITED(status) && !WEXITSTATUS(status)) ||
				  (c->a[i].killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

			if (!ok) {
				inc(&sh->ev[EV_BAD_EXIT]);
				note("unexpected: [%s] a %s %s", kind_name(),
				     c->a[i].keeper ? "keeper" : "player", status_str(status));
			}
			memset(&c->a[i], 0, sizeof(c->a[i]));
		} else if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) {
			inc(&sh->ev[EV_BAD_EXIT]);
			note("unexpected: [%s] orphan %d %s", kind_name(), r, status_str(status));
		}
	}
}

/* Players and keepers come and go: exits, kills and new ones. */
static void tp_population(struct tctx *c)
{
	int i, players = 0, keepers = 0;

	for (i = 0; i < TP_ACTORS; i++) {
		struct tactor *a = &c->a[i];

		if (a->pid <= 0 || a->killed)
			continue;
		/*
		 * A keeper SysRq-n went through tells nothing more, but stays a
		 * while: the template it is in may still count it (R7).
		 */
		if (a->keeper ? !a->known ? chance(3) : rnd(1000) < 3 : chance(1)) {
			tp_kill(a);
			continue;
		}
		if (a->keeper)
			keepers += a->known;
		else
			players++;
	}
	if (keepers < TP_KEEPERS)
		tp_spawn(c, true);
	else if (players < TP_PLAYERS && chance(50))
		tp_spawn(c, false);
}

static struct tactor *tp_pick_actor(struct tctx *c, int want_keeper)
{
	int i, j, start = rnd(TP_ACTORS);

	for (i = 0; i < TP_ACTORS; i++) {
		j = (start + i) % TP_ACTORS;
		if (c->a[j].pid > 0 && !c->a[j].killed &&
		    (want_keeper < 0 || c->a[j].keeper == (bool)want_keeper))
			return &c->a[j];
	}
	return NULL;
}

static int tp_pick_group(struct tctx *c)
{
	static const int weights[TG_N] = {
		[TG_W] = 10, [TG_P] = 15, [TG_Z] = 15, [TG_TA] = 25, [TG_TB] = 20, [TG_C0] = 15,
	};
	int g, r;

	for (;;) {
		r = rnd(100);
		for (g = 0; g < TG_N && r >= weights[g]; g++)
			r -= weights[g];
		if (g < TG_N && c->usable[g])
			return g;
	}
}

/*
 * Move a process (cgroup.procs) or a thread (cgroup.threads, v1's tasks)
 * of a player or keeper. A keeper is SCHED_OTHER or its template's: it
 * carries no charge, so its move never fails (R4: not even into a full
 * template). A player may be SCHED_DEADLINE of its own choice, which must
 * fit (EBUSY), or be gone (ESRCH).
 */
static void tp_move(struct tctx *c, bool thread)
{
	struct tactor *a = tp_pick_actor(c, -1);
	int g = tp_pick_group(c), err, tid, tids[16], n;
	char path[64];
	DIR *d;
	struct dirent *e;

	if (!a)
		return;
	tid = a->pid;
	if (thread && !a->keeper) {
		snprintf(path, sizeof(path), "/proc/%d/task", a->pid);
		d = opendir(path);
		n = 0;
		while (d && n < 16 && (e = readdir(d)))
			if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
				tids[n++] = atoi(e->d_name);
		if (d)
			closedir(d);
		if (n)
			tid = tids[rnd(n)];
	}
	err = -write_ll(cgp(tg_path[g], thread ? threads_file() : "cgroup.procs"), tid);
	account(thread ? OP_THREADS : OP_PROCS, err, a->keeper ? NO_ERRS : ERRS(EBUSY, ESRCH),
		MAY_SUCCEED, "%s %d of %d to %s", a->keeper ? "keeper" : "player", tid, a->pid,
		tg_path[g]);
	if (!err)
		a->grp = g;
}

/*
 * A player into a template group (admitted if SCHED_OTHER and there is
 * room) and at once out into the group reserved 0, a few times, checking
 * after each move: its own sched_setattr() calls race with the moves.
 */
static void tp_shuttle(struct tctx *c)
{
	struct tactor *a = NULL;
	int i, g, err;

	for (i = 0; i < TP_ACTORS && !a; i++)
		if (c->a[i].pid > 0 && !c->a[i].killed && c->a[i].racer)
			a = &c->a[i];
	if (!a)
		a = tp_pick_actor(c, 0);
	if (!a || !c->usable[TG_Z])
		return;
	/* In (a template counting fewer than NR) and straight out; checked once out. */
	for (i = 0; i < 8; i++) {
		unsigned long long tasks = 0, over;

		g = chance(50) ? TG_TA : TG_TB;
		if (c->nr[g] && tmpl_stat_read(tg_path[g], &tasks, &over) && tasks >= c->nr[g])
			g = g == TG_TA ? TG_TB : TG_TA;
		if (i % 2)
			g = TG_Z;
		if (!c->usable[g])
			continue;
		err = -write_ll(cgp(tg_path[g], "cgroup.procs"), a->pid);
		account(OP_PROCS, err, ERRS(EBUSY, ESRCH), MAY_SUCCEED, "player %d to %s (shuttle)",
			a->pid, tg_path[g]);
		if (g == TG_Z)
			tp_check(c);
	}
}

/*
 * A template write while tasks are in flight: "none", a new NR or new
 * parameters of the group's bandwidth (EBUSY: it does not fit tpl, or
 * holds less than is allocated inside), or a malformed one (EINVAL).
 */
static void tp_template_write(struct tctx *c, int g, bool valid)
{
	static const char *const bad[] = {
		"0 50 20000 20000", "1025 50 20000 20000", "1 50 20000", "1 30000 20000 20000",
		"1 50 30000 20000", "1 50 20000 20000 1", "NONE", "1 0 20000 20000",
	};
	int r = valid ? 50 : rnd(100), err, how = MAY_SUCCEED;
	unsigned int nr = 0;
	struct errs allowed;
	char val[96];
	const char *v;

	if (r < 20) {
		v = "none";
		allowed = NO_ERRS;
	} else if (r < 90) {
		uint64_t k = rnd_range(1, 3), rt = k * tg_base[g].runtime, p = k * tg_base[g].period;

		nr = rnd_range(1, 4);
		snprintf(val, sizeof(val), "%u %llu %llu %llu", nr, (unsigned long long)rt,
			 (unsigned long long)rnd_range(rt, p), (unsigned long long)p);
		v = val;
		allowed = ERRS(EBUSY);
	} else {
		v = PICK(bad);
		allowed = ERRS(EINVAL);
		how = MUST_FAIL;
	}
	err = -write_str(cgp(tg_path[g], "cpu.dl_template"), v);
	account(OP_TEMPLATE, err, allowed, how, "'%s' in %s", v, tg_path[g]);
	if (!err && how == MAY_SUCCEED) {
		c->nr[g] = nr;
		c->bw[g] = nr ? (tg_base[g].runtime << BW_SHIFT) / tg_base[g].period : 0;
	}
}

/*
 * c0's per-CPU reservation, inside tb's template: what fits tb's room on
 * @cpus CPUs (the CPUs online: R1 wants it refused while some are offline;
 * all possible ones: fits), none, 0 or a random one. EBUSY: does not fit,
 * or holds less than the tasks in it.
 */
static void tp_c0_runtime(struct tctx *c, int cpus)
{
	unsigned long long total = 0, mine = 0, cap, others, room, rt_us = 0;
	long long cur = -1;
	int online = online_cpus(), err;
	char val[32];

	if (!c->usable[TG_C0])
		return;
	if (!cpus) {
		switch (rnd(6)) {
		case 0:
			cpus = online;
			break;
		case 1:
		case 2:
			cpus = nr_possible;
			break;
		case 3:
			snprintf(val, sizeof(val), "-1");
			break;
		case 4:
			snprintf(val, sizeof(val), "0");
			break;
		default:
			snprintf(val, sizeof(val), "%llu", (unsigned long long)rnd_range(1, 400));
			break;
		}
	}
	if (cpus) {
		read_u64(cgp(tg_path[TG_TB], "cpu.dl_total_bw"), &total);
		read_ll(cgp(tg_path[TG_C0], "cpu.dl_runtime_us"), &cur);
		if (cur > 0)
			mine = ((unsigned long long)cur << BW_SHIFT) / C0_PERIOD_US * online;
		cap = c->nr[TG_TB] * c->bw[TG_TB];
		others = total > mine ? total - mine : 0;
		room = cap > others ? cap - others : 0;
		rt_us = room * C0_PERIOD_US / ((unsigned long long)cpus << BW_SHIFT);
		snprintf(val, sizeof(val), "%llu", rt_us ? rt_us : 1);
	}
	err = -write_str(cgp(tg_path[TG_C0], "cpu.dl_runtime_us"), val);
	account(OP_RUNTIME, err, ERRS(EBUSY), MAY_SUCCEED, "'%s' in %s (%d CPUs online of %d)", val,
		tg_path[TG_C0], online, nr_possible);
}

/* Make @g for this episode; usable when it has its type and settings. */
static void tp_mkgroup(struct tctx *c, int g)
{
	const char *grp = tg_path[g];
	int err = mkdir(cgp(grp, NULL), 0755) ? errno : 0;

	/* EEXIST: an earlier episode could not remove it */
	account(OP_MKDIR, err, ERRS(EEXIST), MAY_SUCCEED, "%s", grp);
	if (err && err != EEXIST)
		return;
	c->made[g] = true;
	if (!opt.v1) {
		err = -write_str(cgp(grp, "cgroup.type"), "threaded");
		account(OP_TYPE, err, NO_ERRS, MAY_SUCCEED, "%s threaded", grp);
		if (err)
			return;
	}
	switch (g) {
	case TG_TB:
		if (!opt.v1) {
			err = -write_str(cgp(grp, "cgroup.subtree_control"), "+cpu");
			account(OP_SUBTREE, err, NO_ERRS, MAY_SUCCEED, "+cpu in %s", grp);
		}
		break;
	case TG_Z:
		err = -write_str(cgp(grp, "cpu.dl_runtime_us"), "0");
		account(OP_RUNTIME, err, NO_ERRS, MAY_SUCCEED, "'0' in %s", grp);
		break;
	case TG_C0:
		err = -write_ll(cgp(grp, "cpu.dl_period_us"), C0_PERIOD_US);
		account(OP_PERIOD, err, ERRS(EBUSY), MAY_SUCCEED, "'%d' in %s", C0_PERIOD_US, grp);
		break;
	default:
		err = 0;
		break;
	}
	c->usable[g] = !err;
}

/* Remove @g; EBUSY while its tasks exit. */
static void tp_rmgroup(struct tctx *c, int g, int tries)
{
	int err = 0, i;

	if (!c->made[g])
		return;
	for (i = 0; i < tries; i++) {
		err = rmdir(cgp(tg_path[g], NULL)) ? errno : 0;
		if (err != EBUSY)
			break;
		usleep(50000);
	}
	account(OP_RMDIR, err, ERRS(EBUSY), MAY_SUCCEED, "%s", tg_path[g]);
	if (!err)
		c->made[g] = c->usable[g] = false;
}

/* c0 removed and made again (R5: a child group removed), unless tasks are in it. */
static void tp_c0_again(struct tctx *c)
{
	int i;

	for (i = 0; i < TP_ACTORS; i++)
		if (c->a[i].pid > 0 && c->a[i].keeper && c->a[i].grp == TG_C0)
			return;
	tp_rmgroup(c, TG_C0, 1);
	if (!c->made[TG_C0])
		tp_mkgroup(c, TG_C0);
}

/* One hotplug step, as the hotplug worker does: -1 or the CPU it took offline. */
static int tp_hotplug(struct tctx *c, bool off_only)
{
	int cpu, err;

	if (!hp_count)
		return -1;
	cpu = hp_cpus[rnd(hp_count)];
	if (cpu_online(cpu)) {
		if (online_cpus() < 2)
			return -1;
		c->hotplugged = true;
		err = -write_str(cpu_online_path(cpu), "0");
		account(OP_CPU_OFF, err, ERRS(EBUSY), MAY_SUCCEED, "cpu%d", cpu);
		return err ? -1 : cpu;
	}
	if (!off_only) {
		err = -write_str(cpu_online_path(cpu), "1");
		account(OP_CPU_ON, err, NO_ERRS, MAY_SUCCEED, "cpu%d", cpu);
	}
	return -1;
}

/*
 * R1: with a CPU offline, c0 asks for what fits tb on the CPUs online
 * (refused: every possible CPU counts), then the CPU comes back, and tb
 * must still hold at most NR*bw.
 */
static void tp_r1_probe(struct tctx *c)
{
	int cpu, err;

	if (!c->usable[TG_C0] || !c->nr[TG_TB])
		return;
	cpu = tp_hotplug(c, true);
	if (cpu < 0)
		return;
	tp_c0_runtime(c, online_cpus());
	tp_check(c);
	err = -write_str(cpu_online_path(cpu), "1");
	account(OP_CPU_ON, err, NO_ERRS, MAY_SUCCEED, "cpu%d", cpu);
}

/*
 * SysRq-n: every deadline task becomes SCHED_OTHER and nice 0 (R7), the
 * keepers included, which tell nothing more. kernel.sysrq must allow it
 * (it is set back at once).
 */
/* Move actor @a's process into @g, as tp_move() does. */
static void tp_move_to(struct tactor *a, int g, const char *why)
{
	int err = -write_ll(cgp(tg_path[g], "cgroup.procs"), a->pid);

	account(OP_PROCS, err, a->keeper ? NO_ERRS : ERRS(EBUSY, ESRCH), MAY_SUCCEED,
		"%s %d to %s (%s)", a->keeper ? "keeper" : "player", a->pid, tg_path[g], why);
	if (!err)
		a->grp = g;
}

static void tp_sysrq(struct tctx *c)
{
	int g = c->nr[TG_TA] ? TG_TA : c->nr[TG_TB] ? TG_TB : -1;
	long long v = -1;
	bool changed = false;
	int err, i;

	/* The keepers into a template first, for it to count some (R7). */
	for (i = 0; g >= 0 && i < TP_ACTORS; i++)
		if (c->a[i].pid > 0 && !c->a[i].killed && c->a[i].keeper && c->a[i].grp != g)
			tp_move_to(&c->a[i], g, "before SysRq-n");
	tp_check(c);
	if (!read_ll(SYSRQ_CTL, &v) && v != 1 && !(v & SYSRQ_ENABLE_RTNICE)) {
		err = -write_ll(SYSRQ_CTL, v | SYSRQ_ENABLE_RTNICE);
		account(OP_SYSRQ_CTL, err, NO_ERRS, MAY_SUCCEED, "%lld", v | SYSRQ_ENABLE_RTNICE);
		changed = !err;
	}
	err = -write_str(SYSRQ_TRIGGER, "n");
	account(OP_SYSRQ, err, NO_ERRS, MAY_SUCCEED, "n");
	if (changed) {
		err = -write_ll(SYSRQ_CTL, v);
		account(OP_SYSRQ_CTL, err, NO_ERRS, MAY_SUCCEED, "%lld (back)", v);
	}
	for (i = 0; i < TP_ACTORS; i++)
		c->a[i].known = false;
	if (g < 0)
		return;
	/*
	 * Once their 0-lag time has passed, new keepers and the players
	 * enter the same template: it admits them, and must count at most NR.
	 */
	usleep(150000);
	tp_spawn(c, true);
	tp_spawn(c, true);
	for (i = 0; i < TP_ACTORS; i++) {
		if (c->a[i].pid > 0 && !c->a[i].killed && (!c->a[i].keeper || c->a[i].grp != g)) {
			tp_move_to(&c->a[i], g, "after SysRq-n");
			tp_check(c);
		}
	}
}

/*
 * The template episode: its groups are made, players and keepers move
 * between them while they change their own policy and affinity, fork,
 * start threads and exit; the templates change under them, c0 reserves,
 * CPUs go offline and online, SysRq-n once in a while. After each step,
 * the invariants (tp_check()).
 */
static void episode_template(uint64_t end)
{
	uint64_t sysrq_at = 0, t0 = now_ns();
	struct tctx c;
	int g, i, r;

	memset(&c, 0, sizeof(c));
	memset(inv_notes, 0, sizeof(inv_notes));
	/* The orphans of its players come back to it, to be reaped before rmdir. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	c.usable[TG_W] = true;
	for (g = TG_P; g < TG_N; g++)
		tp_mkgroup(&c, g);
	for (g = TG_TA; g <= TG_TB; g++)
		if (c.usable[g])
			tp_template_write(&c, g, true);
	/* SysRq-n touches every task of the run: in a third of the episodes. */
	if (end > t0 && chance(35))
		sysrq_at = t0 + rnd((end - t0) * 2 / 3);
	while (!ending(end)) {
		tp_reap(&c, false);
		tp_population(&c);
		r = rnd(100);
		if (r < 28) {
			tp_move(&c, false);
		} else if (r < 42) {
			tp_move(&c, true);
		} else if (r < 48) {
			tp_shuttle(&c);
		} else if (r < 56) {
			g = chance(50) ? TG_TA : TG_TB;
			if (c.usable[g])
				tp_template_write(&c, g, false);
		} else if (r < 63) {
			tp_c0_runtime(&c, 0);
		} else if (r < 65) {
			tp_c0_again(&c);
		} else if (r < 69) {
			tp_r1_probe(&c);
		} else if (r < 73) {
			tp_hotplug(&c, false);
		} else {
			usleep(rnd(2000));
		}
		if (sysrq_at && now_ns() >= sysrq_at) {
			tp_sysrq(&c);
			sysrq_at = 0;
		}
		tp_check(&c);
		usleep(rnd(1500));
	}
	for (i = 0; i < TP_ACTORS; i++) {
		if (c.a[i].pid > 0) {
			tp_demote(&c.a[i]);
			tp_kill(&c.a[i]);
		}
	}
	/*
	 * Until every task of the episode is reaped: one that was throttled
	 * (its children too, killed with their parent) exits once
	 * SCHED_OTHER.
	 */
	for (i = 0; i < 3000; i++) {
		siginfo_t si;

		tp_reap(&c, false);
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) && errno == ECHILD)
			break;
		tp_demote_groups(&c);
		usleep(20000);
	}
	tp_check(&c);
	if (c.hotplugged && !all_cpus_online(50))
		note("[%s] CPUs still offline at the end of an episode", kind_name());
	tp_rmgroup(&c, TG_C0, 20);
	for (g = TG_P; g < TG_C0; g++)
		tp_rmgroup(&c, g, 20);
}

/* ---- Workers ---- */

struct kind {
	const char *name;
	void (*episode)(uint64_t end);
	bool user;		/* runs as nobody with deadline rlimits */
	bool registered;	/* others may act on its tasks */
	bool per_job;		/* --jobs of them */
	const char *home;	/* the group it starts in */
};

static const struct kind kinds[] = {
	{ .name = "setattr", .episode = episode_setattr, .registered = true, .per_job = true },
	{ .name = "setattr-user", .episode = episode_setattr, .user = true, .registered = true,
	  .per_job = true },
	{ .name = "wait", .episode = episode_wait, .registered = true, .per_job = true },
	{ .name = "wait-user", .episode = episode_wait, .user = true, .registered = true,
	  .per_job = true },
	{ .name = "fork", .episode = episode_fork, .registered = true, .per_job = true },
	{ .name = "fork-user", .episode = episode_fork, .user = true, .registered = true,
	  .per_job = true },
	/* Fork storms in a template group: every child and thread admitted or over. */
	{ .name = "fork-template", .episode = episode_fork, .registered = true, .home = "tmpl" },
	{ .name = "cgroup", .episode = episode_cgroup },
	{ .name = "cgroup-user", .episode = episode_cgroup_user, .user = true,
	  .home = "deleg/sub/home" },
	/* Its own template groups below tpl/w, their rules checked as it runs. */
	{ .name = "template", .episode = episode_template, .home = "tpl/w" },
	{ .name = "sysctl", .episode = episode_sysctl },
	{ .name = "hotplug", .episode = episode_hotplug },
};

#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))
#define KIND_HOTPLUG (N_KINDS - 1)
#define KIND_TEMPLATE (N_KINDS - 3)

/* Does --only (or its absence) start the workers of kind @k? */
static bool kind_runs(unsigned int k)
{
	return !opt.only || (opt.only & (1u << k));
}

static const char *kind_name(void)
{
	return my_kind >= 0 ? kinds[my_kind].name : "dlstress";
}

static void episode_enter(const struct kind *k, int idx, int ep)
{
	static const uint64_t dldlines[] = { 500, 1000, 2000, 5000 };
	static const uint64_t dlrtimes[] = { 500, 1000, 2000 };
	int err;

	rng_seed(opt.seed ^ ((uint64_t)(k - kinds) << 48) ^ ((uint64_t)idx << 40) ^
		 ((uint64_t)ep << 8));
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	catch_signals();
	if (k->user) {
		err = drop_privileges_with_dl_limits(PICK(dldlines), PICK(dlrtimes));
		if (err) {
			inc(&sh->ev[EV_SETUP_FAIL]);
			note("[%s] rlimits and nobody: %s", k->name, strerror(-err));
			_exit(2);
		}
		as_user = 1;
		/* The credential change cleared it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	}
	if (k->registered)
		reg_add(getpid(), getpid());
}

/* The first @max lines of @path, indented, if it can be read. */
static void dump_file(const char *path, const char *title, int max)
{
	char line[256];
	FILE *f = fopen(path, "re");
	int n;

	if (!f)
		return;
	say("    %s:", title);
	for (n = 0; n < max && fgets(line, sizeof(line), f); n++) {
		line[strcspn(line, "\n")] = '\0';
		say("      %s", line);
	}
	fclose(f);
}

/*
 * What a stuck episode is doing: for @pid and its descendants, each
 * thread's state, policy, wait channel, kernel stack and the deadline
 * entity's fields of /proc/PID/task/TID/sched.
 */
static void dump_tasks(pid_t pid, int depth)
{
	char path[96], line[512], *p;
	struct dirent *d;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stat", pid, d->d_name);
		f = fopen(path, "re");
		if (f) {
			if (fgets(line, sizeof(line), f)) {
				line[strcspn(line, "\n")] = '\0';
				say("  process %d (depth %d) task %s stat: %s", pid, depth, d->d_name,
				    line);
			}
			fclose(f);
		}
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/wchan", pid, d->d_name);
		dump_file(path, "wchan", 1);
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stack", pid, d->d_name);
		dump_file(path, "kernel stack", 16);
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/sched", pid, d->d_name);
		f = fopen(path, "re");
		if (f) {
			while (fgets(line, sizeof(line), f)) {
				line[strcspn(line, "\n")] = '\0';
				if (strstr(line, "policy") || strstr(line, "dl.") ||
				    strstr(line, "nr_switches"))
					say("    %s", line);
			}
			fclose(f);
		}
	}
	closedir(dir);
	if (depth >= 4)
		return;
	/* Its children: every process whose stat names @pid as parent. */
	dir = opendir("/proc");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		int child, ppid;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/stat", d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		ppid = 0;
		if (fgets(line, sizeof(line), f)) {
			p = strrchr(line, ')');
			if (p && sscanf(p + 1, " %*c %d", &ppid) != 1)
				ppid = 0;
		}
		fclose(f);
		child = atoi(d->d_name);
		if (ppid == pid)
			dump_tasks(child, depth + 1);
	}
	closedir(dir);
}

/*
 * Is a thread of process @pid runnable, SCHED_DEADLINE, out of runtime and
 * with its deadline (when its replenishment comes) still ahead? Its
 * /proc/PID/task/TID/sched (CONFIG_SCHED_DEBUG) has the runqueue clock's
 * deadline, which is CLOCK_MONOTONIC's within a second. *ret_ahead_ns: the
 * farthest such deadline from now.
 */
static bool paying_back(pid_t pid, uint64_t *ret_ahead_ns)
{
	char path[96], line[160];
	struct dirent *d;
	bool found = false;
	DIR *dir;

	*ret_ahead_ns = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return false;
	while ((d = readdir(dir))) {
		long long policy = -1, runtime = 1, deadline = 0;
		char state = 0;
		FILE *f;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stat", pid, d->d_name);
		f = fopen(path, "re");
		if (f) {
			if (fgets(line, sizeof(line), f) && strrchr(line, ')'))
				state = strrchr(line, ')')[2];
			fclose(f);
		}
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/sched", pid, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			sscanf(line, "policy : %lld", &policy);
			sscanf(line, "dl.runtime : %lld", &runtime);
			sscanf(line, "dl.deadline : %lld", &deadline);
		}
		fclose(f);
		if (state == 'R' && policy == SCHED_DEADLINE && runtime <= 0 &&
		    deadline + (long long)SEC > (long long)now_ns()) {
			found = true;
			if (deadline > (long long)now_ns() && (uint64_t)deadline - now_ns() > *ret_ahead_ns)
				*ret_ahead_ns = (uint64_t)deadline - now_ns();
		}
	}
	closedir(dir);
	return found;
}

/*
 * Wait for the episode @pid; kill it when it outlives its end by STUCK_NS,
 * or by STUCK_MAX_NS while a thread of it pays back an overrun.
 */
static void watch_episode(const struct kind *k, pid_t pid, uint64_t end)
{
	bool killed = false, told = false;
	uint64_t ahead;
	int status = 0;
	pid_t r;

	for (;;) {
		r = reap(pid, &status, false);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			note("[%s] wait for episode %d: %s", k->name, pid, strerror(errno));
			return;
		}
		if (!killed && now_ns() > end + STUCK_NS && now_ns() < end + STUCK_MAX_NS &&
		    paying_back(pid, &ahead)) {
			if (!told)
				note("[%s] episode %d runs %llu s after its end: a thread of it pays back an "
				     "overrun, its replenishment %.0f ms ahead", k->name, pid,
				     (unsigned long long)((now_ns() - end) / SEC), ms(ahead));
			told = true;
		} else if (!killed && now_ns() > end + STUCK_NS) {
			inc(&sh->ev[EV_STUCK]);
			note("unexpected: [%s] episode %d still runs %llu s after its end: killed "
			     "(CLOCK_MONOTONIC %.3f s, to compare with dl.deadline below)", k->name, pid,
			     (unsigned long long)((now_ns() - end) / SEC), (double)now_ns() / SEC);
			dump_tasks(pid, 0);
			kill(pid, SIGKILL);
			killed = true;
		}
		usleep(10000);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	if (killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return;
	inc(&sh->ev[EV_BAD_EXIT]);
	note("unexpected: [%s] episode %d %s", k->name, pid, status_str(status));
}

static void worker_run(const struct kind *k, int idx)
{
	uint64_t now, end;
	pid_t pid;
	int ep, err;

	my_kind = k - kinds;
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	rng_seed(opt.seed ^ ((uint64_t)my_kind << 32) ^ idx);
	err = -write_ll(cgp(k->home ? k->home : "home", "cgroup.procs"), getpid());
	if (err) {
		inc(&sh->ev[EV_SETUP_FAIL]);
		note("[%s] join %s: %s", k->name, k->home ? k->home : "home", strerror(err));
	}
	for (ep = 0; !__atomic_load_n(&sh->stop, __ATOMIC_RELAXED); ep++) {
		now = now_ns();
		if (now >= run_end)
			break;
		end = now + rnd_range(EPISODE_MIN_MS, EPISODE_MAX_MS) * MSEC;
		if (end > run_end)
			end = run_end;
		pid = fork();
		if (pid < 0) {
			account(OP_FORK, errno, NO_ERRS, MAY_SUCCEED, "episode");
			usleep(100000);
			continue;
		}
		if (!pid) {
			episode_enter(k, idx, ep);
			k->episode(end);
			_exit(0);
		}
		inc(&sh->episodes[my_kind]);
		watch_episode(k, pid, end);
	}
	_exit(0);
}

/* ---- The kernel log ---- */

static int kmsg_fd = -1;
static int splats, kmsg_lost, trace_lines;

static const char *const splat_patterns[] = {
	"WARNING:", "BUG:", "Oops: ", "kernel BUG at", "Kernel panic", "general protection fault",
	"KASAN", "UBSAN", "possible circular locking", "possible recursive locking",
	"inconsistent lock state", "suspicious RCU usage", "bad unlock balance",
	"lockdep is turned off", "blocked for more than", "possible irq lock inversion",
	"list_add corruption", "list_del corruption", "refcount_t:",
};

static void kmsg_open(void)
{
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd < 0)
		say("dlstress: /dev/kmsg: %s: splats are not looked for", strerror(errno));
	else
		lseek(kmsg_fd, 0, SEEK_END);
}

/* Read what the kernel logged since the last call; count and show splats. */
static void kmsg_drain(void)
{
	char buf[8192], *msg, *nl;
	unsigned int i;
	int prio;
	ssize_t n;

	if (kmsg_fd < 0)
		return;
	for (;;) {
		n = read(kmsg_fd, buf, sizeof(buf) - 1);
		if (n < 0 && errno == EPIPE) {
			/* overwritten before we read them */
			kmsg_lost++;
			continue;
		}
		if (n <= 0)
			return;
		buf[n] = '\0';
		msg = strchr(buf, ';');
		if (!msg)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		/* facility 0: the kernel's own messages, not user space's */
		prio = atoi(buf);
		if (prio >> 3)
			continue;
		for (i = 0; i < sizeof(splat_patterns) / sizeof(splat_patterns[0]); i++)
			if (strstr(msg, splat_patterns[i]))
				break;
		if (i < sizeof(splat_patterns) / sizeof(splat_patterns[0])) {
			splats++;
			/* the splat and the lines after it (the trace) */
			trace_lines = 40;
		} else if (strstr(msg, "detected stall")) {
			/* RCU stalls: a starved vCPU under TCG, as the harness sees them */
			say("kernel (notice): %s", msg);
			continue;
		}
		if (trace_lines > 0 && splats <= 10) {
			trace_lines--;
			say("kernel: %s", msg);
		}
	}
}

/* The taints a splat leaves: B bad page, D die, W warning, L soft lockup. */
#define SPLAT_TAINTS ((1ULL << 5) | (1ULL << 7) | (1ULL << 9) | (1ULL << 14))

static unsigned long long read_taint(void)
{
	unsigned long long t = 0;

	read_u64("/proc/sys/kernel/tainted", &t);
	return t;
}

/* lockdep's debug_locks (0 once it reported something), -1 without lockdep. */
static int read_debug_locks(void)
{
	char line[128];
	int v = -1;
	FILE *f = fopen("/proc/lockdep_stats", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " debug_locks: %d", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* ---- Group totals ---- */

struct gtotal {
	char path[256];
	unsigned long long bw;
};

static struct gtotal *walk_out;
static int walk_n, walk_cap;

static int walk_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t top = strlen(cg_top);
	char file[512];
	unsigned long long bw;

	(void)st;
	(void)ftw;
	if (type != FTW_D)
		return FTW_CONTINUE;
	/* the run's own groups are gone at the end */
	if (!strncmp(path, cg_top, top) && (!path[top] || path[top] == '/'))
		return FTW_SKIP_SUBTREE;
	snprintf(file, sizeof(file), "%s/cpu.dl_total_bw", path);
	if (read_u64(file, &bw))
		return FTW_CONTINUE;
	if (walk_n == walk_cap) {
		walk_cap = walk_cap ? 2 * walk_cap : 64;
		walk_out = realloc(walk_out, walk_cap * sizeof(*walk_out));
		if (!walk_out)
			return FTW_STOP;
	}
	snprintf(walk_out[walk_n].path, sizeof(walk_out[0].path), "%s", path + strlen(cg_mnt));
	walk_out[walk_n++].bw = bw;
	return FTW_CONTINUE;
}

/* cpu.dl_total_bw of every group outside the run's subtree. */
static int group_totals(struct gtotal **out)
{
	walk_out = NULL;
	walk_n = walk_cap = 0;
	nftw(cg_mnt, walk_cb, 16, FTW_PHYS | FTW_ACTIONRETVAL);
	*out = walk_out;
	return walk_n;
}

/* Groups of @start whose total differs in @end (groups gone are not counted). */
static int totals_differ(const struct gtotal *start, int ns, const struct gtotal *end, int ne,
			 bool print)
{
	int i, j, diff = 0;

	for (i = 0; i < ns; i++) {
		for (j = 0; j < ne && strcmp(start[i].path, end[j].path); j++)
			;
		if (j == ne || start[i].bw == end[j].bw)
			continue;
		diff++;
		if (print)
			say("  %s: cpu.dl_total_bw %llu at start, %llu at the end (%+lld)",
			    start[i].path, start[i].bw, end[j].bw,
			    (long long)(end[j].bw - start[i].bw));
	}
	return diff;
}

/*
 * When the bandwidth does not come back: the threads still in
 * SCHED_DEADLINE anywhere, to tell a leak from a holder.
 */
static void say_dl_threads(void)
{
	DIR *procs = opendir("/proc"), *threads;
	struct dirent *pd, *td;
	char path[600], line[256];
	int n = 0;

	while (procs && (pd = readdir(procs))) {
		if (pd->d_name[0] < '1' || pd->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", pd->d_name);
		threads = opendir(path);
		while (threads && (td = readdir(threads))) {
			FILE *f;
			int policy = -1;

			if (td->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/sched", pd->d_name, td->d_name);
			f = fopen(path, "re");
			while (f && fgets(line, sizeof(line), f))
				if (sscanf(line, "policy : %d", &policy) == 1)
					break;
			if (f)
				fclose(f);
			if (policy == SCHED_DEADLINE && n++ < 20)
				say("bandwidth: thread %s of %s is in SCHED_DEADLINE", td->d_name, pd->d_name);
		}
		if (threads)
			closedir(threads);
	}
	if (procs)
		closedir(procs);
	say("bandwidth: %d threads in SCHED_DEADLINE", n);
}

/*
 * Starting values: the pool and the groups as they hold still for 1.5 s
 * (longer than the 1 s periods of the other tests, whose dead tasks
 * give back at their 0-lag time), or as they are after 6 s.
 */
static int wait_stable(unsigned long long *pool, struct gtotal **groups)
{
	uint64_t start = now_ns(), since = start;
	unsigned long long p = 0;
	struct gtotal *g = NULL;
	int n = 0;

	*groups = NULL;
	read_u64(SYS_DL_TOTAL, pool);
	n = group_totals(groups);
	while (now_ns() - start < 6 * SEC && now_ns() - since < 3 * SEC / 2) {
		usleep(100000);
		read_u64(SYS_DL_TOTAL, &p);
		free(g);
		if (group_totals(&g) != n || p != *pool || totals_differ(*groups, n, g, n, false)) {
			free(*groups);
			*groups = g;
			n = walk_n;
			g = NULL;
			*pool = p;
			since = now_ns();
		}
	}
	free(g);
	return n;
}

/* ---- Setup and cleanup of the subtree ---- */

static int chown_nobody(const char *grp, const char *const *files)
{
	if (chown(cgp(grp, NULL), UNPRIV_ID, UNPRIV_ID))
		return -errno;
	for (; *files; files++)
		if (chown(cgp(grp, *files), UNPRIV_ID, UNPRIV_ID) && errno != ENOENT)
			return -errno;
	return 0;
}

#define SETUP(call, ...)						\
	do {								\
		int _err = (call);					\
		if (_err) {						\
			say("dlstress: setup: " __VA_ARGS__);		\
			say("dlstress: setup: %s", strerror(_err < 0 ? -_err : _err)); \
			return -1;					\
		}							\
	} while (0)

static int setup_groups(void)
{
	const char *const deleg_files[] = { "cgroup.procs", "cgroup.threads", "tasks",
					    "cgroup.subtree_control", NULL };
	const char *const home_files[] = { "cgroup.procs", "cgroup.threads", "tasks", NULL };
	static const char *const top_groups[] = { "home", "res", "thr", "deleg", "nres", "tmpl", "tpl" };
	unsigned int i;

	SETUP(mkdir(cg_top, 0755) ? errno : 0, "mkdir %s", cg_top);
	if (!opt.v1)
		SETUP(-write_str(cgp("", "cgroup.subtree_control"), "+cpu"), "+cpu in %s", cg_top);
	for (i = 0; i < sizeof(top_groups) / sizeof(top_groups[0]); i++)
		SETUP(mkdir(cgp(top_groups[i], NULL), 0755) ? errno : 0, "mkdir %s", top_groups[i]);
	if (access(cgp("res", "cpu.dl_runtime_us"), F_OK)) {
		say("dlstress: setup: no %s: a kernel without CONFIG_DEADLINE_GROUP_SCHED?",
		    cgp("res", "cpu.dl_runtime_us"));
		return -1;
	}
	/* 1 % of each CPU each, of the default pool's 5 %. */
	SETUP(-write_str(cgp("res", "cpu.dl_runtime_us"), "10000"), "reserve res");
	SETUP(-write_str(cgp("deleg", "cpu.dl_runtime_us"), "10000"), "reserve deleg");
	/* Two tasks of 2 % of a CPU, from the pool: the cgroup worker rewrites it. */
	SETUP(-write_str(cgp("tmpl", "cpu.dl_template"), "2 200 10000 10000"), "template in tmpl");
	if (!opt.v1) {
		SETUP(-write_str(cgp("thr", "cgroup.subtree_control"), "+cpu"), "+cpu in thr");
		SETUP(mkdir(cgp("thr/t0", NULL), 0755) ? errno : 0, "mkdir thr/t0");
		SETUP(-write_str(cgp("thr/t0", "cgroup.type"), "threaded"), "thr/t0 threaded");
		SETUP(-write_str(cgp("deleg", "cgroup.subtree_control"), "+cpu"), "+cpu in deleg");
		SETUP(-write_str(cgp("nres", "cgroup.subtree_control"), "+cpu"), "+cpu in nres");
	}
	/*
	 * The template worker's parent, 0.5 % of each CPU, and its home w
	 * (v2: a threaded domain, with a threaded child from the start, so
	 * that it holds processes and threads move below it).
	 */
	if (kind_runs(KIND_TEMPLATE)) {
		SETUP(-write_str(cgp("tpl", "cpu.dl_runtime_us"), "5000"), "reserve tpl");
		if (!opt.v1)
			SETUP(-write_str(cgp("tpl", "cgroup.subtree_control"), "+cpu"), "+cpu in tpl");
		SETUP(mkdir(cgp("tpl/w", NULL), 0755) ? errno : 0, "mkdir tpl/w");
		if (!opt.v1) {
			SETUP(-write_str(cgp("tpl/w", "cgroup.subtree_control"), "+cpu"), "+cpu in tpl/w");
			SETUP(mkdir(cgp("tpl/w/base", NULL), 0755) ? errno : 0, "mkdir tpl/w/base");
			SETUP(-write_str(cgp("tpl/w/base", "cgroup.type"), "threaded"),
			      "tpl/w/base threaded");
		}
	}
	SETUP(mkdir(cgp("deleg/sub", NULL), 0755) ? errno : 0, "mkdir deleg/sub");
	if (!opt.v1)
		SETUP(-write_str(cgp("deleg/sub", "cgroup.subtree_control"), "+cpu"),
		      "+cpu in deleg/sub");
	SETUP(mkdir(cgp("deleg/sub/home", NULL), 0755) ? errno : 0, "mkdir deleg/sub/home");
	/* Delegated as systemd does: the directory and the files that move tasks. */
	SETUP(chown_nobody("deleg/sub", deleg_files), "chown deleg/sub");
	SETUP(chown_nobody("deleg/sub/home", home_files), "chown deleg/sub/home");
	SETUP(chown_nobody("nres", deleg_files), "chown nres");
	return 0;
}

static int strays;

/* Move whatever is left in @dir's tasks back to where dlstress started. */
static void move_strays(const char *dir)
{
	char path[600], line[32], status[64], buf[256];
	long long tgid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, threads_file());
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		int tid = atoi(line);
		FILE *s;

		snprintf(status, sizeof(status), "/proc/%d/status", tid);
		s = fopen(status, "re");
		tgid = tid;
		buf[0] = '\0';
		while (s && fgets(buf, sizeof(buf), s))
			if (sscanf(buf, "Tgid: %lld", &tgid) == 1)
				break;
		if (s)
			fclose(s);
		strays++;
		say("dlstress: task %d (process %lld) left in %s: moved back", tid, tgid, dir);
		snprintf(path, sizeof(path), "%s/cgroup.procs", cg_start);
		write_ll(path, tgid);
	}
	fclose(f);
}

static int rm_failed;

static int rm_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP && rmdir(path) && errno != ENOENT)
		rm_failed++;
	return FTW_CONTINUE;
}

static int stray_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_D)
		move_strays(path);
	return FTW_CONTINUE;
}

/* Remove the subtree, deepest first; true when it is gone. */
static bool remove_groups(void)
{
	int i;

	for (i = 0; i < 100; i++) {
		rm_failed = 0;
		nftw(cg_top, rm_cb, 16, FTW_DEPTH | FTW_PHYS | FTW_ACTIONRETVAL);
		if (access(cg_top, F_OK) && errno == ENOENT)
			return true;
		/* After a second: tasks that are not the run's (a pid reused under a move). */
		if (i == 10)
			nftw(cg_top, stray_cb, 16, FTW_PHYS | FTW_ACTIONRETVAL);
		usleep(100000);
	}
	return false;
}

/* Where this process is, in the hierarchy used (for strays). */
static void find_start_cgroup(void)
{
	char line[512], *path = NULL;
	FILE *f = fopen("/proc/self/cgroup", "re");

	snprintf(cg_start, sizeof(cg_start), "%s", cg_mnt);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *ctrl = strchr(line, ':'), *p = ctrl ? strchr(ctrl + 1, ':') : NULL, *c;

		if (!p)
			continue;
		*p++ = '\0';
		p[strcspn(p, "\n")] = '\0';
		ctrl++;
		if (!opt.v1 && !*ctrl) {
			path = p;
			break;
		}
		for (c = strtok(ctrl, ","); opt.v1 && c; c = strtok(NULL, ","))
			if (!strcmp(c, "cpu"))
				path = p;
		if (path)
			break;
	}
	if (path && strcmp(path, "/"))
		snprintf(cg_start, sizeof(cg_start), "%s%s", cg_mnt, path);
	fclose(f);
}

/* ---- The supervisor ---- */

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	interrupted = sig;
}

static pid_t workers[256];
static int worker_kind[256], n_workers, workers_alive;
static int early_exits, unkillable;

static void reap_children(void)
{
	int i, status;
	pid_t r;

	while ((r = reap(-1, &status, false)) > 0) {
		for (i = 0; i < n_workers && workers[i] != r; i++)
			;
		if (i == n_workers) {
			/* an orphan: its parent (an episode) was killed */
			inc(&sh->ev[EV_ORPHANS]);
			if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) {
				inc(&sh->ev[EV_BAD_EXIT]);
				note("unexpected: orphan %d %s", r, status_str(status));
			}
			continue;
		}
		workers[i] = 0;
		workers_alive--;
		if (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED) && now_ns() < run_end) {
			early_exits++;
			say("dlstress: worker %s ended early: %s", kinds[worker_kind[i]].name,
			    status_str(status));
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
				early_exits++;
				say("dlstress: worker %s %s", kinds[worker_kind[i]].name,
				    status_str(status));
			}
		}
	}
}

static uint64_t total_calls(uint64_t *unexpected)
{
	uint64_t calls = 0, bad = 0;
	int op, u;

	for (op = 0; op < OP_COUNT; op++) {
		for (u = 0; u < 2; u++) {
			calls += get(&sh->ops[op][u].calls);
			bad += get(&sh->ops[op][u].bad_err) + get(&sh->ops[op][u].bad_ok);
		}
	}
	if (unexpected)
		*unexpected = bad;
	return calls;
}

static void print_table(void)
{
	char errs[1024];
	int op, u, e, len;

	say("%-26s %-6s %9s %9s %5s  %s", "operation", "as", "calls", "ok", "unexp", "errors");
	for (op = 0; op < OP_COUNT; op++) {
		for (u = 0; u < 2; u++) {
			struct op_stat *s = &sh->ops[op][u];

			if (!s->calls)
				continue;
			errs[0] = '\0';
			len = 0;
			for (e = 0; e < ERRNO_MAX && len < (int)sizeof(errs) - 40; e++) {
				if (!s->err[e])
					continue;
				len += snprintf(errs + len, sizeof(errs) - len, "%s%s %llu", len ? ", " : "",
						e ? errname(e) : "other", (unsigned long long)s->err[e]);
			}
			say("%-26s %-6s %9llu %9llu %5llu  %s", op_names[op], u ? "nobody" : "root",
			    (unsigned long long)s->calls, (unsigned long long)s->ok,
			    (unsigned long long)(s->bad_err + s->bad_ok), errs);
		}
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: dlstress [--seconds N] [--seed S] [--cgroup v1|v2] [--jobs N] [--no-hotplug]\n"
		"  --seconds N   run for N seconds (default 60)\n"
		"  --seed S      random seed (default: from the clock; printed)\n"
		"  --cgroup H    the hierarchy: v2 or v1 (default: $DLSCHED_CGROUP, else what is mounted)\n"
		"  --jobs N      N workers of each setattr, wait and fork kind (default 1)\n"
		"  --no-hotplug  leave the CPUs online\n"
		"  --only KIND   run only the workers of that kind (repeatable), to narrow\n"
		"                a failure down: setattr, wait, fork, cgroup (each also\n"
		"                as KIND-user), fork-template, template, sysctl, hotplug\n");
}

static int parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'r' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "no-hotplug", no_argument, NULL, 'n' },
		{ "only", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cg = getenv("DLSCHED_CGROUP");
	bool seeded = false;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			opt.seconds = strtol(optarg, &end, 10);
			if (*end || opt.seconds <= 0 || opt.seconds > 86400) {
				fprintf(stderr, "dlstress: --seconds takes 1 to 86400, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'r':
			opt.seed = strtoull(optarg, &end, 0);
			if (*end || !*optarg) {
				fprintf(stderr, "dlstress: --seed takes a number, not '%s'\n", optarg);
				return -1;
			}
			seeded = true;
			break;
		case 'c':
			cg = optarg;
			if (strcmp(cg, "v1") && strcmp(cg, "v2")) {
				fprintf(stderr, "dlstress: --cgroup takes v1 or v2, not '%s'\n", cg);
				return -1;
			}
			break;
		case 'j':
			opt.jobs = strtol(optarg, &end, 10);
			if (*end || opt.jobs < 1 || opt.jobs > 16) {
				fprintf(stderr, "dlstress: --jobs takes 1 to 16, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'n':
			opt.hotplug = false;
			break;
		case 'o': {
			unsigned int k;

			for (k = 0; k < N_KINDS && strcmp(kinds[k].name, optarg); k++)
				;
			if (k == N_KINDS) {
				fprintf(stderr, "dlstress: --only takes a kind of worker, not '%s'\n", optarg);
				return -1;
			}
			opt.only |= 1u << k;
			break;
		}
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return -1;
	}
	if (!seeded)
		opt.seed = now_ns() ^ ((uint64_t)getpid() << 32);
	if (cg && *cg) {
		opt.v1 = !strcmp(cg, "v1");
	} else {
		struct stat st;

		opt.v1 = stat("/sys/fs/cgroup/cgroup.controllers", &st) != 0;
	}
	return 0;
}

/* The CPUs of /sys/devices/system/cpu/possible ("0-3", "0,2-5"). */
static int count_possible_cpus(void)
{
	char buf[256], *p = buf, *end;
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	long lo, hi;
	int n = 0;

	if (!f)
		return ncpus;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	while (*p >= '0' && *p <= '9') {
		lo = hi = strtol(p, &end, 10);
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		n += hi >= lo ? hi - lo + 1 : 0;
		p = *end == ',' ? end + 1 : end;
	}
	return n ? n : ncpus;
}

static void find_hotplug_cpus(void)
{
	int cpu;

	ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	/* The template worker takes CPUs offline too. */
	if (opt.only && !(opt.only & ((1u << KIND_HOTPLUG) | (1u << KIND_TEMPLATE))))
		opt.hotplug = false;
	for (cpu = 0; opt.hotplug && cpu < ncpus; cpu++)
		if (!access(cpu_online_path(cpu), W_OK) && cpu_online(cpu))
			hp_cpus[hp_count++] = cpu;
	nr_possible = count_possible_cpus();
}

static void start_workers(void)
{
	unsigned int k;
	int j, n;
	pid_t pid;

	for (k = 0; k < N_KINDS; k++) {
		if ((k == KIND_HOTPLUG && !hp_count) || (opt.only && !(opt.only & (1u << k))))
			continue;
		n = kinds[k].per_job ? opt.jobs : 1;
		for (j = 0; j < n && n_workers < (int)(sizeof(workers) / sizeof(workers[0])); j++) {
			pid = fork();
			if (pid < 0) {
				say("dlstress: fork a %s worker: %s", kinds[k].name, strerror(errno));
				early_exits++;
				continue;
			}
			if (!pid)
				worker_run(&kinds[k], j);
			workers[n_workers] = pid;
			worker_kind[n_workers++] = k;
			workers_alive++;
		}
	}
}

/* Set stop, wait for the workers, then kill what is left of the run. */
static void stop_workers(void)
{
	uint64_t deadline;
	int i, status;
	pid_t r;

	__atomic_store_n(&sh->stop, 1, __ATOMIC_SEQ_CST);
	deadline = now_ns() + (interrupted ? 5 * SEC : STOP_GRACE_NS);
	while (workers_alive > 0 && now_ns() < deadline) {
		kmsg_drain();
		reap_children();
		usleep(50000);
	}
	for (i = 0; i < n_workers; i++) {
		if (workers[i] > 0) {
			say("dlstress: worker %s (%d) did not stop: killed", kinds[worker_kind[i]].name,
			    workers[i]);
			early_exits++;
			kill(workers[i], SIGKILL);
		}
	}
	/* Their episodes die with them (parent-death signal) and come to us. */
	deadline = now_ns() + 30 * SEC;
	while (now_ns() < deadline) {
		reap_children();
		r = reap(-1, &status, false);
		if (r < 0 && errno == ECHILD)
			return;
		kmsg_drain();
		usleep(50000);
	}
	unkillable++;
	say("dlstress: tasks of the run still alive 30 s after SIGKILL:");
	if (system("ps -eo pid,ppid,stat,wchan:32,comm --forest"))
		say("dlstress: ps failed");
}

/* Is @word one of the space-separated words of @path's first line? */
static bool file_has_word(const char *path, const char *word)
{
	char line[256], *w, *save;
	FILE *f = fopen(path, "re");
	bool found = false;

	if (!f)
		return false;
	if (fgets(line, sizeof(line), f))
		for (w = strtok_r(line, " \n", &save); w && !found; w = strtok_r(NULL, " \n", &save))
			found = !strcmp(w, word);
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_interrupt };
	struct gtotal *start_groups = NULL, *end_groups = NULL;
	int n_start, n_end = 0, debug_locks0, debug_locks1, i, group_diff, failures = 0;
	unsigned long long pool0 = 0, pool1 = 0, taint0, taint1;
	long long rd0, rd1 = -1;
	char rq_buf[512];
	int rq_left;
	bool cpu_added = false, cpus_ok = true, sysctls_ok, groups_removed, settled = false;
	uint64_t t, next_progress, progress_every, unexpected, settle_start, settle_end, last_change;
	unsigned long long last_pool;
	long long pending_ns = 0;
	int n_pending = 0;
	char buf[256], root_ctl[300];

	if (parse_args(argc, argv))
		return 2;
	if (geteuid()) {
		printf("dlstress: skipped: needs root\n");
		return 4;
	}
	if (access(SYS_DL_RUNTIME, F_OK)) {
		printf("dlstress: skipped: no %s (not the dlsched kernel)\n", SYS_DL_RUNTIME);
		return 4;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("dlstress: mmap");
		return 2;
	}
	memset(sh, 0, sizeof(*sh));

	/* v1: the cpu controller by its real path, as nftw() reports it. */
	if (!realpath(opt.v1 ? "/sys/fs/cgroup/cpu" : "/sys/fs/cgroup", cg_mnt) ||
	    access(opt.v1 ? "/sys/fs/cgroup/cpu/tasks" : "/sys/fs/cgroup/cgroup.controllers", F_OK)) {
		say("dlstress: no cgroup %s hierarchy at /sys/fs/cgroup", opt.v1 ? "v1 cpu" : "v2");
		return 2;
	}
	snprintf(cg_top, sizeof(cg_top), "%s/dlstress-%d", cg_mnt, getpid());
	snprintf(root_ctl, sizeof(root_ctl), "%s/cgroup.subtree_control", cg_mnt);
	find_start_cgroup();
	find_hotplug_cpus();
	if (read_ll(SYS_DL_RUNTIME, &saved.dl_runtime) || read_ll(SYS_DL_PERIOD, &saved.dl_period) ||
	    read_ll(SYS_RT_RUNTIME, &saved.rt_runtime) || read_ll(SYS_RT_PERIOD, &saved.rt_period)) {
		say("dlstress: cannot read the sched_dl and sched_rt sysctls");
		return 2;
	}
	/* The template worker lets SysRq-n through for a moment (kernel.sysrq). */
	if (read_ll(SYSRQ_CTL, &saved.sysrq))
		saved.sysrq = -1;

	/* Undo what we change however the run ends: SIGTERM (timeout), our own alarm. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	/* Orphans of killed episodes come to us and are reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	kmsg_open();
	taint0 = read_taint();
	debug_locks0 = read_debug_locks();
	if (!opt.v1) {
		cpu_added = !file_has_word(root_ctl, "cpu");
		if (write_str(root_ctl, "+cpu")) {
			say("dlstress: enable the cpu controller: %s", strerror(errno));
			return 2;
		}
	}
	/* The selected CPU does not change what is read; select the default. */
	write_str(SYS_DL_TOTAL, "0");
	if (read_u64(SYS_DL_TOTAL, &pool0)) {
		say("dlstress: read %s: %s", SYS_DL_TOTAL, strerror(errno));
		return 2;
	}
	/* The reference: what holds still, once the previous test's tasks drained. */
	n_start = wait_stable(&pool0, &start_groups);
	rd0 = rd_total_bw(0);

	say("dlstress: %d s, seed %llu, cgroup %s (%s), %d CPUs online of %d", opt.seconds,
	    (unsigned long long)opt.seed, opt.v1 ? "v1" : "v2", cg_top, online_cpus(), ncpus);
	buf[0] = '\0';
	for (i = 0; i < hp_count; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " cpu%d", hp_cpus[i]);
	say("dlstress: hotplug:%s", hp_count ? buf : opt.hotplug ? " no CPU can go offline" : " off");
	say("dlstress: at start: sched_dl_total_bw %llu, %d groups with cpu.dl_total_bw, "
	    "dl %lld/%lld rt %lld/%lld, taint %#llx, debug_locks %d",
	    pool0, n_start, saved.dl_runtime, saved.dl_period, saved.rt_runtime, saved.rt_period,
	    taint0, debug_locks0);

	if (setup_groups()) {
		groups_removed = remove_groups();
		if (cpu_added)
			write_str(root_ctl, "-cpu");
		say("check cleanup: %s", groups_removed ? "ok" : "FAIL cgroups left behind");
		return 2;
	}

	run_end = now_ns() + (uint64_t)opt.seconds * SEC;
	/* A last resort: the loop below ends the run itself. */
	alarm(opt.seconds + 120);
	start_workers();
	progress_every = (opt.seconds > 200 ? opt.seconds / 20 : 10) * SEC;
	next_progress = now_ns() + progress_every;
	while (!interrupted && (t = now_ns()) < run_end) {
		kmsg_drain();
		reap_children();
		if (t >= next_progress) {
			total_calls(&unexpected);
			say("dlstress: %llu s: %llu calls, %llu unexpected, %d splats",
			    (unsigned long long)(opt.seconds - (run_end - t) / SEC),
			    (unsigned long long)total_calls(NULL), (unsigned long long)unexpected, splats);
			next_progress += progress_every;
		}
		usleep(100000);
	}
	alarm(0);
	if (interrupted)
		say("dlstress: interrupted by signal %d (%s): stopping", (int)interrupted,
		    strsignal(interrupted));
	stop_workers();

	/*
	 * Undo, in the order that lets each step succeed: the groups'
	 * reservations may hold more than the default pool (when admission
	 * was off), which the sysctls' restore would refuse.
	 */
	if (hp_count)
		cpus_ok = all_cpus_online(100);
	groups_removed = remove_groups();
	write_str(SYS_DL_TOTAL, "0");

	/*
	 * Dead tasks give their bandwidth back at their 0-lag time; the pool
	 * sysctls can only be restored once the pool holds no more than they
	 * allow, so they come after.
	 */
	settle_start = now_ns();
	settle_end = settle_start + SETTLE_MAX_NS;
	last_change = settle_start;
	last_pool = ~0ULL;
	while (now_ns() < settle_end && now_ns() - last_change < SETTLE_NS) {
		free(end_groups);
		n_end = group_totals(&end_groups);
		if (read_u64(SYS_DL_TOTAL, &pool1))
			pool1 = ~0ULL;
		rd1 = rd_total_bw(0);
		if (pool1 == pool0 && rd1 == rd0 && !rq_bw_nonzero(NULL, 0) &&
		    !totals_differ(start_groups, n_start, end_groups, n_end, false)) {
			settled = true;
			break;
		}
		if (pool1 != last_pool || (pool1 != ~0ULL && pool1 > pool0)) {
			last_pool = pool1;
			last_change = now_ns();
		}
		/* A release still queued: wait for it, up to SETTLE_PENDING_MAX_NS. */
		n_pending = dl_releases_pending(&pending_ns);
		if (n_pending > 0) {
			last_change = now_ns();
			settle_end = MAX(settle_end, MIN(last_change + pending_ns + SEC,
							 settle_start + SETTLE_PENDING_MAX_NS));
		}
		usleep(200000);
	}
	settle_start = now_ns() - settle_start;
	sysctls_ok = restore_sysctls(250);
	if (saved.sysrq >= 0) {
		long long v = -1;

		if (read_ll(SYSRQ_CTL, &v) || v != saved.sysrq) {
			write_ll(SYSRQ_CTL, saved.sysrq);
			say("dlstress: kernel.sysrq %lld at the end, %lld at start: set back", v,
			    saved.sysrq);
			sysctls_ok = false;
		}
	}
	/* After the comparison: without cpu in the root, the groups have no cpu.dl_total_bw. */
	if (cpu_added)
		write_str(root_ctl, "-cpu");
	kmsg_drain();
	taint1 = read_taint();
	debug_locks1 = read_debug_locks();

	say("dlstress: summary: %d s, seed %llu, cgroup %s, %d workers", opt.seconds,
	    (unsigned long long)opt.seed, opt.v1 ? "v1" : "v2", n_workers);
	print_table();
	buf[0] = '\0';
	for (i = 0; i < (int)N_KINDS; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s %llu", i ? ", " : "",
			 kinds[i].name, (unsigned long long)sh->episodes[i]);
	say("episodes: %s", buf);
	say("signals: SIGXCPU %llu, SIGUSR1 %llu; children killed on purpose %llu, orphans reaped %llu",
	    (unsigned long long)sh->ev[EV_SIGXCPU], (unsigned long long)sh->ev[EV_SIGUSR1],
	    (unsigned long long)sh->ev[EV_KIDS_KILLED], (unsigned long long)sh->ev[EV_ORPHANS]);
	say("kernel: %d splats, %d log records lost, taint %#llx -> %#llx, lockdep debug_locks %d -> %d",
	    splats, kmsg_lost, taint0, taint1, debug_locks0, debug_locks1);
	say("bandwidth: sched_dl_total_bw %llu at start, %llu at the end (%+lld)%s", pool0, pool1,
	    (long long)(pool1 - pool0), settled ? "" : ", not settled");
	say("bandwidth: cpu0's root domain total_bw %lld at start, %lld at the end (%+lld)", rd0, rd1,
	    rd1 - rd0);
	rq_left = rq_bw_nonzero(rq_buf, sizeof(rq_buf));
	say("bandwidth: runqueues' running_bw and this_bw: %s", rq_left ? rq_buf : "all 0");
	if (!settled) {
		say_dl_threads();
		n_pending = dl_releases_pending(&pending_ns);
		say("bandwidth: %d releases still queued, the latest in %.1f s", n_pending,
		    pending_ns / 1e9);
	}
	say("bandwidth: settling took %.1f s", settle_start / 1e9);
	group_diff = totals_differ(start_groups, n_start, end_groups, n_end, true);
	say("bandwidth: %d groups with cpu.dl_total_bw at start, %d at the end, %d differ", n_start,
	    n_end, group_diff);

	/* The verdict: one line per criterion (29-dl-stress.sh makes them TAP). */
	total_calls(&unexpected);
	if (!interrupted && !early_exits &&
	    (!hp_count || sh->episodes[KIND_HOTPLUG] || !kind_runs(KIND_HOTPLUG))) {
		say("check run: ok");
	} else {
		failures++;
		say("check run: FAIL %s%d workers failed, ended early or did not stop",
		    interrupted ? "interrupted before the end; " : "", early_exits);
	}
	if (!unexpected && !sh->ev[EV_LONG_WAIT] && !sh->ev[EV_DL_CHILD] && !sh->ev[EV_BAD_TOTAL]) {
		say("check errno: ok");
	} else {
		failures++;
		say("check errno: FAIL %llu unexpected results, %llu overlong sched_wait_interval, "
		    "%llu deadline children, %llu implausible totals", (unsigned long long)unexpected,
		    (unsigned long long)sh->ev[EV_LONG_WAIT], (unsigned long long)sh->ev[EV_DL_CHILD],
		    (unsigned long long)sh->ev[EV_BAD_TOTAL]);
	}
	if (!sh->ev[EV_BAD_EXIT] && !sh->ev[EV_STUCK] && !sh->ev[EV_SETUP_FAIL] && !unkillable) {
		say("check tasks: ok");
	} else {
		failures++;
		say("check tasks: FAIL %llu unexpected exits or signals, %llu stuck episodes, "
		    "%llu setup failures, %d unkillable", (unsigned long long)sh->ev[EV_BAD_EXIT],
		    (unsigned long long)sh->ev[EV_STUCK], (unsigned long long)sh->ev[EV_SETUP_FAIL],
		    unkillable);
	}
	if (!splats && !((taint1 & ~taint0) & SPLAT_TAINTS) &&
	    !(debug_locks0 == 1 && debug_locks1 != 1)) {
		say("check splats: ok");
	} else {
		failures++;
		say("check splats: FAIL %d in the kernel log, taint %#llx -> %#llx, debug_locks %d -> %d",
		    splats, taint0, taint1, debug_locks0, debug_locks1);
	}
	if (pool1 == pool0) {
		say("check pool: ok");
	} else {
		failures++;
		say("check pool: FAIL sched_dl_total_bw %llu, %llu at start (%+lld)", pool1, pool0,
		    (long long)(pool1 - pool0));
	}
	if (rd0 >= 0 && rd1 == rd0) {
		say("check rootdomain: ok");
	} else {
		failures++;
		say("check rootdomain: FAIL cpu0's root domain total_bw %lld, %lld at start (%+lld)", rd1,
		    rd0, rd1 - rd0);
	}
	if (!rq_left) {
		say("check runqueues: ok");
	} else {
		failures++;
		say("check runqueues: FAIL %d utilizations not back to 0: %s", rq_left, rq_buf);
	}
	if (!group_diff) {
		say("check groups: ok");
	} else {
		failures++;
		say("check groups: FAIL %d groups' cpu.dl_total_bw differ from the start", group_diff);
	}
	if (cpus_ok && sysctls_ok && groups_removed && !strays) {
		say("check cleanup: ok");
	} else {
		failures++;
		say("check cleanup: FAIL%s%s%s%s", cpus_ok ? "" : " CPUs left offline;",
		    sysctls_ok ? "" : " sysctls not restored;",
		    groups_removed ? "" : " cgroups left behind;",
		    strays ? " tasks not of the run were in its cgroups;" : "");
	}
	free(start_groups);
	free(end_groups);
	return failures ? 1 : 0;
}
