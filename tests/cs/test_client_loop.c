/* SPDX-License-Identifier: MIT */
/*
 * test_client_loop.c — the client's loop as docs/CLIENT-SERVER.md writes
 * it, under a scheduler that wakes late: a real sleep returns some time
 * after the deadline asked for (a timer's slack, other processes), and a
 * loop that schedules each tick from the moment it woke adds every
 * oversleep to its clock, falls behind the server faster than tick sync
 * may dilate, and its inputs arrive late.
 *
 * The scheduler here wakes each sleeper 0.2 to 2 ms after its deadline
 * (1.1 ms on average, 6.6% of a 60 Hz tick, more than the 5% tick sync may
 * dilate), in virtual time over a simulated 40 ms link.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "cs_harness.h"

/* How late the next sleep returns, microseconds: 200..2000. */
static uint64_t oversleep_us(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return 200u + (*seed >> 8) % 1801u;
}

typedef struct loop_result {
    uint64_t late;  /* inputs the server played late, after settling */
    uint64_t snaps; /* tick sync jumps, after settling */
    int burst;      /* most ticks run back to back (due when the loop woke) */
} loop_result;

/* One server at exact 60 Hz and one moving client whose loop sleeps until
 * the time `next_deadline` says, through the oversleeping scheduler. */
static loop_result run_loop(uint64_t (*next_deadline)(csh_client *k, uint64_t woke_us),
                            uint64_t seed, uint64_t hitch_us)
{
    csh *h = (csh *)calloc(1, sizeof *h);
    assert_non_null(h);
    tempo_link_params lp;
    memset(&lp, 0, sizeof lp);
    lp.latency_us = 40000;
    csh_init(h, seed, &lp, 2, NULL);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    csh_client *k = &h->cl[0];
    uint32_t sched = (uint32_t)seed * 2654435761u;
    loop_result settled = {0, 0, 0}, out = {0, 0, 0};
    bool hitched = false;
    int burst = 0;
    tempo_server_stats ss = {0};
    while (ss.frame < 60 * 20) {
        if (k->next_us < h->next_server_us) {
            h->now = k->next_us;
            tempo_simnet_set_time(h->net, h->now);
            uint64_t woke = h->now;
            csh_client_tick(h, k);
            uint64_t deadline = next_deadline(k, woke);
            burst = deadline <= woke ? burst + 1 : 0;
            out.burst = burst > out.burst ? burst : out.burst;
            k->next_us = (deadline > woke ? deadline : woke) + oversleep_us(&sched);
            if (hitch_us > 0 && !hitched && ss.frame >= 60 * 8) { /* the process froze */
                k->next_us += hitch_us;
                hitched = true;
            }
        } else {
            h->now = h->next_server_us;
            tempo_simnet_set_time(h->net, h->now);
            csh_server_tick(h);
            h->next_server_us += h->tick_us;
            tempo_server_get_stats(h->server, &ss);
            if (ss.frame == (hitch_us > 0 ? 60 * 10 : 60 * 5)) { /* settled: count from here */
                tempo_server_client_stats sc;
                tempo_server_get_client_stats(h->server, 0, &sc);
                tempo_client_stats cs;
                tempo_client_get_stats(k->c, &cs);
                settled.late = sc.late_inputs;
                settled.snaps = cs.snaps;
            }
        }
    }
    tempo_server_client_stats sc;
    tempo_server_get_client_stats(h->server, 0, &sc);
    tempo_client_stats cs;
    tempo_client_get_stats(k->c, &cs);
    assert_int_equal(cs.state, TEMPO_CLIENT_CONNECTED);
    assert_int_equal(k->load_mismatch, 0);
    out.late = sc.late_inputs - settled.late;
    out.snaps = cs.snaps - settled.snaps;
    csh_free(h);
    free(h);
    return out;
}

/* The loop docs/CLIENT-SERVER.md shows: sleep until the deadline the
 * client keeps. */
static uint64_t next_tick_at(csh_client *k, uint64_t woke_us)
{
    (void)woke_us;
    return tempo_client_next_tick_at(k->c);
}

/* What a loop written from the tick length alone does: sleep until the
 * tick's start plus the length tick sync asks for. */
static uint64_t from_tick_start(csh_client *k, uint64_t woke_us)
{
    return woke_us + tempo_client_tick_us(k->c);
}

static void test_the_documented_loop_under_oversleep_keeps_inputs_on_time(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        loop_result r = run_loop(next_tick_at, seed, 0);
        printf("seed %llu: sleeping until tempo_client_next_tick_at: %llu late inputs, %llu "
               "jumps in 15 s\n",
               (unsigned long long)seed, (unsigned long long)r.late, (unsigned long long)r.snaps);
        assert_true(r.late <= 3);
        assert_true(r.snaps <= 1);
    }
}

/* The scheduler is harsh enough to matter: the same client scheduling each
 * tick from its start falls behind and most of its inputs come late. */
static void test_a_loop_timed_from_each_ticks_start_drifts_under_the_same_oversleep(void **state)
{
    (void)state;
    loop_result r = run_loop(from_tick_start, 1, 0);
    printf("sleeping until start + tempo_client_tick_us: %llu late inputs, %llu jumps in 15 s\n",
           (unsigned long long)r.late, (unsigned long long)r.snaps);
    assert_true(r.late > 100);
}
/* A loop that froze for 50 ms runs the three ticks it missed back to back
 * and is on time again; one that froze for half a second (30 ticks, past
 * snap_ticks) is not asked to race through them: its deadline starts again
 * from now and tick sync jumps the lead instead. */
static void test_a_short_freeze_is_caught_up_and_a_long_one_is_not_raced(void **state)
{
    (void)state;
    loop_result r = run_loop(next_tick_at, 1, 50000);
    printf("after a 50 ms freeze: at most %d ticks back to back; then %llu late inputs, %llu "
           "jumps in 10 s\n",
           r.burst, (unsigned long long)r.late, (unsigned long long)r.snaps);
    assert_true(r.burst >= 2 && r.burst <= 4);
    assert_true(r.late <= 3);
    r = run_loop(next_tick_at, 1, 500000);
    printf("after a 500 ms freeze: at most %d ticks back to back; then %llu late inputs, %llu "
           "jumps in 10 s\n",
           r.burst, (unsigned long long)r.late, (unsigned long long)r.snaps);
    assert_true(r.burst <= 1);
    assert_true(r.late <= 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_documented_loop_under_oversleep_keeps_inputs_on_time),
        cmocka_unit_test(test_a_loop_timed_from_each_ticks_start_drifts_under_the_same_oversleep),
        cmocka_unit_test(test_a_short_freeze_is_caught_up_and_a_long_one_is_not_raced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
