/* SPDX-License-Identifier: MIT */
/*
 * test_smooth.c — the error offset of the locally predicted player: what
 * is drawn does not move when a correction arrives, the offset decays by
 * exactly 0.95 or 0.85 per frame by its size, reaches zero, and an offset
 * beyond the snap distance is dropped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tempo/interp.h"

static tempo_smooth make(void)
{
    tempo_smooth_config c;
    tempo_smooth_config_default(&c);
    c.dims = 3;
    c.large_distance = 1000;
    c.snap_distance = 10000;
    tempo_smooth s;
    assert_int_equal(tempo_smooth_init(&s, &c), TEMPO_OK);
    return s;
}

static void small_and_large_errors_decay_by_their_factor(void **state)
{
    (void)state;
    tempo_smooth s = make();
    int32_t o[3];
    /* 500 units: small, 0.95 */
    assert_int_equal(tempo_smooth_correct(&s, (int32_t[3]){300, -400, 0}), 0);
    assert_int_equal(tempo_smooth_frame(&s, o), TEMPO_OK);
    assert_int_equal(o[0], 285);
    assert_int_equal(o[1], -380);
    assert_int_equal(o[2], 0);
    /* 5000 units: large, 0.85 */
    s = make();
    assert_int_equal(tempo_smooth_correct(&s, (int32_t[3]){3000, 0, 4000}), 0);
    assert_int_equal(tempo_smooth_frame(&s, o), TEMPO_OK);
    assert_int_equal(o[0], 2550);
    assert_int_equal(o[2], 3400);
    /* 100 units: 60 after ten frames (100 * 0.95^10 = 59.9), zero after 258 */
    s = make();
    tempo_smooth_correct(&s, (int32_t[3]){100, 0, 0});
    for (int f = 0; f < 10; f++)
        tempo_smooth_frame(&s, o);
    assert_int_equal(o[0], 60);
    int frames = 10;
    while (s.offset[0] != 0 && frames < 10000) {
        tempo_smooth_frame(&s, o);
        frames++;
    }
    assert_int_equal(frames, 258);
    assert_int_equal(o[0], 0);
}

/* The game draws prediction + offset: when reconciliation moves the
 * prediction by d, the offset grows by -d and the drawing stays put. */
static void the_drawn_position_does_not_move_at_a_correction(void **state)
{
    (void)state;
    tempo_smooth s = make();
    int32_t predicted[3] = {5000, 7000, 0}, o[3];
    tempo_smooth_frame(&s, o);
    int32_t drawn = predicted[0] + o[0];
    int32_t corrected[3] = {4800, 7050, 0};
    int32_t err[3] = {predicted[0] - corrected[0], predicted[1] - corrected[1], 0};
    assert_int_equal(tempo_smooth_correct(&s, err), 0);
    /* before the frame's decay, the offset is the error */
    assert_int_equal(s.offset[0], 200 * 65536);
    assert_int_equal(corrected[0] + (int32_t)(s.offset[0] / 65536), drawn);
    assert_int_equal(corrected[1] + (int32_t)(s.offset[1] / 65536), predicted[1]);
    assert_int_equal(s.corrections, 1);
}

static void errors_beyond_the_snap_distance_are_dropped(void **state)
{
    (void)state;
    tempo_smooth s = make();
    int32_t o[3];
    assert_int_equal(tempo_smooth_correct(&s, (int32_t[3]){6000, 8000, 0}), 0); /* exactly 10000 */
    assert_int_equal(tempo_smooth_correct(&s, (int32_t[3]){1, 0, 0}), 1);       /* 10000.8: snap */
    tempo_smooth_frame(&s, o);
    assert_int_equal(o[0], 0);
    assert_int_equal(o[1], 0);
    assert_int_equal(s.snaps, 1);
    /* corrections add up: two small ones make a large one */
    s = make();
    tempo_smooth_correct(&s, (int32_t[3]){600, 0, 0});
    tempo_smooth_correct(&s, (int32_t[3]){600, 0, 0});
    tempo_smooth_frame(&s, o);
    assert_int_equal(o[0], 1020); /* 1200 * 0.85 */
    /* snap_distance 0 never snaps; offsets saturate at 2^30 units */
    tempo_smooth_config c;
    tempo_smooth_config_default(&c);
    c.snap_distance = 0;
    assert_int_equal(tempo_smooth_init(&s, &c), TEMPO_OK);
    for (int i = 0; i < 4; i++)
        assert_int_equal(tempo_smooth_correct(&s, (int32_t[3]){INT32_MAX, INT32_MIN, 0}), 0);
    assert_int_equal(s.offset[0], (int64_t)1 << 46);
    assert_int_equal(s.offset[1], -((int64_t)1 << 46));
    assert_int_equal(tempo_smooth_frame(&s, o), TEMPO_OK);
    assert_int_equal(o[0], 912687104); /* 2^30 * 55706 / 65536 = 2^14 * 55706 */
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    tempo_smooth_config c;
    tempo_smooth s;
    tempo_smooth_config_default(&c);
    assert_int_equal(c.small_decay_q16, 62259);
    assert_int_equal(c.large_decay_q16, 55706);
    c.dims = 4;
    assert_int_equal(tempo_smooth_init(&s, &c), TEMPO_E_INVALID_ARG);
    tempo_smooth_config_default(&c);
    c.small_decay_q16 = 65536;
    assert_int_equal(tempo_smooth_init(&s, &c), TEMPO_E_INVALID_ARG);
    tempo_smooth_config_default(&c);
    c.large_distance = 0;
    assert_int_equal(tempo_smooth_init(&s, &c), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_smooth_init(NULL, &c), TEMPO_E_INVALID_ARG);
    tempo_smooth_config_default(&c);
    assert_int_equal(tempo_smooth_init(&s, &c), TEMPO_OK);
    assert_int_equal(tempo_smooth_correct(&s, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_smooth_frame(&s, NULL), TEMPO_E_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_and_large_errors_decay_by_their_factor),
        cmocka_unit_test(the_drawn_position_does_not_move_at_a_correction),
        cmocka_unit_test(errors_beyond_the_snap_distance_are_dropped),
        cmocka_unit_test(bad_arguments_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
