/* SPDX-License-Identifier: MIT */
/*
 * test_cs_api.c — the server's and the client's public functions refuse
 * what their headers say they refuse, with the documented codes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tempo/tempo.h"

static int no_send(void *ctx, const tempo_address *to, const uint8_t *d, size_t n)
{
    (void)ctx, (void)to, (void)d, (void)n;
    return 0;
}

static int no_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t cap)
{
    (void)ctx, (void)from, (void)buf, (void)cap;
    return 0;
}

static const tempo_transport quiet = {no_send, no_recv, NULL, NULL};

static void test_server_config_out_of_range_is_refused(void **state)
{
    (void)state;
    tempo_server *s = (tempo_server *)&s;
    tempo_server_config c;
    tempo_server_config_default(&c);
    assert_int_equal(tempo_server_create(NULL, &quiet, &s), TEMPO_E_INVALID_ARG);
    assert_null(s);
    c.max_clients = 3; /* more than num_players (2) */
    assert_int_equal(tempo_server_create(&c, &quiet, &s), TEMPO_E_INVALID_ARG);
    tempo_server_config_default(&c);
    c.snapshot_history = 65;
    assert_int_equal(tempo_server_create(&c, &quiet, &s), TEMPO_E_INVALID_ARG);
    tempo_server_config_default(&c);
    c.input_window = 129;
    assert_int_equal(tempo_server_create(&c, &quiet, &s), TEMPO_E_INVALID_ARG);
    tempo_server_config_default(&c);
    c.max_state_size = TEMPO_CS_MAX_STATE + 1;
    assert_int_equal(tempo_server_create(&c, &quiet, &s), TEMPO_E_INVALID_ARG);
    tempo_server_config_default(&c);
    c.disconnect_timeout_ms = 99;
    assert_int_equal(tempo_server_create(&c, &quiet, &s), TEMPO_E_INVALID_ARG);
    /* the client limit: 1..TEMPO_CS_MAX_CLIENTS, at most num_players */
    tempo_server_config_default(&c);
    c.num_players = TEMPO_CS_MAX_PLAYERS + 1;
    c.max_clients = 2;
    assert_int_equal(tempo_server_create(&c, &quiet, &s), TEMPO_E_INVALID_ARG);
    c.num_players = TEMPO_CS_MAX_PLAYERS;
    c.max_clients = TEMPO_CS_MAX_CLIENTS + 1;
    assert_int_equal(tempo_server_create(&c, &quiet, &s), TEMPO_E_INVALID_ARG);
    c.max_clients = 0;
    assert_int_equal(tempo_server_create(&c, &quiet, &s), TEMPO_E_INVALID_ARG);
    c.num_players = 256;
    c.max_clients = 257;
    assert_int_equal(tempo_server_create(&c, &quiet, &s), TEMPO_E_INVALID_ARG);
    assert_null(s);
    c.num_players = TEMPO_CS_MAX_PLAYERS; /* the largest server there is */
    c.max_clients = TEMPO_CS_MAX_CLIENTS;
    assert_int_equal(tempo_server_create(&c, &quiet, &s), TEMPO_OK);
    tempo_server_client_stats cs;
    assert_int_equal(tempo_server_get_client_stats(s, TEMPO_CS_MAX_CLIENTS - 1, &cs), TEMPO_OK);
    assert_false(cs.connected);
    assert_int_equal(tempo_server_get_client_stats(s, TEMPO_CS_MAX_CLIENTS, &cs), TEMPO_E_PLAYER);
    tempo_server_destroy(s);
}

static void test_server_calls_refuse_what_they_document(void **state)
{
    (void)state;
    tempo_server_config c;
    tempo_server_config_default(&c);
    tempo_server *s;
    assert_int_equal(tempo_server_create(&c, &quiet, &s), TEMPO_OK);
    uint8_t st[8] = {0};
    assert_int_equal(tempo_server_submit_state(s, 0, st, sizeof st), TEMPO_E_FRAME);
    tempo_server_tick t;
    assert_int_equal(tempo_server_poll(s, 0), TEMPO_OK);
    assert_int_equal(tempo_server_advance(s, &t), TEMPO_OK);
    assert_int_equal(t.frame, 0);
    assert_true(t.snapshot_due);
    assert_int_equal(t.requests[0].status[0], TEMPO_INPUT_DISCONNECTED);
    assert_int_equal(tempo_server_submit_state(s, 1, st, sizeof st), TEMPO_E_FRAME);
    assert_int_equal(tempo_server_submit_state(s, 0, st, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_server_submit_state(s, 0, st, 4097), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_server_submit_state(s, 0, st, sizeof st), TEMPO_OK);
    assert_int_equal(tempo_server_kick(s, 0), TEMPO_E_PLAYER);
    tempo_server_client_stats cs;
    assert_int_equal(tempo_server_get_client_stats(s, 2, &cs), TEMPO_E_PLAYER);
    assert_int_equal(tempo_server_get_client_stats(s, 1, &cs), TEMPO_OK);
    assert_false(cs.connected);
    tempo_server_stats ss;
    assert_int_equal(tempo_server_get_stats(s, &ss), TEMPO_OK);
    assert_int_equal(ss.frame, 1);
    assert_true(ss.unauthenticated);
    assert_int_equal(tempo_server_poll(NULL, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_server_advance(s, NULL), TEMPO_E_INVALID_ARG);
    tempo_server_destroy(s);
    tempo_server_destroy(NULL);

    uint8_t arena[16];
    tempo_server_config_default(&c);
    c.arena = arena;
    c.arena_size = sizeof arena;
    assert_int_equal(tempo_server_create(&c, &quiet, &s), TEMPO_OK);
    assert_int_equal(tempo_server_advance(s, &t), TEMPO_OK);
    assert_int_equal(tempo_server_submit_state(s, 0, st, sizeof st), TEMPO_E_STATE);
    tempo_server_destroy(s);
}

static void test_client_calls_refuse_what_they_document(void **state)
{
    (void)state;
    tempo_address sa = tempo_address_ipv4(127, 0, 0, 1, 9);
    tempo_client_config c;
    tempo_client_config_default(&c);
    tempo_client *k = (tempo_client *)&k;
    c.slots = 9;
    c.num_players = 16;
    assert_int_equal(tempo_client_create(&c, &quiet, &sa, &k), TEMPO_E_INVALID_ARG);
    assert_null(k);
    tempo_client_config_default(&c);
    c.num_players = TEMPO_CS_MAX_PLAYERS + 1;
    assert_int_equal(tempo_client_create(&c, &quiet, &sa, &k), TEMPO_E_INVALID_ARG);
    tempo_client_config_default(&c);
    c.input_history = 7;
    assert_int_equal(tempo_client_create(&c, &quiet, &sa, &k), TEMPO_E_INVALID_ARG);
    tempo_client_config_default(&c);
    c.min_margin_ticks = 9; /* above max */
    assert_int_equal(tempo_client_create(&c, &quiet, &sa, &k), TEMPO_E_INVALID_ARG);
    tempo_client_config_default(&c);
    c.reconcile = (tempo_reconcile_mode)3;
    assert_int_equal(tempo_client_create(&c, &quiet, &sa, &k), TEMPO_E_INVALID_ARG);
    tempo_client_config_default(&c);
    assert_int_equal(tempo_client_create(&c, &quiet, NULL, &k), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_client_create(&c, &quiet, &sa, &k), TEMPO_OK);
    uint8_t in[4] = {0};
    assert_int_equal(tempo_client_add_local_input(k, 0, in, 3), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_client_add_local_input(k, 0, NULL, sizeof in), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_client_add_local_input(k, 0, in, sizeof in), TEMPO_E_STATE);
    assert_int_equal(tempo_client_disconnect(k), TEMPO_E_STATE);
    assert_true(tempo_client_local_players(k) == 0);
    assert_true(tempo_client_tick_us(k) == 1000000u / 60u);
    tempo_client_tick t;
    assert_int_equal(tempo_client_poll(k, 0), TEMPO_OK);
    assert_int_equal(tempo_client_advance(k, &t), TEMPO_OK);
    assert_int_equal(t.state, TEMPO_CLIENT_CONNECTING);
    assert_int_equal(t.num_requests, 0);
    assert_int_equal(tempo_client_set_reconcile(k, TEMPO_RECONCILE_DUMB), TEMPO_OK);
    assert_int_equal(tempo_client_set_reconcile(NULL, TEMPO_RECONCILE_DUMB), TEMPO_E_INVALID_ARG);
    tempo_client_stats cs;
    assert_int_equal(tempo_client_get_stats(k, &cs), TEMPO_OK);
    assert_int_equal(cs.server_frame, -1);
    assert_true(cs.unauthenticated);
    /* the handshake times out with nobody answering */
    assert_int_equal(tempo_client_poll(k, 10000001), TEMPO_OK);
    tempo_client_event ev;
    assert_int_equal(tempo_client_poll_event(k, &ev), 1);
    assert_int_equal(ev.kind, TEMPO_CLIENT_EVENT_TIMED_OUT);
    assert_int_equal(tempo_client_get_stats(k, &cs), TEMPO_OK);
    assert_int_equal(cs.state, TEMPO_CLIENT_TIMED_OUT);
    tempo_client_destroy(k);
    tempo_client_destroy(NULL);

    uint8_t token[TEMPO_TOKEN_SIZE];
    memset(token, 0xEE, sizeof token);
    tempo_client_config_default(&c);
    c.has_token = true;
    memcpy(c.token, token, sizeof token);
    tempo_result r = tempo_client_create(&c, &quiet, &sa, &k);
    assert_true(r == (tempo_secure_available() ? TEMPO_E_MALFORMED : TEMPO_E_UNSUPPORTED));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_server_config_out_of_range_is_refused),
        cmocka_unit_test(test_server_calls_refuse_what_they_document),
        cmocka_unit_test(test_client_calls_refuse_what_they_document),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
