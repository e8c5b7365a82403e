/* SPDX-License-Identifier: MIT */
/*
 * test_p2p_cipher.c — the cipher each pair of a sealed p2p match agrees in
 * its SYNC handshake (tempo_config.cipher): AES-256-GCM when both offer
 * it, ChaCha20-Poly1305 when one machine has no AES (simulated with the
 * test hook) or forces ChaCha20, AES-256-GCM when one forces it and the
 * other can; a pair whose settings share no cipher never synchronizes and
 * both count it; a SYNC whose sealed offer an on-path attacker altered is
 * dropped as forged and the honest handshake still agrees; a spectator
 * without AES watches a host that has it. Each match that agrees runs,
 * with nothing forged or malformed counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "craft.h"
#include "fail_on_assert.h"
#include "p2p_harness.h"
#include "wire/packet.h"
#include "wire/seal.h"

enum { A = 0, B = 1, S = 2 };

static const uint8_t CH = SEAL_CIPHER_CHACHA20, AES = SEAL_CIPHER_AES256GCM;

static harness h;

static const uint8_t KEY[32] = {0x61, 0x0f, 0x9a, 0x33, 0xc7, 0x18, 0x4e, 0xb2, 0x05, 0x7d, 0xe9,
                                0x26, 0x90, 0x5b, 0x1c, 0xf8, 0x43, 0xae, 0x72, 0x0d, 0xd4, 0x39,
                                0x85, 0x6c, 0x17, 0xbb, 0x2e, 0xf1, 0x58, 0x0a, 0x9f, 0x64};

static tempo_config keyed(tempo_cipher cipher)
{
    tempo_config c = harness_cfg(2);
    c.session_id = 0x0C1FE7u;
    c.has_match_key = true;
    memcpy(c.match_key, KEY, sizeof c.match_key);
    c.cipher = cipher;
    return c;
}

static void need_aes(void)
{
    seal_test_hide_aes(false);
    if (!seal_available() || !seal_aes_available())
        skip();
}

/* Make machine i's session again with its own cipher setting, on a
 * machine with or without AES; nothing has ticked yet. */
static void remake(int i, tempo_cipher cipher, bool hide_aes)
{
    h_peer *p = &h.peer[i];
    tempo_session_destroy(p->s);
    tempo_config c = keyed(cipher);
    c.random_seed = h.seed * 31 + (uint64_t)i;
    seal_test_hide_aes(hide_aes);
    if (p->spectator) {
        c.spectator_number = i - 2;
        tempo_address host = h_addr(A);
        assert_int_equal(tempo_session_create_spectator(&c, &p->ears, &host, &p->s), TEMPO_OK);
    } else {
        assert_int_equal(tempo_session_create_p2p(&c, &p->ears, &p->s), TEMPO_OK);
        assert_int_equal(tempo_session_add_local_player(p->s, i), TEMPO_OK);
        tempo_address other = h_addr(1 - i);
        assert_int_equal(tempo_session_add_remote_player(p->s, 1 - i, &other), TEMPO_OK);
        for (int k = 2; i == A && k < h.npeers; k++) /* A hosts the spectators */
            assert_int_equal(tempo_session_add_spectator(p->s, &h.peer[k].addr), TEMPO_OK);
    }
    seal_test_hide_aes(false);
}

/* Two players (and nspect spectators of A), A and B set up as asked. */
static void start(tempo_cipher a, bool a_hides, tempo_cipher b, bool b_hides, int nspect)
{
    tempo_config c = keyed(TEMPO_CIPHER_AUTO);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, nspect, "lan", 5150);
    remake(A, a, a_hides);
    remake(B, b, b_hides);
}

static tempo_session_stats stats_of(int i)
{
    tempo_session_stats st;
    assert_int_equal(tempo_session_get_stats(h.peer[i].s, &st), TEMPO_OK);
    return st;
}

/* The match ran to `frames` and both ends of every link hold `cipher`. */
static void assert_ran_with(int32_t frames, uint8_t cipher)
{
    harness_run(&h, frames, 30000000);
    for (int i = 0; i < h.npeers; i++) {
        if (!h.peer[i].spectator)
            assert_true(tempo_session_frame(h.peer[i].s) >= frames);
        tempo_session_stats st = stats_of(i);
        assert_int_equal(st.dropped_forged, 0);
        assert_int_equal(st.dropped_malformed, 0);
    }
    const p2p_peer *ab = peer_at(&h, A, B), *ba = peer_at(&h, B, A);
    assert_true(ab->keys.agreed && ba->keys.agreed);
    assert_int_equal(ab->keys.cipher, cipher);
    assert_int_equal(ba->keys.cipher, cipher);
    int32_t checked;
    assert_true(harness_converged(&h, false, &checked));
}

static void both_with_aes_agree_on_aes(void **state)
{
    (void)state;
    need_aes();
    start(TEMPO_CIPHER_AUTO, false, TEMPO_CIPHER_AUTO, false, 0);
    assert_ran_with(200, AES);
    harness_free(&h);
}

static void a_machine_without_aes_makes_the_pair_chacha20(void **state)
{
    (void)state;
    need_aes();
    start(TEMPO_CIPHER_AUTO, false, TEMPO_CIPHER_AUTO, true, 0);
    assert_ran_with(200, CH);
    harness_free(&h);
}

static void forced_settings_are_kept(void **state)
{
    (void)state;
    need_aes();
    start(TEMPO_CIPHER_CHACHA20, false, TEMPO_CIPHER_AUTO, false, 0);
    assert_ran_with(120, CH);
    harness_free(&h);
    start(TEMPO_CIPHER_AUTO, false, TEMPO_CIPHER_AES256GCM, false, 0);
    assert_ran_with(120, AES);
    harness_free(&h);
    start(TEMPO_CIPHER_CHACHA20, false, TEMPO_CIPHER_CHACHA20, false, 0);
    assert_ran_with(120, CH);
    harness_free(&h);
}

static void settings_sharing_no_cipher_never_synchronize_and_are_counted(void **state)
{
    (void)state;
    need_aes();
    start(TEMPO_CIPHER_AES256GCM, false, TEMPO_CIPHER_AUTO, true, 0);
    harness_run(&h, 10, 3000000);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(tempo_session_frame(h.peer[i].s), 0);
        tempo_session_state st;
        assert_int_equal(tempo_session_get_state(h.peer[i].s, &st), TEMPO_OK);
        assert_true(st != TEMPO_SESSION_RUNNING);
        assert_true(stats_of(i).dropped_malformed > 0); /* each refuses the other's SYNCs */
        assert_int_equal(stats_of(i).dropped_forged, 0);
        assert_false(peer_at(&h, i, 1 - i)->keys.agreed);
    }
    harness_free(&h);
}

/* An on-path attacker flips one bit of A's sealed SYNCs to B: the bit
 * that says A offers AES (or any other of the body: it cannot know where
 * the offer lies, the body is encrypted). */
static int altered_syncs;

static int tamper_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    uint8_t copy[TEMPO_MAX_DATAGRAM];
    if (altered_syncs > 0 && size > PACKET_HEADER_SIZE + SEAL_TAG_SIZE && size <= sizeof copy &&
        (data[7] == TEMPO_MSG_SYNC_REQUEST || data[7] == TEMPO_MSG_SYNC_REPLY) &&
        tempo_address_equal(to, &h.peer[B].addr)) {
        memcpy(copy, data, size);
        copy[PACKET_HEADER_SIZE + 10] ^= 0x04;
        altered_syncs--;
        return h_ears_send(ctx, to, copy, size);
    }
    return h_ears_send(ctx, to, data, size);
}

static void an_altered_offer_is_forged_and_the_honest_handshake_agrees(void **state)
{
    (void)state;
    need_aes();
    tempo_config c = keyed(TEMPO_CIPHER_AUTO);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "lan", 77);
    h.peer[A].ears.send = tamper_send;
    altered_syncs = 4;
    remake(A, TEMPO_CIPHER_AUTO, false);
    harness_run(&h, 150, 30000000);
    assert_int_equal(altered_syncs, 0);
    assert_int_equal(stats_of(B).dropped_forged, 4);
    assert_int_equal(stats_of(A).dropped_forged, 0);
    assert_int_equal(stats_of(B).dropped_malformed, 0);
    assert_true(tempo_session_frame(h.peer[A].s) >= 150);
    assert_true(tempo_session_frame(h.peer[B].s) >= 150);
    assert_int_equal(peer_at(&h, A, B)->keys.cipher, AES);
    assert_int_equal(peer_at(&h, B, A)->keys.cipher, AES);
    harness_free(&h);
}

static void a_spectator_without_aes_watches_a_host_with_it(void **state)
{
    (void)state;
    need_aes();
    start(TEMPO_CIPHER_AUTO, false, TEMPO_CIPHER_AUTO, false, 1);
    remake(S, TEMPO_CIPHER_AUTO, true);
    assert_ran_with(300, AES); /* the players' pair */
    assert_int_equal(peer_at(&h, A, S)->keys.cipher, CH);
    assert_int_equal(peer_at(&h, S, A)->keys.cipher, CH);
    assert_true(tempo_session_frame(h.peer[S].s) > 100);
    int32_t checked;
    assert_true(harness_converged(&h, true, &checked));
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(both_with_aes_agree_on_aes),
        cmocka_unit_test(a_machine_without_aes_makes_the_pair_chacha20),
        cmocka_unit_test(forced_settings_are_kept),
        cmocka_unit_test(settings_sharing_no_cipher_never_synchronize_and_are_counted),
        cmocka_unit_test(an_altered_offer_is_forged_and_the_honest_handshake_agrees),
        cmocka_unit_test(a_spectator_without_aes_watches_a_host_with_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
