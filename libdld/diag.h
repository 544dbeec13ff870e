/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A list of diagnostics: what is wrong, in which file and where in it
 * ("line 12" for drop-ins, a JSON path such as "$.groups[1].slice" for
 * policies). Parsers append to a list instead of stopping at the first
 * problem, so an operator sees every mistake at once. */

#include <stddef.h>

#include "util.h"

typedef struct Diag {
        char *file;
        char *where;
        char *message;
} Diag;

typedef struct DiagList {
        Diag *items;
        size_t n;
} DiagList;

#include <stdarg.h>

int diag_add(DiagList *l, const char *file, const char *where, const char *fmt, ...) _printf_(4, 5);
int diag_addv(DiagList *l, const char *file, const char *where, const char *fmt, va_list ap) _printf_(4, 0);
void diag_list_done(DiagList *l);

/* "FILE: WHERE: MESSAGE" (parts that are unset are left out); caller frees. */
char *diag_format(const Diag *d);
