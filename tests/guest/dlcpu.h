// SPDX-License-Identifier: GPL-2.0
/*
 * Taking CPUs offline and back in the guest tests: each CPU's online file,
 * and every CPU a test took offline comes back online at exit whatever
 * happens (cpus_restore(), registered with atexit()). The_cpu is the one
 * pick_cpu() chose, for the tests that need a single one.
 */
#ifndef DLCPU_H
#define DLCPU_H

#include "dlgroup.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define CPU_MAX 1024

static bool cpu_down[CPU_MAX];		/* taken offline by this test */
static int the_cpu = -1;

static inline void cpu_online_path(char *buf, size_t size, int cpu)
{
	snprintf(buf, size, CPU_DIR "/cpu%d/online", cpu);
}

/* 1 online, 0 offline, -1 no online file (cpu0, or no such CPU). */
static inline long long cpu_online_file(int cpu)
{
	char path[64];
	long long v = -1;

	cpu_online_path(path, sizeof(path), cpu);
	read_ll(path, &v);
	return v;
}

static inline int cpu_set_online(int cpu, bool on)
{
	char path[64];
	int err;

	if (cpu <= 0 || cpu >= CPU_MAX)
		return -EINVAL;
	cpu_online_path(path, sizeof(path), cpu);
	err = write_str(path, on ? "1" : "0");
	if (!err)
		cpu_down[cpu] = !on;
	return err;
}

/* Whatever happens, the CPUs come back (before dl_cleanup(): atexit order). */
static inline void cpus_restore(void)
{
	int cpu;

	for (cpu = 1; cpu < CPU_MAX; cpu++)
		if (cpu_down[cpu])
			cpu_set_online(cpu, true);
}

/* The highest CPU below @below but cpu0 that is online and can go offline; -1 if none. */
static inline int online_cpu_below(int below)
{
	int cpu;

	for (cpu = (below < CPU_MAX ? below : CPU_MAX) - 1; cpu > 0; cpu--)
		if (cpu_online_file(cpu) == 1)
			return cpu;
	return -1;
}

/* Chooses the_cpu: the highest that can go offline; -1 if none. */
static inline int pick_cpu(void)
{
	the_cpu = online_cpu_below(CPU_MAX);
	return the_cpu;
}

static inline int set_online(bool on)
{
	return cpu_set_online(the_cpu, on);
}

static inline long long online_file(void)
{
	return cpu_online_file(the_cpu);
}

#endif
