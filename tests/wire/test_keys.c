/* SPDX-License-Identifier: MIT */
/*
 * test_keys.c — per-ordered-pair keys from a match key: both ends of a
 * link derive matching halves; A->B differs from B->A, from A->C and from
 * the same pair in another session or under another match key; a datagram
 * A seals for B is refused by C, and A cannot make one C opens as B's;
 * identities of player machines and spectators never collide.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tempo/base.h"
#include "wire/keys.h"
#include "wire/packet.h"

#define SESSION 77u

static uint8_t match_key[KEYS_MATCH_KEY_SIZE];

static int setup(void **state)
{
    (void)state;
    for (int i = 0; i < KEYS_MATCH_KEY_SIZE; i++)
        match_key[i] = (uint8_t)(0x40 + i);
    return 0;
}

/* Skip without libsodium; otherwise fill the match key (the Windows cmocka
 * subset runs no group setup, so each test calls it). */
#define NEED_SODIUM()                     \
    do {                                  \
        if (!seal_available())            \
            skip();                       \
        assert_int_equal(setup(NULL), 0); \
    } while (0)

static size_t plain(uint8_t *buf, uint64_t seq)
{
    tempo_packet_header h = {SESSION, (uint16_t)seq, 3, false, false};
    packet_write(&h, buf, PACKET_HEADER_SIZE);
    memcpy(buf + PACKET_HEADER_SIZE, "inputs", 6);
    return PACKET_HEADER_SIZE + 6;
}

static void test_without_libsodium_derivation_is_unsupported(void **state)
{
    (void)state;
    if (seal_available())
        skip();
    assert_int_equal(setup(NULL), 0);
    uint8_t out[SEAL_KEY_SIZE];
    memset(out, 0x77, sizeof out);
    assert_int_equal(keys_derive(match_key, SESSION, 0, 1, out), TEMPO_E_UNSUPPORTED);
    static const uint8_t zero[SEAL_KEY_SIZE];
    assert_memory_equal(out, zero, sizeof out);
    wire_keys k;
    assert_int_equal(keys_derive_link(match_key, SESSION, 0, 1, &k), TEMPO_E_UNSUPPORTED);
    assert_false(k.ready);
}

static void test_both_ends_of_a_link_derive_matching_halves(void **state)
{
    (void)state;
    NEED_SODIUM();
    wire_keys ab, ba;
    assert_int_equal(keys_derive_link(match_key, SESSION, 0, 3, &ab), TEMPO_OK);
    assert_int_equal(keys_derive_link(match_key, SESSION, 3, 0, &ba), TEMPO_OK);
    assert_memory_equal(ab.send_key, ba.recv_key, SEAL_KEY_SIZE);
    assert_memory_equal(ab.recv_key, ba.send_key, SEAL_KEY_SIZE);
    assert_int_equal(ab.send_direction, SEAL_DIRECTION_LOW);
    assert_int_equal(ba.send_direction, SEAL_DIRECTION_HIGH);

    uint8_t buf[64];
    size_t n = plain(buf, 12);
    int sealed = seal_datagram(&ab, 12, buf, n, sizeof buf);
    assert_int_equal(seal_open(&ba, 12, buf, (size_t)sealed, NULL), (int)n);
    assert_memory_equal(buf + PACKET_HEADER_SIZE, "inputs", 6);
    n = plain(buf, 40000);
    sealed = seal_datagram(&ba, 40000, buf, n, sizeof buf);
    assert_int_equal(seal_open(&ab, 40000, buf, (size_t)sealed, NULL), (int)n);
}

static void test_every_ordered_pair_gets_its_own_key(void **state)
{
    (void)state;
    NEED_SODIUM();
    /* 8 player machines and 4 spectators: all 132 ordered pairs distinct */
    enum { N = 12 };
    static uint8_t key[N][N][SEAL_KEY_SIZE];
    uint32_t id[N];
    for (int i = 0; i < N; i++)
        id[i] = i < 8 ? keys_identity_of_players(1u << i) : keys_identity_of_spectator((uint32_t)(i - 8));
    for (int f = 0; f < N; f++)
        for (int t = 0; t < N; t++)
            if (f != t)
                assert_int_equal(keys_derive(match_key, SESSION, id[f], id[t], key[f][t]), TEMPO_OK);
    for (int i = 0; i < N * N; i++)
        for (int j = 0; j < i; j++) {
            int f1 = i / N, t1 = i % N, f2 = j / N, t2 = j % N;
            if (f1 == t1 || f2 == t2)
                continue;
            if (memcmp(key[f1][t1], key[f2][t2], SEAL_KEY_SIZE) == 0)
                fail_msg("key(%d,%d) == key(%d,%d)", f1, t1, f2, t2);
        }

    uint8_t again[SEAL_KEY_SIZE], other[SEAL_KEY_SIZE];
    assert_int_equal(keys_derive(match_key, SESSION, 0, 1, again), TEMPO_OK);
    assert_memory_equal(again, key[0][1], SEAL_KEY_SIZE); /* deterministic */
    assert_int_equal(keys_derive(match_key, SESSION + 1, 0, 1, other), TEMPO_OK);
    assert_true(memcmp(other, again, SEAL_KEY_SIZE) != 0); /* another session */
    uint8_t mk2[KEYS_MATCH_KEY_SIZE];
    memcpy(mk2, match_key, sizeof mk2);
    mk2[0] ^= 0x80;
    assert_int_equal(keys_derive(mk2, SESSION, 0, 1, other), TEMPO_OK);
    assert_true(memcmp(other, again, SEAL_KEY_SIZE) != 0); /* another match key */
}

static void test_a_datagram_for_b_is_refused_by_c(void **state)
{
    (void)state;
    NEED_SODIUM();
    wire_keys a_to_b, b_from_a, c_from_a, c_from_b;
    assert_int_equal(keys_derive_link(match_key, SESSION, 0, 1, &a_to_b), TEMPO_OK);
    assert_int_equal(keys_derive_link(match_key, SESSION, 1, 0, &b_from_a), TEMPO_OK);
    assert_int_equal(keys_derive_link(match_key, SESSION, 2, 0, &c_from_a), TEMPO_OK);
    assert_int_equal(keys_derive_link(match_key, SESSION, 2, 1, &c_from_b), TEMPO_OK);

    uint8_t buf[64], copy[64];
    size_t n = plain(buf, 5);
    int sealed = seal_datagram(&a_to_b, 5, buf, n, sizeof buf);
    memcpy(copy, buf, sizeof buf);
    tempo_drop_reason why;
    /* C opening it on its link with A, or as if from B: refused */
    assert_int_equal(seal_open(&c_from_a, 5, buf, (size_t)sealed, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_FORGED);
    memcpy(buf, copy, sizeof buf);
    assert_int_equal(seal_open(&c_from_b, 5, buf, (size_t)sealed, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_FORGED);
    memcpy(buf, copy, sizeof buf);
    assert_int_equal(seal_open(&b_from_a, 5, buf, (size_t)sealed, NULL), (int)n);

    /* A holds every key it derives; none of them opens at C as B's */
    wire_keys a_links[3];
    assert_int_equal(keys_derive_link(match_key, SESSION, 0, 1, &a_links[0]), TEMPO_OK);
    assert_int_equal(keys_derive_link(match_key, SESSION, 0, 2, &a_links[1]), TEMPO_OK);
    assert_int_equal(keys_derive_link(match_key, SESSION, 0, 3, &a_links[2]), TEMPO_OK);
    for (int i = 0; i < 3; i++) {
        for (int half = 0; half < 2; half++) {
            wire_keys forged;
            const uint8_t *k = half ? a_links[i].recv_key : a_links[i].send_key;
            assert_int_equal(seal_keys_set(&forged, k, k, c_from_b.recv_direction), TEMPO_OK);
            n = plain(buf, 9);
            sealed = seal_datagram(&forged, 9, buf, n, sizeof buf);
            assert_int_equal(seal_open(&c_from_b, 9, buf, (size_t)sealed, &why), TEMPO_E_MALFORMED);
        }
    }
}

static void test_identities_never_collide(void **state)
{
    (void)state;
    /* a player machine is its lowest player; spectators start above all */
    assert_int_equal(keys_identity_of_players(0x01), 0);
    assert_int_equal(keys_identity_of_players(0x0C), 2);
    assert_int_equal(keys_identity_of_players(0x80), 7);
    assert_int_equal(keys_identity_of_spectator(0), TEMPO_MAX_PLAYERS);
    assert_int_equal(keys_identity_of_spectator(63), TEMPO_MAX_PLAYERS + 63);
    assert_true(keys_identity_of_players(0) > KEYS_MAX_IDENTITY);
    /* every split of 8 players over machines gives distinct identities:
     * disjoint masks have distinct lowest bits */
    for (uint32_t m1 = 1; m1 < 256; m1++)
        for (uint32_t m2 = 1; m2 < 256; m2++)
            if ((m1 & m2) == 0)
                assert_int_not_equal(keys_identity_of_players(m1), keys_identity_of_players(m2));
}

static void test_bad_arguments_are_refused_and_leave_nothing(void **state)
{
    (void)state;
    NEED_SODIUM();
    uint8_t out[SEAL_KEY_SIZE];
    assert_int_equal(keys_derive(match_key, SESSION, 4, 4, out), TEMPO_E_INVALID_ARG);
    assert_int_equal(keys_derive(NULL, SESSION, 0, 1, out), TEMPO_E_INVALID_ARG);
    assert_int_equal(keys_derive(match_key, SESSION, 0, 1, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(keys_derive(match_key, SESSION, 0, KEYS_MAX_IDENTITY + 1, out),
                     TEMPO_E_INVALID_ARG);
    assert_int_equal(keys_derive(match_key, SESSION, keys_identity_of_players(0), 1, out),
                     TEMPO_E_INVALID_ARG);
    wire_keys k;
    memset(&k, 0x33, sizeof k);
    assert_int_equal(keys_derive_link(match_key, SESSION, 2, 2, &k), TEMPO_E_INVALID_ARG);
    static const wire_keys zero;
    assert_memory_equal(&k, &zero, sizeof k);
    assert_int_equal(keys_derive_link(match_key, SESSION, 0, 1, NULL), TEMPO_E_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_without_libsodium_derivation_is_unsupported),
        cmocka_unit_test(test_both_ends_of_a_link_derive_matching_halves),
        cmocka_unit_test(test_every_ordered_pair_gets_its_own_key),
        cmocka_unit_test(test_a_datagram_for_b_is_refused_by_c),
        cmocka_unit_test(test_identities_never_collide),
        cmocka_unit_test(test_bad_arguments_are_refused_and_leave_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
