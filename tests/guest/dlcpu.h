// SPDX-License-Identifier: GPL-2.0
/*
 * Taking a CPU offline and back in the guest tests: the CPU's online file,
 * which comes back online at exit whatever happens.
 */
#ifndef DLCPU_H
#define DLCPU_H

#include "dlgroup.h"

#define CPU_DIR "/sys/devices/system/cpu"

static char online_path[64];
static bool offlined;

/* Whatever happens, the CPU comes back (before dl_cleanup(): atexit order). */
static inline void cpu_restore(void)
{
	if (offlined && !write_str(online_path, "1"))
		offlined = false;
}

/* The highest CPU but cpu0 that is online and has an online file; -1 if none. */
static inline int pick_cpu(void)
{
	long long on = 0;
	int i;

	for (i = 1023; i > 0; i--) {
		snprintf(online_path, sizeof(online_path), CPU_DIR "/cpu%d/online", i);
		if (!read_ll(online_path, &on) && on == 1)
			return i;
	}
	return -1;
}

static inline int set_online(bool on)
{
	int err = write_str(online_path, on ? "1" : "0");

	if (!err)
		offlined = !on;
	return err;
}

static inline long long online_file(void)
{
	long long v = -1;

	read_ll(online_path, &v);
	return v;
}

#endif
