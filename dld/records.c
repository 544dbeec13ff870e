/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The text of run_dir/subdir/name+suffix, and its path (both allocated): 0,
 * -ENOENT (no record, or one that cannot be read) or -ENOMEM. */
static int record_read(const char *run_dir, const char *subdir, const char *name, const char *suffix,
                       char **ret_path, char **ret_text) {
        _cleanup_free_ char *path = record_path(run_dir, subdir, name, suffix);
        int r;

        if (!path)
                return -ENOMEM;
        r = fileio_read_config(path, ret_text, NULL);
        if (r < 0)
                return r == -ENOMEM ? r : -ENOENT;
        *ret_path = TAKE_PTR(path);
        return 0;
}

/* The names in run_dir/subdir that end in suffix, less it: the keys of its
 * records (allocated; NULL for none). Not the temporary files of a write
 * (".#NAME.XXXXXX", fileio_write_atomic()). */
static char **record_names(const char *run_dir, const char *subdir, const char *suffix) {
        _cleanup_free_ char *dir = NULL;
        _cleanup_(closedirp) DIR *d = NULL;
        char **names = NULL;
        struct dirent *de;

        if (asprintf(&dir, "%s/%s", run_dir, subdir) < 0 || !(d = opendir(dir)))
                return NULL;
        while ((de = readdir(d))) {
                _cleanup_free_ char *name = NULL;
                size_t l = strlen(de->d_name);

                if (startswith(de->d_name, ".#") || l <= strlen(suffix) || !endswith(de->d_name, suffix))
                        continue;
                name = strndup(de->d_name, l - strlen(suffix));
                if (!name || strv_extend(&names, name) < 0) {
                        strv_free(names);
                        return NULL;
                }
        }
        return names;
}

int records_manual_save(const char *run_dir, const char *unit, const DeadlineRequest *req) {
        _cleanup_free_ char *text = dropin_format(req);

        return record_write(run_dir, "manual", unit, ".conf", text);
}

void records_manual_remove(const char *run_dir, const char *unit) {
        record_remove(run_dir, "manual", unit, ".conf");
}

int records_manual_load(const char *run_dir, const char *unit, DeadlineRequest *req, DiagList *d) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        int r;

        r = record_read(run_dir, "manual", unit, ".conf", &path, &text);
        if (r < 0)
                return r;
        return dropin_parse(req, path, text, d);
}

char **records_manual_units(const char *run_dir) {
        return record_names(run_dir, "manual", ".conf");
}

int records_release_save(const char *run_dir, const char *unit, const char *invocation) {
        return record_write(run_dir, "released", unit, "", invocation ?: "");
}

void records_release_remove(const char *run_dir, const char *unit) {
        record_remove(run_dir, "released", unit, "");
}

bool records_release_held(const char *run_dir, const char *unit, const char *invocation) {
        _cleanup_free_ char *path = NULL, *text = NULL;

        if (record_read(run_dir, "released", unit, "", &path, &text) < 0)
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
        _cleanup_free_ char *path = NULL, *text = NULL;
        DiagList d = {};
        int r;

        *ret = (UnitRecord) {};
        r = record_read(run_dir, "admitted", unit, ".conf", &path, &text);
        if (r < 0)
                return r;
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
        return record_names(run_dir, "admitted", ".conf");
}

int records_container_save(const char *run_dir, const char *id, const char *name, const char *cgroup,
                           const char *admitted_group, const DeadlineRequest *req) {
        _cleanup_free_ char *text = container_record_format(id, name, cgroup, admitted_group, req);

        return record_write(run_dir, "containers", id, ".conf", text);
}

void records_container_remove(const char *run_dir, const char *id) {
        record_remove(run_dir, "containers", id, ".conf");
}

int records_container_load(const char *run_dir, const char *id, ContainerRecord *ret) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        DiagList d = {};
        int r;

        *ret = (ContainerRecord) {};
        r = record_read(run_dir, "containers", id, ".conf", &path, &text);
        if (r < 0)
                return r;
        r = container_record_parse(path, text, ret, &d);
        diag_list_done(&d);
        return r;
}

char **records_container_ids(const char *run_dir) {
        return record_names(run_dir, "containers", ".conf");
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

/* Empties and removes a directory of plain files. */
static void remove_flat_dir(const char *dir) {
        _cleanup_(closedirp) DIR *d = opendir(dir);
        struct dirent *de;

        if (!d)
                return;
        while ((de = readdir(d)))
                if (de->d_name[0] != '.')
                        (void) unlinkat(dirfd(d), de->d_name, 0);
        (void) rmdir(dir);
}

/* run_dir/applied+suffix: "" the copy, ".old" the one before while it is
 * replaced, ".new" the one being written. */
static char *policy_dir(const char *run_dir, const char *suffix) {
        char *p;

        return asprintf(&p, "%s/applied%s", run_dir, suffix) < 0 ? NULL : p;
}

int records_policy_save(const char *run_dir, const Policy *p) {
        _cleanup_free_ char *dir = policy_dir(run_dir, ""), *old = policy_dir(run_dir, ".old"),
                *tmp = policy_dir(run_dir, ".new");
        int r;

        if (!dir || !old || !tmp)
                return -ENOMEM;
        remove_flat_dir(tmp);
        (void) mkdir(run_dir, 0755);
        if (mkdir(tmp, 0755) < 0)
                return -errno;
        for (size_t i = 0; p->files && p->files[i]; i++) {
                const char *base = strrchr(p->files[i], '/');
                _cleanup_free_ char *path = NULL;

                if (asprintf(&path, "%s/%s", tmp, base ? base + 1 : p->files[i]) < 0)
                        r = -ENOMEM;
                else
                        r = fileio_write_atomic(path, p->texts[i]);
                if (r < 0) {
                        remove_flat_dir(tmp);
                        return r;
                }
        }
        remove_flat_dir(old);
        if (rename(dir, old) < 0 && errno != ENOENT)
                return -errno;
        if (rename(tmp, dir) < 0)
                return -errno;
        remove_flat_dir(old);
        return 0;
}

int records_policy_copies(const char *run_dir, char ***ret) {
        _cleanup_free_ char *dir = policy_dir(run_dir, ""), *old = policy_dir(run_dir, ".old");
        char **l = NULL;

        *ret = NULL;
        if (!dir || !old)
                return -ENOMEM;
        if ((access(dir, F_OK) == 0 && strv_extend(&l, dir) < 0) ||
            (access(old, F_OK) == 0 && strv_extend(&l, old) < 0)) {
                strv_free(l);
                return -ENOMEM;
        }
        *ret = l;
        return (int) strv_length(l);
}
