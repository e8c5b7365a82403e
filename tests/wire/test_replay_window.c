/* SPDX-License-Identifier: MIT */
/*
 * test_replay.c — the replay window: once only, duplicates and stale
 * sequences refused at its exact edge, check without effect, and the
 * window against a plain model over random sequence streams.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tempo/rng.h"
#include "wire/replay_window.h"

static tempo_replay w;

static void test_a_sequence_is_accepted_once(void **state)
{
    (void)state;
    replay_init(&w);
    assert_int_equal(replay_highest(&w), 0);
    assert_int_equal(replay_accept(&w, 0), TEMPO_DROP_NONE);
    assert_int_equal(replay_accept(&w, 0), TEMPO_DROP_DUPLICATE);
    assert_int_equal(replay_accept(&w, 5), TEMPO_DROP_NONE);
    assert_int_equal(replay_accept(&w, 3), TEMPO_DROP_NONE); /* late, not seen: fine */
    assert_int_equal(replay_accept(&w, 3), TEMPO_DROP_DUPLICATE);
    assert_int_equal(replay_accept(&w, 5), TEMPO_DROP_DUPLICATE);
    assert_int_equal(replay_highest(&w), 5);
}

static void test_the_window_edge_is_exact(void **state)
{
    (void)state;
    replay_init(&w);
    assert_int_equal(replay_accept(&w, 10000), TEMPO_DROP_NONE);
    assert_int_equal(replay_check(&w, 10000 - (REPLAY_WINDOW - 1)), TEMPO_DROP_NONE);
    assert_int_equal(replay_check(&w, 10000 - REPLAY_WINDOW), TEMPO_DROP_STALE);
    assert_int_equal(replay_check(&w, 0), TEMPO_DROP_STALE);
    /* a slot reused by a newer sequence of the same residue */
    assert_int_equal(replay_accept(&w, 10000 + REPLAY_WINDOW), TEMPO_DROP_NONE);
    assert_int_equal(replay_accept(&w, 10000), TEMPO_DROP_STALE);
    assert_int_equal(replay_check(&w, UINT64_MAX), TEMPO_DROP_STALE);
    /* a far jump leaves everything behind it stale */
    assert_int_equal(replay_accept(&w, (uint64_t)1 << 40), TEMPO_DROP_NONE);
    assert_int_equal(replay_check(&w, 10000 + REPLAY_WINDOW + 1), TEMPO_DROP_STALE);
}

static void test_check_changes_nothing(void **state)
{
    (void)state;
    replay_init(&w);
    replay_accept(&w, 100);
    tempo_replay before;
    memcpy(&before, &w, sizeof w);
    for (uint64_t s = 0; s < 1000; s++)
        (void)replay_check(&w, s);
    assert_memory_equal(&before, &w, sizeof w);
    assert_int_equal(replay_check(&w, 101), TEMPO_DROP_NONE);
    assert_int_equal(replay_check(&w, 101), TEMPO_DROP_NONE);
}

/* Random streams (in order, late, duplicated, far behind, jumps) against a
 * model that remembers every accepted sequence: accept exactly when the
 * sequence was never accepted and is less than REPLAY_WINDOW below the
 * highest accepted. */
#define SPAN 4000000
static void test_window_matches_a_model_over_random_streams(void **state)
{
    (void)state;
    uint8_t *seen = calloc(SPAN, 1);
    assert_non_null(seen);
    for (uint64_t seed = 0; seed < 20; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 7);
        replay_init(&w);
        memset(seen, 0, SPAN);
        int64_t next = 0, highest = -1;
        int accepted = 0, dup = 0, stale = 0;
        for (int i = 0; i < 50000; i++) {
            int64_t s;
            uint32_t k = tempo_rng_below(&rng, 20);
            if (k < 12)
                s = next++;
            else if (k < 16)
                s = next - 1 - tempo_rng_below(&rng, 300); /* late or duplicated, near the edge */
            else if (k < 18)
                s = next - 1 - tempo_rng_below(&rng, 5000); /* far behind */
            else
                s = next += tempo_rng_below(&rng, 400); /* a jump ahead */
            if (s < 0 || s >= SPAN)
                continue;
            bool want = !seen[s] && (highest < 0 || s > highest - REPLAY_WINDOW);
            tempo_drop_reason why = replay_accept(&w, (uint64_t)s);
            assert_int_equal(why == TEMPO_DROP_NONE, want);
            if (want) {
                seen[s] = 1;
                highest = s > highest ? s : highest;
                accepted++;
            } else {
                dup += why == TEMPO_DROP_DUPLICATE;
                stale += why == TEMPO_DROP_STALE;
            }
            assert_int_equal((int64_t)replay_highest(&w), highest < 0 ? 0 : highest);
        }
        if (!(accepted > 10000 && dup > 100 && stale > 100))
            fail_msg("seed %d: %d accepted, %d duplicates, %d stale", (int)seed, accepted, dup, stale);
    }
    free(seen);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_sequence_is_accepted_once),
        cmocka_unit_test(test_the_window_edge_is_exact),
        cmocka_unit_test(test_check_changes_nothing),
        cmocka_unit_test(test_window_matches_a_model_over_random_streams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
