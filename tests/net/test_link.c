/* SPDX-License-Identifier: MIT */
/*
 * test_link.c — one remote machine's link: RTT and jitter against known
 * delays through simnet, acks and outbound loss, inbound loss from gaps,
 * liveness at exact microsecond boundaries, the handshake over loss and
 * reordering, replayed and unknown nonces, the handshake timeout, the quiet
 * throttle, unmatched pongs, sequence jumps, hostile values.
 *
 * Over simnet two links talk through a test-only datagram format that
 * carries the full 64-bit sequence (recovering it from low bits is the wire
 * layer's job, not the link's). Everything runs in virtual time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "net/link.h"
#include "tempo/simnet.h"

#define MS 1000u
#define SEC 1000000u
#define HASH 0xC0FFEEu

/* ---- a test wire: type, seq, ack, bits, value, stamp, hash, ready ---------- */

enum { T_DATA = 1, T_PING, T_PONG, T_SYNC_REQ, T_SYNC_REP };
#define FRAME 39

static void put(uint8_t *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get(const uint8_t *b, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

typedef struct side {
    net_link link;
    tempo_transport t;
    tempo_address addr, peer;
    tempo_rng rng;
    uint64_t stamp_offset;  /* its clock's offset, for the jitter stamp */
    bool stamp_data;        /* feed the jitter estimator from DATA */
    uint8_t seen[4096];     /* sequences of the other side that arrived */
    uint64_t requests;      /* SYNC requests sent */
} side;

static void send_frame(tempo_simnet *net, side *s, uint8_t type, uint32_t value)
{
    uint64_t now = tempo_simnet_time(net);
    uint8_t b[FRAME];
    memset(b, 0, sizeof b);
    uint64_t ack = 0;
    uint32_t bits = 0;
    bool has_ack = link_ack_out(&s->link, &ack, &bits);
    b[0] = type;
    put(b + 1, link_next_seq(&s->link), 8);
    put(b + 9, ack, 8);
    put(b + 17, bits, 4);
    b[21] = has_ack;
    put(b + 22, value, 4);
    put(b + 26, now + s->stamp_offset, 8);
    put(b + 34, HASH, 4);
    b[38] = 0;
    assert_int_equal(s->t.send(s->t.ctx, &s->peer, b, sizeof b), 0);
    assert_int_equal(link_on_sent(&s->link, now, sizeof b), get(b + 1, 8));
}

static void receive(tempo_simnet *net, side *s)
{
    uint64_t now = tempo_simnet_time(net);
    uint8_t b[TEMPO_MAX_DATAGRAM];
    tempo_address from;
    int n;
    while ((n = s->t.recv(s->t.ctx, &from, b, sizeof b)) > 0) {
        assert_int_equal(n, FRAME);
        uint64_t seq = get(b + 1, 8);
        if (seq < sizeof s->seen)
            s->seen[seq] = 1;
        link_rx rx = link_on_datagram(&s->link, now, seq, (size_t)n);
        if (b[21])
            (void)link_on_ack(&s->link, now, get(b + 9, 8), (uint32_t)get(b + 17, 4));
        uint32_t value = (uint32_t)get(b + 22, 4);
        switch (b[0]) {
        case T_DATA:
            if (s->stamp_data && rx != LINK_RX_DUPLICATE)
                link_on_stamp(&s->link, now, get(b + 26, 8));
            break;
        case T_PING: send_frame(net, s, T_PONG, value); break;
        case T_PONG: (void)link_on_pong(&s->link, now, value); break;
        case T_SYNC_REQ:
        case T_SYNC_REP: {
            link_sync m = {b[0] == T_SYNC_REP, value, (uint32_t)get(b + 34, 4), b[38] != 0, NULL, 0};
            if (link_on_sync(&s->link, now, &m) == LINK_SYNC_ANSWER)
                send_frame(net, s, T_SYNC_REP, value);
            break;
        }
        default: fail();
        }
    }
    assert_int_equal(n, 0);
}

/* What a side does each step besides receiving: the handshake, pings, and
 * optionally a DATA datagram. */
static void act(tempo_simnet *net, side *s, bool data)
{
    uint64_t now = tempo_simnet_time(net);
    if (link_handshake_due(&s->link, now)) {
        send_frame(net, s, T_SYNC_REQ, link_handshake_request(&s->link, now, &s->rng));
        s->requests++;
    }
    if (link_ping_due(&s->link, now))
        send_frame(net, s, T_PING, link_ping_sent(&s->link, now));
    if (data && link_may_send(&s->link, now))
        send_frame(net, s, T_DATA, 0);
    (void)link_update(&s->link, now);
}

typedef struct pair {
    tempo_simnet *net;
    side a, b;
} pair;

static void pair_open(pair *p, uint64_t seed, const tempo_link_params *ab, const tempo_link_params *ba)
{
    memset(p, 0, sizeof *p);
    tempo_simnet_config cfg;
    tempo_simnet_config_default(&cfg);
    cfg.seed = seed;
    cfg.max_nodes = 2;
    assert_int_equal(tempo_simnet_create(&cfg, &p->net), TEMPO_OK);
    p->a.addr = p->b.peer = tempo_address_ipv4(10, 0, 0, 1, 7000);
    p->b.addr = p->a.peer = tempo_address_ipv4(10, 0, 0, 2, 7000);
    assert_int_equal(tempo_simnet_add_node(p->net, &p->a.addr, &p->a.t), TEMPO_OK);
    assert_int_equal(tempo_simnet_add_node(p->net, &p->b.addr, &p->b.t), TEMPO_OK);
    assert_int_equal(tempo_simnet_set_link(p->net, &p->a.addr, &p->b.addr, ab), TEMPO_OK);
    assert_int_equal(tempo_simnet_set_link(p->net, &p->b.addr, &p->a.addr, ba), TEMPO_OK);
    link_config lc;
    link_config_default(&lc);
    lc.config_hash = HASH;
    lc.timeout_us = 60 * SEC; /* these runs are about measurement, not liveness */
    link_init(&p->a.link, &lc, 0);
    link_init(&p->b.link, &lc, 0);
    tempo_rng_seed(&p->a.rng, seed, 1);
    tempo_rng_seed(&p->b.rng, seed, 2);
}

/* Step both sides every `step_us` until `until_us` (or until both are
 * established, if `stop_when_established`). Returns the time reached. */
static uint64_t run(pair *p, uint64_t from_us, uint64_t until_us, uint64_t step_us, bool data,
                    bool stop_when_established)
{
    uint64_t t = from_us;
    for (; t <= until_us; t += step_us) {
        tempo_simnet_set_time(p->net, t);
        receive(p->net, &p->a);
        receive(p->net, &p->b);
        if (stop_when_established && link_established(&p->a.link) && link_established(&p->b.link))
            return t;
        act(p->net, &p->a, data);
        act(p->net, &p->b, data);
    }
    return t;
}

/* RFC 6298's RTTVAR after n equal samples: R/2, then 3/4 of it each time,
 * in the link's scaled integers (4 * RTTVAR, truncating as it does). */
static uint64_t rttvar_after_equal_samples(uint64_t r, uint64_t n)
{
    int64_t v4 = (int64_t)r * 2;
    for (uint64_t i = 1; i < n; i++)
        v4 -= v4 / 4;
    return (uint64_t)((v4 + 2) / 4);
}

/* ---- RTT and jitter ------------------------------------------------------------ */

static void test_rtt_over_a_fixed_delay_is_exact(void **state)
{
    (void)state;
    tempo_link_params fixed = {.latency_us = 50 * MS};
    pair p;
    pair_open(&p, 1, &fixed, &fixed);
    p.b.stamp_data = true;
    p.a.stamp_offset = 123456789; /* the sender's clock is elsewhere: it cancels */
    uint64_t t = run(&p, 0, 5 * SEC, MS, false, true);
    /* Five round trips of 100 ms, each started as the last reply came. */
    assert_int_equal(t, 500 * MS);
    assert_int_equal(p.a.link.hs.rounds_done, 5);
    run(&p, t, 10 * SEC, MS, true, false);
    /* Every sample is exactly 100 ms: pings, handshake replies, and acks of
     * datagrams the remote answered at once or sent a ms later. */
    assert_int_equal(link_rtt_us(&p.a.link), 100 * MS);
    uint64_t n = p.a.link.rtt_samples;
    printf("fixed 50 ms each way: %llu samples, SRTT %llu us, RTTVAR %llu us, jitter %llu us\n",
           (unsigned long long)n, (unsigned long long)link_rtt_us(&p.a.link),
           (unsigned long long)link_rttvar_us(&p.a.link), (unsigned long long)link_jitter_us(&p.b.link));
    assert_true(n >= 1000);
    assert_int_equal(link_rttvar_us(&p.a.link), rttvar_after_equal_samples(100 * MS, n));
    assert_int_equal(link_jitter_us(&p.b.link), 0);
    tempo_simnet_destroy(p.net);
}

static void test_rtt_from_pings_alone(void **state)
{
    (void)state;
    tempo_link_params fixed = {.latency_us = 30 * MS};
    pair p;
    pair_open(&p, 2, &fixed, &fixed);
    p.a.link.cfg.rtt_from_acks = false;
    uint64_t t = run(&p, 0, 5 * SEC, MS, false, true);
    assert_int_equal(t, 300 * MS);
    uint64_t after_handshake = p.a.link.rtt_samples;
    assert_int_equal(after_handshake, 5); /* one per counted reply */
    run(&p, t, t + 10 * SEC + 100 * MS, MS, false, false);
    /* A ping every 500 ms from establishment: 20 more samples in 10 s. */
    assert_int_equal(p.a.link.rtt_samples, 25);
    assert_int_equal(link_rtt_us(&p.a.link), 60 * MS);
    assert_int_equal(link_rttvar_us(&p.a.link), rttvar_after_equal_samples(60 * MS, 25));
    assert_int_equal(link_rto_us(&p.a.link), 60 * MS + (uint64_t)p.a.link.rttvar4); /* SRTT + 4 RTTVAR */
    assert_int_equal(link_mesh_ms(&p.a.link), 60);
    tempo_simnet_destroy(p.net);
}

static void test_jitter_is_zero_over_a_fixed_delay(void **state)
{
    (void)state;
    tempo_link_params fixed = {.latency_us = 50 * MS};
    pair p;
    pair_open(&p, 3, &fixed, &fixed);
    p.b.stamp_data = true;
    p.a.stamp_offset = 987654321;
    run(&p, 0, 5 * SEC, 10 * MS, true, false);
    assert_true(p.b.link.has_transit);
    assert_int_equal(link_jitter_us(&p.b.link), 0);
    assert_int_equal(p.b.link.jitter16, 0);
    tempo_simnet_destroy(p.net);
}

static void test_rtt_and_jitter_track_a_jittery_link(void **state)
{
    (void)state;
    /* 50 ms each way with 5 ms standard deviation: a round trip is 100 ms
     * with 7.07 ms deviation; for independent normal one-way delays RFC
     * 3550's J tends to E|X1 - X2| = 2 * 5 / sqrt(pi) = 5.64 ms (a little
     * less here: simnet keeps order without reordering, which pulls close
     * arrivals together). */
    tempo_link_params jittery = {.latency_us = 50 * MS, .jitter_us = 5 * MS};
    pair p;
    pair_open(&p, 4, &jittery, &jittery);
    p.b.stamp_data = true;
    run(&p, 0, 30 * SEC, 10 * MS, true, false);
    double srtt = (double)link_rtt_us(&p.a.link), var = (double)link_rttvar_us(&p.a.link);
    double j = (double)link_jitter_us(&p.b.link);
    printf("jittery 50+-5 ms each way: SRTT %.0f us, RTTVAR %.0f us, RFC 3550 jitter %.0f us\n", srtt,
           var, j);
    /* Acks here also hold up to 10 ms of waiting for the remote's next send. */
    assert_true(srtt > 95 * MS && srtt < 120 * MS);
    assert_true(var > 2 * MS && var < 15 * MS);
    assert_true(j > 3.5 * MS && j < 7.5 * MS);
    tempo_simnet_destroy(p.net);

    /* From pings alone (answered at once) SRTT sits closer to 100 ms. */
    pair_open(&p, 4, &jittery, &jittery);
    p.a.link.cfg.rtt_from_acks = false;
    run(&p, 0, 60 * SEC, MS, false, false);
    srtt = (double)link_rtt_us(&p.a.link);
    var = (double)link_rttvar_us(&p.a.link);
    printf("  from %llu pings and replies alone: SRTT %.0f us, RTTVAR %.0f us\n",
           (unsigned long long)p.a.link.rtt_samples, srtt, var);
    assert_true(p.a.link.rtt_samples >= 100);
    assert_true(srtt > 92 * MS && srtt < 108 * MS);
    assert_true(var > 2 * MS && var < 12 * MS);
    tempo_simnet_destroy(p.net);
}

/* ---- acks and loss ------------------------------------------------------------- */

static void test_acks_count_outbound_loss_exactly(void **state)
{
    (void)state;
    tempo_link_params lossy = {.latency_us = 20 * MS, .loss = 0.1};
    tempo_link_params clean = {.latency_us = 20 * MS};
    pair p;
    pair_open(&p, 5, &lossy, &clean);
    run(&p, 0, 20 * SEC, 10 * MS, true, false);
    /* Every datagram of a's judged so far: lost exactly when b never got it. */
    uint64_t judged = p.a.link.judge_next, lost = 0;
    assert_true(judged > 1900 && judged < sizeof p.b.seen);
    for (uint64_t s = 0; s < judged; s++)
        lost += !p.b.seen[s];
    printf("a -> b at 10%% loss: %llu judged, %llu lost (%.4f), last window %.4f\n",
           (unsigned long long)judged, (unsigned long long)lost, (double)lost / (double)judged,
           link_loss_out(&p.a.link));
    assert_int_equal(p.a.link.lost_total, lost);
    assert_int_equal(p.a.link.acked_total, judged - lost);
    assert_true(fabs((double)lost / (double)judged - 0.1) < 0.02);
    assert_true(link_loss_out(&p.a.link) > 0.02 && link_loss_out(&p.a.link) < 0.2);
    /* b sees the same loss from a's gaps; a sees none from b. */
    assert_true(link_loss_in(&p.b.link) > 0.02 && link_loss_in(&p.b.link) < 0.2);
    assert_true(link_loss_in(&p.a.link) == 0.0);
    assert_true(link_loss_out(&p.b.link) == 0.0);
    tempo_simnet_destroy(p.net);
}

static void test_acked_datagrams_give_rtt_samples(void **state)
{
    (void)state;
    link_config cfg;
    link_config_default(&cfg);
    net_link l;
    link_init(&l, &cfg, 0);
    for (uint64_t i = 0; i < 10; i++)
        assert_int_equal(link_on_sent(&l, i * 10 * MS, 50), i);
    /* The remote's newest is 9; it has 8 and 0..6 (bits 0 and 2..8), not 7. */
    assert_true(link_on_ack(&l, 140 * MS, 9, 0x1FDu));
    assert_int_equal(l.rtt_samples, 1);
    assert_int_equal(link_rtt_us(&l), 50 * MS);
    /* The same ack again: nothing newly acked, no sample. */
    assert_true(link_on_ack(&l, 150 * MS, 9, 0x1FDu));
    assert_int_equal(l.rtt_samples, 1);
    /* 7 is lost once the newest ack is more than 32 past it. */
    for (uint64_t i = 10; i < 41; i++)
        link_on_sent(&l, i * 10 * MS, 50);
    assert_true(link_on_ack(&l, 500 * MS, 40, 0xFFFFFFFFu));
    assert_int_equal(l.judge_next, 8);
    assert_int_equal(l.lost_total, 1);
    assert_int_equal(l.acked_total, 7);
    /* With ack samples off, a newly acked datagram gives none. */
    l.cfg.rtt_from_acks = false;
    link_on_sent(&l, 600 * MS, 50);
    assert_true(link_on_ack(&l, 700 * MS, 41, 0));
    assert_int_equal(l.rtt_samples, 2);
}

/* An ack as the wire carries it: recovered against our newest sent, across
 * the wrap of its low bits, with the RTT of the acked datagram. */
static void test_acks_from_low_bits_recover_across_the_wrap(void **state)
{
    (void)state;
    link_config cfg;
    link_config_default(&cfg);
    net_link l;
    link_init(&l, &cfg, 0);
    for (uint64_t i = 0; i < 300; i++)
        link_on_sent(&l, i * 10 * MS, 20);
    /* Newest sent 299 (low 8 bits 43); the remote has 257 (low bits 1). */
    assert_true(link_on_ack_low(&l, 2600 * MS, 1, 8, 0xFFFFFFFFu, 0));
    assert_int_equal(l.acked_max, 257);
    assert_int_equal(l.ack_rtt_samples, 1);
    assert_int_equal(link_rtt_us(&l), 30 * MS); /* sent at 2570 ms */
    /* Newest 299 itself (low bits 43), 16 bits wide as client-server's. */
    assert_true(link_on_ack_low(&l, 3000 * MS, 299, 16, 0xFFFFFFFFu, 0));
    assert_int_equal(l.acked_max, 299);
    assert_int_equal(l.ack_rtt_samples, 2);
    /* Low bits 44 name 44 (not 300, never sent): behind the ack taken. */
    assert_false(link_on_ack_low(&l, 3000 * MS, 44, 8, 0, 0));
    assert_int_equal(l.acks_stale, 1);
    assert_int_equal(l.acked_max, 299);
    assert_int_equal(l.acks_invalid, 0);
}

/* Each ack the wire can carry that cannot be ours is counted in one
 * counter and changes nothing: no datagram sent, before our first, behind
 * the newest ack; a genuine one after them is still taken. */
static void test_acks_from_low_bits_that_cannot_be_ours(void **state)
{
    (void)state;
    link_config cfg;
    link_config_default(&cfg);
    net_link l;
    link_init(&l, &cfg, 0);
    assert_false(link_on_ack_low(&l, 0, 0, 8, 0xFFFFFFFFu, 0)); /* nothing sent */
    assert_int_equal(l.acks_invalid, 1);
    link_start_at(&l, 1000); /* a link going on under the same keys */
    for (uint64_t i = 0; i < 5; i++)
        link_on_sent(&l, i * MS, 20);
    /* 1000..1004 sent; low bits 0xE7 would be 999 (before our first), or
     * 743 etc.: none of them ours. */
    assert_false(link_on_ack_low(&l, 10 * MS, 999 & 0xFF, 8, 0xFFFFFFFFu, 0));
    assert_int_equal(l.acks_invalid, 2);
    assert_int_equal(l.rtt_samples, 0);
    assert_false(l.acked_any);
    assert_true(link_on_ack_low(&l, 10 * MS, 1003 & 0xFF, 8, 0xFFFFFFFFu, 0));
    assert_int_equal(l.acked_max, 1003);
    assert_int_equal(link_rtt_us(&l), 7 * MS);
    assert_false(link_on_ack_low(&l, 11 * MS, 1002 & 0xFF, 8, 0xFFFFFFFFu, 0));
    assert_int_equal(l.acks_stale, 1);
    assert_int_equal(l.acks_invalid, 2);
    assert_int_equal(l.rtt_samples, 1);
    /* A closed link takes none. */
    link_close(&l);
    assert_false(link_on_ack_low(&l, 12 * MS, 1004 & 0xFF, 8, 0xFFFFFFFFu, 0));
}

/* Acks of datagrams older than the sent ring give no round trip: their
 * send times are gone. */
static void test_acks_older_than_the_ring_give_no_rtt(void **state)
{
    (void)state;
    link_config cfg;
    link_config_default(&cfg);
    net_link l;
    link_init(&l, &cfg, 0);
    for (uint64_t i = 0; i < LINK_SENT_RING + 40; i++)
        link_on_sent(&l, i * MS, 20);
    /* 0..167 sent; 10 has left the ring (its slot holds 138). */
    assert_true(link_on_ack_low(&l, 500 * MS, 10, 8, 0xFFFFFFFFu, 0));
    assert_int_equal(l.rtt_samples, 0);
    assert_int_equal(l.acked_max, 10);
    /* A hostile ack of a datagram still in the ring, sent long ago, is
     * at most the ring's age: never negative, never beyond the cap. */
    assert_true(link_on_ack_low(&l, 200 * MS, 41, 8, 0xFFFFFFFFu, 0));
    assert_int_equal(l.rtt_samples, 1);
    assert_int_equal(link_rtt_us(&l), 159 * MS);
    /* An ack of one sent "after" now (a clock that went back) gives none. */
    assert_true(link_on_ack_low(&l, 100 * MS, 160, 8, 0xFFFFFFFFu, 0));
    assert_int_equal(l.rtt_samples, 1);
}

/* A connection numbers its first datagram past its handshake's (send_seq
 * set before anything was sent, as the client, relay member, traversal and
 * lockstep relay links do): the sequences before it were never sent, so
 * none is judged lost and no ack of one marks anything, even where its
 * ring slot holds a datagram that was sent. */
static void test_a_link_numbered_past_zero_judges_only_what_it_sent(void **state)
{
    (void)state;
    link_config cfg;
    link_config_default(&cfg);
    net_link l;
    link_init(&l, &cfg, 0);
    l.send_seq = 300;
    for (uint64_t i = 0; i < 11; i++)
        link_on_sent(&l, i * MS, 20);
    /* 300..310 sit in slots 44..54, which 172..182 would share */
    assert_int_equal(l.lost_total + l.acked_total, 0);
    /* an ack naming 182 (never sent) and the 32 before it marks nothing */
    assert_true(link_on_ack(&l, 20 * MS, 182, 0xFFFFFFFFu));
    assert_int_equal(l.lost_total + l.acked_total, 0);
    assert_true(link_on_ack(&l, 21 * MS, 310, 0x3FFu)); /* all eleven */
    for (uint64_t i = 0; i < LINK_SENT_RING + 40; i++)
        link_on_sent(&l, (30 + i) * MS, 20);
    assert_int_equal(l.acked_total, 11);
    assert_int_equal(l.lost_total, 40); /* 311..350 left the ring unacked */
}

/* Samples from acks follow a round trip that grows, as fast as they come:
 * 80 ms to 240 ms, one datagram each way every 16 ms. */
static void test_ack_rtt_follows_a_step(void **state)
{
    (void)state;
    link_config cfg;
    link_config_default(&cfg);
    net_link l;
    link_init(&l, &cfg, 0);
    uint64_t t = 0, seq = 0;
    for (; t < 2 * SEC; t += 16 * MS, seq++) {
        link_on_sent(&l, t, 20);
        if (t >= 80 * MS)
            assert_true(link_on_ack_low(&l, t, (uint32_t)((t - 80 * MS) / (16 * MS)), 8, 0xFFFFFFFFu, 0));
    }
    assert_true(link_rtt_us(&l) >= 79 * MS && link_rtt_us(&l) <= 81 * MS);
    /* From now on the round trip is 240 ms. */
    uint64_t step = t, within = 0;
    for (; t < step + 2 * SEC; t += 16 * MS, seq++) {
        link_on_sent(&l, t, 20);
        if (t >= step + 240 * MS) {
            uint64_t acked = (t - 240 * MS) / (16 * MS);
            assert_true(link_on_ack_low(&l, t, (uint32_t)acked, 8, 0xFFFFFFFFu, 0));
        }
        uint64_t r = link_rtt_us(&l);
        if (within == 0 && r >= 216 * MS && r <= 264 * MS)
            within = t - step;
    }
    assert_true(within > 240 * MS && within < 600 * MS);
}

static void test_inbound_loss_from_sequence_gaps(void **state)
{
    (void)state;
    link_config cfg;
    link_config_default(&cfg);
    net_link l;
    link_init(&l, &cfg, 0);
    /* 100 sequences in the first second, every tenth missing. */
    for (uint64_t s = 0; s < 100; s++)
        if (s % 10 != 3)
            assert_int_equal(link_on_datagram(&l, s * 10 * MS, s, 40), LINK_RX_NEWEST);
    /* Copies and late first copies. */
    assert_int_equal(link_on_datagram(&l, 995 * MS, 98, 40), LINK_RX_DUPLICATE);
    assert_int_equal(link_on_datagram(&l, 995 * MS, 93, 40), LINK_RX_LATE);
    assert_int_equal(link_on_datagram(&l, 996 * MS, 93, 40), LINK_RX_DUPLICATE);
    assert_int_equal(link_update(&l, SEC), 0u);
    assert_int_equal(l.last_in_expected, 100);
    assert_int_equal(l.last_in_received, 91);
    assert_true(link_loss_in(&l) == 9.0 / 100.0);
    assert_int_equal(l.duplicates, 2);
    /* The next second loses half. */
    for (uint64_t s = 100; s < 200; s += 2)
        link_on_datagram(&l, SEC + (s - 100) * 10 * MS, s, 40);
    link_update(&l, 2 * SEC);
    assert_int_equal(l.last_in_expected, 99); /* 100..198 */
    assert_int_equal(l.last_in_received, 50);
    /* A silent second keeps the estimate. */
    link_update(&l, 3 * SEC);
    assert_int_equal(l.last_in_expected, 99);
    /* Acks name what came. */
    uint64_t ack;
    uint32_t bits;
    assert_true(link_ack_out(&l, &ack, &bits));
    assert_int_equal(ack, 198);
    assert_int_equal(bits, 0xAAAAAAAAu); /* 196, 194, ...: bit 1, 3, ... */
}

static void test_send_and_receive_rates(void **state)
{
    (void)state;
    link_config cfg;
    link_config_default(&cfg);
    net_link l;
    link_init(&l, &cfg, 0);
    for (uint64_t i = 0; i < 100; i++) {
        link_on_sent(&l, i * 10 * MS, 100);
        link_on_datagram(&l, i * 10 * MS, i, 60);
    }
    link_update(&l, SEC);
    assert_true(l.send_rate == 10000.0);
    assert_true(l.recv_rate == 6000.0);
}

/* ---- liveness --------------------------------------------------------------------- */

/* A link established at `now` through one handshake round. */
static void establish(net_link *l, uint64_t now, int rounds)
{
    link_config cfg;
    link_config_default(&cfg);
    cfg.handshake_rounds = rounds;
    cfg.config_hash = HASH;
    link_init(l, &cfg, 0);
    tempo_rng rng;
    tempo_rng_seed(&rng, 7, 7);
    for (int i = 0; i < rounds; i++) {
        uint32_t nonce = link_handshake_request(l, now, &rng);
        link_on_sent(l, now, 20);
        link_on_datagram(l, now, (uint64_t)i, 20);
        link_sync m = {true, nonce, HASH, false, NULL, 0};
        assert_int_equal(link_on_sync(l, now, &m), i + 1 < rounds ? LINK_SYNC_ROUND : LINK_SYNC_COMPLETE);
    }
    assert_true(link_established(l));
}

static void test_liveness_boundaries_are_exact(void **state)
{
    (void)state;
    net_link l;
    establish(&l, SEC, 1);
    /* notify 500 ms, timeout 3 s, from the last datagram at 1 s */
    assert_int_equal(link_update(&l, 1499999), 0u);
    assert_int_equal(link_update(&l, 1500000), (unsigned)LINK_EV_INTERRUPTED);
    assert_int_equal(link_update(&l, 1500001), 0u);
    assert_int_equal(link_on_datagram(&l, 1600000, 100, 20), LINK_RX_NEWEST);
    assert_int_equal(link_update(&l, 1600000), (unsigned)LINK_EV_RESUMED);
    assert_int_equal(link_update(&l, 2099999), 0u);
    assert_int_equal(link_update(&l, 2100000), (unsigned)LINK_EV_INTERRUPTED);
    /* A copy of an old datagram is no sign of life. */
    assert_int_equal(link_on_datagram(&l, 3000000, 100, 20), LINK_RX_DUPLICATE);
    assert_int_equal(link_update(&l, 4599999), 0u);
    assert_int_equal(link_update(&l, 4600000), (unsigned)LINK_EV_TIMED_OUT);
    assert_true(link_closed(&l));
    assert_int_equal(link_update(&l, 9000000), 0u);
    assert_int_equal(link_on_datagram(&l, 9000000, 101, 20), LINK_RX_CLOSED);
    assert_false(link_ping_due(&l, 9000000));
    assert_false(link_handshake_due(&l, 9000000));
}

/* Our own pause (a leap the caller's clock did not count, 2 s here): if
 * the remote's datagrams were waiting when we woke, the network carried it
 * on and the pause is no silence of its; if nothing of its came within the
 * notify time, it was silent through the pause too, and the pause counts. */
static void test_our_pause_counts_as_silence_only_if_nothing_came(void **state)
{
    (void)state;
    net_link l;
    establish(&l, SEC, 1);
    /* woke at 1.1 s (session time), its datagram waiting */
    link_on_clock_jump(&l, 1100000, 2 * SEC);
    assert_int_equal(link_on_datagram(&l, 1100000, 100, 20), LINK_RX_NEWEST);
    assert_int_equal(link_update(&l, 1599999), 0u);
    assert_int_equal(link_update(&l, 1600000), (unsigned)LINK_EV_INTERRUPTED);
    assert_int_equal(link_update(&l, 4099999), 0u); /* 3 s after 1.1 s, not 1 s */
    assert_int_equal(link_update(&l, 4100000), (unsigned)LINK_EV_TIMED_OUT);
    /* woke at 1.1 s, nothing of its waiting nor coming: silent since 1 s
     * by the session's clock, and through our 2 s pause */
    establish(&l, SEC, 1);
    link_on_clock_jump(&l, 1100000, 2 * SEC);
    assert_int_equal(link_update(&l, 1500000), (unsigned)LINK_EV_INTERRUPTED);
    assert_int_equal(link_update(&l, 1599999), 0u);
    assert_int_equal(link_silence_us(&l, 1600000), 600000u);
    assert_int_equal(link_update(&l, 1600000), 0u); /* 0.6 + 2 s: not yet 3 s */
    assert_int_equal(link_silence_us(&l, 1600000), 2600000u);
    assert_int_equal(link_update(&l, 1999999), 0u);
    assert_int_equal(link_update(&l, 2000000), (unsigned)LINK_EV_TIMED_OUT);
    /* the same, but it speaks once the credit is taken: all forgiven */
    establish(&l, SEC, 1);
    link_on_clock_jump(&l, 1100000, 2 * SEC);
    assert_int_equal(link_update(&l, 1600000), (unsigned)LINK_EV_INTERRUPTED);
    assert_int_equal(link_on_datagram(&l, 1700000, 100, 20), LINK_RX_NEWEST);
    assert_int_equal(link_silence_us(&l, 1700000), 0u);
}

static void test_one_late_update_reports_only_the_timeout(void **state)
{
    (void)state;
    net_link l;
    establish(&l, 0, 1);
    assert_int_equal(link_update(&l, 3 * SEC), (unsigned)LINK_EV_TIMED_OUT);
    /* No liveness while handshaking: that has its own timeout. */
    link_config cfg;
    link_config_default(&cfg);
    link_init(&l, &cfg, 0);
    assert_int_equal(link_update(&l, 100 * SEC), 0u);
}

/* ---- handshake ------------------------------------------------------------------- */

static void test_handshake_completes_over_a_terrible_network(void **state)
{
    (void)state;
    tempo_link_params bad;
    assert_int_equal(tempo_link_profile("terrible", &bad), TEMPO_OK);
    for (uint64_t seed = 1; seed <= 8; seed++) {
        pair p;
        pair_open(&p, seed, &bad, &bad);
        uint64_t t = run(&p, 0, 20 * SEC, MS, false, true);
        tempo_link_stats ab;
        assert_int_equal(tempo_simnet_link_stats(p.net, &p.a.addr, &p.b.addr, &ab), TEMPO_OK);
        printf("terrible seed %llu: established at %llu ms, %llu+%llu requests, RTT %llu us,"
               " %llu replies ignored, a->b lost %llu reordered %llu duplicated %llu\n",
               (unsigned long long)seed, (unsigned long long)(t / MS),
               (unsigned long long)p.a.requests, (unsigned long long)p.b.requests,
               (unsigned long long)link_rtt_us(&p.a.link),
               (unsigned long long)(p.a.link.hs.replies_ignored + p.b.link.hs.replies_ignored),
               (unsigned long long)ab.lost, (unsigned long long)ab.reordered,
               (unsigned long long)ab.duplicated);
        assert_true(t <= 20 * SEC);
        assert_true(link_established(&p.a.link) && link_established(&p.b.link));
        assert_int_equal(p.a.link.hs.rounds_done, 5);
        assert_true(link_rtt_us(&p.a.link) > 200 * MS && link_rtt_us(&p.a.link) < 600 * MS);
        tempo_simnet_destroy(p.net);
    }
}

static void test_replayed_and_unknown_nonces_are_ignored(void **state)
{
    (void)state;
    link_config cfg;
    link_config_default(&cfg);
    cfg.config_hash = HASH;
    net_link l;
    link_init(&l, &cfg, 0);
    tempo_rng rng;
    tempo_rng_seed(&rng, 9, 9);
    assert_true(link_handshake_due(&l, 0));
    uint32_t n1 = link_handshake_request(&l, 0, &rng);
    assert_int_not_equal(n1, 0);
    assert_false(link_handshake_due(&l, 199999));
    assert_true(link_handshake_due(&l, 200000));
    uint32_t n2 = link_handshake_request(&l, 200000, &rng);
    assert_int_not_equal(n1, n2);

    link_sync m = {true, n1 ^ n2 ^ 0x5A5A5A5Au, HASH, false, NULL, 0};
    assert_int_equal(link_on_sync(&l, 250000, &m), LINK_SYNC_IGNORED);
    m.nonce = 0;
    assert_int_equal(link_on_sync(&l, 250000, &m), LINK_SYNC_IGNORED);
    assert_int_equal(l.hs.replies_ignored, 2);
    /* A reply to the older request still counts: its round trip was long. */
    m.nonce = n1;
    assert_int_equal(link_on_sync(&l, 300000, &m), LINK_SYNC_ROUND);
    assert_int_equal(link_rtt_us(&l), 300000);
    assert_true(link_handshake_due(&l, 300000)); /* the next round at once */
    assert_int_equal(link_on_sync(&l, 310000, &m), LINK_SYNC_IGNORED); /* replayed */
    assert_int_equal(l.hs.replies_ignored, 3);
    assert_int_equal(l.hs.rounds_done, 1);
    assert_int_equal(l.rtt_samples, 1);
    /* Another configuration: counted, nothing taken from it. */
    uint16_t mesh[3] = {12, LINK_MESH_UNKNOWN, 40};
    link_sync other = {true, n2, HASH + 1, true, mesh, 3};
    assert_int_equal(link_on_sync(&l, 320000, &other), LINK_SYNC_MISMATCH);
    assert_int_equal(l.hs.hash_mismatches, 1);
    assert_false(l.hs.remote_ready);
    assert_int_equal(l.hs.mesh_ms[0], LINK_MESH_UNKNOWN);
    /* The right one: readiness and the mesh are recorded. */
    other.config_hash = HASH;
    assert_int_equal(link_on_sync(&l, 330000, &other), LINK_SYNC_ROUND);
    assert_true(l.hs.remote_ready);
    assert_int_equal(l.hs.ready_heard_us, 330000);
    assert_int_equal(l.hs.mesh_ms[0], 12);
    assert_int_equal(l.hs.mesh_ms[2], 40);
    assert_int_equal(l.hs.mesh_ms[3], LINK_MESH_UNKNOWN);
    /* A request from the remote asks for an answer and counts no round. */
    other.reply = false;
    assert_int_equal(link_on_sync(&l, 340000, &other), LINK_SYNC_ANSWER);
    assert_int_equal(l.hs.rounds_done, 2);
}

static void test_handshake_times_out_and_requests_back_off(void **state)
{
    (void)state;
    link_config cfg;
    link_config_default(&cfg);
    cfg.handshake_timeout_us = 2 * SEC;
    net_link l;
    link_init(&l, &cfg, 0);
    tempo_rng rng;
    tempo_rng_seed(&rng, 3, 3);
    uint64_t sent_at[16], n = 0;
    for (uint64_t t = 0; t < 2 * SEC; t += 10 * MS) {
        if (link_handshake_due(&l, t)) {
            (void)link_handshake_request(&l, t, &rng);
            link_on_sent(&l, t, 30);
            assert_true(n < 16);
            sent_at[n++] = t;
        }
        assert_int_equal(link_update(&l, t), 0u);
    }
    /* Every 200 ms, then, silent for 1 s, at most one per 250 ms. */
    static const uint64_t want[] = {0, 200000, 400000, 600000, 800000, 1050000, 1300000, 1550000, 1800000};
    assert_int_equal(n, sizeof want / sizeof want[0]);
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(sent_at[i], want[i]);
    assert_int_equal(link_update(&l, 1999999), 0u);
    assert_int_equal(link_update(&l, 2000000), (unsigned)LINK_EV_HANDSHAKE_FAILED);
    assert_true(link_closed(&l) && l.hs.failed);
    assert_false(link_handshake_due(&l, 3 * SEC));
}

static void test_announcing_keeps_requests_going_after_completion(void **state)
{
    (void)state;
    net_link l;
    establish(&l, 0, 2);
    assert_false(link_handshake_due(&l, 10 * SEC));
    link_handshake_announce(&l, true);
    link_on_datagram(&l, 10 * SEC, 50, 20); /* heard: no throttle */
    assert_true(link_handshake_due(&l, 10 * SEC));
    tempo_rng rng;
    tempo_rng_seed(&rng, 1, 1);
    uint32_t nonce = link_handshake_request(&l, 10 * SEC, &rng);
    assert_false(link_handshake_due(&l, 10 * SEC + 100 * MS));
    link_handshake_resend_now(&l);
    assert_true(link_handshake_due(&l, 10 * SEC + 100 * MS));
    /* Its answer counts no round and is no stranger. */
    link_sync m = {true, nonce, HASH, true, NULL, 0};
    assert_int_equal(link_on_sync(&l, 10 * SEC + 150 * MS, &m), LINK_SYNC_IGNORED);
    assert_int_equal(l.hs.replies_ignored, 0);
    assert_int_equal(l.hs.rounds_done, 2);
}

/* ---- throttling -------------------------------------------------------------------- */

static void test_throttle_after_a_silent_second(void **state)
{
    (void)state;
    net_link l;
    establish(&l, 0, 1);
    uint64_t sent[256], n = 0;
    for (uint64_t t = 0; t <= 2500 * MS; t += 10 * MS) {
        if (t == 2000 * MS)
            link_on_datagram(&l, t, 10, 20);
        if (link_may_send(&l, t)) {
            link_on_sent(&l, t, 20);
            sent[n++] = t;
        }
    }
    /* Every 10 ms until 990 ms (heard at 0), then at most 4 a second from
     * the last send, until it speaks at 2 s. */
    assert_int_equal(sent[99], 990 * MS);
    assert_int_equal(sent[100], 1240 * MS);
    assert_int_equal(sent[101], 1490 * MS);
    assert_int_equal(sent[102], 1740 * MS);
    assert_int_equal(sent[103], 1990 * MS);
    assert_int_equal(sent[104], 2000 * MS);
    assert_int_equal(sent[105], 2010 * MS);
    assert_int_equal(n, 105 + 50);
}

/* ---- pings -------------------------------------------------------------------------- */

static void test_pongs_matching_no_ping_are_ignored(void **state)
{
    (void)state;
    net_link l;
    establish(&l, 0, 1);
    l.cfg.rtt_from_acks = false;
    uint64_t samples = l.rtt_samples;
    assert_false(link_ping_due(&l, 499999));
    link_on_datagram(&l, 500000, 10, 20);
    assert_true(link_ping_due(&l, 500000));
    assert_false(link_on_pong(&l, 500000, 77));
    assert_false(link_on_pong(&l, 500000, 0));
    assert_int_equal(l.pongs_ignored, 2);
    uint32_t id = link_ping_sent(&l, 500000);
    assert_false(link_ping_due(&l, 999999));
    assert_true(link_on_pong(&l, 540000, id));
    assert_int_equal(l.rtt_samples, samples + 1);
    assert_false(link_on_pong(&l, 550000, id)); /* a copy */
    assert_int_equal(l.pongs_ignored, 3);
    /* Five pings outstanding: the oldest is forgotten. */
    uint32_t ids[5];
    for (int i = 0; i < 5; i++)
        ids[i] = link_ping_sent(&l, 600000 + (uint64_t)i * 1000);
    assert_false(link_on_pong(&l, 700000, ids[0]));
    for (int i = 1; i < 5; i++)
        assert_true(link_on_pong(&l, 700000, ids[i]));
    assert_int_equal(l.pongs_ignored, 4);
    /* After a clock leap, a pong still matches but gives no sample. */
    uint64_t before = l.rtt_samples;
    id = link_ping_sent(&l, 800000);
    link_on_clock_jump(&l, 810000, 0);
    assert_true(link_on_pong(&l, 820000, id));
    assert_int_equal(l.rtt_samples, before);
}

/* ---- sequences ----------------------------------------------------------------------- */

static void test_a_far_jump_does_not_make_later_datagrams_stale(void **state)
{
    (void)state;
    link_config cfg;
    link_config_default(&cfg);
    net_link l;
    link_init(&l, &cfg, 0);
    for (uint64_t s = 0; s < 10; s++)
        assert_int_equal(link_on_datagram(&l, s, s, 20), LINK_RX_NEWEST);
    assert_int_equal(link_on_datagram(&l, 10, 9 + 5000, 20), LINK_RX_JUMP);
    for (uint64_t s = 10; s < 20; s++)
        assert_int_equal(link_on_datagram(&l, s, s, 20), LINK_RX_NEWEST);
    assert_int_equal(link_on_datagram(&l, 20, UINT64_MAX, 20), LINK_RX_JUMP);
    assert_int_equal(link_on_datagram(&l, 21, 20, 20), LINK_RX_NEWEST);
    /* Within the bound is believed at once. */
    assert_int_equal(link_on_datagram(&l, 22, 20 + 1024, 20), LINK_RX_NEWEST);
    /* A remote that really moved on (silent in its old range for the
     * notify time, 500 ms): two neighbours far ahead are followed. */
    const uint64_t q = 22 + cfg.notify_us;
    assert_int_equal(link_on_datagram(&l, q + 1, 100000, 20), LINK_RX_JUMP);
    assert_int_equal(link_on_datagram(&l, q + 2, 100002, 20), LINK_RX_NEWEST);
    assert_int_equal(link_on_datagram(&l, q + 3, 100001, 20), LINK_RX_LATE);
    assert_int_equal(link_on_datagram(&l, q + 4, 100000, 20), LINK_RX_DUPLICATE);
    assert_int_equal(link_on_datagram(&l, q + 5, 100003, 20), LINK_RX_NEWEST);
    assert_int_equal(link_on_datagram(&l, q + 6, 1044, 20), LINK_RX_TOO_OLD);
    assert_int_equal(l.seq_jumps, 3);
    uint64_t ack;
    uint32_t bits;
    assert_true(link_ack_out(&l, &ack, &bits));
    assert_int_equal(ack, 100003);
    assert_int_equal(bits, 0x7u);
}

/* A link as the roles make theirs: a jump is a step of more than 128. */
static void jump_link(net_link *l, link_config *cfg)
{
    link_config_default(cfg);
    cfg->seq_jump = 128;
    link_init(l, cfg, 0);
}

/* Two neighbours far ahead while the remote keeps speaking in its range
 * (every 16 ms) are someone else's: held, never followed, however often
 * they come; once the remote has been silent for the notify time, the next
 * pair is followed. link_would_hold says so beforehand, changing nothing. */
static void test_a_jump_is_not_followed_while_the_remote_speaks_in_its_range(void **state)
{
    (void)state;
    link_config cfg;
    net_link l;
    jump_link(&l, &cfg);
    uint64_t t = 0, s = 0;
    for (; s < 50; s++, t += 16000)
        assert_int_equal(link_on_datagram(&l, t, s, 20), LINK_RX_NEWEST);
    for (int round = 0; round < 20; round++, s++, t += 16000) {
        uint64_t j = s + 5000 + (uint64_t)round * 10;
        assert_true(link_would_hold(&l, t, j));
        assert_int_equal(link_on_datagram(&l, t, j, 20), LINK_RX_JUMP);
        assert_true(link_would_hold(&l, t + 1, j + 1));
        assert_int_equal(link_on_datagram(&l, t + 1, j + 1, 20), LINK_RX_JUMP);
        assert_int_equal(link_on_datagram(&l, t + 2, s, 20), LINK_RX_NEWEST);
    }
    assert_int_equal(l.recv_max, s - 1);
    assert_int_equal(l.seq_jumps, 40);
    t += cfg.notify_us;
    assert_int_equal(link_on_datagram(&l, t, s + 7000, 20), LINK_RX_JUMP);
    assert_false(link_would_hold(&l, t + 1, s + 7001));
    assert_int_equal(link_on_datagram(&l, t + 1, s + 7001, 20), LINK_RX_NEWEST);
    assert_true(l.jump_confirmed);
    assert_int_equal(l.recv_max, s + 7001);
}

/* Before anything came, a link told where the remote starts judges a
 * first datagram far from there as a jump: held, so a stranger's cannot
 * become the base every genuine one is compared with. */
static void test_a_first_datagram_far_from_the_expected_start_is_held(void **state)
{
    (void)state;
    link_config cfg;
    net_link l;
    jump_link(&l, &cfg);
    link_expect_first(&l, 0);
    assert_int_equal(link_on_datagram(&l, 10, 30000, 20), LINK_RX_JUMP);
    assert_int_equal(link_silence_us(&l, 10), 10);
    assert_int_equal(link_on_datagram(&l, 20, 0, 20), LINK_RX_NEWEST);
    assert_int_equal(link_on_datagram(&l, 30, 1, 20), LINK_RX_NEWEST);
    link_init(&l, &cfg, 0);
    link_expect_first(&l, 0);
    assert_int_equal(link_on_datagram(&l, 10, 100, 20), LINK_RX_NEWEST); /* within the bound */
}

/* A datagram held as a jump is no sign of life; the one that confirms it
 * is. Two jumps sent in turn stay held, so copies of them cannot keep a
 * silent remote alive. */
static void test_a_held_jump_is_no_sign_of_life(void **state)
{
    (void)state;
    net_link l;
    establish(&l, 0, 1); /* heard sequence 0 at time 0 */
    assert_int_equal(link_on_datagram(&l, 1 * SEC, 5000, 20), LINK_RX_JUMP);
    assert_int_equal(link_on_datagram(&l, 2 * SEC, 9000, 20), LINK_RX_JUMP);
    assert_int_equal(link_on_datagram(&l, 2 * SEC, 5000, 20), LINK_RX_JUMP);
    assert_true(link_silence_us(&l, 2 * SEC) == 2 * SEC);
    assert_int_equal(link_update(&l, 3 * SEC), LINK_EV_TIMED_OUT);

    establish(&l, 0, 1);
    assert_int_equal(link_on_datagram(&l, 1 * SEC, 5000, 20), LINK_RX_JUMP);
    assert_int_equal(link_on_datagram(&l, 2 * SEC, 5001, 20), LINK_RX_NEWEST);
    assert_true(l.jump_confirmed);
    assert_true(link_silence_us(&l, 2 * SEC) == 0);
}

static void test_hostile_values_are_counted_and_ignored(void **state)
{
    (void)state;
    net_link l;
    establish(&l, 0, 1); /* one datagram sent: sequence 0 */
    assert_false(link_on_ack(&l, 10, 1, 0));
    assert_false(link_on_ack(&l, 10, 5000, 0xFFFFFFFFu));
    assert_false(link_on_ack(&l, 10, UINT64_MAX, 0xFFFFFFFFu));
    assert_int_equal(l.acks_invalid, 3);
    assert_true(link_on_ack(&l, 10, 0, 0xFFFFFFFFu)); /* bits before 0 name nothing */
    assert_int_equal(l.judge_next, 0);
    /* Absurd stamps move the jitter by a bounded amount. */
    link_on_stamp(&l, 100, 0);
    link_on_stamp(&l, 200, UINT64_MAX);
    link_on_stamp(&l, 300, 1ull << 63);
    assert_true(link_jitter_us(&l) <= 60 * SEC / 16 * 2);
    /* An absurd round trip is no sample. */
    uint64_t samples = l.rtt_samples;
    link_rtt_sample(&l, UINT64_MAX);
    assert_int_equal(l.rtt_samples, samples);
    /* A mesh longer than the link holds, and a negative count. */
    uint16_t mesh[LINK_MESH_MAX + 8];
    for (int i = 0; i < LINK_MESH_MAX + 8; i++)
        mesh[i] = (uint16_t)i;
    link_sync m = {false, 1, HASH, false, mesh, LINK_MESH_MAX + 8};
    assert_int_equal(link_on_sync(&l, 400, &m), LINK_SYNC_ANSWER);
    assert_int_equal(l.hs.mesh_ms[LINK_MESH_MAX - 1], LINK_MESH_MAX - 1);
    m.mesh_count = -5;
    assert_int_equal(link_on_sync(&l, 500, &m), LINK_SYNC_ANSWER);
    assert_int_equal(l.hs.mesh_ms[0], LINK_MESH_UNKNOWN);
    /* Unmatched replies, pongs, copies and jumps. */
    m.reply = true;
    m.nonce = 12345;
    assert_int_equal(link_on_sync(&l, 600, &m), LINK_SYNC_IGNORED);
    assert_false(link_on_pong(&l, 700, 0xFFFFFFFFu));
    assert_int_equal(link_on_datagram(&l, 800, 0, 20), LINK_RX_DUPLICATE);
    assert_int_equal(link_on_datagram(&l, 900, 1ull << 40, 20), LINK_RX_JUMP);
    assert_int_equal(l.hs.replies_ignored, 1);
    assert_int_equal(l.pongs_ignored, 1);
    assert_int_equal(l.duplicates, 1);
    assert_int_equal(l.seq_jumps, 1);
    assert_int_equal(l.packets_received, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rtt_over_a_fixed_delay_is_exact),
        cmocka_unit_test(test_rtt_from_pings_alone),
        cmocka_unit_test(test_jitter_is_zero_over_a_fixed_delay),
        cmocka_unit_test(test_rtt_and_jitter_track_a_jittery_link),
        cmocka_unit_test(test_acks_count_outbound_loss_exactly),
        cmocka_unit_test(test_acked_datagrams_give_rtt_samples),
        cmocka_unit_test(test_inbound_loss_from_sequence_gaps),
        cmocka_unit_test(test_send_and_receive_rates),
        cmocka_unit_test(test_liveness_boundaries_are_exact),
        cmocka_unit_test(test_one_late_update_reports_only_the_timeout),
        cmocka_unit_test(test_our_pause_counts_as_silence_only_if_nothing_came),
        cmocka_unit_test(test_handshake_completes_over_a_terrible_network),
        cmocka_unit_test(test_replayed_and_unknown_nonces_are_ignored),
        cmocka_unit_test(test_handshake_times_out_and_requests_back_off),
        cmocka_unit_test(test_announcing_keeps_requests_going_after_completion),
        cmocka_unit_test(test_throttle_after_a_silent_second),
        cmocka_unit_test(test_pongs_matching_no_ping_are_ignored),
        cmocka_unit_test(test_a_far_jump_does_not_make_later_datagrams_stale),
        cmocka_unit_test(test_a_held_jump_is_no_sign_of_life),
        cmocka_unit_test(test_a_jump_is_not_followed_while_the_remote_speaks_in_its_range),
        cmocka_unit_test(test_a_first_datagram_far_from_the_expected_start_is_held),
        cmocka_unit_test(test_hostile_values_are_counted_and_ignored),
        cmocka_unit_test(test_acks_from_low_bits_recover_across_the_wrap),
        cmocka_unit_test(test_acks_from_low_bits_that_cannot_be_ours),
        cmocka_unit_test(test_acks_older_than_the_ring_give_no_rtt),
        cmocka_unit_test(test_a_link_numbered_past_zero_judges_only_what_it_sent),
        cmocka_unit_test(test_ack_rtt_follows_a_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
