/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* systemd unit and slice names, as far as dld needs them. Pure string logic. */

#include <stdbool.h>
#include <stddef.h>

#define UNIT_NAME_MAX 255
#define GROUP_NAME_MAX 64

/* A unit name "prefix.type": prefix of [A-Za-z0-9:_.\-@] (and \\x escapes),
 * at most 255 characters; type is one of systemd's unit types. */
bool unitname_is_valid(const char *name);

/* A valid unit name of type service ("x.service"). */
bool unitname_is_service(const char *name);

/* A slice name: a valid unit name ending in ".slice", other than the root
 * "-.slice", whose dash-separated parts are all non-empty
 * ("a-b.slice", not "-a.slice", "a-.slice" or "a--b.slice"). */
bool unitname_slice_is_valid(const char *name);

/* Deadline group names: [A-Za-z0-9_-], 1 to 64 characters. */
bool unitname_group_is_valid(const char *name);

/* True if slice a is b or one of b's parents ("a.slice" contains "a-b.slice"). */
bool unitname_slice_contains(const char *a, const char *b);

/* An absolute cgroup path below the root ("/" is not one: it holds no unit
 * or container) of at most 4096 characters, without empty, "." or ".."
 * components and without newlines. */
bool unitname_cgroup_path_is_valid(const char *path);

/* A unit's InvocationID (n bytes, as systemd's D-Bus API gives it) in the
 * lower-case hex form of $INVOCATION_ID; "" for none (n 0). NULL on ENOMEM. */
char *unitname_id128_to_hex(const void *id, size_t n);

/* Is the cgroup @path @cgroup itself or below it ("/a/b" is below "/a",
 * "/ab" is not)? Both absolute, as /proc/PID/cgroup gives them. */
bool unitname_cgroup_is_within(const char *path, const char *cgroup);

/* Cgroup path of a valid slice relative to the hierarchy root:
 * "a-b.slice" -> "/a.slice/a-b.slice". Returns NULL on ENOMEM. */
char *unitname_slice_cgroup_path(const char *slice);
