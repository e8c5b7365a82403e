/* SPDX-License-Identifier: MIT */
/*
 * test_receive.c — the receive pipeline every role calls (net/receive.h):
 * each reason it refuses a datagram for, once, with the honest datagram
 * after it still taken (a refusal records nothing); the far-ahead hold and
 * its copy; a decoder's reason passed through; the trial open that leaves
 * the datagram as it came; and the one list of counters, each reason
 * moving exactly one field of a role's statistics.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "net/receive.h"

#define SID 0x5e55104u
#define NOW 1000000u

static const uint8_t KEY_A[SEAL_KEY_SIZE] = "test_receive: key of side A....";
static const uint8_t KEY_B[SEAL_KEY_SIZE] = "test_receive: key of side B....";

typedef struct rig {
    net_link link;
    tempo_replay replay;
    wire_keys send;   /* the sender's */
    wire_keys recv;   /* ours */
    bool sealed;
    net_receiver r;
    uint8_t buf[TEMPO_MAX_DATAGRAM + 8];
} rig;

static void rig_init(rig *g, bool sealed)
{
    memset(g, 0, sizeof *g);
    link_config lc;
    link_config_default(&lc);
    lc.seq_jump = REPLAY_WINDOW / 2;
    link_init(&g->link, &lc, NOW);
    net_receive_reset(&g->replay);
    g->sealed = sealed;
    if (sealed) {
        assert_int_equal(seal_keys_set(&g->send, KEY_A, KEY_B, SEAL_DIRECTION_LOW), TEMPO_OK);
        assert_int_equal(seal_keys_set(&g->recv, KEY_B, KEY_A, SEAL_DIRECTION_HIGH), TEMPO_OK);
    }
    g->r = (net_receiver){&g->link, &g->replay, sealed ? &g->recv : NULL, SID};
}

/* A datagram of type 5 with body (n bytes), numbered seq, sealed when the
 * rig is. Returns its size. */
static size_t craft_body(rig *g, uint64_t seq, uint32_t sid, const void *body, size_t n)
{
    tempo_packet_header h = {sid, (uint16_t)seq, 5, false, false};
    assert_int_equal(packet_write(&h, g->buf, sizeof g->buf), PACKET_HEADER_SIZE);
    memcpy(g->buf + PACKET_HEADER_SIZE, body, n);
    n += PACKET_HEADER_SIZE;
    if (g->sealed) {
        int s = seal_datagram(&g->send, seq, g->buf, n, sizeof g->buf);
        assert_true(s > 0);
        n = (size_t)s;
    }
    return n;
}

/* The usual one: the 4-byte body "body". */
static size_t craft(rig *g, uint64_t seq, uint32_t sid) { return craft_body(g, seq, sid, "body", 4); }

static tempo_drop_reason take(rig *g, size_t n, net_decode_fn decode, void *ctx, net_datagram *d)
{
    return net_receive(&g->r, NOW, g->buf, n, decode, ctx, d);
}

/* The honest datagram seq is taken, and its body reads as sent. */
static void honest(rig *g, uint64_t seq)
{
    net_datagram d;
    assert_int_equal(take(g, craft(g, seq, SID), NULL, NULL, &d), TEMPO_DROP_NONE);
    assert_int_equal(d.seq, seq);
    assert_int_equal(d.body_size, 4);
    assert_memory_equal(d.body, "body", 4);
    assert_true(d.whole);
}

static tempo_drop_reason refuse_truncated(void *ctx, net_datagram *d)
{
    (void)d;
    (*(int *)ctx)++;
    return TEMPO_DROP_TRUNCATED;
}

static tempo_drop_reason count_calls(void *ctx, net_datagram *d)
{
    (void)d;
    (*(int *)ctx)++;
    return TEMPO_DROP_NONE;
}

/* Each header reason, once; the window never moves for them. */
static void test_header_reasons(void **state)
{
    (void)state;
    rig *g = calloc(1, sizeof *g);
    rig_init(g, false);
    net_datagram d;
    honest(g, 0);
    size_t n = craft(g, 1, SID);
    assert_int_equal(take(g, TEMPO_MAX_DATAGRAM + 1, NULL, NULL, &d), TEMPO_DROP_TOO_LONG);
    assert_int_equal(take(g, 5, NULL, NULL, &d), TEMPO_DROP_TOO_SHORT);
    g->buf[0] = 0x31;
    assert_int_equal(take(g, n, NULL, NULL, &d), TEMPO_DROP_BAD_MAGIC);
    g->buf[0] = (uint8_t)(packet_protocol_byte(false) ^ 0x01u);
    assert_int_equal(take(g, n, NULL, NULL, &d), TEMPO_DROP_BAD_VERSION);
    n = craft(g, 1, SID + 1);
    assert_int_equal(take(g, n, NULL, NULL, &d), TEMPO_DROP_SESSION);
    n = craft(g, 1, SID);
    g->buf[7] = 0; /* type 0 */
    assert_int_equal(take(g, n, NULL, NULL, &d), TEMPO_DROP_BAD_TYPE);
    honest(g, 1); /* sequence 1 was never recorded */
    assert_int_equal(replay_highest(&g->replay), 1);
    free(g);
}

/* A sealed datagram with no key, a plain one to a sealed link, a forged
 * one, a closed link. */
static void test_seal_and_link_reasons(void **state)
{
    (void)state;
    if (!seal_available())
        skip();
    rig *g = calloc(1, sizeof *g);
    net_datagram d;
    rig_init(g, true);
    size_t n = craft(g, 0, SID);
    g->r.keys = NULL;
    assert_int_equal(take(g, n, NULL, NULL, &d), TEMPO_DROP_SEALED);
    g->r.keys = &g->recv;
    g->sealed = false;
    n = craft(g, 0, SID);
    assert_int_equal(take(g, n, NULL, NULL, &d), TEMPO_DROP_PLAIN);
    g->sealed = true;
    n = craft(g, 0, SID);
    g->buf[PACKET_HEADER_SIZE + 1] ^= 0x40u; /* one bit of the body */
    int calls = 0;
    assert_int_equal(take(g, n, count_calls, &calls, &d), TEMPO_DROP_FORGED);
    assert_int_equal(calls, 0); /* nothing of a forgery is decoded */
    honest(g, 0); /* the forgery did not burn the genuine datagram's sequence */
    honest(g, 1);
    link_close(&g->link);
    n = craft(g, 2, SID);
    assert_int_equal(take(g, n, NULL, NULL, &d), TEMPO_DROP_CLOSED);
    assert_int_equal(replay_highest(&g->replay), 1);
    free(g);
}

/* A datagram numbered seq whose body is an ack of ours: present byte 1,
 * the low 8 bits, then the 32 bits (all received). */
static size_t craft_ack(rig *g, uint64_t seq, uint8_t low)
{
    uint8_t body[6] = {1, low, 0xFF, 0xFF, 0xFF, 0xFF};
    return craft_body(g, seq, SID, body, sizeof body);
}

/* The role's decoder for craft_ack's body: the ack goes to the pipeline. */
static tempo_drop_reason read_ack(void *ctx, net_datagram *d)
{
    (*(int *)ctx)++;
    if (d->body_size != 6)
        return TEMPO_DROP_TRUNCATED;
    if (d->body[0] == 1)
        d->ack = (net_ack){true, 8, d->body[1], 0xFFFFFFFFu, 0};
    return TEMPO_DROP_NONE;
}

/* Hostile acks in honest-looking datagrams: one naming a sequence we never
 * sent and one going back are counted by the link and change nothing, while
 * the datagrams carrying them are still taken; a straggler's ack is not
 * read; a genuine one gives the round trip. */
static void test_hostile_acks_are_counted_and_honest_traffic_flows(void **state)
{
    (void)state;
    rig *g = calloc(1, sizeof *g);
    rig_init(g, false);
    for (int i = 0; i < 10; i++) /* ours: 0..9, sent 50 ms ago */
        link_on_sent(&g->link, NOW - 50000u, 20);
    net_datagram d;
    int calls = 0;
    /* 200 recovers to 200 - 256: before our first datagram. */
    assert_int_equal(take(g, craft_ack(g, 0, 200), read_ack, &calls, &d), TEMPO_DROP_NONE);
    assert_int_equal(g->link.acks_invalid, 1);
    assert_false(d.ack_taken);
    assert_false(g->link.acked_any);
    assert_int_equal(g->link.rtt_samples, 0);
    assert_true(g->link.heard); /* the datagram itself was taken */
    assert_int_equal(replay_highest(&g->replay), 0);
    /* A genuine ack: a round trip of 50 ms. */
    assert_int_equal(take(g, craft_ack(g, 1, 5), read_ack, &calls, &d), TEMPO_DROP_NONE);
    assert_true(d.ack_taken);
    assert_int_equal(g->link.acked_max, 5);
    assert_int_equal(link_rtt_us(&g->link), 50000u);
    assert_int_equal(take(g, craft_ack(g, 3, 7), read_ack, &calls, &d), TEMPO_DROP_NONE);
    assert_int_equal(g->link.acked_max, 7);
    /* A straggler (2, after 3) is taken, its ack not read: acks never go back. */
    assert_int_equal(take(g, craft_ack(g, 2, 9), read_ack, &calls, &d), TEMPO_DROP_NONE);
    assert_int_equal(d.rx, LINK_RX_LATE);
    assert_false(d.ack_taken);
    assert_int_equal(g->link.acked_max, 7);
    /* The newest going back: counted as stale. */
    assert_int_equal(take(g, craft_ack(g, 4, 6), read_ack, &calls, &d), TEMPO_DROP_NONE);
    assert_int_equal(g->link.acks_stale, 1);
    assert_int_equal(g->link.acked_max, 7);
    assert_int_equal(g->link.acks_invalid, 1);
    assert_int_equal(g->link.rtt_samples, 2);
    assert_int_equal(calls, 5);
    assert_int_equal(replay_highest(&g->replay), 4);
    free(g);
}

/* A sealed datagram's ack is read only once its seal opened: a forgery
 * carrying one moves nothing. */
static void test_a_forged_sealed_ack_is_never_read(void **state)
{
    (void)state;
    if (!seal_available())
        skip();
    rig *g = calloc(1, sizeof *g);
    rig_init(g, true);
    for (int i = 0; i < 4; i++)
        link_on_sent(&g->link, NOW - 20000u, 20);
    net_datagram d;
    int calls = 0;
    size_t n = craft_ack(g, 0, 3);
    g->buf[PACKET_HEADER_SIZE + 1] ^= 0x01u; /* the ack's byte, under the seal */
    assert_int_equal(take(g, n, read_ack, &calls, &d), TEMPO_DROP_FORGED);
    assert_int_equal(calls, 0);
    assert_false(g->link.acked_any);
    assert_int_equal(g->link.acks_invalid + g->link.acks_stale + g->link.rtt_samples, 0);
    assert_int_equal(take(g, craft_ack(g, 0, 3), read_ack, &calls, &d), TEMPO_DROP_NONE);
    assert_true(d.ack_taken);
    assert_int_equal(g->link.acked_max, 3);
    assert_int_equal(link_rtt_us(&g->link), 20000u);
    free(g);
}

/* A copy, one too old to tell, one far ahead and its copy; the sender
 * keeps being heard. */
static void test_sequence_reasons(void **state)
{
    (void)state;
    rig *g = calloc(1, sizeof *g);
    rig_init(g, false);
    net_datagram d;
    honest(g, 300);
    size_t n = craft(g, 300, SID);
    assert_int_equal(take(g, n, NULL, NULL, &d), TEMPO_DROP_DUPLICATE);
    n = craft(g, 10, SID);
    assert_int_equal(take(g, n, NULL, NULL, &d), TEMPO_DROP_STALE);
    int calls = 0;
    n = craft(g, 300 + REPLAY_WINDOW, SID);
    assert_int_equal(take(g, n, count_calls, &calls, &d), TEMPO_DROP_HELD);
    n = craft(g, 300 + REPLAY_WINDOW, SID);
    assert_int_equal(take(g, n, count_calls, &calls, &d), TEMPO_DROP_DUPLICATE);
    assert_int_equal(calls, 0); /* a held body is never decoded */
    honest(g, 301); /* the jump moved nothing */
    assert_int_equal(replay_highest(&g->replay), 301);
    free(g);
}

/* The decoder's reason comes back as it is, and records nothing; the
 * decoder may hold a fragment back (whole false) and the datagram is
 * still taken. */
static void test_decoder_reason_passes_through(void **state)
{
    (void)state;
    rig *g = calloc(1, sizeof *g);
    rig_init(g, false);
    net_datagram d;
    int calls = 0;
    size_t n = craft(g, 7, SID);
    assert_int_equal(take(g, n, refuse_truncated, &calls, &d), TEMPO_DROP_TRUNCATED);
    assert_int_equal(calls, 1);
    assert_false(g->link.heard); /* no sign of life from a body that did not read */
    honest(g, 7);
    assert_true(g->link.heard);
    free(g);
}

/* open without take records nothing; take afterwards does. */
static void test_open_then_take(void **state)
{
    (void)state;
    rig *g = calloc(1, sizeof *g);
    rig_init(g, false);
    net_datagram d;
    size_t n = craft(g, 3, SID);
    assert_int_equal(net_receive_open(&g->r, NOW, g->buf, n, NULL, NULL, &d), TEMPO_DROP_NONE);
    assert_false(g->link.heard);
    assert_int_equal(net_receive_open(&g->r, NOW, g->buf, n, NULL, NULL, &d), TEMPO_DROP_NONE);
    assert_int_equal(net_receive_take(&g->r, NOW, &d), TEMPO_DROP_NONE);
    assert_int_equal(d.rx, LINK_RX_NEWEST);
    assert_int_equal(take(g, n, NULL, NULL, &d), TEMPO_DROP_DUPLICATE);
    free(g);
}

/* The trial open: true only for what the window and the keys would pass,
 * and the datagram stays as it came. */
static void test_would_pass_leaves_the_datagram(void **state)
{
    (void)state;
    if (!seal_available())
        skip();
    rig *g = calloc(1, sizeof *g);
    rig_init(g, true);
    size_t n = craft(g, 4, SID);
    uint8_t copy[sizeof g->buf];
    memcpy(copy, g->buf, n);
    assert_true(net_receive_would_pass(&g->recv, &g->replay, 0, g->buf, n));
    assert_memory_equal(copy, g->buf, n);
    assert_false(net_receive_would_pass(&g->send, NULL, 0, g->buf, n)); /* the other direction */
    honest(g, 4);
    n = craft(g, 4, SID);
    assert_true(net_receive_would_pass(&g->recv, NULL, 4, g->buf, n));
    assert_false(net_receive_would_pass(&g->recv, &g->replay, 4, g->buf, n)); /* a copy */
    assert_true(net_receive_would_pass(NULL, NULL, 4, g->buf, n));
    free(g);
}

typedef struct role_stats {
    uint64_t dropped_unknown, dropped_session, dropped_malformed, dropped_forged, dropped_replay;
    uint64_t held_jumps;
} role_stats;

/* Every reason moves exactly one of the six counters, the one its class
 * names; NONE moves none. */
static void test_each_reason_moves_one_counter(void **state)
{
    (void)state;
    for (int w = 0; w < TEMPO_DROP_REASON_COUNT_; w++) {
        role_stats st;
        memset(&st, 0, sizeof st);
        NET_DROP_COUNT(&st, (tempo_drop_reason)w);
        uint64_t sum = st.dropped_unknown + st.dropped_session + st.dropped_malformed +
                       st.dropped_forged + st.dropped_replay + st.held_jumps;
        assert_int_equal(sum, w == TEMPO_DROP_NONE ? 0 : 1);
        uint64_t *field = NULL;
        switch (net_drop_counter_of((tempo_drop_reason)w)) {
        case NET_COUNT_NONE: assert_int_equal(w, TEMPO_DROP_NONE); continue;
        case NET_COUNT_UNKNOWN: field = &st.dropped_unknown; break;
        case NET_COUNT_SESSION: field = &st.dropped_session; break;
        case NET_COUNT_FORGED: field = &st.dropped_forged; break;
        case NET_COUNT_REPLAY: field = &st.dropped_replay; break;
        case NET_COUNT_HELD: field = &st.held_jumps; break;
        case NET_COUNT_MALFORMED:
        case NET_COUNT_EARLY: field = &st.dropped_malformed; break;
        }
        assert_int_equal(*field, 1);
    }
    assert_int_equal(net_drop_counter_of(TEMPO_DROP_FORGED), NET_COUNT_FORGED);
    assert_int_equal(net_drop_counter_of(TEMPO_DROP_PLAIN), NET_COUNT_FORGED);
    assert_int_equal(net_drop_counter_of(TEMPO_DROP_SEALED), NET_COUNT_MALFORMED);
    assert_int_equal(net_drop_counter_of(TEMPO_DROP_STALE), NET_COUNT_REPLAY);
    assert_int_equal(net_drop_counter_of(TEMPO_DROP_CLOSED), NET_COUNT_UNKNOWN);
    assert_int_equal(net_drop_counter_of(TEMPO_DROP_EARLY), NET_COUNT_EARLY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_reasons),
        cmocka_unit_test(test_seal_and_link_reasons),
        cmocka_unit_test(test_sequence_reasons),
        cmocka_unit_test(test_decoder_reason_passes_through),
        cmocka_unit_test(test_open_then_take),
        cmocka_unit_test(test_would_pass_leaves_the_datagram),
        cmocka_unit_test(test_each_reason_moves_one_counter),
        cmocka_unit_test(test_hostile_acks_are_counted_and_honest_traffic_flows),
        cmocka_unit_test(test_a_forged_sealed_ack_is_never_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
