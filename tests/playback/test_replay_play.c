/* SPDX-License-Identifier: MIT */
/*
 * test_replay_play.c — replay sessions: a 4-player minute recorded to a
 * file plays back with every checksum matching and ends in the live
 * match's state; an altered checksum raises DESYNC at its frame; seeks land
 * on the live match's states; a config that differs from the file's is
 * refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "toy.h"
#include "tempo/replay.h"

#define NP 4
#define IS 2
#define FRAMES 3600
#define DROP_PLAYER 3
#define DROP_FRAME 3000

typedef struct game { uint64_t hash; int64_t frame; } game;

static void game_step(game *g, const uint8_t *inputs, const uint8_t *status)
{
    uint64_t h = toy_mix(g->hash, (uint64_t)g->frame);
    for (int i = 0; i < NP * IS; i++)
        h = toy_mix(h, inputs[i]);
    for (int p = 0; p < NP; p++)
        h = toy_mix(h, status[p] == TEMPO_INPUT_DISCONNECTED);
    g->hash = h;
    g->frame++;
}

static uint64_t game_sum(const game *g) { return tempo_checksum(g, sizeof *g); }

typedef struct sink { uint8_t buf[1 << 20]; size_t len; } sink;

static int sink_write(void *ctx, const void *data, size_t size)
{
    sink *k = ctx;
    if (k->len + size > sizeof k->buf)
        return 1;
    memcpy(k->buf + k->len, data, size);
    k->len += size;
    return 0;
}

static game live[FRAMES + 1];   /* the live match's state at each frame */
static sink file_ok, file_bad;
#define BAD_FRAME 1200

/* Play the live match and record it; the checksum of BAD_FRAME is recorded
 * wrong when `alter` is set. */
static void record(sink *k, bool alter)
{
    tempo_replay_writer_config wc;
    tempo_replay_writer_config_default(&wc, NULL);
    wc.settings.num_players = NP;
    wc.settings.input_size = IS;
    wc.settings.desync_interval = 60;
    wc.settings.state_interval = 600;
    wc.settings.max_state_size = sizeof(game);
    wc.write = sink_write;
    wc.write_ctx = k;
    k->len = 0;
    tempo_replay_writer *w;
    assert_int_equal(tempo_replay_writer_create(&wc, &w), TEMPO_OK);
    game g = {0, 0};
    for (int32_t f = 0; f <= FRAMES; f++) {
        live[f] = g;
        if (f > 0 && f % 60 == 0)
            assert_int_equal(tempo_replay_writer_checksum(
                                 w, f, game_sum(&g) ^ (alter && f == BAD_FRAME ? 1u : 0u)), 1);
        if (f % 600 == 0)
            assert_int_equal(tempo_replay_writer_state(w, f, &g, sizeof g), 1);
        if (f == FRAMES)
            break;
        uint8_t in[NP * IS], st[NP];
        for (int p = 0; p < NP; p++) {
            bool gone = p == DROP_PLAYER && f >= DROP_FRAME;
            st[p] = gone ? TEMPO_INPUT_DISCONNECTED : TEMPO_INPUT_CONFIRMED;
            if (gone)
                memset(in + p * IS, 0, IS);
            else
                toy_true_input(7, p, f, in + p * IS, IS);
        }
        assert_int_equal(tempo_replay_writer_add_frame(w, f, in, sizeof in, st), TEMPO_OK);
        game_step(&g, in, st);
    }
    assert_int_equal(tempo_replay_writer_finish(w), TEMPO_OK);
    tempo_replay_writer_destroy(w);
}

/* The two recordings every test plays, made once, by the first test that
 * needs them (the Windows build's cmocka stand-in has no group setup). */
static void recorded(void)
{
    static bool done = false;
    if (done)
        return;
    record(&file_bad, true);
    record(&file_ok, false);
    done = true;
}

static void config_of_file(tempo_config *cfg)
{
    tempo_config_default(cfg);
    cfg->num_players = NP;
    cfg->input_size = IS;
    cfg->desync_interval = 60;
}

/* Play the file to its end; returns the DESYNC events (the first's frame in
 * *desync_frame) and leaves the game's final state in *g. */
static int play(const sink *k, game *g, game *arena, int32_t *desync_frame)
{
    tempo_replay *r;
    assert_int_equal(tempo_replay_open(k->buf, k->len, NULL, &r), TEMPO_OK);
    tempo_config cfg;
    config_of_file(&cfg);
    if (arena) {
        cfg.arena = arena;
        cfg.arena_size = sizeof *arena;
        g = arena;
    }
    tempo_session *s;
    assert_int_equal(tempo_session_create_replay(&cfg, r, &s), TEMPO_OK);
    memset(g, 0, sizeof *g);
    int desyncs = 0, ticks = 0;
    for (;;) {
        tempo_tick t;
        assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
        tempo_event ev;
        while (tempo_session_poll_event(s, &ev) > 0)
            if (ev.kind == TEMPO_EVENT_DESYNC && desyncs++ == 0)
                *desync_frame = ev.u.desync.frame;
        tempo_session_state st;
        assert_int_equal(tempo_session_get_state(s, &st), TEMPO_OK);
        if (t.status == TEMPO_TICK_WAITING) {
            assert_int_equal(t.num_requests, 0);
            assert_int_equal(st, TEMPO_SESSION_ENDED);
            break;
        }
        assert_int_equal(t.frames_advanced, 1);
        const tempo_request *q;
        while (tempo_session_next(s, &q) > 0) {
            if (q->kind == TEMPO_REQUEST_SAVE) {
                assert_int_equal(q->frame, g->frame);
                *q->checksum = game_sum(g);
                continue;
            }
            assert_int_equal(q->kind, TEMPO_REQUEST_ADVANCE);
            assert_int_equal(q->frame, g->frame);
            assert_false(q->resimulating);
            for (int p = 0; p < NP; p++)
                assert_int_not_equal(q->status[p], TEMPO_INPUT_PREDICTED);
            game_step(g, q->inputs, q->status);
        }
        ticks++;
    }
    assert_int_equal(ticks, FRAMES);
    tempo_session_destroy(s);
    tempo_replay_close(r);
    return desyncs;
}

static void a_recorded_minute_plays_back_with_every_checksum_equal(void **state)
{
    (void)state;
    recorded();
    game g, a;
    int32_t at = -1;
    assert_int_equal(play(&file_ok, &g, NULL, &at), 0);
    assert_memory_equal(&g, &live[FRAMES], sizeof g);
    assert_int_equal(play(&file_ok, &g, &a, &at), 0); /* arena mode: tempo's checksums */
    assert_memory_equal(&a, &live[FRAMES], sizeof a);
}

static void an_altered_checksum_raises_desync_at_its_frame(void **state)
{
    (void)state;
    recorded();
    game g;
    int32_t at = -1;
    assert_int_equal(play(&file_bad, &g, NULL, &at), 1);
    assert_int_equal(at, BAD_FRAME);
}

static void seeks_land_on_the_live_states(void **state)
{
    (void)state;
    recorded();
    tempo_replay *r;
    assert_int_equal(tempo_replay_open(file_ok.buf, file_ok.len, NULL, &r), TEMPO_OK);
    tempo_config cfg;
    config_of_file(&cfg);
    game arena;
    memset(&arena, 0, sizeof arena);
    cfg.arena = &arena;
    cfg.arena_size = sizeof arena;
    tempo_session *s;
    assert_int_equal(tempo_session_create_replay(&cfg, r, &s), TEMPO_OK);
    const int32_t targets[3] = {2999, 437, 3571}; /* backward, across the drop, near the end */
    for (int i = 0; i < 3; i++) {
        int32_t from = -1;
        assert_int_equal(tempo_session_replay_seek(s, targets[i], NULL, NULL, &from), TEMPO_OK);
        assert_int_equal(from, targets[i] / 600 * 600);
        assert_memory_equal(&arena, &live[from], sizeof arena);
        while (tempo_session_frame(s) < targets[i]) {
            tempo_tick t;
            assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
            const tempo_request *q;
            while (tempo_session_next(s, &q) > 0) {
                assert_int_equal(q->kind, TEMPO_REQUEST_ADVANCE);
                assert_true(q->resimulating);
                game_step(&arena, q->inputs, q->status);
            }
        }
        assert_int_equal(tempo_session_frame(s), targets[i]);
        assert_memory_equal(&arena, &live[targets[i]], sizeof arena);
        /* Play goes on at one frame a tick, no longer resimulating. */
        tempo_tick t;
        assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
        assert_int_equal(t.frames_advanced, 1);
        const tempo_request *q;
        while (tempo_session_next(s, &q) > 0) {
            assert_false(q->resimulating);
            game_step(&arena, q->inputs, q->status);
        }
        assert_memory_equal(&arena, &live[targets[i] + 1], sizeof arena);
    }
    tempo_event ev;
    while (tempo_session_poll_event(s, &ev) > 0)
        assert_int_not_equal(ev.kind, TEMPO_EVENT_DESYNC);
    assert_int_equal(tempo_session_replay_seek(s, FRAMES + 1, NULL, NULL, NULL), TEMPO_E_FRAME);
    tempo_session_destroy(s);
    tempo_replay_close(r);
}

/* Without an arena the game loads the stored state itself, from the
 * pointer the seek hands back, and checksums its own SAVEs on the way. */
static void seeks_without_an_arena_hand_the_state_to_the_game(void **state)
{
    (void)state;
    recorded();
    tempo_replay *r;
    assert_int_equal(tempo_replay_open(file_ok.buf, file_ok.len, NULL, &r), TEMPO_OK);
    tempo_config cfg;
    config_of_file(&cfg);
    tempo_session *s;
    assert_int_equal(tempo_session_create_replay(&cfg, r, &s), TEMPO_OK);
    game g;
    const int32_t targets[3] = {1805, 17, 3599};
    for (int i = 0; i < 3; i++) {
        const void *data = NULL;
        size_t size = 0;
        int32_t from = -1;
        assert_int_equal(tempo_session_replay_seek(s, targets[i], &data, &size, &from), TEMPO_OK);
        assert_int_equal(from, targets[i] / 600 * 600);
        assert_int_equal(size, sizeof g);
        memcpy(&g, data, size);
        assert_memory_equal(&g, &live[from], sizeof g);
        int saves = 0;
        while (tempo_session_frame(s) <= targets[i]) {
            tempo_tick t;
            assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
            const tempo_request *q;
            while (tempo_session_next(s, &q) > 0) {
                if (q->kind == TEMPO_REQUEST_SAVE) {
                    assert_int_equal(q->frame, g.frame);
                    *q->checksum = game_sum(&g);
                    saves++;
                    continue;
                }
                assert_int_equal(q->kind, TEMPO_REQUEST_ADVANCE);
                assert_int_equal(q->frame, g.frame);
                assert_int_equal(q->resimulating, q->frame < targets[i]);
                game_step(&g, q->inputs, q->status);
            }
        }
        assert_memory_equal(&g, &live[targets[i] + 1], sizeof g);
        /* the check frames on the way (every 60th but 0) were asked for,
         * and the end state's after the last frame */
        int checks = 0;
        int32_t last = targets[i] + 1 == FRAMES ? FRAMES : targets[i];
        for (int32_t f = from; f <= last; f++)
            checks += f > 0 && f % 60 == 0;
        assert_int_equal(saves, checks);
    }
    tempo_event ev;
    while (tempo_session_poll_event(s, &ev) > 0)
        assert_int_not_equal(ev.kind, TEMPO_EVENT_DESYNC);
    tempo_session_destroy(s);
    tempo_replay_close(r);
}

/* Speed changes how many frames a tick runs, never which states result. */
static void playback_speed_scales_frames_per_tick(void **state)
{
    (void)state;
    recorded();
    tempo_replay *r;
    assert_int_equal(tempo_replay_open(file_ok.buf, file_ok.len, NULL, &r), TEMPO_OK);
    tempo_config cfg;
    config_of_file(&cfg);
    game arena;
    memset(&arena, 0, sizeof arena);
    cfg.arena = &arena;
    cfg.arena_size = sizeof arena;
    tempo_session *s;
    assert_int_equal(tempo_session_create_replay(&cfg, r, &s), TEMPO_OK);
    assert_int_equal(tempo_session_replay_set_speed(s, -1), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_replay_set_speed(s, TEMPO_REPLAY_MAX_SPEED + 1),
                     TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_replay_set_speed(NULL, 256), TEMPO_E_INVALID_ARG);
    /* 100 ticks each at 3x, 1/4x, paused, 8x */
    const int speeds[4] = {768, 64, 0, TEMPO_REPLAY_MAX_SPEED};
    const int frames[4] = {300, 25, 0, 800};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(tempo_session_replay_set_speed(s, speeds[k]), TEMPO_OK);
        int32_t before = tempo_session_frame(s);
        int stalled = 0;
        for (int i = 0; i < 100; i++) {
            tempo_tick t;
            assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
            if (t.status == TEMPO_TICK_STALLED) {
                assert_int_equal(t.num_requests, 0);
                stalled++;
            }
            const tempo_request *q;
            while (tempo_session_next(s, &q) > 0) {
                assert_false(q->resimulating);
                game_step(&arena, q->inputs, q->status);
            }
        }
        assert_int_equal(tempo_session_frame(s) - before, frames[k]);
        assert_int_equal(stalled, 100 - (frames[k] < 100 ? frames[k] : 100));
        assert_memory_equal(&arena, &live[tempo_session_frame(s)], sizeof arena);
    }
    tempo_event ev;
    while (tempo_session_poll_event(s, &ev) > 0)
        assert_int_not_equal(ev.kind, TEMPO_EVENT_DESYNC);
    tempo_session *local;
    assert_int_equal(tempo_session_create_local(&cfg, &local), TEMPO_OK);
    assert_int_equal(tempo_session_replay_set_speed(local, 256), TEMPO_E_UNSUPPORTED);
    tempo_session_destroy(local);
    tempo_session_destroy(s);
    tempo_replay_close(r);
}

static void a_config_unlike_the_files_is_refused(void **state)
{
    (void)state;
    recorded();
    tempo_replay *r;
    assert_int_equal(tempo_replay_open(file_ok.buf, file_ok.len, NULL, &r), TEMPO_OK);
    tempo_session *s = (tempo_session *)1;
    for (int k = 0; k < 4; k++) {
        tempo_config cfg;
        config_of_file(&cfg);
        if (k == 0) cfg.num_players = 3;
        if (k == 1) cfg.input_size = 4;
        if (k == 2) cfg.start_frame = 5;
        if (k == 3) cfg.desync_interval = 30;
        assert_int_equal(tempo_session_create_replay(&cfg, r, &s), TEMPO_E_FOREIGN);
        assert_null(s);
    }
    tempo_config cfg;
    config_of_file(&cfg);
    assert_int_equal(tempo_session_create_replay(&cfg, NULL, &s), TEMPO_E_INVALID_ARG);
    tempo_session *local;
    assert_int_equal(tempo_session_create_local(&cfg, &local), TEMPO_OK);
    assert_int_equal(tempo_session_replay_seek(local, 0, NULL, NULL, NULL), TEMPO_E_UNSUPPORTED);
    tempo_session_destroy(local);
    tempo_replay_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_recorded_minute_plays_back_with_every_checksum_equal),
        cmocka_unit_test(an_altered_checksum_raises_desync_at_its_frame),
        cmocka_unit_test(seeks_land_on_the_live_states),
        cmocka_unit_test(seeks_without_an_arena_hand_the_state_to_the_game),
        cmocka_unit_test(playback_speed_scales_frames_per_tick),
        cmocka_unit_test(a_config_unlike_the_files_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
