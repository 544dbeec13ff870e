/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dld's record of a unit it admitted: written, read back, refused whole
 * when any field is wrong. */
#include "tap.h"
#include "unitrecord.h"

#define INV "0123456789abcdef0123456789abcdef"

static const char *good =
        "# dld's record of a unit it admitted: kept while the unit runs.\n"
        "[Admission]\nUnit=media.service\nInvocation=" INV "\nGroup=media\n"
        "Cgroup=/deadline.slice/deadline-media.slice/media.service\nManual=no\n\n"
        "[Service]\nX-DeadlineRuntime=2ms\nX-DeadlinePeriod=20ms\nX-DeadlineThreads=3\n";

/* text with the line starting with key replaced by line ("" drops it). */
static char *with_line(const char *key, const char *line) {
        const char *at = strstr(good, key), *eol;
        char *s;

        if (!at)
                return NULL;
        eol = strchr(at, '\n') + 1;
        return asprintf(&s, "%.*s%s%s", (int) (at - good), good, line, eol) < 0 ? NULL : s;
}

static void check_bad(const char *what, const char *text, const char *want) {
        UnitRecord u;
        DiagList d = {};
        _cleanup_free_ char *msg = NULL;
        int r = unitrecord_parse("r.conf", text ?: "", &u, &d);

        msg = d.n > 0 ? diag_format(&d.items[0]) : NULL;
        is_int(r, -EINVAL, "refused: %s", what);
        ok(msg && strstr(msg, want), "  says \"%s\" (%s)", want, msg ?: "nothing");
        ok(!u.unit && !u.req.runtime_usec, "  and returns nothing");
        diag_list_done(&d);
}

int main(void) {
        UnitRecord u, back;
        DiagList d = {};

        tap_begin();
        is_int(unitrecord_parse("r.conf", good, &u, &d), 0, "a record is read");
        is_str(u.unit, "media.service", "unit");
        is_str(u.invocation, INV, "invocation");
        is_str(u.group, "media", "group");
        is_str(u.cgroup, "/deadline.slice/deadline-media.slice/media.service", "cgroup");
        ok(!u.manual, "not by hand");
        ok(u.req.runtime_usec == 2000 && u.req.deadline_usec == 20000 && u.req.period_usec == 20000 && u.req.threads == 3,
           "request 2ms/20ms/20ms x 3");
        {
                _cleanup_free_ char *text = NULL;

                u.manual = true;
                u.req.promote = PROMOTE_NONE;
                text = unitrecord_format(&u);
                ok(text != NULL, "formatted");
                is_int(unitrecord_parse("r.conf", text ?: "", &back, &d), 0, "and read back");
                ok(back.manual && back.req.promote == PROMOTE_NONE && back.req.threads == 3 &&
                   streq_ptr(back.cgroup, u.cgroup) && streq_ptr(back.invocation, INV), "  the same record");
                unitrecord_done(&back);
        }
        {
                UnitRecord partial = { .unit = (char *) "x.service" };

                ok(unitrecord_format(&partial) == NULL, "a record without invocation, group or cgroup is not formatted");
        }
        unitrecord_done(&u);
        is_int(d.n, 0, "no problems on the way");

        {
                struct { const char *what, *key, *line, *want; } bad[] = {
                        { "no unit", "Unit=", "", "Unit=" },
                        { "a unit that is not a service", "Unit=", "Unit=media.socket\n", "Unit=" },
                        { "a unit name with a slash", "Unit=", "Unit=../x.service\n", "Unit=" },
                        { "no invocation", "Invocation=", "", "Invocation=" },
                        { "a short invocation", "Invocation=", "Invocation=0123\n", "Invocation=" },
                        { "an upper-case invocation", "Invocation=", "Invocation=0123456789ABCDEF0123456789abcdef\n", "Invocation=" },
                        { "an invocation with a non-hex digit", "Invocation=", "Invocation=0123456789abcdeg0123456789abcdef\n", "Invocation=" },
                        { "no group", "Group=", "", "Group=" },
                        { "a bad group name", "Group=", "Group=me dia\n", "Group=" },
                        { "a relative cgroup", "Cgroup=", "Cgroup=deadline.slice/x.service\n", "Cgroup=" },
                        { "a cgroup with ..", "Cgroup=", "Cgroup=/deadline.slice/../x.service\n", "Cgroup=" },
                        { "the root cgroup", "Cgroup=", "Cgroup=/\n", "Cgroup=" },
                        { "no Manual=", "Manual=", "", "Manual=" },
                        { "Manual=maybe", "Manual=", "Manual=maybe\n", "Manual=" },
                        { "a bad runtime", "X-DeadlineRuntime=", "X-DeadlineRuntime=fast\n", "X-DeadlineRuntime" },
                        { "runtime over period", "X-DeadlineRuntime=", "X-DeadlineRuntime=30ms\n", "runtime" },
                        { "no request", "X-DeadlineRuntime=", "", "X-DeadlineRuntime" },
                };

                for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                        _cleanup_free_ char *text = with_line(bad[i].key, bad[i].line);

                        check_bad(bad[i].what, text, bad[i].want);
                }
        }
        check_bad("an empty text", "", "Unit=");
        check_bad("garbage", "\x01\x02 [[[ =\n=\n", "Unit=");
        /* The fields count in [Admission] only. */
        check_bad("Unit= outside [Admission]", "[Service]\nUnit=a.service\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\n", "Unit=");
        return tap_done();
}
