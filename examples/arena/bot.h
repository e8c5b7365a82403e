/* SPDX-License-Identifier: MIT */
/*
 * bot.h — seeded input streams for arena that change the way a person's do.
 *
 * A person holds the stick in one direction for a while, taps or holds a fire
 * button, sometimes charges, sometimes rests: the input stays the same on
 * most frames and changes every few to few dozen frames. The bot imitates
 * that with two timelines (stick, buttons) of randomly timed segments.
 *
 * The bot never looks at the game: its output is a function of its seed, its
 * player number and how many times it has been asked. So a match's input
 * streams are the same however the network delayed or predicted them, and
 * two machines replaying the same seeds feed the same inputs.
 */
#ifndef ARENA_BOT_H
#define ARENA_BOT_H

#include <stdint.h>

#include "arena.h"
#include "tempo/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One bot; plain data, copy it to fork the stream. Fields are internal. */
typedef struct arena_bot {
    tempo_rng rng;
    uint16_t stick_left;    /* frames until the stick moves again */
    uint16_t button_left;   /* frames until the buttons change again */
    uint8_t angle, magnitude, buttons;
    uint8_t phase;          /* what the buttons are doing (bot.c) */
    uint8_t dir;            /* fire direction of the current burst */
    uint8_t taps_left;      /* more taps to come in this burst */
    /* Personality, drawn from the seed: how it holds the stick and how it
     * likes to shoot. */
    uint8_t hold_min, hold_span;   /* stick segment length: min + [0, span) frames */
    uint8_t rest_pct;              /* percent of stick segments at rest */
    uint8_t calm_min, calm_span;   /* frames between bursts of fire */
    uint8_t charge_pct;            /* percent of bursts that are charged shots */
} arena_bot;

/* Start a bot for `player` (players with the same seed still differ). b must
 * not be NULL; player is any int. */
void arena_bot_init(arena_bot *b, uint64_t seed, int player);

/* The input for the next frame, in wire form (see arena.h). One call per
 * sampled frame; the k-th call's output depends only on seed, player and k. */
void arena_bot_next(arena_bot *b, uint8_t out[ARENA_INPUT_SIZE]);

#ifdef __cplusplus
}
#endif

#endif /* ARENA_BOT_H */
