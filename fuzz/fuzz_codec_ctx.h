/* SPDX-License-Identifier: MIT */
/*
 * fuzz_codec_ctx.h — the receiver contexts fuzz_codec decodes under, shared
 * with the seed-corpus generator (tests/test_codec.c --write-corpus) so that
 * the seeds are valid packets for the fuzzer.
 *
 * The reference callback returns deterministic bytes for any (player, frame)
 * and "unknown" for one frame in 13, so the NO_REFERENCE path is fuzzed too.
 */
#ifndef TEMPO_FUZZ_CODEC_CTX_H
#define TEMPO_FUZZ_CODEC_CTX_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/codec.h"

#define FUZZ_CODEC_CTX_COUNT 3

/* True when fuzz_reference knows the input at `frame`. */
static inline bool fuzz_reference_known(int32_t frame) { return (uint32_t)frame % 13u != 5u; }

/* reference_ctx is the tempo_codec_ctx itself (for input_size). */
static inline bool fuzz_reference(void *ctx, int player, int32_t frame, uint8_t *out)
{
    const tempo_codec_ctx *c = (const tempo_codec_ctx *)ctx;
    if (!fuzz_reference_known(frame))
        return false;
    for (int i = 0; i < c->input_size; i++)
        out[i] = (uint8_t)((uint32_t)player * 0x9Du + (uint32_t)frame * 0x3Bu + (uint32_t)i * 0x11u);
    return true;
}

/* Context i (0..FUZZ_CODEC_CTX_COUNT-1): a common 2-player match, the
 * smallest input with the most players near the 16-bit wrap, and the
 * largest input with frames in the millions. */
static inline void fuzz_codec_ctx(int i, tempo_codec_ctx *ctx)
{
    static const int sizes[FUZZ_CODEC_CTX_COUNT] = {4, 1, TEMPO_MAX_INPUT_SIZE};
    static const int players[FUZZ_CODEC_CTX_COUNT] = {2, TEMPO_MAX_PLAYERS, 3};
    static const int32_t hints[FUZZ_CODEC_CTX_COUNT] = {1000, 65530, 3000000};
    ctx->input_size = sizes[i];
    ctx->num_players = players[i];
    ctx->frame_hint = hints[i];
    ctx->reference = fuzz_reference;
    ctx->reference_ctx = ctx;
}

#endif /* TEMPO_FUZZ_CODEC_CTX_H */
