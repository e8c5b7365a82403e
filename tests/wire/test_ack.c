/* SPDX-License-Identifier: MIT */
/*
 * test_ack.c — the datagram ack field (wire/ack.h): nothing to ack, the
 * short form, gaps, the low bits across their wrap, bits naming no
 * sequence, the one non-canonical spelling, every truncation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "wire/ack.h"

/* Write a, read it back; returns the bits written. */
static size_t round_trip(const wire_ack *a, wire_ack *back)
{
    uint8_t buf[16];
    tempo_bitwriter w;
    tempo_bitwriter_init(&w, buf, sizeof buf);
    wire_ack_put(&w, a);
    assert_false(w.failed);
    size_t bits = tempo_bitwriter_bits_written(&w);
    assert_int_equal((int)bits, wire_ack_size_bits(a));
    tempo_bitreader r;
    tempo_bitreader_init(&r, buf, tempo_bitwriter_bytes_written(&w));
    assert_true(wire_ack_get(&r, back));
    assert_int_equal(tempo_bitreader_bits_read(&r), bits);
    assert_true(wire_ack_equal(a, back));
    return bits;
}

static void test_nothing_to_ack_is_one_bit(void **state)
{
    (void)state;
    wire_ack a, b;
    wire_ack_make(&a, false, 12345, 0x1234u);
    assert_false(a.present);
    assert_int_equal(a.ack, 0);
    assert_int_equal(a.bits, 0);
    assert_int_equal(round_trip(&a, &b), 1);
    assert_false(b.present);
}

static void test_everything_received_is_ten_bits(void **state)
{
    (void)state;
    wire_ack a, b;
    wire_ack_make(&a, true, 1000, 0xFFFFFFFFu);
    assert_int_equal(a.ack, 1000 & 0xFF);
    assert_int_equal(round_trip(&a, &b), 10);
    assert_int_equal(b.ack, 0xE8);
    assert_int_equal(b.bits, 0xFFFFFFFFu);
}

static void test_gaps_carry_the_bits(void **state)
{
    (void)state;
    static const uint32_t cases[] = {0u, 1u, 0x7FFFFFFFu, 0xFFFFFFFEu, 0xA5A5A5A5u};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wire_ack a, b;
        wire_ack_make(&a, true, 777, cases[i]);
        assert_int_equal(round_trip(&a, &b), 42);
        assert_int_equal(b.bits, cases[i]);
        assert_int_equal(b.ack, 777 & 0xFF);
    }
}

static void test_low_bits_wrap(void **state)
{
    (void)state;
    wire_ack a, b;
    wire_ack_make(&a, true, 255, 0xFFFFFFFFu);
    round_trip(&a, &b);
    assert_int_equal(b.ack, 255);
    wire_ack_make(&a, true, 256, 0xFFFFFFFFu);
    round_trip(&a, &b);
    assert_int_equal(b.ack, 0);
    wire_ack_make(&a, true, UINT64_MAX, 0xFFFFFFFFu);
    round_trip(&a, &b);
    assert_int_equal(b.ack, 255);
}

/* Early in a link, bits for sequences below 0 are set: the short form. */
static void test_bits_below_zero_are_set(void **state)
{
    (void)state;
    wire_ack a;
    wire_ack_make(&a, true, 0, 0);
    assert_int_equal(a.bits, 0xFFFFFFFFu);
    assert_int_equal(wire_ack_size_bits(&a), 10);
    wire_ack_make(&a, true, 3, 0x7u); /* 2, 1, 0 received */
    assert_int_equal(a.bits, 0xFFFFFFFFu);
    wire_ack_make(&a, true, 3, 0x5u); /* 1 lost */
    assert_int_equal(a.bits, 0xFFFFFFFDu);
    assert_int_equal(wire_ack_size_bits(&a), 42);
    wire_ack_make(&a, true, 32, 0); /* every bit names a real sequence */
    assert_int_equal(a.bits, 0);
}

/* gaps = 1 with all 32 bits set is the short form spelled long: refused. */
static void test_long_spelling_of_all_received_refused(void **state)
{
    (void)state;
    uint8_t buf[8];
    tempo_bitwriter w;
    tempo_bitwriter_init(&w, buf, sizeof buf);
    tempo_bitwriter_bits(&w, 1, 1);
    tempo_bitwriter_bits(&w, 9, 8);
    tempo_bitwriter_bits(&w, 1, 1);
    tempo_bitwriter_bits(&w, 0xFFFFFFFFu, 32);
    tempo_bitreader r;
    tempo_bitreader_init(&r, buf, tempo_bitwriter_bytes_written(&w));
    wire_ack b;
    assert_false(wire_ack_get(&r, &b));
    assert_int_equal(r.error, TEMPO_BITREAD_RANGE);
    assert_false(b.present);
}

/* Every prefix of a long field is truncated, never read past. */
static void test_truncated(void **state)
{
    (void)state;
    wire_ack a;
    wire_ack_make(&a, true, 40, 0x0F0F0F0Fu);
    uint8_t buf[8];
    tempo_bitwriter w;
    tempo_bitwriter_init(&w, buf, sizeof buf);
    wire_ack_put(&w, &a);
    size_t bytes = tempo_bitwriter_bytes_written(&w);
    assert_int_equal(bytes, 6);
    for (size_t n = 0; n < bytes; n++) {
        tempo_bitreader r;
        tempo_bitreader_init(&r, buf, n);
        wire_ack b;
        assert_false(wire_ack_get(&r, &b));
        assert_int_equal(r.error, TEMPO_BITREAD_END);
        assert_false(b.present);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nothing_to_ack_is_one_bit),
        cmocka_unit_test(test_everything_received_is_ten_bits),
        cmocka_unit_test(test_gaps_carry_the_bits),
        cmocka_unit_test(test_low_bits_wrap),
        cmocka_unit_test(test_bits_below_zero_are_set),
        cmocka_unit_test(test_long_spelling_of_all_received_refused),
        cmocka_unit_test(test_truncated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
