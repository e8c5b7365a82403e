/* SPDX-License-Identifier: MIT */
/*
 * test_cs_refusals.c — a server says in its log why it refused a client
 * whose connect token it could not take: expired, minted for another
 * server, made with another key, or missing. The client hears nothing (a
 * refused request gets no answer: no oracle, no amplification), so the
 * server's log is where an operator learns it; so does a client of
 * another game (another protocol id). At most one line per reason every
 * 10 s, each counting the refusals since the last, so a flood of bad
 * requests cannot flood the log. Needs libsodium.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "cs_harness.h"
#include "log_lines.h"

#define PROTOCOL 0x7465737432ull
#define NOW_S 1900000000ull

static uint8_t backend_key[TEMPO_KEY_SIZE];

/* A sealed server (its log kept) and one client with the token `mint`
 * makes, run for `ticks` server ticks. */
static void run_refused(log_lines *log, void (*mint)(csh *h), int ticks)
{
    csh *h = (csh *)calloc(1, sizeof *h);
    assert_non_null(h);
    tempo_link_params lp;
    memset(&lp, 0, sizeof lp);
    lp.latency_us = 20000;
    csh_init(h, 41, &lp, 2, NULL);
    for (int i = 0; i < TEMPO_KEY_SIZE; i++)
        backend_key[i] = (uint8_t)(5 * i + 1);
    h->scfg.has_private_key = true;
    memcpy(h->scfg.private_key, backend_key, TEMPO_KEY_SIZE);
    h->scfg.protocol_id = PROTOCOL;
    h->scfg.self = h->saddr;
    h->scfg.log = keep_line;
    h->scfg.log_ctx = log;
    h->ccfg.protocol_id = PROTOCOL;
    h->ccfg.handshake_timeout_ms = 60000;
    mint(h);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    tempo_server_set_token_time(h->server, NOW_S);
    log->n = 0; /* from here: what the refusals said */
    assert_int_equal(csh_add_client(h, 1000, false, false), TEMPO_OK);
    csh_run(h, ticks);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    assert_int_equal(ss.clients, 0);
    assert_true(ss.handshake_refused > 0);
    print_lines(log);
    csh_free(h);
    free(h);
}

static void mint_expired(csh *h)
{
    h->ccfg.has_token = true;
    assert_int_equal(tempo_token_create(backend_key, PROTOCOL, 1, NOW_S - 10, NOW_S - 70, &h->saddr,
                                        1, NULL, h->ccfg.token),
                     TEMPO_OK);
}

static void mint_for_another_server(csh *h)
{
    tempo_address other = tempo_address_ipv4(10, 9, 9, 9, 4000);
    h->ccfg.has_token = true;
    assert_int_equal(tempo_token_create(backend_key, PROTOCOL, 1, NOW_S + 60, NOW_S, &other, 1,
                                        NULL, h->ccfg.token),
                     TEMPO_OK);
}

static void mint_with_another_key(csh *h)
{
    uint8_t other[TEMPO_KEY_SIZE];
    memset(other, 0x42, sizeof other);
    h->ccfg.has_token = true;
    assert_int_equal(tempo_token_create(other, PROTOCOL, 1, NOW_S + 60, NOW_S, &h->saddr, 1, NULL,
                                        h->ccfg.token),
                     TEMPO_OK);
}

static void mint_none(csh *h)
{
    h->ccfg.has_token = false;
}

static void mint_for_another_protocol(csh *h)
{
    h->ccfg.protocol_id = PROTOCOL + 1;
    h->ccfg.has_token = true;
    assert_int_equal(tempo_token_create(backend_key, PROTOCOL + 1, 1, NOW_S + 60, NOW_S,
                                        &h->saddr, 1, NULL, h->ccfg.token),
                     TEMPO_OK);
}

static void test_an_expired_token_is_named_in_the_servers_log(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    log_lines log;
    run_refused(&log, mint_expired, 120);
    assert_int_equal(lines_with(&log, "token has expired"), 1);
    assert_int_equal(log.n, 1);
}

static void test_a_token_for_another_server_is_named_in_the_servers_log(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    log_lines log;
    run_refused(&log, mint_for_another_server, 120);
    assert_int_equal(lines_with(&log, "does not name this server's address 10.0.0.1:4000"), 1);
    assert_int_equal(log.n, 1);
}

static void test_a_token_from_another_key_is_named_in_the_servers_log(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    log_lines log;
    run_refused(&log, mint_with_another_key, 120);
    assert_int_equal(lines_with(&log, "another private key"), 1);
    assert_int_equal(log.n, 1);
}

static void test_a_client_without_a_token_is_named_in_the_servers_log(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    log_lines log;
    run_refused(&log, mint_none, 120);
    /* the server's own warning that it is sealed is not there: it came at create */
    assert_int_equal(lines_with(&log, "came without a connect token"), 1);
    assert_int_equal(log.n, 1);
}

/* A client of another game (its protocol id not the server's) is told
 * too: a whole request, which only a tempo client sends. */
static void test_a_client_for_another_protocol_is_named_in_the_servers_log(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    log_lines log;
    run_refused(&log, mint_for_another_protocol, 120);
    assert_int_equal(lines_with(&log, "names another protocol id than this server's"), 1);
    assert_int_equal(log.n, 1);
}

/* 25 s of a client retrying: a line at once, then one every 10 s, each
 * saying how many refusals it stands for. */
static void test_refusals_are_told_once_per_ten_seconds_with_their_count(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    log_lines log;
    run_refused(&log, mint_expired, 60 * 25);
    assert_int_equal(lines_with(&log, "token has expired"), 3);
    assert_int_equal(log.n, 3);
    assert_null(strstr(log.line[0], " times in "));
    assert_non_null(strstr(log.line[1], " times in the last 10 s"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_an_expired_token_is_named_in_the_servers_log),
        cmocka_unit_test(test_a_token_for_another_server_is_named_in_the_servers_log),
        cmocka_unit_test(test_a_token_from_another_key_is_named_in_the_servers_log),
        cmocka_unit_test(test_a_client_without_a_token_is_named_in_the_servers_log),
        cmocka_unit_test(test_a_client_for_another_protocol_is_named_in_the_servers_log),
        cmocka_unit_test(test_refusals_are_told_once_per_ten_seconds_with_their_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
