// SPDX-License-Identifier: GPL-2.0
/*
 * A deadline task asleep on a CPU that goes offline, in a cpuset that
 * loses that CPU. The task keeps the offline CPU as its last CPU, whose
 * runqueue then belongs to the default root domain (no active CPU), and
 * the rebuild after the hotplug counts its bandwidth there. When cpuset
 * narrows the task's affinity again (a second CPU going offline), the
 * scheduler takes the bandwidth out of that root domain, spread over its
 * active CPUs: none. Before patch 0015 that was a divide error in
 * cpuset_hotplug_workfn (set_cpus_allowed_dl()), found by the stress.
 * The task's cpuset's CPUs written narrow it the same way with no rebuild
 * after it: the task must then be counted in its new root domain (patch
 * 0016), or its release takes from that domain what it never held.
 *
 * The task must stay alive and SCHED_DEADLINE with the offline CPUs out
 * of its affinity, the kernel must neither oops nor warn (taint D or W),
 * the root domain's total_bw must follow the task exactly, and once the
 * CPUs are back and the task gone, every total is 0.
 */
#define _GNU_SOURCE
#include "dlcpu.h"
#include "dltask.h"

#define RUNTIME_NS (1 * NSEC_PER_MSEC)
#define PERIOD_NS (100 * NSEC_PER_MSEC)

static char cpuset_dir[256];

/* The CPU @pid last ran on: field 39 of /proc/PID/stat; -1 if unknown. */
static int last_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	int field, cpu = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');
		/* After the command: field 3 onwards, space-separated. */
		for (field = 2; p && field < 39; field++)
			p = strchr(p + 1, ' ');
		if (p)
			cpu = atoi(p + 1);
	}
	fclose(f);
	return cpu;
}

/*
 * A cpuset with all the CPUs for the task: on v2 the test's group with the
 * cpuset controller enabled, on v1 a group of the cpuset hierarchy. The
 * cgroup.procs file to join it.
 */
static const char *cpuset_procs(void)
{
	static char procs[300];
	char cpus_buf[64] = "", mems_buf[64] = "", path[300];
	int fd;
	ssize_t n;

	if (!cg_v1) {
		if (write_str("/sys/fs/cgroup/cgroup.subtree_control", "+cpuset") ||
		    write_str(cg_path("", "cgroup.subtree_control"), "+cpuset"))
			ksft_exit_fail_msg("enable cpuset: %s\n", strerror(errno));
		cg_create("S");
		snprintf(procs, sizeof(procs), "%s", cg_path("S", "cgroup.procs"));
		return procs;
	}
	snprintf(cpuset_dir, sizeof(cpuset_dir), "/sys/fs/cgroup/cpuset/dltest-27");
	rmdir(cpuset_dir);
	if (mkdir(cpuset_dir, 0755))
		ksft_exit_fail_msg("mkdir %s: %s\n", cpuset_dir, strerror(errno));
	snprintf(cg_created[cg_count++], sizeof(cg_created[0]), "%s", cpuset_dir);
	fd = open("/sys/fs/cgroup/cpuset/cpuset.cpus", O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, cpus_buf, sizeof(cpus_buf) - 1);
	if (fd >= 0)
		close(fd);
	fd = open("/sys/fs/cgroup/cpuset/cpuset.mems", O_RDONLY | O_CLOEXEC);
	if (n <= 0 || fd < 0 || read(fd, mems_buf, sizeof(mems_buf) - 1) <= 0)
		ksft_exit_fail_msg("read the root cpuset: %s\n", strerror(errno));
	close(fd);
	snprintf(path, sizeof(path), "%s/cpuset.cpus", cpuset_dir);
	if (write_str(path, strtok(cpus_buf, "\n")))
		ksft_exit_fail_msg("%s: %s\n", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/cpuset.mems", cpuset_dir);
	if (write_str(path, strtok(mems_buf, "\n")))
		ksft_exit_fail_msg("%s: %s\n", path, strerror(errno));
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cpuset_dir);
	return procs;
}

/*
 * The task: joins the cpuset, runs on @cpu, becomes a deadline task
 * there with every CPU allowed, reports the CPU it is on and sleeps until
 * its gate closes.
 */
static pid_t start_task(const char *procs, int cpu, int *reported_cpu)
{
	int report[2], gate, here = -1, try;
	cpu_set_t one, all;
	char buf;
	pid_t pid;

	if (pipe(report))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	pid = dl_child_fork(&gate);
	if (!pid) {
		close(report[0]);
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		sched_getaffinity(0, sizeof(all), &all);
		if (write_ll(procs, getpid()))
			_exit(1);
		for (try = 0; try < 20 && here != cpu; try++) {
			if (sched_setaffinity(0, sizeof(one), &one))
				_exit(1);
			spin_cpu_ns(2 * NSEC_PER_MSEC);
			/* Still running on @cpu: widening the mask does not move it. */
			if (sched_setaffinity(0, sizeof(all), &all) ||
			    dl_enter(RUNTIME_NS, PERIOD_NS, PERIOD_NS, 0))
				_exit(1);
			here = sched_getcpu();
			if (here != cpu && dl_leave())
				_exit(1);
		}
		if (write(report[1], &here, sizeof(here)) != sizeof(here))
			_exit(1);
		while (read(gate, &buf, 1) > 0)
			;
		_exit(0);
	}
	close(report[1]);
	if (read(report[0], reported_cpu, sizeof(*reported_cpu)) != sizeof(*reported_cpu))
		ksft_exit_fail_msg("the task did not report\n");
	close(report[0]);
	return pid;
}

/* The task alive, SCHED_DEADLINE with its parameters, @cpu out of its affinity. */
static bool task_fine(pid_t pid, int cpu)
{
	struct sched_attr attr = { 0 };
	cpu_set_t mask;
	bool alive = kill(pid, 0) == 0, dl, narrowed;

	dl = !dlsched_sched_getattr(pid, &attr, sizeof(attr), 0) &&
	     attr.sched_policy == SCHED_DEADLINE &&
	     attr.sched_runtime == RUNTIME_NS && attr.sched_period == PERIOD_NS;
	narrowed = !sched_getaffinity(pid, sizeof(mask), &mask) && !CPU_ISSET(cpu, &mask) &&
		   CPU_COUNT(&mask) > 0;
	if (!alive || !dl || !narrowed)
		ksft_print_msg("task %d: alive %d, SCHED_DEADLINE 1 ms / 100 ms %d, cpu%d out of its affinity %d\n",
			       pid, alive, dl, cpu, narrowed);
	return alive && dl && narrowed;
}

static bool no_new_taint(long long before, const char *when)
{
	long long after = kernel_tainted();

	if (after & ~before & (TAINT_DIE | TAINT_WARN)) {
		ksft_print_msg("%s: the kernel oopsed or warned (taint %lld, was %lld)\n", when, after,
			       before);
		return false;
	}
	return true;
}

int main(void)
{
	long long taint, bw = dl_ratio(PERIOD_NS, RUNTIME_NS), rd0;
	char cpus_file[320];
	int cpu, second, on_cpu = -1, asleep_on;
	const char *procs;
	pid_t pid;

	ksft_print_header();
	ksft_set_plan(4);
	dl_setup("dltest-27");
	if (cpus() < 3)
		ksft_exit_skip("fewer than 3 CPUs: two cannot go offline\n");
	cpu = pick_cpu();
	if (cpu < 0)
		ksft_exit_skip("no CPU but cpu0 can go offline\n");
	second = online_cpu_below(cpu);
	if (second <= 0)
		ksft_exit_skip("no second CPU but cpu0 can go offline\n");
	atexit(cpus_restore);
	taint = kernel_tainted();
	if (taint < 0)
		ksft_exit_fail_msg("cannot read /proc/sys/kernel/tainted\n");
	rd0 = rd_total_bw(0);

	procs = cpuset_procs();
	if (cg_v1)
		snprintf(cpus_file, sizeof(cpus_file), "%s/cpuset.cpus", cpuset_dir);
	else
		snprintf(cpus_file, sizeof(cpus_file), "%s", cg_path("S", "cpuset.cpus"));
	pid = start_task(procs, cpu, &on_cpu);
	usleep(100000);
	asleep_on = last_cpu(pid);
	ksft_print_msg("task %d: SCHED_DEADLINE on cpu%d, asleep there (stat says cpu%d); cpu%d then cpu%d go offline\n",
		       pid, on_cpu, asleep_on, cpu, second);
	if (on_cpu != cpu || asleep_on != cpu)
		ksft_exit_fail_msg("the task could not be made to sleep on cpu%d\n", cpu);

	if (set_online(false))
		ksft_exit_fail_msg("cpu%d offline: %s\n", cpu, strerror(errno));
	/* cpuset updates the tasks' affinity from a work item. */
	usleep(500000);
	ksft_test_result(task_fine(pid, cpu) && no_new_taint(taint, "first offline"),
			 "cpu%d offline under the sleeping task: it stays SCHED_DEADLINE, its affinity narrowed\n",
			 cpu);

	/* Its root domain is now the default one, with no active CPU. */
	if (cpu_set_online(second, false))
		ksft_exit_fail_msg("cpu%d offline: %s\n", second, strerror(errno));
	usleep(500000);
	ksft_test_result(task_fine(pid, second) && no_new_taint(taint, "second offline"),
			 "cpu%d offline too: cpuset narrows the task's affinity out of the default root domain, no oops\n",
			 second);

	/*
	 * Its cpuset's CPUs written: the affinity narrows again. On v2 no
	 * rebuild follows: the task is counted in cpu0's root domain now, and
	 * its release takes exactly that back. On v1 the write rebuilds the
	 * root domains (the cpuset balances load), which count the task where
	 * it last ran, in the default root domain, again.
	 */
	if (write_str(cpus_file, "0"))
		ksft_exit_fail_msg("%s: %s\n", cpus_file, strerror(errno));
	usleep(100000);
	{
		long long held = rd_total_bw(0), after, want = cg_v1 ? rd0 : rd0 + bw;

		int tries;

		dl_child_stop(&(struct dl_child){ .slot = 0, .pid = pid });
		/* Released at its 0-lag time, up to a period later (more on a loaded host). */
		for (tries = 0; tries < 100 && (after = rd_total_bw(0)) != rd0; tries++)
			usleep(50000);
		ksft_test_result(held == want && after == rd0 && no_new_taint(taint, "cpuset.cpus"),
				 "cpuset.cpus 0: cpu0's root domain holds %lld (want %lld), and after the task exits %lld (want %lld)\n",
				 held, want, after, rd0);
	}

	if (cpu_set_online(second, true) || set_online(true))
		ksft_exit_fail_msg("online again: %s\n", strerror(errno));
	ksft_test_result(wait_total(NULL, 0) == 0 && rq_bw_zero(2000) && online_file() == 1 &&
			 rd_total_bw(0) == rd0 && no_new_taint(taint, "online again"),
			 "cpu%d and cpu%d online: the pool 0, the root domain %lld, every runqueue's utilization 0\n",
			 cpu, second, rd0);
	ksft_finished();
}
