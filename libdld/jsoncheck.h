/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Strict JSON (RFC 8259) checks that json-c's parser leaves out, even with
 * JSON_TOKENER_STRICT: duplicate object keys (json-c keeps the last one
 * silently), NaN and Infinity, single-quoted strings, control characters
 * in strings, numbers such as "01.5" or "1.", escapes that encode a lone
 * UTF-16 surrogate. Also refused: anything json-c's strict mode refuses
 * (comments, trailing commas, leading zeros, data after the document), so
 * that a policy is either standard JSON or refused with one reason. Pure:
 * text in, verdict out. */

#include <stddef.h>

struct json_object;

/* Nesting deeper than this is refused (a policy needs 4 levels). */
#define JSON_CHECK_MAX_DEPTH 32

/* Checks @text (@size bytes; a NUL byte inside is refused), then parses it
 * with json-c's strict parser: on success *ret holds the document (the
 * caller puts it; NULL for the document null). Returns 0, -EINVAL with
 * *ret_where ("line L, column C", or the JSON path of a duplicate key:
 * "$.groups[0].name"; NULL if json-c refused what the checks let through)
 * and *ret_reason set (both allocated), or -ENOMEM. */
int jsoncheck_parse_strict(const char *text, size_t size, struct json_object **ret,
                      char **ret_where, char **ret_reason);
