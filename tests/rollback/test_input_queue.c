/* SPDX-License-Identifier: MIT */
/* test_input_queue.c — one player's input ring: prediction, first incorrect
 * frame, out-of-order arrival, wraparound, disconnects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rollback/input_queue.h"

#define SIZE 4

static input_queue make(int capacity)
{
    input_queue q;
    assert_int_equal(iq_init(&q, NULL, 0, SIZE, capacity, NULL, NULL), TEMPO_OK);
    return q;
}

static void in(uint8_t *b, uint32_t v) { memcpy(b, &v, SIZE); }
static uint32_t val(const uint8_t *b) { uint32_t v; memcpy(&v, b, SIZE); return v; }

static void guess_repeats_last_real_input(void **state)
{
    (void)state;
    input_queue q = make(16);
    uint8_t b[SIZE], out[SIZE];
    assert_int_equal(iq_get(&q, 0, out), TEMPO_INPUT_PREDICTED);
    assert_int_equal(val(out), 0); /* nothing known yet: zero */
    in(b, 7);
    assert_int_equal(iq_add(&q, 0, b), IQ_MISPREDICTED); /* guessed 0, was 7 */
    in(b, 9);
    assert_int_equal(iq_add(&q, 1, b), IQ_ADDED);
    assert_int_equal(iq_get(&q, 5, out), TEMPO_INPUT_PREDICTED);
    assert_int_equal(val(out), 9);
    assert_int_equal(iq_get(&q, 1, out), TEMPO_INPUT_CONFIRMED);
    assert_int_equal(val(out), 9);
    iq_free(&q, NULL);
}

/* A relay's substitute replaces a stored real input (the one exception to
 * "real inputs never change"); the same input, or a disconnected frame,
 * changes nothing; a frame not stored is simply added. */
static void override_replaces_a_real_input_and_says_so(void **state)
{
    (void)state;
    input_queue q = make(16);
    uint8_t b[SIZE], out[SIZE];
    in(b, 7);
    assert_int_equal(iq_add(&q, 0, b), IQ_ADDED);
    in(b, 9);
    assert_int_equal(iq_override(&q, 0, b), IQ_MISPREDICTED);
    assert_true(iq_real(&q, 0, out));
    assert_int_equal(val(out), 9);
    assert_int_equal(iq_override(&q, 0, b), IQ_DUPLICATE);
    assert_int_equal(iq_override(&q, 1, b), IQ_ADDED);
    assert_int_equal(q.known_end, 2);
    assert_int_equal(iq_override(&q, 16, b), TEMPO_E_FRAME);
    iq_disconnect(&q, 2, 0);
    assert_int_equal(iq_override(&q, 3, b), IQ_DUPLICATE);
    iq_free(&q, NULL);
}

static void real_input_equal_to_guess_is_not_a_misprediction(void **state)
{
    (void)state;
    input_queue q = make(16);
    uint8_t b[SIZE], out[SIZE];
    in(b, 3);
    iq_add(&q, 0, b);
    iq_get(&q, 1, out); /* guesses 3 */
    assert_int_equal(iq_add(&q, 1, b), IQ_ADDED);
    in(b, 4);
    iq_get(&q, 2, out); /* guesses 3 */
    assert_int_equal(iq_add(&q, 2, b), IQ_MISPREDICTED);
    iq_free(&q, NULL);
}

static void out_of_order_inputs_extend_known_end_only_when_contiguous(void **state)
{
    (void)state;
    input_queue q = make(16);
    uint8_t b[SIZE];
    in(b, 1);
    iq_add(&q, 2, b);
    iq_add(&q, 1, b);
    assert_int_equal(q.known_end, 0);
    assert_true(iq_known(&q, 2));
    assert_false(iq_known(&q, 0));
    iq_add(&q, 0, b);
    assert_int_equal(q.known_end, 3);
    iq_free(&q, NULL);
}

static void repeated_frame_is_ignored_and_never_overwrites(void **state)
{
    (void)state;
    input_queue q = make(16);
    uint8_t b[SIZE], out[SIZE];
    in(b, 5);
    iq_add(&q, 0, b);
    in(b, 6);
    assert_int_equal(iq_add(&q, 0, b), IQ_DUPLICATE);
    assert_true(iq_real(&q, 0, out));
    assert_int_equal(val(out), 5);
    iq_free(&q, NULL);
}

static void frames_outside_the_ring_are_refused(void **state)
{
    (void)state;
    input_queue q = make(16);
    uint8_t b[SIZE];
    in(b, 1);
    assert_int_equal(iq_add(&q, 16, b), TEMPO_E_FRAME);
    assert_int_equal(iq_add(&q, 15, b), IQ_ADDED);
    for (int f = 0; f < 15; f++)
        iq_add(&q, f, b);
    iq_discard_before(&q, 10);
    assert_int_equal(iq_add(&q, 9, b), TEMPO_E_FRAME);
    assert_int_equal(iq_add(&q, 25, b), IQ_ADDED);
    assert_int_equal(iq_add(&q, 26, b), TEMPO_E_FRAME);
    iq_free(&q, NULL);
}

static void values_survive_many_wraparounds(void **state)
{
    (void)state;
    input_queue q = make(8);
    uint8_t b[SIZE], out[SIZE];
    for (int32_t f = 0; f < 10000; f++) {
        in(b, (uint32_t)f * 2654435761u);
        assert_int_equal(iq_add(&q, f, b), IQ_ADDED);
        if (f >= 4)
            iq_discard_before(&q, f - 4);
        for (int32_t g = tempo__max32(0, f - 4); g <= f; g++) {
            assert_true(iq_real(&q, g, out));
            assert_int_equal(val(out), (uint32_t)g * 2654435761u);
        }
    }
    assert_int_equal(q.known_end, 10000);
    iq_free(&q, NULL);
}

static int predictor_calls;
static void predict_plus_one(void *ctx, int player, int32_t frame, const uint8_t *last,
                             int32_t last_frame, uint8_t *out, int size)
{
    (void)ctx;
    (void)player;
    predictor_calls++;
    uint32_t v = val(last) + (uint32_t)(frame - last_frame);
    memcpy(out, &v, (size_t)size);
}

static void predictor_hook_receives_last_input_and_frame(void **state)
{
    (void)state;
    input_queue q;
    assert_int_equal(iq_init(&q, NULL, 0, SIZE, 16, predict_plus_one, NULL), TEMPO_OK);
    uint8_t b[SIZE], out[SIZE];
    in(b, 100);
    iq_add(&q, 0, b);
    predictor_calls = 0;
    assert_int_equal(iq_get(&q, 3, out), TEMPO_INPUT_PREDICTED);
    assert_int_equal(val(out), 103);
    assert_int_equal(predictor_calls, 1);
    in(b, 103);
    assert_int_equal(iq_add(&q, 3, b), IQ_ADDED); /* guess was right */
    iq_free(&q, NULL);
}

static void disconnect_zeroes_input_and_reports_first_affected_frame(void **state)
{
    (void)state;
    input_queue q = make(16);
    uint8_t b[SIZE], out[SIZE];
    in(b, 8);
    iq_add(&q, 0, b);
    iq_add(&q, 1, b);
    iq_get(&q, 2, out);
    iq_get(&q, 3, out);
    assert_int_equal(iq_disconnect(&q, 2, 4), 2);
    assert_int_equal(iq_get(&q, 2, out), TEMPO_INPUT_DISCONNECTED);
    assert_int_equal(val(out), 0);
    assert_int_equal(iq_get(&q, 1, out), TEMPO_INPUT_CONFIRMED);
    assert_int_equal(iq_add(&q, 5, b), IQ_DUPLICATE);
    assert_int_equal(iq_known_end(&q), IQ_NO_FRAME);
    input_queue r = make(16);
    assert_int_equal(iq_disconnect(&r, 4, 4), IQ_NO_FRAME); /* nothing simulated yet */
    iq_free(&q, NULL);
    iq_free(&r, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(guess_repeats_last_real_input),
        cmocka_unit_test(real_input_equal_to_guess_is_not_a_misprediction),
        cmocka_unit_test(out_of_order_inputs_extend_known_end_only_when_contiguous),
        cmocka_unit_test(repeated_frame_is_ignored_and_never_overwrites),
        cmocka_unit_test(frames_outside_the_ring_are_refused),
        cmocka_unit_test(values_survive_many_wraparounds),
        cmocka_unit_test(predictor_hook_receives_last_input_and_frame),
        cmocka_unit_test(disconnect_zeroes_input_and_reports_first_affected_frame),
        cmocka_unit_test(override_replaces_a_real_input_and_says_so),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
