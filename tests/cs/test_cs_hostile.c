/* SPDX-License-Identifier: MIT */
/*
 * test_cs_hostile.c — a client-server match under hostile traffic: a
 * connected client that lies about ticks and slots, floods of datagrams
 * that are malformed, for another session, from strangers or copies. Each
 * is dropped and counted, honest players keep playing, and neither side
 * allocates after create.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "cs_harness.h"
#include "hook_count.h"
#include "net/gate.h"
#include "wire/cs_msg.h"
#include "wire/packet.h"

/* A client built by hand: the real handshake (unsealed), then whatever
 * datagrams the test writes. */
typedef struct evil {
    tempo_transport t;
    tempo_address addr;
    gate_client g;
    bool accepted;
    uint64_t seq;
    uint64_t sent;
} evil;

static void evil_up(csh *h, evil *e, uint8_t host)
{
    memset(e, 0, sizeof *e);
    e->addr = tempo_address_ipv4(10, 0, 9, host, 6000);
    assert_int_equal(tempo_simnet_add_node(h->net, &e->addr, &e->t), TEMPO_OK);
    gate_client_config gc;
    memset(&gc, 0, sizeof gc);
    gc.nonce = 0xE111u + host;
    gc.server = h->saddr;
    gc.slots = 1;
    assert_int_equal(gate_client_init(&e->g, &gc, h->now), TEMPO_OK);
    e->seq = 1;
}

/* Handshake until accepted; later, swallow whatever comes. */
static void evil_poll(csh *h, evil *e)
{
    uint8_t buf[TEMPO_MAX_DATAGRAM + 1];
    tempo_address from;
    int n;
    while ((n = e->t.recv(e->t.ctx, &from, buf, sizeof buf)) > 0) {
        if (buf[7] >= CONNECT_TYPE_REQUEST && buf[7] <= CONNECT_TYPE_DENIED)
            (void)gate_client_on_datagram(&e->g, h->now, &from, buf, (size_t)n);
        else if ((buf[7] & 0x7f) == CS_MSG_ACCEPT)
            e->accepted = true;
    }
    if (!e->accepted && gate_client_due(&e->g, h->now)) {
        n = gate_client_write(&e->g, h->now, buf, sizeof buf);
        if (n > 0)
            e->t.send(e->t.ctx, &h->saddr, buf, (size_t)n);
    }
}

/* Send one plain client-server datagram: header, prefix, body. */
static void evil_send(csh *h, evil *e, uint8_t type, const uint8_t *body, size_t size)
{
    uint8_t d[TEMPO_MAX_DATAGRAM];
    tempo_packet_header ph = {77, (uint16_t)e->seq, type, false, false};
    assert_int_equal(packet_write(&ph, d, sizeof d), PACKET_HEADER_SIZE);
    memcpy(d + PACKET_HEADER_SIZE, body, size);
    e->t.send(e->t.ctx, &h->saddr, d, PACKET_HEADER_SIZE + size);
    e->seq++;
    e->sent++;
}

static void evil_input(csh *h, evil *e, int32_t first, int count, int slots)
{
    uint8_t body[TEMPO_MAX_DATAGRAM];
    uint8_t inputs[512];
    memset(inputs, 0x7f, sizeof inputs);
    cs_msg_prefix p = {false, 0, 0};
    size_t n = cs_msg_write_input(body, sizeof body, &p, -1, first, count, inputs,
                                  (size_t)count * (size_t)slots * CSH_INPUT);
    assert_true(n > 0);
    evil_send(h, e, CS_MSG_INPUT, body, n);
}

typedef struct lies {
    evil e;
    int sent_at;       /* server frame when the lies went */
} lies;

static void lie_about_ticks_and_slots(csh *h, void *ctx)
{
    lies *l = (lies *)ctx;
    evil_poll(h, &l->e);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    if (l->e.accepted && l->sent_at < 0 && ss.frame >= 500) {
        l->sent_at = ss.frame;
        evil_input(h, &l->e, ss.frame + 500, 3, 1);     /* far ahead: 3 dropped */
        evil_input(h, &l->e, ss.frame - 400, 2, 1);     /* far behind: 2 dropped */
        evil_input(h, &l->e, ss.frame + 2, 1, 2);       /* two slots' worth: malformed */
        evil_input(h, &l->e, ss.frame + 2, 1, 1);       /* its own slot: taken */
    }
    if (l->e.accepted && l->sent_at < 0) /* keep it alive with honest-looking nothing */
        evil_input(h, &l->e, ss.frame, 0, 1);
}

static csh *match(uint64_t seed, const tempo_allocator *server_alloc)
{
    csh *h = (csh *)calloc(1, sizeof *h);
    assert_non_null(h);
    tempo_link_params lp;
    memset(&lp, 0, sizeof lp);
    lp.latency_us = 30000;
    csh_init(h, seed, &lp, 2, server_alloc);
    return h;
}

static void test_lies_about_ticks_and_slots_are_dropped_and_counted(void **state)
{
    (void)state;
    csh *h = match(11, NULL);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    lies l;
    l.sent_at = -1;
    evil_up(h, &l.e, 1);
    h->extra = lie_about_ticks_and_slots;
    h->extra_ctx = &l;
    csh_run(h, 700);
    assert_true(l.sent_at >= 500);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    tempo_server_client_stats liar, honest;
    assert_int_equal(tempo_server_get_client_stats(h->server, 0, &liar), TEMPO_OK);
    assert_int_equal(tempo_server_get_client_stats(h->server, 1, &honest), TEMPO_OK);
    if (!tempo_address_equal(&liar.address, &l.e.addr)) {
        tempo_server_client_stats t = liar;
        liar = honest;
        honest = t;
    }
    assert_true(tempo_address_equal(&liar.address, &l.e.addr));
    assert_true(liar.connected && honest.connected);
    const int hs = honest.slots == 1u ? 0 : 1, ls = 1 - hs;
    assert_true(liar.slots == 1ull << ls);
    assert_true(tempo_client_local_players(h->cl[0].c) == 1ull << hs);
    assert_int_equal(liar.inputs_dropped, 5);
    assert_int_equal(ss.inputs_dropped, 5);
    assert_int_equal(ss.dropped_malformed, 1);
    assert_int_equal(honest.inputs_dropped, 0);
    /* the honest player's inputs are the ones it sent, tick for tick */
    for (int t = 100; t < 690; t++)
        assert_memory_equal(h->server_used[t] + hs * CSH_INPUT, h->cl[0].sent[t], CSH_INPUT);
    /* the liar's own input for its tick was taken */
    static const uint8_t taken[CSH_INPUT] = {0x7f, 0x7f, 0x7f, 0x7f};
    assert_memory_equal(h->server_used[l.sent_at + 2] + ls * CSH_INPUT, taken, CSH_INPUT);
    assert_int_equal(h->cl[0].load_mismatch, 0);
    assert_int_equal(h->cl[0].errors, 0);
    csh_free(h);
    free(h);
}

typedef struct flood {
    evil member;        /* connected, then replays its own datagram */
    evil stranger;      /* never connects */
    int ticks;
    uint64_t garbage, wrong_session, unknown, copies, handshakes;
    uint8_t copy[TEMPO_MAX_DATAGRAM];
    size_t copy_size;
} flood;

static void flood_server(csh *h, void *ctx)
{
    flood *f = (flood *)ctx;
    evil_poll(h, &f->member);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    if (!f->member.accepted)
        return;
    if (f->copy_size == 0) { /* one real datagram to copy later */
        uint8_t body[64];
        cs_msg_prefix p = {false, 0, 0};
        size_t n = cs_msg_write_input(body, sizeof body, &p, -1, ss.frame, 0, NULL, 0);
        tempo_packet_header ph = {77, (uint16_t)f->member.seq, CS_MSG_INPUT, false, false};
        packet_write(&ph, f->copy, sizeof f->copy);
        memcpy(f->copy + PACKET_HEADER_SIZE, body, n);
        f->copy_size = PACKET_HEADER_SIZE + n;
        f->member.t.send(f->member.t.ctx, &h->saddr, f->copy, f->copy_size);
        f->member.seq++;
        return;
    }
    if (ss.frame < 120 || f->ticks >= 100)
        return;
    f->ticks++;
    uint8_t d[TEMPO_MAX_DATAGRAM];
    for (int i = 0; i < 40; i++) { /* not tempo at all */
        memset(d, 0, sizeof d);
        d[1] = (uint8_t)i;
        f->stranger.t.send(f->stranger.t.ctx, &h->saddr, d, 20 + (size_t)i);
        f->garbage++;
    }
    for (int i = 0; i < 40; i++) { /* another session's, from a stranger */
        tempo_packet_header ph = {78, (uint16_t)i, CS_MSG_INPUT, false, false};
        packet_write(&ph, d, sizeof d);
        memset(d + 8, 0, 16);
        f->stranger.t.send(f->stranger.t.ctx, &h->saddr, d, 24);
        f->wrong_session++;
    }
    for (int i = 0; i < 40; i++) { /* this session's, from a stranger */
        tempo_packet_header ph = {77, (uint16_t)i, CS_MSG_INPUT, false, false};
        packet_write(&ph, d, sizeof d);
        memset(d + 8, 0, 16);
        f->stranger.t.send(f->stranger.t.ctx, &h->saddr, d, 24);
        f->unknown++;
    }
    for (int i = 0; i < 40; i++) { /* copies of a member's datagram */
        f->member.t.send(f->member.t.ctx, &h->saddr, f->copy, f->copy_size);
        f->copies++;
    }
    for (int i = 0; i < 10; i++) { /* connect requests with a nonsense body */
        memset(d, 0, sizeof d);
        tempo_packet_header ph = {0, 0, CONNECT_TYPE_REQUEST, false, false};
        packet_write(&ph, d, sizeof d);
        d[20] = (uint8_t)i;
        f->stranger.t.send(f->stranger.t.ctx, &h->saddr, d, CONNECT_REQUEST_SIZE);
        f->handshakes++;
    }
}

static void test_a_flood_is_dropped_counted_and_allocates_nothing(void **state)
{
    (void)state;
    hook_count hc = {-1, 0, 0};
    tempo_allocator a = hook_count_allocator(&hc);
    csh *h = match(12, &a);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    const int after_create = hc.count;
    assert_true(after_create > 0);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    flood *f = (flood *)calloc(1, sizeof *f);
    evil_up(h, &f->member, 1);
    evil_up(h, &f->stranger, 2);
    h->extra = flood_server;
    h->extra_ctx = f;
    csh_run(h, 110);
    tempo_client_stats before;
    tempo_client_get_stats(h->cl[0].c, &before);
    csh_run(h, 300);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    tempo_client_stats after;
    tempo_client_get_stats(h->cl[0].c, &after);
    printf("flood: %llu malformed, %llu session, %llu unknown, %llu replay, %llu refused\n",
           (unsigned long long)ss.dropped_malformed, (unsigned long long)ss.dropped_session,
           (unsigned long long)ss.dropped_unknown, (unsigned long long)ss.dropped_replay,
           (unsigned long long)ss.handshake_refused);
    assert_int_equal(f->ticks, 100);
    assert_int_equal(ss.dropped_malformed, f->garbage);
    assert_int_equal(ss.dropped_session, f->wrong_session);
    assert_int_equal(ss.dropped_unknown, f->unknown);
    assert_int_equal(ss.dropped_replay, f->copies);
    assert_int_equal(ss.handshake_refused, f->handshakes);
    assert_int_equal(ss.inputs_dropped, 0);
    assert_int_equal(ss.clients, 2);
    /* nothing allocated since create, and the honest client played on */
    assert_int_equal(hc.count, after_create);
    assert_true(after.snapshots - before.snapshots >= 180);
    assert_int_equal(h->cl[0].load_mismatch, 0);
    free(f);
    csh_free(h);
    free(h);
}

/* Datagram d (size bytes) again, as `from`, its sequence `ahead` past d's. */
static void spoof_ahead(csh *h, const tempo_address *from, const tempo_address *to, const uint8_t *d,
                        size_t size, uint64_t ahead)
{
    tempo_packet_view v;
    assert_int_equal(packet_read(d, size, &v, NULL), TEMPO_OK);
    uint8_t out[TEMPO_MAX_DATAGRAM];
    memcpy(out, d, size);
    tempo_packet_header ph = v.h;
    ph.sequence = (uint16_t)(ph.sequence + ahead);
    assert_int_equal(packet_write(&ph, out, sizeof out), PACKET_HEADER_SIZE);
    assert_int_equal(tempo_simnet_inject(h->net, from, to, out, size), TEMPO_OK);
}

typedef struct spoofer {
    int32_t at[2];   /* server ticks of the single spoof and of the pair */
    int done;
} spoofer;

/* An off-path spoofer who knows the sequences (given it: the client's
 * newest datagram each way): one datagram far ahead, later two neighbours
 * far ahead, each way: to the server as client 0, to client 0 as the
 * server. */
static void spoof_far_ahead(csh *h, void *ctx)
{
    spoofer *sp = (spoofer *)ctx;
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    if (sp->done >= 2 || ss.frame < sp->at[sp->done])
        return;
    csh_client *k = &h->cl[0];
    for (uint64_t i = 0; i <= (uint64_t)sp->done; i++) {
        spoof_ahead(h, &k->addr, &h->saddr, k->last_sent, k->last_size, 5000 + i);
        spoof_ahead(h, &h->saddr, &k->addr, k->last_recv, k->last_recv_size, 5000 + i);
    }
    sp->done++;
}

static void test_far_ahead_spoofs_cut_off_no_one_unsealed(void **state)
{
    (void)state;
    csh *h = match(13, NULL);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 3000, true, false), TEMPO_OK);
    spoofer sp = {{200, 500}, 0};
    h->extra = spoof_far_ahead;
    h->extra_ctx = &sp;
    csh_run(h, 1200);
    assert_int_equal(sp.done, 2);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    tempo_client_stats cs;
    tempo_client_get_stats(h->cl[0].c, &cs);
    printf("spoofed: %d clients, %llu timeouts, %llu disconnects, server %llu replays, client %llu replays\n",
           ss.clients, (unsigned long long)ss.timeouts, (unsigned long long)ss.disconnects,
           (unsigned long long)ss.dropped_replay, (unsigned long long)cs.dropped_replay);
    assert_int_equal(ss.clients, 2);
    assert_int_equal(ss.timeouts + ss.disconnects, 0);
    assert_int_equal(ss.held_jumps, 3); /* one, then a pair */
    assert_int_equal(cs.held_jumps, 3);
    assert_int_equal(ss.dropped_replay, 0);
    assert_true(tempo_client_local_players(h->cl[0].c) != 0);
    /* client 0's inputs reached the server, tick for tick, throughout */
    int slot = tempo_client_local_players(h->cl[0].c) == 1u ? 0 : 1;
    for (int t = 150; t < 1190; t++)
        assert_memory_equal(h->server_used[t] + slot * CSH_INPUT, h->cl[0].sent[t], CSH_INPUT);
    assert_int_equal(h->cl[0].load_mismatch, 0);
    csh_free(h);
    free(h);
}

/* The moment client 0 is admitted, before either side's first datagram of
 * the connection arrives: a far-ahead INPUT "from" it to the server and a
 * far-ahead ACCEPT naming the wrong slot "from" the server to it. */
static void spoof_at_admission(csh *h, void *ctx)
{
    int *done = (int *)ctx;
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    if (*done || ss.clients == 0)
        return;
    *done = 1;
    uint8_t d[TEMPO_MAX_DATAGRAM];
    cs_msg_prefix p = {false, 0, 0};
    tempo_packet_header ph = {77, 30000, CS_MSG_INPUT, false, false};
    packet_write(&ph, d, sizeof d);
    size_t n = cs_msg_write_input(d + PACKET_HEADER_SIZE, sizeof d - PACKET_HEADER_SIZE, &p, -1, 0,
                                  0, NULL, 0);
    assert_true(n > 0);
    assert_int_equal(tempo_simnet_inject(h->net, &h->cl[0].addr, &h->saddr, d, PACKET_HEADER_SIZE + n),
                     TEMPO_OK);
    cs_msg_accept a = {1, 1, 1, 2, CSH_INPUT, 60, 0, 1};
    ph.type = CS_MSG_ACCEPT;
    packet_write(&ph, d, sizeof d);
    n = cs_msg_write_accept(d + PACKET_HEADER_SIZE, sizeof d - PACKET_HEADER_SIZE, &p, &a);
    assert_true(n > 0);
    assert_int_equal(tempo_simnet_inject(h->net, &h->saddr, &h->cl[0].addr, d, PACKET_HEADER_SIZE + n),
                     TEMPO_OK);
}

static void test_a_far_ahead_spoof_at_admission_is_held_unsealed(void **state)
{
    (void)state;
    csh *h = match(14, NULL);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    int done = 0;
    h->extra = spoof_at_admission;
    h->extra_ctx = &done;
    csh_run(h, 600);
    assert_int_equal(done, 1);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    tempo_client_stats cs;
    tempo_client_get_stats(h->cl[0].c, &cs);
    printf("spoofed at admission: %d clients, %llu timeouts, slots %llx, held %llu %llu\n", ss.clients,
           (unsigned long long)ss.timeouts, (unsigned long long)tempo_client_local_players(h->cl[0].c),
           (unsigned long long)ss.held_jumps, (unsigned long long)cs.held_jumps);
    assert_int_equal(ss.clients, 1);
    assert_int_equal(ss.timeouts + ss.disconnects, 0);
    assert_int_equal(tempo_client_local_players(h->cl[0].c), 1u); /* the real ACCEPT's slot */
    assert_int_equal(ss.held_jumps, 1);
    assert_int_equal(cs.held_jumps, 1);
    for (int t = 100; t < 590; t++)
        assert_memory_equal(h->server_used[t], h->cl[0].sent[t], CSH_INPUT);
    assert_int_equal(h->cl[0].load_mismatch, 0);
    csh_free(h);
    free(h);
}

static void test_neither_side_allocates_after_create(void **state)
{
    (void)state;
    hook_count server_hc = {-1, 0, 0}, client_hc = {-1, 0, 0};
    tempo_allocator sa = hook_count_allocator(&server_hc);
    csh *h = match(13, &sa);
    h->ccfg.allocator = hook_count_allocator(&client_hc);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    const int s0 = server_hc.count, c0 = client_hc.count;
    csh_run(h, 600);
    assert_int_equal(server_hc.count, s0);
    assert_int_equal(client_hc.count, c0);
    assert_true(h->cl[0].loads > 400);
    csh_free(h);
    assert_int_equal(server_hc.live, 0);
    assert_int_equal(client_hc.live, 0);
    free(h);
}

static void test_every_failed_allocation_of_create_frees_what_it_took(void **state)
{
    (void)state;
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    tempo_simnet *net;
    assert_int_equal(tempo_simnet_create(&nc, &net), TEMPO_OK);
    tempo_address sa = tempo_address_ipv4(1, 2, 3, 4, 5);
    tempo_transport t;
    assert_int_equal(tempo_simnet_add_node(net, &sa, &t), TEMPO_OK);
    for (int fail = 0; fail < 16; fail++) {
        hook_count hc = {fail, 0, 0};
        tempo_server_config sc;
        tempo_server_config_default(&sc);
        sc.allocator = hook_count_allocator(&hc);
        tempo_server *s = NULL;
        tempo_result r = tempo_server_create(&sc, &t, &s);
        if (fail < hc.count)
            assert_int_equal(r, TEMPO_E_NO_MEMORY);
        tempo_server_destroy(s);
        assert_int_equal(hc.live, 0);
        hook_count cc = {fail, 0, 0};
        tempo_client_config ccf;
        tempo_client_config_default(&ccf);
        ccf.allocator = hook_count_allocator(&cc);
        tempo_client *c = NULL;
        r = tempo_client_create(&ccf, &t, &sa, &c);
        if (fail < cc.count)
            assert_int_equal(r, TEMPO_E_NO_MEMORY);
        tempo_client_destroy(c);
        assert_int_equal(cc.live, 0);
    }
    tempo_simnet_destroy(net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lies_about_ticks_and_slots_are_dropped_and_counted),
        cmocka_unit_test(test_a_flood_is_dropped_counted_and_allocates_nothing),
        cmocka_unit_test(test_far_ahead_spoofs_cut_off_no_one_unsealed),
        cmocka_unit_test(test_a_far_ahead_spoof_at_admission_is_held_unsealed),
        cmocka_unit_test(test_neither_side_allocates_after_create),
        cmocka_unit_test(test_every_failed_allocation_of_create_frees_what_it_took),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
