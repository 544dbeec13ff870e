/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The I/O side of the privileges check (privileges.h): fills a probe from
 * the running process and the files dld writes. */

#include "kernelfs.h"
#include "privileges.h"

/* bus: the result of connecting to the system bus (0 or -errno). The
 * probe's paths point into static storage or into kfs. */
void privprobe_run(KernelFs *kfs, int bus, PrivilegeProbe *ret);
