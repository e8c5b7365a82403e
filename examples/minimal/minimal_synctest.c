/* SPDX-License-Identifier: MIT */
/*
 * minimal_synctest.c — the smallest complete tempo program: a tiny game run
 * through a synctest session.
 *
 * A synctest session plays every player locally. Each tick it runs one new
 * frame, then rolls back CHECK_DISTANCE frames, plays them again with the
 * same inputs and compares the checksums of the states: a game that gives
 * different bytes the second time would desync online. Run this before
 * going online, and after every change to the simulation.
 *
 *   minimal_synctest          plays 600 frames, exits 0 when every check passed
 *   minimal_synctest --bug    adds a classic determinism bug, shows how synctest
 *                             reports it, exits 1
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tempo/tempo.h"

#define PLAYERS 2
#define FRAMES 600         /* 10 s of play at 60 frames a second */
#define CHECK_DISTANCE 7   /* frames rolled back each tick, 1..max_prediction */

/* ---- the game: everything it knows is in one struct ---------------------- */

enum { LEFT = 1, RIGHT = 2 }; /* one byte of input: the buttons held */

/* tempo copies these bytes to save, copies them back to roll back, and
 * checksums them: no pointers, no floats, and no padding (padding bytes are
 * never written by the game, yet they are checksummed). */
typedef struct game {
    tempo_rng rng;                       /* random numbers are game state too */
    int32_t x[PLAYERS];                  /* position, in 1/256 of a pixel */
    uint32_t score[PLAYERS];             /* coins picked up */
    int32_t coin_x;                      /* where the coin is */
    uint32_t frame;                      /* frames simulated */
} game;
_Static_assert(sizeof(game) == sizeof(tempo_rng) + 4 * (2 * PLAYERS + 2), "game has padding");

static void game_init(game *g, uint64_t seed)
{
    memset(g, 0, sizeof *g); /* every byte known, padding or not */
    tempo_rng_seed(&g->rng, seed, 1);
    for (int p = 0; p < PLAYERS; p++)
        g->x[p] = (40 + 80 * p) * 256;
    g->coin_x = 80 * 256;
}

/* One frame: a function of the state and the inputs, nothing else. */
static void game_step(game *g, const uint8_t *inputs)
{
    for (int p = 0; p < PLAYERS; p++) {
        uint8_t held = inputs[p]; /* player p's byte: input_size is 1 */
        if (held & LEFT && g->x[p] > 0)
            g->x[p] -= 3 * 256;
        if (held & RIGHT && g->x[p] < 160 * 256)
            g->x[p] += 3 * 256;
        int32_t dx = g->x[p] - g->coin_x;
        if (dx > -8 * 256 && dx < 8 * 256) { /* touched the coin */
            g->score[p]++;
            g->coin_x = tempo_rng_range(&g->rng, 0, 160) * 256;
        }
    }
    g->frame++;
}

/* --bug: the classic mistake, state kept outside the game struct. A rollback
 * does not restore this counter, so a frame played again plays differently. */
static uint32_t steps_ever;

/* ---- the program -------------------------------------------------------- */

int main(int argc, char **argv)
{
    bool bug = argc > 1 && strcmp(argv[1], "--bug") == 0;
    static game g; /* arena mode: tempo saves, loads and checksums this block */
    game_init(&g, 42);

    tempo_config cfg;
    tempo_config_default(&cfg); /* then change only what differs */
    cfg.num_players = PLAYERS;
    cfg.input_size = 1;
    cfg.arena = &g;
    cfg.arena_size = sizeof g;
    tempo_session *s;
    tempo_result rc = tempo_session_create_synctest(&cfg, CHECK_DISTANCE, &s);
    if (rc != TEMPO_OK) {
        fprintf(stderr, "minimal_synctest: %s\n", tempo_strerror(rc));
        return 1;
    }

    tempo_rng pads; /* stands in for two gamepads: not game state */
    tempo_rng_seed(&pads, 7, 2);
    uint8_t held[PLAYERS] = {0};
    for (int tick = 0; tick < FRAMES; tick++) {
        for (int p = 0; p < PLAYERS; p++) { /* synctest: every player is local */
            if (tempo_rng_below(&pads, 4) == 0) /* a new button now and then */
                held[p] = (uint8_t)tempo_rng_below(&pads, 4);
            tempo_session_add_local_input(s, p, &held[p], sizeof held[p]);
        }
        tempo_tick t;
        if (tempo_session_advance(s, &t) == TEMPO_E_DESYNC)
            break; /* the last tick's replay differed: the report says where */
        const tempo_request *r;
        while (tempo_session_next(s, &r) > 0) { /* arena mode: only ADVANCE */
            game_step(&g, r->inputs);
            if (bug && ++steps_ever % 50 == 0)
                g.score[0]++;
        }
    }

    tempo_synctest_report rep;
    tempo_session_synctest_report(s, &rep);
    printf("synctest: frame %" PRId32 ", score %" PRIu32 ":%" PRIu32 ", %" PRIu64
           " checks, %" PRIu64 " mismatches\n",
           tempo_session_frame(s), g.score[0], g.score[1], rep.checks, rep.mismatches);
    if (rep.mismatches)
        printf("synctest: first mismatch at frame %" PRId32 ": checksum %016" PRIx64
               " when first played, %016" PRIx64 " when played again\n",
               rep.first_mismatch_frame, rep.first_checksum, rep.resim_checksum);
    tempo_session_destroy(s);
    return rep.mismatches ? 1 : 0;
}
