/* SPDX-License-Identifier: MIT */
/*
 * test_p2p_agree.c — what peers agree on (p2p/p2p_agree.c): the frame
 * from which a dropped player's input counts as disconnected, and the
 * checksum of every check frame.
 *
 * A drop is final at a frame some live survivor can back with real inputs:
 * survivors settle on the same frame, and play on even when a claim reaches
 * beyond every input held or the only holder of missing inputs leaves; two
 * machines that accuse each other cut off one of the two, never a
 * bystander briefly deaf to one of them. Every check frame both peers
 * confirmed is compared exactly once, however many frames one tick
 * confirms; forged CHECKSUMs are ignored and counted, and change nothing
 * that is compared or resent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "craft.h"
#include "p2p_harness.h"

static harness h;

/* ---- dropped players ------------------------------------------------------ */

/* One of three peers leaves cleanly: both survivors agree on the same
 * disconnect frame and converge. */
static void survivors_agree_on_the_frame_of_a_peer_that_leaves(void **state)
{
    (void)state;
    for (uint64_t seed = 60; seed < 64; seed++) {
        tempo_config c = harness_cfg(3);
        uint32_t m[3];
        harness_one_each(m, 3);
        harness_init(&h, &c, 3, m, 0, seed % 2 ? "mobile" : "continental", seed);
        harness_run(&h, 200, 60000000);
        assert_int_equal(tempo_session_leave(h.peer[2].s), TEMPO_OK);
        h.peer[2].dead = true;
        harness_run(&h, 600, 120000000);
        int32_t d0 = h.peer[0].s->sync.q[2].disconnect_frame;
        int32_t d1 = h.peer[1].s->sync.q[2].disconnect_frame;
        assert_true(d0 != IQ_NO_FRAME);
        assert_int_equal(d0, d1);
        int32_t checked;
        assert_true(harness_converged(&h, false, &checked));
        assert_true(checked >= 500);
        harness_free(&h);
    }
}

/* A peer's INPUT claims it holds player 1 dropped at a frame 150 past every
 * input anyone has, and then player 1's machine dies. The claim is not
 * taken as final: the survivor drops player 1 once, at a frame it can back,
 * and plays on alone. */
static void drop_claim_beyond_every_held_input_does_not_wedge_the_survivor(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "lan", 41);
    harness_run(&h, 200, 60000000);
    tempo_msg msg;
    empty_input(&h, 0, 1, &msg);
    msg.u.input.disconnected_mask = 1u << 1; /* "I hold player 1 dropped" */
    msg.u.input.disconnect_frame[1] = msg.u.input.start + 150;
    msg.u.input.have_until[1] = msg.u.input.start;
    send_crafted(&h, 1, 0, &msg);
    harness_kill(&h, 1);
    int32_t f0 = tempo_session_frame(h.peer[0].s);
    harness_run(&h, f0 + 600, h.now_us + 30000000);
    /* peer 0 is alone with a disconnected player 1: it must play on */
    assert_true(tempo_session_frame(h.peer[0].s) >= f0 + 600);
    assert_int_equal(h.peer[0].disconnect_events, 1);
    int32_t drop = h.peer[0].s->sync.q[1].disconnect_frame;
    assert_true(drop != IQ_NO_FRAME && drop < msg.u.input.start + 150);
    assert_int_equal(h.peer[0].desync_events, 0);
    harness_free(&h);
}

/* Three peers; D (peer 2) vanishes; C (peer 1) holds more of D's inputs
 * than A (peer 0), times D out first and tells A so, then vanishes before
 * relaying them (its relay waits for A's gossip, one round trip). The agreed
 * frame needed inputs only a departed peer held: A settles on what it can
 * back and plays on. Random 4-peer runs with one-way blackouts reach the
 * same state without crafted timing. */
static void survivor_plays_on_when_the_only_holder_of_missing_inputs_drops(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(3);
    uint32_t m[3];
    harness_one_each(m, 3);
    harness_init(&h, &c, 3, m, 0, "lan", 42);
    tempo_link_params slow;
    assert_int_equal(tempo_link_profile("lan", &slow), TEMPO_OK);
    slow.latency_us = 400000; /* A hears D last, so C times D out first */
    assert_int_equal(tempo_simnet_set_link(h.net, &h.peer[2].addr, &h.peer[0].addr, &slow), TEMPO_OK);
    harness_run(&h, 300, 60000000);
    /* D's last 100 ms of datagrams reach C but not A: C holds more of D */
    tempo_simnet_add_blackout(h.net, &h.peer[2].addr, &h.peer[0].addr, h.now_us, UINT64_MAX);
    harness_run(&h, INT32_MAX, h.now_us + 100000);
    harness_kill(&h, 2);
    tempo_p2p *a = h.peer[0].s->net;
    bool learned = false;
    for (int k = 0; k < 20000 && !learned; k++) {
        harness_run(&h, INT32_MAX, h.now_us + 1000); /* one millisecond */
        learned = a->drop_state[2] != DROP_NONE &&
                  a->drop_frame[2] > h.peer[0].s->sync.q[2].known_end;
    }
    assert_true(learned); /* A heard C's larger view of D */
    harness_kill(&h, 1);  /* ...and C is gone before its relay arrives */
    int32_t f0 = tempo_session_frame(h.peer[0].s);
    harness_run(&h, f0 + 600, h.now_us + 60000000);
    assert_true(tempo_session_frame(h.peer[0].s) >= f0 + 600);
    assert_int_equal(h.peer[0].disconnect_events, 2);
    harness_free(&h);
}

/* Four peers, peer i hosting player i. The link between B and D goes dark
 * for 5 s, D's ear first, so D accuses B 0.3 s before B accuses D; C's link
 * to B goes dark for 1.3 s (past the notify time, short of the timeout)
 * around the moment D's accusation reaches C. C must not take D's side on
 * the strength of its own brief silence: A, B and C all drop D (the higher
 * player of the two accusers) at one frame and play on together, and no
 * bystander is dropped by anyone. */
static void a_bystander_briefly_deaf_to_one_accuser_keeps_the_others_side(void **state)
{
    (void)state;
    enum { A, B, C, D };
    tempo_config c = harness_cfg(4);
    uint32_t m[4];
    harness_one_each(m, 4);
    harness_init(&h, &c, 4, m, 0, "lan", 70);
    harness_run(&h, 150, 60000000);
    uint64_t t0 = h.now_us;
    tempo_simnet_add_blackout(h.net, &h.peer[B].addr, &h.peer[D].addr, t0, t0 + 5000000);
    tempo_simnet_add_blackout(h.net, &h.peer[D].addr, &h.peer[B].addr, t0 + 300000, t0 + 5000000);
    tempo_simnet_add_blackout(h.net, &h.peer[B].addr, &h.peer[C].addr, t0 + 2400000, t0 + 3700000);
    tempo_simnet_add_blackout(h.net, &h.peer[C].addr, &h.peer[B].addr, t0 + 2400000, t0 + 3700000);
    harness_run(&h, 1050, 120000000);
    int32_t frame = h.peer[A].s->net->sync->q[D].disconnect_frame;
    assert_true(frame != IQ_NO_FRAME);
    for (int i = A; i <= C; i++) {
        for (int j = A; j <= D; j++) {
            if (j == i)
                continue;
            tempo_endpoint_stats es;
            assert_int_equal(tempo_session_get_endpoint_stats(h.peer[i].s, j, &es), TEMPO_OK);
            assert_int_equal(es.disconnected, j == D);
        }
        assert_int_equal(h.peer[i].disconnect_events, 1);
        assert_int_equal(h.peer[i].desync_events, 0);
        assert_int_equal(h.peer[i].s->net->sync->q[D].disconnect_frame, frame);
        assert_true(tempo_session_frame(h.peer[i].s) >= 1050);
    }
    h.peer[D].dead = true; /* cut off: compare the three that play on */
    int32_t checked;
    assert_true(harness_converged(&h, false, &checked));
    assert_true(checked > 1000);
    harness_free(&h);
}

/* ---- desync checks -------------------------------------------------------- */

/* Every check frame is compared, even when one tick confirms many after a
 * lag spike: on a lossless link with spikes and a check every frame, all
 * but the last few frames in flight were compared, none differed. */
static void every_confirmed_check_frame_is_compared(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    c.desync_interval = 1;
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "lan", 44);
    tempo_link_params spiky;
    memset(&spiky, 0, sizeof spiky);
    spiky.latency_us = 20000;
    spiky.spike_enter = 0.03;
    spiky.spike_exit = 0.3;
    spiky.spike_us = 120000; /* no loss: every checksum datagram arrives */
    for (int i = 0; i < 2; i++)
        tempo_simnet_set_link(h.net, &h.peer[i].addr, &h.peer[1 - i].addr, &spiky);
    harness_run(&h, 900, 120000000);
    int32_t common = harness_common_confirmed(&h, false);
    for (int i = 0; i < 2; i++) {
        tempo_session_stats st;
        tempo_session_get_stats(h.peer[i].s, &st);
        /* every frame but the last few in flight */
        assert_true(st.desync_checks + 20 >= (uint64_t)common);
        assert_int_equal(st.desyncs, 0);
    }
    harness_free(&h);
}

/* Forged CHECKSUMs (a frame that is no check frame, frames and acks far
 * beyond anything sent, a repeat of a compared frame with another sum) are
 * ignored and counted one by one; none is compared, none raises a desync,
 * none moves what we resend, and the match goes on checking every frame. */
static void forged_checksums_are_ignored_and_counted(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "lan", 45);
    harness_run(&h, 300, 60000000);
    tempo_session_stats before, after;
    tempo_session_get_stats(h.peer[0].s, &before);
    assert_true(before.desync_checks >= 8);
    const p2p_peer *e = peer_at(&h, 0, 1);
    int32_t sent = e->sum_sent_max, top = INT32_MAX / 30 * 30;
    tempo_msg msg;
    struct { int32_t frame, ack; } forged[] = {
        {31, 0},                /* no check frame */
        {top, 0},               /* far beyond the window */
        {0, top},               /* acks a frame never sent */
        {0, sent + 30},         /* acks the next one, not sent yet */
        {top - 30, sent + 300}, /* both at once: counted once per part */
    };
    int parts = 6;
    for (size_t k = 0; k < sizeof forged / sizeof forged[0]; k++) {
        crafted_sum(&msg, forged[k].frame, 0xBADull, forged[k].ack);
        send_crafted(&h, 1, 0, &msg);
    }
    uint64_t x = 46;
    for (int k = 0; k < 200; k++, parts += 2) { /* random huge frames and acks */
        int32_t f = (int32_t)(craft_rand(&x) % (uint64_t)(INT32_MAX / 30 - 100000)) * 30 + 3000000;
        crafted_sum(&msg, f, craft_rand(&x), f);
        send_crafted(&h, 1, 0, &msg);
    }
    crafted_sum(&msg, 30, 0xBADull, 0); /* a repeat: not compared again */
    send_crafted(&h, 1, 0, &msg);
    harness_run(&h, 330, 60000000);
    tempo_session_get_stats(h.peer[0].s, &after);
    assert_int_equal(after.checksums_ignored - before.checksums_ignored, parts);
    assert_int_equal(after.desyncs, 0);
    assert_int_equal(h.peer[0].desync_events, 0);
    assert_true(e->sum_acked <= e->sum_sent_max);
    assert_true(e->sum_sent_max <= tempo_session_confirmed_frame(h.peer[0].s));
    harness_run(&h, 900, 60000000);
    int32_t common = harness_common_confirmed(&h, false);
    for (int i = 0; i < 2; i++) {
        tempo_session_stats st;
        tempo_session_get_stats(h.peer[i].s, &st);
        assert_int_equal(st.desync_checks_missed, 0);
        assert_int_equal(st.desyncs, 0);
        assert_true(st.desync_checks + 2 >= (uint64_t)(common / 30)); /* all but the newest in flight */
        assert_true(st.desync_checks <= (uint64_t)(common / 30));
        assert_int_equal(h.peer[i].disconnect_events, 0);
    }
    assert_int_equal(tempo_session_get_stats(h.peer[1].s, &after), TEMPO_OK);
    assert_int_equal(after.checksums_ignored, 0);
    int32_t checked;
    assert_true(harness_converged(&h, false, &checked));
    assert_true(checked >= 850);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(survivors_agree_on_the_frame_of_a_peer_that_leaves),
        cmocka_unit_test(drop_claim_beyond_every_held_input_does_not_wedge_the_survivor),
        cmocka_unit_test(survivor_plays_on_when_the_only_holder_of_missing_inputs_drops),
        cmocka_unit_test(a_bystander_briefly_deaf_to_one_accuser_keeps_the_others_side),
        cmocka_unit_test(every_confirmed_check_frame_is_compared),
        cmocka_unit_test(forged_checksums_are_ignored_and_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
