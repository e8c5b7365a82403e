/* SPDX-License-Identifier: MIT */
/*
 * test_p2p_hostile.c — a p2p session facing datagrams no honest peer sends,
 * from the addresses of the match's own peers and spectator. What fails the
 * receiver's checks is dropped and counted (dropped_malformed for messages
 * a sender may not send, checksums_ignored for CHECKSUMs beyond what it can
 * hold); no library assert is reached; every machine keeps advancing, and
 * the peers whose traffic is honest keep agreeing. (Strangers, other session
 * ids and undecodable bytes: test_p2p.c. Forged CHECKSUMs one by one:
 * test_p2p_agree.c.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "craft.h"
#include "fail_on_assert.h"
#include "p2p_harness.h"

static harness h;

static tempo_session_stats stats_of(int i)
{
    tempo_session_stats st;
    assert_int_equal(tempo_session_get_stats(h.peer[i].s, &st), TEMPO_OK);
    return st;
}

/* Machines i and j computed the same state after every frame both
 * confirmed; *checked: how many frames that was. */
static bool pair_agrees(int i, int j, int32_t *checked)
{
    int32_t a = tempo_session_confirmed_frame(h.peer[i].s);
    int32_t b = tempo_session_confirmed_frame(h.peer[j].s);
    *checked = a < b ? a : b;
    for (int32_t f = 0; f < *checked; f++)
        if (h.peer[i].d->hash_after[f] != h.peer[j].d->hash_after[f])
            return false;
    return true;
}

/* A random message that decodes, as peer `from` could send it to `to`. */
static int hostile_datagram(uint64_t *x, int from, int to, uint8_t *buf)
{
    tempo_msg m;
    memset(&m, 0, sizeof m);
    p2p_peer *e = peer_at(&h, to, from);
    m.session_id = h.cfg.session_id;
    /* Numbered in the sender's own stream, or repeating one of its recent
     * sequences or one too old for the replay window. (A sequence ahead of
     * the stream moves the window for everyone who shares the address:
     * only sealed datagrams can refuse it, PROTOCOL.md 3.1.) */
    uint64_t pick = craft_rand(x), back = craft_rand(x);
    uint64_t next = peer_at(&h, from, to)->link.send_seq;
    m.sequence = (uint16_t)(pick % 3 == 0 && next > 0 ? next - 1 - back % (next < 512 ? next : 512)
                                                      : craft_next_seq(&h, from, to, 0));
    m.type = (uint8_t)(1 + craft_rand(x) % TEMPO_MSG_DISCONNECT); /* the types a tick exchanges */
    int np = h.players;
    int32_t hint = p2p_wanted_from(h.peer[to].s, e);
    int32_t near = (int32_t)((int64_t)hint + (int64_t)(craft_rand(x) % 401) - 200);
    int32_t wild = (int32_t)(craft_rand(x) % 4 == 0 ? craft_rand(x) % 0x7fffffffu : (uint64_t)(near < 0 ? 0 : near));
    switch (m.type) {
    case TEMPO_MSG_SYNC_REQUEST:
    case TEMPO_MSG_SYNC_REPLY:
        m.u.sync.nonce = (uint32_t)craft_rand(x);
        m.u.sync.config_hash = h.peer[to].s->net->config_hash;
        m.u.sync.num_players = (uint8_t)np;
        m.u.sync.input_size = (uint8_t)h.cfg.input_size;
        m.u.sync.player_mask = (uint8_t)(craft_rand(x) % 2 ? h.peer[from].local_mask
                                                       : craft_rand(x) & ((1u << np) - 1));
        m.u.sync.ready_mask = (uint8_t)(craft_rand(x) & ((1u << np) - 1));
        m.u.sync.ready = craft_rand(x) % 2;
        for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
            m.u.sync.rtt_ms[p] = (uint16_t)craft_rand(x);
        break;
    case TEMPO_MSG_INPUT: {
        tempo_msg_input *in = &m.u.input;
        int32_t start = near < 1 ? 1 : near;
        in->start = start;
        in->ack = (int32_t)(craft_rand(x) % 2 ? start + (int32_t)(craft_rand(x) % 80) - 40 : wild);
        if (in->ack < 0)
            in->ack = 0;
        in->sender_frame = (int32_t)(craft_rand(x) % 2 ? start + (int32_t)(craft_rand(x) % 80) - 40 : wild);
        if (in->sender_frame < 0)
            in->sender_frame = 0;
        in->player_mask = (uint8_t)(craft_rand(x) % 2 ? h.peer[from].local_mask
                                                  : craft_rand(x) & ((1u << np) - 1));
        in->count = 1 + (int)(craft_rand(x) % TEMPO_MSG_MAX_FRAMES);
        for (size_t i = 0; i < 256; i++)
            in->data[i] = (uint8_t)(craft_rand(x) % 7 == 0 ? craft_rand(x) : 0);
        if (craft_rand(x) % 300 == 0) { /* rare: it drops players for good */
            in->disconnected_mask = (uint8_t)(craft_rand(x) & ((1u << np) - 1));
            for (int p = 0; p < np; p++) {
                in->disconnect_frame[p] = (int32_t)(craft_rand(x) % 2 ? start + (int32_t)(craft_rand(x) % 60) - 30 : wild);
                in->have_until[p] = (int32_t)(craft_rand(x) % 2 ? start + (int32_t)(craft_rand(x) % 60) - 30 : wild);
                if (in->disconnect_frame[p] < 0)
                    in->disconnect_frame[p] = 0;
                if (in->have_until[p] < 0)
                    in->have_until[p] = 0;
            }
        }
        break;
    }
    case TEMPO_MSG_INPUT_ACK:
        m.u.input_ack.ack = wild;
        m.u.input_ack.sender_frame = (int32_t)(craft_rand(x) % 0x7fffffffu);
        break;
    case TEMPO_MSG_PING:
    case TEMPO_MSG_PONG: m.u.ping.id = (uint32_t)craft_rand(x); break;
    case TEMPO_MSG_QUALITY: m.u.quality.advantage_q8 = (int16_t)craft_rand(x); break;
    case TEMPO_MSG_CHECKSUM:
        m.u.checksum.frame = (int32_t)(craft_rand(x) % 2 ? (uint64_t)(hint / 30 * 30 + 30 * (int32_t)(craft_rand(x) % 5)) : (uint64_t)wild);
        m.u.checksum.checksum = craft_rand(x);
        break;
    case TEMPO_MSG_DISCONNECT: /* leaving is a participant's right, not an attack */
        m.type = TEMPO_MSG_PING;
        break;
    default: break;
    }
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = h.cfg.input_size;
    ctx.num_players = np;
    ctx.reference = craft_zero_reference;
    return tempo_codec_encode(&m, &ctx, buf, TEMPO_MAX_DATAGRAM);
}

/* Three peers and a spectator; 3000 random messages that decode (every
 * type; masks, frames, acks, drop gossip and checksums near the wanted frame
 * or anywhere; numbered in the sender's stream, a third of them repeating a
 * recent sequence or one too old), 2 ms apart, from peers 1 and 2 and the
 * spectator to peer 0, and from peer 0 to the spectator; during the
 * handshake (seeds 1-2) or the match. Peer 0 and the spectator drop and
 * count what they must refuse (repeats before decoding), nothing reaches a
 * library assert, every machine keeps advancing, and
 * peers 1 and 2, whose traffic is honest, agree with each other on every
 * frame. (Peer 0 takes forged inputs of players it cannot tell from real
 * ones, so it may part from the others: a desync it reports.) */
static void random_messages_from_peers_addresses_are_counted_and_the_match_goes_on(void **state)
{
    (void)state;
    fail_on_assert(true);
    for (uint64_t seed = 1; seed <= 6; seed++) {
        tempo_config c = harness_cfg(3);
        c.save_policy = seed % 2 ? TEMPO_SAVE_SPARSE : TEMPO_SAVE_EVERY_FRAME;
        c.max_prediction = seed % 3 == 0 ? 0 : 8;
        c.timesync.method = (tempo_timesync_method)(seed % 4);
        uint32_t m[3];
        harness_one_each(m, 3);
        harness_init(&h, &c, 3, m, 1, "broadband", 70 + seed);
        if (c.max_prediction == 0) /* lockstep runs with an input delay */
            for (int i = 0; i < 3; i++)
                assert_int_equal(tempo_session_set_input_delay(h.peer[i].s, i, 2), TEMPO_OK);
        if (seed > 2) /* seeds 1-2: from the first millisecond, through the handshake */
            harness_run(&h, 150, 60000000);
        int32_t before[4];
        for (int i = 0; i < 4; i++)
            before[i] = tempo_session_frame(h.peer[i].s);
        uint64_t x = seed;
        for (int k = 0; k < 3000; k++) {
            uint8_t buf[TEMPO_MAX_DATAGRAM];
            int from = (int)(craft_rand(&x) % 4), to = 0; /* 3: the spectator */
            if (from == 0)
                to = 3; /* the host to its spectator */
            int n = hostile_datagram(&x, from, to, buf);
            if (n > 0)
                h.peer[from].tr.send(h.peer[from].tr.ctx, &h.peer[to].addr, buf, (size_t)n);
            harness_run(&h, INT32_MAX, h.now_us + 2000);
        }
        /* 6 s of barrage: every machine played on through it */
        for (int i = 0; i < 4; i++)
            if (tempo_session_frame(h.peer[i].s) - before[i] < 150)
                fail_msg("seed %d machine %d: frame %d to %d under the barrage", (int)seed, i,
                         (int)before[i], (int)tempo_session_frame(h.peer[i].s));
        tempo_session_stats victim = stats_of(0), spectator = stats_of(3);
        assert_true(victim.dropped_malformed >= 100);   /* masks a sender may not send */
        assert_true(victim.checksums_ignored >= 50);    /* check frames beyond the window */
        assert_true(spectator.dropped_malformed >= 10);
        assert_true(spectator.checksums_ignored >= 10);
        assert_true(victim.dropped_replay >= 100); /* repeated or too old: never decoded */
        assert_true(spectator.dropped_replay >= 10);
        assert_int_equal(victim.dropped_unknown + victim.dropped_session, 0); /* all came from the match */
        for (int i = 1; i <= 2; i++) {
            tempo_session_stats st = stats_of(i);
            assert_int_equal(st.dropped_malformed, 0); /* nothing forged was sent to them */
            assert_int_equal(h.peer[i].disconnect_events, 0);
        }
        int32_t checked;
        assert_true(pair_agrees(1, 2, &checked));
        assert_true(checked >= before[1] + 100);
        harness_free(&h);
    }
    fail_on_assert(false);
}

/* Peer 1 sends INPUTs for player 2, whom it does not host, with inputs that
 * differ from player 2's, and a SYNC_REPLY naming player 2 as its own. Each
 * is dropped and counted once; no forged input is played: the three peers
 * agree on every frame, with no desync and no drop. */
static void messages_for_players_the_sender_does_not_host_are_dropped_and_counted(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(3);
    uint32_t m[3];
    harness_one_each(m, 3);
    harness_init(&h, &c, 3, m, 0, "lan", 47);
    harness_run(&h, 120, 60000000);
    tempo_session_stats before = stats_of(0);
    int forged = 0;
    for (int k = 0; k < 100; k++) {
        tempo_msg msg;
        empty_input(&h, 0, 1, &msg);
        msg.u.input.start = tempo_session_frame(h.peer[0].s) + 1;
        msg.u.input.sender_frame = msg.u.input.start;
        msg.u.input.player_mask = 1u << 2;
        msg.u.input.count = 4;
        memset(msg.u.input.data, 0xA5 ^ k, sizeof msg.u.input.data);
        send_crafted(&h, 1, 0, &msg);
        forged++;
        if (k % 10 == 0) {
            memset(&msg, 0, sizeof msg);
            msg.type = TEMPO_MSG_SYNC_REPLY;
            msg.u.sync.nonce = 1;
            msg.u.sync.config_hash = h.peer[0].s->net->config_hash;
            msg.u.sync.num_players = 3;
            msg.u.sync.input_size = (uint8_t)c.input_size;
            msg.u.sync.player_mask = 1u << 2;
            msg.u.sync.ready = true;
            send_crafted(&h, 1, 0, &msg);
            forged++;
        }
        harness_run(&h, INT32_MAX, h.now_us + 5000);
    }
    harness_run(&h, tempo_session_frame(h.peer[0].s) + 300, h.now_us + 60000000);
    tempo_session_stats after = stats_of(0);
    assert_int_equal(after.dropped_malformed - before.dropped_malformed, forged);
    assert_int_equal(after.dropped_unknown + after.dropped_session, 0);
    int32_t checked;
    assert_true(harness_converged(&h, false, &checked));
    assert_true(checked >= 400);
    for (int i = 0; i < 3; i++) {
        tempo_session_stats st = stats_of(i);
        assert_int_equal(st.desyncs, 0);
        assert_true(st.desync_checks >= 12);
        assert_int_equal(h.peer[i].disconnect_events, 0);
        assert_int_equal(h.peer[i].desync_events, 0);
        if (i > 0)
            assert_int_equal(st.dropped_malformed, 0);
    }
    harness_free(&h);
}

/* A PING with an explicit 16-bit sequence, as peer 1 could send it to 0. */
static int ping_at(uint16_t seq, uint8_t *buf)
{
    tempo_msg m;
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_PING;
    m.u.ping.id = 777;
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = h.cfg.input_size;
    ctx.num_players = h.players;
    ctx.reference = craft_zero_reference;
    m.session_id = h.cfg.session_id;
    m.sequence = seq;
    int n = tempo_codec_encode(&m, &ctx, buf, TEMPO_MAX_DATAGRAM);
    assert_true(n > 0);
    buf[5] = (uint8_t)seq; /* the header's sequence bytes (PROTOCOL.md) */
    buf[6] = (uint8_t)(seq >> 8);
    return n;
}

static void send_from_1(const uint8_t *buf, int len)
{
    h.peer[1].tr.send(h.peer[1].tr.ctx, &h.peer[0].addr, buf, (size_t)len);
    harness_run(&h, INT32_MAX, h.now_us + 50000);
}

/* A datagram whose sequence lies far ahead is held as a pending jump, not
 * used; a neighbour does not confirm it while peer 1 keeps speaking in its
 * range, only after peer 1 fell silent; a copy of it, before or after the
 * confirmation, is a replay: dropped and counted, never used. */
static void copies_of_a_far_ahead_datagram_are_replays(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "lan", 5);
    harness_run(&h, 120, 60000000);
    p2p_peer *e = peer_at(&h, 0, 1);
    uint8_t a[TEMPO_MAX_DATAGRAM], b[TEMPO_MAX_DATAGRAM];
    uint64_t jump = e->link.recv_max + 3000;
    int la = ping_at((uint16_t)jump, a);
    tempo_session_stats before = stats_of(0);
    send_from_1(a, la);
    send_from_1(a, la); /* the pending jump again */
    tempo_session_stats mid = stats_of(0);
    assert_int_equal(mid.dropped_replay - before.dropped_replay, 1);
    assert_int_equal(e->link.seq_jumps, 1);
    int lb = ping_at((uint16_t)(jump + 1), b);
    send_from_1(b, lb); /* peer 1 still speaks below: held, not followed */
    assert_int_equal(e->link.seq_jumps, 2);
    assert_int_equal(replay_check(&e->replay, jump + 1), TEMPO_DROP_NONE);
    send_from_1(a, la); /* held again in b's place */
    h.peer[1].dead = true; /* silent past the notify time */
    harness_run(&h, INT32_MAX, h.now_us + (uint64_t)c.disconnect_notify_ms * 1000u + 100000u);
    mid = stats_of(0);
    send_from_1(b, lb); /* confirms the jump: both are accepted now */
    assert_int_equal(e->link.seq_jumps, 3);
    assert_int_equal(replay_check(&e->replay, jump), TEMPO_DROP_DUPLICATE);
    assert_int_equal(replay_check(&e->replay, jump + 1), TEMPO_DROP_DUPLICATE);
    send_from_1(a, la); /* so a copy of the first is a replay */
    tempo_session_stats after = stats_of(0);
    /* (honest datagrams still in flight below the jump are refused too:
     * an unsealed window follows whoever writes the sequence) */
    assert_true(after.dropped_replay > mid.dropped_replay);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_messages_from_peers_addresses_are_counted_and_the_match_goes_on),
        cmocka_unit_test(messages_for_players_the_sender_does_not_host_are_dropped_and_counted),
        cmocka_unit_test(copies_of_a_far_ahead_datagram_are_replays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
