/* SPDX-License-Identifier: MIT */
/*
 * rng.h — deterministic random numbers for game simulations.
 *
 * The state is a small struct that belongs inside the game state, so it is
 * saved, loaded and checksummed with everything else and a rollback replays
 * the same numbers. PCG32 (XSH-RR output of a 64-bit LCG, M. E. O'Neill,
 * "PCG: A Family of Simple Fast Space-Efficient Statistically Good Algorithms
 * for Random Number Generation", 2014). Same seed, same sequence, on every
 * platform.
 */
#ifndef TEMPO_RNG_H
#define TEMPO_RNG_H

#include <stdint.h>

#include "tempo/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tempo_rng {
    uint64_t state;
    uint64_t inc; /* stream selector, always odd */
} tempo_rng;

/* Seed r. Different streams with the same seed give unrelated sequences. */
TEMPO_API void tempo_rng_seed(tempo_rng *r, uint64_t seed, uint64_t stream);
/* Next 32 uniformly distributed bits. */
TEMPO_API uint32_t tempo_rng_next(tempo_rng *r);
/* Uniform integer in [0, bound), without modulo bias; 0 if bound is 0. */
TEMPO_API uint32_t tempo_rng_below(tempo_rng *r, uint32_t bound);
/* Uniform integer in [lo, hi] (inclusive); lo if hi < lo. */
TEMPO_API int32_t tempo_rng_range(tempo_rng *r, int32_t lo, int32_t hi);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_RNG_H */
