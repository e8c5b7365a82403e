/* SPDX-License-Identifier: MIT */
/*
 * test_p2p.c — peer-to-peer rollback sessions over the simulated network:
 * peers converge on every profile and player count, with several local
 * players, input delay changes, lockstep, blackouts, desyncs and drops.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "p2p_harness.h"

static harness h;

static void two_peers_converge_on_lan(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "lan", 1);
    harness_run(&h, 600, 30000000);
    int32_t checked;
    assert_true(harness_converged(&h, false, &checked));
    assert_true(checked > 500);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(h.peer[i].running_events, 1);
        assert_int_equal(h.peer[i].desync_events, 0);
        tempo_session_stats st;
        tempo_session_get_stats(h.peer[i].s, &st);
        assert_true(st.desync_checks >= 15);
        assert_int_equal(st.desyncs, 0);
    }
    harness_free(&h);
}


static void assert_converged(int32_t min_frames)
{
    int32_t checked;
    assert_true(harness_converged(&h, false, &checked));
    assert_true(checked >= min_frames);
    for (int i = 0; i < h.npeers; i++)
        if (!h.peer[i].dead)
            assert_int_equal(h.peer[i].desync_events, 0);
}

static void peers_converge_on_every_profile_with_2_4_8_players(void **state)
{
    (void)state;
    const char *profiles[] = {"lan", "broadband", "continental", "transatlantic", "mobile", "terrible"};
    int counts[] = {2, 4, 8};
    for (int pi = 0; pi < 6; pi++)
        for (int ci = 0; ci < 3; ci++) {
            int n = counts[ci];
            tempo_config c = harness_cfg(n);
            uint32_t m[8];
            harness_one_each(m, n);
            harness_init(&h, &c, n, m, 0, profiles[pi], 100 + (uint64_t)(pi * 3 + ci));
            harness_run(&h, 420, 120000000);
            assert_converged(300);
            uint64_t rollbacks = 0;
            for (int i = 0; i < n; i++) {
                tempo_session_stats st;
                tempo_session_get_stats(h.peer[i].s, &st);
                assert_true(st.max_rollback_depth <= c.max_prediction);
                assert_true(st.desync_checks > 0);
                rollbacks += st.rollbacks;
            }
            if (pi > 0) /* with latency, prediction and correction really happened */
                assert_true(rollbacks > 0);
            harness_free(&h);
        }
}

static void several_local_players_per_peer(void **state)
{
    (void)state;
    uint32_t layouts[][3] = {{0x7, 0x8, 0}, {0x3, 0x4, 0x8}, {0x5, 0xA, 0}};
    int peers[] = {2, 3, 2};
    for (int k = 0; k < 3; k++) {
        tempo_config c = harness_cfg(4);
        harness_init(&h, &c, peers[k], layouts[k], 0, "continental", 200 + (uint64_t)k);
        harness_run(&h, 500, 60000000);
        assert_converged(400);
        harness_free(&h);
    }
}

static void input_delay_changed_mid_match_on_one_peer(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "transatlantic", 300);
    harness_run(&h, 150, 60000000);
    assert_int_equal(tempo_session_set_input_delay(h.peer[1].s, 1, 4), TEMPO_OK);
    harness_run(&h, 300, 60000000);
    assert_int_equal(tempo_session_set_input_delay(h.peer[1].s, 1, 1), TEMPO_OK);
    harness_run(&h, 450, 60000000);
    assert_converged(380);
    harness_free(&h);
}

static void injected_desync_is_reported_by_every_peer_at_the_next_check(void **state)
{
    (void)state;
    for (int sp = 0; sp < 2; sp++) {
        tempo_config c = harness_cfg(3);
        c.save_policy = sp ? TEMPO_SAVE_SPARSE : TEMPO_SAVE_EVERY_FRAME;
        uint32_t m[3];
        harness_one_each(m, 3);
        harness_init(&h, &c, 3, m, 0, "broadband", 400 + (uint64_t)sp);
        tempo_session_set_input_delay(h.peer[0].s, 0, 2); /* works with input delay too */
        h.peer[1].corrupt_at = 100; /* state 100 differs on peer 1: check 120 catches it */
        harness_run(&h, 300, 60000000);
        for (int i = 0; i < 3; i++) {
            assert_true(h.peer[i].desync_events >= 1);
            assert_int_equal(h.peer[i].first_desync_frame, 120);
            tempo_session_stats st;
            tempo_session_get_stats(h.peer[i].s, &st);
            /* once per frame: every later check differs too, one event each */
            assert_int_equal((uint64_t)h.peer[i].desync_events, st.desyncs);
        }
        harness_free(&h);
    }
}

static void one_of_three_peers_drops_and_the_others_converge(void **state)
{
    (void)state;
    for (uint64_t seed = 500; seed < 506; seed++) {
        tempo_config c = harness_cfg(3);
        uint32_t m[3];
        harness_one_each(m, 3);
        harness_init(&h, &c, 3, m, 0, seed % 2 ? "continental" : "mobile", seed);
        harness_run(&h, 200, 60000000);
        harness_kill(&h, 2);
        harness_run(&h, 700, 120000000);
        assert_true(tempo_session_frame(h.peer[0].s) >= 700);
        assert_converged(600);
        for (int i = 0; i < 2; i++) {
            assert_int_equal(h.peer[i].disconnect_events, 1);
            tempo_endpoint_stats es;
            tempo_session_get_endpoint_stats(h.peer[i].s, 2, &es);
            assert_true(es.disconnected);
            /* the dropped player plays as disconnected from the same frame on */
            assert_int_equal(h.peer[i].d->used_status[650][2], TEMPO_INPUT_DISCONNECTED);
        }
        harness_free(&h);
    }
}

static void blackout_fills_the_window_then_the_match_recovers(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "broadband", 600);
    harness_run(&h, 120, 60000000);
    uint64_t t = h.now_us;
    tempo_simnet_add_blackout(h.net, NULL, NULL, t, t + 2000000);
    harness_run(&h, 600, 120000000);
    assert_converged(500);
    for (int i = 0; i < 2; i++) {
        assert_true(h.peer[i].waiting_ticks > 60); /* about 2 s minus the window */
        assert_int_equal(h.peer[i].disconnect_events, 0);
    }
    harness_free(&h);
}

static void strangers_wrong_session_and_garbage_are_dropped_and_counted(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "lan", 700);
    tempo_address stranger_addr = tempo_address_ipv4(10, 9, 9, 9, 7000);
    tempo_transport stranger;
    assert_int_equal(tempo_simnet_add_node(h.net, &stranger_addr, &stranger), TEMPO_OK);
    harness_run(&h, 100, 60000000);
    /* a real packet of this protocol: peer 1's next datagram, replayed */
    uint8_t junk[64];
    tempo_rng r;
    tempo_rng_seed(&r, 1, 2);
    for (int k = 0; k < 200; k++) {
        for (size_t i = 0; i < sizeof junk; i++)
            junk[i] = (uint8_t)tempo_rng_next(&r);
        stranger.send(stranger.ctx, &h.peer[0].addr, junk, 1 + (size_t)k % sizeof junk);
        /* from a known address: garbage, and a header with another session id */
        h.peer[1].tr.send(h.peer[1].tr.ctx, &h.peer[0].addr, junk, 1 + (size_t)k % sizeof junk);
        uint8_t wrong[12] = {0};
        memcpy(wrong, junk, sizeof wrong);
        h.peer[1].tr.send(h.peer[1].tr.ctx, &h.peer[0].addr, wrong, sizeof wrong);
        harness_run(&h, 100 + 2 * (k + 1), 60000000);
    }
    harness_run(&h, 600, 60000000);
    assert_converged(500);
    tempo_session_stats st;
    tempo_session_get_stats(h.peer[0].s, &st);
    assert_int_equal(st.dropped_unknown, 200);
    assert_true(st.dropped_malformed + st.dropped_session >= 390);
    harness_free(&h);
}

static void lockstep_converges_with_input_delay(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        tempo_config c = harness_cfg(3);
        c.max_prediction = 0;
        uint32_t m[3];
        harness_one_each(m, 3);
        harness_init(&h, &c, 3, m, 0, k ? "continental" : "lan", 800 + (uint64_t)k);
        for (int i = 0; i < 3; i++)
            tempo_session_set_input_delay(h.peer[i].s, i, k ? 6 : 2);
        harness_run(&h, 400, 60000000);
        assert_converged(350);
        for (int i = 0; i < 3; i++) {
            tempo_session_stats st;
            tempo_session_get_stats(h.peer[i].s, &st);
            assert_int_equal(st.rollbacks, 0);
            assert_int_equal(st.mispredicted_frames, 0);
        }
        harness_free(&h);
    }
}

static void spectator_falls_behind_in_a_blackout_and_catches_up(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 1, "broadband", 900);
    harness_run(&h, 200, 60000000);
    h_peer *sp = &h.peer[2];
    tempo_simnet_add_blackout(h.net, &h.peer[0].addr, &sp->addr, h.now_us, h.now_us + 2000000);
    tempo_simnet_add_blackout(h.net, &sp->addr, &h.peer[0].addr, h.now_us, h.now_us + 2000000);
    int32_t host_before = tempo_session_frame(h.peer[0].s);
    harness_run(&h, host_before + 120, 60000000);
    /* the match did not wait for the spectator */
    int32_t behind = tempo_session_frame(h.peer[0].s) - tempo_session_frame(sp->s);
    assert_true(behind > 90);
    int max_step = 0;
    for (int k = 0; k < 400 && tempo_session_frame(h.peer[0].s) - tempo_session_frame(sp->s) > 6; k++) {
        harness_run(&h, tempo_session_frame(h.peer[0].s) + 1, 60000000);
        if (sp->last.frames_advanced > max_step)
            max_step = sp->last.frames_advanced;
    }
    assert_true(tempo_session_frame(h.peer[0].s) - tempo_session_frame(sp->s) <= 6);
    assert_true(max_step <= c.spectator_catchup_frames); /* bounded catch-up speed */
    int32_t checked;
    assert_true(harness_converged(&h, true, &checked));
    assert_true(checked > 300);
    harness_free(&h);
}

static void silent_spectator_never_harms_the_match(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 1, "lan", 1000);
    harness_run(&h, 100, 60000000);
    harness_kill(&h, 2);
    harness_run(&h, 600, 60000000);
    assert_converged(500);
    for (int i = 0; i < 2; i++)
        assert_true(h.peer[i].waiting_ticks < 5);
    tempo_endpoint_stats es;
    assert_int_equal(tempo_session_get_spectator_stats(h.peer[0].s, 0, &es), TEMPO_OK);
    assert_true(es.disconnected);
    harness_free(&h);
}

/* The host sends a dropped player's frames as zeros, delta-coded like any
 * other: the spectator must decode them, play them as DISCONNECTED, and go on. */
static void spectator_plays_through_a_dropped_player(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        tempo_config c = harness_cfg(3);
        uint32_t m[3];
        harness_one_each(m, 3);
        harness_init(&h, &c, 3, m, 1, seed == 2 ? "mobile" : "broadband", 1200 + seed);
        harness_run(&h, 300, 60000000);
        harness_kill(&h, 2);
        harness_run(&h, 700, 120000000);
        h_peer *sp = &h.peer[3];
        harness_run(&h, tempo_session_frame(h.peer[0].s) + 30, 120000000);
        assert_true(tempo_session_frame(sp->s) >= 650);
        assert_int_equal(sp->disconnect_events, 1);
        int32_t checked;
        assert_true(harness_converged(&h, true, &checked));
        assert_true(checked >= 650);
        assert_int_equal(sp->d->used_status[640][2], TEMPO_INPUT_DISCONNECTED);
        harness_free(&h);
    }
}

typedef struct counting_alloc {
    int allocs, live;
} counting_alloc;

static void *ca_alloc(void *ctx, size_t size)
{
    counting_alloc *c = ctx;
    c->allocs++;
    c->live++;
    return malloc(size);
}

static void ca_free(void *ctx, void *p)
{
    counting_alloc *c = ctx;
    c->live--;
    free(p);
}

/* Ticking a network session allocates nothing: handshake, inputs, time
 * sync, checksums, a spectator and a dropped peer included. */
static void network_sessions_never_allocate_while_ticking(void **state)
{
    (void)state;
    counting_alloc ca = {0, 0};
    tempo_config c = harness_cfg(3);
    c.allocator.alloc = ca_alloc;
    c.allocator.free = ca_free;
    c.allocator.ctx = &ca;
    c.auto_delay.enabled = true;
    uint32_t m[3];
    harness_one_each(m, 3);
    harness_init(&h, &c, 3, m, 1, "continental", 1300);
    int after_create = ca.allocs;
    harness_run(&h, 300, 60000000);
    harness_kill(&h, 2);
    harness_run(&h, 600, 120000000);
    assert_int_equal(ca.allocs, after_create);
    assert_true(tempo_session_frame(h.peer[0].s) >= 600);
    harness_free(&h);
    assert_int_equal(ca.live, 0);
}

/* The automatic delay's first value, from the handshake's pings, is an
 * INPUT_DELAY event like every later change. */
static void automatic_delay_announces_its_first_value(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    c.auto_delay.enabled = true;
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "transatlantic", 1400);
    harness_run(&h, 30, 10000000);
    for (int i = 0; i < 2; i++) {
        tempo_session_stats st;
        assert_int_equal(tempo_session_get_stats(h.peer[i].s, &st), TEMPO_OK);
        assert_true(h.peer[i].delay_before_running);
        assert_true(st.input_delay > 0);
        assert_int_equal(h.peer[i].last_input_delay, st.input_delay);
    }
    harness_free(&h);
}

static void endpoint_stats_measure_rtt_and_loss(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "transatlantic", 1100);
    harness_run(&h, 900, 60000000);
    tempo_endpoint_stats es;
    assert_int_equal(tempo_session_get_endpoint_stats(h.peer[0].s, 1, &es), TEMPO_OK);
    /* 2 x 75 ms, plus up to one tick of polling at each end */
    assert_true(es.rtt_ms > 140 && es.rtt_ms < 200);
    assert_true(es.jitter_ms > 1 && es.jitter_ms < 40);
    assert_true(es.loss < 0.10);
    assert_true(es.packets_received > 800 && es.bytes_received > 8000);
    assert_true(es.send_bytes_per_s > 300);
    assert_true(es.synchronized && !es.disconnected);
    assert_int_equal(tempo_session_get_endpoint_stats(h.peer[0].s, 0, &es), TEMPO_E_PLAYER);
    harness_free(&h);
}

/* Check frames machine i and machine j have both confirmed. */
static uint64_t common_check_frames(int i, int j, int32_t back)
{
    int32_t a = tempo_session_confirmed_frame(h.peer[i].s);
    int32_t b = tempo_session_confirmed_frame(h.peer[j].s);
    int32_t c = (a < b ? a : b) - back;
    return c > 0 ? (uint64_t)(c / h.cfg.desync_interval) : 0;
}

/* Under 15% loss, duplicates and reordering, every check frame both sides
 * confirmed over a second ago was compared, once, by every peer with every
 * other peer and by the spectator with its host. */
static void every_desync_check_is_made_under_heavy_loss(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        tempo_config c = harness_cfg(3);
        c.desync_interval = 10;
        uint32_t m[3];
        harness_one_each(m, 3);
        harness_init(&h, &c, 3, m, 1, "terrible", 1400 + seed);
        harness_run(&h, 1200, 120000000);
        for (int i = 0; i < 4; i++) {
            uint64_t surely = 0, at_most = 0;
            for (int j = 0; j < 4; j++) {
                bool pair = i == 3 ? j == 0 : j != i && j != 3;
                if (!pair)
                    continue;
                surely += common_check_frames(i, j, 60);
                at_most += common_check_frames(i, j, 0);
            }
            tempo_session_stats st;
            tempo_session_get_stats(h.peer[i].s, &st);
            if (st.desync_checks < surely || st.desync_checks > at_most)
                fail_msg("seed %d machine %d: %d checks made, expected %d to %d", (int)seed, i,
                         (int)st.desync_checks, (int)surely, (int)at_most);
            assert_int_equal(st.desyncs, 0);
            assert_int_equal(st.desync_checks_missed, 0);
            assert_int_equal(st.checksums_ignored, 0);
        }
        harness_free(&h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_peers_converge_on_lan),
        cmocka_unit_test(peers_converge_on_every_profile_with_2_4_8_players),
        cmocka_unit_test(several_local_players_per_peer),
        cmocka_unit_test(input_delay_changed_mid_match_on_one_peer),
        cmocka_unit_test(injected_desync_is_reported_by_every_peer_at_the_next_check),
        cmocka_unit_test(one_of_three_peers_drops_and_the_others_converge),
        cmocka_unit_test(blackout_fills_the_window_then_the_match_recovers),
        cmocka_unit_test(strangers_wrong_session_and_garbage_are_dropped_and_counted),
        cmocka_unit_test(lockstep_converges_with_input_delay),
        cmocka_unit_test(spectator_falls_behind_in_a_blackout_and_catches_up),
        cmocka_unit_test(silent_spectator_never_harms_the_match),
        cmocka_unit_test(spectator_plays_through_a_dropped_player),
        cmocka_unit_test(network_sessions_never_allocate_while_ticking),
        cmocka_unit_test(endpoint_stats_measure_rtt_and_loss),
        cmocka_unit_test(automatic_delay_announces_its_first_value),
        cmocka_unit_test(every_desync_check_is_made_under_heavy_loss),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
