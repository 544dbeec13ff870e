/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Containers (podman, any OCI runtime that runs hooks): the request a
 * container's annotations make, where it runs, and dld's record of it.
 * Pure: strings in, values and diagnostics out.
 *
 * A container asks for deadline bandwidth with OCI annotations, which the
 * OCI hook (dlsched-oci-hook, oci-hook.c) reads from the container's state
 * and turns into the request a service's X-Deadline* keys make
 * (DeadlineRequest, dropin.h), with the same value syntax:
 *
 *   io.dlsched.runtime=2ms      required, as X-DeadlineRuntime=
 *   io.dlsched.period=20ms      required, as X-DeadlinePeriod=
 *   io.dlsched.deadline=10ms    optional, as X-DeadlineDeadline= (default the period)
 *   io.dlsched.threads=2        optional, as X-DeadlineThreads= (1 to 1024, or "all"; default 1)
 *   io.dlsched.group=media      optional, as X-DeadlineGroup= (default the group of the
 *                               container's slice, podman's --cgroup-parent)
 *
 * Unlike a drop-in, an annotation cannot be reset: an empty value is an
 * error, as are surrounding whitespace, control characters, a key given
 * twice and any other key under io.dlsched. (in any letter case). */

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "dropin.h"

#define CONTAINER_ANNOTATION_PREFIX "io.dlsched."

typedef struct Annotation {
        const char *key;
        const char *value;
} Annotation;

/* The request of a container's annotations (others than io.dlsched.* are
 * ignored). Returns 0 (a valid request in *ret, deadline and threads
 * filled), -ENOENT (no io.dlsched.* key: no request), -EINVAL (every
 * problem appended to d, each "KEY=VALUE: why" or "KEY: why") or -ENOMEM.
 * *ret is left empty unless 0 is returned. */
int container_request_parse(const Annotation *a, size_t n, DeadlineRequest *ret, DiagList *d);

/* A container ID as OCI runtimes take it: 1 to 128 of [A-Za-z0-9_.-],
 * starting with a letter or digit (podman's are 64 hex digits). */
#define CONTAINER_ID_MAX 128
bool container_id_is_valid(const char *id);
/* A container name as dld shows it: 1 to 253 printable ASCII characters,
 * no space or '/'. */
#define CONTAINER_NAME_MAX 253
bool container_name_is_valid(const char *name);

/* The cpu controller's cgroup in the text of /proc/PID/cgroup: the v1
 * line whose controllers include "cpu", else the "0::" line of the
 * unified hierarchy. 0 with *ret allocated, -ENOENT (no such line, or a
 * cgroup removed: " (deleted)"), -EINVAL (malformed text) or -ENOMEM. */
int container_proc_cgroup_cpu_path(const char *text, char **ret);

/* The scope a container runs in: path up to its last component ending in
 * ".scope" (crun puts the processes in libpod-ID.scope/container; systemd
 * names the scope). 0 with *ret allocated ("/a.slice/libpod-ID.scope"),
 * -ENOENT if no component is a scope, -ENOMEM. */
int container_cgroup_scope(const char *path, char **ret);

/* Checks a container's cgroup as dld takes it on the bus: absolute, no
 * empty, "." or ".." components, a valid scope unit directly under a valid
 * slice, or a cgroup below such a scope (where the runtime runs the
 * container's processes: crun's "libpod-ID.scope/container"). 0 with the
 * scope's unit name and its slice allocated (either ret may be NULL),
 * -EINVAL, -ENOMEM. */
int container_cgroup_split(const char *cgroup, char **ret_unit, char **ret_slice);

/* dld's record of a container it decided on, in its run directory (so
 * that a restart of dld finds it): an ini text, a [Container] section with
 * Id=, Name=, Cgroup=, AdmittedGroup= (the policy group that admitted it;
 * absent for one refused, and in records of older versions), and the
 * request in drop-in form (dropin_format()). */
typedef struct ContainerRecord {
        char *id;
        char *name;
        char *cgroup;
        char *admitted_group;
        DeadlineRequest req;
} ContainerRecord;

void container_record_done(ContainerRecord *c);
/* malloc'ed, NULL on ENOMEM. admitted_group: NULL for a container refused. */
char *container_record_format(const char *id, const char *name, const char *cgroup, const char *admitted_group,
                              const DeadlineRequest *req);
/* 0, -EINVAL (problems appended to d, with file) or -ENOMEM. */
int container_record_parse(const char *file, const char *text, ContainerRecord *ret, DiagList *d);
