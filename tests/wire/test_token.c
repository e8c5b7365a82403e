/* SPDX-License-Identifier: MIT */
/*
 * test_token.c — connect tokens: what the backend puts in comes out at the
 * client (public part) and the server (private part) exactly; the private
 * part is not readable in the token; expired, altered, foreign-protocol,
 * other-key and other-server tokens are refused, each with its own error;
 * malformed public parts are refused; refusals leave no key behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tempo/secure.h"
#include "wire/token.h"

#define PROTOCOL 0x1122334455667788ull
#define CLIENT 0xC11E27C11E27ull
#define NOW 1700000000ull
#define EXPIRE (NOW + 30)

static uint8_t backend_key[TEMPO_KEY_SIZE];
static tempo_address servers[3];
static uint8_t user[TEMPO_TOKEN_USER_DATA_SIZE];
static uint8_t token[TEMPO_TOKEN_SIZE];

static int setup(void **state)
{
    (void)state;
    for (int i = 0; i < TEMPO_KEY_SIZE; i++)
        backend_key[i] = (uint8_t)(200 - i);
    for (int i = 0; i < TEMPO_TOKEN_USER_DATA_SIZE; i++)
        user[i] = (uint8_t)(i ^ 0x5C);
    servers[0] = tempo_address_ipv4(10, 0, 0, 1, 40000);
    tempo_address_parse(&servers[1], "[2001:db8::7]:40001");
    static const uint8_t id[5] = {9, 8, 7, 6, 5};
    tempo_address_opaque(&servers[2], id, sizeof id, 3);
    if (!tempo_secure_available())
        return 0;
    return tempo_token_create(backend_key, PROTOCOL, CLIENT, EXPIRE, NOW, servers, 3, user, token) ==
                   TEMPO_OK
               ? 0
               : -1;
}

/* Skip without libsodium; otherwise make the token (the Windows cmocka
 * subset runs no group setup, so each test calls it). */
#define NEED_SODIUM()                     \
    do {                                  \
        if (!tempo_secure_available())    \
            skip();                       \
        assert_int_equal(setup(NULL), 0); \
    } while (0)

static bool all_zero(const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != 0)
            return false;
    return true;
}

static void test_without_libsodium_tokens_are_unsupported(void **state)
{
    (void)state;
    if (tempo_secure_available())
        skip();
    assert_int_equal(setup(NULL), 0);
    uint8_t t[TEMPO_TOKEN_SIZE], key[TEMPO_KEY_SIZE];
    assert_int_equal(tempo_key_generate(key), TEMPO_E_UNSUPPORTED);
    assert_int_equal(tempo_token_create(backend_key, PROTOCOL, CLIENT, EXPIRE, NOW, servers, 1,
                                        NULL, t),
                     TEMPO_E_UNSUPPORTED);
    assert_true(all_zero(t, sizeof t));
    tempo_token_private p;
    assert_int_equal(tempo_token_open_private(backend_key, PROTOCOL, NOW, NULL, t, sizeof t, &p),
                     TEMPO_E_UNSUPPORTED);
}

static void test_client_and_server_read_what_the_backend_wrote(void **state)
{
    (void)state;
    NEED_SODIUM();
    tempo_token_public pub;
    assert_int_equal(tempo_token_read_public(token, sizeof token, &pub), TEMPO_OK);
    assert_true(pub.protocol_id == PROTOCOL);
    assert_true(pub.create_seconds == NOW);
    assert_true(pub.expire_seconds == EXPIRE);
    assert_int_equal(pub.num_servers, 3);
    for (int i = 0; i < 3; i++)
        assert_true(tempo_address_equal(&pub.servers[i], &servers[i]));
    assert_true(all_zero(&pub.servers[3], sizeof pub.servers[3] * 5));
    assert_false(all_zero(pub.client_to_server_key, TEMPO_KEY_SIZE));
    assert_true(memcmp(pub.client_to_server_key, pub.server_to_client_key, TEMPO_KEY_SIZE) != 0);

    tempo_token_private priv;
    assert_int_equal(tempo_token_open_private(backend_key, PROTOCOL, NOW, &servers[1], token,
                                              TEMPO_TOKEN_CONNECT_SIZE, &priv),
                     TEMPO_OK);
    assert_true(priv.client_id == CLIENT);
    assert_true(priv.protocol_id == PROTOCOL);
    assert_true(priv.create_seconds == NOW && priv.expire_seconds == EXPIRE);
    assert_int_equal(priv.num_servers, 3);
    for (int i = 0; i < 3; i++)
        assert_true(tempo_address_equal(&priv.servers[i], &servers[i]));
    assert_memory_equal(priv.client_to_server_key, pub.client_to_server_key, TEMPO_KEY_SIZE);
    assert_memory_equal(priv.server_to_client_key, pub.server_to_client_key, TEMPO_KEY_SIZE);
    assert_memory_equal(priv.user_data, user, sizeof user);
    tempo_wipe(&priv, sizeof priv);
    assert_true(all_zero(&priv, sizeof priv));

    /* the whole token opens as well as its connect part; no self: any server */
    assert_int_equal(tempo_token_open_private(backend_key, PROTOCOL, EXPIRE - 1, NULL, token,
                                              sizeof token, &priv),
                     TEMPO_OK);
    assert_true(priv.client_id == CLIENT);
}

static void test_the_private_part_is_not_readable_in_the_token(void **state)
{
    (void)state;
    NEED_SODIUM();
    uint8_t id[8];
    for (int i = 0; i < 8; i++)
        id[i] = (uint8_t)(CLIENT >> (8 * i));
    for (size_t at = 0; at + 8 <= sizeof token; at++)
        assert_true(memcmp(token + at, id, 8) != 0);
    for (size_t at = 0; at + 16 <= sizeof token; at++)
        assert_true(memcmp(token + at, user, 16) != 0);
    /* and two tokens for the same client share neither nonce nor keys */
    uint8_t again[TEMPO_TOKEN_SIZE];
    assert_int_equal(tempo_token_create(backend_key, PROTOCOL, CLIENT, EXPIRE, NOW, servers, 3,
                                        user, again),
                     TEMPO_OK);
    assert_true(memcmp(again + TOKEN_AT_NONCE, token + TOKEN_AT_NONCE, TOKEN_NONCE_SIZE) != 0);
    assert_true(memcmp(again + TOKEN_AT_C2S, token + TOKEN_AT_C2S, TEMPO_KEY_SIZE) != 0);
    assert_memory_equal(again, token, TOKEN_AT_NONCE); /* the clear fields agree */
}

static void test_an_expired_token_is_refused(void **state)
{
    (void)state;
    NEED_SODIUM();
    tempo_token_private priv;
    assert_int_equal(tempo_token_open_private(backend_key, PROTOCOL, EXPIRE, NULL, token,
                                              sizeof token, &priv),
                     TEMPO_E_EXPIRED);
    assert_int_equal(tempo_token_open_private(backend_key, PROTOCOL, EXPIRE + 86400, NULL, token,
                                              sizeof token, &priv),
                     TEMPO_E_EXPIRED);
    assert_true(all_zero(&priv, sizeof priv));
    assert_int_equal(tempo_token_open_private(backend_key, PROTOCOL, EXPIRE - 1, NULL, token,
                                              sizeof token, &priv),
                     TEMPO_OK);
    /* pushing the expiry later in the clear breaks the seal */
    uint8_t t[TEMPO_TOKEN_SIZE];
    memcpy(t, token, sizeof t);
    t[TOKEN_AT_EXPIRE + 4] += 1; /* 2^32 seconds later */
    assert_int_equal(tempo_token_open_private(backend_key, PROTOCOL, EXPIRE, NULL, t, sizeof t,
                                              &priv),
                     TEMPO_E_AUTH);
}

static void test_any_altered_byte_of_the_connect_part_is_refused(void **state)
{
    (void)state;
    NEED_SODIUM();
    tempo_token_private priv;
    for (size_t at = 0; at < TEMPO_TOKEN_CONNECT_SIZE; at++) {
        for (int bit = 0; bit < 8; bit += 3) {
            uint8_t t[TEMPO_TOKEN_CONNECT_SIZE];
            memcpy(t, token, sizeof t);
            t[at] ^= (uint8_t)(1u << bit);
            int rc = tempo_token_open_private(backend_key, PROTOCOL, NOW, NULL, t, sizeof t, &priv);
            int want = at < TOKEN_AT_PROTOCOL ? TEMPO_E_MALFORMED
                       : at < TOKEN_AT_CREATE ? TEMPO_E_PROTOCOL
                                              : TEMPO_E_AUTH;
            /* a lower expiry byte may be flipped to a time already past */
            if (at >= TOKEN_AT_EXPIRE && at < TOKEN_AT_NONCE && rc == TEMPO_E_EXPIRED)
                want = TEMPO_E_EXPIRED;
            if (rc != want)
                fail_msg("byte %zu bit %d: %s, want %s", at, bit, tempo_result_name(rc),
                         tempo_result_name(want));
            assert_true(all_zero(&priv, sizeof priv));
        }
    }
}

static void test_a_token_for_another_protocol_key_or_server_is_refused(void **state)
{
    (void)state;
    NEED_SODIUM();
    tempo_token_private priv;
    assert_int_equal(tempo_token_open_private(backend_key, PROTOCOL + 1, NOW, NULL, token,
                                              sizeof token, &priv),
                     TEMPO_E_PROTOCOL);
    uint8_t other_key[TEMPO_KEY_SIZE];
    memcpy(other_key, backend_key, sizeof other_key);
    other_key[5] ^= 0x10;
    assert_int_equal(tempo_token_open_private(other_key, PROTOCOL, NOW, NULL, token, sizeof token,
                                              &priv),
                     TEMPO_E_AUTH);
    tempo_address elsewhere = tempo_address_ipv4(10, 0, 0, 1, 40002); /* another port */
    assert_int_equal(tempo_token_open_private(backend_key, PROTOCOL, NOW, &elsewhere, token,
                                              sizeof token, &priv),
                     TEMPO_E_ADDRESS);
    assert_true(all_zero(&priv, sizeof priv));
    assert_int_equal(tempo_token_open_private(backend_key, PROTOCOL, NOW, NULL, token,
                                              TEMPO_TOKEN_CONNECT_SIZE - 1, &priv),
                     TEMPO_E_MALFORMED);
    assert_int_equal(tempo_token_open_private(NULL, PROTOCOL, NOW, NULL, token, sizeof token, &priv),
                     TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_token_open_private(backend_key, PROTOCOL, NOW, NULL, NULL, 0, &priv),
                     TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_token_open_private(backend_key, PROTOCOL, NOW, NULL, token, sizeof token,
                                              NULL),
                     TEMPO_E_INVALID_ARG);
}

static void test_create_refuses_bad_arguments_and_leaves_zeros(void **state)
{
    (void)state;
    NEED_SODIUM();
    uint8_t t[TEMPO_TOKEN_SIZE];
#define REFUSED(want, ...)                                       \
    do {                                                         \
        memset(t, 0xEE, sizeof t);                               \
        assert_int_equal(tempo_token_create(__VA_ARGS__), want); \
        assert_true(all_zero(t, sizeof t));                      \
    } while (0)
    REFUSED(TEMPO_E_INVALID_ARG, NULL, PROTOCOL, CLIENT, EXPIRE, NOW, servers, 1, NULL, t);
    REFUSED(TEMPO_E_INVALID_ARG, backend_key, PROTOCOL, CLIENT, EXPIRE, NOW, NULL, 1, NULL, t);
    REFUSED(TEMPO_E_INVALID_ARG, backend_key, PROTOCOL, CLIENT, EXPIRE, NOW, servers, 0, NULL, t);
    REFUSED(TEMPO_E_INVALID_ARG, backend_key, PROTOCOL, CLIENT, EXPIRE, NOW, servers,
            TEMPO_TOKEN_MAX_SERVERS + 1, NULL, t);
    REFUSED(TEMPO_E_INVALID_ARG, backend_key, PROTOCOL, CLIENT, NOW, NOW, servers, 1, NULL, t);
    tempo_address bad[2] = {servers[0]};
    REFUSED(TEMPO_E_ADDRESS, backend_key, PROTOCOL, CLIENT, EXPIRE, NOW, bad, 2, NULL, t);
    bad[1] = servers[2];
    bad[1].id_size = TEMPO_ADDRESS_ID_MAX + 1;
    REFUSED(TEMPO_E_ADDRESS, backend_key, PROTOCOL, CLIENT, EXPIRE, NOW, bad, 2, NULL, t);
#undef REFUSED
    assert_int_equal(tempo_token_create(backend_key, PROTOCOL, CLIENT, EXPIRE, NOW, servers, 1,
                                        NULL, NULL),
                     TEMPO_E_INVALID_ARG);
    /* eight servers fit; user data NULL reads back as zeros */
    tempo_address eight[TEMPO_TOKEN_MAX_SERVERS];
    for (int i = 0; i < TEMPO_TOKEN_MAX_SERVERS; i++)
        eight[i] = tempo_address_ipv4(192, 168, 1, (uint8_t)i, (uint16_t)(5000 + i));
    assert_int_equal(tempo_token_create(backend_key, PROTOCOL, CLIENT, EXPIRE, NOW, eight,
                                        TEMPO_TOKEN_MAX_SERVERS, NULL, t),
                     TEMPO_OK);
    tempo_token_private priv;
    assert_int_equal(tempo_token_open_private(backend_key, PROTOCOL, NOW, &eight[7], t, sizeof t,
                                              &priv),
                     TEMPO_OK);
    assert_true(all_zero(priv.user_data, sizeof priv.user_data));
}

static void test_a_malformed_public_part_is_refused(void **state)
{
    (void)state;
    NEED_SODIUM();
    tempo_token_public pub;
    uint8_t t[TEMPO_TOKEN_SIZE];
    struct {
        size_t at;
        uint8_t value;
    } const breaks[] = {
        {0, 'X'},                                     /* version */
        {TOKEN_AT_COUNT, 0},                          /* no server */
        {TOKEN_AT_COUNT, TEMPO_TOKEN_MAX_SERVERS + 1}, /* too many */
        {TOKEN_AT_COUNT + 1, 1},                      /* padding */
        {TOKEN_AT_SERVERS + 3 * TOKEN_SLOT_SIZE, 4},  /* a slot past the count */
        {TOKEN_AT_SERVERS, 2},                        /* family 2 */
        {TOKEN_AT_SERVERS + 1, 1},                    /* an id size on IPv4 */
        {TOKEN_AT_SERVERS + 2 + 4, 1},                /* a byte past IPv4's four */
        {TOKEN_AT_SERVERS + 2 * TOKEN_SLOT_SIZE + 1, 0}, /* an opaque id of 0 bytes */
        {TEMPO_TOKEN_SIZE - 1, 1},                    /* the final padding */
        {TOKEN_AT_CREATE + 7, 0xFF},                  /* created after it expires */
    };
    for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
        memcpy(t, token, sizeof t);
        t[breaks[i].at] = breaks[i].value;
        if (tempo_token_read_public(t, sizeof t, &pub) != TEMPO_E_MALFORMED)
            fail_msg("break %zu (byte %zu) accepted", i, breaks[i].at);
        assert_true(all_zero(&pub, sizeof pub));
    }
    assert_int_equal(tempo_token_read_public(token, TEMPO_TOKEN_SIZE - 1, &pub), TEMPO_E_MALFORMED);
    assert_int_equal(tempo_token_read_public(NULL, TEMPO_TOKEN_SIZE, &pub), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_token_read_public(token, TEMPO_TOKEN_SIZE, NULL), TEMPO_E_INVALID_ARG);
}

static void test_generated_keys_differ(void **state)
{
    (void)state;
    NEED_SODIUM();
    uint8_t k1[TEMPO_KEY_SIZE], k2[TEMPO_KEY_SIZE];
    assert_int_equal(tempo_key_generate(k1), TEMPO_OK);
    assert_int_equal(tempo_key_generate(k2), TEMPO_OK);
    assert_true(memcmp(k1, k2, sizeof k1) != 0);
    assert_int_equal(tempo_key_generate(NULL), TEMPO_E_INVALID_ARG);
    tempo_wipe(k1, sizeof k1);
    assert_true(all_zero(k1, sizeof k1));
    tempo_wipe(NULL, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_without_libsodium_tokens_are_unsupported),
        cmocka_unit_test(test_client_and_server_read_what_the_backend_wrote),
        cmocka_unit_test(test_the_private_part_is_not_readable_in_the_token),
        cmocka_unit_test(test_an_expired_token_is_refused),
        cmocka_unit_test(test_any_altered_byte_of_the_connect_part_is_refused),
        cmocka_unit_test(test_a_token_for_another_protocol_key_or_server_is_refused),
        cmocka_unit_test(test_create_refuses_bad_arguments_and_leaves_zeros),
        cmocka_unit_test(test_a_malformed_public_part_is_refused),
        cmocka_unit_test(test_generated_keys_differ),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
