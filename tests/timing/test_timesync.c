/* SPDX-License-Identifier: MIT */
/*
 * test_timesync.c — keeping peers in step. Units for the pure parts (stall
 * spreading, GGPO's rules, the automatic delay's hysteresis, the start-up
 * formula, bounds on what a peer claims) and its targets as scenarios over
 * several seeds: clock drift, start skew, three peers, automatic delay, and
 * the comparison of methods. Frame skew is measured from outside, as the
 * true difference of the machines' frames at the same virtual instant.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "craft.h"
#include "p2p_harness.h"
#include "timing/timesync.h"

static harness h;

static tempo_config cfg_for(int players, tempo_timesync_method method)
{
    tempo_config c;
    tempo_config_default(&c);
    c.num_players = players;
    c.desync_interval = 60;
    c.timesync.method = method;
    return c;
}

static double skew_of(int i)
{
    return h.peer[i].skew_n ? h.peer[i].skew_sum / (double)h.peer[i].skew_n : 0.0;
}

/* ---- units ---------------------------------------------------------------- */

static void queued_stalls_are_spread_out_more_densely_as_the_queue_grows(void **state)
{
    (void)state;
    tempo_config c = cfg_for(2, TEMPO_TIMESYNC_INVERSUS);
    tempo_timesync t;
    for (int queued = 1; queued <= 12; queued++) {
        timesync_init(&t, &c);
        t.stall_queue = queued;
        int first = -1;
        for (int tick = 1; tick <= 20 && first < 0; tick++)
            if (timesync_decide(&t, tick))
                first = tick;
        int expect = queued >= 10 ? 1 : 11 - queued;
        assert_int_equal(first, expect);
    }
}

static void inversus_stalls_half_the_advantage_when_ahead(void **state)
{
    (void)state;
    tempo_config c = cfg_for(2, TEMPO_TIMESYNC_INVERSUS);
    tempo_timesync t;
    timesync_init(&t, &c);
    int stalls = 0;
    /* we run 6 frames ahead: L = owd + 6, R = owd - 6 -> advantage 6 */
    for (int tick = 0; tick < 40; tick++) {
        timesync_on_local(&t, 0, 3.0 + 6.0, 0);
        timesync_on_remote(&t, 0, 3.0 - 6.0, 3.0);
        stalls += timesync_decide(&t, tick);
    }
    assert_true(t.advantage > 5.9 && t.advantage < 6.1);
    for (int tick = 40; tick < 200; tick++)
        stalls += timesync_decide(&t, tick);
    assert_int_equal(stalls, 6);
    /* behind: never stalls */
    timesync_init(&t, &c);
    stalls = 0;
    for (int tick = 0; tick < 400; tick++) {
        timesync_on_local(&t, 0, 3.0 - 4.0, 0);
        timesync_on_remote(&t, 0, 3.0 + 4.0, 3.0);
        stalls += timesync_decide(&t, tick);
    }
    assert_int_equal(stalls, 0);
}

static void ggpo_waits_for_three_frames_and_240_between(void **state)
{
    (void)state;
    tempo_config c = cfg_for(2, TEMPO_TIMESYNC_GGPO);
    tempo_timesync t;
    timesync_init(&t, &c);
    int stalls = 0;
    for (int f = 0; f < 600; f++) { /* 2 frames ahead: below GGPO's minimum */
        timesync_on_local(&t, 0, 0, -2.0);
        timesync_on_quality(&t, 0, 2.0);
        stalls += timesync_decide(&t, f);
    }
    assert_int_equal(stalls, 0);
    timesync_init(&t, &c);
    int first = -1, count = 0;
    for (int f = 0; f < 600; f++) { /* 4 frames ahead: sleep 4, then wait 240 */
        timesync_on_local(&t, 0, 0, -4.0);
        timesync_on_quality(&t, 0, 4.0);
        if (timesync_decide(&t, f)) {
            if (first < 0)
                first = f;
            count++;
        }
    }
    assert_int_equal(first, 39); /* once 40 samples filled the window */
    assert_int_equal(count, 12); /* at frames 39, 279, 519: 4 each */
}

/* At 50 frames a second half a round trip of R ms is R / 40 frames
 * exactly, so every threshold can be hit on the dot. */
static tempo_timesync delay_sync(tempo_delay_signal signal, int max_prediction)
{
    tempo_config c = cfg_for(2, TEMPO_TIMESYNC_INVERSUS);
    c.auto_delay.enabled = true;
    c.auto_delay.signal = signal;
    c.frames_per_second = 50;
    c.max_prediction = max_prediction;
    if (max_prediction == 0)
        c.auto_delay.max_frames = TEMPO_MAX_AUTO_DELAY;
    tempo_timesync t;
    timesync_init(&t, &c);
    return t;
}

/* Two windows of one peer's round trip, at 50 fps; the delay after. */
static int two_windows_at(tempo_timesync *t, double rtt_ms)
{
    int d = t->delay;
    for (int tick = 0; tick < 2 * t->ad.window_frames; tick++) {
        timesync_on_rtt(t, 0, rtt_ms);
        d = timesync_delay_tick(t, 0.0);
    }
    return d;
}

/* INVERSUS's first value: its state machine from 0 on half the worst ping
 * in frames; 150 ms at 60 fps is 4.5 frames, 2 frames of delay. Tempo's
 * frame lag adds 1.5 frames and picks 3. */
static void automatic_delay_starts_from_half_the_round_trip(void **state)
{
    (void)state;
    tempo_config c = cfg_for(2, TEMPO_TIMESYNC_INVERSUS);
    c.auto_delay.enabled = true;
    tempo_timesync t;
    timesync_init(&t, &c);
    assert_int_equal(timesync_initial_delay(&t, 0.0), 0);
    assert_int_equal(timesync_initial_delay(&t, 150.0), 2);
    assert_int_equal(timesync_initial_delay(&t, 1000.0), 4); /* capped at max_frames */
    c.auto_delay.signal = TEMPO_DELAY_FRAME_LAG;
    timesync_init(&t, &c);
    assert_int_equal(timesync_initial_delay(&t, 150.0), 3); /* 4.5 + 1.5 = 6 frames */
    /* every raise threshold, on the dot and just below (R / 40 frames) */
    t = delay_sync(TEMPO_DELAY_HALF_RTT, 16);
    static const double rtt[] = {79, 80, 119, 120, 239, 240, 319, 320};
    static const int expect[] = {0, 1, 1, 2, 2, 3, 3, 4};
    for (int k = 0; k < 8; k++)
        assert_int_equal(timesync_initial_delay(&t, rtt[k]), expect[k]);
}

/* The thresholds one by one: delay k rises at raise_at[k] (2, 3, 6, 8
 * frames) and not a twentieth below; delay k + 1 falls at lower_at[k] (1,
 * 2, 5, 7) and not a twentieth above. */
static void automatic_delay_moves_exactly_at_its_thresholds(void **state)
{
    (void)state;
    static const double raise[4] = {2, 3, 6, 8}, lower[4] = {1, 2, 5, 7};
    for (int k = 0; k < 4; k++) {
        tempo_timesync t = delay_sync(TEMPO_DELAY_HALF_RTT, 16);
        t.delay = k;
        assert_int_equal(two_windows_at(&t, raise[k] * 40.0 - 2.0), k);
        assert_int_equal(two_windows_at(&t, raise[k] * 40.0), k + 1);
        t = delay_sync(TEMPO_DELAY_HALF_RTT, 16);
        t.delay = k + 1;
        assert_int_equal(two_windows_at(&t, lower[k] * 40.0 + 2.0), k + 1);
        assert_int_equal(two_windows_at(&t, lower[k] * 40.0), k);
    }
}

static void automatic_delay_has_hysteresis(void **state)
{
    (void)state;
    tempo_timesync t = delay_sync(TEMPO_DELAY_HALF_RTT, 16);
    int window = t.ad.window_frames;
    double lags[] = {2.5, 3.5, 6.5, 9.0, 7.5, 5.5, 4.0, 2.5, 1.5, 0.5};
    int expect[] = {1, 2, 3, 4, 4, 3, 2, 2, 1, 0};
    /* between thresholds it holds: 7.5 stays at 4 (lower at 7.0), 2.5 at 2
     * (lower at 2.0); one step only after two windows agree */
    for (int k = 0; k < 10; k++) {
        int d = 0;
        for (int tick = 0; tick < window; tick++) {
            timesync_on_rtt(&t, 0, lags[k] * 40.0);
            d = timesync_delay_tick(&t, 0.0);
        }
        if (k > 0 && expect[k] != expect[k - 1])
            assert_int_equal(d, expect[k - 1]); /* one window is not enough */
        for (int tick = 0; tick < window; tick++) {
            timesync_on_rtt(&t, 0, lags[k] * 40.0);
            d = timesync_delay_tick(&t, 0.0);
        }
        assert_int_equal(d, expect[k]);
    }
    /* a burst in one window is not a trend: the trimmed mean ignores it */
    for (int w = 0; w < 4; w++)
        for (int tick = 0; tick < window; tick++) {
            timesync_on_rtt(&t, 0, tick < 8 ? 800.0 : 20.0);
            assert_int_equal(timesync_delay_tick(&t, 0.0), 0);
        }
    /* with the half-RTT signal the frame lags of arriving inputs do not count */
    for (int tick = 0; tick < 4 * window; tick++) {
        timesync_on_remote(&t, 0, 0, 9.0);
        timesync_on_rtt(&t, 0, 20.0);
        assert_int_equal(timesync_delay_tick(&t, 0.0), 0);
    }
    /* the frame-lag signal follows the arriving inputs instead */
    t = delay_sync(TEMPO_DELAY_FRAME_LAG, 16);
    int d = 0;
    for (int tick = 0; tick < 2 * window; tick++) {
        timesync_on_remote(&t, 0, 0, 3.5);
        timesync_on_rtt(&t, 0, 20.0);
        d = timesync_delay_tick(&t, 0.0);
    }
    assert_int_equal(d, 1);
    /* lockstep: the floor from the round trip raises it though lags are
     * small, whatever the signal */
    t = delay_sync(TEMPO_DELAY_HALF_RTT, 0);
    for (int tick = 0; tick < 14 * window; tick++) {
        timesync_on_remote(&t, 0, 0, 1.0);
        timesync_on_rtt(&t, 0, 150.0);
        d = timesync_delay_tick(&t, timesync_rtt_lag(&t, 150.0));
    }
    assert_int_equal(d, 5); /* 150 ms at 50 fps: 3.75 + 1.5 frames, less one for both ends, up */
}

/* ---- the lead-based slowdown --------------------------------------------- */

/* One tick of the lead method against one peer whose lead (R) trails ours
 * (L) by diff frames; returns whether it stalls. */
static bool lead_tick(tempo_timesync *t, int tick, double diff)
{
    timesync_on_remote(t, 0, 3.0, 3.0);
    timesync_on_local(t, 0, 3.0 + diff, 0);
    return timesync_decide(t, tick);
}

/* Stall only when our average lead exceeds the peer's by more than
 * lead_tolerance (2 frames): 1.9 never, 2.1 does. */
static void lead_slowdown_waits_for_its_tolerance(void **state)
{
    (void)state;
    tempo_config c = cfg_for(2, TEMPO_TIMESYNC_LEAD);
    tempo_timesync t;
    timesync_init(&t, &c);
    int stalls = 0;
    for (int tick = 0; tick < 1200; tick++)
        stalls += lead_tick(&t, tick, 1.9);
    assert_int_equal(stalls, 0);
    timesync_init(&t, &c);
    for (int tick = 0; tick < 1200; tick++)
        stalls += lead_tick(&t, tick, 2.1);
    assert_true(stalls > 0);
}

/* One frame, then lead_cooldown_frames (30) without a stall, however far
 * ahead: a steady lead of 6 frames stalls every 31st tick and no sooner. */
static void lead_slowdown_cools_down_between_stalls(void **state)
{
    (void)state;
    tempo_config c = cfg_for(2, TEMPO_TIMESYNC_LEAD);
    tempo_timesync t;
    timesync_init(&t, &c);
    int last = -1, stalls = 0;
    for (int tick = 0; tick < 1000; tick++)
        if (lead_tick(&t, tick, 6.0)) {
            if (last >= 0)
                assert_int_equal(tick - last, 31);
            last = tick;
            stalls++;
        }
    assert_true(stalls >= 30);
}

/* The leads are rolling averages over window_frames (60 by default): a
 * 5-tick spike of 10 frames moves them by about 1.5 frames, below the
 * tolerance, and a step to 3 frames ahead is acted on only once the
 * average has crossed 2, about 33 ticks later; a window of 10 reacts
 * within 8 ticks and takes the spike for a lead. */
static int lead_first_stall_after_step(int window, int spike_ticks)
{
    tempo_config c = cfg_for(2, TEMPO_TIMESYNC_LEAD);
    c.timesync.window_frames = window;
    tempo_timesync t;
    timesync_init(&t, &c);
    int tick = 0;
    for (; tick < 300; tick++)
        assert_false(lead_tick(&t, tick, 0.0));
    for (int k = 0; k < spike_ticks; k++, tick++)
        if (lead_tick(&t, tick, 10.0))
            return -1; /* the spike made it stall */
    for (int k = 0; k < 300; k++, tick++)
        if (lead_tick(&t, tick, 0.0))
            return -1;
    for (int k = 1; k <= 300; k++, tick++)
        if (lead_tick(&t, tick, 3.0))
            return k;
    return 0;
}

static void lead_slowdown_averages_over_its_window(void **state)
{
    (void)state;
    int slow = lead_first_stall_after_step(0, 5); /* the method's 60 */
    assert_true(slow >= 28 && slow <= 38);
    int fast = lead_first_stall_after_step(10, 0);
    assert_true(fast >= 1 && fast <= 8);
    assert_int_equal(lead_first_stall_after_step(10, 5), -1);
}

/* On a real match the slowdown pays for a 1% slow clock with about 1% of
 * the fast machine's frames, one at a time: the cooldown spaces them, the
 * tolerance keeps the slow machine from answering, and the skew stays
 * within the tolerance. */
static void lead_slowdown_pays_for_drift_with_spaced_single_stalls(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 2; seed++) {
        tempo_config c = cfg_for(2, TEMPO_TIMESYNC_LEAD);
        uint32_t m[2] = {1, 2};
        harness_init(&h, &c, 2, m, 0, "broadband", seed);
        harness_drift(&h, 1, -1.0);
        h.skew_from_us = 2000000;
        harness_run(&h, 3600, 200000000);
        assert_true(h.peer[0].stall_ticks >= 30 && h.peer[0].stall_ticks <= 60);
        assert_true(h.peer[1].stall_ticks <= 3);
        assert_true(h.peer[0].max_stalls_in_3 <= 1);
        for (int i = 0; i < 2; i++)
            assert_true(skew_of(i) <= 2.0);
        harness_free(&h);
    }
}

/* ---- INVERSUS as its article writes it ------------------------------------ */

/* Plain means over a fixed 100-frame window, half the advantage, stall at
 * 0.75 or more: 1.48 frames of input advantage (0.74) never stalls, 1.5
 * (0.75) stalls once per window: decided at its 100th tick, played on the
 * 10th tick counting that one (the cadence of one queued stall). */
static void inversus_article_stalls_at_its_threshold_once_per_window(void **state)
{
    (void)state;
    tempo_config c = cfg_for(2, TEMPO_TIMESYNC_INVERSUS_ARTICLE);
    tempo_timesync t;
    timesync_init(&t, &c);
    int stalls = 0;
    for (int tick = 0; tick < 1000; tick++) {
        timesync_on_remote(&t, 0, 3.0, 3.0);
        timesync_on_local(&t, 0, 3.0 + 1.48, 0);
        stalls += timesync_decide(&t, tick);
    }
    assert_int_equal(stalls, 0);
    timesync_init(&t, &c);
    int first = -1;
    for (int tick = 1; tick <= 1009; tick++) {
        timesync_on_remote(&t, 0, 3.0, 3.0);
        timesync_on_local(&t, 0, 3.0 + 1.5, 0);
        if (timesync_decide(&t, tick)) {
            stalls++;
            if (first < 0)
                first = tick;
        }
    }
    assert_int_equal(first, 109);
    assert_int_equal(stalls, 10);
    /* tempo's INVERSUS at the same numbers: more than 0.5 frames, sliding */
    c.timesync.method = TEMPO_TIMESYNC_INVERSUS;
    timesync_init(&t, &c);
    first = -1;
    for (int tick = 1; tick <= 200 && first < 0; tick++) {
        timesync_on_remote(&t, 0, 3.0, 3.0);
        timesync_on_local(&t, 0, 3.0 + 1.2, 0);
        if (timesync_decide(&t, tick))
            first = tick;
    }
    assert_true(first > 0 && first < 60);
}

static void startup_wait_equalizes_when_everyone_learns_readiness(void **state)
{
    (void)state;
    /* Three machines in a line: 0 -10ms- 1 -10ms- 2 (0-2 is 20 ms). We are
     * 0; everyone became ready at t = 100 ms. We hear of 1 at 110, of 2 at
     * 120: machine 2 hears of us at 120 and of 1 at 110, so nobody learns
     * later than us, no wait. */
    double owd[9] = {0, 10000, 20000, 10000, 0, 10000, 20000, 10000, 0};
    uint64_t heard[3] = {100000, 110000, 120000};
    assert_int_equal(timesync_startup_wait(3, 0, heard, owd, 120000), 0);
    /* Machine 2 became ready last, at 150: we hear at 170; machine 1 hears at
     * 160; so does 2 itself at 150... all learn by 170: no wait for us. But
     * machine 1 (hearing at 160) must wait 10 ms. */
    uint64_t heard1[3] = {110000, 100000, 160000}; /* machine 1's view */
    assert_int_equal(timesync_startup_wait(3, 1, heard1, owd, 160000), 10000);
}

/* Lags no peer can show (at or beyond TIMESYNC_LAG_LIMIT either way: a
 * spoofed or broken datagram) are ignored: after a second in step, a
 * second of nothing but such samples queues no stall. */
static void lags_beyond_the_limit_are_ignored(void **state)
{
    (void)state;
    tempo_config c = cfg_for(2, TEMPO_TIMESYNC_INVERSUS);
    tempo_timesync t;
    timesync_init(&t, &c);
    int stalls = 0;
    for (int tick = 0; tick < 600; tick++) {
        if (tick < 300) {
            timesync_on_local(&t, 0, 3.0, 0);
            timesync_on_remote(&t, 0, 3.0, 3.0);
        } else if (tick % 2) {
            timesync_on_local(&t, 0, TIMESYNC_LAG_LIMIT, 0);
            timesync_on_remote(&t, 0, -TIMESYNC_LAG_LIMIT, 3.0);
        } else {
            timesync_on_local(&t, 0, 1200.0, 0);
            timesync_on_remote(&t, 0, -1200.0, 3.0);
        }
        stalls += timesync_decide(&t, tick);
    }
    assert_int_equal(stalls, 0);
    assert_true(t.advantage > -0.01 && t.advantage < 0.01);
}

/* A peer's datagrams stop for 20 ticks (a loss burst) while both machines
 * stay in step: on the receiving side L grows by a frame a tick, and in the
 * other direction the peer's R grows the same way while it hears nothing
 * of us. Neither is the clocks' doing, so nobody stalls for it. */
static void loss_bursts_are_not_taken_for_running_ahead(void **state)
{
    (void)state;
    tempo_config c = cfg_for(2, TEMPO_TIMESYNC_INVERSUS);
    for (int side = 0; side < 2; side++) {
        tempo_timesync t;
        timesync_init(&t, &c);
        int stalls = 0, gap = 0;
        for (int tick = 0; tick < 600; tick++) {
            bool burst = tick % 60 >= 30 && tick % 60 < 50;
            gap = burst ? gap + 1 : 0;
            if (side == 0) { /* its datagrams to us are lost */
                timesync_on_local(&t, 0, 3.0 + gap, 0);
                if (!burst)
                    timesync_on_remote(&t, 0, 3.0, 3.0);
            } else { /* ours to it are lost: its ack stands still */
                timesync_on_local(&t, 0, 3.0, 0);
                timesync_on_remote(&t, 0, 3.0 + gap, 3.0);
            }
            stalls += timesync_decide(&t, tick);
        }
        assert_int_equal(stalls, 0);
        assert_true(t.advantage > -0.3 && t.advantage < 0.3);
    }
}

/* ---- scenarios: skew and stalls the game can feel --------------------------- */

static void one_percent_slow_clock_keeps_half_a_frame_of_skew(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        tempo_config c = cfg_for(2, TEMPO_TIMESYNC_INVERSUS);
        uint32_t m[2] = {1, 2};
        harness_init(&h, &c, 2, m, 0, "broadband", seed);
        harness_drift(&h, 1, -1.0);
        h.skew_from_us = 2000000;
        harness_run(&h, 3600, 200000000);
        for (int i = 0; i < 2; i++) {
            assert_true(skew_of(i) <= 0.5);
            assert_true(h.peer[i].stall_ticks <= 3600 / 60);
        }
        /* the fast machine does the stalling, about 1% of its frames */
        assert_true(h.peer[0].stall_ticks >= 30);
        assert_true(h.peer[1].stall_ticks <= 6);
        harness_free(&h);
    }
}

/* Two machines in step but out of phase: whole-frame lags read exactly half
 * a frame of advantage on both sides in turn. Nobody may stall for it. */
static void machines_in_step_do_not_trade_stalls(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        tempo_config c = cfg_for(2, TEMPO_TIMESYNC_INVERSUS);
        uint32_t m[2] = {1, 2};
        harness_init(&h, &c, 2, m, 0, seed % 2 ? "lan" : "perfect", seed);
        harness_run(&h, 1800, 200000000);
        assert_true(h.peer[0].stall_ticks + h.peer[1].stall_ticks <= 2);
        harness_free(&h);
    }
}

static void start_skew_is_corrected_within_5_s_with_spread_stalls(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        tempo_config c = cfg_for(2, TEMPO_TIMESYNC_INVERSUS);
        uint32_t m[2] = {1, 2};
        harness_init(&h, &c, 2, m, 0, "broadband", seed);
        h.peer[1].hiccup_frame = 1; /* machine 1 starts 200 ms late */
        h.peer[1].hiccup_us = 200000;
        harness_run(&h, 300, 200000000); /* 5 s */
        h.skew_from_us = h.now_us;
        harness_run(&h, 600, 200000000);
        /* The freeze's 12 frames are gone; what is left is the machines'
         * sub-frame phase, which whole-frame lags cannot see (two machines
         * 0.38 frames out of phase may settle either way round). */
        assert_true(skew_of(0) <= 0.65);
        for (int i = 0; i < 2; i++)
            assert_true(h.peer[i].max_stalls_in_3 <= 1);
        assert_true(h.peer[0].stall_ticks >= 4); /* it really had to correct */
        harness_free(&h);
    }
}

static void three_peers_one_slow_stay_within_a_frame_without_oscillation(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        tempo_config c = cfg_for(3, TEMPO_TIMESYNC_INVERSUS);
        uint32_t m[3] = {1, 2, 4};
        harness_init(&h, &c, 3, m, 0, "broadband", seed);
        harness_drift(&h, 2, -2.0);
        h.skew_from_us = 2000000;
        harness_run(&h, 3600, 200000000);
        double required = 3600 * 0.02; /* frames the drift makes the fast ones gain */
        for (int i = 0; i < 3; i++)
            assert_true(skew_of(i) <= 1.0);
        for (int i = 0; i < 2; i++)
            assert_true(h.peer[i].stall_ticks <= 1.5 * required);
        assert_true(h.peer[2].stall_ticks <= 0.1 * required);
        harness_free(&h);
    }
}

static void automatic_delay_settles_on_transatlantic(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        tempo_config c = cfg_for(2, TEMPO_TIMESYNC_INVERSUS);
        c.auto_delay.enabled = true;
        uint32_t m[2] = {1, 2};
        harness_init(&h, &c, 2, m, 0, "transatlantic", seed);
        harness_run(&h, 3600, 200000000);
        for (int i = 0; i < 2; i++) {
            tempo_session_stats st;
            tempo_session_get_stats(h.peer[i].s, &st);
            /* 150 ms round trips: INVERSUS's 2 frames; rollbacks cover
             * the rest of the one-way trip, 4.5 frames less the delay */
            assert_int_equal(st.input_delay, 2);
            assert_true((double)st.rollback_depth_sum / (double)st.rollbacks <= 3.5);
        }
        int32_t checked;
        assert_true(harness_converged(&h, false, &checked));
        harness_free(&h);
    }
}

static void inversus_beats_ggpo_and_none_on_skew(void **state)
{
    (void)state;
    double skew[4] = {0};
    for (int method = 0; method < 4; method++) {
        for (uint64_t seed = 1; seed <= 2; seed++) {
            tempo_config c = cfg_for(2, (tempo_timesync_method)method);
            uint32_t m[2] = {1, 2};
            harness_init(&h, &c, 2, m, 0, "broadband", seed);
            harness_drift(&h, 1, -1.0);
            h.skew_from_us = 2000000;
            harness_run(&h, 3600, 200000000);
            skew[method] += skew_of(0);
            harness_free(&h);
        }
    }
    assert_true(skew[TEMPO_TIMESYNC_INVERSUS] < skew[TEMPO_TIMESYNC_GGPO]);
    assert_true(skew[TEMPO_TIMESYNC_INVERSUS] < skew[TEMPO_TIMESYNC_NONE]);
    assert_true(skew[TEMPO_TIMESYNC_LEAD] < skew[TEMPO_TIMESYNC_NONE]);
}

/* Uneven links: 0 and 1 are far apart, 2 is close to both. Machine 2
 * learns that everyone is ready a one-way trip before the others do, and
 * would start that much ahead; the start-up delay holds it back. */
static double early_skew(bool startup_delay, uint64_t seed)
{
    tempo_config c = cfg_for(3, TEMPO_TIMESYNC_NONE);
    c.timesync.startup_delay = startup_delay;
    uint32_t m[3] = {1, 2, 4};
    harness_init(&h, &c, 3, m, 0, "lan", seed);
    tempo_link_params far;
    tempo_link_profile("transatlantic", &far);
    far.loss = 0;
    tempo_simnet_set_link(h.net, &h.peer[0].addr, &h.peer[1].addr, &far);
    tempo_simnet_set_link(h.net, &h.peer[1].addr, &h.peer[0].addr, &far);
    h.skew_from_us = 1;
    harness_run(&h, 40, 200000000);
    double s = (skew_of(0) + skew_of(1) + skew_of(2)) / 3.0;
    tempo_session_stats st;
    tempo_session_get_stats(h.peer[2].s, &st);
    if (startup_delay)
        assert_true(st.startup_delay_ms > 40); /* about the 75 ms one way */
    harness_free(&h);
    return s;
}

static void startup_delay_reduces_the_initial_skew(void **state)
{
    (void)state;
    double with = 0, without = 0;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        with += early_skew(true, seed);
        without += early_skew(false, seed);
    }
    assert_true(with < 0.6 * without);
}

/* A datagram from a peer's address with the sequence of the newest and an
 * absurd sender_frame (0, 1200 frames back) carries no believable lag: the
 * receiver does not stall for it, and the two machines play on in step and
 * agree. */
static void one_absurd_sender_frame_does_not_freeze_the_receiver(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "lan", 43);
    harness_run(&h, 1200, 60000000);
    tempo_msg msg;
    empty_input(&h, 0, 1, &msg);
    msg.u.input.sender_frame = 0;
    send_crafted(&h, 1, 0, &msg);
    int32_t f0 = tempo_session_frame(h.peer[0].s);
    harness_run(&h, f0 + 600, h.now_us + 30000000); /* 30 s for 10 s of frames */
    tempo_session_stats st;
    tempo_session_get_stats(h.peer[0].s, &st);
    assert_true(st.timesync_stalls < 60);
    assert_true(tempo_session_frame(h.peer[0].s) >= f0 + 600);
    assert_true(tempo_session_frame(h.peer[1].s) >= f0 + 590);
    int32_t checked;
    assert_true(harness_converged(&h, false, &checked));
    assert_true(checked >= f0 + 550);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(h.peer[i].disconnect_events, 0);
        assert_int_equal(h.peer[i].desync_events, 0);
    }
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(queued_stalls_are_spread_out_more_densely_as_the_queue_grows),
        cmocka_unit_test(inversus_stalls_half_the_advantage_when_ahead),
        cmocka_unit_test(ggpo_waits_for_three_frames_and_240_between),
        cmocka_unit_test(automatic_delay_starts_from_half_the_round_trip),
        cmocka_unit_test(automatic_delay_moves_exactly_at_its_thresholds),
        cmocka_unit_test(automatic_delay_has_hysteresis),
        cmocka_unit_test(lead_slowdown_waits_for_its_tolerance),
        cmocka_unit_test(lead_slowdown_cools_down_between_stalls),
        cmocka_unit_test(lead_slowdown_averages_over_its_window),
        cmocka_unit_test(lead_slowdown_pays_for_drift_with_spaced_single_stalls),
        cmocka_unit_test(inversus_article_stalls_at_its_threshold_once_per_window),
        cmocka_unit_test(startup_wait_equalizes_when_everyone_learns_readiness),
        cmocka_unit_test(lags_beyond_the_limit_are_ignored),
        cmocka_unit_test(loss_bursts_are_not_taken_for_running_ahead),
        cmocka_unit_test(one_percent_slow_clock_keeps_half_a_frame_of_skew),
        cmocka_unit_test(machines_in_step_do_not_trade_stalls),
        cmocka_unit_test(start_skew_is_corrected_within_5_s_with_spread_stalls),
        cmocka_unit_test(three_peers_one_slow_stay_within_a_frame_without_oscillation),
        cmocka_unit_test(automatic_delay_settles_on_transatlantic),
        cmocka_unit_test(inversus_beats_ggpo_and_none_on_skew),
        cmocka_unit_test(startup_delay_reduces_the_initial_skew),
        cmocka_unit_test(one_absurd_sender_frame_does_not_freeze_the_receiver),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
