/* SPDX-License-Identifier: MIT */
/*
 * test_effects.c — one-shot effects under rollback: a resimulated effect is
 * not started twice, a rolled-away one is stopped with its handle, the
 * history stays bounded, and, over many random rollbacks, the effects left
 * playing are exactly those of the final simulation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tempo/effects.h"
#include "tempo/rng.h"

enum { SHOT = 7, HIT = 9 };

static void a_resimulated_shot_is_not_started_twice(void **state)
{
    (void)state;
    tempo_effects fx;
    assert_int_equal(tempo_effects_init(&fx), TEMPO_OK);
    assert_int_equal(tempo_effects_start(&fx, 11, SHOT), TEMPO_EFFECT_NEW);
    assert_int_equal(tempo_effects_set_handle(&fx, 11, SHOT, 1234), TEMPO_OK);
    /* a late input rolls back to 10; the resimulation fires the shot again */
    assert_int_equal(tempo_effects_rollback(&fx, 10), TEMPO_OK);
    assert_int_equal(tempo_effects_start(&fx, 11, SHOT), TEMPO_EFFECT_PLAYING);
    tempo_effect e;
    assert_int_equal(tempo_effects_next_stop(&fx, &e), 0);
    assert_int_equal(fx.started, 1);
    assert_int_equal(fx.restarted_skipped, 1);
}

static void a_rolled_back_shot_is_stopped_with_its_handle(void **state)
{
    (void)state;
    tempo_effects fx;
    tempo_effects_init(&fx);
    assert_int_equal(tempo_effects_start(&fx, 5, HIT), TEMPO_EFFECT_NEW);
    assert_int_equal(tempo_effects_start(&fx, 11, SHOT), TEMPO_EFFECT_NEW);
    tempo_effects_set_handle(&fx, 11, SHOT, 77);
    /* the real input says the player never fired at 11 */
    tempo_effects_rollback(&fx, 10);
    assert_int_equal(tempo_effects_start(&fx, 12, HIT), TEMPO_EFFECT_NEW);
    tempo_effect e;
    assert_int_equal(tempo_effects_next_stop(&fx, &e), 1);
    assert_int_equal(e.frame, 11);
    assert_int_equal(e.key, SHOT);
    assert_int_equal(e.handle, 77);
    assert_int_equal(tempo_effects_next_stop(&fx, &e), 0);
    /* the effect before the rollback frame and the new one are untouched */
    assert_int_equal(fx.count, 2);
    assert_int_equal(tempo_effects_rollback(&fx, 5), TEMPO_OK);
    assert_int_equal(tempo_effects_start(&fx, 5, HIT), TEMPO_EFFECT_PLAYING);
    assert_int_equal(tempo_effects_start(&fx, 12, HIT), TEMPO_EFFECT_PLAYING);
    assert_int_equal(tempo_effects_next_stop(&fx, &e), 0);
}

static void the_nth_start_of_a_frame_meets_the_nth_remembered(void **state)
{
    (void)state;
    tempo_effects fx;
    tempo_effects_init(&fx);
    for (int i = 0; i < 3; i++)
        assert_int_equal(tempo_effects_start(&fx, 20, SHOT), TEMPO_EFFECT_NEW);
    tempo_effects_rollback(&fx, 20);
    /* the resimulation fires two of the three */
    assert_int_equal(tempo_effects_start(&fx, 20, SHOT), TEMPO_EFFECT_PLAYING);
    assert_int_equal(tempo_effects_start(&fx, 20, SHOT), TEMPO_EFFECT_PLAYING);
    tempo_effect e;
    assert_int_equal(tempo_effects_next_stop(&fx, &e), 1);
    assert_int_equal(tempo_effects_next_stop(&fx, &e), 0);
    assert_int_equal(fx.count, 2);
}

static void the_history_is_bounded_and_forgets_confirmed_frames(void **state)
{
    (void)state;
    tempo_effects fx;
    tempo_effects_init(&fx);
    for (int f = 0; f < TEMPO_EFFECTS_HISTORY + 10; f++)
        assert_int_equal(tempo_effects_start(&fx, f, SHOT), TEMPO_EFFECT_NEW);
    assert_int_equal(fx.count, TEMPO_EFFECTS_HISTORY);
    assert_int_equal(fx.forgotten, 10);
    /* the oldest ten went: frame 10 is the oldest remembered */
    assert_int_equal(tempo_effects_set_handle(&fx, 9, SHOT, 1), TEMPO_E_FRAME);
    assert_int_equal(tempo_effects_set_handle(&fx, 10, SHOT, 1), TEMPO_OK);
    assert_int_equal(tempo_effects_forget_before(&fx, 100), TEMPO_OK);
    assert_int_equal(fx.count, TEMPO_EFFECTS_HISTORY + 10 - 100);
    /* a rollback into forgotten frames cannot know them: they start again */
    tempo_effects_rollback(&fx, 50);
    assert_int_equal(tempo_effects_start(&fx, 50, SHOT), TEMPO_EFFECT_NEW);
}

static void null_arguments_are_refused(void **state)
{
    (void)state;
    tempo_effect e;
    tempo_effects fx;
    tempo_effects_init(&fx);
    assert_int_equal(tempo_effects_init(NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_effects_rollback(NULL, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_effects_start(NULL, 0, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_effects_set_handle(NULL, 0, 0, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_effects_forget_before(NULL, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_effects_next_stop(NULL, &e), 0);
    assert_int_equal(tempo_effects_next_stop(&fx, NULL), 0);
}

/* A toy game: frame f fires shots[f] shots (0..2), as its input says. The
 * game predicts inputs, late inputs correct them, and every correction
 * rolls back and resimulates. The sounds playing at the end must be
 * exactly the shots of the final inputs, each once. */
#define FRAMES 600
#define WINDOW 8

static int playing_count(const int *playing, int32_t frame)
{
    return playing[frame];
}

static void simulate(tempo_effects *fx, const uint8_t *inputs, int32_t frame, int *playing)
{
    for (int i = 0; i < inputs[frame]; i++)
        if (tempo_effects_start(fx, frame, SHOT) == TEMPO_EFFECT_NEW)
            playing[frame]++;
}

static void random_rollbacks_leave_exactly_the_final_effects(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 3);
        uint8_t truth[FRAMES], used[FRAMES];
        int playing[FRAMES];
        memset(playing, 0, sizeof playing);
        for (int f = 0; f < FRAMES; f++)
            truth[f] = (uint8_t)tempo_rng_below(&rng, 3);
        tempo_effects fx;
        tempo_effects_init(&fx);
        for (int32_t f = 0; f < FRAMES; f++) {
            /* predict frame f's input (often wrong), simulate it */
            used[f] = (uint8_t)tempo_rng_below(&rng, 3);
            simulate(&fx, used, f, playing);
            /* the real input of a frame up to WINDOW back arrives */
            int32_t late = f - (int32_t)tempo_rng_below(&rng, WINDOW);
            if (late < 0)
                late = 0;
            int32_t first_wrong = -1;
            for (int32_t g = late; g <= f; g++)
                if (used[g] != truth[g]) {
                    used[g] = truth[g];
                    if (first_wrong < 0)
                        first_wrong = g;
                }
            if (first_wrong >= 0) {
                tempo_effects_rollback(&fx, first_wrong);
                for (int32_t g = first_wrong; g <= f; g++)
                    simulate(&fx, used, g, playing);
            }
            tempo_effect e;
            while (tempo_effects_next_stop(&fx, &e)) {
                assert_true(playing[e.frame] > 0);
                playing[e.frame]--;
            }
            tempo_effects_forget_before(&fx, f - WINDOW);
        }
        /* settle the last window with the true inputs */
        tempo_effects_rollback(&fx, FRAMES - WINDOW);
        for (int32_t g = FRAMES - WINDOW; g < FRAMES; g++) {
            used[g] = truth[g];
            simulate(&fx, used, g, playing);
        }
        tempo_effect e;
        while (tempo_effects_next_stop(&fx, &e))
            playing[e.frame]--;
        for (int f = 0; f < FRAMES; f++)
            if (playing_count(playing, f) != truth[f])
                fail_msg("seed %llu frame %d: %d playing, %d fired", (unsigned long long)seed, f,
                         playing[f], truth[f]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_resimulated_shot_is_not_started_twice),
        cmocka_unit_test(a_rolled_back_shot_is_stopped_with_its_handle),
        cmocka_unit_test(the_nth_start_of_a_frame_meets_the_nth_remembered),
        cmocka_unit_test(the_history_is_bounded_and_forgets_confirmed_frames),
        cmocka_unit_test(null_arguments_are_refused),
        cmocka_unit_test(random_rollbacks_leave_exactly_the_final_effects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
