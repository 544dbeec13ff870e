/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "tap.h"
#include "unitname.h"
#include "util.h"

int main(void) {
        static const char * const good_slices[] = { "deadline.slice", "deadline-media.slice", "a-b-c.slice", "x_y.slice" };
        static const char * const bad_slices[] = {
                "-.slice", "deadline", "deadline.service", "-a.slice", "a-.slice", "a--b.slice",
                ".slice", "a b.slice", "a@b.slice", "a/b.slice", "",
        };
        tap_begin();

        for (size_t i = 0; i < ELEMENTSOF(good_slices); i++)
                ok(unitname_slice_is_valid(good_slices[i]), "slice \"%s\" is valid", good_slices[i]);
        for (size_t i = 0; i < ELEMENTSOF(bad_slices); i++)
                ok(!unitname_slice_is_valid(bad_slices[i]), "slice \"%s\" is invalid", bad_slices[i]);

        ok(unitname_is_valid("media-worker.service"), "service name valid");
        ok(unitname_is_valid("getty@tty1.service"), "template instance valid");
        ok(!unitname_is_valid("foo"), "name without type invalid");
        ok(!unitname_is_valid("foo.bar"), "unknown type invalid");
        ok(!unitname_is_valid("foo/x.service"), "slash invalid");
        ok(unitname_is_service("a-b.service"), "a service");
        ok(!unitname_is_service("a.slice"), "a slice is not a service");
        ok(!unitname_is_service(".service"), "empty prefix is not a service");

        ok(unitname_group_is_valid("media_1-a"), "group name valid");
        ok(!unitname_group_is_valid(""), "empty group name invalid");
        ok(!unitname_group_is_valid("a.b"), "dot in group name invalid");
        ok(!unitname_group_is_valid("0123456789012345678901234567890123456789012345678901234567890123456789"),
           "long group name invalid");

        ok(unitname_slice_contains("deadline.slice", "deadline-media.slice"), "parent contains child");
        ok(unitname_slice_contains("deadline.slice", "deadline.slice"), "slice contains itself");
        ok(!unitname_slice_contains("deadline.slice", "deadlinex.slice"), "prefix without dash is not a child");
        ok(!unitname_slice_contains("deadline-media.slice", "deadline.slice"), "child does not contain parent");

        {
                _cleanup_free_ char *p = unitname_slice_cgroup_path("a-b-c.slice"), *q = unitname_slice_cgroup_path("deadline.slice");
                is_str(p, "/a.slice/a-b.slice/a-b-c.slice", "cgroup path of a nested slice");
                is_str(q, "/deadline.slice", "cgroup path of a top-level slice");
        }
        {
                /* systemd's escaping (cg_escape()): a component named like a controller's file. */
                _cleanup_free_ char *p = unitname_slice_cgroup_path("cpu-rt.slice"), *q = unitname_slice_cgroup_path("io.slice"),
                                    *r = unitname_slice_cgroup_path("cpuset-x-y.slice"), *t = unitname_slice_cgroup_path("tasks-a.slice");
                is_str(p, "/_cpu.slice/cpu-rt.slice", "cpu.slice is escaped, cpu-rt.slice is not");
                is_str(q, "/_io.slice", "io.slice is escaped");
                is_str(r, "/_cpuset.slice/cpuset-x.slice/cpuset-x-y.slice", "only the controller-named level");
                is_str(t, "/tasks.slice/tasks-a.slice", "tasks.slice is not the reserved name tasks");
        }
        {
                static const unsigned char id[16] = { 0x00, 0x1f, 0xa0, 0xff, 0x12, 0x34, 0x56, 0x78,
                                                      0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x02, 0x03, 0x0e };
                _cleanup_free_ char *h = unitname_id128_to_hex(id, sizeof(id)), *e = unitname_id128_to_hex(id, 0);

                is_str(h, "001fa0ff123456789abcdef00102030e", "an InvocationID in $INVOCATION_ID's form");
                is_str(e, "", "no InvocationID: empty");
        }
        ok(unitname_cgroup_is_within("/a.slice/u.service", "/a.slice/u.service"), "a cgroup is within itself");
        ok(unitname_cgroup_is_within("/a.slice/u.service/x/y", "/a.slice/u.service"), "a child cgroup is within");
        ok(unitname_cgroup_is_within("/a.slice/u.service/x", "/a.slice/u.service/"), "a trailing slash is the same");
        ok(!unitname_cgroup_is_within("/a.slice/u.service2", "/a.slice/u.service"), "a sibling sharing the prefix is not");
        ok(!unitname_cgroup_is_within("/a.slice", "/a.slice/u.service"), "the parent is not");
        ok(unitname_cgroup_is_within("/a.slice", "/"), "everything is within the root");
        ok(!unitname_cgroup_is_within(NULL, "/a"), "no path: not within");
        return tap_done();
}
