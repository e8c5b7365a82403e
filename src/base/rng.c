/* SPDX-License-Identifier: MIT */
/*
 * rng.c — PCG32 (O'Neill 2014): a 64-bit LCG whose output is permuted by an
 * xorshift and a data-dependent rotation. Constants are the reference ones.
 */
#include "tempo/rng.h"

#define PCG_MULT 6364136223846793005ULL

void tempo_rng_seed(tempo_rng *r, uint64_t seed, uint64_t stream)
{
    r->state = 0;
    r->inc = (stream << 1u) | 1u;
    (void)tempo_rng_next(r);
    r->state += seed;
    (void)tempo_rng_next(r);
}

uint32_t tempo_rng_next(tempo_rng *r)
{
    uint64_t old = r->state;
    r->state = old * PCG_MULT + r->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

uint32_t tempo_rng_below(tempo_rng *r, uint32_t bound)
{
    if (bound == 0)
        return 0;
    /* Reject the low values that would make the modulo biased. */
    uint32_t threshold = (uint32_t)(-bound) % bound;
    for (;;) {
        uint32_t x = tempo_rng_next(r);
        if (x >= threshold)
            return x % bound;
    }
}

int32_t tempo_rng_range(tempo_rng *r, int32_t lo, int32_t hi)
{
    if (hi <= lo)
        return lo;
    uint32_t span = (uint32_t)((int64_t)hi - (int64_t)lo) + 1u;
    if (span == 0) /* the full 32-bit range */
        return (int32_t)tempo_rng_next(r);
    return (int32_t)((int64_t)lo + tempo_rng_below(r, span));
}
