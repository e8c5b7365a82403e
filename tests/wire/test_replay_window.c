/* SPDX-License-Identifier: MIT */
/*
 * test_replay.c — the replay window: once only, duplicates and stale
 * sequences refused at its exact edge, check without effect, the
 * window against a plain model over random sequence streams, and against
 * the rule of a window that keeps each slot's last sequence (netcode.io's),
 * reason by reason, through jumps, reorders and the top of the range.
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

/* The rule as a window of 256 full sequences states it: slot s % 256 holds
 * the last sequence accepted there (UINT64_MAX: none); stale if 256 or more
 * below the highest, a duplicate if the slot holds it. The bitmap must
 * answer exactly as this does, reason for reason. */
typedef struct slot_model {
    uint64_t highest;
    bool any;
    uint64_t slot[REPLAY_WINDOW];
} slot_model;

static void model_init(slot_model *m)
{
    m->highest = 0;
    m->any = false;
    for (int i = 0; i < REPLAY_WINDOW; i++)
        m->slot[i] = UINT64_MAX;
}

static tempo_drop_reason model_check(const slot_model *m, uint64_t seq)
{
    if (seq == UINT64_MAX)
        return TEMPO_DROP_STALE;
    if (m->any && seq < m->highest && m->highest - seq >= REPLAY_WINDOW)
        return TEMPO_DROP_STALE;
    if (m->slot[seq % REPLAY_WINDOW] == seq)
        return TEMPO_DROP_DUPLICATE;
    return TEMPO_DROP_NONE;
}

static tempo_drop_reason model_accept(slot_model *m, uint64_t seq)
{
    tempo_drop_reason why = model_check(m, seq);
    if (why != TEMPO_DROP_NONE)
        return why;
    m->slot[seq % REPLAY_WINDOW] = seq;
    if (!m->any || seq > m->highest)
        m->highest = seq;
    m->any = true;
    return TEMPO_DROP_NONE;
}

/* The next sequence a hostile or unlucky stream offers after `*next`
 * (the one after its newest); `last` is the one offered before. */
static uint64_t pick(tempo_rng *rng, uint64_t *next, uint64_t last)
{
    uint32_t k = tempo_rng_below(rng, 64);
    uint64_t n = *next;
    if (k < 30)
        return (*next)++;
    if (k < 38)
        return n - 1 - tempo_rng_below(rng, 2 * REPLAY_WINDOW); /* reordered, copied, at the edge */
    if (k < 42)
        return last; /* a copy */
    if (k < 45)
        return n - REPLAY_WINDOW - 1 + tempo_rng_below(rng, 3); /* just at the edge */
    if (k < 50)
        return n + tempo_rng_below(rng, 70); /* ahead, across a word */
    if (k < 53)
        return *next += REPLAY_WINDOW - 2 + tempo_rng_below(rng, 5); /* a jump of about a window */
    if (k < 54 && n < UINT64_MAX / 2)
        return *next += (uint64_t)tempo_rng_below(rng, 1u << 20) << 12; /* a long jump */
    if (k < 58)
        return n - tempo_rng_below(rng, 100000); /* far behind (or wrapped below 0) */
    if (tempo_rng_below(rng, 64) == 0)
        return tempo_rng_next(rng) | ((uint64_t)tempo_rng_next(rng) << 32); /* anything */
    return (*next)++;
}

static void test_window_answers_as_the_slot_rule(void **state)
{
    (void)state;
    static slot_model m;
    int reasons[3] = {0, 0, 0};
    int max_taken = 0;
    for (uint64_t seed = 0; seed < 96; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 11);
        /* a third of the streams start near the top of the range and run
         * into it (UINT64_MAX never taken, all stale after it) */
        uint64_t next = seed % 3 == 0 ? UINT64_MAX - 30000 - tempo_rng_below(&rng, 600)
                        : seed % 3 == 1 ? 0
                                        : tempo_rng_next(&rng);
        model_init(&m);
        replay_init(&w);
        uint64_t s = next;
        for (int i = 0; i < 6000; i++) {
            s = pick(&rng, &next, s);
            tempo_drop_reason want = model_check(&m, s);
            tempo_drop_reason got = replay_check(&w, s);
            if (got != want)
                fail_msg("seed %d step %d: check(%llu) %d, the slot rule says %d", (int)seed, i,
                         (unsigned long long)s, (int)got, (int)want);
            want = model_accept(&m, s);
            got = replay_accept(&w, s);
            if (got != want)
                fail_msg("seed %d step %d: accept(%llu) %d, the slot rule says %d", (int)seed, i,
                         (unsigned long long)s, (int)got, (int)want);
            reasons[want == TEMPO_DROP_NONE ? 0 : want == TEMPO_DROP_DUPLICATE ? 1 : 2]++;
            if (m.highest >= next && m.highest < UINT64_MAX - 1)
                next = m.highest + 1; /* the stream goes on from its newest */
            max_taken += s == UINT64_MAX - 1 && want == TEMPO_DROP_NONE;
            assert_true(replay_highest(&w) == (m.any ? m.highest : 0));
        }
    }
    /* every branch was taken, the top of the range included */
    if (reasons[0] < 100000 || reasons[1] < 5000 || reasons[2] < 10000 || max_taken == 0)
        fail_msg("%d accepted, %d duplicates, %d stale, %d at UINT64_MAX - 1", reasons[0],
                 reasons[1], reasons[2], max_taken);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_sequence_is_accepted_once),
        cmocka_unit_test(test_the_window_edge_is_exact),
        cmocka_unit_test(test_check_changes_nothing),
        cmocka_unit_test(test_window_matches_a_model_over_random_streams),
        cmocka_unit_test(test_window_answers_as_the_slot_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
