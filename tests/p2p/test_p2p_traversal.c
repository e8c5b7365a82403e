/* SPDX-License-Identifier: MIT */
/*
 * test_p2p_traversal.c — three p2p sessions over the traversal transport,
 * introduced by a real relay on the simulated network, in virtual time:
 * the pairs that punch play directly, a member that does not punch plays
 * with both others through the relay, every machine confirms the same
 * frames with the same states, and each session's endpoint stats say per
 * peer which path it uses, the relayed pairs' round trips visibly longer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "tempo/relay.h"
#include "tempo/simnet.h"
#include "tempo/traversal.h"
#include "toy.h"

#define MS 1000u
#define SEC 1000000u
#define N 3
#define ISIZE 2
#define FRAMES 600
#define TICK_US 16667u

static toy_driver drivers[N];

static void link_both(tempo_simnet *net, const tempo_address *a, const tempo_address *b, uint32_t ms)
{
    tempo_link_params p;
    memset(&p, 0, sizeof p);
    p.latency_us = ms * MS;
    assert_int_equal(tempo_simnet_set_link(net, a, b, &p), TEMPO_OK);
    assert_int_equal(tempo_simnet_set_link(net, b, a, &p), TEMPO_OK);
}

static void test_three_sessions_direct_and_relayed(void **state)
{
    (void)state;
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    tempo_simnet *net;
    assert_int_equal(tempo_simnet_create(&nc, &net), TEMPO_OK);
    tempo_address raddr = tempo_address_ipv4(203, 0, 113, 1, 40000), addr[N];
    tempo_transport rt, ut[N];
    assert_int_equal(tempo_simnet_add_node(net, &raddr, &rt), TEMPO_OK);
    tempo_relay_config rc;
    tempo_relay_config_default(&rc);
    memset(rc.cookie_key, 0x77, sizeof rc.cookie_key);
    tempo_relay *relay;
    assert_int_equal(tempo_relay_create(&rc, &rt, &relay), TEMPO_OK);
    for (int i = 0; i < N; i++) {
        addr[i] = tempo_address_ipv4(198, 51, 100, (uint8_t)(20 + i), 7000);
        assert_int_equal(tempo_simnet_add_node(net, &addr[i], &ut[i]), TEMPO_OK);
    }
    /* members are 5 ms from each other and 20 ms from the relay */
    for (int i = 0; i < N; i++) {
        link_both(net, &addr[i], &raddr, 20);
        for (int j = i + 1; j < N; j++)
            link_both(net, &addr[i], &addr[j], 5);
    }
    tempo_traversal *t[N];
    tempo_session *s[N];
    uint64_t now = SEC;
    for (int i = 0; i < N; i++) {
        tempo_traversal_config c;
        tempo_traversal_config_default(&c);
        c.transport = ut[i];
        c.relay = raddr;
        c.nonce = 500u + (uint64_t)i;
        c.direct = i != 2; /* member 2 does not punch */
        tempo_relay_join j = {21, (uint8_t)(1u << i), N, ISIZE, 60, 0, 0, true};
        assert_int_equal(tempo_relay_join_write(&j, c.join), TEMPO_OK);
        assert_int_equal(tempo_traversal_create(&c, now, &t[i]), TEMPO_OK);
    }
    /* the introduction */
    bool ready = false;
    for (int k = 0; k < 2000 && !ready; k++) {
        now += MS;
        tempo_simnet_set_time(net, now);
        tempo_relay_update(relay, now, now / SEC);
        ready = true;
        for (int i = 0; i < N; i++) {
            tempo_traversal_update(t[i], now);
            tempo_traversal_status st;
            tempo_traversal_get_status(t[i], &st);
            ready = ready && st.state == TEMPO_TRAVERSAL_READY;
        }
    }
    assert_true(ready);
    for (int i = 0; i < N; i++) {
        tempo_config cfg;
        tempo_config_default(&cfg);
        cfg.num_players = N;
        cfg.input_size = ISIZE;
        cfg.random_seed = 40u + (uint64_t)i;
        tempo_transport tr = tempo_traversal_transport(t[i]);
        assert_int_equal(tempo_session_create_p2p(&cfg, &tr, &s[i]), TEMPO_OK);
        assert_int_equal(tempo_session_set_traversal(s[i], t[i]), TEMPO_OK);
        for (int p = 0; p < N; p++) {
            tempo_address a;
            if (p == i) {
                assert_int_equal(tempo_session_add_local_player(s[i], p), TEMPO_OK);
            } else {
                assert_int_equal(tempo_traversal_peer_address(t[i], p, &a), TEMPO_OK);
                assert_int_equal(tempo_session_add_remote_player(s[i], p, &a), TEMPO_OK);
            }
        }
        toy_driver_init(&drivers[i], N, ISIZE);
    }
    /* the match */
    for (int tick = 0; tick < 60 * 30; tick++) {
        now += TICK_US;
        tempo_simnet_set_time(net, now);
        tempo_relay_update(relay, now, now / SEC);
        bool done = true;
        for (int i = 0; i < N; i++) {
            tempo_traversal_update(t[i], now);
            tempo_session_poll(s[i], now);
            if (!tempo_session_will_stall(s[i])) {
                uint8_t in[ISIZE];
                toy_true_input(9, i, drivers[i].advanced_max, in, ISIZE);
                tempo_session_add_local_input(s[i], i, in, ISIZE);
            }
            tempo_tick tk;
            tempo_session_advance(s[i], &tk);
            toy_driver_run(&drivers[i], s[i]);
            done = done && tempo_session_confirmed_frame(s[i]) >= FRAMES;
        }
        if (done)
            break;
    }
    for (int i = 0; i < N; i++) {
        assert_true(tempo_session_confirmed_frame(s[i]) >= FRAMES);
        assert_int_equal(drivers[i].errors, 0);
    }
    for (int f = 1; f < FRAMES; f++)
        for (int i = 1; i < N; i++)
            assert_true(drivers[i].hash_after[f] == drivers[0].hash_after[f]);
    /* each session says which path each peer takes, and what it costs */
    tempo_endpoint_stats e01, e02, e21;
    assert_int_equal(tempo_session_get_endpoint_stats(s[0], 1, &e01), TEMPO_OK);
    assert_int_equal(tempo_session_get_endpoint_stats(s[0], 2, &e02), TEMPO_OK);
    assert_int_equal(tempo_session_get_endpoint_stats(s[2], 1, &e21), TEMPO_OK);
    assert_int_equal(e01.path, TEMPO_PATH_DIRECT);
    assert_int_equal(e02.path, TEMPO_PATH_RELAYED);
    assert_int_equal(e21.path, TEMPO_PATH_RELAYED);
    assert_true(e01.rtt_direct_ms > 0.0 && e01.rtt_relay_ms > e01.rtt_direct_ms + 40.0);
    /* the session's own round trip follows the path: 10 ms of links
     * against 80, plus the ticks both sides answer on */
    print_message("rtt direct pair %.1f ms, relayed pair %.1f ms\n", e01.rtt_ms, e02.rtt_ms);
    assert_true(e02.rtt_ms > e01.rtt_ms + 50.0);
    /* forgotten: no path */
    assert_int_equal(tempo_session_set_traversal(s[0], NULL), TEMPO_OK);
    assert_int_equal(tempo_session_get_endpoint_stats(s[0], 1, &e01), TEMPO_OK);
    assert_int_equal(e01.path, TEMPO_PATH_NONE);
    assert_int_equal(tempo_session_set_traversal(NULL, t[0]), TEMPO_E_INVALID_ARG);
    for (int i = 0; i < N; i++) {
        tempo_session_destroy(s[i]);
        tempo_traversal_destroy(t[i]);
    }
    tempo_relay_destroy(relay);
    tempo_simnet_destroy(net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_sessions_direct_and_relayed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
