/* SPDX-License-Identifier: MIT */
/*
 * test_relay_cipher.c — a sealed relay and its members agree a cipher per
 * member in the connect handshake: native members AES-256-GCM, a member
 * made like a browser page (no AES: the test hook) ChaCha20-Poly1305,
 * all in one match that runs with nothing forged; a relay forced to
 * AES-256-GCM turns the page away (its handshake fails at the challenge,
 * HANDSHAKE_FAILED) and admits the native members with AES-256-GCM; a
 * member forced to ChaCha20 gets it from an AUTO relay.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "relay/relay.h"
#include "relay_rig.h"
#include "tempo/secure.h"
#include "wire/seal.h"

static const uint8_t CH = SEAL_CIPHER_CHACHA20, AES = SEAL_CIPHER_AES256GCM;

static tempo_relay_config sealed_relay(tempo_cipher cipher)
{
    tempo_relay_config rc = relay_cfg();
    rc.has_private_key = true;
    rc.protocol_id = 0xC1F;
    for (int i = 0; i < TEMPO_KEY_SIZE; i++)
        rc.private_key[i] = (uint8_t)(11 * i + 2);
    rc.cipher = cipher;
    return rc;
}

/* The cipher the relay agreed with member i (0: it holds none). */
static uint8_t relay_cipher_of(const relay_rig *g, int i)
{
    const tempo_relay *r = g->relay;
    for (int k = 0; k < r->cfg.max_members; k++) {
        const relay_member *e = &r->members[k];
        if (e->used && tempo_address_equal(&e->addr, &g->h.peer[i].addr))
            return e->keys.agreed ? e->keys.cipher : 0;
    }
    return 0;
}

/* Three members of one match: 0 and 2 native, 1 a page (no AES) with
 * setting page_cipher; the relay with relay_cipher. */
static relay_rig *start(tempo_cipher relay_cipher, tempo_cipher native_cipher,
                        tempo_cipher page_cipher)
{
    seal_test_hide_aes(false);
    if (!tempo_secure_available() || !seal_aes_available())
        skip();
    tempo_config cfg = match_cfg(3);
    tempo_relay_config rc = sealed_relay(relay_cipher);
    relay_rig *g = calloc(1, sizeof *g);
    assert_non_null(g);
    rig_init(g, &cfg, 3, "lan", &rc, 31);
    for (int i = 0; i < 3; i++) {
        tempo_session_destroy(g->h.peer[i].s);
        cfg.cipher = i == 1 ? page_cipher : native_cipher;
        seal_test_hide_aes(i == 1);
        rig_sealed_member(g, &rc, &cfg, i);
        seal_test_hide_aes(false);
    }
    return g;
}

static void native_members_get_aes_and_a_page_chacha20_in_one_match(void **state)
{
    (void)state;
    relay_rig *g = start(TEMPO_CIPHER_AUTO, TEMPO_CIPHER_AUTO, TEMPO_CIPHER_AUTO);
    rig_run(g, 200, 20000000);
    for (int i = 0; i < 3; i++)
        assert_true(tempo_session_frame(g->h.peer[i].s) >= 200);
    assert_int_equal(relay_cipher_of(g, 0), AES);
    assert_int_equal(relay_cipher_of(g, 1), CH);
    assert_int_equal(relay_cipher_of(g, 2), AES);
    tempo_relay_stats st;
    assert_int_equal(tempo_relay_get_stats(g->relay, &st), TEMPO_OK);
    assert_int_equal(st.dropped_forged, 0);
    assert_int_equal(st.handshake_refused, 0);
    assert_int_equal(st.admitted, 3);
    for (int i = 0; i < 3; i++) {
        tempo_session_stats ss;
        assert_int_equal(tempo_session_get_stats(g->h.peer[i].s, &ss), TEMPO_OK);
        assert_int_equal(ss.dropped_forged, 0);
    }
    int32_t checked;
    assert_true(harness_converged(&g->h, false, &checked));
    rig_free(g);
    free(g);
}

static void a_member_forced_to_chacha20_gets_it(void **state)
{
    (void)state;
    relay_rig *g = start(TEMPO_CIPHER_AUTO, TEMPO_CIPHER_CHACHA20, TEMPO_CIPHER_AUTO);
    rig_run(g, 100, 20000000);
    for (int i = 0; i < 3; i++) {
        assert_true(tempo_session_frame(g->h.peer[i].s) >= 100);
        assert_int_equal(relay_cipher_of(g, i), CH);
    }
    rig_free(g);
    free(g);
}

static void a_relay_forced_to_aes_turns_a_page_away_and_admits_the_others(void **state)
{
    (void)state;
    relay_rig *g = start(TEMPO_CIPHER_AES256GCM, TEMPO_CIPHER_AUTO, TEMPO_CIPHER_AUTO);
    rig_run(g, 20, 2000000);
    assert_int_equal(g->h.peer[1].handshake_failed_events, 1);
    assert_int_equal(relay_cipher_of(g, 1), 0);
    assert_int_equal(relay_cipher_of(g, 0), AES);
    assert_int_equal(relay_cipher_of(g, 2), AES);
    tempo_relay_stats st;
    assert_int_equal(tempo_relay_get_stats(g->relay, &st), TEMPO_OK);
    assert_int_equal(st.admitted, 2);
    rig_free(g);
    free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(native_members_get_aes_and_a_page_chacha20_in_one_match),
        cmocka_unit_test(a_member_forced_to_chacha20_gets_it),
        cmocka_unit_test(a_relay_forced_to_aes_turns_a_page_away_and_admits_the_others),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
