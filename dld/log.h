/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Plain log lines go to stderr with a syslog level prefix, which journald
 * turns into PRIORITY=; structured entries use sd_journal_send(). */

#include <syslog.h>

#include "util.h"

void log_full(int level, const char *fmt, ...) _printf_(2, 3);
#define log_error(...)   log_full(LOG_ERR, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_notice(...)  log_full(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)    log_full(LOG_INFO, __VA_ARGS__)
#define log_debug(...)   log_full(LOG_DEBUG, __VA_ARGS__)

/* errno name, "EBUSY" */
const char *log_errno_name(int err);
