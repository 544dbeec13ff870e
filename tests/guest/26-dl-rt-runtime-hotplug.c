// SPDX-License-Identifier: GPL-2.0
/*
 * sched_rt_runtime_us writes racing CPU hotplug. Without RT group
 * scheduling a write sets every runqueue's RT runtime and the default RT
 * bandwidth; a root domain rebuilt by the hotplug takes the difference
 * between the two as runtime it lent and reclaims it from the other
 * runqueues (__disable_runtime()). Updated apart, the rebuild can find a
 * difference nobody lent and warn that runtime leaked out of the system.
 *
 * One thread writes 0, -1 and finite values in a loop while the main
 * thread takes a CPU offline and back. No write or hotplug step may fail,
 * and the kernel must not warn: the test reads the taint flags (a WARN
 * sets W) besides the console check of the harness. The window is short:
 * 60-s stress runs hit it about once in six boots, but with a 300-us delay
 * put between the two updates of a kernel without patch 0014 this test
 * warns within its 12 seconds.
 */
#include <stdatomic.h>
#include <dlsched/cpuclock.h>
#include "dlcpu.h"

#define RACE_NS (12000 * NSEC_PER_MSEC)
#define MAX_CYCLES 150

static const char *const rt_values[] = { "0", "-1", "500000", "400000", "-1", "450000" };
static atomic_int writer_stop;
static long long writes, write_errors;
static int first_write_errno;

static void *rt_writer(void *arg)
{
	unsigned int i = 0;

	(void)arg;
	while (!atomic_load(&writer_stop)) {
		int err = write_str(SYSCTL_RT_RUNTIME, rt_values[i++ % (sizeof(rt_values) / sizeof(rt_values[0]))]);

		writes++;
		if (err) {
			if (!write_errors++)
				first_write_errno = -err;
		}
	}
	return NULL;
}

int main(void)
{
	long long taint_before, taint_after, rt_after = 0;
	int cpu, cycles = 0, hotplug_errors = 0, first_hotplug_errno = 0, err;
	uint64_t start;
	pthread_t th;

	ksft_print_header();
	ksft_set_plan(3);
	dl_setup("dltest-26");
	if (cpus() < 2)
		ksft_exit_skip("one CPU: nothing to take offline\n");
	cpu = pick_cpu();
	if (cpu < 0)
		ksft_exit_skip("no CPU but cpu0 can go offline\n");
	atexit(cpus_restore);
	/* The deadline pool at half of each CPU leaves RT any runtime up to the other half. */
	set_dl_pool(500000, 500000);
	taint_before = kernel_tainted();
	ksft_print_msg("cpu%d goes offline and back while sched_rt_runtime_us changes; taint %lld\n",
		       cpu, taint_before);

	if (pthread_create(&th, NULL, rt_writer, NULL))
		ksft_exit_fail_msg("writer thread: %s\n", strerror(errno));
	start = now_ns();
	while (cycles < MAX_CYCLES && now_ns() - start < RACE_NS) {
		err = set_online(false);
		if (!err)
			err = set_online(true);
		if (err && !hotplug_errors++)
			first_hotplug_errno = -err;
		cycles++;
	}
	atomic_store(&writer_stop, 1);
	pthread_join(th, NULL);
	err = write_ll(SYSCTL_RT_RUNTIME, 500000);
	read_ll(SYSCTL_RT_RUNTIME, &rt_after);
	taint_after = kernel_tainted();
	ksft_print_msg("%d hotplug cycles, %lld writes in %.1f s\n", cycles, writes,
		       (now_ns() - start) / 1e9);

	ksft_test_result(!write_errors && !err && rt_after == 500000,
			 "%lld writes of 0, -1 and finite values succeeded (%lld failed, first: %s), then 500000 reads back\n",
			 writes, write_errors, write_errors ? strerror(first_write_errno) : "none");
	ksft_test_result(!hotplug_errors && online_file() == 1 && cpus() >= 2,
			 "%d offline/online cycles of cpu%d succeeded (%d failed, first: %s), cpu%d online\n",
			 cycles, cpu, hotplug_errors,
			 hotplug_errors ? strerror(first_hotplug_errno) : "none", cpu);
	if (taint_before < 0 || (taint_before & TAINT_WARN))
		ksft_test_result_skip("no new kernel warning: the kernel was already tainted W (%lld)\n",
				      taint_before);
	else
		ksft_test_result(!(taint_after & TAINT_WARN),
				 "no kernel warning (taint %lld before, %lld after)\n", taint_before,
				 taint_after);
	ksft_finished();
}
