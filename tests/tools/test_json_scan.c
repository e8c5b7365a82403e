/* SPDX-License-Identifier: MIT */
/*
 * test_json_scan.c — the bounded JSON reader of tempo's programs
 * (tools/common/json_scan.h): what it reads from a GameServer object, the
 * documents it refuses, and that no mutation of a real document makes it
 * read outside its buffer or hand out a span outside it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json_scan.h"

/* One line of Agones' SDK server's watch stream (its local mode). */
static const char watch_line[] =
    "{\"result\":{\"object_meta\":{\"name\":\"relay-7\",\"namespace\":\"default\",\"uid\":\"1234\","
    "\"resource_version\":\"v1\",\"generation\":\"1\",\"creation_timestamp\":\"1795778642\","
    "\"deletion_timestamp\":\"0\",\"annotations\":{\"agones.dev/last-allocated\":"
    "\"2026-11-27T11:24:03.1Z\",\"match\":\"m\\u00e9\\ud83d\\ude00\"},\"labels\":{"
    "\"agones.dev/sdk-gs-session-ready\":\"true\",\"islocal\":\"true\"}},\"spec\":{\"health\":"
    "{\"disabled\":false,\"period_seconds\":3,\"failure_threshold\":5,\"initial_delay_seconds\":10}},"
    "\"status\":{\"state\":\"Allocated\",\"address\":\"127.0.0.1\",\"ports\":[{\"name\":\"default\","
    "\"port\":7777}],\"players\":null,\"counters\":{},\"lists\":{}}}}";

static void test_a_gameserver_line_reads_by_path(void **state)
{
    (void)state;
    json_value root, v;
    assert_true(json_scan_parse(watch_line, strlen(watch_line), &root));
    assert_int_equal(root.type, JSON_OBJECT);
    assert_true(json_scan_path(&root, "result.status.state", &v));
    assert_true(json_scan_string_is(&v, "Allocated"));
    char buf[64];
    assert_true(json_scan_path(&root, "result.object_meta.name", &v));
    assert_true(json_scan_string(&v, buf, sizeof buf));
    assert_string_equal(buf, "relay-7");
    /* \u00e9 and a surrogate pair (an emoji) become UTF-8 */
    assert_true(json_scan_path(&root, "result.object_meta.annotations.match", &v));
    assert_true(json_scan_string(&v, buf, sizeof buf));
    assert_string_equal(buf, "m\xc3\xa9\xf0\x9f\x98\x80");
    long long n;
    assert_true(json_scan_path(&root, "result.object_meta.generation", &v));
    assert_true(json_scan_int(&v, &n)); /* an int64 written as a string */
    assert_int_equal(n, 1);
    assert_true(json_scan_path(&root, "result.spec.health.failure_threshold", &v));
    assert_true(json_scan_int(&v, &n));
    assert_int_equal(n, 5);
    assert_true(json_scan_path(&root, "result.spec.health.disabled", &v));
    assert_int_equal(v.type, JSON_FALSE);
    assert_true(json_scan_path(&root, "result.status.players", &v));
    assert_int_equal(v.type, JSON_NULL);
    assert_false(json_scan_path(&root, "result.status.nothing", &v));
    assert_int_equal(v.type, JSON_NONE);
    assert_false(json_scan_path(&root, "result.status.state.deeper", &v));
    assert_false(json_scan_path(&root, "", &v) && v.type != JSON_OBJECT);

    /* the labels, walked */
    json_value labels, k, val;
    assert_true(json_scan_path(&root, "result.object_meta.labels", &labels));
    size_t pos = 0;
    int count = 0;
    while (json_scan_next(&labels, &pos, &k, &val)) {
        assert_int_equal(k.type, JSON_STRING);
        assert_int_equal(val.type, JSON_STRING);
        count++;
    }
    assert_int_equal(count, 2);
    /* the ports array: one element, no key */
    json_value ports, port;
    assert_true(json_scan_path(&root, "result.status.ports", &ports));
    pos = 0;
    assert_true(json_scan_next(&ports, &pos, &k, &port));
    assert_int_equal(k.type, JSON_NONE);
    assert_true(json_scan_member(&port, "port", &v) && json_scan_int(&v, &n));
    assert_int_equal(n, 7777);
    assert_false(json_scan_next(&ports, &pos, &k, &port));
    /* an empty object has nothing to walk */
    json_value counters;
    assert_true(json_scan_path(&root, "result.status.counters", &counters));
    pos = 0;
    assert_false(json_scan_next(&counters, &pos, &k, &val));
}

static void test_strings_decode_escapes_and_refuse_what_does_not_fit(void **state)
{
    (void)state;
    const char *doc = "[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"\\u0000\", \"\\udc00x\", \"12345678\"]";
    json_value root, v;
    assert_true(json_scan_parse(doc, strlen(doc), &root));
    size_t pos = 0;
    char buf[16];
    assert_true(json_scan_next(&root, &pos, NULL, &v));
    assert_true(json_scan_string(&v, buf, sizeof buf));
    assert_string_equal(buf, "a\"b\\c/d\b\f\n\r\t");
    assert_true(json_scan_string_is(&v, "a\"b\\c/d\b\f\n\r\t"));
    assert_false(json_scan_string_is(&v, "a\"b"));
    assert_true(json_scan_next(&root, &pos, NULL, &v));
    assert_false(json_scan_string(&v, buf, sizeof buf)); /* a NUL would cut a C string */
    assert_string_equal(buf, "");
    assert_true(json_scan_next(&root, &pos, NULL, &v));
    assert_true(json_scan_string(&v, buf, sizeof buf)); /* a lone surrogate: U+FFFD */
    assert_string_equal(buf, "\xef\xbf\xbdx");
    assert_true(json_scan_next(&root, &pos, NULL, &v));
    assert_false(json_scan_string(&v, buf, 8)); /* 8 bytes and the NUL do not fit in 8 */
    assert_string_equal(buf, "");
    assert_true(json_scan_string(&v, buf, 9));
    long long n;
    assert_true(json_scan_int(&v, &n));
    assert_int_equal(n, 12345678);
    assert_false(json_scan_string(&root, buf, sizeof buf)); /* not a string */
}

static void test_integers_are_whole_and_bounded(void **state)
{
    (void)state;
    const char *good[] = {"0", "-7", "9007199254740992", "\"-9007199254740992\""};
    const long long want[] = {0, -7, 9007199254740992LL, -9007199254740992LL};
    const char *bad[] = {"1.5", "1e3", "9007199254740993", "\"01\"", "\"\"", "\"1x\"", "true", "-0.0"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        json_value v;
        long long n;
        assert_true(json_scan_parse(good[i], strlen(good[i]), &v));
        assert_true(json_scan_int(&v, &n));
        assert_true(n == want[i]);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_value v;
        long long n;
        assert_true(json_scan_parse(bad[i], strlen(bad[i]), &v));
        assert_false(json_scan_int(&v, &n));
    }
}

static void test_malformed_documents_are_refused(void **state)
{
    (void)state;
    const char *bad[] = {"", " ", "{", "}", "[", "]", "[1,]", "[,1]", "{\"a\":}", "{\"a\" 1}",
                         "{a:1}", "{\"a\":1,}", "{\"a\":1 \"b\":2}", "01", "1.", ".5", "-", "1e",
                         "+1", "\"\\x\"", "\"\\u12G4\"", "\"\\u12\"", "\"abc", "\"a\nb\"", "tru",
                         "nulll", "[1] 2", "[1]]", "{}}", "\"\\", "[\"a\":1]", "{1:2}", "TRUE",
                         "[1 2]", "\x01"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_value v = {bad[i], 1, JSON_OBJECT};
        if (json_scan_parse(bad[i], strlen(bad[i]), &v))
            fail_msg("accepted: %s", bad[i]);
        assert_int_equal(v.type, JSON_NONE);
    }
    json_value v;
    assert_false(json_scan_parse(NULL, 0, &v));
    assert_true(json_scan_parse(" \t\r\n[ ] \n", 9, &v));
    assert_int_equal(v.type, JSON_ARRAY);
    assert_int_equal(v.n, 3);
    assert_false(json_scan_parse(" \t\r\n[ ] \n", 10, &v)); /* a NUL after it */
}

/* Nesting: JSON_SCAN_MAX_DEPTH levels are read, one more is refused, and
 * a deep document costs no stack (the check does not recurse). */
static void test_nesting_is_bounded(void **state)
{
    (void)state;
    char doc[2 * (JSON_SCAN_MAX_DEPTH + 1) + 1];
    for (int depth = JSON_SCAN_MAX_DEPTH; depth <= JSON_SCAN_MAX_DEPTH + 1; depth++) {
        memset(doc, '[', (size_t)depth);
        memset(doc + depth, ']', (size_t)depth);
        json_value v;
        assert_int_equal(json_scan_parse(doc, 2 * (size_t)depth, &v), depth <= JSON_SCAN_MAX_DEPTH);
    }
    size_t huge = 1000000;
    char *deep = malloc(2 * huge);
    assert_non_null(deep);
    memset(deep, '[', huge);
    memset(deep + huge, ']', huge);
    json_value v;
    assert_false(json_scan_parse(deep, 2 * huge, &v));
    free(deep);
}

static uint32_t next_rand(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Walk every value of an accepted document: every span lies inside the
 * buffer and every string decodes or is refused cleanly. */
static int walk(const json_value *v, const char *buf, size_t n, int depth)
{
    assert_true(v->p >= buf && v->p + v->n <= buf + n);
    int count = 1;
    if (v->type == JSON_STRING) {
        char s[64];
        json_scan_string(v, s, sizeof s);
        long long x;
        json_scan_int(v, &x);
    }
    if ((v->type == JSON_OBJECT || v->type == JSON_ARRAY) && depth < 80) {
        size_t pos = 0;
        json_value k, e;
        while (json_scan_next(v, &pos, &k, &e)) {
            if (k.type != JSON_NONE)
                assert_true(k.p >= buf && k.p + k.n <= buf + n);
            count += walk(&e, buf, n, depth + 1);
        }
        json_value m;
        json_scan_member(v, "status", &m);
    }
    return count;
}

/* 20,000 mutations of a real watch line (bytes changed, cut, doubled,
 * inserted), each read in a buffer of exactly its size: a parse either
 * refuses it or yields spans that stay inside, under ASan. */
static void test_mutated_documents_never_read_outside(void **state)
{
    (void)state;
    const size_t base = sizeof watch_line - 1;
    const char alphabet[] = "{}[]\",:\\u0123456789abcdefEe.-+ tnrl\x01\xff";
    uint32_t seed = 12345;
    int accepted = 0;
    for (int round = 0; round < 20000; round++) {
        size_t n = base;
        char *work = malloc(2 * base + 8);
        assert_non_null(work);
        memcpy(work, watch_line, base);
        int edits = 1 + (int)(next_rand(&seed) % 4);
        for (int e = 0; e < edits; e++) {
            size_t at = next_rand(&seed) % n;
            switch (next_rand(&seed) % 4) {
            case 0:
                work[at] = alphabet[next_rand(&seed) % (sizeof alphabet - 1)];
                break;
            case 1:
                n = at + 1; /* cut */
                break;
            case 2: /* insert a byte */
                memmove(work + at + 1, work + at, n - at);
                work[at] = alphabet[next_rand(&seed) % (sizeof alphabet - 1)];
                n++;
                break;
            default: /* double a run */
                if (n + 8 < 2 * base) {
                    size_t len = 1 + next_rand(&seed) % 8;
                    if (at + len > n)
                        len = n - at;
                    memmove(work + at + len, work + at, n - at);
                    n += len;
                }
                break;
            }
        }
        char *exact = malloc(n);
        assert_non_null(exact);
        memcpy(exact, work, n);
        json_value root;
        if (json_scan_parse(exact, n, &root)) {
            accepted++;
            assert_true(walk(&root, exact, n, 0) >= 1);
        }
        free(exact);
        free(work);
    }
    assert_true(accepted > 100); /* some mutations stay JSON: the walk ran */
    assert_true(accepted < 19000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_gameserver_line_reads_by_path),
        cmocka_unit_test(test_strings_decode_escapes_and_refuse_what_does_not_fit),
        cmocka_unit_test(test_integers_are_whole_and_bounded),
        cmocka_unit_test(test_malformed_documents_are_refused),
        cmocka_unit_test(test_nesting_is_bounded),
        cmocka_unit_test(test_mutated_documents_never_read_outside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
