/*
 * test_session_api.c — the public API's contract with callers: every bad
 * argument returns an error code (never a crash), allocation failures at any
 * point of create are reported without leaks, ticking never allocates.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tempo/tempo.h"

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
    assert_int_equal(tempo_session_set_input_delay(s, 0, 9), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_set_input_delay(s, 0, 8), TEMPO_OK);
    assert_int_equal(tempo_session_set_input_delay(NULL, 0, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_input_delay(s, 0), 8);
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
    assert_int_equal(tempo_session_save_slots(s), 10);
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

/* ---- allocation failure ------------------------------------------------- */

typedef struct failing_alloc {
    int fail_at;  /* the allocation number that fails (0-based), -1 never */
    int count;
    int live;
} failing_alloc;

static void *fa_alloc(void *ctx, size_t size)
{
    failing_alloc *f = ctx;
    if (f->count++ == f->fail_at)
        return NULL;
    f->live++;
    return malloc(size);
}

static void fa_free(void *ctx, void *p)
{
    failing_alloc *f = ctx;
    f->live--;
    free(p);
}

static void every_allocation_failure_in_create_is_clean(void **state)
{
    (void)state;
    for (int kind = 0; kind < 3; kind++) {
        int total = -1;
        for (int k = 0;; k++) {
            failing_alloc fa = {k, 0, 0};
            tempo_config cfg;
            tempo_config_default(&cfg);
            cfg.num_players = 4;
            cfg.allocator.alloc = fa_alloc;
            cfg.allocator.free = fa_free;
            cfg.allocator.ctx = &fa;
            uint8_t block[256];
            if (kind == 2) {
                cfg.arena = block;
                cfg.arena_size = sizeof block;
            }
            tempo_session *s = NULL;
            tempo_result r = kind == 1 ? tempo_session_create_synctest(&cfg, 4, &s)
                                       : tempo_session_create_local(&cfg, &s);
            if (r == TEMPO_OK) {
                assert_true(fa.count <= k); /* no failure was injected */
                total = k;
                tempo_session_destroy(s);
                assert_int_equal(fa.live, 0);
                break;
            }
            assert_int_equal(r, TEMPO_E_NO_MEMORY);
            assert_null(s);
            assert_int_equal(fa.live, 0); /* nothing leaked */
        }
        assert_true(total > 3); /* several allocations were each made to fail */
    }
}

/* The tick allocates nothing: count allocations across a long run. */
static void ticking_never_allocates(void **state)
{
    (void)state;
    failing_alloc fa = {-1, 0, 0};
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.allocator.alloc = fa_alloc;
    cfg.allocator.free = fa_free;
    cfg.allocator.ctx = &fa;
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    int after_create = fa.count;
    uint8_t in[4] = {0};
    for (int i = 0; i < 2000; i++) {
        if (i % 3 == 0)
            for (int f = i - 3; f < i; f++)
                if (f >= 0)
                    tempo_session_add_remote_input(s, 1, f, in, 4);
        in[0] = (uint8_t)(i / 7);
        tempo_session_add_local_input(s, 0, in, 4);
        tempo_tick t;
        tempo_session_advance(s, &t);
        const tempo_request *r;
        while (tempo_session_next(s, &r) > 0)
            if (r->kind == TEMPO_REQUEST_SAVE)
                *r->checksum = 1;
    }
    assert_int_equal(fa.count, after_create);
    tempo_session_destroy(s);
    assert_int_equal(fa.live, 0);
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
    tempo_transport tr = {null_send, null_recv, NULL};
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
    tempo_transport tr = {null_send, null_recv, NULL};
    assert_int_equal(tempo_session_create_p2p(&cfg, &tr, &s), TEMPO_OK);
    assert_int_equal(tempo_session_add_empty_slot(s, 1), TEMPO_E_UNSUPPORTED);
    tempo_session_destroy(s);
}

/* External loads, log reads and joining allocate nothing either. */
static void openings_never_allocate(void **state)
{
    (void)state;
    failing_alloc fa = {-1, 0, 0};
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = 3;
    cfg.allocator.alloc = fa_alloc;
    cfg.allocator.free = fa_free;
    cfg.allocator.ctx = &fa;
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

/* ---- results, version, rng ---------------------------------------------- */

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
        cmocka_unit_test(every_allocation_failure_in_create_is_clean),
        cmocka_unit_test(ticking_never_allocates),
        cmocka_unit_test(start_frame_and_log_size_are_range_checked),
        cmocka_unit_test(load_state_checks_frame_buffer_and_session_kind),
        cmocka_unit_test(log_reads_check_their_arguments),
        cmocka_unit_test(empty_slots_and_joining_follow_the_session_kind),
        cmocka_unit_test(openings_never_allocate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
