/* SPDX-License-Identifier: MIT */
/*
 * test_cs_cipher.c — the cipher setting at the public API: a sealed
 * server and its clients agree one per client (AES-256-GCM with a native
 * client, ChaCha20-Poly1305 with one made without AES, what a forced
 * setting says), and a client whose setting shares nothing with the
 * server's ends DENIED while the others play; every role's create refuses
 * a cipher outside tempo_cipher (TEMPO_E_INVALID_ARG) and AES256GCM where
 * the machine has no AES (TEMPO_E_UNSUPPORTED).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cs/client_impl.h"
#include "cs_harness.h"
#include "tempo/lockstep.h"
#include "tempo/relay.h"
#include "tempo/secure.h"
#include "tempo/session.h"
#include "tempo/traversal.h"
#include "wire/seal.h"

#define PROTOCOL 0x6369706865ull
#define NOW_S 1900000000ull

static const uint8_t CH = SEAL_CIPHER_CHACHA20, AES = SEAL_CIPHER_AES256GCM;
static uint8_t backend_key[TEMPO_KEY_SIZE];

static void need_aes(void)
{
    seal_test_hide_aes(false);
    if (!tempo_secure_available() || !seal_aes_available())
        skip();
}

static csh *sealed_server(tempo_cipher cipher)
{
    csh *h = (csh *)calloc(1, sizeof *h);
    assert_non_null(h);
    tempo_link_params lp;
    memset(&lp, 0, sizeof lp);
    lp.latency_us = 20000;
    csh_init(h, 61, &lp, 3, NULL);
    for (int i = 0; i < TEMPO_KEY_SIZE; i++)
        backend_key[i] = (uint8_t)(5 * i + 9);
    h->scfg.has_private_key = true;
    memcpy(h->scfg.private_key, backend_key, TEMPO_KEY_SIZE);
    h->scfg.protocol_id = PROTOCOL;
    h->scfg.self = h->saddr;
    h->scfg.cipher = cipher;
    h->ccfg.protocol_id = PROTOCOL;
    h->ccfg.has_token = true;
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    tempo_server_set_token_time(h->server, NOW_S);
    return h;
}

/* A client with its own setting, made on a machine with or without AES. */
static void client(csh *h, uint64_t id, tempo_cipher cipher, bool hide_aes)
{
    assert_int_equal(tempo_token_create(backend_key, PROTOCOL, id, NOW_S + 60, NOW_S, &h->saddr, 1,
                                        NULL, h->ccfg.token),
                     TEMPO_OK);
    h->ccfg.cipher = cipher;
    seal_test_hide_aes(hide_aes);
    assert_int_equal(csh_add_client(h, 1000 * id, true, false), TEMPO_OK);
    seal_test_hide_aes(false);
}

static uint8_t cipher_of(const csh *h, int i)
{
    const wire_keys *k = &h->cl[i].c->ch.keys;
    return k->ready && k->agreed ? k->cipher : 0;
}

static tempo_client_state state_of(const csh *h, int i)
{
    tempo_client_stats st;
    assert_int_equal(tempo_client_get_stats(h->cl[i].c, &st), TEMPO_OK);
    return st.state;
}

static void clients_get_aes_or_chacha20_as_their_machine_and_setting_allow(void **state)
{
    (void)state;
    need_aes();
    csh *h = sealed_server(TEMPO_CIPHER_AUTO);
    client(h, 1, TEMPO_CIPHER_AUTO, false);
    client(h, 2, TEMPO_CIPHER_AUTO, true);
    client(h, 3, TEMPO_CIPHER_CHACHA20, false);
    csh_run(h, 200);
    tempo_server_stats ss;
    assert_int_equal(tempo_server_get_stats(h->server, &ss), TEMPO_OK);
    assert_int_equal(ss.clients, 3);
    assert_int_equal(ss.handshake_refused, 0);
    assert_int_equal(cipher_of(h, 0), AES);
    assert_int_equal(cipher_of(h, 1), CH);
    assert_int_equal(cipher_of(h, 2), CH);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(state_of(h, i), TEMPO_CLIENT_CONNECTED);
        assert_true(h->cl[i].loads > 100);
        assert_int_equal(h->cl[i].load_mismatch, 0);
        tempo_client_stats cs;
        assert_int_equal(tempo_client_get_stats(h->cl[i].c, &cs), TEMPO_OK);
        assert_int_equal(cs.dropped_forged, 0);
    }
    csh_free(h);
    free(h);
}

static void a_client_sharing_no_cipher_is_denied_and_the_others_play(void **state)
{
    (void)state;
    need_aes();
    csh *h = sealed_server(TEMPO_CIPHER_AES256GCM);
    client(h, 1, TEMPO_CIPHER_AUTO, false);
    client(h, 2, TEMPO_CIPHER_AUTO, true); /* no AES: nothing in common */
    client(h, 3, TEMPO_CIPHER_CHACHA20, false);
    csh_run(h, 200);
    assert_int_equal(cipher_of(h, 0), AES);
    assert_int_equal(state_of(h, 0), TEMPO_CLIENT_CONNECTED);
    assert_true(h->cl[0].loads > 100);
    for (int i = 1; i < 3; i++) {
        assert_int_equal(state_of(h, i), TEMPO_CLIENT_DENIED);
        assert_int_equal(h->cl[i].c->gate.stats.no_cipher, 1);
        assert_int_equal(cipher_of(h, i), 0);
    }
    tempo_server_stats ss;
    assert_int_equal(tempo_server_get_stats(h->server, &ss), TEMPO_OK);
    assert_int_equal(ss.clients, 1);
    csh_free(h);
    free(h);
}

static void every_create_checks_the_cipher(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    static const uint8_t mk[32] = {1, 2, 3};
    tempo_transport none;
    memset(&none, 0, sizeof none);
    none.send = csh_rec_send;
    none.recv = csh_rec_recv;
    for (int round = 0; round < 2; round++) {
        /* round 0: a value outside the enum; round 1: AES on a machine without it */
        tempo_cipher bad = round == 0 ? (tempo_cipher)3 : TEMPO_CIPHER_AES256GCM;
        tempo_result want = round == 0 ? TEMPO_E_INVALID_ARG : TEMPO_E_UNSUPPORTED;
        seal_test_hide_aes(round == 1);

        tempo_config c;
        tempo_config_default(&c);
        c.has_match_key = true;
        memcpy(c.match_key, mk, sizeof mk);
        c.cipher = bad;
        tempo_session *s = NULL;
        assert_int_equal(tempo_session_create_p2p(&c, &none, &s), want);
        assert_null(s);

        tempo_lockstep_config lc;
        tempo_lockstep_config_default(&lc);
        lc.cipher = bad;
        tempo_lockstep *ls = NULL;
        assert_int_equal(tempo_lockstep_create(&lc, &none, &ls), want);
        assert_null(ls);

        tempo_client_config cc;
        tempo_client_config_default(&cc);
        cc.cipher = bad;
        tempo_client *cl = NULL;
        tempo_address a = tempo_address_ipv4(10, 9, 9, 9, 9);
        assert_int_equal(tempo_client_create(&cc, &none, &a, &cl), want);
        assert_null(cl);

        tempo_server_config sc;
        tempo_server_config_default(&sc);
        sc.cipher = bad;
        tempo_server *sv = NULL;
        assert_int_equal(tempo_server_create(&sc, &none, &sv), want);
        assert_null(sv);

        tempo_relay_config rc;
        tempo_relay_config_default(&rc);
        rc.cookie_key[0] = 1;
        rc.cipher = bad;
        tempo_relay *r = NULL;
        assert_int_equal(tempo_relay_create(&rc, &none, &r), want);
        assert_null(r);

        tempo_traversal_config tc;
        tempo_traversal_config_default(&tc);
        tc.transport = none;
        tc.relay = a;
        tc.nonce = 5;
        tempo_relay_join j = {9, 1, 2, 4, 60, 0, 0, true};
        assert_int_equal(tempo_relay_join_write(&j, tc.join), TEMPO_OK);
        tc.cipher = bad;
        tempo_traversal *t = NULL;
        assert_int_equal(tempo_traversal_create(&tc, 0, &t), want);
        assert_null(t);
    }
    seal_test_hide_aes(false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clients_get_aes_or_chacha20_as_their_machine_and_setting_allow),
        cmocka_unit_test(a_client_sharing_no_cipher_is_denied_and_the_others_play),
        cmocka_unit_test(every_create_checks_the_cipher),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
