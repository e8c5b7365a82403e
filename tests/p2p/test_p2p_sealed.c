/* SPDX-License-Identifier: MIT */
/*
 * test_p2p_sealed.c — p2p and spectator sessions with a match key: every
 * datagram on the wire is sealed, the match runs and converges, and what a
 * machine without the right pair key sends (a forged DISCONNECT in the
 * clear or under another key, altered copies of real datagrams, a datagram
 * sealed for another pair) is dropped before decoding and counted as
 * dropped_forged, while a copy of a real one is dropped by the replay
 * window. The match goes on and the machines agree. Genuine datagrams far
 * ahead, held back by an attacker and sent in turn, are never used and do
 * not keep a silent peer alive. A session without a key says it is
 * unauthenticated; no freed block holds the match key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "craft.h"
#include "fail_on_assert.h"
#include "p2p_harness.h"
#include "tempo/secure.h"
#include "wire/keys.h"
#include "wire/packet.h"

enum { A = 0, B = 1, C = 2 };

static harness h;

/* What the wiretap saw and holds back: datagrams from one machine to
 * another, copied before (or instead of) delivery. */
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
    int want;                    /* how many more to take */
    int cut_from, cut_to;        /* a direction where everything is lost (-1: none) */
    tap_datagram got[TAP_MAX];
    int ngot;
    uint64_t seen, seen_sealed;  /* every datagram sent, and those sealed */
} tap;

static int tap_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    int from = 0; /* the node whose simnet context this is */
    while (from < h.npeers - 1 && tap.real[from].ctx != ctx)
        from++;
    tap.seen++;
    if (size > 0 && data[0] == packet_protocol_byte(true))
        tap.seen_sealed++;
    if (from == tap.cut_from && tempo_address_equal(to, &h.peer[tap.cut_to].addr))
        return 0; /* the attacker drops it */
    if (from == tap.from && tap.want > 0 && tap.ngot < TAP_MAX &&
        tempo_address_equal(to, &h.peer[tap.to].addr) && size >= PACKET_HEADER_SIZE &&
        data[7] == tap.type) {
        memcpy(tap.got[tap.ngot].data, data, size);
        tap.got[tap.ngot].size = size;
        tap.ngot++;
        tap.want--;
        if (tap.swallow)
            return 0; /* as if the network lost it */
    }
    return tap.real[from].send(tap.real[from].ctx, to, data, size);
}

/* Route every machine's sends through the tap (the sessions call h_ears_send,
 * which calls peer.tr); receiving stays simnet's. */
static void tap_install(void)
{
    memset(&tap, 0, sizeof tap);
    tap.from = tap.to = -1;
    tap.cut_from = tap.cut_to = -1;
    for (int i = 0; i < h.npeers; i++) {
        tap.real[i] = h.peer[i].tr;
        h.peer[i].tr.send = tap_send;
    }
}

static void tap_arm(int from, int to, uint8_t type, int want, bool swallow)
{
    tap.from = from;
    tap.to = to;
    tap.type = type;
    tap.want = want;
    tap.swallow = swallow;
    tap.ngot = 0;
}

/* Deliver bytes as if machine `from` sent them to `to`. */
static void inject(int from, int to, const uint8_t *data, size_t size)
{
    assert_int_equal(tap.real[from].send(tap.real[from].ctx, &h.peer[to].addr, data, size), 0);
}

static const uint8_t MATCH_KEY[32] = {
    0x3a, 0x91, 0x5c, 0x07, 0xe2, 0x44, 0x18, 0xbd, 0x6f, 0x20, 0xc9, 0x75, 0x0e, 0xa3, 0x5b, 0xd8,
    0x11, 0x7c, 0xf4, 0x29, 0x86, 0x3e, 0xaa, 0x52, 0x9d, 0x60, 0x0b, 0xe7, 0x34, 0xc1, 0x58, 0xfe};

static tempo_config keyed_cfg(int players)
{
    tempo_config c = harness_cfg(players);
    c.session_id = 0x00C0FFEEu;
    c.has_match_key = true;
    memcpy(c.match_key, MATCH_KEY, sizeof c.match_key);
    return c;
}

static tempo_session_stats stats_of(int i)
{
    tempo_session_stats st;
    assert_int_equal(tempo_session_get_stats(h.peer[i].s, &st), TEMPO_OK);
    return st;
}

static void start_three(uint64_t seed)
{
    tempo_config c = keyed_cfg(3);
    uint32_t m[3];
    harness_one_each(m, 3);
    harness_init(&h, &c, 3, m, 0, "lan", seed);
    tap_install();
}

/* Everyone reached `frames`, nobody was dropped, and they agree. */
static void assert_match_whole(int32_t frames)
{
    for (int i = 0; i < h.npeers; i++) {
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

/* A plain message encoded as machine `from`'s next datagram to `to`:
 * header with the sequence from's link gives it, body, no tag. Returns the
 * size; *seq is the full sequence. */
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

/* ---- the match runs sealed ------------------------------------------------- */

static void keyed_three_peers_converge_with_every_datagram_sealed(void **state)
{
    (void)state;
    start_three(11);
    harness_run(&h, 400, 60000000);
    assert_match_whole(400);
    assert_true(tap.seen > 1000);
    assert_int_equal(tap.seen_sealed, tap.seen); /* the handshake too */
    for (int i = 0; i < h.npeers; i++) {
        tempo_session_stats st = stats_of(i);
        assert_false(st.unauthenticated);
        assert_int_equal(st.dropped_forged, 0);
        assert_int_equal(st.dropped_malformed, 0);
        assert_true(st.desync_checks > 0);
    }
    harness_free(&h);
}

static void keyed_spectator_watches_in_agreement(void **state)
{
    (void)state;
    tempo_config c = keyed_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 2, "broadband", 12);
    tap_install();
    harness_run(&h, 400, 60000000);
    assert_int_equal(tap.seen_sealed, tap.seen);
    int32_t checked;
    assert_true(harness_converged(&h, true, &checked));
    assert_true(checked > 300);
    for (int i = 0; i < h.npeers; i++)
        assert_int_equal(stats_of(i).dropped_forged, 0);
    harness_free(&h);
}

/* ---- forgeries --------------------------------------------------------------- */

/* The DISCONNECT B would send A, made by someone without B's key: in the
 * clear (an 8-byte header with an empty body in protocol version 3, from
 * B's address, with the match's session id and B's next sequence), and
 * sealed under a key derived from another match key. A counts both and
 * keeps B. */
static void forged_disconnects_are_dropped_and_counted(void **state)
{
    (void)state;
    start_three(13);
    harness_run(&h, 120, 60000000);
    tempo_session_stats before = stats_of(A);
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    tempo_msg m;
    uint64_t seq;

    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_DISCONNECT;
    size_t n = plain_datagram(B, A, &m, buf, &seq);
    assert_int_equal(n, 8);
    assert_int_equal(buf[0], 0xB4);
    assert_memory_equal(buf + 1, "\xEE\xFF\xC0\x00", 4);
    assert_int_equal(buf[7], TEMPO_MSG_DISCONNECT);
    inject(B, A, buf, n);

    uint8_t wrong[32];
    memcpy(wrong, MATCH_KEY, sizeof wrong);
    wrong[0] ^= 1;
    wire_keys k;
    assert_int_equal(keys_derive_link(wrong, h.cfg.session_id, keys_identity_of_players(1u << B),
                                      keys_identity_of_players(1u << A), &k),
                     TEMPO_OK);
    n = plain_datagram(B, A, &m, buf, &seq);
    int sealed = seal_datagram(&k, seq, buf, n, sizeof buf);
    seal_keys_wipe(&k);
    assert_int_equal(sealed, 8 + 16);
    inject(B, A, buf, (size_t)sealed);

    harness_run(&h, 400, 60000000);
    tempo_session_stats after = stats_of(A);
    assert_int_equal(after.dropped_forged - before.dropped_forged, 2);
    assert_int_equal(after.dropped_malformed, before.dropped_malformed);
    tempo_endpoint_stats es;
    assert_int_equal(tempo_session_get_endpoint_stats(h.peer[A].s, B, &es), TEMPO_OK);
    assert_false(es.disconnected);
    assert_match_whole(400);
    harness_free(&h);
}

/* Real INPUT datagrams from A to B, held back on the wire, come in with
 * one bit flipped anywhere after the header (body or tag), or in the
 * sequence or type: none opens, each is counted, and B never learns of
 * them (its link saw them as lost). */
static void altered_captured_inputs_are_dropped_and_counted(void **state)
{
    (void)state;
    start_three(14);
    harness_run(&h, 120, 60000000);
    tap_arm(A, B, TEMPO_MSG_INPUT, 6, true);
    harness_run(&h, 140, 60000000);
    assert_int_equal(tap.ngot, 6);
    tempo_session_stats before = stats_of(B);
    uint64_t x = 99, sent = 0;
    for (int i = 0; i < tap.ngot; i++) {
        for (int k = 0; k < 8; k++) {
            tap_datagram d = tap.got[i];
            assert_int_equal(d.data[0], 0xBC);
            size_t at = PACKET_HEADER_SIZE + (size_t)(craft_rand(&x) % (d.size - PACKET_HEADER_SIZE));
            if (k == 0)
                at = 5; /* the low sequence bit: another nonce */
            d.data[at] ^= (uint8_t)(1u << (craft_rand(&x) % 8));
            if (k == 1)
                d.data[7] = TEMPO_MSG_PING; /* the type is authenticated too */
            inject(A, B, d.data, d.size);
            sent++;
        }
    }
    harness_run(&h, 400, 60000000);
    tempo_session_stats after = stats_of(B);
    /* a flipped sequence bit may land on a sequence B accepted: then the
     * replay window drops it before any cryptography */
    uint64_t forged = after.dropped_forged - before.dropped_forged;
    uint64_t replayed = after.dropped_replay - before.dropped_replay;
    assert_int_equal(forged + replayed, sent);
    assert_true(forged >= sent - (uint64_t)tap.ngot);
    assert_int_equal(after.dropped_malformed, before.dropped_malformed);
    assert_match_whole(400);
    harness_free(&h);
}

/* A copy of a datagram B already took is dropped by the replay window: it
 * is not even opened. */
static void replayed_captured_datagram_is_dropped(void **state)
{
    (void)state;
    start_three(15);
    harness_run(&h, 120, 60000000);
    tap_arm(A, B, TEMPO_MSG_INPUT, 3, false);
    harness_run(&h, 125, 60000000);
    assert_int_equal(tap.ngot, 3);
    harness_run(&h, 130, 60000000); /* delivered by now */
    tempo_session_stats before = stats_of(B);
    for (int i = 0; i < tap.ngot; i++)
        for (int k = 0; k < 2; k++)
            inject(A, B, tap.got[i].data, tap.got[i].size);
    harness_run(&h, 400, 60000000);
    tempo_session_stats after = stats_of(B);
    assert_int_equal(after.dropped_replay - before.dropped_replay, 6);
    assert_int_equal(after.dropped_forged, before.dropped_forged);
    assert_match_whole(400);
    harness_free(&h);
}

/* A's key for B does not speak for A to C: C refuses a datagram A sealed
 * for B even when it carries the very sequence C expects from A next, and
 * takes the same message sealed with A's key for C. */
static void datagram_sealed_for_another_pair_is_refused(void **state)
{
    (void)state;
    start_three(16);
    harness_run(&h, 120, 60000000);
    tempo_session_stats before = stats_of(C);
    uint64_t pongs_before = peer_at(&h, A, C)->link.packets_received;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    tempo_msg m;
    uint64_t seq;
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_PING;
    m.u.ping.id = 0x5eed;

    size_t n = plain_datagram(A, C, &m, buf, &seq);
    int sealed = seal_datagram(&peer_at(&h, A, B)->keys, seq, buf, n, sizeof buf);
    assert_true(sealed > 0);
    inject(A, C, buf, (size_t)sealed);
    harness_run(&h, 125, 60000000);
    assert_int_equal(stats_of(C).dropped_forged - before.dropped_forged, 1);

    n = plain_datagram(A, C, &m, buf, &seq);
    sealed = seal_datagram(&peer_at(&h, A, C)->keys, seq, buf, n, sizeof buf);
    assert_true(sealed > 0);
    inject(A, C, buf, (size_t)sealed);
    harness_run(&h, 400, 60000000);
    tempo_session_stats after = stats_of(C);
    assert_int_equal(after.dropped_forged - before.dropped_forged, 1);
    assert_int_equal(after.dropped_malformed, before.dropped_malformed);
    assert_true(peer_at(&h, A, C)->link.packets_received > pongs_before);
    assert_match_whole(400);
    harness_free(&h);
}

/* A CHECKSUM from `from` to `to` at sequence seq, sealed with from's real
 * key (a datagram `from` sent that an attacker on the path held back). Its
 * frame is no check frame, so each time it is used, the receiver counts
 * it in checksums_ignored. */
static size_t sealed_checksum_at(int from, int to, uint64_t seq, uint8_t *buf)
{
    tempo_msg m;
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_CHECKSUM;
    m.u.checksum.frame = 7;
    m.u.checksum.checksum = seq;
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = h.cfg.input_size;
    ctx.num_players = h.players;
    ctx.reference = craft_zero_reference;
    m.session_id = h.cfg.session_id;
    int n = tempo_codec_encode(&m, &ctx, buf, TEMPO_MAX_DATAGRAM);
    assert_true(n >= PACKET_HEADER_SIZE);
    buf[5] = (uint8_t)seq;
    buf[6] = (uint8_t)(seq >> 8);
    int sealed = seal_datagram(&peer_at(&h, from, to)->keys, seq, buf, (size_t)n, TEMPO_MAX_DATAGRAM);
    assert_true(sealed > 0);
    return (size_t)sealed;
}

static void start_two(uint64_t seed)
{
    tempo_config c = keyed_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "lan", seed);
    tap_install();
}

/* Two genuine datagrams far ahead of anything B took (an attacker held
 * back what came between), sent in turn again and again, are never used:
 * a datagram that far ahead is held until a neighbour confirms the jump,
 * so a copy of one cannot be used once the other took its place. */
static void far_ahead_datagrams_and_their_copies_are_not_used_unconfirmed(void **state)
{
    (void)state;
    start_two(17);
    harness_run(&h, 120, 60000000);
    uint64_t r = peer_at(&h, B, A)->link.recv_max;
    uint8_t j1[TEMPO_MAX_DATAGRAM], j2[TEMPO_MAX_DATAGRAM];
    size_t n1 = sealed_checksum_at(A, B, r + 1000, j1), n2 = sealed_checksum_at(A, B, r + 2000, j2);
    tempo_session_stats before = stats_of(B);
    for (int round = 0; round < 3; round++) {
        inject(A, B, j1, n1);
        inject(A, B, j2, n2);
        harness_run(&h, INT32_MAX, h.now_us + 50000);
    }
    tempo_session_stats after = stats_of(B);
    assert_int_equal(after.checksums_ignored - before.checksums_ignored, 0);
    assert_int_equal(after.dropped_forged, before.dropped_forged);
    assert_int_equal(peer_at(&h, B, A)->link.seq_jumps, 6);
    harness_run(&h, 400, 60000000);
    assert_match_whole(400);
    harness_free(&h);
}

/* An attacker on the path drops everything A sends B and keeps sending B
 * copies of two genuine datagrams of A's far ahead: B still hears silence
 * and drops A after the disconnect timeout, as if A were gone. */
static void replayed_far_ahead_datagrams_do_not_keep_a_silent_peer_alive(void **state)
{
    (void)state;
    start_two(18);
    harness_run(&h, 120, 60000000);
    uint64_t r = peer_at(&h, B, A)->link.recv_max;
    uint8_t j1[TEMPO_MAX_DATAGRAM], j2[TEMPO_MAX_DATAGRAM];
    size_t n1 = sealed_checksum_at(A, B, r + 1000, j1), n2 = sealed_checksum_at(A, B, r + 2000, j2);
    tap.cut_from = A;
    tap.cut_to = B;
    uint64_t cut_us = h.now_us;
    for (int round = 0; round < 20 && h.peer[B].disconnect_events == 0; round++) {
        inject(A, B, round % 2 ? j2 : j1, round % 2 ? n2 : n1);
        harness_run(&h, INT32_MAX, h.now_us + 400000);
    }
    assert_int_equal(h.peer[B].disconnect_events, 1);
    /* at the timeout (3 s), not later */
    assert_true(h.now_us - cut_us <= 3000000u + 400000u);
    harness_free(&h);
}

/* ---- keys at the edges ------------------------------------------------------- */

static int warnings;
static void count_warnings(void *ctx, tempo_log_level level, const char *msg)
{
    (void)ctx;
    if (level == TEMPO_LOG_WARN && strstr(msg, "match key"))
        warnings++;
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

static void unkeyed_session_warns_once_and_says_unauthenticated(void **state)
{
    (void)state;
    tempo_transport tr = {no_send, no_recv, NULL, NULL};
    tempo_config c = harness_cfg(2);
    c.log = count_warnings;
    warnings = 0;
    tempo_session *s;
    assert_int_equal(tempo_session_create_p2p(&c, &tr, &s), TEMPO_OK);
    assert_int_equal(warnings, 1);
    tempo_address b = h_addr(1);
    assert_int_equal(tempo_session_add_local_player(s, 0), TEMPO_OK);
    assert_int_equal(tempo_session_add_remote_player(s, 1, &b), TEMPO_OK);
    for (uint64_t t = 0; t < 100000; t += 16667)
        assert_int_equal(tempo_session_poll(s, t), TEMPO_OK);
    assert_int_equal(warnings, 1);
    tempo_session_stats st;
    assert_int_equal(tempo_session_get_stats(s, &st), TEMPO_OK);
    assert_true(st.unauthenticated);
    tempo_session_destroy(s);

    c = keyed_cfg(2);
    c.log = count_warnings;
    warnings = 0;
    assert_int_equal(tempo_session_create_p2p(&c, &tr, &s), TEMPO_OK);
    assert_int_equal(warnings, 0);
    assert_int_equal(tempo_session_get_stats(s, &st), TEMPO_OK);
    assert_false(st.unauthenticated);
    tempo_session_destroy(s);
}

static void keyed_config_is_validated(void **state)
{
    (void)state;
    tempo_transport tr = {no_send, no_recv, NULL, NULL};
    tempo_session *s;
    tempo_config c = keyed_cfg(2);
    memset(c.match_key, 0, sizeof c.match_key);
    assert_int_equal(tempo_session_create_p2p(&c, &tr, &s), TEMPO_E_INVALID_ARG);
    c = keyed_cfg(2);
    c.spectator_number = TEMPO_MAX_SPECTATORS;
    assert_int_equal(tempo_session_create_p2p(&c, &tr, &s), TEMPO_E_INVALID_ARG);
    c = keyed_cfg(2);
    c.spectator_host_player = 2;
    assert_int_equal(tempo_session_create_p2p(&c, &tr, &s), TEMPO_E_INVALID_ARG);
    c = keyed_cfg(2);
    c.has_match_key = false; /* the key is ignored then */
    memset(c.match_key, 0, sizeof c.match_key);
    assert_int_equal(tempo_session_create_p2p(&c, &tr, &s), TEMPO_OK);
    tempo_session_destroy(s);
}

/* An allocator that fails one chosen allocation and, before it frees a
 * block, looks for the match key in it. */
#define SCAN_BLOCKS 64
static struct {
    int fail_at, count, live, key_found;
    void *ptr[SCAN_BLOCKS];
    size_t size[SCAN_BLOCKS];
} scan;

static void *scan_alloc(void *ctx, size_t size)
{
    (void)ctx;
    if (scan.count++ == scan.fail_at)
        return NULL;
    for (int i = 0; i < SCAN_BLOCKS; i++)
        if (scan.ptr[i] == NULL) {
            scan.ptr[i] = malloc(size);
            scan.size[i] = size;
            scan.live++;
            return scan.ptr[i];
        }
    fail_msg("more than %d blocks out", SCAN_BLOCKS);
    return NULL;
}

static void scan_free(void *ctx, void *p)
{
    (void)ctx;
    if (p == NULL)
        return;
    for (int i = 0; i < SCAN_BLOCKS; i++) {
        if (scan.ptr[i] != p)
            continue;
        const uint8_t *b = p;
        for (size_t at = 0; at + sizeof MATCH_KEY <= scan.size[i]; at++)
            if (memcmp(b + at, MATCH_KEY, sizeof MATCH_KEY) == 0)
                scan.key_found++;
        free(p);
        scan.ptr[i] = NULL;
        scan.live--;
        return;
    }
    fail_msg("freeing a block not handed out");
}

/* A session's copy of the match key is wiped before its memory goes back,
 * when create fails at any of its allocations as after a match. */
static void no_freed_block_holds_the_match_key(void **state)
{
    (void)state;
    tempo_transport tr = {no_send, no_recv, NULL, NULL};
    for (int k = 0;; k++) {
        memset(&scan, 0, sizeof scan);
        scan.fail_at = k;
        tempo_config c = keyed_cfg(2);
        c.allocator.alloc = scan_alloc;
        c.allocator.free = scan_free;
        tempo_session *s = NULL;
        tempo_result r = tempo_session_create_p2p(&c, &tr, &s);
        if (r == TEMPO_OK) {
            tempo_address b = h_addr(1);
            assert_int_equal(tempo_session_add_local_player(s, 0), TEMPO_OK);
            assert_int_equal(tempo_session_add_remote_player(s, 1, &b), TEMPO_OK);
            for (uint64_t t = 0; t < 100000; t += 16667)
                assert_int_equal(tempo_session_poll(s, t), TEMPO_OK);
            tempo_session_destroy(s);
            assert_true(k > 0); /* the first allocation can fail */
        } else {
            assert_int_equal(r, TEMPO_E_NO_MEMORY);
        }
        assert_int_equal(scan.live, 0);
        assert_int_equal(scan.key_found, 0);
        if (r == TEMPO_OK)
            break;
    }
}

/* Keyed and unkeyed machines cannot play together: each drops the other's
 * datagrams and counts them, and neither decodes a byte. */
static void keyed_and_unkeyed_machines_drop_each_other(void **state)
{
    (void)state;
    tempo_config c = keyed_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "lan", 17);
    tempo_session_destroy(h.peer[B].s);
    c.has_match_key = false;
    assert_int_equal(tempo_session_create_p2p(&c, &h.peer[B].ears, &h.peer[B].s), TEMPO_OK);
    tempo_address a = h_addr(A);
    assert_int_equal(tempo_session_add_local_player(h.peer[B].s, 1), TEMPO_OK);
    assert_int_equal(tempo_session_add_remote_player(h.peer[B].s, 0, &a), TEMPO_OK);
    harness_run(&h, 10, 2000000);
    tempo_session_stats ka = stats_of(A), ub = stats_of(B);
    assert_int_equal(tempo_session_frame(h.peer[A].s), 0);
    assert_true(ka.dropped_forged > 5);     /* B's plain handshake */
    assert_true(ub.dropped_malformed > 5);  /* A's sealed one, SEALED */
    assert_int_equal(ub.dropped_forged, 0);
    tempo_endpoint_stats es;
    assert_int_equal(tempo_session_get_endpoint_stats(h.peer[A].s, B, &es), TEMPO_OK);
    assert_int_equal(es.packets_received, 0);
    harness_free(&h);
}

/* A build without libsodium refuses a keyed session outright rather than
 * run it open. */
static void keyed_config_without_libsodium_is_unsupported(void **state)
{
    (void)state;
    tempo_transport tr = {no_send, no_recv, NULL, NULL};
    tempo_session *s = (tempo_session *)&tr;
    tempo_config c = keyed_cfg(2);
    assert_int_equal(tempo_session_create_p2p(&c, &tr, &s), TEMPO_E_UNSUPPORTED);
    assert_null(s);
    tempo_address host = h_addr(0);
    assert_int_equal(tempo_session_create_spectator(&c, &tr, &host, &s), TEMPO_E_UNSUPPORTED);
}

int main(void)
{
    if (!tempo_secure_available()) {
        const struct CMUnitTest open_only[] = {
            cmocka_unit_test(keyed_config_without_libsodium_is_unsupported),
            cmocka_unit_test(keyed_config_is_validated),
        };
        return cmocka_run_group_tests(open_only, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keyed_three_peers_converge_with_every_datagram_sealed),
        cmocka_unit_test(keyed_spectator_watches_in_agreement),
        cmocka_unit_test(forged_disconnects_are_dropped_and_counted),
        cmocka_unit_test(altered_captured_inputs_are_dropped_and_counted),
        cmocka_unit_test(replayed_captured_datagram_is_dropped),
        cmocka_unit_test(datagram_sealed_for_another_pair_is_refused),
        cmocka_unit_test(far_ahead_datagrams_and_their_copies_are_not_used_unconfirmed),
        cmocka_unit_test(replayed_far_ahead_datagrams_do_not_keep_a_silent_peer_alive),
        cmocka_unit_test(unkeyed_session_warns_once_and_says_unauthenticated),
        cmocka_unit_test(keyed_config_is_validated),
        cmocka_unit_test(keyed_and_unkeyed_machines_drop_each_other),
        cmocka_unit_test(no_freed_block_holds_the_match_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
