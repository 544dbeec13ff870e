/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dlsched-oci-hook: the OCI hook that asks dld to admit a container that
 * requests deadline bandwidth with io.dlsched.* annotations, and to release
 * it when the container stops (units/CONTAINERS.md); or, without such
 * annotations, with the bundle's process.scheduler (runtime-spec 1.1) of
 * policy SCHED_DEADLINE. An OCI runtime runs it
 * with the container's state on stdin (ocistate.h):
 *
 *   prestart / createRuntime    AdmitContainer: the container's scope gets
 *                               its reservation, its threads SCHED_DEADLINE
 *   poststop                    ReleaseContainer
 *
 * (or by the verb on the command line: "admit", "release"). Exit status:
 * 0 when admitted, when degraded (the group's on_refusal is "degrade": the
 * container runs as normal tasks, the reason goes to stderr), and after a
 * release; 1 when the container must not start (a malformed annotation, a
 * refusal in a group whose on_refusal is "fail", dld unreachable, a cgroup
 * that is not a systemd scope) with the reason on stderr, in the journal,
 * and in the runtime's log, from which podman shows it; 2 for a usage
 * error. */
#include <fcntl.h>
#include <syslog.h>
#include <time.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-journal.h>

#include "container.h"
#include "dlsched/dld-bus.h"
#include "util.h"
#include "ocistate.h"

#define PROGRAM "dlsched-oci-hook"

/* The container's ID, for the journal's copy of each line. */
static const char *hook_container_id;
/* The lines so far, "; "-separated after the first's prefix, for the
 * runtime's log (runtime_log_errors()). */
static char *hook_errors;

/* One line on stderr, and the same in the journal (SYSLOG_IDENTIFIER=
 * dlsched-oci-hook, CONTAINER_ID=, CONTAINER_NAME=): a runtime need not
 * show a hook's stderr (podman 4.3 with crun 1.8 shows only crun's
 * "error executing hook ... (exit code: 1)"); runtime_log_errors() puts
 * them where podman looks. */
static void error_line(const char *name, const char *fmt, ...) _printf_(2, 3);
static void error_line(const char *name, const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL;
        char *joined;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0)
                return;
        fprintf(stderr, PROGRAM ": %s%s%s\n", name ?: "", name ? ": " : "", msg);
        fflush(stderr);
        (void) sd_journal_send("MESSAGE=%s%s%s", name ?: "", name ? ": " : "", msg,
                               "PRIORITY=%d", LOG_ERR,
                               "SYSLOG_IDENTIFIER=" PROGRAM,
                               "CONTAINER_ID=%s", hook_container_id ?: "",
                               "CONTAINER_NAME=%s", name ?: "",
                               NULL);
        if (hook_errors)
                r = asprintf(&joined, "%s; %s", hook_errors, msg);
        else
                r = asprintf(&joined, PROGRAM ": %s%s%s", name ?: "", name ? ": " : "", msg);
        if (r >= 0) {
                free(hook_errors);
                hook_errors = joined;
        }
}

/* Reads all of fd, up to max bytes (more is -EFBIG). */
static int read_all(int fd, size_t max, char **ret, size_t *ret_size) {
        _cleanup_free_ char *buf = malloc(max + 2);
        size_t n = 0;

        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t k = read(fd, buf + n, max + 1 - n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                n += (size_t) k;
                if (n > max)
                        return -EFBIG;
        }
        buf[n] = 0;
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}

/* The cgroup of the container's init process, from /proc/PID/cgroup: in
 * a systemd scope (crun runs it in "libpod-ID.scope/container"). Its task
 * template makes the container's processes SCHED_DEADLINE as they start. */
static int container_cgroup(pid_t pid, char **ret, const char *name) {
        _cleanup_free_ char *scope = NULL;
        _cleanup_free_ char *path = NULL, *text = NULL, *cg = NULL;
        _cleanup_close_ int fd = -EBADF;
        size_t size;
        int r;

        /* $DLSCHED_OCI_HOOK_PROC: another /proc, for the host tests. */
        if (asprintf(&path, "%s/%d/cgroup", getenv("DLSCHED_OCI_HOOK_PROC") ?: "/proc", (int) pid) < 0)
                return -ENOMEM;
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                error_line(name, "cannot read %s: %s", path, strerror(errno));
                return -errno;
        }
        r = read_all(fd, 64 * 1024, &text, &size);
        if (r == 0)
                r = container_proc_cgroup_cpu_path(text, &cg);
        if (r < 0) {
                error_line(name, "cannot find the cpu controller's cgroup in %s: %s", path, strerror(-r));
                return r;
        }
        r = container_cgroup_scope(cg, &scope);
        if (r == -ENOENT)
                error_line(name, "the container's cgroup %s is in no systemd scope: dld admits containers run "
                           "with the systemd cgroup manager (podman --cgroup-manager=systemd, the default as root)", cg);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(cg);
        return 0;
}

static bool bus_unreachable(const sd_bus_error *e, int r) {
        return sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER,
                                      SD_BUS_ERROR_NO_REPLY, SD_BUS_ERROR_TIMEOUT, SD_BUS_ERROR_DISCONNECTED) ||
               (!sd_bus_error_is_set(e) && (r == -ENOENT || r == -ECONNREFUSED));
}

/* The request of the bundle's config.json, process.scheduler
 * (runtime-spec 1.1): 0 with *req, -ENOENT for none (no bundle, no
 * config, another policy), else an error on stderr. */
static int scheduler_request(const OciState *s, DeadlineRequest *req, const char *name) {
        _cleanup_free_ char *path = NULL, *text = NULL, *error = NULL;
        _cleanup_close_ int fd = -EBADF;
        size_t size;
        int r;

        if (!s->bundle)
                return -ENOENT;
        if (asprintf(&path, "%s/config.json", s->bundle) < 0)
                return -ENOMEM;
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT)
                return -ENOENT;
        if (fd < 0) {
                error_line(name, "cannot read %s: %s", path, strerror(errno));
                return -errno;
        }
        r = read_all(fd, OCI_CONFIG_MAX, &text, &size);
        if (r < 0) {
                error_line(name, "cannot read %s: %s", path, r == -EFBIG ? "too large" : strerror(-r));
                return r;
        }
        r = ocistate_scheduler_request(text, size, req, &error);
        if (r == -EINVAL)
                error_line(name, "%s: %s; malformed process.scheduler: the container does not start", path, error);
        return r;
}

static int admit(sd_bus *bus, const OciState *s, const char *name) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *cgroup = NULL;
        _cleanup_(dropin_request_done) DeadlineRequest req = {}, sched = {};
        const char *state, *reason;
        DiagList d = {};
        int r, k;

        r = container_request_parse(s->annotations, s->n_annotations, &req, &d);
        for (size_t i = 0; i < d.n; i++)
                error_line(name, "%s", d.items[i].message);
        diag_list_done(&d);
        if (r == -EINVAL) {
                error_line(name, "malformed io.dlsched.* annotations: the container does not start");
                return r;
        }
        if (r < 0 && r != -ENOENT)
                return r;
        k = scheduler_request(s, &sched, name);
        if (k < 0 && k != -ENOENT)
                return k;
        if (r == 0 && k == 0) {
                error_line(name, "both io.dlsched.* annotations and process.scheduler ask for deadline bandwidth: "
                           "give one; the container does not start");
                return -EINVAL;
        }
        if (r == -ENOENT && k == -ENOENT)
                return 0;       /* no request: nothing to do */
        if (k == 0)
                req = sched, sched = (DeadlineRequest) {};

        r = container_cgroup(s->pid, &cgroup, name);
        if (r < 0)
                return r;
        if (!bus) {
                error_line(name, "cannot connect to the system bus: the container does not start");
                return -ENOTCONN;
        }
        r = sd_bus_call_method(bus, DLD_BUS_NAME, DLD_BUS_PATH, DLD_BUS_INTERFACE, "AdmitContainer", &e, &reply,
                               "ssssttt" "u", s->id, name, cgroup, req.group ?: "", req.runtime_usec, req.deadline_usec,
                               req.period_usec, req.threads == DL_THREADS_ALL ? 0U : req.threads);
        if (r < 0) {
                if (bus_unreachable(&e, r))
                        error_line(name, "dld is not running (%s): a container that requests deadline bandwidth "
                                   "does not start without it", e.message ?: strerror(-r));
                else
                        error_line(name, "%s%s", sd_bus_error_has_name(&e, DLD_ERROR_REFUSED) ? "refused: " : "",
                                   e.message ?: strerror(-r));
                return r;
        }
        r = sd_bus_message_read(reply, "ss", &state, &reason);
        if (r < 0)
                return r;
        if (!streq_ptr(state, "admitted"))
                error_line(name, "deadline request %s, the container runs as normal tasks: %s", state, reason);
        return 0;
}

static int release(sd_bus *bus, const OciState *s, const char *name) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        if (!bus) {
                error_line(name, "cannot connect to the system bus: nothing released");
                return 0;
        }
        r = sd_bus_call_method(bus, DLD_BUS_NAME, DLD_BUS_PATH, DLD_BUS_INTERFACE, "ReleaseContainer", &e, NULL,
                               "s", s->id);
        if (r >= 0 || sd_bus_error_has_name(&e, DLD_ERROR_NO_SUCH_SERVICE))
                return 0;       /* released, or dld never admitted it */
        if (bus_unreachable(&e, r)) {
                /* The cgroup goes with the container: the kernel gives the
                 * bandwidth back, and dld forgets it when it finds it gone. */
                error_line(name, "dld is not running: nothing to release");
                return 0;
        }
        error_line(name, "cannot release: %s", e.message ?: strerror(-r));
        return r;
}

/* /proc/PID/FILE, up to max bytes ($DLSCHED_OCI_HOOK_PROC: another
 * /proc, for the host tests). 0, or -errno. */
static int read_proc(pid_t pid, const char *file, size_t max, char **ret, size_t *ret_size) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF;

        if (asprintf(&path, "%s/%d/%s", getenv("DLSCHED_OCI_HOOK_PROC") ?: "/proc", (int) pid, file) < 0)
                return -ENOMEM;
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        return read_all(fd, max, ret, ret_size);
}

/* The parent of pid from proc/PID/stat (0: unknown). */
static pid_t parent_of(pid_t pid) {
        _cleanup_free_ char *text = NULL;
        const char *p;
        size_t size;
        int ppid;

        if (read_proc(pid, "stat", 4096, &text, &size) < 0)
                return 0;
        p = strrchr(text, ')');
        if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
                return 0;
        return ppid;
}

/*
 * Podman shows, for a container that failed to start, the error its
 * runtime logged (crun --log PATH --log-format json): one JSON object read
 * from PATH. The runtime logs only "error executing hook" after a hook
 * failed, so the hook's lines take the place of that file: the runtime
 * keeps writing to the one it opened, now unlinked, and podman finds ours.
 * Nothing happens when the parent is not such a runtime (the hook run by
 * hand, another runtime, text logs).
 */
static void runtime_log_errors(void) {
        _cleanup_free_ char *text = NULL, *log = NULL, *entry = NULL;
        _cleanup_close_ int out = -EBADF;
        char now[sizeof("2026-12-05T06:50:17Z")];
        time_t t = time(NULL);
        struct tm tm;
        size_t size;

        if (!hook_errors || read_proc(getppid(), "cmdline", 64 * 1024, &text, &size) < 0 ||
            ocistate_runtime_cmdline_log(text, size, &log) < 0)
                return;
        if (!gmtime_r(&t, &tm) || strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0 ||
            ocistate_runtime_log_entry(hook_errors, now, &entry) < 0)
                return;
        if (unlink(log) < 0 && errno != ENOENT)
                return;
        out = open(log, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        /* One small write: the entry is whole, or podman shows crun's fallback. */
        if (out >= 0 && write(out, entry, strlen(entry)) < 0)
                return;
}

/* The container's name from its monitor's command line (podman's conmon
 * runs the runtime, which runs the hook: an ancestor of ours), for a
 * runtime that puts no name in the annotations. NULL if none. */
static char *monitor_name(const char *id) {
        pid_t pid = getppid();

        for (int depth = 0; depth < 8 && pid > 1; depth++) {
                _cleanup_free_ char *text = NULL, *name = NULL;
                size_t size;

                if (read_proc(pid, "cmdline", 64 * 1024, &text, &size) < 0)
                        return NULL;
                if (ocistate_conmon_cmdline_name(text, size, id, &name) == 0)
                        return TAKE_PTR(name);
                pid = parent_of(pid);
        }
        return NULL;
}

int main(int argc, char *argv[]) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *text = NULL, *error = NULL, *monitor = NULL;
        _cleanup_(ocistate_done) OciState s = {};
        char shortid[16];
        const char *name;
        size_t size;
        int r, stage;

        if (argc > 2 || (argc == 2 && (streq_ptr(argv[1], "-h") || streq_ptr(argv[1], "--help")))) {
                fprintf(argc > 2 ? stderr : stdout,
                        "Usage: " PROGRAM " [admit|release] < STATE\n"
                        "The OCI hook of dlsched: admits a container with io.dlsched.* annotations to dld\n"
                        "(prestart/createRuntime), releases it (poststop). STATE is the OCI container state.\n");
                return argc > 2 ? 2 : 0;
        }
        r = read_all(STDIN_FILENO, OCI_STATE_MAX, &text, &size);
        if (r < 0) {
                error_line(NULL, "cannot read the container's state on stdin: %s",
                           r == -EFBIG ? "larger than 1 MiB" : strerror(-r));
                return 1;
        }
        r = ocistate_parse(text, size, &s, &error);
        if (r < 0) {
                error_line(NULL, "the container's state on stdin: %s", error ?: strerror(-r));
                return 1;
        }
        stage = ocistate_hook_stage(argc == 2 ? argv[1] : NULL, &s);
        if (stage < 0) {
                error_line(NULL, "unknown verb \"%s\" (admit, release)", argv[1]);
                return 2;
        }
        hook_container_id = s.id;
        name = ocistate_name(&s, shortid, sizeof(shortid));
        if (name == shortid && (monitor = monitor_name(s.id)))
                name = monitor;
        if (sd_bus_open_system(&bus) < 0)
                bus = NULL;
        r = stage == OCI_HOOK_ADMIT ? admit(bus, &s, name) : release(bus, &s, name);
        if (r < 0 && stage == OCI_HOOK_ADMIT)
                runtime_log_errors();
        free(hook_errors);
        return r < 0 ? 1 : 0;
}
