/* SPDX-License-Identifier: MIT */
/*
 * sim_svg.c — the small SVG layer tempo-sim's report draws with: escaping,
 * nice tick numbers, the decimator, a plot area with grid and axes, lines,
 * marker glyphs and notes, and the peer palette.
 *
 * Invariant: every text written goes through sim_svg_escape, and no line
 * gets more than SIM_REPORT_MAX_POINTS points, whatever the series length.
 */
#include "sim_svg.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Okabe & Ito's colour-blind-safe set ("Color Universal Design", 2008), the
 * yellow darkened to read on white; the last three peers also get dashes so
 * nine lines stay apart without relying on hue alone. */
static const char *const sim_svg_colours[SIM_SVG_COLOURS] = {
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9",
    "#D55E00", "#000000", "#A89200", "#7F7F7F",
};
static const char *const sim_svg_dashes[SIM_SVG_COLOURS] = {
    NULL, NULL, NULL, NULL, NULL, NULL, "7 3", "2 2", "7 3 2 3",
};

const char *sim_svg_colour(int peer)
{
    return peer >= 0 && peer < SIM_SVG_COLOURS ? sim_svg_colours[peer] : "#FFFFFF";
}

const char *sim_svg_dash(int peer)
{
    return peer >= 0 && peer < SIM_SVG_COLOURS ? sim_svg_dashes[peer] : NULL;
}

/* ---------------------------------------------------------------- text */

/* Write `s` as HTML text or attribute value. */
void sim_svg_escape(FILE *f, const char *s)
{
    if (s == NULL)
        return;
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f); break;
        }
    }
}

/* ---------------------------------------------------------------- numbers */

/* A "nice" number near x: 1, 2 or 5 times a power of ten (Heckbert, "Nice
 * numbers for graph labels", Graphics Gems, 1990). */
static double sim_nice(double x, bool round_it)
{
    double e = floor(log10(x));
    double f = x / pow(10.0, e);
    double n;
    if (round_it)
        n = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
    else
        n = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return n * pow(10.0, e);
}

/* Tick step for about `target` ticks over [lo, hi]; at least `min_step`. */
double sim_svg_tick_step(double lo, double hi, int target, double min_step)
{
    if (!(hi > lo))
        hi = lo + 1.0;
    double step = sim_nice(sim_nice(hi - lo, false) / (target - 1), true);
    return step < min_step ? min_step : step;
}

/* Tick label for `v` shown divided by `scale`, with the decimals the step needs. */
static void sim_tick_label(char *buf, size_t size, double v, double step, double scale)
{
    double s = step / scale;
    int decimals = s >= 1.0 ? 0 : (int)ceil(-log10(s) - 1e-9);
    double shown = v / scale;
    if (fabs(shown) < s * 1e-6)
        shown = 0.0;        /* no "-0" */
    snprintf(buf, size, "%.*f", decimals > 6 ? 6 : decimals, shown);
}

/* ---------------------------------------------------------------- decimation */

static bool sim_same(float a, float b)
{
    return isfinite(a) ? a == b : !isfinite(b);
}

int sim_report_decimate(const float *v, int count, int max_points, int *out)
{
    if (v == NULL || out == NULL || count <= 0 || max_points < 3)
        return 0;
    /* Pass 1: inside a run of equal values only its ends matter (a flat line
     * or a step looks the same); one index stands for each run of gaps. */
    int n = 0;
    for (int i = 0; i < count; i++) {
        bool prev_same = i > 0 && sim_same(v[i], v[i - 1]);
        bool next_same = i + 1 < count && sim_same(v[i], v[i + 1]);
        bool keep = isfinite(v[i]) ? !(prev_same && next_same) : !prev_same;
        if (keep) {
            if (n < max_points)
                out[n] = i;
            n++;
        }
    }
    if (n <= max_points)
        return n;
    /* Pass 2: per bucket the lowest and highest value and the first gap, in
     * time order, so peaks and holes survive any zoom-out. */
    int buckets = max_points / 3;
    n = 0;
    for (int b = 0; b < buckets; b++) {
        int lo = (int)((int64_t)b * count / buckets);
        int hi = (int)((int64_t)(b + 1) * count / buckets);
        int imin = -1, imax = -1, igap = -1;
        for (int i = lo; i < hi; i++) {
            if (!isfinite(v[i])) {
                if (igap < 0)
                    igap = i;
                continue;
            }
            if (imin < 0 || v[i] < v[imin])
                imin = i;
            if (imax < 0 || v[i] > v[imax])
                imax = i;
        }
        int pick[3] = {imin, imax, igap};
        for (int a = 0; a < 3; a++) {          /* sort three, drop -1 and repeats */
            for (int c = a + 1; c < 3; c++) {
                if (pick[c] < pick[a]) {
                    int tmp = pick[a];
                    pick[a] = pick[c];
                    pick[c] = tmp;
                }
            }
        }
        for (int a = 0; a < 3; a++) {
            if (pick[a] >= 0 && (a == 0 || pick[a] != pick[a - 1]))
                out[n++] = pick[a];
        }
    }
    return n;
}

/* ---------------------------------------------------------------- SVG layer */

double sim_svg_x(const sim_svg_plot *p, double x)
{
    return p->left + (x - p->x0) / (p->x1 - p->x0) * p->width;
}

double sim_svg_y(const sim_svg_plot *p, double y)
{
    return p->top + p->height - (y - p->y0) / (p->y1 - p->y0) * p->height;
}

sim_svg_plot sim_svg_plot_at(FILE *f, double left, double top, double width, double height)
{
    sim_svg_plot p = {f, left, top, width, height, 0.0, 1.0, 0.2, 0.0, 1.0, 0.2, 1.0};
    return p;
}

/* The y domain: from min(0, lo) up to a tick at or above max(hi, min_hi). */
void sim_svg_set_y(sim_svg_plot *p, double lo, double hi, double min_hi, double min_step)
{
    lo = lo < 0.0 ? lo : 0.0;
    hi = hi > min_hi ? hi : min_hi;
    if (!(hi > lo))
        hi = lo + 1.0;
    p->ystep = sim_svg_tick_step(lo, hi, p->height >= 150.0 ? 6 : 4, min_step);
    p->y0 = floor(lo / p->ystep) * p->ystep;
    p->y1 = ceil(hi / p->ystep - 1e-9) * p->ystep;
    if (!(p->y1 > p->y0))
        p->y1 = p->y0 + p->ystep;
}

void sim_svg_set_time(sim_svg_plot *p, double t_end)
{
    p->x0 = 0.0;
    p->x1 = t_end;
    p->xstep = sim_svg_tick_step(0.0, t_end, p->width >= 500.0 ? 10 : 5, 0.0);
}

/* The x ticks: multiples of xstep inside the domain; returns how many. */
static int sim_svg_x_ticks(const sim_svg_plot *p, double *first)
{
    *first = ceil(p->x0 / p->xstep - 1e-9) * p->xstep;
    return (int)floor((p->x1 - *first) / p->xstep + 1e-6) + 1;
}

/* Faint vertical lines at the x ticks, drawn under everything else. */
static void sim_svg_grid_x(const sim_svg_plot *p)
{
    double first;
    int n = sim_svg_x_ticks(p, &first);
    for (int k = 0; k < n; k++) {
        double x = sim_svg_x(p, first + k * p->xstep);
        fprintf(p->f, "<line class=\"vgrid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
                x, x, p->top, p->top + p->height);
    }
}

/* Grid lines (both ways) with y labels on the left and the unit (unless
 * NULL) turned upright. */
void sim_svg_grid(const sim_svg_plot *p, const char *unit)
{
    sim_svg_grid_x(p);
    int n = (int)floor((p->y1 - p->y0) / p->ystep + 1e-6);
    for (int k = 0; k <= n; k++) {
        double v = p->y0 + k * p->ystep;
        double y = sim_svg_y(p, v);
        char label[32];
        sim_tick_label(label, sizeof label, v, p->ystep, p->yscale);
        fprintf(p->f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                p->left, p->left + p->width, y, y, p->left - 6.0, y + 4.0, label);
    }
    if (unit == NULL)
        return;
    fprintf(p->f, "<text class=\"unit\" text-anchor=\"middle\" transform=\"translate(%.1f %.1f) rotate(-90)\">",
            p->left - (p->left > 60.0 ? 50.0 : 38.0), p->top + p->height / 2.0);
    sim_svg_escape(p->f, unit);
    fputs("</text>\n", p->f);
}

/* The x axis: ticks at multiples of xstep, labels and title when asked. */
void sim_svg_axis_x(const sim_svg_plot *p, bool labels, const char *title)
{
    double bottom = p->top + p->height;
    fprintf(p->f, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
            p->left, p->left + p->width, bottom, bottom);
    double first;
    int n = sim_svg_x_ticks(p, &first);
    for (int k = 0; k < n; k++) {
        double v = first + k * p->xstep;
        double x = sim_svg_x(p, v);
        fprintf(p->f, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                x, x, bottom, bottom + 4.0);
        if (labels) {
            char label[32];
            sim_tick_label(label, sizeof label, v, p->xstep, 1.0);
            fprintf(p->f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
                    x, bottom + 16.0, label);
        }
        fputc('\n', p->f);
    }
    if (labels && title != NULL) {
        fprintf(p->f, "<text class=\"unit\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                p->left + p->width / 2.0, bottom + 34.0);
        sim_svg_escape(p->f, title);
        fputs("</text>\n", p->f);
    }
}

/* A dashed horizontal line at `v` with its label at the right end. */
void sim_svg_reference(const sim_svg_plot *p, double v, const char *label)
{
    if (v < p->y0 || v > p->y1)
        return;
    double y = sim_svg_y(p, v);
    fprintf(p->f, "<line class=\"ref\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
            "<text class=\"reflabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
            p->left, p->left + p->width, y, y, p->left + p->width - 4.0, y - 4.0);
    sim_svg_escape(p->f, label);
    fputs("</text>\n", p->f);
}

/* One series as a path: gaps at NAN, at most SIM_REPORT_MAX_POINTS points.
 * A step series holds each value until the next sample. `nudge` moves the
 * line down by that many units, so equal step lines stay side by side. */
void sim_svg_series(const sim_svg_plot *p, int *scratch, const float *v, int count, double dt,
                       int peer, bool step, double nudge, const char *title)
{
    if (v == NULL || count <= 0)
        return;
    int n = sim_report_decimate(v, count, step ? SIM_REPORT_MAX_POINTS / 2 : SIM_REPORT_MAX_POINTS,
                                scratch);
    bool open = false;
    int seg = 0;                /* points in the current piece of line */
    double prev_y = 0.0;
    for (int k = 0; k <= n; k++) {
        bool gap = k == n || !isfinite(v[scratch[k]]);
        if (gap) {
            if (seg == 1)
                fputs("h0.1", p->f); /* a lone sample shows as a dot (round caps) */
            seg = 0;
            continue;
        }
        double x = sim_svg_x(p, scratch[k] * dt), y = sim_svg_y(p, v[scratch[k]]) + nudge;
        if (!open) {
            fprintf(p->f, "<path class=\"series\" stroke=\"%s\"", sim_svg_colour(peer));
            if (sim_svg_dash(peer) != NULL)
                fprintf(p->f, " stroke-dasharray=\"%s\"", sim_svg_dash(peer));
            fputs(" d=\"", p->f);
            open = true;
        }
        if (seg == 0)
            fprintf(p->f, "M%.1f,%.1f", x, y);
        else if (step)
            fprintf(p->f, "L%.1f,%.1fL%.1f,%.1f", x, prev_y, x, y);
        else
            fprintf(p->f, "L%.1f,%.1f", x, y);
        prev_y = y;
        seg++;
    }
    if (open) {
        fputs("\"><title>", p->f);
        sim_svg_escape(p->f, title);
        fputs("</title></path>\n", p->f);
    }
}

/* A marker's symbol centred at (x, y); also used in legends. */
void sim_svg_glyph(FILE *f, int kind, double x, double y, const char *fill)
{
    switch (kind) {
    case SIM_MARK_HICCUP:
        fprintf(f, "<path class=\"glyph\" fill=\"%s\" d=\"M%.1f,%.1fh10l-5,8z\"/>", fill, x - 5.0, y - 4.0);
        break;
    case SIM_MARK_DISCONNECT:
        fprintf(f, "<path class=\"glyph-x\" d=\"M%.1f,%.1fl8,8m0,-8l-8,8\"/>", x - 4.0, y - 4.0);
        break;
    case SIM_MARK_DESYNC:
        fprintf(f, "<path class=\"glyph\" fill=\"" SIM_SVG_DESYNC_RED "\" d=\"M%.1f,%.1fl5,5l-5,5l-5,-5z\"/>",
                x, y - 5.0);
        break;
    case SIM_MARK_INPUT_DELAY:
        fprintf(f, "<circle class=\"glyph\" fill=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/>", fill, x, y);
        break;
    case SIM_MARK_DESYNC_CHECK:
        fprintf(f, "<line class=\"check\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                x, x, y - 4.0, y + 4.0);
        break;
    default:                            /* blackout */
        fprintf(f, "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"10\"/>", x - 6.0, y - 5.0);
        break;
    }
}

void sim_svg_note(FILE *f, double x, double y, const char *anchor, const char *text)
{
    fprintf(f, "<text class=\"note\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
    sim_svg_escape(f, text);
    fputs("</text>\n", f);
}
