/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <json.h>
#include <stdarg.h>
#include <stdint.h>

#include "jsoncheck.h"
#include "util.h"

typedef struct Scanner {
        const char *text;
        size_t size, pos;
        char *path;             /* JSON path of the value being read */
        size_t path_len, path_alloc;
        char *where, *reason;   /* the first problem */
        int error;
} Scanner;

static bool failed(const Scanner *s) {
        return s->error < 0;
}

static void fail_where(Scanner *s, char *where, const char *fmt, va_list ap) {
        if (failed(s)) {
                free(where);
                return;
        }
        s->where = where;
        if (!where || vasprintf(&s->reason, fmt, ap) < 0) {
                s->reason = NULL;
                s->error = -ENOMEM;
                return;
        }
        s->error = -EINVAL;
}

/* A syntax problem at byte @pos: "line L, column C". */
static void fail_at(Scanner *s, size_t pos, const char *fmt, ...) _printf_(3, 4);
static void fail_at(Scanner *s, size_t pos, const char *fmt, ...) {
        size_t line = 1, col = 1;
        char *where = NULL;
        va_list ap;

        for (size_t i = 0; i < pos && i < s->size; i++)
                if (s->text[i] == '\n')
                        line++, col = 1;
                else
                        col++;
        if (asprintf(&where, "line %zu, column %zu", line, col) < 0)
                where = NULL;
        va_start(ap, fmt);
        fail_where(s, where, fmt, ap);
        va_end(ap);
}

/* A problem of the value at the current path. */
static void fail_path(Scanner *s, const char *fmt, ...) _printf_(2, 3);
static void fail_path(Scanner *s, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        fail_where(s, strdup(s->path), fmt, ap);
        va_end(ap);
}

/* Appends a path segment; returns the length to restore, or SIZE_MAX. */
static size_t path_push(Scanner *s, const char *fmt, ...) _printf_(2, 3);
static size_t path_push(Scanner *s, const char *fmt, ...) {
        size_t old = s->path_len;
        va_list ap;
        int n;

        for (;;) {
                va_start(ap, fmt);
                n = vsnprintf(s->path + old, s->path_alloc - old, fmt, ap);
                va_end(ap);
                if (n < 0)
                        break;
                if (old + n < s->path_alloc) {
                        s->path_len = old + n;
                        return old;
                }
                char *p = realloc(s->path, old + n + 64);
                if (!p)
                        break;
                s->path = p;
                s->path_alloc = old + n + 64;
        }
        s->path[old] = '\0';
        if (!failed(s))
                s->error = -ENOMEM;
        return SIZE_MAX;
}

static void path_pop(Scanner *s, size_t len) {
        if (len == SIZE_MAX)
                return;
        s->path_len = len;
        s->path[len] = '\0';
}

static int peek(const Scanner *s) {
        return s->pos < s->size ? (unsigned char) s->text[s->pos] : -1;
}

static void skip_ws(Scanner *s) {
        while (s->pos < s->size && strchr(" \t\n\r", s->text[s->pos]) && s->text[s->pos])
                s->pos++;
}

static bool looking_at(const Scanner *s, const char *word) {
        size_t l = strlen(word);

        return s->size - s->pos >= l && memcmp(s->text + s->pos, word, l) == 0;
}

/* The length of the well-formed UTF-8 sequence at p (at most n bytes), 0 if
 * there is none: no overlong forms, surrogates or code points past U+10FFFF. */
static size_t utf8_sequence(const unsigned char *p, size_t n) {
        size_t len;
        uint32_t cp;

        if (p[0] < 0x80)
                return 1;
        if (p[0] >= 0xc2 && p[0] <= 0xdf)
                len = 2, cp = p[0] & 0x1f;
        else if (p[0] >= 0xe0 && p[0] <= 0xef)
                len = 3, cp = p[0] & 0x0f;
        else if (p[0] >= 0xf0 && p[0] <= 0xf4)
                len = 4, cp = p[0] & 0x07;
        else
                return 0;
        if (len > n)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (p[i] & 0x3f);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return len;
}

static int hex4(const Scanner *s, size_t at, uint32_t *ret) {
        uint32_t v = 0;

        if (s->size - at < 4)
                return -EINVAL;
        for (size_t i = at; i < at + 4; i++) {
                char c = s->text[i];

                v <<= 4;
                if (c >= '0' && c <= '9')
                        v |= c - '0';
                else if (c >= 'a' && c <= 'f')
                        v |= c - 'a' + 10;
                else if (c >= 'A' && c <= 'F')
                        v |= c - 'A' + 10;
                else
                        return -EINVAL;
        }
        *ret = v;
        return 0;
}

static void put_utf8(char *out, size_t *n, uint32_t cp) {
        if (cp < 0x80)
                out[(*n)++] = cp;
        else if (cp < 0x800) {
                out[(*n)++] = 0xc0 | cp >> 6;
                out[(*n)++] = 0x80 | (cp & 0x3f);
        } else if (cp < 0x10000) {
                out[(*n)++] = 0xe0 | cp >> 12;
                out[(*n)++] = 0x80 | (cp >> 6 & 0x3f);
                out[(*n)++] = 0x80 | (cp & 0x3f);
        } else {
                out[(*n)++] = 0xf0 | cp >> 18;
                out[(*n)++] = 0x80 | (cp >> 12 & 0x3f);
                out[(*n)++] = 0x80 | (cp >> 6 & 0x3f);
                out[(*n)++] = 0x80 | (cp & 0x3f);
        }
}

/* A string at s->pos (on its opening quote); its decoded text in *ret if
 * ret is not NULL (object keys, compared as json-c would store them). */
static void scan_string(Scanner *s, char **ret) {
        size_t start = s->pos++, n = 0;
        _cleanup_free_ char *out = NULL;

        if (ret) {
                /* Decoding never makes a string longer than its source,
                 * which ends at the first unescaped quote (or the text's end). */
                size_t end = start + 1;

                while (end < s->size && s->text[end] != '"')
                        end += s->text[end] == '\\' ? 2 : 1;
                out = malloc(MIN(end, s->size) - start + 1);
                if (!out) {
                        s->error = -ENOMEM;
                        return;
                }
        }
        for (;;) {
                int c = peek(s);

                if (c < 0) {
                        fail_at(s, start, "a string that is never closed");
                        return;
                }
                if (c == '"') {
                        s->pos++;
                        break;
                }
                if (c < 0x20) {
                        fail_at(s, s->pos, "control character U+%04X in a string (write it as an escape)", c);
                        return;
                }
                if (c == '\\') {
                        uint32_t cp, lo;
                        int e = s->pos + 1 < s->size ? s->text[s->pos + 1] : -1;
                        const char *simple = e > 0 ? strchr("\"\\/bfnrt", e) : NULL;

                        if (simple) {
                                if (out)
                                        out[n++] = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
                                s->pos += 2;
                                continue;
                        }
                        if (e != 'u') {
                                fail_at(s, s->pos, "invalid escape in a string (\\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX)");
                                return;
                        }
                        if (hex4(s, s->pos + 2, &cp) < 0) {
                                fail_at(s, s->pos, "\\u takes four hexadecimal digits");
                                return;
                        }
                        s->pos += 6;
                        if (cp >= 0xdc00 && cp <= 0xdfff) {
                                fail_at(s, s->pos - 6, "\\u%04X is a lone UTF-16 low surrogate", cp);
                                return;
                        }
                        if (cp >= 0xd800 && cp <= 0xdbff) {
                                if (!looking_at(s, "\\u") || hex4(s, s->pos + 2, &lo) < 0 ||
                                    lo < 0xdc00 || lo > 0xdfff) {
                                        fail_at(s, s->pos - 6, "\\u%04X is a UTF-16 high surrogate not followed by a low one", cp);
                                        return;
                                }
                                s->pos += 6;
                                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                        }
                        if (cp == 0) {
                                fail_at(s, s->pos - 6, "\\u0000 (a NUL character) in a string");
                                return;
                        }
                        if (out)
                                put_utf8(out, &n, cp);
                        continue;
                }
                size_t l = utf8_sequence((const unsigned char *) s->text + s->pos, s->size - s->pos);
                if (l == 0) {
                        fail_at(s, s->pos, "invalid UTF-8 in a string");
                        return;
                }
                if (out)
                        memcpy(out + n, s->text + s->pos, l);
                n += l;
                s->pos += l;
        }
        if (ret) {
                out[n] = '\0';
                *ret = TAKE_PTR(out);
        }
}

static bool is_digit(int c) {
        return c >= '0' && c <= '9';
}

static void scan_number(Scanner *s) {
        size_t start = s->pos;

        if (peek(s) == '-')
                s->pos++;
        if (peek(s) == '0') {
                s->pos++;
                if (is_digit(peek(s))) {
                        fail_at(s, start, "a number with a leading zero");
                        return;
                }
        } else if (is_digit(peek(s))) {
                while (is_digit(peek(s)))
                        s->pos++;
        } else {
                fail_at(s, start, "a minus sign with no number after it");
                return;
        }
        if (peek(s) == '.') {
                s->pos++;
                if (!is_digit(peek(s))) {
                        fail_at(s, start, "a number with no digit after its decimal point");
                        return;
                }
                while (is_digit(peek(s)))
                        s->pos++;
        }
        if (peek(s) == 'e' || peek(s) == 'E') {
                s->pos++;
                if (peek(s) == '+' || peek(s) == '-')
                        s->pos++;
                if (!is_digit(peek(s))) {
                        fail_at(s, start, "a number with no digit in its exponent");
                        return;
                }
                while (is_digit(peek(s)))
                        s->pos++;
        }
}

static void scan_value(Scanner *s, unsigned depth);

/* The path of member @key of the current object. */
static size_t path_push_key(Scanner *s, const char *key) {
        if (strchr(key, '.') || strchr(key, '[') || !*key)
                return path_push(s, "[\"%s\"]", key);
        return path_push(s, ".%s", key);
}

static int compare_keys(const void *a, const void *b) {
        return strcmp(*(char * const *) a, *(char * const *) b);
}

/* Sorted, so that an object of many members costs n log n, not n^2. */
static void check_duplicates(Scanner *s, char **keys, size_t n) {
        qsort(keys, n, sizeof(char *), compare_keys);
        for (size_t i = 1; i < n; i++)
                if (strcmp(keys[i - 1], keys[i]) == 0) {
                        size_t saved = path_push_key(s, keys[i]);

                        fail_path(s, "duplicate key \"%s\" (only one may be given)", keys[i]);
                        path_pop(s, saved);
                        return;
                }
}

static void scan_object(Scanner *s, unsigned depth) {
        char **keys = NULL;
        size_t n_keys = 0, open = s->pos++;

        skip_ws(s);
        if (peek(s) == '}') {
                s->pos++;
                return;
        }
        for (;;) {
                char *key = NULL, **k;
                size_t saved;
                int c;

                skip_ws(s);
                c = peek(s);
                if (c == '}') {
                        fail_at(s, s->pos, "a comma before the end of an object");
                        break;
                }
                if (c == '\'') {
                        fail_at(s, s->pos, "a key in single quotes (JSON strings take double quotes)");
                        break;
                }
                if (c != '"') {
                        fail_at(s, s->pos, c < 0 ? "an object that is never closed" : "an object key must be a string in double quotes");
                        break;
                }
                scan_string(s, &key);
                if (failed(s))
                        break;
                saved = path_push_key(s, key);
                k = realloc(keys, (n_keys + 1) * sizeof(char *));
                if (!k) {
                        free(key);
                        s->error = failed(s) ? s->error : -ENOMEM;
                        path_pop(s, saved);
                        break;
                }
                keys = k;
                keys[n_keys++] = key;
                if (failed(s)) {
                        path_pop(s, saved);
                        break;
                }
                skip_ws(s);
                if (peek(s) != ':') {
                        fail_at(s, s->pos, "a ':' must follow an object key");
                        path_pop(s, saved);
                        break;
                }
                s->pos++;
                scan_value(s, depth + 1);
                path_pop(s, saved);
                if (failed(s))
                        break;
                skip_ws(s);
                c = peek(s);
                if (c == ',') {
                        s->pos++;
                        continue;
                }
                if (c == '}') {
                        s->pos++;
                        check_duplicates(s, keys, n_keys);
                        break;
                }
                fail_at(s, c < 0 ? open : s->pos, c < 0 ? "an object that is never closed" : "a ',' or '}' must follow an object member");
                break;
        }
        for (size_t i = 0; i < n_keys; i++)
                free(keys[i]);
        free(keys);
}

static void scan_array(Scanner *s, unsigned depth) {
        size_t open = s->pos++;

        skip_ws(s);
        if (peek(s) == ']') {
                s->pos++;
                return;
        }
        for (size_t i = 0;; i++) {
                size_t saved;
                int c;

                skip_ws(s);
                if (peek(s) == ']') {
                        fail_at(s, s->pos, "a comma before the end of an array");
                        return;
                }
                saved = path_push(s, "[%zu]", i);
                scan_value(s, depth + 1);
                path_pop(s, saved);
                if (failed(s))
                        return;
                skip_ws(s);
                c = peek(s);
                if (c == ',') {
                        s->pos++;
                        continue;
                }
                if (c == ']') {
                        s->pos++;
                        return;
                }
                fail_at(s, c < 0 ? open : s->pos, c < 0 ? "an array that is never closed" : "a ',' or ']' must follow an array element");
                return;
        }
}

static void scan_value(Scanner *s, unsigned depth) {
        int c;

        if (failed(s))
                return;
        skip_ws(s);
        if (depth > JSON_CHECK_MAX_DEPTH) {
                fail_at(s, s->pos, "nested deeper than %d levels", JSON_CHECK_MAX_DEPTH);
                return;
        }
        c = peek(s);
        if (c == '{')
                scan_object(s, depth);
        else if (c == '[')
                scan_array(s, depth);
        else if (c == '"')
                scan_string(s, NULL);
        else if (c == '-' && (looking_at(s, "-Infinity") || looking_at(s, "-NaN")))
                fail_at(s, s->pos, "NaN and Infinity are not JSON numbers");
        else if (c == '-' || is_digit(c))
                scan_number(s);
        else if (looking_at(s, "true"))
                s->pos += 4;
        else if (looking_at(s, "false"))
                s->pos += 5;
        else if (looking_at(s, "null"))
                s->pos += 4;
        else if (looking_at(s, "NaN") || looking_at(s, "Infinity"))
                fail_at(s, s->pos, "NaN and Infinity are not JSON numbers");
        else if (c == '\'')
                fail_at(s, s->pos, "a string in single quotes (JSON strings take double quotes)");
        else if (c == '/')
                fail_at(s, s->pos, "a comment (JSON has none; use a \"description\" key)");
        else if (c == '.' || c == '+')
                fail_at(s, s->pos, "a number must start with a digit or '-'");
        else if (c < 0)
                fail_at(s, s->pos, depth ? "the document ends where a value should be" : "an empty document");
        else if (c >= 0x20 && c < 0x7f)
                fail_at(s, s->pos, "unexpected character '%c'", c);
        else
                fail_at(s, s->pos, "unexpected byte 0x%02X", (unsigned) c);
        /* A bare word after a literal ("trueish") is caught by the caller. */
        if (!failed(s) && (c == 't' || c == 'f' || c == 'n') &&
            ((peek(s) >= 'a' && peek(s) <= 'z') || (peek(s) >= 'A' && peek(s) <= 'Z')))
                fail_at(s, s->pos, "unexpected character '%c'", peek(s));
}

/* The checks: 0, or -EINVAL with *ret_where and *ret_reason (allocated),
 * or -ENOMEM. */
static int jsoncheck_strict(const char *text, size_t size, char **ret_where, char **ret_reason) {
        Scanner s = { .text = text, .size = size };
        const char *nul = memchr(text, '\0', size);

        s.path = strdup("$");
        if (!s.path)
                return -ENOMEM;
        s.path_len = 1;
        s.path_alloc = 2;
        if (nul)
                fail_at(&s, nul - text, "a NUL byte");
        else if (size >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
                fail_at(&s, 0, "a byte order mark (JSON text is UTF-8 without one)");
        else {
                scan_value(&s, 0);
                skip_ws(&s);
                if (!failed(&s) && s.pos < s.size)
                        fail_at(&s, s.pos, "data after the end of the document");
        }
        free(s.path);
        if (s.error == -EINVAL) {
                *ret_where = s.where;
                *ret_reason = s.reason;
                return -EINVAL;
        }
        free(s.where);
        free(s.reason);
        return s.error;
}

int jsoncheck_parse_strict(const char *text, size_t size, struct json_object **ret,
                      char **ret_where, char **ret_reason) {
        json_tokener *tok;
        json_object *root;
        int r;

        *ret = NULL;
        r = jsoncheck_strict(text, size, ret_where, ret_reason);
        if (r < 0)
                return r;

        tok = json_tokener_new();
        if (!tok)
                return -ENOMEM;
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
        root = json_tokener_parse_ex(tok, text, (int) size);
        /* A document that is a number or a literal ends with the text:
         * json-c waits for more until it is given the end (a NUL). */
        if (!root && json_tokener_get_error(tok) == json_tokener_continue)
                root = json_tokener_parse_ex(tok, "", 1);
        if (json_tokener_get_error(tok) != json_tokener_success) {
                /* Not reached: jsoncheck_strict() refuses whatever json-c does. */
                *ret_where = NULL;
                *ret_reason = strdup(json_tokener_error_desc(json_tokener_get_error(tok)));
                json_tokener_free(tok);
                json_object_put(root);
                return *ret_reason ? -EINVAL : -ENOMEM;
        }
        json_tokener_free(tok);
        *ret = root;
        return 0;
}
