/* SPDX-License-Identifier: MIT */
/*
 * test_rejoin.c — a dropped machine coming back into a running p2p match
 * by state transfer, over simnet in virtual time. Three machines play a
 * small arena-mode game (player i on machine i). Machine 2 blacks out for
 * 10 s; its process is gone (the session destroyed) and starts again with
 * cfg.rejoin: it gets a confirmed state from machine 0, fast-forwards and
 * plays again from a frame every machine names alike, and the three agree
 * on every state after it, while the survivors never waited for the
 * transfer. A machine back after the window is refused and counted; forged
 * rejoin messages are refused and counted while the match plays on; the
 * tick path allocates nothing.
 */
#include "rejoin_world.h"

#include "tempo/secure.h"

static void rejoin_and_check(bool keyed)
{
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    world_init(&w, 15000, keyed, 7);
    blackout_and_restart(&w, 5000000u, 10000000u);
    int32_t frame_at_restart = tempo_session_frame(w.m[0].s);
    for (uint64_t t = 15000000u; t < 25000000u; t += 250000u) {
        run_until(&w, t);
        if (getenv("REJOIN_TRACE"))
            for (int i = 0; i < N; i++)
                printf("%llu m%d frame %d conf %d wait %d rej %d\n", (unsigned long long)t, i,
                       (int)tempo_session_frame(w.m[i].s), (int)tempo_session_confirmed_frame(w.m[i].s),
                       w.m[i].waiting_ticks, w.m[i].rejoined_frame);
    }
    run_until(&w, 25000000u);

    /* every machine names the same rejoin frame, after the restart */
    machine *r = &w.m[2];
    assert_int_equal(r->rejoined_events, 1);
    assert_int_equal(r->rejoined_player, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(w.m[i].rejoined_events, 1);
        assert_int_equal(w.m[i].rejoined_player, 2);
        assert_int_equal(w.m[i].rejoined_frame, r->rejoined_frame);
    }
    assert_true(r->rejoined_frame > frame_at_restart);
    /* the survivors kept playing: no waiting tick from the restart on */
    assert_int_equal(w.m[0].waiting_ticks, 0);
    assert_int_equal(w.m[1].waiting_ticks, 0);
    /* the rejoining machine fast-forwarded, flagged resimulating */
    tempo_session_stats s0 = stats_of(&w, 0), s1 = stats_of(&w, 1), s2 = stats_of(&w, 2);
    assert_int_equal(s0.rejoins, 1);
    assert_int_equal(s1.rejoins, 1);
    assert_int_equal(s0.rejoin_states_sent, 1);
    assert_int_equal(s1.rejoin_states_sent, 0);
    assert_true(s2.rejoin_frames_fast_forwarded > 0);
    assert_true((uint64_t)r->resim_advances >= s2.rejoin_frames_fast_forwarded);
    printf("rejoin frame %d, fast-forwarded %llu frames, survivors waited %d and %d ticks\n",
           (int)r->rejoined_frame, (unsigned long long)s2.rejoin_frames_fast_forwarded,
           w.m[0].waiting_ticks, w.m[1].waiting_ticks);
    /* and all agree: equal states, checksums compared, no desync */
    int32_t agreed = agreed_frames(&w, r->rejoined_frame);
    assert_true(agreed > 300);
    for (int i = 0; i < N; i++)
        assert_int_equal(w.m[i].desyncs, 0);
    assert_true(s2.desync_checks > 10);
    assert_int_equal(s2.desyncs, 0);
    /* the rejoined player's inputs are real again everywhere */
    uint8_t inputs[N * 2], status[N];
    int32_t f = r->rejoined_frame + 10;
    assert_int_equal(tempo_session_confirmed_inputs(w.m[0].s, f, inputs, sizeof inputs, status), TEMPO_OK);
    assert_int_equal(status[2], TEMPO_INPUT_CONFIRMED);
    assert_int_equal(inputs[2 * 2 + 1], 2);
    /* no session allocated from the restart on: not the transfer, not
     * the rejoining machine's restart of its engine */
    counting = false;
    assert_int_equal(allocs_counted, 0);
    if (keyed) { /* everything went sealed, nothing was refused as forged */
        assert_false(s2.unauthenticated);
        /* the datagrams of its earlier life, sealed under the old epoch's
         * keys, no longer open; nothing else was refused */
        assert_true(w.stale > 0);
        assert_int_equal(s2.dropped_forged, (uint64_t)w.stale);
        assert_int_equal(s0.dropped_forged + s1.dropped_forged, 0);
    }
    world_free(&w);
}

static void restarted_peer_rejoins_and_all_agree(void **state)
{
    (void)state;
    rejoin_and_check(false);
}

static void sealed_peer_rejoins_under_a_new_key_epoch(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip(); /* a build without libsodium seals nothing */
    rejoin_and_check(true);
}


static void rejoin_after_the_window_is_refused(void **state)
{
    (void)state;
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    world_init(&w, 5000, false, 11);
    blackout_and_restart(&w, 5000000u, 10000000u);
    int32_t before = tempo_session_frame(w.m[0].s);
    run_until(&w, 20000000u);
    tempo_session_stats s0 = stats_of(&w, 0), s1 = stats_of(&w, 1);
    /* every handshake of the restarted machine is refused, at both */
    assert_true(s0.rejoins_refused > 10);
    assert_true(s1.rejoins_refused > 10);
    assert_int_equal(s0.rejoins + s1.rejoins, 0);
    assert_int_equal(w.m[0].rejoined_events + w.m[1].rejoined_events + w.m[2].rejoined_events, 0);
    /* it never runs; the others play on without waiting */
    tempo_session_state st;
    assert_int_equal(tempo_session_get_state(w.m[2].s, &st), TEMPO_OK);
    assert_int_equal(st, TEMPO_SESSION_SYNCHRONIZING);
    assert_int_equal(tempo_session_frame(w.m[2].s), 0);
    assert_true(tempo_session_frame(w.m[0].s) - before > 250);
    assert_int_equal(w.m[0].waiting_ticks + w.m[1].waiting_ticks, 0);
    counting = false;
    world_free(&w);
}

static void forged_rejoin_messages_are_refused_and_counted(void **state)
{
    (void)state;
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    world_init(&w, 15000, false, 13);
    run_until(&w, 3000000u);
    uint8_t bytes[64] = {0}, prev[N * 2] = {0}; /* not a game's size: refused anyway */
    /* to machine 0, from machine 1's address: machine 2 (live) "rejoins",
     * machine 1 (live) asks for a state, and a state nobody asked for */
    tempo_msg m;
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_REJOIN_FRAME;
    m.u.rejoin_frame.player_mask = 1u << 2;
    m.u.rejoin_frame.frame = tempo_session_frame(w.m[0].s) + 30;
    send_crafted(&w, 1, 0, &m);
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_REJOIN_REQUEST;
    m.u.rejoin_request.player_mask = 1u << 1;
    send_crafted(&w, 1, 0, &m);
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_REJOIN_STATE;
    m.u.rejoin_state.frame = 100;
    m.u.rejoin_state.live_frame = 100;
    m.u.rejoin_state.rejoin_frame = 130;
    m.u.rejoin_state.player_mask = 1u << 0;
    m.u.rejoin_state.prev = prev;
    m.u.rejoin_state.prev_size = sizeof prev;
    m.u.rejoin_state.size = sizeof bytes;
    m.u.rejoin_state.data = bytes;
    send_crafted(&w, 1, 0, &m);
    run_until(&w, 6000000u);
    tempo_session_stats s0 = stats_of(&w, 0);
    assert_int_equal(s0.rejoins_refused, 3);
    assert_int_equal(s0.rejoins, 0);
    assert_int_equal(s0.rejoin_states_sent, 0);
    assert_int_equal(w.m[0].rejoined_events, 0);
    /* the honest match played on, every machine agreeing */
    assert_int_equal(s0.dropped_malformed, 0);
    assert_true(agreed_frames(&w, 0) > 300);
    for (int i = 0; i < N; i++)
        assert_int_equal(w.m[i].desyncs, 0);
    counting = false;
    world_free(&w);
}

/* While machine 2 waits for its state, machine 1 (not the one it asked)
 * sends it one: refused, and the honest state from machine 0 is the one
 * played. */
static void a_state_from_a_peer_not_asked_is_refused(void **state)
{
    (void)state;
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    world_init(&w, 15000, false, 7);
    blackout_and_restart(&w, 5000000u, 10000000u);
    tempo_p2p *r = w.m[2].s->net;
    /* it asked machine 0, and its handshake with machine 1 is done (before
     * that, nothing but the handshake is taken from machine 1 at all) */
    while (r->rejoin.asked_peer < 0 || !p2p_synced(record_of(&w, 2, 1)))
        run_until(&w, w.now + 1000u);
    assert_false(r->rejoin.loaded);
    uint8_t bytes[64], prev[N * 2] = {0}; /* refused before its size matters */
    memset(bytes, 0xAB, sizeof bytes);
    tempo_msg m;
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_REJOIN_STATE;
    m.u.rejoin_state.frame = tempo_session_frame(w.m[1].s) - 2;
    m.u.rejoin_state.live_frame = m.u.rejoin_state.frame;
    m.u.rejoin_state.rejoin_frame = m.u.rejoin_state.frame + 20;
    m.u.rejoin_state.player_mask = 1u << 2;
    m.u.rejoin_state.prev = prev;
    m.u.rejoin_state.prev_size = sizeof prev;
    m.u.rejoin_state.size = sizeof bytes;
    m.u.rejoin_state.data = bytes;
    (void)record_of(&w, 1, 2);
    send_crafted(&w, 1, 2, &m);
    run_until(&w, 22000000u);
    tempo_session_stats s2 = stats_of(&w, 2);
    assert_int_equal(s2.rejoins_refused, 1);
    assert_int_equal(w.m[2].rejoined_events, 1);
    assert_int_equal(w.m[2].rejoined_frame, w.m[0].rejoined_frame);
    assert_true(agreed_frames(&w, w.m[2].rejoined_frame) > 200);
    for (int i = 0; i < N; i++)
        assert_int_equal(w.m[i].desyncs, 0);
    counting = false;
    world_free(&w);
}

/* A spectator declared by machine 0 comes 10 s into the match: it gets a
 * state, catches up to the live frame and then agrees on every check. */
static void late_spectator_reaches_the_live_frame_and_agrees(void **state)
{
    (void)state;
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    log_frames = 128; /* the host's log no longer holds the first frames */
    world_init(&w, 15000, false, 17);
    machine *v = &w.m[N];
    v->addr = tempo_address_ipv4(10, 0, 0, 9, 7000);
    assert_int_equal(tempo_simnet_add_node(w.net, &v->addr, &v->node), TEMPO_OK);
    assert_int_equal(tempo_session_add_spectator(w.m[0].s, &v->addr), TEMPO_OK);
    run_until(&w, 10000000u);
    int32_t oldest, end_;
    assert_int_equal(tempo_session_input_log_range(w.m[0].s, &oldest, &end_), TEMPO_OK);
    assert_true(oldest > 400);
    tempo_config c = base_cfg(&w);
    c.arena = &v->g;
    c.arena_size = sizeof v->g;
    c.rejoin = true;
    tempo_address host = w.m[0].addr;
    counting = false;
    assert_int_equal(tempo_session_create_spectator(&c, &v->node, &host, &v->s), TEMPO_OK);
    counting = true;
    v->next_us = (double)w.now;
    w.spectator = true;
    w.m[0].counting = w.m[1].counting = w.m[2].counting = true;
    run_until(&w, 20000000u);
    counting = false;
    assert_int_equal(allocs_counted, 0);
    tempo_session_stats s0 = stats_of(&w, 0), sv;
    assert_int_equal(tempo_session_get_stats(v->s, &sv), TEMPO_OK);
    assert_int_equal(s0.rejoin_states_sent, 1);
    assert_int_equal(v->rejoined_events, 1);
    /* it plays near the live frame: its jitter buffer behind the players */
    int32_t gap = tempo_session_frame(w.m[0].s) - tempo_session_frame(v->s);
    assert_true(gap >= 0 && gap < 15);
    /* the same states as the players, and its checks passed */
    int32_t from = v->rejoined_frame;
    int32_t end = tempo_session_frame(v->s);
    assert_true(end - from > 400);
    for (int32_t f = from; f < end; f++)
        assert_true(v->hash_after[f] == w.m[0].hash_after[f]);
    assert_true(sv.desync_checks > 10);
    assert_int_equal(sv.desyncs, 0);
    assert_int_equal(v->desyncs, 0);
    assert_int_equal(w.m[0].waiting_ticks + w.m[1].waiting_ticks + w.m[2].waiting_ticks, 0);
    log_frames = 1024;
    world_free(&w);
}

/* Without an arena: machine 0's game gives its saved state when asked, the
 * restarted machine's game loads what came, and the match goes on as with
 * an arena. */
static void rejoin_without_an_arena_moves_the_state_through_the_games(void **state)
{
    (void)state;
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    w.no_arena = true; /* world_init keeps it: set again below */
    world_init(&w, 15000, false, 19);
    assert_true(w.no_arena);
    blackout_and_restart(&w, 5000000u, 10000000u);
    run_until(&w, 22000000u);
    assert_int_equal(w.m[0].states_given, 1);
    assert_int_equal(w.m[0].provided, TEMPO_OK);
    assert_int_equal(w.m[1].states_given, 0);
    assert_int_equal(w.m[2].states_loaded, 1);
    assert_int_equal(w.m[2].rejoined_events, 1);
    for (int i = 0; i < 2; i++)
        assert_int_equal(w.m[i].rejoined_frame, w.m[2].rejoined_frame);
    assert_int_equal(w.m[0].waiting_ticks + w.m[1].waiting_ticks, 0);
    assert_true(agreed_frames(&w, w.m[2].rejoined_frame) > 300);
    tempo_session_stats s2 = stats_of(&w, 2);
    assert_true(s2.desync_checks > 10);
    for (int i = 0; i < N; i++)
        assert_int_equal(w.m[i].desyncs, 0);
    counting = false;
    assert_int_equal(allocs_counted, 0);
    world_free(&w);
}

/* A rejoin frame about a dropped machine whose link no handshake revived
 * is refused. Unsealed, anyone can send a handshake from a dropped
 * machine's address: it revives the link, but nothing answers, so it is
 * lost again after the timeout; its player stays dropped as agreed and the
 * match never waits. */
static void a_forged_handshake_from_a_dropped_address_changes_nothing(void **state)
{
    (void)state;
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    world_init(&w, 30000, false, 23);
    run_until(&w, 3000000u);
    machine *d = &w.m[2];
    tempo_simnet_add_blackout(w.net, &d->addr, NULL, w.now, UINT64_MAX);
    tempo_simnet_add_blackout(w.net, NULL, &d->addr, w.now, UINT64_MAX);
    d->down = true;
    run_until(&w, 8000000u); /* dropped, and the drop final */
    assert_int_equal(w.m[0].disconnects, 1);
    w.m[0].counting = w.m[1].counting = true;
    /* machine 1 says machine 2 comes back, but no handshake of machine 2's
     * revived its link at machine 0: refused (it would wait for nobody) */
    tempo_msg m;
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_REJOIN_FRAME;
    m.u.rejoin_frame.player_mask = 1u << 2;
    m.u.rejoin_frame.frame = tempo_session_frame(w.m[0].s) + 30;
    send_crafted(&w, 1, 0, &m);
    run_until(&w, 8050000u);
    assert_int_equal(stats_of(&w, 0).rejoins_refused, 1);
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_SYNC_REQUEST;
    m.u.sync.nonce = 12345;
    m.u.sync.num_players = N;
    m.u.sync.input_size = 2;
    m.u.sync.player_mask = 1u << 2;
    for (int p = 0; p < N; p++)
        m.u.sync.rtt_ms[p] = 0xFFFF;
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = 2;
    ctx.num_players = N;
    m.session_id = 1;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    int size = tempo_codec_encode(&m, &ctx, buf, sizeof buf);
    assert_true(size > 0);
    /* from machine 2's address, past its blacked-out link */
    assert_int_equal(tempo_simnet_inject(w.net, &d->addr, &w.m[0].addr, buf, (size_t)size), TEMPO_OK);
    run_until(&w, 8150000u);
    assert_false(record_of(&w, 0, 2)->link.state == LINK_CLOSED); /* revived... */
    run_until(&w, 16000000u);
    assert_true(record_of(&w, 0, 2)->link.state == LINK_CLOSED); /* ...and lost again */
    tempo_session_stats s0 = stats_of(&w, 0);
    assert_int_equal(s0.rejoins, 0);
    assert_int_equal(w.m[0].rejoined_events, 0);
    assert_int_equal(w.m[0].disconnects, 1);
    assert_int_equal(w.m[0].waiting_ticks + w.m[1].waiting_ticks, 0);
    assert_true(agreed_frames(&w, 0) > 700);
    counting = false;
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(restarted_peer_rejoins_and_all_agree),
        cmocka_unit_test(sealed_peer_rejoins_under_a_new_key_epoch),
        cmocka_unit_test(rejoin_after_the_window_is_refused),
        cmocka_unit_test(forged_rejoin_messages_are_refused_and_counted),
        cmocka_unit_test(a_state_from_a_peer_not_asked_is_refused),
        cmocka_unit_test(late_spectator_reaches_the_live_frame_and_agrees),
        cmocka_unit_test(rejoin_without_an_arena_moves_the_state_through_the_games),
        cmocka_unit_test(a_forged_handshake_from_a_dropped_address_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
