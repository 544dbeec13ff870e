/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How failed calls to dld become exit statuses and one-line messages. */
#include "args.h"
#include "client.h"
#include "dlsched/dld-bus.h"
#include "tap.h"
#include "util.h"

static void test_exit_status(void) {
        struct { const char *name; int r, want; } cases[] = {
                { DLD_ERROR_REFUSED, -EBUSY, EXIT_DLCONF_REFUSED },
                { DLD_ERROR_POLICY_INVALID, -EINVAL, EXIT_DLCONF_INVALID },
                { DLD_ERROR_INVALID_REQUEST, -EINVAL, EXIT_DLCONF_USAGE },
                { DLD_ERROR_NO_SUCH_UNIT, -ENOENT, EXIT_DLCONF_FAILURE },
                { DLD_ERROR_NO_SUCH_SERVICE, -ENOENT, EXIT_DLCONF_FAILURE },
                { DLD_ERROR_UNIT_NOT_ACTIVE, -EINVAL, EXIT_DLCONF_FAILURE },
                { DLD_ERROR_NOT_IN_GROUP, -EINVAL, EXIT_DLCONF_FAILURE },
                { DLD_ERROR_APPLY_FAILED, -EIO, EXIT_DLCONF_FAILURE },
                { DLD_ERROR_KERNEL_UNSUPPORTED, -EOPNOTSUPP, EXIT_DLCONF_FAILURE },
                { "org.freedesktop.DBus.Error.AccessDenied", -EACCES, EXIT_DLCONF_PERMISSION },
                { "org.freedesktop.DBus.Error.ServiceUnknown", -EHOSTUNREACH, EXIT_DLCONF_UNREACHABLE },
                { "org.freedesktop.DBus.Error.NameHasNoOwner", -ENXIO, EXIT_DLCONF_UNREACHABLE },
                { "org.freedesktop.DBus.Error.NoReply", -ETIMEDOUT, EXIT_DLCONF_NO_ANSWER },
                { "org.freedesktop.DBus.Error.Timeout", -ETIMEDOUT, EXIT_DLCONF_NO_ANSWER },
                { "System.Error.ETIMEDOUT", -ETIMEDOUT, EXIT_DLCONF_NO_ANSWER },
                { NULL, -ETIMEDOUT, EXIT_DLCONF_NO_ANSWER },
                { "org.freedesktop.DBus.Error.UnknownObject", -EBADR, EXIT_DLCONF_UNREACHABLE },
                { "System.Error.EACCES", -EACCES, EXIT_DLCONF_PERMISSION },
                { "System.Error.ECONNREFUSED", -ECONNREFUSED, EXIT_DLCONF_UNREACHABLE },
                { NULL, -ENOENT, EXIT_DLCONF_UNREACHABLE },
                { NULL, -ECONNREFUSED, EXIT_DLCONF_UNREACHABLE },
                { NULL, -EPERM, EXIT_DLCONF_PERMISSION },
                { NULL, -EBADMSG, EXIT_DLCONF_FAILURE },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                is_int(client_exit_status(cases[i].name, cases[i].r), cases[i].want, "%s (%s) -> %d",
                       cases[i].name ?: "no error name", strerror(-cases[i].r), cases[i].want);
}

static void test_messages(void) {
        _cleanup_free_ char *refused = client_error_message(DLD_ERROR_REFUSED, "group \"media\" is full", -EBUSY);
        _cleanup_free_ char *denied = client_error_message("org.freedesktop.DBus.Error.AccessDenied", "Access denied", -EACCES);
        _cleanup_free_ char *down = client_error_message("org.freedesktop.DBus.Error.ServiceUnknown",
                                                         "The name org.dlsched.Dld1 was not provided by any .service files", -EHOSTUNREACH);
        _cleanup_free_ char *other = client_error_message(DLD_ERROR_NO_SUCH_SERVICE, "dld follows no unit x.service", -ENOENT);
        _cleanup_free_ char *bare = client_error_message(NULL, NULL, -EBADMSG);
        _cleanup_free_ char *silent = client_error_message("org.freedesktop.DBus.Error.NoReply",
                                                           "dld did not answer AdmitUnit in 30 s", -ETIMEDOUT);
        _cleanup_free_ char *silent_bare = client_error_message(NULL, NULL, -ETIMEDOUT);

        is_str(refused, "refused: group \"media\" is full", "refusal");
        is_str(denied, "permission denied (Access denied)", "permission");
        is_str(down, "dld is not reachable on the system bus (is dld.service running?): "
                     "The name org.dlsched.Dld1 was not provided by any .service files", "daemon down");
        is_str(other, "dld follows no unit x.service", "other errors: dld's message as is");
        is_str(bare, strerror(EBADMSG), "no message: the errno");
        is_str(silent, "dld did not answer AdmitUnit in 30 s (dld.service is running, but busy, stuck or waiting on polkit)",
               "no answer in time: not \"not reachable\"");
        is_str(silent_bare, "dld did not answer in time (dld.service is running, but busy, stuck or waiting on polkit)",
               "no answer, no message");
        ok(!strchr(refused, '\n') && !strchr(down, '\n') && !strchr(silent, '\n'), "one line each");
}

int main(void) {
        tap_begin();
        test_exit_status();
        test_messages();
        return tap_done();
}
