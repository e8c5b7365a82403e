/* SPDX-License-Identifier: MIT */
/*
 * test_seal.c — sealed datagrams: exact round trips at every size; any bit
 * flipped anywhere refuses to open; another key, the other direction or
 * another 64-bit sequence with the same low bits refuses to open; the
 * nonce differs for every (sequence, direction); refusals leave the
 * buffer alone; the keys are all zero after wiping; nothing allocates.
 * Built without libsodium, everything says TEMPO_E_UNSUPPORTED.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "count_malloc.h"
#include "tempo/base.h"
#include "tempo/rng.h"
#include "wire/packet.h"
#include "wire/seal.h"

#define SESSION 0x0A0B0C0Du

static const uint8_t KEY_A[SEAL_KEY_SIZE] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                             12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                             23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
static const uint8_t KEY_B[SEAL_KEY_SIZE] = {0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7,
                                             0xB8, 0xB9, 0xBA, 0xBB, 0xBC, 0xBD, 0xBE, 0xBF,
                                             0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7,
                                             0xC8, 0xC9, 0xCA, 0xCB, 0xCC, 0xCD, 0xCE, 0xCF};

/* The two ends of one link: a sends with KEY_A (LOW), b with KEY_B (HIGH). */
static wire_keys a, b;

static int setup(void **state)
{
    (void)state;
    if (!seal_available())
        return 0;
    if (seal_keys_set(&a, KEY_A, KEY_B, SEAL_DIRECTION_LOW) != TEMPO_OK ||
        seal_keys_set(&b, KEY_B, KEY_A, SEAL_DIRECTION_HIGH) != TEMPO_OK)
        return -1;
    return 0;
}

/* Skip without libsodium; otherwise make the keys (the Windows cmocka
 * subset runs no group setup, so each test calls it). */
#define NEED_SODIUM()                        \
    do {                                     \
        if (!seal_available())               \
            skip();                          \
        assert_int_equal(setup(NULL), 0);    \
    } while (0)

/* A plain datagram: header (type 3, sequence low bits) and body_size bytes
 * of a pattern. Returns its size. */
static size_t plain(uint8_t *buf, uint64_t seq, size_t body_size)
{
    tempo_packet_header h = {SESSION, (uint16_t)seq, 3, false, false};
    assert_int_equal(packet_write(&h, buf, PACKET_HEADER_SIZE), PACKET_HEADER_SIZE);
    for (size_t i = 0; i < body_size; i++)
        buf[PACKET_HEADER_SIZE + i] = (uint8_t)(i * 7 + 1);
    return PACKET_HEADER_SIZE + body_size;
}

static void test_without_libsodium_everything_is_unsupported(void **state)
{
    (void)state;
    if (seal_available())
        skip();
    wire_keys k;
    memset(&k, 0x5A, sizeof k);
    assert_int_equal(seal_start(), TEMPO_E_UNSUPPORTED);
    assert_int_equal(seal_keys_set(&k, KEY_A, KEY_B, SEAL_DIRECTION_LOW), TEMPO_E_UNSUPPORTED);
    assert_false(k.ready);
    uint8_t buf[64];
    size_t n = plain(buf, 1, 10);
    k.ready = true; /* even keys that claim to be ready */
    assert_int_equal(seal_datagram(&k, 1, buf, n, sizeof buf), TEMPO_E_UNSUPPORTED);
    buf[0] = packet_protocol_byte(true);
    assert_int_equal(seal_open(&k, 1, buf, n + SEAL_TAG_SIZE, NULL), TEMPO_E_UNSUPPORTED);
}

static void test_round_trip_is_exact_at_every_size(void **state)
{
    (void)state;
    NEED_SODIUM();
    static const size_t bodies[] = {0, 1, 15, 16, 17, 64, 500, PACKET_MAX_SEALED_BODY};
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        uint8_t orig[TEMPO_MAX_DATAGRAM], buf[TEMPO_MAX_DATAGRAM];
        uint64_t seq = 0x123456789ABCull + i;
        size_t n = plain(orig, seq, bodies[i]);
        memcpy(buf, orig, n);
        int sealed = seal_datagram(&a, seq, buf, n, sizeof buf);
        assert_int_equal(sealed, (int)(n + SEAL_TAG_SIZE));
        assert_int_equal(buf[0], 0xBB); /* the S bit set, version 3 */
        assert_memory_equal(buf + 1, orig + 1, PACKET_HEADER_SIZE - 1);
        if (bodies[i] >= 4)
            assert_true(memcmp(buf + PACKET_HEADER_SIZE, orig + PACKET_HEADER_SIZE, bodies[i]) != 0);

        tempo_packet_view v;
        assert_int_equal(packet_read(buf, (size_t)sealed, &v, NULL), TEMPO_OK);
        assert_true(v.h.sealed);
        assert_int_equal(v.body_size, bodies[i]);

        tempo_drop_reason why = TEMPO_DROP_REASON_COUNT_;
        assert_int_equal(seal_open(&b, seq, buf, (size_t)sealed, &why), (int)n);
        assert_int_equal(why, TEMPO_DROP_NONE);
        assert_int_equal(buf[0], 0xBB);
        assert_memory_equal(buf + 1, orig + 1, n - 1);
    }
}

static void test_any_flipped_bit_refuses_to_open(void **state)
{
    (void)state;
    NEED_SODIUM();
    uint8_t sealed[PACKET_HEADER_SIZE + 40 + SEAL_TAG_SIZE];
    uint64_t seq = 70000; /* low bits 4464 */
    size_t n = plain(sealed, seq, 40);
    assert_int_equal(seal_datagram(&a, seq, sealed, n, sizeof sealed), (int)sizeof sealed);
    for (size_t bit = 0; bit < sizeof sealed * 8; bit++) {
        uint8_t buf[sizeof sealed];
        memcpy(buf, sealed, sizeof buf);
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        /* what a receiver does: recover the sequence from the bits it got */
        uint64_t got = packet_sequence_recover((uint16_t)(buf[5] | buf[6] << 8), seq);
        tempo_drop_reason why = TEMPO_DROP_NONE;
        int rc = seal_open(&b, got, buf, sizeof buf, &why);
        if (bit / 8 == 0) {
            /* byte 0 is no longer the sealed protocol byte: a plain (S = 0)
             * or foreign datagram, which the header check drops first */
            assert_int_equal(rc, TEMPO_E_INVALID_ARG);
        } else {
            if (rc != TEMPO_E_MALFORMED || why != TEMPO_DROP_FORGED)
                fail_msg("bit %zu flipped: open returned %d (%s)", bit, rc,
                         tempo_drop_reason_name(why));
        }
    }
}

static void test_another_key_refuses_to_open(void **state)
{
    (void)state;
    NEED_SODIUM();
    uint8_t buf[64];
    size_t n = plain(buf, 9, 20);
    int sealed = seal_datagram(&a, 9, buf, n, sizeof buf);
    wire_keys c;
    uint8_t other[SEAL_KEY_SIZE];
    memcpy(other, KEY_A, sizeof other);
    other[31] ^= 1;
    assert_int_equal(seal_keys_set(&c, KEY_B, other, SEAL_DIRECTION_HIGH), TEMPO_OK);
    tempo_drop_reason why;
    assert_int_equal(seal_open(&c, 9, buf, (size_t)sealed, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_FORGED);
}

static void test_the_other_direction_refuses_to_open_even_under_one_key(void **state)
{
    (void)state;
    NEED_SODIUM();
    /* Both directions under KEY_A: a datagram reflected back to its sender
     * still fails, because the direction byte of the nonce differs. */
    wire_keys low, high;
    assert_int_equal(seal_keys_set(&low, KEY_A, KEY_A, SEAL_DIRECTION_LOW), TEMPO_OK);
    assert_int_equal(seal_keys_set(&high, KEY_A, KEY_A, SEAL_DIRECTION_HIGH), TEMPO_OK);
    uint8_t buf[64], copy[64];
    size_t n = plain(buf, 5, 20);
    int sealed = seal_datagram(&low, 5, buf, n, sizeof buf);
    memcpy(copy, buf, sizeof buf);
    tempo_drop_reason why;
    assert_int_equal(seal_open(&low, 5, buf, (size_t)sealed, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_FORGED);
    assert_int_equal(seal_open(&high, 5, copy, (size_t)sealed, &why), (int)n);
}

static void test_a_sequence_recovered_wrongly_refuses_to_open(void **state)
{
    (void)state;
    NEED_SODIUM();
    uint8_t buf[64];
    size_t n = plain(buf, 3, 20);
    int sealed = seal_datagram(&a, 3, buf, n, sizeof buf);
    tempo_drop_reason why;
    /* the same 16 bits on the wire, another full sequence */
    assert_int_equal(seal_open(&b, 3 + 65536, buf, (size_t)sealed, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_FORGED);
}

static void test_the_nonce_differs_for_every_sequence_and_direction(void **state)
{
    (void)state;
    uint8_t nonce[SEAL_NONCE_SIZE];
    seal_nonce(0x0102030405060708ull, SEAL_DIRECTION_HIGH, nonce);
    static const uint8_t expect[SEAL_NONCE_SIZE] = {8, 7, 6, 5, 4, 3, 2, 1, 1, 0, 0, 0};
    assert_memory_equal(nonce, expect, sizeof nonce);

    /* The map (seq, dir) -> nonce is one-to-one: seq is bytes 0..7 and dir
     * byte 8, verbatim. Read both back for sequences around every byte
     * boundary and random ones; and check all of a dense range pairwise. */
    tempo_rng r;
    tempo_rng_seed(&r, 17, 1);
    for (int i = 0; i < 4096; i++) {
        uint64_t seq = i < 64 * 3 ? ((uint64_t)1 << (i / 3)) + (uint64_t)(i % 3) - 1
                                  : (uint64_t)tempo_rng_next(&r) << 32 | tempo_rng_next(&r);
        for (uint8_t dir = 0; dir < 2; dir++) {
            seal_nonce(seq, dir, nonce);
            uint64_t back = 0;
            for (int k = 7; k >= 0; k--)
                back = back << 8 | nonce[k];
            assert_true(back == seq);
            assert_int_equal(nonce[8], dir);
            assert_int_equal(nonce[9] | nonce[10] | nonce[11], 0);
        }
    }
    static uint8_t all[2 * 512][SEAL_NONCE_SIZE];
    for (int i = 0; i < 2 * 512; i++)
        seal_nonce((uint64_t)(i / 2), (uint8_t)(i % 2), all[i]);
    for (int i = 0; i < 2 * 512; i++)
        for (int j = 0; j < i; j++)
            assert_true(memcmp(all[i], all[j], SEAL_NONCE_SIZE) != 0);
}

static void test_one_body_sealed_twice_never_looks_the_same(void **state)
{
    (void)state;
    NEED_SODIUM();
    /* Same body, sequences 0x10000 apart (same header bits): the
     * ciphertexts differ, so the keystream was not reused. */
    uint8_t x[64], y[64];
    size_t n = plain(x, 1, 32);
    plain(y, 1 + 65536, 32);
    assert_memory_equal(x, y, n);
    seal_datagram(&a, 1, x, n, sizeof x);
    seal_datagram(&a, 1 + 65536, y, n, sizeof y);
    assert_true(memcmp(x + PACKET_HEADER_SIZE, y + PACKET_HEADER_SIZE, 32) != 0);
}

static void test_refusals_leave_the_buffer_alone(void **state)
{
    (void)state;
    NEED_SODIUM();
    uint8_t buf[TEMPO_MAX_DATAGRAM + 32], orig[sizeof buf];
    size_t n = plain(buf, 4, 20);
    memcpy(orig, buf, sizeof buf);
    wire_keys none;
    memset(&none, 0, sizeof none);
    assert_int_equal(seal_datagram(&none, 4, buf, n, sizeof buf), TEMPO_E_STATE);
    assert_int_equal(seal_datagram(&a, 5, buf, n, sizeof buf), TEMPO_E_INVALID_ARG);
    assert_int_equal(seal_datagram(&a, 4, buf, n, n + SEAL_TAG_SIZE - 1), TEMPO_E_FULL);
    assert_int_equal(seal_datagram(NULL, 4, buf, n, sizeof buf), TEMPO_E_INVALID_ARG);
    assert_int_equal(seal_datagram(&a, 4, buf, 7, sizeof buf), TEMPO_E_INVALID_ARG);
    assert_memory_equal(buf, orig, sizeof buf);
    size_t big = plain(buf, 4, PACKET_MAX_SEALED_BODY + 1);
    assert_int_equal(seal_datagram(&a, 4, buf, big, sizeof buf), TEMPO_E_FULL);
    n = plain(buf, 4, 20);
    memcpy(orig, buf, sizeof buf);
    int sealed = seal_datagram(&a, 4, buf, n, sizeof buf);
    assert_int_equal(seal_datagram(&a, 4, buf, (size_t)sealed, sizeof buf),
                     TEMPO_E_INVALID_ARG); /* already sealed */

    tempo_drop_reason why;
    assert_int_equal(seal_open(&b, 4, buf, 23, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_TOO_SHORT);
    assert_int_equal(seal_open(&b, 4, buf, TEMPO_MAX_DATAGRAM + 1, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_TOO_LONG);
    assert_int_equal(seal_open(&none, 4, buf, (size_t)sealed, &why), TEMPO_E_STATE);
    assert_int_equal(seal_open(&b, 5, buf, (size_t)sealed, &why), TEMPO_E_INVALID_ARG);
    assert_int_equal(seal_open(NULL, 4, buf, (size_t)sealed, &why), TEMPO_E_INVALID_ARG);
    /* none of those touched it: it still opens */
    assert_int_equal(seal_open(&b, 4, buf, (size_t)sealed, NULL), (int)n);
    assert_memory_equal(buf, (uint8_t[]){0xBB}, 1);
    assert_memory_equal(buf + 1, orig + 1, n - 1);
    /* the smallest sealed datagram: a header and a tag */
    n = plain(buf, 6, 0);
    assert_int_equal(seal_datagram(&a, 6, buf, n, sizeof buf), 24);
    assert_int_equal(seal_open(&b, 6, buf, 24, NULL), 8);
}

static void test_keys_are_all_zero_after_wiping(void **state)
{
    (void)state;
    NEED_SODIUM();
    wire_keys k;
    assert_int_equal(seal_keys_set(&k, KEY_A, KEY_B, SEAL_DIRECTION_HIGH), TEMPO_OK);
    assert_true(k.ready);
    assert_memory_equal(k.send_key, KEY_A, SEAL_KEY_SIZE);
    assert_int_equal(k.recv_direction, SEAL_DIRECTION_LOW);
    seal_keys_wipe(&k);
    static const wire_keys zero;
    assert_memory_equal(&k, &zero, sizeof k);
    uint8_t buf[64];
    size_t n = plain(buf, 1, 4);
    assert_int_equal(seal_datagram(&k, 1, buf, n, sizeof buf), TEMPO_E_STATE);
    seal_keys_wipe(NULL);
    assert_int_equal(seal_keys_set(&k, KEY_A, KEY_B, 2), TEMPO_E_INVALID_ARG);
    assert_int_equal(seal_keys_set(&k, NULL, KEY_B, 0), TEMPO_E_INVALID_ARG);
}

static void test_keys_are_equal_only_when_every_byte_is(void **state)
{
    (void)state;
    uint8_t ka[SEAL_KEY_SIZE], kb[SEAL_KEY_SIZE];
    for (int i = 0; i < SEAL_KEY_SIZE; i++)
        ka[i] = (uint8_t)(31 * i + 7);
    memcpy(kb, ka, sizeof kb);
    assert_true(seal_key_equal(ka, kb));
    for (int i = 0; i < SEAL_KEY_SIZE; i++)
        for (int bit = 0; bit < 8; bit++) {
            kb[i] ^= (uint8_t)(1u << bit);
            assert_false(seal_key_equal(ka, kb));
            kb[i] ^= (uint8_t)(1u << bit);
        }
    assert_true(seal_key_equal(ka, kb));
}

static void test_sealing_and_opening_allocate_nothing(void **state)
{
    (void)state;
    NEED_SODIUM();
    if (!count_malloc_start()) {
        print_message("malloc not counted: %s\n", count_malloc_unavailable);
        skip();
    }
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    uint64_t before = count_malloc_total();
    for (uint64_t seq = 0; seq < 1000; seq++) {
        size_t n = plain(buf, seq, (size_t)(seq % 200));
        int sealed = seal_datagram(&a, seq, buf, n, sizeof buf);
        assert_int_equal(seal_open(&b, seq, buf, (size_t)sealed, NULL), (int)n);
    }
    assert_int_equal(count_malloc_total(), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_without_libsodium_everything_is_unsupported),
        cmocka_unit_test(test_round_trip_is_exact_at_every_size),
        cmocka_unit_test(test_any_flipped_bit_refuses_to_open),
        cmocka_unit_test(test_another_key_refuses_to_open),
        cmocka_unit_test(test_the_other_direction_refuses_to_open_even_under_one_key),
        cmocka_unit_test(test_a_sequence_recovered_wrongly_refuses_to_open),
        cmocka_unit_test(test_the_nonce_differs_for_every_sequence_and_direction),
        cmocka_unit_test(test_one_body_sealed_twice_never_looks_the_same),
        cmocka_unit_test(test_refusals_leave_the_buffer_alone),
        cmocka_unit_test(test_keys_are_all_zero_after_wiping),
        cmocka_unit_test(test_keys_are_equal_only_when_every_byte_is),
        cmocka_unit_test(test_sealing_and_opening_allocate_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
