/* SPDX-License-Identifier: MIT */
/*
 * test_turns.c — turn-based lockstep's arithmetic (timing/turns.h): the
 * schedule and its restart after a late turn, which turn a time falls in,
 * the render fraction, and the adaptive length rule with its hysteresis,
 * bounds and steps, checked to the millisecond.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "timing/turns.h"

static const turns_rule rule2 = {50, 500, 2};

static void an_on_time_turn_keeps_the_schedule(void **state)
{
    (void)state;
    /* due at 1 s, executed 16 ms late (one 60 Hz tick): the next is due 100 ms after 1 s */
    assert_int_equal(turns_next_due(1000000, 1016000, 100000, false), 1100000);
    /* exactly half a turn late still keeps it */
    assert_int_equal(turns_next_due(1000000, 1050000, 100000, false), 1100000);
    assert_int_equal(turns_next_due(1000000, 1000000, 100000, true), 1100000);
}

static void a_turn_late_by_more_than_half_restarts_the_schedule(void **state)
{
    (void)state;
    assert_int_equal(turns_next_due(1000000, 1050001, 100000, false), 1150001);
    assert_int_equal(turns_next_due(1000000, 1700000, 100000, false), 1800000);
}

static void a_turn_that_waited_for_commands_restarts_the_schedule(void **state)
{
    (void)state;
    /* 5 ms of waiting: the next turn is due a full turn after it ran */
    assert_int_equal(turns_next_due(1000000, 1005000, 100000, true), 1105000);
}

static void a_time_falls_in_the_turn_of_its_slice(void **state)
{
    (void)state;
    assert_int_equal(turns_index_at(10, 1000000, 50000, 999999), 10);
    assert_int_equal(turns_index_at(10, 1000000, 50000, 1000000), 10);
    assert_int_equal(turns_index_at(10, 1000000, 50000, 1049999), 10);
    assert_int_equal(turns_index_at(10, 1000000, 50000, 1050000), 11);
    assert_int_equal(turns_index_at(10, 1000000, 50000, 1524999), 20);
    assert_int_equal(turns_index_at(10, 1000000, 0, 2000000), 10);
}

static void the_blend_grows_over_the_turn_and_holds_at_one(void **state)
{
    (void)state;
    assert_true(turns_blend(1000000, 100000, 900000) == 0.0);
    assert_true(turns_blend(1000000, 100000, 1000000) == 0.0);
    assert_true(turns_blend(1000000, 100000, 1025000) == 0.25);
    assert_true(turns_blend(1000000, 100000, 1075000) == 0.75);
    assert_true(turns_blend(1000000, 100000, 1100000) == 1.0);
    assert_true(turns_blend(1000000, 100000, 5000000) == 1.0); /* the next turn is late */
}

static void the_need_covers_the_worst_round_trip(void **state)
{
    (void)state;
    /* transatlantic: 150 ms round trip, 10 ms deviation:
     * 75 + 20 + 10 = 105 ms over delay - 1 = 1 turn -> 110 in 10 ms steps */
    turns_load atl = {1000, 150000, 10000};
    assert_int_equal(turns_need_ms(&rule2, &atl), 110);
    /* a delay of 3 gives two turns of slack: 52.5 -> 60 */
    turns_rule rule3 = {50, 500, 3};
    assert_int_equal(turns_need_ms(&rule3, &atl), 60);
    /* lan: 2 ms round trip: 11.2 ms -> 20, raised to the 50 ms floor */
    turns_load lan = {1000, 2000, 100};
    assert_int_equal(turns_need_ms(&rule2, &lan), 50);
}

static void the_need_covers_the_slowest_simulation(void **state)
{
    (void)state;
    /* 70 ms to simulate a turn may use half of it: 140 ms */
    turns_load slow = {70000, 2000, 100};
    assert_int_equal(turns_need_ms(&rule2, &slow), 140);
    /* 70.001 ms rounds up to the next step */
    slow.sim_us = 70001;
    assert_int_equal(turns_need_ms(&rule2, &slow), 150);
}

static void the_need_stays_within_the_bounds(void **state)
{
    (void)state;
    turns_load huge = {10000000, 4000000, 500000};
    assert_int_equal(turns_need_ms(&rule2, &huge), 500);
    turns_load none = {0, 0, 0};
    assert_int_equal(turns_need_ms(&rule2, &none), 50);
}

static void the_rule_grows_at_once(void **state)
{
    (void)state;
    turns_load atl = {1000, 150000, 10000};
    assert_int_equal(turns_adapt(&rule2, 50, &atl), 110);
    assert_int_equal(turns_adapt(&rule2, 100, &atl), 110);
}

static void the_rule_shrinks_only_by_a_clear_margin(void **state)
{
    (void)state;
    turns_load mid = {1000, 100000, 5000}; /* 50 + 10 + 10 = 70 ms */
    assert_int_equal(turns_need_ms(&rule2, &mid), 70);
    assert_int_equal(turns_adapt(&rule2, 80, &mid), 80);   /* 70 > 64: kept */
    assert_int_equal(turns_adapt(&rule2, 90, &mid), 70);   /* 70 <= 72: shrinks */
    assert_int_equal(turns_adapt(&rule2, 200, &mid), 70);
    assert_int_equal(turns_adapt(&rule2, 70, &mid), 70);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_on_time_turn_keeps_the_schedule),
        cmocka_unit_test(a_turn_late_by_more_than_half_restarts_the_schedule),
        cmocka_unit_test(a_turn_that_waited_for_commands_restarts_the_schedule),
        cmocka_unit_test(a_time_falls_in_the_turn_of_its_slice),
        cmocka_unit_test(the_blend_grows_over_the_turn_and_holds_at_one),
        cmocka_unit_test(the_need_covers_the_worst_round_trip),
        cmocka_unit_test(the_need_covers_the_slowest_simulation),
        cmocka_unit_test(the_need_stays_within_the_bounds),
        cmocka_unit_test(the_rule_grows_at_once),
        cmocka_unit_test(the_rule_shrinks_only_by_a_clear_margin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
