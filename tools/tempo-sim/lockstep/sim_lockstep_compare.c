/* SPDX-License-Identifier: MIT */
/*
 * sim_lockstep_compare.c — --lockstep-turns (one RTS-style match with the
 * lockstep object) and --compare lockstep (one match five ways on the same
 * network: frame lockstep in a mesh with an input delay that covers the
 * slowest link, fixed turns sized the same way, adaptive turns, rollback
 * through the relay, rollback in a mesh), printed as a table, with an HTML
 * report charting the turn length over time.
 *
 * The slow machine is the one a --link A-* line puts on a link of its
 * own; without one, the last machine is put on `terrible`. Each way has
 * two rows: every other machine (what the slow one costs them) and the
 * slow one itself. Latencies are measured alike in every way: to the
 * command's first execution on its own machine (shown: a rollback
 * session executes its own commands at once, predicted) and to the moment
 * the frame or turn holding it became final there (final); a command its
 * frame lost to the relay's substitution is counted lost.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_out.h"
#include "sim_lockstep.h"
#include "sim_svg.h"

#define LS_WAYS 5

static void print_header(FILE *f)
{
    fprintf(f, "%-22s %-8s %7s %8s %6s %12s %12s %6s %15s %8s %8s %9s %s\n", "way", "machines", "freezes",
            "/min", "slow's", "shown mean/max", "final mean/max", "lost", "turn min/mean/max", "switches",
            "up kb/s", "down kb/s", "checksums");
}

/* One group's row: every machine but the slow one, or the slow one. */
static void print_row(FILE *f, const sim_ls_result *r, bool slow)
{
    const sim_ls_group *g = slow ? &r->slow_group : &r->others;
    double up = 0, down = 0;
    for (int i = 0; i < r->machines; i++)
        if ((i == r->slow) == slow) {
            up += r->up_kbps[i];
            down += r->down_kbps[i];
        }
    char who[16], slows[16], shown[24], final[24], turns[32], sw[16], verdict[48];
    if (slow)
        snprintf(who, sizeof who, "slow (%d)", r->slow);
    else if (r->slow < 0)
        snprintf(who, sizeof who, "all %d", g->machines);
    else
        snprintf(who, sizeof who, "%d others", g->machines);
    snprintf(slows, sizeof slows, slow ? "-" : "%" PRIu64, g->waits_slow);
    snprintf(shown, sizeof shown, "%.0f/%.0f", g->shown_mean_ms, g->shown_max_ms);
    snprintf(final, sizeof final, "%.0f/%.0f", g->final_mean_ms, g->final_max_ms);
    snprintf(turns, sizeof turns, "%.0f/%.0f/%.0f", r->turn_min_ms, r->turn_mean_ms, r->turn_max_ms);
    if (r->way.kind == SIM_LS_TURNS)
        snprintf(sw, sizeof sw, "%d%s", r->switches, r->switches_agree ? "" : " (!)");
    else
        snprintf(sw, sizeof sw, "-");
    if (r->converged)
        snprintf(verdict, sizeof verdict, "equal (%" PRId32 ")", r->compared);
    else
        snprintf(verdict, sizeof verdict, "FAILED");
    fprintf(f, "%-22s %-8s %7" PRIu64 " %8.2f %6s %12s %12s %6" PRIu64 " %15s %8s %8.1f %9.1f %s\n",
            slow ? "" : r->way.label, who, g->waits, g->waits_per_min, slows, shown, final, g->lost, turns, sw,
            g->machines ? up / g->machines : 0.0, g->machines ? down / g->machines : 0.0, verdict);
}

static void print_rows(FILE *f, const sim_ls_result *r)
{
    print_row(f, r, false);
    if (r->slow >= 0)
        print_row(f, r, true);
}

static void print_legend(FILE *f)
{
    fprintf(f, "freezes: stretches of ticks a machine could not go on for want of an input; slow's: those "
               "awaiting only the slow machine. shown / final: ms from the tick a bot gave a command to its "
               "first execution on its own machine (predicted or not) / to the tick the frame or turn holding "
               "it became final there. lost: commands whose frame became final without them (the relay "
               "substituted the late input). kb/s: payload, mean per machine of the row.\n");
}

static void print_notes(FILE *f, const sim_ls_result *r)
{
    if (!r->converged)
        fprintf(f, "  %s: %s\n", r->way.label, r->problem[0] ? r->problem : "did not finish");
    for (int i = 0; i < r->machines; i++)
        if (r->dropped & 1u << i)
            fprintf(f, "  %s: the relay dropped machine %d (it fell too far behind or went silent); "
                       "it played on alone, left out of the checksum check\n", r->way.label, i);
    fprintf(f, "  %s: up/down kb/s per member:", r->way.label);
    for (int i = 0; i < r->machines; i++)
        fprintf(f, " %d%s %.1f/%.1f", i, i == r->slow ? " (slow)" : "", r->up_kbps[i], r->down_kbps[i]);
    fprintf(f, "\n");
    if (r->way.kind == SIM_LS_RELAY || r->way.via_relay)
        fprintf(f, "  %s: the relay sent %.1f kb/s and received %.1f kb/s\n", r->way.label, r->relay_up_kbps,
                r->relay_down_kbps);
    if (r->way.via_relay)
        fprintf(f, "  %s: %" PRIu64 " of %" PRIu64 " lists executed were the relay's substitutes for lists late "
                   "for its deadline%s\n", r->way.label, r->lists_substituted, r->lists,
                r->lists_substituted * 10 > r->lists ? " (a longer --input-delay, in turns, gives them time)" : "");
    if (r->way.via_relay && r->others.finals + r->slow_group.finals == 0)
        fprintf(f, "  %s: no command of any machine executed as given: every list was late, so the latency columns time nothing\n",
                r->way.label);
    if (r->way.kind == SIM_LS_TURNS)
        fprintf(f, "  %s: %d turn-length switches, %s on every machine\n", r->way.label, r->switches,
                r->switches_agree ? "at the same turns" : "NOT at the same turns");
}

static void json_group(sim_json *j, const char *key, const sim_ls_group *g)
{
    sim_json_begin_object(j, key);
    sim_json_int(j, "machines", g->machines);
    sim_json_uint(j, "freezes", g->waits);
    sim_json_double(j, "freezes_per_minute", g->waits_per_min);
    sim_json_uint(j, "freezes_for_slow", g->waits_slow);
    sim_json_double(j, "shown_mean_ms", g->shown_mean_ms);
    sim_json_double(j, "shown_max_ms", g->shown_max_ms);
    sim_json_double(j, "final_mean_ms", g->final_mean_ms);
    sim_json_double(j, "final_max_ms", g->final_max_ms);
    sim_json_uint(j, "commands_shown", g->shown);
    sim_json_uint(j, "commands_final", g->finals);
    sim_json_uint(j, "commands_lost", g->lost);
    sim_json_end_object(j);
}

static void json_row(sim_json *j, const sim_ls_result *r)
{
    sim_json_begin_object(j, NULL);
    sim_json_string(j, "way", r->way.label);
    sim_json_bool(j, "converged", r->converged);
    sim_json_int(j, "compared", r->compared);
    sim_json_uint(j, "dropped_mask", r->dropped);
    sim_json_double(j, "match_s", r->match_s);
    sim_json_int(j, "slow_machine", r->slow);
    json_group(j, "others", &r->others);
    if (r->slow >= 0)
        json_group(j, "slow", &r->slow_group);
    sim_json_double(j, "turn_min_ms", r->turn_min_ms);
    sim_json_double(j, "turn_mean_ms", r->turn_mean_ms);
    sim_json_double(j, "turn_max_ms", r->turn_max_ms);
    sim_json_int(j, "switches", r->switches);
    sim_json_bool(j, "switches_agree", r->switches_agree);
    sim_json_begin_array(j, "members");
    for (int i = 0; i < r->machines; i++) {
        sim_json_begin_object(j, NULL);
        sim_json_double(j, "up_kbps", r->up_kbps[i]);
        sim_json_double(j, "down_kbps", r->down_kbps[i]);
        sim_json_end_object(j);
    }
    sim_json_end_array(j);
    sim_json_end_object(j);
}

/* What the writer's callbacks read (report/sim_out.h). */
typedef struct ls_out {
    const sim_options *o;
    const sim_ls_result *rows;
    int n;
} ls_out;

/* The table, its legend and each way's notes. */
static void ls_text(FILE *f, const void *ctx)
{
    const ls_out *c = ctx;
    print_header(f);
    for (int k = 0; k < c->n; k++)
        print_rows(f, &c->rows[k]);
    print_legend(f);
    for (int k = 0; k < c->n; k++)
        print_notes(f, &c->rows[k]);
}

static void ls_json(sim_json *j, const void *ctx)
{
    const ls_out *c = ctx;
    sim_json_string(j, "mode", "lockstep");
    sim_json_uint(j, "seed", c->o->seed);
    sim_json_int(j, "players", c->o->players);
    sim_json_begin_array(j, "ways");
    for (int k = 0; k < c->n; k++)
        json_row(j, &c->rows[k]);
    sim_json_end_array(j);
}

/* The report: the table, and the turn length of each way over time as one
 * SVG chart (frame-based ways are a flat line at 16.7 ms). */
static bool ls_html(FILE *f, const void *ctx)
{
    const ls_out *c = ctx;
    const sim_ls_result *rows = c->rows;
    int n = c->n;
    static const char *const colours[LS_WAYS] = {"#888", "#d62728", "#1f77b4", "#2ca02c", "#9467bd"};
    char heading[64];
    snprintf(heading, sizeof heading, "tempo-sim: lockstep, %d players", c->o->players);
    const sim_page page = {
        .title = "tempo-sim: lockstep",
        .heading = heading,
        .style = "body{font-family:sans-serif;margin:2em}pre{background:#f4f4f4;padding:1em;font-size:12px;white-space:pre-wrap}",
        .command = c->o->command ? c->o->command : "",
        .no_lang = true,
    };
    sim_out_page_begin(f, &page, ls_text, ctx);
    fprintf(f, "<h2>Turn length over time</h2>\n");
    double t_end = 1, hi = 50;
    for (int k = 0; k < n; k++) {
        if (rows[k].series_n * SIM_LS_SERIES_S > t_end)
            t_end = rows[k].series_n * SIM_LS_SERIES_S;
        for (int s = 0; s < rows[k].series_n; s++)
            if (rows[k].series[s] > hi)
                hi = rows[k].series[s];
    }
    hi *= 1.1;
    const double W = 800, H = 300, L = 50, T = 10, PW = W - L - 10, PH = H - T - 30;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\">\n", W, H);
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#ccc\"/>\n",
            L, T, PW, PH);
    for (int g = 0; g <= 4; g++) {
        double v = hi * g / 4, y = T + PH - PH * g / 4;
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.0f ms</text>\n", L - 4,
                y + 4, v);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"end\">%.0f s</text>\n", L + PW,
            H - 8, t_end);
    for (int k = 0; k < n; k++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", colours[k % LS_WAYS]);
        for (int s = 0; s < rows[k].series_n; s++)
            fprintf(f, "%.1f,%.1f ", L + PW * (s * SIM_LS_SERIES_S) / t_end, T + PH - PH * rows[k].series[s] / hi);
        fprintf(f, "\"/>\n<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" fill=\"%s\">", L + 10, T + 16 + 14.0 * k,
                colours[k % LS_WAYS]);
        sim_svg_escape(f, rows[k].way.label);
        fprintf(f, "</text>\n");
    }
    fputs("</svg>\n", f);
    sim_out_page_end(f);
    return true;
}

static int finish(const sim_options *o, sim_ls_result *rows, int n)
{
    ls_out c = {o, rows, n};
    sim_out w = {.ctx = &c, .text = ls_text, .json = ls_json, .html = ls_html};
    int code = sim_out_write(o, &w);
    for (int k = 0; k < n; k++) {
        if (code == SIM_EXIT_OK && (!rows[k].converged || !rows[k].switches_agree))
            code = SIM_EXIT_MISMATCH;
        free(rows[k].series);
    }
    return code;
}

static int check_options(const sim_options *o)
{
    if (o->players < 2 || o->local_per_peer != 1 || o->hosts_set) {
        fprintf(stderr, "tempo-sim: lockstep matches take one player per machine, 2 or more (see --help)\n");
        return SIM_EXIT_USAGE;
    }
    if (o->spectators > 0 && !o->quiet) /* the default scenario has one */
        printf("spectators are no part of a lockstep match: %d left out\n", o->spectators);
    for (int k = 0; k < o->num_links; k++)
        if (o->links[k].a >= o->players + o->spectators || o->links[k].b >= o->players + o->spectators) {
            fprintf(stderr, "tempo-sim: --link %d-%d: no such machine (0..%d)\n", o->links[k].a,
                    o->links[k].b, o->players - 1);
            return SIM_EXIT_USAGE;
        }
    return SIM_EXIT_OK;
}

static bool slow_link_missing(const sim_options *o)
{
    for (int k = 0; k < o->num_links; k++)
        if (o->links[k].b < 0)
            return false;
    return o->num_links < SIM_MAX_LINKS;
}

static void turns_label(sim_ls_way *w)
{
    w->kind = SIM_LS_TURNS;
    if (w->adaptive)
        snprintf(w->label, sizeof w->label, "adaptive turns");
    else
        snprintf(w->label, sizeof w->label, "%" PRIu32 " ms turns%s", w->turn_ms,
                 w->via_relay ? " (relay)" : "");
}

int sim_lockstep(const sim_options *o)
{
    int code = check_options(o);
    if (code != SIM_EXIT_OK)
        return code;
    if (o->topology == 1 && o->lockstep_adaptive) {
        fprintf(stderr, "tempo-sim: --lockstep-turns adaptive: through a relay turns keep one length; "
                        "give it in ms (10..2000)\n");
        return SIM_EXIT_USAGE;
    }
    sim_ls_way w;
    memset(&w, 0, sizeof w);
    w.via_relay = o->topology == 1;
    w.adaptive = o->lockstep_adaptive;
    w.turn_ms = (uint32_t)o->lockstep_turns;
    turns_label(&w);
    sim_ls_result r;
    code = sim_ls_run(o, &w, &r);
    if (code != SIM_EXIT_OK)
        return code;
    return finish(o, &r, 1);
}

int sim_lockstep_compare(const sim_options *o)
{
    int code = check_options(o);
    if (code != SIM_EXIT_OK)
        return code;
    sim_options base = *o;
    if (slow_link_missing(&base)) {
        sim_link_override *l = &base.links[base.num_links++];
        memset(l, 0, sizeof *l);
        l->a = base.players - 1;
        l->b = -1;
        snprintf(l->profile, sizeof l->profile, "terrible");
        tempo_link_profile("terrible", &l->params);
        if (!o->quiet)
            printf("machine %d is on terrible links (no --link A-* given)\n", l->a);
    }
    sim_ls_way ways[LS_WAYS];
    memset(ways, 0, sizeof ways);
    ways[0].kind = SIM_LS_FRAME_MESH;
    snprintf(ways[0].label, sizeof ways[0].label, "frame lockstep, %d fr", sim_ls_frame_delay(&base));
    ways[1].turn_ms = sim_ls_turn_ms(&base);
    turns_label(&ways[1]);
    ways[2].adaptive = true;
    turns_label(&ways[2]);
    ways[3].kind = SIM_LS_RELAY;
    snprintf(ways[3].label, sizeof ways[3].label, "rollback (relay)");
    ways[4].kind = SIM_LS_ROLLBACK_MESH;
    snprintf(ways[4].label, sizeof ways[4].label, "rollback (mesh)");
    sim_ls_result rows[LS_WAYS];
    for (int k = 0; k < LS_WAYS; k++) {
        code = sim_ls_run(&base, &ways[k], &rows[k]);
        if (code != SIM_EXIT_OK) {
            for (int j = 0; j < k; j++)
                free(rows[j].series);
            return code;
        }
    }
    return finish(o, rows, LS_WAYS);
}
