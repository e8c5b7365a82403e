/* SPDX-License-Identifier: MIT */
/*
 * test_arena.c — the arena demo game's core and its bots: determinism, the
 * arena-mode contract (a memcpy'd state replays the same future), validity
 * under hostile input, the rules in crafted scenes, and bots whose input
 * changes as rarely as a person's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "bot.h"

#define N_SEEDS 6

/* ---- helpers ------------------------------------------------------------- */

typedef struct match {
    arena_state game;
    arena_bot bots[ARENA_MAX_PLAYERS];
    uint8_t inputs[ARENA_MAX_PLAYERS * ARENA_INPUT_SIZE];
} match;

static void match_start(match *m, int players, uint64_t seed)
{
    memset(m, 0, sizeof *m);
    assert_int_equal(arena_init(&m->game, players, seed), TEMPO_OK);
    for (int p = 0; p < players; p++)
        arena_bot_init(&m->bots[p], seed, p);
}

/* Ask every bot for the next frame's input and step the game with it. */
static void match_step(match *m, const uint8_t *status)
{
    for (uint32_t p = 0; p < m->game.num_players; p++)
        arena_bot_next(&m->bots[p], m->inputs + p * ARENA_INPUT_SIZE);
    assert_int_equal(arena_step(&m->game, m->inputs, status), TEMPO_OK);
}

/* Step with one input for player 0 and zero for everyone else. */
static void step_one(arena_state *s, uint8_t angle, uint8_t magnitude, uint8_t buttons)
{
    uint8_t in[ARENA_MAX_PLAYERS * ARENA_INPUT_SIZE] = {0};
    in[0] = angle;
    in[1] = magnitude;
    in[2] = buttons;
    assert_int_equal(arena_step(s, in, NULL), TEMPO_OK);
}

static void step_idle(arena_state *s, int frames)
{
    for (int i = 0; i < frames; i++)
        step_one(s, 0, 0, 0);
}

static int is_zero(const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

static int box_covers_tile(int32_t x, int32_t y, int tx, int ty)
{
    int32_t h = ARENA_SHIP_HALF;
    return x - h < (tx + 1) * ARENA_TILE && x + h > tx * ARENA_TILE &&
           y - h < (ty + 1) * ARENA_TILE && y + h > ty * ARENA_TILE;
}

/* Everything a valid state promises. `pillars` is the board at init: pillars
 * never change and are the only solid tiles. */
static void check_valid(const arena_state *s, int players, uint32_t frame,
                        const arena_state *pillars)
{
    assert_int_equal(s->num_players, players);
    assert_int_equal(s->frame, frame);
    for (int p = 0; p < ARENA_MAX_PLAYERS; p++) {
        const arena_ship *ship = &s->ships[p];
        if (p >= players) {
            assert_true(is_zero(ship, sizeof *ship));
            continue;
        }
        assert_int_equal(ship->team, p & 1);
        assert_true(ship->state == ARENA_SHIP_ALIVE || ship->state == ARENA_SHIP_DEAD ||
                    ship->state == ARENA_SHIP_GONE);
        assert_in_range(ship->ammo, 0, ARENA_AMMO_MAX);
        assert_in_range(ship->ammo_timer, 0, ARENA_AMMO_REGEN);
        assert_in_range(ship->charge, 0, ARENA_CHARGE_FULL);
        assert_in_range(ship->fire_cooldown, 0, ARENA_FIRE_REPEAT);
        assert_in_range(ship->timer, 0, ARENA_RESPAWN_FRAMES);
        assert_true(is_zero(ship->reserved, sizeof ship->reserved));
        if (ship->state != ARENA_SHIP_ALIVE)
            continue;
        assert_in_range(ship->x, ARENA_SHIP_HALF, ARENA_BOARD_W * ARENA_TILE - ARENA_SHIP_HALF);
        assert_in_range(ship->y, ARENA_SHIP_HALF, ARENA_BOARD_H * ARENA_TILE - ARENA_SHIP_HALF);
        for (int ty = 0; ty < ARENA_BOARD_H; ty++)
            for (int tx = 0; tx < ARENA_BOARD_W; tx++)
                if (box_covers_tile(ship->x, ship->y, tx, ty))
                    assert_int_not_equal(arena_tile(s, tx, ty), ARENA_TILE_SOLID);
    }
    for (int i = 0; i < ARENA_MAX_SHOTS; i++) {
        const arena_shot *shot = &s->shots[i];
        if (!shot->active) {
            assert_true(is_zero(shot, sizeof *shot));
            continue;
        }
        assert_int_equal(shot->active, 1);
        assert_in_range(shot->owner, 0, players - 1);
        assert_int_not_equal(s->ships[shot->owner].state, ARENA_SHIP_GONE);
        assert_in_range(shot->dir, 0, 3);
        assert_in_range(shot->charged, 0, 1);
        assert_int_not_equal(arena_tile(s, shot->x / ARENA_TILE, shot->y / ARENA_TILE),
                             ARENA_TILE_SOLID);
        assert_in_range(shot->x, 0, ARENA_BOARD_W * ARENA_TILE - 1);
        assert_in_range(shot->y, 0, ARENA_BOARD_H * ARENA_TILE - 1);
    }
    for (int ty = 0; ty < ARENA_BOARD_H; ty++)
        for (int tx = 0; tx < ARENA_BOARD_W; tx++) {
            int t = s->tiles[ty][tx];
            assert_in_range(t, 0, 2);
            assert_int_equal(t == ARENA_TILE_SOLID, pillars->tiles[ty][tx] == ARENA_TILE_SOLID);
        }
}

/* A crafted scene: the board all light (team 0's ground), no pillars, no
 * shields, ships parked on row 15, player 0 at (x0, 5). */
static void scene(arena_state *s, int players, int x0)
{
    assert_int_equal(arena_init(s, players, 7), TEMPO_OK);
    memset(s->tiles, ARENA_TILE_LIGHT, sizeof s->tiles);
    for (int p = 0; p < players; p++) {
        s->ships[p].x = (2 + 3 * p) * ARENA_TILE + ARENA_TILE / 2;
        s->ships[p].y = 15 * ARENA_TILE + ARENA_TILE / 2;
        s->ships[p].timer = 0;
    }
    s->ships[0].x = x0 * ARENA_TILE + ARENA_TILE / 2;
    s->ships[0].y = 5 * ARENA_TILE + ARENA_TILE / 2;
}

/* Row y from column x on becomes `kind`. */
static void paint_row(arena_state *s, int y, int x, int kind)
{
    for (; x < ARENA_BOARD_W; x++)
        s->tiles[y][x] = (uint8_t)kind;
}

static void put_ship(arena_state *s, int p, int tx, int ty)
{
    s->ships[p].x = tx * ARENA_TILE + ARENA_TILE / 2;
    s->ships[p].y = ty * ARENA_TILE + ARENA_TILE / 2;
}

static int active_shots(const arena_state *s)
{
    int n = 0;
    for (int i = 0; i < ARENA_MAX_SHOTS; i++)
        n += s->shots[i].active;
    return n;
}

/* ---- fixed-point table and input wire form -------------------------------- */

static void test_sin_table_matches_sine(void **state)
{
    (void)state;
    for (int a = 0; a < 256; a++) {
        double want = 16384.0 * sin(2.0 * 3.14159265358979323846 * a / 256.0);
        assert_int_equal(arena_sin_q14((uint8_t)a), (int32_t)lround(want));
        assert_int_equal(arena_cos_q14((uint8_t)a), arena_sin_q14((uint8_t)(a + 64)));
    }
}

static void test_input_pack_unpack_round_trip(void **state)
{
    (void)state;
    tempo_rng r;
    tempo_rng_seed(&r, 1, 2);
    for (int i = 0; i < 1000; i++) {
        uint8_t wire[ARENA_INPUT_SIZE], back[ARENA_INPUT_SIZE];
        uint32_t v = tempo_rng_next(&r);
        memcpy(wire, &v, sizeof wire);
        arena_input in;
        arena_input_unpack(wire, &in);
        assert_int_equal(in.angle, wire[0]);
        assert_int_equal(in.magnitude, wire[1]);
        assert_int_equal(in.buttons, wire[2]);
        assert_int_equal(in.reserved, wire[3]);
        arena_input_pack(&in, back);
        assert_memory_equal(back, wire, sizeof wire);
    }
}

/* ---- init ---------------------------------------------------------------- */

static void test_init_rejects_bad_arguments(void **state)
{
    (void)state;
    arena_state s, before;
    memset(&s, 0xAB, sizeof s);
    before = s;
    assert_int_equal(arena_init(NULL, 2, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(arena_init(&s, 0, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(arena_init(&s, -1, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(arena_init(&s, ARENA_MAX_PLAYERS + 1, 1), TEMPO_E_INVALID_ARG);
    assert_memory_equal(&s, &before, sizeof s);
    uint8_t in[ARENA_MAX_PLAYERS * ARENA_INPUT_SIZE] = {0};
    assert_int_equal(arena_step(NULL, in, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(arena_init(&s, 2, 1), TEMPO_OK);
    assert_int_equal(arena_step(&s, NULL, NULL), TEMPO_E_INVALID_ARG);
    s.num_players = 9;
    assert_int_equal(arena_step(&s, in, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(s.frame, 0);
}

/* Same seed, same bytes, whatever the memory held before; the board is a
 * point mirror with the colours swapped, so both teams get the same game. */
static void test_init_is_deterministic_and_fair(void **state)
{
    (void)state;
    int boards_differ = 0;
    arena_state first;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        arena_state a, b;
        memset(&a, 0x00, sizeof a);
        memset(&b, 0xFF, sizeof b);
        assert_int_equal(arena_init(&a, 8, seed), TEMPO_OK);
        assert_int_equal(arena_init(&b, 8, seed), TEMPO_OK);
        assert_memory_equal(&a, &b, sizeof a);
        check_valid(&a, 8, 0, &a);
        int solid = 0;
        for (int y = 0; y < ARENA_BOARD_H; y++)
            for (int x = 0; x < ARENA_BOARD_W; x++) {
                int t = a.tiles[y][x], m = a.tiles[ARENA_BOARD_H - 1 - y][ARENA_BOARD_W - 1 - x];
                if (t == ARENA_TILE_SOLID)
                    assert_int_equal(m, ARENA_TILE_SOLID);
                else
                    assert_int_equal(t, 1 - m);
                solid += t == ARENA_TILE_SOLID;
            }
        assert_true(solid > 0);
        for (int p = 0; p < 8; p++) {
            const arena_ship *ship = arena_player(&a, p);
            assert_non_null(ship);
            assert_int_equal(ship->state, ARENA_SHIP_ALIVE);
            assert_int_equal(arena_tile(&a, ship->x / ARENA_TILE, ship->y / ARENA_TILE),
                             ship->team);
        }
        assert_null(arena_player(&a, 8));
        assert_null(arena_player(&a, -1));
        if (seed == 1)
            first = a;
        else if (memcmp(first.tiles, a.tiles, sizeof a.tiles) != 0)
            boards_differ = 1;
    }
    assert_true(boards_differ);
}

/* A changed byte anywhere in the struct shows in the checksum: the whole
 * struct is game state, with no bytes the checksum skips. */
static void test_checksum_covers_every_byte(void **state)
{
    (void)state;
    arena_state s;
    assert_int_equal(arena_init(&s, 8, 3), TEMPO_OK);
    assert_int_equal(arena_checksum(&s), tempo_checksum(&s, sizeof s));
    uint64_t base = arena_checksum(&s);
    uint8_t *bytes = (uint8_t *)&s;
    for (size_t i = 0; i < sizeof s; i++) {
        bytes[i] ^= 0x01;
        assert_true(arena_checksum(&s) != base);
        bytes[i] ^= 0x01;
    }
    assert_true(arena_checksum(&s) == base);
}

/* ---- determinism and the arena-mode contract ------------------------------- */

static void test_same_inputs_give_same_checksum_every_frame(void **state)
{
    (void)state;
    static match a, b;
    for (int seed = 1; seed <= N_SEEDS; seed++) {
        int players = 1 + (seed * 3) % ARENA_MAX_PLAYERS;
        match_start(&a, players, (uint64_t)seed);
        match_start(&b, players, (uint64_t)seed);
        for (uint32_t f = 0; f < 2000; f++) {
            match_step(&a, NULL);
            match_step(&b, NULL);
            assert_true(arena_checksum(&a.game) == arena_checksum(&b.game));
        }
        assert_memory_equal(&a.game, &b.game, sizeof a.game);
    }
}

static void test_different_inputs_diverge(void **state)
{
    (void)state;
    arena_state a, b;
    assert_int_equal(arena_init(&a, 2, 5), TEMPO_OK);
    b = a;
    for (int f = 0; f < 10; f++) {
        step_idle(&a, 1);
        step_idle(&b, 1);
        assert_true(arena_checksum(&a) == arena_checksum(&b));
    }
    step_idle(&a, 1);
    step_one(&b, 0, 255, 0); /* one frame of stick */
    for (int f = 0; f < 100; f++) {
        assert_true(arena_checksum(&a) != arena_checksum(&b));
        step_idle(&a, 1);
        step_idle(&b, 1);
    }
    /* Bot matches with different seeds part ways too. */
    static match m1, m2;
    match_start(&m1, 4, 11);
    match_start(&m2, 4, 11);
    arena_bot_init(&m2.bots[3], 12, 3);
    int differ = 0;
    for (int f = 0; f < 600; f++) {
        match_step(&m1, NULL);
        match_step(&m2, NULL);
        differ += arena_checksum(&m1.game) != arena_checksum(&m2.game);
    }
    assert_true(differ > 500);
}

/* The arena-mode contract: tempo copies the struct with memcpy on SAVE and
 * back on LOAD; the restored state must replay the same future. */
static void test_memcpy_restore_replays_same_future(void **state)
{
    (void)state;
    static match m;
    static arena_state saved;
    static arena_bot saved_bots[ARENA_MAX_PLAYERS];
    static uint64_t sums[400];
    for (int seed = 1; seed <= N_SEEDS; seed++) {
        match_start(&m, 8, (uint64_t)seed * 101);
        for (int f = 0; f < 100 * seed; f++)
            match_step(&m, NULL);
        memcpy(&saved, &m.game, sizeof saved);
        memcpy(saved_bots, m.bots, sizeof saved_bots);
        for (int f = 0; f < 400; f++) {
            match_step(&m, NULL);
            sums[f] = arena_checksum(&m.game);
        }
        memset(&m.game, 0x5A, sizeof m.game); /* LOAD overwrites whatever is there */
        memcpy(&m.game, &saved, sizeof saved);
        memcpy(m.bots, saved_bots, sizeof saved_bots);
        for (int f = 0; f < 400; f++) {
            match_step(&m, NULL);
            assert_true(arena_checksum(&m.game) == sums[f]);
        }
    }
}

/* What the miniature rollback session below feeds for frame g when the other
 * players' inputs are known up to frame `known`: player 0 (local) is always
 * real; the others repeat their last known input, tempo's default guess. */
static void guess_inputs(uint8_t *dst, uint8_t (*real)[4 * ARENA_INPUT_SIZE], int g,
                         int known)
{
    memcpy(dst, real[g], 4 * ARENA_INPUT_SIZE);
    if (g <= known)
        return;
    if (known < 0)
        memset(dst + ARENA_INPUT_SIZE, 0, 3 * ARENA_INPUT_SIZE);
    else
        memcpy(dst + ARENA_INPUT_SIZE, real[known] + ARENA_INPUT_SIZE, 3 * ARENA_INPUT_SIZE);
}

/* A rollback session in miniature: players 1..3 are remote and their inputs
 * arrive RB_LAG frames late. Each tick, if the input that just arrived
 * differs from the guess used, the game loads the state saved for that frame
 * and resimulates to the present, as tempo asks in arena mode. The end state
 * equals a straight run with the real inputs. */
#define RB_FRAMES 1500
#define RB_LAG 7
static void test_rollback_resimulation_matches_straight_run(void **state)
{
    (void)state;
    enum { P = 4, IN = P * ARENA_INPUT_SIZE };
    static uint8_t real[RB_FRAMES][IN];
    static uint8_t used[RB_FRAMES][IN];
    static arena_state saves[RB_FRAMES];
    for (int seed = 1; seed <= 3; seed++) {
        arena_bot bots[P];
        for (int p = 0; p < P; p++)
            arena_bot_init(&bots[p], (uint64_t)seed, p);
        for (int f = 0; f < RB_FRAMES; f++)
            for (int p = 0; p < P; p++)
                arena_bot_next(&bots[p], real[f] + p * ARENA_INPUT_SIZE);

        arena_state straight, game;
        assert_int_equal(arena_init(&straight, P, (uint64_t)seed), TEMPO_OK);
        for (int f = 0; f < RB_FRAMES; f++)
            assert_int_equal(arena_step(&straight, real[f], NULL), TEMPO_OK);

        assert_int_equal(arena_init(&game, P, (uint64_t)seed), TEMPO_OK);
        int rollbacks = 0;
        for (int f = 0; f < RB_FRAMES; f++) {
            int known = f - RB_LAG;
            if (known >= 0 && memcmp(used[known], real[known], IN) != 0) {
                rollbacks++;
                memcpy(&game, &saves[known], sizeof game);
                for (int g = known; g < f; g++) {
                    guess_inputs(used[g], real, g, known);
                    memcpy(&saves[g], &game, sizeof game);
                    assert_int_equal(arena_step(&game, used[g], NULL), TEMPO_OK);
                }
            }
            guess_inputs(used[f], real, f, known);
            memcpy(&saves[f], &game, sizeof game);
            assert_int_equal(arena_step(&game, used[f], NULL), TEMPO_OK);
        }
        /* The last RB_LAG frames' inputs come in: one more correction. */
        memcpy(&game, &saves[RB_FRAMES - RB_LAG], sizeof game);
        for (int f = RB_FRAMES - RB_LAG; f < RB_FRAMES; f++)
            assert_int_equal(arena_step(&game, real[f], NULL), TEMPO_OK);
        assert_true(rollbacks > 10);
        assert_memory_equal(&game, &straight, sizeof game);
        printf("    seed %d: %d rollbacks of %d frames in %d frames\n", seed, rollbacks, RB_LAG,
               RB_FRAMES);
    }
}

/* Carry out a tick's requests: in arena mode only ADVANCE comes out. */
static int run_requests(tempo_session *session, arena_state *game)
{
    const tempo_request *r;
    int advanced = 0;
    while (tempo_session_next(session, &r) > 0) {
        assert_int_equal(r->kind, TEMPO_REQUEST_ADVANCE);
        assert_int_equal(r->frame, (int32_t)game->frame);
        assert_int_equal(arena_step(game, r->inputs, r->status), TEMPO_OK);
        advanced++;
    }
    return advanced;
}

/* tempo's synctest session in arena mode: every frame is rolled back and
 * resimulated, and tempo compares the checksums of the struct. */
static void test_tempo_synctest_in_arena_mode_finds_no_desync(void **state)
{
    (void)state;
    static match m;
    static arena_state straight;
    for (int distance = 1; distance <= 8; distance += 7) {
        match_start(&m, ARENA_MAX_PLAYERS, (uint64_t)distance);
        straight = m.game;
        tempo_config cfg;
        tempo_config_default(&cfg);
        cfg.num_players = ARENA_MAX_PLAYERS;
        cfg.input_size = ARENA_INPUT_SIZE;
        cfg.max_prediction = 8;
        cfg.arena = &m.game;
        cfg.arena_size = sizeof m.game;
        tempo_session *session;
        assert_int_equal(tempo_session_create_synctest(&cfg, distance, &session), TEMPO_OK);
        while (tempo_session_frame(session) < 1200) {
            for (int p = 0; p < ARENA_MAX_PLAYERS; p++) {
                arena_bot_next(&m.bots[p], m.inputs + p * ARENA_INPUT_SIZE);
                assert_int_equal(tempo_session_add_local_input(session, p,
                                                               m.inputs + p * ARENA_INPUT_SIZE,
                                                               ARENA_INPUT_SIZE),
                                 TEMPO_OK);
            }
            tempo_tick tick;
            assert_int_equal(tempo_session_advance(session, &tick), TEMPO_OK);
            assert_int_equal(run_requests(session, &m.game), 1 + tick.rollback_depth);
            assert_int_equal(arena_step(&straight, m.inputs, NULL), TEMPO_OK);
        }
        tempo_synctest_report report;
        assert_int_equal(tempo_session_synctest_report(session, &report), TEMPO_OK);
        assert_true(report.checks > 1000);
        assert_int_equal(report.mismatches, 0);
        assert_memory_equal(&m.game, &straight, sizeof straight);
        tempo_session_destroy(session);
    }
}

/* tempo's local rollback session in arena mode: players 1..3 are remote and
 * their inputs arrive 1..6 frames late, in any order. Once every input is in,
 * the game state equals a straight run with the real inputs. */
#define LS_FRAMES 1200
static void test_tempo_rollback_in_arena_mode_matches_straight_run(void **state)
{
    (void)state;
    enum { P = 4 };
    static uint8_t real[LS_FRAMES + 1][P * ARENA_INPUT_SIZE];
    static int arrival[P][LS_FRAMES + 1];
    for (int seed = 1; seed <= 3; seed++) {
        arena_bot bots[P];
        tempo_rng r;
        tempo_rng_seed(&r, (uint64_t)seed, 5);
        for (int p = 0; p < P; p++)
            arena_bot_init(&bots[p], (uint64_t)seed, p);
        for (int f = 0; f <= LS_FRAMES; f++)
            for (int p = 0; p < P; p++) {
                arena_bot_next(&bots[p], real[f] + p * ARENA_INPUT_SIZE);
                arrival[p][f] = f + tempo_rng_range(&r, 1, 6);
            }
        arena_state game, straight;
        assert_int_equal(arena_init(&game, P, (uint64_t)seed), TEMPO_OK);
        straight = game;
        for (int f = 0; f <= LS_FRAMES; f++)
            assert_int_equal(arena_step(&straight, real[f], NULL), TEMPO_OK);

        tempo_config cfg;
        tempo_config_default(&cfg);
        cfg.num_players = P;
        cfg.input_size = ARENA_INPUT_SIZE;
        cfg.max_prediction = 8;
        cfg.arena = &game;
        cfg.arena_size = sizeof game;
        tempo_session *session;
        assert_int_equal(tempo_session_create_local(&cfg, &session), TEMPO_OK);
        assert_int_equal(tempo_session_add_local_player(session, 0), TEMPO_OK);
        for (int p = 1; p < P; p++)
            assert_int_equal(tempo_session_add_remote_player(session, p, NULL), TEMPO_OK);
        for (int tick = 0; tempo_session_frame(session) <= LS_FRAMES; tick++) {
            int32_t frame = tempo_session_frame(session);
            int last = frame == LS_FRAMES; /* the last tick: every input is in */
            for (int p = 1; p < P; p++)
                for (int f = 0; f <= LS_FRAMES; f++)
                    if (arrival[p][f] == tick || (last && arrival[p][f] >= 0)) {
                        assert_int_equal(tempo_session_add_remote_input(
                                             session, p, f, real[f] + p * ARENA_INPUT_SIZE,
                                             ARENA_INPUT_SIZE),
                                         TEMPO_OK);
                        arrival[p][f] = -1;
                    }
            assert_int_equal(tempo_session_add_local_input(session, 0, real[frame],
                                                           ARENA_INPUT_SIZE),
                             TEMPO_OK);
            tempo_tick tick_out;
            assert_int_equal(tempo_session_advance(session, &tick_out), TEMPO_OK);
            run_requests(session, &game);
        }
        tempo_session_stats stats;
        assert_int_equal(tempo_session_get_stats(session, &stats), TEMPO_OK);
        assert_true(stats.rollbacks > 50);
        assert_memory_equal(&game, &straight, sizeof game);
        tempo_session_destroy(session);
    }
}

/* ---- hostile input ------------------------------------------------------- */

/* Any bytes for input and any status 0..2 (here with an occasional
 * disconnection, so play goes on) keep every promise of a valid state. */
static void run_hostile(uint64_t seed, int players, int frames, int status_range)
{
    arena_state s, pillars;
    assert_int_equal(arena_init(&s, players, seed), TEMPO_OK);
    pillars = s;
    tempo_rng r;
    tempo_rng_seed(&r, seed, 99);
    uint8_t in[ARENA_MAX_PLAYERS * ARENA_INPUT_SIZE], st[ARENA_MAX_PLAYERS];
    for (int f = 0; f < frames; f++) {
        for (int i = 0; i < players * ARENA_INPUT_SIZE; i++)
            in[i] = (uint8_t)tempo_rng_next(&r);
        for (int p = 0; p < players; p++) {
            st[p] = (uint8_t)tempo_rng_below(&r, (uint32_t)status_range);
            if (st[p] == TEMPO_INPUT_DISCONNECTED && tempo_rng_below(&r, 400) != 0)
                st[p] = TEMPO_INPUT_PREDICTED;
        }
        assert_int_equal(arena_step(&s, in, st), TEMPO_OK);
        check_valid(&s, players, (uint32_t)f + 1, &pillars);
    }
}

static void test_hostile_inputs_keep_state_valid(void **state)
{
    (void)state;
    for (int seed = 1; seed <= N_SEEDS; seed++)
        run_hostile((uint64_t)seed, 1 + seed % ARENA_MAX_PLAYERS, 3000, 3);
    run_hostile(77, ARENA_MAX_PLAYERS, 3000, 3);
    run_hostile(78, ARENA_MAX_PLAYERS, 3000, 256); /* out-of-range statuses too */
}

/* Bots hammer the same board for a long match without breaking anything. */
static void test_long_bot_match_stays_valid(void **state)
{
    (void)state;
    static match m;
    arena_state pillars;
    match_start(&m, 8, 2024);
    pillars = m.game;
    for (uint32_t f = 1; f <= 20000; f++) {
        match_step(&m, NULL);
        if (f % 50 == 0)
            check_valid(&m.game, 8, f, &pillars);
    }
    int deaths = 0;
    for (int p = 0; p < 8; p++)
        deaths += m.game.ships[p].deaths;
    assert_int_equal(deaths, arena_team_score(&m.game, 0) + arena_team_score(&m.game, 1));
    assert_true(deaths > 0);
    printf("    20000 bot frames, 8 players: %d kills (team 0: %d, team 1: %d)\n", deaths,
           arena_team_score(&m.game, 0), arena_team_score(&m.game, 1));
}

/* ---- disconnection --------------------------------------------------------- */

static void test_disconnected_player_stops_affecting_game(void **state)
{
    (void)state;
    static match a, b, c;
    uint8_t gone[4] = {0, 0, TEMPO_INPUT_DISCONNECTED, 0};
    uint8_t back[4] = {0, 0, TEMPO_INPUT_CONFIRMED, 0};
    for (int seed = 1; seed <= N_SEEDS; seed++) {
        match_start(&a, 4, (uint64_t)seed);
        for (int f = 0; f < 200; f++)
            match_step(&a, NULL);
        b = a;
        c = a;
        arena_bot_init(&b.bots[2], (uint64_t)seed + 1000, 2); /* other inputs for player 2 */
        for (int f = 0; f < 1000; f++) {
            match_step(&a, gone);
            match_step(&b, gone);
            match_step(&c, f == 0 ? gone : back); /* leaving is for good */
            assert_true(arena_checksum(&a.game) == arena_checksum(&b.game));
            assert_true(arena_checksum(&a.game) == arena_checksum(&c.game));
        }
        assert_int_equal(a.game.ships[2].state, ARENA_SHIP_GONE);
        for (int i = 0; i < ARENA_MAX_SHOTS; i++)
            assert_false(a.game.shots[i].active && a.game.shots[i].owner == 2);
    }
    /* The shots a leaving player had in flight leave with it. */
    arena_state s;
    scene(&s, 2, 4);
    step_one(&s, 0, 0, ARENA_FIRE_RIGHT);
    assert_int_equal(active_shots(&s), 1);
    uint8_t in[8] = {0}, st[2] = {TEMPO_INPUT_DISCONNECTED, 0};
    assert_int_equal(arena_step(&s, in, st), TEMPO_OK);
    assert_int_equal(active_shots(&s), 0);
}

/* ---- rules in crafted scenes ---------------------------------------------- */

/* A duel on row 5: ship 0 at column 4 fires right at ship 1 at column 12,
 * across dark tiles. Returns the frames until ship 1 is down (60: never). */
static int duel(arena_state *s)
{
    scene(s, 2, 4);
    put_ship(s, 1, 12, 5);
    paint_row(s, 5, 5, ARENA_TILE_DARK);
    step_one(s, 0, 0, ARENA_FIRE_RIGHT);
    assert_int_equal(s->ships[0].ammo, ARENA_AMMO_MAX - 1);
    int frames = 1;
    while (s->ships[1].state == ARENA_SHIP_ALIVE && frames < 60) {
        step_idle(s, 1);
        frames++;
    }
    return frames;
}

static void test_shot_hits_enemy_and_scores(void **state)
{
    (void)state;
    arena_state s;
    /* 8 tiles at 21 tiles a second, less the two boxes' reach. */
    assert_in_range(duel(&s), 15, 25);
    assert_int_equal(s.ships[1].state, ARENA_SHIP_DEAD);
    assert_int_equal(s.ships[1].deaths, 1);
    assert_int_equal(s.ships[0].score, 1);
    assert_int_equal(arena_team_score(&s, 0), 1);
    assert_int_equal(arena_team_score(&s, 1), 0);
    assert_int_equal(active_shots(&s), 0); /* a plain shot stops at its kill */
    for (int x = 5; x < 11; x++)
        assert_int_equal(s.tiles[5][x], ARENA_TILE_LIGHT); /* painted on the way */
    assert_int_equal(s.tiles[5][14], ARENA_TILE_DARK);
}

static void test_dead_ship_respawns_after_delay(void **state)
{
    (void)state;
    arena_state s;
    assert_true(duel(&s) < 60);
    step_idle(&s, ARENA_RESPAWN_FRAMES - 1);
    assert_int_equal(s.ships[1].state, ARENA_SHIP_DEAD);
    step_idle(&s, 1);
    const arena_ship *ship = arena_player(&s, 1);
    assert_int_equal(ship->state, ARENA_SHIP_ALIVE);
    assert_int_equal(ship->timer, ARENA_SPAWN_SHIELD);
    assert_int_equal(ship->ammo, ARENA_AMMO_MAX);
    int tx = ship->x / ARENA_TILE, ty = ship->y / ARENA_TILE;
    assert_int_equal(ship->x, tx * ARENA_TILE + ARENA_TILE / 2);
    for (int y = ty - 1; y <= ty + 1; y++)
        for (int x = tx - 1; x <= tx + 1; x++)
            assert_int_equal(arena_tile(&s, x, y), ARENA_TILE_DARK); /* its colour */
    /* It can fly at once. */
    int32_t x0 = ship->x;
    uint8_t in[8] = {0, 0, 0, 0, 128, 255, 0, 0};
    assert_int_equal(arena_step(&s, in, NULL), TEMPO_OK);
    assert_true(ship->x < x0);
}

static void test_shielded_ship_is_not_hit(void **state)
{
    (void)state;
    arena_state s;
    scene(&s, 2, 4);
    put_ship(&s, 1, 12, 5);
    s.ships[1].timer = 200;
    paint_row(&s, 5, 5, ARENA_TILE_DARK);
    step_one(&s, 0, 0, ARENA_FIRE_RIGHT);
    step_idle(&s, 90);
    assert_int_equal(s.ships[1].state, ARENA_SHIP_ALIVE);
    assert_int_equal(s.ships[0].score, 0);
    assert_int_equal(active_shots(&s), 0); /* flew on and left at the edge */
    assert_int_equal(s.tiles[5][ARENA_BOARD_W - 1], ARENA_TILE_LIGHT);
}

static void test_friendly_fire_passes_through(void **state)
{
    (void)state;
    arena_state s;
    scene(&s, 4, 4);
    put_ship(&s, 2, 8, 5); /* team mate in the line of fire */
    put_ship(&s, 1, 14, 5);
    step_one(&s, 0, 0, ARENA_FIRE_RIGHT);
    step_idle(&s, 40);
    assert_int_equal(s.ships[2].state, ARENA_SHIP_ALIVE);
    assert_int_equal(s.ships[1].state, ARENA_SHIP_DEAD);
}

/* Hold charge until the meter is full, then fire: the shot is wide, paints
 * three lanes and goes through every enemy in its way. */
static void test_charged_shot_pierces_and_paints_three_lanes(void **state)
{
    (void)state;
    arena_state s;
    scene(&s, 4, 2);
    put_ship(&s, 1, 8, 6); /* off centre: the wide shot still reaches */
    put_ship(&s, 3, 14, 5);
    for (int y = 4; y <= 6; y++)
        paint_row(&s, y, 3, ARENA_TILE_DARK);
    for (int f = 0; f < ARENA_CHARGE_FULL; f++)
        step_one(&s, 0, 0, ARENA_CHARGE);
    assert_int_equal(s.ships[0].charge, ARENA_CHARGE_FULL);
    step_one(&s, 0, 0, ARENA_CHARGE | ARENA_FIRE_RIGHT);
    assert_int_equal(s.ships[0].charge, 0);
    step_idle(&s, 60);
    assert_int_equal(s.ships[1].state, ARENA_SHIP_DEAD);
    assert_int_equal(s.ships[3].state, ARENA_SHIP_DEAD);
    assert_int_equal(s.ships[0].score, 2);
    for (int y = 4; y <= 6; y++)
        for (int x = 3; x < ARENA_BOARD_W; x++)
            assert_int_equal(s.tiles[y][x], ARENA_TILE_LIGHT);

    /* Without a full meter the same shot is plain: first enemy only. */
    scene(&s, 4, 2);
    put_ship(&s, 1, 8, 5);
    put_ship(&s, 3, 14, 5);
    for (int f = 0; f < ARENA_CHARGE_FULL - 2; f++)
        step_one(&s, 0, 0, ARENA_CHARGE);
    step_one(&s, 0, 0, ARENA_CHARGE | ARENA_FIRE_RIGHT);
    step_idle(&s, 60);
    assert_int_equal(s.ships[1].state, ARENA_SHIP_DEAD);
    assert_int_equal(s.ships[3].state, ARENA_SHIP_ALIVE);
    assert_int_equal(s.ships[0].score, 1);
}

/* Charging costs speed (half while held), and letting go empties the meter. */
static void test_charging_slows_ship_and_release_empties_meter(void **state)
{
    (void)state;
    arena_state s;
    scene(&s, 1, 4);
    int32_t x = s.ships[0].x;
    step_one(&s, 0, 255, 0);
    int32_t full = s.ships[0].x - x;
    x = s.ships[0].x;
    for (int f = 0; f < 30; f++)
        step_one(&s, 0, 255, ARENA_CHARGE);
    assert_int_equal(s.ships[0].x - x, 30 * (full / 2));
    assert_int_equal(s.ships[0].charge, 30);
    step_idle(&s, 1);
    assert_int_equal(s.ships[0].charge, 0);
}

static void test_opposing_shots_cancel(void **state)
{
    (void)state;
    for (int gap = 6; gap <= 22; gap++) { /* every meeting phase */
        arena_state s;
        scene(&s, 2, 4);
        put_ship(&s, 1, 4 + gap, 5);
        uint8_t in[8] = {0, 0, ARENA_FIRE_RIGHT, 0, 0, 0, ARENA_FIRE_LEFT, 0};
        assert_int_equal(arena_step(&s, in, NULL), TEMPO_OK);
        assert_int_equal(active_shots(&s), 2);
        step_idle(&s, 60);
        assert_int_equal(s.ships[0].state, ARENA_SHIP_ALIVE);
        assert_int_equal(s.ships[1].state, ARENA_SHIP_ALIVE);
        assert_int_equal(active_shots(&s), 0);
    }
    /* Crossing at right angles they meet too, however they line up: also when
     * their paths only clip each other's corners between two frames. */
    for (int32_t c = -760; c <= 760; c += 20) {
        arena_state s;
        scene(&s, 2, 4);
        put_ship(&s, 1, 10, 11); /* as far below the crossing as ship 0 is left of it */
        s.ships[1].y += c;
        paint_row(&s, 5, 11, ARENA_TILE_DARK);
        uint8_t in[8] = {0, 0, ARENA_FIRE_RIGHT, 0, 0, 0, ARENA_FIRE_UP, 0};
        assert_int_equal(arena_step(&s, in, NULL), TEMPO_OK);
        step_idle(&s, 60);
        assert_int_equal(active_shots(&s), 0);
        assert_int_equal(s.tiles[5][20], ARENA_TILE_DARK);  /* shot 0 stopped at the crossing */
        assert_int_equal(s.tiles[8][10], ARENA_TILE_DARK);  /* shot 1 flew up to it */
        assert_int_equal(s.tiles[2][10], ARENA_TILE_LIGHT); /* and no farther */
    }
}

static void test_held_fire_repeats_and_ammo_runs_out(void **state)
{
    (void)state;
    arena_state s;
    scene(&s, 1, 4);
    step_one(&s, 0, 0, ARENA_FIRE_DOWN);
    assert_int_equal(s.ships[0].ammo, ARENA_AMMO_MAX - 1);
    for (int f = 1; f < ARENA_FIRE_REPEAT; f++)
        step_one(&s, 0, 0, ARENA_FIRE_DOWN);
    assert_int_equal(s.ships[0].ammo, ARENA_AMMO_MAX - 1);
    step_one(&s, 0, 0, ARENA_FIRE_DOWN);
    assert_int_equal(s.ships[0].ammo, ARENA_AMMO_MAX - 2);
    /* Tapping fires on every press, until the ship is empty. */
    s.ships[0].ammo = 2;
    int fired = 0;
    for (int f = 0; f < 10; f++) {
        int before = s.ships[0].ammo;
        step_one(&s, 0, 0, f % 2 ? 0 : ARENA_FIRE_LEFT);
        fired += s.ships[0].ammo < before;
    }
    assert_int_equal(fired, 2);
    assert_int_equal(s.ships[0].ammo, 0);
    /* Rounds come back over time. */
    step_idle(&s, ARENA_AMMO_REGEN * ARENA_AMMO_MAX);
    assert_int_equal(s.ships[0].ammo, ARENA_AMMO_MAX);
}

/* With every shot slot in flight, a trigger does nothing and costs nothing. */
static void test_full_shot_table_keeps_the_round(void **state)
{
    (void)state;
    arena_state s;
    scene(&s, 2, 4);
    for (int i = 0; i < ARENA_MAX_SHOTS; i++) {
        s.shots[i].active = 1;
        s.shots[i].owner = 1;
        s.shots[i].dir = 1; /* down the far column, hitting nothing */
        s.shots[i].x = 30 * ARENA_TILE + ARENA_TILE / 2;
        s.shots[i].y = ARENA_TILE / 2;
    }
    step_one(&s, 0, 0, ARENA_FIRE_RIGHT);
    assert_int_equal(s.ships[0].ammo, ARENA_AMMO_MAX);
    assert_int_equal(active_shots(&s), ARENA_MAX_SHOTS);
    for (int i = 0; i < ARENA_MAX_SHOTS; i++)
        assert_int_equal(s.shots[i].owner, 1);
}

/* Ships fly over their own colour only; pillars, enemy ground and the board
 * edge stop them flush. */
static void test_ships_stop_at_enemy_ground_pillars_and_edge(void **state)
{
    (void)state;
    arena_state s;
    scene(&s, 1, 4);
    s.tiles[5][7] = ARENA_TILE_DARK;
    for (int f = 0; f < 60; f++)
        step_one(&s, 0, 255, 0);
    assert_int_equal(s.ships[0].x, 7 * ARENA_TILE - ARENA_SHIP_HALF);
    s.tiles[5][2] = ARENA_TILE_SOLID;
    for (int f = 0; f < 60; f++)
        step_one(&s, 128, 255, 0);
    assert_int_equal(s.ships[0].x, 3 * ARENA_TILE + ARENA_SHIP_HALF);
    for (int f = 0; f < 100; f++)
        step_one(&s, 192, 255, 0); /* up, into the edge */
    assert_int_equal(s.ships[0].y, ARENA_SHIP_HALF);
    /* Below the dead zone the stick is at rest. */
    int32_t y = s.ships[0].y;
    step_one(&s, 64, 23, 0);
    assert_int_equal(s.ships[0].y, y);
    step_one(&s, 64, 24, 0);
    assert_true(s.ships[0].y > y);
}

/* A ship off its lane's middle, pushing into a one-tile corridor, is slid
 * into it instead of sticking on the corner. */
static void test_corner_assist_threads_corridor(void **state)
{
    (void)state;
    arena_state s;
    scene(&s, 1, 4);
    for (int x = 6; x < 12; x++) {
        s.tiles[4][x] = ARENA_TILE_SOLID;
        s.tiles[6][x] = ARENA_TILE_DARK;
    }
    s.ships[0].y += 300;
    for (int f = 0; f < 100; f++)
        step_one(&s, 0, 255, 0);
    assert_true(s.ships[0].x > 12 * ARENA_TILE);
    assert_int_equal(s.ships[0].y / ARENA_TILE, 5);
}

/* Ground painted over under a ship does not trap it. */
static void test_ship_flies_out_of_painted_tile(void **state)
{
    (void)state;
    arena_state s;
    scene(&s, 1, 4);
    s.tiles[5][4] = ARENA_TILE_DARK;
    int32_t x = s.ships[0].x;
    for (int f = 0; f < 20; f++)
        step_one(&s, 0, 255, 0);
    assert_true(s.ships[0].x > x + 1000);
    for (int f = 0; f < 40; f++)
        step_one(&s, 128, 255, 0); /* back: the painted tile is a wall now */
    assert_int_equal(s.ships[0].x, 5 * ARENA_TILE + ARENA_SHIP_HALF);
}

/* ---- bots -------------------------------------------------------------- */

static void test_bot_is_reproducible(void **state)
{
    (void)state;
    arena_bot a, b, c, d;
    arena_bot_init(&a, 42, 3);
    arena_bot_init(&b, 42, 3);
    arena_bot_init(&c, 42, 4);
    arena_bot_init(&d, 43, 3);
    int differ_player = 0, differ_seed = 0;
    for (int f = 0; f < 5000; f++) {
        uint8_t oa[4], ob[4], oc[4], od[4];
        arena_bot_next(&a, oa);
        arena_bot_next(&b, ob);
        arena_bot_next(&c, oc);
        arena_bot_next(&d, od);
        assert_memory_equal(oa, ob, 4);
        differ_player += memcmp(oa, oc, 4) != 0;
        differ_seed += memcmp(oa, od, 4) != 0;
        if (f == 2500) {
            arena_bot fork = a; /* a copy carries on the same stream */
            uint8_t x[4], y[4];
            for (int k = 0; k < 100; k++) {
                arena_bot_next(&fork, x);
                arena_bot_next(&b, y);
                assert_memory_equal(x, y, 4);
            }
            for (int k = 0; k < 100; k++)
                arena_bot_next(&a, x);
        }
    }
    assert_true(differ_player > 2500);
    assert_true(differ_seed > 2500);
}

/* How often a person's input changes: most frames repeat the last one. */
static void test_bot_change_rate_in_range(void **state)
{
    (void)state;
    long changes = 0, frames = 0;
    for (uint64_t seed = 1; seed <= 8; seed++)
        for (int p = 0; p < ARENA_MAX_PLAYERS; p++) {
            arena_bot b;
            arena_bot_init(&b, seed, p);
            uint8_t prev[4], out[4];
            arena_bot_next(&b, prev);
            long mine = 0;
            for (int f = 1; f < 20000; f++) {
                arena_bot_next(&b, out);
                mine += memcmp(out, prev, 4) != 0;
                memcpy(prev, out, 4);
            }
            assert_in_range(mine, 20000 / 25, 20000 / 5); /* each bot: 0.04..0.2 */
            changes += mine;
            frames += 19999;
        }
    long permille = changes * 1000 / frames;
    printf("    bot input change rate: %ld.%03ld of frames (a change every %.1f frames)\n",
           permille / 1000, permille % 1000, (double)frames / (double)changes);
    assert_in_range(permille, 50, 150);
}

/* The bot rests, taps, holds and charges, and only ever uses defined bits. */
static void test_bot_rests_taps_holds_and_charges(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        arena_bot b;
        arena_bot_init(&b, seed, 0);
        int rest = 0, charged_shots = 0, taps = 0, holds = 0;
        int charge_run = 0, fire_run = 0;
        uint8_t out[4];
        for (int f = 0; f < 20000; f++) {
            arena_bot_next(&b, out);
            assert_int_equal(out[2] & ~(ARENA_FIRE_MASK | ARENA_CHARGE), 0);
            assert_int_equal(out[3], 0);
            rest += out[1] == 0;
            int charging = (out[2] & ARENA_CHARGE) != 0, firing = (out[2] & ARENA_FIRE_MASK) != 0;
            /* A charged shot: fire pressed after a full meter's worth of charge. */
            if (charging && firing && charge_run >= ARENA_CHARGE_FULL)
                charged_shots++;
            charge_run = charging && !firing ? charge_run + 1 : 0;
            if (firing && !charging) {
                fire_run++;
            } else if (fire_run) {
                taps += fire_run <= 8;
                holds += fire_run >= 20;
                fire_run = 0;
            }
        }
        assert_in_range(rest, 20000 / 20, 20000 / 2);
        assert_true(charged_shots > 10);
        assert_true(taps > 50);
        assert_true(holds > 10);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sin_table_matches_sine),
        cmocka_unit_test(test_input_pack_unpack_round_trip),
        cmocka_unit_test(test_init_rejects_bad_arguments),
        cmocka_unit_test(test_init_is_deterministic_and_fair),
        cmocka_unit_test(test_checksum_covers_every_byte),
        cmocka_unit_test(test_same_inputs_give_same_checksum_every_frame),
        cmocka_unit_test(test_different_inputs_diverge),
        cmocka_unit_test(test_memcpy_restore_replays_same_future),
        cmocka_unit_test(test_rollback_resimulation_matches_straight_run),
        cmocka_unit_test(test_tempo_synctest_in_arena_mode_finds_no_desync),
        cmocka_unit_test(test_tempo_rollback_in_arena_mode_matches_straight_run),
        cmocka_unit_test(test_hostile_inputs_keep_state_valid),
        cmocka_unit_test(test_long_bot_match_stays_valid),
        cmocka_unit_test(test_disconnected_player_stops_affecting_game),
        cmocka_unit_test(test_shot_hits_enemy_and_scores),
        cmocka_unit_test(test_dead_ship_respawns_after_delay),
        cmocka_unit_test(test_shielded_ship_is_not_hit),
        cmocka_unit_test(test_friendly_fire_passes_through),
        cmocka_unit_test(test_charged_shot_pierces_and_paints_three_lanes),
        cmocka_unit_test(test_charging_slows_ship_and_release_empties_meter),
        cmocka_unit_test(test_opposing_shots_cancel),
        cmocka_unit_test(test_held_fire_repeats_and_ammo_runs_out),
        cmocka_unit_test(test_full_shot_table_keeps_the_round),
        cmocka_unit_test(test_ships_stop_at_enemy_ground_pillars_and_edge),
        cmocka_unit_test(test_corner_assist_threads_corridor),
        cmocka_unit_test(test_ship_flies_out_of_painted_tile),
        cmocka_unit_test(test_bot_is_reproducible),
        cmocka_unit_test(test_bot_change_rate_in_range),
        cmocka_unit_test(test_bot_rests_taps_holds_and_charges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
