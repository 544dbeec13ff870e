/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <string.h>

#include "unitname.h"
#include "unitrecord.h"
#include "util.h"

void unitrecord_done(UnitRecord *r) {
        free(r->unit);
        free(r->invocation);
        free(r->group);
        free(r->cgroup);
        dropin_request_done(&r->req);
        *r = (UnitRecord) {};
}

static bool invocation_is_valid(const char *s) {
        size_t n = 0;

        for (; s && s[n]; n++)
                if (!isxdigit((unsigned char) s[n]) || isupper((unsigned char) s[n]))
                        return false;
        return n == 32;
}

char *unitrecord_format(const UnitRecord *r) {
        _cleanup_free_ char *request = NULL;
        const char *body;
        char *s;

        if (!r->unit || !r->invocation || !r->group || !r->cgroup)
                return NULL;
        request = dropin_format(&r->req);
        if (!request)
                return NULL;
        /* Without dropin_format()'s comment, which is about requests by hand. */
        body = request[0] == '#' ? strchrnul(request, '\n') + 1 : request;
        if (asprintf(&s, "# dld's record of a unit it admitted: kept while the unit runs.\n"
                         "[Admission]\nUnit=%s\nInvocation=%s\nGroup=%s\nCgroup=%s\nManual=%s\n\n%s",
                     r->unit, r->invocation, r->group, r->cgroup, r->manual ? "yes" : "no", body) < 0)
                return NULL;
        return s;
}

int unitrecord_parse(const char *file, const char *text, UnitRecord *ret, DiagList *d) {
        static const char *const keys[] = { "Unit", "Invocation", "Group", "Cgroup", "Manual", NULL };
        _cleanup_(unitrecord_done) UnitRecord u = {};
        _cleanup_free_ char *manual = NULL;
        char *values[ELEMENTSOF(keys)];
        int r;

        *ret = (UnitRecord) {};
        if (dropin_section_read(text, "[Admission]", keys, values) < 0)
                return -ENOMEM;
        u.unit = values[0];
        u.invocation = values[1];
        u.group = values[2];
        u.cgroup = values[3];
        manual = values[4];
        if (!u.unit || !unitname_is_service(u.unit))
                return diag_add(d, file, "[Admission]", "Unit= missing or not a service") < 0 ? -ENOMEM : -EINVAL;
        if (!invocation_is_valid(u.invocation))
                return diag_add(d, file, "[Admission]", "Invocation= missing or not 32 hex digits") < 0 ? -ENOMEM : -EINVAL;
        if (!u.group || !unitname_group_is_valid(u.group))
                return diag_add(d, file, "[Admission]", "Group= missing or not a group name") < 0 ? -ENOMEM : -EINVAL;
        if (!unitname_cgroup_path_is_valid(u.cgroup))
                return diag_add(d, file, "[Admission]", "Cgroup= missing or not a cgroup path") < 0 ? -ENOMEM : -EINVAL;
        if (!streq_ptr(manual, "yes") && !streq_ptr(manual, "no"))
                return diag_add(d, file, "[Admission]", "Manual= missing or neither yes nor no") < 0 ? -ENOMEM : -EINVAL;
        u.manual = streq_ptr(manual, "yes");
        r = dropin_parse_record(&u.req, file, text, d);
        if (r < 0)
                return r;
        *ret = u;
        u = (UnitRecord) {};
        return 0;
}
