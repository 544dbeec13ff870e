/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "util.h"

/* How many entries dir holds besides . and .. (a temporary file left
 * beside a record would show here). */
static int entries(const char *dir) {
        _cleanup_(closedirp) DIR *d = opendir(dir);
        struct dirent *de;
        int n = 0;

        while (d && (de = readdir(d)))
                if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                        n++;
        return d ? n : -1;
}

int main(void) {
        char dir[] = "/tmp/dld-test-fileio.XXXXXX", path[256], sub[256], missing[256];
        _cleanup_free_ char *text = NULL, *again = NULL;
        struct stat st;

        tap_begin();
        if (!ok(mkdtemp(dir) != NULL, "a temporary directory"))
                return tap_done();
        snprintf(path, sizeof(path), "%s/unit.service.conf", dir);
        snprintf(sub, sizeof(sub), "%s/sub", dir);
        snprintf(missing, sizeof(missing), "%s/none/x.conf", dir);

        is_int(fileio_write_atomic(path, "one\n"), 0, "a new record is written");
        ok(fileio_read_full(path, &text, NULL) == 0 && streq_ptr(text, "one\n"), "and reads back");
        ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644, "mode 0644, whatever mkostemp() made");
        is_int(fileio_write_atomic(path, "two, longer\n"), 0, "a record is replaced");
        ok(fileio_read_full(path, &again, NULL) == 0 && streq_ptr(again, "two, longer\n"), "by the new text");
        is_int(entries(dir), 1, "nothing left beside it");

        /* A write cut short (here by the file size limit, as a full disk
         * or a crash would) leaves the old record whole. */
        {
                struct rlimit old, lim;
                int r;

                ok(getrlimit(RLIMIT_FSIZE, &old) == 0, "the file size limit");
                lim = (struct rlimit) { .rlim_cur = 4, .rlim_max = old.rlim_max };
                (void) signal(SIGXFSZ, SIG_IGN);
                ok(setrlimit(RLIMIT_FSIZE, &lim) == 0, "lowered to 4 bytes");
                r = fileio_write_atomic(path, "three: longer than the limit\n");
                (void) setrlimit(RLIMIT_FSIZE, &old);
                is_int(r, -EFBIG, "a write cut short: EFBIG");
                free(again);
                again = NULL;
                ok(fileio_read_full(path, &again, NULL) == 0 && streq_ptr(again, "two, longer\n"),
                   "the old record is whole");
                is_int(entries(dir), 1, "and no temporary file is left");
        }

        is_int(fileio_write_atomic(missing, "x"), -ENOENT, "a missing directory: ENOENT");
        ok(mkdir(sub, 0755) == 0, "a directory where the record would go");
        ok(fileio_write_atomic(sub, "x") < 0, "cannot replace a directory");
        is_int(entries(dir), 2, "and leaves no temporary file");
        is_int(fileio_write_atomic(path, ""), 0, "an empty record");
        free(text);
        text = NULL;
        ok(fileio_read_full(path, &text, NULL) == 0 && streq_ptr(text, ""), "reads back empty");

        (void) unlink(path);
        (void) rmdir(sub);
        (void) rmdir(dir);
        return tap_done();
}
