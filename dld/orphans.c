/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>

#include "log.h"
#include "orphans.h"
#include "unitname.h"

static bool is_service_cgroup(Manager *m, char * const *kept, const char *cgroup) {
        for (size_t i = 0; i < m->n_services; i++)
                if (m->services[i]->state == SERVICE_ADMITTED && streq_ptr(m->services[i]->cgroup, cgroup))
                        return true;
        return strv_contains(kept, cgroup);
}

/* group_cgroups: the groups' slice cgroups, looked up once per sweep. */
static void release_orphans_under(Manager *m, char * const *group_cgroups, char * const *kept, const char *cgroup,
                                  unsigned depth) {
        _cleanup_strv_free_ char **children = NULL;

        if (depth > 16 || kernelfs_cgroup_children(m->kfs, cgroup, &children) < 0)
                return;
        for (char **c = children; *c; c++) {
                _cleanup_free_ char *path = NULL;
                DlTemplate t;
                int64_t rt;

                if (asprintf(&path, "%s/%s", cgroup, *c) < 0)
                        return;
                if (!strv_contains(group_cgroups, path) && !is_service_cgroup(m, kept, path) &&
                    kernelfs_template_read(m->kfs, path, &t) == 0 && t.nr > 0) {
                        /* Its tasks go back to SCHED_OTHER with it. */
                        int r = kernelfs_template_write(m->kfs, path, &(DlTemplate) {});

                        if (r < 0)
                                log_warning("cannot release orphaned task template of %s: %s", path, strerror(-r));
                        else
                                log_notice("released orphaned task template of %s (%u tasks): no admitted unit owns it",
                                           path, t.nr);
                }
                if (!strv_contains(group_cgroups, path) && !is_service_cgroup(m, kept, path) &&
                    kernelfs_cgroup_read(m->kfs, path, "cpu.dl_runtime_us", &rt) == 0 && rt > 0) {
                        int r = kernelfs_cgroup_write(m->kfs, path, "cpu.dl_runtime_us", -1);

                        if (r < 0)
                                log_warning("cannot release orphaned reservation of %s: %s", path, strerror(-r));
                        else
                                log_notice("released orphaned reservation of %s (%" PRId64 "us per period): no admitted unit owns it",
                                           path, rt);
                }
                /* Below a unit's cgroup is the unit's own business (a
                 * delegated subtree, a container): only slices are walked. */
                if (endswith(*c, ".slice"))
                        release_orphans_under(m, group_cgroups, kept, path, depth + 1);
        }
}

void orphans_release(Manager *m, char * const *kept) {
        _cleanup_strv_free_ char **group_cgroups = NULL;

        for (size_t i = 0; i < m->policy.n_groups; i++) {
                _cleanup_free_ char *cg = unitname_slice_cgroup_path(m->policy.groups[i].slice);

                if (!cg || strv_extend(&group_cgroups, cg) < 0)
                        return;
        }
        for (char **cg = group_cgroups; cg && *cg; cg++)
                if (kernelfs_cgroup_exists(m->kfs, *cg))
                        release_orphans_under(m, group_cgroups, kept, *cg, 0);
}
