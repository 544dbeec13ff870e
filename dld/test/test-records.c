/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every record dld keeps under its run directory is written aside and
 * renamed into place: a write cut short (here by RLIMIT_FSIZE, as a full
 * disk or a crash would) fails and leaves each old record whole, with no
 * temporary file beside it. A writer that wrote in place fails this.
 * And the layout does not change: records put where an earlier dld put
 * them are found. */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "records.h"
#include "tap.h"
#include "util.h"

/* Every file under dir, "path=content" in directory order, appended to *out. */
static int snapshot(const char *dir, char **out) {
        _cleanup_(closedirp) DIR *d = opendir(dir);
        struct dirent *de;

        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                _cleanup_free_ char *path = NULL, *text = NULL, *line = NULL;
                struct stat st;

                if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
                        continue;
                if (asprintf(&path, "%s/%s", dir, de->d_name) < 0 || stat(path, &st) < 0)
                        return -ENOMEM;
                if (S_ISDIR(st.st_mode)) {
                        if (snapshot(path, out) < 0)
                                return -EIO;
                        continue;
                }
                if (fileio_read_full(path, &text, NULL) < 0 ||
                    asprintf(&line, "%s%s=%s\n", *out ?: "", path, text) < 0)
                        return -EIO;
                free(*out);
                *out = TAKE_PTR(line);
        }
        return 0;
}

static int save_all(const char *run, const char *suffix) {
        _cleanup_free_ char *unit = NULL, *group = NULL, *slice = NULL;
        DeadlineRequest req = { .runtime_usec = 2000, .deadline_usec = 20000, .period_usec = 20000, .threads = 1 };
        UnitRecord rec = {};
        int r, k;

        if (asprintf(&unit, "t-%s.service", suffix) < 0 || asprintf(&group, "media%s", suffix) < 0 ||
            asprintf(&slice, "deadline-%s.slice", suffix) < 0)
                return -ENOMEM;
        req.group = group;
        rec = (UnitRecord) { .unit = "t.service", .invocation = "0123456789abcdef0123456789abcdef",
                             .group = group, .cgroup = "/deadline.slice/t.service", .req = req };
        r = records_manual_save(run, "t.service", &req);
        if ((k = records_release_save(run, "t.service", unit)) < 0 && r >= 0)
                r = k;
        if ((k = records_admitted_save(run, &rec)) < 0 && r >= 0)
                r = k;
        if ((k = records_container_save(run, "0123abcd", unit, "/machine.slice/libpod-0123abcd.scope", group,
                                        &req)) < 0 && r >= 0)
                r = k;
        if ((k = records_slices_save(run, (char *[]) { slice, "deadline-media.slice", NULL })) < 0 && r >= 0)
                r = k;
        if ((k = records_policy_save(run, &(Policy) { .files = (char *[]) { "/etc/dld/policies.d/50-a.json",
                                                                            "/etc/dld/policies.d/60-b.json", NULL },
                                                       .texts = (char *[]) { group, slice, NULL } })) < 0 && r >= 0)
                r = k;
        return r;
}

static int manual_only(const char *run) {
        DeadlineRequest req = { .runtime_usec = 1000, .deadline_usec = 20000, .period_usec = 20000, .threads = 1 };

        return records_manual_save(run, "t.service", &req);
}

static int release_only(const char *run) {
        return records_release_save(run, "t.service", "fedcba9876543210fedcba9876543210");
}

static int admitted_only(const char *run) {
        UnitRecord rec = { .unit = "t.service", .invocation = "fedcba9876543210fedcba9876543210",
                           .group = "media", .cgroup = "/deadline.slice/t.service",
                           .req = { .runtime_usec = 1000, .deadline_usec = 20000, .period_usec = 20000, .threads = 1 } };

        return records_admitted_save(run, &rec);
}

static int container_only(const char *run) {
        DeadlineRequest req = { .runtime_usec = 1000, .deadline_usec = 20000, .period_usec = 20000, .threads = 1 };

        return records_container_save(run, "0123abcd", "renamed", "/machine.slice/libpod-0123abcd.scope", NULL, &req);
}

static int slices_only(const char *run) {
        return records_slices_save(run, (char *[]) { "other.slice", NULL });
}

static int policy_only(const char *run) {
        return records_policy_save(run, &(Policy) { .files = (char *[]) { "50-a.json", "70-c.json", NULL },
                                                    .texts = (char *[]) { "{\"groups\": []}\n", "{}\n", NULL } });
}

/* Writes text to run/rel, as an earlier dld did. */
static int put(const char *run, const char *rel, const char *text) {
        _cleanup_free_ char *path = NULL, *cmd = NULL;

        if (asprintf(&path, "%s/%s", run, rel) < 0 || asprintf(&cmd, "mkdir -p \"$(dirname '%s')\"", path) < 0 ||
            system(cmd) != 0 || !text)
                return -ENOMEM;
        return fileio_write_atomic(path, text);
}

static bool exists(const char *run, const char *rel) {
        _cleanup_free_ char *path = NULL;

        return asprintf(&path, "%s/%s", run, rel) >= 0 && access(path, F_OK) == 0;
}

/* Records where an earlier dld put them, found by this one's functions. */
static void test_layout(const char *run) {
        DeadlineRequest req = { .runtime_usec = 3000, .deadline_usec = 30000, .period_usec = 30000, .threads = 2 };
        UnitRecord rec = { .unit = "m.service", .invocation = "0123456789abcdef0123456789abcdef", .group = "media",
                           .cgroup = "/deadline.slice/m.service", .req = req };
        _cleanup_free_ char *dropin = dropin_format(&req), *admitted = unitrecord_format(&rec), *container = NULL;
        _cleanup_strv_free_ char **units = NULL, **ids = NULL, **slices = NULL, **dirs = NULL;
        _cleanup_(container_record_done) ContainerRecord c = {};
        DeadlineRequest got = {};
        DiagList d = {};

        container = container_record_format("0123abcd", "media-1", "/machine.slice/libpod-0123abcd.scope", "media", &req);
        ok(put(run, "manual/m.service.conf", dropin) == 0 && put(run, "manual/.#m.service.conf.a1b2c3", "x") == 0 &&
           put(run, "admitted/m.service.conf", admitted) == 0 && put(run, "containers/0123abcd.conf", container) == 0 &&
           put(run, "released/m.service", "fedcba98") == 0 && put(run, "slices", "deadline-media.slice\n") == 0 &&
           put(run, "applied/50-a.json", "{}\n") == 0,
           "layout: records put by hand");

        units = records_manual_units(run);
        ok(strv_length(units) == 1 && streq_ptr(units[0], "m.service"), "manual/: m.service, not a temporary file");
        is_int(records_manual_load(run, "m.service", &got, &d), 0, "manual/m.service.conf read");
        ok(got.runtime_usec == 3000 && got.period_usec == 30000 && got.threads == 2, "  the request admitted by hand");
        dropin_request_done(&got);
        is_int(records_manual_load(run, "n.service", &got, &d), -ENOENT, "no manual record: -ENOENT");
        is_int(d.n, 0, "  no problem");
        diag_list_done(&d);
        records_manual_remove(run, "m.service");
        ok(!exists(run, "manual/m.service.conf"), "  removed");

        strv_free(units);
        units = records_admitted_units(run);
        ok(strv_length(units) == 1 && streq_ptr(units[0], "m.service"), "admitted/: m.service");
        is_int(records_admitted_load(run, "m.service", &rec), 0, "admitted/m.service.conf read");
        is_str(rec.cgroup, "/deadline.slice/m.service", "  its cgroup");
        unitrecord_done(&rec);
        is_int(records_admitted_load(run, "n.service", &rec), -ENOENT, "no admission record: -ENOENT");

        ids = records_container_ids(run);
        ok(strv_length(ids) == 1 && streq_ptr(ids[0], "0123abcd"), "containers/: 0123abcd");
        is_int(records_container_load(run, "0123abcd", &c), 0, "containers/0123abcd.conf read");
        ok(streq_ptr(c.name, "media-1") && streq_ptr(c.admitted_group, "media") && c.req.threads == 2, "  the container's record");
        container_record_done(&c);
        is_int(records_container_load(run, "4567cdef", &c), -ENOENT, "no container record: -ENOENT");
        ok(put(run, "containers/89abcdef.conf", "[Container]\nId=89abcdef\n") == 0, "a malformed container record");
        is_int(records_container_load(run, "89abcdef", &c), -EINVAL, "  -EINVAL");
        records_container_remove(run, "89abcdef");
        ok(!exists(run, "containers/89abcdef.conf"), "  removed");

        ok(!records_release_held(run, "m.service", "0123456789abcdef0123456789abcdef"), "released/m.service: another run's");
        ok(!exists(run, "released/m.service"), "  dropped");
        slices = records_slices_load(run);
        ok(strv_length(slices) == 1 && streq_ptr(slices[0], "deadline-media.slice"), "slices: deadline-media.slice");

        is_int(records_policy_copies(run, &dirs), 1, "applied/: one copy of the policy");
        ok(dirs && endswith(dirs[0], "/applied"), "  applied/");
        strv_free(dirs);
        ok(put(run, "applied.old/50-a.json", "{}\n") == 0, "applied.old/: dld died while it replaced the copy");
        is_int(records_policy_copies(run, &dirs), 2, "  two copies");
        ok(dirs && endswith(dirs[0], "/applied") && endswith(dirs[1], "/applied.old"), "  the newest first");
        strv_free(dirs);
        is_int(records_policy_save(run, &(Policy) { .files = (char *[]) { "/etc/dld/policies.d/60-b.json", NULL },
                                                    .texts = (char *[]) { "{\"groups\": []}\n", NULL } }), 0,
               "a policy saved");
        ok(exists(run, "applied/60-b.json") && !exists(run, "applied/50-a.json") && !exists(run, "applied.old") &&
           !exists(run, "applied.new"), "  applied/ holds its file, alone");
        is_int(records_policy_copies(run, &dirs), 1, "  one copy again");
}

int main(void) {
        static const struct {
                const char *what;
                int (*save)(const char *run);
        } writers[] = {
                { "a manual admission (manual/)", manual_only },
                { "a release by hand (released/)", release_only },
                { "an admission (admitted/)", admitted_only },
                { "a container (containers/)", container_only },
                { "the policy's slices (slices)", slices_only },
                { "the policy's copy (applied/)", policy_only },
        };
        char run[] = "/tmp/test-records.XXXXXX", layout[] = "/tmp/test-records-layout.XXXXXX";
        _cleanup_free_ char *before = NULL;
        struct rlimit old, lim;

        tap_begin();
        if (!mkdtemp(run) || !mkdtemp(layout))
                return 1;
        test_layout(layout);
        is_int(save_all(run, "first"), 0, "every record written");
        ok(snapshot(run, &before) == 0 && before, "read back");
        ok(getrlimit(RLIMIT_FSIZE, &old) == 0, "the file size limit");
        (void) signal(SIGXFSZ, SIG_IGN);
        for (size_t i = 0; i < ELEMENTSOF(writers); i++) {
                _cleanup_free_ char *after = NULL;
                int r, lowered;

                /* Reported once the limit is lifted: TAP on stdout, a file maybe. */
                lim = (struct rlimit) { .rlim_cur = 4, .rlim_max = old.rlim_max };
                fflush(stdout);
                lowered = setrlimit(RLIMIT_FSIZE, &lim);
                r = writers[i].save(run);
                (void) setrlimit(RLIMIT_FSIZE, &old);
                ok(lowered == 0, "lowered to 4 bytes");
                is_int(r, -EFBIG, writers[i].what);
                ok(snapshot(run, &after) == 0 && streq_ptr(after, before),
                   "  cut short: every old record whole, no temporary file left");
        }
        is_int(save_all(run, "second"), 0, "without the limit, every record is replaced");
        {
                _cleanup_free_ char *after = NULL;

                ok(snapshot(run, &after) == 0 && !streq_ptr(after, before), "  and reads back new");
        }
        {
                _cleanup_free_ char *cmd = NULL;

                if (asprintf(&cmd, "rm -rf '%s' '%s'", run, layout) >= 0)
                        (void) system(cmd);
        }
        return tap_done();
}
