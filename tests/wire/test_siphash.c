/* SPDX-License-Identifier: MIT */
/*
 * test_siphash.c — SipHash-2-4 gives the reference outputs (key 00..0f,
 * message 00..n-1: the paper's test vectors, which libsodium's
 * crypto_shorthash_siphash24 also gives), and every key or message bit
 * matters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "wire/siphash.h"

static uint8_t key[SIPHASH_KEY_SIZE], msg[64];

static void fill(void)
{
    for (int i = 0; i < SIPHASH_KEY_SIZE; i++)
        key[i] = (uint8_t)i;
    for (int i = 0; i < 64; i++)
        msg[i] = (uint8_t)i;
}

static void test_reference_vectors(void **state)
{
    (void)state;
    fill();
    static const struct {
        size_t n;
        uint64_t out;
    } v[] = {
        {0, 0x726fdb47dd0e0e31ull},  {7, 0xab0200f58b01d137ull},  {8, 0x93f5f5799a932462ull},
        {15, 0xa129ca6149be45e5ull}, {63, 0x958a324ceb064572ull},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        assert_true(siphash24(key, v[i].n == 0 ? NULL : msg, v[i].n) == v[i].out);
}

static void test_every_key_and_message_bit_changes_the_output(void **state)
{
    (void)state;
    fill();
    uint64_t base = siphash24(key, msg, 20);
    for (int bit = 0; bit < SIPHASH_KEY_SIZE * 8; bit++) {
        key[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        assert_true(siphash24(key, msg, 20) != base);
        key[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    for (int bit = 0; bit < 20 * 8; bit++) {
        msg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        assert_true(siphash24(key, msg, 20) != base);
        msg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    /* the length is hashed: a trailing zero byte is not the same message */
    msg[20] = 0;
    assert_true(siphash24(key, msg, 21) != base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_vectors),
        cmocka_unit_test(test_every_key_and_message_bit_changes_the_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
