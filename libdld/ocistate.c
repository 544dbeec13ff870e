/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdarg.h>

#include "admission.h"
#include "jsoncheck.h"
#include "ocistate.h"

void ocistate_done(OciState *s) {
        free(s->oci_version);
        free(s->id);
        free(s->status);
        free(s->bundle);
        for (size_t i = 0; i < s->n_annotations; i++) {
                free((char *) s->annotations[i].key);
                free((char *) s->annotations[i].value);
        }
        free(s->annotations);
        *s = (OciState) {};
}

/* A string member: 0 (set, or absent and !required), -EINVAL, -ENOMEM. */
static int get_string(json_object *root, const char *key, bool required, char **ret, char **ret_error) {
        json_object *v;

        if (!json_object_object_get_ex(root, key, &v) || json_object_is_type(v, json_type_null)) {
                if (required)
                        return errorf(ret_error, "$.%s: missing", key);
                return 0;
        }
        if (!json_object_is_type(v, json_type_string))
                return errorf(ret_error, "$.%s: must be a string", key);
        *ret = strdup(json_object_get_string(v));
        return *ret ? 0 : -ENOMEM;
}

static bool status_running(const char *status) {
        return streq_ptr(status, "creating") || streq_ptr(status, "created") || streq_ptr(status, "running");
}

static int parse_object(json_object *root, OciState *s, char **ret_error) {
        json_object *v;
        int r;

        if (!json_object_is_type(root, json_type_object))
                return errorf(ret_error, "$: the state must be a JSON object");
        if ((r = get_string(root, "ociVersion", true, &s->oci_version, ret_error)) < 0 ||
            (r = get_string(root, "id", true, &s->id, ret_error)) < 0 ||
            (r = get_string(root, "status", true, &s->status, ret_error)) < 0 ||
            (r = get_string(root, "bundle", false, &s->bundle, ret_error)) < 0)
                return r;
        if (!container_id_is_valid(s->id))
                return errorf(ret_error, "$.id: \"%s\" is not a container ID (1 to %d of A-Z a-z 0-9 _ . -)", s->id,
                            CONTAINER_ID_MAX);
        if (!streq_ptr(s->status, "creating") && !streq_ptr(s->status, "created") &&
            !streq_ptr(s->status, "running") && !streq_ptr(s->status, "stopped"))
                return errorf(ret_error, "$.status: \"%s\" is not creating, created, running or stopped", s->status);

        if (json_object_object_get_ex(root, "pid", &v) && !json_object_is_type(v, json_type_null)) {
                int64_t pid;

                if (!json_object_is_type(v, json_type_int))
                        return errorf(ret_error, "$.pid: must be an integer");
                pid = json_object_get_int64(v);
                if (pid < 0 || pid > INT32_MAX)
                        return errorf(ret_error, "$.pid: %" PRId64 " is out of range", pid);
                s->pid = (pid_t) pid;
        }
        if (s->pid == 0 && status_running(s->status))
                return errorf(ret_error, "$.pid: missing, or 0, for a container that is %s", s->status);

        if (json_object_object_get_ex(root, "annotations", &v) && !json_object_is_type(v, json_type_null)) {
                size_t n = 0;

                if (!json_object_is_type(v, json_type_object))
                        return errorf(ret_error, "$.annotations: must be an object of strings");
                s->annotations = calloc(json_object_object_length(v) + 1, sizeof(Annotation));
                if (!s->annotations)
                        return -ENOMEM;
                json_object_object_foreach(v, key, val) {
                        if (!json_object_is_type(val, json_type_string))
                                return errorf(ret_error, "$.annotations[\"%s\"]: must be a string", key);
                        s->annotations[n].key = strdup(key);
                        s->annotations[n].value = strdup(json_object_get_string(val));
                        s->n_annotations = ++n;
                        if (!s->annotations[n - 1].key || !s->annotations[n - 1].value)
                                return -ENOMEM;
                }
        }
        return 0;
}

/* @text as strict JSON (jsoncheck.h), at most @max bytes; @empty and
 * @large say what is wrong otherwise. 0 with *ret (the caller puts it),
 * -EINVAL with *ret_error, -ENOMEM. */
static int parse_json(const char *text, size_t size, size_t max, const char *empty, const char *large,
                      json_object **ret, char **ret_error) {
        _cleanup_free_ char *where = NULL, *reason = NULL;
        int r;

        *ret_error = NULL;
        if (size == 0)
                return errorf(ret_error, "%s", empty);
        if (size > max)
                return errorf(ret_error, "%s larger than %zu bytes", large, max);
        r = jsoncheck_parse_strict(text, size, ret, &where, &reason);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return errorf(ret_error, "%s: %s", where ?: "?", reason ?: "not JSON");
        return 0;
}

int ocistate_parse(const char *text, size_t size, OciState *ret, char **ret_error) {
        OciState s = {};
        json_object *root;
        int r;

        *ret = (OciState) {};
        r = parse_json(text, size, OCI_STATE_MAX, "empty state: expected the container's state as JSON on stdin",
                       "state", &root, ret_error);
        if (r < 0)
                return r;
        r = parse_object(root, &s, ret_error);
        json_object_put(root);
        if (r < 0) {
                ocistate_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

/* A scheduler time: absent or null is 0; else a non-negative integer of
 * whole microseconds. */
static int scheduler_time(json_object *sched, const char *key, uint64_t *ret_usec, char **ret_error) {
        json_object *v;
        int64_t ns;

        *ret_usec = 0;
        if (!json_object_object_get_ex(sched, key, &v) || json_object_is_type(v, json_type_null))
                return 0;
        if (!json_object_is_type(v, json_type_int))
                return errorf(ret_error, "$.process.scheduler.%s: must be an integer (nanoseconds)", key);
        /* json-c saturates a larger number to INT64_MAX. */
        ns = json_object_get_int64(v);
        if (ns < 0 || ns == INT64_MAX)
                return errorf(ret_error, "$.process.scheduler.%s: out of range (0 to %" PRId64 " ns)",
                              key, INT64_MAX - 1);
        if (ns % 1000)
                return errorf(ret_error, "$.process.scheduler.%s: %" PRId64 " ns is not a whole number of "
                              "microseconds", key, ns);
        *ret_usec = (uint64_t) ns / 1000;
        return 0;
}

static int parse_scheduler(json_object *root, DeadlineRequest *req, char **ret_error) {
        json_object *process, *sched, *policy;
        const char *problem;
        int r;

        if (!json_object_is_type(root, json_type_object))
                return errorf(ret_error, "$: the configuration must be a JSON object");
        if (!json_object_object_get_ex(root, "process", &process) || json_object_is_type(process, json_type_null))
                return -ENOENT;
        if (!json_object_is_type(process, json_type_object))
                return errorf(ret_error, "$.process: must be an object");
        if (!json_object_object_get_ex(process, "scheduler", &sched) || json_object_is_type(sched, json_type_null))
                return -ENOENT;
        if (!json_object_is_type(sched, json_type_object))
                return errorf(ret_error, "$.process.scheduler: must be an object");
        if (!json_object_object_get_ex(sched, "policy", &policy) || !json_object_is_type(policy, json_type_string))
                return errorf(ret_error, "$.process.scheduler.policy: missing, or not a string");
        if (strcmp(json_object_get_string(policy), "SCHED_DEADLINE") != 0)
                return -ENOENT; /* another policy: the runtime's business */
        if ((r = scheduler_time(sched, "runtime", &req->runtime_usec, ret_error)) < 0 ||
            (r = scheduler_time(sched, "deadline", &req->deadline_usec, ret_error)) < 0 ||
            (r = scheduler_time(sched, "period", &req->period_usec, ret_error)) < 0)
                return r;
        if (req->runtime_usec == 0)
                return errorf(ret_error, "$.process.scheduler.runtime: required, and more than 0, for SCHED_DEADLINE");
        if (req->deadline_usec == 0 && req->period_usec == 0)
                return errorf(ret_error, "$.process.scheduler: a deadline or a period is required for SCHED_DEADLINE");
        if (req->deadline_usec == 0)
                req->deadline_usec = req->period_usec;
        if (req->period_usec == 0)
                req->period_usec = req->deadline_usec;
        problem = admission_task_params_problem(req->runtime_usec, req->deadline_usec, req->period_usec);
        if (problem)
                return errorf(ret_error, "$.process.scheduler: runtime %" PRIu64 "us, deadline %" PRIu64 "us, "
                              "period %" PRIu64 "us: %s", req->runtime_usec, req->deadline_usec, req->period_usec,
                              problem);
        req->threads = 1;
        return 0;
}

int ocistate_scheduler_request(const char *config, size_t size, DeadlineRequest *req, char **ret_error) {
        DeadlineRequest r0 = {};
        json_object *root;
        int r;

        r = parse_json(config, size, OCI_CONFIG_MAX, "the configuration is empty", "the configuration is",
                       &root, ret_error);
        if (r < 0)
                return r;
        r = parse_scheduler(root, &r0, ret_error);
        json_object_put(root);
        if (r < 0)
                return r;
        *req = r0;
        return 0;
}

/* The value of an annotation, or NULL. */
static const char *ocistate_annotation(const OciState *s, const char *key) {
        for (size_t i = 0; i < s->n_annotations; i++)
                if (streq_ptr(s->annotations[i].key, key))
                        return s->annotations[i].value;
        return NULL;
}

const char *ocistate_name(const OciState *s, char *buf, size_t size) {
        static const char * const keys[] = {
                "io.podman.annotations.name",
                "io.kubernetes.cri-o.ContainerName",
                "io.kubernetes.container.name",
        };

        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                const char *v = ocistate_annotation(s, keys[i]);

                if (container_name_is_valid(v))
                        return v;
        }
        snprintf(buf, size, "%.12s", s->id ?: "");
        return buf;
}

/* The value of option short/long at argument i of argv (n of them):
 * "-n V", "--name V", "--name=V"; *i advanced past it. NULL: not it. */
static const char *option_value(char **argv, size_t n, size_t *i, const char *shortopt, const char *longopt) {
        const char *a = argv[*i], *v;

        if (streq_ptr(a, shortopt) || streq_ptr(a, longopt)) {
                if (*i + 1 >= n)
                        return NULL;
                return argv[++*i];
        }
        v = strncmp(a, longopt, strlen(longopt)) == 0 ? a + strlen(longopt) : NULL;
        if (v && *v == '=')
                return v + 1;
        return NULL;
}

/* The arguments of a /proc/PID/cmdline (size bytes of NUL-terminated
 * strings): *ret (allocated, NULL-terminated) points into cmdline. 0,
 * -ENOENT for an empty or unterminated one, -ENOMEM. */
static int cmdline_split(const char *cmdline, size_t size, char ***ret, size_t *ret_n) {
        char **argv;
        size_t n = 0;

        if (!cmdline || size == 0 || cmdline[size - 1] != 0)
                return -ENOENT;
        for (size_t off = 0; off < size; off += strlen(cmdline + off) + 1)
                n++;
        argv = calloc(n + 1, sizeof(char *));
        if (!argv)
                return -ENOMEM;
        n = 0;
        for (size_t off = 0; off < size; off += strlen(cmdline + off) + 1)
                argv[n++] = (char *) cmdline + off;
        *ret = argv;
        *ret_n = n;
        return 0;
}

int ocistate_runtime_cmdline_log(const char *cmdline, size_t size, char **ret) {
        _cleanup_free_ char **argv = NULL;
        const char *log = NULL, *format = NULL;
        size_t n;
        int r;

        r = cmdline_split(cmdline, size, &argv, &n);
        if (r < 0)
                return r;
        for (size_t i = 1; i < n; i++) {
                const char *v;

                if ((v = option_value(argv, n, &i, NULL, "--log")))
                        log = v;
                else if ((v = option_value(argv, n, &i, NULL, "--log-format")))
                        format = v;
        }
        if (!log || log[0] != '/' || !streq_ptr(format, "json"))
                return -ENOENT;
        *ret = strdup(log);
        return *ret ? 0 : -ENOMEM;
}

int ocistate_runtime_log_entry(const char *msg, const char *time, char **ret) {
        json_object *o = json_object_new_object();
        const char *text;
        int r = -ENOMEM;

        if (o && json_object_object_add(o, "msg", json_object_new_string(msg ?: "")) == 0 &&
            json_object_object_add(o, "level", json_object_new_string("error")) == 0 &&
            json_object_object_add(o, "time", json_object_new_string(time ?: "")) == 0) {
                text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
                if (text && asprintf(ret, "%s\n", text) >= 0)
                        r = 0;
        }
        json_object_put(o);
        return r;
}

int ocistate_conmon_cmdline_name(const char *cmdline, size_t size, const char *id, char **ret) {
        _cleanup_free_ char **argv = NULL;
        const char *name = NULL, *cid = NULL, *base;
        size_t n = 0;
        int r;

        if (!id)
                return -ENOENT;
        r = cmdline_split(cmdline, size, &argv, &n);
        if (r < 0)
                return r;
        base = strrchr(argv[0], '/');
        if (!streq_ptr(base ? base + 1 : argv[0], "conmon"))
                return -ENOENT;
        for (size_t i = 1; i < n; i++) {
                const char *v;

                if ((v = option_value(argv, n, &i, "-n", "--name")))
                        name = v;
                else if ((v = option_value(argv, n, &i, "-c", "--cid")))
                        cid = v;
        }
        if (!streq_ptr(cid, id) || !container_name_is_valid(name))
                return -ENOENT;
        *ret = strdup(name);
        return *ret ? 0 : -ENOMEM;
}

int ocistate_hook_stage(const char *arg, const OciState *s) {
        if (arg)
                return streq_ptr(arg, "admit") ? OCI_HOOK_ADMIT : streq_ptr(arg, "release") ? OCI_HOOK_RELEASE : -EINVAL;
        return streq_ptr(s->status, "stopped") ? OCI_HOOK_RELEASE : OCI_HOOK_ADMIT;
}
