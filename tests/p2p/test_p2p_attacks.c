/* SPDX-License-Identifier: MIT */
/*
 * test_p2p_attacks.c — attacks on a keyed p2p match that sealing alone does
 * not answer, each shown failing: by an outsider on the path (no key: it
 * forges, alters, replays and delays datagrams) and by an insider (a
 * participant holding its own pair keys, sealing lies correctly from its
 * own address). For every attack the lying or forged datagrams are dropped
 * or ignored and counted in a named statistic, and the honest machines
 * play on: nobody honest dropped, no DESYNC unless one is real, the same
 * state after every frame they all confirmed.
 *
 *   kick      forged or lying drop claims (claims_ignored, dropped_forged)
 *   inject    inputs for frames a peer never sent (dropped_forged)
 *   hide      altered CHECKSUMs (dropped_forged); a lying one cannot hide
 *             another peer's real desync
 *   freeze    acks far ahead (acks_ignored, checksums_ignored); forged
 *             keepalives of a machine that is gone (INTERRUPTED, then the
 *             drop, on time)
 *   skew      replayed and invented PONGs (dropped_replay, pongs_ignored)
 *   handshake spoofed and replayed handshakes, and the handshake timeout
 *
 * docs/SECURITY.md, "Lying participants", lists the checks these prove.
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
#include "tempo/secure.h"
#include "wire/keys.h"
#include "wire/packet.h"

enum { A = 0, B = 1, C = 2, D = 3 };

static harness h;

/* ---- the wire as an attacker on the path sees it ----------------------------- */

#define TAP_MAX 16
typedef struct tap_datagram {
    uint8_t data[TEMPO_MAX_DATAGRAM];
    size_t size;
} tap_datagram;

static struct {
    tempo_transport real[H_MAX]; /* each node's simnet transport */
    int from, to;                /* the direction tapped (-1: none) */
    uint8_t type;                /* the message type tapped */
    bool swallow;                /* hold them back instead of delivering */
    bool alter;                  /* deliver them with one body byte flipped */
    int want;                    /* how many more to take */
    tap_datagram got[TAP_MAX];
    int ngot;
} tap;

static int tap_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    int from = 0; /* the node whose simnet context this is */
    while (from < h.npeers - 1 && tap.real[from].ctx != ctx)
        from++;
    if (from == tap.from && tap.want > 0 && tap.ngot < TAP_MAX &&
        tempo_address_equal(to, &h.peer[tap.to].addr) && size > PACKET_HEADER_SIZE &&
        data[7] == tap.type) {
        tap_datagram *d = &tap.got[tap.ngot++];
        memcpy(d->data, data, size);
        d->size = size;
        tap.want--;
        if (tap.swallow)
            return 0; /* as if the network lost it */
        if (tap.alter) {
            tap_datagram x = *d;
            x.data[PACKET_HEADER_SIZE] ^= 0x10;
            return tap.real[from].send(tap.real[from].ctx, to, x.data, x.size);
        }
    }
    return tap.real[from].send(tap.real[from].ctx, to, data, size);
}

static void tap_install(void)
{
    memset(&tap, 0, sizeof tap);
    tap.from = tap.to = -1;
    for (int i = 0; i < h.npeers; i++) {
        tap.real[i] = h.peer[i].tr;
        h.peer[i].tr.send = tap_send;
    }
}

static void tap_arm(int from, int to, uint8_t type, int want)
{
    tap.from = from;
    tap.to = to;
    tap.type = type;
    tap.want = want;
    tap.swallow = tap.alter = false;
    tap.ngot = 0;
}

/* Bytes delivered as if machine `from` sent them to `to`. */
static void inject(int from, int to, const uint8_t *data, size_t size)
{
    assert_int_equal(tap.real[from].send(tap.real[from].ctx, &h.peer[to].addr, data, size), 0);
}

/* ---- the match ------------------------------------------------------------------ */

static const uint8_t MATCH_KEY[32] = {
    0x5e, 0x12, 0x9a, 0x40, 0x77, 0xc3, 0x0d, 0xe8, 0x21, 0x6b, 0xf0, 0x94, 0x3c, 0xa5, 0x18, 0x7f,
    0xd2, 0x49, 0x0e, 0xb6, 0x63, 0x2a, 0x81, 0xcf, 0x15, 0x9e, 0x47, 0x70, 0xe3, 0x0a, 0xbd, 0x36};

static tempo_config keyed_cfg(int players)
{
    tempo_config c = harness_cfg(players);
    c.session_id = 0x0BADF00Du;
    c.has_match_key = true;
    memcpy(c.match_key, MATCH_KEY, sizeof c.match_key);
    return c;
}

static void start(const tempo_config *c, int npeers, int nspect, uint64_t seed)
{
    uint32_t m[H_MAX];
    harness_one_each(m, npeers);
    harness_init(&h, c, npeers, m, nspect, "lan", seed);
    tap_install();
}

static void start_three(uint64_t seed)
{
    tempo_config c = keyed_cfg(3);
    start(&c, 3, 0, seed);
}

static tempo_session_stats stats_of(int i)
{
    tempo_session_stats st;
    assert_int_equal(tempo_session_get_stats(h.peer[i].s, &st), TEMPO_OK);
    return st;
}

static tempo_endpoint_stats endpoint_of(int i, int player)
{
    tempo_endpoint_stats es;
    assert_int_equal(tempo_session_get_endpoint_stats(h.peer[i].s, player, &es), TEMPO_OK);
    return es;
}

/* Every live player machine reached `frames`, nobody was dropped, no
 * desync, and every live machine agrees on every frame all confirmed. */
static void assert_match_whole(int32_t frames)
{
    for (int i = 0; i < h.npeers; i++) {
        if (h.peer[i].dead)
            continue;
        if (!h.peer[i].spectator)
            assert_true(tempo_session_frame(h.peer[i].s) >= frames);
        assert_int_equal(h.peer[i].disconnect_events, 0);
        assert_int_equal(h.peer[i].desync_events, 0);
        tempo_session_state st;
        assert_int_equal(tempo_session_get_state(h.peer[i].s, &st), TEMPO_OK);
        assert_int_equal(st, TEMPO_SESSION_RUNNING);
    }
    int32_t checked;
    assert_true(harness_converged(&h, true, &checked));
    assert_true(checked > frames - 40);
}

/* `m` encoded as machine from's next datagram to `to`, in the clear. */
static size_t plain_datagram(int from, int to, tempo_msg *m, uint8_t *buf, uint64_t *seq)
{
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = h.cfg.input_size;
    ctx.num_players = h.players;
    ctx.reference = craft_zero_reference;
    m->session_id = h.cfg.session_id;
    int n = tempo_codec_encode(m, &ctx, buf, TEMPO_MAX_DATAGRAM);
    assert_true(n >= PACKET_HEADER_SIZE);
    *seq = link_on_sent(&peer_at(&h, from, to)->link, h.now_us, (size_t)n);
    buf[5] = (uint8_t)*seq;
    buf[6] = (uint8_t)(*seq >> 8);
    return (size_t)n;
}

/* An insider: machine `from` seals `m` with its own key for `to`. */
static void send_sealed(int from, int to, tempo_msg *m)
{
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    uint64_t seq;
    size_t n = plain_datagram(from, to, m, buf, &seq);
    int sealed = seal_datagram(&peer_at(&h, from, to)->keys, seq, buf, n, sizeof buf);
    assert_true(sealed > 0);
    inject(from, to, buf, (size_t)sealed);
}

/* An outsider: `m` as from's datagram to `to`, in the clear (wrong_key
 * false) or sealed under a key derived from another match key. */
static void send_forged(int from, int to, tempo_msg *m, bool wrong_key)
{
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    uint64_t seq;
    size_t n = plain_datagram(from, to, m, buf, &seq);
    if (!wrong_key) {
        inject(from, to, buf, n);
        return;
    }
    uint8_t other[32];
    memcpy(other, MATCH_KEY, sizeof other);
    other[31] ^= 0x80;
    wire_keys k;
    assert_int_equal(keys_derive_link(other, h.cfg.session_id, keys_identity_of_players(1u << from),
                                      keys_identity_of_players(1u << to), &k),
                     TEMPO_OK);
    int sealed = seal_datagram(&k, seq, buf, n, sizeof buf);
    seal_keys_wipe(&k);
    assert_true(sealed > 0);
    inject(from, to, buf, (size_t)sealed);
}

/* An INPUT from `sender` to `victim` without inputs, with the ack and
 * frame the sender's session would send, claiming the players of `mask`
 * dropped. */
static void claim(tempo_msg *m, int victim, int sender, uint8_t mask)
{
    empty_input(&h, victim, sender, m);
    m->u.input.ack = p2p_wanted_from(h.peer[sender].s, peer_at(&h, sender, victim));
    m->u.input.sender_frame = tempo_session_frame(h.peer[sender].s);
    m->u.input.disconnected_mask = mask;
    for (int p = 0; p < h.players; p++)
        if (mask & (1u << p))
            m->u.input.disconnect_frame[p] = m->u.input.have_until[p] = m->u.input.start;
}

/* ---- freeze: acks far ahead -------------------------------------------------------- */

/* Insider B acknowledges frames of A's that do not exist yet, in an INPUT
 * and in a CHECKSUM: A ignores both acks and counts them (acks_ignored,
 * checksums_ignored), keeps sending B what B really lacks, and the match
 * plays on whole. (Believing an ack far ahead froze a match: acks only
 * move forward.) */
static void insider_acks_far_ahead_are_ignored_and_counted(void **state)
{
    (void)state;
    start_three(31);
    harness_run(&h, 120, 60000000);
    tempo_session_stats before = stats_of(A);
    tempo_msg m;
    empty_input(&h, A, B, &m);
    m.u.input.ack = tempo_session_frame(h.peer[A].s) + 100000;
    send_sealed(B, A, &m);
    crafted_sum(&m, 0, 0, 30 * 5000);
    send_sealed(B, A, &m);
    harness_run(&h, 400, 60000000);
    tempo_session_stats after = stats_of(A);
    assert_int_equal(after.acks_ignored - before.acks_ignored, 1);
    assert_int_equal(after.checksums_ignored - before.checksums_ignored, 1);
    assert_int_equal(after.dropped_forged, 0);
    /* what B asked for is a frame A really has */
    assert_true(endpoint_of(A, B).acked_frame <= tempo_session_frame(h.peer[A].s) + 10);
    assert_true(after.desync_checks > before.desync_checks);
    assert_match_whole(400);
    harness_free(&h);
}

/* A spectator (an insider too: it holds its pair's keys) acknowledges
 * frames its host has not confirmed: ignored and counted, and it is still
 * fed. */
static void spectator_ack_far_ahead_is_ignored_and_counted(void **state)
{
    (void)state;
    tempo_config c = keyed_cfg(2);
    start(&c, 2, 1, 32);
    int spec = 2;
    harness_run(&h, 120, 60000000);
    tempo_session_stats before = stats_of(A);
    tempo_msg m;
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_INPUT_ACK;
    m.u.input_ack.ack = tempo_session_frame(h.peer[A].s) + 5000;
    m.u.input_ack.sender_frame = 1;
    send_sealed(spec, A, &m);
    harness_run(&h, 400, 60000000);
    tempo_session_stats after = stats_of(A);
    assert_int_equal(after.acks_ignored - before.acks_ignored, 1);
    assert_true(tempo_session_confirmed_frame(h.peer[spec].s) > 300);
    assert_match_whole(400);
    harness_free(&h);
}

/* ---- kick: drop claims ------------------------------------------------------------- */

/* Insider B tells A that C's player and A's own player dropped, and tells
 * C that A's dropped, while A and C hear each other: every claim is
 * ignored and counted once per datagram, and nobody is dropped. */
static void insider_drop_claims_about_peers_still_heard_are_ignored(void **state)
{
    (void)state;
    start_three(33);
    harness_run(&h, 120, 60000000);
    tempo_session_stats a0 = stats_of(A), c0 = stats_of(C);
    tempo_msg m;
    for (int k = 0; k < 5; k++) {
        claim(&m, A, B, 1u << C);
        send_sealed(B, A, &m);
        claim(&m, A, B, 1u << A);
        send_sealed(B, A, &m);
        claim(&m, C, B, 1u << A);
        send_sealed(B, C, &m);
        harness_run(&h, INT32_MAX, h.now_us + 100000);
    }
    harness_run(&h, 500, 60000000);
    assert_int_equal(stats_of(A).claims_ignored - a0.claims_ignored, 10);
    assert_int_equal(stats_of(C).claims_ignored - c0.claims_ignored, 5);
    assert_int_equal(stats_of(B).claims_ignored, 0);
    assert_false(endpoint_of(A, C).disconnected);
    assert_false(endpoint_of(C, A).disconnected);
    assert_match_whole(500);
    harness_free(&h);
}

/* The same claim and a DISCONNECT "from B" made by an outsider (in the
 * clear, and under another match key): refused before decoding. */
static void forged_drop_claims_are_refused_before_decoding(void **state)
{
    (void)state;
    start_three(34);
    harness_run(&h, 120, 60000000);
    tempo_session_stats before = stats_of(A);
    tempo_msg m;
    claim(&m, A, B, 1u << C);
    send_forged(B, A, &m, false);
    claim(&m, A, B, 1u << C);
    send_forged(B, A, &m, true);
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_DISCONNECT;
    send_forged(B, A, &m, false);
    send_forged(B, A, &m, true);
    harness_run(&h, 400, 60000000);
    tempo_session_stats after = stats_of(A);
    assert_int_equal(after.dropped_forged - before.dropped_forged, 4);
    assert_int_equal(after.claims_ignored, before.claims_ignored); /* never decoded */
    assert_match_whole(400);
    harness_free(&h);
}

/* Four peers; D's machine dies. While the survivors settle D's drop,
 * insider B keeps telling A that C dropped. A ignores every one of those
 * claims, believes the honest news about D (it no longer hears D either),
 * and A, B and C settle D's drop on the same frame and agree. */
static void survivors_settle_a_real_drop_on_one_frame_while_an_insider_lies(void **state)
{
    (void)state;
    tempo_config c = keyed_cfg(4);
    start(&c, 4, 0, 35);
    harness_run(&h, 150, 60000000);
    harness_kill(&h, D);
    tempo_session_stats before = stats_of(A);
    tempo_msg m;
    int lies = 0;
    for (int k = 0; k < 40; k++) { /* 4 s: past the disconnect timeout */
        claim(&m, A, B, 1u << C);
        send_sealed(B, A, &m);
        lies++;
        harness_run(&h, INT32_MAX, h.now_us + 100000);
    }
    harness_run(&h, 600, 60000000);
    assert_int_equal(stats_of(A).claims_ignored - before.claims_ignored, lies);
    int32_t frame = -1;
    for (int i = A; i <= C; i++) {
        assert_int_equal(h.peer[i].disconnect_events, 1); /* D's player, no one else */
        assert_int_equal(h.peer[i].desync_events, 0);
        assert_true(tempo_session_frame(h.peer[i].s) >= 600);
        int32_t f = h.peer[i].s->net->sync->q[D].disconnect_frame;
        if (frame < 0)
            frame = f;
        assert_int_equal(f, frame);
    }
    assert_true(frame >= 150 && frame < 200);
    int32_t checked;
    assert_true(harness_converged(&h, false, &checked));
    assert_true(checked > 550);
    harness_free(&h);
}

/* The link between B and C goes dark for 4 s while A hears both: B and C
 * accuse each other, A believes the accusation against the machine with
 * the higher player (C), so A and B play on together with one drop frame,
 * and C, which claimed B, ends cut off rather than splitting the match
 * three ways. */
static void mutual_accusation_is_settled_alike_by_the_third_machine(void **state)
{
    (void)state;
    start_three(44);
    harness_run(&h, 150, 60000000);
    tempo_simnet_add_blackout(h.net, &h.peer[B].addr, &h.peer[C].addr, h.now_us, h.now_us + 4000000);
    tempo_simnet_add_blackout(h.net, &h.peer[C].addr, &h.peer[B].addr, h.now_us, h.now_us + 4000000);
    harness_run(&h, 900, 60000000);
    assert_false(endpoint_of(A, B).disconnected);
    assert_true(endpoint_of(A, C).disconnected);
    assert_true(endpoint_of(B, C).disconnected);
    assert_true(endpoint_of(C, A).disconnected && endpoint_of(C, B).disconnected);
    assert_true(stats_of(A).claims_ignored > 0); /* C's claim against B */
    for (int i = A; i <= B; i++) {
        assert_int_equal(h.peer[i].disconnect_events, 1);
        assert_int_equal(h.peer[i].desync_events, 0);
    }
    assert_int_equal(h.peer[A].s->net->sync->q[C].disconnect_frame,
                     h.peer[B].s->net->sync->q[C].disconnect_frame);
    h.peer[C].dead = true; /* alone now: compare the two that play on */
    int32_t checked;
    assert_true(harness_converged(&h, false, &checked));
    assert_true(checked > 850);
    harness_free(&h);
}

/* ---- inject ------------------------------------------------------------------------ */

/* Inputs "from B" for frames B has not sent yet, made without B's key:
 * refused before decoding; A and C use only B's real inputs. */
static void forged_inputs_for_frames_not_sent_are_refused(void **state)
{
    (void)state;
    start_three(36);
    harness_run(&h, 120, 60000000);
    tempo_session_stats a0 = stats_of(A), c0 = stats_of(C);
    for (int to = A; to <= C; to += C - A) {
        for (int k = 0; k < 2; k++) {
            tempo_msg m;
            empty_input(&h, to, B, &m);
            m.u.input.player_mask = 1u << B;
            m.u.input.start += 10; /* ahead of anything B sent */
            m.u.input.count = 8;
            for (int i = 0; i < 8 * 4; i++)
                m.u.input.data[i] = 0xA5;
            send_forged(B, to, &m, k == 1);
        }
    }
    harness_run(&h, 400, 60000000);
    assert_int_equal(stats_of(A).dropped_forged - a0.dropped_forged, 2);
    assert_int_equal(stats_of(C).dropped_forged - c0.dropped_forged, 2);
    assert_match_whole(400);
    harness_free(&h);
}

/* ---- hide and false alarms: checksums ---------------------------------------------- */

/* The next check frame past `frame`, a few check frames on. */
static int32_t check_frame_after(int32_t frame, int ahead)
{
    int iv = h.cfg.desync_interval;
    return (frame / iv + ahead) * iv;
}

/* Insider B sends A a false checksum of a check frame still to come. All
 * it can do: A reports one DESYNC at that frame, naming B. States do not
 * differ, C sees nothing, and the match plays on. */
static void insider_false_checksum_raises_one_desync_and_nothing_else(void **state)
{
    (void)state;
    start_three(37);
    harness_run(&h, 120, 60000000);
    int32_t f = check_frame_after(tempo_session_frame(h.peer[A].s), 3);
    tempo_msg m;
    crafted_sum(&m, f, 0x1234567890ULL, 0);
    send_sealed(B, A, &m);
    harness_run(&h, 400, 60000000);
    assert_int_equal(h.peer[A].desync_events, 1);
    assert_int_equal(h.peer[A].first_desync_frame, f);
    assert_int_equal(stats_of(A).desyncs, 1);
    assert_int_equal(h.peer[A].disconnect_events, 0);
    for (int i = B; i <= C; i++) {
        assert_int_equal(h.peer[i].desync_events, 0);
        assert_int_equal(h.peer[i].disconnect_events, 0);
    }
    int32_t checked;
    assert_true(harness_converged(&h, false, &checked));
    assert_true(checked > 360);
    harness_free(&h);
}

/* C's state really parts from A's and B's. Insider B sent A a false
 * checksum of that very check frame beforehand: A still reports C's
 * disagreement, as a second DESYNC of the frame. */
static void lying_checksum_cannot_hide_another_peers_real_desync(void **state)
{
    (void)state;
    start_three(38);
    harness_run(&h, 120, 60000000);
    int32_t f = check_frame_after(tempo_session_frame(h.peer[A].s), 4);
    h.peer[C].corrupt_at = (uint64_t)f - 5;
    tempo_msg m;
    crafted_sum(&m, f, 0x1234567890ULL, 0);
    send_sealed(B, A, &m);
    harness_run(&h, 400, 60000000);
    assert_int_equal(h.peer[A].first_desync_frame, f);
    assert_int_equal(h.peer[A].first_desync_events, 2); /* B's lie and C's truth */
    assert_int_equal(h.peer[B].first_desync_frame, f);  /* B's own session is honest */
    assert_int_equal(h.peer[B].first_desync_events, 1);
    harness_free(&h);
}

/* An attacker on the path alters B's CHECKSUMs to A while B's state
 * really differs: each altered one is refused (dropped_forged), B resends
 * what A never acknowledged, and A reports the desync at its first frame. */
static void altered_checksums_cannot_hide_a_real_desync(void **state)
{
    (void)state;
    start_three(39);
    harness_run(&h, 120, 60000000);
    int32_t f = check_frame_after(tempo_session_frame(h.peer[A].s), 2);
    h.peer[B].corrupt_at = (uint64_t)f - 5;
    tempo_session_stats before = stats_of(A);
    tap_arm(B, A, TEMPO_MSG_CHECKSUM, 6);
    tap.alter = true;
    harness_run(&h, 400, 60000000);
    assert_int_equal(tap.ngot, 6);
    tempo_session_stats after = stats_of(A);
    assert_int_equal(after.dropped_forged - before.dropped_forged, 6);
    assert_int_equal(h.peer[A].first_desync_frame, f);
    assert_int_equal(after.desync_checks_missed, before.desync_checks_missed);
    harness_free(&h);
}

/* ---- freeze: liveness needs authenticated traffic ---------------------------------- */

/* B's machine stops. An outsider keeps A's link to B "alive" with forged
 * datagrams every 100 ms: B's keepalives in the clear, under another key,
 * and copies of B's real datagrams. None counts as hearing B: A raises
 * INTERRUPTED after disconnect_notify_ms and drops B after
 * disconnect_timeout_ms, as if nothing came, while A and C play on. */
static void forged_keepalives_do_not_keep_a_gone_peer_alive(void **state)
{
    (void)state;
    start_three(40);
    harness_run(&h, 140, 60000000);
    tap_arm(B, A, TEMPO_MSG_INPUT, 8);
    harness_run(&h, 150, 60000000);
    assert_int_equal(tap.ngot, 8);
    h.peer[B].dead = true; /* silent, but its address still reaches A */
    uint64_t t0 = h.now_us;
    tempo_session_stats before = stats_of(A);
    int forged = 0, copies = 0;
    bool interrupted_at_700 = false, dropped_at_2800 = true;
    for (int k = 0; k < 36; k++) {
        tempo_msg m;
        empty_input(&h, A, B, &m);
        send_forged(B, A, &m, k % 2 == 1);
        forged++;
        inject(B, A, tap.got[k % 8].data, tap.got[k % 8].size);
        copies++;
        harness_run(&h, INT32_MAX, h.now_us + 100000);
        if (h.now_us - t0 == 700000)
            interrupted_at_700 = endpoint_of(A, B).interrupted;
        if (h.now_us - t0 == 2800000)
            dropped_at_2800 = endpoint_of(A, B).disconnected;
    }
    assert_true(interrupted_at_700);
    assert_int_equal(h.peer[A].interrupted_events, 1);
    assert_false(dropped_at_2800);
    assert_true(endpoint_of(A, B).disconnected); /* by 3.6 s */
    tempo_session_stats after = stats_of(A);
    /* after the drop, datagrams from B's address are no longer looked at */
    assert_true(after.dropped_forged - before.dropped_forged >= (uint64_t)forged - 7);
    assert_true(after.dropped_replay - before.dropped_replay >= (uint64_t)copies - 7);
    harness_run(&h, tempo_session_frame(h.peer[A].s) + 200, h.now_us + 60000000);
    assert_int_equal(h.peer[A].disconnect_events, 1);
    assert_int_equal(h.peer[C].disconnect_events, 1);
    assert_int_equal(h.peer[A].desync_events + h.peer[C].desync_events, 0);
    assert_int_equal(h.peer[A].s->net->sync->q[B].disconnect_frame,
                     h.peer[C].s->net->sync->q[B].disconnect_frame);
    int32_t checked;
    assert_true(harness_converged(&h, false, &checked));
    harness_free(&h);
}

/* ---- skew: round trips -------------------------------------------------------------- */

/* Copies of B's real PONGs to A come back over 2 s (replayed), and insider
 * B sends PONGs answering pings A never sent: the copies are refused by the
 * replay window, the invented ones are counted (pongs_ignored), and A's
 * RTT to B stays a LAN's. */
static void replayed_and_invented_pongs_do_not_skew_the_round_trip(void **state)
{
    (void)state;
    start_three(41);
    harness_run(&h, 60, 60000000);
    tap_arm(B, A, TEMPO_MSG_PONG, 3);
    harness_run(&h, 200, 60000000);
    assert_int_equal(tap.ngot, 3);
    double rtt0 = endpoint_of(A, B).rtt_ms;
    assert_true(rtt0 > 0 && rtt0 < 20);
    tempo_session_stats before = stats_of(A);
    for (int k = 0; k < 20; k++) {
        inject(B, A, tap.got[k % 3].data, tap.got[k % 3].size);
        tempo_msg m;
        memset(&m, 0, sizeof m);
        m.type = TEMPO_MSG_PONG;
        m.u.ping.id = 0x70000000u + (uint32_t)k;
        send_sealed(B, A, &m);
        harness_run(&h, INT32_MAX, h.now_us + 100000);
    }
    tempo_session_stats after = stats_of(A);
    assert_int_equal(after.dropped_replay - before.dropped_replay, 20);
    assert_int_equal(after.pongs_ignored - before.pongs_ignored, 20);
    assert_true(endpoint_of(A, B).rtt_ms < 20);
    harness_run(&h, tempo_session_frame(h.peer[A].s) + 60, h.now_us + 60000000);
    assert_match_whole(tempo_session_frame(h.peer[A].s) - 10);
    harness_free(&h);
}

/* ---- handshake ---------------------------------------------------------------------- */

/* B never comes. An outsider answers for it through A's handshake, in the
 * clear and under another key, every 100 ms: A never counts B as heard,
 * and raises HANDSHAKE_FAILED once, when handshake_timeout_ms has passed,
 * then stops sending to B. */
static void spoofed_handshake_cannot_start_a_match_and_the_timeout_ends_it(void **state)
{
    (void)state;
    tempo_config c = keyed_cfg(2);
    c.handshake_timeout_ms = 2000;
    start(&c, 2, 0, 42);
    h.peer[B].dead = true;
    int sent = 0;
    uint64_t x = 5;
    for (int k = 0; k < 30; k++) {
        tempo_msg m;
        memset(&m, 0, sizeof m);
        m.type = k % 4 < 2 ? TEMPO_MSG_SYNC_REQUEST : TEMPO_MSG_SYNC_REPLY;
        m.u.sync.nonce = (uint32_t)craft_rand(&x) | 1u;
        m.u.sync.config_hash = h.peer[A].s->net->config_hash;
        m.u.sync.num_players = 2;
        m.u.sync.input_size = (uint8_t)h.cfg.input_size;
        m.u.sync.player_mask = 1u << B;
        m.u.sync.ready_mask = 3;
        m.u.sync.ready = true;
        send_forged(B, A, &m, k % 2 == 1);
        sent++;
        harness_run(&h, INT32_MAX, h.now_us + 65000);
        if (h.now_us < 1950000)
            assert_int_equal(h.peer[A].handshake_failed_events, 0);
    }
    assert_true(h.now_us >= 1950000);
    harness_run(&h, INT32_MAX, 2100000);
    assert_int_equal(h.peer[A].handshake_failed_events, 1);
    tempo_endpoint_stats es = endpoint_of(A, B);
    assert_false(es.synchronized);
    assert_true(es.disconnected);
    assert_int_equal(es.packets_received, 0);
    uint64_t sent_then = es.packets_sent;
    assert_int_equal(stats_of(A).dropped_forged, (uint64_t)sent);
    harness_run(&h, INT32_MAX, 4000000);
    assert_int_equal(endpoint_of(A, B).packets_sent, sent_then); /* it stopped trying */
    assert_int_equal(h.peer[A].handshake_failed_events, 1);
    assert_int_equal(h.peer[A].disconnect_events, 1); /* B's player, as if timed out */
    harness_free(&h);
}

/* A completed match with a handshake timeout set: B's captured handshake
 * requests replayed mid-match are refused by the replay window, a spoofed
 * one is refused as forged, and insider B's fresh sealed request is only
 * answered: nothing restarts, times out or ends. */
static void replayed_handshake_cannot_restart_or_end_a_match(void **state)
{
    (void)state;
    tempo_config c = keyed_cfg(3);
    c.handshake_timeout_ms = 1000;
    start(&c, 3, 0, 43);
    tap_arm(B, A, TEMPO_MSG_SYNC_REQUEST, 4);
    harness_run(&h, 200, 60000000);
    assert_int_equal(tap.ngot, 4);
    tempo_session_stats before = stats_of(A);
    for (int k = 0; k < 4; k++)
        inject(B, A, tap.got[k].data, tap.got[k].size);
    tempo_msg m;
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_SYNC_REQUEST;
    m.u.sync.nonce = 0x51u;
    m.u.sync.config_hash = h.peer[A].s->net->config_hash;
    m.u.sync.num_players = 3;
    m.u.sync.input_size = (uint8_t)h.cfg.input_size;
    m.u.sync.player_mask = 1u << B;
    send_forged(B, A, &m, false);
    send_sealed(B, A, &m);
    harness_run(&h, 400, 60000000);
    tempo_session_stats after = stats_of(A);
    assert_int_equal(after.dropped_replay - before.dropped_replay, 4);
    assert_int_equal(after.dropped_forged - before.dropped_forged, 1);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(h.peer[i].running_events, 1);
        assert_int_equal(h.peer[i].handshake_failed_events, 0);
    }
    assert_match_whole(400);
    harness_free(&h);
}

static int no_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    (void)ctx, (void)to, (void)data, (void)size;
    return 0;
}

static int no_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    (void)ctx, (void)from, (void)buf, (void)capacity;
    return 0;
}

static void handshake_timeout_is_validated(void **state)
{
    (void)state;
    tempo_transport tr = {no_send, no_recv, NULL, NULL};
    tempo_session *s;
    tempo_config c = keyed_cfg(2);
    c.has_match_key = tempo_secure_available(); /* the range is checked either way */
    assert_int_equal(c.handshake_timeout_ms, 0);
    const uint32_t bad[] = {1, 999, 3600001, UINT32_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        c.handshake_timeout_ms = bad[i];
        assert_int_equal(tempo_session_create_p2p(&c, &tr, &s), TEMPO_E_INVALID_ARG);
    }
    const uint32_t good[] = {0, 1000, 30000, 3600000};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        c.handshake_timeout_ms = good[i];
        assert_int_equal(tempo_session_create_p2p(&c, &tr, &s), TEMPO_OK);
        tempo_session_destroy(s);
    }
}

int main(void)
{
    if (!tempo_secure_available()) {
        const struct CMUnitTest open_only[] = {
            cmocka_unit_test(handshake_timeout_is_validated),
        };
        return cmocka_run_group_tests(open_only, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(insider_acks_far_ahead_are_ignored_and_counted),
        cmocka_unit_test(spectator_ack_far_ahead_is_ignored_and_counted),
        cmocka_unit_test(insider_drop_claims_about_peers_still_heard_are_ignored),
        cmocka_unit_test(forged_drop_claims_are_refused_before_decoding),
        cmocka_unit_test(survivors_settle_a_real_drop_on_one_frame_while_an_insider_lies),
        cmocka_unit_test(mutual_accusation_is_settled_alike_by_the_third_machine),
        cmocka_unit_test(forged_inputs_for_frames_not_sent_are_refused),
        cmocka_unit_test(insider_false_checksum_raises_one_desync_and_nothing_else),
        cmocka_unit_test(lying_checksum_cannot_hide_another_peers_real_desync),
        cmocka_unit_test(altered_checksums_cannot_hide_a_real_desync),
        cmocka_unit_test(forged_keepalives_do_not_keep_a_gone_peer_alive),
        cmocka_unit_test(replayed_and_invented_pongs_do_not_skew_the_round_trip),
        cmocka_unit_test(spoofed_handshake_cannot_start_a_match_and_the_timeout_ends_it),
        cmocka_unit_test(replayed_handshake_cannot_restart_or_end_a_match),
        cmocka_unit_test(handshake_timeout_is_validated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
