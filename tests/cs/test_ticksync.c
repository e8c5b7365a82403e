/* SPDX-License-Identifier: MIT */
/*
 * test_ticksync.c — the client's tick-sync controller in a closed loop.
 *
 * The model: a server ticking exactly every 1e6 / 60 us; a client ticking
 * with the controller's dilated period (its clock optionally drifting);
 * each client tick sends its input, which reaches the server after a fixed
 * one-way delay plus uniform jitter; the server measures each input's
 * earliness (tick - arrival time in ticks, as a fraction), and every third
 * server tick reports the mean of the inputs since its last report, which
 * reaches the client after the same kind of delay (or, for one test, an
 * exponential average over every input). A snap of +k runs k
 * extra ticks at once; -k lets k tick periods pass without a tick. A hitch
 * is the client frozen for a number of tick periods. Event driven, integer
 * microseconds, seeded: the same numbers every run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cs/ticksync.h"
#include "tempo/rng.h"

#define FPS 60
#define QUEUE 1024
#define MAX_SNAPS 16
#define NEVER INT64_MAX

/* (the Windows cmocka stand-in has no assert_float_equal) */
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) < (eps))

typedef struct model_config {
    int64_t owd_us, jitter_us; /* one way, each direction; jitter uniform in [0, jitter_us] */
    int report_every;          /* server ticks between reports */
    double start_offset;       /* initial earliness - margin, ticks */
    int64_t hitch_at_us;       /* NEVER: no hitch */
    int hitch_ticks;
    double drift_ppm;          /* client clock runs this much fast (> 0) */
    double max_dilation;
    int64_t duration_us;
    uint64_t seed;
    double server_ewma;        /* 0: reports are the mean since the last one; else this weight per input */
} model_config;

typedef struct model_result {
    int snaps, snap[MAX_SNAPS];
    int64_t snap_at_us[MAX_SNAPS];
    double max_abs_dilation;
    double margin;
    int64_t settled_at_us; /* from here on, every half second's mean earliness is within 0.5 of margin */
    double final_mean;     /* mean earliness over the last second */
    double lowest, highest; /* of the half seconds' means */
    uint64_t trace;        /* hash of every tick's length and every snap */
} model_result;

typedef struct event {
    int64_t at;
    double value;
} event;

typedef struct queue {
    event e[QUEUE];
    int n;
} queue;

static void push(queue *q, int64_t at, double value)
{
    assert_true(q->n < QUEUE);
    q->e[q->n].at = at;
    q->e[q->n].value = value;
    q->n++;
}

static int earliest(const queue *q)
{
    int best = -1;
    for (int i = 0; i < q->n; i++)
        if (best < 0 || q->e[i].at < q->e[best].at)
            best = i;
    return best;
}

static event take(queue *q, int i)
{
    event e = q->e[i];
    q->e[i] = q->e[--q->n];
    return e;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ull; }

#define HALF_SECONDS 400 /* up to 200 s of simulation */

static void run_model(const model_config *m, model_result *r)
{
    memset(r, 0, sizeof *r);
    tempo_rng rng;
    tempo_rng_seed(&rng, m->seed, 1);
    cs_ticksync_config cfg;
    cs_ticksync_config_default(&cfg);
    cfg.frames_per_second = FPS;
    cfg.max_dilation = m->max_dilation;
    cs_ticksync ts;
    cs_ticksync_init(&ts, &cfg);
    double jitter_ms = (double)m->jitter_us / 1000.0;
    /* RTT as a link measures it: both delays plus the mean jitter of each */
    cs_ticksync_on_link(&ts, (double)(2 * m->owd_us + m->jitter_us) / 1000.0, jitter_ms / 2, 0.0);
    r->margin = cs_ticksync_margin(&ts);

    const double tick_s_us = 1e6 / FPS;
    static queue inputs, reports;
    inputs.n = reports.n = 0;
    /* the client's first tick, placed start_offset ticks from the margin; the
     * mean jitter is half of jitter_us */
    double arrive_ticks = ((double)m->owd_us + (double)m->jitter_us / 2) / tick_s_us;
    int64_t x = (int64_t)floor(arrive_ticks + r->margin + m->start_offset + 0.5) - 1;
    int64_t next_tick = 0, next_report = (int64_t)(m->report_every * tick_s_us);
    double sum = 0.0, last_mean = 0.0, ewma = 0.0;
    int count = 0;
    bool hitched = false, measured = false;
    double half_sum[HALF_SECONDS] = {0};
    int half_n[HALF_SECONDS] = {0};
    uint64_t h = 0xcbf29ce484222325ull;
    for (;;) {
        int qi = earliest(&inputs), qr = earliest(&reports);
        int64_t t_in = qi >= 0 ? inputs.e[qi].at : NEVER, t_rep = qr >= 0 ? reports.e[qr].at : NEVER;
        int64_t now = min64(min64(next_tick, next_report), min64(t_in, t_rep));
        if (now >= m->duration_us)
            break;
        if (now == t_in) {
            /* the server measures the input's earliness */
            event e = take(&inputs, qi);
            double earliness = e.value - (double)now / tick_s_us;
            ewma = count == 0 && !measured ? earliness : ewma + m->server_ewma * (earliness - ewma);
            sum += earliness;
            count++;
            int hs = (int)(now / 500000);
            if (hs < HALF_SECONDS) {
                half_sum[hs] += earliness;
                half_n[hs]++;
            }
        } else if (now == t_rep) {
            event e = take(&reports, qr);
            cs_ticksync_on_report(&ts, e.value);
        } else if (now == next_report) {
            /* nothing to report before the first input arrives */
            if (count > 0) {
                last_mean = m->server_ewma > 0 ? ewma : sum / count;
                measured = true;
            }
            sum = 0.0, count = 0;
            if (measured)
                push(&reports, now + m->owd_us + (int64_t)tempo_rng_below(&rng, (uint32_t)m->jitter_us + 1),
                 last_mean);
            next_report += (int64_t)(m->report_every * tick_s_us);
        } else {
            if (!hitched && now >= m->hitch_at_us) {
                hitched = true;
                next_tick = now + (int64_t)(m->hitch_ticks * tick_s_us);
                continue;
            }
            int k = cs_ticksync_update(&ts);
            double d = cs_ticksync_dilation(&ts);
            if (fabs(d) > r->max_abs_dilation)
                r->max_abs_dilation = fabs(d);
            /* the client's clock: a period of tick_us on it lasts this long for the server */
            int64_t period = (int64_t)((double)cs_ticksync_tick_us(&ts) / (1.0 + m->drift_ppm * 1e-6));
            h = mix(h, (uint64_t)cs_ticksync_tick_us(&ts));
            if (k != 0) {
                assert_true(r->snaps < MAX_SNAPS);
                r->snap[r->snaps] = k;
                r->snap_at_us[r->snaps] = now;
                r->snaps++;
                h = mix(h, (uint64_t)(int64_t)k);
            }
            if (k < 0) {
                next_tick = now - k * period;
                continue;
            }
            for (int i = 0; i <= k; i++) {
                x++;
                push(&inputs, now + m->owd_us + (int64_t)tempo_rng_below(&rng, (uint32_t)m->jitter_us + 1),
                     (double)x);
            }
            next_tick = now + period;
        }
    }
    /* settled: the first half second from which every half second is within 0.5 tick */
    int halves = (int)(m->duration_us / 500000);
    r->settled_at_us = NEVER;
    r->lowest = 1e9, r->highest = -1e9;
    for (int s = 0; s < halves; s++) {
        if (half_n[s] == 0)
            continue;
        double mean = half_sum[s] / half_n[s];
        r->lowest = mean < r->lowest ? mean : r->lowest;
        r->highest = mean > r->highest ? mean : r->highest;
    }
    for (int s = halves - 1; s >= 0; s--) {
        double mean = half_n[s] ? half_sum[s] / half_n[s] : 1e9;
        if (mean - r->margin > 0.5 || mean - r->margin < -0.5)
            break;
        r->settled_at_us = (int64_t)s * 500000;
    }
    r->final_mean = (half_sum[halves - 1] + half_sum[halves - 2]) / (half_n[halves - 1] + half_n[halves - 2]);
    r->trace = h;
}

static model_config base_model(void)
{
    model_config m = {50000, 8000, 3, 0.0, NEVER, 0, 0.0, 0.05, 10000000, 1, 0.0};
    return m;
}

static void print_result(const char *name, const model_result *r)
{
    printf("%s: margin %.3f settled at %lld us, final mean %.3f (half seconds %.3f..%.3f), "
           "max |dilation| %.4f, snaps %d:",
           name, r->margin, (long long)r->settled_at_us, r->final_mean, r->lowest, r->highest,
           r->max_abs_dilation, r->snaps);
    for (int i = 0; i < r->snaps; i++)
        printf(" %+d at %lld us", r->snap[i], (long long)r->snap_at_us[i]);
    printf("; trace %016llx\n", (unsigned long long)r->trace);
}

static void a_start_10_ticks_late_converges_within_3_seconds(void **state)
{
    (void)state;
    model_config m = base_model();
    m.start_offset = -10.0;
    model_result r;
    run_model(&m, &r);
    print_result("late start", &r);
    assert_int_equal(r.settled_at_us, 500000);
    assert_int_equal(r.snaps, 1);
    assert_int_equal(r.snap[0], 10);
    assert_int_equal(r.snap_at_us[0], 266672); /* three reports in, at 16 ticks */
    assert_true(r.final_mean - r.margin < 0.5 && r.final_mean - r.margin > -0.5);
}

static void a_start_10_ticks_early_converges_within_3_seconds(void **state)
{
    (void)state;
    model_config m = base_model();
    m.start_offset = 10.0;
    model_result r;
    run_model(&m, &r);
    print_result("early start", &r);
    assert_int_equal(r.settled_at_us, 500000);
    assert_int_equal(r.snaps, 1);
    assert_int_equal(r.snap[0], -10);
    assert_int_equal(r.snap_at_us[0], 266672);
}

static void a_start_within_the_snap_threshold_is_steered_by_dilation_alone(void **state)
{
    (void)state;
    model_config m = base_model();
    m.start_offset = -4.0;
    model_result r;
    run_model(&m, &r);
    print_result("start 4 late", &r);
    assert_int_equal(r.snaps, 0);
    /* 4 ticks at 3 ticks per second at most, plus the first reports' round trip */
    assert_int_equal(r.settled_at_us, 2000000);
    assert_true(r.max_abs_dilation > 0.049);
}

static void a_long_round_trip_converges_without_overshoot(void **state)
{
    (void)state;
    /* 300 ms round trip, reports every tick: D is about 18 ticks, where a
     * controller on raw reports would need a gain below 0.02 per tick */
    for (int off = -7; off <= 7; off += 14) {
        model_config m = base_model();
        m.owd_us = 150000;
        m.report_every = 1;
        m.start_offset = off;
        model_result r;
        run_model(&m, &r);
        print_result(off < 0 ? "300 ms, 7 late" : "300 ms, 7 early", &r);
        assert_int_equal(r.snaps, 0);
        assert_true(r.settled_at_us <= 3500000);
        /* never past the margin by more than half a tick on the other side */
        if (off < 0)
            assert_true(r.highest - r.margin < 0.5);
        else
            assert_true(r.lowest - r.margin > -0.5);
        assert_true(r.final_mean - r.margin < 0.5 && r.final_mean - r.margin > -0.5);
    }
}

static void a_server_that_smooths_its_reports_still_converges(void **state)
{
    (void)state;
    static const double weights[] = {0.3, 0.1, 0.05};
    for (size_t w = 0; w < sizeof weights / sizeof weights[0]; w++) {
        for (int off = -20; off <= 20; off += 8) {
            model_config m = base_model();
            m.server_ewma = weights[w];
            m.start_offset = off;
            m.hitch_at_us = 5000000;
            m.hitch_ticks = 20;
            model_result r;
            run_model(&m, &r);
            char name[64];
            snprintf(name, sizeof name, "ewma %.2f, start %+d", weights[w], off);
            print_result(name, &r);
            /* one snap per disturbance, never one undoing another */
            int start_snaps = off > 8 || off < -8;
            assert_int_equal(r.snaps, start_snaps + 1);
            if (start_snaps)
                assert_int_equal(r.snap[0], -off);
            /* most of the hitch in one snap, the rest by dilation */
            assert_true(r.snap[start_snaps] >= 15 && r.snap[start_snaps] <= 20);
            assert_true(r.settled_at_us <= 7500000);
            assert_true(r.final_mean - r.margin < 0.5 && r.final_mean - r.margin > -0.5);
        }
    }
}

static void the_dilation_never_leaves_its_bound(void **state)
{
    (void)state;
    static const double bounds[] = {0.0, 0.01, 0.05, 0.25};
    for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++) {
        for (int off = -7; off <= 7; off += 7) {
            model_config m = base_model();
            m.max_dilation = bounds[b];
            m.start_offset = off;
            m.jitter_us = 30000;
            m.drift_ppm = 2000;
            model_result r;
            run_model(&m, &r);
            assert_true(r.max_abs_dilation <= bounds[b]);
        }
    }
    /* out of range asks are clamped to 0..0.25 */
    cs_ticksync_config cfg;
    cs_ticksync_config_default(&cfg);
    cfg.max_dilation = 0.9;
    cs_ticksync ts;
    cs_ticksync_init(&ts, &cfg);
    assert_true(ts.cfg.max_dilation == 0.25);
}

static void no_snap_after_settling_without_a_hitch(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        model_config m = base_model();
        m.seed = seed;
        m.start_offset = -10.0;
        m.jitter_us = 20000;
        m.drift_ppm = 500;
        m.duration_us = 60000000;
        model_result r;
        run_model(&m, &r);
        assert_int_equal(r.snaps, 1);
        assert_true(r.snap_at_us[0] < 1000000);
        assert_true(r.settled_at_us <= 3000000);
    }
}

static void a_hitch_of_20_ticks_causes_one_snap(void **state)
{
    (void)state;
    model_config m = base_model();
    m.hitch_at_us = 5000000;
    m.hitch_ticks = 20;
    model_result r;
    run_model(&m, &r);
    print_result("hitch", &r);
    assert_int_equal(r.snaps, 1);
    assert_int_equal(r.snap[0], 20);
    /* the hitch ends at 5.333 s; its inputs show after one way (50..58 ms),
     * then three reports that agree, and their way back */
    assert_int_equal(r.snap_at_us[0], 5562907);
    assert_true(r.final_mean - r.margin < 0.5 && r.final_mean - r.margin > -0.5);
}

static void margin_rises_with_jitter_and_loss(void **state)
{
    (void)state;
    cs_ticksync ts;
    cs_ticksync_init(&ts, NULL);
    /* 60 fps: 1 tick = 16.667 ms; margin = 1 + 2 x jitter ticks + loss cover */
    cs_ticksync_on_link(&ts, 100, 0, 0);
    assert_true(cs_ticksync_margin(&ts) == 1.0);
    cs_ticksync_on_link(&ts, 100, 5, 0);
    assert_near(cs_ticksync_margin(&ts), 1.6, 1e-9);
    cs_ticksync_on_link(&ts, 100, 20, 0);
    assert_near(cs_ticksync_margin(&ts), 3.4, 1e-9);
    cs_ticksync_on_link(&ts, 100, 20, 0.01);
    assert_near(cs_ticksync_margin(&ts), 3.4, 1e-9);
    cs_ticksync_on_link(&ts, 100, 20, 0.02);
    assert_near(cs_ticksync_margin(&ts), 4.4, 1e-9);
    cs_ticksync_on_link(&ts, 100, 20, 0.15);
    assert_near(cs_ticksync_margin(&ts), 5.4, 1e-9);
    cs_ticksync_on_link(&ts, 100, 20, 0.3);
    assert_near(cs_ticksync_margin(&ts), 6.4, 1e-9);
    /* and stops at max_margin_ticks */
    cs_ticksync_on_link(&ts, 100, 100, 0.5);
    assert_true(cs_ticksync_margin(&ts) == 10.0);
    /* nonsense measurements count as none */
    cs_ticksync_on_link(&ts, -5, -1, -0.5);
    assert_true(cs_ticksync_margin(&ts) == 1.0);
}

static void the_same_seed_gives_the_same_run(void **state)
{
    (void)state;
    model_config m = base_model();
    m.start_offset = -10.0;
    m.jitter_us = 20000;
    m.hitch_at_us = 4000000;
    m.hitch_ticks = 20;
    model_result a, b, c;
    run_model(&m, &a);
    run_model(&m, &b);
    assert_int_equal(a.trace, b.trace);
    assert_int_equal(a.snaps, b.snaps);
    m.seed = 2;
    run_model(&m, &c);
    assert_int_not_equal(a.trace, c.trace);
}

static void tick_length_follows_the_dilation_and_reports_are_checked(void **state)
{
    (void)state;
    cs_ticksync ts;
    cs_ticksync_init(&ts, NULL);
    assert_int_equal(cs_ticksync_tick_us(&ts), 16667);
    assert_int_equal(cs_ticksync_update(&ts), 0);
    assert_true(cs_ticksync_dilation(&ts) == 0.0); /* no report yet */
    assert_true(cs_ticksync_error(&ts) == 0.0);
    /* reports 2 ticks early with a margin of 1: slow down, at the full 5% */
    for (int i = 0; i < 3; i++) {
        cs_ticksync_on_report(&ts, 3.0);
        assert_int_equal(cs_ticksync_update(&ts), 0);
    }
    assert_near(cs_ticksync_error(&ts), 2.0, 1e-12);
    assert_near(cs_ticksync_dilation(&ts), 0.05, 1e-12);
    assert_int_equal(cs_ticksync_tick_us(&ts), 17500);
    /* a NaN report is ignored, and so is one beyond 10 s of ticks */
    cs_ticksync_on_report(&ts, NAN);
    assert_near(cs_ticksync_error(&ts), 2.0, 1e-12);
    for (int i = 0; i < 3; i++) {
        cs_ticksync_on_report(&ts, 601.0);
        cs_ticksync_on_report(&ts, -601.0);
        assert_int_equal(cs_ticksync_update(&ts), 0);
    }
    assert_near(cs_ticksync_error(&ts), 2.0, 1e-12);
    /* 600 is believable, and snaps */
    for (int i = 0; i < 3; i++)
        cs_ticksync_on_report(&ts, 600.0);
    assert_true(cs_ticksync_update(&ts) < -590);
    assert_int_equal(cs_ticksync_snaps(&ts), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_start_10_ticks_late_converges_within_3_seconds),
        cmocka_unit_test(a_start_10_ticks_early_converges_within_3_seconds),
        cmocka_unit_test(a_start_within_the_snap_threshold_is_steered_by_dilation_alone),
        cmocka_unit_test(a_long_round_trip_converges_without_overshoot),
        cmocka_unit_test(a_server_that_smooths_its_reports_still_converges),
        cmocka_unit_test(the_dilation_never_leaves_its_bound),
        cmocka_unit_test(no_snap_after_settling_without_a_hitch),
        cmocka_unit_test(a_hitch_of_20_ticks_causes_one_snap),
        cmocka_unit_test(margin_rises_with_jitter_and_loss),
        cmocka_unit_test(the_same_seed_gives_the_same_run),
        cmocka_unit_test(tick_length_follows_the_dilation_and_reports_are_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
