/* SPDX-License-Identifier: MIT */
/*
 * sim_cs_pong.c — tempo's Pong (examples/pong) as a game of a client-server
 * match: 2 to 8 paddles, one per client, each played by Pong's own bot from
 * the state its client presents (what a player would be looking at).
 * Corrections are measured in pixels: the largest jump of a paddle or of
 * the ball. Built only with pong_core (tools/tempo-sim/CMakeLists.txt).
 */
#include <stdlib.h>
#include <string.h>

#include "pong.h"
#include "sim_cs.h"

typedef struct pong_bot {
    uint64_t seed;
} pong_bot;

_Static_assert(sizeof(pong_bot) <= SIM_CS_BOT_BYTES, "a bot fits its room");

static bool cs_pong_init(void *state, int players, uint64_t seed)
{
    return pong_init(state, players, seed) == TEMPO_OK;
}

static void cs_pong_step(void *state, const uint8_t *inputs, const uint8_t *status, int players)
{
    (void)players; /* the state knows its paddles */
    pong_step(state, inputs, status);
}

static void cs_pong_bot_init(void *bot, uint64_t seed, int player)
{
    pong_bot *b = bot;
    (void)player;
    b->seed = seed;
}

static void cs_pong_bot_next(void *bot, const void *state, int player, uint8_t *input)
{
    const pong_bot *b = bot;
    input[0] = pong_bot_input(state, player, b->seed);
}

static double cs_pong_player_distance(const void *a, const void *b, int player)
{
    return (double)pong_paddle_jump(a, b, player) / PONG_UNIT;
}

/* The largest jump of the ball or of a paddle but skip's (|dx| + |dy|), in
 * pixels. */
static double cs_pong_correction(const void *predicted, const void *corrected, int players, int skip)
{
    const pong_state *a = predicted, *b = corrected;
    double worst = (double)(labs((long)a->ball.x - b->ball.x) + labs((long)a->ball.y - b->ball.y)) / PONG_UNIT;
    for (int p = 0; p < players && p < PONG_MAX_PLAYERS; p++) {
        if (p == skip)
            continue;
        double d = cs_pong_player_distance(a, b, p);
        worst = d > worst ? d : worst;
    }
    return worst;
}

const sim_cs_game sim_cs_pong = {
    .name = "pong",
    .min_players = PONG_MIN_PLAYERS,
    .max_players = PONG_MAX_PLAYERS,
    .input_size = PONG_INPUT_SIZE,
    .state_size = sizeof(pong_state),
    .correction_unit = "px",
    .init = cs_pong_init,
    .step = cs_pong_step,
    .bot_init = cs_pong_bot_init,
    .bot_next = cs_pong_bot_next,
    .correction = cs_pong_correction,
    .player_distance = cs_pong_player_distance,
};
