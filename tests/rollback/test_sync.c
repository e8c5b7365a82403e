/* SPDX-License-Identifier: MIT */
/*
 * test_sync.c — the rollback engine under scenarios over many seeds.
 *
 * A local session plays against simulated remote players whose real inputs
 * arrive late, out of order, in bursts and through blackouts. After each run:
 * every confirmed frame was last simulated with the true inputs; the final
 * state equals a reference run without prediction; LOAD only named saved
 * frames; rollback depth and prediction never exceeded the window; the local
 * player's inputs were used once each, in order; sparse and every-frame
 * saving agree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "toy.h"
#include "session/session.h"

#define ISIZE 4

typedef struct scenario {
    uint64_t seed;
    int players;
    int max_pred;
    tempo_save_policy policy;
    int delay;            /* local input delay */
    int frames;           /* frames to reach */
    int lat_min, lat_max; /* remote latency in ticks */
    int burst;            /* deliver only every `burst` ticks (1: every tick) */
    int blackout_at, blackout_len;
    int delay_change_at, delay_change_to;
    int disconnect_at, disconnect_player;
    int32_t start_frame;  /* the session's first frame; its state is start_state */
} scenario;

/* The game's state at a start frame: any state, as long as the run and the
 * reference begin from the same one. */
static toy_state start_state(const scenario *sc)
{
    toy_state st = {sc->start_frame ? toy_mix(sc->seed, 0x5747u) : 0, sc->start_frame};
    return st;
}

typedef struct outcome {
    uint64_t final_hash;
    int32_t final_frame;
    int waiting_ticks;
    int stalled_ticks;
    int max_depth;
    uint64_t rollbacks;
    int32_t disconnect_frame;
    uint64_t saves, loads;
    int loads_wrong; /* LOADs that restored a state other than the true one of their frame */
} outcome;

static uint64_t rng_next(uint64_t *x)
{
    *x += 0x9e3779b97f4a7c15ULL;
    return toy_mix(*x, 0);
}

static void local_input(uint32_t sample, uint8_t *out)
{
    memcpy(out, &sample, ISIZE); /* the sample's index: proves order and uniqueness */
}

static toy_driver driver;

/* Run a scenario; checks invariants with cmocka asserts, returns what happened. */
static outcome run(const scenario *sc)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = sc->players;
    cfg.input_size = ISIZE;
    cfg.max_prediction = sc->max_pred;
    cfg.save_policy = sc->policy;
    cfg.start_frame = sc->start_frame;
    tempo_session *s = NULL;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    assert_int_equal(tempo_session_frame(s), sc->start_frame);
    assert_int_equal(tempo_session_add_local_player(s, 0), TEMPO_OK);
    for (int p = 1; p < sc->players; p++)
        assert_int_equal(tempo_session_add_remote_player(s, p, NULL), TEMPO_OK);
    assert_int_equal(tempo_session_set_input_delay(s, 0, sc->delay), TEMPO_OK);

    toy_driver *d = &driver;
    toy_driver_init(d, sc->players, ISIZE);
    d->cur = start_state(sc);
    outcome out;
    memset(&out, 0, sizeof out);
    out.disconnect_frame = -1;

    /* when each remote frame arrives: frame f is sent at tick f */
    enum { MAXF = 1200 };
    static int arrival[TEMPO_MAX_PLAYERS][MAXF];
    uint64_t r = sc->seed;
    for (int p = 1; p < sc->players; p++)
        for (int f = 0; f < MAXF; f++) {
            int lat = sc->lat_min + (int)(rng_next(&r) % (uint64_t)(sc->lat_max - sc->lat_min + 1));
            int t = f + lat;
            if (sc->burst > 1)
                t += (sc->burst - t % sc->burst) % sc->burst;
            if (t >= sc->blackout_at && t < sc->blackout_at + sc->blackout_len)
                t = sc->blackout_at + sc->blackout_len;
            arrival[p][f] = t;
        }

    uint32_t sample = 0;
    int32_t last_local = -1; /* newest sample index used so far, by frame order */
    int heal_from = -1;
    for (int tick = 0; tick < 20000; tick++) {
        bool healing = tempo_session_frame(s) >= sc->start_frame + sc->frames;
        if (healing && heal_from < 0)
            heal_from = tick;
        /* deliver remote inputs due now (all of them once healing) */
        for (int p = 1; p < sc->players; p++)
            for (int f = 0; f < MAXF; f++)
                if (arrival[p][f] == tick || (healing && arrival[p][f] > tick)) {
                    uint8_t b[ISIZE];
                    toy_true_input(sc->seed, p, sc->start_frame + f, b, ISIZE);
                    tempo_result res =
                        tempo_session_add_remote_input(s, p, sc->start_frame + f, b, ISIZE);
                    if (res == TEMPO_OK)
                        arrival[p][f] = -1;
                    else
                        assert_int_equal(res, TEMPO_E_FRAME); /* too far ahead: retry later */
                    if (res == TEMPO_E_FRAME)
                        arrival[p][f] = tick + 1;
                }
        if (tick == sc->delay_change_at)
            assert_int_equal(tempo_session_set_input_delay(s, 0, sc->delay_change_to), TEMPO_OK);
        if (tick == sc->disconnect_at) {
            assert_int_equal(tempo_session_disconnect_player(s, sc->disconnect_player), TEMPO_OK);
            tempo_event ev;
            bool seen = false;
            while (tempo_session_poll_event(s, &ev) > 0)
                if (ev.kind == TEMPO_EVENT_DISCONNECTED) {
                    seen = true;
                    out.disconnect_frame = ev.u.disconnected.frame;
                }
            assert_true(seen);
        }

        uint8_t b[ISIZE];
        local_input(sample, b);
        assert_int_equal(tempo_session_add_local_input(s, 0, b, ISIZE), TEMPO_OK);
        tempo_tick t;
        assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
        /* a tick takes its sample or drops it (tempo_tick.inputs_taken);
         * test_local_input.c checks which */
        sample++;
        toy_driver_run(d, s);
        assert_int_equal(d->errors, 0);
        assert_true(t.rollback_depth <= sc->max_pred);
        int32_t F = tempo_session_frame(s), C = tempo_session_confirmed_frame(s);
        assert_true(F - C <= sc->max_pred);
        assert_int_equal(d->cur.frame, F);
        if (t.status == TEMPO_TICK_WAITING) {
            out.waiting_ticks++;
            assert_true(t.waiting_for != 0);
            assert_true((t.waiting_for & 1u) == 0); /* never waits for the local player */
        }
        if (t.status == TEMPO_TICK_STALLED)
            out.stalled_ticks++;
        if (t.rollback_depth > out.max_depth)
            out.max_depth = t.rollback_depth;
        if (healing && C == F && tick > heal_from + sc->max_pred + sc->delay + 4)
            break;
    }
    int32_t F = tempo_session_frame(s);
    assert_true(F >= sc->start_frame + sc->frames);
    assert_int_equal(tempo_session_confirmed_frame(s), F);

    /* every frame: true remote inputs, all confirmed (or disconnected) */
    toy_state ref = start_state(sc);
    for (int32_t f = sc->start_frame; f < F; f++) {
        /* a LOAD of f restored a state; the true one is ref, before f's step */
        if (f < TOY_MAX_FRAMES && d->load_seen[f] && d->loaded_hash[f] != ref.hash)
            out.loads_wrong++;
        uint8_t expect[TEMPO_MAX_PLAYERS * ISIZE];
        uint8_t status[TEMPO_MAX_PLAYERS];
        memcpy(expect, d->used[f], ISIZE); /* local: checked below */
        status[0] = TEMPO_INPUT_CONFIRMED;
        for (int p = 1; p < sc->players; p++) {
            bool gone = out.disconnect_frame >= 0 && p == sc->disconnect_player &&
                        f >= out.disconnect_frame;
            if (gone)
                memset(expect + p * ISIZE, 0, ISIZE);
            else
                toy_true_input(sc->seed, p, f, expect + p * ISIZE, ISIZE);
            status[p] = gone ? TEMPO_INPUT_DISCONNECTED : TEMPO_INPUT_CONFIRMED;
        }
        assert_memory_equal(d->used[f], expect, (size_t)(sc->players * ISIZE));
        for (int p = 0; p < sc->players; p++) /* a right guess stays PREDICTED */
            assert_true((d->used_status[f][p] == TEMPO_INPUT_DISCONNECTED) ==
                        (status[p] == TEMPO_INPUT_DISCONNECTED));
        /* local samples strictly increase: none used twice, none out of order */
        uint32_t idx;
        memcpy(&idx, d->used[f], ISIZE);
        assert_true((int64_t)idx > (int64_t)last_local);
        last_local = (int32_t)idx;
        toy_step(&ref, expect, status, sc->players, ISIZE);
    }
    assert_true(ref.hash == d->cur.hash);

    tempo_session_stats st;
    assert_int_equal(tempo_session_get_stats(s, &st), TEMPO_OK);
    assert_true(st.max_rollback_depth <= sc->max_pred);
    out.final_hash = d->cur.hash;
    out.final_frame = F;
    out.rollbacks = st.rollbacks;
    out.saves = d->saves_done;
    out.loads = d->loads_done;
    out.loads_wrong += d->loads_differing;
    tempo_session_destroy(s);
    return out;
}

static scenario base(uint64_t seed)
{
    scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.seed = seed;
    sc.players = 2;
    sc.max_pred = 8;
    sc.policy = TEMPO_SAVE_EVERY_FRAME;
    sc.frames = 400;
    sc.lat_min = 1;
    sc.lat_max = 6;
    sc.burst = 1;
    sc.blackout_at = -1000;
    sc.delay_change_at = -1;
    sc.disconnect_at = -1;
    return sc;
}

static void late_reordered_inputs_converge_to_reference(void **state)
{
    (void)state;
    int rolled = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        scenario sc = base(seed);
        sc.players = 2 + (int)(seed % 7);
        sc.max_pred = 1 + (int)(seed % 12);
        sc.lat_max = sc.max_pred + 3;
        sc.delay = (int)(seed % 3);
        outcome o = run(&sc);
        rolled += o.rollbacks > 0;
    }
    assert_true(rolled > 50); /* the scenarios really exercised rollback */
}

static void bursts_and_blackouts_wait_then_recover(void **state)
{
    (void)state;
    for (uint64_t seed = 100; seed < 130; seed++) {
        scenario sc = base(seed);
        sc.players = 3;
        sc.burst = 2 + (int)(seed % 5);
        sc.blackout_at = 120;
        sc.blackout_len = 40;
        outcome o = run(&sc);
        assert_true(o.waiting_ticks >= 40 - sc.max_pred - sc.lat_max);
        assert_true(o.final_frame >= sc.frames);
    }
}

static void sparse_and_every_frame_saving_give_identical_results(void **state)
{
    (void)state;
    for (uint64_t seed = 200; seed < 240; seed++) {
        scenario sc = base(seed);
        sc.players = 2 + (int)(seed % 4);
        sc.max_pred = 2 + (int)(seed % 10);
        sc.lat_max = sc.max_pred + 2;
        sc.burst = 1 + (int)(seed % 3);
        outcome every = run(&sc);
        sc.policy = TEMPO_SAVE_SPARSE;
        outcome sparse = run(&sc);
        assert_true(every.final_hash == sparse.final_hash);
        assert_int_equal(every.final_frame, sparse.final_frame);
    }
}

/* Sparse saving keeps only the newest confirmed state: under random
 * rollbacks it saves strictly fewer states than every-frame saving (about
 * a fifth as many over these runs: it saves once per rollback or so, the
 * other policy every frame, again when resimulated), and
 * every LOAD restores the true state of its frame (the one the true
 * inputs give), never a predicted one; the match ends the same. */
static void sparse_saving_saves_less_and_restores_only_true_states(void **state)
{
    (void)state;
    uint64_t every_saves = 0, sparse_saves = 0, sparse_loads = 0;
    for (uint64_t seed = 500; seed < 540; seed++) {
        scenario sc = base(seed);
        sc.players = 2 + (int)(seed % 4);
        sc.max_pred = 3 + (int)(seed % 9);
        sc.lat_max = sc.max_pred + 2;
        sc.burst = 1 + (int)(seed % 3);
        outcome every = run(&sc);
        sc.policy = TEMPO_SAVE_SPARSE;
        outcome sparse = run(&sc);
        assert_true(sparse.saves < every.saves);
        assert_true(sparse.loads > 0); /* it really rolled back */
        assert_int_equal(sparse.loads_wrong, 0);
        assert_true(every.final_hash == sparse.final_hash);
        every_saves += every.saves;
        sparse_saves += sparse.saves;
        sparse_loads += sparse.loads;
    }
    assert_true(sparse_saves * 4 < every_saves);
    assert_true(sparse_loads > 40 * 20);
}

static void lockstep_with_input_delay_never_predicts(void **state)
{
    (void)state;
    for (uint64_t seed = 300; seed < 320; seed++) {
        scenario sc = base(seed);
        sc.max_pred = 0;
        sc.delay = 3;
        sc.lat_min = 1;
        sc.lat_max = 4;
        outcome o = run(&sc);
        assert_int_equal(o.max_depth, 0);
        assert_int_equal(o.rollbacks, 0);
    }
}

static void input_delay_changes_mid_match_keep_every_input_once(void **state)
{
    (void)state;
    for (uint64_t seed = 400; seed < 440; seed++) {
        scenario sc = base(seed);
        sc.max_pred = 10;
        sc.delay = (int)(seed % 5);
        sc.delay_change_at = 150;
        sc.delay_change_to = (int)((seed / 5) % 8);
        outcome o = run(&sc);
        (void)o;
    }
}

static void disconnected_player_turns_zero_and_match_goes_on(void **state)
{
    (void)state;
    for (uint64_t seed = 500; seed < 520; seed++) {
        scenario sc = base(seed);
        sc.players = 3;
        sc.disconnect_at = 150;
        sc.disconnect_player = 1 + (int)(seed % 2);
        outcome o = run(&sc);
        assert_true(o.disconnect_frame >= 0);
        assert_true(o.disconnect_frame <= 150);
    }
}

/* An increase by k stalls exactly k ticks; a decrease by k advances k + 1
 * frames in one tick. Remote inputs are always there, so nothing waits. */
static void delay_increase_stalls_and_decrease_catches_up(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.max_prediction = 12;
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    uint8_t b[4] = {0};
    for (int f = 0; f < 200; f++)
        assert_int_equal(tempo_session_add_remote_input(s, 1, f, b, 4), TEMPO_OK);
    tempo_tick t;
    toy_driver_init(&driver, 2, 4);
    for (int i = 0; i < 10; i++) {
        tempo_session_add_local_input(s, 0, b, 4);
        tempo_session_advance(s, &t);
        toy_driver_run(&driver, s);
        assert_int_equal(t.frames_advanced, 1);
    }
    tempo_session_set_input_delay(s, 0, 4);
    for (int i = 0; i < 4; i++) {
        tempo_session_add_local_input(s, 0, b, 4);
        tempo_session_advance(s, &t);
        toy_driver_run(&driver, s);
        assert_int_equal(t.status, TEMPO_TICK_STALLED);
        assert_int_equal(t.frames_advanced, 0);
    }
    tempo_session_add_local_input(s, 0, b, 4);
    tempo_session_advance(s, &t);
    toy_driver_run(&driver, s);
    assert_int_equal(t.frames_advanced, 1);
    tempo_session_set_input_delay(s, 0, 1);
    tempo_session_add_local_input(s, 0, b, 4);
    tempo_session_advance(s, &t);
    toy_driver_run(&driver, s);
    assert_int_equal(t.frames_advanced, 4);
    tempo_session_add_local_input(s, 0, b, 4);
    tempo_session_advance(s, &t);
    assert_int_equal(t.frames_advanced, 1);
    toy_driver_run(&driver, s);
    assert_int_equal(driver.errors, 0);
    tempo_session_destroy(s);
}

/* Window full: no ADVANCE, WAITING naming the missing player, events. */
static void full_window_reports_waiting_players_and_events(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = 3;
    cfg.max_prediction = 4;
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    tempo_session_add_remote_player(s, 2, NULL);
    uint8_t b[4] = {1, 2, 3, 4};
    for (int f = 0; f < 100; f++)
        tempo_session_add_remote_input(s, 1, f, b, 4);
    toy_driver_init(&driver, 3, 4);
    tempo_tick t;
    for (int i = 0; i < 4; i++) {
        tempo_session_add_local_input(s, 0, b, 4);
        assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
        assert_int_equal(t.status, TEMPO_TICK_ADVANCED);
        toy_driver_run(&driver, s);
    }
    tempo_session_add_local_input(s, 0, b, 4);
    assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
    assert_int_equal(t.status, TEMPO_TICK_WAITING);
    assert_int_equal(t.waiting_for, 1u << 2);
    assert_int_equal(t.frames_advanced, 0);
    tempo_event ev;
    assert_int_equal(tempo_session_poll_event(s, &ev), 1);
    assert_int_equal(ev.kind, TEMPO_EVENT_WAITING);
    assert_int_equal(ev.u.waiting.players, 1u << 2);
    for (int f = 0; f < 3; f++)
        tempo_session_add_remote_input(s, 2, f, b, 4);
    tempo_session_add_local_input(s, 0, b, 4);
    assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
    assert_int_equal(t.status, TEMPO_TICK_ADVANCED);
    assert_int_equal(tempo_session_poll_event(s, &ev), 1);
    assert_int_equal(ev.kind, TEMPO_EVENT_WAITING_OVER);
    toy_driver_run(&driver, s);
    assert_int_equal(driver.errors, 0);
    tempo_session_destroy(s);
}

/* Arena mode: tempo saves and loads the block itself; the game sees only
 * ADVANCE, and the results equal game-managed saving. */
static void arena_mode_hands_out_only_advances_and_matches_game_saving(void **state)
{
    (void)state;
    for (uint64_t seed = 600; seed < 610; seed++) {
        tempo_config cfg;
        tempo_config_default(&cfg);
        cfg.max_prediction = 6;
        cfg.save_policy = seed % 2 ? TEMPO_SAVE_SPARSE : TEMPO_SAVE_EVERY_FRAME;
        static toy_state arena;
        memset(&arena, 0, sizeof arena);
        cfg.arena = &arena;
        cfg.arena_size = sizeof arena;
        tempo_session *s;
        assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
        tempo_session_add_local_player(s, 0);
        tempo_session_add_remote_player(s, 1, NULL);
        uint64_t r = seed;
        int32_t sent = 0;
        for (int tick = 0; tick < 300; tick++) {
            while (sent < tick - (int)(rng_next(&r) % 6)) {
                uint8_t b[4];
                toy_true_input(seed, 1, sent, b, 4);
                tempo_session_add_remote_input(s, 1, sent++, b, 4);
            }
            uint8_t b[4];
            toy_true_input(seed, 0, tick, b, 4);
            tempo_session_add_local_input(s, 0, b, 4);
            tempo_tick t;
            assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
            const tempo_request *q;
            while (tempo_session_next(s, &q) > 0) {
                assert_int_equal(q->kind, TEMPO_REQUEST_ADVANCE);
                assert_int_equal(q->frame, arena.frame);
                toy_step(&arena, q->inputs, q->status, 2, 4);
            }
        }
        for (; sent < tempo_session_frame(s) + 10; sent++) {
            uint8_t b[4];
            toy_true_input(seed, 1, sent, b, 4);
            tempo_session_add_remote_input(s, 1, sent, b, 4);
        }
        uint8_t b[4];
        toy_true_input(seed, 0, 300, b, 4);
        tempo_session_add_local_input(s, 0, b, 4);
        tempo_tick t;
        tempo_session_advance(s, &t);
        const tempo_request *q;
        while (tempo_session_next(s, &q) > 0)
            toy_step(&arena, q->inputs, q->status, 2, 4);
        /* reference: true inputs, all confirmed */
        toy_state ref = {0, 0};
        uint8_t st[2] = {0, 0};
        for (int32_t f = 0; f < arena.frame; f++) {
            uint8_t in[8];
            toy_true_input(seed, 0, f, in, 4);
            toy_true_input(seed, 1, f, in + 4, 4);
            toy_step(&ref, in, st, 2, 4);
        }
        assert_int_equal(tempo_session_confirmed_frame(s), arena.frame);
        assert_true(ref.hash == arena.hash);
        tempo_session_destroy(s);
    }
}

/* A session created at frame 1000 with the game's state of that frame runs
 * like one created at 0: frames count from there, and the result equals the
 * reference run from the same state with the true inputs. */
static void session_started_at_frame_1000_matches_the_reference(void **state)
{
    (void)state;
    for (uint64_t seed = 700; seed < 724; seed++) {
        scenario sc = base(seed);
        sc.start_frame = seed % 3 == 0 ? 1000 : 1000 + (int32_t)seed;
        sc.players = 2 + (int)(seed % 3);
        sc.max_pred = 2 + (int)(seed % 8);
        sc.lat_max = sc.max_pred + 2;
        sc.delay = (int)(seed % 3);
        sc.policy = seed % 2 ? TEMPO_SAVE_SPARSE : TEMPO_SAVE_EVERY_FRAME;
        outcome o = run(&sc);
        assert_true(o.rollbacks > 0);
    }
}

/* ---- external states ---------------------------------------------------- */

typedef struct load_case {
    uint64_t seed;
    int players;
    int max_pred;
    tempo_save_policy policy;
    bool arena;
    int32_t start;
} load_case;

static toy_state load_arena;

/* Carry out the tick's requests: through the toy driver, or in arena mode
 * with the driver stepping the arena for each ADVANCE tempo hands out. */
static void carry_out(const load_case *lc, tempo_session *s, toy_driver *d)
{
    if (!lc->arena) {
        toy_driver_run(d, s);
        return;
    }
    const tempo_request *r;
    while (tempo_session_next(s, &r) > 0) {
        assert_int_equal(r->kind, TEMPO_REQUEST_ADVANCE);
        d->cur = load_arena;
        toy_driver_do(d, r);
        load_arena = d->cur;
    }
}

/* Remote inputs come 1..max_pred + 2 ticks late; now and then the game
 * takes an external state X of a random frame S in [F - max_pred, F] (a
 * state no simulation of this run would reach, so adopting it shows). The
 * tick after: frames S..F are resimulated from X exactly, with the contract
 * kept (the driver checks SAVE/LOAD/ADVANCE order and resimulation flags).
 * At the end, with every input in: the state is the true-input simulation
 * from the last external state, which no later correction undid. */
static void run_loads(const load_case *lc)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = lc->players;
    cfg.input_size = ISIZE;
    cfg.max_prediction = lc->max_pred;
    cfg.save_policy = lc->policy;
    cfg.start_frame = lc->start;
    toy_driver *d = &driver;
    toy_driver_init(d, lc->players, ISIZE);
    d->cur.frame = lc->start;
    d->cur.hash = toy_mix(lc->seed, 1);
    if (lc->arena) {
        load_arena = d->cur;
        cfg.arena = &load_arena;
        cfg.arena_size = sizeof load_arena;
    }
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    assert_int_equal(tempo_session_add_local_player(s, 0), TEMPO_OK);
    for (int p = 1; p < lc->players; p++)
        assert_int_equal(tempo_session_add_remote_player(s, p, NULL), TEMPO_OK);

    enum { TICKS = 400, HELD = TICKS + 80 };
    static int arrival[TEMPO_MAX_PLAYERS][HELD];
    uint64_t r = lc->seed * 31u + 7u;
    for (int p = 1; p < lc->players; p++)
        for (int i = 0; i < HELD; i++)
            arrival[p][i] = i + 1 + (int)(rng_next(&r) % (uint64_t)(lc->max_pred + 2));
    toy_state last = d->cur; /* the newest external state, or the start */
    int loads = 0, behind = 0;
    int32_t local_next = lc->start;
    for (int tick = 0; tick < TICKS + 60; tick++) {
        bool healing = tick >= TICKS;
        for (int p = 1; p < lc->players; p++)
            for (int i = 0; i < HELD; i++)
                if (arrival[p][i] >= 0 && (arrival[p][i] <= tick || healing)) {
                    uint8_t b[ISIZE];
                    toy_true_input(lc->seed, p, lc->start + i, b, ISIZE);
                    tempo_result res = tempo_session_add_remote_input(s, p, lc->start + i, b, ISIZE);
                    assert_true(res == TEMPO_OK || res == TEMPO_E_FRAME);
                    if (res == TEMPO_OK)
                        arrival[p][i] = -1;
                }
        int32_t F = tempo_session_frame(s), S = -1;
        toy_state X = {0, 0};
        if (!healing && tick > 10 && rng_next(&r) % 5 == 0) {
            int32_t lo = F - lc->max_pred > lc->start ? F - lc->max_pred : lc->start;
            S = lo + (int32_t)(rng_next(&r) % (uint64_t)(F - lo + 1));
            X.hash = toy_mix(lc->seed ^ 0xe57u, (uint64_t)tick);
            X.frame = S;
            behind += S < tempo_session_confirmed_frame(s) ? 0 : 1;
            if (lc->arena) {
                assert_int_equal(tempo_session_load_state(s, S, &X, sizeof X), TEMPO_OK);
                assert_true(load_arena.hash == X.hash); /* copied in at once */
            } else {
                d->cur = X; /* the game put the state in place itself */
                assert_int_equal(tempo_session_load_state(s, S, NULL, 0), TEMPO_OK);
            }
            assert_int_equal(tempo_session_frame(s), F);
            last = X;
            loads++;
        }
        uint8_t b[ISIZE];
        toy_true_input(lc->seed, 0, local_next, b, ISIZE);
        tempo_session_add_local_input(s, 0, b, ISIZE);
        tempo_tick t;
        assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
        if (t.inputs_taken & 1u) {
            assert_int_equal(t.input_frame[0], local_next);
            local_next++;
        }
        assert_true(t.rollback_depth <= lc->max_pred);
        carry_out(lc, s, d);
        assert_int_equal(d->errors, 0);
        int32_t now = tempo_session_frame(s);
        assert_int_equal(d->cur.frame, now);
        if (S >= 0) {
            /* every frame from S was stepped again, from X */
            toy_state chk = X;
            for (int32_t f = S; f < now; f++) {
                toy_step(&chk, d->used[f], d->used_status[f], lc->players, ISIZE);
                assert_true(chk.hash == d->hash_after[f]);
            }
            assert_true(chk.hash == d->cur.hash);
            assert_int_equal(t.rollback_depth, F - S);
        }
    }
    int32_t F = tempo_session_frame(s);
    assert_int_equal(tempo_session_confirmed_frame(s), F);
    toy_state ref = last;
    for (int32_t f = last.frame; f < F; f++) {
        uint8_t in[TEMPO_MAX_PLAYERS * ISIZE], st[TEMPO_MAX_PLAYERS] = {0};
        for (int p = 0; p < lc->players; p++)
            toy_true_input(lc->seed, p, f, in + p * ISIZE, ISIZE);
        toy_step(&ref, in, st, lc->players, ISIZE);
    }
    assert_true(ref.hash == d->cur.hash);
    assert_true(loads > 20);
    assert_true(behind > 0); /* some loads landed on frames still predicted */
    tempo_session_destroy(s);
}

static void external_state_at_random_frames_gives_the_reference_state(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 32; seed++) {
        load_case lc;
        memset(&lc, 0, sizeof lc);
        lc.seed = seed;
        lc.players = 2 + (int)(seed % 3);
        lc.max_pred = 1 + (int)((seed / 8) % 4) * 3; /* 1, 4, 7, 10 */
        lc.policy = seed % 2 ? TEMPO_SAVE_SPARSE : TEMPO_SAVE_EVERY_FRAME;
        lc.arena = (seed / 2) % 2 != 0;
        lc.start = (seed / 4) % 2 ? 1000 : 0;
        run_loads(&lc);
    }
}

/* ---- players joining a running match -------------------------------------- */

typedef struct join_case {
    uint64_t seed;
    bool dropped_first;   /* slot 2 starts remote and is dropped at tick 60 */
    bool local;           /* the newcomer is local (else remote) */
    tempo_save_policy policy;
} join_case;

/* Three slots: 0 local, 1 remote, 2 empty (or a remote player dropped at
 * tick 60). At tick 150 a player takes slot 2 and plays from the frame A the
 * session names; remote inputs are late. Every frame then has, for slot 2:
 * before the drop its true input, from the drop (or from the start) to A
 * zero and DISCONNECTED, from A its true input, both in what the game
 * played last and in the log; the final state equals the reference. */
static void run_join(const join_case *jc)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = 3;
    cfg.input_size = ISIZE;
    cfg.max_prediction = 6;
    cfg.save_policy = jc->policy;
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    assert_int_equal(tempo_session_add_local_player(s, 0), TEMPO_OK);
    assert_int_equal(tempo_session_add_remote_player(s, 1, NULL), TEMPO_OK);
    if (jc->dropped_first)
        assert_int_equal(tempo_session_add_remote_player(s, 2, NULL), TEMPO_OK);
    else
        assert_int_equal(tempo_session_add_empty_slot(s, 2), TEMPO_OK);
    toy_driver *d = &driver;
    toy_driver_init(d, 3, ISIZE);

    enum { TICKS = 320 };
    uint64_t r = jc->seed;
    int32_t sent[3] = {0, 0, 0};   /* next frame to send, per remote player */
    int32_t drop = -1, join = -1;  /* slot 2: first DISCONNECTED frame, first real frame */
    int32_t local_next[3] = {0, 0, 0};
    for (int tick = 0; tick < TICKS + 40; tick++) {
        bool healing = tick >= TICKS;
        int32_t F = tempo_session_frame(s);
        for (int p = 1; p < 3; p++) {
            bool remote2 = p == 2 && (jc->local ? join < 0 && jc->dropped_first
                                                : (join >= 0 || jc->dropped_first));
            if (p == 2 && (!remote2 || (drop >= 0 && join < 0)))
                continue;
            /* a remote sends up to a few frames behind our frame */
            int32_t upto = healing ? F + 8 : F - (int32_t)(rng_next(&r) % 5);
            for (; sent[p] < upto; sent[p]++) {
                uint8_t b[ISIZE];
                toy_true_input(jc->seed, p, sent[p], b, ISIZE);
                assert_int_equal(tempo_session_add_remote_input(s, p, sent[p], b, ISIZE), TEMPO_OK);
            }
        }
        if (jc->dropped_first && tick == 60) {
            assert_int_equal(tempo_session_disconnect_player(s, 2), TEMPO_OK);
            tempo_event ev;
            while (tempo_session_poll_event(s, &ev) > 0)
                if (ev.kind == TEMPO_EVENT_DISCONNECTED)
                    drop = ev.u.disconnected.frame;
            assert_int_equal(drop, sent[2]); /* from the first frame not given */
        }
        if (tick == 150) {
            join = tempo_session_frame(s);
            assert_int_equal(jc->local ? tempo_session_add_local_player(s, 2)
                                       : tempo_session_add_remote_player(s, 2, NULL),
                             TEMPO_OK);
            /* now occupied */
            assert_int_equal(tempo_session_add_remote_player(s, 2, NULL), TEMPO_E_ALREADY);
            assert_int_equal(tempo_session_add_local_player(s, 2), TEMPO_E_ALREADY);
            sent[2] = join;
            local_next[2] = join;
        }
        for (int p = 0; p < 3; p += 2) {
            if (p == 2 && !(jc->local && join >= 0))
                continue;
            uint8_t b[ISIZE];
            toy_true_input(jc->seed, p, local_next[p], b, ISIZE);
            assert_int_equal(tempo_session_add_local_input(s, p, b, ISIZE), TEMPO_OK);
        }
        tempo_tick t;
        assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
        for (int p = 0; p < 3; p += 2)
            if (t.inputs_taken & (1u << p)) {
                assert_int_equal(t.input_frame[p], local_next[p]);
                local_next[p]++;
            }
        toy_driver_run(d, s);
        assert_int_equal(d->errors, 0);
    }
    int32_t F = tempo_session_frame(s);
    assert_int_equal(tempo_session_confirmed_frame(s), F);
    assert_true(F > join + 100);
    int32_t absent_from = jc->dropped_first ? drop : 0;
    toy_state ref = {0, 0};
    for (int32_t f = 0; f < F; f++) {
        uint8_t in[3 * ISIZE], st[3] = {0, 0, 0}, logged[3 * ISIZE], logged_st[3];
        for (int p = 0; p < 3; p++)
            toy_true_input(jc->seed, p, f, in + p * ISIZE, ISIZE);
        if (f >= absent_from && f < join) {
            memset(in + 2 * ISIZE, 0, ISIZE);
            st[2] = TEMPO_INPUT_DISCONNECTED;
        }
        assert_memory_equal(d->used[f], in, sizeof in);
        for (int p = 0; p < 3; p++)
            assert_int_equal(d->used_status[f][p] == TEMPO_INPUT_DISCONNECTED,
                             st[p] == TEMPO_INPUT_DISCONNECTED);
        assert_int_equal(tempo_session_confirmed_inputs(s, f, logged, sizeof logged, logged_st),
                         TEMPO_OK);
        assert_memory_equal(logged, in, sizeof in);
        assert_int_equal(logged_st[2], st[2] == TEMPO_INPUT_DISCONNECTED ? TEMPO_INPUT_DISCONNECTED
                                                                         : TEMPO_INPUT_CONFIRMED);
        toy_step(&ref, in, st, 3, ISIZE);
    }
    assert_true(ref.hash == d->cur.hash);
    tempo_session_destroy(s);
}

static void player_added_to_an_empty_slot_mid_match_plays_from_the_next_frame(void **state)
{
    (void)state;
    for (uint64_t seed = 800; seed < 808; seed++) {
        join_case jc = {seed, false, seed % 2 != 0,
                        seed % 4 < 2 ? TEMPO_SAVE_EVERY_FRAME : TEMPO_SAVE_SPARSE};
        run_join(&jc);
    }
}

static void dropped_player_reattached_gets_real_inputs_again(void **state)
{
    (void)state;
    for (uint64_t seed = 900; seed < 908; seed++) {
        join_case jc = {seed, true, seed % 2 != 0,
                        seed % 4 < 2 ? TEMPO_SAVE_EVERY_FRAME : TEMPO_SAVE_SPARSE};
        run_join(&jc);
    }
}

/* ---- the checksum log, and the engine under random scenarios -------------- */

/* All 65 checksums of one catch-up tick are reported: a lockstep delay
 * decrease 64 -> 0 runs 65 confirmed frames in one tick with
 * desync_interval 1, and the log holds a checksum for each of them. */
static void checksums_of_a_65_frame_catch_up_are_all_reported(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.max_prediction = 0;
    cfg.desync_interval = 1;
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    uint8_t b[4] = {0};
    for (int f = 0; f < 300; f++)
        assert_int_equal(tempo_session_add_remote_input(s, 1, f, b, 4), TEMPO_OK);
    assert_int_equal(tempo_session_set_input_delay(s, 0, 64), TEMPO_OK);
    toy_driver_init(&driver, 2, 4);
    int reported = 0;
    int32_t from = -1;
    for (int tick = 0; tick < 200; tick++) {
        if (tick == 150) {
            assert_int_equal(tempo_session_set_input_delay(s, 0, 0), TEMPO_OK);
            from = tempo_session_frame(s);
        }
        b[0] = (uint8_t)tick;
        tempo_session_add_local_input(s, 0, b, 4);
        tempo_tick t;
        assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
        if (tick == 150)
            assert_int_equal(t.frames_advanced, 65);
        toy_driver_run(&driver, s);
        assert_int_equal(driver.errors, 0);
        sync_sum cs;
        while (sync_take_checksum(&s->sync, &cs)) /* a network session takes them each tick */
            if (from >= 0 && cs.frame >= from && cs.frame <= from + 64)
                reported++;
    }
    assert_int_equal(reported, 65); /* states F .. F + 64, saved by the catch-up tick */
    tempo_session_destroy(s);
}

#define RC_MAXF 1400

typedef struct random_case {
    uint64_t seed;
    int players, locals, max_pred, interval;
    tempo_save_policy policy;
    int frames;
    int lat_max;
    int delay_cap;       /* largest delay the fuzzer picks */
    int delay_change_pct;
    int disconnect_tick; /* -1: none */
} random_case;

static int rc_arrival[TEMPO_MAX_PLAYERS][RC_MAXF];
static uint64_t rc_sum[RC_MAXF];
static int rc_sum_count[RC_MAXF];

/* A local session against remote inputs that arrive late, out of order and
 * in bursts, with random input delay changes (increases, big decreases) and
 * a disconnect. Checks the engine invariants of sync.h and DESIGN.md. */
static void random_run(const random_case *fc)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = fc->players;
    cfg.input_size = ISIZE;
    cfg.max_prediction = fc->max_pred;
    cfg.save_policy = fc->policy;
    cfg.desync_interval = fc->interval;
    tempo_session *s = NULL;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    for (int p = 0; p < fc->players; p++) {
        if (p < fc->locals)
            assert_int_equal(tempo_session_add_local_player(s, p), TEMPO_OK);
        else
            assert_int_equal(tempo_session_add_remote_player(s, p, NULL), TEMPO_OK);
    }
    int limit = fc->max_pred > 0 ? fc->max_pred : TEMPO_MAX_PREDICTION;
    int cap = fc->delay_cap < limit ? fc->delay_cap : limit;
    uint64_t r = fc->seed;
    for (int p = 0; p < fc->locals; p++)
        assert_int_equal(tempo_session_set_input_delay(s, p, (int)(rng_next(&r) % (uint64_t)(cap + 1))),
                         TEMPO_OK);
    for (int p = fc->locals; p < fc->players; p++)
        for (int f = 0; f < RC_MAXF; f++) {
            int lat = (int)(rng_next(&r) % (uint64_t)(fc->lat_max + 1));
            rc_arrival[p][f] = f + lat + (rng_next(&r) % 9 == 0 ? (int)(rng_next(&r) % 4) * 5 : 0);
        }
    memset(rc_sum_count, 0, sizeof rc_sum_count);
    toy_driver *d = &driver;
    toy_driver_init(d, fc->players, ISIZE);
    int32_t last_sample[TEMPO_MAX_PLAYERS];
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        last_sample[p] = -1;
    int32_t disc_frame = -1;
    int disc_player = fc->players - 1;
    int heal_from = -1;
    for (int tick = 0; tick < 30000; tick++) {
        bool healing = tempo_session_frame(s) >= fc->frames;
        if (healing && heal_from < 0)
            heal_from = tick;
        for (int p = fc->locals; p < fc->players; p++)
            for (int f = 0; f < RC_MAXF; f++)
                if (rc_arrival[p][f] >= 0 && (rc_arrival[p][f] <= tick || healing)) {
                    uint8_t b[ISIZE];
                    toy_true_input(fc->seed, p, f, b, ISIZE);
                    tempo_result res = tempo_session_add_remote_input(s, p, f, b, ISIZE);
                    assert_true(res == TEMPO_OK || res == TEMPO_E_FRAME);
                    if (res == TEMPO_OK)
                        rc_arrival[p][f] = -1;
                }
        if (!healing && fc->delay_change_pct > 0 &&
            (int)(rng_next(&r) % 100) < fc->delay_change_pct) {
            int p = (int)(rng_next(&r) % (uint64_t)fc->locals);
            int to = (int)(rng_next(&r) % (uint64_t)(cap + 1));
            assert_int_equal(tempo_session_set_input_delay(s, p, to), TEMPO_OK);
        }
        if (tick == fc->disconnect_tick && fc->players > fc->locals) {
            assert_int_equal(tempo_session_disconnect_player(s, disc_player), TEMPO_OK);
            disc_frame = s->sync.q[disc_player].disconnect_frame;
        }
        for (int p = 0; p < fc->locals; p++) {
            uint8_t b[ISIZE];
            uint32_t sample = (uint32_t)tick;
            memcpy(b, &sample, ISIZE);
            assert_int_equal(tempo_session_add_local_input(s, p, b, ISIZE), TEMPO_OK);
        }
        tempo_tick t;
        assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
        const tempo_request *rq;
        while (tempo_session_next(s, &rq) > 0) {
            toy_driver_do(d, rq);
            if (rq->kind == TEMPO_REQUEST_ADVANCE)
                for (int p = 0; p < fc->locals; p++) /* a local player never lacks input */
                    assert_int_equal(rq->status[p], TEMPO_INPUT_CONFIRMED);
        }
        assert_int_equal(d->errors, 0);
        assert_true(t.rollback_depth <= fc->max_pred);
        int32_t F = tempo_session_frame(s), C = tempo_session_confirmed_frame(s);
        assert_true(F - C <= fc->max_pred);
        sync_sum cs;
        while (sync_take_checksum(&s->sync, &cs)) {
            assert_true(cs.frame > 0 && cs.frame < RC_MAXF && cs.frame % fc->interval == 0);
            assert_true(cs.frame <= C); /* only final states are reported */
            rc_sum[cs.frame] = cs.checksum;
            rc_sum_count[cs.frame]++;
        }
        if (healing && C == F && tick > heal_from + 2 * TEMPO_MAX_PREDICTION + 8)
            break;
    }
    int32_t F = tempo_session_frame(s);
    assert_true(F >= fc->frames);
    assert_int_equal(tempo_session_confirmed_frame(s), F);
    for (int32_t f = 0; f < F; f++) {
        for (int p = 0; p < fc->locals; p++) {
            uint32_t idx;
            memcpy(&idx, d->used[f] + p * ISIZE, ISIZE);
            assert_true((int64_t)idx > (int64_t)last_sample[p]); /* each input once, in order */
            last_sample[p] = (int32_t)idx;
        }
        for (int p = fc->locals; p < fc->players; p++) {
            uint8_t expect[ISIZE] = {0};
            bool gone = disc_frame >= 0 && p == disc_player && f >= disc_frame;
            if (!gone)
                toy_true_input(fc->seed, p, f, expect, ISIZE);
            assert_memory_equal(d->used[f] + p * ISIZE, expect, ISIZE);
            assert_int_equal(d->used_status[f][p] == TEMPO_INPUT_DISCONNECTED, gone);
        }
    }
    /* every check frame of the confirmed run: reported once, with its final state */
    for (int32_t f = fc->interval; f + 1 < F && f < RC_MAXF; f += fc->interval) {
        if (rc_sum_count[f] != 1)
            fail_msg("seed %llu mp %d policy %d interval %d: check frame %d reported %d times",
                     (unsigned long long)fc->seed, fc->max_pred, (int)fc->policy, fc->interval,
                     (int)f, rc_sum_count[f]);
        assert_true(rc_sum[f] == d->hash_after[f - 1]);
    }
    assert_int_equal(s->sync.checks_skipped, 0);
    tempo_session_destroy(s);
}

static random_case random_case_for(uint64_t seed)
{
    static const int mps[] = {0, 1, 2, 3, 8, 16, 64};
    static const int intervals[] = {2, 3, 7, 60}; /* 1: checksums_of_a_65_frame_catch_up_are_all_reported */
    uint64_t x = seed * 7919u;
    random_case fc;
    memset(&fc, 0, sizeof fc);
    fc.seed = seed;
    fc.players = 2 + (int)(rng_next(&x) % 3);
    fc.locals = 1 + (int)(rng_next(&x) % 2);
    fc.max_pred = mps[rng_next(&x) % 7];
    fc.interval = intervals[rng_next(&x) % 4];
    fc.policy = rng_next(&x) % 2 ? TEMPO_SAVE_SPARSE : TEMPO_SAVE_EVERY_FRAME;
    fc.frames = 500;
    fc.lat_max = (int)(rng_next(&x) % (uint64_t)(fc.max_pred + 6));
    fc.delay_cap = rng_next(&x) % 4 == 0 ? 64 : 6;
    fc.delay_change_pct = (int)(rng_next(&x) % 6);
    fc.disconnect_tick = rng_next(&x) % 3 == 0 ? 100 + (int)(rng_next(&x) % 300) : -1;
    return fc;
}

/* The engine keeps its invariants under random scenarios, including max
 * prediction 64, sparse saving and big delay decreases. */
static void engine_keeps_its_invariants_under_random_scenarios(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 400; seed++) {
        random_case fc = random_case_for(seed);
        random_run(&fc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(late_reordered_inputs_converge_to_reference),
        cmocka_unit_test(bursts_and_blackouts_wait_then_recover),
        cmocka_unit_test(sparse_and_every_frame_saving_give_identical_results),
        cmocka_unit_test(sparse_saving_saves_less_and_restores_only_true_states),
        cmocka_unit_test(lockstep_with_input_delay_never_predicts),
        cmocka_unit_test(input_delay_changes_mid_match_keep_every_input_once),
        cmocka_unit_test(disconnected_player_turns_zero_and_match_goes_on),
        cmocka_unit_test(delay_increase_stalls_and_decrease_catches_up),
        cmocka_unit_test(full_window_reports_waiting_players_and_events),
        cmocka_unit_test(arena_mode_hands_out_only_advances_and_matches_game_saving),
        cmocka_unit_test(session_started_at_frame_1000_matches_the_reference),
        cmocka_unit_test(external_state_at_random_frames_gives_the_reference_state),
        cmocka_unit_test(player_added_to_an_empty_slot_mid_match_plays_from_the_next_frame),
        cmocka_unit_test(dropped_player_reattached_gets_real_inputs_again),
        cmocka_unit_test(checksums_of_a_65_frame_catch_up_are_all_reported),
        cmocka_unit_test(engine_keeps_its_invariants_under_random_scenarios),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
