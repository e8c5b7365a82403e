/* SPDX-License-Identifier: MIT */
/*
 * test_cs_sealed.c — a client-server match with connect tokens: the
 * client connects with a token, every datagram after the handshake is
 * sealed, forged and replayed datagrams are dropped and counted before
 * anything reads them, and the match plays on. Needs libsodium.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "cs_harness.h"
#include "wire/packet.h"

#define PROTOCOL 0x7465737431ull
#define NOW_S 1900000000ull

static uint8_t backend_key[TEMPO_KEY_SIZE];

static csh *sealed_match(uint64_t seed)
{
    csh *h = (csh *)calloc(1, sizeof *h);
    assert_non_null(h);
    tempo_link_params lp;
    memset(&lp, 0, sizeof lp);
    lp.latency_us = 40000;
    csh_init(h, seed, &lp, 2, NULL);
    for (int i = 0; i < TEMPO_KEY_SIZE; i++)
        backend_key[i] = (uint8_t)(7 * i + 3);
    h->scfg.has_private_key = true;
    memcpy(h->scfg.private_key, backend_key, TEMPO_KEY_SIZE);
    h->scfg.protocol_id = PROTOCOL;
    h->scfg.self = h->saddr;
    h->ccfg.protocol_id = PROTOCOL;
    h->ccfg.has_token = true;
    return h;
}

static void mint(csh *h, uint64_t client_id)
{
    assert_int_equal(tempo_token_create(backend_key, PROTOCOL, client_id, NOW_S + 60, NOW_S,
                                        &h->saddr, 1, NULL, h->ccfg.token),
                     TEMPO_OK);
}

static void test_a_client_with_a_token_plays_sealed(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    csh *h = sealed_match(31);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    tempo_server_set_token_time(h->server, NOW_S);
    mint(h, 501);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    mint(h, 502);
    assert_int_equal(csh_add_client(h, 2000, true, false), TEMPO_OK);
    csh_run(h, 300);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    assert_false(ss.unauthenticated);
    assert_int_equal(ss.clients, 2);
    uint64_t ids = 0;
    for (int i = 0; i < 2; i++) {
        tempo_server_client_stats sc;
        tempo_server_get_client_stats(h->server, i, &sc);
        ids += sc.client_id;
        tempo_client_stats cs;
        tempo_client_get_stats(h->cl[i].c, &cs);
        assert_false(cs.unauthenticated);
        assert_int_equal(cs.dropped_forged, 0);
        assert_true(h->cl[i].loads > 200);
        assert_int_equal(h->cl[i].load_mismatch, 0);
        /* what the client sends is sealed */
        assert_true(h->cl[i].last_size > PACKET_HEADER_SIZE + PACKET_TAG_SIZE);
        assert_int_equal(h->cl[i].last_sent[0], packet_protocol_byte(true));
    }
    assert_int_equal(ids, 501 + 502);
    csh_free(h);
    free(h);
}

static void test_forged_and_replayed_datagrams_are_dropped_and_counted(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    csh *h = sealed_match(32);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    tempo_server_set_token_time(h->server, NOW_S);
    mint(h, 601);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    csh_run(h, 120);
    csh_client *k = &h->cl[0];
    uint8_t copy[TEMPO_MAX_DATAGRAM];
    size_t n = k->last_size;
    memcpy(copy, k->last_sent, n);
    /* to the server from the client's address: a copy (replay), a copy
     * with another sequence and a changed byte (forged), a plain one */
    k->t.send(k->t.ctx, &h->saddr, copy, n);
    uint8_t forged[TEMPO_MAX_DATAGRAM];
    memcpy(forged, copy, n);
    const uint16_t seq = (uint16_t)(copy[5] | copy[6] << 8);
    forged[5] = (uint8_t)(seq + 100);
    forged[6] = (uint8_t)((seq + 100) >> 8);
    forged[PACKET_HEADER_SIZE + 2] ^= 0x40;
    k->t.send(k->t.ctx, &h->saddr, forged, n);
    uint8_t plain[32] = {0};
    tempo_packet_header ph = {77, (uint16_t)(seq + 200), 21, false, false};
    assert_int_equal(packet_write(&ph, plain, sizeof plain), PACKET_HEADER_SIZE);
    k->t.send(k->t.ctx, &h->saddr, plain, sizeof plain);
    /* to the client from the server's address: a forged snapshot */
    uint8_t fake[64];
    memset(fake, 0x5a, sizeof fake);
    tempo_packet_header fh = {77, 60000, 22, false, true};
    assert_int_equal(packet_write(&fh, fake, sizeof fake), PACKET_HEADER_SIZE);
    h->st.send(h->st.ctx, &k->addr, fake, sizeof fake);
    tempo_client_stats before;
    tempo_client_get_stats(k->c, &before);
    csh_run(h, 240);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    tempo_client_stats cs;
    tempo_client_get_stats(k->c, &cs);
    assert_int_equal(ss.dropped_replay, 1);
    assert_int_equal(ss.dropped_forged, 2);
    assert_int_equal(ss.dropped_malformed, 0);
    assert_int_equal(cs.dropped_forged, 1);
    assert_int_equal(ss.clients, 1);
    assert_true(cs.snapshots - before.snapshots > 100);
    assert_int_equal(k->load_mismatch, 0);
    csh_free(h);
    free(h);
}

static void test_a_client_without_a_token_is_not_admitted_by_a_keyed_server(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    csh *h = sealed_match(33);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    tempo_server_set_token_time(h->server, NOW_S);
    h->ccfg.has_token = false;
    h->ccfg.handshake_timeout_ms = 1000;
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    csh_run(h, 120);
    tempo_client_stats cs;
    tempo_client_get_stats(h->cl[0].c, &cs);
    assert_int_equal(cs.state, TEMPO_CLIENT_TIMED_OUT);
    assert_true(cs.unauthenticated);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    assert_int_equal(ss.clients, 0);
    assert_true(ss.handshake_refused >= 1);
    csh_free(h);
    free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_client_with_a_token_plays_sealed),
        cmocka_unit_test(test_forged_and_replayed_datagrams_are_dropped_and_counted),
        cmocka_unit_test(test_a_client_without_a_token_is_not_admitted_by_a_keyed_server),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
