/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>

#include "unitname.h"
#include "util.h"

static const char * const unit_types[] = {
        "service", "socket", "target", "device", "mount", "automount",
        "swap", "timer", "path", "slice", "scope",
};

static bool valid_unit_char(char c) {
        return isalnum((unsigned char) c) || strchr(":-_.\\@", c);
}

bool unitname_is_valid(const char *name) {
        const char *dot;
        size_t l;

        if (!name)
                return false;
        l = strlen(name);
        if (l == 0 || l > UNIT_NAME_MAX)
                return false;
        dot = strrchr(name, '.');
        if (!dot || dot == name)
                return false;
        for (const char *p = name; p < dot; p++)
                if (!valid_unit_char(*p))
                        return false;
        for (size_t i = 0; i < ELEMENTSOF(unit_types); i++)
                if (strcmp(dot + 1, unit_types[i]) == 0)
                        return true;
        return false;
}

bool unitname_is_service(const char *name) {
        size_t l;

        if (!unitname_is_valid(name))
                return false;
        l = strlen(name);
        return l > 8 && strcmp(name + l - 8, ".service") == 0;
}

static bool has_slice_suffix(const char *name, size_t *ret_prefix_len) {
        size_t l = strlen(name);

        if (l <= 6 || strcmp(name + l - 6, ".slice") != 0)
                return false;
        *ret_prefix_len = l - 6;
        return true;
}

bool unitname_slice_is_valid(const char *name) {
        size_t pl;

        if (!unitname_is_valid(name) || !has_slice_suffix(name, &pl))
                return false;
        if (strchr(name, '@'))
                return false;
        if (name[0] == '-' || name[pl - 1] == '-')
                return false;           /* also rejects the root slice "-.slice" */
        for (size_t i = 1; i < pl; i++)
                if (name[i] == '-' && name[i - 1] == '-')
                        return false;
        return true;
}

bool unitname_group_is_valid(const char *name) {
        size_t l;

        if (!name)
                return false;
        l = strlen(name);
        if (l == 0 || l > GROUP_NAME_MAX)
                return false;
        for (const char *p = name; *p; p++)
                if (!isalnum((unsigned char) *p) && *p != '_' && *p != '-')
                        return false;
        return true;
}

bool unitname_slice_contains(const char *a, const char *b) {
        size_t la, lb;

        if (!has_slice_suffix(a, &la) || !has_slice_suffix(b, &lb))
                return false;
        if (la == lb)
                return strncmp(a, b, la) == 0;
        return la < lb && strncmp(a, b, la) == 0 && b[la] == '-';
}

/* systemd's cg_escape(): a component that could clash with a kernel name
 * ("cpu.slice", "cgroup.foo", "tasks", or starting with '_' or '.') gets a
 * '_' in front. */
static bool cgroup_component_needs_prefix(const char *name, size_t len) {
        static const char * const controllers[] = {
                "cpu", "cpuacct", "cpuset", "io", "blkio", "memory", "devices", "pids",
                "bpf-firewall", "bpf-devices", "bpf-foreign", "bpf-socket-bind",
                "bpf-restrict-network-interfaces",
        };
        static const char * const reserved[] = { "notify_on_release", "release_agent", "tasks" };
        const char *dot = NULL;

        if (len == 0 || name[0] == '_' || name[0] == '.' || (len >= 7 && strncmp(name, "cgroup.", 7) == 0))
                return true;
        for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
                if (strlen(reserved[i]) == len && strncmp(name, reserved[i], len) == 0)
                        return true;
        for (size_t i = 0; i < len; i++)
                if (name[i] == '.')
                        dot = name + i;
        if (!dot)
                return false;
        for (size_t i = 0; i < sizeof(controllers) / sizeof(controllers[0]); i++)
                if (strlen(controllers[i]) == (size_t) (dot - name) && strncmp(name, controllers[i], dot - name) == 0)
                        return true;
        return false;
}

char *unitname_slice_cgroup_path(const char *slice) {
        size_t pl, n = 0;
        char *path, *q;

        if (!has_slice_suffix(slice, &pl))
                return NULL;
        /* One "/prefix.slice" component per dash-separated level. */
        for (size_t i = 0; i < pl; i++)
                if (slice[i] == '-')
                        n++;
        path = malloc((n + 1) * (pl + 8) + 1);
        if (!path)
                return NULL;
        q = path;
        for (size_t i = 0; i <= pl; i++)
                if (i == pl || slice[i] == '-') {
                        char component[i + 7];

                        snprintf(component, sizeof(component), "%.*s.slice", (int) i, slice);
                        q += sprintf(q, "/%s%s", cgroup_component_needs_prefix(component, i + 6) ? "_" : "",
                                     component);
                }
        return path;
}

char *unitname_id128_to_hex(const void *id, size_t n) {
        static const char hex[] = "0123456789abcdef";
        char *s = malloc(2 * n + 1);

        if (!s)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                s[2 * i] = hex[((const unsigned char *) id)[i] >> 4];
                s[2 * i + 1] = hex[((const unsigned char *) id)[i] & 15];
        }
        s[2 * n] = '\0';
        return s;
}

bool unitname_cgroup_path_is_valid(const char *path) {
        if (!path || path[0] != '/' || strlen(path) > 4096 || strchr(path, '\n'))
                return false;
        for (const char *c = path; *c;) {
                const char *next = strchrnul(c + 1, '/');
                size_t l = next - c - 1;

                if (l == 0 || (l == 1 && c[1] == '.') || (l == 2 && c[1] == '.' && c[2] == '.'))
                        return false;
                c = next;
        }
        return true;
}

bool unitname_cgroup_is_within(const char *path, const char *cgroup) {
        size_t l;

        if (!path || !cgroup)
                return false;
        l = strlen(cgroup);
        while (l > 1 && cgroup[l - 1] == '/')
                l--;
        if (strncmp(path, cgroup, l) != 0)
                return false;
        return path[l] == '\0' || path[l] == '/' || (l == 1 && cgroup[0] == '/');
}
