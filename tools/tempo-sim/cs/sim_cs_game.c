/* SPDX-License-Identifier: MIT */
/*
 * sim_cs_game.c — the games a client-server match runs, and the built-in
 * one: walkers.
 *
 * Walkers is the smallest game that still shows what prediction and
 * reconciliation do, for any number of players up to 64 (Pong has 2..8
 * paddles): every player walks a 1000 x 1000 field, 4 units a tick in the
 * directions its input byte holds (bit 0 up, 1 down, 2 left, 3 right),
 * stopping at the edges. Integers only, so every machine steps it alike.
 * Its bots walk one way for 10..39 ticks, then pick another of the nine
 * moves (standing still is one), so an input changes every 0.4 s or so.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_cs.h"

#define WALKERS_MAX 64
#define WALKERS_FIELD 1000
#define WALKERS_SPEED 4

typedef struct walkers_state {
    int32_t x[WALKERS_MAX], y[WALKERS_MAX];
    uint32_t ticks;
    uint32_t players;
} walkers_state;

typedef struct walkers_bot {
    uint64_t rng;
    uint8_t move;
    int hold;
} walkers_bot;

_Static_assert(sizeof(walkers_bot) <= SIM_CS_BOT_BYTES, "a bot fits its room");

static uint64_t walkers_draw(uint64_t *s) { return sim_next64(s); }

static bool walkers_init(void *state, int players, uint64_t seed)
{
    walkers_state *w = state;
    if (players < 1 || players > WALKERS_MAX)
        return false;
    memset(w, 0, sizeof *w);
    uint64_t s = seed;
    for (int p = 0; p < players; p++) {
        w->x[p] = (int32_t)(100 + walkers_draw(&s) % 800);
        w->y[p] = (int32_t)(100 + walkers_draw(&s) % 800);
    }
    w->players = (uint32_t)players;
    return true;
}

static int32_t walkers_clamp(int32_t v)
{
    return v < 0 ? 0 : v > WALKERS_FIELD ? WALKERS_FIELD : v;
}

static void walkers_step(void *state, const uint8_t *inputs, const uint8_t *status, int players)
{
    walkers_state *w = state;
    (void)status; /* a predicted input is played like any other; a missing player's is zeros */
    for (int p = 0; p < players && p < WALKERS_MAX; p++) {
        uint8_t in = inputs[p];
        int32_t dy = ((in & 2) ? 1 : 0) - ((in & 1) ? 1 : 0);
        int32_t dx = ((in & 8) ? 1 : 0) - ((in & 4) ? 1 : 0);
        w->x[p] = walkers_clamp(w->x[p] + dx * WALKERS_SPEED);
        w->y[p] = walkers_clamp(w->y[p] + dy * WALKERS_SPEED);
    }
    w->ticks++;
}

static void walkers_bot_init(void *bot, uint64_t seed, int player)
{
    walkers_bot *b = bot;
    memset(b, 0, sizeof *b);
    b->rng = seed * 0x100000001B3ULL + (uint64_t)player * 7919u + 1u;
}

static void walkers_bot_next(void *bot, const void *state, int player, uint8_t *input)
{
    static const uint8_t moves[9] = {0, 1, 2, 4, 8, 1 | 4, 1 | 8, 2 | 4, 2 | 8};
    walkers_bot *b = bot;
    (void)state;
    (void)player;
    if (b->hold <= 0) {
        b->move = moves[walkers_draw(&b->rng) % 9];
        b->hold = 10 + (int)(walkers_draw(&b->rng) % 30);
    }
    b->hold--;
    input[0] = b->move;
}

/* The largest distance, in field units (|dx| + |dy|), a walker but skip's
 * was moved. */
static double walkers_correction(const void *predicted, const void *corrected, int players, int skip)
{
    const walkers_state *a = predicted, *b = corrected;
    double worst = 0.0;
    for (int p = 0; p < players && p < WALKERS_MAX; p++) {
        if (p == skip)
            continue;
        double d = abs(a->x[p] - b->x[p]) + abs(a->y[p] - b->y[p]);
        worst = d > worst ? d : worst;
    }
    return worst;
}

static double walkers_player_distance(const void *a, const void *b, int player)
{
    const walkers_state *x = a, *y = b;
    if (player < 0 || player >= WALKERS_MAX)
        return 0.0;
    return abs(x->x[player] - y->x[player]) + abs(x->y[player] - y->y[player]);
}

const sim_cs_game sim_cs_walkers = {
    .name = "walkers",
    .min_players = 1,
    .max_players = WALKERS_MAX,
    .input_size = 1,
    .state_size = sizeof(walkers_state),
    .correction_unit = "units",
    .init = walkers_init,
    .step = walkers_step,
    .bot_init = walkers_bot_init,
    .bot_next = walkers_bot_next,
    .correction = walkers_correction,
    .player_distance = walkers_player_distance,
};

const sim_cs_game *sim_cs_game_pick(const sim_options *o, char *why, size_t size)
{
    const sim_cs_game *g = &sim_cs_walkers;
    sim_cs_game_id id = o->game;
#ifdef SIM_HAVE_PONG
    if (id == SIM_CS_GAME_AUTO)
        id = o->clients >= sim_cs_pong.min_players && o->clients <= sim_cs_pong.max_players ? SIM_CS_GAME_PONG
                                                                                           : SIM_CS_GAME_WALKERS;
    if (id == SIM_CS_GAME_PONG)
        g = &sim_cs_pong;
#else
    if (id == SIM_CS_GAME_PONG) {
        snprintf(why, size, "--game pong: this tempo-sim was built without Pong");
        return NULL;
    }
#endif
    if (o->clients < g->min_players || o->clients > g->max_players) {
        snprintf(why, size, "--clients %d: %s has %d..%d players", o->clients, g->name, g->min_players,
                 g->max_players);
        return NULL;
    }
    if ((size_t)g->input_size + SIM_CS_SEQ_BYTES > TEMPO_MAX_INPUT_SIZE) {
        snprintf(why, size, "%s's input is too large", g->name);
        return NULL;
    }
    return g;
}
