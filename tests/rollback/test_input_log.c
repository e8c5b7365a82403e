/* SPDX-License-Identifier: MIT */
/*
 * test_input_log.c — the confirmed-input log: the ring itself (wrap, range,
 * frames outside it), and, through a session, that every confirmed frame
 * it holds carries exactly the inputs and statuses the game last played,
 * under late, reordered inputs, a disconnect and any start frame.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rollback/input_log.h"
#include "toy.h"

#define ISIZE 4

static uint64_t rng_next(uint64_t *x)
{
    *x += 0x9e3779b97f4a7c15ULL;
    return toy_mix(*x, 0);
}

static void append(input_log *l, uint8_t tag)
{
    uint8_t *status;
    uint8_t *in = input_log_begin(l, &status);
    for (int p = 0; p < l->num_players; p++) {
        memset(in + p * l->input_size, tag + p, (size_t)l->input_size);
        status[p] = (uint8_t)((tag + p) % 3 == 0 ? TEMPO_INPUT_DISCONNECTED : TEMPO_INPUT_CONFIRMED);
    }
    input_log_commit(l);
}

static void ring_wraps_and_holds_only_the_newest_frames(void **state)
{
    (void)state;
    input_log l;
    assert_int_equal(input_log_init(&l, NULL, 5, 3, 2, 100), TEMPO_OK);
    assert_int_equal(input_log_oldest(&l), 100);
    assert_int_equal(l.end, 100);
    assert_false(input_log_holds(&l, 100));
    assert_null(input_log_input(&l, 100, 0));
    for (int i = 0; i < 3; i++)
        append(&l, (uint8_t)(10 * i));
    assert_int_equal(input_log_oldest(&l), 100); /* not wrapped: from the first frame */
    for (int i = 3; i < 12; i++)
        append(&l, (uint8_t)(10 * i));
    assert_int_equal(l.end, 112);
    assert_int_equal(input_log_oldest(&l), 107);
    assert_false(input_log_holds(&l, 106));
    assert_false(input_log_holds(&l, 112));
    assert_null(input_log_input(&l, 106, 0));
    assert_null(input_log_status(&l, 112));
    assert_null(input_log_input(&l, 108, 3)); /* no such player */
    assert_null(input_log_input(&l, 108, -1));
    for (int32_t f = 107; f < 112; f++)
        for (int p = 0; p < 3; p++) {
            uint8_t tag = (uint8_t)(10 * (f - 100) + p);
            const uint8_t *in = input_log_input(&l, f, p);
            assert_non_null(in);
            assert_int_equal(in[0], tag);
            assert_int_equal(in[1], tag);
            assert_int_equal(input_log_status(&l, f)[p],
                             tag % 3 == 0 ? TEMPO_INPUT_DISCONNECTED : TEMPO_INPUT_CONFIRMED);
        }
    input_log_free(&l, NULL);
}

typedef struct log_case {
    uint64_t seed;
    int players;          /* player 0 local, the others remote */
    int max_pred;
    tempo_save_policy policy;
    int32_t start;
    int log_frames;
    int disconnect_tick;  /* < 0: none; drops the last player */
} log_case;

static toy_driver driver;

/* After every tick, each newly logged frame equals what the game played
 * last (the toy driver's record), remote inputs are the true ones, the
 * range follows the confirmed frame, and frames outside it are refused. */
static void run_log_case(const log_case *lc)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = lc->players;
    cfg.input_size = ISIZE;
    cfg.max_prediction = lc->max_pred;
    cfg.save_policy = lc->policy;
    cfg.start_frame = lc->start;
    cfg.input_log_frames = lc->log_frames;
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    assert_int_equal(tempo_session_add_local_player(s, 0), TEMPO_OK);
    for (int p = 1; p < lc->players; p++)
        assert_int_equal(tempo_session_add_remote_player(s, p, NULL), TEMPO_OK);
    toy_driver *d = &driver;
    toy_driver_init(d, lc->players, ISIZE);
    d->cur.frame = lc->start;
    d->advanced_max = lc->start;

    enum { TICKS = 700 };
    static int arrival[TEMPO_MAX_PLAYERS][TICKS + 64];
    uint64_t r = lc->seed;
    for (int p = 1; p < lc->players; p++)
        for (int i = 0; i < TICKS + 64; i++)
            arrival[p][i] = i + 1 + (int)(rng_next(&r) % (uint64_t)(lc->max_pred + 3));

    int32_t seen_end = lc->start, dropped_from = -1;
    size_t per = (size_t)lc->players * ISIZE;
    for (int tick = 0; tick < TICKS; tick++) {
        for (int p = 1; p < lc->players; p++)
            for (int i = 0; i < TICKS + 64; i++)
                if (arrival[p][i] == tick) {
                    uint8_t b[ISIZE];
                    toy_true_input(lc->seed, p, lc->start + i, b, ISIZE);
                    tempo_result res = tempo_session_add_remote_input(s, p, lc->start + i, b, ISIZE);
                    if (res == TEMPO_E_FRAME)
                        arrival[p][i] = tick + 1;
                    else
                        assert_int_equal(res, TEMPO_OK);
                }
        if (tick == lc->disconnect_tick) {
            assert_int_equal(tempo_session_disconnect_player(s, lc->players - 1), TEMPO_OK);
            tempo_event ev;
            while (tempo_session_poll_event(s, &ev) > 0)
                if (ev.kind == TEMPO_EVENT_DISCONNECTED)
                    dropped_from = ev.u.disconnected.frame;
            assert_true(dropped_from >= lc->start);
        }
        uint8_t b[ISIZE];
        toy_true_input(lc->seed, 0, tick, b, ISIZE);
        tempo_session_add_local_input(s, 0, b, ISIZE);
        tempo_tick t;
        assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
        toy_driver_run(d, s);
        assert_int_equal(d->errors, 0);

        int32_t oldest, end;
        assert_int_equal(tempo_session_input_log_range(s, &oldest, &end), TEMPO_OK);
        assert_int_equal(end, tempo_session_confirmed_frame(s));
        assert_true(end >= seen_end); /* never goes back */
        int32_t expect_oldest = end - lc->log_frames > lc->start ? end - lc->log_frames : lc->start;
        assert_int_equal(oldest, expect_oldest);
        uint8_t in[TEMPO_MAX_PLAYERS * ISIZE], st[TEMPO_MAX_PLAYERS];
        for (int32_t f = seen_end; f < end; f++) {
            assert_int_equal(tempo_session_confirmed_inputs(s, f, in, per, st), TEMPO_OK);
            assert_memory_equal(in, d->used[f], per);
            for (int p = 0; p < lc->players; p++) {
                assert_true(st[p] == TEMPO_INPUT_CONFIRMED || st[p] == TEMPO_INPUT_DISCONNECTED);
                assert_int_equal(st[p] == TEMPO_INPUT_DISCONNECTED,
                                 d->used_status[f][p] == TEMPO_INPUT_DISCONNECTED);
                bool gone = dropped_from >= 0 && p == lc->players - 1 && f >= dropped_from;
                assert_int_equal(st[p] == TEMPO_INPUT_DISCONNECTED, gone);
                if (p > 0 && !gone) {
                    uint8_t want[ISIZE];
                    toy_true_input(lc->seed, p, f, want, ISIZE);
                    assert_memory_equal(in + p * ISIZE, want, ISIZE);
                }
            }
        }
        seen_end = end;
        /* outside [oldest, end): refused, nothing written */
        memset(in, 0xAB, sizeof in);
        assert_int_equal(tempo_session_confirmed_inputs(s, end, in, per, st), TEMPO_E_FRAME);
        assert_int_equal(tempo_session_confirmed_inputs(s, oldest - 1, in, per, NULL), TEMPO_E_FRAME);
        assert_int_equal(in[0], 0xAB);
        if (end > oldest) /* a status buffer is optional */
            assert_int_equal(tempo_session_confirmed_inputs(s, oldest, in, per, NULL), TEMPO_OK);
    }
    /* it ran long enough to wrap */
    assert_true(seen_end - lc->start > lc->log_frames);
    tempo_session_destroy(s);
}

static void every_confirmed_frame_logs_what_the_game_played(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 24; seed++) {
        log_case lc;
        memset(&lc, 0, sizeof lc);
        lc.seed = seed;
        lc.players = 2 + (int)(seed % 3);
        lc.max_pred = 1 + (int)(seed % 9);
        lc.policy = seed % 2 ? TEMPO_SAVE_SPARSE : TEMPO_SAVE_EVERY_FRAME;
        lc.start = seed % 4 == 0 ? 1000 : seed % 4 == 1 ? 0 : (int32_t)(seed * 37);
        lc.log_frames = 64 + (int)(seed % 5) * 50;
        lc.disconnect_tick = seed % 3 == 0 ? 250 + (int)seed : -1;
        run_log_case(&lc);
    }
}

/* A synctest session confirms every frame at once: the log follows it. */
static void synctest_logs_every_frame_it_runs(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = 2;
    cfg.input_size = ISIZE;
    cfg.start_frame = 500;
    tempo_session *s;
    assert_int_equal(tempo_session_create_synctest(&cfg, 4, &s), TEMPO_OK);
    toy_driver_init(&driver, 2, ISIZE);
    driver.cur.frame = 500;
    driver.advanced_max = 500;
    for (int tick = 0; tick < 100; tick++) {
        for (int p = 0; p < 2; p++) {
            uint8_t b[ISIZE];
            toy_true_input(9, p, 500 + tick, b, ISIZE);
            tempo_session_add_local_input(s, p, b, ISIZE);
        }
        tempo_tick t;
        assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
        toy_driver_run(&driver, s);
    }
    assert_int_equal(driver.errors, 0);
    int32_t oldest, end;
    assert_int_equal(tempo_session_input_log_range(s, &oldest, &end), TEMPO_OK);
    assert_int_equal(oldest, 500);
    assert_int_equal(end, 600);
    for (int32_t f = 500; f < 600; f++) {
        uint8_t in[2 * ISIZE], want[2 * ISIZE], st[2];
        assert_int_equal(tempo_session_confirmed_inputs(s, f, in, sizeof in, st), TEMPO_OK);
        toy_true_input(9, 0, f, want, ISIZE);
        toy_true_input(9, 1, f, want + ISIZE, ISIZE);
        assert_memory_equal(in, want, sizeof in);
        assert_int_equal(st[0], TEMPO_INPUT_CONFIRMED);
        assert_int_equal(st[1], TEMPO_INPUT_CONFIRMED);
    }
    tempo_session_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ring_wraps_and_holds_only_the_newest_frames),
        cmocka_unit_test(every_confirmed_frame_logs_what_the_game_played),
        cmocka_unit_test(synctest_logs_every_frame_it_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
