/* SPDX-License-Identifier: MIT */
/*
 * test_reckon.c — dead reckoning: exact first- and second-order positions
 * along known trajectories, saturation, the three corrections (snap jumps
 * by the error; blend and planning start where the screen was, reach the
 * new trajectory at correct_us, and never move faster than the speeds and
 * the correction allow), the game's own physics step, and bad arguments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tempo/interp.h"

#define ONE 65536 /* 1 m in Q16.16 */

static void known_trajectories_give_known_positions(void **state)
{
    (void)state;
    /* first order: 1 m/s and -2 m/s for 0.25 s */
    tempo_kinematic k = {{1000, -500, 0}, {ONE, -2 * ONE, 0}, {0, 0, 0}}, o;
    assert_int_equal(tempo_reckon_extrapolate(&k, 2, 1, 250000, &o), TEMPO_OK);
    assert_int_equal(o.p[0], 1000 + 16384);
    assert_int_equal(o.p[1], -500 - 32768);
    assert_int_equal(o.v[0], ONE);
    /* second order from rest at 2 m/s^2 for 0.5 s: 0.25 m, 1 m/s */
    tempo_kinematic r = {{0, 0, 0}, {0, 0, 0}, {2 * ONE, 0, 0}};
    assert_int_equal(tempo_reckon_extrapolate(&r, 1, 2, 500000, &o), TEMPO_OK);
    assert_int_equal(o.p[0], 16384);
    assert_int_equal(o.v[0], ONE);
    /* a projectile: 10 m/s forward, 20 m/s up from 100 m, g = -9.8 m/s^2
     * (-642253 in Q16.16); (2e6 v t + a t^2) / 2e12 rounded half up */
    tempo_kinematic pr = {{0, 0, 100 * ONE}, {10 * ONE, 0, 20 * ONE}, {0, 0, -642253}};
    static const struct {
        uint32_t t;
        int32_t x, z, vz;
    } want[] = {
        {250000, 163840, 6861210, 1150157},
        {1000000, 655360, 7543194, 668467},
        {2000000, 1310720, 7890534, 26214},
        {3333333, 2184533, 7354595, -830123},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(tempo_reckon_extrapolate(&pr, 3, 2, want[i].t, &o), TEMPO_OK);
        assert_int_equal(o.p[0], want[i].x);
        assert_int_equal(o.p[1], 0);
        assert_int_equal(o.p[2], want[i].z);
        assert_int_equal(o.v[0], 10 * ONE);
        assert_int_equal(o.v[2], want[i].vz);
    }
    /* small raw numbers: rounding of a negative half */
    tempo_kinematic s = {{0, 0, 0}, {3, 0, 0}, {-7, 0, 0}};
    assert_int_equal(tempo_reckon_extrapolate(&s, 1, 2, 1234567, &o), TEMPO_OK);
    assert_int_equal(o.p[0], -2);
    assert_int_equal(o.v[0], -6);
    /* extremes saturate instead of wrapping */
    tempo_kinematic big = {{INT32_MAX - 5, INT32_MIN + 5, 0}, {INT32_MAX, INT32_MIN, 0}, {INT32_MAX, INT32_MIN, 0}};
    assert_int_equal(tempo_reckon_extrapolate(&big, 2, 2, TEMPO_RECKON_MAX_DT_US, &o), TEMPO_OK);
    assert_int_equal(o.p[0], INT32_MAX);
    assert_int_equal(o.p[1], INT32_MIN);
    assert_int_equal(o.v[0], INT32_MAX);
    /* in place */
    assert_int_equal(tempo_reckon_extrapolate(&k, 2, 1, 250000, &k), TEMPO_OK);
    assert_int_equal(k.p[0], 1000 + 16384);
    assert_int_equal(tempo_reckon_extrapolate(&k, 2, 1, TEMPO_RECKON_MAX_DT_US + 1, &o), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_reckon_extrapolate(&k, 4, 1, 0, &o), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_reckon_extrapolate(&k, 2, 3, 0, &o), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_reckon_extrapolate(NULL, 2, 1, 0, &o), TEMPO_E_INVALID_ARG);
}

static tempo_reckon entity(tempo_reckon_correction c)
{
    tempo_reckon_config cfg;
    tempo_reckon_config_default(&cfg);
    cfg.dims = 1;
    cfg.order = 1;
    cfg.correction = c;
    cfg.correct_us = 100000;
    tempo_reckon e;
    assert_int_equal(tempo_reckon_init(&e, &cfg), TEMPO_OK);
    return e;
}

static int32_t at(const tempo_reckon *e, uint64_t now)
{
    int32_t p;
    assert_int_equal(tempo_reckon_position(e, now, &p), TEMPO_OK);
    return p;
}

/* Moving at 1000 units/s from 0; at 1 s the update says 1100 and 2000 units/s. */
static void each_correction_gives_its_known_positions(void **state)
{
    (void)state;
    tempo_kinematic s0 = {{0, 0, 0}, {1000, 0, 0}, {0, 0, 0}};
    tempo_kinematic s1 = {{1100, 0, 0}, {2000, 0, 0}, {0, 0, 0}};
    static const struct {
        tempo_reckon_correction c;
        int32_t at_1000, at_1050, at_1100, at_1200;
    } want[] = {
        {TEMPO_RECKON_SNAP, 1100, 1200, 1300, 1500},
        /* blend: the old reckoning (1050 at 1.05 s) halfway into the new (1200) */
        {TEMPO_RECKON_BLEND, 1000, 1125, 1300, 1500},
        /* plan: from 1000 straight to the new trajectory's 1300 at 1.1 s */
        {TEMPO_RECKON_PLAN, 1000, 1150, 1300, 1500},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        tempo_reckon e = entity(want[i].c);
        assert_int_equal(tempo_reckon_position(&e, 0, (int32_t[1]){0}), TEMPO_E_STATE);
        assert_int_equal(tempo_reckon_update(&e, &s0, 0, 0), TEMPO_OK);
        assert_int_equal(at(&e, 500000), 500);
        assert_int_equal(at(&e, 1000000), 1000);
        assert_int_equal(tempo_reckon_update(&e, &s1, 1000000, 1000000), TEMPO_OK);
        assert_int_equal(at(&e, 1000000), want[i].at_1000);
        assert_int_equal(at(&e, 1050000), want[i].at_1050);
        assert_int_equal(at(&e, 1100000), want[i].at_1100);
        assert_int_equal(at(&e, 1200000), want[i].at_1200);
    }
}

/* With max_correct_speed 500 units/s the 100-unit error of the test above
 * takes 200 ms to correct, not 100: the correction adds at most 500 to the
 * new trajectory's 2000 units/s. */
static void a_speed_bound_stretches_the_correction(void **state)
{
    (void)state;
    tempo_kinematic s0 = {{0, 0, 0}, {1000, 0, 0}, {0, 0, 0}};
    tempo_kinematic s1 = {{1100, 0, 0}, {2000, 0, 0}, {0, 0, 0}};
    static const struct {
        tempo_reckon_correction c;
        int32_t at_1100, at_1200, at_1300;
    } want[] = {
        {TEMPO_RECKON_SNAP, 1300, 1500, 1700},
        /* blend: old 1100 halfway into new 1300 at 1.1 s */
        {TEMPO_RECKON_BLEND, 1200, 1500, 1700},
        /* plan: 1000 to the new trajectory's 1500 at 1.2 s, 2500 units/s */
        {TEMPO_RECKON_PLAN, 1250, 1500, 1700},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        tempo_reckon e = entity(want[i].c);
        e.cfg.max_correct_speed = 500;
        assert_int_equal(tempo_reckon_update(&e, &s0, 0, 0), TEMPO_OK);
        assert_int_equal(tempo_reckon_update(&e, &s1, 1000000, 1000000), TEMPO_OK);
        assert_int_equal(at(&e, 1000000), want[i].c == TEMPO_RECKON_SNAP ? 1100 : 1000);
        assert_int_equal(at(&e, 1100000), want[i].at_1100);
        assert_int_equal(at(&e, 1200000), want[i].at_1200);
        assert_int_equal(at(&e, 1300000), want[i].at_1300);
    }
    /* a blend stretches to 3 x correct_us at most: a 1000-unit error at 500
     * units/s would need 2 s, it gets 300 ms */
    tempo_kinematic far = {{2000, 0, 0}, {2000, 0, 0}, {0, 0, 0}};
    tempo_reckon e = entity(TEMPO_RECKON_BLEND);
    e.cfg.max_correct_speed = 500;
    assert_int_equal(tempo_reckon_update(&e, &s0, 0, 0), TEMPO_OK);
    assert_int_equal(tempo_reckon_update(&e, &far, 1000000, 1000000), TEMPO_OK);
    assert_int_equal(e.span_us, 300000);
    assert_int_equal(at(&e, 1300000), 2600);
}

/* The update was stamped 40 ms before it arrived: it is reckoned forward
 * to the arrival, and blending starts from what was on screen. */
static void a_stale_update_is_reckoned_to_its_arrival(void **state)
{
    (void)state;
    tempo_reckon e = entity(TEMPO_RECKON_BLEND);
    tempo_kinematic s0 = {{0, 0, 0}, {1000, 0, 0}, {0, 0, 0}};
    tempo_kinematic s1 = {{1000, 0, 0}, {-1000, 0, 0}, {0, 0, 0}};
    assert_int_equal(tempo_reckon_update(&e, &s0, 0, 0), TEMPO_OK);
    assert_int_equal(tempo_reckon_update(&e, &s1, 960000, 1000000), TEMPO_OK);
    assert_int_equal(at(&e, 1000000), 1000);   /* what was shown */
    assert_int_equal(at(&e, 1100000), 860);    /* 1000 - 1000 * 0.14 */
    assert_int_equal(tempo_reckon_update(&e, &s1, 1000001, 1000000), TEMPO_E_INVALID_ARG);
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Random updates every 50..150 ms with random velocity changes, frames of
 * 16 ms: across an update the shown position does not move; between
 * frames it moves no more than the fastest speed involved plus the error
 * spread over correct_us (plus rounding). Snap is the contrast: it moves
 * by the whole error at once. */
static void blend_and_plan_never_jump_further_than_speed_allows(void **state)
{
    (void)state;
    for (int mode = 0; mode < 3; mode++) {
        uint64_t x = 77 + (uint64_t)mode;
        tempo_reckon_config cfg;
        tempo_reckon_config_default(&cfg);
        cfg.dims = 3;
        cfg.order = 2;
        cfg.correction = (tempo_reckon_correction)mode;
        cfg.correct_us = 80000;
        tempo_reckon e;
        assert_int_equal(tempo_reckon_init(&e, &cfg), TEMPO_OK);
        const int64_t VMAX = 20 * ONE, AMAX = 4 * ONE;
        tempo_kinematic truth = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
        assert_int_equal(tempo_reckon_update(&e, &truth, 0, 0), TEMPO_OK);
        uint64_t now = 0, next_update = 100000;
        int32_t prev[3];
        tempo_reckon_position(&e, 0, prev);
        int64_t max_error = 0;
        bool jumped = false;
        for (int f = 0; f < 2000; f++) {
            now += 16000;
            if (now >= next_update) {
                /* the truth moves on its own, with a new velocity and acceleration */
                for (int i = 0; i < 3; i++) {
                    truth.p[i] = (int32_t)(prev[i] + (int64_t)(rnd(&x) % (2 * ONE)) - ONE);
                    truth.v[i] = (int32_t)((int64_t)(rnd(&x) % (2 * VMAX / 3)) - VMAX / 3);
                    truth.a[i] = (int32_t)((int64_t)(rnd(&x) % (2 * AMAX)) - AMAX);
                }
                int32_t before[3], after[3];
                tempo_reckon_position(&e, now, before);
                uint64_t stamp = now - rnd(&x) % 30000;
                assert_int_equal(tempo_reckon_update(&e, &truth, stamp, now), TEMPO_OK);
                tempo_reckon_position(&e, now, after);
                for (int i = 0; i < 3; i++) {
                    int64_t err = llabs((int64_t)after[i] - before[i]);
                    if (mode == TEMPO_RECKON_SNAP) {
                        if (err > ONE / 4)
                            jumped = true;
                    } else {
                        assert_int_equal(after[i], before[i]);
                    }
                }
                /* the error the correction must absorb: the new trajectory
                 * against what is shown, over the correction */
                tempo_kinematic k;
                tempo_reckon_extrapolate(&truth, 3, 2, (uint32_t)(now - stamp), &k);
                for (int i = 0; i < 3; i++) {
                    int64_t er = llabs((int64_t)k.p[i] - before[i]);
                    if (er > max_error)
                        max_error = er;
                }
                next_update = now + 50000 + rnd(&x) % 100000;
            }
            int32_t p[3];
            tempo_reckon_position(&e, now, p);
            if (mode != TEMPO_RECKON_SNAP || now != next_update)
                for (int i = 0; i < 3; i++) {
                    /* speeds reach VMAX / 3 + AMAX * (150 ms + 30 ms) plus the
                     * error's rate and the two ends drifting apart */
                    int64_t v = VMAX / 3 + AMAX * 18 / 100;
                    int64_t bound = (v * 16000 + (max_error + 2 * v * 80000 / 1000000) * 16000 * 1000000 / 80000) / 1000000 + 2;
                    if (mode != TEMPO_RECKON_SNAP)
                        assert_true(llabs((int64_t)p[i] - prev[i]) <= bound);
                }
            memcpy(prev, p, sizeof prev);
        }
        if (mode == TEMPO_RECKON_SNAP)
            assert_true(jumped);
    }
}

/* The game's physics: a wall at x = 5000 stops the entity. */
static void wall_step(void *ctx, const tempo_kinematic *from, int dims, uint32_t dt_us, tempo_kinematic *out)
{
    int *calls = ctx;
    (*calls)++;
    tempo_reckon_extrapolate(from, dims, 1, dt_us, out);
    if (out->p[0] > 5000) {
        out->p[0] = 5000;
        out->v[0] = 0;
    }
}

static void the_games_own_step_replaces_extrapolation(void **state)
{
    (void)state;
    int calls = 0;
    tempo_reckon_config cfg;
    tempo_reckon_config_default(&cfg);
    cfg.dims = 1;
    cfg.correction = TEMPO_RECKON_SNAP;
    cfg.step = wall_step;
    cfg.step_ctx = &calls;
    tempo_reckon e;
    assert_int_equal(tempo_reckon_init(&e, &cfg), TEMPO_OK);
    tempo_kinematic s = {{0, 0, 0}, {10000, 0, 0}, {0, 0, 0}};
    assert_int_equal(tempo_reckon_update(&e, &s, 0, 0), TEMPO_OK);
    assert_int_equal(at(&e, 250000), 2500);
    assert_int_equal(at(&e, 900000), 5000);
    assert_int_equal(at(&e, 20000000), 5000); /* held at the longest span */
    assert_int_equal(calls, 3);
}

static void bad_configs_and_times_are_refused(void **state)
{
    (void)state;
    tempo_reckon_config cfg;
    tempo_reckon e;
    tempo_reckon_config_default(&cfg);
    cfg.dims = 0;
    assert_int_equal(tempo_reckon_init(&e, &cfg), TEMPO_E_INVALID_ARG);
    tempo_reckon_config_default(&cfg);
    cfg.order = 3;
    assert_int_equal(tempo_reckon_init(&e, &cfg), TEMPO_E_INVALID_ARG);
    tempo_reckon_config_default(&cfg);
    cfg.correct_us = 0;
    assert_int_equal(tempo_reckon_init(&e, &cfg), TEMPO_E_INVALID_ARG);
    tempo_reckon_config_default(&cfg);
    cfg.correction = (tempo_reckon_correction)3;
    assert_int_equal(tempo_reckon_init(&e, &cfg), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_reckon_init(NULL, &cfg), TEMPO_E_INVALID_ARG);
    tempo_reckon_config_default(&cfg);
    assert_int_equal(tempo_reckon_init(&e, &cfg), TEMPO_OK);
    tempo_kinematic s = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    assert_int_equal(tempo_reckon_update(&e, &s, 10, 5), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_reckon_update(&e, &s, 0, TEMPO_RECKON_MAX_DT_US + 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_reckon_update(&e, NULL, 0, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_reckon_update(&e, &s, 100, 200), TEMPO_OK);
    assert_int_equal(tempo_reckon_update(&e, &s, 100, 150), TEMPO_E_INVALID_ARG); /* before the last */
    assert_int_equal(tempo_reckon_position(&e, 0, NULL), TEMPO_E_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_trajectories_give_known_positions),
        cmocka_unit_test(each_correction_gives_its_known_positions),
        cmocka_unit_test(a_stale_update_is_reckoned_to_its_arrival),
        cmocka_unit_test(blend_and_plan_never_jump_further_than_speed_allows),
        cmocka_unit_test(a_speed_bound_stretches_the_correction),
        cmocka_unit_test(the_games_own_step_replaces_extrapolation),
        cmocka_unit_test(bad_configs_and_times_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
