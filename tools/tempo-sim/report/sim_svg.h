/* SPDX-License-Identifier: MIT */
/*
 * sim_svg.h — the SVG drawing layer of tempo-sim's match report: a plot area
 * mapping data to SVG user units, its grid and axes with nice ticks, lines
 * (decimated, with gaps at NAN), marker glyphs, notes, escaping, and one
 * colour-blind-safe colour per peer. Everything writes to the plot's FILE.
 */
#ifndef TEMPO_SIM_SVG_H
#define TEMPO_SIM_SVG_H

#include <stdbool.h>
#include <stdio.h>

#define SIM_SVG_DESYNC_RED "#D00000"
#define SIM_SVG_COLOURS 9 /* one per machine of a match: 8 players' and a spectator */

/* What a marker on a chart stands for; each kind has its glyph. */
typedef enum sim_marker_kind {
    SIM_MARK_HICCUP = 1,      /* a peer froze, or its clock jumped */
    SIM_MARK_BLACKOUT_START,  /* a link started dropping everything */
    SIM_MARK_BLACKOUT_END,
    SIM_MARK_DISCONNECT,      /* a peer was dropped */
    SIM_MARK_DESYNC,          /* a desync check failed */
    SIM_MARK_DESYNC_CHECK,    /* a desync check passed (drawn faintly) */
    SIM_MARK_INPUT_DELAY      /* automatic input delay changed */
} sim_marker_kind;

/* Most points the report draws for one line, whatever the match length. */
#define SIM_REPORT_MAX_POINTS 1000

/* Choose which samples of v[0..count) to draw so that the picture keeps its
 * shape: the ends of every run of equal values and, when that is still more
 * than max_points, the lowest and highest value of each time bucket (peaks
 * survive). A NAN index stands for a gap (one per run of NANs). Writes at most
 * max_points (>= 3) increasing indices to out; returns how many. */
int sim_report_decimate(const float *v, int count, int max_points, int *out);


/* A plot area and the data domain shown in it. */
typedef struct sim_svg_plot {
    FILE *f;
    double left, top, width, height;   /* plot area, SVG user units */
    double x0, x1, xstep;              /* domain shown left to right, tick step */
    double y0, y1, ystep;              /* domain shown bottom to top, tick step */
    double yscale;                     /* y tick labels show value / yscale */
} sim_svg_plot;

/* Peer `peer`'s line colour (#RRGGBB) and dash pattern (NULL: solid). */
const char *sim_svg_colour(int peer);
const char *sim_svg_dash(int peer);

/* Write `s` (may be NULL) escaped for HTML/SVG text and attribute values. */
void sim_svg_escape(FILE *f, const char *s);

/* A 1, 2 or 5 x 10^k tick step giving about `target` ticks over [lo, hi],
 * at least `min_step`. */
double sim_svg_tick_step(double lo, double hi, int target, double min_step);

/* A plot at the given place with domain [0,1] x [0,1]. */
sim_svg_plot sim_svg_plot_at(FILE *f, double left, double top, double width, double height);
/* The y domain: from min(0, lo) up to the first tick at or above max(hi, min_hi). */
void sim_svg_set_y(sim_svg_plot *p, double lo, double hi, double min_hi, double min_step);
/* The x domain: match time from 0 to t_end seconds. */
void sim_svg_set_time(sim_svg_plot *p, double t_end);
/* Data to SVG user units. */
double sim_svg_x(const sim_svg_plot *p, double x);
double sim_svg_y(const sim_svg_plot *p, double y);

/* Grid lines both ways, y tick labels and the y unit (may be NULL); draw
 * before the data. */
void sim_svg_grid(const sim_svg_plot *p, const char *unit);
/* The x axis line and ticks; labels and `title` (may be NULL) when `labels`. */
void sim_svg_axis_x(const sim_svg_plot *p, bool labels, const char *title);
/* A dashed horizontal line at y = v with `label` at its right end. */
void sim_svg_reference(const sim_svg_plot *p, double v, const char *label);

/* v[0..count) sampled every dt as one path in peer `peer`'s colour, titled
 * `title`: gaps at NAN, at most SIM_REPORT_MAX_POINTS points (scratch holds
 * that many ints). A step series holds each value until the next sample;
 * `nudge` moves the line down by that many units. */
void sim_svg_series(const sim_svg_plot *p, int *scratch, const float *v, int count, double dt,
                    int peer, bool step, double nudge, const char *title);

/* The symbol of marker `kind` (sim_marker_kind) centred at (x, y). */
void sim_svg_glyph(FILE *f, int kind, double x, double y, const char *fill);
/* A small text at (x, y); anchor is "start", "middle" or "end". */
void sim_svg_note(FILE *f, double x, double y, const char *anchor, const char *text);

#endif /* TEMPO_SIM_SVG_H */
