/* SPDX-License-Identifier: MIT */
/*
 * test_send_rounds.c — every role ends its round of sends with the
 * transport's flush (tempo_transport.flush), so a batching transport holds
 * nothing once a call returns; and over UDP with batch_send a p2p match
 * makes about one send system call per tick per socket.
 *
 * The roles run over simnet behind a transport that counts what was sent
 * since its last flush: after every public call of a role it must be 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "relay_rig.h"
#include "tempo/tempo.h"
#include "tempo/udp.h"

#define TICK H_TICK_US

/* A transport that forwards to simnet's and counts the sends its flush
 * has not ended yet. */
typedef struct rounds {
    tempo_transport inner;
    int unflushed; /* sends since the last flush */
    int sends, flushes;
} rounds;

static int rounds_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    rounds *r = ctx;
    r->unflushed++;
    r->sends++;
    return r->inner.send(r->inner.ctx, to, data, size);
}

static int rounds_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    rounds *r = ctx;
    return r->inner.recv(r->inner.ctx, from, buf, capacity);
}

static int rounds_flush(void *ctx)
{
    rounds *r = ctx;
    int n = r->unflushed;
    r->unflushed = 0;
    r->flushes++;
    return n;
}

static tempo_transport rounds_wrap(rounds *r, tempo_simnet *net, tempo_address addr)
{
    memset(r, 0, sizeof *r);
    assert_int_equal(tempo_simnet_add_node(net, &addr, &r->inner), TEMPO_OK);
    tempo_transport t = {rounds_send, rounds_recv, r, rounds_flush};
    return t;
}

static tempo_simnet *perfect_net(void)
{
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.seed = 3;
    nc.default_link.latency_us = 5000;
    tempo_simnet *net;
    assert_int_equal(tempo_simnet_create(&nc, &net), TEMPO_OK);
    return net;
}

/* Nothing sent may wait past the end of the call that sent it. */
#define ENDED(r) assert_int_equal((r)->unflushed, 0)

static void session_tick(tempo_session *s, rounds *r, uint64_t now, int player, int32_t k)
{
    assert_int_equal(tempo_session_poll(s, now), TEMPO_OK);
    ENDED(r);
    if (player >= 0) {
        uint8_t in[4] = {(uint8_t)(k / 7), 1, 2, 3};
        assert_int_equal(tempo_session_add_local_input(s, player, in, sizeof in), TEMPO_OK);
    }
    tempo_tick t;
    tempo_result res = tempo_session_advance(s, &t);
    assert_true(res == TEMPO_OK || res == TEMPO_E_STATE);
    ENDED(r);
    const tempo_request *q;
    while (tempo_session_next(s, &q) > 0)
        if (q->kind == TEMPO_REQUEST_SAVE)
            *q->checksum = (uint64_t)q->frame;
    tempo_event ev;
    while (tempo_session_poll_event(s, &ev) > 0) {
    }
}

static tempo_config p2p_cfg(int players)
{
    tempo_config c = harness_cfg(players);
    c.session_id = 42;
    return c;
}

/* Two peers and a spectator; then a peer drops the other and leaves. */
static void test_p2p_rounds_end_with_flush(void **state)
{
    (void)state;
    tempo_simnet *net = perfect_net();
    rounds r[3];
    tempo_address a[3];
    tempo_transport t[3];
    for (int i = 0; i < 3; i++) {
        a[i] = tempo_address_ipv4(10, 0, 0, (uint8_t)(i + 1), 7000);
        t[i] = rounds_wrap(&r[i], net, a[i]);
    }
    tempo_session *s[3];
    for (int i = 0; i < 2; i++) {
        tempo_config c = p2p_cfg(2);
        c.random_seed = (uint64_t)i + 1;
        assert_int_equal(tempo_session_create_p2p(&c, &t[i], &s[i]), TEMPO_OK);
        assert_int_equal(tempo_session_add_local_player(s[i], i), TEMPO_OK);
        assert_int_equal(tempo_session_add_remote_player(s[i], 1 - i, &a[1 - i]), TEMPO_OK);
    }
    assert_int_equal(tempo_session_add_spectator(s[0], &a[2]), TEMPO_OK);
    tempo_config sc = p2p_cfg(2);
    sc.random_seed = 3;
    assert_int_equal(tempo_session_create_spectator(&sc, &t[2], &a[0], &s[2]), TEMPO_OK);
    for (int32_t k = 0; k < 240; k++) {
        uint64_t now = (uint64_t)k * TICK;
        tempo_simnet_set_time(net, now);
        for (int i = 0; i < 3; i++)
            session_tick(s[i], &r[i], now + (uint64_t)i * 3000u, i < 2 ? i : -1, k);
    }
    assert_true(tempo_session_frame(s[0]) > 150);
    assert_true(tempo_session_frame(s[2]) > 60); /* the spectator watched */
    assert_int_equal(tempo_session_disconnect_player(s[1], 0), TEMPO_OK);
    ENDED(&r[1]);
    assert_int_equal(tempo_session_leave(s[0]), TEMPO_OK);
    ENDED(&r[0]);
    for (int i = 0; i < 3; i++) {
        assert_true(r[i].sends > 200);
        assert_true(r[i].flushes > 0);
        tempo_session_destroy(s[i]);
    }
    tempo_simnet_destroy(net);
}

/* A server and two clients; then the server kicks one and the other says
 * goodbye. */
static void test_cs_rounds_end_with_flush(void **state)
{
    (void)state;
    tempo_simnet *net = perfect_net();
    rounds sr, cr[2];
    tempo_address sa = tempo_address_ipv4(10, 0, 0, 1, 1);
    tempo_transport st = rounds_wrap(&sr, net, sa);
    static uint8_t arena[64], carena[2][64];
    tempo_server_config sc;
    tempo_server_config_default(&sc);
    sc.num_players = 2;
    sc.arena = arena;
    sc.arena_size = sizeof arena;
    tempo_server *srv;
    assert_int_equal(tempo_server_create(&sc, &st, &srv), TEMPO_OK);
    tempo_client *c[2];
    for (int i = 0; i < 2; i++) {
        tempo_transport ct = rounds_wrap(&cr[i], net, tempo_address_ipv4(10, 0, 1, (uint8_t)(i + 1), 2));
        tempo_client_config cc;
        tempo_client_config_default(&cc);
        cc.num_players = 2;
        cc.arena = carena[i];
        cc.arena_size = sizeof carena[i];
        cc.random_seed = 9 + (uint64_t)i;
        assert_int_equal(tempo_client_create(&cc, &ct, &sa, &c[i]), TEMPO_OK);
    }
    for (int f = 0; f < 240; f++) {
        uint64_t now = (uint64_t)f * TICK;
        tempo_simnet_set_time(net, now);
        assert_int_equal(tempo_server_poll(srv, now), TEMPO_OK);
        ENDED(&sr);
        tempo_server_tick t;
        assert_int_equal(tempo_server_advance(srv, &t), TEMPO_OK);
        ENDED(&sr);
        arena[f % 8]++;
        for (int i = 0; i < 2; i++) {
            assert_int_equal(tempo_client_poll(c[i], now + TICK / 2), TEMPO_OK);
            ENDED(&cr[i]);
            uint64_t mine = tempo_client_local_players(c[i]);
            uint8_t in[4] = {(uint8_t)f, 0, 0, 0};
            for (int p = 0; p < 2; p++)
                if (mine >> p & 1u)
                    assert_int_equal(tempo_client_add_local_input(c[i], p, in, 4), TEMPO_OK);
            tempo_client_tick k;
            assert_int_equal(tempo_client_advance(c[i], &k), TEMPO_OK);
            ENDED(&cr[i]);
        }
    }
    tempo_server_stats ss;
    assert_int_equal(tempo_server_get_stats(srv, &ss), TEMPO_OK);
    assert_int_equal(ss.clients, 2);
    assert_int_equal(tempo_server_kick(srv, 1), TEMPO_OK);
    ENDED(&sr);
    assert_int_equal(tempo_client_disconnect(c[0]), TEMPO_OK);
    ENDED(&cr[0]);
    assert_true(sr.sends > 400 && cr[0].sends > 200 && cr[1].sends > 200);
    for (int i = 0; i < 2; i++)
        tempo_client_destroy(c[i]);
    tempo_server_destroy(srv);
    tempo_simnet_destroy(net);
}

/* Two lockstep machines play turns; destroying one says goodbye. */
static void test_lockstep_rounds_end_with_flush(void **state)
{
    (void)state;
    tempo_simnet *net = perfect_net();
    rounds r[2];
    tempo_address a[2];
    tempo_transport t[2];
    tempo_lockstep *ls[2];
    for (int i = 0; i < 2; i++) {
        a[i] = tempo_address_ipv4(10, 0, 0, (uint8_t)(i + 1), 7000);
        t[i] = rounds_wrap(&r[i], net, a[i]);
    }
    for (int i = 0; i < 2; i++) {
        tempo_lockstep_config c;
        tempo_lockstep_config_default(&c);
        c.local_player = i;
        c.session_id = 5;
        c.random_seed = (uint64_t)i + 1;
        assert_int_equal(tempo_lockstep_create(&c, &t[i], &ls[i]), TEMPO_OK);
        assert_int_equal(tempo_lockstep_add_peer(ls[i], 1 - i, &a[1 - i]), TEMPO_OK);
    }
    int turns = 0;
    for (int f = 0; f < 600; f++) {
        uint64_t now = (uint64_t)f * TICK;
        tempo_simnet_set_time(net, now);
        for (int i = 0; i < 2; i++) {
            assert_int_equal(tempo_lockstep_poll(ls[i], now), TEMPO_OK);
            ENDED(&r[i]);
            uint8_t cmd[2] = {(uint8_t)i, (uint8_t)f};
            (void)tempo_lockstep_add_command(ls[i], cmd, sizeof cmd, now);
            ENDED(&r[i]);
            tempo_lockstep_turn turn;
            while (tempo_lockstep_next_turn(ls[i], now, &turn) == 1) {
                ENDED(&r[i]);
                assert_int_equal(tempo_lockstep_turn_done(ls[i], turn.turn, 7, 10), TEMPO_OK);
                ENDED(&r[i]);
                turns += i == 0;
            }
            ENDED(&r[i]);
        }
    }
    assert_true(turns > 20);
    tempo_lockstep_destroy(ls[0]);
    ENDED(&r[0]); /* the goodbye left before the object was freed */
    assert_true(r[0].sends > 50 && r[1].sends > 50);
    tempo_lockstep_destroy(ls[1]);
    tempo_simnet_destroy(net);
}

/* A relay and two relay members. */
static void test_relay_rounds_end_with_flush(void **state)
{
    (void)state;
    tempo_simnet *net = perfect_net();
    rounds rr, r[2];
    tempo_address ra = tempo_address_ipv4(10, 0, 9, 1, 9000);
    tempo_transport rt = rounds_wrap(&rr, net, ra);
    tempo_relay_config rc = relay_cfg();
    tempo_relay *relay;
    assert_int_equal(tempo_relay_create(&rc, &rt, &relay), TEMPO_OK);
    tempo_session *s[2];
    for (int i = 0; i < 2; i++) {
        tempo_transport t = rounds_wrap(&r[i], net, tempo_address_ipv4(10, 0, 0, (uint8_t)(i + 1), 7000));
        tempo_config c = p2p_cfg(2);
        c.random_seed = 20 + (uint64_t)i;
        assert_int_equal(tempo_session_create_relay_member(&c, &t, &ra, NULL, &s[i]), TEMPO_OK);
        assert_int_equal(tempo_session_add_local_player(s[i], i), TEMPO_OK);
    }
    for (int32_t k = 0; k < 240; k++) {
        uint64_t now = (uint64_t)k * TICK;
        tempo_simnet_set_time(net, now);
        assert_int_equal(tempo_relay_update(relay, now, 1000), TEMPO_OK);
        ENDED(&rr);
        for (int i = 0; i < 2; i++)
            session_tick(s[i], &r[i], now + (uint64_t)i * 3000u, i, k);
    }
    assert_true(tempo_session_frame(s[0]) > 150);
    assert_true(rr.sends > 200);
    for (int i = 0; i < 2; i++)
        tempo_session_destroy(s[i]);
    tempo_relay_destroy(relay);
    tempo_simnet_destroy(net);
}

/* Three p2p peers over UDP on loopback with batch_send: each tick's
 * datagrams to the two others leave in one system call, and the match
 * runs as it does with a sendto per datagram. */
static void test_udp_batched_match_one_send_call_per_tick(void **state)
{
    (void)state;
    enum { N = 3, TICKS = 300, MEASURED = 100 };
    tempo_udp *u[N];
    tempo_address a[N];
    tempo_transport t[N];
    tempo_session *s[N];
    for (int i = 0; i < N; i++) {
        tempo_address any;
        assert_int_equal(tempo_address_parse(&any, "127.0.0.1:0"), TEMPO_OK);
        tempo_udp_options o = {.batch_send = true};
        assert_int_equal(tempo_udp_open_ex(&any, &o, NULL, &u[i]), TEMPO_OK);
        assert_int_equal(tempo_udp_local_address(u[i], &a[i]), TEMPO_OK);
        t[i] = tempo_udp_transport(u[i]);
    }
    for (int i = 0; i < N; i++) {
        tempo_config c = p2p_cfg(N);
        c.random_seed = (uint64_t)i + 1;
        assert_int_equal(tempo_session_create_p2p(&c, &t[i], &s[i]), TEMPO_OK);
        for (int p = 0; p < N; p++)
            assert_int_equal(p == i ? tempo_session_add_local_player(s[i], p)
                                    : tempo_session_add_remote_player(s[i], p, &a[p]),
                             TEMPO_OK);
    }
    tempo_udp_stats before[N];
    int32_t frame_before = 0;
    for (int32_t k = 0; k < TICKS; k++) {
        if (k == TICKS - MEASURED) {
            frame_before = tempo_session_frame(s[0]);
            for (int i = 0; i < N; i++)
                tempo_udp_get_stats(u[i], &before[i]);
        }
        for (int i = 0; i < N; i++) {
            uint64_t now = (uint64_t)k * TICK + (uint64_t)i * 2000u;
            assert_int_equal(tempo_session_poll(s[i], now), TEMPO_OK);
            uint8_t in[4] = {(uint8_t)(k / 9), 0, 0, (uint8_t)i};
            assert_int_equal(tempo_session_add_local_input(s[i], i, in, sizeof in), TEMPO_OK);
            tempo_tick tk;
            assert_int_equal(tempo_session_advance(s[i], &tk), TEMPO_OK);
            const tempo_request *q;
            while (tempo_session_next(s[i], &q) > 0)
                if (q->kind == TEMPO_REQUEST_SAVE)
                    *q->checksum = (uint64_t)q->frame;
        }
    }
    int32_t frames = tempo_session_frame(s[0]) - frame_before;
    print_message("%d frames in the last %d ticks\n", frames, MEASURED);
    assert_true(frames >= MEASURED - 5); /* the match ran at full speed */
    for (int i = 0; i < N; i++) {
        tempo_udp_stats st;
        tempo_udp_get_stats(u[i], &st);
        uint64_t calls = st.send_calls - before[i].send_calls, sent = st.sent - before[i].sent;
        print_message("socket %d: %llu datagrams in %llu send calls\n", i,
                      (unsigned long long)sent, (unsigned long long)calls);
        assert_true(sent >= 2u * (unsigned)frames); /* an INPUT to each other peer a tick */
#ifdef __linux__
        assert_true(calls <= (uint64_t)frames * 13u / 10u);
#endif
        assert_int_equal(st.send_errors, 0);
    }
    for (int i = 0; i < N; i++) {
        tempo_session_destroy(s[i]);
        tempo_udp_close(u[i]);
    }
}

/* tempo_transport_flush: NULL is a caller's mistake; no flush is 0. */
static void test_transport_flush_arguments(void **state)
{
    (void)state;
    assert_int_equal(tempo_transport_flush(NULL), TEMPO_E_INVALID_ARG);
    tempo_transport plain;
    memset(&plain, 0, sizeof plain);
    assert_int_equal(tempo_transport_flush(&plain), 0);
    rounds r;
    memset(&r, 0, sizeof r);
    r.unflushed = 3;
    tempo_transport t = {rounds_send, rounds_recv, &r, rounds_flush};
    assert_int_equal(tempo_transport_flush(&t), 3);
    assert_int_equal(r.unflushed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p2p_rounds_end_with_flush),
        cmocka_unit_test(test_cs_rounds_end_with_flush),
        cmocka_unit_test(test_lockstep_rounds_end_with_flush),
        cmocka_unit_test(test_relay_rounds_end_with_flush),
        cmocka_unit_test(test_udp_batched_match_one_send_call_per_tick),
        cmocka_unit_test(test_transport_flush_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
