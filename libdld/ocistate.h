/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The state of a container that an OCI runtime passes a hook on stdin
 * (runtime-spec, "State"):
 *
 *   { "ociVersion": "1.0.2", "id": "3f2a...", "status": "created",
 *     "pid": 4242, "bundle": "/var/lib/containers/.../userdata",
 *     "annotations": { "io.dlsched.runtime": "2ms", ... } }
 *
 * Parsed strictly (jsoncheck.h: a duplicate key is refused, not dropped);
 * "annotations" may be absent (no request), "pid" is required only while
 * the container runs (a poststop hook gets none, or 0). Pure. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "container.h"

/* A hook's state is small; anything larger is refused. */
#define OCI_STATE_MAX (1024 * 1024)

typedef struct OciState {
        char *oci_version;
        char *id;
        char *status;           /* creating, created, running, stopped */
        pid_t pid;              /* 0: none */
        char *bundle;
        Annotation *annotations;        /* keys and values allocated */
        size_t n_annotations;
} OciState;

void ocistate_done(OciState *s);

/* 0, -EINVAL with *ret_error (allocated: what is wrong, "$.pid: ...") or
 * -ENOMEM. Required: ociVersion, id (container_id_is_valid()), status;
 * pid a positive integer when status is creating, created or running. */
int ocistate_parse(const char *text, size_t size, OciState *ret, char **ret_error);

/* The container's name: from the annotations runtimes set (CRI-O's and
 * Kubernetes', io.kubernetes.cri-o.ContainerName and
 * io.kubernetes.container.name; podman's
 * io.podman.annotations.name, where it sets one), when valid
 * (container_name_is_valid()); else the ID's first 12 characters, as
 * podman shortens IDs. Never NULL; points into s, or into buf (at least 13
 * bytes). */
const char *ocistate_name(const OciState *s, char *buf, size_t size);

/* The log of the OCI runtime that runs the hook, from its command line
 * (crun's and runc's global options "--log PATH" or "--log=PATH", with
 * "--log-format json", as podman runs them): 0 and *ret (allocated), the
 * absolute path; -ENOENT for any other command line; -ENOMEM. Podman reads
 * the error it shows from there, not from a hook's stderr. */
int ocistate_runtime_cmdline_log(const char *cmdline, size_t size, char **ret);

/* One entry of such a log, as the runtimes write it: a JSON object with
 * "msg", "level" "error" and "time" (RFC 3339), and a newline. 0 and
 * *ret (allocated), or -ENOMEM. */
int ocistate_runtime_log_entry(const char *msg, const char *time, char **ret);

/* The container's name from its monitor's command line: podman sets no
 * annotation with the name, but runs conmon with "-n NAME" (or --name)
 * next to "-c ID" (--cid). cmdline: /proc/PID/cmdline, size bytes of
 * NUL-terminated arguments. 0 and *ret (allocated) when argv[0] is conmon,
 * its ID is id and the name is valid (container_name_is_valid()); -ENOENT
 * otherwise; -ENOMEM. */
int ocistate_conmon_cmdline_name(const char *cmdline, size_t size, const char *id, char **ret);

/* A bundle's config.json is larger than a state: a container's whole
 * configuration. */
#define OCI_CONFIG_MAX (4 * 1024 * 1024)

/* runtime-spec 1.1's process.scheduler in a bundle's config.json, as a
 * request for one task:
 *
 *   "process": { "scheduler": { "policy": "SCHED_DEADLINE",
 *       "runtime": 2000000, "deadline": 10000000, "period": 20000000 } }
 *
 * Times in ns, here whole microseconds (dld counts in us); "deadline"
 * defaults to "period" and "period" to "deadline", as sched_setattr()
 * has them; "flags", "nice" and "priority" are not asked about. 0 and
 * *req (runtime, deadline, period set; threads 1); -ENOENT when the config
 * has no process.scheduler or another policy; -EINVAL with *ret_error
 * ("$.process.scheduler.runtime: ..."), or -ENOMEM. The config is parsed
 * as strictly as a state. */
int ocistate_scheduler_request(const char *config, size_t size, DeadlineRequest *req, char **ret_error);

/* What the hook does: the verb given on its command line ("admit",
 * "release"; NULL: none), else by the state's status: "stopped" (a
 * poststop hook) releases, the others (prestart, createRuntime) admit.
 * -EINVAL for another verb. */
enum { OCI_HOOK_ADMIT, OCI_HOOK_RELEASE };
int ocistate_hook_stage(const char *arg, const OciState *s);
