/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "state.h"
#include "util.h"

static void state_system_done(DlconfSystem *s) {
        free(s->version);
        free(s->policy_directory);
        strv_free(s->policy_files);
        free(s->cgroup_hierarchy);
        *s = (DlconfSystem) {};
}

static void state_group_done(DlconfGroup *g) {
        free(g->name);
        free(g->slice);
        free(g->on_refusal);
        *g = (DlconfGroup) {};
}

void state_service_done(DlconfService *s) {
        free(s->unit);
        free(s->group);
        free(s->state);
        free(s->source);
        free(s->reason);
        free(s->container_id);
        free(s->container_name);
        free(s->newer_request);
        *s = (DlconfService) {};
}

const char *state_service_label(const DlconfService *s, char *buf, size_t size) {
        if (!s->container_id || !*s->container_id)
                return s->unit;
        snprintf(buf, size, "%s (container %.12s)", s->container_name, s->container_id);
        return buf;
}

void state_done(DlconfState *s) {
        state_system_done(&s->system);
        for (size_t i = 0; i < s->n_groups; i++)
                state_group_done(&s->groups[i]);
        free(s->groups);
        for (size_t i = 0; i < s->n_services; i++)
                state_service_done(&s->services[i]);
        free(s->services);
        *s = (DlconfState) {};
}

#define ADD_ENTRY(array, n)                                             \
        ({                                                              \
                typeof(array) _a = realloc((array), ((n) + 1) * sizeof(*(array))); \
                if (_a) {                                               \
                        (array) = _a;                                   \
                        (array)[(n)] = (typeof(*(array))) {};           \
                        _a = &(array)[(n)++];                           \
                }                                                       \
                _a;                                                     \
        })

DlconfGroup *state_add_group(DlconfState *s) {
        return ADD_ENTRY(s->groups, s->n_groups);
}

DlconfService *state_add_service(DlconfState *s) {
        return ADD_ENTRY(s->services, s->n_services);
}
