/* SPDX-License-Identifier: MIT */
/*
 * test_pong.c — the Pong demo's core and its bot: determinism (an exact
 * checksum after 10,000 frames), the arena-mode contract (a copied state
 * replays the same future, tempo's synctest finds nothing), paddles held
 * in their bands under any input, the return angle, sweeping against fast
 * balls, points and serves, frozen disconnected paddles, and bots that
 * return most balls.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "pong.h"

#define BOT_SEED 7u

/* ---- helpers ------------------------------------------------------------- */

/* Every player asks the bot, then the game steps. */
static void bot_step(pong_state *s, const uint8_t *status)
{
    uint8_t in[PONG_MAX_PLAYERS] = {0};
    for (uint32_t p = 0; p < s->num_players; p++)
        in[p] = pong_bot_input(s, (int)p, BOT_SEED);
    assert_int_equal(pong_step(s, in, status), TEMPO_OK);
}

/* Step with the same input for every player. */
static void step_all(pong_state *s, uint8_t input)
{
    uint8_t in[PONG_MAX_PLAYERS];
    memset(in, input, sizeof in);
    assert_int_equal(pong_step(s, in, NULL), TEMPO_OK);
}

static int total_hits(const pong_state *s)
{
    int n = 0;
    for (uint32_t p = 0; p < s->num_players; p++)
        n += s->paddles[p].hits;
    return n;
}

static int total_misses(const pong_state *s)
{
    int n = 0;
    for (uint32_t p = 0; p < s->num_players; p++)
        n += s->paddles[p].misses;
    return n;
}

/* A ball in play at (x, y) with velocity (vx, vy). */
static void put_ball(pong_state *s, int32_t x, int32_t y, int32_t vx, int32_t vy)
{
    s->serve_timer = 0;
    s->ball.x = x;
    s->ball.y = y;
    s->ball.vx = vx;
    s->ball.vy = vy;
}

/* ---- init ---------------------------------------------------------------- */

static void test_init_rejects_bad_arguments(void **state)
{
    (void)state;
    pong_state s;
    memset(&s, 0xAB, sizeof s);
    assert_int_equal(pong_init(NULL, 2, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(pong_init(&s, 1, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(pong_init(&s, 9, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(pong_init(&s, -2, 1), TEMPO_E_INVALID_ARG);
    for (size_t i = 0; i < sizeof s; i++)
        assert_int_equal(((uint8_t *)&s)[i], 0xAB);
    uint8_t in[PONG_MAX_PLAYERS] = {0};
    assert_int_equal(pong_init(&s, 2, 1), TEMPO_OK);
    assert_int_equal(pong_step(NULL, in, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(pong_step(&s, NULL, NULL), TEMPO_E_INVALID_ARG);
    s.num_players = 9;
    assert_int_equal(pong_step(&s, in, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(s.frame, 0);
    assert_null(pong_player(&s, 0));
    assert_int_equal(pong_bot_input(&s, 0, 1), 0);
}

/* Each side's bands split its height without gaps or overlaps, in lane
 * order, and each paddle starts in the middle of its own. */
static void test_bands_split_each_side(void **state)
{
    (void)state;
    for (int players = PONG_MIN_PLAYERS; players <= PONG_MAX_PLAYERS; players++) {
        pong_state s;
        assert_int_equal(pong_init(&s, players, 3), TEMPO_OK);
        for (int side = 0; side < 2; side++) {
            int32_t top = 0;
            int lanes = side == PONG_LEFT ? (players + 1) / 2 : players / 2;
            for (int lane = 0; lane < lanes; lane++) {
                const pong_paddle *pd = pong_player(&s, 2 * lane + side);
                assert_non_null(pd);
                assert_int_equal(pd->side, side);
                assert_int_equal(pd->lane, lane);
                assert_int_equal(pd->lanes, lanes);
                assert_int_equal(pd->band_top, top);
                assert_true(pd->band_bottom - pd->band_top > 2 * pd->half_h);
                assert_int_equal(pd->y, (pd->band_top + pd->band_bottom) / 2);
                top = pd->band_bottom;
            }
            assert_int_equal(top, PONG_FIELD_H);
        }
        for (int p = players; p < PONG_MAX_PLAYERS; p++) {
            pong_paddle zero;
            memset(&zero, 0, sizeof zero);
            assert_memory_equal(&s.paddles[p], &zero, sizeof zero);
        }
        assert_null(pong_player(&s, players));
        assert_int_equal(s.serve_timer, PONG_SERVE_FRAMES);
        assert_int_equal(s.ball.x, PONG_FIELD_W / 2);
    }
}

/* ---- determinism ---------------------------------------------------------- */

/* Same seed and inputs: the same bytes every frame, and the checksum after
 * 10,000 frames is a fixed number (it changes only if the rules do). */
static void test_same_inputs_give_same_checksum(void **state)
{
    (void)state;
    pong_state a, b;
    assert_int_equal(pong_init(&a, 4, 2026), TEMPO_OK);
    assert_int_equal(pong_init(&b, 4, 2026), TEMPO_OK);
    for (int f = 0; f < 10000; f++) {
        bot_step(&a, NULL);
        bot_step(&b, NULL);
        assert_int_equal(pong_checksum(&a), pong_checksum(&b));
    }
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(a.frame, 10000);
    printf("    after 10000 frames: checksum %016llx score %u:%u launches %u\n",
           (unsigned long long)pong_checksum(&a), a.score[0], a.score[1], a.launches);
    assert_int_equal(pong_checksum(&a), 0xb12f1b41631f6c26ull);
    /* Another seed serves differently. */
    assert_int_equal(pong_init(&b, 4, 2027), TEMPO_OK);
    for (int f = 0; f < 10000; f++)
        bot_step(&b, NULL);
    assert_int_not_equal(pong_checksum(&a), pong_checksum(&b));
}

/* The checksum covers the whole struct, including the last paddle slot. */
static void test_checksum_covers_every_byte(void **state)
{
    (void)state;
    pong_state s, t;
    assert_int_equal(pong_init(&s, 2, 1), TEMPO_OK);
    for (size_t i = 0; i < sizeof s; i += 7) {
        t = s;
        ((uint8_t *)&t)[i] ^= 1u;
        assert_int_not_equal(pong_checksum(&s), pong_checksum(&t));
    }
    t = s;
    ((uint8_t *)&t)[sizeof t - 1] ^= 0x80u;
    assert_int_not_equal(pong_checksum(&s), pong_checksum(&t));
}

/* Arena mode's contract: a memcpy of the state at any frame, stepped with
 * the same inputs, gives the same future. */
static void test_copied_state_replays_same_future(void **state)
{
    (void)state;
    pong_state s, copy;
    assert_int_equal(pong_init(&s, 6, 11), TEMPO_OK);
    for (int f = 0; f < 3000; f++) {
        if (f % 500 == 250) {
            memcpy(&copy, &s, sizeof s);
            pong_state ahead = s;
            for (int k = 0; k < 200; k++)
                bot_step(&ahead, NULL);
            for (int k = 0; k < 200; k++)
                bot_step(&copy, NULL);
            assert_memory_equal(&ahead, &copy, sizeof copy);
        }
        bot_step(&s, NULL);
    }
}

/* tempo's synctest session in arena mode: every frame rolled back 1 and 6
 * frames and resimulated, the struct's checksums compared. */
static void test_tempo_synctest_in_arena_mode_finds_no_desync(void **state)
{
    (void)state;
    for (int distance = 1; distance <= 6; distance += 5) {
        pong_state game, straight;
        assert_int_equal(pong_init(&game, 4, (uint64_t)distance), TEMPO_OK);
        straight = game;
        tempo_config cfg;
        tempo_config_default(&cfg);
        cfg.num_players = 4;
        cfg.input_size = PONG_INPUT_SIZE;
        cfg.max_prediction = 8;
        cfg.arena = &game;
        cfg.arena_size = sizeof game;
        tempo_session *session;
        assert_int_equal(tempo_session_create_synctest(&cfg, distance, &session), TEMPO_OK);
        uint8_t in[4];
        while (tempo_session_frame(session) < 1500) {
            for (int p = 0; p < 4; p++) {
                in[p] = pong_bot_input(&straight, p, BOT_SEED);
                assert_int_equal(tempo_session_add_local_input(session, p, &in[p], 1), TEMPO_OK);
            }
            tempo_tick tick;
            assert_int_equal(tempo_session_advance(session, &tick), TEMPO_OK);
            const tempo_request *r;
            while (tempo_session_next(session, &r) > 0) {
                assert_int_equal(r->kind, TEMPO_REQUEST_ADVANCE);
                assert_int_equal(pong_step(&game, r->inputs, r->status), TEMPO_OK);
            }
            assert_int_equal(pong_step(&straight, in, NULL), TEMPO_OK);
        }
        tempo_synctest_report report;
        assert_int_equal(tempo_session_synctest_report(session, &report), TEMPO_OK);
        assert_true(report.checks > 1000);
        assert_int_equal(report.mismatches, 0);
        assert_memory_equal(&game, &straight, sizeof straight);
        tempo_session_destroy(session);
    }
}

/* ---- paddles ----------------------------------------------------------- */

/* Whatever bytes arrive as input, every paddle's body stays in its band
 * and the ball's centre in the field's height. */
static void test_paddles_stay_in_their_bands(void **state)
{
    (void)state;
    for (int players = PONG_MIN_PLAYERS; players <= PONG_MAX_PLAYERS; players++) {
        pong_state s;
        assert_int_equal(pong_init(&s, players, (uint64_t)players), TEMPO_OK);
        tempo_rng r;
        tempo_rng_seed(&r, (uint64_t)players, 1);
        int32_t lowest[PONG_MAX_PLAYERS], highest[PONG_MAX_PLAYERS];
        for (int p = 0; p < players; p++)
            lowest[p] = highest[p] = s.paddles[p].y;
        uint8_t in[PONG_MAX_PLAYERS];
        for (int f = 0; f < 10000; f++) {
            /* Long holds of any byte, so paddles reach their band's ends. */
            if (f % 40 == 0)
                for (int p = 0; p < players; p++)
                    in[p] = (uint8_t)tempo_rng_next(&r);
            assert_int_equal(pong_step(&s, in, NULL), TEMPO_OK);
            for (int p = 0; p < players; p++) {
                const pong_paddle *pd = &s.paddles[p];
                assert_true(pd->y - pd->half_h >= pd->band_top);
                assert_true(pd->y + pd->half_h <= pd->band_bottom);
                lowest[p] = pd->y < lowest[p] ? pd->y : lowest[p];
                highest[p] = pd->y > highest[p] ? pd->y : highest[p];
            }
            assert_in_range(s.ball.y, PONG_BALL_HALF, PONG_FIELD_H - PONG_BALL_HALF);
        }
        for (int p = 0; p < players; p++) {
            const pong_paddle *pd = &s.paddles[p];
            assert_int_equal(lowest[p], pd->band_top + pd->half_h);
            assert_int_equal(highest[p], pd->band_bottom - pd->half_h);
        }
    }
}

/* Up moves a paddle up by its speed, down moves it down, neither or both
 * keep it still; bits beyond the two are ignored. */
static void test_input_bits_move_the_paddle(void **state)
{
    (void)state;
    pong_state s;
    assert_int_equal(pong_init(&s, 2, 1), TEMPO_OK);
    int32_t y = s.paddles[0].y;
    step_all(&s, PONG_INPUT_UP);
    assert_int_equal(s.paddles[0].y, y - PONG_PADDLE_SPEED);
    step_all(&s, PONG_INPUT_DOWN | 0xF0u);
    assert_int_equal(s.paddles[0].y, y);
    step_all(&s, PONG_INPUT_UP | PONG_INPUT_DOWN);
    assert_int_equal(s.paddles[0].y, y);
    step_all(&s, 0xFCu);
    assert_int_equal(s.paddles[0].y, y);
}

/* A DISCONNECTED player's paddle does not move whatever its input says,
 * while the others play on; it still returns a ball that hits it. */
static void test_disconnected_paddle_stays_still(void **state)
{
    (void)state;
    pong_state s;
    assert_int_equal(pong_init(&s, 4, 5), TEMPO_OK);
    uint8_t status[4] = {TEMPO_INPUT_CONFIRMED, TEMPO_INPUT_DISCONNECTED, TEMPO_INPUT_PREDICTED,
                         TEMPO_INPUT_CONFIRMED};
    int32_t y1 = s.paddles[1].y;
    int moved_others = 0;
    for (int f = 0; f < 3000; f++) {
        int32_t y0 = s.paddles[0].y;
        uint8_t in[4] = {(uint8_t)(f / 30 % 2 ? 1 : 2), PONG_INPUT_DOWN, PONG_INPUT_UP,
                         PONG_INPUT_DOWN};
        assert_int_equal(pong_step(&s, in, status), TEMPO_OK);
        assert_int_equal(s.paddles[1].y, y1);
        moved_others += s.paddles[0].y != y0;
    }
    assert_true(moved_others > 1000);
    /* Aimed at its centre, it returns the ball flat. */
    put_ball(&s, pong_face_x(PONG_RIGHT) - PONG_BALL_HALF - 100, y1, 1024, 0);
    uint8_t none[4] = {0};
    uint16_t hits = s.paddles[1].hits;
    assert_int_equal(pong_step(&s, none, status), TEMPO_OK);
    assert_int_equal(s.paddles[1].hits, hits + 1);
    assert_true(s.ball.vx < 0);
}

/* ---- ball ---------------------------------------------------------------- */

/* The centre returns the ball flat, the end steeply (vy = 5/4 vx at the
 * reach's end), each return a little faster. */
static void test_return_angle_follows_hit_point(void **state)
{
    (void)state;
    pong_state s;
    assert_int_equal(pong_init(&s, 2, 1), TEMPO_OK);
    const pong_paddle *left = &s.paddles[0];
    int32_t reach = left->half_h + PONG_BALL_HALF;
    int32_t x = pong_face_x(PONG_LEFT) + PONG_BALL_HALF + 200;
    uint8_t none[2] = {0};

    put_ball(&s, x, left->y, -1024, 0);
    s.ball.speed = 1024;
    assert_int_equal(pong_step(&s, none, NULL), TEMPO_OK);
    assert_int_equal(s.ball.vx, 1024 + PONG_UNIT / 4);
    assert_int_equal(s.ball.vy, 0);
    /* Mirrored off the face: 824 of the frame's 1024 went past it. */
    assert_int_equal(s.ball.x, pong_face_x(PONG_LEFT) + PONG_BALL_HALF + 824);

    put_ball(&s, x, left->y + reach, -1024, 0);
    s.ball.speed = 1024;
    assert_int_equal(pong_step(&s, none, NULL), TEMPO_OK);
    assert_int_equal(s.ball.vy, (1024 + PONG_UNIT / 4) * 5 / 4);

    put_ball(&s, x, left->y - reach / 2, -1024, 0);
    s.ball.speed = 1024;
    assert_int_equal(pong_step(&s, none, NULL), TEMPO_OK);
    assert_int_equal(s.ball.vy, -(1024 + PONG_UNIT / 4) * 5 / 8);

    /* Just past the reach: no return, a miss for the paddle. */
    put_ball(&s, x, left->y + reach + 1, -1024, 0);
    s.ball.speed = 1024;
    assert_int_equal(pong_step(&s, none, NULL), TEMPO_OK);
    assert_int_equal(s.ball.vx, -1024);
    assert_int_equal(s.paddles[0].hits, 3);
    assert_int_equal(s.paddles[0].misses, 1);
    assert_int_equal(s.rally, 3);
}

/* At the top speed a ball moves farther in a frame than the paddle is
 * thick, and still cannot slip through it. */
static void test_fast_ball_cannot_pass_through_paddle(void **state)
{
    (void)state;
    pong_state s;
    assert_int_equal(pong_init(&s, 2, 1), TEMPO_OK);
    uint8_t none[2] = {0};
    int32_t fast = 12 * PONG_UNIT;
    assert_true(fast > PONG_PADDLE_W);
    for (int32_t start = 1; start < fast; start += 97) {
        put_ball(&s, pong_face_x(PONG_RIGHT) - PONG_BALL_HALF - start, s.paddles[1].y, fast, 0);
        s.ball.speed = fast;
        uint16_t hits = s.paddles[1].hits;
        assert_int_equal(pong_step(&s, none, NULL), TEMPO_OK);
        assert_int_equal(s.paddles[1].hits, hits + 1);
        assert_int_equal(s.ball.vx, -fast);
        assert_true(s.ball.x + PONG_BALL_HALF <= pong_face_x(PONG_RIGHT));
    }
}

/* Walls mirror the ball: the travel past the top comes back down. */
static void test_ball_bounces_off_walls(void **state)
{
    (void)state;
    pong_state s;
    assert_int_equal(pong_init(&s, 2, 1), TEMPO_OK);
    uint8_t none[2] = {0};
    put_ball(&s, PONG_FIELD_W / 2, PONG_BALL_HALF + 100, 512, -300);
    assert_int_equal(pong_step(&s, none, NULL), TEMPO_OK);
    assert_int_equal(s.ball.y, PONG_BALL_HALF + 200);
    assert_int_equal(s.ball.vy, 300);
    put_ball(&s, PONG_FIELD_W / 2, PONG_FIELD_H - PONG_BALL_HALF - 50, 512, 300);
    assert_int_equal(pong_step(&s, none, NULL), TEMPO_OK);
    assert_int_equal(s.ball.y, PONG_FIELD_H - PONG_BALL_HALF - 250);
    assert_int_equal(s.ball.vy, -300);
}

/* A ball past the left paddles scores for the right side, waits in the
 * centre for PONG_SERVE_FRAMES and is served toward the left. */
static void test_missed_ball_scores_and_serves_toward_loser(void **state)
{
    (void)state;
    pong_state s;
    assert_int_equal(pong_init(&s, 2, 1), TEMPO_OK);
    uint8_t none[2] = {0};
    put_ball(&s, pong_face_x(PONG_LEFT) + PONG_BALL_HALF + 10, PONG_BALL_HALF + 10, -2048, 0);
    s.rally = 4;
    int frames = 0;
    while (s.score[PONG_RIGHT] == 0) {
        assert_int_equal(pong_step(&s, none, NULL), TEMPO_OK);
        assert_true(++frames < 100);
    }
    assert_int_equal(s.score[PONG_LEFT], 0);
    assert_int_equal(s.paddles[0].misses, 1);
    assert_int_equal(s.rally, 0);
    assert_int_equal(s.serve_side, PONG_LEFT);
    assert_int_equal(s.ball.x, PONG_FIELD_W / 2);
    uint32_t launches = s.launches;
    for (int f = 1; f < PONG_SERVE_FRAMES; f++) {
        assert_int_equal(pong_step(&s, none, NULL), TEMPO_OK);
        assert_int_equal(s.ball.vx, 0);
        assert_int_equal(s.ball.x, PONG_FIELD_W / 2);
    }
    assert_int_equal(pong_step(&s, none, NULL), TEMPO_OK);
    assert_true(s.ball.vx < 0);
    assert_int_equal(s.launches, launches + 1);
    assert_in_range(s.ball.y, PONG_FIELD_H / 4, PONG_FIELD_H * 3 / 4);
}

/* ---- bots ---------------------------------------------------------------- */

/* Bots on every side return most balls and miss some: points are scored
 * on both sides and rallies run several returns long. */
static void test_bots_return_most_balls(void **state)
{
    (void)state;
    for (int players = PONG_MIN_PLAYERS; players <= PONG_MAX_PLAYERS; players += 2) {
        pong_state s;
        assert_int_equal(pong_init(&s, players, 99), TEMPO_OK);
        for (int f = 0; f < 60 * 60 * 5; f++)
            bot_step(&s, NULL);
        int hits = total_hits(&s), misses = total_misses(&s);
        printf("    %d players, 5 minutes: %d returns, %d misses, score %u:%u, longest rally %u\n",
               players, hits, misses, s.score[0], s.score[1], s.longest_rally);
        assert_int_equal(misses, s.score[0] + s.score[1]);
        assert_true(hits >= 3 * misses);
        assert_true(s.score[0] >= 3 && s.score[1] >= 3);
        assert_true(s.longest_rally >= 8);
        for (int p = 0; p < players; p++)
            assert_true(s.paddles[p].hits > 0);
    }
}

/* The bot's input is a function of (state, player, seed) alone; another
 * seed plays another game. */
static void test_bot_depends_on_state_player_and_seed(void **state)
{
    (void)state;
    pong_state s;
    assert_int_equal(pong_init(&s, 2, 4), TEMPO_OK);
    int differ = 0;
    for (int f = 0; f < 5000; f++) {
        pong_state copy = s;
        for (int p = 0; p < 2; p++)
            assert_int_equal(pong_bot_input(&s, p, 1), pong_bot_input(&copy, p, 1));
        uint8_t a = pong_bot_input(&s, 0, 1), b = pong_bot_input(&s, 0, 2);
        differ += a != b;
        uint8_t in[2] = {a, pong_bot_input(&s, 1, 1)};
        assert_int_equal(pong_step(&s, in, NULL), TEMPO_OK);
        for (int p = 0; p < 2; p++)
            assert_true(in[p] == 0 || in[p] == PONG_INPUT_UP || in[p] == PONG_INPUT_DOWN);
    }
    assert_true(differ > 100);
    assert_int_equal(pong_bot_input(NULL, 0, 1), 0);
    assert_int_equal(pong_bot_input(&s, 2, 1), 0);
    assert_int_equal(pong_bot_input(&s, -1, 1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_rejects_bad_arguments),
        cmocka_unit_test(test_bands_split_each_side),
        cmocka_unit_test(test_same_inputs_give_same_checksum),
        cmocka_unit_test(test_checksum_covers_every_byte),
        cmocka_unit_test(test_copied_state_replays_same_future),
        cmocka_unit_test(test_tempo_synctest_in_arena_mode_finds_no_desync),
        cmocka_unit_test(test_paddles_stay_in_their_bands),
        cmocka_unit_test(test_input_bits_move_the_paddle),
        cmocka_unit_test(test_disconnected_paddle_stays_still),
        cmocka_unit_test(test_return_angle_follows_hit_point),
        cmocka_unit_test(test_fast_ball_cannot_pass_through_paddle),
        cmocka_unit_test(test_ball_bounces_off_walls),
        cmocka_unit_test(test_missed_ball_scores_and_serves_toward_loser),
        cmocka_unit_test(test_bots_return_most_balls),
        cmocka_unit_test(test_bot_depends_on_state_player_and_seed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
