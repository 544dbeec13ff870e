/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <json-c/json.h>

#include "jsoncheck.h"
#include "tap.h"
#include "util.h"

/* jsoncheck_parse_strict()'s verdict, the document put back. */
static int check(const char *text, size_t size, char **ret_where, char **ret_reason) {
        json_object *o = NULL;
        int r = jsoncheck_parse_strict(text, size, &o, ret_where, ret_reason);

        json_object_put(o);
        return r;
}

/* Each text is refused, at @where, for a reason containing @why. */
static const struct {
        const char *text, *where, *why;
} bad[] = {
        { "", "line 1, column 1", "an empty document" },
        { "  \n ", "line 2, column 2", "an empty document" },
        { "{\"a\":1,\"a\":2}", "$.a", "duplicate key \"a\"" },
        { "{\"groups\":[],\"groups\":[]}", "$.groups", "duplicate key \"groups\"" },
        { "{\"groups\":[{\"name\":\"x\",\"name\":\"y\"}]}", "$.groups[0].name", "duplicate key \"name\"" },
        { "{\"s\":{\"k\":1,\"\\u006b\":2}}", "$.s.k", "duplicate key \"k\"" },
        { "{\"a.b\":1,\"a.b\":2}", "$[\"a.b\"]", "duplicate key" },
        { "{\"\":1,\"\":2}", "$[\"\"]", "duplicate key" },
        { "{\"a\":1}{\"b\":2}", "line 1, column 8", "data after the end" },
        { "{\"a\":1} x", "line 1, column 9", "data after the end" },
        { "{\"a\":1}\n[]", "line 2, column 1", "data after the end" },
        { "/* c */ {\"a\":1}", "line 1, column 1", "a comment" },
        { "{\"a\":1 // c\n}", "line 1, column 8", "',' or '}'" },
        { "{\"a\":/* c */1}", "line 1, column 6", "a comment" },
        { "# c\n{}", "line 1, column 1", "unexpected character '#'" },
        { "{\"a\":1,}", "line 1, column 8", "a comma before the end of an object" },
        { "{\"a\":[1,2,]}", "line 1, column 11", "a comma before the end of an array" },
        { "{\"a\":NaN}", "line 1, column 6", "NaN and Infinity" },
        { "{\"a\":Infinity}", "line 1, column 6", "NaN and Infinity" },
        { "{\"a\":-Infinity}", "line 1, column 6", "NaN and Infinity" },
        { "{\"a\":012}", "line 1, column 6", "leading zero" },
        { "{\"a\":-01}", "line 1, column 6", "leading zero" },
        { "{\"a\":01.5}", "line 1, column 6", "leading zero" },
        { "{\"a\":1.}", "line 1, column 6", "no digit after its decimal point" },
        { "{\"a\":.5}", "line 1, column 6", "must start with a digit" },
        { "{\"a\":+1}", "line 1, column 6", "must start with a digit" },
        { "{\"a\":1e}", "line 1, column 6", "no digit in its exponent" },
        { "{\"a\":-}", "line 1, column 6", "a minus sign" },
        { "{\"a\":0x10}", "line 1, column 7", "',' or '}'" },
        { "{'a':1}", "line 1, column 2", "single quotes" },
        { "{\"a\":'x'}", "line 1, column 6", "single quotes" },
        { "{a:1}", "line 1, column 2", "must be a string in double quotes" },
        { "{\"a\":\"tab\there\"}", "line 1, column 10", "control character U+0009" },
        { "{\"a\":\"line\nbreak\"}", "line 1, column 11", "control character U+000A" },
        { "{\"a\":\"\\x\"}", "line 1, column 7", "invalid escape" },
        { "{\"a\":\"\\u12\"}", "line 1, column 7", "four hexadecimal digits" },
        { "{\"a\":\"\\ud800\"}", "line 1, column 7", "high surrogate" },
        { "{\"a\":\"\\udc00\"}", "line 1, column 7", "lone UTF-16 low surrogate" },
        { "{\"a\":\"\\u0000\"}", "line 1, column 7", "NUL character" },
        { "{\"a\":\"\xff\"}", "line 1, column 7", "invalid UTF-8" },
        { "{\"a\":\"\xc0\xaf\"}", "line 1, column 7", "invalid UTF-8" },
        { "{\"a\":\"\xed\xa0\x80\"}", "line 1, column 7", "invalid UTF-8" },
        { "\xef\xbb\xbf{}", "line 1, column 1", "byte order mark" },
        { "{\"a\":True}", "line 1, column 6", "unexpected character 'T'" },
        { "{\"a\":nul}", "line 1, column 6", "unexpected character 'n'" },
        { "{\"a\":truex}", "line 1, column 10", "unexpected character 'x'" },
        { "{\"a\":1", "line 1, column 1", "never closed" },
        { "{\"a\":[1", "line 1, column 6", "never closed" },
        { "{\"a\":\"x", "line 1, column 6", "never closed" },
        { "{\"a\" 1}", "line 1, column 6", "':' must follow" },
        { "{\"a\":}", "line 1, column 6", "unexpected character '}'" },
        { "[1 2]", "line 1, column 4", "',' or ']'" },
        { "\x01{}", "line 1, column 1", "unexpected byte 0x01" },
};

static const char *const good[] = {
        "{}", "[]", "0", "-0", "1.5e-3", "1E+2", "\"x\"", "true", "null",
        "{\"a\":{\"a\":1},\"b\":[{\"a\":1},{\"a\":2}]}",
        "{\"k\":\"\\u00e9\\ud83d\\ude00 \\\" \\\\ \\/ \\b\\f\\n\\r\\t\"}",
        "{\"\xc3\xa9\":\"\xf0\x9f\x98\x80\"}",
        " \t\r\n{ \"a\" : [ 1 , 2 ] } \n",
};

static void test_bad(void) {
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char *where = NULL, *why = NULL;
                int r;

                r = check(bad[i].text, strlen(bad[i].text), &where, &why);
                is_int(r, -EINVAL, "refused: %s", bad[i].why);
                if (r != -EINVAL)
                        continue;
                is_str(where, bad[i].where, "where: %s", bad[i].where);
                if (!ok(strstr(why, bad[i].why), "reason has \"%s\"", bad[i].why))
                        printf("#   got \"%s\"\n", why);
                free(where);
                free(why);
        }
}

static void test_good(void) {
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                char *where = NULL, *why = NULL;
                int r = check(good[i], strlen(good[i]), &where, &why);

                if (!is_int(r, 0, "valid: %s", good[i]))
                        printf("#   %s: %s\n", where ?: "json-c", why);
                if (r == -EINVAL) {
                        free(where);
                        free(why);
                }
        }
}

static void test_limits(void) {
        char deep[2 * (JSON_CHECK_MAX_DEPTH + 2) + 1], *where = NULL, *why = NULL;
        size_t n = JSON_CHECK_MAX_DEPTH + 2;

        /* A NUL byte inside the text (not its terminator). */
        is_int(check("{\"a\":1}\0{}", 10, &where, &why), -EINVAL, "a NUL byte is refused");
        is_str(where, "line 1, column 8", "where: the NUL byte");
        free(where);
        free(why);

        memset(deep, '[', n);
        memset(deep + n, ']', n);
        deep[2 * n] = '\0';
        is_int(check(deep, 2 * n, &where, &why), -EINVAL, "nesting past %d is refused", JSON_CHECK_MAX_DEPTH);
        ok(why && strstr(why, "nested deeper"), "reason: nested deeper");
        free(where);
        free(why);
        deep[JSON_CHECK_MAX_DEPTH] = '\0';
        memset(deep, '[', JSON_CHECK_MAX_DEPTH);
        memset(deep + JSON_CHECK_MAX_DEPTH / 2, ']', JSON_CHECK_MAX_DEPTH / 2);
        is_int(check(deep, JSON_CHECK_MAX_DEPTH, &where, &why), 0, "nesting within the limit is fine");
}

int main(void) {
        tap_begin();
        test_bad();
        test_good();
        test_limits();
        return tap_done();
}
