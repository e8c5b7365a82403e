/* SPDX-License-Identifier: MIT */
/*
 * sim_report.c — the match report: one self-contained HTML page with inline
 * CSS and inline SVG charts drawn here, readable offline and on paper.
 *
 * Invariants: the page loads nothing from anywhere (the only URLs are SVG
 * namespace names); every text that came from outside the report (titles,
 * names, labels, scenario, command) is escaped; every line has at most
 * SIM_REPORT_MAX_POINTS points whatever the match length; each peer keeps one
 * colour on every chart. Sample i of a series is at t = i * interval_s.
 *
 * Layout: the report's view of the timeline (clamped counts, sorted markers),
 * markers and legends on top of the SVG layer (sim_svg.c), one function per
 * chart, then the page.
 */
#include "sim_out.h"
#include "sim_svg.h"
#include "sim_verdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Chart geometry, in SVG user units (the SVG scales to the page width). */
#define SIM_W 960.0
#define SIM_LEFT 72.0
#define SIM_RIGHT 22.0
#define SIM_LANE 22.0        /* marker glyphs sit above the plot, not on the data */
#define SIM_AXIS 42.0        /* tick labels and axis title under a plot */
#define SIM_LEGEND_ROW 20.0
#define SIM_TEXT_W 6.6       /* average width of one character at 12px */

static const char *sim_marker_name(int kind)
{
    switch (kind) {
    case SIM_MARK_HICCUP: return "hiccup";
    case SIM_MARK_BLACKOUT_START: return "blackout";
    case SIM_MARK_BLACKOUT_END: return "blackout end";
    case SIM_MARK_DISCONNECT: return "disconnect";
    case SIM_MARK_DESYNC: return "desync";
    case SIM_MARK_DESYNC_CHECK: return "desync check passed";
    case SIM_MARK_INPUT_DELAY: return "input delay change";
    default: return "event";
    }
}

typedef struct sim_stats {
    int finite;
    double min, max, mean, sum;
} sim_stats;

static sim_stats sim_series_stats(const float *v, int count)
{
    sim_stats s = {0, 0.0, 0.0, 0.0, 0.0};
    for (int i = 0; v != NULL && i < count; i++) {
        if (!isfinite(v[i]))
            continue;
        double x = v[i];
        if (s.finite == 0 || x < s.min)
            s.min = x;
        if (s.finite == 0 || x > s.max)
            s.max = x;
        s.sum += x;
        s.finite++;
    }
    if (s.finite > 0)
        s.mean = s.sum / s.finite;
    return s;
}

/* ---------------------------------------------------------------- the report */

typedef struct sim_report {
    FILE *f;
    const sim_timeline *t;
    int peers;                 /* clamped to 0..SIM_MAX_PEERS */
    int count;                 /* clamped to 0..capacity */
    double dt;                 /* interval_s, or 1 s if it is not a positive number */
    double duration;           /* last sample or marker, seconds */
    double t_end;              /* right edge of every time axis: duration, or 1 s if none */
    sim_marker marks[SIM_MAX_MARKERS]; /* sorted by time */
    int num_marks;
    bool has_kind[SIM_MARK_INPUT_DELAY + 1];
    uint64_t checks;           /* desync checks passed, counted and marked */
    double match_s;            /* the match's length as the simulator measured it, else duration */
    int players;               /* peers that are not spectators */
    sim_verdict verdict[SIM_CHARTS];
    float *smooth;             /* count values: a moving average being drawn */
    int scratch[SIM_REPORT_MAX_POINTS];
} sim_report;

enum { SIM_SKEW, SIM_DELAY, SIM_ROLLBACKS, SIM_STALLS, SIM_PAYLOAD };

static const float *sim_peer_values(const sim_report *r, int peer, int which)
{
    const sim_peer_series *s = &r->t->peer[peer];
    switch (which) {
    case SIM_SKEW: return s->frame_skew;
    case SIM_DELAY: return s->input_delay;
    case SIM_ROLLBACKS: return s->rollbacks_per_s;
    case SIM_STALLS: return s->stalls_per_s;
    default: return s->payload_bytes_per_s;
    }
}

static void sim_peer_label(const sim_report *r, int peer, char *buf, size_t size)
{
    sim_verdict_peer_name(r->t, peer, buf, size);
}

static int sim_marker_order(const void *a, const void *b)
{
    const sim_marker *x = a, *y = b;
    return (x->t_s > y->t_s) - (x->t_s < y->t_s);
}

static void sim_report_prepare(sim_report *r, const sim_timeline *t, const sim_report_meta *meta, FILE *f)
{
    r->f = f;
    r->t = t;
    r->peers = t->peers < 0 ? 0 : t->peers > SIM_MAX_PEERS ? SIM_MAX_PEERS : t->peers;
    r->count = t->count < 0 ? 0 : t->count > t->capacity ? t->capacity : t->count;
    r->dt = isfinite(t->interval_s) && t->interval_s > 0.0 ? t->interval_s : 1.0;
    r->t_end = r->count > 1 ? (r->count - 1) * r->dt : 0.0;
    r->num_marks = 0;
    memset(r->has_kind, 0, sizeof r->has_kind);
    int n = t->num_markers < 0 ? 0 : t->num_markers > SIM_MAX_MARKERS ? SIM_MAX_MARKERS : t->num_markers;
    for (int i = 0; i < n; i++) {
        const sim_marker *m = &t->markers[i];
        if (!isfinite(m->t_s) || m->t_s < 0.0 || m->kind < SIM_MARK_HICCUP || m->kind > SIM_MARK_INPUT_DELAY)
            continue;
        r->marks[r->num_marks] = *m;
        r->marks[r->num_marks].label[sizeof m->label - 1] = '\0';
        r->num_marks++;
        r->has_kind[m->kind] = true;
        if (m->t_s > r->t_end)
            r->t_end = m->t_s;
    }
    qsort(r->marks, (size_t)r->num_marks, sizeof r->marks[0], sim_marker_order);
    r->checks = 0;
    for (int i = 0; i < r->num_marks; i++)
        r->checks += r->marks[i].kind == SIM_MARK_DESYNC_CHECK;
    for (int i = 0; t->checks_passed != NULL && i < r->count; i++)
        r->checks += t->checks_passed[i];
    r->has_kind[SIM_MARK_DESYNC_CHECK] = r->checks > 0;
    r->duration = r->t_end;
    if (!(r->t_end > 0.0))
        r->t_end = 1.0;
    r->match_s = meta != NULL && isfinite(meta->match_s) && meta->match_s > 0.0 ? meta->match_s : r->duration;
    r->players = 0;
    for (int q = 0; q < r->peers; q++)
        r->players += !t->is_spectator[q];
    sim_verdicts_judge(t, r->peers, r->count, r->verdict);
}

/* The end of the blackout that starts at marks[i]: the next end of the same
 * peer (or of any, when either says -1); the match end if none comes. */
static double sim_blackout_end(const sim_report *r, int i)
{
    for (int j = i + 1; j < r->num_marks; j++) {
        const sim_marker *m = &r->marks[j];
        if (m->kind == SIM_MARK_BLACKOUT_END &&
            (m->peer == r->marks[i].peer || m->peer < 0 || r->marks[i].peer < 0))
            return m->t_s;
    }
    return r->t_end;
}

static const char *const sim_marker_line_class[SIM_MARK_INPUT_DELAY + 1] = {
    [SIM_MARK_HICCUP] = "m-hiccup", [SIM_MARK_DISCONNECT] = "m-disc",
    [SIM_MARK_DESYNC] = "m-desync", [SIM_MARK_INPUT_DELAY] = "m-delay",
};

static void sim_marker_title(const sim_report *r, FILE *f, const sim_marker *m, double until)
{
    fputs("<title>", f);
    if (m->kind == SIM_MARK_BLACKOUT_START)
        fprintf(f, "blackout %.2f&#8211;%.2f s", m->t_s, until);
    else
        fprintf(f, "%.2f s: %s", m->t_s, sim_marker_name(m->kind));
    if (m->peer >= 0 && m->peer < r->peers) {
        char name[64];
        sim_peer_label(r, m->peer, name, sizeof name);
        fputs(", ", f);
        sim_svg_escape(f, name);
    }
    if (m->label[0] != '\0') {
        fputs(": ", f);
        sim_svg_escape(f, m->label);
    }
    fputs("</title>", f);
}

/* A passed desync check: a faint tick in a rug along the top of the lane;
 * one per unit column, as more would draw the same pixels. */
static void sim_check_tick(const sim_svg_plot *p, double x, int *last_px)
{
    if ((int)x == *last_px)
        return;
    *last_px = (int)x;
    fprintf(p->f, "<line class=\"check\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
            x, x, p->top - SIM_LANE, p->top - SIM_LANE + 4.0);
}

/* Every marker on a time plot: blackout bands, lines, and when `lane` their
 * glyphs in the lane above the plot with passed checks as a faint rug over
 * them (one tick per unit column at most). Drawn before the data. */
static void sim_chart_markers(const sim_report *r, const sim_svg_plot *p, bool lane)
{
    FILE *f = p->f;
    double top = p->top - (lane ? SIM_LANE : 0.0), bottom = p->top + p->height;
    int last_check_px = -1;
    for (int i = 0; i < r->num_marks; i++) {
        const sim_marker *m = &r->marks[i];
        double x = sim_svg_x(p, m->t_s);
        const char *fill = m->peer >= 0 && m->peer < r->peers ? sim_svg_colour(m->peer) : "#FFFFFF";
        switch (m->kind) {
        case SIM_MARK_BLACKOUT_START: {
            double until = sim_blackout_end(r, i);
            double w = sim_svg_x(p, until) - x;
            fputs("<g>", f);
            sim_marker_title(r, f, m, until);
            fprintf(f, "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
                    x, top, w > 1.0 ? w : 1.0, bottom - top);
            if (lane && w > 60.0)
                fprintf(f, "<text class=\"bandlabel\" x=\"%.1f\" y=\"%.1f\">blackout</text>", x + 4.0, top + 11.0);
            fputs("</g>\n", f);
            break;
        }
        case SIM_MARK_BLACKOUT_END:
            break;
        case SIM_MARK_DESYNC_CHECK:
            if (lane)
                sim_check_tick(p, x, &last_check_px);
            break;
        default:
            fputs("<g>", f);
            sim_marker_title(r, f, m, m->t_s);
            fprintf(f, "<line class=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                    sim_marker_line_class[m->kind], x, x, top, bottom);
            if (lane)
                sim_svg_glyph(f, m->kind, x, p->top - 11.0, fill);
            fputs("</g>\n", f);
            break;
        }
    }
    const uint32_t *checks = r->t->checks_passed;
    last_check_px = -1;
    for (int i = 0; lane && checks != NULL && i < r->count; i++) {
        if (checks[i] > 0)
            sim_check_tick(p, sim_svg_x(p, i * r->dt), &last_check_px);
    }
}

/* Which peers a legend lists. */
enum { SIM_LEGEND_NO_PEERS, SIM_LEGEND_PLAYERS, SIM_LEGEND_ALL };

/* The legend: one item per peer `who` names, then one per kind of marker
 * present (when `markers`). Wraps to rows; returns its height. Draws only
 * when `draw`. */
static double sim_chart_legend(const sim_report *r, double top, int who, bool markers, bool draw)
{
    FILE *f = r->f;
    double x = SIM_LEFT, y = top + SIM_LEGEND_ROW / 2.0;
    static const int kinds[] = {SIM_MARK_BLACKOUT_START, SIM_MARK_HICCUP, SIM_MARK_DISCONNECT,
                                SIM_MARK_INPUT_DELAY, SIM_MARK_DESYNC, SIM_MARK_DESYNC_CHECK};
    int items = r->peers + (markers ? (int)(sizeof kinds / sizeof kinds[0]) : 0);
    for (int i = 0; i < items; i++) {
        char text[64];
        int kind = 0;
        if (i < r->peers) {
            if (who == SIM_LEGEND_NO_PEERS || (who == SIM_LEGEND_PLAYERS && r->t->is_spectator[i]))
                continue;
            sim_peer_label(r, i, text, sizeof text);
        } else {
            kind = kinds[i - r->peers];
            if (!r->has_kind[kind])
                continue;
            snprintf(text, sizeof text, "%s", sim_marker_name(kind));
        }
        double w = 30.0 + SIM_TEXT_W * (double)strlen(text) + 18.0;
        if (x + w > SIM_W - SIM_RIGHT && x > SIM_LEFT) {
            x = SIM_LEFT;
            y += SIM_LEGEND_ROW;
        }
        if (draw) {
            if (i < r->peers) {
                fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"",
                        x, x + 22.0, y, y, sim_svg_colour(i));
                if (sim_svg_dash(i) != NULL)
                    fprintf(f, " stroke-dasharray=\"%s\"", sim_svg_dash(i));
                fputs("/>", f);
            } else {
                sim_svg_glyph(f, kind, x + 11.0, y, "#FFFFFF");
                if (kind == SIM_MARK_DESYNC)
                    fprintf(f, "<line class=\"m-desync\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                            x + 19.0, x + 19.0, y - 7.0, y + 7.0);
            }
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + 28.0, y + 4.0);
            sim_svg_escape(f, text);
            fputs("</text>\n", f);
        }
        x += w;
    }
    return y + SIM_LEGEND_ROW / 2.0 - top;
}

/* A chart's heading with its verdict, what it shows, its "good" line and the
 * numbers that decided the verdict, then the SVG. `what` is trusted HTML. */
static void sim_chart_open(const sim_report *r, const char *id, int chart, const char *title,
                           const char *what, double height)
{
    const sim_verdict *v = &r->verdict[chart];
    int k = v->kind >= SIM_VERDICT_NONE && v->kind <= SIM_VERDICT_MISSES ? v->kind : SIM_VERDICT_NONE;
    fprintf(r->f, "<section class=\"chart\">\n<h2>%s <span class=\"badge %s\">%s</span></h2>\n"
            "<p class=\"good\">%s <b>Good:</b> ", title, sim_verdict_class[k], sim_verdict_word[k], what);
    sim_svg_escape(r->f, v->good);
    fprintf(r->f, "</p>\n<p class=\"verdict %s\"><b>%s%s:</b> ", sim_verdict_class[k],
            k == SIM_VERDICT_NONE ? "" : "This match ", sim_verdict_word[k]);
    sim_svg_escape(r->f, v->numbers);
    fprintf(r->f, "</p>\n<svg id=\"%s\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
            "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"%s\">\n", id, SIM_W, ceil(height), title);
}

static void sim_chart_close(const sim_report *r)
{
    fputs("</svg>\n</section>\n", r->f);
}

/* ---------------------------------------------------------------- charts */

/* One plot of a time chart: a series per peer over the whole match. */
typedef struct sim_panel {
    int which;                 /* SIM_SKEW, ... */
    const char *unit;          /* y axis title */
    double height;
    bool step;                 /* values hold until the next sample */
    bool integer;              /* whole-number ticks */
    bool players_only;         /* spectators have no such series */
    double min_hi;             /* the axis reaches at least this */
    double ref;                /* dashed reference line; 0: none */
    const char *ref_label;
    bool bytes;                /* shown in kB/s when large */
} sim_panel;

static bool sim_panel_shows(const sim_report *r, const sim_panel *pn, int peer)
{
    return !(pn->players_only && r->t->is_spectator[peer]);
}

static void sim_time_panel(sim_report *r, double top, const sim_panel *pn)
{
    sim_svg_plot p = sim_svg_plot_at(r->f, SIM_LEFT, top, SIM_W - SIM_LEFT - SIM_RIGHT, pn->height);
    double lo = 0.0, hi = 0.0;
    int shown = 0;
    for (int q = 0; q < r->peers; q++) {
        sim_stats s = sim_series_stats(sim_peer_values(r, q, pn->which), r->count);
        if (sim_panel_shows(r, pn, q) && s.finite > 0) {
            lo = s.min < lo ? s.min : lo;
            hi = s.max > hi ? s.max : hi;
        }
        shown += sim_panel_shows(r, pn, q);
    }
    const char *unit = pn->unit;
    if (pn->bytes && hi >= 10000.0) {
        p.yscale = 1000.0;
        unit = "kB/s";
    }
    sim_svg_set_time(&p, r->t_end);
    sim_svg_set_y(&p, lo, hi, pn->min_hi, pn->integer ? 1.0 : 0.0);
    sim_svg_grid(&p, unit);
    sim_chart_markers(r, &p, true);
    /* step lines of equal value would hide each other: spread them a little */
    double spread = shown > 1 ? 14.0 / (shown - 1) : 0.0;
    spread = pn->step ? (spread < 2.5 ? spread : 2.5) : 0.0;
    bool any = false;
    for (int q = 0, k = 0; q < r->peers; q++) {
        if (!sim_panel_shows(r, pn, q))
            continue;
        const float *v = sim_peer_values(r, q, pn->which);
        char name[64];
        sim_peer_label(r, q, name, sizeof name);
        sim_svg_series(&p, r->scratch, v, r->count, r->dt, q, pn->step, (k - (shown - 1) / 2.0) * spread, name);
        any = any || sim_series_stats(v, r->count).finite > 0;
        k++;
    }
    /* the reference goes over the data so its label stays readable */
    if (pn->ref > 0.0)
        sim_svg_reference(&p, pn->ref, pn->ref_label);
    if (!any)
        sim_svg_note(r->f, p.left + p.width / 2.0, p.top + p.height / 2.0, "middle", "no samples");
    sim_svg_axis_x(&p, true, "match time (s)");
}

/* A time chart of one panel: legend, marker lane, plot. */
static void sim_chart_time(sim_report *r, const char *id, int chart, const char *title, const char *what,
                           const sim_panel *pn)
{
    int who = pn->players_only ? SIM_LEGEND_PLAYERS : SIM_LEGEND_ALL;
    double legend = sim_chart_legend(r, 4.0, who, true, false);
    double top = 4.0 + legend + 6.0 + SIM_LANE;
    sim_chart_open(r, id, chart, title, what, top + pn->height + SIM_AXIS + 4.0);
    sim_chart_legend(r, 4.0, who, true, true);
    sim_time_panel(r, top, pn);
    sim_chart_close(r);
}

static void sim_chart_skew(sim_report *r)
{
    const sim_panel p = {SIM_SKEW, "frames", 220.0, false, false, true, 2.0, SIM_GOOD_SKEW_FRAMES,
                         "1 frame", false};
    sim_chart_time(r, "chart-skew", SIM_CHART_SKEW, "True frame skew per peer",
                   "How far each player's frame is from the others', measured from outside.", &p);
}

static void sim_chart_delay(sim_report *r)
{
    const sim_panel p = {SIM_DELAY, "frames", 170.0, true, true, true, 3.0, 0.0, NULL, false};
    sim_chart_time(r, "chart-delay", SIM_CHART_DELAY, "Input delay per peer",
                   "Frames between pressing a button and the frame it lands on (equal lines are "
                   "drawn a pixel or two apart).", &p);
}

static void sim_chart_payload(sim_report *r)
{
    const sim_panel p = {SIM_PAYLOAD, "bytes/s", 170.0, false, false, false, 100.0, 0.0, NULL, true};
    sim_chart_time(r, "chart-payload", SIM_CHART_PAYLOAD, "Payload sent per peer",
                   "Bytes each peer sent per second over all its links.", &p);
}

/* ------------------------------------------------- rollbacks and stalls */

#define SIM_CAPTION 20.0       /* a caption row above a group of lanes */
#define SIM_LANE_H 46.0        /* one player's lane */
#define SIM_LANE_GAP 14.0      /* keeps one lane's "0" clear of the next one's top label */
#define SIM_SMOOTH_S 2.0       /* the moving average's window */

/* v[0..count) averaged over SIM_SMOOTH_S centred on each sample, into out;
 * NAN where the window holds no finite value. Running sums keep it linear. */
static void sim_smooth(const float *v, int count, double dt, float *out)
{
    int half = (int)floor(SIM_SMOOTH_S / dt / 2.0 + 0.5);
    double sum = 0.0;
    int n = 0;
    for (int i = 0; i < count && i <= half; i++)
        if (isfinite(v[i]))
            sum += v[i], n++;
    for (int i = 0; i < count; i++) {
        out[i] = n > 0 ? (float)(sum / n) : NAN;
        int add = i + half + 1, drop = i - half;
        if (add < count && isfinite(v[add]))
            sum += v[add], n++;
        if (drop >= 0 && isfinite(v[drop]))
            sum -= v[drop], n--;
    }
}

/* Rollbacks and stalls as small multiples: per rate a group of lanes, one
 * per player, on one time axis and one scale per group, each line the
 * 2-second moving average. Four noisy lines in one plot hide one another;
 * a lane each shows every player's level and bursts at a glance. */
static void sim_chart_rate(sim_report *r)
{
    static const struct { int which; const char *caption; } groups[2] = {
        {SIM_ROLLBACKS, "Rollbacks per second"},
        {SIM_STALLS, "Stalls per second"},
    };
    int lanes = r->players > 0 ? r->players : 1;
    double legend = sim_chart_legend(r, 4.0, SIM_LEGEND_NO_PEERS, true, false);
    double top = 4.0 + legend + 6.0;
    double group_h = SIM_CAPTION + lanes * (SIM_LANE_H + SIM_LANE_GAP);
    char what[160];
    snprintf(what, sizeof what, "One lane per player, each line a %.0f-second moving average; "
             "lanes of a group share one scale.", SIM_SMOOTH_S);
    sim_chart_open(r, "chart-rate", SIM_CHART_RATE, "Rollbacks and stalls over time", what,
                   top + SIM_LANE + 2 * group_h + SIM_AXIS);
    sim_chart_legend(r, 4.0, SIM_LEGEND_NO_PEERS, true, true);
    double y = top;
    for (int g = 0; g < 2; g++) {
        double hi = 0.0;
        for (int q = 0; q < r->peers; q++) {
            const float *v = sim_peer_values(r, q, groups[g].which);
            if (r->t->is_spectator[q] || v == NULL)
                continue;
            sim_smooth(v, r->count, r->dt, r->smooth);
            sim_stats s = sim_series_stats(r->smooth, r->count);
            hi = s.finite > 0 && s.max > hi ? s.max : hi;
        }
        fprintf(r->f, "<text class=\"caption\" x=\"%.1f\" y=\"%.1f\">%s (%.0f-s average)</text>\n",
                SIM_LEFT, y + SIM_CAPTION - 6.0, groups[g].caption, SIM_SMOOTH_S);
        y += SIM_CAPTION + (g == 0 ? SIM_LANE : 0.0);   /* the markers' lane under the first caption */
        int lane = 0;
        for (int q = 0; q < r->peers || (r->players == 0 && lane == 0); q++) {
            if (q < r->peers && r->t->is_spectator[q])
                continue;
            sim_svg_plot p = sim_svg_plot_at(r->f, SIM_LEFT, y, SIM_W - SIM_LEFT - SIM_RIGHT, SIM_LANE_H);
            sim_svg_set_time(&p, r->t_end);
            sim_svg_set_y(&p, 0.0, hi, 1.0, 0.0);
            /* two steps per lane, so a label sits at the middle and the top */
            if ((int)floor((p.y1 - p.y0) / p.ystep + 0.5) % 2 != 0)
                p.y1 += p.ystep;
            p.ystep = (p.y1 - p.y0) / 2.0;
            sim_svg_grid(&p, NULL);
            sim_chart_markers(r, &p, g == 0 && lane == 0);
            if (q < r->peers) {
                char name[64];
                sim_peer_label(r, q, name, sizeof name);
                sim_smooth(sim_peer_values(r, q, groups[g].which), r->count, r->dt, r->smooth);
                sim_svg_series(&p, r->scratch, r->smooth, r->count, r->dt, q, false, 0.0, name);
                fprintf(r->f, "<text class=\"lanelabel\" x=\"%.1f\" y=\"%.1f\">", p.left + 6.0, p.top + 12.0);
                sim_svg_escape(r->f, name);
                fputs("</text>\n", r->f);
            } else {
                sim_svg_note(r->f, p.left + p.width / 2.0, p.top + p.height / 2.0, "middle", "no players");
            }
            bool last = g == 1 && lane == lanes - 1;
            sim_svg_axis_x(&p, last, last ? "match time (s)" : NULL);
            y += SIM_LANE_H + SIM_LANE_GAP;
            lane++;
        }
    }
    sim_chart_close(r);
}

/* Grid for small multiples: columns for n panels. */
static int sim_columns(int n)
{
    return n <= 1 ? 1 : n <= 4 ? 2 : 3;
}

static void sim_chart_depth(sim_report *r)
{
    const sim_timeline *t = r->t;
    int deepest = 0;
    uint64_t most = 0;
    for (int q = 0; q < r->peers; q++) {
        for (int d = 0; d < SIM_MAX_DEPTH; d++) {
            if (t->depth_hist[q][d] > 0 && d > deepest)
                deepest = d;
            if (t->depth_hist[q][d] > most)
                most = t->depth_hist[q][d];
        }
    }
    /* spectators never roll back: a panel each would only ever be empty */
    int n = r->players > 0 ? r->players : 1;
    int cols = sim_columns(n), rows = (n + cols - 1) / cols;
    double cell_w = (SIM_W - 8.0) / cols, cell_h = 44.0 + 130.0 + SIM_AXIS + 10.0;
    char what[160];
    snprintf(what, sizeof what, "How many frames each rollback replayed, over the whole match, one "
             "panel per player (the shaded band is 0&#8211;%d frames).", SIM_GOOD_DEPTH_FRAMES);
    sim_chart_open(r, "chart-depth", SIM_CHART_DEPTH, "Rollback depth per player", what, rows * cell_h + 4.0);
    for (int q = 0, cell = 0; q < r->peers; q++) {
        if (t->is_spectator[q])
            continue;
        double left = 8.0 + (cell % cols) * cell_w, top = 4.0 + (cell / cols) * cell_h;
        cell++;
        sim_svg_plot p = sim_svg_plot_at(r->f, left + 54.0, top + 44.0, cell_w - 54.0 - 14.0, 130.0);
        p.x0 = -0.5;
        p.x1 = (deepest < 8 ? 8 : deepest) + 0.5;
        p.xstep = sim_svg_tick_step(0.0, p.x1, 6, 1.0);
        sim_svg_set_y(&p, 0.0, (double)most, 1.0, 1.0);
        uint64_t total = 0, shallow = 0;
        int max_depth = 0;
        for (int d = 0; d < SIM_MAX_DEPTH; d++) {
            total += t->depth_hist[q][d];
            shallow += d <= SIM_GOOD_DEPTH_FRAMES ? t->depth_hist[q][d] : 0;
            max_depth = t->depth_hist[q][d] > 0 ? d : max_depth;
        }
        char name[64], note[96];
        sim_peer_label(r, q, name, sizeof name);
        fprintf(r->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                "<text class=\"caption\" x=\"%.1f\" y=\"%.1f\">", left + 8.0, top + 4.0,
                sim_svg_colour(q), left + 26.0, top + 14.0);
        sim_svg_escape(r->f, name);
        fputs("</text>\n", r->f);
        fprintf(r->f, "<rect class=\"goodband\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
                sim_svg_x(&p, -0.5), p.top, sim_svg_x(&p, SIM_GOOD_DEPTH_FRAMES + 0.5) - sim_svg_x(&p, -0.5),
                p.height);
        sim_svg_grid(&p, "rollbacks");
        for (int d = 0; d < SIM_MAX_DEPTH && d <= p.x1; d++) {
            uint64_t c = t->depth_hist[q][d];
            if (c == 0)
                continue;
            double x0 = sim_svg_x(&p, d - 0.4), x1 = sim_svg_x(&p, d + 0.4), y = sim_svg_y(&p, (double)c);
            double h = p.top + p.height - y;
            if (h < 1.0) {                      /* a rare depth stays visible */
                h = 1.0;
                y = p.top + p.height - 1.0;
            }
            fprintf(r->f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                    "<title>depth %d: %llu rollbacks</title></rect>\n",
                    x0, y, x1 - x0, h, sim_svg_colour(q), d, (unsigned long long)c);
        }
        if (total > 0)
            snprintf(note, sizeof note, "%llu rollbacks \xC2\xB7 %d%% within 0\xE2\x80\x93%d \xC2\xB7 deepest %d",
                     (unsigned long long)total, sim_pct_rounded(shallow, total), SIM_GOOD_DEPTH_FRAMES,
                     max_depth);
        else
            snprintf(note, sizeof note, "no rollbacks");
        sim_svg_note(r->f, left + 26.0, top + 30.0, "start", note);
        sim_svg_axis_x(&p, true, "rollback depth (frames)");
    }
    if (r->players == 0)
        sim_svg_note(r->f, SIM_W / 2.0, 40.0, "middle", "no players");
    sim_chart_close(r);
}

/* Whether peer `a` measured anything of any other peer. */
static bool sim_has_links(const sim_report *r, int a)
{
    for (int b = 0; b < r->peers; b++) {
        if (b != a && sim_series_stats(r->t->rtt_ms[a][b], r->count).finite > 0)
            return true;
    }
    return false;
}

static void sim_chart_link(sim_report *r)
{
    const sim_timeline *t = r->t;
    int from[SIM_MAX_PEERS], n = 0;
    double rtt_hi = 0.0, loss_hi = 0.0;
    for (int a = 0; a < r->peers; a++) {
        if (!sim_has_links(r, a))
            continue;
        from[n++] = a;
        for (int b = 0; b < r->peers; b++) {
            if (b == a)
                continue;
            sim_stats rs = sim_series_stats(t->rtt_ms[a][b], r->count);
            sim_stats ls = sim_series_stats(t->loss[a][b], r->count);
            rtt_hi = rs.finite > 0 && rs.max > rtt_hi ? rs.max : rtt_hi;
            loss_hi = ls.finite > 0 && ls.max > loss_hi ? ls.max : loss_hi;
        }
    }
    int cols = sim_columns(n > 0 ? n : 1), rows = (n + cols - 1) / cols;
    double legend = sim_chart_legend(r, 4.0, SIM_LEGEND_ALL, true, false);
    double cell_w = (SIM_W - 8.0) / cols, cell_h = 18.0 + SIM_LANE + 120.0 + 10.0 + 60.0 + SIM_AXIS + 14.0;
    double top0 = 4.0 + legend + 8.0;
    sim_chart_open(r, "chart-link", SIM_CHART_LINK, "Round-trip time and loss per link",
                   "One panel per measuring peer; line colour is the peer measured.",
                   top0 + (rows > 0 ? rows * cell_h : 60.0));
    sim_chart_legend(r, 4.0, SIM_LEGEND_ALL, true, true);
    for (int i = 0; i < n; i++) {
        int a = from[i];
        double left = 8.0 + (i % cols) * cell_w, top = top0 + (i / cols) * cell_h;
        char name[64], caption[96];
        sim_peer_label(r, a, name, sizeof name);
        snprintf(caption, sizeof caption, "measured by %s", name);
        fprintf(r->f, "<text class=\"caption\" x=\"%.1f\" y=\"%.1f\">", left + 58.0, top + 12.0);
        sim_svg_escape(r->f, caption);
        fputs("</text>\n", r->f);
        sim_svg_plot rp = sim_svg_plot_at(r->f, left + 58.0, top + 18.0 + SIM_LANE, cell_w - 58.0 - 14.0, 120.0);
        sim_svg_plot lp = sim_svg_plot_at(r->f, rp.left, rp.top + rp.height + 10.0, rp.width, 60.0);
        sim_svg_set_time(&rp, r->t_end);
        sim_svg_set_time(&lp, r->t_end);
        sim_svg_set_y(&rp, 0.0, rtt_hi, 10.0, 0.0);
        sim_svg_set_y(&lp, 0.0, loss_hi, 0.01, 0.0);
        lp.yscale = 0.01;
        sim_svg_grid(&rp, "RTT (ms)");
        sim_svg_grid(&lp, "loss (%)");
        sim_chart_markers(r, &rp, true);
        sim_chart_markers(r, &lp, false);
        for (int b = 0; b < r->peers; b++) {
            if (b == a)
                continue;
            char to[64], title[160];
            sim_peer_label(r, b, to, sizeof to);
            snprintf(title, sizeof title, "%s \xE2\x86\x92 %s", name, to);
            sim_svg_series(&rp, r->scratch, t->rtt_ms[a][b], r->count, r->dt, b, false, 0.0, title);
            sim_svg_series(&lp, r->scratch, t->loss[a][b], r->count, r->dt, b, false, 0.0, title);
        }
        sim_svg_axis_x(&rp, false, NULL);
        sim_svg_axis_x(&lp, true, "match time (s)");
    }
    if (n == 0)
        sim_svg_note(r->f, SIM_W / 2.0, top0 + 30.0, "middle", "no link measurements");
    sim_chart_close(r);
}

/* ---------------------------------------------------------------- page */

static const char sim_css[] =
    ":root{color-scheme:light}\n"
    "body{margin:0;background:#fff;color:#1f2328;font:15px/1.45 system-ui,-apple-system,'Segoe UI',"
    "Roboto,'Helvetica Neue',Arial,sans-serif}\n"
    "main{max-width:1180px;margin:0 auto;padding:24px 20px 48px}\n"
    "h1{font-size:26px;margin:0 0 10px}h2{font-size:18px;margin:0}h3{font-size:15px;margin:18px 0 4px}\n"
    ".badges{margin:0 0 8px}.badge{display:inline-block;padding:2px 12px;margin-right:8px;border-radius:12px;"
    "border:1px solid;font-weight:600;font-size:13px;text-decoration:none}\n"
    "h2 .badge{vertical-align:3px;margin:0 0 0 10px;font-size:12px}\n"
    ".ok{background:#e6f4ea;color:#0b5b2a;border-color:#8fc7a1}.bad{background:#fdeaea;color:#9f0d0d;"
    "border-color:#e39a9a}.warn{background:#fff3dc;color:#6b4300;border-color:#e2bd72}\n"
    ".none{background:#f5f6f8;color:#4a4f55;border-color:#c9ccd1}\n"
    ".facts{color:#444;margin:0 0 10px}\n"
    /* a table wider than the page scrolls inside its box; headings wrap first */
    ".wide{max-width:100%;overflow-x:auto;margin:6px 0 10px}\n"
    "table{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}\n"
    "th,td{padding:4px 8px;border-bottom:1px solid #e2e4e8;text-align:right;white-space:nowrap}\n"
    "th{vertical-align:bottom;line-height:1.25;white-space:normal;min-width:4em}\n"
    "th{background:#f5f6f8;font-weight:600}th:first-child,td:first-child{text-align:left}\n"
    "pre{background:#f5f6f8;border:1px solid #e2e4e8;border-radius:4px;padding:8px 10px;margin:4px 0;"
    "white-space:pre-wrap;word-break:break-word;font-size:12.5px}\n"
    "details{margin:10px 0}summary{cursor:pointer;font-weight:600}\n"
    "nav{font-size:13px;margin:14px 0 0;color:#555}nav a{color:#0a58a3;margin-right:4px}\n"
    "nav span{margin-right:16px}nav .ok{color:#0b5b2a;background:none}nav .bad{color:#9f0d0d;background:none}\n"
    "section.chart{margin:30px 0 0;break-inside:avoid;page-break-inside:avoid}\n"
    ".good{margin:4px 0 2px;color:#4a4f55;font-size:13.5px}\n"
    "p.verdict{margin:0 0 6px;font-size:13.5px;padding:3px 8px;border-left:4px solid}\n"
    "p.verdict.ok{background:#f1f8f3;border-color:#3d9a5d;color:#0b4020}"
    "p.verdict.bad{background:#fdf1f1;border-color:#c43c3c;color:#6e0b0b}"
    "p.verdict.none{background:#f5f6f8;border-color:#9aa0a6;color:#33373c}\n"
    "svg.chart{display:block;width:100%;height:auto}\n"
    "svg text{font-size:12px;fill:#2b2f33}svg .tick{font-size:11px;fill:#5a5f66}\n"
    "svg .unit{font-size:12px;fill:#4a4f55}svg .caption{font-size:13px;font-weight:600}\n"
    "svg .note{font-size:11.5px;fill:#4a4f55}svg .reflabel{font-size:11px;fill:#444}\n"
    "svg .bandlabel{font-size:10.5px;fill:#555}svg .lanelabel{font-size:12px;font-weight:600}\n"
    /* labels drawn over data keep a white halo */
    "svg .reflabel,svg .lanelabel{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}\n"
    "svg .grid{stroke:#e8e9ec}svg .vgrid{stroke:#f2f3f5}svg .axis{stroke:#8a8f96}\n"
    "svg .series{fill:none;stroke-width:1.8;stroke-linejoin:round;stroke-linecap:round}\n"
    "svg .ref{stroke:#555;stroke-width:1;stroke-dasharray:5 4}\n"
    "svg .band{fill:#5a5f66;fill-opacity:.13}svg .goodband{fill:#e4eef8}\n"
    "svg .check{stroke:#9aa0a6;stroke-width:1;stroke-opacity:.7}\n"
    "svg .m-hiccup{stroke:#6b7078;stroke-dasharray:4 3}svg .m-disc{stroke:#222;stroke-width:1.5}\n"
    "svg .m-desync{stroke:" SIM_SVG_DESYNC_RED ";stroke-width:2}svg .m-delay{stroke:#9aa0a6;stroke-dasharray:1 3}\n"
    "svg .glyph{stroke:#333;stroke-width:.8}svg .glyph-x{stroke:#222;stroke-width:2;fill:none}\n"
    "footer{margin-top:28px;color:#777;font-size:12px}\n"
    "@media print{body{font-size:10.5pt}main{max-width:none;padding:0}nav{display:none}"
    "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}@page{margin:12mm}}\n";

/* Open every <details> before printing, so the scenario reaches paper. */
static const char sim_script[] =
    "addEventListener('beforeprint',function(){"
    "document.querySelectorAll('details').forEach(function(d){d.open=true;});});";

static void sim_fmt(char *buf, size_t size, const sim_stats *s, double v, const char *format)
{
    if (s->finite == 0)
        snprintf(buf, size, "&#8211;");
    else
        snprintf(buf, size, format, v);
}

/* The per-peer table computed from the timeline itself, for a page that was
 * given no table of the simulator's own. */
static void sim_peer_table(const sim_report *r)
{
    FILE *f = r->f;
    double dt = r->dt;
    fputs("<h3>Per peer</h3>\n<div class=\"wide\"><table>\n<tr><th>peer</th><th>skew mean<br>(frames)</th>"
          "<th>skew max<br>(frames)</th><th>input delay<br>(frames)</th><th>rollbacks</th>"
          "<th>depth 0&#8211;3<br>(share)</th><th>deepest<br>(frames)</th><th>stalls</th>"
          "<th>payload mean<br>(bytes/s)</th></tr>\n", f);
    for (int q = 0; q < r->peers; q++) {
        const sim_peer_series *ps = &r->t->peer[q];
        sim_stats skew = sim_series_stats(ps->frame_skew, r->count);
        sim_stats delay = sim_series_stats(ps->input_delay, r->count);
        sim_stats stalls = sim_series_stats(ps->stalls_per_s, r->count);
        sim_stats pay = sim_series_stats(ps->payload_bytes_per_s, r->count);
        uint64_t total = 0, shallow = 0;
        int deepest = -1;
        for (int d = 0; d < SIM_MAX_DEPTH; d++) {
            uint64_t c = r->t->depth_hist[q][d];
            total += c;
            shallow += d <= SIM_GOOD_DEPTH_FRAMES ? c : 0;
            deepest = c > 0 ? d : deepest;
        }
        char name[64], c1[32], c2[32], c3[48], c4[32], c5[32], c6[32];
        sim_peer_label(r, q, name, sizeof name);
        sim_fmt(c1, sizeof c1, &skew, skew.mean, "%.2f");
        sim_fmt(c2, sizeof c2, &skew, skew.max, "%.2f");
        if (delay.finite > 0 && delay.min != delay.max)
            snprintf(c3, sizeof c3, "%.0f&#8211;%.0f", delay.min, delay.max);
        else
            sim_fmt(c3, sizeof c3, &delay, delay.min, "%.0f");
        sim_fmt(c4, sizeof c4, &stalls, stalls.sum * dt, "%.0f");
        sim_fmt(c5, sizeof c5, &pay, pay.mean, "%.0f");
        if (total > 0)
            snprintf(c6, sizeof c6, "%d%%", sim_pct_rounded(shallow, total));
        else
            snprintf(c6, sizeof c6, "&#8211;");
        fprintf(f, "<tr><td><svg class=\"swatch\" width=\"12\" height=\"12\" viewBox=\"0 0 12 12\">"
                "<rect width=\"12\" height=\"12\" fill=\"%s\"/></svg> ", sim_svg_colour(q));
        sim_svg_escape(f, name);
        fprintf(f, "</td><td>%s</td><td>%s</td><td>%s</td><td>%llu</td><td>%s</td><td>", c1, c2, c3,
                (unsigned long long)total, c6);
        if (deepest >= 0)
            fprintf(f, "%d", deepest);
        else
            fputs("&#8211;", f);
        fprintf(f, "</td><td>%s</td><td>%s</td></tr>\n", c4, c5);
    }
    fputs("</table></div>\n", f);
}


/* " · 3 events (input delay changed 3 times), marked on the charts": what
 * the markers are, by kind, so the count explains itself. */
static void sim_report_events(const sim_report *r)
{
    static const char *const what[SIM_MARK_INPUT_DELAY + 1] = {
        [SIM_MARK_HICCUP] = "a machine froze or its clock jumped",
        [SIM_MARK_BLACKOUT_START] = "a link went dark",
        [SIM_MARK_DISCONNECT] = "a machine was dropped",
        [SIM_MARK_DESYNC] = "a desync check failed",
        [SIM_MARK_INPUT_DELAY] = "input delay changed",
    };
    int by_kind[SIM_MARK_INPUT_DELAY + 1] = {0}, events = 0;
    for (int i = 0; i < r->num_marks; i++)
        if (r->marks[i].kind != SIM_MARK_DESYNC_CHECK && r->marks[i].kind != SIM_MARK_BLACKOUT_END) {
            by_kind[r->marks[i].kind]++;
            events++;
        }
    fprintf(r->f, " &#183; %d event%s", events, events == 1 ? "" : "s");
    if (events == 0)
        return;
    const char *sep = " (";
    for (int k = 0; k <= SIM_MARK_INPUT_DELAY; k++)
        if (by_kind[k] > 0 && what[k] != NULL) {
            fprintf(r->f, "%s%s", sep, what[k]);
            if (by_kind[k] > 1)
                fprintf(r->f, " %d times", by_kind[k]);
            sep = "; ";
        }
    fputs("), marked on the charts", r->f);
}

static void sim_page_head(const sim_report *r, const sim_report_meta *meta)
{
    FILE *f = r->f;
    const char *title = meta != NULL && meta->title != NULL ? meta->title : "tempo-sim match";
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
    sim_svg_escape(f, title);
    fprintf(f, " &#8211; tempo-sim report</title>\n<style>\n%s</style>\n<script>%s</script>\n</head>\n"
            "<body>\n<main>\n<h1>", sim_css, sim_script);
    sim_svg_escape(f, title);
    fputs("</h1>\n<div class=\"badges\">", f);
    if (meta != NULL) {
        fprintf(f, "<span class=\"badge %s\">%s</span>", meta->converged ? "ok" : "warn",
                meta->converged ? "converged" : "did not converge");
        fprintf(f, "<span class=\"badge %s\">%llu desync%s</span>", meta->desyncs == 0 ? "ok" : "bad",
                (unsigned long long)meta->desyncs, meta->desyncs == 1 ? "" : "s");
        if (meta->hostile)
            fprintf(f, "<span class=\"badge %s\">%s</span>", meta->hostile == 1 ? "ok" : "bad",
                    meta->hostile == 1 ? "hostile traffic refused" : "hostile traffic got in");
    }
    /* green only when every chart meets its good line */
    int judged = 0, misses = 0;
    for (int c = 0; c < SIM_CHARTS; c++) {
        judged += r->verdict[c].kind != SIM_VERDICT_NONE;
        misses += r->verdict[c].kind == SIM_VERDICT_MISSES;
    }
    if (judged > 0) {
        fprintf(f, "<a class=\"badge %s\" href=\"#charts\">%d of %d charts %s their good line",
                misses > 0 ? "warn" : "ok", misses > 0 ? misses : judged, judged, misses > 0 ? "miss" : "meet");
        if (judged < SIM_CHARTS)
            fprintf(f, " (%d without data)", SIM_CHARTS - judged);
        fputs("</a>", f);
    }
    fputs("</div>\n", f);

    int spectators = 0;
    for (int q = 0; q < r->peers; q++)
        spectators += r->t->is_spectator[q] ? 1 : 0;
    int machines = meta != NULL && meta->players > 0 ? meta->players : r->peers - spectators;
    if (meta != NULL && meta->players > 0)
        spectators = meta->spectators;
    fprintf(f, "<p class=\"facts\">%d player machine%s", machines, machines == 1 ? "" : "s");
    if (spectators > 0)
        fprintf(f, " and %d spectator%s", spectators, spectators == 1 ? "" : "s");
    fprintf(f, " &#183; %.1f s of match time &#183; %d samples, one every %.0f ms", r->match_s, r->count,
            r->dt * 1000.0);
    sim_report_events(r);
    if (meta != NULL && meta->has_checks)
        fprintf(f, " &#183; %llu desync check%s made, %llu passed</p>\n",
                (unsigned long long)meta->checks_made, meta->checks_made == 1 ? "" : "s",
                (unsigned long long)meta->checks_passed);
    else
        fprintf(f, " &#183; %llu desync check%s passed</p>\n", (unsigned long long)r->checks,
                r->checks == 1 ? "" : "s");
    if (meta != NULL && meta->summary_html != NULL) {
        fputs("<h3>Per peer</h3>\n<div class=\"summary wide\">\n", f);
        fputs(meta->summary_html, f);       /* prepared HTML, trusted as is */
        fputs("\n</div>\n", f);
    } else {
        sim_peer_table(r);
    }
    if (meta != NULL && meta->command != NULL) {
        fputs("<h3>Command</h3>\n<pre><code>", f);
        sim_svg_escape(f, meta->command);
        fputs("</code></pre>\n", f);
    }
    if (meta != NULL && meta->scenario != NULL) {
        fputs("<details>\n<summary>Scenario</summary>\n<pre>", f);
        sim_svg_escape(f, meta->scenario);
        fputs("</pre>\n</details>\n", f);
    }
    static const char *const nav[SIM_CHARTS][2] = {
        [SIM_CHART_SKEW] = {"chart-skew", "skew"}, [SIM_CHART_DELAY] = {"chart-delay", "input delay"},
        [SIM_CHART_DEPTH] = {"chart-depth", "rollback depth"},
        [SIM_CHART_RATE] = {"chart-rate", "rollbacks &amp; stalls"}, [SIM_CHART_LINK] = {"chart-link", "links"},
        [SIM_CHART_PAYLOAD] = {"chart-payload", "payload"},
    };
    fputs("<nav id=\"charts\">Charts: ", f);
    for (int c = 0; c < SIM_CHARTS; c++) {
        int k = r->verdict[c].kind;
        fprintf(f, "<a href=\"#%s\">%s</a><span class=\"%s\">%s</span> ", nav[c][0], nav[c][1],
                sim_verdict_class[k], k == SIM_VERDICT_NONE ? "" : sim_verdict_word[k]);
    }
    fputs("</nav>\n", f);
}

bool sim_report_page(FILE *f, const void *ctx)
{
    const sim_timeline *t = ((const sim_report_ctx *)ctx)->t;
    const sim_report_meta *meta = ((const sim_report_ctx *)ctx)->meta;
    sim_report *r = malloc(sizeof *r);
    if (r == NULL)
        return false;
    sim_report_prepare(r, t, meta, f);
    r->smooth = malloc((size_t)(r->count > 0 ? r->count : 1) * sizeof *r->smooth);
    if (r->smooth == NULL) {
        free(r);
        return false;
    }
    sim_page_head(r, meta);
    sim_chart_skew(r);
    sim_chart_delay(r);
    sim_chart_depth(r);
    sim_chart_rate(r);
    sim_chart_link(r);
    sim_chart_payload(r);
    fputs("<footer>Times are virtual match time. Hover a line or a marker for details. "
          "Written by tempo-sim.</footer>\n</main>\n</body>\n</html>\n", f);
    free(r->smooth);
    free(r);
    return true;
}

int sim_report_write(const sim_timeline *t, const sim_report_meta *meta, const char *path)
{
    if (t == NULL || path == NULL)
        return -1;
    sim_report_ctx ctx = {t, meta};
    return sim_out_file(path, sim_report_page, &ctx) ? 0 : -1;
}
