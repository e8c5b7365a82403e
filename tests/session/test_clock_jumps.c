/* SPDX-License-Identifier: MIT */
/*
 * test_clock_jumps.c — a machine whose clock leaps (sleep and resume, a
 * breakpoint, a long load, a wall clock set) while the network carried
 * everything keeps its match: a forward jump is its own pause, a step back
 * is no time passing. A silence the others really saw still drops it.
 *
 * Two peers on a 25 ms link; peer 1's clock jumps between two of its polls
 * at about 20 s of play.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "p2p_harness.h"

static harness h;

#define JUMP_FRAME 1200 /* 20 s */
#define END_FRAME 2400

static void two_peers_on_25ms(uint64_t seed)
{
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "perfect", seed);
    tempo_link_params lp;
    memset(&lp, 0, sizeof lp);
    lp.latency_us = 25000;
    lp.jitter_us = 1500;
    assert_int_equal(tempo_simnet_set_link(h.net, &h.peer[0].addr, &h.peer[1].addr, &lp), TEMPO_OK);
    assert_int_equal(tempo_simnet_set_link(h.net, &h.peer[1].addr, &h.peer[0].addr, &lp), TEMPO_OK);
}

/* Run virtual time on until machine i has ticked once more. */
static void until_ticked(int i)
{
    uint32_t before = h.peer[i].samples;
    while (h.peer[i].samples == before)
        harness_run(&h, INT32_MAX, h.now_us + 1000);
}

/* Peer 1's clock jumps by `by_us` just before one of its polls, at which
 * datagrams from peer 0 are waiting or not. */
static void jump_at_20s(int64_t by_us, bool datagram_waiting)
{
    harness_run(&h, JUMP_FRAME, 60000000);
    assert_true(tempo_session_frame(h.peer[1].s) >= JUMP_FRAME);
    h_peer *p = &h.peer[1];
    if (datagram_waiting) { /* two ticks deaf: peer 0's inputs pile up */
        p->deaf = true;
        until_ticked(1);
        until_ticked(1);
        p->deaf = false;
    } else {
        until_ticked(1);
    }
    p->clock_offset_us += by_us;
    p->deaf = !datagram_waiting; /* the poll that sees the jump hears nothing */
    until_ticked(1);
    p->deaf = false;
}

static void assert_together_to_the_end(void)
{
    harness_run(&h, END_FRAME, 200000000);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(h.peer[i].disconnect_events, 0);
        assert_int_equal(h.peer[i].desync_events, 0);
        assert_int_equal(h.peer[i].poll_errors, 0);
        assert_true(tempo_session_frame(h.peer[i].s) >= END_FRAME);
        tempo_endpoint_stats es;
        assert_int_equal(tempo_session_get_endpoint_stats(h.peer[i].s, 1 - i, &es), TEMPO_OK);
        assert_false(es.disconnected);
        tempo_session_stats st;
        tempo_session_get_stats(h.peer[i].s, &st);
        assert_int_equal(st.desyncs, 0);
        assert_true(st.desync_checks > 60);
    }
    int32_t checked;
    assert_true(harness_converged(&h, false, &checked));
    assert_true(checked >= END_FRAME - 60);
}

static void forward_clock_jump_is_a_local_pause_and_the_match_goes_on(void **state)
{
    (void)state;
    const int64_t jumps[] = {10000000, 60000000};
    for (uint64_t seed = 1; seed <= 6; seed++)
        for (int j = 0; j < 2; j++)
            for (int waiting = 0; waiting < 2; waiting++) {
                two_peers_on_25ms(seed * 10 + (uint64_t)(j * 2 + waiting));
                jump_at_20s(jumps[j], waiting != 0);
                assert_together_to_the_end();
                harness_free(&h);
            }
}

static void round_trip_estimate_survives_a_jump(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        two_peers_on_25ms(seed);
        jump_at_20s(2000000, false); /* under the timeout: only the RTT could suffer */
        harness_run(&h, JUMP_FRAME + 120, 60000000);
        tempo_endpoint_stats es;
        assert_int_equal(tempo_session_get_endpoint_stats(h.peer[1].s, 0, &es), TEMPO_OK);
        assert_true(es.rtt_ms > 40.0 && es.rtt_ms < 90.0);
        assert_true(es.jitter_ms < 40.0);
        assert_together_to_the_end();
        harness_free(&h);
    }
}

static void backward_clock_step_is_no_time_passing(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        two_peers_on_25ms(seed);
        jump_at_20s(-1000000, false);
        tempo_endpoint_stats before, after;
        assert_int_equal(tempo_session_get_endpoint_stats(h.peer[1].s, 0, &before), TEMPO_OK);
        for (int k = 0; k < 30; k++) /* half a second: its clock is still behind */
            until_ticked(1);
        assert_int_equal(h.peer[1].poll_errors, 0);
        assert_int_equal(tempo_session_get_endpoint_stats(h.peer[1].s, 0, &after), TEMPO_OK);
        assert_true(after.packets_received >= before.packets_received + 20);
        assert_true(after.packets_sent >= before.packets_sent + 20);
        assert_true(after.rtt_ms > 40.0 && after.rtt_ms < 90.0);
        assert_together_to_the_end();
        harness_free(&h);
    }
}

static void jumps_are_counted(void **state)
{
    (void)state;
    two_peers_on_25ms(3);
    jump_at_20s(10000000, false);
    until_ticked(1);
    h.peer[1].clock_offset_us -= 500000;
    until_ticked(1);
    tempo_session_stats st;
    tempo_session_get_stats(h.peer[1].s, &st);
    assert_int_equal(st.clock_jumps, 2);
    tempo_session_get_stats(h.peer[0].s, &st);
    assert_int_equal(st.clock_jumps, 0);
    harness_free(&h);
}

/* Peer 1 stops for 10 s (no polls) while its clock runs on: to peer 0
 * that is a silence past the timeout, as is a blackout of the link. Both
 * drop the other, as they must. */
static void a_real_silence_past_the_timeout_still_drops_the_peer(void **state)
{
    (void)state;
    for (int blackout = 0; blackout < 2; blackout++) {
        two_peers_on_25ms(7 + (uint64_t)blackout);
        harness_run(&h, JUMP_FRAME, 60000000);
        if (blackout) {
            tempo_simnet_add_blackout(h.net, &h.peer[1].addr, NULL, h.now_us, h.now_us + 10000000);
            tempo_simnet_add_blackout(h.net, NULL, &h.peer[1].addr, h.now_us, h.now_us + 10000000);
        } else {
            h.peer[1].next_tick_us += 10000000.0;
        }
        harness_run(&h, END_FRAME, 200000000);
        for (int i = 0; i < 2; i++) {
            assert_int_equal(h.peer[i].disconnect_events, 1);
            tempo_endpoint_stats es;
            assert_int_equal(tempo_session_get_endpoint_stats(h.peer[i].s, 1 - i, &es), TEMPO_OK);
            assert_true(es.disconnected);
        }
        /* The one that stopped knows it was the one dropped (it lost its
         * peer only after its own pause); the other cannot tell a dead
         * peer from a cut, and neither can either side of a blackout. */
        assert_int_equal(h.peer[0].dropped_events, 0);
        assert_int_equal(h.peer[1].dropped_events, blackout ? 0 : 1);
        harness_free(&h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(forward_clock_jump_is_a_local_pause_and_the_match_goes_on),
        cmocka_unit_test(round_trip_estimate_survives_a_jump),
        cmocka_unit_test(backward_clock_step_is_no_time_passing),
        cmocka_unit_test(jumps_are_counted),
        cmocka_unit_test(a_real_silence_past_the_timeout_still_drops_the_peer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
