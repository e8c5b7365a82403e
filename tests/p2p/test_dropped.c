/* SPDX-License-Identifier: MIT */
/*
 * test_dropped.c — a machine the others dropped from a running p2p match
 * learns it, says so (TEMPO_EVENT_DROPPED), and with rejoin comes back by
 * itself instead of playing on alone: paused past the disconnect timeout
 * (a stopped process), cut off by its network, or started again at a key
 * epoch it used before or without rejoining. Three machines play the small
 * arena-mode game of rejoin_world.h over simnet; the others must never
 * take themselves for the dropped one.
 */
#include "rejoin_world.h"

#include "tempo/secure.h"
#include "wire/seal.h"

/* Every machine ran the same states from frame `from` up to what all of
 * them confirmed, at least `frames` of them, and nobody raised a desync. */
static void all_agree_from(const world *w, int32_t from, int32_t frames)
{
    int32_t agreed = agreed_frames(w, from);
    if (agreed < frames)
        fail_msg("only %d frames agreed from frame %d", (int)agreed, (int)from);
    for (int i = 0; i < N; i++)
        assert_int_equal(w->m[i].desyncs, 0);
}

/* Machine 2's process is stopped 10 s in for 5 s (past the 3 s timeout):
 * the others drop it; on waking it is refused (or times them out), says it
 * was dropped, comes back by itself and ends on the others' states. */
static void paused_past_the_timeout_comes_back(bool keyed, uint64_t seed)
{
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    world_init(&w, 30000, keyed, seed);
    pause_machine(&w, 2, 10000000u, 5000000u);
    int32_t frame_at_wake = tempo_session_frame(w.m[2].s);
    run_until(&w, 27000000u);
    machine *r = &w.m[2];
    if (r->dropped_events != 1)
        fail_msg("%s seed %llu: the paused machine raised %d DROPPED events (frame %d, REJOINED %d)",
                 keyed ? "sealed" : "open", (unsigned long long)seed, r->dropped_events,
                 (int)tempo_session_frame(r->s), r->rejoined_events);
    assert_true(r->dropped_reason == TEMPO_DROPPED_REFUSED || r->dropped_reason == TEMPO_DROPPED_PAUSED);
    assert_true(r->dropped_rejoining);
    if (keyed)
        assert_int_equal(r->dropped_epoch, 1);
    /* nobody else took itself for the dropped one */
    assert_int_equal(w.m[0].dropped_events + w.m[1].dropped_events, 0);
    /* it is back: every machine names the same rejoin frame, past its wake */
    assert_int_equal(r->rejoined_events, 1);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(w.m[i].rejoined_events, 1);
        assert_int_equal(w.m[i].rejoined_frame, r->rejoined_frame);
        assert_int_equal(w.m[i].disconnects, 1);
    }
    assert_true(r->rejoined_frame > frame_at_wake);
    all_agree_from(&w, r->rejoined_frame, 300);
    tempo_session_stats s0 = stats_of(&w, 0), s1 = stats_of(&w, 1);
    printf("%s: the paused machine woke at frame %d, was %s, played again from frame %d; "
           "refusals sent %llu + %llu\n",
           keyed ? "sealed" : "open  ", (int)frame_at_wake,
           r->dropped_reason == TEMPO_DROPPED_REFUSED ? "refused" : "sure it was timed out",
           (int)r->rejoined_frame, (unsigned long long)s0.refusals_sent, (unsigned long long)s1.refusals_sent);
    world_free(&w);
}

static void a_machine_paused_past_the_timeout_says_so_and_comes_back(void **state)
{
    (void)state;
    paused_past_the_timeout_comes_back(false, 3);
    if (tempo_secure_available())
        paused_past_the_timeout_comes_back(true, 3);
}

static void pauses_over_many_seeds_come_back(void **state)
{
    (void)state;
    for (uint64_t seed = 40; seed < 46; seed++)
        paused_past_the_timeout_comes_back((seed & 1) && tempo_secure_available(), seed);
}

/* Without rejoin the dropped machine says so and the session ends: its
 * frames are its own, not the match's. */
static void without_rejoin_a_dropped_machine_ends(void **state)
{
    (void)state;
    static world w;
    memset(&w, 0, sizeof w);
    world_init(&w, 0, false, 5);
    pause_machine(&w, 2, 10000000u, 5000000u);
    run_until(&w, 25000000u);
    machine *r = &w.m[2];
    assert_int_equal(r->dropped_events, 1);
    assert_int_equal(r->dropped_reason, TEMPO_DROPPED_PAUSED);
    assert_false(r->dropped_rejoining);
    tempo_session_state st;
    assert_int_equal(tempo_session_get_state(r->s, &st), TEMPO_OK);
    assert_int_equal(st, TEMPO_SESSION_ENDED);
    assert_int_equal(w.m[0].dropped_events + w.m[1].dropped_events, 0);
    world_free(&w);
}

/* Machine 2's network goes for 5 s while its process runs on: it loses
 * both others at once, says it was cut off, and comes back when the
 * network does. */
static void a_machine_cut_off_by_its_network_comes_back(void **state)
{
    (void)state;
    static world w;
    memset(&w, 0, sizeof w);
    world_init(&w, 30000, false, 9);
    run_until(&w, 10000000u);
    tempo_simnet_add_blackout(w.net, &w.m[2].addr, NULL, w.now, w.now + 5000000u);
    tempo_simnet_add_blackout(w.net, NULL, &w.m[2].addr, w.now, w.now + 5000000u);
    run_until(&w, 27000000u);
    machine *r = &w.m[2];
    assert_int_equal(r->dropped_events, 1);
    assert_int_equal(r->dropped_reason, TEMPO_DROPPED_CUT_OFF);
    assert_true(r->dropped_rejoining);
    assert_int_equal(w.m[0].dropped_events + w.m[1].dropped_events, 0);
    assert_int_equal(r->rejoined_events, 1);
    assert_int_equal(w.m[0].rejoined_frame, r->rejoined_frame);
    all_agree_from(&w, r->rejoined_frame, 300);
    world_free(&w);
}

/* Sealed: machine 2 restarts twice and its game hands it epoch 1 both
 * times. The others know it at epoch 1 after the first return: they
 * refuse the second handshake, saying so under those keys, and it comes
 * back at epoch 2 by itself. */
static void a_machine_restarted_at_a_used_epoch_moves_to_a_new_one(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    static world w;
    memset(&w, 0, sizeof w);
    world_init(&w, 60000, true, 13);
    restart_in_place(&w, 2, 8000000u, 4000000u, 1);
    run_until(&w, 20000000u);
    assert_int_equal(w.m[2].rejoined_events, 1);
    restart_in_place(&w, 2, 22000000u, 4000000u, 1); /* epoch 1 again */
    run_until(&w, 40000000u);
    machine *r = &w.m[2];
    tempo_session_stats s0 = stats_of(&w, 0), s1 = stats_of(&w, 1);
    assert_true(s0.refusals_sent + s1.refusals_sent > 0);
    assert_int_equal(r->rejoined_events, 2); /* once in each life */
    assert_int_equal(((tempo_p2p *)r->s->net)->rejoin.epoch, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(w.m[i].rejoined_events, 2);
        assert_int_equal(w.m[i].rejoined_frame, r->rejoined_frame);
    }
    all_agree_from(&w, r->rejoined_frame, 300);
    world_free(&w);
}

/* Machine 2's process starts again without cfg.rejoin: a fresh start,
 * into a match that runs without it. Sealed, it comes at key epoch 0,
 * which the others know: they refuse its handshake. Open, they take it
 * back as a rejoining machine, but it starts playing from frame 0, before
 * its drop: they refuse its inputs. Either way it says the match runs
 * without it and, its session allowing rejoin, comes back by itself. */
static void restarted_without_rejoin(bool keyed)
{
    static world w;
    memset(&w, 0, sizeof w);
    world_init(&w, 30000, keyed, 17);
    run_until(&w, 8000000u);
    machine *m = &w.m[2];
    m->down = m->port_closed = true;
    tempo_session_destroy(m->s);
    run_until(&w, 12000000u);
    tempo_config c = base_cfg(&w);
    make_session(&w, 2, &c, false);
    m->down = m->port_closed = false;
    m->samples = 0;
    memset(m->hash_after, 0, sizeof m->hash_after);
    run_until(&w, 30000000u);
    if (m->dropped_events != 1)
        fail_msg("%s: %d DROPPED events, frame %d", keyed ? "sealed" : "open", m->dropped_events,
                 (int)tempo_session_frame(m->s));
    assert_int_equal(m->dropped_reason, TEMPO_DROPPED_REFUSED);
    assert_true(m->dropped_rejoining);
    assert_int_equal(m->dropped_epoch, keyed ? 1 : 0);
    assert_int_equal(m->rejoined_events, 1);
    assert_int_equal(w.m[0].rejoined_frame, m->rejoined_frame);
    assert_true(stats_of(&w, 0).refusals_sent + stats_of(&w, 1).refusals_sent > 0);
    all_agree_from(&w, m->rejoined_frame, 300);
    world_free(&w);
}

static void a_machine_restarted_without_rejoin_is_refused_and_comes_back(void **state)
{
    (void)state;
    restarted_without_rejoin(false);
    if (tempo_secure_available())
        restarted_without_rejoin(true);
}

/* Sealed: machine 2 comes back at epoch 1; a lying participant (machine
 * 0 holds the match key, so it can seal for any pair) tells it at once,
 * sealed under the keys it uses, that its handshake came at epoch 254. An
 * honest refusal can only name the epoch it was sealed under: the lie is
 * ignored and counted, and machine 2 comes back at epoch 1. */
static void a_refusal_naming_another_epoch_is_ignored(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    static world w;
    memset(&w, 0, sizeof w);
    world_init(&w, 30000, true, 19);
    restart_in_place(&w, 2, 8000000u, 4000000u, 1);
    run_until(&w, w.now + 20000u); /* its first poll: its keys are made */
    const wire_keys *mine = &record_of(&w, 2, 0)->keys;
    wire_keys liar;
    memset(&liar, 0, sizeof liar);
    memcpy(liar.send_key, mine->recv_key, SEAL_KEY_SIZE);
    liar.send_direction = mine->recv_direction;
    liar.ready = true;
    tempo_msg m;
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_REJOIN_REFUSED;
    m.u.rejoin_refused.reason = TEMPO_REFUSED_EPOCH;
    m.u.rejoin_refused.epoch = 254;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    tempo_packet_header h = {1, 50000u, TEMPO_MSG_REJOIN_REFUSED, false, false};
    assert_int_equal(packet_write(&h, buf, sizeof buf), PACKET_HEADER_SIZE);
    int body = tempo_codec_encode_body(&m, NULL, buf + PACKET_HEADER_SIZE, 64);
    int size = seal_datagram(&liar, 50000u, buf, PACKET_HEADER_SIZE + (size_t)body, sizeof buf);
    assert_true(size > 0);
    tempo_session_stats before = stats_of(&w, 2);
    assert_int_equal(tempo_simnet_inject(w.net, &w.m[0].addr, &w.m[2].addr, buf, (size_t)size), TEMPO_OK);
    run_until(&w, 30000000u);
    machine *r = &w.m[2];
    assert_int_equal(stats_of(&w, 2).claims_ignored - before.claims_ignored, 1);
    assert_int_equal(((tempo_p2p *)r->s->net)->rejoin.epoch, 1);
    assert_int_equal(r->rejoined_events, 1);
    assert_int_equal(w.m[0].rejoined_frame, r->rejoined_frame);
    all_agree_from(&w, r->rejoined_frame, 300);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_machine_paused_past_the_timeout_says_so_and_comes_back),
        cmocka_unit_test(pauses_over_many_seeds_come_back),
        cmocka_unit_test(without_rejoin_a_dropped_machine_ends),
        cmocka_unit_test(a_machine_cut_off_by_its_network_comes_back),
        cmocka_unit_test(a_machine_restarted_at_a_used_epoch_moves_to_a_new_one),
        cmocka_unit_test(a_machine_restarted_without_rejoin_is_refused_and_comes_back),
        cmocka_unit_test(a_refusal_naming_another_epoch_is_ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
