/* SPDX-License-Identifier: MIT */
/*
 * flips.c — the flipped-bit coding of one input against the previous one
 * (flips.h).
 */
#include "wire/flips.h"

int flips_popcount(uint32_t v)
{
    int n = 0;
    for (; v != 0; v &= v - 1)
        n++;
    return n;
}

flips_cost flips_measure(const uint8_t *prev, const uint8_t *cur, int is, int group, int posw)
{
    flips_cost c = {0, 0, 0, 0};
    for (int b = 0; b < is; b++) {
        c.flips += flips_popcount((uint32_t)(prev[b] ^ cur[b]));
        c.bytes += prev[b] != cur[b];
    }
    if (c.flips > 0)
        c.sparse = tempo_bitpack_uvarint_bits((uint32_t)c.flips - 1, group) + c.flips * posw;
    c.dense = is + 8 * c.bytes;
    return c;
}

void flips_put_sparse(tempo_bitwriter *w, const uint8_t *prev, const uint8_t *cur, int is, int group,
                      int posw)
{
    int flips = 0;
    for (int b = 0; b < is; b++)
        flips += flips_popcount((uint32_t)(prev[b] ^ cur[b]));
    tempo_bitwriter_uvarint(w, (uint32_t)flips - 1, group);
    for (int b = 0; b < is; b++)
        for (uint32_t x = (uint32_t)(prev[b] ^ cur[b]); x != 0; x &= x - 1)
            tempo_bitwriter_bits(w, (uint32_t)(b * 8 + flips_popcount((x & (0u - x)) - 1)), posw);
}

void flips_put_dense(tempo_bitwriter *w, const uint8_t *prev, const uint8_t *cur, int is)
{
    for (int b = 0; b < is; b++) {
        uint32_t x = (uint32_t)(prev[b] ^ cur[b]);
        if (x != 0)
            tempo_bitwriter_bits(w, 1u | (x << 1), 9);
        else
            tempo_bitwriter_bits(w, 0, 1);
    }
}

static uint32_t get_bits(tempo_bitreader *r, int n)
{
    uint32_t v;
    tempo_bitreader_bits(r, n, &v);
    return v;
}

bool flips_get_sparse(tempo_bitreader *r, uint8_t *cur, int is, int group, int posw)
{
    uint32_t n1;
    if (!tempo_bitreader_uvarint(r, group, &n1))
        return false;
    if (n1 >= (uint32_t)is * 8)
        return tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
    for (uint32_t k = 0, last = 0; k <= n1; k++) {
        uint32_t pos = get_bits(r, posw);
        /* strictly ascending, so no flip cancels another */
        if (r->error != TEMPO_BITREAD_OK || pos >= (uint32_t)is * 8 || (k > 0 && pos <= last))
            return tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
        cur[pos >> 3] ^= (uint8_t)(1u << (pos & 7u));
        last = pos;
    }
    return true;
}

bool flips_get_dense(tempo_bitreader *r, uint8_t *cur, int is)
{
    bool any = false;
    for (int b = 0; b < is && r->error == TEMPO_BITREAD_OK; b++) {
        if (get_bits(r, 1) == 0)
            continue;
        uint32_t x = get_bits(r, 8);
        if (r->error == TEMPO_BITREAD_OK && x == 0)
            return tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
        cur[b] ^= (uint8_t)x;
        any = true;
    }
    if (r->error != TEMPO_BITREAD_OK)
        return false;
    return any ? true : tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
}
