/* SPDX-License-Identifier: MIT */
/*
 * test_cs_events.c — the server's and the client's event queues: events
 * come out in the order they happened, the server's queue holds the newest
 * 256 and the client's the newest 64 when nobody polls (the oldest go).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cs/client_impl.h"
#include "tempo/simnet.h"
#include "tempo/tempo.h"

#define CYCLES 130 /* two events each: more than the server's 256 */
#define STEP_US 1000u

typedef struct rig {
    tempo_simnet *net;
    tempo_server *server;
    tempo_address saddr;
    uint64_t now;
} rig;

static void rig_step(rig *g, tempo_client *c)
{
    g->now += STEP_US;
    tempo_simnet_set_time(g->net, g->now);
    if (c != NULL)
        assert_int_equal(tempo_client_poll(c, g->now), TEMPO_OK);
    assert_int_equal(tempo_server_poll(g->server, g->now), TEMPO_OK);
}

/* A new client from address number `node` connects; returns it. */
static tempo_client *connect_one(rig *g, int node)
{
    tempo_address a = tempo_address_ipv4(10, 0, (uint8_t)(node >> 8), (uint8_t)node, 2000);
    tempo_transport t;
    assert_int_equal(tempo_simnet_add_node(g->net, &a, &t), TEMPO_OK);
    tempo_client_config cc;
    tempo_client_config_default(&cc);
    cc.num_players = 1;
    cc.log_level = TEMPO_LOG_ERROR;
    tempo_client *c;
    assert_int_equal(tempo_client_create(&cc, &t, &g->saddr, &c), TEMPO_OK);
    tempo_client_stats cs;
    for (int i = 0; i < 200; i++) {
        rig_step(g, c);
        tempo_client_get_stats(c, &cs);
        if (cs.state == TEMPO_CLIENT_CONNECTED)
            return c;
    }
    fail_msg("client %d did not connect", node);
    return NULL;
}

static void the_server_keeps_its_newest_256_events_in_order(void **state)
{
    (void)state;
    rig g;
    memset(&g, 0, sizeof g);
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.seed = 11;
    nc.max_nodes = CYCLES + 1;
    assert_int_equal(tempo_simnet_create(&nc, &g.net), TEMPO_OK);
    g.saddr = tempo_address_ipv4(10, 0, 0, 1, 1000);
    tempo_transport st;
    assert_int_equal(tempo_simnet_add_node(g.net, &g.saddr, &st), TEMPO_OK);
    tempo_server_config sc;
    tempo_server_config_default(&sc);
    sc.num_players = 1;
    sc.max_clients = 1;
    sc.disconnect_timeout_ms = 100;
    sc.log_level = TEMPO_LOG_ERROR;
    assert_int_equal(tempo_server_create(&sc, &st, &g.server), TEMPO_OK);
    /* what happened, in order: each cycle a client comes, then is kicked
     * or (every third) falls silent */
    bool timed_out[CYCLES];
    for (int k = 0; k < CYCLES; k++) {
        tempo_client *c = connect_one(&g, 2 + k);
        timed_out[k] = k % 3 == 2;
        if (!timed_out[k]) {
            assert_int_equal(tempo_server_kick(g.server, 0), TEMPO_OK);
            tempo_client_event ev;
            for (int i = 0; i < 20; i++)
                rig_step(&g, c); /* the goodbyes arrive */
            assert_int_equal(tempo_client_poll_event(c, &ev), 1);
            assert_int_equal(ev.kind, TEMPO_CLIENT_EVENT_CONNECTED);
            assert_int_equal(ev.slots, 1u);
            assert_int_equal(tempo_client_poll_event(c, &ev), 1);
            assert_int_equal(ev.kind, TEMPO_CLIENT_EVENT_DISCONNECTED);
            assert_int_equal(tempo_client_poll_event(c, &ev), 0);
        }
        tempo_client_destroy(c);
        tempo_server_stats ss;
        for (int i = 0; i < 300; i++) {
            tempo_server_get_stats(g.server, &ss);
            if (ss.clients == 0)
                break;
            rig_step(&g, NULL);
        }
        assert_int_equal(ss.clients, 0);
    }
    tempo_server_stats ss;
    tempo_server_get_stats(g.server, &ss);
    assert_int_equal(ss.connects, CYCLES);
    assert_int_equal(ss.timeouts, CYCLES / 3);
    /* 2 * CYCLES events, 256 kept: the first 2 * CYCLES - 256 went */
    tempo_server_event ev;
    int n = 0;
    for (int e = 2 * CYCLES - 256; e < 2 * CYCLES; e++, n++) {
        assert_int_equal(tempo_server_poll_event(g.server, &ev), 1);
        const int k = e / 2;
        if (e % 2 == 0) {
            assert_int_equal(ev.kind, TEMPO_SERVER_CLIENT_CONNECTED);
            assert_false(ev.timed_out);
        } else {
            assert_int_equal(ev.kind, TEMPO_SERVER_CLIENT_DISCONNECTED);
            assert_int_equal(ev.timed_out, timed_out[k]);
        }
        assert_int_equal(ev.client, 0);
        assert_int_equal(ev.slots, 1u);
    }
    assert_int_equal(n, 256);
    assert_int_equal(tempo_server_poll_event(g.server, &ev), 0);
    tempo_server_destroy(g.server);
    tempo_simnet_destroy(g.net);
}

/* The client's own events are few in a connection's life, so its queue's
 * bound is reached through the function every client event goes through. */
static void the_client_keeps_its_newest_64_events_in_order(void **state)
{
    (void)state;
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    tempo_simnet *net;
    assert_int_equal(tempo_simnet_create(&nc, &net), TEMPO_OK);
    tempo_address me = tempo_address_ipv4(10, 0, 0, 2, 2000);
    tempo_address server = tempo_address_ipv4(10, 0, 0, 1, 1000);
    tempo_transport t;
    assert_int_equal(tempo_simnet_add_node(net, &me, &t), TEMPO_OK);
    tempo_client_config cc;
    tempo_client_config_default(&cc);
    cc.log_level = TEMPO_LOG_ERROR;
    tempo_client *c;
    assert_int_equal(tempo_client_create(&cc, &t, &server, &c), TEMPO_OK);
    for (int i = 0; i < 70; i++) {
        tempo_client_event e = {TEMPO_CLIENT_EVENT_SNAP, 0, i, -1, 0};
        cs_client_push_event(c, &e);
    }
    tempo_client_event ev;
    for (int i = 6; i < 70; i++) {
        assert_int_equal(tempo_client_poll_event(c, &ev), 1);
        assert_int_equal(ev.kind, TEMPO_CLIENT_EVENT_SNAP);
        assert_int_equal(ev.ticks, i);
    }
    assert_int_equal(tempo_client_poll_event(c, &ev), 0);
    tempo_client_destroy(c);
    tempo_simnet_destroy(net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_server_keeps_its_newest_256_events_in_order),
        cmocka_unit_test(the_client_keeps_its_newest_64_events_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
