/* SPDX-License-Identifier: MIT */
/*
 * test_address.c — tempo_address parse/format round trips, strict rejects,
 * equality, for IPv4, IPv6 and opaque ids.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tempo/tempo.h"

/* Parse `text`, format it back and expect `canonical`. */
static void assert_round_trip(const char *text, const char *canonical)
{
    tempo_address a, b;
    char buf[TEMPO_ADDRESS_STRLEN];
    assert_int_equal(tempo_address_parse(&a, text), TEMPO_OK);
    int n = tempo_address_format(&a, buf, sizeof buf);
    assert_int_equal(n, (int)strlen(canonical));
    assert_string_equal(buf, canonical);
    assert_int_equal(tempo_address_parse(&b, buf), TEMPO_OK);
    assert_true(tempo_address_equal(&a, &b));
}

static void test_ipv4_round_trip(void **state)
{
    (void)state;
    assert_round_trip("1.2.3.4:5678", "1.2.3.4:5678");
    assert_round_trip("0.0.0.0:0", "0.0.0.0:0");
    assert_round_trip("255.255.255.255:65535", "255.255.255.255:65535");
    assert_round_trip("127.0.0.1:7000", "127.0.0.1:7000");
}

static void test_ipv4_fields(void **state)
{
    (void)state;
    tempo_address a;
    assert_int_equal(tempo_address_parse(&a, "10.20.30.40:1234"), TEMPO_OK);
    assert_int_equal(a.family, TEMPO_ADDRESS_IPV4);
    assert_int_equal(a.bytes[0], 10);
    assert_int_equal(a.bytes[3], 40);
    assert_int_equal(a.port, 1234);
    tempo_address b = tempo_address_ipv4(10, 20, 30, 40, 1234);
    assert_true(tempo_address_equal(&a, &b));
}

static void test_ipv6_round_trip(void **state)
{
    (void)state;
    assert_round_trip("[::1]:5678", "[::1]:5678");
    assert_round_trip("[2001:db8::1]:80", "[2001:db8::1]:80");
    assert_round_trip("[2001:0db8:0000:0000:0000:0000:0000:0001]:80", "[2001:db8::1]:80");
    assert_round_trip("[::]:0", "[::]:0");
    assert_round_trip("[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535",
                      "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535");
}

static void test_bare_ipv6_has_port_zero(void **state)
{
    (void)state;
    tempo_address a;
    assert_int_equal(tempo_address_parse(&a, "::1"), TEMPO_OK);
    assert_int_equal(a.family, TEMPO_ADDRESS_IPV6);
    assert_int_equal(a.port, 0);
    assert_int_equal(a.bytes[15], 1);
    assert_round_trip("fe80::1:2", "[fe80::1:2]:0");
    assert_round_trip("::ffff:1.2.3.4", "[::ffff:1.2.3.4]:0");
}

static void test_rejects_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", "1.2.3.4", "1.2.3.4:", ":80", "1.2.3:80", "1.2.3.4.5:80", "256.1.1.1:80",
        "1.2.3.4:65536", "1.2.3.4:99999", "1.2.3.4:-1", "1.2.3.4:+80", "01.2.3.4:80",
        "1.2.3.4:0x50", "1.2.3.4:80 ", " 1.2.3.4:80", "1.2.3.4 :80", "1..3.4:80", "a.b.c.d:80",
        "localhost:80", "127.1:80", "1.2.3.4:80:90", "1.2.3.4:123456", "[::1]", "[::1]:",
        "[::1]80", "[::1]:65536", "[::1:80", "::1]:80", "[1.2.3.4]:80", "[::1%lo]:80",
        "fe80::1%lo", ":::", "1:2:3:4:5:6:7:8:9", "[]:80", "[::g]:80", "[::1]:80x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tempo_address a;
        memset(&a, 0xab, sizeof a);
        int r = tempo_address_parse(&a, bad[i]);
        if (r != TEMPO_E_ADDRESS)
            fail_msg("accepted \"%s\"", bad[i]);
        assert_int_equal(a.family, TEMPO_ADDRESS_NONE);
        assert_int_equal(a.port, 0);
    }
}

static void test_rejects_overlong_input(void **state)
{
    (void)state;
    char text[300];
    memset(text, '1', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    tempo_address a;
    assert_int_equal(tempo_address_parse(&a, text), TEMPO_E_ADDRESS);
    text[0] = '[';
    assert_int_equal(tempo_address_parse(&a, text), TEMPO_E_ADDRESS);
    memcpy(text, "::", 2);
    assert_int_equal(tempo_address_parse(&a, text), TEMPO_E_ADDRESS);
}

static void test_every_octet_and_port_round_trips(void **state)
{
    (void)state;
    for (unsigned v = 0; v < 65536; v += 7) {
        tempo_address a = tempo_address_ipv4((uint8_t)v, (uint8_t)(255 - v % 256),
                                             (uint8_t)(v / 256), (uint8_t)(v * 31), (uint16_t)v);
        char buf[TEMPO_ADDRESS_STRLEN];
        tempo_address b;
        assert_true(tempo_address_format(&a, buf, sizeof buf) > 0);
        assert_int_equal(tempo_address_parse(&b, buf), TEMPO_OK);
        assert_true(tempo_address_equal(&a, &b));
    }
}

static void test_format_none_and_small_buffer(void **state)
{
    (void)state;
    tempo_address none;
    memset(&none, 0, sizeof none);
    char buf[TEMPO_ADDRESS_STRLEN];
    assert_int_equal(tempo_address_format(&none, buf, sizeof buf), 4);
    assert_string_equal(buf, "none");

    tempo_address a = tempo_address_ipv4(192, 168, 100, 200, 65535);
    char small[8];
    assert_int_equal(tempo_address_format(&a, small, sizeof small), TEMPO_E_FULL);
    assert_string_equal(small, "192.168");
    /* Exactly enough room: 21 characters and the terminator. */
    char exact[22];
    assert_int_equal(tempo_address_format(&a, exact, sizeof exact), 21);
    assert_int_equal(tempo_address_format(&a, exact, sizeof exact - 1), TEMPO_E_FULL);
    assert_int_equal(tempo_address_format(&a, small, 0), TEMPO_E_FULL);
}

static void test_format_longest_fits_strlen(void **state)
{
    (void)state;
    tempo_address a;
    assert_int_equal(tempo_address_parse(&a, "[ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255]:65535"),
                     TEMPO_OK);
    char buf[TEMPO_ADDRESS_STRLEN];
    int n = tempo_address_format(&a, buf, sizeof buf);
    assert_true(n > 0 && n < TEMPO_ADDRESS_STRLEN);
}

static void test_equality(void **state)
{
    (void)state;
    tempo_address a = tempo_address_ipv4(1, 2, 3, 4, 80), b = a;
    assert_true(tempo_address_equal(&a, &b));
    b.port = 81;
    assert_false(tempo_address_equal(&a, &b));
    b = a;
    b.bytes[3] = 5;
    assert_false(tempo_address_equal(&a, &b));
    /* Bytes beyond the family's length do not matter. */
    b = a;
    b.bytes[10] = 99;
    assert_true(tempo_address_equal(&a, &b));

    tempo_address v6, v6b;
    assert_int_equal(tempo_address_parse(&v6, "[::1.2.3.4]:80"), TEMPO_OK);
    assert_int_equal(tempo_address_parse(&v6b, "[::1.2.3.4]:80"), TEMPO_OK);
    assert_true(tempo_address_equal(&v6, &v6b));
    v6b.bytes[0] = 1;
    assert_false(tempo_address_equal(&v6, &v6b));
    /* Same bytes, other family. */
    assert_false(tempo_address_equal(&a, &v6));
    assert_false(tempo_address_equal(&a, NULL));
    assert_false(tempo_address_equal(NULL, &a));
}

static void test_opaque_round_trip(void **state)
{
    (void)state;
    assert_round_trip("id:0123abcd", "id:0123abcd");
    assert_round_trip("id:00", "id:00");
    assert_round_trip("id:DEADBEEF:7", "id:deadbeef:7");
    assert_round_trip("id:00112233445566778899aabbccddeeff:65535",
                      "id:00112233445566778899aabbccddeeff:65535");
    assert_round_trip("id:ff:0", "id:ff"); /* port 0 is not written */
    tempo_address a;
    assert_int_equal(tempo_address_parse(&a, "id:0a0b0c:9"), TEMPO_OK);
    assert_int_equal(a.family, TEMPO_ADDRESS_OPAQUE);
    assert_int_equal(a.id_size, 3);
    assert_int_equal(a.bytes[0], 0x0a);
    assert_int_equal(a.bytes[2], 0x0c);
    assert_int_equal(a.bytes[3], 0);
    assert_int_equal(a.port, 9);
    /* the longest text still fits TEMPO_ADDRESS_STRLEN */
    assert_true(strlen("id:00112233445566778899aabbccddeeff:65535") < TEMPO_ADDRESS_STRLEN);
}

static void test_opaque_rejects_malformed(void **state)
{
    (void)state;
    static const char *bad[] = {
        "id:", "id:0", "id:abc", "id:0g", "id:00112233445566778899aabbccddeeff00", /* 17 bytes */
        "id:00:", "id:00:65536", "id:00:01", "id:00 ", "ID:00", "id::00", "id:00:-1", "id-00",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tempo_address a;
        memset(&a, 0xEE, sizeof a);
        if (tempo_address_parse(&a, bad[i]) != TEMPO_E_ADDRESS)
            fail_msg("accepted \"%s\"", bad[i]);
        assert_int_equal(a.family, TEMPO_ADDRESS_NONE);
        assert_int_equal(a.id_size, 0);
    }
}

static void test_opaque_equality_and_builder(void **state)
{
    (void)state;
    static const uint8_t id[5] = {1, 2, 3, 4, 5};
    tempo_address a, b;
    assert_int_equal(tempo_address_opaque(&a, id, 5, 0), TEMPO_OK);
    assert_int_equal(tempo_address_parse(&b, "id:0102030405"), TEMPO_OK);
    assert_true(tempo_address_equal(&a, &b));
    char buf[TEMPO_ADDRESS_STRLEN];
    assert_int_equal(tempo_address_format(&a, buf, sizeof buf), 13);
    assert_string_equal(buf, "id:0102030405");
    /* a shorter id with the same leading bytes is another peer */
    assert_int_equal(tempo_address_opaque(&b, id, 4, 0), TEMPO_OK);
    assert_false(tempo_address_equal(&a, &b));
    /* bytes past id_size do not matter; the port does */
    b = a;
    b.bytes[10] = 7;
    assert_true(tempo_address_equal(&a, &b));
    b.port = 1;
    assert_false(tempo_address_equal(&a, &b));
    /* an IPv4 address with the same bytes is not an opaque id */
    tempo_address v4 = tempo_address_ipv4(1, 2, 3, 4, 0);
    assert_false(tempo_address_equal(&a, &v4));
    assert_int_equal(tempo_address_opaque(&b, id, 0, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(b.family, TEMPO_ADDRESS_NONE);
    assert_int_equal(tempo_address_opaque(&b, id, 17, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_address_opaque(&b, NULL, 4, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_address_opaque(NULL, id, 4, 0), TEMPO_E_INVALID_ARG);
    /* a hand-made opaque address with a broken size is not formatted */
    b = a;
    b.id_size = 17;
    assert_int_equal(tempo_address_format(&b, buf, sizeof buf), TEMPO_E_INVALID_ARG);
    b.id_size = 0;
    assert_int_equal(tempo_address_format(&b, buf, sizeof buf), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_address_format(&a, buf, 5), TEMPO_E_FULL);
    assert_string_equal(buf, "id:0");
}

static void test_bad_args(void **state)
{
    (void)state;
    tempo_address a = tempo_address_ipv4(1, 2, 3, 4, 5);
    char buf[TEMPO_ADDRESS_STRLEN];
    assert_int_equal(tempo_address_parse(NULL, "1.2.3.4:5"), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_address_parse(&a, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_address_format(NULL, buf, sizeof buf), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_address_format(&a, NULL, 10), TEMPO_E_INVALID_ARG);
    a.family = 5;
    assert_int_equal(tempo_address_format(&a, buf, sizeof buf), TEMPO_E_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ipv4_round_trip),
        cmocka_unit_test(test_ipv4_fields),
        cmocka_unit_test(test_ipv6_round_trip),
        cmocka_unit_test(test_bare_ipv6_has_port_zero),
        cmocka_unit_test(test_rejects_malformed),
        cmocka_unit_test(test_rejects_overlong_input),
        cmocka_unit_test(test_every_octet_and_port_round_trips),
        cmocka_unit_test(test_format_none_and_small_buffer),
        cmocka_unit_test(test_format_longest_fits_strlen),
        cmocka_unit_test(test_equality),
        cmocka_unit_test(test_opaque_round_trip),
        cmocka_unit_test(test_opaque_rejects_malformed),
        cmocka_unit_test(test_opaque_equality_and_builder),
        cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
