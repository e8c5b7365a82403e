/* SPDX-License-Identifier: MIT */
/*
 * test_cs_many.c — a server of 256 clients, one slot each, over simnet:
 * every client connects, plays, and sees every other player's entity move
 * as the server moves it; the 257th client is denied (denied_full, the
 * client in TEMPO_CLIENT_DENIED) while the 256 keep playing without a
 * late input; a client that leaves frees its record and slot for a new
 * one.
 *
 * The game: each player's entity is an int32 moved by its input's first
 * byte (signed); every input is the constant +1 once connected, so a
 * client's prediction of the others (their last reported input) is exact
 * and its arena at a tick must equal the server's state of that tick.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tempo/tempo.h"

#define N 256
#define TICKS 200
#define TICK_US 16667u

typedef struct world {
    int32_t pos[N + 1];
} world;

typedef struct player {
    tempo_client *c;
    tempo_address addr;
    world w;
    int32_t frame;   /* the tick its arena is at */
    bool saw_all;    /* its last ADVANCE had every slot played by a client */
} player;

typedef struct match {
    tempo_simnet *net;
    tempo_server *s;
    tempo_address saddr;
    world sw;
    uint64_t hash[TICKS + 128]; /* the server's state after each tick */
    player p[N + 1];
    int n;                     /* clients made */
} match;

static uint64_t hash_of(const world *w)
{
    uint64_t h = 1469598103934665603ull;
    const uint8_t *b = (const uint8_t *)w;
    for (size_t i = 0; i < sizeof *w; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static void step(world *w, const tempo_request *r)
{
    for (int q = 0; q < N; q++)
        if (r->status[q] != TEMPO_INPUT_DISCONNECTED)
            w->pos[q] += (int8_t)r->inputs[(size_t)q * 4];
}

static void add_client(match *m, int i, uint8_t net)
{
    player *p = &m->p[i];
    memset(p, 0, sizeof *p);
    p->addr = tempo_address_ipv4(10, net, (uint8_t)(i >> 8), (uint8_t)i, 5000);
    tempo_transport t;
    assert_int_equal(tempo_simnet_add_node(m->net, &p->addr, &t), TEMPO_OK);
    tempo_client_config cc;
    tempo_client_config_default(&cc);
    cc.num_players = N;
    cc.arena = &p->w;
    cc.arena_size = sizeof p->w;
    cc.session_id = 9;
    cc.random_seed = 100 + (uint64_t)i;
    assert_int_equal(tempo_client_create(&cc, &t, &m->saddr, &p->c), TEMPO_OK);
    m->n = i + 1 > m->n ? i + 1 : m->n;
}

static void client_tick(player *p, uint64_t now)
{
    if (p->c == NULL)
        return;
    tempo_client_poll(p->c, now);
    int first = -1;
    if (tempo_client_local_slots(p->c, &first, NULL) == 1) {
        uint8_t in[4] = {1, 0, 0, 0};
        assert_int_equal(tempo_client_add_local_input(p->c, first, in, sizeof in), TEMPO_OK);
    }
    tempo_client_tick k;
    assert_int_equal(tempo_client_advance(p->c, &k), TEMPO_OK);
    for (int r = 0; r < k.num_requests; r++) {
        const tempo_request *q = &k.requests[r];
        if (q->kind != TEMPO_REQUEST_ADVANCE)
            continue;
        step(&p->w, q);
        bool all = true;
        for (int s = 0; s < N; s++)
            all &= q->status[s] != TEMPO_INPUT_DISCONNECTED;
        p->saw_all = all;
    }
    p->frame = k.frame;
    tempo_client_event ev;
    while (tempo_client_poll_event(p->c, &ev)) {
    }
}

/* One server tick and every client's, at tick f. */
static void tick(match *m, int f)
{
    uint64_t now = (uint64_t)f * TICK_US;
    tempo_simnet_set_time(m->net, now);
    assert_int_equal(tempo_server_poll(m->s, now), TEMPO_OK);
    tempo_server_event ev;
    while (tempo_server_poll_event(m->s, &ev)) {
    }
    tempo_server_tick t;
    assert_int_equal(tempo_server_advance(m->s, &t), TEMPO_OK);
    step(&m->sw, &t.requests[0]);
    m->hash[t.frame + 1] = hash_of(&m->sw);
    tempo_simnet_set_time(m->net, now + TICK_US / 2);
    for (int i = 0; i < m->n; i++)
        client_tick(&m->p[i], now + TICK_US / 2);
}

static void test_256_clients_play_and_the_257th_is_denied(void **state)
{
    (void)state;
    match *m = (match *)calloc(1, sizeof *m);
    assert_non_null(m);
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.seed = 5;
    nc.max_nodes = N + 4;
    nc.max_in_flight = 4 * N * 8;
    nc.default_link.latency_us = 10000;
    assert_int_equal(tempo_simnet_create(&nc, &m->net), TEMPO_OK);
    m->saddr = tempo_address_ipv4(10, 0, 0, 1, 4000);
    tempo_transport st;
    assert_int_equal(tempo_simnet_add_node(m->net, &m->saddr, &st), TEMPO_OK);
    tempo_server_config sc;
    tempo_server_config_default(&sc);
    sc.num_players = N;
    sc.max_clients = N;
    sc.arena = &m->sw;
    sc.arena_size = sizeof m->sw;
    sc.session_id = 9;
    sc.random_seed = 3;
    assert_int_equal(tempo_server_create(&sc, &st, &m->s), TEMPO_OK);
    for (int i = 0; i < N; i++)
        add_client(m, i, 1);
    int f = 0;
    for (; f < 60; f++)
        tick(m, f);
    tempo_server_stats ss;
    assert_int_equal(tempo_server_get_stats(m->s, &ss), TEMPO_OK);
    assert_int_equal(ss.clients, N);
    assert_int_equal(ss.denied_full, 0);
    /* each has one slot of its own */
    uint8_t owned[N] = {0};
    for (int i = 0; i < N; i++) {
        int first = -1, count = 0;
        assert_int_equal(tempo_client_local_slots(m->p[i].c, &first, &count), 1);
        assert_true(first >= 0 && first < N && count == 1);
        owned[first]++;
    }
    for (int q = 0; q < N; q++)
        assert_int_equal(owned[q], 1);

    /* one more than the server takes */
    add_client(m, N, 1);
    for (; f < 120; f++)
        tick(m, f);
    assert_int_equal(tempo_server_get_stats(m->s, &ss), TEMPO_OK);
    assert_int_equal(ss.clients, N);
    assert_true(ss.denied_full >= 1);
    tempo_client_stats cst;
    assert_int_equal(tempo_client_get_stats(m->p[N].c, &cst), TEMPO_OK);
    assert_int_equal(cst.state, TEMPO_CLIENT_DENIED);
    const uint64_t late_before = ss.late_inputs;
    for (; f < TICKS; f++)
        tick(m, f);
    assert_int_equal(tempo_server_get_stats(m->s, &ss), TEMPO_OK);
    assert_int_equal(ss.clients, N);
    assert_int_equal(ss.late_inputs, late_before); /* the honest ones kept flowing */
    assert_int_equal(ss.frame, TICKS);
    /* the server runs on alone to the ticks the clients predicted ahead to
     * (its inputs stay +1: the last ones, played as late) */
    for (int g = TICKS; g < TICKS + 63; g++) {
        tempo_server_tick t;
        assert_int_equal(tempo_server_advance(m->s, &t), TEMPO_OK);
        step(&m->sw, &t.requests[0]);
        m->hash[t.frame + 1] = hash_of(&m->sw);
    }
    for (int q = 0; q < N; q++)
        assert_true(m->sw.pos[q] > TICKS - 60); /* every entity moved nearly every tick */
    int compared = 0;
    for (int i = 0; i < N; i++) {
        player *p = &m->p[i];
        assert_true(p->saw_all);
        assert_int_equal(tempo_client_get_stats(p->c, &cst), TEMPO_OK);
        assert_int_equal(cst.state, TEMPO_CLIENT_CONNECTED);
        assert_true(cst.snapshots > 100);
        assert_true(cst.full_snapshots <= 4); /* those before its first ack came back */
        /* its arena, every other entity included, is the server's state */
        if (p->frame > TICKS - 30 && p->frame < TICKS + 64) {
            assert_true(hash_of(&p->w) == m->hash[p->frame]);
            compared++;
        }
        for (int q = 0; q < N; q++)
            assert_true(p->w.pos[q] > 0);
    }
    assert_int_equal(compared, N);

    /* one leaves: the one turned away gets its record and slot */
    int first0 = -1;
    tempo_client_local_slots(m->p[0].c, &first0, NULL);
    assert_int_equal(tempo_client_disconnect(m->p[0].c), TEMPO_OK);
    tempo_client_destroy(m->p[0].c);
    m->p[0].c = NULL;
    tempo_client_destroy(m->p[N].c);
    add_client(m, N, 2);
    for (f = TICKS + 63; f < TICKS + 63 + 30; f++)
        tick(m, f);
    assert_int_equal(tempo_server_get_stats(m->s, &ss), TEMPO_OK);
    assert_int_equal(ss.clients, N);
    assert_int_equal(ss.disconnects, 1);
    int first = -1;
    assert_int_equal(tempo_client_local_slots(m->p[N].c, &first, NULL), 1);
    assert_int_equal(first, first0);
    for (int i = 0; i <= N; i++)
        tempo_client_destroy(m->p[i].c);
    tempo_server_destroy(m->s);
    tempo_simnet_destroy(m->net);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_256_clients_play_and_the_257th_is_denied),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
