/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "util.h"

bool strv_contains(char * const *l, const char *s) {
        for (size_t i = 0; l && l[i]; i++)
                if (strcmp(l[i], s) == 0)
                        return true;
        return false;
}

size_t strv_length(char * const *l) {
        size_t n = 0;

        while (l && l[n])
                n++;
        return n;
}

int strv_extend(char ***l, const char *s) {
        size_t n = strv_length(*l);
        char **nl, *c;

        c = strdup(s);
        if (!c)
                return -ENOMEM;
        nl = realloc(*l, (n + 2) * sizeof(char *));
        if (!nl) {
                free(c);
                return -ENOMEM;
        }
        nl[n] = c;
        nl[n + 1] = NULL;
        *l = nl;
        return 0;
}

bool strv_remove(char **l, const char *s) {
        size_t j = 0;
        bool found = false;

        for (size_t i = 0; l && l[i]; i++) {
                if (strcmp(l[i], s) == 0) {
                        free(l[i]);
                        found = true;
                } else
                        l[j++] = l[i];
        }
        if (l)
                l[j] = NULL;
        return found;
}
