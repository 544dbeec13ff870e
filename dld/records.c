/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <sys/stat.h>

#include "container.h"
#include "log.h"
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
        return fileio_write_atomic(path, text);
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

int records_admitted_save(const char *run_dir, const UnitRecord *rec) {
        _cleanup_free_ char *text = unitrecord_format(rec);

        return record_write(run_dir, "admitted", rec->unit, ".conf", text);
}

int records_admitted_load(const char *run_dir, const char *unit, UnitRecord *ret) {
        _cleanup_free_ char *path = record_path(run_dir, "admitted", unit, ".conf"), *text = NULL;
        DiagList d = {};
        int r;

        *ret = (UnitRecord) {};
        if (!path)
                return -ENOMEM;
        r = fileio_read_config(path, &text, NULL);
        if (r < 0)
                return r == -ENOMEM ? r : -ENOENT;
        r = unitrecord_parse(path, text, ret, &d);
        if (r == 0 && !streq_ptr(ret->unit, unit)) {
                unitrecord_done(ret);
                r = diag_add(&d, path, "[Admission]", "Unit= names another unit") < 0 ? -ENOMEM : -EINVAL;
        }
        if (r == -EINVAL) {
                for (size_t i = 0; i < d.n; i++)
                        log_warning("%s: record of its admission unusable, dropped: %s: %s", unit,
                                    d.items[i].where ?: "", d.items[i].message);
                records_admitted_remove(run_dir, unit);
        }
        diag_list_done(&d);
        return r;
}

void records_admitted_remove(const char *run_dir, const char *unit) {
        record_remove(run_dir, "admitted", unit, ".conf");
}

char **records_admitted_units(const char *run_dir) {
        _cleanup_free_ char *dir = NULL;
        _cleanup_(closedirp) DIR *d = NULL;
        char **units = NULL;
        struct dirent *de;

        if (asprintf(&dir, "%s/admitted", run_dir) < 0 || !(d = opendir(dir)))
                return NULL;
        while ((de = readdir(d))) {
                _cleanup_free_ char *unit = NULL;

                /* Not a temporary file (".#NAME.XXXXXX", fileio_write_atomic()). */
                if (de->d_name[0] == '.' || !endswith(de->d_name, ".conf"))
                        continue;
                unit = strndup(de->d_name, strlen(de->d_name) - strlen(".conf"));
                if (!unit || strv_extend(&units, unit) < 0) {
                        strv_free(units);
                        return NULL;
                }
        }
        return units;
}

char *records_containers_dir(const char *run_dir) {
        char *p;

        return asprintf(&p, "%s/containers", run_dir) < 0 ? NULL : p;
}

int records_container_save(const char *run_dir, const char *id, const char *name, const char *cgroup,
                           const char *admitted_group, const DeadlineRequest *req) {
        _cleanup_free_ char *text = container_record_format(id, name, cgroup, admitted_group, req);

        return record_write(run_dir, "containers", id, ".conf", text);
}

void records_container_remove(const char *run_dir, const char *id) {
        record_remove(run_dir, "containers", id, ".conf");
}

int records_slices_save(const char *run_dir, char * const *slices) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        size_t size = 1;

        for (char * const *s = slices; s && *s; s++)
                size += strlen(*s) + 1;
        if (asprintf(&path, "%s/slices", run_dir) < 0 || !(text = calloc(1, size)))
                return -ENOMEM;
        for (char * const *s = slices; s && *s; s++) {
                strcat(text, *s);
                strcat(text, "\n");
        }
        (void) mkdir(run_dir, 0755);
        return fileio_write_atomic(path, text);
}

char **records_slices_load(const char *run_dir) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        char **slices = NULL, *save = NULL;

        if (asprintf(&path, "%s/slices", run_dir) < 0 || fileio_read_config(path, &text, NULL) < 0)
                return NULL;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                /* Its own file; still, only what names a slice. */
                if (endswith(line, ".slice") && !strchr(line, '/') && strv_extend(&slices, line) < 0) {
                        strv_free(slices);
                        return NULL;
                }
        return slices;
}
