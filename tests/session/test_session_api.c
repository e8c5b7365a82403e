/* SPDX-License-Identifier: MIT */
/*
 * test_session_api.c — the public API's contract with callers: every bad
 * argument returns an error code (never a crash), documented bounds hold,
 * and every call in every session kind and state returns a code in the
 * documented set. (Allocation: test_allocation.c.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fail_on_assert.h"
#include "p2p_harness.h"

static tempo_session *make(int players, tempo_config *cfg_out)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = players;
    tempo_session *s = NULL;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    if (cfg_out)
        *cfg_out = cfg;
    return s;
}

static void fa_free_any(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static void config_fields_out_of_range_are_rejected(void **state)
{
    (void)state;
    tempo_session *s = (tempo_session *)1;
    tempo_config c;
#define REJECT(stmt)                                                           \
    do {                                                                       \
        tempo_config_default(&c);                                              \
        stmt;                                                                  \
        s = (tempo_session *)1;                                                \
        assert_int_equal(tempo_session_create_local(&c, &s), TEMPO_E_INVALID_ARG); \
        assert_null(s);                                                        \
    } while (0)
    REJECT(c.num_players = 0);
    REJECT(c.num_players = TEMPO_MAX_PLAYERS + 1);
    REJECT(c.input_size = 0);
    REJECT(c.input_size = TEMPO_MAX_INPUT_SIZE + 1);
    REJECT(c.max_prediction = -1);
    REJECT(c.max_prediction = TEMPO_MAX_PREDICTION + 1);
    REJECT(c.save_policy = (tempo_save_policy)7);
    REJECT(c.arena = &c);            /* arena without a size */
    REJECT(c.arena_size = 10);       /* a size without an arena */
    REJECT(c.desync_interval = -1);
    REJECT(c.allocator.alloc = NULL; c.allocator.free = fa_free_any);
    REJECT(c.log_level = (tempo_log_level)9);
#undef REJECT
    assert_int_equal(tempo_session_create_local(NULL, &s), TEMPO_E_INVALID_ARG);
    tempo_config_default(&c);
    assert_int_equal(tempo_session_create_local(&c, NULL), TEMPO_E_INVALID_ARG);
    /* the extremes are accepted */
    c.num_players = TEMPO_MAX_PLAYERS;
    c.input_size = TEMPO_MAX_INPUT_SIZE;
    c.max_prediction = TEMPO_MAX_PREDICTION;
    assert_int_equal(tempo_session_create_local(&c, &s), TEMPO_OK);
    tempo_session_destroy(s);
    c.max_prediction = 0;
    c.num_players = 1;
    c.input_size = 1;
    assert_int_equal(tempo_session_create_local(&c, &s), TEMPO_OK);
    tempo_session_destroy(s);
    tempo_session_destroy(NULL);
    tempo_config_default(NULL);
}

static void player_calls_validate_numbers_kinds_and_timing(void **state)
{
    (void)state;
    tempo_session *s = make(3, NULL);
    assert_int_equal(tempo_session_add_local_player(NULL, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_add_local_player(s, -1), TEMPO_E_PLAYER);
    assert_int_equal(tempo_session_add_local_player(s, 3), TEMPO_E_PLAYER);
    assert_int_equal(tempo_session_add_local_player(s, 0), TEMPO_OK);
    assert_int_equal(tempo_session_add_local_player(s, 0), TEMPO_E_ALREADY);
    assert_int_equal(tempo_session_add_remote_player(s, 0, NULL), TEMPO_E_ALREADY);
    assert_int_equal(tempo_session_add_remote_player(NULL, 1, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_add_remote_player(s, 1, NULL), TEMPO_OK);
    /* advancing before every player is declared */
    tempo_tick t;
    assert_int_equal(tempo_session_advance(s, &t), TEMPO_E_STATE);
    assert_int_equal(tempo_session_add_remote_player(s, 2, NULL), TEMPO_OK);

    assert_int_equal(tempo_session_set_input_delay(s, 1, 2), TEMPO_E_PLAYER); /* remote */
    assert_int_equal(tempo_session_set_input_delay(s, 0, -1), TEMPO_E_INVALID_ARG);
    tempo_config d; /* the delay may reach the prediction window, no further */
    tempo_config_default(&d);
    assert_int_equal(tempo_session_set_input_delay(s, 0, d.max_prediction + 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_set_input_delay(s, 0, d.max_prediction), TEMPO_OK);
    assert_int_equal(tempo_session_set_input_delay(NULL, 0, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_input_delay(s, 0), d.max_prediction);
    assert_int_equal(tempo_session_input_delay(s, 1), TEMPO_E_PLAYER);
    assert_int_equal(tempo_session_input_delay(NULL, 0), TEMPO_E_INVALID_ARG);

    uint8_t in[4] = {0};
    assert_int_equal(tempo_session_add_local_input(s, 0, in, 4), TEMPO_OK);
    assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
    /* players are fixed once the match runs: a declared one says so */
    assert_int_equal(tempo_session_add_local_player(s, 1), TEMPO_E_ALREADY);
    assert_int_equal(tempo_session_add_remote_player(s, 0, NULL), TEMPO_E_ALREADY);
    tempo_session_destroy(s);
}

static void input_calls_validate_size_player_and_frame(void **state)
{
    (void)state;
    tempo_session *s = make(2, NULL);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    uint8_t in[8] = {0};
    assert_int_equal(tempo_session_add_local_input(NULL, 0, in, 4), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_add_local_input(s, 0, NULL, 4), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_add_local_input(s, 0, in, 3), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_add_local_input(s, 0, in, 8), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_add_local_input(s, 1, in, 4), TEMPO_E_PLAYER);
    assert_int_equal(tempo_session_add_local_input(s, 5, in, 4), TEMPO_E_PLAYER);
    assert_int_equal(tempo_session_add_remote_input(s, 0, 0, in, 4), TEMPO_E_PLAYER);
    assert_int_equal(tempo_session_add_remote_input(s, 1, -1, in, 4), TEMPO_E_FRAME);
    assert_int_equal(tempo_session_add_remote_input(s, 1, 1 << 20, in, 4), TEMPO_E_FRAME);
    assert_int_equal(tempo_session_add_remote_input(s, 1, 0, in, 5), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_add_remote_input(s, 1, 0, NULL, 4), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_add_remote_input(NULL, 1, 0, in, 4), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_add_remote_input(s, 1, 0, in, 4), TEMPO_OK);
    assert_int_equal(tempo_session_add_remote_input(s, 1, 0, in, 4), TEMPO_OK); /* repeat */
    tempo_session_destroy(s);
}

static void tick_calls_validate_their_arguments(void **state)
{
    (void)state;
    tempo_session *s = make(1, NULL);
    tempo_session_add_local_player(s, 0);
    tempo_tick t;
    const tempo_request *r;
    tempo_event ev;
    tempo_session_stats st;
    assert_int_equal(tempo_session_poll(NULL, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_poll(s, 100), TEMPO_OK);
    assert_int_equal(tempo_session_advance(NULL, &t), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_advance(s, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_next(NULL, &r), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_next(s, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_poll_event(NULL, &ev), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_poll_event(s, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_get_stats(NULL, &st), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_get_stats(s, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_frame(NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_confirmed_frame(NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_save_slots(NULL), TEMPO_E_INVALID_ARG);
    tempo_config d;
    tempo_config_default(&d);
    assert_int_equal(tempo_session_save_slots(s), d.max_prediction + 2);
    tempo_synctest_report rep;
    assert_int_equal(tempo_session_synctest_report(s, &rep), TEMPO_E_UNSUPPORTED);
    assert_int_equal(tempo_session_synctest_report(NULL, &rep), TEMPO_E_INVALID_ARG);
    /* without input the session holds, and says why */
    assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
    assert_int_equal(t.status, TEMPO_TICK_NEEDS_INPUT);
    assert_int_equal(t.num_requests, 0);
    assert_int_equal(tempo_session_poll_event(s, &ev), 0);
    tempo_session_destroy(s);
}

/* A refused advance changes nothing: the tick says nothing ran and the
 * input given stays held for the next call. */
static void advance_refused_for_undeclared_players_keeps_the_input(void **state)
{
    (void)state;
    tempo_session *s = make(2, NULL);
    tempo_session_add_local_player(s, 0);
    uint8_t in[4] = {7, 0, 0, 0};
    tempo_tick t;
    assert_int_equal(tempo_session_add_local_input(s, 0, in, 4), TEMPO_OK);
    assert_int_equal(tempo_session_advance(s, &t), TEMPO_E_STATE);
    assert_int_equal(t.num_requests, 0);
    assert_int_equal(t.frames_advanced, 0);
    assert_int_equal(t.inputs_taken, 0);
    assert_int_equal(t.input_frame[0], TEMPO_FRAME_NONE);
    assert_int_equal(tempo_session_add_remote_player(s, 1, NULL), TEMPO_OK);
    assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
    assert_int_equal(t.status, TEMPO_TICK_ADVANCED);
    assert_int_equal(t.inputs_taken, 1u);
    assert_int_equal(t.input_frame[0], 0);
    const tempo_request *r;
    assert_int_equal(tempo_session_next(s, &r), 1);
    while (r->kind != TEMPO_REQUEST_ADVANCE)
        assert_int_equal(tempo_session_next(s, &r), 1);
    assert_int_equal(r->inputs[0], 7);
    tempo_session_destroy(s);
}

static void local_and_synctest_sessions_take_any_time(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_config_default(&cfg);
    tempo_session *s[2];
    assert_int_equal(tempo_session_create_local(&cfg, &s[0]), TEMPO_OK);
    assert_int_equal(tempo_session_create_synctest(&cfg, 2, &s[1]), TEMPO_OK);
    assert_int_equal(tempo_session_add_local_player(s[0], 0), TEMPO_OK);
    assert_int_equal(tempo_session_add_local_player(s[0], 1), TEMPO_OK);
    const uint64_t times[] = {5000000, 5016667, 4000000, 4016667, 64000000, 64016667, 0};
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
            assert_int_equal(tempo_session_poll(s[k], times[i]), TEMPO_OK);
            for (int p = 0; p < 2; p++) {
                uint8_t in[4] = {(uint8_t)i, 0, 0, 0};
                assert_int_equal(tempo_session_add_local_input(s[k], p, in, sizeof in), TEMPO_OK);
            }
            tempo_tick t;
            assert_int_equal(tempo_session_advance(s[k], &t), TEMPO_OK);
            const tempo_request *r;
            while (tempo_session_next(s[k], &r) > 0)
                if (r->kind == TEMPO_REQUEST_SAVE)
                    *r->checksum = 1;
        }
        tempo_session_stats st;
        assert_int_equal(tempo_session_get_stats(s[k], &st), TEMPO_OK);
        assert_int_equal(st.clock_jumps, 3); /* back, leap, back */
        assert_int_equal(tempo_session_frame(s[k]), 7);
        tempo_session_destroy(s[k]);
    }
}

static void disconnect_rejects_local_unknown_and_repeated_players(void **state)
{
    (void)state;
    tempo_session *s = make(3, NULL);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    tempo_session_add_remote_player(s, 2, NULL);
    assert_int_equal(tempo_session_disconnect_player(NULL, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_disconnect_player(s, 0), TEMPO_E_PLAYER);
    assert_int_equal(tempo_session_disconnect_player(s, 3), TEMPO_E_PLAYER);
    assert_int_equal(tempo_session_disconnect_player(s, -2), TEMPO_E_PLAYER);
    assert_int_equal(tempo_session_disconnect_player(s, 1), TEMPO_OK);
    assert_int_equal(tempo_session_disconnect_player(s, 1), TEMPO_E_ALREADY);
    tempo_event ev;
    assert_int_equal(tempo_session_poll_event(s, &ev), 1);
    assert_int_equal(ev.kind, TEMPO_EVENT_DISCONNECTED);
    assert_int_equal(ev.player, 1);
    tempo_session_destroy(s);
}

static void arena_mode_refuses_to_advance_over_unexecuted_requests(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = 1;
    uint8_t block[64] = {0};
    cfg.arena = block;
    cfg.arena_size = sizeof block;
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    tempo_session_add_local_player(s, 0);
    uint8_t in[4] = {0};
    tempo_tick t;
    tempo_session_add_local_input(s, 0, in, 4);
    assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
    assert_true(t.num_requests > 0);
    assert_int_equal(tempo_session_advance(s, &t), TEMPO_E_STATE);
    const tempo_request *r;
    while (tempo_session_next(s, &r) > 0)
        assert_int_equal(r->kind, TEMPO_REQUEST_ADVANCE);
    assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
    tempo_session_destroy(s);
}

/* ---- documented bounds -------------------------------------------------- */

/* tempo.h: a remote input up to 3 * max_prediction + 192 frames past the
 * current frame is always held; one far beyond the ring, or before frame 0,
 * is refused with TEMPO_E_FRAME. */
static void remote_input_bounds_are_as_documented(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.max_prediction = 8; /* 216 frames are held */
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    uint8_t b[4] = {0};
    assert_int_equal(tempo_session_add_remote_input(s, 1, 3 * 8 + 192 - 1, b, 4), TEMPO_OK);
    assert_int_equal(tempo_session_add_remote_input(s, 1, 10000, b, 4), TEMPO_E_FRAME);
    assert_int_equal(tempo_session_add_remote_input(s, 1, -1, b, 4), TEMPO_E_FRAME);
    tempo_session_destroy(s);
}

/* ---- every call, every state ------------------------------------------- */

static harness h;

/* Every public call on one session in its current state: never a crash or
 * an assert, and a result in the documented set. */
static void poke_every_call(tempo_session *s, int players)
{
    uint8_t in[TEMPO_MAX_INPUT_SIZE] = {0};
    tempo_tick t;
    tempo_event ev;
    tempo_session_stats st;
    tempo_endpoint_stats es;
    tempo_synctest_report rep;
    const tempo_request *r;
    tempo_address a = tempo_address_ipv4(10, 0, 0, 99, 1);
    for (int p = -1; p <= players; p++) {
        int rr = tempo_session_add_local_input(s, p, in, 4);
        assert_true(rr == TEMPO_OK || rr == TEMPO_E_PLAYER);
        rr = tempo_session_add_remote_input(s, p, 0, in, 4);
        assert_true(rr <= 0 && rr >= TEMPO_RESULT_MIN_);
        rr = tempo_session_set_input_delay(s, p, 1);
        assert_true(rr == TEMPO_OK || rr == TEMPO_E_PLAYER);
        assert_true(tempo_session_input_delay(s, p) >= TEMPO_E_PLAYER);
        rr = tempo_session_get_endpoint_stats(s, p, &es);
        assert_true(rr == TEMPO_OK || rr == TEMPO_E_PLAYER || rr == TEMPO_E_UNSUPPORTED);
        rr = tempo_session_get_spectator_stats(s, p, &es);
        assert_true(rr == TEMPO_OK || rr == TEMPO_E_PLAYER || rr == TEMPO_E_UNSUPPORTED);
        rr = tempo_session_add_local_player(s, p);
        assert_true(rr <= 0 && rr >= TEMPO_RESULT_MIN_);
        rr = tempo_session_add_remote_player(s, p, &a);
        assert_true(rr <= 0 && rr >= TEMPO_RESULT_MIN_);
    }
    assert_int_equal(tempo_session_get_endpoint_stats(s, 0, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_get_spectator_stats(s, 0, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_add_spectator(s, NULL), TEMPO_E_INVALID_ARG);
    assert_true(tempo_session_add_spectator(s, &a) <= 0);
    assert_int_equal(tempo_session_advance(s, NULL), TEMPO_E_INVALID_ARG);
    assert_true(tempo_session_advance(s, &t) <= 0);
    while (tempo_session_next(s, &r) > 0)
        if (r->kind == TEMPO_REQUEST_SAVE)
            *r->checksum = 1;
    assert_int_equal(tempo_session_next(s, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_poll_event(s, NULL), TEMPO_E_INVALID_ARG);
    while (tempo_session_poll_event(s, &ev) > 0) {
    }
    assert_int_equal(tempo_session_get_stats(s, &st), TEMPO_OK);
    assert_true(tempo_session_synctest_report(s, &rep) <= 0);
    assert_int_equal(tempo_session_synctest_report(s, NULL), TEMPO_E_INVALID_ARG);
    (void)tempo_session_will_stall(s);
    assert_true(tempo_session_save_slots(s) > 0);
    assert_true(tempo_session_frame(s) >= 0);
    assert_true(tempo_session_confirmed_frame(s) >= 0);
}

/* Every public call, in every session kind and state (local before and
 * after its players, synctest, p2p peer and spectator before start, running,
 * after leave), with good and bad arguments, returns a code in the
 * documented set and never asserts; the peer left alone plays on. */
static void every_call_in_every_state_returns_a_code(void **state)
{
    (void)state;
    fail_on_assert(true);
    tempo_config c = harness_cfg(2);
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&c, &s), TEMPO_OK);
    poke_every_call(s, 2);
    tempo_session_add_local_player(s, 0);
    poke_every_call(s, 2);
    assert_int_equal(tempo_session_leave(s), TEMPO_E_UNSUPPORTED);
    tempo_session_destroy(s);
    assert_int_equal(tempo_session_create_synctest(&c, 3, &s), TEMPO_OK);
    poke_every_call(s, 2);
    poke_every_call(s, 2);
    tempo_session_destroy(s);

    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 1, "lan", 46);
    poke_every_call(h.peer[2].s, 2); /* spectator, before start */
    harness_run(&h, 100, 30000000);
    poke_every_call(h.peer[0].s, 2);
    poke_every_call(h.peer[2].s, 2);
    assert_int_equal(tempo_session_leave(h.peer[1].s), TEMPO_OK);
    assert_int_equal(tempo_session_leave(h.peer[1].s), TEMPO_E_STATE);
    poke_every_call(h.peer[1].s, 2);
    assert_int_equal(tempo_session_leave(h.peer[2].s), TEMPO_OK);
    poke_every_call(h.peer[2].s, 2);
    h.peer[1].dead = h.peer[2].dead = true;
    harness_run(&h, 300, 60000000);
    assert_true(tempo_session_frame(h.peer[0].s) >= 300);
    poke_every_call(h.peer[0].s, 2);
    harness_free(&h);
    fail_on_assert(false);
}

/* ---- the session state ---------------------------------------------------- */

static tempo_session_state state_of(const tempo_session *s)
{
    tempo_session_state st = 0;
    assert_int_equal(tempo_session_get_state(s, &st), TEMPO_OK);
    return st;
}

static tempo_result tick_local(tempo_session *s, tempo_tick *t)
{
    uint8_t in[4] = {1, 2, 3, 4};
    assert_int_equal(tempo_session_add_local_input(s, 0, in, sizeof in), TEMPO_OK);
    tempo_result r = tempo_session_advance(s, t);
    const tempo_request *req;
    while (tempo_session_next(s, &req) > 0)
        if (req->kind == TEMPO_REQUEST_SAVE)
            *req->checksum = 1;
    return r;
}

static void state_query_validates_its_arguments(void **state)
{
    (void)state;
    tempo_session *s = make(2, NULL);
    tempo_session_state st = TEMPO_SESSION_ENDED;
    assert_int_equal(tempo_session_get_state(NULL, &st), TEMPO_E_INVALID_ARG);
    assert_int_equal(st, TEMPO_SESSION_ENDED);
    assert_int_equal(tempo_session_get_state(s, NULL), TEMPO_E_INVALID_ARG);
    tempo_session_destroy(s);
}

/* A local session runs from creation, waits while the prediction window is
 * full, runs again once the remote input comes; a refused advance, a
 * dropped player and a refused leave change nothing: it never synchronizes
 * and never ends. */
static void local_session_is_running_or_waiting_on_its_remote_player(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_session *s = make(2, &cfg);
    assert_int_equal(state_of(s), TEMPO_SESSION_RUNNING);
    assert_int_equal(tempo_session_add_local_player(s, 0), TEMPO_OK);
    tempo_tick t;
    assert_int_equal(tempo_session_advance(s, &t), TEMPO_E_STATE); /* player 1 undeclared */
    assert_int_equal(state_of(s), TEMPO_SESSION_RUNNING);
    assert_int_equal(tempo_session_add_remote_player(s, 1, NULL), TEMPO_OK);
    for (int i = 0; i < cfg.max_prediction; i++) {
        assert_int_equal(tick_local(s, &t), TEMPO_OK);
        assert_int_equal(t.status, TEMPO_TICK_ADVANCED);
        assert_int_equal(state_of(s), TEMPO_SESSION_RUNNING);
    }
    assert_int_equal(tick_local(s, &t), TEMPO_OK);
    assert_int_equal(t.status, TEMPO_TICK_WAITING);
    assert_int_equal(state_of(s), TEMPO_SESSION_WAITING);
    assert_int_equal(tick_local(s, &t), TEMPO_OK);
    assert_int_equal(state_of(s), TEMPO_SESSION_WAITING); /* still */
    assert_int_equal(tempo_session_leave(s), TEMPO_E_UNSUPPORTED);
    assert_int_equal(state_of(s), TEMPO_SESSION_WAITING);
    uint8_t in[4] = {0};
    for (int32_t f = 0; f < 4; f++)
        assert_int_equal(tempo_session_add_remote_input(s, 1, f, in, sizeof in), TEMPO_OK);
    assert_int_equal(tick_local(s, &t), TEMPO_OK);
    assert_int_equal(t.status, TEMPO_TICK_ADVANCED);
    assert_int_equal(state_of(s), TEMPO_SESSION_RUNNING);
    assert_int_equal(tempo_session_disconnect_player(s, 1), TEMPO_OK);
    for (int i = 0; i < 20; i++) {
        assert_int_equal(tick_local(s, &t), TEMPO_OK);
        assert_int_equal(t.status, TEMPO_TICK_ADVANCED);
        assert_int_equal(state_of(s), TEMPO_SESSION_RUNNING);
    }
    tempo_session_destroy(s);
}

/* A synctest session runs from creation to the end, a found desync
 * included. */
static void synctest_session_is_always_running(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = 1;
    tempo_session *s;
    assert_int_equal(tempo_session_create_synctest(&cfg, 2, &s), TEMPO_OK);
    assert_int_equal(state_of(s), TEMPO_SESSION_RUNNING);
    tempo_tick t;
    int desyncs = 0;
    for (int i = 0; i < 30; i++) {
        uint8_t in[4] = {(uint8_t)i, 0, 0, 0};
        assert_int_equal(tempo_session_add_local_input(s, 0, in, sizeof in), TEMPO_OK);
        tempo_result r = tempo_session_advance(s, &t);
        assert_true(r == TEMPO_OK || r == TEMPO_E_DESYNC);
        desyncs += r == TEMPO_E_DESYNC;
        const tempo_request *req;
        int saves = 0;
        while (tempo_session_next(s, &req) > 0)
            if (req->kind == TEMPO_REQUEST_SAVE) /* a game whose state checksum wobbles */
                *req->checksum = (uint64_t)(req->frame == 10 ? ++saves : 1);
        assert_int_equal(state_of(s), TEMPO_SESSION_RUNNING);
    }
    assert_true(desyncs > 0);
    assert_int_equal(tempo_session_leave(s), TEMPO_E_UNSUPPORTED);
    assert_int_equal(state_of(s), TEMPO_SESSION_RUNNING);
    tempo_session_destroy(s);
}

static harness sh;
static int state_seen[H_MAX][TEMPO_SESSION_ENDED + 1];

/* A harness tick that checks the state against what the tick said: until
 * a session ends, SYNCHRONIZING exactly while ticks say so, WAITING exactly
 * after a WAITING tick, RUNNING otherwise. */
static void tick_checking_state(harness *hh, h_peer *p)
{
    harness_tick(hh, p);
    tempo_session_state st = state_of(p->s);
    tempo_session_state want = TEMPO_SESSION_RUNNING;
    if (p->last.status == TEMPO_TICK_SYNCHRONIZING)
        want = TEMPO_SESSION_SYNCHRONIZING;
    if (p->last.status == TEMPO_TICK_WAITING)
        want = TEMPO_SESSION_WAITING;
    if (st != TEMPO_SESSION_ENDED)
        assert_int_equal(st, want);
    state_seen[p - hh->peer][st]++;
}

static void run_checking(int32_t frames, uint64_t for_us)
{
    harness_run_with(&sh, frames, sh.now_us + for_us, tick_checking_state);
}

/* Two peers and a spectator of peer 0: each synchronizes, then runs (the
 * spectator waits while its jitter buffer fills); peer 0 leaves and ends
 * at once, and the others, whose only peer or host it was, end when they
 * hear it. */
static void network_sessions_synchronize_run_and_end_when_their_peer_leaves(void **state)
{
    (void)state;
    memset(state_seen, 0, sizeof state_seen);
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&sh, &c, 2, m, 1, "lan", 61);
    for (int i = 0; i < 3; i++)
        assert_int_equal(state_of(sh.peer[i].s), TEMPO_SESSION_SYNCHRONIZING);
    run_checking(120, 10000000);
    for (int i = 0; i < 3; i++) {
        assert_true(state_seen[i][TEMPO_SESSION_SYNCHRONIZING] > 0);
        assert_true(state_seen[i][TEMPO_SESSION_RUNNING] > 0);
        assert_int_equal(state_seen[i][TEMPO_SESSION_ENDED], 0);
    }
    assert_true(state_seen[2][TEMPO_SESSION_WAITING] > 0);
    assert_true(tempo_session_frame(sh.peer[2].s) > 60);

    assert_int_equal(tempo_session_leave(sh.peer[0].s), TEMPO_OK);
    assert_int_equal(state_of(sh.peer[0].s), TEMPO_SESSION_ENDED);
    tempo_tick t;
    assert_int_equal(tempo_session_advance(sh.peer[0].s, &t), TEMPO_E_STATE);
    assert_int_equal(state_of(sh.peer[0].s), TEMPO_SESSION_ENDED);
    sh.peer[0].dead = true;
    run_checking(INT32_MAX, 1000000); /* well below the disconnect timeout */
    assert_int_equal(state_of(sh.peer[1].s), TEMPO_SESSION_ENDED);
    assert_int_equal(state_of(sh.peer[2].s), TEMPO_SESSION_ENDED);
    assert_int_equal(state_of(sh.peer[0].s), TEMPO_SESSION_ENDED);
    harness_free(&sh);
}

/* Three peers and a spectator of peer 0. Peer 0 dies: the others play on,
 * its spectator ends once its host times out. Peer 2 dies: peer 1, alone,
 * ends and still runs frames (its peers' input is DISCONNECTED). */
static void network_sessions_end_when_every_peer_was_dropped(void **state)
{
    (void)state;
    memset(state_seen, 0, sizeof state_seen);
    tempo_config c = harness_cfg(3);
    uint32_t m[3];
    harness_one_each(m, 3);
    harness_init(&sh, &c, 3, m, 1, "lan", 62);
    run_checking(120, 10000000);
    harness_kill(&sh, 0);
    run_checking(INT32_MAX, 1000000);
    assert_int_not_equal(state_of(sh.peer[3].s), TEMPO_SESSION_ENDED); /* not timed out yet */
    run_checking(INT32_MAX, 4000000);
    assert_int_equal(state_of(sh.peer[3].s), TEMPO_SESSION_ENDED);
    for (int i = 1; i < 3; i++)
        assert_int_equal(state_of(sh.peer[i].s), TEMPO_SESSION_RUNNING);
    harness_kill(&sh, 2);
    run_checking(INT32_MAX, 5000000);
    assert_int_equal(state_of(sh.peer[1].s), TEMPO_SESSION_ENDED);
    int32_t f = tempo_session_frame(sh.peer[1].s);
    run_checking(INT32_MAX, 1000000);
    assert_true(tempo_session_frame(sh.peer[1].s) > f + 30);
    assert_int_equal(state_of(sh.peer[1].s), TEMPO_SESSION_ENDED);
    harness_free(&sh);
}

/* A peer that hears nothing for a while fills its prediction window and
 * waits; when it hears again it runs. */
static void p2p_session_waits_while_its_window_is_full(void **state)
{
    (void)state;
    memset(state_seen, 0, sizeof state_seen);
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&sh, &c, 2, m, 0, "lan", 63);
    run_checking(120, 10000000);
    assert_int_equal(state_seen[0][TEMPO_SESSION_WAITING], 0);
    sh.peer[0].deaf = true;
    run_checking(INT32_MAX, 300000); /* within disconnect_notify_ms */
    assert_int_equal(state_of(sh.peer[0].s), TEMPO_SESSION_WAITING);
    sh.peer[0].deaf = false;
    run_checking(INT32_MAX, 300000);
    assert_int_equal(state_of(sh.peer[0].s), TEMPO_SESSION_RUNNING);
    assert_true(state_seen[0][TEMPO_SESSION_WAITING] > 0);
    harness_free(&sh);
}

/* ---- external states, the confirmed-input log, joining players ------------ */

static int null_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    (void)ctx, (void)to, (void)data;
    return (int)size;
}

static int null_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    (void)ctx, (void)from, (void)buf, (void)capacity;
    return 0;
}

static void start_frame_and_log_size_are_range_checked(void **state)
{
    (void)state;
    tempo_config c;
    tempo_session *s = (tempo_session *)1;
    int32_t bad_start[] = {-1, (1 << 30) + 1, INT32_MAX};
    for (size_t i = 0; i < sizeof bad_start / sizeof bad_start[0]; i++) {
        tempo_config_default(&c);
        c.start_frame = bad_start[i];
        assert_int_equal(tempo_session_create_local(&c, &s), TEMPO_E_INVALID_ARG);
        assert_null(s);
    }
    int bad_log[] = {63, 0, -5, (1 << 20) + 1};
    for (size_t i = 0; i < sizeof bad_log / sizeof bad_log[0]; i++) {
        tempo_config_default(&c);
        c.input_log_frames = bad_log[i];
        assert_int_equal(tempo_session_create_local(&c, &s), TEMPO_E_INVALID_ARG);
    }
    tempo_config_default(&c);
    assert_int_equal(c.start_frame, 0);
    assert_true(c.input_log_frames >= 1024);
    c.start_frame = 1 << 30;
    c.input_log_frames = 64;
    assert_int_equal(tempo_session_create_local(&c, &s), TEMPO_OK);
    assert_int_equal(tempo_session_frame(s), 1 << 30);
    assert_int_equal(tempo_session_confirmed_frame(s), 1 << 30);
    int32_t oldest = -1, end = -1;
    assert_int_equal(tempo_session_input_log_range(s, &oldest, &end), TEMPO_OK);
    assert_int_equal(oldest, 1 << 30);
    assert_int_equal(end, 1 << 30);
    tempo_session_destroy(s);
    /* network sessions: only 0 for now */
    tempo_transport tr = {null_send, null_recv, NULL, NULL};
    tempo_address host = tempo_address_ipv4(127, 0, 0, 1, 9000);
    tempo_config_default(&c);
    c.start_frame = 10;
    assert_int_equal(tempo_session_create_p2p(&c, &tr, &s), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_create_spectator(&c, &tr, &host, &s), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_create_synctest(&c, 2, &s), TEMPO_OK);
    assert_int_equal(tempo_session_frame(s), 10);
    tempo_session_destroy(s);
}

static void run_ticks(tempo_session *s, int ticks)
{
    uint8_t in[4] = {0};
    for (int i = 0; i < ticks; i++) {
        int32_t f = tempo_session_frame(s);
        tempo_session_add_remote_input(s, 1, f, in, 4);
        tempo_session_add_local_input(s, 0, in, 4);
        tempo_tick t;
        assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
        const tempo_request *r;
        while (tempo_session_next(s, &r) > 0)
            if (r->kind == TEMPO_REQUEST_SAVE)
                *r->checksum = 1;
    }
}

static void load_state_checks_frame_buffer_and_session_kind(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_session *s = make(2, &cfg);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    uint8_t block[16] = {0};
    assert_int_equal(tempo_session_load_state(NULL, 0, NULL, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_load_state(s, 0, block, sizeof block), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_load_state(s, 0, NULL, 4), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_load_state(s, 0, NULL, 0), TEMPO_OK); /* the start itself */
    assert_int_equal(tempo_session_load_state(s, 1, NULL, 0), TEMPO_E_FRAME);
    run_ticks(s, 20);
    assert_int_equal(tempo_session_frame(s), 20);
    assert_int_equal(tempo_session_load_state(s, 21, NULL, 0), TEMPO_E_FRAME); /* ahead */
    assert_int_equal(tempo_session_load_state(s, 20 - cfg.max_prediction - 1, NULL, 0),
                     TEMPO_E_FRAME); /* deeper than the window */
    assert_int_equal(tempo_session_load_state(s, -1, NULL, 0), TEMPO_E_FRAME);
    assert_int_equal(tempo_session_load_state(s, 20 - cfg.max_prediction, NULL, 0), TEMPO_OK);
    assert_int_equal(tempo_session_load_state(s, 20, NULL, 0), TEMPO_OK);
    /* at the current frame: one SAVE of it, nothing resimulated */
    uint8_t in[4] = {0};
    tempo_session_add_remote_input(s, 1, 20, in, 4);
    tempo_session_add_local_input(s, 0, in, 4);
    tempo_tick t;
    assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
    assert_int_equal(t.rollback_depth, 0);
    assert_int_equal(t.num_requests, 2);
    assert_int_equal(t.requests[0].kind, TEMPO_REQUEST_SAVE);
    assert_int_equal(t.requests[0].frame, 20);
    assert_int_equal(t.requests[1].kind, TEMPO_REQUEST_ADVANCE);
    tempo_session_destroy(s);

    tempo_config_default(&cfg);
    assert_int_equal(tempo_session_create_synctest(&cfg, 2, &s), TEMPO_OK);
    assert_int_equal(tempo_session_load_state(s, 0, NULL, 0), TEMPO_E_UNSUPPORTED);
    tempo_session_destroy(s);

    /* arena mode: the state's size, and no load over requests still to take */
    cfg.arena = block;
    cfg.arena_size = sizeof block;
    cfg.start_frame = 100;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    uint8_t ext[16];
    memset(ext, 7, sizeof ext);
    assert_int_equal(tempo_session_load_state(s, 100, NULL, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_load_state(s, 100, ext, 8), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_load_state(s, 99, ext, sizeof ext), TEMPO_E_FRAME);
    assert_int_equal(block[0], 0); /* untouched on error */
    assert_int_equal(tempo_session_load_state(s, 100, ext, sizeof ext), TEMPO_OK);
    assert_memory_equal(block, ext, sizeof ext);
    tempo_session_add_local_input(s, 0, in, 4);
    assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
    assert_int_equal(tempo_session_load_state(s, 100, ext, sizeof ext), TEMPO_E_STATE);
    const tempo_request *r;
    while (tempo_session_next(s, &r) > 0)
        ;
    assert_int_equal(tempo_session_load_state(s, 100, ext, sizeof ext), TEMPO_OK);
    tempo_session_destroy(s);
}

static void log_reads_check_their_arguments(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_session *s = make(2, &cfg);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    run_ticks(s, 5);
    int32_t oldest, end;
    uint8_t in[8], st[2];
    assert_int_equal(tempo_session_input_log_range(NULL, &oldest, &end), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_input_log_range(s, NULL, &end), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_input_log_range(s, &oldest, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_input_log_range(s, &oldest, &end), TEMPO_OK);
    assert_int_equal(oldest, 0);
    assert_int_equal(end, 5);
    assert_int_equal(tempo_session_confirmed_inputs(NULL, 0, in, 8, st), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_confirmed_inputs(s, 0, NULL, 8, st), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_confirmed_inputs(s, 0, in, 4, st), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_confirmed_inputs(s, 0, in, 9, st), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_confirmed_inputs(s, 5, in, 8, st), TEMPO_E_FRAME);
    assert_int_equal(tempo_session_confirmed_inputs(s, -1, in, 8, st), TEMPO_E_FRAME);
    assert_int_equal(tempo_session_confirmed_inputs(s, 4, in, 8, st), TEMPO_OK);
    tempo_session_destroy(s);
}

static void empty_slots_and_joining_follow_the_session_kind(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_session *s = make(3, &cfg);
    assert_int_equal(tempo_session_add_empty_slot(NULL, 2), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_add_empty_slot(s, 3), TEMPO_E_PLAYER);
    assert_int_equal(tempo_session_add_empty_slot(s, -1), TEMPO_E_PLAYER);
    assert_int_equal(tempo_session_add_empty_slot(s, 2), TEMPO_OK);
    assert_int_equal(tempo_session_add_empty_slot(s, 2), TEMPO_E_ALREADY);
    assert_int_equal(tempo_session_add_local_player(s, 0), TEMPO_OK);
    assert_int_equal(tempo_session_add_empty_slot(s, 0), TEMPO_E_ALREADY);
    assert_int_equal(tempo_session_add_remote_player(s, 1, NULL), TEMPO_OK);
    run_ticks(s, 3); /* an empty slot counts as declared */
    assert_int_equal(tempo_session_add_empty_slot(s, 1), TEMPO_E_ALREADY);
    assert_int_equal(tempo_session_input_delay(s, 2), TEMPO_E_PLAYER);
    assert_int_equal(tempo_session_disconnect_player(s, 2), TEMPO_E_PLAYER);
    uint8_t in[4] = {0};
    assert_int_equal(tempo_session_add_remote_input(s, 2, 3, in, 4), TEMPO_E_PLAYER);
    assert_int_equal(tempo_session_add_local_input(s, 2, in, 4), TEMPO_E_PLAYER);
    /* a player takes it while running; then it is occupied */
    assert_int_equal(tempo_session_add_local_player(s, 2), TEMPO_OK);
    assert_int_equal(tempo_session_add_local_player(s, 2), TEMPO_E_ALREADY);
    assert_int_equal(tempo_session_add_local_input(s, 2, in, 4), TEMPO_OK);
    assert_int_equal(tempo_session_set_input_delay(s, 2, 1), TEMPO_OK);
    /* a dropped remote player's slot takes a new player */
    assert_int_equal(tempo_session_disconnect_player(s, 1), TEMPO_OK);
    assert_int_equal(tempo_session_add_remote_player(s, 1, NULL), TEMPO_OK);
    assert_int_equal(tempo_session_add_remote_player(s, 1, NULL), TEMPO_E_ALREADY);
    tempo_session_destroy(s);

    tempo_config_default(&cfg);
    assert_int_equal(tempo_session_create_synctest(&cfg, 2, &s), TEMPO_OK);
    assert_int_equal(tempo_session_add_empty_slot(s, 1), TEMPO_E_UNSUPPORTED);
    tempo_session_destroy(s);
    tempo_transport tr = {null_send, null_recv, NULL, NULL};
    assert_int_equal(tempo_session_create_p2p(&cfg, &tr, &s), TEMPO_OK);
    assert_int_equal(tempo_session_add_empty_slot(s, 1), TEMPO_E_UNSUPPORTED);
    tempo_session_destroy(s);
}

static void *counted_alloc(void *ctx, size_t size)
{
    ++*(int *)ctx;
    return malloc(size);
}

static void counted_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

/* External loads, log reads and joining allocate nothing either. */
static void openings_never_allocate(void **state)
{
    (void)state;
    struct { int count; } fa = {0};
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = 3;
    cfg.allocator.alloc = counted_alloc;
    cfg.allocator.free = counted_free;
    cfg.allocator.ctx = &fa.count;
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    tempo_session_add_empty_slot(s, 2);
    int after_create = fa.count;
    run_ticks(s, 50);
    assert_int_equal(tempo_session_add_remote_player(s, 2, NULL), TEMPO_OK);
    for (int i = 0; i < 200; i++) {
        if (i % 7 == 0)
            assert_int_equal(tempo_session_load_state(s, tempo_session_frame(s) - 3, NULL, 0),
                             TEMPO_OK);
        uint8_t in[12];
        int32_t oldest, end;
        tempo_session_input_log_range(s, &oldest, &end);
        if (end > oldest)
            assert_int_equal(tempo_session_confirmed_inputs(s, end - 1, in, sizeof in, NULL),
                             TEMPO_OK);
        tempo_session_add_remote_input(s, 2, tempo_session_frame(s), in, 4);
        run_ticks(s, 1);
    }
    assert_int_equal(fa.count, after_create);
    tempo_session_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(config_fields_out_of_range_are_rejected),
        cmocka_unit_test(player_calls_validate_numbers_kinds_and_timing),
        cmocka_unit_test(input_calls_validate_size_player_and_frame),
        cmocka_unit_test(tick_calls_validate_their_arguments),
        cmocka_unit_test(advance_refused_for_undeclared_players_keeps_the_input),
        cmocka_unit_test(local_and_synctest_sessions_take_any_time),
        cmocka_unit_test(disconnect_rejects_local_unknown_and_repeated_players),
        cmocka_unit_test(arena_mode_refuses_to_advance_over_unexecuted_requests),
        cmocka_unit_test(remote_input_bounds_are_as_documented),
        cmocka_unit_test(every_call_in_every_state_returns_a_code),
        cmocka_unit_test(state_query_validates_its_arguments),
        cmocka_unit_test(local_session_is_running_or_waiting_on_its_remote_player),
        cmocka_unit_test(synctest_session_is_always_running),
        cmocka_unit_test(network_sessions_synchronize_run_and_end_when_their_peer_leaves),
        cmocka_unit_test(network_sessions_end_when_every_peer_was_dropped),
        cmocka_unit_test(p2p_session_waits_while_its_window_is_full),
        cmocka_unit_test(start_frame_and_log_size_are_range_checked),
        cmocka_unit_test(load_state_checks_frame_buffer_and_session_kind),
        cmocka_unit_test(log_reads_check_their_arguments),
        cmocka_unit_test(empty_slots_and_joining_follow_the_session_kind),
        cmocka_unit_test(openings_never_allocate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
