/* SPDX-License-Identifier: MIT */
/*
 * test_relay_refusals.c — a relay says in its log why it refused a member:
 * a connect token expired, minted for another relay or with another key,
 * or missing; a member denied after the handshake (its player taken). The
 * member hears nothing, or only "denied", so the relay's log is where an
 * operator learns it. At most one line per reason every 10 s, each
 * counting the refusals since the last; the honest members of the match
 * play on throughout. Needs libsodium (the relay is sealed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "relay_rig.h"
#include "log_lines.h"

#define PROTOCOL 0x7265667573ull
#define NOW_S 1000u /* the token time relay_rig's updates pass */

static tempo_relay_config sealed_cfg(log_lines *log)
{
    tempo_relay_config rc = relay_cfg();
    rc.has_private_key = true;
    rc.protocol_id = PROTOCOL;
    for (int i = 0; i < TEMPO_KEY_SIZE; i++)
        rc.private_key[i] = (uint8_t)(3 * i + 7);
    rc.self = RELAY_ADDR;
    rc.log = keep_line;
    rc.log_ctx = log;
    return rc;
}

/* A token for player `player` of MATCH_ID, made with key, naming relay
 * address `at`, expiring at `expire`. */
static void mint(const uint8_t key[TEMPO_KEY_SIZE], int player, const tempo_address *at,
                 uint64_t expire, uint64_t created, uint8_t token[TEMPO_TOKEN_SIZE])
{
    tempo_relay_join j = {MATCH_ID, (uint8_t)(1u << player), 2, 4, 60, 0, 0, false};
    uint8_t ud[TEMPO_TOKEN_USER_DATA_SIZE];
    assert_int_equal(tempo_relay_join_write(&j, ud), TEMPO_OK);
    assert_int_equal(tempo_token_create(key, PROTOCOL, 50 + (uint64_t)player * 7 + expire, expire,
                                        created, at, 1, ud, token),
                     TEMPO_OK);
}

/* Machine i's session, for player `player`, with `token` (NULL: none). */
static void member_with(relay_rig *g, int i, int player, const uint8_t *token)
{
    h_peer *p = &g->h.peer[i];
    tempo_session_destroy(p->s);
    tempo_config c = match_cfg(2);
    c.random_seed = 70 + (uint64_t)i;
    c.handshake_timeout_ms = 60000; /* it keeps asking for the whole test */
    assert_int_equal(tempo_session_create_relay_member(&c, &p->ears, &g->relay_addr, token, &p->s),
                     TEMPO_OK);
    p->local_mask = 1u << player;
    assert_int_equal(tempo_session_add_local_player(p->s, player), TEMPO_OK);
}

typedef enum bad_token {
    BAD_EXPIRED,
    BAD_OTHER_RELAY,
    BAD_OTHER_KEY,
    BAD_NONE,
    BAD_PLAYER_TAKEN
} bad_token;

/* A sealed relay (its log kept), two honest members of a two-player
 * match and a third machine with a `bad` token, coming 300 ms after
 * them, for `seconds` of virtual time. The honest ones play throughout,
 * nothing of theirs substituted; the third is never a member. */
static void run_refused(log_lines *log, bad_token bad, int seconds)
{
    memset(log, 0, sizeof *log);
    tempo_config cfg = match_cfg(2);
    tempo_relay_config rc = sealed_cfg(log);
    relay_rig *g = calloc(1, sizeof *g);
    assert_non_null(g);
    const int player_of[3] = {0, 1, 0};
    rig_init_matches(g, &cfg, 3, "lan", &rc, 31, NULL, player_of);
    uint8_t token[TEMPO_TOKEN_SIZE];
    for (int i = 0; i < 2; i++) {
        mint(rc.private_key, i, &g->relay_addr, NOW_S + 600, NOW_S, token);
        member_with(g, i, i, token);
    }
    tempo_address other = tempo_address_ipv4(10, 9, 9, 9, 4000);
    uint8_t other_key[TEMPO_KEY_SIZE];
    memset(other_key, 0x42, sizeof other_key);
    switch (bad) {
    case BAD_EXPIRED: mint(rc.private_key, 0, &g->relay_addr, NOW_S - 10, NOW_S - 70, token); break;
    case BAD_OTHER_RELAY: mint(rc.private_key, 0, &other, NOW_S + 600, NOW_S, token); break;
    case BAD_OTHER_KEY: mint(other_key, 0, &g->relay_addr, NOW_S + 600, NOW_S, token); break;
    case BAD_PLAYER_TAKEN: mint(rc.private_key, 0, &g->relay_addr, NOW_S + 600, NOW_S, token); break;
    default: break;
    }
    member_with(g, 2, 0, bad == BAD_NONE ? NULL : token);
    g->h.peer[2].next_tick_us += 300000;
    rig_run(g, INT32_MAX, (uint64_t)seconds * 1000000u);
    print_lines(log);

    tempo_relay_stats rs;
    assert_int_equal(tempo_relay_get_stats(g->relay, &rs), TEMPO_OK);
    assert_int_equal(rs.members, 2);
    if (bad == BAD_PLAYER_TAKEN) {
        assert_int_equal(rs.admitted, 3);
        assert_int_equal(rs.denied, 1);
    } else {
        assert_int_equal(rs.admitted, 2);
        assert_true(rs.handshake_refused > 0);
    }
    tempo_relay_match_stats ms;
    assert_int_equal(tempo_relay_get_match_stats(g->relay, MATCH_ID, &ms), TEMPO_OK);
    assert_int_equal(ms.substitutions[0] + ms.substitutions[1], 0);
    int32_t frames = seconds * 60 - 60;
    for (int i = 0; i < 2; i++)
        assert_true(tempo_session_confirmed_frame(g->h.peer[i].s) >= frames);
    for (int32_t f = 0; f < frames; f++)
        assert_true(g->h.peer[1].d->hash_after[f] == g->h.peer[0].d->hash_after[f]);
    assert_int_equal(tempo_session_frame(g->h.peer[2].s), 0);
    rig_free(g);
    free(g);
}

static void test_an_expired_token_is_named_in_the_relays_log(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    log_lines log;
    run_refused(&log, BAD_EXPIRED, 5);
    assert_int_equal(lines_with(&log, "tempo relay: refused a client at 10.0.0.3:"), 1);
    assert_int_equal(lines_with(&log, "token has expired"), 1);
    assert_int_equal(log.n, 1);
}

static void test_a_token_for_another_relay_is_named_in_the_relays_log(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    log_lines log;
    run_refused(&log, BAD_OTHER_RELAY, 5);
    assert_int_equal(lines_with(&log, "does not name this relay's address 10.0.1.1:9000"), 1);
    assert_int_equal(log.n, 1);
}

static void test_a_token_from_another_key_is_named_in_the_relays_log(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    log_lines log;
    run_refused(&log, BAD_OTHER_KEY, 5);
    assert_int_equal(lines_with(&log, "another private key"), 1);
    assert_int_equal(log.n, 1);
}

/* A member without a token names the unsealed relays' protocol id: the
 * request is for another protocol, and the line says it had no token. */
static void test_a_member_without_a_token_is_named_in_the_relays_log(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    log_lines log;
    run_refused(&log, BAD_NONE, 5);
    assert_int_equal(lines_with(&log, "came without a connect token"), 1);
    assert_int_equal(log.n, 1);
}

/* Admitted with a good token for a player somebody has: denied after the
 * handshake, and the line says why. */
static void test_a_member_denied_its_taken_player_is_named_in_the_relays_log(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    log_lines log;
    run_refused(&log, BAD_PLAYER_TAKEN, 5);
    assert_int_equal(lines_with(&log, "tempo relay: denied a member at 10.0.0.3:"), 1);
    assert_int_equal(lines_with(&log, "another member has one of its players"), 1);
    assert_int_equal(log.n, 1);
}

/* 25 s of a member retrying with an expired token: a line at once, then
 * one every 10 s, each saying how many refusals it stands for. */
static void test_refusals_are_told_once_per_ten_seconds_with_their_count(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    log_lines log;
    run_refused(&log, BAD_EXPIRED, 25);
    assert_int_equal(lines_with(&log, "token has expired"), 3);
    assert_int_equal(log.n, 3);
    assert_null(strstr(log.line[0], " times in "));
    assert_non_null(strstr(log.line[1], " times in the last 10 s"));
}

/* An unsealed relay says so once, at create; a log level below WARN
 * silences it; a level out of range is the caller's mistake. */
static void test_an_unsealed_relay_warns_once_at_create(void **state)
{
    (void)state;
    log_lines log;
    memset(&log, 0, sizeof log);
    tempo_relay_config rc = relay_cfg();
    rc.log = keep_line;
    rc.log_ctx = &log;
    tempo_transport tr;
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    tempo_simnet *net = NULL;
    assert_int_equal(tempo_simnet_create(&nc, &net), TEMPO_OK);
    tempo_address a = RELAY_ADDR;
    assert_int_equal(tempo_simnet_add_node(net, &a, &tr), TEMPO_OK);
    tempo_relay *r = NULL;
    assert_int_equal(tempo_relay_create(&rc, &tr, &r), TEMPO_OK);
    for (uint64_t t = 0; t < 2000000; t += 1000)
        assert_int_equal(tempo_relay_update(r, t, NOW_S), TEMPO_OK);
    tempo_relay_destroy(r);
    print_lines(&log);
    assert_int_equal(log.n, 1);
    assert_int_equal(lines_with(&log, "tempo relay: no private key"), 1);
    rc.log_level = TEMPO_LOG_ERROR;
    assert_int_equal(tempo_relay_create(&rc, &tr, &r), TEMPO_OK);
    tempo_relay_destroy(r);
    assert_int_equal(log.n, 1);
    rc.log_level = (tempo_log_level)7;
    assert_int_equal(tempo_relay_create(&rc, &tr, &r), TEMPO_E_INVALID_ARG);
    tempo_simnet_destroy(net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_an_expired_token_is_named_in_the_relays_log),
        cmocka_unit_test(test_a_token_for_another_relay_is_named_in_the_relays_log),
        cmocka_unit_test(test_a_token_from_another_key_is_named_in_the_relays_log),
        cmocka_unit_test(test_a_member_without_a_token_is_named_in_the_relays_log),
        cmocka_unit_test(test_a_member_denied_its_taken_player_is_named_in_the_relays_log),
        cmocka_unit_test(test_refusals_are_told_once_per_ten_seconds_with_their_count),
        cmocka_unit_test(test_an_unsealed_relay_warns_once_at_create),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
