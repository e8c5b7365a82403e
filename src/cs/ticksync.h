/* SPDX-License-Identifier: MIT */
/*
 * ticksync.h — the client's tick-sync controller: how far ahead of the
 * server a client runs (its lead), steered so that its inputs reach the
 * server `margin` ticks before the server simulates their tick.
 *
 * The server measures, for each input of a client, its earliness: (the tick
 * the input is for) - (the server tick being simulated when it arrived), in
 * ticks, and reports a smoothed value with its snapshots. The client feeds
 * those reports and its link's RTT, jitter and loss in, calls
 * cs_ticksync_update once per tick, and runs its ticks cs_ticksync_tick_us
 * long: a little longer than nominal to let the lead shrink, a little
 * shorter to let it grow. A large error (a hitch, the start) is fixed at
 * once by a snap: run k extra ticks, or let k tick periods pass without a
 * tick. Pure arithmetic: no clock, no allocation; the struct is the whole
 * state. The method and its numbers are in ticksync.c.
 *
 * What the server should report: the mean earliness of the inputs that
 * arrived since its previous report, and nothing before the first input
 * arrives. A longer smoothing (an exponential average) still converges,
 * but the client sees a hitch later and may leave part of it to dilation.
 */
#ifndef TEMPO_CS_TICKSYNC_H
#define TEMPO_CS_TICKSYNC_H

#include <stdint.h>

#define CS_TICKSYNC_MAX_WINDOW 32 /* reports averaged, at most */
#define CS_TICKSYNC_HISTORY 256   /* ticks of corrections remembered (an RTT up to this) */

typedef struct cs_ticksync_config {
    int frames_per_second;   /* server tick rate, 1..1000; default 60 */
    double max_dilation;     /* largest change of a tick's length, 0..0.25; default 0.05 (5%) */
    double snap_ticks;       /* errors beyond this many ticks snap, 1..1000; default 8 */
    double min_margin_ticks; /* least target earliness, 0..100; default 1 */
    double max_margin_ticks; /* largest target earliness, min_margin_ticks..100; default 10 */
    int window;              /* reports averaged, 1..CS_TICKSYNC_MAX_WINDOW; default 8 */
} cs_ticksync_config;

typedef struct cs_ticksync {
    cs_ticksync_config cfg;
    double margin;             /* target earliness, ticks */
    double rtt_ticks, jitter_ticks, loss;
    double dilation;           /* applies to the tick about to run */
    double applied;            /* sum of every correction made, ticks of earliness */
    double history[CS_TICKSYNC_HISTORY]; /* `applied` at the end of tick t, at t % HISTORY */
    double window[CS_TICKSYNC_MAX_WINDOW]; /* reports minus `applied` when they were sent */
    int reports_held, next_slot;
    double last_report;
    double report_interval;    /* ticks between reports, averaged */
    uint64_t tick;             /* updates so far */
    uint64_t last_report_tick;
    uint64_t hold_until;       /* no snap and no dilation before this tick */
    uint64_t reports, snaps;
} cs_ticksync;

/* Defaults: 60 fps, 5% dilation, snaps beyond 8 ticks, margin 1..10 ticks,
 * a window of 8 reports. */
void cs_ticksync_config_default(cs_ticksync_config *cfg);

/* Start the controller (no reports yet: no dilation, no snap). Fields out of
 * their range are clamped into it; a NULL cfg means the defaults. */
void cs_ticksync_init(cs_ticksync *ts, const cs_ticksync_config *cfg);

/* A report from the server: its smoothed earliness of our inputs, in ticks
 * (may be negative = late). Values beyond +-10 seconds of ticks (so a snap
 * is never longer than that) and non-finite ones are ignored. */
void cs_ticksync_on_report(cs_ticksync *ts, double earliness_ticks);

/* The link's measurements, updated as they change: round-trip time and
 * jitter in ms (negative or non-finite: 0), loss as a fraction 0..1
 * (clamped). Sets the margin: clamp(min + 2 * jitter + loss cover, min, max)
 * in ticks, the loss cover being the longest run of lost input datagrams
 * more likely than 1 in 100. */
void cs_ticksync_on_link(cs_ticksync *ts, double rtt_ms, double jitter_ms, double loss);

/* Once per client tick (before running it): returns the snap to apply now,
 * in ticks: +k: run k extra ticks now; -k: let k tick periods pass without
 * a tick (with a time accumulator: add / subtract k tick periods); 0
 * normally. Updates the dilation for the tick about to run. */
int cs_ticksync_update(cs_ticksync *ts);

/* Current dilation, in [-max_dilation, +max_dilation]; > 0 = ticks longer
 * (the client slows down, its lead shrinks). */
double cs_ticksync_dilation(const cs_ticksync *ts);
/* The length of the tick about to run: 1e6 / fps * (1 + dilation) us, rounded. */
uint64_t cs_ticksync_tick_us(const cs_ticksync *ts);
/* Target earliness, ticks. */
double cs_ticksync_margin(const cs_ticksync *ts);
/* Last reported earliness - margin, ticks (0 before any report). */
double cs_ticksync_error(const cs_ticksync *ts);
/* What the controller steers by: the reports averaged, each corrected by
 * what the client did since the inputs it describes were sent, minus the
 * margin (0 before any report). */
double cs_ticksync_predicted_error(const cs_ticksync *ts);
/* Snaps returned so far. */
uint64_t cs_ticksync_snaps(const cs_ticksync *ts);

#endif /* TEMPO_CS_TICKSYNC_H */
