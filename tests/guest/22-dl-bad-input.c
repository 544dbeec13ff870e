// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to every interface of the series, table-driven: the sysctls
 * (sched_dl_runtime_us, sched_dl_period_us, sched_dl_total_bw and the
 * rt+dl coupling), the cgroup files (cpu.dl_runtime_us, cpu.dl_period_us,
 * cpu.dl_total_bw, on whichever hierarchy runs: DLSCHED_CGROUP), the
 * system calls (sched_wait_interval, sched_setscheduler_ex,
 * sched_setparam_ex, sched_getparam_ex, sched_setattr with
 * SCHED_FLAG_DL_DMISS: pointers, sizes, flags, timespecs, pids, policies)
 * and the rlimits (RLIMIT_DLDLINE, RLIMIT_DLRTIME). Each value is refused
 * with its documented errno (Documentation/scheduler/sched-deadline.rst
 * and the patches), and afterwards every related value reads as before:
 * the five bandwidth sysctls, the cpu.dl_* files of the test's groups,
 * the calling task's sched_getattr() and sched_getparam_ex(), and its two
 * rlimits. Unprivileged cases run in a child as nobody, which checks its
 * own task state; the parent checks the system's.
 *
 * Set-up: a pool of 1/4 of each CPU (rt 75 %, so rt + dl is exactly 100 %),
 * group g reserving 1/8 and its child g/c 1/16 (powers of two, which the
 * fixed point holds exactly): the pool is not full, g holds more than
 * nothing, and any lowering below what is allocated is refused.
 */
#include <limits.h>
#include <sys/mman.h>
#include <sys/time.h>
#include "dlgroup.h"
#include "dltask.h"

/* Cases in each table (checked at compile time), for the plan. */
#define SYSCTL_CASES 42
#define CGROUP_CASES 47
#define SYSCALL_CASES 125
#define RLIMIT_CASES 44

/* --- what is compared after every attempt ------------------------------ */

static const char *const sysctl_paths[] = {
	SYSCTL_DL_RUNTIME, SYSCTL_DL_PERIOD, SYSCTL_DL_TOTAL, SYSCTL_RT_RUNTIME, SYSCTL_RT_PERIOD,
};
#define N_SYSCTLS ARRAY_SIZE(sysctl_paths)
#define TOTAL_BW 2	/* index of sched_dl_total_bw */

static const char *const groups[] = { "", "g", "g/c" };
static const char *const group_files[] = { "cpu.dl_runtime_us", "cpu.dl_period_us", "cpu.dl_total_bw" };
#define N_GROUPS ARRAY_SIZE(groups)
#define N_FILES ARRAY_SIZE(group_files)
/* How many of groups[] exist (0 before the set-up and after the clean-up). */
static unsigned int groups_made;

struct task_state {
	struct sched_attr attr;
	struct sched_param_ex param;
	struct rlimit64 limit[2];	/* RLIMIT_DLDLINE, RLIMIT_DLRTIME */
	int err;			/* -errno of the first read that failed */
};

struct state {
	long long sysctl[N_SYSCTLS];
	long long group[N_GROUPS][N_FILES];
	struct task_state task;
};

/* A value that could not be read. */
#define UNREAD LLONG_MIN

static void task_snapshot(struct task_state *t)
{
	memset(t, 0, sizeof(*t));
	if (dlsched_sched_getattr(0, &t->attr, sizeof(t->attr), 0) ||
	    sched_getparam_ex(0, sizeof(t->param), &t->param))
		t->err = -errno;
	if (!t->err)
		t->err = get_limit(0, RLIMIT_DLDLINE, &t->limit[0]);
	if (!t->err)
		t->err = get_limit(0, RLIMIT_DLRTIME, &t->limit[1]);
}

static void snapshot(struct state *s)
{
	unsigned int i, j;

	for (i = 0; i < N_SYSCTLS; i++)
		if (read_ll(sysctl_paths[i], &s->sysctl[i]))
			s->sysctl[i] = UNREAD;
	for (i = 0; i < N_GROUPS; i++)
		for (j = 0; j < N_FILES; j++)
			if (i >= groups_made || read_ll(cg_path(groups[i], group_files[j]), &s->group[i][j]))
				s->group[i][j] = UNREAD;
	task_snapshot(&s->task);
}

static bool same_ll(const char *what, const char *file, long long before, long long now)
{
	if (before != now)
		ksft_print_msg("changed: %s%s%s %lld -> %lld\n", what, *what ? " " : "", file, before, now);
	return before == now;
}

static bool same_task(const struct task_state *a, const struct task_state *b)
{
	bool same = true;

	if (a->err || b->err) {
		ksft_print_msg("reading the task's state: %s / %s\n", strerror(-a->err), strerror(-b->err));
		return false;
	}
	if (memcmp(&a->attr, &b->attr, sizeof(a->attr))) {
		ksft_print_msg("changed: sched_getattr policy %u (%llu, %llu, %llu) flags %#llx prio %u nice %d -> policy %u (%llu, %llu, %llu) flags %#llx prio %u nice %d\n",
			       a->attr.sched_policy, (unsigned long long)a->attr.sched_runtime,
			       (unsigned long long)a->attr.sched_deadline,
			       (unsigned long long)a->attr.sched_period,
			       (unsigned long long)a->attr.sched_flags, a->attr.sched_priority,
			       a->attr.sched_nice, b->attr.sched_policy,
			       (unsigned long long)b->attr.sched_runtime,
			       (unsigned long long)b->attr.sched_deadline,
			       (unsigned long long)b->attr.sched_period,
			       (unsigned long long)b->attr.sched_flags, b->attr.sched_priority,
			       b->attr.sched_nice);
		same = false;
	}
	if (memcmp(&a->param, &b->param, sizeof(a->param))) {
		ksft_print_msg("changed: sched_getparam_ex\n");
		same = false;
	}
	if (memcmp(a->limit, b->limit, sizeof(a->limit))) {
		ksft_print_msg("changed: RLIMIT_DLDLINE %llu/%llu RLIMIT_DLRTIME %llu/%llu -> %llu/%llu %llu/%llu\n",
			       (unsigned long long)a->limit[0].rlim_cur,
			       (unsigned long long)a->limit[0].rlim_max,
			       (unsigned long long)a->limit[1].rlim_cur,
			       (unsigned long long)a->limit[1].rlim_max,
			       (unsigned long long)b->limit[0].rlim_cur,
			       (unsigned long long)b->limit[0].rlim_max,
			       (unsigned long long)b->limit[1].rlim_cur,
			       (unsigned long long)b->limit[1].rlim_max);
		same = false;
	}
	return same;
}

static bool same_state(const struct state *a, const struct state *b)
{
	bool same = true;
	unsigned int i, j;

	for (i = 0; i < N_SYSCTLS; i++)
		same &= same_ll("", sysctl_paths[i], a->sysctl[i], b->sysctl[i]);
	for (i = 0; i < N_GROUPS; i++)
		for (j = 0; j < N_FILES; j++)
			same &= same_ll(*groups[i] ? groups[i] : "(test group)", group_files[j],
					a->group[i][j], b->group[i][j]);
	same &= same_task(&a->task, &b->task);
	return same;
}

/*
 * A refused value that changed something anyway: put back what can be
 * put back, so that one failure does not fail every later case.
 */
static void restore(const struct state *s)
{
	unsigned int i;

	/* The coupling may refuse one order: the dl side to 0 first, as set_dl_pool(). */
	write_ll(SYSCTL_DL_RUNTIME, 0);
	write_ll(SYSCTL_RT_PERIOD, s->sysctl[4]);
	write_ll(SYSCTL_RT_RUNTIME, s->sysctl[3]);
	write_ll(SYSCTL_DL_PERIOD, s->sysctl[1]);
	write_ll(SYSCTL_DL_RUNTIME, s->sysctl[0]);
	for (i = 0; i < groups_made; i++) {
		cg_write_ll(groups[i], "cpu.dl_period_us", s->group[i][1]);
		cg_write_ll(groups[i], "cpu.dl_runtime_us", s->group[i][0]);
	}
	if (!s->task.err) {
		struct sched_attr a = s->task.attr;

		a.size = sizeof(a);
		dlsched_sched_setattr(0, &a, 0);
		set_limit(0, RLIMIT_DLDLINE, s->task.limit[0].rlim_cur, s->task.limit[0].rlim_max);
		set_limit(0, RLIMIT_DLRTIME, s->task.limit[1].rlim_cur, s->task.limit[1].rlim_max);
	}
}

/* --- running a case ---------------------------------------------------- */

static const char *errname(int err)
{
	switch (err) {
	case 0: return "success";
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EBUSY: return "EBUSY";
	case ESRCH: return "ESRCH";
	case E2BIG: return "E2BIG";
	case EINTR: return "EINTR";
	default: return strerror(err);
	}
}

/* Codes a child exits with besides an errno. */
#define CHILD_CHANGED 200
#define CHILD_SETUP 201

/* The baseline of the running section: what every case must leave. */
static struct state baseline;

/* Report a case: @got is -errno (or a CHILD_* code), @want an errno. */
static void report(const char *area, const char *what, int got, int want)
{
	struct state now;
	bool same;

	snapshot(&now);
	same = same_state(&baseline, &now);
	if (got != -want)
		ksft_print_msg("%s: %s: got %s, want %s\n", area, what,
			       got == -CHILD_CHANGED ? "a change of the child's own state" :
			       got == -CHILD_SETUP ? "a failed set-up in the child" : errname(-got),
			       errname(want));
	ksft_test_result(got == -want && same, "%s: %s: %s, nothing changed\n", area, what,
			 errname(want));
	if (!same)
		restore(&baseline);
}

/*
 * Run @fn(@arg) in a child that dropped its privileges (after setting the
 * rlimits of the unprivileged rlimit cases when @with_limits) and return
 * its result, -errno; or -CHILD_CHANGED when its own task state changed.
 */
static int unprivileged(int (*fn)(const void *), const void *arg, bool with_limits)
{
	int status, ret;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		struct task_state before, after;

		if ((with_limits && (set_limit(0, RLIMIT_DLDLINE, 10000, 10000) ||
				     set_limit(0, RLIMIT_DLRTIME, 1000, 2000))) ||
		    drop_privileges())
			_exit(CHILD_SETUP);
		task_snapshot(&before);
		ret = fn(arg);
		task_snapshot(&after);
		fflush(stdout);
		_exit(same_task(&before, &after) ? -ret : CHILD_CHANGED);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -CHILD_SETUP;
	return -WEXITSTATUS(status);
}

/*
 * Pointers a case may pass instead of its own structure: a page that is
 * writable, then one without access, then a read-only one.
 */
enum ptr {
	P_ARG,		/* the case's own, valid structure */
	P_NULL,
	P_ONE,		/* (void *)1 */
	P_KERNEL,	/* a kernel address */
	P_NONE,		/* an unmapped (PROT_NONE) page */
	P_STRADDLE,	/* the structure, its last 8 bytes in the PROT_NONE page */
	P_RDONLY,	/* the structure in a read-only page (for the kernel to write) */
};

static char *pages;
static size_t page_size;

static void map_pages(void)
{
	page_size = sysconf(_SC_PAGESIZE);
	pages = mmap(NULL, 3 * page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED || mprotect(pages + page_size, page_size, PROT_NONE))
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
}

static void *ptr_for(enum ptr kind, const void *arg, size_t size)
{
	char *p;

	switch (kind) {
	case P_ARG:
		return (void *)arg;
	case P_NULL:
		return NULL;
	case P_ONE:
		return (void *)1;
	case P_KERNEL:
		return (void *)(uintptr_t)0xffffffff81000000ULL;
	case P_NONE:
		return pages + page_size;
	case P_STRADDLE:
		p = pages + page_size - (size - 8);
		memcpy(p, arg, size - 8);
		return p;
	case P_RDONLY:
		p = pages + 2 * page_size;
		if (mprotect(p, page_size, PROT_READ | PROT_WRITE))
			ksft_exit_fail_msg("mprotect: %s\n", strerror(errno));
		memcpy(p, arg, size);
		if (mprotect(p, page_size, PROT_READ))
			ksft_exit_fail_msg("mprotect: %s\n", strerror(errno));
		return p;
	}
	return NULL;
}

/* --- the sysctls -------------------------------------------------------- */

struct file_case {
	const char *what;
	const char *path;	/* a sysctl; for a cgroup file: the group */
	const char *file;	/* the cgroup file, NULL for a sysctl */
	const char *val;
	int err;
	bool unpriv;
};

static int write_case(const void *arg)
{
	const struct file_case *c = arg;

	return write_str(c->file ? cg_path(c->path, c->file) : c->path, c->val);
}

static void run_file_cases(const char *area, const struct file_case *cases, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		report(area, cases[i].what,
		       cases[i].unpriv ? unprivileged(write_case, &cases[i], false) :
					 write_case(&cases[i]),
		       cases[i].err);
}

/* The first CPU that is not online (absent, or offlined by hotplug). */
static int first_offline_cpu(void)
{
	char path[64];
	long long online = 1;
	int cpu;

	for (cpu = 0; cpu < 4096; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
		if (access(path, F_OK))
			return cpu;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
		/* No such file: a CPU that cannot go offline (the boot CPU). */
		if (!read_ll(path, &online) && !online)
			return cpu;
	}
	return cpu;
}

#define R SYSCTL_DL_RUNTIME
#define P SYSCTL_DL_PERIOD
#define T SYSCTL_DL_TOTAL

static void sysctls(void)
{
	static char offline_cpu[16];
	const struct file_case cases[] = {
		/* proc_dointvec_minmax(): -1..INT_MAX, 1..INT_MAX, decimal or 0x/0 prefixed */
		{ "sched_dl_runtime_us 'abc'", R, NULL, "abc", EINVAL, false },
		{ "sched_dl_runtime_us '12x'", R, NULL, "12x", EINVAL, false },
		{ "sched_dl_runtime_us '1.5'", R, NULL, "1.5", EINVAL, false },
		{ "sched_dl_runtime_us '1e3'", R, NULL, "1e3", EINVAL, false },
		{ "sched_dl_runtime_us '+5'", R, NULL, "+5", EINVAL, false },
		{ "sched_dl_runtime_us '--1'", R, NULL, "--1", EINVAL, false },
		{ "sched_dl_runtime_us '-'", R, NULL, "-", EINVAL, false },
		{ "sched_dl_runtime_us '0xZZ'", R, NULL, "0xZZ", EINVAL, false },
		{ "sched_dl_runtime_us newline only", R, NULL, "\n", EINVAL, false },
		{ "sched_dl_runtime_us blanks only", R, NULL, "  \t", EINVAL, false },
		{ "sched_dl_runtime_us -2", R, NULL, "-2", EINVAL, false },
		{ "sched_dl_runtime_us INT_MIN", R, NULL, "-2147483648", EINVAL, false },
		{ "sched_dl_runtime_us INT_MAX + 1", R, NULL, "2147483648", EINVAL, false },
		{ "sched_dl_runtime_us 2^32", R, NULL, "4294967296", EINVAL, false },
		{ "sched_dl_runtime_us 23 digits", R, NULL, "99999999999999999999999", EINVAL, false },
		{ "sched_dl_runtime_us > period", R, NULL, "1000001", EINVAL, false },
		{ "sched_dl_runtime_us: rt + dl > 100 %", R, NULL, "250001", EINVAL, false },
		{ "sched_dl_runtime_us below what is allocated", R, NULL, "124999", EBUSY, false },
		{ "sched_dl_runtime_us 0 with a reservation", R, NULL, "0", EBUSY, false },
		{ "sched_dl_period_us 0", P, NULL, "0", EINVAL, false },
		{ "sched_dl_period_us -1", P, NULL, "-1", EINVAL, false },
		{ "sched_dl_period_us 'abc'", P, NULL, "abc", EINVAL, false },
		{ "sched_dl_period_us '1000000x'", P, NULL, "1000000x", EINVAL, false },
		{ "sched_dl_period_us INT_MAX + 1", P, NULL, "2147483648", EINVAL, false },
		{ "sched_dl_period_us 23 digits", P, NULL, "99999999999999999999999", EINVAL, false },
		{ "sched_dl_period_us newline only", P, NULL, "\n", EINVAL, false },
		{ "sched_dl_period_us < runtime", P, NULL, "249999", EINVAL, false },
		{ "sched_dl_period_us: rt + dl > 100 %", P, NULL, "999999", EINVAL, false },
		{ "sched_dl_period_us below what is allocated", P, NULL, "2000001", EBUSY, false },
		{ "sched_dl_period_us INT_MAX below what is allocated", P, NULL, "2147483647", EBUSY, false },
		/* the rt side of the coupling */
		{ "sched_rt_runtime_us: rt + dl > 100 %", SYSCTL_RT_RUNTIME, NULL, "750001", EINVAL, false },
		{ "sched_rt_period_us: rt + dl > 100 %", SYSCTL_RT_PERIOD, NULL, "999999", EINVAL, false },
		/* the CPU sched_dl_total_bw reports on: an online one */
		{ "sched_dl_total_bw CPU -1", T, NULL, "-1", EINVAL, false },
		{ "sched_dl_total_bw first CPU not online", T, NULL, offline_cpu, EINVAL, false },
		{ "sched_dl_total_bw CPU 4096", T, NULL, "4096", EINVAL, false },
		{ "sched_dl_total_bw CPU INT_MAX + 1", T, NULL, "2147483648", EINVAL, false },
		{ "sched_dl_total_bw 'zero'", T, NULL, "zero", EINVAL, false },
		{ "sched_dl_total_bw '0x'", T, NULL, "0x", EINVAL, false },
		{ "sched_dl_total_bw newline only", T, NULL, "\n", EINVAL, false },
		/* root only (mode 0644) */
		{ "sched_dl_runtime_us as nobody", R, NULL, "50000", EACCES, true },
		{ "sched_dl_period_us as nobody", P, NULL, "1000000", EACCES, true },
		{ "sched_dl_total_bw as nobody", T, NULL, "0", EACCES, true },
	};

	_Static_assert(ARRAY_SIZE(cases) == SYSCTL_CASES, "SYSCTL_CASES");
	snprintf(offline_cpu, sizeof(offline_cpu), "%d", first_offline_cpu());
	run_file_cases("sysctl", cases, ARRAY_SIZE(cases));
}

#undef R
#undef P
#undef T

/* --- the cgroup files ----------------------------------------------------- */

#define RT "cpu.dl_runtime_us"
#define PE "cpu.dl_period_us"
#define TO "cpu.dl_total_bw"

static void cgroup_files(void)
{
	/* g: 125000/1000000 holding g/c: 62500/1000000, in a pool of 1/4 */
	const struct file_case cases[] = {
		/* cpu_dl_parse_us(): kstrtoll(strstrip(buf), 10), -1..INT_MAX and 1..INT_MAX */
		{ "runtime -2", "g", RT, "-2", EINVAL, false },
		{ "runtime LLONG_MIN", "g", RT, "-9223372036854775808", EINVAL, false },
		{ "runtime below LLONG_MIN", "g", RT, "-9223372036854775809", EINVAL, false },
		{ "runtime INT_MAX + 1", "g", RT, "2147483648", EINVAL, false },
		{ "runtime LLONG_MAX", "g", RT, "9223372036854775807", EINVAL, false },
		{ "runtime 23 digits", "g", RT, "99999999999999999999999", EINVAL, false },
		{ "runtime 'abc'", "g", RT, "abc", EINVAL, false },
		{ "runtime '12x'", "g", RT, "12x", EINVAL, false },
		{ "runtime newline only", "g", RT, "\n", EINVAL, false },
		{ "runtime blanks only", "g", RT, " \t ", EINVAL, false },
		{ "runtime hex '0x10'", "g", RT, "0x10", EINVAL, false },
		{ "runtime '1e3'", "g", RT, "1e3", EINVAL, false },
		{ "runtime '1.5'", "g", RT, "1.5", EINVAL, false },
		{ "runtime '1 2' (space inside)", "g", RT, "1 2", EINVAL, false },
		{ "runtime '1\\t2' (tab inside)", "g", RT, "1\t2", EINVAL, false },
		{ "runtime '--1'", "g", RT, "--1", EINVAL, false },
		{ "runtime '+-1'", "g", RT, "+-1", EINVAL, false },
		{ "runtime '-+1'", "g", RT, "-+1", EINVAL, false },
		{ "runtime '++1'", "g", RT, "++1", EINVAL, false },
		{ "runtime '-'", "g", RT, "-", EINVAL, false },
		{ "runtime '+'", "g", RT, "+", EINVAL, false },
		{ "runtime '- 1'", "g", RT, "- 1", EINVAL, false },
		{ "runtime '0b101'", "g", RT, "0b101", EINVAL, false },
		{ "runtime > period", "g", RT, "1000001", EINVAL, false },
		{ "runtime not fitting in the pool", "g", RT, "250001", EBUSY, false },
		{ "runtime below what the group holds", "g", RT, "62499", EBUSY, false },
		{ "runtime 0 while the group holds some", "g", RT, "0", EBUSY, false },
		{ "child runtime not fitting in its parent", "g/c", RT, "125001", EBUSY, false },
		{ "period 0", "g", PE, "0", EINVAL, false },
		{ "period -1", "g", PE, "-1", EINVAL, false },
		{ "period -2", "g", PE, "-2", EINVAL, false },
		{ "period INT_MAX + 1", "g", PE, "2147483648", EINVAL, false },
		{ "period 23 digits", "g", PE, "99999999999999999999999", EINVAL, false },
		{ "period 'abc'", "g", PE, "abc", EINVAL, false },
		{ "period newline only", "g", PE, "\n", EINVAL, false },
		{ "period hex '0xf4240'", "g", PE, "0xf4240", EINVAL, false },
		{ "period '1 000 000'", "g", PE, "1 000 000", EINVAL, false },
		{ "period '1e6'", "g", PE, "1e6", EINVAL, false },
		{ "period < runtime", "g", PE, "124999", EINVAL, false },
		{ "period below what the group holds", "g", PE, "2000001", EBUSY, false },
		{ "child period not fitting in its parent", "g/c", PE, "499000", EBUSY, false },
		/* no write handler: cgroup_file_write() says EINVAL (root passes the 0444 mode) */
		{ "cpu.dl_total_bw '0' (read-only)", "g", TO, "0", EINVAL, false },
		{ "cpu.dl_total_bw '-1' (read-only)", "g/c", TO, "-1", EINVAL, false },
		{ "cpu.dl_total_bw of the test group (read-only)", "", TO, "0", EINVAL, false },
		/* the files are root's, 0644 and 0444 */
		{ "runtime as nobody", "g", RT, "-1", EACCES, true },
		{ "period as nobody", "g", PE, "1000000", EACCES, true },
		{ "cpu.dl_total_bw as nobody", "g", TO, "0", EACCES, true },
	};

	_Static_assert(ARRAY_SIZE(cases) == CGROUP_CASES, "CGROUP_CASES");
	run_file_cases(cg_v1 ? "cgroup v1" : "cgroup v2", cases, ARRAY_SIZE(cases));
}

#undef RT
#undef PE
#undef TO

/* --- the system calls ------------------------------------------------------ */

enum call { WAIT, SET_EX, SETPARAM_EX, GET_EX, SETATTR };

/* When a case runs: as SCHED_OTHER, as nobody, or as a deadline task. */
enum phase { AS_OTHER, AS_NOBODY, AS_DEADLINE };

/* A struct sched_attr with room for a larger size's tail. */
struct attr_buf {
	struct sched_attr a;
	unsigned char tail[8];
};

struct sys_case {
	const char *what;
	enum call call;
	enum phase phase;
	int err;
	enum ptr ptr;		/* rqtp, param or attr */
	pid_t pid;
	int policy;		/* SET_EX */
	unsigned int len;	/* SET_EX, SETPARAM_EX, GET_EX; 0: sizeof(struct sched_param_ex) */
	struct sched_param_ex p;
	struct __kernel_timespec ts;	/* WAIT: *rqtp */
	bool interrupt;		/* WAIT: a signal interrupts it, the remainder goes to rmtp */
	enum ptr rmtp;
	struct attr_buf attr;	/* SETATTR */
	unsigned int flags;	/* SETATTR: the flags argument */
};

#define MSEC NSEC_PER_MSEC
#define USEC NSEC_PER_USEC
#define NO_PID 0x3fffffff	/* above PID_MAX_LIMIT */

static struct sched_param_ex px(uint64_t runtime, uint64_t deadline, uint64_t period,
				unsigned int flags)
{
	struct sched_param_ex p;

	memset(&p, 0, sizeof(p));
	p.sched_runtime = (struct __kernel_timespec){ runtime / NSEC_PER_SEC, runtime % NSEC_PER_SEC };
	p.sched_deadline = (struct __kernel_timespec){ deadline / NSEC_PER_SEC, deadline % NSEC_PER_SEC };
	p.sched_period = (struct __kernel_timespec){ period / NSEC_PER_SEC, period % NSEC_PER_SEC };
	p.sched_flags = flags;
	return p;
}

/* Valid deadline parameters, with these reserved fields. */
static struct sched_param_ex px_rsv(unsigned int rsv1, unsigned int rsv2)
{
	struct sched_param_ex p = px(10 * MSEC, 100 * MSEC, 100 * MSEC, 0);

	p.__reserved1 = rsv1;
	p.__reserved2 = rsv2;
	return p;
}

/* Valid deadline parameters but for one timespec: 0 runtime, 1 deadline, 2 period. */
static struct sched_param_ex px_ts(int which, long long sec, long long nsec)
{
	struct sched_param_ex p = px(10 * MSEC, 100 * MSEC, 100 * MSEC, 0);
	struct __kernel_timespec *ts = which == 0 ? &p.sched_runtime :
				       which == 1 ? &p.sched_deadline : &p.sched_period;

	ts->tv_sec = sec;
	ts->tv_nsec = nsec;
	return p;
}

/* An RT or normal policy's parameters: a priority, no deadline fields. */
static struct sched_param_ex px_prio(int prio)
{
	struct sched_param_ex p = px(0, 0, 0, 0);

	p.sched_priority = prio;
	return p;
}

/* Valid deadline parameters with a priority, which only RT policies take. */
static struct sched_param_ex px_dl_prio(int prio)
{
	struct sched_param_ex p = px(10 * MSEC, 100 * MSEC, 100 * MSEC, 0);

	p.sched_priority = prio;
	return p;
}

static struct attr_buf ab(unsigned int policy, uint64_t runtime, uint64_t deadline, uint64_t period,
			  uint64_t flags)
{
	struct attr_buf b;

	memset(&b, 0, sizeof(b));
	b.a.size = sizeof(b.a);
	b.a.sched_policy = policy;
	b.a.sched_flags = flags;
	b.a.sched_runtime = runtime;
	b.a.sched_deadline = deadline;
	b.a.sched_period = period;
	return b;
}

static struct attr_buf ab_size(unsigned int size, bool tail)
{
	struct attr_buf b = ab(SCHED_DEADLINE, 10 * MSEC, 100 * MSEC, 100 * MSEC, SCHED_FLAG_DL_DMISS);

	b.a.size = size;
	if (tail)
		b.tail[7] = 1;
	return b;
}

/* SCHED_FLAG_UTIL_CLAMP needs SCHED_ATTR_SIZE_VER1: offer VER0's 48 bytes. */
static struct attr_buf ab_clamp_ver0(void)
{
	struct attr_buf b = ab(SCHED_DEADLINE, 10 * MSEC, 100 * MSEC, 100 * MSEC,
			       SCHED_FLAG_DL_DMISS | SCHED_FLAG_UTIL_CLAMP_MIN);

	b.a.size = SCHED_ATTR_SIZE_VER0;
	return b;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* SIGALRM in 20 ms, with a handler and no SA_RESTART: interrupts a sleep. */
static void alarm_soon(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { .tv_usec = 20000 } };

	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL))
		ksft_exit_fail_msg("alarm: %s\n", strerror(errno));
}

static int sys_case(const void *arg)
{
	const struct sys_case *c = arg;
	unsigned int len = c->len ? c->len : sizeof(struct sched_param_ex);
	struct sched_param_ex out;
	struct __kernel_timespec ts = c->ts;
	/* The kernel writes the size it knows into an attr it refuses as E2BIG. */
	struct attr_buf attr = c->attr;
	long ret = -1;

	switch (c->call) {
	case WAIT:
		if (c->interrupt) {
			/* Over a second ahead: the alarm, 20 ms away, comes first. */
			ts.tv_sec += now_ns() / NSEC_PER_SEC + 2;
			alarm_soon();
		}
		ret = dlsched_sched_wait_interval(ptr_for(c->ptr, &ts, sizeof(ts)),
						  c->interrupt ? ptr_for(c->rmtp, &ts, sizeof(ts)) : NULL);
		break;
	case SET_EX:
		ret = dlsched_sched_setscheduler_ex(c->pid, c->policy, len,
						    ptr_for(c->ptr, &c->p, sizeof(c->p)));
		break;
	case SETPARAM_EX:
		ret = dlsched_sched_setparam_ex(c->pid, len, ptr_for(c->ptr, &c->p, sizeof(c->p)));
		break;
	case GET_EX:
		memset(&out, 0, sizeof(out));
		ret = dlsched_sched_getparam_ex(c->pid, len, ptr_for(c->ptr, &out, sizeof(out)));
		break;
	case SETATTR:
		ret = dlsched_sched_setattr(c->pid, ptr_for(c->ptr, &attr, sizeof(attr.a)), c->flags);
		break;
	}
	return ret ? -errno : 0;
}

static void syscalls(void)
{
	const uint64_t Q = 10 * MSEC, D = 100 * MSEC;
	const uint64_t DMISS = SCHED_FLAG_DL_DMISS;
	const struct sys_case cases[] = {
		/* sched_wait_interval(rqtp, rmtp): EFAULT, then EINVAL for the timespec */
		{ "sched_wait_interval NULL rqtp as SCHED_OTHER", WAIT, AS_OTHER, EINVAL, .ptr = P_NULL },
		{ "sched_wait_interval rqtp (void *)1", WAIT, AS_OTHER, EFAULT, .ptr = P_ONE },
		{ "sched_wait_interval rqtp in the kernel", WAIT, AS_OTHER, EFAULT, .ptr = P_KERNEL },
		{ "sched_wait_interval rqtp unmapped", WAIT, AS_OTHER, EFAULT, .ptr = P_NONE },
		{ "sched_wait_interval rqtp half mapped", WAIT, AS_OTHER, EFAULT, .ptr = P_STRADDLE },
		{ "sched_wait_interval tv_nsec 1e9", WAIT, AS_OTHER, EINVAL, .ts = { 0, NSEC_PER_SEC } },
		{ "sched_wait_interval tv_nsec -1", WAIT, AS_OTHER, EINVAL, .ts = { 0, -1 } },
		{ "sched_wait_interval tv_nsec LLONG_MAX", WAIT, AS_OTHER, EINVAL, .ts = { 0, LLONG_MAX } },
		{ "sched_wait_interval tv_nsec LLONG_MIN", WAIT, AS_OTHER, EINVAL, .ts = { 0, LLONG_MIN } },
		{ "sched_wait_interval tv_sec -1", WAIT, AS_OTHER, EINVAL, .ts = { -1, 0 } },
		{ "sched_wait_interval tv_sec LLONG_MIN", WAIT, AS_OTHER, EINVAL, .ts = { LLONG_MIN, 0 } },
		{ "sched_wait_interval tv_sec -1, tv_nsec 1e9", WAIT, AS_OTHER, EINVAL,
		  .ts = { -1, NSEC_PER_SEC } },
		{ "sched_wait_interval interrupted, rmtp (void *)1", WAIT, AS_OTHER, EFAULT,
		  .interrupt = true, .rmtp = P_ONE },
		{ "sched_wait_interval interrupted, rmtp read-only", WAIT, AS_OTHER, EFAULT,
		  .interrupt = true, .rmtp = P_RDONLY },
		{ "sched_wait_interval interrupted, rmtp in the kernel", WAIT, AS_OTHER, EFAULT,
		  .interrupt = true, .rmtp = P_KERNEL },
		{ "sched_wait_interval as deadline task, rqtp (void *)1", WAIT, AS_DEADLINE, EFAULT,
		  .ptr = P_ONE },
		{ "sched_wait_interval as deadline task, rqtp half mapped", WAIT, AS_DEADLINE, EFAULT,
		  .ptr = P_STRADDLE },
		{ "sched_wait_interval as deadline task, tv_nsec 1e9", WAIT, AS_DEADLINE, EINVAL,
		  .ts = { 0, NSEC_PER_SEC } },
		{ "sched_wait_interval as deadline task, tv_nsec -1", WAIT, AS_DEADLINE, EINVAL,
		  .ts = { 0, -1 } },
		{ "sched_wait_interval as deadline task, tv_sec -1", WAIT, AS_DEADLINE, EINVAL,
		  .ts = { -1, 0 } },

		/* sched_setscheduler_ex(pid, policy, len, param) */
		{ "sched_setscheduler_ex NULL param", SET_EX, AS_OTHER, EINVAL, .ptr = P_NULL,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex param (void *)1", SET_EX, AS_OTHER, EFAULT, .ptr = P_ONE,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex param in the kernel", SET_EX, AS_OTHER, EFAULT, .ptr = P_KERNEL,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex param unmapped", SET_EX, AS_OTHER, EFAULT, .ptr = P_NONE,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex param half mapped", SET_EX, AS_OTHER, EFAULT, .ptr = P_STRADDLE,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex pid -1", SET_EX, AS_OTHER, EINVAL, .pid = -1,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex pid INT_MIN", SET_EX, AS_OTHER, EINVAL, .pid = INT_MIN,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex no such pid", SET_EX, AS_OTHER, ESRCH, .pid = NO_PID,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex policy -1", SET_EX, AS_OTHER, EINVAL, .policy = -1,
		  .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex policy INT_MIN", SET_EX, AS_OTHER, EINVAL, .policy = INT_MIN,
		  .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex policy 4", SET_EX, AS_OTHER, EINVAL, .policy = 4,
		  .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex policy 7", SET_EX, AS_OTHER, EINVAL, .policy = 7,
		  .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex policy SCHED_DEADLINE | 0x20000000", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE | 0x20000000, .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex len 65", SET_EX, AS_OTHER, EINVAL, .len = 65,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex len 4096", SET_EX, AS_OTHER, EINVAL, .len = 4096,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex len UINT_MAX", SET_EX, AS_OTHER, EINVAL, .len = UINT_MAX,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex len 4 (no runtime)", SET_EX, AS_OTHER, EINVAL, .len = 4,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex sched_flags 0x1", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0x1) },
		{ "sched_setscheduler_ex sched_flags 0x20000000", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0x20000000) },
		{ "sched_setscheduler_ex sched_flags 0xffffffff", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0xffffffff) },
		{ "sched_setscheduler_ex sched_flags SCHED_SIG_* | 0x1", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, D, SCHED_SIG_RORUN | SCHED_SIG_DMISS | 0x1) },
		{ "sched_setscheduler_ex __reserved1 1", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px_rsv(1, 0) },
		{ "sched_setscheduler_ex __reserved1 0x80000000", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px_rsv(0x80000000, 0) },
		{ "sched_setscheduler_ex __reserved2 1", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px_rsv(0, 1) },
		{ "sched_setscheduler_ex __reserved fields to SCHED_OTHER", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_OTHER, .p = px_rsv(1, 1) },
		{ "sched_setscheduler_ex runtime tv_nsec 1e9", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px_ts(0, 0, NSEC_PER_SEC) },
		{ "sched_setscheduler_ex runtime tv_nsec -1", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px_ts(0, 0, -1) },
		{ "sched_setscheduler_ex deadline tv_nsec -1", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px_ts(1, 0, -1) },
		{ "sched_setscheduler_ex period tv_nsec LLONG_MAX", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px_ts(2, 0, LLONG_MAX) },
		{ "sched_setscheduler_ex runtime tv_sec -1", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px_ts(0, -1, 0) },
		{ "sched_setscheduler_ex period tv_sec LLONG_MIN", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px_ts(2, LLONG_MIN, 0) },
		{ "sched_setscheduler_ex deadline tv_sec LLONG_MAX", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px_ts(1, LLONG_MAX, 0) },
		{ "sched_setscheduler_ex runtime > deadline", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px(D, Q, D, 0) },
		{ "sched_setscheduler_ex deadline > period", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px(Q, D, Q, 0) },
		{ "sched_setscheduler_ex runtime 0", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px(0, D, D, 0) },
		{ "sched_setscheduler_ex runtime 1023 ns", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px(1023, D, D, 0) },
		{ "sched_setscheduler_ex deadline 0", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_DEADLINE, .p = px(Q, 0, D, 0) },
		{ "sched_setscheduler_ex period 5 s (> sched_deadline_period_max_us)", SET_EX, AS_OTHER,
		  EINVAL, .policy = SCHED_DEADLINE, .p = px(Q, D, 5000 * MSEC, 0) },
		{ "sched_setscheduler_ex period 99 us (< sched_deadline_period_min_us)", SET_EX,
		  AS_OTHER, EINVAL, .policy = SCHED_DEADLINE, .p = px(50 * USEC, 99 * USEC, 99 * USEC, 0) },
		{ "sched_setscheduler_ex SCHED_DEADLINE | SCHED_RESET_ON_FORK, runtime > deadline",
		  SET_EX, AS_OTHER, EINVAL, .policy = SCHED_DEADLINE | SCHED_RESET_ON_FORK,
		  .p = px(D, Q, D, 0) },
		{ "sched_setscheduler_ex SCHED_FIFO priority 100", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_FIFO, .p = px_prio(100) },
		{ "sched_setscheduler_ex SCHED_FIFO priority 0", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_FIFO, .p = px_prio(0) },
		{ "sched_setscheduler_ex SCHED_FIFO priority -1", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_FIFO, .p = px_prio(-1) },
		{ "sched_setscheduler_ex SCHED_OTHER priority 1", SET_EX, AS_OTHER, EINVAL,
		  .policy = SCHED_OTHER, .p = px_prio(1) },
		{ "sched_setscheduler_ex SCHED_DEADLINE as nobody (default rlimits)", SET_EX, AS_NOBODY,
		  EPERM, .policy = SCHED_DEADLINE, .p = px(Q, D, D, 0) },
		{ "sched_setscheduler_ex SCHED_FIFO as nobody", SET_EX, AS_NOBODY, EPERM,
		  .policy = SCHED_FIFO, .p = px_prio(1) },
		{ "sched_setscheduler_ex on init as nobody", SET_EX, AS_NOBODY, EPERM, .pid = 1,
		  .policy = SCHED_OTHER, .p = px_prio(0) },

		/* sched_setparam_ex(pid, len, param), as SCHED_OTHER and as a deadline task */
		{ "sched_setparam_ex NULL param", SETPARAM_EX, AS_OTHER, EINVAL, .ptr = P_NULL,
		  .p = px_prio(0) },
		{ "sched_setparam_ex param (void *)1", SETPARAM_EX, AS_OTHER, EFAULT, .ptr = P_ONE },
		{ "sched_setparam_ex param half mapped", SETPARAM_EX, AS_OTHER, EFAULT,
		  .ptr = P_STRADDLE, .p = px_prio(0) },
		{ "sched_setparam_ex pid -1", SETPARAM_EX, AS_OTHER, EINVAL, .pid = -1, .p = px_prio(0) },
		{ "sched_setparam_ex no such pid", SETPARAM_EX, AS_OTHER, ESRCH, .pid = NO_PID,
		  .p = px_prio(0) },
		{ "sched_setparam_ex len 65", SETPARAM_EX, AS_OTHER, EINVAL, .len = 65, .p = px_prio(0) },
		{ "sched_setparam_ex sched_flags 0x1 as SCHED_OTHER", SETPARAM_EX, AS_OTHER, EINVAL,
		  .p = px(0, 0, 0, 0x1) },
		{ "sched_setparam_ex __reserved2 as SCHED_OTHER", SETPARAM_EX, AS_OTHER, EINVAL,
		  .p = px_rsv(0, 0x80000000) },
		{ "sched_setparam_ex tv_nsec 1e9 as SCHED_OTHER", SETPARAM_EX, AS_OTHER, EINVAL,
		  .p = px_ts(2, 0, NSEC_PER_SEC) },
		{ "sched_setparam_ex priority 1 as SCHED_OTHER", SETPARAM_EX, AS_OTHER, EINVAL,
		  .p = px_prio(1) },
		{ "sched_setparam_ex on init as nobody", SETPARAM_EX, AS_NOBODY, EPERM, .pid = 1,
		  .p = px_prio(0) },
		{ "sched_setparam_ex as deadline task, NULL param", SETPARAM_EX, AS_DEADLINE, EINVAL,
		  .ptr = P_NULL, .p = px(Q, D, D, 0) },
		{ "sched_setparam_ex as deadline task, param unmapped", SETPARAM_EX, AS_DEADLINE, EFAULT,
		  .ptr = P_NONE, .p = px(Q, D, D, 0) },
		{ "sched_setparam_ex as deadline task, len 65", SETPARAM_EX, AS_DEADLINE, EINVAL,
		  .len = 65, .p = px(Q, D, D, 0) },
		{ "sched_setparam_ex as deadline task, len 8 (no runtime)", SETPARAM_EX, AS_DEADLINE,
		  EINVAL, .len = 8, .p = px(Q, D, D, 0) },
		{ "sched_setparam_ex as deadline task, sched_flags 0x40", SETPARAM_EX, AS_DEADLINE,
		  EINVAL, .p = px(Q, D, D, 0x40) },
		{ "sched_setparam_ex as deadline task, __reserved1", SETPARAM_EX, AS_DEADLINE, EINVAL,
		  .p = px_rsv(1, 0) },
		{ "sched_setparam_ex as deadline task, runtime > deadline", SETPARAM_EX, AS_DEADLINE,
		  EINVAL, .p = px(D, Q, D, 0) },
		{ "sched_setparam_ex as deadline task, deadline > period", SETPARAM_EX, AS_DEADLINE,
		  EINVAL, .p = px(Q, D, Q, 0) },
		{ "sched_setparam_ex as deadline task, runtime 0", SETPARAM_EX, AS_DEADLINE, EINVAL,
		  .p = px(0, D, D, 0) },
		{ "sched_setparam_ex as deadline task, period 5 s", SETPARAM_EX, AS_DEADLINE, EINVAL,
		  .p = px(Q, D, 5000 * MSEC, 0) },
		{ "sched_setparam_ex as deadline task, deadline tv_nsec 1e9", SETPARAM_EX, AS_DEADLINE,
		  EINVAL, .p = px_ts(1, 0, NSEC_PER_SEC) },
		{ "sched_setparam_ex as deadline task, runtime tv_sec -1", SETPARAM_EX, AS_DEADLINE,
		  EINVAL, .p = px_ts(0, -1, 0) },
		{ "sched_setparam_ex as deadline task, priority 1", SETPARAM_EX, AS_DEADLINE, EINVAL,
		  .p = px_dl_prio(1) },

		/* sched_getparam_ex(pid, len, param) */
		{ "sched_getparam_ex NULL param", GET_EX, AS_OTHER, EINVAL, .ptr = P_NULL },
		{ "sched_getparam_ex param (void *)1", GET_EX, AS_OTHER, EFAULT, .ptr = P_ONE },
		{ "sched_getparam_ex param in the kernel", GET_EX, AS_OTHER, EFAULT, .ptr = P_KERNEL },
		{ "sched_getparam_ex param unmapped", GET_EX, AS_OTHER, EFAULT, .ptr = P_NONE },
		{ "sched_getparam_ex param half mapped", GET_EX, AS_OTHER, EFAULT, .ptr = P_STRADDLE },
		{ "sched_getparam_ex param read-only", GET_EX, AS_OTHER, EFAULT, .ptr = P_RDONLY },
		{ "sched_getparam_ex pid -1", GET_EX, AS_OTHER, EINVAL, .pid = -1 },
		{ "sched_getparam_ex pid INT_MIN", GET_EX, AS_OTHER, EINVAL, .pid = INT_MIN },
		{ "sched_getparam_ex no such pid", GET_EX, AS_OTHER, ESRCH, .pid = NO_PID },
		{ "sched_getparam_ex len 65", GET_EX, AS_OTHER, EINVAL, .len = 65 },
		{ "sched_getparam_ex len UINT_MAX", GET_EX, AS_OTHER, EINVAL, .len = UINT_MAX },
		{ "sched_getparam_ex as deadline task, read-only", GET_EX, AS_DEADLINE, EFAULT,
		  .ptr = P_RDONLY },

		/* sched_setattr() with the series' SCHED_FLAG_DL_DMISS, mainline's rules */
		{ "sched_setattr DMISS, runtime > deadline", SETATTR, AS_OTHER, EINVAL,
		  .attr = ab(SCHED_DEADLINE, D, Q, D, DMISS) },
		{ "sched_setattr DMISS, deadline with bit 63", SETATTR, AS_OTHER, EINVAL,
		  .attr = ab(SCHED_DEADLINE, Q, 1ULL << 63, 0, DMISS) },
		{ "sched_setattr DMISS, period 5 s", SETATTR, AS_OTHER, EINVAL,
		  .attr = ab(SCHED_DEADLINE, Q, D, 5000 * MSEC, DMISS) },
		{ "sched_setattr DMISS | 0x100 (unknown flag)", SETATTR, AS_OTHER, EINVAL,
		  .attr = ab(SCHED_DEADLINE, Q, D, D, DMISS | 0x100) },
		{ "sched_setattr DMISS | 1 << 40", SETATTR, AS_OTHER, EINVAL,
		  .attr = ab(SCHED_DEADLINE, Q, D, D, DMISS | 1ULL << 40) },
		{ "sched_setattr DMISS | SCHED_FLAG_SUGOV (kernel only)", SETATTR, AS_OTHER, EINVAL,
		  .attr = ab(SCHED_DEADLINE, Q, D, D, DMISS | 0x10000000) },
		{ "sched_setattr DMISS | SCHED_FLAG_UTIL_CLAMP_MIN, size 48", SETATTR, AS_OTHER, EINVAL,
		  .attr = ab_clamp_ver0() },
		{ "sched_setattr DMISS, policy 42", SETATTR, AS_OTHER, EINVAL,
		  .attr = ab(42, Q, D, D, DMISS) },
		{ "sched_setattr DMISS, policy -1", SETATTR, AS_OTHER, EINVAL,
		  .attr = ab(-1, Q, D, D, DMISS) },
		{ "sched_setattr DMISS, size 1", SETATTR, AS_OTHER, E2BIG, .attr = ab_size(1, false) },
		{ "sched_setattr DMISS, size 47", SETATTR, AS_OTHER, E2BIG, .attr = ab_size(47, false) },
		{ "sched_setattr DMISS, size 4097", SETATTR, AS_OTHER, E2BIG,
		  .attr = ab_size(4097, false) },
		{ "sched_setattr DMISS, size 64 with a non-zero tail", SETATTR, AS_OTHER, E2BIG,
		  .attr = ab_size(64, true) },
		{ "sched_setattr DMISS, flags argument 1", SETATTR, AS_OTHER, EINVAL, .flags = 1,
		  .attr = ab(SCHED_DEADLINE, Q, D, D, DMISS) },
		{ "sched_setattr DMISS, pid -1", SETATTR, AS_OTHER, EINVAL, .pid = -1,
		  .attr = ab(SCHED_DEADLINE, Q, D, D, DMISS) },
		{ "sched_setattr DMISS, no such pid", SETATTR, AS_OTHER, ESRCH, .pid = NO_PID,
		  .attr = ab(SCHED_DEADLINE, Q, D, D, DMISS) },
		{ "sched_setattr NULL attr", SETATTR, AS_OTHER, EINVAL, .ptr = P_NULL },
		{ "sched_setattr attr (void *)1", SETATTR, AS_OTHER, EFAULT, .ptr = P_ONE },
		{ "sched_setattr DMISS, attr half mapped", SETATTR, AS_OTHER, EFAULT, .ptr = P_STRADDLE,
		  .attr = ab(SCHED_DEADLINE, Q, D, D, DMISS) },
		{ "sched_setattr DMISS as nobody (default rlimits)", SETATTR, AS_NOBODY, EPERM,
		  .attr = ab(SCHED_DEADLINE, Q, D, D, DMISS) },
		{ "sched_setattr as deadline task, DMISS | 0x100", SETATTR, AS_DEADLINE, EINVAL,
		  .attr = ab(SCHED_DEADLINE, Q, D, D, DMISS | 0x100) },
		{ "sched_setattr as deadline task, DMISS, runtime > deadline", SETATTR, AS_DEADLINE,
		  EINVAL, .attr = ab(SCHED_DEADLINE, D, Q, D, DMISS) },
	};
	struct sched_attr self;
	struct state other;
	enum phase phase;
	size_t i;
	int ret;

	_Static_assert(ARRAY_SIZE(cases) == SYSCALL_CASES, "SYSCALL_CASES");
	for (phase = AS_OTHER; phase <= AS_DEADLINE; phase++) {
		if (phase == AS_DEADLINE) {
			/*
			 * A constrained deadline task with both signals asked for:
			 * any parameter or flag a bad call let through shows. It
			 * does not mind missing a deadline meanwhile.
			 */
			signal(SIGXCPU, SIG_IGN);
			ret = dl_enter_admitted(5 * MSEC, 50 * MSEC, 100 * MSEC,
						SCHED_FLAG_DL_OVERRUN | SCHED_FLAG_DL_DMISS);
			if (ret)
				ksft_exit_fail_msg("enter SCHED_DEADLINE: %s\n", strerror(-ret));
			other = baseline;
			snapshot(&baseline);
		}
		for (i = 0; i < ARRAY_SIZE(cases); i++) {
			if (cases[i].phase != phase)
				continue;
			report("syscall", cases[i].what,
			       phase == AS_NOBODY ? unprivileged(sys_case, &cases[i], false) :
						    sys_case(&cases[i]),
			       cases[i].err);
		}
	}
	/* Back to SCHED_OTHER; the pool has our bandwidth back at the 0-lag time. */
	if (dl_leave() || dlsched_sched_getattr(0, &self, sizeof(self), 0) ||
	    self.sched_policy != SCHED_OTHER)
		ksft_exit_fail_msg("leave SCHED_DEADLINE: %s\n", strerror(errno));
	signal(SIGXCPU, SIG_DFL);
	wait_total(NULL, other.sysctl[TOTAL_BW]);
	baseline = other;
}


/* --- the rlimits --------------------------------------------------------- */

enum rcall { PRLIMIT, GETRLIMIT, SETRLIMIT };

struct rlim_case {
	const char *what;
	enum rcall call;
	unsigned int resource;
	struct rlimit64 val;	/* the new limits */
	enum ptr newp, oldp;	/* P_ARG: &val, and a valid buffer for the old ones */
	pid_t pid;
	bool unpriv;		/* as nobody, with RLIMIT_DLDLINE 10000/10000 and RLIMIT_DLRTIME 1000/2000 */
	int err;
};

static int rlim_case(const void *arg)
{
	const struct rlim_case *c = arg;
	struct rlimit64 old = { 0, 0 };
	long ret = -1;

	switch (c->call) {
	case PRLIMIT:
		ret = syscall(SYS_prlimit64, c->pid, c->resource, ptr_for(c->newp, &c->val, sizeof(c->val)),
			      ptr_for(c->oldp, &old, sizeof(old)));
		break;
	case GETRLIMIT:
		ret = syscall(SYS_getrlimit, c->resource, ptr_for(c->oldp, &old, sizeof(old)));
		break;
	case SETRLIMIT:
		ret = syscall(SYS_setrlimit, c->resource, ptr_for(c->newp, &c->val, sizeof(c->val)));
		break;
	}
	return ret ? -errno : 0;
}

#define INF RLIM64_INFINITY

static void rlimits(void)
{
	const struct rlim_case cases[] = {
		/* resources past RLIM_NLIMITS (18) */
		{ "prlimit64 get resource 18", PRLIMIT, 18, { 0, 0 }, P_NULL, P_ARG, 0, false, EINVAL },
		{ "prlimit64 set resource 18", PRLIMIT, 18, { 0, 0 }, P_ARG, P_ARG, 0, false, EINVAL },
		{ "prlimit64 set resource 19", PRLIMIT, 19, { INF, INF }, P_ARG, P_NULL, 0, false, EINVAL },
		{ "prlimit64 get resource 64", PRLIMIT, 64, { 0, 0 }, P_NULL, P_ARG, 0, false, EINVAL },
		{ "prlimit64 get resource INT_MAX", PRLIMIT, INT_MAX, { 0, 0 }, P_NULL, P_ARG, 0, false, EINVAL },
		{ "prlimit64 set resource UINT_MAX", PRLIMIT, UINT_MAX, { 0, 0 }, P_ARG, P_NULL, 0, false, EINVAL },
		{ "getrlimit resource 18", GETRLIMIT, 18, { 0, 0 }, P_NULL, P_ARG, 0, false, EINVAL },
		{ "setrlimit resource 18", SETRLIMIT, 18, { 0, 0 }, P_ARG, P_NULL, 0, false, EINVAL },
		{ "setrlimit resource UINT_MAX", SETRLIMIT, UINT_MAX, { 0, 0 }, P_ARG, P_NULL, 0, false, EINVAL },
		/* bad pointers: the new limits are read first, the old written last */
		{ "prlimit64 RLIMIT_DLDLINE new (void *)1", PRLIMIT, RLIMIT_DLDLINE, { 0, 0 }, P_ONE, P_NULL, 0, false, EFAULT },
		{ "prlimit64 RLIMIT_DLDLINE new in the kernel", PRLIMIT, RLIMIT_DLDLINE, { 0, 0 }, P_KERNEL, P_NULL, 0, false, EFAULT },
		{ "prlimit64 RLIMIT_DLDLINE new unmapped", PRLIMIT, RLIMIT_DLDLINE, { 0, 0 }, P_NONE, P_NULL, 0, false, EFAULT },
		{ "prlimit64 RLIMIT_DLDLINE new half mapped", PRLIMIT, RLIMIT_DLDLINE, { 0, 0 }, P_STRADDLE, P_NULL, 0, false, EFAULT },
		{ "prlimit64 RLIMIT_DLRTIME new (void *)1", PRLIMIT, RLIMIT_DLRTIME, { INF, INF }, P_ONE, P_ARG, 0, false, EFAULT },
		{ "prlimit64 get RLIMIT_DLDLINE old (void *)1", PRLIMIT, RLIMIT_DLDLINE, { 0, 0 }, P_NULL, P_ONE, 0, false, EFAULT },
		{ "prlimit64 get RLIMIT_DLRTIME old read-only", PRLIMIT, RLIMIT_DLRTIME, { 0, 0 }, P_NULL, P_RDONLY, 0, false, EFAULT },
		{ "prlimit64 get RLIMIT_DLRTIME old half mapped", PRLIMIT, RLIMIT_DLRTIME, { 0, 0 }, P_NULL, P_STRADDLE, 0, false, EFAULT },
		{ "getrlimit RLIMIT_DLDLINE (void *)1", GETRLIMIT, RLIMIT_DLDLINE, { 0, 0 }, P_NULL, P_ONE, 0, false, EFAULT },
		{ "getrlimit RLIMIT_DLRTIME read-only", GETRLIMIT, RLIMIT_DLRTIME, { 0, 0 }, P_NULL, P_RDONLY, 0, false, EFAULT },
		{ "setrlimit RLIMIT_DLDLINE (void *)1", SETRLIMIT, RLIMIT_DLDLINE, { 0, 0 }, P_ONE, P_NULL, 0, false, EFAULT },
		{ "setrlimit RLIMIT_DLRTIME unmapped", SETRLIMIT, RLIMIT_DLRTIME, { INF, INF }, P_NONE, P_NULL, 0, false, EFAULT },
		/* RLIMIT_DLDLINE is a minimum: soft below hard is EINVAL, for root too */
		{ "RLIMIT_DLDLINE soft 1000 < hard 2000", PRLIMIT, RLIMIT_DLDLINE, { 1000, 2000 }, P_ARG, P_ARG, 0, false, EINVAL },
		{ "RLIMIT_DLDLINE soft 0 < hard 1", PRLIMIT, RLIMIT_DLDLINE, { 0, 1 }, P_ARG, P_ARG, 0, false, EINVAL },
		{ "RLIMIT_DLDLINE soft 1000 < hard unlimited", PRLIMIT, RLIMIT_DLDLINE, { 1000, INF }, P_ARG, P_ARG, 0, false, EINVAL },
		{ "RLIMIT_DLDLINE soft 0 < hard unlimited", PRLIMIT, RLIMIT_DLDLINE, { 0, INF }, P_ARG, P_NULL, 0, false, EINVAL },
		{ "setrlimit RLIMIT_DLDLINE soft < hard", SETRLIMIT, RLIMIT_DLDLINE, { 1000, 2000 }, P_ARG, P_NULL, 0, false, EINVAL },
		/* RLIMIT_DLRTIME is a maximum: soft above hard is EINVAL */
		{ "RLIMIT_DLRTIME soft 2000 > hard 1000", PRLIMIT, RLIMIT_DLRTIME, { 2000, 1000 }, P_ARG, P_ARG, 0, false, EINVAL },
		{ "RLIMIT_DLRTIME soft unlimited > hard 0", PRLIMIT, RLIMIT_DLRTIME, { INF, 0 }, P_ARG, P_ARG, 0, false, EINVAL },
		{ "RLIMIT_DLRTIME soft 1 > hard 0", PRLIMIT, RLIMIT_DLRTIME, { 1, 0 }, P_ARG, P_NULL, 0, false, EINVAL },
		{ "setrlimit RLIMIT_DLRTIME soft > hard", SETRLIMIT, RLIMIT_DLRTIME, { 2000, 1000 }, P_ARG, P_NULL, 0, false, EINVAL },
		/* pids */
		{ "prlimit64 RLIMIT_DLRTIME no such pid", PRLIMIT, RLIMIT_DLRTIME, { 0, 0 }, P_NULL, P_ARG, NO_PID, false, ESRCH },
		{ "prlimit64 RLIMIT_DLDLINE pid -1", PRLIMIT, RLIMIT_DLDLINE, { INF, INF }, P_ARG, P_ARG, -1, false, ESRCH },
		/* unprivileged: lowering RLIMIT_DLDLINE, raising RLIMIT_DLRTIME's hard limit */
		{ "RLIMIT_DLDLINE hard lowered as nobody", PRLIMIT, RLIMIT_DLDLINE, { 10000, 9999 }, P_ARG, P_ARG, 0, true, EPERM },
		{ "RLIMIT_DLDLINE both lowered as nobody", PRLIMIT, RLIMIT_DLDLINE, { 9999, 9999 }, P_ARG, P_ARG, 0, true, EPERM },
		{ "RLIMIT_DLDLINE 0/0 as nobody", PRLIMIT, RLIMIT_DLDLINE, { 0, 0 }, P_ARG, P_NULL, 0, true, EPERM },
		{ "RLIMIT_DLDLINE soft < hard as nobody", PRLIMIT, RLIMIT_DLDLINE, { 9999, 10000 }, P_ARG, P_ARG, 0, true, EINVAL },
		{ "setrlimit RLIMIT_DLDLINE hard lowered as nobody", SETRLIMIT, RLIMIT_DLDLINE, { 10000, 5000 }, P_ARG, P_NULL, 0, true, EPERM },
		{ "RLIMIT_DLRTIME hard raised as nobody", PRLIMIT, RLIMIT_DLRTIME, { 1000, 2001 }, P_ARG, P_ARG, 0, true, EPERM },
		{ "RLIMIT_DLRTIME hard unlimited as nobody", PRLIMIT, RLIMIT_DLRTIME, { 1000, INF }, P_ARG, P_ARG, 0, true, EPERM },
		{ "RLIMIT_DLRTIME both unlimited as nobody", PRLIMIT, RLIMIT_DLRTIME, { INF, INF }, P_ARG, P_NULL, 0, true, EPERM },
		{ "RLIMIT_DLRTIME soft > hard as nobody", PRLIMIT, RLIMIT_DLRTIME, { 3000, 2000 }, P_ARG, P_ARG, 0, true, EINVAL },
		{ "setrlimit RLIMIT_DLRTIME hard raised as nobody", SETRLIMIT, RLIMIT_DLRTIME, { 2000, 4000 }, P_ARG, P_NULL, 0, true, EPERM },
		{ "prlimit64 get init's RLIMIT_DLRTIME as nobody", PRLIMIT, RLIMIT_DLRTIME, { 0, 0 }, P_NULL, P_ARG, 1, true, EPERM },
		{ "prlimit64 set init's RLIMIT_DLDLINE as nobody", PRLIMIT, RLIMIT_DLDLINE, { INF, INF }, P_ARG, P_NULL, 1, true, EPERM },
	};
	size_t i;

	_Static_assert(ARRAY_SIZE(cases) == RLIMIT_CASES, "RLIMIT_CASES");
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		report("rlimit", cases[i].what,
		       cases[i].unpriv ? unprivileged(rlim_case, &cases[i], true) :
					 rlim_case(&cases[i]),
		       cases[i].err);
}


int main(void)
{
	struct state initial, now;
	struct stat st;
	bool same;

	ksft_print_header();
	ksft_set_plan(SYSCTL_CASES + CGROUP_CASES + SYSCALL_CASES + RLIMIT_CASES + 1);
	map_pages();
	snapshot(&initial);

	dl_setup("dltest-22");
	set_dl_pool(750000, 250000);
	cg_create("g");
	cg_create("g/c");
	if (cg_write("g", "cpu.dl_runtime_us", "125000") || cg_write("g/c", "cpu.dl_runtime_us", "62500"))
		ksft_exit_fail_msg("reserve 1/8 and 1/16: %s\n", strerror(errno));
	groups_made = N_GROUPS;
	snapshot(&baseline);
	ksft_print_msg("pool 250000/1000000 per CPU, g 125000/1000000, g/c 62500/1000000: sched_dl_total_bw %lld\n",
		       baseline.sysctl[TOTAL_BW]);

	sysctls();
	cgroup_files();
	syscalls();
	rlimits();

	/* Everything back as the test found it: knobs, no group, the pool empty again. */
	dl_cleanup();
	groups_made = 0;
	wait_total(NULL, initial.sysctl[TOTAL_BW]);
	snapshot(&now);
	same = same_state(&initial, &now);
	ksft_test_result(same && stat(cg_base, &st) && errno == ENOENT,
			 "the system is as the test found it\n");
	ksft_finished();
}
