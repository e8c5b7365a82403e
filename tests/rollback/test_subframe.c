/* SPDX-License-Identifier: MIT */
/*
 * test_subframe.c — drawing between frames: the render fraction, and a
 * state stepped and scribbled on between begin and end comes back bit for
 * bit, 144 times a second over a minute of 60 Hz frames.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tempo/subframe.h"

static void alpha_is_the_fraction_of_the_frame(void **state)
{
    (void)state;
    assert_int_equal(tempo_subframe_alpha(1000, 16667, 1000), 0);
    assert_int_equal(tempo_subframe_alpha(1000, 16667, 500), 0);        /* before: 0 */
    assert_int_equal(tempo_subframe_alpha(0, 16000, 4000), 16384);      /* a quarter */
    assert_int_equal(tempo_subframe_alpha(0, 16000, 8000), 32768);      /* half */
    assert_int_equal(tempo_subframe_alpha(0, 16000, 16000), 65535);     /* clamped */
    assert_int_equal(tempo_subframe_alpha(0, 16000, 99999), 65535);
    assert_int_equal(tempo_subframe_alpha(0, 0, 5), 0);
}

typedef struct toy {
    int32_t x[8], v[8];
    uint32_t frame;
} toy;

static void toy_step(toy *t)
{
    for (int i = 0; i < 8; i++)
        t->x[i] += t->v[i];
    t->frame++;
}

static void partial_steps_leave_the_state_untouched(void **state)
{
    (void)state;
    toy live, backup, reference;
    memset(&live, 0, sizeof live);
    for (int i = 0; i < 8; i++)
        live.v[i] = i * 3 - 7;
    reference = live;
    tempo_subframe sf;
    assert_int_equal(tempo_subframe_init(&sf, &live, &backup, sizeof live), TEMPO_OK);
    const uint64_t frame_us = 16667, render_us = 6944; /* 60 Hz simulated, 144 Hz drawn */
    uint64_t next_render = 0, renders = 0;
    for (uint64_t f = 0; f < 3600; f++) {
        uint64_t start = f * frame_us;
        while (next_render < start + frame_us) {
            uint32_t a = tempo_subframe_alpha(start, (uint32_t)frame_us, next_render);
            assert_true(a <= 65535);
            assert_int_equal(tempo_subframe_begin(&sf), TEMPO_OK);
            toy_step(&live);                 /* a whole frame ahead ... */
            for (int i = 0; i < 8; i++)      /* ... drawn at alpha of the way */
                live.x[i] = backup.x[i] + (int32_t)(((int64_t)(live.x[i] - backup.x[i]) * a) >> 16);
            assert_int_equal(tempo_subframe_end(&sf), TEMPO_OK);
            assert_memory_equal(&live, &reference, sizeof live);
            next_render += render_us;
            renders++;
        }
        toy_step(&live);
        toy_step(&reference);
    }
    assert_int_equal(tempo_subframe_renders(&sf), renders);
    assert_in_range(renders, 8639, 8641); /* 144 a second for 60 s */
}

static void misuse_is_refused(void **state)
{
    (void)state;
    uint8_t buf[16], other[16];
    tempo_subframe sf;
    assert_int_equal(tempo_subframe_init(NULL, buf, other, 16), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_subframe_init(&sf, buf, buf + 8, 8 + 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_subframe_init(&sf, buf, other, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_subframe_init(&sf, buf, other, 16), TEMPO_OK);
    assert_int_equal(tempo_subframe_end(&sf), TEMPO_E_STATE);
    assert_int_equal(tempo_subframe_begin(&sf), TEMPO_OK);
    assert_int_equal(tempo_subframe_begin(&sf), TEMPO_E_STATE);
    assert_int_equal(tempo_subframe_end(&sf), TEMPO_OK);
    assert_int_equal(tempo_subframe_begin(NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_subframe_renders(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(alpha_is_the_fraction_of_the_frame),
        cmocka_unit_test(partial_steps_leave_the_state_untouched),
        cmocka_unit_test(misuse_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
