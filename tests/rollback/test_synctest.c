/* SPDX-License-Identifier: MIT */
/*
 * test_synctest.c — the synctest session: silent on a deterministic game,
 * and catching an injected nondeterminism at the right frame, with both save
 * policies, in game-saving and arena mode; its players are local from create
 * and take input delay changes of any size.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fail_on_assert.h"
#include "toy.h"

static toy_driver driver;

typedef struct synctest_run {
    int mismatch_tick;          /* tick whose advance returned E_DESYNC, -1 none */
    tempo_synctest_report report;
    tempo_session_stats stats;
} synctest_run;

static synctest_run run(int players, int distance, tempo_save_policy policy, int frames,
                        int64_t bad_from, bool arena_mode)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = players;
    cfg.max_prediction = 8;
    cfg.save_policy = policy;
    toy_driver_init(&driver, players, 4);
    driver.nondeterministic_from = bad_from;
    if (arena_mode) {
        cfg.arena = &driver.cur;
        cfg.arena_size = sizeof driver.cur;
    }
    tempo_session *s;
    assert_int_equal(tempo_session_create_synctest(&cfg, distance, &s), TEMPO_OK);
    synctest_run out;
    memset(&out, 0, sizeof out);
    out.mismatch_tick = -1;
    for (int tick = 0; tempo_session_frame(s) < frames; tick++) {
        for (int p = 0; p < players; p++) {
            uint8_t b[4];
            toy_true_input(99, p, tick, b, 4);
            assert_int_equal(tempo_session_add_local_input(s, p, b, 4), TEMPO_OK);
        }
        tempo_tick t;
        tempo_result r = tempo_session_advance(s, &t);
        if (r == TEMPO_E_DESYNC) {
            if (out.mismatch_tick < 0)
                out.mismatch_tick = tick;
            continue;
        }
        assert_int_equal(r, TEMPO_OK);
        toy_driver_run(&driver, s);
        assert_int_equal(driver.errors, 0);
        assert_int_equal(driver.cur.frame, tempo_session_frame(s));
    }
    tempo_tick t; /* collect the checksums of the last tick */
    if (tempo_session_advance(s, &t) == TEMPO_E_DESYNC && out.mismatch_tick < 0)
        out.mismatch_tick = frames;
    assert_int_equal(tempo_session_synctest_report(s, &out.report), TEMPO_OK);
    assert_int_equal(tempo_session_get_stats(s, &out.stats), TEMPO_OK);
    tempo_session_destroy(s);
    return out;
}

static void deterministic_game_passes_every_check(void **state)
{
    (void)state;
    for (int d = 1; d <= 8; d++) {
        synctest_run r = run(1 + d % 8, d, TEMPO_SAVE_EVERY_FRAME, 300, -1, false);
        assert_int_equal(r.mismatch_tick, -1);
        assert_int_equal(r.report.mismatches, 0);
        assert_int_equal(r.report.first_mismatch_frame, -1);
        assert_true(r.report.checks >= (uint64_t)(300 - 10) * (uint64_t)d);
        assert_true(driver.resim_frames >= (300 - 10) * d);
    }
}

static void nondeterminism_is_caught_within_check_distance(void **state)
{
    (void)state;
    for (int d = 1; d <= 8; d++)
        for (int64_t bad = 50; bad < 400; bad += 37) {
            synctest_run r = run(2, d, TEMPO_SAVE_EVERY_FRAME, 500, bad, false);
            assert_true(r.mismatch_tick >= 0);
            assert_true(r.report.mismatches > 0);
            assert_true(r.report.first_mismatch_frame >= bad);
            assert_true(r.report.first_mismatch_frame <= bad + d);
            assert_true(r.report.first_checksum != r.report.resim_checksum);
        }
}

static void sparse_policy_catches_it_too(void **state)
{
    (void)state;
    for (int d = 1; d <= 8; d++) {
        synctest_run ok = run(3, d, TEMPO_SAVE_SPARSE, 300, -1, false);
        assert_int_equal(ok.report.mismatches, 0);
        assert_true(ok.report.checks >= 290);
        /* three saves a tick, however deep the check */
        assert_true(ok.stats.saves <= 3 * 300 + 10);
        synctest_run bad = run(3, d, TEMPO_SAVE_SPARSE, 300, 123, false);
        assert_true(bad.report.first_mismatch_frame >= 123);
        assert_true(bad.report.first_mismatch_frame <= 123 + d);
    }
}

static void arena_mode_checksums_the_block_itself(void **state)
{
    (void)state;
    synctest_run ok = run(4, 7, TEMPO_SAVE_EVERY_FRAME, 300, -1, true);
    assert_int_equal(ok.report.mismatches, 0);
    assert_true(ok.report.checks > 1000);
    synctest_run bad = run(4, 7, TEMPO_SAVE_EVERY_FRAME, 300, 200, true);
    assert_true(bad.report.first_mismatch_frame >= 200);
    assert_true(bad.report.first_mismatch_frame <= 207);
    synctest_run sparse = run(4, 7, TEMPO_SAVE_SPARSE, 300, 200, true);
    assert_true(sparse.report.first_mismatch_frame >= 200);
    assert_true(sparse.report.first_mismatch_frame <= 207);
}

static void check_distance_is_validated(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_config_default(&cfg);
    tempo_session *s = (tempo_session *)&cfg;
    assert_int_equal(tempo_session_create_synctest(&cfg, 0, &s), TEMPO_E_INVALID_ARG);
    assert_null(s);
    assert_int_equal(tempo_session_create_synctest(&cfg, cfg.max_prediction + 1, &s),
                     TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_create_synctest(NULL, 1, &s), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_create_synctest(&cfg, 1, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_create_synctest(&cfg, 1, &s), TEMPO_OK);
    assert_int_equal(tempo_session_add_remote_player(s, 1, NULL), TEMPO_E_UNSUPPORTED);
    tempo_session_destroy(s);
}

/* ---- input delays -------------------------------------------------------- */

static uint64_t rng_next(uint64_t *x)
{
    *x += 0x9e3779b97f4a7c15ULL;
    return toy_mix(*x, 0);
}

/* A fresh synctest session takes input delays: every player is local from
 * create, before the first tick. */
static void synctest_players_take_an_input_delay_before_the_first_tick(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_config_default(&cfg);
    tempo_session *s;
    assert_int_equal(tempo_session_create_synctest(&cfg, 4, &s), TEMPO_OK);
    assert_int_equal(tempo_session_set_input_delay(s, 0, 2), TEMPO_OK);
    assert_int_equal(tempo_session_input_delay(s, 0), 2);
    tempo_session_destroy(s);
}

/* Synctest over random check distances up to 64, both save policies, with
 * random input delay changes (a decrease by up to 64 runs 65 frames in one
 * tick): a deterministic game is never reported, LOADs only name saved
 * frames, and every input is used once, in order. */
static void synctest_with_delay_changes_reports_no_false_desync(void **state)
{
    (void)state;
    fail_on_assert(true);
    for (uint64_t seed = 1; seed <= 60; seed++) {
        uint64_t x = seed * 31;
        tempo_config cfg;
        tempo_config_default(&cfg);
        cfg.num_players = 1 + (int)(rng_next(&x) % 3);
        cfg.max_prediction = (int)(1 + rng_next(&x) % 64);
        cfg.save_policy = rng_next(&x) % 2 ? TEMPO_SAVE_SPARSE : TEMPO_SAVE_EVERY_FRAME;
        int cd = (int)(1 + rng_next(&x) % (uint64_t)cfg.max_prediction);
        tempo_session *s;
        assert_int_equal(tempo_session_create_synctest(&cfg, cd, &s), TEMPO_OK);
        toy_driver_init(&driver, cfg.num_players, 4);
        int32_t last = -1;
        for (int tick = 0; tick < 600; tick++) {
            if (tick > 0 && rng_next(&x) % 20 == 0)
                for (int p = 0; p < cfg.num_players; p++)
                    assert_int_equal(tempo_session_set_input_delay(s, p,
                        (int)(rng_next(&x) % (uint64_t)(cfg.max_prediction + 1))), TEMPO_OK);
            for (int p = 0; p < cfg.num_players; p++) {
                uint32_t v = (uint32_t)tick;
                uint8_t b[4];
                memcpy(b, &v, 4);
                assert_int_equal(tempo_session_add_local_input(s, p, b, 4), TEMPO_OK);
            }
            tempo_tick t;
            assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
            const tempo_request *r;
            while (tempo_session_next(s, &r) > 0)
                toy_driver_do(&driver, r);
            assert_int_equal(driver.errors, 0);
        }
        for (int32_t f = 0; f < tempo_session_frame(s); f++) {
            uint32_t idx;
            memcpy(&idx, driver.used[f], 4);
            assert_true((int64_t)idx > (int64_t)last);
            last = (int32_t)idx;
        }
        tempo_synctest_report rep;
        assert_int_equal(tempo_session_synctest_report(s, &rep), TEMPO_OK);
        assert_int_equal(rep.mismatches, 0);
        assert_true(rep.checks > 0);
        tempo_session_destroy(s);
    }
    fail_on_assert(false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deterministic_game_passes_every_check),
        cmocka_unit_test(nondeterminism_is_caught_within_check_distance),
        cmocka_unit_test(sparse_policy_catches_it_too),
        cmocka_unit_test(arena_mode_checksums_the_block_itself),
        cmocka_unit_test(check_distance_is_validated),
        cmocka_unit_test(synctest_players_take_an_input_delay_before_the_first_tick),
        cmocka_unit_test(synctest_with_delay_changes_reports_no_false_desync),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
