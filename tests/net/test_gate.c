/* SPDX-License-Identifier: MIT */
/*
 * test_gate.c — the server handshake (net/gate.h): sealed and unsealed
 * handshakes admit with the right id, keys and sequences; no reply to a
 * stranger is larger than what it sent; the server side allocates
 * nothing; responses from another address, stale or retired cookies,
 * and expired, altered, foreign or misaddressed tokens are refused and
 * counted by reason while an honest client still gets in; a copy of a
 * response admits the same client again and a caller that checks the id
 * keeps one; forged and old denials do not end a handshake, and nothing
 * restarts or ends a connected client; two connections under one token
 * share no key or nonce, and a second challenge does not change the
 * connection's keys; the client
 * retries on its period and times out; the plain messages are the bytes
 * of docs/PROTOCOL.md's "handshake" vectors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "count_malloc.h"
#include "doc_vectors.h"
#include "base/common.h"
#include "net/gate.h"
#include "tempo/secure.h"
#include "wire/codec.h"
#include "wire/connect.h"
#include "wire/seal.h"
#include "wire/token.h"

#define PROTOCOL 0x7E4D90C0FFEE0001ull
#define CLIENT 0xC11E27ull
#define NOW_S 1700000000ull
#define T0 5000000ull /* the server's and client's clocks, µs */
#define NONCE 0x0123456789ABCDEFull

static uint8_t backend_key[TEMPO_KEY_SIZE];
static uint8_t cookie_key[TEMPO_KEY_SIZE];
static uint8_t user[TEMPO_TOKEN_USER_DATA_SIZE];
static tempo_address server_addr, client_addr, other_addr;

static void fixtures(void)
{
    for (int i = 0; i < TEMPO_KEY_SIZE; i++) {
        backend_key[i] = (uint8_t)(3 * i + 1);
        cookie_key[i] = (uint8_t)(0xA0 ^ i);
    }
    for (int i = 0; i < TEMPO_TOKEN_USER_DATA_SIZE; i++)
        user[i] = (uint8_t)(i * 7);
    server_addr = tempo_address_ipv4(10, 0, 0, 1, 40000);
    client_addr = tempo_address_ipv4(192, 168, 1, 5, 5000);
    other_addr = tempo_address_ipv4(192, 168, 1, 6, 5000);
}

#define NEED_SODIUM()                  \
    do {                               \
        if (!tempo_secure_available()) \
            skip();                    \
    } while (0)

/* A token for CLIENT naming `server`, made with `key` for `protocol`. */
static void make_token(uint8_t token[TEMPO_TOKEN_SIZE], const uint8_t *key, uint64_t protocol,
                       const tempo_address *server, uint64_t expire)
{
    assert_int_equal(tempo_token_create(key, protocol, CLIENT, expire, NOW_S - 5, server, 1, user,
                                        token),
                     TEMPO_OK);
}

static gate_server_config server_cfg(bool sealed)
{
    fixtures();
    gate_server_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.protocol_id = PROTOCOL;
    cfg.has_private_key = sealed;
    memcpy(cfg.private_key, backend_key, TEMPO_KEY_SIZE);
    cfg.self = server_addr;
    return cfg;
}

static void server_up(gate_server *g, bool sealed)
{
    gate_server_config cfg = server_cfg(sealed);
    assert_int_equal(gate_server_init(g, &cfg, cookie_key), TEMPO_OK);
}

static void client_up(gate_client *c, const uint8_t *token, uint64_t now)
{
    gate_client_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.protocol_id = PROTOCOL;
    cfg.token = token;
    cfg.nonce = NONCE;
    cfg.server = server_addr;
    cfg.slots = 2;
    assert_int_equal(gate_client_init(c, &cfg, now), TEMPO_OK);
}

typedef struct wire {
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    size_t size;
} wire;

/* The client's current datagram. */
static wire client_sends(gate_client *c, uint64_t now)
{
    wire w;
    int n = gate_client_write(c, now, w.buf, sizeof w.buf);
    assert_true(n > 0);
    w.size = (size_t)n;
    return w;
}

/* Hand w to the server as coming from `from`. */
static gate_outcome to_server(gate_server *g, uint64_t now, const tempo_address *from,
                              const wire *w, wire *reply, gate_admit *admit)
{
    return gate_server_on_datagram(g, now, NOW_S, from, w->buf, w->size, reply->buf,
                                   sizeof reply->buf, &reply->size, admit);
}

/* Request, challenge: the client ends up responding and returns its response. */
static wire challenged(gate_server *g, gate_client *c, uint64_t now)
{
    wire req = client_sends(c, now), ch;
    gate_admit admit;
    assert_int_equal(to_server(g, now, &client_addr, &req, &ch, &admit), GATE_REPLY);
    assert_int_equal(gate_client_on_datagram(c, now, &server_addr, ch.buf, ch.size),
                     GATE_CLIENT_CHALLENGED);
    assert_true(gate_client_due(c, now));
    return client_sends(c, now);
}

static uint64_t refused(const gate_server *g, connect_refusal why)
{
    return g->stats.refused[why];
}

static uint64_t refused_total(const gate_server *g)
{
    uint64_t n = 0;
    for (int i = 0; i < CONNECT_REFUSAL_COUNT_; i++)
        n += g->stats.refused[i];
    return n;
}

/* ---- the handshake -------------------------------------------------- */

static void test_sealed_handshake_admits_with_the_token_id_keys_and_sequences(void **state)
{
    (void)state;
    NEED_SODIUM();
    gate_server g;
    gate_client c;
    server_up(&g, true);
    uint8_t token[TEMPO_TOKEN_SIZE];
    make_token(token, backend_key, PROTOCOL, &server_addr, NOW_S + 30);
    client_up(&c, token, T0);
    wire resp = challenged(&g, &c, T0), none;
    assert_int_equal(c.client_id, CLIENT);
    assert_int_equal(c.next_sequence, 1);

    gate_admit admit;
    assert_int_equal(to_server(&g, T0 + 1000, &client_addr, &resp, &none, &admit), GATE_ADMIT);
    assert_int_equal(none.size, 0);
    assert_int_equal(admit.client_id, CLIENT);
    assert_int_equal(admit.slots, 2);
    assert_true(admit.sealed && admit.keys.ready);
    assert_true(admit.expire_seconds == NOW_S + 30);
    assert_int_equal(admit.client_sequence, 0);
    assert_true(tempo_address_equal(&admit.address, &client_addr));
    assert_memory_equal(admit.user_data, user, sizeof user);
    assert_memory_equal(admit.keys.recv_key, c.keys.send_key, SEAL_KEY_SIZE);
    assert_memory_equal(admit.keys.send_key, c.keys.recv_key, SEAL_KEY_SIZE);
    assert_int_equal(admit.keys.send_direction, SEAL_DIRECTION_HIGH);
    assert_int_equal(g.stats.challenges, 1);
    assert_int_equal(g.stats.admissions, 1);
    assert_true(refused_total(&g) == 0);

    /* the connection goes on: the server's first datagram at its sequence
     * 0 opens at the client, the client's next at next_sequence at the server */
    uint8_t d[64] = {0};
    tempo_packet_header h = {7, 0, 5, false, false};
    assert_int_equal(packet_write(&h, d, sizeof d), 8);
    assert_int_equal(seal_datagram(&admit.keys, 0, d, 12, sizeof d), 28);
    assert_int_equal(seal_open(&c.keys, 0, d, 28, NULL), 12);
    assert_int_equal(gate_client_connected(&c), TEMPO_OK);
    assert_int_equal(gate_client_update(&c, T0 + 60000000), GATE_CLIENT_CONNECTED);
    h.sequence = (uint16_t)c.next_sequence;
    assert_int_equal(packet_write(&h, d, sizeof d), 8);
    assert_int_equal(seal_datagram(&c.keys, c.next_sequence, d, 12, sizeof d), 28);
    assert_int_equal(seal_open(&admit.keys, c.next_sequence, d, 28, NULL), 12);
    seal_keys_wipe(&admit.keys);
    gate_server_wipe(&g);
    gate_client_wipe(&c);
}

static void test_unsealed_handshake_admits_the_nonce_as_client_id(void **state)
{
    (void)state; /* no libsodium needed */
    gate_server g;
    gate_client c;
    server_up(&g, false);
    client_up(&c, NULL, T0);
    wire resp = challenged(&g, &c, T0), none;
    assert_true(c.client_id == NONCE);
    gate_admit admit;
    assert_int_equal(to_server(&g, T0, &client_addr, &resp, &none, &admit), GATE_ADMIT);
    assert_true(admit.client_id == NONCE);
    assert_int_equal(admit.slots, 2);
    assert_false(admit.sealed);
    assert_false(admit.keys.ready);
    assert_int_equal(g.stats.admissions, 1);
    assert_true(refused_total(&g) == 0);
}

static void test_handshake_types_are_named_but_not_decoded_by_the_codec(void **state)
{
    (void)state;
    assert_string_equal(tempo_msg_type_name(CONNECT_TYPE_REQUEST), "connect_request");
    assert_string_equal(tempo_msg_type_name(CONNECT_TYPE_CHALLENGE), "challenge");
    assert_string_equal(tempo_msg_type_name(CONNECT_TYPE_RESPONSE), "challenge_response");
    assert_string_equal(tempo_msg_type_name(CONNECT_TYPE_DENIED), "connect_denied");
    assert_string_equal(tempo_msg_type_name(24), "unknown");
    for (int t = CONNECT_TYPE_REQUEST; t <= CONNECT_TYPE_DENIED; t++)
        assert_false(tempo_msg_type_known((uint8_t)t));
}

/* ---- amplification -------------------------------------------------- */

/* Every handshake message a stranger can send, and noise: the reply is
 * never larger than the datagram; the sizes are exact. */
static void check_no_amplification(bool sealed)
{
    gate_server g;
    gate_client c;
    server_up(&g, sealed);
    uint8_t token[TEMPO_TOKEN_SIZE];
    if (sealed)
        make_token(token, backend_key, PROTOCOL, &server_addr, NOW_S + 30);
    client_up(&c, sealed ? token : NULL, T0);

    wire req = client_sends(&c, T0), reply;
    gate_admit admit;
    assert_int_equal(req.size, CONNECT_REQUEST_SIZE);
    assert_int_equal(to_server(&g, T0, &client_addr, &req, &reply, &admit), GATE_REPLY);
    assert_int_equal(reply.size, sealed ? 411 : 58);
    assert_true(reply.size <= req.size);

    /* the challenge and a denial sent to the server: nothing back */
    wire ch = reply;
    assert_int_equal(to_server(&g, T0, &other_addr, &ch, &reply, &admit), GATE_IGNORED);
    assert_int_equal(reply.size, 0);
    assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, ch.buf, ch.size),
                     GATE_CLIENT_CHALLENGED);
    wire resp = client_sends(&c, T0);
    assert_int_equal(resp.size, sealed ? 403 : 50);
    assert_int_equal(to_server(&g, T0, &client_addr, &resp, &reply, &admit), GATE_ADMIT);
    assert_int_equal(reply.size, 0);
    wire den;
    int n = gate_server_deny(&g, &admit, den.buf, sizeof den.buf);
    assert_int_equal(n, sealed ? 32 : 16);
    assert_true((size_t)n <= resp.size);
    den.size = (size_t)n;
    assert_int_equal(to_server(&g, T0, &other_addr, &den, &reply, &admit), GATE_IGNORED);
    assert_int_equal(reply.size, 0);

    /* a request one byte short or long, and every size of noise: nothing */
    for (size_t size = 0; size <= TEMPO_MAX_DATAGRAM + 1; size++) {
        wire w;
        memset(w.buf, 0, sizeof w.buf);
        if (size == CONNECT_REQUEST_SIZE)
            continue;
        memcpy(w.buf, req.buf, size < req.size ? size : req.size);
        w.size = size;
        assert_int_equal(to_server(&g, T0, &other_addr, &w, &reply, &admit), GATE_IGNORED);
        assert_int_equal(reply.size, 0);
    }
    if (sealed)
        seal_keys_wipe(&admit.keys);
}

static void test_no_reply_to_a_stranger_is_larger_than_its_datagram_unsealed(void **state)
{
    (void)state;
    check_no_amplification(false);
}

static void test_no_reply_to_a_stranger_is_larger_than_its_datagram_sealed(void **state)
{
    (void)state;
    NEED_SODIUM();
    check_no_amplification(true);
}

/* ---- no state, no allocation ---------------------------------------- */

static void test_the_server_side_allocates_nothing(void **state)
{
    (void)state;
    if (!count_malloc_start()) {
        print_message("malloc not counted (%s)\n", count_malloc_unavailable);
        skip();
    }
    bool sealed = tempo_secure_available();
    gate_server g;
    gate_client c;
    server_up(&g, sealed);
    uint8_t token[TEMPO_TOKEN_SIZE];
    if (sealed)
        make_token(token, backend_key, PROTOCOL, &server_addr, NOW_S + 30);
    client_up(&c, sealed ? token : NULL, T0);
    wire req = client_sends(&c, T0), reply;
    gate_admit admit;
    gate_server copy;
    assert_int_equal(to_server(&g, T0, &client_addr, &req, &reply, &admit), GATE_REPLY);
    memcpy(&copy, &g, sizeof g);
    uint64_t before = count_malloc_total();
    for (int i = 0; i < 100; i++)
        assert_int_equal(to_server(&g, T0 + (uint64_t)i, &client_addr, &req, &reply, &admit),
                         GATE_REPLY);
    assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, reply.buf, reply.size),
                     GATE_CLIENT_CHALLENGED);
    wire resp = client_sends(&c, T0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(to_server(&g, T0 + 100, &client_addr, &resp, &reply, &admit), GATE_ADMIT);
    wire den;
    assert_true(gate_server_deny(&g, &admit, den.buf, sizeof den.buf) > 0);
    assert_true(count_malloc_total() == before);
    /* 100 requests changed nothing but the counters and the reply sequence */
    assert_true(g.reply_sequence == copy.reply_sequence + 101);
    assert_memory_equal(g.cookie_key, copy.cookie_key, TEMPO_KEY_SIZE);
    assert_int_equal(g.stats.challenges, 101);
    if (sealed)
        seal_keys_wipe(&admit.keys);
}

/* ---- cookies ---------------------------------------------------------- */

static void check_response_from_another_address(bool sealed)
{
    gate_server g;
    gate_client c;
    server_up(&g, sealed);
    uint8_t token[TEMPO_TOKEN_SIZE];
    if (sealed)
        make_token(token, backend_key, PROTOCOL, &server_addr, NOW_S + 30);
    client_up(&c, sealed ? token : NULL, T0);
    wire resp = challenged(&g, &c, T0), reply;
    gate_admit admit;
    assert_int_equal(to_server(&g, T0, &other_addr, &resp, &reply, &admit), GATE_IGNORED);
    assert_int_equal(refused(&g, CONNECT_BAD_COOKIE), 1);
    tempo_address same_host_other_port = client_addr;
    same_host_other_port.port++;
    assert_int_equal(to_server(&g, T0, &same_host_other_port, &resp, &reply, &admit), GATE_IGNORED);
    assert_int_equal(refused(&g, CONNECT_BAD_COOKIE), 2);
    assert_int_equal(g.stats.admissions, 0);
    /* the real client still gets in */
    assert_int_equal(to_server(&g, T0, &client_addr, &resp, &reply, &admit), GATE_ADMIT);
    assert_true(refused_total(&g) == 2);
    if (sealed)
        seal_keys_wipe(&admit.keys);
}

static void test_a_response_replayed_from_another_address_is_refused_unsealed(void **state)
{
    (void)state;
    check_response_from_another_address(false);
}

static void test_a_response_replayed_from_another_address_is_refused_sealed(void **state)
{
    (void)state;
    NEED_SODIUM();
    check_response_from_another_address(true);
}

static void test_a_stale_cookie_is_refused(void **state)
{
    (void)state;
    gate_server g;
    gate_client c;
    server_up(&g, false);
    client_up(&c, NULL, T0);
    wire resp = challenged(&g, &c, T0), reply;
    gate_admit admit;
    uint64_t life = GATE_DEFAULT_COOKIE_LIFETIME_US;
    assert_int_equal(to_server(&g, T0 + life, &client_addr, &resp, &reply, &admit), GATE_IGNORED);
    assert_int_equal(refused(&g, CONNECT_STALE_COOKIE), 1);
    assert_int_equal(to_server(&g, T0 - 1, &client_addr, &resp, &reply, &admit), GATE_IGNORED);
    assert_int_equal(refused(&g, CONNECT_STALE_COOKIE), 2);
    assert_int_equal(to_server(&g, T0 + life - 1, &client_addr, &resp, &reply, &admit), GATE_ADMIT);
    assert_true(refused_total(&g) == 2);
}

static void test_cookies_of_the_previous_key_open_and_older_ones_do_not(void **state)
{
    (void)state;
    gate_server g;
    gate_client c;
    server_up(&g, false);
    client_up(&c, NULL, T0);
    wire resp = challenged(&g, &c, T0), reply;
    gate_admit admit;
    uint8_t k2[TEMPO_KEY_SIZE], k3[TEMPO_KEY_SIZE];
    memset(k2, 0x22, sizeof k2);
    memset(k3, 0x33, sizeof k3);
    gate_server_rotate(&g, k2);
    assert_int_equal(to_server(&g, T0, &client_addr, &resp, &reply, &admit), GATE_ADMIT);
    gate_server_rotate(&g, k3);
    assert_int_equal(to_server(&g, T0, &client_addr, &resp, &reply, &admit), GATE_IGNORED);
    assert_int_equal(refused(&g, CONNECT_BAD_COOKIE), 1);
    /* a cookie naming the current generation, made under another key */
    resp.buf[PACKET_HEADER_SIZE + 8] = g.generation;
    assert_int_equal(to_server(&g, T0, &client_addr, &resp, &reply, &admit), GATE_IGNORED);
    assert_int_equal(refused(&g, CONNECT_BAD_COOKIE), 2);
}

static void test_a_spoofed_request_cannot_be_completed_without_the_challenge(void **state)
{
    (void)state;
    /* unsealed, the weakest mode: the attacker sends as the victim's
     * address and never sees the challenge; it answers with the cookie it
     * got at its own address, and with every single bit of that flipped */
    gate_server g;
    gate_client attacker;
    server_up(&g, false);
    client_up(&attacker, NULL, T0);
    wire req = client_sends(&attacker, T0), ch, reply;
    gate_admit admit;
    assert_int_equal(to_server(&g, T0, &client_addr, &req, &ch, &admit), GATE_REPLY);
    /* its own challenge, at its own address */
    assert_int_equal(to_server(&g, T0, &other_addr, &req, &ch, &admit), GATE_REPLY);
    assert_int_equal(gate_client_on_datagram(&attacker, T0, &server_addr, ch.buf, ch.size),
                     GATE_CLIENT_CHALLENGED);
    wire resp = client_sends(&attacker, T0);
    assert_int_equal(to_server(&g, T0, &client_addr, &resp, &reply, &admit), GATE_IGNORED);
    for (size_t bit = PACKET_HEADER_SIZE * 8; bit < resp.size * 8; bit++) {
        wire w = resp;
        w.buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        assert_int_equal(to_server(&g, T0, &other_addr, &w, &reply, &admit), GATE_IGNORED);
    }
    assert_int_equal(g.stats.admissions, 0);
    assert_int_equal(refused(&g, CONNECT_BAD_COOKIE), 1 + (resp.size - PACKET_HEADER_SIZE) * 8);
}

/* ---- tokens ----------------------------------------------------------- */

static void test_bad_tokens_are_refused_by_reason_and_honest_clients_still_get_in(void **state)
{
    (void)state;
    NEED_SODIUM();
    gate_server g;
    server_up(&g, true);
    uint8_t good[TEMPO_TOKEN_SIZE], t[TEMPO_TOKEN_SIZE], other_key[TEMPO_KEY_SIZE];
    memset(other_key, 0x5A, sizeof other_key);
    make_token(good, backend_key, PROTOCOL, &server_addr, NOW_S + 30);
    gate_client c;
    wire req, reply;
    gate_admit admit;

    struct {
        const char *what;
        connect_refusal why;
    } cases[] = {
        {"expired", CONNECT_EXPIRED},         {"altered", CONNECT_BAD_TOKEN},
        {"other backend key", CONNECT_BAD_TOKEN}, {"other protocol", CONNECT_WRONG_PROTOCOL},
        {"other server", CONNECT_WRONG_SERVER}, {"padding", CONNECT_MALFORMED},
        {"short", CONNECT_MALFORMED},         {"body protocol", CONNECT_WRONG_PROTOCOL},
        {"slots", CONNECT_MALFORMED},         {"nonce mode", CONNECT_WRONG_MODE},
        {"header session", CONNECT_WRONG_PROTOCOL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *w = cases[i].what;
        uint64_t expect = refused(&g, cases[i].why) + 1, total = refused_total(&g) + 1;
        memcpy(t, good, sizeof t);
        if (strcmp(w, "expired") == 0)
            make_token(t, backend_key, PROTOCOL, &server_addr, NOW_S);
        else if (strcmp(w, "altered") == 0)
            t[TOKEN_AT_PRIVATE + 100] ^= 0x10;
        else if (strcmp(w, "other backend key") == 0)
            make_token(t, other_key, PROTOCOL, &server_addr, NOW_S + 30);
        else if (strcmp(w, "other protocol") == 0)
            make_token(t, backend_key, PROTOCOL + 1, &server_addr, NOW_S + 30);
        else if (strcmp(w, "other server") == 0)
            make_token(t, backend_key, PROTOCOL, &other_addr, NOW_S + 30);
        if (strcmp(w, "other protocol") == 0) {
            /* the client refuses such a token itself; write its request by hand */
            req.size = (size_t)connect_request_write(req.buf, PROTOCOL, 1, t, 0);
        } else {
            client_up(&c, t, T0);
            req = client_sends(&c, T0);
        }
        if (strcmp(w, "padding") == 0)
            req.buf[CONNECT_REQUEST_SIZE - 1] = 1;
        else if (strcmp(w, "short") == 0)
            req.size--;
        else if (strcmp(w, "body protocol") == 0)
            req.buf[CONNECT_AT_PROTOCOL + 7] ^= 1;
        else if (strcmp(w, "slots") == 0)
            req.buf[CONNECT_AT_SLOTS] = CONNECT_MAX_SLOTS + 1;
        else if (strcmp(w, "nonce mode") == 0)
            req.size = (size_t)connect_request_write(req.buf, PROTOCOL, 1, NULL, 99);
        else if (strcmp(w, "header session") == 0)
            req.buf[1] ^= 1;
        assert_int_equal(to_server(&g, T0, &client_addr, &req, &reply, &admit), GATE_IGNORED);
        if (refused(&g, cases[i].why) != expect || refused_total(&g) != total)
            fail_msg("%s: %s not counted", w, connect_refusal_name(cases[i].why));
        assert_int_equal(reply.size, 0);
    }
    assert_int_equal(g.stats.challenges, 0);
    client_up(&c, good, T0);
    wire resp = challenged(&g, &c, T0);
    assert_int_equal(to_server(&g, T0, &client_addr, &resp, &reply, &admit), GATE_ADMIT);
    seal_keys_wipe(&admit.keys);
}

/* The note an operator reads names the end by its role and comes whole:
 * a relay with IPv6 addresses refusing the same client three times,
 * through the log hook as the relay writes it. */
static char heard[1024];

static void hear(void *ctx, tempo_log_level level, const char *line)
{
    (void)ctx;
    (void)level;
    snprintf(heard, sizeof heard, "%s", line);
}

static void test_a_refusal_note_names_the_role_and_is_never_cut(void **state)
{
    (void)state;
    NEED_SODIUM();
    tempo_address self, from, minted_for;
    assert_int_equal(tempo_address_parse(&self, "[2001:db8:ffff:ffff:ffff:ffff:ffff:fff1]:65001"),
                     TEMPO_OK);
    assert_int_equal(tempo_address_parse(&from, "[2001:db8:ffff:ffff:ffff:ffff:ffff:fff2]:65002"),
                     TEMPO_OK);
    assert_int_equal(
        tempo_address_parse(&minted_for, "[2001:db8:ffff:ffff:ffff:ffff:ffff:fff3]:65003"),
        TEMPO_OK);
    gate_server g;
    gate_server_config cfg = server_cfg(true);
    cfg.self = self;
    cfg.role = "relay";
    assert_int_equal(gate_server_init(&g, &cfg, cookie_key), TEMPO_OK);
    uint8_t t[TEMPO_TOKEN_SIZE];
    make_token(t, backend_key, PROTOCOL, &minted_for, NOW_S + 30);
    tempo_logger log = tempo__logger(hear, NULL, TEMPO_LOG_WARN);
    char line[512];
    /* the first refusal is told at once, the second (a second later)
     * counted into the next note, told with the third after GATE_NOTE_US */
    const uint64_t at[3] = {T0, T0 + 1000000u, T0 + GATE_NOTE_US + 1};
    for (int i = 0; i < 3; i++) {
        wire req = {{0}, 0}, reply;
        req.size = (size_t)connect_request_write(req.buf, PROTOCOL, 1, t, 0);
        gate_admit admit;
        assert_int_equal(to_server(&g, at[i], &from, &req, &reply, &admit), GATE_IGNORED);
        assert_int_equal(gate_server_refusal_note(&g, at[i], &from, line, sizeof line), i != 1);
    }
    assert_int_equal(refused(&g, CONNECT_WRONG_SERVER), 3);
    tempo__log(&log, TEMPO_LOG_WARN, "tempo relay: %s", line);
    if (strstr(heard, "(2 times in the last 10 s)") == NULL || strstr(heard, "this server") != NULL)
        fail_msg("%s", heard);
    assert_non_null(strstr(heard, "this relay's address [2001:db8:ffff:ffff:ffff:ffff:ffff:fff1]"));
    const char *end = "or this relay's address is not the one tokens name)";
    size_t n = strlen(heard), e = strlen(end);
    assert_true(n > 255);
    assert_true(n >= e && strcmp(heard + n - e, end) == 0);
}

static void test_a_token_request_to_an_unsealed_server_is_the_wrong_mode(void **state)
{
    (void)state;
    NEED_SODIUM();
    gate_server g;
    gate_client c;
    server_up(&g, false);
    uint8_t token[TEMPO_TOKEN_SIZE];
    make_token(token, backend_key, PROTOCOL, &server_addr, NOW_S + 30);
    client_up(&c, token, T0);
    wire req = client_sends(&c, T0), reply;
    gate_admit admit;
    assert_int_equal(to_server(&g, T0, &client_addr, &req, &reply, &admit), GATE_IGNORED);
    assert_int_equal(refused(&g, CONNECT_WRONG_MODE), 1);
}

static void test_a_forged_response_seal_is_refused(void **state)
{
    (void)state;
    NEED_SODIUM();
    gate_server g;
    gate_client c;
    server_up(&g, true);
    uint8_t token[TEMPO_TOKEN_SIZE];
    make_token(token, backend_key, PROTOCOL, &server_addr, NOW_S + 30);
    client_up(&c, token, T0);
    wire resp = challenged(&g, &c, T0), reply;
    gate_admit admit;
    resp.buf[resp.size - 1] ^= 0x80; /* the tag */
    assert_int_equal(to_server(&g, T0, &client_addr, &resp, &reply, &admit), GATE_IGNORED);
    assert_int_equal(refused(&g, CONNECT_FORGED), 1);
    resp.buf[resp.size - 1] ^= 0x80;
    resp.buf[CONNECT_AT_SEQUENCE] ^= 1; /* the sequence, and so the nonce */
    resp.buf[5] ^= 1;
    assert_int_equal(to_server(&g, T0, &client_addr, &resp, &reply, &admit), GATE_IGNORED);
    assert_int_equal(refused(&g, CONNECT_FORGED), 2);
    assert_int_equal(g.stats.admissions, 0);
}

/* ---- the caller's side of admission ---------------------------------- */

/* A server with room for `room` clients that keeps each client id once. */
typedef struct fake_server {
    int room, count;
    uint64_t ids[4];
    tempo_address addrs[4];
    int denials;
} fake_server;

static void fake_admit(fake_server *s, gate_server *g, gate_admit *a, wire *out)
{
    out->size = 0;
    for (int i = 0; i < s->count; i++)
        if (s->ids[i] == a->client_id || tempo_address_equal(&s->addrs[i], &a->address))
            goto done; /* already here: a copy of its response */
    if (s->count == s->room) {
        int n = gate_server_deny(g, a, out->buf, sizeof out->buf);
        assert_true(n > 0);
        out->size = (size_t)n;
        s->denials++;
        goto done;
    }
    s->ids[s->count] = a->client_id;
    s->addrs[s->count++] = a->address;
done:
    seal_keys_wipe(&a->keys);
}

static void test_a_copy_of_a_response_does_not_make_a_second_client(void **state)
{
    (void)state;
    bool sealed = tempo_secure_available();
    gate_server g;
    gate_client c;
    server_up(&g, sealed);
    uint8_t token[TEMPO_TOKEN_SIZE];
    if (sealed)
        make_token(token, backend_key, PROTOCOL, &server_addr, NOW_S + 30);
    client_up(&c, sealed ? token : NULL, T0);
    wire resp = challenged(&g, &c, T0), resp2 = client_sends(&c, T0 + 100000), reply, out;
    fake_server s = {2, 0, {0}, {{0}}, 0};
    gate_admit admit;
    const wire *copies[3] = {&resp, &resp, &resp2}; /* the response, a copy, a retry */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(to_server(&g, T0 + 200000, &client_addr, copies[i], &reply, &admit),
                         GATE_ADMIT);
        fake_admit(&s, &g, &admit, &out);
        assert_int_equal(out.size, 0);
    }
    assert_int_equal(g.stats.admissions, 3);
    assert_int_equal(s.count, 1);
}

static void test_a_full_server_denies_and_the_client_gives_up(void **state)
{
    (void)state;
    bool sealed = tempo_secure_available();
    gate_server g;
    gate_client c;
    server_up(&g, sealed);
    uint8_t token[TEMPO_TOKEN_SIZE];
    if (sealed)
        make_token(token, backend_key, PROTOCOL, &server_addr, NOW_S + 30);
    client_up(&c, sealed ? token : NULL, T0);
    wire resp = challenged(&g, &c, T0), reply, out;
    fake_server s = {0, 0, {0}, {{0}}, 0};
    gate_admit admit;
    assert_int_equal(to_server(&g, T0, &client_addr, &resp, &reply, &admit), GATE_ADMIT);
    fake_admit(&s, &g, &admit, &out);
    assert_int_equal(out.size, sealed ? CONNECT_DENIED_SEALED_SIZE : CONNECT_DENIED_PLAIN_SIZE);
    assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, out.buf, out.size),
                     GATE_CLIENT_GOT_DENIED);
    assert_int_equal(gate_client_update(&c, T0), GATE_CLIENT_DENIED);
    assert_false(gate_client_due(&c, T0 + 10000000));
    assert_int_equal(gate_client_write(&c, T0, out.buf, sizeof out.buf), TEMPO_E_STATE);
    assert_int_equal(g.stats.denials, 1);
}

/* ---- forged and replayed server messages at the client --------------- */

static void test_forged_or_old_denials_do_not_end_a_handshake(void **state)
{
    (void)state;
    NEED_SODIUM();
    gate_server g;
    gate_client c;
    server_up(&g, true);
    uint8_t token[TEMPO_TOKEN_SIZE];
    make_token(token, backend_key, PROTOCOL, &server_addr, NOW_S + 30);

    /* an earlier attempt under the same token was denied: keep that denial */
    client_up(&c, token, T0);
    wire resp = challenged(&g, &c, T0), reply, old_denial;
    gate_admit admit;
    assert_int_equal(to_server(&g, T0, &client_addr, &resp, &reply, &admit), GATE_ADMIT);
    old_denial.size = (size_t)gate_server_deny(&g, &admit, old_denial.buf, sizeof old_denial.buf);

    client_up(&c, token, T0 + 1000000);
    resp = challenged(&g, &c, T0 + 1000000);
    uint64_t ignored = c.stats.ignored;
    /* 1: the old denial, genuine but older than this challenge */
    assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, old_denial.buf, old_denial.size),
                     GATE_CLIENT_NOTHING);
    /* 2: a plain denial carrying the client id */
    wire f;
    f.size = (size_t)connect_denied_write(f.buf, sizeof f.buf, PROTOCOL, NULL, 0, CLIENT);
    assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, f.buf, f.size),
                     GATE_CLIENT_NOTHING);
    /* 3: sealed under another key, with a sequence far ahead */
    uint8_t wrong[TEMPO_KEY_SIZE];
    memset(wrong, 0x77, sizeof wrong);
    f.size = (size_t)connect_denied_write(f.buf, sizeof f.buf, PROTOCOL, wrong,
                                          0xFFFFFFFFFFFFFF00ull, 0);
    assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, f.buf, f.size),
                     GATE_CLIENT_NOTHING);
    /* 4: the real one's bytes, sent from another address */
    wire den;
    assert_int_equal(to_server(&g, T0 + 1000000, &client_addr, &resp, &reply, &admit), GATE_ADMIT);
    den.size = (size_t)gate_server_deny(&g, &admit, den.buf, sizeof den.buf);
    assert_int_equal(gate_client_on_datagram(&c, T0, &other_addr, den.buf, den.size),
                     GATE_CLIENT_NOTHING);
    assert_int_equal(c.stats.ignored, ignored + 4);
    assert_int_equal(c.stats.forged, 3);
    assert_int_equal(gate_client_update(&c, T0 + 1000000), GATE_CLIENT_RESPONDING);
    /* the real denial, from the server */
    assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, den.buf, den.size),
                     GATE_CLIENT_GOT_DENIED);
    seal_keys_wipe(&admit.keys);
}

static void test_a_copy_of_an_older_challenge_does_not_replace_the_cookie(void **state)
{
    (void)state;
    NEED_SODIUM();
    gate_server g;
    gate_client c;
    server_up(&g, true);
    uint8_t token[TEMPO_TOKEN_SIZE];
    make_token(token, backend_key, PROTOCOL, &server_addr, NOW_S + 30);
    client_up(&c, token, T0);
    wire req = client_sends(&c, T0), ch1, ch2;
    gate_admit admit;
    assert_int_equal(to_server(&g, T0, &client_addr, &req, &ch1, &admit), GATE_REPLY);
    assert_int_equal(to_server(&g, T0 + 5, &client_addr, &req, &ch2, &admit), GATE_REPLY);
    assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, ch2.buf, ch2.size),
                     GATE_CLIENT_CHALLENGED);
    uint8_t held[COOKIE_SEALED_SIZE];
    memcpy(held, c.cookie, sizeof held);
    assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, ch1.buf, ch1.size),
                     GATE_CLIENT_NOTHING);
    assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, ch2.buf, ch2.size),
                     GATE_CLIENT_NOTHING);
    assert_memory_equal(held, c.cookie, sizeof held);
    /* a challenge altered anywhere does not open */
    for (size_t i = PACKET_HEADER_SIZE; i < ch2.size; i += 7) {
        wire w = ch2;
        w.buf[i] ^= 4;
        assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, w.buf, w.size),
                         GATE_CLIENT_NOTHING);
    }
    assert_memory_equal(held, c.cookie, sizeof held);
}

static void test_a_connected_client_ignores_handshake_messages(void **state)
{
    (void)state;
    bool sealed = tempo_secure_available();
    gate_server g;
    gate_client c;
    server_up(&g, sealed);
    uint8_t token[TEMPO_TOKEN_SIZE];
    if (sealed)
        make_token(token, backend_key, PROTOCOL, &server_addr, NOW_S + 30);
    client_up(&c, sealed ? token : NULL, T0);
    wire req = client_sends(&c, T0), ch, den, reply;
    gate_admit admit;
    assert_int_equal(to_server(&g, T0, &client_addr, &req, &ch, &admit), GATE_REPLY);
    assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, ch.buf, ch.size),
                     GATE_CLIENT_CHALLENGED);
    wire resp = client_sends(&c, T0);
    assert_int_equal(to_server(&g, T0, &client_addr, &resp, &reply, &admit), GATE_ADMIT);
    den.size = (size_t)gate_server_deny(&g, &admit, den.buf, sizeof den.buf);
    assert_int_equal(gate_client_connected(&c), TEMPO_OK);
    /* a fresher challenge (a late copy of a request answered) and a
     * genuine denial: neither restarts nor ends the connection */
    assert_int_equal(to_server(&g, T0, &client_addr, &req, &ch, &admit), GATE_REPLY);
    assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, ch.buf, ch.size),
                     GATE_CLIENT_NOTHING);
    assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, den.buf, den.size),
                     GATE_CLIENT_NOTHING);
    assert_int_equal(gate_client_update(&c, T0), GATE_CLIENT_CONNECTED);
    assert_int_equal(c.stats.ignored, 2);
    assert_int_equal(gate_client_connected(&c), TEMPO_E_STATE);
    seal_keys_wipe(&admit.keys);
}

/* ---- nonces across attempts under one token -------------------------- */

/* The same 12-byte datagram sealed with k at seq: equal bytes from two
 * connections mean one (key, nonce) sealed both. */
static wire sealed_probe(const wire_keys *k, uint64_t seq)
{
    wire w;
    memset(w.buf, 0, sizeof w.buf);
    tempo_packet_header h = {7, (uint16_t)seq, 5, false, false};
    assert_int_equal(packet_write(&h, w.buf, sizeof w.buf), 8);
    int n = seal_datagram(k, seq, w.buf, 12, sizeof w.buf);
    assert_int_equal(n, 28);
    w.size = (size_t)n;
    return w;
}

static void test_a_token_used_for_two_connections_never_repeats_a_nonce(void **state)
{
    (void)state;
    NEED_SODIUM();
    gate_server g;
    gate_client c1, c2;
    server_up(&g, true);
    uint8_t token[TEMPO_TOKEN_SIZE];
    make_token(token, backend_key, PROTOCOL, &server_addr, NOW_S + 30);
    gate_admit a1, a2;
    wire none;

    /* a first connection under the token, then a second one (the first
     * was dropped, or the client moves on to the token's next server) */
    client_up(&c1, token, T0);
    wire r1 = challenged(&g, &c1, T0);
    assert_int_equal(to_server(&g, T0, &client_addr, &r1, &none, &a1), GATE_ADMIT);
    client_up(&c2, token, T0 + 2000000);
    wire r2 = challenged(&g, &c2, T0 + 2000000);
    assert_int_equal(to_server(&g, T0 + 2000000, &client_addr, &r2, &none, &a2), GATE_ADMIT);

    /* both responses carry sequence 0; neither verifies under the other's key */
    assert_memory_equal(r1.buf + CONNECT_AT_SEQUENCE, r2.buf + CONNECT_AT_SEQUENCE, 8);
    assert_false(connect_response_verify(r1.buf, r1.size, c2.keys.send_key));
    assert_false(connect_response_verify(r2.buf, r2.size, c1.keys.send_key));
    /* the server's datagrams count from 0 in each connection, the client's
     * from next_sequence: the same bytes sealed give different ciphertexts */
    wire s1 = sealed_probe(&a1.keys, 0), s2 = sealed_probe(&a2.keys, 0);
    assert_memory_not_equal(s1.buf + 8, s2.buf + 8, 20);
    assert_int_equal(c1.next_sequence, c2.next_sequence);
    wire k1 = sealed_probe(&c1.keys, c1.next_sequence), k2 = sealed_probe(&c2.keys, c2.next_sequence);
    assert_memory_not_equal(k1.buf + 8, k2.buf + 8, 20);
    /* each connection still works end to end */
    assert_int_equal(seal_open(&c1.keys, 0, s1.buf, s1.size, NULL), 12);
    assert_int_equal(seal_open(&c2.keys, 0, s2.buf, s2.size, NULL), 12);
    assert_int_equal(seal_open(&a1.keys, c1.next_sequence, k1.buf, k1.size, NULL), 12);
    assert_int_equal(seal_open(&a2.keys, c2.next_sequence, k2.buf, k2.size, NULL), 12);
    seal_keys_wipe(&a1.keys);
    seal_keys_wipe(&a2.keys);
    gate_server_wipe(&g);
    gate_client_wipe(&c1);
    gate_client_wipe(&c2);
}

/* Two challenges in flight (a request and its retry): the client keeps
 * the first it takes, so whichever of its responses the server admits,
 * the connection's keys are the same at both ends. */
static void test_a_second_challenge_does_not_change_the_connection_keys(void **state)
{
    (void)state;
    NEED_SODIUM();
    gate_server g;
    gate_client c;
    server_up(&g, true);
    uint8_t token[TEMPO_TOKEN_SIZE];
    make_token(token, backend_key, PROTOCOL, &server_addr, NOW_S + 30);
    client_up(&c, token, T0);
    wire req = client_sends(&c, T0), ch1, ch2, none;
    gate_admit admit;
    assert_int_equal(to_server(&g, T0, &client_addr, &req, &ch1, &admit), GATE_REPLY);
    assert_int_equal(to_server(&g, T0 + 5, &client_addr, &req, &ch2, &admit), GATE_REPLY);
    assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, ch1.buf, ch1.size),
                     GATE_CLIENT_CHALLENGED);
    wire resp = client_sends(&c, T0);
    assert_int_equal(gate_client_on_datagram(&c, T0, &server_addr, ch2.buf, ch2.size),
                     GATE_CLIENT_NOTHING);
    wire retry = client_sends(&c, T0 + 100000);
    const wire *sent[2] = {&resp, &retry};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(to_server(&g, T0 + 200000, &client_addr, sent[i], &none, &admit),
                         GATE_ADMIT);
        wire d = sealed_probe(&admit.keys, 0);
        assert_int_equal(seal_open(&c.keys, 0, d.buf, d.size, NULL), 12);
        seal_keys_wipe(&admit.keys);
    }
    gate_server_wipe(&g);
    gate_client_wipe(&c);
}

/* ---- the client's clock ---------------------------------------------- */

static void test_the_client_retries_on_its_period_and_times_out(void **state)
{
    (void)state;
    gate_server g;
    gate_client c;
    server_up(&g, false);
    client_up(&c, NULL, T0);
    assert_true(gate_client_due(&c, T0));
    wire w = client_sends(&c, T0);
    assert_false(gate_client_due(&c, T0 + GATE_DEFAULT_RETRY_US - 1));
    assert_true(gate_client_due(&c, T0 + GATE_DEFAULT_RETRY_US));
    int sends = 1;
    for (uint64_t t = T0; t < T0 + GATE_DEFAULT_TIMEOUT_US; t += 1000) {
        assert_int_equal(gate_client_update(&c, t), GATE_CLIENT_REQUESTING);
        if (gate_client_due(&c, t)) {
            w = client_sends(&c, t);
            sends++;
        }
    }
    assert_int_equal(sends, GATE_DEFAULT_TIMEOUT_US / GATE_DEFAULT_RETRY_US);
    assert_int_equal(c.stats.requests, sends);
    assert_int_equal(gate_client_update(&c, T0 + GATE_DEFAULT_TIMEOUT_US), GATE_CLIENT_TIMED_OUT);
    assert_false(gate_client_due(&c, T0 + GATE_DEFAULT_TIMEOUT_US));
    assert_int_equal(gate_client_write(&c, T0, w.buf, sizeof w.buf), TEMPO_E_STATE);
    /* a challenge after the timeout is ignored */
    wire ch;
    gate_admit admit;
    assert_int_equal(to_server(&g, T0, &client_addr, &w, &ch, &admit), GATE_REPLY);
    assert_int_equal(gate_client_on_datagram(&c, T0 + GATE_DEFAULT_TIMEOUT_US, &server_addr,
                                             ch.buf, ch.size),
                     GATE_CLIENT_NOTHING);
    assert_int_equal(c.stats.challenges, 0);
}

static void test_a_challenged_client_retries_its_response_then_times_out(void **state)
{
    (void)state;
    gate_server g;
    gate_client c;
    server_up(&g, false);
    client_up(&c, NULL, T0);
    (void)challenged(&g, &c, T0 + 50000);
    assert_false(gate_client_due(&c, T0 + 50000 + GATE_DEFAULT_RETRY_US - 1));
    assert_true(gate_client_due(&c, T0 + 50000 + GATE_DEFAULT_RETRY_US));
    assert_int_equal(gate_client_update(&c, T0 + GATE_DEFAULT_TIMEOUT_US - 1),
                     GATE_CLIENT_RESPONDING);
    assert_int_equal(gate_client_update(&c, T0 + GATE_DEFAULT_TIMEOUT_US), GATE_CLIENT_TIMED_OUT);
    assert_int_equal(gate_client_connected(&c), TEMPO_E_STATE);
    wire w;
    assert_int_equal(gate_client_write(&c, T0, w.buf, sizeof w.buf), TEMPO_E_STATE);
}

static void test_init_refuses_what_it_cannot_use(void **state)
{
    (void)state;
    fixtures();
    gate_client c;
    gate_client_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.protocol_id = PROTOCOL;
    cfg.server = server_addr;
    cfg.slots = 1;
    assert_int_equal(gate_client_init(&c, &cfg, T0), TEMPO_E_INVALID_ARG); /* nonce 0 */
    cfg.nonce = 1;
    cfg.slots = CONNECT_MAX_SLOTS + 1;
    assert_int_equal(gate_client_init(&c, &cfg, T0), TEMPO_E_INVALID_ARG);
    cfg.slots = 1;
    cfg.retry_us = 10;
    assert_int_equal(gate_client_init(&c, &cfg, T0), TEMPO_E_INVALID_ARG);
    cfg.retry_us = 0;
    uint8_t junk[TEMPO_TOKEN_SIZE] = {0};
    cfg.token = junk;
    assert_int_equal(gate_client_init(&c, &cfg, T0), TEMPO_E_MALFORMED);
    gate_server g;
    gate_server_config sc;
    memset(&sc, 0, sizeof sc);
    sc.cookie_lifetime_us = 60000001;
    assert_int_equal(gate_server_init(&g, &sc, cookie_key), TEMPO_E_INVALID_ARG);
    sc.cookie_lifetime_us = 0;
    sc.has_private_key = true;
    assert_int_equal(gate_server_init(&g, &sc, cookie_key),
                     tempo_secure_available() ? TEMPO_OK : TEMPO_E_UNSUPPORTED);
    if (tempo_secure_available()) {
        assert_true(g.cfg.cookie_lifetime_us == GATE_DEFAULT_COOKIE_LIFETIME_US);
        assert_true(g.reply_sequence >> 63 == 1);
        uint8_t t[TEMPO_TOKEN_SIZE];
        make_token(t, backend_key, PROTOCOL + 1, &server_addr, NOW_S + 30);
        cfg.token = t;
        assert_int_equal(gate_client_init(&c, &cfg, T0), TEMPO_E_PROTOCOL);
    }
}

/* ---- the document's vectors ------------------------------------------ */

/* docs/PROTOCOL.md 12.7: an unsealed server, protocol id
 * 0x1122334455667788, cookie key 00 01 .. 1f, the client 10.0.0.2:50000
 * with nonce 0x0102030405060708 asking for 2 slots, at 1 s on the
 * server's clock. */
static void test_plain_messages_are_the_documents_vectors(void **state)
{
    (void)state;
    const uint64_t protocol = 0x1122334455667788ull;
    uint8_t key[TEMPO_KEY_SIZE];
    for (int i = 0; i < TEMPO_KEY_SIZE; i++)
        key[i] = (uint8_t)i;
    tempo_address srv = tempo_address_ipv4(10, 0, 0, 1, 40000);
    tempo_address cli = tempo_address_ipv4(10, 0, 0, 2, 50000);
    gate_server g;
    gate_server_config sc;
    memset(&sc, 0, sizeof sc);
    sc.protocol_id = protocol;
    assert_int_equal(gate_server_init(&g, &sc, key), TEMPO_OK);
    gate_client c;
    gate_client_config cc;
    memset(&cc, 0, sizeof cc);
    cc.protocol_id = protocol;
    cc.nonce = 0x0102030405060708ull;
    cc.server = srv;
    cc.slots = 2;
    assert_int_equal(gate_client_init(&c, &cc, 0), TEMPO_OK);

    wire m[4];
    gate_admit admit;
    m[0] = client_sends(&c, 0);
    assert_int_equal(gate_server_on_datagram(&g, 1000000, 0, &cli, m[0].buf, m[0].size, m[1].buf,
                                             sizeof m[1].buf, &m[1].size, &admit),
                     GATE_REPLY);
    assert_int_equal(gate_client_on_datagram(&c, 0, &srv, m[1].buf, m[1].size),
                     GATE_CLIENT_CHALLENGED);
    m[2] = client_sends(&c, 0);
    size_t none;
    assert_int_equal(gate_server_on_datagram(&g, 1000000, 0, &cli, m[2].buf, m[2].size, m[3].buf,
                                             sizeof m[3].buf, &none, &admit),
                     GATE_ADMIT);
    int n = gate_server_deny(&g, &admit, m[3].buf, sizeof m[3].buf);
    assert_true(n > 0);
    m[3].size = (size_t)n;
    /* the request's vector is its first 26 bytes; the rest is zero */
    for (size_t i = 26; i < m[0].size; i++)
        assert_int_equal(m[0].buf[i], 0);
    m[0].size = 26;

    static const char *const names[4] = {"request_head", "challenge", "response", "denied"};
    FILE *f = fopen(TEMPO_SOURCE_DIR "/docs/PROTOCOL.md", "r");
    assert_non_null(f);
    char line[1024], name[64];
    const char *hex;
    int seen = 0;
    while ((hex = doc_next(f, "handshake", line, sizeof line, name)) != NULL) {
        uint8_t want[TEMPO_MAX_DATAGRAM];
        int len = from_hex(hex, want, sizeof want);
        int k = 0;
        while (k < 4 && strcmp(name, names[k]) != 0)
            k++;
        if (k == 4 || len < 0)
            fail_msg("handshake vector %s: unknown or malformed", name);
        if ((size_t)len != m[k].size || memcmp(want, m[k].buf, m[k].size) != 0) {
            print_message("handshake %s", name);
            for (size_t i = 0; i < m[k].size; i++)
                print_message(" %02x", m[k].buf[i]);
            print_message("\n");
            fail_msg("handshake vector %s differs from the code's bytes", name);
        }
        seen |= 1 << k;
    }
    fclose(f);
    assert_int_equal(seen, 15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sealed_handshake_admits_with_the_token_id_keys_and_sequences),
        cmocka_unit_test(test_unsealed_handshake_admits_the_nonce_as_client_id),
        cmocka_unit_test(test_handshake_types_are_named_but_not_decoded_by_the_codec),
        cmocka_unit_test(test_no_reply_to_a_stranger_is_larger_than_its_datagram_unsealed),
        cmocka_unit_test(test_no_reply_to_a_stranger_is_larger_than_its_datagram_sealed),
        cmocka_unit_test(test_the_server_side_allocates_nothing),
        cmocka_unit_test(test_a_response_replayed_from_another_address_is_refused_unsealed),
        cmocka_unit_test(test_a_response_replayed_from_another_address_is_refused_sealed),
        cmocka_unit_test(test_a_stale_cookie_is_refused),
        cmocka_unit_test(test_cookies_of_the_previous_key_open_and_older_ones_do_not),
        cmocka_unit_test(test_a_spoofed_request_cannot_be_completed_without_the_challenge),
        cmocka_unit_test(test_bad_tokens_are_refused_by_reason_and_honest_clients_still_get_in),
        cmocka_unit_test(test_a_refusal_note_names_the_role_and_is_never_cut),
        cmocka_unit_test(test_a_token_request_to_an_unsealed_server_is_the_wrong_mode),
        cmocka_unit_test(test_a_forged_response_seal_is_refused),
        cmocka_unit_test(test_a_copy_of_a_response_does_not_make_a_second_client),
        cmocka_unit_test(test_a_full_server_denies_and_the_client_gives_up),
        cmocka_unit_test(test_forged_or_old_denials_do_not_end_a_handshake),
        cmocka_unit_test(test_a_token_used_for_two_connections_never_repeats_a_nonce),
        cmocka_unit_test(test_a_second_challenge_does_not_change_the_connection_keys),
        cmocka_unit_test(test_a_copy_of_an_older_challenge_does_not_replace_the_cookie),
        cmocka_unit_test(test_a_connected_client_ignores_handshake_messages),
        cmocka_unit_test(test_the_client_retries_on_its_period_and_times_out),
        cmocka_unit_test(test_a_challenged_client_retries_its_response_then_times_out),
        cmocka_unit_test(test_init_refuses_what_it_cannot_use),
        cmocka_unit_test(test_plain_messages_are_the_documents_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
