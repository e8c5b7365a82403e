/* SPDX-License-Identifier: MIT */
/*
 * toy.h — a tiny deterministic "game" and a request driver for engine tests.
 *
 * The toy state is a hash chain over every (frame, inputs, status) it was
 * stepped with, so any difference in what the game was told changes it. The
 * driver carries out a tick's requests like a game would, and checks the
 * request contract as it goes: a LOAD names a slot saved with that frame,
 * ADVANCE frames follow the current state, resimulation flags are right.
 * It also records, per frame, the inputs and statuses last used, and
 * counts saves and loads with the state each load restored.
 */
#ifndef TEMPO_TESTS_TOY_H
#define TEMPO_TESTS_TOY_H

#include <stdint.h>
#include <string.h>

#include "tempo/tempo.h"

#define TOY_MAX_FRAMES 4096
#define TOY_MAX_SLOTS (TEMPO_MAX_PREDICTION + 2)

typedef struct toy_state {
    uint64_t hash;
    int32_t frame;
} toy_state;

static inline uint64_t toy_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 33);
}

static inline void toy_step(toy_state *s, const uint8_t *inputs, const uint8_t *status,
                            int players, int input_size)
{
    uint64_t h = toy_mix(s->hash, (uint64_t)s->frame);
    for (int i = 0; i < players * input_size; i++)
        h = toy_mix(h, inputs[i]);
    /* Only DISCONNECTED may change a simulation: a correct guess is never
     * resimulated, so CONFIRMED and PREDICTED must play the same. */
    for (int p = 0; p < players; p++)
        h = toy_mix(h, status[p] == TEMPO_INPUT_DISCONNECTED);
    s->hash = h;
    s->frame++;
}

typedef struct toy_driver {
    int players, input_size;
    toy_state cur;
    toy_state saves[TOY_MAX_SLOTS];
    int32_t saved_frame[TOY_MAX_SLOTS];
    /* per frame: inputs and status last used, and whether ever advanced */
    uint8_t used[TOY_MAX_FRAMES][TEMPO_MAX_PLAYERS * 8];
    uint8_t used_status[TOY_MAX_FRAMES][TEMPO_MAX_PLAYERS];
    uint64_t hash_after[TOY_MAX_FRAMES]; /* state hash after the latest ADVANCE of each frame */
    int advanced_max;      /* one past the highest frame advanced */
    uint64_t saves_done, loads_done; /* SAVE and LOAD requests carried out */
    /* per frame: the state hash a LOAD of it restored (load_seen), and
     * loads of one frame that restored different states */
    uint64_t loaded_hash[TOY_MAX_FRAMES];
    uint8_t load_seen[TOY_MAX_FRAMES];
    int loads_differing;
    int errors;            /* contract violations seen */
    int resim_frames;
    int64_t nondeterministic_from; /* >= 0: steps from this frame mix in a counter */
    uint64_t side_counter;
} toy_driver;

static inline void toy_driver_init(toy_driver *d, int players, int input_size)
{
    memset(d, 0, sizeof *d);
    d->players = players;
    d->input_size = input_size;
    d->nondeterministic_from = -1;
    for (int i = 0; i < TOY_MAX_SLOTS; i++)
        d->saved_frame[i] = -1;
}

/* Carry out one request; returns 0, or -1 on a contract violation. */
static inline int toy_driver_do(toy_driver *d, const tempo_request *r)
{
    switch (r->kind) {
    case TEMPO_REQUEST_SAVE:
        if (r->slot < 0 || r->slot >= TOY_MAX_SLOTS || r->frame != d->cur.frame)
            return d->errors++, -1;
        d->saves[r->slot] = d->cur;
        d->saved_frame[r->slot] = r->frame;
        *r->checksum = d->cur.hash;
        d->saves_done++;
        return 0;
    case TEMPO_REQUEST_LOAD:
        if (r->slot < 0 || r->slot >= TOY_MAX_SLOTS || d->saved_frame[r->slot] != r->frame)
            return d->errors++, -1;
        d->cur = d->saves[r->slot];
        d->loads_done++;
        if (r->frame >= 0 && r->frame < TOY_MAX_FRAMES) {
            if (d->load_seen[r->frame] && d->loaded_hash[r->frame] != d->cur.hash)
                d->loads_differing++;
            d->loaded_hash[r->frame] = d->cur.hash;
            d->load_seen[r->frame] = 1;
        }
        return 0;
    case TEMPO_REQUEST_ADVANCE: {
        if (r->frame != d->cur.frame || r->frame >= TOY_MAX_FRAMES)
            return d->errors++, -1;
        bool should_resim = r->frame < d->advanced_max;
        if (r->resimulating != should_resim)
            return d->errors++, -1;
        int n = d->players * d->input_size;
        memcpy(d->used[r->frame], r->inputs, (size_t)n);
        memcpy(d->used_status[r->frame], r->status, (size_t)d->players);
        toy_step(&d->cur, r->inputs, r->status, d->players, d->input_size);
        if (d->nondeterministic_from >= 0 && r->frame >= d->nondeterministic_from)
            d->cur.hash = toy_mix(d->cur.hash, d->side_counter++);
        d->hash_after[r->frame] = d->cur.hash;
        if (r->resimulating)
            d->resim_frames++;
        if (r->frame + 1 > d->advanced_max)
            d->advanced_max = r->frame + 1;
        return 0;
    }
    }
    return d->errors++, -1;
}

/* Carry out every request of the current tick through tempo_session_next. */
static inline int toy_driver_run(toy_driver *d, tempo_session *s)
{
    const tempo_request *r;
    int n = 0;
    while (tempo_session_next(s, &r) > 0) {
        toy_driver_do(d, r);
        n++;
    }
    return n;
}

/* A player's "true" input at a frame, like a person: held for a while, then
 * changed. Deterministic in (seed, player, frame). */
static inline void toy_true_input(uint64_t seed, int player, int32_t frame, uint8_t *out, int size)
{
    uint64_t base = toy_mix(seed, (uint64_t)player * 7919u + 1u);
    /* A frame starts a new held input with probability 1/6: walk back to the
     * latest start (expected 6 steps) and derive the input from it. */
    int32_t start = frame;
    while (start > 0 && toy_mix(base, (uint64_t)start) % 6 != 0)
        start--;
    uint64_t h = toy_mix(base ^ 0x5bd1e995u, (uint64_t)start);
    for (int i = 0; i < size; i++)
        out[i] = (uint8_t)(toy_mix(h, (uint64_t)i) >> 24);
}

#endif /* TEMPO_TESTS_TOY_H */
