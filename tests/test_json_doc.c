/* base/json: the parser accepts exactly what jansson accepts (with
 * JSON_REJECT_DUPLICATES), reads the same values, and the writer lays text out
 * byte for byte as jansson does. jansson is the oracle throughout. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

static bool jansson_accepts(const char *t, size_t n, size_t flags)
{
    json_error_t je;
    json_t *r = json_loadb(t, n, JSON_REJECT_DUPLICATES | flags, &je);
    json_decref(r);
    return r != NULL;
}

static bool ours_accepts(const char *t, size_t n, uint32_t flags)
{
    sba_json_doc *d = sba_json_parse(t, n, flags, NULL, NULL, NULL);
    sba_json_doc_free(d);
    return d != NULL;
}

static void agree(const char *t, size_t n)
{
    bool j = jansson_accepts(t, n, 0), o = ours_accepts(t, n, 0);
    cr_expect_eq(o, j, "%s: jansson %s, ours %s", t, j ? "accepts" : "rejects", o ? "accepts" : "rejects");
    j = jansson_accepts(t, n, JSON_DECODE_ANY);
    o = ours_accepts(t, n, SBA_JSON_DECODE_ANY);
    cr_expect_eq(o, j, "%s (any): jansson %s, ours %s", t, j ? "accepts" : "rejects", o ? "accepts" : "rejects");
}

Test(json_doc, accepts_exactly_what_jansson_accepts)
{
    static const char *const cases[] = {
        "{}", "[]", " [ ] ", "{\"a\":1}", "{\"a\":1,}", "[1,]", "[,1]", "{\"a\" 1}", "{\"a\":1,\"a\":2}",
        "{\"a\":{\"a\":1},\"b\":{\"a\":2}}", "{\"\":1}", "{\"\":1,\"\":2}", "1", "\"s\"", "true", "null",
        "[true,false,null]", "[tru]", "[truex]", "[nul]", "[01]", "[-01]", "[0]", "[-0]", "[-]", "[1.]",
        "[.5]", "[1.5e]", "[1e5]", "[1E+5]", "[1e-5]", "[-1.25e-300]", "[1e309]", "[-1e309]", "[1e-400]",
        "[9223372036854775807]", "[9223372036854775808]", "[-9223372036854775808]",
        "[-9223372036854775809]", "[18446744073709551616]", "[99999999999999999999999]",
        "[\"\\u0000\"]", "[\"\\u0041\"]", "[\"\\ud83d\\ude00\"]", "[\"\\ud83d\"]", "[\"\\ude00\"]",
        "[\"\\ud83dx\"]", "[\"\\ud83d\\u0041\"]", "[\"\\x\"]", "[\"\\u12\"]", "[\"\\u12G4\"]",
        "[\"a\tb\"]", "[\"\x7f\"]", "[\"\xc3\xa9\"]", "[\"\xc3\"]", "[\"\xc0\x80\"]", "[\"\xe0\x80\x80\"]",
        "[\"\xed\xa0\x80\"]", "[\"\xf4\x90\x80\x80\"]", "[\"\xf0\x9f\x98\x80\"]", "[\"\xff\"]",
        "\xef\xbb\xbf[]", "[] x", "[]]", "{\"a\":[1,{\"b\":null}]}", "[1 2]", "{\"a\":1 \"b\":2}",
        "{1:2}", "[\"unterminated", "[", "{", "", "   ", "[\"/\\/\\b\\f\\n\\r\\t\\\"\\\\\"]",
        "{\"a\\u0000b\":1}", "[1]\n", "[1]\r\n\t ", "[\x01]", "[\"a\"\"b\"]"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) agree(cases[i], strlen(cases[i]));
    agree("[1,\0 2]", 7);
    agree("[\"a\0b\"]", 7);
    /* jansson loses one NUL byte right after a number or a literal */
    agree("[1\0]", 4);
    agree("[1\0\0]", 5);
    agree("[1 \0]", 5);
    agree("[-1.5e3\0,2]", 11);
    agree("[true\0]", 7);
    agree("{\"a\":null\0}", 11);
    agree("[\"a\"\0]", 6);
    agree("[\0 1]", 5);
    agree("[1\0x]", 5);
    /* whitespace in every mix, runs of spaces longer and shorter than a word */
    static const char *const spaced[] = {
        "[1,          \n          2]", "[1,        \n        \n 2]", "[1,\t         \r\n           2]",
        "{\"a\":            \n\t\t      \n             1}", "[        ]", "[1         ]       ",
        "[1,         \n\n\n         \t        \r     2]", "       \n      [1]", "[1,        \v 2]",
        "[1,         \f2]"};
    for (size_t i = 0; i < sizeof spaced / sizeof spaced[0]; i++) agree(spaced[i], strlen(spaced[i]));
}

/* jansson counts every value against its depth of 2048, scalars included. */
Test(json_doc, depth_limit_is_jansson_s)
{
    for (int depth = 2046; depth <= 2050; depth++) {
        for (int scalar = 0; scalar < 2; scalar++) {
            size_t n = (size_t)depth * 2 + 1;
            char *t = malloc(n + 1);
            size_t k = 0;
            for (int i = 0; i < depth; i++) t[k++] = '[';
            if (scalar) t[k++] = '1';
            for (int i = 0; i < depth; i++) t[k++] = ']';
            agree(t, k);
            free(t);
        }
    }
}

/* Objects of more than 16 members find duplicates through their own set. */
Test(json_doc, duplicate_keys_in_large_objects)
{
    char t[4096];
    size_t k = 0;
    t[k++] = '{';
    for (int i = 0; i < 100; i++) k += (size_t)snprintf(t + k, sizeof t - k, "%s\"k%d\":%d", i ? "," : "", i, i);
    size_t open = k;
    t[k++] = '}';
    cr_assert(ours_accepts(t, k, 0));
    k = open;
    k += (size_t)snprintf(t + k, sizeof t - k, ",\"k57\":1}");
    cr_assert(!ours_accepts(t, k, 0));
    cr_assert(!jansson_accepts(t, k, 0));
}

static const char *const values[] = {
    "{\"version\":2,\"s\":\"a\\\"b\\\\c\\n\\u0001\\u001f\\u007f/\xc3\xa9\\ud83d\\ude00\",\"e\":{},\"a\":[],"
    "\"n\":[1,-2,9223372036854775807,-9223372036854775808,0,-0],\"r\":[0.1,1.5,-2.0,1e20,1e-5,"
    "123456789012345678901234.0,3.14159e-300,1e300,2.5E+10,100000.0,-0.0],\"b\":[true,false,null],"
    "\"deep\":{\"x\":[[[]],[{}],[{\"y\":[1,[2,{\"z\":\"w\"}]]}]]}}",
    "[\"only\", {\"a\": {\"b\": {\"c\": {\"d\": {\"e\": {\"f\": {\"g\": {\"h\": {\"i\": {\"j\": {\"k\": "
    "{\"l\": {\"m\": {\"n\": {\"o\": {\"p\": {\"q\": [1]}}}}}}}}}}}}}}}}}]",
};

Test(json_doc, values_read_as_jansson_reads_them)
{
    json_error_t je;
    json_t *j = json_loads(values[0], JSON_REJECT_DUPLICATES, &je);
    sba_json_doc *d = sba_json_parse(values[0], strlen(values[0]), 0, NULL, NULL, NULL);
    cr_assert(j && d);
    const sba_json *r = sba_json_doc_root(d);
    cr_assert_eq(sba_json_object_size(r), json_object_size(j));
    cr_assert_str_eq(sba_json_string_value(sba_json_object_get(r, "s")),
                     json_string_value(json_object_get(j, "s")));
    const sba_json *n = sba_json_object_get(r, "n");
    for (size_t i = 0; i < sba_json_array_size(n); i++)
        cr_assert_eq(sba_json_integer_value(sba_json_array_get(n, i)),
                     json_integer_value(json_array_get(json_object_get(j, "n"), i)));
    const sba_json *re = sba_json_object_get(r, "r");
    for (size_t i = 0; i < sba_json_array_size(re); i++)
        cr_assert_eq(sba_json_real_value(sba_json_array_get(re, i)),
                     json_real_value(json_array_get(json_object_get(j, "r"), i)));
    const char *key;
    const sba_json *v;
    size_t i = 0;
    const char *jkey;
    json_t *jv;
    void *it = json_object_iter(j);
    sba_json_object_foreach(r, key, v) {
        jkey = json_object_iter_key(it);
        jv = json_object_iter_value(it);
        cr_assert_str_eq(key, jkey, "member %zu", i);
        cr_assert_eq((int)sba_json_typeof(v), (int)json_typeof(jv));
        it = json_object_iter_next(j, it);
        i++;
    }
    cr_assert_null(sba_json_object_get(r, "missing"));
    cr_assert_null(sba_json_object_get(sba_json_object_get(r, "n"), "x"), "not an object");
    json_decref(j);
    sba_json_doc_free(d);
}

/* Compact and JSON_INDENT(2) text, byte for byte. */
Test(json_doc, text_is_jansson_s)
{
    for (size_t c = 0; c < sizeof values / sizeof values[0]; c++) {
        json_error_t je;
        json_t *j = json_loads(values[c], JSON_REJECT_DUPLICATES, &je);
        sba_json_doc *d = sba_json_parse(values[c], strlen(values[c]), 0, NULL, NULL, NULL);
        cr_assert(j && d);
        char *want = json_dumps(j, JSON_COMPACT);
        size_t n = sba_json_dumpb(sba_json_doc_root(d), NULL, 0, SBA_JSON_COMPACT);
        char *got = calloc(1, n + 1);
        cr_assert_eq(sba_json_dumpb(sba_json_doc_root(d), got, n, SBA_JSON_COMPACT), n);
        cr_assert_str_eq(got, want);
        free(want);
        free(got);
        want = json_dumps(j, JSON_INDENT(2));
        sba_jw w;
        sba_jw_init_buffer(&w, NULL);
        sba_jw_value(&w, sba_json_doc_root(d));
        size_t len;
        cr_assert(sba_jw_finish(&w, &got, &len));
        cr_assert_str_eq(got, want);
        cr_assert_eq(len, strlen(want));
        free(want);
        free(got);
        json_decref(j);
        sba_json_doc_free(d);
    }
}

Test(json_doc, writer_refuses_invalid_utf8)
{
    sba_jw w;
    sba_jw_init_buffer(&w, NULL);
    sba_jw_open(&w, '[');
    sba_jw_elem(&w);
    sba_jw_string(&w, "ok\xff");
    sba_jw_close(&w, ']');
    char *out = NULL;
    cr_assert(!sba_jw_finish(&w, &out, NULL));
    cr_assert(w.bad_utf8);
    cr_assert_null(out);
}

/* An empty object or array holds no block: lookups find nothing, safely. */
Test(json_doc, empty_containers)
{
    sba_json_doc *d = sba_json_parse("{\"o\": {}, \"a\": []}", 18, 0, NULL, NULL, NULL);
    cr_assert_not_null(d);
    const sba_json *o = sba_json_object_get(sba_json_doc_root(d), "o");
    cr_assert(sba_json_is_object(o));
    cr_assert_null(sba_json_object_get(o, "x"));
    cr_assert_null(sba_json_object_first(o));
    const sba_json *a = sba_json_object_get(sba_json_doc_root(d), "a");
    cr_assert_eq(sba_json_array_size(a), 0);
    cr_assert_null(sba_json_array_get(a, 0));
    sba_json_doc_free(d);
}

/* A key is looked up once in the document, then found by pointer. */
Test(json_doc, interned_keys)
{
    const char *t = "{\"a\":{\"b\":1,\"c\":3},\"c\":2,\"long key\":[{\"b\":4}],\"e\":{}}";
    sba_json_doc *d = sba_json_parse(t, strlen(t), 0, NULL, NULL, NULL);
    cr_assert_not_null(d);
    const sba_json *root = sba_json_doc_root(d);
    const char *b = sba_json_doc_key(d, "b"), *c = sba_json_doc_key(d, "c");
    cr_assert(b && c && b != c);
    cr_assert_null(sba_json_doc_key(d, "zz"));
    cr_assert_null(sba_json_doc_key(d, "lon"));
    cr_assert_eq(sba_json_doc_key(d, "long key"), sba_json_doc_key(d, "long key"));
    cr_assert_eq(sba_json_integer_value(sba_json_object_get_key(root, c)), 2);
    cr_assert_null(sba_json_object_get_key(root, b), "b is a key of another object only");
    cr_assert_null(sba_json_object_get_key(root, NULL));
    const sba_json *a = sba_json_object_get_key(root, sba_json_doc_key(d, "a"));
    cr_assert_eq(sba_json_integer_value(sba_json_object_get_key(a, b)), 1);
    cr_assert_eq(sba_json_integer_value(sba_json_object_get_key(a, c)), 3);
    const sba_json *e = sba_json_object_get_key(root, sba_json_doc_key(d, "e"));
    cr_assert(e && sba_json_object_size(e) == 0);
    cr_assert_null(sba_json_object_get_key(e, b), "an empty object has no members");
    sba_json_doc_free(d);
}
