// SPDX-License-Identifier: GPL-2.0
/*
 * A delegated subtree (a cgroup owned by an unprivileged user) can never
 * hand out more than its ancestors reserved for it: the delegatee cannot
 * write its own reservation, and the groups it creates must fit in it.
 * Without a reserved ancestor a reservation would come from the system
 * pool: writing one (or the period of one) needs CAP_SYS_NICE of the
 * file's opener, else EPERM and nothing changes; releasing (-1) is always
 * allowed.
 */
#include <grp.h>
#include <sys/prctl.h>
#include "dlgroup.h"
#include "dltask.h"

enum { OWN_RUNTIME, MKDIR_X, X_TOO_BIG, X_FITS, MKDIR_Y, Y_NO_ROOM, Y_RELEASE_X, STEPS };

static int cg_chown(const char *cg, const char *file)
{
	return chown(cg_path(cg, file), NOBODY, NOBODY) ? -errno : 0;
}

struct nobody_write {
	const char *cg, *file;
	long long val;
};

static int nobody_write(const void *arg)
{
	const struct nobody_write *w = arg;

	if (!w->file)
		return mkdir(cg_path(w->cg, NULL), 0755) ? errno : 0;
	return -cg_write_ll(w->cg, w->file, w->val);
}

/* As nobody:nogroup: write @val to @file of @cg, or mkdir; the errno. */
static int as_nobody(const char *cg, const char *file, long long val)
{
	struct nobody_write w = { cg, file, val };

	return as_nobody_run(nobody_write, &w);
}

static bool nobody_expect(const char *cg, const char *file, long long val, int want)
{
	int err = as_nobody(cg, file, val);

	if (err != want)
		ksft_print_msg("nobody: %s %s %lld: got %s, want %s\n", cg, file ? file : "mkdir",
			       val, strerror(err), strerror(want));
	return err == want;
}

/*
 * Root writes a file it opened as nobody (effective ids only, so it can
 * come back): the opener's credentials decide, as for cgroup.procs. The errno.
 */
static int write_opened_as_nobody(const char *cg, const char *file, long long val)
{
	char buf[32];
	int status, fd, err;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		if (setegid(NOBODY) || seteuid(NOBODY))
			_exit(255);
		fd = open(cg_path(cg, file), O_WRONLY | O_CLOEXEC);
		if (fd < 0 || seteuid(0) || setegid(0))
			_exit(255);
		snprintf(buf, sizeof(buf), "%lld", val);
		err = write(fd, buf, strlen(buf)) < 0 ? errno : 0;
		_exit(err);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) == 255)
		ksft_exit_fail_msg("the child opening as nobody failed\n");
	return WEXITSTATUS(status);
}

enum { NS_RESERVE, NS_SETATTR, NS_RLIMIT, NS_STEPS };

/*
 * In a child, as nobody: unshare a user namespace and become its root, with
 * every capability there; then try what needs CAP_SYS_NICE (or
 * CAP_SYS_RESOURCE) in the initial namespace. The errno of each step in
 * @res; false if the namespace could not be set up.
 */
static bool as_userns_root(const char *cg, int res[NS_STEPS])
{
	struct sched_attr attr = dlsched_deadline_attr(1000000, 10000000, 10000000, 0);
	int pipefd[2], status;
	pid_t pid;

	if (pipe(pipefd))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		close(pipefd[0]);
		/* Dumpable again after the setuid(), or /proc/self/uid_map stays root's. */
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) ||
		    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) || syscall(SYS_unshare, CLONE_NEWUSER) ||
		    write_str("/proc/self/setgroups", "deny") ||
		    write_str("/proc/self/uid_map", "0 65534 1") ||
		    write_str("/proc/self/gid_map", "0 65534 1") || setuid(0) || setgid(0))
			_exit(1);
		res[NS_RESERVE] = -cg_write_ll(cg, "cpu.dl_runtime_us", 31250);
		res[NS_SETATTR] = dlsched_sched_setattr(0, &attr, 0) ? errno : 0;
		res[NS_RLIMIT] = -set_limit(0, RLIMIT_DLRTIME, ~0ULL, ~0ULL);
		_exit(write(pipefd[1], res, sizeof(int) * NS_STEPS) != sizeof(int) * NS_STEPS);
	}
	close(pipefd[1]);
	status = read(pipefd[0], res, sizeof(int) * NS_STEPS) == sizeof(int) * NS_STEPS;
	close(pipefd[0]);
	waitpid(pid, NULL, 0);
	return status;
}

/* Nothing changed: @cg's runtime and period, D's and the pool's totals. */
static bool unchanged(const char *cg, long long runtime, long long period, long long d_total,
		      long long pool)
{
	long long r = cg_read(cg, "cpu.dl_runtime_us"), p = cg_read(cg, "cpu.dl_period_us");
	long long d = cg_total("D"), t = pool_total();

	if (r != runtime || p != period || d != d_total || t != pool)
		ksft_print_msg("%s: runtime %lld period %lld (want %lld %lld), D total %lld (want %lld), pool %lld (want %lld)\n",
			       cg, r, p, runtime, period, d, d_total, t, pool);
	return r == runtime && p == period && d == d_total && t == pool;
}

/* Runs as nobody; errno of each step, 0 for success. */
static void delegatee(int out)
{
	int res[STEPS];

	if (setgid(NOBODY) || setuid(NOBODY))
		_exit(2);
	res[OWN_RUNTIME] = -cg_write_ll("T/sub", "cpu.dl_runtime_us", 1);
	res[MKDIR_X] = mkdir(cg_path("T/sub/x", NULL), 0755) ? errno : 0;
	res[X_TOO_BIG] = -cg_write_ll("T/sub/x", "cpu.dl_runtime_us", 62501);
	res[X_FITS] = -cg_write_ll("T/sub/x", "cpu.dl_runtime_us", 62500);
	res[MKDIR_Y] = mkdir(cg_path("T/sub/y", NULL), 0755) ? errno : 0;
	res[Y_NO_ROOM] = -cg_write_ll("T/sub/y", "cpu.dl_runtime_us", 1);
	res[Y_RELEASE_X] = -cg_write_ll("T/sub/x", "cpu.dl_runtime_us", -1);
	if (write(out, res, sizeof(res)) != sizeof(res))
		_exit(1);
	_exit(0);
}

/*
 * D is delegated below the unreserved test cgroup: a reservation in it
 * would be drawn from the system pool. The delegatee creates D/c and D/c2.
 */
static void delegate_without_reserved_ancestor(void)
{
	long long n = cpus(), pool0, period;

	cg_create("D");
	if (!cg_v1 && cg_write("D", "cgroup.subtree_control", "+cpu"))
		ksft_exit_fail_msg("enable cpu in D: %s\n", strerror(errno));
	/* As systemd's Delegate=: the directory and the files to move tasks. */
	if (cg_chown("D", NULL) || cg_chown("D", "cgroup.procs") ||
	    (!cg_v1 && (cg_chown("D", "cgroup.threads") || cg_chown("D", "cgroup.subtree_control"))) ||
	    (cg_v1 && cg_chown("D", "tasks")))
		ksft_exit_fail_msg("chown D: %s\n", strerror(errno));
	if (as_nobody("D/c", NULL, 0) || as_nobody("D/c2", NULL, 0))
		ksft_exit_fail_msg("the delegatee cannot create groups in D\n");
	snprintf(cg_created[cg_count++], sizeof(cg_created[0]), "%s", cg_path("D/c", NULL));
	snprintf(cg_created[cg_count++], sizeof(cg_created[0]), "%s", cg_path("D/c2", NULL));
	pool0 = pool_total();
	period = cg_read("D/c", "cpu.dl_period_us");

	ksft_test_result(nobody_expect("D/c", "cpu.dl_runtime_us", 31250, EPERM) &&
			 unchanged("D/c", -1, period, 0, pool0) &&
			 nobody_expect("D/c", "cpu.dl_runtime_us", 0, EPERM) &&
			 unchanged("D/c", -1, period, 0, pool0),
			 "no reserved ancestor: the delegatee's reservation (or 0) is EPERM, nothing changes\n");
	ksft_test_result(nobody_expect("D/c", "cpu.dl_runtime_us", -1, 0) &&
			 nobody_expect("D/c", "cpu.dl_period_us", period / 2, 0) &&
			 unchanged("D/c", -1, period / 2, 0, pool0) &&
			 nobody_expect("D/c", "cpu.dl_period_us", period, 0) &&
			 unchanged("D/c", -1, period, 0, pool0),
			 "it may write -1, and the period of a group without reservation\n");

	/* Root reserves D/c from the pool: the delegatee cannot resize it, only release it. */
	if (cg_write_ll("D/c", "cpu.dl_runtime_us", 31250))
		ksft_exit_fail_msg("root reserves D/c: %s\n", strerror(errno));
	ksft_test_result(nobody_expect("D/c", "cpu.dl_period_us", period / 2, EPERM) &&
			 nobody_expect("D/c", "cpu.dl_runtime_us", 15625, EPERM) &&
			 unchanged("D/c", 31250, period, BW_FRACTION(32) * n, pool0 + BW_FRACTION(32) * n) &&
			 nobody_expect("D/c", "cpu.dl_runtime_us", -1, 0) &&
			 unchanged("D/c", -1, period, 0, pool0),
			 "root's reservation of D/c: the delegatee's period or runtime EPERM, -1 releases it\n");

	ksft_test_result(write_opened_as_nobody("D/c", "cpu.dl_runtime_us", 31250) == EPERM &&
			 unchanged("D/c", -1, period, 0, pool0),
			 "opened by nobody, written by root: EPERM (the opener's credentials count)\n");

	if (access("/proc/self/ns/user", F_OK)) {
		ksft_test_result_skip("root of nobody's user namespace: no user namespaces in this kernel\n");
	} else {
		int res[NS_STEPS] = { -1, -1, -1 };
		bool set_up = as_userns_root("D/c", res);

		ksft_test_result(set_up && res[NS_RESERVE] == EPERM && res[NS_SETATTR] == EPERM &&
				 res[NS_RLIMIT] == EPERM && unchanged("D/c", -1, period, 0, pool0),
				 "root of nobody's user namespace: reservation %s, SCHED_DEADLINE %s, raising RLIMIT_DLRTIME %s (want EPERM each)\n",
				 set_up ? strerror(res[NS_RESERVE]) : "-", set_up ? strerror(res[NS_SETATTR]) : "-",
				 set_up ? strerror(res[NS_RLIMIT]) : "-");
	}

	/* Root reserves D itself, 1/16 of each CPU: inside it the delegatee subdivides. */
	if (cg_write_ll("D", "cpu.dl_runtime_us", 62500))
		ksft_exit_fail_msg("root reserves D: %s\n", strerror(errno));
	ksft_test_result(nobody_expect("D/c", "cpu.dl_runtime_us", 62501, EBUSY) &&
			 nobody_expect("D/c", "cpu.dl_runtime_us", 62500, 0) &&
			 nobody_expect("D/c2", "cpu.dl_runtime_us", 1, EBUSY) &&
			 unchanged("D/c", 62500, period, BW_FRACTION(16) * n, pool0 + BW_FRACTION(16) * n) &&
			 nobody_expect("D/c", "cpu.dl_period_us", period * 2, 0) &&
			 unchanged("D/c", 62500, period * 2, BW_FRACTION(32) * n, pool0 + BW_FRACTION(16) * n) &&
			 nobody_expect("D/c", "cpu.dl_runtime_us", -1, 0) &&
			 unchanged("D/c", -1, period * 2, 0, pool0 + BW_FRACTION(16) * n) &&
			 cg_write_ll("D", "cpu.dl_runtime_us", -1) == 0 && pool_total() == pool0,
			 "D reserved by root: the delegatee's groups fit in it (else EBUSY), period and -1 allowed\n");
}

int main(void)
{
	long long f16 = BW_FRACTION(16) * cpus();
	int res[STEPS], pipefd[2], status;
	pid_t pid;

	ksft_print_header();
	ksft_set_plan(12);
	dl_setup("dltest-15");
	set_dl_pool(750000, 250000);

	cg_create("T");
	cg_create("T/sub");
	if (cg_write_ll("T", "cpu.dl_runtime_us", 62500))
		ksft_exit_fail_msg("reserve T: %s\n", strerror(errno));
	if (!cg_v1 && cg_write("T/sub", "cgroup.subtree_control", "+cpu"))
		ksft_exit_fail_msg("enable cpu in T/sub: %s\n", strerror(errno));
	/* Delegate T/sub as systemd does: the directory and its procs files. */
	if (cg_chown("T/sub", NULL) || cg_chown("T/sub", "cgroup.procs") ||
	    (!cg_v1 && (cg_chown("T/sub", "cgroup.subtree_control") ||
			cg_chown("T/sub", "cgroup.threads"))))
		ksft_exit_fail_msg("chown T/sub: %s\n", strerror(errno));

	if (pipe(pipefd))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid)
		delegatee(pipefd[1]);
	close(pipefd[1]);
	if (read(pipefd[0], res, sizeof(res)) != sizeof(res) || waitpid(pid, &status, 0) != pid)
		ksft_exit_fail_msg("the delegatee did not report\n");
	/* Its groups are removed with ours. */
	snprintf(cg_created[cg_count++], sizeof(cg_created[0]), "%s", cg_path("T/sub/x", NULL));
	snprintf(cg_created[cg_count++], sizeof(cg_created[0]), "%s", cg_path("T/sub/y", NULL));

	ksft_test_result(res[OWN_RUNTIME] == EACCES && cg_read("T/sub", "cpu.dl_runtime_us") == -1,
			 "the delegatee cannot set its own reservation (%s)\n",
			 strerror(res[OWN_RUNTIME]));
	ksft_test_result(res[MKDIR_X] == 0 && res[MKDIR_Y] == 0,
			 "the delegatee creates groups below its cgroup\n");
	ksft_test_result(res[X_TOO_BIG] == EBUSY,
			 "a reservation past what T reserved: EBUSY (%s)\n", strerror(res[X_TOO_BIG]));
	ksft_test_result(res[X_FITS] == 0 && res[Y_NO_ROOM] == EBUSY,
			 "x takes all of T's reservation (%s), then y gets nothing (%s)\n",
			 strerror(res[X_FITS]), strerror(res[Y_NO_ROOM]));
	ksft_test_result(res[Y_RELEASE_X] == 0 && cg_total("T") == 0 &&
			 cg_read("T/sub/y", "cpu.dl_runtime_us") == -1,
			 "x released, T holds nothing\n");
	ksft_test_result(pool_total() == f16, "the pool holds T's reservation only: %lld\n", f16);
	delegate_without_reserved_ancestor();
	ksft_finished();
}
