/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "tap.h"
#include "util.h"

int main(void) {
        _cleanup_strv_free_ char **l = NULL;

        tap_begin();
        ok(!strv_remove(NULL, "a"), "nothing removed from no list");
        ok(strv_extend(&l, "/job/1") == 0 && strv_extend(&l, "/job/2") == 0 &&
           strv_extend(&l, "/job/1") == 0 && strv_length(l) == 3, "three entries, one twice");
        ok(!strv_remove(l, "/job/3"), "an entry not there: nothing removed");
        ok(strv_length(l) == 3, "and the list is as it was");
        ok(strv_remove(l, "/job/1"), "an entry there twice is removed");
        ok(strv_length(l) == 1 && streq_ptr(l[0], "/job/2") && !strv_contains(l, "/job/1"), "both times, the rest in order");
        ok(strv_remove(l, "/job/2") && strv_length(l) == 0 && l[0] == NULL, "the last one leaves an empty list");
        ok(!strv_remove(l, "/job/2"), "and an empty list has nothing to remove");
        return tap_done();
}
