// SPDX-License-Identifier: GPL-2.0
/*
 * A deadline task throttled on a CPU that goes offline stays queued there,
 * not counted as running, until its replenishment timer moves it.
 *
 * 1. Demoted before the timer fires, it must run at once on another CPU,
 *    not sit on the offline one until it comes back (patch 0005).
 * 2. The root domain rebuilds that take the CPU offline and back recount
 *    the deadline tasks then alive; the bandwidth of the tasks that had
 *    left, waiting for their 0-lag time, must not be taken back a second
 *    time (patch 0006): once they are gone, the root domain's total_bw
 *    is what it was at the start, and the pool can be lowered to almost
 *    nothing again.
 */
#include <sys/mman.h>
#include "dlcpu.h"
#include "dltask.h"

/* The CPU @pid last ran on (field 39 of /proc/PID/stat), -1 on error. */
static int last_cpu(pid_t pid)
{
	char buf[1024];
	const char *p = proc_stat_fields(pid, buf, sizeof(buf));
	int field, cpu = -1;

	/* Field 3 follows ") "; field 39 is 36 fields on. */
	for (field = 2; p && field < 39; field++)
		p = strchr(p + 1, ' ');
	if (p)
		cpu = atoi(p + 1);
	return cpu;
}

/*
 * A task of 1 ms every 2 s spins: throttled after 1 ms, it stays queued on
 * its CPU, not counted as running, until its replenishment timer fires.
 * That CPU goes offline (a task that last ran on cpu0, which cannot,
 * starts the attempt again), then the task is made SCHED_OTHER before the
 * timer fires: it must run at once on another CPU, not sit on the offline
 * one until it comes back. Returns 1 if it ran, 0 if not, -1 if no attempt
 * got that far.
 */
#define THROTTLED_RUNTIME_NS (1000 * 1000ull)
#define THROTTLED_PERIOD_NS (2000 * 1000 * 1000ull)

static int throttled_demoted_runs(void)
{
	volatile unsigned long *count = mmap(NULL, sizeof(*count), PROT_READ | PROT_WRITE,
					     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int attempt, result = -1;

	if (count == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	for (attempt = 0; attempt < 10 && result < 0; attempt++) {
		struct sched_attr other = { .size = sizeof(other), .sched_policy = SCHED_OTHER };
		unsigned long before, after;
		uint64_t start;
		pid_t pid;
		int i, cpu;

		*count = 0;
		pid = fork();
		if (pid < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		if (pid == 0) {
			if (dl_enter(THROTTLED_RUNTIME_NS, THROTTLED_PERIOD_NS, THROTTLED_PERIOD_NS, 0))
				_exit(1);
			for (;;)
				(*count)++;
		}
		start = now_ns();
		for (i = 0; i < 100 && !*count; i++)
			usleep(10000);
		usleep(50000);
		before = *count;
		usleep(50000);
		cpu = last_cpu(pid);
		if (!before || *count != before || cpu <= 0 || cpu_online_file(cpu) != 1 ||
		    cpu_set_online(cpu, false)) {
			ksft_print_msg("attempt %d: count %lu, last on cpu%d: again\n", attempt, before, cpu);
			kill_child(pid);
			continue;
		}
		if (now_ns() - start < THROTTLED_PERIOD_NS * 3 / 4 && *count == before) {
			if (dlsched_sched_setattr(pid, &other, 0))
				ksft_exit_fail_msg("sched_setattr(SCHED_OTHER): %s\n", strerror(errno));
			before = *count;
			usleep(300000);
			after = *count;
			ksft_print_msg("throttled on cpu%d, offline, demoted %.0f ms after it entered: %lu -> %lu\n",
				       cpu, (now_ns() - start) / 1e6, before, after);
			result = after > before;
		}
		if (cpu_set_online(cpu, true))
			ksft_exit_fail_msg("cpu%d online again: %s\n", cpu, strerror(errno));
		kill_child(pid);
	}
	munmap((void *)count, sizeof(*count));
	return result;
}

/* Can the pool go down to 1 us per period and back? Nothing may hold any. */
static int pool_can_empty(void)
{
	long long runtime = sysctl_read(SYSCTL_DL_RUNTIME);
	int err = write_ll(SYSCTL_DL_RUNTIME, 1);

	if (!err && write_ll(SYSCTL_DL_RUNTIME, runtime))
		ksft_exit_fail_msg("pool back to %lld: %s\n", runtime, strerror(errno));
	return err;
}

int main(void)
{
	long long rd_bw0, rd_bw = 0;
	int ret, i, err = 0;

	ksft_print_header();
	ksft_set_plan(4);
	dl_setup("dltest-23");
	if (cpus() < 2)
		ksft_exit_skip("one CPU: nothing to take offline\n");
	if (pick_cpu() < 0)
		ksft_exit_skip("no CPU but cpu0 can go offline\n");
	atexit(cpus_restore);

	rd_bw0 = rd_total_bw(0);
	if (rd_bw0 < 0)
		ksft_exit_fail_msg("the root domain's total_bw: %s\n", strerror(-rd_bw0));
	ksft_test_result(!pool_can_empty(), "before: the pool can be lowered to 1 us per period\n");
	ret = throttled_demoted_runs();
	if (ret < 0)
		ksft_test_result_skip("a throttled task on a CPU going offline: no attempt got there\n");
	else
		ksft_test_result(ret == 1, "a deadline task throttled on a CPU gone offline, demoted: runs elsewhere\n");
	/*
	 * Its 0-lag time is a period, plus its overrun times period/runtime
	 * (2000: a TCG stall of 10 ms charged to it holds 20 s), away.
	 */
	for (i = 0; i < 300; i++) {
		rd_bw = rd_total_bw(0);
		err = pool_can_empty();
		if (!err && rd_bw == rd_bw0)
			break;
		usleep(100000);
	}
	ksft_print_msg("root domain total_bw %lld at start, %lld at the end; sched_dl_total_bw %lld; lowering the pool: %s\n",
		       rd_bw0, rd_bw, pool_total(), strerror(-err));
	ksft_test_result(rd_bw == rd_bw0, "after, with the tasks gone: the root domain's total_bw is back to %lld\n",
			 rd_bw0);
	ksft_test_result(!err, "after, with the tasks gone: the pool can be lowered to 1 us per period again\n");
	ksft_finished();
}
