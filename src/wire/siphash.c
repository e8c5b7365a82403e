/* SPDX-License-Identifier: MIT */
/*
 * siphash.c — SipHash-2-4 (siphash.h), written from the paper's
 * description: four 64-bit words of state from the key and the constants
 * "somepseudorandomlygeneratedbytes", two rounds per 8-byte word of the
 * message, the last word carrying the message length in its top byte,
 * 0xff folded in, four final rounds.
 */
#include "wire/siphash.h"

#include "wire/bytes.h"

static uint64_t rotl(uint64_t x, int b)
{
    return (x << b) | (x >> (64 - b));
}

typedef struct sip_state {
    uint64_t v0, v1, v2, v3;
} sip_state;

static void sip_round(sip_state *s)
{
    s->v0 += s->v1;
    s->v1 = rotl(s->v1, 13);
    s->v1 ^= s->v0;
    s->v0 = rotl(s->v0, 32);
    s->v2 += s->v3;
    s->v3 = rotl(s->v3, 16);
    s->v3 ^= s->v2;
    s->v0 += s->v3;
    s->v3 = rotl(s->v3, 21);
    s->v3 ^= s->v0;
    s->v2 += s->v1;
    s->v1 = rotl(s->v1, 17);
    s->v1 ^= s->v2;
    s->v2 = rotl(s->v2, 32);
}

static void sip_word(sip_state *s, uint64_t m)
{
    s->v3 ^= m;
    sip_round(s);
    sip_round(s);
    s->v0 ^= m;
}

uint64_t siphash24(const uint8_t key[SIPHASH_KEY_SIZE], const uint8_t *data, size_t size)
{
    uint64_t k0 = wire_get64(key), k1 = wire_get64(key + 8);
    sip_state s = {k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
                   k0 ^ 0x6c7967656e657261ull, k1 ^ 0x7465646279746573ull};
    size_t whole = size - size % 8;
    for (size_t i = 0; i < whole; i += 8)
        sip_word(&s, wire_get64(data + i));
    uint64_t last = (uint64_t)(size & 0xff) << 56;
    for (size_t i = 0; i < size % 8; i++)
        last |= (uint64_t)data[whole + i] << (8 * i);
    sip_word(&s, last);
    s.v2 ^= 0xff;
    for (int i = 0; i < 4; i++)
        sip_round(&s);
    return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
