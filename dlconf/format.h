/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Text and JSON output of dlconf's read verbs. Pure: state in, text out to
 * a FILE the caller gives (a memory stream in the tests). JSON field names
 * are part of the interface (dlconf(8)) and must not change. */

#include <stdbool.h>
#include <stdio.h>

#include "args.h"
#include "state.h"

#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

typedef struct FormatOptions {
        bool color;     /* ANSI colours */
        bool bars;      /* usage bars (Unicode block characters) */
        bool legend;    /* table headers and footers */
} FormatOptions;

void format_status(FILE *f, const DlconfState *s, const FormatOptions *o);
void format_list(FILE *f, const DlconfState *s, const FormatOptions *o);
void format_show(FILE *f, const DlconfService *svc, const FormatOptions *o);

/* JSON documents, newline-terminated; NULL on ENOMEM. Caller frees. */
char *format_status_json(const DlconfState *s, JsonMode mode);
char *format_list_json(const DlconfState *s, JsonMode mode);
char *format_show_json(const DlconfService *svc, JsonMode mode);

/* Serialises o (newline-terminated) and drops the reference; NULL on ENOMEM. */
struct json_object;
char *format_json_finish(struct json_object *o, JsonMode mode);

/* "[████████░░░░]": used out of total, width cells, partial cells in eighths. */
void format_bar(FILE *f, uint64_t used, uint64_t total, unsigned width, bool color);
