/* SPDX-License-Identifier: MIT */
/*
 * bot.c — arena input as a person makes it: two independent timelines of
 * randomly timed segments, one for the stick and one for the buttons.
 *
 * Invariant: the bot's state changes only in arena_bot_next and only by its
 * own rng, so the k-th output is fixed by (seed, player, k). Every segment
 * lasts at least one frame, and the output changes only when a segment ends,
 * which keeps the change rate near one change per ten frames.
 *
 * Button timeline: a calm spell (no buttons), then a burst, then calm again.
 * A burst is one to three taps of a fire direction (a few frames each, short
 * gaps between), a long hold (the game repeats fire), or a charge: hold the
 * charge button until the meter is full, then tap a direction with it held.
 * Stick timeline: rest, one of the eight directions at full tilt (what most
 * people do with a stick), any angle part way, or a small correction of the
 * current heading.
 */
#include "bot.h"

#include <string.h>

#if defined(__GNUC__)
#pragma GCC poison float double /* integer-only, like the game */
#endif

#define BOT_RNG_STREAM 0x626f74u /* "bot" */

/* Button phases. */
#define PHASE_CALM 0
#define PHASE_TAP 1
#define PHASE_GAP 2
#define PHASE_HOLD 3
#define PHASE_CHARGING 4
#define PHASE_CHARGE_FIRE 5

/* A random integer in [lo, hi] as a segment length or a byte. */
static int draw(arena_bot *b, int lo, int hi) { return tempo_rng_range(&b->rng, lo, hi); }

static int chance(arena_bot *b, int percent) { return draw(b, 0, 99) < percent; }

void arena_bot_init(arena_bot *b, uint64_t seed, int player)
{
    memset(b, 0, sizeof *b);
    tempo_rng_seed(&b->rng, seed, ((uint64_t)(uint32_t)player << 24) ^ BOT_RNG_STREAM);
    b->hold_min = (uint8_t)draw(b, 6, 14);
    b->hold_span = (uint8_t)draw(b, 20, 40);
    b->rest_pct = (uint8_t)draw(b, 10, 30);
    b->calm_min = (uint8_t)draw(b, 8, 20);
    b->calm_span = (uint8_t)draw(b, 30, 60);
    b->charge_pct = (uint8_t)draw(b, 10, 30);
    b->angle = (uint8_t)(draw(b, 0, 7) * 32);
    b->phase = PHASE_CALM;
    /* Bots seeded together do not all open fire on the same frame. */
    b->button_left = (uint16_t)draw(b, 1, b->calm_min + b->calm_span);
}

static void next_stick(arena_bot *b)
{
    b->stick_left = (uint16_t)(b->hold_min + draw(b, 0, b->hold_span - 1));
    int kind = draw(b, 0, 99);
    if (kind < b->rest_pct) {
        b->magnitude = 0; /* let go: the stick's last angle stays */
    } else if (kind < 75) {
        b->angle = (uint8_t)(draw(b, 0, 7) * 32);
        b->magnitude = 255;
    } else if (kind < 90 || b->magnitude == 0) {
        b->angle = (uint8_t)draw(b, 0, 255);
        b->magnitude = (uint8_t)draw(b, 140, 255);
    } else {
        int nudge = draw(b, 4, 16);
        b->angle = (uint8_t)(b->angle + (chance(b, 50) ? nudge : -nudge));
    }
}

static void fire(arena_bot *b, int phase, unsigned extra, int lo, int hi)
{
    b->phase = (uint8_t)phase;
    b->buttons = (uint8_t)(extra | (1u << b->dir));
    b->button_left = (uint16_t)draw(b, lo, hi);
}

static void next_buttons(arena_bot *b)
{
    switch (b->phase) {
    case PHASE_CALM:
        b->dir = (uint8_t)draw(b, 0, 3);
        if (chance(b, b->charge_pct)) {
            b->phase = PHASE_CHARGING;
            b->buttons = ARENA_CHARGE;
            b->button_left = (uint16_t)draw(b, ARENA_CHARGE_FULL, ARENA_CHARGE_FULL + 35);
        } else if (chance(b, 25)) {
            fire(b, PHASE_HOLD, 0, 20, 60);
        } else {
            b->taps_left = (uint8_t)draw(b, 0, 2);
            fire(b, PHASE_TAP, 0, 2, 8);
        }
        return;
    case PHASE_CHARGING:
        fire(b, PHASE_CHARGE_FIRE, ARENA_CHARGE, 3, 8);
        return;
    case PHASE_TAP:
        if (b->taps_left > 0) {
            b->taps_left--;
            b->phase = PHASE_GAP;
            b->buttons = 0;
            b->button_left = (uint16_t)draw(b, 3, 10);
            return;
        }
        break;
    case PHASE_GAP:
        if (chance(b, 30))
            b->dir = (uint8_t)draw(b, 0, 3);
        fire(b, PHASE_TAP, 0, 2, 8);
        return;
    default: /* the end of a hold or a charged shot */
        break;
    }
    b->phase = PHASE_CALM;
    b->buttons = 0;
    b->button_left = (uint16_t)(b->calm_min + draw(b, 0, b->calm_span - 1));
}

void arena_bot_next(arena_bot *b, uint8_t out[ARENA_INPUT_SIZE])
{
    if (b->stick_left == 0)
        next_stick(b);
    if (b->button_left == 0)
        next_buttons(b);
    b->stick_left--;
    b->button_left--;
    arena_input in = {b->angle, b->magnitude, b->buttons, 0};
    arena_input_pack(&in, out);
}
