/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <sys/stat.h>

#include "container.h"
#include "records.h"
#include "util.h"

static char *record_path(const char *run_dir, const char *subdir, const char *name, const char *suffix) {
        char *p;

        return asprintf(&p, "%s/%s/%s%s", run_dir, subdir, name, suffix) < 0 ? NULL : p;
}

/* Writes text to run_dir/subdir/name+suffix (the directories made as needed). */
static int record_write(const char *run_dir, const char *subdir, const char *name, const char *suffix,
                        const char *text) {
        _cleanup_free_ char *dir = NULL, *path = record_path(run_dir, subdir, name, suffix);

        if (!path || !text || asprintf(&dir, "%s/%s", run_dir, subdir) < 0)
                return -ENOMEM;
        (void) mkdir(run_dir, 0755);
        (void) mkdir(dir, 0755);
        return fileio_write_full(path, text);
}

static void record_remove(const char *run_dir, const char *subdir, const char *name, const char *suffix) {
        _cleanup_free_ char *path = record_path(run_dir, subdir, name, suffix);

        if (path)
                (void) unlink(path);
}

char *records_manual_path(const char *run_dir, const char *unit) {
        return record_path(run_dir, "manual", unit, ".conf");
}

int records_manual_save(const char *run_dir, const char *unit, const DeadlineRequest *req) {
        _cleanup_free_ char *text = dropin_format(req);

        return record_write(run_dir, "manual", unit, ".conf", text);
}

void records_manual_remove(const char *run_dir, const char *unit) {
        record_remove(run_dir, "manual", unit, ".conf");
}

int records_release_save(const char *run_dir, const char *unit, const char *invocation) {
        return record_write(run_dir, "released", unit, "", invocation ?: "");
}

void records_release_remove(const char *run_dir, const char *unit) {
        record_remove(run_dir, "released", unit, "");
}

bool records_release_held(const char *run_dir, const char *unit, const char *invocation) {
        _cleanup_free_ char *path = record_path(run_dir, "released", unit, ""), *text = NULL;

        if (!path || fileio_read_config(path, &text, NULL) < 0)
                return false;
        if (invocation && *invocation && streq_ptr(strstrip(text), invocation))
                return true;
        records_release_remove(run_dir, unit);
        return false;
}

char *records_containers_dir(const char *run_dir) {
        char *p;

        return asprintf(&p, "%s/containers", run_dir) < 0 ? NULL : p;
}

int records_container_save(const char *run_dir, const char *id, const char *name, const char *cgroup,
                           const DeadlineRequest *req) {
        _cleanup_free_ char *text = container_record_format(id, name, cgroup, req);

        return record_write(run_dir, "containers", id, ".conf", text);
}

void records_container_remove(const char *run_dir, const char *id) {
        record_remove(run_dir, "containers", id, ".conf");
}
