/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>

#include "diag.h"

int diag_add(DiagList *l, const char *file, const char *where, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = diag_addv(l, file, where, fmt, ap);
        va_end(ap);
        return r;
}

int diag_addv(DiagList *l, const char *file, const char *where, const char *fmt, va_list ap) {
        _cleanup_free_ char *message = NULL, *f = NULL, *w = NULL;
        Diag *n;

        if (vasprintf(&message, fmt, ap) < 0)
                return -ENOMEM;
        if (file && !(f = strdup(file)))
                return -ENOMEM;
        if (where && !(w = strdup(where)))
                return -ENOMEM;

        n = realloc(l->items, (l->n + 1) * sizeof(Diag));
        if (!n)
                return -ENOMEM;
        l->items = n;
        l->items[l->n++] = (Diag) {
                .file = TAKE_PTR(f),
                .where = TAKE_PTR(w),
                .message = TAKE_PTR(message),
        };
        return 0;
}

void diag_list_done(DiagList *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->items[i].file);
                free(l->items[i].where);
                free(l->items[i].message);
        }
        free(l->items);
        *l = (DiagList) {};
}

char *diag_format(const Diag *d) {
        char *s;

        if (asprintf(&s, "%s%s%s%s%s",
                     d->file ?: "", d->file ? ": " : "",
                     d->where ?: "", d->where ? ": " : "",
                     d->message) < 0)
                return NULL;
        return s;
}
