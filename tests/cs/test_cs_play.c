/* SPDX-License-Identifier: MIT */
/*
 * test_cs_play.c — client-server matches end to end over simulated
 * networks: clients load exactly the server's states, see their own input
 * at once, replay without corrections, and recover from disconnects.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "cs_harness.h"

static csh *new_match(uint64_t seed, uint32_t latency_us, uint32_t jitter_us, double loss,
                      int players)
{
    csh *h = (csh *)calloc(1, sizeof *h);
    assert_non_null(h);
    tempo_link_params lp;
    memset(&lp, 0, sizeof lp);
    lp.latency_us = latency_us;
    lp.jitter_us = jitter_us;
    lp.loss = loss;
    csh_init(h, seed, &lp, players, NULL);
    return h;
}

static void expect_exact_loads(const csh *h, int min_loads)
{
    for (int i = 0; i < h->n; i++) {
        const csh_client *k = &h->cl[i];
        tempo_client_stats cs;
        tempo_client_get_stats(k->c, &cs);
        printf("client %d: loads %d mismatch %d errors %d lag %d snapshots %llu full %llu "
               "dropped %llu late %llu stalls %llu snaps %llu lead %.2f margin %.2f earliness %.2f "
               "rtt %.1f\n",
               i, k->loads, k->load_mismatch, k->errors, k->input_lag_violations,
               (unsigned long long)cs.snapshots, (unsigned long long)cs.full_snapshots,
               (unsigned long long)cs.snapshots_dropped, (unsigned long long)cs.late_inputs,
               (unsigned long long)cs.stall_ticks, (unsigned long long)cs.snaps, cs.lead_ticks,
               cs.margin_ticks, cs.earliness_ticks, cs.rtt_ms);
        assert_int_equal(cs.state, TEMPO_CLIENT_CONNECTED);
        assert_true(k->loads >= min_loads);
        assert_int_equal(k->load_mismatch, 0);
        assert_int_equal(k->errors, 0);
        assert_int_equal(k->input_lag_violations, 0);
        /* the newest state it loaded is the server's state of that tick */
        assert_true(k->last_load > 0);
        assert_true(csh_hash(&h->sg) != 0);
    }
}

/* The server played, in every tick of [from, to), each client's input. */
static void expect_server_played_client_inputs(const csh *h, int from, int to)
{
    for (int i = 0; i < h->n; i++) {
        uint64_t mine = tempo_client_local_players(h->cl[i].c);
        int slot = 0;
        while (!(mine >> slot & 1u))
            slot++;
        int differ = 0;
        for (int t = from; t < to; t++)
            differ += memcmp(h->server_used[t] + slot * CSH_INPUT, h->cl[i].sent[t], CSH_INPUT) != 0;
        assert_int_equal(differ, 0);
    }
}

static void test_two_clients_over_75ms_load_the_servers_states(void **state)
{
    (void)state;
    csh *h = new_match(1, 75000, 0, 0.0, 2);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 3000, true, false), TEMPO_OK);
    csh_run(h, 600);
    expect_exact_loads(h, 400);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    for (int i = 0; i < 2; i++) {
        tempo_server_client_stats sc;
        tempo_server_get_client_stats(h->server, i, &sc);
        printf("server: client %d late %llu dropped %llu earliness %.2f last input %d acked %d\n", i,
               (unsigned long long)sc.late_inputs, (unsigned long long)sc.inputs_dropped,
               sc.earliness_ticks, sc.last_input_tick, sc.acked_snapshot);
    }
    assert_int_equal(ss.clients, 2);
    assert_int_equal(ss.connects, 2);
    expect_server_played_client_inputs(h, 300, 590);
    csh_free(h);
    free(h);
}

static void test_two_clients_over_150ms_with_2pct_loss_load_the_servers_states(void **state)
{
    (void)state;
    csh *h = new_match(2, 150000, 0, 0.02, 2);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 2000, true, false), TEMPO_OK);
    csh_run(h, 900);
    expect_exact_loads(h, 500);
    expect_server_played_client_inputs(h, 300, 890);
    csh_free(h);
    free(h);
}


/* One moving client, the other slot empty: nothing but its own input moves
 * the world, so with replay its prediction of every tick is exact. */
static csh *solo(tempo_reconcile_mode mode)
{
    csh *h = new_match(3, 50000, 0, 0.0, 2);
    h->ccfg.reconcile = mode;
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, true), TEMPO_OK);
    csh_run(h, 600);
    return h;
}

static void test_solo_replay_makes_no_correction(void **state)
{
    (void)state;
    csh *h = solo(TEMPO_RECONCILE_REPLAY);
    tempo_client_stats cs;
    tempo_client_get_stats(h->cl[0].c, &cs);
    printf("replay: snapshots %llu corrections %llu resim %llu\n",
           (unsigned long long)cs.snapshots, (unsigned long long)cs.corrections,
           (unsigned long long)cs.resim_frames);
    assert_true(cs.snapshots > 500);
    assert_true(cs.resim_frames > 500 * 3); /* it did replay */
    assert_int_equal(cs.corrections, 0);
    assert_true(cs.correction_max == 0.0);
    csh_free(h);
    free(h);
}

static void test_solo_without_replay_corrects_nearly_every_snapshot(void **state)
{
    (void)state;
    csh *h = solo(TEMPO_RECONCILE_NONE);
    tempo_client_stats cs;
    tempo_client_get_stats(h->cl[0].c, &cs);
    printf("none: snapshots %llu corrections %llu max %.0f\n", (unsigned long long)cs.snapshots,
           (unsigned long long)cs.corrections, cs.correction_max);
    assert_true(cs.snapshots > 500);
    assert_int_equal(cs.resim_frames, 0);
    assert_true(cs.corrections * 10 >= cs.snapshots * 9);
    csh_free(h);
    free(h);
}

static void test_the_reconcile_mode_switches_at_run_time(void **state)
{
    (void)state;
    csh *h = solo(TEMPO_RECONCILE_REPLAY);
    tempo_client_stats before, after;
    tempo_client_get_stats(h->cl[0].c, &before);
    assert_int_equal(tempo_client_set_reconcile(h->cl[0].c, TEMPO_RECONCILE_NONE), TEMPO_OK);
    assert_int_equal(tempo_client_set_reconcile(h->cl[0].c, (tempo_reconcile_mode)7),
                     TEMPO_E_INVALID_ARG);
    csh_run(h, 900);
    tempo_client_get_stats(h->cl[0].c, &after);
    assert_int_equal(before.corrections, 0);
    assert_true(after.corrections >= 250);
    assert_int_equal(after.resim_frames, before.resim_frames);
    csh_free(h);
    free(h);
}

static void test_late_inputs_stay_under_one_a_minute_at_1pct_loss_and_10ms_jitter(void **state)
{
    (void)state;
    csh *h = new_match(4, 40000, 10000, 0.01, 2);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 5000, true, false), TEMPO_OK);
    csh_run(h, 600); /* settle: 10 s */
    uint64_t late0[2];
    for (int i = 0; i < 2; i++) {
        tempo_server_client_stats sc;
        tempo_server_get_client_stats(h->server, i, &sc);
        late0[i] = sc.late_inputs;
    }
    csh_run(h, 600 + 3 * 3600); /* three minutes */
    for (int i = 0; i < 2; i++) {
        tempo_server_client_stats sc;
        tempo_server_get_client_stats(h->server, i, &sc);
        tempo_client_stats cs;
        tempo_client_get_stats(h->cl[i].c, &cs);
        printf("client %d: late while settling %llu, then %llu in 3 min; earliness %.2f margin "
               "%.2f snaps %llu stalls %llu\n",
               i, (unsigned long long)late0[i], (unsigned long long)(sc.late_inputs - late0[i]),
               sc.earliness_ticks, cs.margin_ticks, (unsigned long long)cs.snaps,
               (unsigned long long)cs.stall_ticks);
        assert_true(sc.late_inputs - late0[i] <= 3);
        assert_int_equal(h->cl[i].load_mismatch, 0);
    }
    csh_free(h);
    free(h);
}

/* Both ends measure RFC 3550's interarrival jitter of what the other sends
 * every tick (the client of snapshots, the server of inputs, each stamped
 * with the sender's tick): near zero on a steady link; on a jittery one,
 * the client about the link's 2s/sqrt(pi) (9 ms for s = 8 ms), the server,
 * which reads only at its ticks, what the whole ticks show of it. */
static void test_both_ends_measure_the_arrival_jitter(void **state)
{
    (void)state;
    for (int jittery = 0; jittery <= 1; jittery++) {
        csh *h = new_match(6, 30000, jittery ? 8000 : 0, 0.0, 1);
        assert_int_equal(csh_start_server(h), TEMPO_OK);
        assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
        csh_run(h, 900);
        tempo_server_client_stats sc;
        assert_int_equal(tempo_server_get_client_stats(h->server, 0, &sc), TEMPO_OK);
        tempo_client_stats cs;
        tempo_client_get_stats(h->cl[0].c, &cs);
        printf("jitter %s: server measures %.2f ms, client %.2f ms\n", jittery ? "8 ms" : "none",
               sc.jitter_ms, cs.jitter_ms);
        if (jittery) {
            assert_true(sc.jitter_ms > 1.5 && sc.jitter_ms < 18.0);
            assert_true(cs.jitter_ms > 4.5 && cs.jitter_ms < 18.0);
        } else {
            assert_true(sc.jitter_ms < 1.0);
            assert_true(cs.jitter_ms < 1.0);
        }
        csh_free(h);
        free(h);
    }
}

static void test_a_leaving_client_frees_its_slot_for_the_next(void **state)
{
    (void)state;
    csh *h = new_match(5, 30000, 0, 0.0, 2);
    h->scfg.disconnect_timeout_ms = 1000;
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 2000, true, false), TEMPO_OK);
    csh_run(h, 120);
    uint64_t slots1 = tempo_client_local_players(h->cl[1].c);
    /* client 0 says goodbye; client 1 falls silent */
    assert_int_equal(tempo_client_disconnect(h->cl[0].c), TEMPO_OK);
    h->cl[0].running = false;
    h->cl[1].running = false;
    csh_run(h, 240);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    assert_int_equal(ss.clients, 0);
    assert_int_equal(ss.disconnects, 2);
    assert_int_equal(ss.timeouts, 1);
    tempo_server_event ev;
    int connected = 0, left = 0, timed_out = 0;
    while (tempo_server_poll_event(h->server, &ev)) {
        connected += ev.kind == TEMPO_SERVER_CLIENT_CONNECTED;
        left += ev.kind == TEMPO_SERVER_CLIENT_DISCONNECTED;
        timed_out += ev.kind == TEMPO_SERVER_CLIENT_DISCONNECTED && ev.timed_out;
        assert_true(ev.slots == 1u || ev.slots == 2u);
    }
    assert_int_equal(connected, 2);
    assert_int_equal(left, 2);
    assert_int_equal(timed_out, 1);
    /* a newcomer takes the first free slot and plays */
    assert_int_equal(csh_add_client(h, h->now + 1000, true, false), TEMPO_OK);
    csh_run(h, 480);
    tempo_server_get_stats(h->server, &ss);
    assert_int_equal(ss.clients, 1);
    assert_int_equal(ss.connects, 3);
    assert_int_equal(tempo_client_local_players(h->cl[2].c), 1u);
    assert_true(slots1 == 2u);
    assert_true(h->cl[2].loads > 100);
    assert_int_equal(h->cl[2].load_mismatch, 0);
    csh_free(h);
    free(h);
}

static void test_a_kicked_client_is_told_and_its_slot_freed(void **state)
{
    (void)state;
    csh *h = new_match(6, 20000, 0, 0.0, 2);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    csh_run(h, 60);
    assert_int_equal(tempo_server_kick(h->server, 0), TEMPO_OK);
    assert_int_equal(tempo_server_kick(h->server, 0), TEMPO_E_PLAYER);
    csh_run(h, 90);
    tempo_client_stats cs;
    tempo_client_get_stats(h->cl[0].c, &cs);
    assert_int_equal(cs.state, TEMPO_CLIENT_DISCONNECTED);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    assert_int_equal(ss.clients, 0);
    assert_int_equal(ss.timeouts, 0);
    csh_free(h);
    free(h);
}

static void test_a_full_server_denies_the_next_client(void **state)
{
    (void)state;
    csh *h = new_match(7, 20000, 0, 0.0, 1);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 200000, true, false), TEMPO_OK);
    csh_run(h, 60);
    tempo_client_stats cs;
    tempo_client_get_stats(h->cl[1].c, &cs);
    assert_int_equal(cs.state, TEMPO_CLIENT_DENIED);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    assert_int_equal(ss.clients, 1);
    assert_true(ss.denied_full >= 1);
    csh_free(h);
    free(h);
}

static void test_64_clients_play_on_one_server(void **state)
{
    (void)state;
    csh *h = new_match(8, 30000, 2000, 0.0, 64);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    for (int i = 0; i < 64; i++)
        assert_int_equal(csh_add_client(h, 1000 + (uint64_t)i * 500, true, false), TEMPO_OK);
    csh_run(h, 300);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    assert_int_equal(ss.clients, 64);
    uint64_t slots = 0;
    for (int i = 0; i < 64; i++) {
        slots |= tempo_client_local_players(h->cl[i].c);
        assert_true(h->cl[i].loads > 200);
        assert_int_equal(h->cl[i].load_mismatch, 0);
        assert_int_equal(h->cl[i].errors, 0);
    }
    assert_true(slots == UINT64_MAX);
    csh_free(h);
    free(h);
}

/* The client's machine freezes for 20 ticks (its loop does not run): its
 * lead collapses and its inputs arrive late; tick sync jumps ahead once and
 * its inputs are early again. */
static void test_a_hitch_of_the_client_snaps_its_lead_back(void **state)
{
    (void)state;
    csh *h = new_match(9, 40000, 0, 0.0, 2);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    csh_run(h, 600);
    assert_int_equal(h->cl[0].snap_events, 0); /* settled: no jump */
    tempo_client_stats before;
    tempo_client_get_stats(h->cl[0].c, &before);
    h->cl[0].next_us += 20 * h->tick_us;
    csh_run(h, 1200);
    tempo_client_stats after;
    tempo_client_get_stats(h->cl[0].c, &after);
    tempo_server_client_stats sc;
    tempo_server_get_client_stats(h->server, 0, &sc);
    printf("hitch: snaps %d (%+d ticks), late %llu, earliness %.2f margin %.2f\n",
           h->cl[0].snap_events, h->cl[0].snap_sum, (unsigned long long)sc.late_inputs,
           sc.earliness_ticks, after.margin_ticks);
    assert_int_equal(h->cl[0].snap_events, 1);
    assert_true(h->cl[0].snap_sum >= 15 && h->cl[0].snap_sum <= 25);
    assert_true(sc.earliness_ticks > 0.5);
    assert_true(sc.late_inputs <= 25);
    assert_int_equal(h->cl[0].load_mismatch, 0);
    csh_free(h);
    free(h);
}

static void test_snapshots_every_third_tick_still_load_exactly(void **state)
{
    (void)state;
    csh *h = new_match(14, 50000, 3000, 0.01, 2);
    h->scfg.snapshot_interval = 3;
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 4000, true, false), TEMPO_OK);
    csh_run(h, 600);
    expect_exact_loads(h, 180);
    for (int i = 0; i < h->n; i++) {
        assert_true(h->cl[i].loads <= 200);
        assert_int_equal(h->cl[i].last_load % 3, 0);
    }
    expect_server_played_client_inputs(h, 200, 590);
    csh_free(h);
    free(h);
}

static void test_a_client_with_two_slots_plays_both(void **state)
{
    (void)state;
    csh *h = new_match(15, 40000, 0, 0.0, 3);
    h->scfg.max_slots_per_client = 2;
    h->ccfg.slots = 2;
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    h->ccfg.slots = 1;
    assert_int_equal(csh_add_client(h, 200000, true, false), TEMPO_OK);
    csh_run(h, 600);
    expect_exact_loads(h, 400);
    assert_true(tempo_client_local_players(h->cl[0].c) == 3u);
    assert_true(tempo_client_local_players(h->cl[1].c) == 4u);
    /* both slots of the first client played its input */
    for (int t = 100; t < 590; t++) {
        assert_memory_equal(h->server_used[t], h->cl[0].sent[t], CSH_INPUT);
        assert_memory_equal(h->server_used[t] + CSH_INPUT, h->cl[0].sent[t], CSH_INPUT);
    }
    csh_free(h);
    free(h);
}

static void test_a_client_400ms_away_still_loads_exactly(void **state)
{
    (void)state;
    csh *h = new_match(16, 400000, 5000, 0.01, 2);
    h->scfg.snapshot_history = 64; /* baselines a round trip (49 ticks) old */
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    csh_run(h, 900);
    expect_exact_loads(h, 600);
    tempo_client_stats cs;
    tempo_client_get_stats(h->cl[0].c, &cs);
    assert_int_equal(cs.snapshots_dropped, 0);
    assert_true(cs.full_snapshots < 60); /* deltas once acks come back */
    expect_server_played_client_inputs(h, 300, 890);
    csh_free(h);
    free(h);
}

/* A client driven once per server tick: a new input every tick (never
 * zero), and a count of ADVANCEs of ticks it skipped in a forward jump
 * that carried that tick's input instead of zeros. */
typedef struct jump_watch {
    uint8_t next;
    int jumps, jumped_frames, repeated;
} jump_watch;

static void drive_and_watch(csh *h, void *ctx)
{
    jump_watch *w = (jump_watch *)ctx;
    csh_client *k = &h->cl[0];
    tempo_client_poll(k->c, h->now);
    tempo_client_event ev;
    while (tempo_client_poll_event(k->c, &ev))
        if (ev.kind == TEMPO_CLIENT_EVENT_SNAP && ev.ticks > 0)
            w->jumps++;
    uint64_t mine = tempo_client_local_players(k->c);
    if (mine == 0) {
        tempo_client_tick tk;
        tempo_client_advance(k->c, &tk);
        return;
    }
    uint8_t in[CSH_INPUT] = {0, 0, 0, 0};
    w->next = (uint8_t)(w->next % 250 + 1);
    in[2] = w->next;
    tempo_client_add_local_input(k->c, 0, in, sizeof in);
    tempo_client_tick tk;
    tempo_client_advance(k->c, &tk);
    if (tk.frames_advanced < 2)
        return;
    for (int i = 0; i < tk.num_requests; i++) {
        const tempo_request *r = &tk.requests[i];
        if (r->kind != TEMPO_REQUEST_ADVANCE || r->resimulating || r->frame == tk.frame - 1)
            continue;
        w->jumped_frames++;
        w->repeated += memcmp(r->inputs, in, CSH_INPUT) == 0;
    }
}

/* The client's inputs suddenly arrive 18 ticks late: tick sync jumps
 * forward, stepping the ticks it skips at once. No input was given for
 * them, so they play zeros (as the first ticks do), not the input of the
 * tick the jump happened on, which would play it several times. */
static void test_a_forward_jump_plays_zeros_for_the_ticks_it_skips(void **state)
{
    (void)state;
    csh *h = new_match(17, 40000, 0, 0.0, 2);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, false, false), TEMPO_OK);
    h->cl[0].running = false;
    jump_watch w;
    memset(&w, 0, sizeof w);
    h->extra = drive_and_watch;
    h->extra_ctx = &w;
    csh_run(h, 300);
    assert_int_equal(w.jumps, 0);
    tempo_link_params slow;
    memset(&slow, 0, sizeof slow);
    slow.latency_us = 340000;
    assert_int_equal(tempo_simnet_set_link(h->net, &h->cl[0].addr, &h->saddr, &slow), TEMPO_OK);
    csh_run(h, 900);
    printf("forward jumps %d, skipped ticks stepped %d, with the tick's input %d\n", w.jumps,
           w.jumped_frames, w.repeated);
    assert_true(w.jumps >= 1);
    assert_true(w.jumped_frames >= 10);
    assert_int_equal(w.repeated, 0);
    csh_free(h);
    free(h);
}

/* A client driven once per server tick that presses once, on the first
 * tick it stalls, and gives no input after it; what its next stepped
 * tick played. */
typedef struct stall_watch {
    bool pressed, stepped;
    uint8_t played[CSH_INPUT];
} stall_watch;

static void press_while_stalled(csh *h, void *ctx)
{
    stall_watch *w = (stall_watch *)ctx;
    csh_client *k = &h->cl[0];
    tempo_client_poll(k->c, h->now);
    tempo_client_event ev;
    while (tempo_client_poll_event(k->c, &ev)) {
    }
    tempo_client_stats cs;
    tempo_client_get_stats(k->c, &cs);
    const uint8_t press[CSH_INPUT] = {0, 0, 7, 0};
    if (!w->pressed && cs.stall_ticks > 0 && tempo_client_local_players(k->c) != 0) {
        tempo_client_add_local_input(k->c, 0, press, sizeof press);
        w->pressed = true;
    }
    tempo_client_tick tk;
    tempo_client_advance(k->c, &tk);
    if (w->pressed && !w->stepped && tk.frames_advanced > 0) {
        const tempo_request *last = &tk.requests[tk.num_requests - 1];
        memcpy(w->played, last->inputs, CSH_INPUT);
        w->stepped = true;
    }
}

/* No snapshot comes for a second: the client stops 63 ticks ahead and
 * stalls. An input given on a stalled tick goes to the next tick that is
 * stepped, instead of being dropped with the tick that was not. */
static void test_an_input_given_while_stalled_plays_in_the_next_tick(void **state)
{
    (void)state;
    csh *h = new_match(18, 40000, 0, 0.0, 2);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, false, false), TEMPO_OK);
    h->cl[0].running = false;
    stall_watch w;
    memset(&w, 0, sizeof w);
    h->extra = press_while_stalled;
    h->extra_ctx = &w;
    csh_run(h, 120);
    assert_int_equal(tempo_simnet_add_blackout(h->net, &h->saddr, &h->cl[0].addr, h->now,
                                               h->now + 1500000),
                     TEMPO_OK);
    csh_run(h, 360);
    assert_true(w.pressed);
    assert_true(w.stepped);
    assert_int_equal(w.played[2], 7);
    csh_free(h);
    free(h);
}

/* Once a snapshot has gone out, its state is the baseline clients decode
 * later deltas against: a second submit for its tick is refused, or the
 * server would code deltas against a state no client holds. */
static void test_a_state_already_sent_cannot_be_replaced(void **state)
{
    (void)state;
    csh *h = new_match(19, 20000, 0, 0.0, 2);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    csh_run(h, 120);
    tempo_server_poll(h->server, h->now); /* the snapshot of tick 120 goes */
    csh_game other = h->sg;
    other.shared += 12345;
    assert_int_equal(tempo_server_submit_state(h->server, 119, &other, sizeof other),
                     TEMPO_E_STATE);
    csh_run(h, 300);
    expect_exact_loads(h, 150);
    csh_free(h);
    free(h);
}

#define BIG 8192

static uint64_t big_hash(const uint8_t *b)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < BIG; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* An 8 KiB arena of noise, 300 bytes of it rewritten each tick: the first
 * snapshot goes in fragments, the rest as deltas; at 5% loss some
 * fragments go missing and the client still shows exactly the server's
 * states (DUMB: it shows what came). */
static void test_large_states_travel_in_fragments_and_deltas(void **state)
{
    (void)state;
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.seed = 21;
    nc.default_link.latency_us = 40000;
    nc.default_link.loss = 0.05;
    tempo_simnet *net;
    assert_int_equal(tempo_simnet_create(&nc, &net), TEMPO_OK);
    tempo_address sa = tempo_address_ipv4(10, 0, 0, 1, 1), ca = tempo_address_ipv4(10, 0, 0, 2, 2);
    tempo_transport st, ct;
    assert_int_equal(tempo_simnet_add_node(net, &sa, &st), TEMPO_OK);
    assert_int_equal(tempo_simnet_add_node(net, &ca, &ct), TEMPO_OK);
    static uint8_t sbig[BIG], cbig[BIG];
    static uint64_t hashes[700];
    tempo_rng r;
    tempo_rng_seed(&r, 5, 6);
    for (int i = 0; i < BIG; i++)
        sbig[i] = (uint8_t)tempo_rng_next(&r);
    tempo_server_config sc;
    tempo_server_config_default(&sc);
    sc.num_players = 1;
    sc.max_clients = 1;
    sc.arena = sbig;
    sc.arena_size = BIG;
    tempo_server *s;
    assert_int_equal(tempo_server_create(&sc, &st, &s), TEMPO_OK);
    tempo_client_config cc;
    tempo_client_config_default(&cc);
    cc.num_players = 1;
    cc.arena = cbig;
    cc.arena_size = BIG;
    cc.reconcile = TEMPO_RECONCILE_DUMB;
    tempo_client *c;
    assert_int_equal(tempo_client_create(&cc, &ct, &sa, &c), TEMPO_OK);
    const uint64_t tick = 1000000 / 60;
    int checked = 0, wrong = 0;
    for (int32_t f = 0; f < 600; f++) {
        uint64_t now = (uint64_t)f * tick;
        tempo_simnet_set_time(net, now);
        tempo_server_poll(s, now);
        tempo_server_tick t;
        tempo_server_advance(s, &t);
        int at = (int)((uint32_t)(f * 37) % (BIG - 300));
        for (int i = 0; i < 300; i++)
            sbig[at + i] = (uint8_t)tempo_rng_next(&r);
        hashes[f + 1] = big_hash(sbig);
        tempo_simnet_set_time(net, now + tick / 2);
        tempo_client_poll(c, now + tick / 2);
        tempo_client_tick k;
        tempo_client_advance(c, &k);
        tempo_client_stats cs;
        tempo_client_get_stats(c, &cs);
        if (k.corrected) {
            checked++;
            wrong += big_hash(cbig) != hashes[cs.server_frame];
        }
    }
    tempo_client_stats cs;
    tempo_client_get_stats(c, &cs);
    tempo_server_client_stats scs;
    tempo_server_get_client_stats(s, 0, &scs);
    printf("big: snapshots %llu full %llu dropped %llu; sent %llu, %llu bytes (%llu full)\n",
           (unsigned long long)cs.snapshots, (unsigned long long)cs.full_snapshots,
           (unsigned long long)cs.snapshots_dropped, (unsigned long long)scs.snapshots_sent,
           (unsigned long long)scs.snapshot_bytes, (unsigned long long)scs.full_snapshots);
    assert_true(checked > 400);
    assert_int_equal(wrong, 0);
    assert_true(cs.full_snapshots >= 1);
    assert_true(cs.snapshots > cs.full_snapshots * 10);
    /* a delta is a few hundred bytes, a full state over 8 KiB */
    assert_true(scs.snapshot_bytes < scs.snapshots_sent * 1200);
    tempo_client_destroy(c);
    tempo_server_destroy(s);
    tempo_simnet_destroy(net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_clients_over_75ms_load_the_servers_states),
        cmocka_unit_test(test_two_clients_over_150ms_with_2pct_loss_load_the_servers_states),
        cmocka_unit_test(test_solo_replay_makes_no_correction),
        cmocka_unit_test(test_solo_without_replay_corrects_nearly_every_snapshot),
        cmocka_unit_test(test_the_reconcile_mode_switches_at_run_time),
        cmocka_unit_test(test_late_inputs_stay_under_one_a_minute_at_1pct_loss_and_10ms_jitter),
        cmocka_unit_test(test_both_ends_measure_the_arrival_jitter),
        cmocka_unit_test(test_a_leaving_client_frees_its_slot_for_the_next),
        cmocka_unit_test(test_a_kicked_client_is_told_and_its_slot_freed),
        cmocka_unit_test(test_a_full_server_denies_the_next_client),
        cmocka_unit_test(test_64_clients_play_on_one_server),
        cmocka_unit_test(test_a_hitch_of_the_client_snaps_its_lead_back),
        cmocka_unit_test(test_snapshots_every_third_tick_still_load_exactly),
        cmocka_unit_test(test_a_client_with_two_slots_plays_both),
        cmocka_unit_test(test_a_client_400ms_away_still_loads_exactly),
        cmocka_unit_test(test_a_state_already_sent_cannot_be_replaced),
        cmocka_unit_test(test_a_forward_jump_plays_zeros_for_the_ticks_it_skips),
        cmocka_unit_test(test_an_input_given_while_stalled_plays_in_the_next_tick),
        cmocka_unit_test(test_large_states_travel_in_fragments_and_deltas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
