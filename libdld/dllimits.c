/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The deadline resource limits of a unit's processes (dllimits.h). */
#include "dllimits.h"

DeadlineLimits dllimits_grant(const DeadlineRequest *req) {
        return (DeadlineLimits) {
                .dldline = { req->deadline_usec, req->deadline_usec },
                .dlrtime = { req->runtime_usec, req->runtime_usec },
        };
}

DeadlineLimits dllimits_none(void) {
        return (DeadlineLimits) {
                .dldline = { RLIM_INFINITY, RLIM_INFINITY },
                .dlrtime = { 0, 0 },
        };
}

static rlim_t max_limit(rlim_t a, rlim_t b) {
        return a > b ? a : b;   /* RLIM_INFINITY is the largest value */
}

static rlim_t min_limit(rlim_t a, rlim_t b) {
        return a < b ? a : b;
}

bool dllimits_widen(const DeadlineLimits *have, const DeadlineLimits *grant, DeadlineLimits *ret) {
        *ret = (DeadlineLimits) {
                .dldline = { min_limit(have->dldline.rlim_cur, grant->dldline.rlim_cur),
                             min_limit(have->dldline.rlim_max, grant->dldline.rlim_max) },
                .dlrtime = { max_limit(have->dlrtime.rlim_cur, grant->dlrtime.rlim_cur),
                             max_limit(have->dlrtime.rlim_max, grant->dlrtime.rlim_max) },
        };
        return ret->dldline.rlim_cur != have->dldline.rlim_cur || ret->dldline.rlim_max != have->dldline.rlim_max ||
               ret->dlrtime.rlim_cur != have->dlrtime.rlim_cur || ret->dlrtime.rlim_max != have->dlrtime.rlim_max;
}
