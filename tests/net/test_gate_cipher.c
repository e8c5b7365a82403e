/* SPDX-License-Identifier: MIT */
/*
 * test_gate_cipher.c — the cipher a connect handshake agrees (net/gate.h):
 * AES-256-GCM when both ends offer it, ChaCha20-Poly1305 with an end
 * without AES (a browser page), what a forced setting on either side
 * gives, and offers that share nothing refused and counted on both sides;
 * an offer altered on the way (either direction) fails its tag, is
 * counted as forged, and the honest handshake still gets through with the
 * cipher both really offer. The connection's first datagrams open under
 * the agreed cipher at the other end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "net/gate.h"
#include "tempo/secure.h"
#include "wire/connect.h"
#include "wire/packet.h"
#include "wire/seal.h"

#define PROTO 0x5151AE5000000007ull
#define NOW_S 1800000000ull
#define T0 9000000ull

static const uint8_t CH = SEAL_CIPHER_CHACHA20, AES = SEAL_CIPHER_AES256GCM;

typedef struct rig {
    gate_server g;
    gate_client c;
    uint8_t backend[TEMPO_KEY_SIZE], cookie[TEMPO_KEY_SIZE];
    uint8_t token[TEMPO_TOKEN_SIZE];
    tempo_address srv, cli;
    uint8_t buf[TEMPO_MAX_DATAGRAM], reply[TEMPO_MAX_DATAGRAM];
    size_t size, reply_size;
    gate_admit admit;
} rig;

static rig r;

static void need_aes(void)
{
    seal_test_hide_aes(false);
    if (!tempo_secure_available() || !seal_aes_available())
        skip();
}

/* A sealed server offering server_offer and a client offering
 * client_offer (0: each one's AUTO, computed with AES hidden or not). */
static void rig_up(uint8_t server_offer, bool server_hides, uint8_t client_offer,
                   bool client_hides)
{
    memset(&r, 0, sizeof r);
    for (int i = 0; i < TEMPO_KEY_SIZE; i++) {
        r.backend[i] = (uint8_t)(i * 5 + 3);
        r.cookie[i] = (uint8_t)(0x5C ^ i);
    }
    r.srv = tempo_address_ipv4(10, 1, 0, 1, 40000);
    r.cli = tempo_address_ipv4(10, 1, 0, 2, 5000);
    uint8_t ud[TEMPO_TOKEN_USER_DATA_SIZE] = {0};
    assert_int_equal(tempo_token_create(r.backend, PROTO, 77, NOW_S + 60, NOW_S - 1, &r.srv, 1, ud,
                                        r.token),
                     TEMPO_OK);
    gate_server_config sc;
    memset(&sc, 0, sizeof sc);
    sc.protocol_id = PROTO;
    sc.has_private_key = true;
    memcpy(sc.private_key, r.backend, TEMPO_KEY_SIZE);
    sc.ciphers = server_offer;
    seal_test_hide_aes(server_hides);
    assert_int_equal(gate_server_init(&r.g, &sc, r.cookie), TEMPO_OK);
    gate_client_config cc;
    memset(&cc, 0, sizeof cc);
    cc.protocol_id = PROTO;
    cc.token = r.token;
    cc.server = r.srv;
    cc.slots = 1;
    cc.ciphers = client_offer;
    seal_test_hide_aes(client_hides);
    assert_int_equal(gate_client_init(&r.c, &cc, T0), TEMPO_OK);
    seal_test_hide_aes(false);
}

static void client_writes(void)
{
    int n = gate_client_write(&r.c, T0, r.buf, sizeof r.buf);
    assert_true(n > 0);
    r.size = (size_t)n;
}

static gate_outcome server_takes(void)
{
    return gate_server_on_datagram(&r.g, T0, NOW_S, &r.cli, r.buf, r.size, r.reply,
                                   sizeof r.reply, &r.reply_size, &r.admit);
}

static gate_client_event client_takes_reply(void)
{
    return gate_client_on_datagram(&r.c, T0, &r.srv, r.reply, r.reply_size);
}

/* The whole handshake, honest both ways; returns the agreed cipher after
 * checking both ends hold it and a datagram each way opens. */
static uint8_t handshake(void)
{
    client_writes();
    assert_int_equal(server_takes(), GATE_REPLY);
    assert_int_equal(client_takes_reply(), GATE_CLIENT_CHALLENGED);
    client_writes();
    assert_int_equal(server_takes(), GATE_ADMIT);
    assert_true(r.admit.keys.agreed && r.c.keys.agreed);
    assert_int_equal(r.admit.keys.cipher, r.c.keys.cipher);
    uint8_t d[64] = {0};
    tempo_packet_header h = {1, 0, 38, false, false};
    assert_int_equal(packet_write(&h, d, sizeof d), 8);
    assert_int_equal(seal_datagram(&r.admit.keys, 0, d, 20, sizeof d), 36);
    assert_int_equal(seal_open(&r.c.keys, 0, d, 36, NULL), 20);
    h.sequence = (uint16_t)r.c.next_sequence;
    assert_int_equal(packet_write(&h, d, sizeof d), 8);
    assert_int_equal(seal_datagram(&r.c.keys, r.c.next_sequence, d, 20, sizeof d), 36);
    assert_int_equal(seal_open(&r.admit.keys, r.c.next_sequence, d, 36, NULL), 20);
    return r.c.keys.cipher;
}

static void rig_down(void)
{
    seal_keys_wipe(&r.admit.keys);
    gate_server_wipe(&r.g);
    gate_client_wipe(&r.c);
}

static void test_both_with_aes_agree_on_aes(void **state)
{
    (void)state;
    need_aes();
    rig_up(0, false, 0, false);
    assert_int_equal(handshake(), AES);
    rig_down();
}

static void test_an_end_without_aes_makes_both_chacha20(void **state)
{
    (void)state;
    need_aes();
    rig_up(0, false, 0, true); /* a page's member: its AUTO offers ChaCha20 only */
    assert_int_equal(r.c.ciphers, CH);
    assert_int_equal(handshake(), CH);
    rig_down();
    rig_up(0, true, 0, false); /* a server without AES */
    assert_int_equal(handshake(), CH);
    rig_down();
}

static void test_forced_settings(void **state)
{
    (void)state;
    need_aes();
    rig_up(CH, false, 0, false);
    assert_int_equal(handshake(), CH);
    rig_down();
    rig_up(0, false, CH, false);
    assert_int_equal(handshake(), CH);
    rig_down();
    rig_up(AES, false, 0, false);
    assert_int_equal(handshake(), AES);
    rig_down();
    rig_up(0, false, AES, false);
    assert_int_equal(handshake(), AES);
    rig_down();
}

static void test_offers_sharing_nothing_fail_and_are_counted_on_both_sides(void **state)
{
    (void)state;
    need_aes();
    /* a server forced to AES, a client without it: the client ends at the challenge */
    rig_up(AES, false, 0, true);
    client_writes();
    assert_int_equal(server_takes(), GATE_REPLY);
    assert_int_equal(client_takes_reply(), GATE_CLIENT_GOT_DENIED);
    assert_int_equal(r.c.stats.no_cipher, 1);
    assert_int_equal(r.c.state, GATE_CLIENT_DENIED);
    assert_false(r.c.keys.ready);
    assert_int_equal(gate_client_write(&r.c, T0, r.buf, sizeof r.buf), TEMPO_E_STATE);
    rig_down();
    /* a client that answers anyway (it does not check) is refused by the server */
    rig_up(AES, false, 0, false);
    client_writes();
    assert_int_equal(server_takes(), GATE_REPLY);
    assert_int_equal(client_takes_reply(), GATE_CLIENT_CHALLENGED);
    r.c.ciphers = CH; /* what a client forced to ChaCha20 would have said */
    client_writes();
    assert_int_equal(server_takes(), GATE_IGNORED);
    assert_int_equal(r.g.stats.refused[CONNECT_NO_CIPHER], 1);
    assert_int_equal(r.g.stats.admissions, 0);
    rig_down();
}

static void test_an_altered_response_offer_is_forged_and_the_honest_one_admits(void **state)
{
    (void)state;
    need_aes();
    rig_up(0, false, 0, false);
    client_writes();
    assert_int_equal(server_takes(), GATE_REPLY);
    assert_int_equal(client_takes_reply(), GATE_CLIENT_CHALLENGED);
    client_writes();
    assert_int_equal(r.buf[CONNECT_SEALED_AD], SEAL_CIPHERS_ALL);
    uint8_t honest[TEMPO_MAX_DATAGRAM];
    size_t honest_size = r.size;
    memcpy(honest, r.buf, r.size);
    /* an on-path attacker says the client offers ChaCha20 only */
    r.buf[CONNECT_SEALED_AD] = CH;
    assert_int_equal(server_takes(), GATE_IGNORED);
    assert_int_equal(r.g.stats.refused[CONNECT_FORGED], 1);
    r.buf[CONNECT_SEALED_AD] = 0; /* or nothing at all: malformed */
    assert_int_equal(server_takes(), GATE_IGNORED);
    assert_int_equal(r.g.stats.refused[CONNECT_MALFORMED], 1);
    assert_int_equal(r.g.stats.admissions, 0);
    memcpy(r.buf, honest, honest_size);
    r.size = honest_size;
    assert_int_equal(server_takes(), GATE_ADMIT);
    assert_int_equal(r.admit.keys.cipher, AES);
    assert_int_equal(r.c.keys.cipher, AES);
    rig_down();
}

static void test_an_altered_challenge_offer_is_forged_and_the_honest_one_is_taken(void **state)
{
    (void)state;
    need_aes();
    rig_up(0, false, 0, false);
    client_writes();
    assert_int_equal(server_takes(), GATE_REPLY);
    /* the offer is encrypted at byte 24: any change fails the tag */
    for (int bit = 0; bit < 8; bit++) {
        r.reply[24] ^= (uint8_t)(1u << bit);
        assert_int_equal(client_takes_reply(), GATE_CLIENT_NOTHING);
        r.reply[24] ^= (uint8_t)(1u << bit);
    }
    assert_int_equal(r.c.stats.forged, 8);
    assert_int_equal(r.c.stats.no_cipher, 0);
    assert_int_equal(client_takes_reply(), GATE_CLIENT_CHALLENGED);
    client_writes();
    assert_int_equal(server_takes(), GATE_ADMIT);
    assert_int_equal(r.admit.keys.cipher, AES);
    assert_int_equal(r.c.keys.cipher, AES);
    rig_down();
}

static void test_offers_a_machine_cannot_keep_are_refused_at_init(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    gate_server g;
    gate_client c;
    gate_server_config sc;
    memset(&sc, 0, sizeof sc);
    sc.protocol_id = PROTO;
    uint8_t key[TEMPO_KEY_SIZE] = {1};
    sc.ciphers = 4;
    assert_int_equal(gate_server_init(&g, &sc, key), TEMPO_E_INVALID_ARG);
    gate_client_config cc;
    memset(&cc, 0, sizeof cc);
    cc.protocol_id = PROTO;
    cc.nonce = 5;
    cc.slots = 1;
    cc.ciphers = 0x83;
    assert_int_equal(gate_client_init(&c, &cc, T0), TEMPO_E_INVALID_ARG);
    seal_test_hide_aes(true);
    sc.ciphers = AES;
    assert_int_equal(gate_server_init(&g, &sc, key), TEMPO_E_UNSUPPORTED);
    cc.ciphers = AES | CH;
    assert_int_equal(gate_client_init(&c, &cc, T0), TEMPO_E_UNSUPPORTED);
    cc.ciphers = 0; /* AUTO without AES: ChaCha20 */
    assert_int_equal(gate_client_init(&c, &cc, T0), TEMPO_OK);
    assert_int_equal(c.ciphers, CH);
    seal_test_hide_aes(false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_both_with_aes_agree_on_aes),
        cmocka_unit_test(test_an_end_without_aes_makes_both_chacha20),
        cmocka_unit_test(test_forced_settings),
        cmocka_unit_test(test_offers_sharing_nothing_fail_and_are_counted_on_both_sides),
        cmocka_unit_test(test_an_altered_response_offer_is_forged_and_the_honest_one_admits),
        cmocka_unit_test(test_an_altered_challenge_offer_is_forged_and_the_honest_one_is_taken),
        cmocka_unit_test(test_offers_a_machine_cannot_keep_are_refused_at_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
