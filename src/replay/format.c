/* SPDX-License-Identifier: MIT */
/*
 * format.c — what the replay writer and reader share (format.h): the magic,
 * the settings' ranges and their hash, check frames and state marks, the
 * trailer chain, and the coding of one frame.
 *
 * A frame is coded against the frame before it, like the wire's INPUT
 * (docs/PROTOCOL.md, "Input deltas"), with one difference: a replay names
 * the players that changed, since most frames change no player at all and
 * those are counted in runs instead of costing a bit per player.
 */
#include "replay/format.h"

#include <string.h>

#include "wire/flips.h"

/* PNG's idea: a high byte catches 7-bit transfers, CR LF and LF catch
 * line-ending conversion, ^Z stops a DOS `type`. */
const uint8_t replay__magic[RP_MAGIC_SIZE] = {0x89, 'T', 'R', 'P', 0x0d, 0x0a, 0x1a, 0x0a};

uint64_t replay__chain(uint64_t chain, uint64_t chunk_sum)
{
    uint8_t b[16];
    rp_put64(b, chain);
    rp_put64(b + 8, chunk_sum);
    return tempo_checksum(b, sizeof b);
}

bool replay__is_check_frame(const tempo_replay_settings *s, int32_t frame)
{
    return s->desync_interval > 0 && frame > s->start_frame && frame % s->desync_interval == 0;
}

bool replay__is_state_mark(const tempo_replay_settings *s, int32_t frame)
{
    return s->state_interval > 0 &&
           (frame == s->start_frame || (frame > s->start_frame && frame % s->state_interval == 0));
}

bool replay__settings_valid(const tempo_replay_settings *s)
{
    if (s->num_players < 1 || s->num_players > TEMPO_MAX_PLAYERS || s->input_size < 1 ||
        s->input_size > TEMPO_MAX_INPUT_SIZE || s->frames_per_second < 1 ||
        s->frames_per_second > 1000 || s->start_frame < 0 || s->start_frame > (1 << 30) ||
        s->desync_interval < 0 || s->desync_interval > TEMPO_REPLAY_MAX_INTERVAL ||
        s->state_interval < 0 || s->state_interval > TEMPO_REPLAY_MAX_INTERVAL ||
        s->settings_size > TEMPO_REPLAY_MAX_SETTINGS ||
        (s->settings == NULL && s->settings_size != 0))
        return false;
    if (s->state_interval == 0)
        return s->max_state_size == 0;
    return s->max_state_size >= 1 && s->max_state_size <= TEMPO_REPLAY_MAX_STATE;
}

uint64_t tempo_replay_config_hash(const tempo_replay_settings *s)
{
    if (s == NULL || (s->settings == NULL && s->settings_size != 0))
        return 0;
    /* The fields that decide what the inputs simulate (REPLAY.md, "config hash"). */
    uint8_t b[20];
    b[0] = (uint8_t)s->num_players;
    b[1] = (uint8_t)s->input_size;
    rp_put16(b + 2, (uint32_t)s->frames_per_second);
    rp_put32(b + 4, (uint32_t)s->start_frame);
    rp_put32(b + 8, (uint32_t)s->desync_interval);
    rp_put64(b + 12, tempo_checksum(s->settings, s->settings_size));
    return tempo_checksum(b, sizeof b);
}

bool replay__frame_equal(const uint8_t *a_in, const uint8_t *a_st, const uint8_t *b_in,
                         const uint8_t *b_st, int np, int is)
{
    return memcmp(a_in, b_in, (size_t)np * (size_t)is) == 0 && memcmp(a_st, b_st, (size_t)np) == 0;
}

/* Bits of the two delta forms of cur against prev (they differ), as the
 * wire counts them: the sparse list of flipped bits, and the changed bytes. */
static flips_cost delta_costs(const uint8_t *prev, const uint8_t *cur, int is)
{
    return flips_measure(prev, cur, is, RP_VARINT_FLIPS,
                         tempo_bitpack_bits_required((uint32_t)(8 * is - 1)));
}

static void put_delta(tempo_bitwriter *w, const uint8_t *prev, const uint8_t *cur, int is)
{
    flips_cost c = delta_costs(prev, cur, is);
    if (c.sparse < c.dense) {
        tempo_bitwriter_bits(w, 0, 1);
        flips_put_sparse(w, prev, cur, is, RP_VARINT_FLIPS,
                         tempo_bitpack_bits_required((uint32_t)(8 * is - 1)));
        return;
    }
    tempo_bitwriter_bits(w, 1, 1);
    flips_put_dense(w, prev, cur, is);
}

void replay__put_frame(tempo_bitwriter *w, const uint8_t *prev_in, const uint8_t *prev_st,
                       const uint8_t *in, const uint8_t *st, int np, int is)
{
    uint32_t mask = 0;
    for (int p = 0; p < np; p++) {
        size_t o = (size_t)p * (size_t)is;
        if (prev_st[p] != st[p] || memcmp(prev_in + o, in + o, (size_t)is) != 0)
            mask |= 1u << p;
    }
    TEMPO_ASSERT(mask != 0);
    tempo_bitwriter_bits(w, mask, np);
    for (int p = 0; p < np; p++) {
        if (!(mask & (1u << p)))
            continue;
        size_t o = (size_t)p * (size_t)is;
        bool changed = memcmp(prev_in + o, in + o, (size_t)is) != 0;
        tempo_bitwriter_bits(w, prev_st[p] != st[p], 1);
        tempo_bitwriter_bits(w, changed, 1);
        if (changed)
            put_delta(w, prev_in + o, in + o, is);
    }
}

static uint32_t get_bits(tempo_bitreader *r, int n)
{
    uint32_t v;
    tempo_bitreader_bits(r, n, &v);
    return v;
}

/* Inverse of put_delta, refusing every spelling put_delta would not write. */
static bool get_delta(tempo_bitreader *r, uint8_t *cur, int is)
{
    uint8_t prev[TEMPO_MAX_INPUT_SIZE];
    memcpy(prev, cur, (size_t)is);
    bool dense_form = get_bits(r, 1) != 0;
    bool ok = dense_form ? flips_get_dense(r, cur, is)
                         : flips_get_sparse(r, cur, is, RP_VARINT_FLIPS,
                                            tempo_bitpack_bits_required((uint32_t)(8 * is - 1)));
    if (!ok || r->error != TEMPO_BITREAD_OK)
        return false;
    flips_cost c = delta_costs(prev, cur, is);
    if ((c.sparse < c.dense) == dense_form)
        return tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE); /* the longer form */
    return true;
}

bool replay__get_frame(tempo_bitreader *r, uint8_t *in, uint8_t *st, int np, int is)
{
    uint32_t mask = get_bits(r, np);
    if (r->error != TEMPO_BITREAD_OK)
        return false;
    if (mask == 0)
        return tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
    for (int p = 0; p < np; p++) {
        if (!(mask & (1u << p)))
            continue;
        uint8_t *pin = in + (size_t)p * (size_t)is;
        uint32_t toggle = get_bits(r, 1), changed = get_bits(r, 1);
        if (r->error != TEMPO_BITREAD_OK)
            return false;
        if (!toggle && !changed)
            return tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
        if (toggle)
            st[p] = st[p] == TEMPO_INPUT_DISCONNECTED ? TEMPO_INPUT_CONFIRMED
                                                      : TEMPO_INPUT_DISCONNECTED;
        if (changed && !get_delta(r, pin, is))
            return false;
    }
    /* A DISCONNECTED player's input is zero, as the game got it. */
    for (int p = 0; p < np; p++) {
        if (st[p] != TEMPO_INPUT_DISCONNECTED)
            continue;
        for (int b = 0; b < is; b++)
            if (in[(size_t)p * (size_t)is + (size_t)b] != 0)
                return tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
    }
    return true;
}

size_t replay__chunk_max_bits(int np, int is, int frames)
{
    /* Per frame: a run length before it, the mask, and per player two flag
     * bits plus the dense delta (never longer than the sparse one chosen). */
    size_t run = (size_t)tempo_bitpack_uvarint_bits((uint32_t)frames, RP_VARINT_RUN);
    size_t frame = run + (size_t)np + (size_t)np * (2 + 1 + 9 * (size_t)is);
    return (size_t)frames * frame + run;
}
