/* SPDX-License-Identifier: MIT */
/*
 * test_split.c — machines stopped at nearly the same moment never split the
 * match in two. Five machines play the arena-mode game of rejoin_world.h
 * over simnet; a few of them are paused past the disconnect timeout within
 * a fraction of a second of each other. The others drop them; on waking,
 * the paused ones still hear each other, but together they are not the
 * match (fewer than the machines they lost): each says it was dropped
 * (TEMPO_EVENT_DROPPED) and, with rejoin, comes back into the one match by
 * state transfer. Nobody on the other side takes itself for dropped, and
 * every machine that plays on plays the same game.
 */
#include "split_world.h"

static void a_paused_pair_without_rejoin_ends(void **state)
{
    (void)state;
    assert_int_equal(stopped_together(soak_pair, 2, 0, false, 30001682u), 0);
}

static void a_paused_pair_with_rejoin_comes_back(void **state)
{
    (void)state;
    assert_int_equal(stopped_together(soak_pair, 2, 30000, false, 30001682u), 0);
}

/* The pair holds player 0, the lowest: three machines are still more than
 * two, so the three are the match. */
static void the_lowest_player_does_not_outvote_a_majority(void **state)
{
    (void)state;
    static const stop pair_with_0[] = {{0, 12000000u, 4200000u, STOP_PAUSE, 0},
                                       {3, 12150000u, 3600000u, STOP_PAUSE, 0}};
    assert_int_equal(stopped_together(pair_with_0, 2, 30000, false, 7u), 0);
}

/* Over 50 seeds (few enough for the sanitizers): one or two of the five
 * machines (drawn by the seed) stopped within 300 ms of each other for 3.3
 * to 6 s, without rejoin: each stopped machine says it was dropped and
 * ends, the others play on together. */
static void stops_of_a_minority_over_many_seeds(void **state)
{
    (void)state;
    int stopped = 0;
    for (uint64_t seed = 100; seed < 150; seed++) {
        stop s[2] = {{0}};
        int n = 1 + (int)(mix(seed, 1) % 2u);
        int first = (int)(mix(seed, 2) % N);
        for (int k = 0; k < n; k++) {
            s[k].machine = (first + k * (1 + (int)(mix(seed, 3) % (N - 1)))) % N;
            s[k].at_us = 10000000u + mix(seed, 4 + (uint64_t)k) % 300000u;
            s[k].for_us = 3300000u + mix(seed, 8 + (uint64_t)k) % 2700000u;
        }
        assert_int_equal(stopped_together(s, n, 0, false, seed), 0);
        stopped += n;
    }
    printf("50 seeds: %d stopped machines, each said it was dropped and ended; the others played on together\n",
           stopped);
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_paused_pair_without_rejoin_ends),
        cmocka_unit_test(a_paused_pair_with_rejoin_comes_back),
        cmocka_unit_test(the_lowest_player_does_not_outvote_a_majority),
        cmocka_unit_test(stops_of_a_minority_over_many_seeds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
