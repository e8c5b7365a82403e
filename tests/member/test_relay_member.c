/* SPDX-License-Identifier: MIT */
/*
 * test_relay_member.c — rollback matches played through a relay: members
 * (tempo_session_create_relay_member) running the toy game over simnet in
 * virtual time, the relay (tempo_relay) at 10.0.1.1:9000.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "relay_rig.h"

/* Four members on broadband links play 600 frames; every member computed the same
 * state after every frame all of them confirmed. */
static void test_four_members_through_the_relay_end_with_equal_checksums(void **state)
{
    (void)state;
    tempo_config cfg = match_cfg(4);
    tempo_relay_config rc = relay_cfg();
    relay_rig *g = calloc(1, sizeof *g);
    rig_init(g, &cfg, 4, "broadband", &rc, 11);
    rig_run(g, 600, 30000000);
    int32_t checked;
    assert_true(harness_converged(&g->h, false, &checked));
    assert_true(checked >= 550);
    for (int i = 0; i < 4; i++) {
        tempo_session_stats st;
        assert_int_equal(tempo_session_get_stats(g->h.peer[i].s, &st), TEMPO_OK);
        assert_true(st.frame >= 600);
        assert_int_equal(st.desyncs, 0);
        assert_true(st.desync_checks >= 15); /* every 30 frames, compared at the relay */
        assert_int_equal(g->h.peer[i].waiting_ticks, 0);
    }
    tempo_relay_match_stats ms;
    assert_int_equal(tempo_relay_get_match_stats(g->relay, MATCH_ID, &ms), TEMPO_OK);
    assert_true(ms.finalized >= checked);
    tempo_relay_member_stats es;
    assert_int_equal(tempo_relay_get_member_stats(g->relay, MATCH_ID, 2, &es), TEMPO_OK);
    assert_true(es.rtt_ms > 10.0 && es.rtt_ms < 200.0); /* broadband, from the acks */
    assert_int_equal(es.substitutions, 0);
    assert_true(es.bytes_up > 0 && es.bytes_down > es.bytes_up);
    rig_free(g);
    free(g);
}

static void set_profile(relay_rig *g, int member, const char *profile)
{
    tempo_link_params lp;
    assert_int_equal(tempo_link_profile(profile, &lp), TEMPO_OK);
    assert_int_equal(tempo_simnet_set_link(g->h.net, &g->h.peer[member].addr, &g->relay_addr, &lp),
                     TEMPO_OK);
    assert_int_equal(tempo_simnet_set_link(g->h.net, &g->relay_addr, &g->h.peer[member].addr, &lp),
                     TEMPO_OK);
}

/* Member 3 sits on a terrible link. The relay substitutes its late inputs
 * at their deadlines, so the others never wait for it, and every member,
 * member 3 included, plays the substitutes: all states agree. */
static void test_a_member_on_a_terrible_link_is_substituted_and_nobody_waits(void **state)
{
    (void)state;
    tempo_config cfg = match_cfg(4);
    tempo_relay_config rc = relay_cfg();
    relay_rig *g = calloc(1, sizeof *g);
    rig_init(g, &cfg, 4, "lan", &rc, 12);
    set_profile(g, 3, "terrible");
    rig_run(g, 900, 60000000);
    int32_t checked;
    assert_true(harness_converged(&g->h, false, &checked));
    assert_true(checked >= 800);
    tempo_relay_match_stats ms;
    assert_int_equal(tempo_relay_get_match_stats(g->relay, MATCH_ID, &ms), TEMPO_OK);
    assert_true(ms.substitutions[3] > 0);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(g->h.peer[i].waiting_ticks, 0);
        assert_int_equal(ms.substitutions[i], 0);
    }
    /* every member counted the same substitutes of player 3 in the frames
     * they all took */
    tempo_relay_member_info mi[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(tempo_session_relay_info(g->h.peer[i].s, &mi[i]), TEMPO_OK);
    assert_true(mi[3].overridden > 0); /* its own inputs, replaced by the relay's */
    for (int i = 0; i < 3; i++)
        assert_int_equal(mi[i].overridden, 0);
    tempo_relay_member_stats es;
    assert_int_equal(tempo_relay_get_member_stats(g->relay, MATCH_ID, 3, &es), TEMPO_OK);
    assert_int_equal(es.substitutions, ms.substitutions[3]);
    assert_true(es.late_inputs > 0);
    rig_free(g);
    free(g);
}

/* Member 1's machine (continental links, 80 ms round trips) freezes for
 * half a second at frame 300. Its inputs of those frames are substituted;
 * when it runs again it is 30 frames behind the relay's clock, jumps its
 * inputs to the clock and catches up, and from then on its inputs make
 * their deadlines again. */
static void test_a_member_that_falls_behind_catches_up(void **state)
{
    (void)state;
    tempo_config cfg = match_cfg(3);
    tempo_relay_config rc = relay_cfg();
    relay_rig *g = calloc(1, sizeof *g);
    rig_init(g, &cfg, 3, "continental", &rc, 16);
    g->h.peer[1].hiccup_frame = 300;
    g->h.peer[1].hiccup_us = 500000;
    rig_run(g, 1200, 60000000);
    tempo_relay_match_stats ms;
    assert_int_equal(tempo_relay_get_match_stats(g->relay, MATCH_ID, &ms), TEMPO_OK);
    tempo_relay_member_info mi;
    assert_int_equal(tempo_session_relay_info(g->h.peer[1].s, &mi), TEMPO_OK);
    /* the freeze (30 frames) and the tolerance around it, not the rest */
    assert_true(ms.substitutions[1] >= 20 && ms.substitutions[1] <= 60);
    assert_int_equal(ms.substitutions[0] + ms.substitutions[2], 0);
    assert_true(mi.skipped >= 10); /* without the jump: every later input late, 900 substituted */
    assert_int_equal(g->h.peer[0].waiting_ticks + g->h.peer[2].waiting_ticks, 0);
    int32_t checked;
    assert_true(harness_converged(&g->h, false, &checked));
    assert_true(checked >= 1150);
    rig_free(g);
    free(g);
}

/* One member's game goes wrong at frame 200: the relay compares the
 * members' checksums and every member hears of the desync. */
static void test_a_planted_desync_is_reported_to_every_member_through_the_relay(void **state)
{
    (void)state;
    tempo_config cfg = match_cfg(3);
    tempo_relay_config rc = relay_cfg();
    relay_rig *g = calloc(1, sizeof *g);
    rig_init(g, &cfg, 3, "lan", &rc, 13);
    g->h.peer[1].corrupt_at = 200;
    rig_run(g, 400, 30000000);
    tempo_relay_match_stats ms;
    assert_int_equal(tempo_relay_get_match_stats(g->relay, MATCH_ID, &ms), TEMPO_OK);
    assert_true(ms.desyncs >= 1);
    for (int i = 0; i < 3; i++) {
        assert_true(g->h.peer[i].desync_events >= 1);
        assert_int_equal(g->h.peer[i].first_desync_frame, 210); /* the first check frame after */
    }
    rig_free(g);
    free(g);
}

/* Member 2's machine dies at 5 s: the relay drops it after its timeout,
 * substitutes its player from then on, and the others play on together. */
static void test_a_silent_member_is_dropped_and_the_match_continues(void **state)
{
    (void)state;
    tempo_config cfg = match_cfg(3);
    tempo_relay_config rc = relay_cfg();
    rc.timeout_ms = 1000;
    relay_rig *g = calloc(1, sizeof *g);
    rig_init(g, &cfg, 3, "lan", &rc, 14);
    rig_run(g, 300, 5000000);
    harness_kill(&g->h, 2);
    rig_run(g, 900, 40000000);
    tempo_relay_stats rs;
    assert_int_equal(tempo_relay_get_stats(g->relay, &rs), TEMPO_OK);
    assert_int_equal(rs.members_timed_out, 1);
    assert_int_equal(rs.members, 2);
    tempo_relay_match_stats ms;
    assert_int_equal(tempo_relay_get_match_stats(g->relay, MATCH_ID, &ms), TEMPO_OK);
    assert_int_equal(ms.members, 2);
    assert_true(ms.substitutions[2] >= 500);
    assert_int_equal(ms.substitutions[0] + ms.substitutions[1], 0);
    for (int i = 0; i < 2; i++)
        assert_true(tempo_session_frame(g->h.peer[i].s) >= 900);
    assert_int_equal(g->h.peer[0].waiting_ticks, 0);
    assert_int_equal(g->h.peer[1].waiting_ticks, 0);
    int32_t checked;
    assert_true(harness_converged(&g->h, false, &checked)); /* the dead one is left out */
    assert_true(checked >= 850);
    rig_free(g);
    free(g);
}

/* With a private key, members come with tokens whose user data names the
 * match and their player; everything is sealed and the match converges. */
static void test_members_with_tokens_play_a_sealed_match(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    tempo_config cfg = match_cfg(2);
    tempo_relay_config rc = relay_cfg();
    rc.has_private_key = true;
    rc.protocol_id = 0x1234;
    for (int i = 0; i < TEMPO_KEY_SIZE; i++)
        rc.private_key[i] = (uint8_t)(200 - i);
    relay_rig *g = calloc(1, sizeof *g);
    rig_init(g, &cfg, 2, "broadband", &rc, 15);
    /* replace the unsealed members by members with tokens */
    for (int i = 0; i < 2; i++) {
        h_peer *p = &g->h.peer[i];
        tempo_session_destroy(p->s);
        tempo_relay_join j = {MATCH_ID, (uint8_t)(1u << i), 2, cfg.input_size, 60, 0, 0, false};
        uint8_t ud[TEMPO_TOKEN_USER_DATA_SIZE], token[TEMPO_TOKEN_SIZE];
        assert_int_equal(tempo_relay_join_write(&j, ud), TEMPO_OK);
        assert_int_equal(tempo_token_create(rc.private_key, rc.protocol_id, 100 + (uint64_t)i, 2000,
                                            1000, &g->relay_addr, 1, ud, token),
                         TEMPO_OK);
        tempo_config c = cfg;
        c.random_seed = 99 + (uint64_t)i;
        assert_int_equal(
            tempo_session_create_relay_member(&c, &p->ears, &g->relay_addr, token, &p->s),
            TEMPO_OK);
        assert_int_equal(tempo_session_add_local_player(p->s, i), TEMPO_OK);
    }
    rig_run(g, 400, 30000000);
    int32_t checked;
    assert_true(harness_converged(&g->h, false, &checked));
    assert_true(checked >= 350);
    tempo_session_stats st;
    assert_int_equal(tempo_session_get_stats(g->h.peer[0].s, &st), TEMPO_OK);
    assert_false(st.unauthenticated);
    assert_int_equal(st.dropped_forged, 0);
    tempo_relay_member_stats es;
    assert_int_equal(tempo_relay_get_member_stats(g->relay, MATCH_ID, 1, &es), TEMPO_OK);
    assert_true(es.sealed);
    assert_int_equal(es.client_id, 101);
    rig_free(g);
    free(g);
}

/* Arguments the member session refuses. */
static void test_create_relay_member_refuses_bad_arguments(void **state)
{
    (void)state;
    tempo_config cfg = match_cfg(2);
    tempo_transport t = {rig_send, h_ears_recv, NULL, NULL};
    tempo_address relay = RELAY_ADDR, none;
    memset(&none, 0, sizeof none);
    tempo_session *s = (tempo_session *)&cfg;
    assert_int_equal(tempo_session_create_relay_member(&cfg, &t, NULL, NULL, &s),
                     TEMPO_E_INVALID_ARG);
    assert_null(s);
    assert_int_equal(tempo_session_create_relay_member(&cfg, &t, &none, NULL, &s),
                     TEMPO_E_INVALID_ARG);
    uint8_t junk[TEMPO_TOKEN_SIZE];
    memset(junk, 0x5a, sizeof junk);
    assert_int_equal(tempo_session_create_relay_member(&cfg, &t, &relay, junk, &s),
                     TEMPO_E_MALFORMED);
    assert_null(s);
    cfg.session_id = 0;
    assert_int_equal(tempo_session_create_relay_member(&cfg, &t, &relay, NULL, &s),
                     TEMPO_E_INVALID_ARG);
    cfg.session_id = MATCH_ID;
    assert_int_equal(tempo_session_create_relay_member(&cfg, &t, &relay, NULL, &s), TEMPO_OK);
    assert_int_equal(tempo_session_add_local_player(s, 1), TEMPO_OK);
    assert_int_equal(tempo_session_add_local_player(s, 1), TEMPO_E_ALREADY);
    assert_int_equal(tempo_session_add_remote_player(s, 0, &relay), TEMPO_OK);
    assert_int_equal(tempo_session_add_local_player(s, 2), TEMPO_E_PLAYER);
    tempo_relay_member_info mi;
    assert_int_equal(tempo_session_relay_info(s, &mi), TEMPO_OK);
    assert_false(mi.connected);
    tempo_session_destroy(s);
    tempo_session *local;
    assert_int_equal(tempo_session_create_local(&cfg, &local), TEMPO_OK);
    assert_int_equal(tempo_session_relay_info(local, &mi), TEMPO_E_UNSUPPORTED);
    tempo_session_destroy(local);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_four_members_through_the_relay_end_with_equal_checksums),
        cmocka_unit_test(test_a_member_on_a_terrible_link_is_substituted_and_nobody_waits),
        cmocka_unit_test(test_a_member_that_falls_behind_catches_up),
        cmocka_unit_test(test_a_planted_desync_is_reported_to_every_member_through_the_relay),
        cmocka_unit_test(test_a_silent_member_is_dropped_and_the_match_continues),
        cmocka_unit_test(test_members_with_tokens_play_a_sealed_match),
        cmocka_unit_test(test_create_relay_member_refuses_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
