/* SPDX-License-Identifier: MIT */
/*
 * test_interp.c — the snapshot buffer and its playout delay: which two
 * snapshots a render frame blends and by how much, each policy's delay
 * from a known stream (fixed, Pongbat's ping rule, the adaptive rule from
 * jitter and loss), the render clock (never a jump, never back, its rate
 * within the bound, over random streams), underrun statistics, the
 * buffer's edges, no allocation after create, and no clock read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "count_malloc.h"
#include "hook_count.h"
#include "interp/playout.h"
#include "tempo/interp.h"

#define T 16000 /* tick length in the tests, µs */
#define LAT 50000

static tempo_interp *make(tempo_playout_mode mode, void (*edit)(tempo_interp_config *))
{
    tempo_interp_config c;
    tempo_interp_config_default(&c);
    c.tick_us = T;
    c.mode = mode;
    if (edit)
        edit(&c);
    tempo_interp *ip = NULL;
    assert_int_equal(tempo_interp_create(&c, &ip), TEMPO_OK);
    return ip;
}

static uint32_t delay_of(const tempo_interp *ip)
{
    tempo_interp_stats st;
    assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
    return st.delay_us;
}

/* jitter of snapshot k: 0, 2, 4, 6, 8 ms in turn */
static uint64_t jit(int k)
{
    return (uint64_t)(k % 5) * 2000;
}

static void fixed_delay_blends_the_two_snapshots_around_render_time(void **state)
{
    (void)state;
    tempo_interp *ip = make(TEMPO_PLAYOUT_FIXED, NULL); /* 2 ticks */
    for (int k = 0; k <= 10; k++)
        assert_int_equal(tempo_interp_push(ip, k, (uint64_t)k * T + LAT, 100u + (uint32_t)k, NULL), TEMPO_OK);
    tempo_interp_sample s;
    /* now - timebase - delay = 218000 - 50000 - 32000 = 136000 = tick 8.5 */
    assert_int_equal(tempo_interp_sample_at(ip, 10 * T + LAT + T / 2, &s), TEMPO_OK);
    assert_int_equal(s.kind, TEMPO_INTERP_BLEND);
    assert_int_equal(s.render_us, 136000);
    assert_int_equal(s.from_tick, 8);
    assert_int_equal(s.to_tick, 9);
    assert_int_equal(s.from_handle, 108);
    assert_int_equal(s.to_handle, 109);
    assert_int_equal(s.frac, 32768);
    assert_int_equal(s.view_tick, 8);
    assert_int_equal(s.view_frac, 32768);
    /* a quarter tick later: 8.75 */
    assert_int_equal(tempo_interp_sample_at(ip, 10 * T + LAT + T / 2 + T / 4, &s), TEMPO_OK);
    assert_int_equal(s.render_us, 140000);
    assert_int_equal(s.frac, 49152);
    assert_int_equal(delay_of(ip), 32000);
    tempo_interp_destroy(ip);
}

static void gaps_between_snapshots_blend_over_the_whole_gap(void **state)
{
    (void)state;
    tempo_interp *ip = make(TEMPO_PLAYOUT_FIXED, NULL);
    /* the server sends every third tick */
    for (int k = 0; k <= 30; k += 3)
        assert_int_equal(tempo_interp_push(ip, k, (uint64_t)k * T + LAT, (uint32_t)k, NULL), TEMPO_OK);
    tempo_interp_sample s;
    /* render tick 23.5 - 2 = 22 + 0 → between 21 and 24, one third in */
    assert_int_equal(tempo_interp_sample_at(ip, 24 * T + LAT, &s), TEMPO_OK);
    assert_int_equal(s.render_us, 22 * T);
    assert_int_equal(s.kind, TEMPO_INTERP_BLEND);
    assert_int_equal(s.from_tick, 21);
    assert_int_equal(s.to_tick, 24);
    assert_int_equal(s.frac, 21845); /* 65536 / 3 */
    assert_int_equal(s.view_tick, 22);
    assert_int_equal(s.view_frac, 0);
    tempo_interp_destroy(ip);
}

static void adaptive_delay_from_known_jitter_is_one_interval_plus_the_jitter_budget(void **state)
{
    (void)state;
    tempo_interp *ip = make(TEMPO_PLAYOUT_ADAPTIVE, NULL);
    tempo_interp_sample s;
    tempo_interp_stats st;
    uint64_t underruns_after_warmup = 0;
    for (int k = 0; k < 300; k++) {
        assert_int_equal(tempo_interp_push(ip, k, (uint64_t)k * T + LAT + jit(k), (uint32_t)k, NULL), TEMPO_OK);
        uint64_t now = (uint64_t)k * T + LAT + 8000;
        assert_int_equal(tempo_interp_sample_at(ip, now, &s), TEMPO_OK);
        if (k == 100) {
            assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
            underruns_after_warmup = st.underruns;
        }
    }
    assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
    /* 1 interval (16 ms) + the 98th percentile of 0..8 ms jitter (8 ms) */
    assert_int_equal(st.delay_us, 24000);
    assert_int_equal(st.jitter_us, 8000);
    assert_int_equal(st.interval_ticks, 1);
    assert_int_equal(st.loss_run, 0);
    assert_int_equal(st.render_lag_us, 24000);
    assert_int_equal(st.underruns, underruns_after_warmup); /* none once settled */
    /* now = 299 T + 58 ms: render at 299 T + 58 - 50 - 24 ms = tick 298,
     * and tick 299, 8 ms late, arrived just in time to blend towards */
    assert_int_equal(s.kind, TEMPO_INTERP_BLEND);
    assert_int_equal(s.from_tick, 298);
    assert_int_equal(s.to_tick, 299);
    assert_int_equal(s.render_us, 298 * T);
    assert_int_equal(s.frac, 0);

    /* the same stream with every 10th snapshot lost: one more interval */
    tempo_interp *lossy = make(TEMPO_PLAYOUT_ADAPTIVE, NULL);
    for (int k = 0; k < 300; k++)
        if (k % 10 != 7)
            assert_int_equal(tempo_interp_push(lossy, k, (uint64_t)k * T + LAT + jit(k), 1, NULL), TEMPO_OK);
    assert_int_equal(tempo_interp_stats_get(lossy, &st), TEMPO_OK);
    assert_int_equal(st.loss_run, 1);
    assert_int_equal(st.delay_us, 2 * 16000 + 8000);

    /* two in a row lost, every 3rd tick sent, cover capped at 1 */
    tempo_interp_destroy(lossy);
    tempo_interp_config c;
    tempo_interp_config_default(&c);
    c.tick_us = T;
    c.max_loss_cover = 1;
    c.late_percent = 0;
    assert_int_equal(tempo_interp_create(&c, &lossy), TEMPO_OK);
    for (int k = 0; k < 900; k += 3)
        if (k % 90 != 30 && k % 90 != 33)
            assert_int_equal(tempo_interp_push(lossy, k, (uint64_t)k * T + LAT + jit(k), 1, NULL), TEMPO_OK);
    assert_int_equal(tempo_interp_stats_get(lossy, &st), TEMPO_OK);
    assert_int_equal(st.interval_ticks, 3);
    assert_int_equal(st.loss_run, 2);
    assert_int_equal(st.jitter_us, 8000);
    assert_int_equal(st.delay_us, 3 * 16000 * 2 + 8000);
    tempo_interp_destroy(lossy);
    tempo_interp_destroy(ip);
}

static void adaptive_quantile_ignores_the_rare_late_arrival(void **state)
{
    (void)state;
    /* 64 arrivals, one of them 40 ms late: 2 % may be late, so the budget
     * is the next one down (8 ms); with 0 % it is the 40 ms */
    playout pl;
    tempo_interp_config c;
    tempo_interp_config_default(&c);
    c.tick_us = T;
    playout_init(&pl, &c);
    int32_t ticks[64], st[64];
    int64_t off[64], sj[64];
    for (int k = 0; k < 64; k++) {
        ticks[k] = k;
        off[k] = LAT + (int64_t)jit(k) + (k == 40 ? 40000 : 0);
    }
    uint32_t j, iv;
    int run;
    assert_int_equal(playout_adaptive_target(&pl, ticks, off, 64, LAT, -1, st, sj, &j, &iv, &run), 24000);
    assert_int_equal(j, 8000);
    pl.late_percent = 0;
    assert_int_equal(playout_adaptive_target(&pl, ticks, off, 64, LAT, -1, st, sj, &j, &iv, &run), 56000);
    pl.late_percent = 50; /* rank 32 of 64: 2 ms... the 32nd smallest */
    assert_int_equal(playout_adaptive_target(&pl, ticks, off, 64, LAT, -1, st, sj, &j, &iv, &run), 16000 + 4000);
    pl.margin_us = 1500;
    pl.max_delay_us = 21000;
    assert_int_equal(playout_adaptive_target(&pl, ticks, off, 64, LAT, -1, st, sj, &j, &iv, &run), 21000);
}

static void adaptive_grows_at_once_and_shrinks_after_the_hold(void **state)
{
    (void)state;
    tempo_interp *ip = make(TEMPO_PLAYOUT_ADAPTIVE, NULL);
    int k = 0;
    for (; k < 64; k++)
        tempo_interp_push(ip, k, (uint64_t)k * T + LAT + jit(k), 1, NULL);
    assert_int_equal(delay_of(ip), 24000);
    /* one arrival 30 ms late: the 64-arrival window allows one late in 50 */
    tempo_interp_push(ip, k, (uint64_t)k * T + LAT + 30000, 1, NULL);
    k++;
    assert_int_equal(delay_of(ip), 24000);
    tempo_interp_push(ip, k, (uint64_t)k * T + LAT + 30000, 1, NULL);
    k++;
    assert_int_equal(delay_of(ip), 16000 + 30000); /* two: grows at once */
    /* calm again: the late ones leave the window after 64 arrivals, then
     * lower targets wait 2 s (125 ticks of 16 ms) before the delay drops */
    tempo_interp_stats st;
    int dropped_at = -1;
    for (int i = 0; i < 400 && dropped_at < 0; i++, k++) {
        tempo_interp_push(ip, k, (uint64_t)k * T + LAT + jit(k), 1, NULL);
        if (delay_of(ip) == 24000)
            dropped_at = k;
    }
    /* once the first late arrival (tick 64) leaves, at tick 128, one late
     * in the window is allowed again: the target is 24 ms from then on, and
     * the hold ends at the first arrival 2 s after tick 128's (6 ms jitter):
     * tick 253, also 6 ms late */
    assert_int_equal(dropped_at, 253);
    assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
    /* 16 → 18 → 20 → 22 → 24 ms while the first five jitters arrive, up
     * to 46 and back to 24 */
    assert_int_equal(st.delay_changes, 6);
    tempo_interp_destroy(ip);
}

/* Ticks 0..149 with the usual jitter, then 151 and 152 (or 152 and 151),
 * then 150 40 ms late: one late arrival, no loss. */
static void push_late_150(tempo_interp *ip, bool swap)
{
    for (int k = 0; k <= 149; k++)
        assert_int_equal(tempo_interp_push(ip, k, (uint64_t)k * T + LAT + jit(k), 1, NULL), TEMPO_OK);
    for (int i = 0; i < 2; i++) {
        int k = swap ? 152 - i : 151 + i;
        assert_int_equal(tempo_interp_push(ip, k, (uint64_t)k * T + LAT + jit(k), 1, NULL), TEMPO_OK);
        tempo_interp_stats st;
        assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
        assert_int_equal(st.loss_run, 0); /* 150 is only missing so far */
    }
    assert_int_equal(tempo_interp_push(ip, 150, 150 * T + LAT + 40000, 1, NULL), TEMPO_OK);
}

static void zero_late(tempo_interp_config *c)
{
    c->late_percent = 0;
}

static void adaptive_takes_a_reordered_snapshot_as_late_not_lost(void **state)
{
    (void)state;
    tempo_interp_stats st;
    for (int swap = 0; swap < 2; swap++) {
        tempo_interp *ip = make(TEMPO_PLAYOUT_ADAPTIVE, NULL);
        push_late_150(ip, swap);
        assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
        assert_int_equal(st.loss_run, 0);
        assert_int_equal(st.delay_us, 24000); /* one late in 64 is allowed at 2 % */
        /* a snapshot that never comes is lost once three later ones are here */
        for (int k = 153; k <= 159; k++)
            tempo_interp_push(ip, k, (uint64_t)k * T + LAT + jit(k), 1, NULL);
        for (int k = 161; k <= 163; k++) {
            assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
            assert_int_equal(st.loss_run, 0);
            tempo_interp_push(ip, k, (uint64_t)k * T + LAT + jit(k), 1, NULL);
        }
        assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
        assert_int_equal(st.loss_run, 1);
        assert_int_equal(st.delay_us, 2 * 16000 + 8000);
        tempo_interp_destroy(ip);

        ip = make(TEMPO_PLAYOUT_ADAPTIVE, zero_late);
        push_late_150(ip, swap);
        assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
        assert_int_equal(st.loss_run, 0);
        assert_int_equal(st.delay_us, 16000 + 40000); /* at 0 % the 40 ms counts */
        tempo_interp_destroy(ip);
    }
}

/* Over many seeds: every snapshot arrives, up to three intervals late, so
 * one or two later ones often overtake it. No loss is ever reported and
 * the delay ends within one interval plus the largest lateness. */
static void adaptive_never_counts_reordering_as_loss_over_random_streams(void **state)
{
    (void)state;
    int overtaken = 0;
    for (uint32_t seed = 1; seed <= 200; seed++) {
        tempo_interp *ip = make(TEMPO_PLAYOUT_ADAPTIVE, seed % 2 ? zero_late : NULL);
        enum { N = 300 };
        int32_t order[N];
        uint64_t at[N];
        uint32_t x = seed * 2654435761u;
        for (int k = 0; k < N; k++) {
            x = x * 1664525u + 1013904223u;
            order[k] = k;
            at[k] = (uint64_t)k * T + LAT + (x >> 8) % (3 * T);
        }
        for (int i = 1; i < N; i++) /* by arrival */
            for (int m = i; m > 0 && at[order[m - 1]] > at[order[m]]; m--) {
                int32_t t = order[m];
                order[m] = order[m - 1];
                order[m - 1] = t;
            }
        for (int i = 0; i < N; i++) {
            if (i + 2 < N && order[i] > order[i + 2])
                overtaken++;
            assert_int_equal(tempo_interp_push(ip, order[i], at[order[i]], 1, NULL), TEMPO_OK);
            tempo_interp_stats st;
            assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
            assert_int_equal(st.loss_run, 0);
            if (i == N - 1) /* past the start, when two arrivals cannot tell the interval */
                assert_true(st.delay_us <= T + 3 * T);
        }
        tempo_interp_destroy(ip);
    }
    assert_true(overtaken > 1000); /* the streams did reorder, two deep */
}

static void pongbat_rule_sizes_from_the_mean_of_twenty_pings_every_two_seconds(void **state)
{
    (void)state;
    tempo_interp *ip = make(TEMPO_PLAYOUT_PONGBAT, NULL); /* cap 8 ticks */
    tempo_interp_sample s;
    assert_int_equal(delay_of(ip), T); /* before any decision: one tick */
    tempo_interp_push(ip, 0, LAT, 1, NULL);
    for (int i = 0; i < 30; i++) /* the last 20: ten 30 ms, ten 40 ms */
        tempo_interp_add_ping(ip, i % 2 ? 40000 : 30000);
    assert_int_equal(tempo_interp_sample_at(ip, 1000000, &s), TEMPO_OK);
    /* mean 35 ms: ceil(35 / 16) + 1 = 4 ticks */
    assert_int_equal(delay_of(ip), 4 * T);
    tempo_interp_stats st;
    assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
    assert_int_equal(st.ping_us, 35000);
    assert_true(st.buffer_on);
    for (int i = 0; i < 20; i++)
        tempo_interp_add_ping(ip, 100000);
    /* exactly 2 s later: not yet (Pongbat decides once more than 2 s passed) */
    assert_int_equal(tempo_interp_sample_at(ip, 3000000, &s), TEMPO_OK);
    assert_int_equal(delay_of(ip), 4 * T);
    /* a mean of exactly 100 ms switches the buffer off */
    assert_int_equal(tempo_interp_sample_at(ip, 3000001, &s), TEMPO_OK);
    assert_int_equal(delay_of(ip), 0);
    assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
    assert_false(st.buffer_on);
    /* 99,999 µs: on again, ceil(99999 / 16000) + 1 = 8 ticks, at the cap */
    for (int i = 0; i < 20; i++)
        tempo_interp_add_ping(ip, 99999);
    assert_int_equal(tempo_interp_sample_at(ip, 5000002, &s), TEMPO_OK);
    assert_int_equal(delay_of(ip), 8 * T);
    assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
    assert_int_equal(st.delay_changes, 3);
    tempo_interp_destroy(ip);

    /* a 5 ms tick: 90 ms gives ceil(18) + 1 = 19, capped at 8 */
    tempo_interp_config c;
    tempo_interp_config_default(&c);
    c.tick_us = 5000;
    c.mode = TEMPO_PLAYOUT_PONGBAT;
    assert_int_equal(tempo_interp_create(&c, &ip), TEMPO_OK);
    tempo_interp_add_ping(ip, 90000);
    assert_int_equal(tempo_interp_sample_at(ip, 0, &s), TEMPO_OK);
    assert_int_equal(delay_of(ip), 8 * 5000);
    tempo_interp_destroy(ip);
}

static void a_delay_change_stretches_render_time_at_the_bounded_rate(void **state)
{
    (void)state;
    tempo_interp *ip = make(TEMPO_PLAYOUT_PONGBAT, NULL);
    for (int k = 0; k < 200; k++)
        tempo_interp_push(ip, k, (uint64_t)k * T + LAT, 1, NULL);
    tempo_interp_add_ping(ip, 35000); /* 4 ticks: 64 ms */
    tempo_interp_sample s;
    uint64_t now = 100 * T + LAT;
    assert_int_equal(tempo_interp_sample_at(ip, now, &s), TEMPO_OK);
    assert_int_equal(s.render_us, 100 * T - 64000);
    tempo_interp_add_ping(ip, 200000); /* mean of both > 100 ms: off, delay 0 */
    int64_t prev = s.render_us;
    for (int f = 1; f <= 300; f++) {
        now += 10000;
        assert_int_equal(tempo_interp_sample_at(ip, now, &s), TEMPO_OK);
        int64_t step = s.render_us - prev;
        prev = s.render_us;
        if (f < 201) /* the decision comes once more than 2 s have passed */
            assert_int_equal(step, 10000);
        else if (f < 201 + 64) /* 64 ms caught up at 1 ms per 10 ms frame */
            assert_int_equal(step, 11000);
        else
            assert_int_equal(step, 10000);
    }
    tempo_interp_stats st;
    assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
    assert_int_equal(st.delay_us, 0);
    assert_int_equal(st.render_lag_us, 0);
    tempo_interp_destroy(ip);
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Random streams: latency steps, jitter bursts, loss, reordering, frames of
 * random length; every mode. Render time never goes back and each frame's
 * rate stays within 1 +- max_rate_ppm. */
static void render_time_is_monotonic_and_rate_bounded_over_random_streams(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        uint64_t x = seed * 0x9e3779b97f4a7c15ULL;
        tempo_interp_config c;
        tempo_interp_config_default(&c);
        c.tick_us = 10000 + (uint32_t)(rnd(&x) % 30000);
        c.mode = (tempo_playout_mode)(seed % 3);
        c.max_rate_ppm = 20000 + (uint32_t)(rnd(&x) % 200000);
        c.capacity = 8 + (int)(rnd(&x) % 40);
        c.window = 2 + (int)(rnd(&x) % 100);
        c.shrink_hold_us = (uint32_t)(rnd(&x) % 3000000);
        tempo_interp *ip;
        assert_int_equal(tempo_interp_create(&c, &ip), TEMPO_OK);
        uint64_t now = rnd(&x) % 1000000, latency = 20000 + rnd(&x) % 100000;
        int32_t next_tick = (int32_t)(rnd(&x) % 1000);
        uint64_t next_send = now;
        /* pending arrivals */
        int32_t pend_tick[64];
        uint64_t pend_at[64];
        int npend = 0;
        bool have = false;
        int64_t prev = 0;
        uint64_t prev_now = 0;
        for (int frame = 0; frame < 3000; frame++) {
            uint64_t dt = 1000 + rnd(&x) % 40000;
            now += dt;
            if (rnd(&x) % 500 == 0)
                latency = 10000 + rnd(&x) % 300000; /* route change */
            while (next_send <= now) {
                if (rnd(&x) % 100 >= 8 && npend < 64) { /* 8 % lost */
                    uint64_t j = rnd(&x) % 4 == 0 ? rnd(&x) % 60000 : rnd(&x) % 5000;
                    pend_tick[npend] = next_tick;
                    pend_at[npend++] = next_send + latency + j;
                }
                next_tick++;
                next_send += c.tick_us;
            }
            for (int i = 0; i < npend;) {
                if (pend_at[i] <= now) {
                    tempo_result r = tempo_interp_push(ip, pend_tick[i], pend_at[i], (uint32_t)i, NULL);
                    assert_true(r == TEMPO_OK || r == TEMPO_E_FRAME);
                    pend_tick[i] = pend_tick[npend - 1];
                    pend_at[i] = pend_at[--npend];
                } else {
                    i++;
                }
            }
            if (rnd(&x) % 3 == 0)
                tempo_interp_add_ping(ip, (uint32_t)(2 * latency));
            tempo_interp_sample s;
            assert_int_equal(tempo_interp_sample_at(ip, now, &s), TEMPO_OK);
            if (s.kind == TEMPO_INTERP_EMPTY)
                continue;
            if (have) {
                int64_t step = s.render_us - prev;
                int64_t el = (int64_t)(now - prev_now);
                assert_true(step >= 0);
                int64_t dev = step > el ? step - el : el - step;
                assert_true(dev * 1000000 <= el * (int64_t)c.max_rate_ppm);
            }
            have = true;
            prev = s.render_us;
            prev_now = now;
            if (s.kind == TEMPO_INTERP_BLEND)
                assert_true(s.frac < 65536);
        }
        tempo_interp_destroy(ip);
    }
}

static void running_dry_counts_one_underrun_and_the_time_extrapolated(void **state)
{
    (void)state;
    tempo_interp *ip = make(TEMPO_PLAYOUT_FIXED, NULL);
    for (int k = 0; k <= 10; k++)
        tempo_interp_push(ip, k, (uint64_t)k * T + LAT, (uint32_t)k, NULL);
    tempo_interp_sample s;
    uint64_t now = 10 * T + LAT; /* render at tick 8 */
    assert_int_equal(tempo_interp_sample_at(ip, now, &s), TEMPO_OK);
    assert_int_equal(s.kind, TEMPO_INTERP_BLEND);
    /* no more snapshots; 16 ms frames */
    for (int f = 1; f <= 30; f++) {
        now += T;
        assert_int_equal(tempo_interp_sample_at(ip, now, &s), TEMPO_OK);
    }
    /* render at tick 38: 28 ticks past tick 10, capped at 250 ms */
    assert_int_equal(s.kind, TEMPO_INTERP_EXTRAPOLATE);
    assert_int_equal(s.from_tick, 9);
    assert_int_equal(s.to_tick, 10);
    assert_int_equal(s.extrapolate_us, 250000);
    assert_int_equal(s.frac, (uint32_t)(((int64_t)(T + 250000) * 65536) / T));
    assert_int_equal(s.view_tick, 10 + 250000 / T);
    tempo_interp_stats st;
    assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
    assert_int_equal(st.underruns, 1);
    assert_int_equal(st.extrapolated_us, 28 * T);
    /* snapshots again: blending resumes, a second dry spell is a second underrun */
    for (int k = 11; k <= 60; k++)
        tempo_interp_push(ip, k, (uint64_t)k * T + LAT, (uint32_t)k, NULL);
    now += T;
    assert_int_equal(tempo_interp_sample_at(ip, now, &s), TEMPO_OK);
    assert_int_equal(s.kind, TEMPO_INTERP_BLEND);
    assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
    assert_int_equal(st.late, 28); /* ticks 11..38 came after render time passed them */
    now += 30 * T;
    assert_int_equal(tempo_interp_sample_at(ip, now, &s), TEMPO_OK);
    assert_int_equal(s.kind, TEMPO_INTERP_EXTRAPOLATE);
    assert_int_equal(tempo_interp_stats_get(ip, &st), TEMPO_OK);
    assert_int_equal(st.underruns, 2);
    tempo_interp_destroy(ip);
}

static void buffer_keeps_ticks_sorted_and_evicts_the_oldest(void **state)
{
    (void)state;
    tempo_interp_config c;
    tempo_interp_config_default(&c);
    c.tick_us = T;
    c.capacity = 4;
    c.mode = TEMPO_PLAYOUT_FIXED;
    c.fixed_ticks = 0;
    tempo_interp *ip;
    assert_int_equal(tempo_interp_create(&c, &ip), TEMPO_OK);
    uint32_t ev;
    tempo_interp_sample s;
    assert_int_equal(tempo_interp_sample_at(ip, 5, &s), TEMPO_OK);
    assert_int_equal(s.kind, TEMPO_INTERP_EMPTY);
    assert_int_equal(tempo_interp_push(ip, 5, 5 * T + LAT, 50, &ev), TEMPO_OK);
    assert_int_equal(ev, TEMPO_INTERP_NO_HANDLE);
    assert_int_equal(tempo_interp_push(ip, 3, 3 * T + LAT + 40000, 30, &ev), TEMPO_OK);
    assert_int_equal(tempo_interp_push(ip, 4, 4 * T + LAT + 1, 40, &ev), TEMPO_OK);
    assert_int_equal(tempo_interp_push(ip, 4, 4 * T + LAT + 2, 41, &ev), TEMPO_E_ALREADY);
    assert_int_equal(tempo_interp_push(ip, 7, 7 * T + LAT, 70, &ev), TEMPO_OK);
    assert_int_equal(ev, TEMPO_INTERP_NO_HANDLE);
    assert_int_equal(tempo_interp_push(ip, 2, 2 * T + LAT, 20, &ev), TEMPO_E_FRAME); /* full, oldest */
    assert_int_equal(tempo_interp_push(ip, 6, 6 * T + LAT, 60, &ev), TEMPO_OK);
    assert_int_equal(ev, 30);
    /* delay 0, timebase LAT: render tick 6.5 blends 6 and 7 */
    assert_int_equal(tempo_interp_sample_at(ip, 6 * T + T / 2 + LAT, &s), TEMPO_OK);
    assert_int_equal(s.kind, TEMPO_INTERP_BLEND);
    assert_int_equal(s.from_handle, 60);
    assert_int_equal(s.to_handle, 70);
    tempo_interp_destroy(ip);

    /* render time before the oldest snapshot: hold it */
    ip = make(TEMPO_PLAYOUT_FIXED, NULL);
    tempo_interp_push(ip, 10, 10 * T + LAT, 9, NULL);
    assert_int_equal(tempo_interp_sample_at(ip, 10 * T + LAT, &s), TEMPO_OK);
    assert_int_equal(s.kind, TEMPO_INTERP_HOLD);
    assert_int_equal(s.from_tick, 10);
    assert_int_equal(s.view_tick, 10);
    assert_int_equal(s.render_us, 8 * T);
    tempo_interp_destroy(ip);
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    tempo_interp_config c;
    tempo_interp *ip = (tempo_interp *)&c;
    assert_int_equal(tempo_interp_create(NULL, &ip), TEMPO_E_INVALID_ARG);
    tempo_interp_config_default(&c);
    assert_int_equal(tempo_interp_create(&c, NULL), TEMPO_E_INVALID_ARG);
    const struct {
        size_t off;
        int64_t v;
    } bad[] = {
        {offsetof(tempo_interp_config, tick_us), 99},      {offsetof(tempo_interp_config, capacity), 1},
        {offsetof(tempo_interp_config, capacity), 1025},   {offsetof(tempo_interp_config, window), 1},
        {offsetof(tempo_interp_config, window), 257},      {offsetof(tempo_interp_config, mode), 3},
        {offsetof(tempo_interp_config, fixed_ticks), 1025},  {offsetof(tempo_interp_config, late_percent), 51},
        {offsetof(tempo_interp_config, max_loss_cover), 17}, {offsetof(tempo_interp_config, max_rate_ppm), 0},
        {offsetof(tempo_interp_config, max_rate_ppm), 500001}, {offsetof(tempo_interp_config, min_delay_us), 500001},
        {offsetof(tempo_interp_config, pongbat_max_ticks), 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tempo_interp_config_default(&c);
        int32_t v32 = (int32_t)bad[i].v;
        memcpy((uint8_t *)&c + bad[i].off, &v32, sizeof v32);
        ip = (tempo_interp *)&c;
        assert_int_equal(tempo_interp_create(&c, &ip), TEMPO_E_INVALID_ARG);
        assert_null(ip);
    }
    tempo_interp_config_default(&c);
    assert_int_equal(tempo_interp_create(&c, &ip), TEMPO_OK);
    assert_int_equal(tempo_interp_push(ip, -1, 0, 1, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_interp_push(ip, 1, 0, TEMPO_INTERP_NO_HANDLE, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_interp_push(NULL, 1, 0, 1, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_interp_sample_at(ip, 0, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_interp_stats_get(ip, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_interp_add_ping(NULL, 1), TEMPO_E_INVALID_ARG);
    tempo_interp_destroy(ip);
    tempo_interp_destroy(NULL);
}

static void create_allocates_once_and_nothing_after(void **state)
{
    (void)state;
    for (int fail = 0; fail < 2; fail++) {
        hook_count h = {fail == 0 ? 0 : -1, 0, 0};
        tempo_interp_config c;
        tempo_interp_config_default(&c);
        c.allocator.alloc = hc_alloc;
        c.allocator.free = hc_free;
        c.allocator.ctx = &h;
        tempo_interp *ip;
        if (fail == 0) {
            assert_int_equal(tempo_interp_create(&c, &ip), TEMPO_E_NO_MEMORY);
            assert_int_equal(h.live, 0);
            continue;
        }
        assert_int_equal(tempo_interp_create(&c, &ip), TEMPO_OK);
        assert_int_equal(h.count, 1);
        bool counting = count_malloc_start();
        uint64_t before = count_malloc_total();
        tempo_interp_sample s;
        for (int k = 0; k < 500; k++) {
            tempo_interp_push(ip, k, (uint64_t)k * 16667 + LAT + jit(k), 1, NULL);
            tempo_interp_add_ping(ip, 40000);
            tempo_interp_sample_at(ip, (uint64_t)k * 16667 + LAT + 5000, &s);
        }
        if (counting)
            assert_int_equal(count_malloc_total(), before);
        assert_int_equal(h.count, 1);
        tempo_interp_destroy(ip);
        assert_int_equal(h.live, 0);
    }
}

/* The interp objects reference no clock: no such symbol in their tables. */
static void interp_objects_read_no_clock(void **state)
{
    (void)state;
    static const char *const files[] = {"interp.c", "playout.c", "reckon.c", "smooth.c", "lagcomp.c"};
    static const char *const clocks[] = {"clock_gettime", "gettimeofday", "timespec_get",
                                         "QueryPerformanceCounter", "GetTickCount", "mach_absolute_time",
                                         "clock"};
    int found = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/src/CMakeFiles/tempo_objects.dir/interp/%s.o", TEMPO_BINARY_DIR,
                 files[f]);
        FILE *fp = fopen(path, "rb");
        if (!fp)
            continue;
        found++;
        static char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, fp);
        fclose(fp);
        for (size_t c = 0; c < sizeof clocks / sizeof clocks[0]; c++) {
            size_t len = strlen(clocks[c]);
            for (size_t i = 0; i + len + 2 <= n; i++)
                if (buf[i] == 0 && memcmp(buf + i + 1, clocks[c], len) == 0 && buf[i + 1 + len] == 0)
                    fail_msg("%s references %s", files[f], clocks[c]);
            /* "time" alone */
        }
        for (size_t i = 0; i + 6 <= n; i++)
            if (buf[i] == 0 && memcmp(buf + i + 1, "time", 4) == 0 && buf[i + 5] == 0)
                fail_msg("%s references time", files[f]);
    }
    if (found == 0)
        print_message("object files not found under %s: not checked\n", TEMPO_BINARY_DIR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixed_delay_blends_the_two_snapshots_around_render_time),
        cmocka_unit_test(gaps_between_snapshots_blend_over_the_whole_gap),
        cmocka_unit_test(adaptive_delay_from_known_jitter_is_one_interval_plus_the_jitter_budget),
        cmocka_unit_test(adaptive_quantile_ignores_the_rare_late_arrival),
        cmocka_unit_test(adaptive_grows_at_once_and_shrinks_after_the_hold),
        cmocka_unit_test(adaptive_takes_a_reordered_snapshot_as_late_not_lost),
        cmocka_unit_test(adaptive_never_counts_reordering_as_loss_over_random_streams),
        cmocka_unit_test(pongbat_rule_sizes_from_the_mean_of_twenty_pings_every_two_seconds),
        cmocka_unit_test(a_delay_change_stretches_render_time_at_the_bounded_rate),
        cmocka_unit_test(render_time_is_monotonic_and_rate_bounded_over_random_streams),
        cmocka_unit_test(running_dry_counts_one_underrun_and_the_time_extrapolated),
        cmocka_unit_test(buffer_keeps_ticks_sorted_and_evicts_the_oldest),
        cmocka_unit_test(bad_arguments_are_refused),
        cmocka_unit_test(create_allocates_once_and_nothing_after),
        cmocka_unit_test(interp_objects_read_no_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
