/* SPDX-License-Identifier: MIT */
/*
 * test_cipher.c — the choice of AEAD for a link's datagrams: what an end
 * offers for each setting, with and without AES on the CPU; the rule two
 * offers agree by (AES-256-GCM when both have it, else ChaCha20-Poly1305,
 * else nothing), symmetric over every pair of offers; AES-256-GCM round
 * trips at every size, refuses any flipped bit and a datagram sealed with
 * the other cipher; the handshake's types stay ChaCha20-Poly1305 under
 * AES keys; keys expanded once and wiped, carried by a copy.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tempo/base.h"
#include "wire/codec.h"
#include "wire/packet.h"
#include "wire/seal.h"
#include "wire/turn_msg.h"

#define SESSION 0x01020304u

static const uint8_t KEY_A[SEAL_KEY_SIZE] = {
    0x10, 0x21, 0x32, 0x43, 0x54, 0x65, 0x76, 0x87, 0x98, 0xa9, 0xba, 0xcb, 0xdc, 0xed, 0xfe, 0x0f,
    0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0, 0x01};
static const uint8_t KEY_B[SEAL_KEY_SIZE] = {
    0xf1, 0xe2, 0xd3, 0xc4, 0xb5, 0xa6, 0x97, 0x88, 0x79, 0x6a, 0x5b, 0x4c, 0x3d, 0x2e, 0x1f, 0x00,
    0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x60, 0x71, 0x82, 0x93, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8, 0xf9};

/* Skip where there is no AES-256-GCM to test (no libsodium, no AES-NI). */
#define NEED_AES()                       \
    do {                                 \
        seal_test_hide_aes(false);       \
        if (!seal_aes_available())       \
            skip();                      \
    } while (0)

/* The two ends of a link, both with `cipher`. */
static void link_keys(wire_keys *lo, wire_keys *hi, uint8_t cipher)
{
    assert_int_equal(seal_keys_set(lo, KEY_A, KEY_B, SEAL_DIRECTION_LOW), TEMPO_OK);
    assert_int_equal(seal_keys_set(hi, KEY_B, KEY_A, SEAL_DIRECTION_HIGH), TEMPO_OK);
    assert_int_equal(seal_keys_use(lo, cipher), TEMPO_OK);
    assert_int_equal(seal_keys_use(hi, cipher), TEMPO_OK);
}

static size_t plain(uint8_t *buf, uint64_t seq, uint8_t type, bool fragment, size_t body)
{
    tempo_packet_header h = {SESSION, (uint16_t)seq, type, fragment, false};
    assert_int_equal(packet_write(&h, buf, PACKET_HEADER_SIZE), PACKET_HEADER_SIZE);
    for (size_t i = 0; i < body; i++)
        buf[PACKET_HEADER_SIZE + i] = (uint8_t)(i * 13 + 5);
    return PACKET_HEADER_SIZE + body;
}

static void test_the_rule_over_every_pair_of_offers(void **state)
{
    (void)state;
    const uint8_t CH = SEAL_CIPHER_CHACHA20, AES = SEAL_CIPHER_AES256GCM;
    for (uint8_t a = 0; a < 8; a++)
        for (uint8_t b = 0; b < 8; b++) {
            uint8_t c = seal_choose(a, b);
            assert_int_equal(c, seal_choose(b, a));
            uint8_t both = (uint8_t)(a & b & SEAL_CIPHERS_ALL);
            if (both & AES)
                assert_int_equal(c, AES);
            else if (both & CH)
                assert_int_equal(c, CH);
            else
                assert_int_equal(c, 0);
        }
    assert_int_equal(seal_choose(CH | AES, CH | AES), AES);
    assert_int_equal(seal_choose(CH | AES, CH), CH); /* a page without AES */
    assert_int_equal(seal_choose(AES, CH), 0);        /* forced apart: no cipher */
    assert_int_equal(seal_choose(4, 4), 0);           /* an unknown bit is no cipher */
}

static void test_offers_follow_the_setting_and_the_cpu(void **state)
{
    (void)state;
    seal_test_hide_aes(true);
    assert_false(seal_aes_available());
    assert_false(tempo_cipher_aes_available());
    assert_int_equal(seal_offer(TEMPO_CIPHER_AUTO), SEAL_CIPHER_CHACHA20);
    assert_int_equal(seal_offer(TEMPO_CIPHER_CHACHA20), SEAL_CIPHER_CHACHA20);
    assert_int_equal(seal_offer(TEMPO_CIPHER_AES256GCM), 0);
    assert_int_equal(seal_cipher_check(TEMPO_CIPHER_AES256GCM), TEMPO_E_UNSUPPORTED);
    assert_int_equal(seal_cipher_check(TEMPO_CIPHER_AUTO), TEMPO_OK);
    assert_int_equal(seal_cipher_check(TEMPO_CIPHER_CHACHA20), TEMPO_OK);
    assert_int_equal(seal_cipher_check(3), TEMPO_E_INVALID_ARG);
    assert_int_equal(seal_cipher_check(-1), TEMPO_E_INVALID_ARG);
    assert_int_equal(seal_offer(3), 0);
    seal_test_hide_aes(false);
    if (!seal_aes_available())
        return; /* a machine without AES: the rest is what it just checked */
    assert_true(tempo_cipher_aes_available());
    assert_int_equal(seal_offer(TEMPO_CIPHER_AUTO), SEAL_CIPHERS_ALL);
    assert_int_equal(seal_offer(TEMPO_CIPHER_CHACHA20), SEAL_CIPHER_CHACHA20);
    assert_int_equal(seal_offer(TEMPO_CIPHER_AES256GCM), SEAL_CIPHER_AES256GCM);
    assert_int_equal(seal_cipher_check(TEMPO_CIPHER_AES256GCM), TEMPO_OK);
}

static void test_aes_round_trips_at_every_size(void **state)
{
    (void)state;
    NEED_AES();
    wire_keys lo, hi;
    link_keys(&lo, &hi, SEAL_CIPHER_AES256GCM);
    uint8_t buf[TEMPO_MAX_DATAGRAM], orig[TEMPO_MAX_DATAGRAM];
    for (size_t body = 0; body <= PACKET_MAX_SEALED_BODY; body += body < 64 ? 1 : 37) {
        uint64_t seq = 0x1234500000ull + body;
        size_t n = plain(buf, seq, 3, false, body);
        memcpy(orig, buf, n);
        int s = seal_datagram(&lo, seq, buf, n, sizeof buf);
        assert_int_equal(s, (int)(n + SEAL_TAG_SIZE));
        if (body >= 4) /* encrypted: the body is not the plain one */
            assert_memory_not_equal(buf + PACKET_HEADER_SIZE, orig + PACKET_HEADER_SIZE, body);
        tempo_drop_reason why;
        assert_int_equal(seal_open(&hi, seq, buf, (size_t)s, &why), (int)n);
        assert_int_equal(why, TEMPO_DROP_NONE);
        assert_memory_equal(buf + 1, orig + 1, n - 1);
        /* the other way too */
        n = plain(buf, seq, 3, false, body);
        s = seal_datagram(&hi, seq, buf, n, sizeof buf);
        assert_int_equal(seal_open(&lo, seq, buf, (size_t)s, NULL), (int)n);
    }
    seal_keys_wipe(&lo);
    seal_keys_wipe(&hi);
}

static void test_aes_refuses_any_flipped_bit(void **state)
{
    (void)state;
    NEED_AES();
    wire_keys lo, hi;
    link_keys(&lo, &hi, SEAL_CIPHER_AES256GCM);
    uint8_t sealed[64], buf[64];
    size_t n = plain(sealed, 77, 3, false, 13);
    int s = seal_datagram(&lo, 77, sealed, n, sizeof sealed);
    for (int bit = 0; bit < s * 8; bit++) {
        if (bit / 8 == 0 || bit / 8 == 5 || bit / 8 == 6)
            continue; /* the protocol byte and the sequence bits: caller errors, not forgeries */
        memcpy(buf, sealed, (size_t)s);
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        tempo_drop_reason why;
        assert_int_equal(seal_open(&hi, 77, buf, (size_t)s, &why), TEMPO_E_MALFORMED);
        assert_int_equal(why, TEMPO_DROP_FORGED);
    }
}

static void test_a_datagram_of_the_other_cipher_does_not_open(void **state)
{
    (void)state;
    NEED_AES();
    wire_keys lo_aes, hi_aes, lo_ch, hi_ch;
    link_keys(&lo_aes, &hi_aes, SEAL_CIPHER_AES256GCM);
    link_keys(&lo_ch, &hi_ch, SEAL_CIPHER_CHACHA20);
    uint8_t buf[64];
    tempo_drop_reason why;
    size_t n = plain(buf, 9, 3, false, 20);
    int s = seal_datagram(&lo_aes, 9, buf, n, sizeof buf);
    assert_int_equal(seal_open(&hi_ch, 9, buf, (size_t)s, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_FORGED);
    n = plain(buf, 10, 3, false, 20);
    s = seal_datagram(&lo_ch, 10, buf, n, sizeof buf);
    assert_int_equal(seal_open(&hi_aes, 10, buf, (size_t)s, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_FORGED);
    /* keys not yet agreed seal with ChaCha20-Poly1305 */
    wire_keys fresh;
    assert_int_equal(seal_keys_set(&fresh, KEY_A, KEY_B, SEAL_DIRECTION_LOW), TEMPO_OK);
    assert_int_equal(fresh.cipher, SEAL_CIPHER_CHACHA20);
    assert_false(fresh.agreed);
    n = plain(buf, 11, 3, false, 20);
    s = seal_datagram(&fresh, 11, buf, n, sizeof buf);
    assert_int_equal(seal_open(&hi_ch, 11, buf, (size_t)s, NULL), (int)n);
}

static void test_handshake_types_stay_chacha20_under_aes_keys(void **state)
{
    (void)state;
    NEED_AES();
    wire_keys lo_aes, hi_aes, lo_ch, hi_ch;
    link_keys(&lo_aes, &hi_aes, SEAL_CIPHER_AES256GCM);
    link_keys(&lo_ch, &hi_ch, SEAL_CIPHER_CHACHA20);
    const uint8_t fixed[] = {TEMPO_MSG_SYNC_REQUEST, TEMPO_MSG_SYNC_REPLY, TURN_MSG_HELLO,
                             TURN_MSG_HELLO_REPLY, TEMPO_MSG_REJOIN_REFUSED};
    for (size_t i = 0; i < sizeof fixed; i++) {
        assert_true(seal_type_fixed(fixed[i]));
        assert_true(seal_type_fixed((uint8_t)(fixed[i] | 0x80u)));
        uint8_t buf[64];
        size_t n = plain(buf, 40 + i, fixed[i], false, 12);
        /* an end that agreed AES and one that agreed nothing yet read it alike */
        int s = seal_datagram(&lo_aes, 40 + i, buf, n, sizeof buf);
        assert_int_equal(seal_open(&hi_ch, 40 + i, buf, (size_t)s, NULL), (int)n);
        n = plain(buf, 50 + i, fixed[i], false, 12);
        s = seal_datagram(&hi_ch, 50 + i, buf, n, sizeof buf);
        assert_int_equal(seal_open(&lo_aes, 50 + i, buf, (size_t)s, NULL), (int)n);
    }
    for (int t = 1; t <= PACKET_MAX_TYPE; t++) {
        bool is = t == TEMPO_MSG_SYNC_REQUEST || t == TEMPO_MSG_SYNC_REPLY ||
                  t == TURN_MSG_HELLO || t == TURN_MSG_HELLO_REPLY ||
                  t == TEMPO_MSG_REJOIN_REFUSED;
        assert_int_equal(seal_type_fixed((uint8_t)t), is);
    }
}

static void test_keys_use_checks_and_expands_once(void **state)
{
    (void)state;
    wire_keys k;
    memset(&k, 0, sizeof k);
    assert_int_equal(seal_keys_use(NULL, SEAL_CIPHER_CHACHA20), TEMPO_E_INVALID_ARG);
    assert_int_equal(seal_keys_use(&k, SEAL_CIPHER_CHACHA20), TEMPO_E_STATE);
    if (!seal_available())
        skip();
    assert_int_equal(seal_keys_set(&k, KEY_A, KEY_B, SEAL_DIRECTION_LOW), TEMPO_OK);
    assert_int_equal(seal_keys_use(&k, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(seal_keys_use(&k, SEAL_CIPHERS_ALL), TEMPO_E_INVALID_ARG);
    seal_test_hide_aes(true);
    assert_int_equal(seal_keys_use(&k, SEAL_CIPHER_AES256GCM), TEMPO_E_UNSUPPORTED);
    assert_int_equal(k.cipher, SEAL_CIPHER_CHACHA20); /* unchanged */
    assert_false(k.agreed);
    seal_test_hide_aes(false);
    if (!seal_aes_available())
        return;
    static const uint8_t zero[SEAL_AES_STATE_SIZE];
    assert_memory_equal(k.aes_send, zero, sizeof zero);
    assert_int_equal(seal_keys_use(&k, SEAL_CIPHER_AES256GCM), TEMPO_OK);
    assert_true(k.agreed);
    assert_int_equal((uintptr_t)k.aes_send % 16, 0);
    assert_memory_not_equal(k.aes_send, zero, sizeof zero);
    assert_memory_not_equal(k.aes_recv, zero, sizeof zero);
    /* a copy carries the expanded keys: it seals what the other end opens */
    wire_keys hi, copy;
    assert_int_equal(seal_keys_set(&hi, KEY_B, KEY_A, SEAL_DIRECTION_HIGH), TEMPO_OK);
    assert_int_equal(seal_keys_use(&hi, SEAL_CIPHER_AES256GCM), TEMPO_OK);
    copy = k;
    uint8_t buf[64];
    size_t n = plain(buf, 3, 3, false, 9);
    int s = seal_datagram(&copy, 3, buf, n, sizeof buf);
    assert_int_equal(seal_open(&hi, 3, buf, (size_t)s, NULL), (int)n);
    /* back to ChaCha20: the expanded keys are wiped */
    assert_int_equal(seal_keys_use(&copy, SEAL_CIPHER_CHACHA20), TEMPO_OK);
    assert_memory_equal(copy.aes_send, zero, sizeof zero);
    assert_memory_equal(copy.aes_recv, zero, sizeof zero);
    /* and wiping clears everything */
    seal_keys_wipe(&k);
    static const wire_keys none;
    assert_memory_equal(&k, &none, sizeof k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_rule_over_every_pair_of_offers),
        cmocka_unit_test(test_offers_follow_the_setting_and_the_cpu),
        cmocka_unit_test(test_aes_round_trips_at_every_size),
        cmocka_unit_test(test_aes_refuses_any_flipped_bit),
        cmocka_unit_test(test_a_datagram_of_the_other_cipher_does_not_open),
        cmocka_unit_test(test_handshake_types_stay_chacha20_under_aes_keys),
        cmocka_unit_test(test_keys_use_checks_and_expands_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
