// SPDX-License-Identifier: GPL-2.0
/*
 * Task exit releases deadline bandwidth (mainline 6.1, which has no
 * task_dead_dl(): the exiting task's last schedule() dequeues it as a
 * sleeper, and task_non_contending() gives its bandwidth back at once if
 * its 0-lag time has passed, or arms the inactive timer, whose handler,
 * inactive_task_timer(), gives it back at the 0-lag time; the series routes
 * both through dl_task_release_bw()): the root domain's allocated bandwidth
 * (dl_bw->total_bw in /sys/kernel/debug/sched/debug) grows by exactly the
 * task's runtime/period while it lives, and returns to its previous value
 * within a period of its exit, whether it exits or is killed sleeping or
 * running.
 */
#include <sys/mount.h>
#include "dltask.h"

#define MSEC NSEC_PER_MSEC
#define RUNTIME (10 * MSEC)
#define PERIOD (100 * MSEC)
#define DEBUG_FILE "/sys/kernel/debug/sched/debug"

/* The first CPU's ".dl_bw->total_bw", or -errno. */
static long long total_bw(void)
{
	char line[256];
	long long v = -ENOENT;
	FILE *f = fopen(DEBUG_FILE, "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " .dl_bw->total_bw : %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Poll up to 2 s: a dead task's bandwidth goes at its 0-lag time, at most a period on. */
static long long total_bw_settled(long long want)
{
	uint64_t until = now_ns() + 2000 * MSEC;
	long long v;

	while ((v = total_bw()) != want && now_ns() < until)
		usleep(1000);
	return v;
}

enum how { EXIT, KILL_SLEEPING, KILL_RUNNING };

static const char *const how_name[] = {
	[EXIT] = "exits", [KILL_SLEEPING] = "is killed sleeping", [KILL_RUNNING] = "is killed running",
};

static void check(enum how how, long long base)
{
	long long bw = dl_ratio(PERIOD, RUNTIME), during = -1, after;
	int ready[2], gate[2], status = 0;
	pid_t pid;
	char c = 0;

	if (pipe(ready) || pipe(gate))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (!pid) {
		die_with_parent();
		close(gate[1]);
		c = dl_enter(RUNTIME, PERIOD, PERIOD, 0) ? 'E' : 'x';
		if (write(ready[1], &c, 1) != 1 || c == 'E')
			_exit(1);
		if (how == KILL_RUNNING)
			for (;;)
				;
		/* EOF on the gate: exit (EXIT), or sleep until killed */
		if (read(gate[0], &c, 1) < 0 || how == EXIT)
			_exit(0);
		pause();
		_exit(0);
	}
	close(gate[0]);
	if (pid > 0 && read(ready[0], &c, 1) == 1 && c == 'x')
		during = total_bw();
	if (how == EXIT) {
		close(gate[1]);
		waitpid(pid, &status, 0);
	} else {
		close(gate[1]);
		status = kill_child(pid);
	}
	after = total_bw_settled(base);
	close(ready[0]);
	close(ready[1]);
	ksft_print_msg("task %s: total_bw %lld -> %lld -> %lld\n", how_name[how], base, during, after);
	ksft_test_result(during == base + bw && after == base &&
			 (how == EXIT ? WIFEXITED(status) : WIFSIGNALED(status)),
			 "deadline task %s: total_bw +%lld while alive, back to %lld\n", how_name[how], bw,
			 base);
}

int main(void)
{
	long long base;

	ksft_print_header();
	if (access(DEBUG_FILE, R_OK) && mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL))
		ksft_exit_skip("debugfs: %s\n", strerror(errno));
	base = total_bw();
	if (base < 0)
		ksft_exit_skip(DEBUG_FILE ": no dl_bw->total_bw (%s)\n", strerror(-base));
	ksft_set_plan(3);
	check(EXIT, base);
	check(KILL_SLEEPING, base);
	check(KILL_RUNNING, base);
	ksft_finished();
}
