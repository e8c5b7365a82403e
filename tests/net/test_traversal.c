/* SPDX-License-Identifier: MIT */
/*
 * test_traversal.c — the traversal transport with a real relay on the
 * simulated network, in virtual time: members meet through the relay and
 * choose direct paths; a member that does not punch plays through the
 * relay; a direct path that goes dark falls back to the relay without a
 * datagram of the session lost to it, and comes back; and hostile input:
 * strangers' and forged probes dropped and counted, a replayed probe
 * answered at most at the rate bound and never with more bytes than it
 * carried, a forged introduction that cannot move a peer, forwarding
 * only inside a match; honest traffic flowing throughout.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "tempo/relay.h"
#include "tempo/secure.h"
#include "tempo/simnet.h"
#include "tempo/traversal.h"
#include "wire/connect.h"
#include "wire/nat_msg.h"
#include "wire/packet.h"

#define MS 1000u
#define SEC 1000000u
#define MATCH 9u

typedef struct lab {
    tempo_simnet *net;
    tempo_relay *relay;
    tempo_address raddr;
    int n;
    tempo_traversal *m[3];
    tempo_address addr[3];
    tempo_transport t[3];
    tempo_transport session[3];
    uint64_t now;
} lab;

static tempo_traversal *member(lab *L, int i, bool direct)
{
    tempo_traversal_config c;
    tempo_traversal_config_default(&c);
    c.transport = L->t[i];
    c.relay = L->raddr;
    c.nonce = 100u + (uint64_t)i;
    c.direct = direct;
    tempo_relay_join j = {MATCH, (uint8_t)(1u << i), L->n, 4, 60, 0, 0, true};
    assert_int_equal(tempo_relay_join_write(&j, c.join), TEMPO_OK);
    tempo_traversal *t;
    assert_int_equal(tempo_traversal_create(&c, L->now, &t), TEMPO_OK);
    return t;
}

static void lab_open(lab *L, int n, unsigned no_direct)
{
    memset(L, 0, sizeof *L);
    L->n = n;
    L->now = 1 * SEC;
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.default_link.latency_us = 10 * MS;
    assert_int_equal(tempo_simnet_create(&nc, &L->net), TEMPO_OK);
    L->raddr = tempo_address_ipv4(203, 0, 113, 1, 40000);
    tempo_transport rt;
    assert_int_equal(tempo_simnet_add_node(L->net, &L->raddr, &rt), TEMPO_OK);
    tempo_relay_config rc;
    tempo_relay_config_default(&rc);
    memset(rc.cookie_key, 0x5a, sizeof rc.cookie_key);
    assert_int_equal(tempo_relay_create(&rc, &rt, &L->relay), TEMPO_OK);
    for (int i = 0; i < n; i++) {
        L->addr[i] = tempo_address_ipv4(198, 51, 100, (uint8_t)(10 + i), 7000);
        assert_int_equal(tempo_simnet_add_node(L->net, &L->addr[i], &L->t[i]), TEMPO_OK);
        L->m[i] = member(L, i, !(no_direct >> i & 1u));
        L->session[i] = tempo_traversal_transport(L->m[i]);
    }
}

static void lab_close(lab *L)
{
    for (int i = 0; i < L->n; i++)
        tempo_traversal_destroy(L->m[i]);
    tempo_relay_destroy(L->relay);
    tempo_simnet_destroy(L->net);
}

static void run(lab *L, uint64_t us)
{
    for (uint64_t end = L->now + us; L->now < end;) {
        L->now += MS;
        tempo_simnet_set_time(L->net, L->now);
        tempo_relay_update(L->relay, L->now, L->now / SEC);
        for (int i = 0; i < L->n; i++)
            tempo_traversal_update(L->m[i], L->now);
    }
}

static tempo_path path(lab *L, int i, int player)
{
    tempo_path_info pi;
    assert_int_equal(tempo_traversal_get_path(L->m[i], player, &pi), TEMPO_OK);
    return pi.path;
}

/* A session datagram from i to player j's machine arrives there, from
 * i's session address. */
static void flows(lab *L, int i, int j)
{
    tempo_address to, from, want;
    assert_int_equal(tempo_traversal_peer_address(L->m[i], j, &to), TEMPO_OK);
    assert_int_equal(tempo_traversal_peer_address(L->m[j], i, &want), TEMPO_OK);
    uint8_t data[40], got[TEMPO_MAX_DATAGRAM];
    memset(data, 0xA0 + i * 16 + j, sizeof data);
    assert_int_equal(L->session[i].send(L->session[i].ctx, &to, data, sizeof data), 0);
    run(L, 30 * MS);
    bool found = false;
    int r;
    while ((r = L->session[j].recv(L->session[j].ctx, &from, got, sizeof got)) > 0)
        if (r == (int)sizeof data && memcmp(got, data, sizeof data) == 0) {
            assert_true(tempo_address_equal(&from, &want));
            found = true;
        }
    assert_true(found);
}

static void test_members_meet_and_go_direct(void **state)
{
    (void)state;
    lab L;
    lab_open(&L, 3, 0);
    tempo_traversal_status st;
    run(&L, 300 * MS);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(tempo_traversal_get_status(L.m[i], &st), TEMPO_OK);
        assert_int_equal(st.state, TEMPO_TRAVERSAL_READY);
        assert_int_equal(st.local_players, 1u << i);
        assert_int_equal(st.remote_players, 7u & ~(1u << i));
        for (int j = 0; j < 3; j++)
            if (j != i)
                assert_int_equal(path(&L, i, j), TEMPO_PATH_DIRECT);
    }
    tempo_path_info pi;
    assert_int_equal(tempo_traversal_get_path(L.m[0], 1, &pi), TEMPO_OK);
    assert_true(tempo_address_equal(&pi.direct, &L.addr[1]));
    assert_true(pi.direct_after_ms > 0 && pi.direct_after_ms < 200);
    /* unsealed relay: no key is made from a secret sent in the clear */
    uint8_t key[TEMPO_KEY_SIZE];
    assert_int_equal(tempo_traversal_match_key(L.m[0], key), TEMPO_E_STATE);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (i != j)
                flows(&L, i, j);
    tempo_traversal_stats ts;
    tempo_traversal_get_stats(L.m[0], &ts);
    assert_true(ts.direct_out >= 2);
    assert_int_equal(ts.dropped_unknown + ts.dropped_session + ts.dropped_malformed +
                         ts.dropped_forged + ts.dropped_replay + ts.held_jumps,
                     0);
    /* a player nobody hosts, ours, out of range */
    tempo_address a;
    assert_int_equal(tempo_traversal_peer_address(L.m[0], 0, &a), TEMPO_E_PLAYER);
    assert_int_equal(tempo_traversal_peer_address(L.m[0], 5, &a), TEMPO_E_PLAYER);
    assert_int_equal(tempo_traversal_peer_address(L.m[0], 8, &a), TEMPO_E_INVALID_ARG);
    lab_close(&L);
}

static void test_a_member_without_punching_plays_relayed(void **state)
{
    (void)state;
    lab L;
    lab_open(&L, 3, 1u << 2);
    run(&L, 4 * SEC);
    assert_int_equal(path(&L, 0, 1), TEMPO_PATH_DIRECT);
    assert_int_equal(path(&L, 2, 0), TEMPO_PATH_RELAYED);
    assert_int_equal(path(&L, 2, 1), TEMPO_PATH_RELAYED);
    /* its peers probed it, it never answered a direct probe: they give up */
    assert_int_equal(path(&L, 0, 2), TEMPO_PATH_RELAYED);
    tempo_relay_stats rs;
    tempo_relay_get_stats(L.relay, &rs);
    uint64_t before = rs.forwarded;
    flows(&L, 2, 0);
    flows(&L, 0, 2);
    flows(&L, 1, 0); /* the direct pair beside it */
    tempo_relay_get_stats(L.relay, &rs);
    assert_true(rs.forwarded >= before + 2);
    /* the relay path's round trip is measured: two 10 ms hops each way */
    tempo_path_info pi;
    tempo_traversal_get_path(L.m[2], 0, &pi);
    assert_true(pi.rtt_relay_us >= 40 * MS && pi.rtt_relay_us < 80 * MS);
    lab_close(&L);
}

static void test_dead_path_falls_back_and_comes_back(void **state)
{
    (void)state;
    lab L;
    lab_open(&L, 2, 0);
    run(&L, 500 * MS);
    assert_int_equal(path(&L, 0, 1), TEMPO_PATH_DIRECT);
    /* the direct path goes dark both ways for 8 s (a NAT mapping gone) */
    uint64_t from = L.now;
    assert_int_equal(tempo_simnet_add_blackout(L.net, &L.addr[0], &L.addr[1], from, from + 8 * SEC), TEMPO_OK);
    assert_int_equal(tempo_simnet_add_blackout(L.net, &L.addr[1], &L.addr[0], from, from + 8 * SEC), TEMPO_OK);
    run(&L, 5 * SEC);
    assert_int_equal(path(&L, 0, 1), TEMPO_PATH_RELAYED);
    assert_int_equal(path(&L, 1, 0), TEMPO_PATH_RELAYED);
    flows(&L, 0, 1); /* the match goes on through the relay */
    flows(&L, 1, 0);
    run(&L, 6 * SEC);
    assert_int_equal(path(&L, 0, 1), TEMPO_PATH_DIRECT);
    tempo_path_info pi;
    tempo_traversal_get_path(L.m[0], 1, &pi);
    assert_int_equal(pi.downgrades, 1u);
    assert_int_equal(pi.upgrades, 1u);
    flows(&L, 0, 1);
    lab_close(&L);
}

/* A burst larger than the queue for the session (a stall of the game
 * loop): nothing is dropped, the rest waits in the socket. */
static void test_a_burst_waits_in_the_socket(void **state)
{
    (void)state;
    lab L;
    lab_open(&L, 2, 0);
    run(&L, 300 * MS);
    assert_int_equal(path(&L, 1, 0), TEMPO_PATH_DIRECT);
    tempo_address to, from;
    assert_int_equal(tempo_traversal_peer_address(L.m[1], 0, &to), TEMPO_OK);
    uint8_t data[32], got[TEMPO_MAX_DATAGRAM];
    for (int k = 0; k < 200; k++) {
        memset(data, k, sizeof data);
        assert_int_equal(L.session[1].send(L.session[1].ctx, &to, data, sizeof data), 0);
    }
    L.now += 20 * MS;
    tempo_simnet_set_time(L.net, L.now);
    tempo_traversal_update(L.m[0], L.now); /* reads what it can before the session does */
    int n = 0, r;
    while ((r = L.session[0].recv(L.session[0].ctx, &from, got, sizeof got)) > 0)
        if (r == (int)sizeof data) {
            assert_int_equal(got[0], (uint8_t)n); /* in order, none lost */
            n++;
        }
    assert_int_equal(n, 200);
    tempo_traversal_stats st;
    tempo_traversal_get_stats(L.m[0], &st);
    assert_int_equal(st.dropped_queue, 0);
    lab_close(&L);
}

/* Probes from addresses that are no member, or with a tag that does not
 * verify, are counted and never answered. */
static void test_strangers_and_forged_probes_dropped(void **state)
{
    (void)state;
    lab L;
    lab_open(&L, 2, 0);
    run(&L, 300 * MS);
    tempo_transport evil;
    tempo_address ea = tempo_address_ipv4(192, 0, 2, 66, 5555);
    assert_int_equal(tempo_simnet_add_node(L.net, &ea, &evil), TEMPO_OK);
    tempo_traversal_stats a, b;
    tempo_traversal_get_stats(L.m[0], &a);
    /* a probe under a secret of its own */
    uint8_t secret[NAT_SECRET_SIZE];
    memset(secret, 0x33, sizeof secret);
    nat_probe p = {NAT_TYPE_PROBE, 1, 0, 0, 1234};
    uint8_t pkt[NAT_PROBE_SIZE];
    nat_probe_write(pkt, &p, secret);
    for (int k = 0; k < 50; k++)
        assert_int_equal(evil.send(evil.ctx, &L.addr[0], pkt, sizeof pkt), 0);
    /* datagrams that are no probe, from nowhere a member is */
    uint8_t junk[100];
    memset(junk, 0xB5, sizeof junk);
    for (int k = 0; k < 20; k++)
        assert_int_equal(evil.send(evil.ctx, &L.addr[0], junk, sizeof junk), 0);
    /* an introduction, unsealed, from an address that is not the relay */
    uint8_t intro[PACKET_HEADER_SIZE + 64];
    memset(intro, 0, sizeof intro);
    tempo_packet_header h = {connect_session_id(TEMPO_RELAY_PLAIN_PROTOCOL), 99, NAT_TYPE_INTRO,
                             false, false};
    packet_write(&h, intro, sizeof intro);
    assert_int_equal(evil.send(evil.ctx, &L.addr[0], intro, sizeof intro), 0);
    run(&L, 200 * MS);
    tempo_traversal_get_stats(L.m[0], &b);
    assert_int_equal(b.dropped_session - a.dropped_session, 50); /* another match's */
    assert_int_equal(b.dropped_unknown - a.dropped_unknown, 21);
    assert_int_equal(b.dropped_forged - a.dropped_forged, 0);
    assert_int_equal(b.acks_sent - a.acks_sent, b.probes_in - a.probes_in); /* the peer's only */
    tempo_address from;
    uint8_t got[TEMPO_MAX_DATAGRAM];
    assert_int_equal(evil.recv(evil.ctx, &from, got, sizeof got), 0); /* nothing answered */
    assert_int_equal(path(&L, 0, 1), TEMPO_PATH_DIRECT);
    tempo_path_info pi;
    tempo_traversal_get_path(L.m[0], 1, &pi);
    assert_true(tempo_address_equal(&pi.direct, &L.addr[1]));
    flows(&L, 0, 1);
    flows(&L, 1, 0);
    lab_close(&L);
}

/* What member 0 receives for up to `us`: the first probe and the first
 * acknowledgement member 1 sends it, and the first datagram of the
 * relay's, copied as they pass (every datagram still reaches it). */
typedef struct captured {
    uint8_t probe[NAT_PROBE_SIZE], ack[NAT_PROBE_SIZE];
    uint8_t relay[TEMPO_MAX_DATAGRAM];
    size_t relay_size;
    bool have_probe, have_ack;
} captured;

static void capture(lab *L, captured *c, uint64_t us)
{
    memset(c, 0, sizeof *c);
    for (uint64_t end = L->now + us; L->now < end;) {
        if (c->have_probe && c->have_ack && c->relay_size > 0)
            return;
        L->now += MS;
        tempo_simnet_set_time(L->net, L->now);
        tempo_address from;
        uint8_t buf[TEMPO_MAX_DATAGRAM];
        int r;
        int n = 0;
        static uint8_t held[16][TEMPO_MAX_DATAGRAM];
        static tempo_address held_from[16];
        static int held_size[16];
        while (n < 16 && (r = L->t[0].recv(L->t[0].ctx, &from, buf, sizeof buf)) > 0) {
            memcpy(held[n], buf, (size_t)r);
            held_from[n] = from;
            held_size[n++] = r;
            if (tempo_address_equal(&from, &L->raddr) && c->relay_size == 0) {
                memcpy(c->relay, buf, (size_t)r);
                c->relay_size = (size_t)r;
            } else if (r == NAT_PROBE_SIZE && buf[7] == NAT_TYPE_PROBE && !c->have_probe) {
                memcpy(c->probe, buf, NAT_PROBE_SIZE);
                c->have_probe = true;
            } else if (r == NAT_PROBE_SIZE && buf[7] == NAT_TYPE_PROBE_ACK && !c->have_ack) {
                memcpy(c->ack, buf, NAT_PROBE_SIZE);
                c->have_ack = true;
            }
        }
        for (int k = 0; k < n; k++) /* on to member 0, as they came */
            assert_int_equal(tempo_simnet_inject(L->net, &held_from[k], &L->addr[0], held[k],
                                                 (size_t)held_size[k]),
                             TEMPO_OK);
        tempo_relay_update(L->relay, L->now, L->now / SEC);
        for (int i = 0; i < L->n; i++)
            tempo_traversal_update(L->m[i], L->now);
    }
}

/* Every kind of hostile datagram at a member moves its own counter, by
 * the reasons and names every role shares, and exactly by the number
 * sent: copies of a genuine probe, of a genuine acknowledgement and of a
 * relay datagram are replays; a probe with its tag altered is forged; a
 * probe cut short, one byte long, or claiming a seal is malformed; a
 * probe of another match is another session's; bytes from an address no
 * member has are unknown. None is answered, and the pair stays direct. */
static void test_hostile_probes_move_exactly_their_counters(void **state)
{
    (void)state;
    lab L;
    lab_open(&L, 2, 0);
    run(&L, 300 * MS);
    assert_int_equal(path(&L, 0, 1), TEMPO_PATH_DIRECT);
    captured c;
    capture(&L, &c, 3 * SEC);
    assert_true(c.have_probe && c.have_ack && c.relay_size > 0);
    run(&L, 20 * MS);
    tempo_transport evil;
    tempo_address ea = tempo_address_ipv4(192, 0, 2, 66, 5555);
    assert_int_equal(tempo_simnet_add_node(L.net, &ea, &evil), TEMPO_OK);
    tempo_traversal_stats a, b;
    tempo_traversal_get_stats(L.m[0], &a);
    uint8_t pkt[NAT_PROBE_SIZE + 1];
    /* replays: the probe from a stranger, the ack from its member, the
     * relay's datagram from the relay */
    for (int k = 0; k < 3; k++)
        assert_int_equal(tempo_simnet_inject(L.net, &ea, &L.addr[0], c.probe, NAT_PROBE_SIZE),
                         TEMPO_OK);
    for (int k = 0; k < 2; k++)
        assert_int_equal(tempo_simnet_inject(L.net, &L.addr[1], &L.addr[0], c.ack, NAT_PROBE_SIZE),
                         TEMPO_OK);
    assert_int_equal(tempo_simnet_inject(L.net, &L.raddr, &L.addr[0], c.relay, c.relay_size),
                     TEMPO_OK);
    /* forged: a bit of the tag flipped */
    for (int k = 0; k < 4; k++) {
        memcpy(pkt, c.probe, NAT_PROBE_SIZE);
        pkt[NAT_PROBE_SIZE - 1 - k] ^= 0x10;
        assert_int_equal(tempo_simnet_inject(L.net, &ea, &L.addr[0], pkt, NAT_PROBE_SIZE), TEMPO_OK);
    }
    /* malformed: a byte short, a byte long, a seal claimed */
    memcpy(pkt, c.probe, NAT_PROBE_SIZE);
    assert_int_equal(tempo_simnet_inject(L.net, &ea, &L.addr[0], pkt, NAT_PROBE_SIZE - 1), TEMPO_OK);
    pkt[NAT_PROBE_SIZE] = 0;
    assert_int_equal(tempo_simnet_inject(L.net, &ea, &L.addr[0], pkt, NAT_PROBE_SIZE + 1), TEMPO_OK);
    pkt[0] |= 8u; /* with the byte more: room for a seal's tag, so the header reads */
    assert_int_equal(tempo_simnet_inject(L.net, &ea, &L.addr[0], pkt, NAT_PROBE_SIZE + 1), TEMPO_OK);
    /* another match's: a probe under a secret of its own */
    uint8_t secret[NAT_SECRET_SIZE];
    memset(secret, 0x33, sizeof secret);
    nat_probe p = {NAT_TYPE_PROBE, 1, 0, 0, 1234};
    nat_probe_write(pkt, &p, secret);
    for (int k = 0; k < 5; k++)
        assert_int_equal(evil.send(evil.ctx, &L.addr[0], pkt, NAT_PROBE_SIZE), 0);
    /* unknown: bytes that are no probe from an address no member has */
    uint8_t junk[60];
    memset(junk, 0x5E, sizeof junk);
    for (int k = 0; k < 6; k++)
        assert_int_equal(evil.send(evil.ctx, &L.addr[0], junk, sizeof junk), 0);
    run(&L, 50 * MS);
    tempo_traversal_get_stats(L.m[0], &b);
    assert_int_equal(b.dropped_replay - a.dropped_replay, 6);
    assert_int_equal(b.dropped_forged - a.dropped_forged, 4);
    assert_int_equal(b.dropped_malformed - a.dropped_malformed, 3);
    assert_int_equal(b.dropped_session - a.dropped_session, 5);
    assert_int_equal(b.dropped_unknown - a.dropped_unknown, 6);
    assert_int_equal(b.held_jumps - a.held_jumps, 0);
    assert_int_equal(b.dropped_queue - a.dropped_queue, 0);
    tempo_address from;
    uint8_t got[TEMPO_MAX_DATAGRAM];
    assert_int_equal(evil.recv(evil.ctx, &from, got, sizeof got), 0); /* nothing answered */
    run(&L, 2 * SEC);
    assert_int_equal(path(&L, 0, 1), TEMPO_PATH_DIRECT);
    assert_int_equal(path(&L, 1, 0), TEMPO_PATH_DIRECT);
    flows(&L, 0, 1);
    flows(&L, 1, 0);
    lab_close(&L);
}

/* A genuine probe captured (withheld from its member) and replayed a
 * thousand times from a spoofed address: the first copy is news and is
 * answered once, with the probe's size; every later one is a replay,
 * dropped and counted, never answered: the member cannot be made a
 * traffic amplifier or reflector. */
static void test_replayed_probe_is_not_amplified(void **state)
{
    (void)state;
    lab L;
    lab_open(&L, 2, 0);
    run(&L, 300 * MS);
    /* capture: member 1's next probe to member 0, seen on the wire */
    tempo_transport victim;
    tempo_address va = tempo_address_ipv4(192, 0, 2, 77, 80);
    assert_int_equal(tempo_simnet_add_node(L.net, &va, &victim), TEMPO_OK);
    uint8_t pkt[NAT_PROBE_SIZE];
    bool have = false;
    for (int k = 0; k < 3000 && !have; k++) {
        L.now += MS;
        tempo_simnet_set_time(L.net, L.now);
        tempo_relay_update(L.relay, L.now, L.now / SEC);
        tempo_traversal_update(L.m[1], L.now);
        tempo_address from;
        uint8_t buf[TEMPO_MAX_DATAGRAM];
        int r;
        while ((r = L.t[0].recv(L.t[0].ctx, &from, buf, sizeof buf)) > 0)
            if (r == NAT_PROBE_SIZE && buf[7] == NAT_TYPE_PROBE) {
                memcpy(pkt, buf, sizeof pkt);
                have = true;
            }
    }
    assert_true(have);
    tempo_traversal_stats a, b;
    tempo_traversal_get_stats(L.m[0], &a);
    for (int k = 0; k < 1000; k++)
        assert_int_equal(tempo_simnet_inject(L.net, &va, &L.addr[0], pkt, sizeof pkt), TEMPO_OK);
    tempo_traversal_update(L.m[0], L.now);
    run(&L, 100 * MS);
    tempo_traversal_get_stats(L.m[0], &b);
    assert_int_equal(b.dropped_replay - a.dropped_replay, 999);
    assert_int_equal(b.acks_limited - a.acks_limited, 0);
    int got = 0, r;
    tempo_address from;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    while ((r = victim.recv(victim.ctx, &from, buf, sizeof buf)) > 0) {
        assert_int_equal(r, NAT_PROBE_SIZE); /* never more than it was sent */
        got++;
    }
    assert_int_equal(got, 1);
    /* the honest pair is unharmed */
    run(&L, 2 * SEC);
    assert_int_equal(path(&L, 0, 1), TEMPO_PATH_DIRECT);
    flows(&L, 1, 0);
    lab_close(&L);
}

/* The relay forwards only to a member of the sender's match, and only as
 * the sender's own player. */
static void test_relay_forwards_only_inside_a_match(void **state)
{
    (void)state;
    lab L;
    lab_open(&L, 2, 3u);
    run(&L, 300 * MS);
    tempo_relay_stats a, b;
    tempo_relay_get_stats(L.relay, &a);
    /* a stranger's FORWARD, shaped right, never admitted */
    tempo_transport evil;
    tempo_address ea = tempo_address_ipv4(192, 0, 2, 66, 5555);
    assert_int_equal(tempo_simnet_add_node(L.net, &ea, &evil), TEMPO_OK);
    uint8_t fwd[PACKET_HEADER_SIZE + 10];
    memset(fwd, 0, sizeof fwd);
    tempo_packet_header h = {connect_session_id(TEMPO_RELAY_PLAIN_PROTOCOL), 5, NAT_TYPE_FORWARD,
                             false, false};
    packet_write(&h, fwd, sizeof fwd);
    fwd[PACKET_HEADER_SIZE] = 1;
    assert_int_equal(evil.send(evil.ctx, &L.raddr, fwd, sizeof fwd), 0);
    /* a member forwarding to a player beyond the match, and to itself */
    tempo_address to;
    uint8_t data[20] = {1, 2, 3};
    tempo_address self;
    uint8_t id[3] = {0x74, 0x70, 0};
    tempo_address_opaque(&self, id, sizeof id, 0);
    assert_int_equal(L.session[0].send(L.session[0].ctx, &self, data, sizeof data), TEMPO_E_ADDRESS);
    id[2] = 7;
    tempo_address_opaque(&to, id, sizeof id, 0);
    assert_int_equal(L.session[0].send(L.session[0].ctx, &to, data, sizeof data), TEMPO_E_ADDRESS);
    /* too large to forward: refused, not cut */
    uint8_t big[TEMPO_MAX_DATAGRAM];
    memset(big, 1, sizeof big);
    assert_int_equal(tempo_traversal_peer_address(L.m[0], 1, &to), TEMPO_OK);
    assert_int_equal(L.session[0].send(L.session[0].ctx, &to, big, sizeof big), TEMPO_E_FULL);
    /* the relay's own checks, past a member that would not send them:
     * FORWARDs in member 0's name to a player beyond the match and to
     * itself (unsealed, so a spoofed source gets this far) */
    tempo_relay_member_stats ms;
    assert_int_equal(tempo_relay_get_member_stats(L.relay, MATCH, 0, &ms), TEMPO_OK);
    for (int k = 0; k < 2; k++) {
        /* a few sequences ahead of the member's own (the gate's two
         * datagrams are not numbered on the link) */
        tempo_packet_header fh = {connect_session_id(TEMPO_RELAY_PLAIN_PROTOCOL),
                                  (uint16_t)(ms.datagrams_up + 3 + (uint64_t)k), NAT_TYPE_FORWARD,
                                  false, false};
        packet_write(&fh, fwd, sizeof fwd);
        fwd[PACKET_HEADER_SIZE] = k == 0 ? 5 : 0;
        assert_int_equal(tempo_simnet_inject(L.net, &L.addr[0], &L.raddr, fwd, sizeof fwd), TEMPO_OK);
    }
    run(&L, 100 * MS);
    tempo_relay_get_stats(L.relay, &b);
    assert_true(b.handshake_refused > a.handshake_refused);
    assert_int_equal(b.dropped_malformed - a.dropped_malformed, 1);
    assert_int_equal(b.dropped_not_owned - a.dropped_not_owned, 1);
    flows(&L, 0, 1);
    flows(&L, 1, 0);
    lab_close(&L);
}

/* A sealed relay: members join with tokens, get the same match key, and
 * an introduction forged in the relay's name (its address, a seal that
 * does not open) moves nobody. */
static void test_sealed_introduction_cannot_be_forged(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    lab L;
    memset(&L, 0, sizeof L);
    L.n = 2;
    L.now = 1 * SEC;
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.default_link.latency_us = 10 * MS;
    assert_int_equal(tempo_simnet_create(&nc, &L.net), TEMPO_OK);
    L.raddr = tempo_address_ipv4(203, 0, 113, 1, 40000);
    tempo_transport rt;
    assert_int_equal(tempo_simnet_add_node(L.net, &L.raddr, &rt), TEMPO_OK);
    uint8_t backend[TEMPO_KEY_SIZE];
    assert_int_equal(tempo_key_generate(backend), TEMPO_OK);
    tempo_relay_config rc;
    tempo_relay_config_default(&rc);
    memset(rc.cookie_key, 0x5a, sizeof rc.cookie_key);
    rc.has_private_key = true;
    rc.protocol_id = 77;
    memcpy(rc.private_key, backend, sizeof backend);
    assert_int_equal(tempo_relay_create(&rc, &rt, &L.relay), TEMPO_OK);
    for (int i = 0; i < 2; i++) {
        L.addr[i] = tempo_address_ipv4(198, 51, 100, (uint8_t)(10 + i), 7000);
        assert_int_equal(tempo_simnet_add_node(L.net, &L.addr[i], &L.t[i]), TEMPO_OK);
        uint8_t user[TEMPO_TOKEN_USER_DATA_SIZE], token[TEMPO_TOKEN_SIZE];
        tempo_relay_join j = {MATCH, (uint8_t)(1u << i), 2, 4, 60, 0, 0, true};
        assert_int_equal(tempo_relay_join_write(&j, user), TEMPO_OK);
        assert_int_equal(tempo_token_create(backend, 77, 1u + (uint64_t)i, 3600, 0, &L.raddr, 1,
                                            user, token),
                         TEMPO_OK);
        tempo_traversal_config c;
        tempo_traversal_config_default(&c);
        c.transport = L.t[i];
        c.relay = L.raddr;
        c.token = token;
        c.protocol_id = 77;
        assert_int_equal(tempo_traversal_create(&c, L.now, &L.m[i]), TEMPO_OK);
        L.session[i] = tempo_traversal_transport(L.m[i]);
    }
    run(&L, 500 * MS);
    assert_int_equal(path(&L, 0, 1), TEMPO_PATH_DIRECT);
    uint8_t k0[TEMPO_KEY_SIZE], k1[TEMPO_KEY_SIZE], zero[TEMPO_KEY_SIZE];
    memset(zero, 0, sizeof zero);
    assert_int_equal(tempo_traversal_match_key(L.m[0], k0), TEMPO_OK);
    assert_int_equal(tempo_traversal_match_key(L.m[1], k1), TEMPO_OK);
    assert_memory_equal(k0, k1, sizeof k0);
    assert_memory_not_equal(k0, zero, sizeof k0);
    /* an INTRO in the relay's name naming an attacker as player 1 */
    tempo_traversal_stats a, b;
    tempo_traversal_get_stats(L.m[0], &a);
    uint8_t forged[PACKET_HEADER_SIZE + 200];
    memset(forged, 0x42, sizeof forged);
    tempo_packet_header h = {connect_session_id(77), 500, NAT_TYPE_INTRO, false, false};
    packet_write(&h, forged, sizeof forged);
    forged[0] |= 0x08; /* the S bit: claims a seal */
    for (int k = 0; k < 10; k++) {
        forged[5] = (uint8_t)(k + 20);
        assert_int_equal(tempo_simnet_inject(L.net, &L.raddr, &L.addr[0], forged, sizeof forged), TEMPO_OK);
    }
    run(&L, 100 * MS);
    tempo_traversal_get_stats(L.m[0], &b);
    assert_int_equal(b.dropped_forged - a.dropped_forged, 10);
    tempo_path_info pi;
    tempo_traversal_get_path(L.m[0], 1, &pi);
    assert_true(tempo_address_equal(&pi.direct, &L.addr[1]));
    assert_true(tempo_address_equal(&pi.public_addr, &L.addr[1]));
    flows(&L, 0, 1);
    flows(&L, 1, 0);
    lab_close(&L);
}

static void test_config_checked(void **state)
{
    (void)state;
    tempo_traversal_config c;
    tempo_traversal_config_default(&c);
    tempo_traversal *t = (tempo_traversal *)&c;
    assert_int_equal(tempo_traversal_create(&c, 0, &t), TEMPO_E_INVALID_ARG); /* no transport */
    assert_null(t);
    assert_int_equal(tempo_traversal_create(NULL, 0, &t), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_traversal_update(NULL, 0), TEMPO_E_INVALID_ARG);
    tempo_traversal_destroy(NULL);
    assert_string_equal(tempo_path_name(TEMPO_PATH_DIRECT), "direct");
    assert_string_equal(tempo_path_name((tempo_path)99), "none");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_members_meet_and_go_direct),
        cmocka_unit_test(test_a_member_without_punching_plays_relayed),
        cmocka_unit_test(test_dead_path_falls_back_and_comes_back),
        cmocka_unit_test(test_a_burst_waits_in_the_socket),
        cmocka_unit_test(test_strangers_and_forged_probes_dropped),
        cmocka_unit_test(test_hostile_probes_move_exactly_their_counters),
        cmocka_unit_test(test_replayed_probe_is_not_amplified),
        cmocka_unit_test(test_relay_forwards_only_inside_a_match),
        cmocka_unit_test(test_sealed_introduction_cannot_be_forged),
        cmocka_unit_test(test_config_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
