/* SPDX-License-Identifier: MIT */
/*
 * sim_cs_html.c — the HTML report of a client-server match: the summary
 * per client, the verdicts, and charts over match time drawn with
 * sim_svg.c: each client's lead and dilation, corrections, late inputs at
 * the server, and bytes up and down.
 *
 * One page, no scripts and no outside resources. The first SIM_CS_SHOWN
 * clients get a line each (the palette has that many colours); the table
 * lists every client. Tick-sync jumps, freezes and blackouts are marked
 * above the lead chart, where their effect shows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cs.h"
#include "sim_svg.h"
#include "sim_out.h"

#define CS_W 960.0
#define CS_LEFT 72.0
#define CS_RIGHT 22.0
#define CS_LANE 22.0
#define CS_AXIS 42.0

static const char cs_css[] =
    "body{margin:0;background:#fff;color:#1f2328;font:15px/1.45 system-ui,sans-serif}\n"
    "main{max-width:1180px;margin:0 auto;padding:24px 20px 48px}\n"
    "h1{font-size:24px;margin:0 0 10px}h2{font-size:18px;margin:0}h3{font-size:15px;margin:18px 0 4px}\n"
    ".badge{display:inline-block;padding:2px 12px;margin-right:8px;border-radius:12px;border:1px solid;"
    "font-weight:600;font-size:13px}\n"
    ".ok{background:#e6f4ea;color:#0b5b2a;border-color:#8fc7a1}.bad{background:#fdeaea;color:#9f0d0d;"
    "border-color:#e39a9a}.none{background:#f5f6f8;color:#4a4f55;border-color:#c9ccd1}\n"
    ".wide{max-width:100%;overflow-x:auto;margin:6px 0 10px}\n"
    "table{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}\n"
    "th,td{padding:3px 7px;border-bottom:1px solid #e2e4e8;text-align:right;white-space:nowrap}\n"
    "th{background:#f5f6f8;font-weight:600;white-space:normal;vertical-align:bottom}"
    "th:first-child,td:first-child{text-align:left}\n"
    "pre{background:#f5f6f8;border:1px solid #e2e4e8;padding:8px 10px;white-space:pre-wrap;font-size:12.5px}\n"
    "section.chart{margin:28px 0 0}p.what{margin:4px 0;color:#4a4f55;font-size:13.5px}\n"
    "p.verdict{margin:0 0 6px;font-size:13.5px;padding:3px 8px;border-left:4px solid}\n"
    "p.verdict.ok{border-color:#3d9a5d}p.verdict.bad{border-color:#c43c3c}p.verdict.none{border-color:#9aa0a6}\n"
    ".legend span{margin-right:14px;font-size:13px}.legend i{display:inline-block;width:18px;height:3px;"
    "vertical-align:middle;margin-right:5px}\n"
    "svg.chart{display:block;width:100%;height:auto}svg text{font-size:12px;fill:#2b2f33}\n"
    "svg .tick{font-size:11px;fill:#5a5f66}svg .unit{font-size:12px;fill:#4a4f55}\n"
    "svg .note{font-size:11.5px;fill:#4a4f55}svg .reflabel{font-size:11px;fill:#444;paint-order:stroke;"
    "stroke:#fff;stroke-width:3px}\n"
    "svg .grid{stroke:#e8e9ec}svg .vgrid{stroke:#f2f3f5}svg .axis{stroke:#8a8f96}\n"
    "svg .series{fill:none;stroke-width:1.8;stroke-linejoin:round}\n"
    "svg .ref{stroke:#555;stroke-width:1;stroke-dasharray:5 4}svg .mark{stroke:#6b7078;stroke-dasharray:4 3}\n"
    "svg .glyph{stroke:#333;stroke-width:.8}svg .glyph-x{stroke:#222;stroke-width:2;fill:none}\n"
    "footer{margin-top:28px;color:#777;font-size:12px}\n";


typedef struct cs_page {
    FILE *f;
    const sim_cs_result *r;
    const sim_cs_timeline *t;
    int shown;              /* clients drawn */
    double t_end, dt;
    int scratch[SIM_REPORT_MAX_POINTS];
} cs_page;

static void cs_legend(cs_page *pg)
{
    fputs("<p class=\"legend\">", pg->f);
    for (int c = 0; c < pg->shown; c++)
        fprintf(pg->f, "<span><i style=\"background:%s\"></i>client %d</span>", sim_svg_colour(c), c);
    if (pg->shown < pg->r->clients)
        fprintf(pg->f, "<span>(the first %d of %d clients)</span>", pg->shown, pg->r->clients);
    fputs("</p>\n", pg->f);
}

/* A chart's heading, what it shows, its verdict (or none), the legend. */
static void cs_chart_open(cs_page *pg, const char *id, const char *title, const char *what,
                          const sim_verdict *v, double height)
{
    FILE *f = pg->f;
    fprintf(f, "<section class=\"chart\">\n<h2>%s", title);
    if (v)
        fprintf(f, " <span class=\"badge %s\">%s</span>", sim_verdict_class[v->kind], sim_verdict_word[v->kind]);
    fprintf(f, "</h2>\n<p class=\"what\">%s", what);
    if (v) {
        fputs(" <b>Good:</b> ", f);
        sim_svg_escape(f, v->good);
        fprintf(f, "</p>\n<p class=\"verdict %s\"><b>%s:</b> ", sim_verdict_class[v->kind], sim_verdict_word[v->kind]);
        sim_svg_escape(f, v->numbers);
    }
    fputs("</p>\n", f);
    cs_legend(pg);
    fprintf(f, "<svg id=\"%s\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
               "role=\"img\" aria-label=\"%s\">\n", id, CS_W, ceil(height), title);
}

/* Marks as dashed lines across the plot, glyphs in the lane above it. */
static void cs_marks(cs_page *pg, const sim_svg_plot *p)
{
    for (int k = 0; k < pg->t->num_marks; k++) {
        double x = sim_svg_x(p, pg->t->marks[k].t_s);
        if (pg->t->marks[k].t_s > pg->t_end)
            continue;
        fprintf(pg->f, "<g><title>%.2f s: ", pg->t->marks[k].t_s);
        sim_svg_escape(pg->f, pg->t->marks[k].label);
        fprintf(pg->f, "</title><line class=\"mark\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x,
                p->top, p->top + p->height);
        int c = pg->t->marks[k].client;
        sim_svg_glyph(pg->f, pg->t->marks[k].kind, x, p->top - CS_LANE / 2.0, c >= 0 ? sim_svg_colour(c) : "#555");
        fputs("</g>\n", pg->f);
    }
}

/* One plot of per-client series over match time. */
static void cs_panel(cs_page *pg, float *const *series, double top, double height, const char *unit,
                     double min_hi, double ref, const char *ref_label, bool marks, bool signed_ref)
{
    sim_svg_plot p = sim_svg_plot_at(pg->f, CS_LEFT, top, CS_W - CS_LEFT - CS_RIGHT, height);
    double lo = 0.0, hi = 0.0;
    bool any = false;
    for (int c = 0; c < pg->shown; c++)
        for (int k = 0; k < pg->t->count; k++) {
            double v = series[c][k];
            if (isnan(v))
                continue;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
            any = true;
        }
    if (signed_ref) {
        lo = lo < -ref ? lo : -ref;
        hi = hi > ref ? hi : ref;
    }
    if (hi >= 10000.0 && strcmp(unit, "bytes/s") == 0) {
        p.yscale = 1000.0;
        unit = "kB/s";
    }
    sim_svg_set_time(&p, pg->t_end);
    sim_svg_set_y(&p, lo, hi, min_hi, 0.0);
    sim_svg_grid(&p, unit);
    if (marks)
        cs_marks(pg, &p);
    for (int c = 0; c < pg->shown; c++) {
        char name[32];
        snprintf(name, sizeof name, "client %d", c);
        sim_svg_series(&p, pg->scratch, series[c], pg->t->count, pg->dt, c, false, 0.0, name);
    }
    if (ref > 0.0) {
        sim_svg_reference(&p, ref, ref_label);
        if (signed_ref)
            sim_svg_reference(&p, -ref, ref_label);
    }
    if (!any)
        sim_svg_note(pg->f, p.left + p.width / 2.0, p.top + p.height / 2.0, "middle", "no samples");
    sim_svg_axis_x(&p, true, "match time (s)");
}

static void cs_chart(cs_page *pg, const char *id, const char *title, const char *what, const sim_verdict *v,
                     float *const *series, const char *unit, double min_hi, double ref, const char *ref_label,
                     bool marks, bool signed_ref)
{
    double top = 8.0 + (marks ? CS_LANE : 0.0), height = 200.0;
    cs_chart_open(pg, id, title, what, v, top + height + CS_AXIS + 4.0);
    cs_panel(pg, series, top, height, unit, min_hi, ref, ref_label, marks, signed_ref);
    fputs("</svg>\n</section>\n", pg->f);
}

/* The lead as each client estimates it (top), and as it is (bottom): the
 * tick of its last step minus the server's, at the same instant. */
static void cs_lead(cs_page *pg, const sim_verdict *v)
{
    double h = 170.0, top = 8.0 + CS_LANE, gap = 24.0 + CS_LANE;
    cs_chart_open(pg, "chart-lead", "Lead over the server",
                  "How many ticks each client runs ahead of the server: as the client estimates it (top) and "
                  "as it is, its last step's tick minus the server's at the same instant (bottom). Tick-sync "
                  "jumps, freezes and blackouts are marked above each plot.",
                  v, 2.0 * (h + CS_AXIS) + gap + top + 4.0);
    cs_panel(pg, pg->t->lead, top, h, "ticks (estimate)", 2.0, 0.0, NULL, true, false);
    cs_panel(pg, pg->t->true_lead, top + h + CS_AXIS + gap, h, "ticks (true)", 2.0, 0.0, NULL, true, false);
    fputs("</svg>\n</section>\n", pg->f);
}

static void cs_bandwidth(cs_page *pg)
{
    double h = 170.0, top = 8.0, gap = 24.0;
    cs_chart_open(pg, "chart-bandwidth", "Bytes per second per client",
                  "Payload bytes each client sent (up, top) and received (down, bottom), as UDP would carry "
                  "them, counted at its transport.",
                  NULL, 2.0 * (h + CS_AXIS) + gap + top + 4.0);
    cs_panel(pg, pg->t->up, top, h, "bytes/s", 100.0, 0.0, NULL, false, false);
    cs_panel(pg, pg->t->down, top + h + CS_AXIS + gap, h, "bytes/s", 100.0, 0.0, NULL, false, false);
    fputs("</svg>\n</section>\n", pg->f);
}

static void cs_cell(FILE *f, double v, const char *fmt)
{
    if (isnan(v))
        fputs("<td>&#8211;</td>", f);
    else {
        fputs("<td>", f);
        fprintf(f, fmt, v);
        fputs("</td>", f);
    }
}

/* Two tables, so each fits a 1280 px window: what the players saw, then
 * the timing and the bytes behind it. */
static void cs_table(cs_page *pg, const sim_verdict *agree)
{
    FILE *f = pg->f;
    const sim_cs_result *r = pg->r;
    fputs("<h3>Per client: what the players saw</h3>\n<div class=\"wide\"><table>\n<tr><th>client</th>"
          "<th>input to response<br>mean (ticks)</th><th>max</th><th>snap-backs</th><th>after 3 s</th>"
          "<th>visible<br>corrections<br>/min</th><th>visible<br>mean</th><th>max</th><th>library<br>"
          "corrections<br>/min</th><th>library<br>mean</th><th>max</th><th>resimulated<br>ticks</th>"
          "<th>agrees</th></tr>\n", f);
    for (int i = 0; i < r->clients; i++) {
        const sim_cs_client_result *c = &r->c[i];
        fprintf(f, "<tr><td>%d</td>", i);
        cs_cell(f, c->response_mean, "%.2f");
        fprintf(f, "<td>%d</td><td>%llu</td><td>%llu</td>", c->response_max, (unsigned long long)c->snapbacks,
                (unsigned long long)c->snapbacks_after);
        cs_cell(f, c->visible_per_min, "%.1f");
        cs_cell(f, c->visible_mean, "%.2f");
        cs_cell(f, c->visible_max, "%.1f");
        cs_cell(f, c->corrections_per_min, "%.1f");
        cs_cell(f, c->correction_mean, "%.2f");
        cs_cell(f, c->correction_max, "%.1f");
        fprintf(f, "<td>%llu</td>", (unsigned long long)c->resim_frames);
        fprintf(f, "<td>%s</td></tr>\n", !c->compared ? "&#8211;" : c->agrees ? "yes" : "no");
    }
    fputs("</table></div>\n", f);
    /* the agreement verdict belongs to this table's last column, not a chart */
    fprintf(f, "<p class=\"verdict %s\"><b>agreement %s:</b> ", sim_verdict_class[agree->kind], sim_verdict_word[agree->kind]);
    sim_svg_escape(f, agree->numbers);
    fputs(". <b>Good:</b> ", f);
    sim_svg_escape(f, agree->good);
    fputs("</p>\n", f);
    fputs("<h3>Per client: timing and bytes</h3>\n<div class=\"wide\"><table>\n<tr><th>client</th>"
          "<th>late inputs<br>/min</th><th>after 3 s<br>/min</th><th>lead mean<br>(ticks)</th>"
          "<th>true lead<br>mean</th><th>dilation max<br>(%)</th><th>jumps after<br>1 s</th>"
          "<th>up<br>(B/s)</th><th>down<br>(B/s)</th><th>snapshot<br>(bytes)</th></tr>\n", f);
    for (int i = 0; i < r->clients; i++) {
        const sim_cs_client_result *c = &r->c[i];
        fprintf(f, "<tr><td>%d</td>", i);
        cs_cell(f, c->late_per_min, "%.2f");
        cs_cell(f, c->late_after_per_min, "%.2f");
        cs_cell(f, c->lead_mean, "%.2f");
        cs_cell(f, c->true_lead_mean, "%.2f");
        cs_cell(f, c->dilation_max * 100.0, "%.2f");
        fprintf(f, "<td>%llu</td>", (unsigned long long)c->snaps_after);
        cs_cell(f, c->up_bytes_per_s, "%.0f");
        cs_cell(f, c->down_bytes_per_s, "%.0f");
        cs_cell(f, c->snapshot_bytes, "%.0f");
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n", f);
}

bool sim_cs_html_page(FILE *f, const sim_options *o, const sim_cs_result *r, const sim_cs_timeline *tl)
{
    if (!tl)
        return false;
    cs_page *pg = calloc(1, sizeof *pg);
    if (!pg)
        return false;
    pg->f = f;
    pg->r = r;
    pg->t = tl;
    pg->shown = r->clients < SIM_CS_SHOWN ? r->clients : SIM_CS_SHOWN;
    pg->dt = tl->interval_s;
    pg->t_end = r->match_s > 0 ? r->match_s : tl->count * tl->interval_s;
    char title[256];
    sim_cs_describe(o, r, title, sizeof title);
    sim_verdict v[SIM_CS_VERDICTS];
    sim_cs_judge(r, v);

    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Client-server: ", f);
    sim_svg_escape(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n<h1>Client-server: ", cs_css);
    sim_svg_escape(f, title);
    fputs("</h1>\n<p>", f);
    static const char *const names[SIM_CS_VERDICTS] = {"late inputs", "dilation", "tick-sync jumps", "agreement"};
    for (int k = 0; k < SIM_CS_VERDICTS; k++)
        fprintf(f, "<span class=\"badge %s\">%s: %s</span>", sim_verdict_class[v[k].kind], names[k], sim_verdict_word[v[k].kind]);
    fprintf(f, "</p>\n<p>%d of %d clients connected &#183; %.1f s of match time &#183; server CPU %.3f &#181;s "
               "per client per tick, %.3f &#181;s without simnet's send and receive (poll + advance, the game's "
               "step left out%s)",
            r->connected, r->clients, r->match_s, r->cpu_us_per_client_tick, r->lib_us_per_client_tick,
#ifdef NDEBUG
            ""
#else
            "; a debug build"
#endif
    );
    if (r->problem[0]) {
        fputs(" &#183; <b>", f);
        sim_svg_escape(f, r->problem);
        fputs("</b>", f);
    }
    fprintf(f, "</p>\n<p>Sizes of corrections in %s. Visible corrections are measured from outside: the state "
               "a client showed against the state it holds for that moment once a snapshot is in place; a "
               "snap-back is one that moved its own piece.</p>\n", r->game ? r->game->correction_unit : "");
    cs_table(pg, &v[SIM_CS_VERDICT_AGREE]);
    fputs("<h3>Verdicts</h3>\n<ul>\n", f);
    for (int k = 0; k < SIM_CS_VERDICTS; k++) {
        fprintf(f, "<li><b>%s</b>: %s &#8211; ", names[k], sim_verdict_word[v[k].kind]);
        sim_svg_escape(f, v[k].numbers);
        fputs(". Good: ", f);
        sim_svg_escape(f, v[k].good);
        fputs(".</li>\n", f);
    }
    fputs("</ul>\n<h3>Command</h3>\n<pre><code>", f);
    sim_svg_escape(f, o->command);
    fputs("</code></pre>\n", f);

    cs_lead(pg, &v[SIM_CS_VERDICT_SNAPS]);
    cs_chart(pg, "chart-dilation", "Dilation", "How much longer (+) or shorter (&#8722;) than 1/60 s each "
             "client made its ticks to steer its lead.",
             &v[SIM_CS_VERDICT_DILATION], tl->dilation, "%", 1.0, r->max_dilation * 100.0, "bound", false, true);
    cs_chart(pg, "chart-corrections", "Corrections per second",
             "Snapshots whose state differed from what the client had predicted of their tick (the client's "
             "own count); with replay a correction is the server's truth taken in, not a snap-back.", NULL,
             tl->corrections, "per second", 1.0, 0.0, NULL, false, false);
    cs_chart(pg, "chart-late", "Late inputs per second at the server",
             "Ticks the server ran before a client's input for them arrived (it played the last one).",
             &v[SIM_CS_VERDICT_LATE], tl->late, "per second", 1.0, 0.0, NULL, false, false);
    cs_bandwidth(pg);
    fputs("<footer>Times are virtual match time. Written by tempo-sim.</footer>\n</main>\n</body>\n</html>\n", f);
    free(pg);
    return true;
}
