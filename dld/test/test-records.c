/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every record dld keeps under its run directory is written aside and
 * renamed into place: a write cut short (here by RLIMIT_FSIZE, as a full
 * disk or a crash would) fails and leaves each old record whole, with no
 * temporary file beside it. A writer that wrote in place fails this. */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>

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
        };
        char run[] = "/tmp/test-records.XXXXXX";
        _cleanup_free_ char *before = NULL;
        struct rlimit old, lim;

        tap_begin();
        if (!mkdtemp(run))
                return 1;
        is_int(save_all(run, "first"), 0, "every record written");
        ok(snapshot(run, &before) == 0 && before, "read back");
        ok(getrlimit(RLIMIT_FSIZE, &old) == 0, "the file size limit");
        (void) signal(SIGXFSZ, SIG_IGN);
        for (size_t i = 0; i < ELEMENTSOF(writers); i++) {
                _cleanup_free_ char *after = NULL;
                int r;

                lim = (struct rlimit) { .rlim_cur = 4, .rlim_max = old.rlim_max };
                ok(setrlimit(RLIMIT_FSIZE, &lim) == 0, "lowered to 4 bytes");
                r = writers[i].save(run);
                (void) setrlimit(RLIMIT_FSIZE, &old);
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

                if (asprintf(&cmd, "rm -rf '%s'", run) >= 0)
                        (void) system(cmd);
        }
        return tap_done();
}
