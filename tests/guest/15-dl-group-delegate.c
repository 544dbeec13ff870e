// SPDX-License-Identifier: GPL-2.0
/*
 * A delegated subtree (a cgroup owned by an unprivileged user) can never
 * hand out more than its ancestors reserved for it: the delegatee cannot
 * write its own reservation, and the groups it creates must fit in it.
 */
#include "dlgroup.h"

#define NOBODY 65534

enum { OWN_RUNTIME, MKDIR_X, X_TOO_BIG, X_FITS, MKDIR_Y, Y_NO_ROOM, Y_RELEASE_X, STEPS };

static int cg_chown(const char *cg, const char *file)
{
	return chown(cg_path(cg, file), NOBODY, NOBODY) ? -errno : 0;
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

int main(void)
{
	long long f16 = BW_FRACTION(16) * cpus();
	int res[STEPS], pipefd[2], status;
	pid_t pid;

	ksft_print_header();
	ksft_set_plan(6);
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
	ksft_finished();
}
