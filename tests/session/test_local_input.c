/* SPDX-License-Identifier: MIT */
/*
 * test_local_input.c — the local-input contract: every input a game offers
 * is applied exactly once, in order, or the tick that received it says it
 * was not taken; and the tick says on which frame each taken input lands.
 *
 * Properties over many seeds: random input-delay changes (up and down, per
 * local player, one to three local players), prediction windows from 0 to
 * 16, remote inputs late and held back (waits), ticks without a local
 * input. The reference is a plain replay: for each local player, the list of
 * inputs the ticks reported as taken, in order, must be exactly the inputs
 * the game was handed in ADVANCE for frames 0, 1, 2, ... Over a lossy
 * network with drifting clocks (time-sync stalls), every peer also applies
 * the same inputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "p2p_harness.h"

#define ISIZE 4
#define MAX_TICKS 3000
#define MAX_TAKEN (MAX_TICKS + 64)

static uint64_t rnd(uint64_t *x)
{
    *x += 0x9e3779b97f4a7c15ULL;
    return toy_mix(*x, 0);
}

/* The input offered to player p at tick t: unique, so a repeat or a loss shows. */
static uint32_t offered(int p, int t)
{
    return 0x80000000u | ((uint32_t)p << 24) | (uint32_t)t;
}

typedef struct taken_log {
    uint32_t value[TEMPO_MAX_PLAYERS][MAX_TAKEN];
    int32_t frame[TEMPO_MAX_PLAYERS][MAX_TAKEN];
    int count[TEMPO_MAX_PLAYERS];
    int not_taken[TEMPO_MAX_PLAYERS];
} taken_log;

static toy_driver driver;
static taken_log taken;

/* What the random runs went through, so the properties are not vacuous. */
static struct { int status[5], multi_frame_ticks, not_taken, lockstep_runs; } seen;

/* Record what the tick says about each local player's input. */
static void note_tick(const tempo_tick *t, uint32_t local_mask, const bool *gave, int tick)
{
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++) {
        if (!(local_mask & (1u << p)))
            continue;
        bool took = (t->inputs_taken >> p) & 1u;
        if (!gave[p]) {
            assert_false(took);
            continue;
        }
        if (!took) {
            assert_int_equal(t->input_frame[p], -1);
            taken.not_taken[p]++;
            continue;
        }
        int k = taken.count[p]++;
        assert_true(k < MAX_TAKEN);
        taken.value[p][k] = offered(p, tick);
        taken.frame[p][k] = t->input_frame[p];
    }
}

/* Frames 0..F-1 used, for player p, exactly the taken inputs in order, and
 * each taken input landed on the frame its tick announced. */
static void check_replay(int p, int32_t F)
{
    assert_true(taken.count[p] >= F);
    for (int32_t f = 0; f < F; f++) {
        uint32_t used;
        memcpy(&used, driver.used[f] + p * ISIZE, ISIZE);
        if (used != taken.value[p][f])
            fail_msg("player %d frame %d used %08x, the %d-th taken input was %08x", p, f,
                     used, f, taken.value[p][f]);
        assert_int_equal(taken.frame[p][f], f);
    }
    for (int k = F; k < taken.count[p]; k++) /* still queued: announced ahead */
        assert_int_equal(taken.frame[p][k], k);
}

typedef struct plan {
    uint64_t seed;
    int players;
    uint32_t local_mask;
    int max_pred;
    int ticks;
} plan;

static void run_local(const plan *pl)
{
    uint64_t r = pl->seed;
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = pl->players;
    cfg.input_size = ISIZE;
    cfg.max_prediction = pl->max_pred;
    cfg.save_policy = (rnd(&r) & 1) ? TEMPO_SAVE_SPARSE : TEMPO_SAVE_EVERY_FRAME;
    tempo_session *s = NULL;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    int max_delay = pl->max_pred > 0 ? (pl->max_pred < 8 ? pl->max_pred : 8) : 8;
    for (int p = 0; p < pl->players; p++) {
        if (pl->local_mask & (1u << p)) {
            assert_int_equal(tempo_session_add_local_player(s, p), TEMPO_OK);
            int d = (int)(rnd(&r) % (uint64_t)(max_delay + 1));
            assert_int_equal(tempo_session_set_input_delay(s, p, d), TEMPO_OK);
        } else {
            assert_int_equal(tempo_session_add_remote_player(s, p, NULL), TEMPO_OK);
        }
    }
    toy_driver_init(&driver, pl->players, ISIZE);
    memset(&taken, 0, sizeof taken);

    /* Remote frames become deliverable some ticks after the frame would be
     * sampled, with stretches where nothing arrives (the window fills). */
    int32_t delivered[TEMPO_MAX_PLAYERS] = {0};
    int lag = 1 + (int)(rnd(&r) % 6);
    int hold_until = -1;
    int quiet_from = pl->ticks;
    for (int t = 0; t < pl->ticks + 400; t++) {
        bool healing = t >= quiet_from;
        if (!healing && t > 60 && (int)(rnd(&r) % 100) < 3)
            hold_until = t + 1 + (int)(rnd(&r) % 25);
        if (!healing && (int)(rnd(&r) % 100) < 5)
            lag = (int)(rnd(&r) % 10);
        for (int p = 0; p < pl->players; p++) {
            if (pl->local_mask & (1u << p))
                continue;
            int32_t upto = healing ? tempo_session_frame(s) + 64 : (t < hold_until ? 0 : t - lag);
            for (; delivered[p] < upto; delivered[p]++) {
                uint8_t b[ISIZE];
                toy_true_input(pl->seed, p, delivered[p], b, ISIZE);
                tempo_result res = tempo_session_add_remote_input(s, p, delivered[p], b, ISIZE);
                if (res == TEMPO_E_FRAME)
                    break; /* too far ahead for now */
                assert_int_equal(res, TEMPO_OK);
            }
        }
        bool gave[TEMPO_MAX_PLAYERS] = {false};
        for (int p = 0; p < pl->players; p++) {
            if (!(pl->local_mask & (1u << p)))
                continue;
            if (!healing && (int)(rnd(&r) % 100) < 4) {
                int d = (int)(rnd(&r) % (uint64_t)(max_delay + 1));
                assert_int_equal(tempo_session_set_input_delay(s, p, d), TEMPO_OK);
            }
            if (!healing && (int)(rnd(&r) % 100) < 2)
                continue; /* the game gave no input this tick */
            uint32_t v = offered(p, t);
            assert_int_equal(tempo_session_add_local_input(s, p, &v, ISIZE), TEMPO_OK);
            gave[p] = true;
        }
        tempo_tick tk;
        assert_int_equal(tempo_session_advance(s, &tk), TEMPO_OK);
        toy_driver_run(&driver, s);
        assert_int_equal(driver.errors, 0);
        note_tick(&tk, pl->local_mask, gave, t);
        seen.status[tk.status]++;
        seen.multi_frame_ticks += tk.frames_advanced > 1;
        if (healing && tempo_session_frame(s) >= TOY_MAX_FRAMES - 80)
            break;
    }
    int32_t F = tempo_session_frame(s);
    assert_true(F > 0);
    assert_int_equal(tempo_session_confirmed_frame(s), F);
    for (int p = 0; p < pl->players; p++)
        if (pl->local_mask & (1u << p)) {
            check_replay(p, F);
            seen.not_taken += taken.not_taken[p];
        }
    seen.lockstep_runs += pl->max_pred == 0;
    /* remote players: the true inputs */
    for (int32_t f = 0; f < F; f++)
        for (int p = 0; p < pl->players; p++)
            if (!(pl->local_mask & (1u << p))) {
                uint8_t b[ISIZE];
                toy_true_input(pl->seed, p, f, b, ISIZE);
                assert_memory_equal(driver.used[f] + p * ISIZE, b, ISIZE);
            }
    tempo_session_destroy(s);
}

/* A two-player local session: players in local_mask are local, the others
 * remote; the driver and the log start afresh. */
static tempo_session *two_players(int max_pred, uint32_t local_mask)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.max_prediction = max_pred;
    tempo_session *s = NULL;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    for (int p = 0; p < 2; p++) {
        if (local_mask & (1u << p))
            assert_int_equal(tempo_session_add_local_player(s, p), TEMPO_OK);
        else
            assert_int_equal(tempo_session_add_remote_player(s, p, NULL), TEMPO_OK);
    }
    toy_driver_init(&driver, 2, ISIZE);
    memset(&taken, 0, sizeof taken);
    return s;
}

/* The reproduction: window 4, delay 3 cut to 0 while remote inputs trail by
 * 6 frames. Every input offered after the cut is applied, in order. */
static void delay_cut_blocked_by_the_window_loses_no_input(void **state)
{
    (void)state;
    tempo_session *s = two_players(4, 1u);
    tempo_session_set_input_delay(s, 0, 3);
    bool gave[TEMPO_MAX_PLAYERS] = {true, false};
    for (int t = 0; t < 40; t++) {
        if (t == 8)
            assert_int_equal(tempo_session_set_input_delay(s, 0, 0), TEMPO_OK);
        for (int32_t f = 0; f <= t - 6; f++) {
            uint8_t b[ISIZE];
            toy_true_input(7, 1, f, b, ISIZE);
            tempo_session_add_remote_input(s, 1, f, b, ISIZE);
        }
        uint32_t v = offered(0, t);
        tempo_session_add_local_input(s, 0, &v, ISIZE);
        tempo_tick tk;
        assert_int_equal(tempo_session_advance(s, &tk), TEMPO_OK);
        toy_driver_run(&driver, s);
        note_tick(&tk, 1u, gave, t);
    }
    assert_int_equal(taken.not_taken[0], 0); /* only ADVANCED or filling ticks here */
    check_replay(0, tempo_session_frame(s));
    tempo_session_destroy(s);
}

/* The reproduction: remote input held back until the window fills (window
 * 2, and lockstep). The first waiting tick takes its input and sends it
 * (the others may wait for exactly that input); the next waiting tick drops
 * its own and says so; the tick that runs the frame uses the input taken
 * while waiting and drops its own, so the wait adds no latency. */
static void run_waiting(int max_pred, int wait_from)
{
    tempo_session *s = two_players(max_pred, 1u);
    bool gave[TEMPO_MAX_PLAYERS] = {true, false};
    tempo_tick tk;
    int arrive = wait_from + 2;
    for (int t = 0; t <= arrive; t++) {
        if (t == arrive) { /* the remote input of frame 0 arrives */
            uint8_t b[ISIZE] = {0};
            tempo_session_add_remote_input(s, 1, 0, b, ISIZE);
        }
        uint32_t v = offered(0, t);
        tempo_session_add_local_input(s, 0, &v, ISIZE);
        assert_int_equal(tempo_session_advance(s, &tk), TEMPO_OK);
        toy_driver_run(&driver, s);
        note_tick(&tk, 1u, gave, t);
        if (t == wait_from) {
            assert_int_equal(tk.status, TEMPO_TICK_WAITING);
            assert_int_equal(tk.inputs_taken, 1u);
            assert_int_equal(tk.input_frame[0], wait_from);
        }
        if (t == wait_from + 1) {
            assert_int_equal(tk.status, TEMPO_TICK_WAITING);
            assert_int_equal(tk.inputs_taken, 0);
        }
    }
    assert_int_equal(tk.status, TEMPO_TICK_ADVANCED);
    assert_int_equal(tk.frames_advanced, 1);
    assert_int_equal(tk.inputs_taken, 0);
    assert_int_equal(tk.input_frame[0], TEMPO_FRAME_NONE);
    assert_int_equal(taken.not_taken[0], 2);
    check_replay(0, tempo_session_frame(s));
    uint32_t used;
    memcpy(&used, driver.used[wait_from], ISIZE);
    assert_int_equal(used, offered(0, wait_from));
    tempo_session_destroy(s);
}

static void a_wait_takes_one_input_and_the_next_frame_uses_it(void **state)
{
    (void)state;
    run_waiting(2, 2); /* frames 0 and 1 run on prediction, then the window is full */
    run_waiting(0, 0); /* lockstep waits at once */
}

/* The reproduction: two local players; player 0's delay grows 0 -> 2. Its
 * inputs fill its queue (taken); player 1's inputs of those stalled ticks are
 * not taken, and the tick says so. */
static void delay_growth_of_one_player_reports_the_others_inputs(void **state)
{
    (void)state;
    tempo_session *s = two_players(8, 3u);
    bool gave[TEMPO_MAX_PLAYERS] = {true, true};
    for (int t = 0; t < 8; t++) {
        if (t == 2)
            tempo_session_set_input_delay(s, 0, 2);
        for (int p = 0; p < 2; p++) {
            uint32_t v = offered(p, t);
            tempo_session_add_local_input(s, p, &v, ISIZE);
        }
        tempo_tick tk;
        assert_int_equal(tempo_session_advance(s, &tk), TEMPO_OK);
        toy_driver_run(&driver, s);
        note_tick(&tk, 3u, gave, t);
        if (t == 2 || t == 3) {
            assert_int_equal(tk.status, TEMPO_TICK_STALLED);
            assert_int_equal(tk.inputs_taken, 1u);
            assert_int_equal(tk.input_frame[0], t);
        }
    }
    assert_int_equal(taken.not_taken[0], 0);
    assert_int_equal(taken.not_taken[1], 2);
    check_replay(0, tempo_session_frame(s));
    check_replay(1, tempo_session_frame(s));
    tempo_session_destroy(s);
}

static void random_delays_windows_and_waits_apply_every_taken_input_once(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 120; seed++) {
        uint64_t r = seed * 977;
        plan pl;
        pl.seed = seed;
        pl.players = 2 + (int)(rnd(&r) % 3);
        int nlocal = 1 + (int)(rnd(&r) % (uint64_t)(pl.players - 1 < 3 ? pl.players - 1 : 3));
        pl.local_mask = 0;
        for (int got = 0; got < nlocal;)
        {
            uint32_t bit = 1u << (rnd(&r) % (uint64_t)pl.players);
            if (!(pl.local_mask & bit))
                pl.local_mask |= bit, got++;
        }
        pl.max_pred = (int)(rnd(&r) % 17);
        pl.ticks = 600;
        run_local(&pl);
    }
    assert_true(seen.status[TEMPO_TICK_WAITING] > 100);
    assert_true(seen.status[TEMPO_TICK_STALLED] > 100);
    assert_true(seen.status[TEMPO_TICK_NEEDS_INPUT] > 100);
    assert_true(seen.multi_frame_ticks > 100);
    assert_true(seen.not_taken > 100);
    assert_true(seen.lockstep_runs > 0);
    print_message("ticks: %d advanced, %d stalled, %d waiting, %d needing input; "
                  "%d ran several frames; %d inputs not taken\n",
                  seen.status[0], seen.status[1], seen.status[2], seen.status[3],
                  seen.multi_frame_ticks, seen.not_taken);
}

/* ---- over the network ---------------------------------------------------- */

typedef struct net_log {
    uint32_t value[TEMPO_MAX_PLAYERS][MAX_TAKEN];
    int count[TEMPO_MAX_PLAYERS];
    uint64_t rng;
    int max_delay;
    int not_taken, timesync_stalls;
} net_log;

static net_log nlog[H_MAX];
static harness net_h;

static void net_tick(harness *h, h_peer *p)
{
    int i = (int)(p - h->peer);
    net_log *lg = &nlog[i];
    tempo_session_poll(p->s, harness_clock(p, h->now_us));
    bool gave[TEMPO_MAX_PLAYERS] = {false};
    int t = (int)p->samples++;
    for (int pl = 0; pl < h->players; pl++) {
        if (!(p->local_mask & (1u << pl)))
            continue;
        if ((int)(rnd(&lg->rng) % 100) < 3)
            tempo_session_set_input_delay(p->s, pl, (int)(rnd(&lg->rng) % (uint64_t)(lg->max_delay + 1)));
        uint32_t v = offered(pl, t);
        assert_int_equal(tempo_session_add_local_input(p->s, pl, &v, ISIZE), TEMPO_OK);
        gave[pl] = true;
    }
    bool will_stall = tempo_session_will_stall(p->s);
    tempo_tick tk;
    assert_int_equal(tempo_session_advance(p->s, &tk), TEMPO_OK);
    if (will_stall) {
        assert_int_equal(tk.status, TEMPO_TICK_STALLED);
        assert_int_equal(tk.inputs_taken, 0); /* said in advance: nothing taken */
        lg->timesync_stalls++;
    }
    const tempo_request *r;
    while (tempo_session_next(p->s, &r) > 0)
        toy_driver_do(p->d, r);
    assert_int_equal(p->d->errors, 0);
    for (int pl = 0; pl < h->players; pl++) {
        if (!gave[pl])
            continue;
        if (!(tk.inputs_taken & (1u << pl))) {
            lg->not_taken++;
            continue;
        }
        int k = lg->count[pl]++;
        assert_true(k < MAX_TAKEN);
        assert_int_equal(tk.input_frame[pl], k);
        lg->value[pl][k] = offered(pl, t);
    }
    tempo_event ev;
    while (tempo_session_poll_event(p->s, &ev) > 0)
        assert_int_not_equal(ev.kind, TEMPO_EVENT_DESYNC);
}

static void peers_apply_every_taken_input_once_under_loss_and_delay_changes(void **state)
{
    (void)state;
    int stalls = 0, not_taken = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        uint64_t r = seed * 131;
        int npeers = 2 + (int)(seed % 2);
        tempo_config cfg = harness_cfg(npeers + 1);
        cfg.max_prediction = seed <= 3 ? 0 : (int)(rnd(&r) % 17); /* lockstep first */
        uint32_t masks[3];
        harness_one_each(masks, npeers);
        masks[0] |= 1u << npeers; /* peer 0 has two local players */
        harness *h = &net_h;
        harness_init(h, &cfg, npeers, masks, 0, seed % 3 ? "mobile" : "terrible", seed);
        harness_drift(h, 1, 1.5); /* peer 1 runs fast: time sync stalls it */
        memset(nlog, 0, sizeof nlog);
        for (int i = 0; i < npeers; i++) {
            nlog[i].rng = seed * 1000 + (uint64_t)i;
            nlog[i].max_delay = cfg.max_prediction > 0 ? (cfg.max_prediction < 6 ? cfg.max_prediction : 6) : 6;
        }
        harness_run_with(h, 900, 60000000u, net_tick);
        int32_t checked;
        assert_true(harness_converged(h, false, &checked));
        assert_true(checked > 600);
        for (int i = 0; i < npeers; i++) {
            const h_peer *p = &h->peer[i];
            for (int pl = 0; pl < h->players; pl++) {
                if (!(p->local_mask & (1u << pl)))
                    continue;
                /* every peer used this player's taken inputs, in order */
                for (int j = 0; j < npeers; j++)
                    for (int32_t f = 0; f < checked; f++) {
                        uint32_t used;
                        memcpy(&used, h->peer[j].d->used[f] + pl * ISIZE, ISIZE);
                        if (used != nlog[i].value[pl][f])
                            fail_msg("seed %d: peer %d used %08x for player %d frame %d; "
                                     "its machine took %08x", (int)seed, j, used, pl, f,
                                     nlog[i].value[pl][f]);
                    }
            }
            stalls += nlog[i].timesync_stalls;
            not_taken += nlog[i].not_taken;
        }
        harness_free(h);
    }
    assert_true(stalls > 0);
    assert_true(not_taken > 0);
    print_message("%d time-sync stalls, %d inputs not taken\n", stalls, not_taken);
}

/* Lockstep without input delay: a frame waits for every peer's input of that
 * frame, so the waiting tick must take (and send) the local input, or both
 * peers wait for each other forever. */
static void lockstep_without_input_delay_takes_the_input_it_waits_with(void **state)
{
    (void)state;
    tempo_config cfg = harness_cfg(2);
    cfg.max_prediction = 0;
    uint32_t masks[2];
    harness_one_each(masks, 2);
    harness *h = &net_h;
    harness_init(h, &cfg, 2, masks, 0, "lan", 77);
    harness_run(h, 300, 20000000u);
    int32_t checked;
    assert_true(harness_converged(h, false, &checked));
    assert_true(checked >= 290);
    harness_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(delay_cut_blocked_by_the_window_loses_no_input),
        cmocka_unit_test(a_wait_takes_one_input_and_the_next_frame_uses_it),
        cmocka_unit_test(delay_growth_of_one_player_reports_the_others_inputs),
        cmocka_unit_test(random_delays_windows_and_waits_apply_every_taken_input_once),
        cmocka_unit_test(peers_apply_every_taken_input_once_under_loss_and_delay_changes),
        cmocka_unit_test(lockstep_without_input_delay_takes_the_input_it_waits_with),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
