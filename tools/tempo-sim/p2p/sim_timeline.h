/* SPDX-License-Identifier: MIT */
/*
 * sim_timeline.h — what tempo-sim records over a simulated match, for the
 * HTML report (sim_report.c) and the CSV export (sim_csv.c).
 *
 * Series are sampled at a fixed interval of virtual time; each series holds
 * `count` values. Per-link series are indexed [from][to]: what peer `from`
 * measured of peer `to` (NAN where there is no such link). Markers are
 * points in time worth a vertical line on every chart.
 */
#ifndef TEMPO_SIM_TIMELINE_H
#define TEMPO_SIM_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim_svg.h"

#define SIM_MAX_PEERS 9       /* 8 players' machines + 1 spectator */
#define SIM_MAX_DEPTH 65      /* rollback depth histogram: 0..64 */
#define SIM_MAX_MARKERS 256

typedef struct sim_marker {
    double t_s;               /* virtual time, seconds */
    int kind;                 /* sim_marker_kind */
    int peer;                 /* -1: not about one peer */
    char label[48];
} sim_marker;

typedef struct sim_peer_series {
    float *frame_skew;        /* true mean |own frame - others'| at that instant, frames */
    float *input_delay;       /* frames */
    float *rollbacks_per_s;
    float *stalls_per_s;
    float *payload_bytes_per_s; /* bytes this peer sent per second, all links */
    float *frame_advantage;   /* the library's own estimate, frames */
} sim_peer_series;

typedef struct sim_timeline {
    double interval_s;        /* time between samples */
    int count;                /* samples held */
    int capacity;             /* samples allocated per series */
    int peers;                /* peers recorded (players' machines, then spectators) */
    char peer_names[SIM_MAX_PEERS][32];
    bool is_spectator[SIM_MAX_PEERS];
    sim_peer_series peer[SIM_MAX_PEERS];
    float *rtt_ms[SIM_MAX_PEERS][SIM_MAX_PEERS];
    float *loss[SIM_MAX_PEERS][SIM_MAX_PEERS]; /* fraction 0..1 */
    uint64_t depth_hist[SIM_MAX_PEERS][SIM_MAX_DEPTH]; /* rollbacks by depth, whole match */
    sim_marker markers[SIM_MAX_MARKERS];
    int num_markers;
    /* Desync checks passed, counted per sample (sample i covers the time
     * nearest i * interval_s): a long match passes thousands, more than
     * markers[] holds, so sim_timeline_mark counts them here instead. */
    uint32_t *checks_passed;
} sim_timeline;

/* Summary lines shown at the top of the report. */
typedef struct sim_report_meta {
    const char *title;        /* e.g. "4 players and a spectator, transatlantic + mobile, 60 s" */
    const char *scenario;     /* the scenario in text (may be NULL) */
    const char *command;      /* the command line that produced it */
    /* A prepared HTML table of per-peer figures (may be NULL). When given,
     * it is the page's only per-peer table, so no figure appears twice. */
    const char *summary_html;
    double match_s;           /* match length in seconds; 0: the timeline's last sample */
    bool converged;
    uint64_t desyncs;
    /* Hostile traffic: 0 none in the match, 1 all of it refused, 2 some got
     * in or it disturbed the match (a badge; the table is in summary_html). */
    int hostile;
    /* Desync checks made and passed, as the terminal counts them (every
     * machine's, the drain's included); has_checks false: counted from the
     * timeline's markers instead. */
    bool has_checks;
    uint64_t checks_made, checks_passed;
    /* Players and spectators, for the line under the title; players 0:
     * counted from the timeline (every peer that is not a spectator). */
    int players, spectators;
} sim_report_meta;

/* Allocate every series for `peers` peers and `capacity` samples (values NAN).
 * Returns false on allocation failure (everything freed). */
bool sim_timeline_init(sim_timeline *t, int peers, int capacity, double interval_s);
void sim_timeline_free(sim_timeline *t);
/* Append a marker (ignored when full). A SIM_MARK_DESYNC_CHECK is counted in
 * checks_passed at the sample nearest t_s instead (ignored outside capacity),
 * so passed checks never crowd out the markers that matter. */
void sim_timeline_mark(sim_timeline *t, double t_s, int kind, int peer, const char *label);

/* Write a self-contained HTML report (inline SVG charts, no scripts or fonts
 * from the network). Returns 0, or -1 if the file cannot be written. */
int sim_report_write(const sim_timeline *t, const sim_report_meta *meta, const char *path);

/* The report page on f (sim_out's html writer; ctx: a sim_report_ctx). */
typedef struct sim_report_ctx {
    const sim_timeline *t;
    const sim_report_meta *meta;
} sim_report_ctx;
bool sim_report_page(FILE *f, const void *ctx);

/* Write the timeline as CSV: one row per sample, one column per series.
 * Returns 0, or -1 if the file cannot be written. sim_csv_rows writes the
 * same on f (sim_out's csv writer; ctx: the sim_timeline). */
int sim_csv_write(const sim_timeline *t, const char *path);
bool sim_csv_rows(FILE *f, const void *timeline);

#endif /* TEMPO_SIM_TIMELINE_H */
