// SPDX-License-Identifier: GPL-2.0
/*
 * A deadline task cannot fork (the child would need its own admission):
 * fork() fails with EAGAIN, unless SCHED_FLAG_RESET_ON_FORK is set, in
 * which case the child starts as SCHED_OTHER.
 */
#include <sched.h>
#include <sys/wait.h>
#include "dltest.h"

#define RUNTIME_NS (1 * NSEC_PER_MSEC)
#define PERIOD_NS (100 * NSEC_PER_MSEC)

int main(void)
{
	pid_t pid;
	int err, status;

	ksft_print_header();
	ksft_set_plan(4);

	err = dl_enter(RUNTIME_NS, PERIOD_NS, PERIOD_NS, 0);
	ksft_test_result(err == 0, "enter SCHED_DEADLINE (%s)\n", strerror(-err));
	if (err)
		ksft_exit_fail();

	pid = fork();
	if (pid == 0)
		_exit(0);
	err = pid < 0 ? errno : 0;
	if (pid > 0)
		waitpid(pid, NULL, 0);
	ksft_test_result(pid < 0 && err == EAGAIN, "fork from a deadline task fails with EAGAIN (got %s)\n",
			 pid < 0 ? strerror(err) : "a child");

	err = dl_enter(RUNTIME_NS, PERIOD_NS, PERIOD_NS, SCHED_FLAG_RESET_ON_FORK);
	pid = err ? -1 : fork();
	if (pid == 0)
		_exit(sched_getscheduler(0) == SCHED_OTHER ? 0 : 1);
	ksft_test_result(pid > 0, "fork with SCHED_FLAG_RESET_ON_FORK succeeds\n");
	status = -1;
	if (pid > 0)
		waitpid(pid, &status, 0);
	ksft_test_result(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			 "the child runs as SCHED_OTHER\n");
	dl_leave();
	ksft_finished();
}
