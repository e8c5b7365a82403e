/* SPDX-License-Identifier: MIT */
/*
 * sim_p2p.c — tempo-sim's network mode from the command line's point of
 * view: check what only the machine count can tell, run one match (or hand
 * over to --compare), show progress, print the summary, write the JSON, the
 * HTML report and the CSV, and turn the verdict into the exit code.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_out.h"
#include "sim_lockstep.h"
#include "sim_match.h"

/* Checks that need the number of machines; the parser did the rest. */
int sim_p2p_check(const sim_options *o)
{
    char msg[128];
    if (!o->hosts_set && o->local_per_peer > o->players)
        return sim_usage_error("--local-per-peer is larger than --players");
    int peers = sim_match_peers(o), machines = peers + o->spectators;
    for (int q = 0; q < peers; q++) {
        int hosted = 0;
        for (int p = 0; p < o->players; p++)
            hosted += sim_player_peer(o, p) == q;
        if (!hosted) {
            snprintf(msg, sizeof msg, "peer %d hosts no player", q);
            return sim_usage_error(msg);
        }
    }
    if (o->topology == 1 && o->spectators > 0)
        return sim_usage_error("spectators watch a peer of a mesh; a relay match has none (--topology relay)");
    if (peers < 2)
        return sim_usage_error("a network match needs at least 2 peers (players / local-per-peer)");
    if (machines > SIM_MAX_MACHINES) {
        snprintf(msg, sizeof msg, "%d peers + %d spectators: at most %d machines", peers,
                 o->spectators, SIM_MAX_MACHINES);
        return sim_usage_error(msg);
    }
    for (int k = 0; k < o->num_links; k++)
        if (o->links[k].a >= machines || o->links[k].b >= machines || o->links[k].a == o->links[k].b) {
            snprintf(msg, sizeof msg, "--link %d-%d: no such pair of machines (0..%d)", o->links[k].a,
                     o->links[k].b, machines - 1);
            return sim_usage_error(msg);
        }
    for (int k = 0; k < o->spectators && machines <= SIM_MAX_MACHINES; k++)
        if (o->spectator_host[k] >= peers) {
            snprintf(msg, sizeof msg, "spectator %d watches peer %d; there are %d peers", k,
                     o->spectator_host[k], peers);
            return sim_usage_error(msg);
        }
    for (int k = 0; k < o->num_blackouts; k++) {
        const sim_blackout *b = &o->blackouts[k];
        if (b->a >= machines || b->b >= machines || b->a == b->b || b->to_us < b->from_us) {
            snprintf(msg, sizeof msg, "blackout %d-%d: no such pair of machines (0..%d)", b->a, b->b,
                     machines - 1);
            return sim_usage_error(msg);
        }
    }
    for (int k = 0; k < o->num_hiccups + o->num_drops; k++) {
        const sim_fault *f = k < o->num_hiccups ? &o->hiccups[k] : &o->drops[k - o->num_hiccups];
        if (f->peer >= machines) {
            snprintf(msg, sizeof msg, "%s names machine %d; there are %d", k < o->num_hiccups ?
                     "--hiccup" : "--drop-peer", f->peer, machines);
            return sim_usage_error(msg);
        }
    }
    for (int i = machines; i < SIM_MAX_MACHINES; i++)
        if (o->clock_drift_pct[i] != 0.0 || o->start_skew_ms[i] != 0) {
            snprintf(msg, sizeof msg, "--clock-drift/--start-skew name machine %d; there are %d", i,
                     machines);
            return sim_usage_error(msg);
        }
    if (o->max_prediction > 0 && o->input_delay > o->max_prediction)
        return sim_usage_error("--input-delay is larger than --max-prediction");
    return SIM_EXIT_OK;
}

/* ---- progress on stderr ------------------------------------------------------------ */

typedef struct progress {
    bool tty;
    int last_line; /* without a terminal: the last quarter printed */
} progress;

static void show_progress(void *ctx, int32_t done, int32_t total)
{
    progress *p = ctx;
    int pct = (int)(done * 100LL / total);
    if (p->tty) {
        char bar[41];
        int fill = pct * 40 / 100;
        for (int k = 0; k < 40; k++)
            bar[k] = k < fill ? '#' : '.';
        bar[40] = '\0';
        fprintf(stderr, "\r[%s] %3d%%  frame %" PRId32 " of %" PRId32, bar, pct, done, total);
        if (done >= total)
            fprintf(stderr, "\n");
    } else if (pct / 25 > p->last_line) {
        p->last_line = pct / 25;
        fprintf(stderr, "tempo-sim: %d%% (frame %" PRId32 " of %" PRId32 ")\n", pct, done, total);
    }
}

/* ---- outputs (report/sim_out.h) ------------------------------------------------------------ */

/* What the writer's callbacks read: the run and the soak's verdict on it. */
typedef struct p2p_out {
    const sim_options *o;
    const sim_result *r;
    const sim_timeline *tl;
    bool passed;
    const char *why;
} p2p_out;

static void p2p_json(sim_json *j, const void *ctx)
{
    const p2p_out *c = ctx;
    sim_json_match(j, c->o, c->r);
    sim_json_text(j, "soak_check", c->why);
}

/* The summary, then the soak's verdict on this run in one line. */
static void p2p_text(FILE *f, const void *ctx)
{
    const p2p_out *c = ctx;
    const sim_result *r = c->r;
    sim_print_summary(f, c->o, r);
    double wait = 0.0;
    for (int i = 0; i < r->npeers; i++)
        if (r->peer[i].longest_wait_s > wait && !r->peer[i].dropped && !r->peer[i].cut_off)
            wait = r->peer[i].longest_wait_s;
    /* heal_s and heal_frame are both 0 when no fault began in the match:
     * then there is nothing to recover from, and no heal to speak of. */
    bool faulted = r->heal_s > 0.0 || r->heal_frame > 0;
    if (c->passed && faulted)
        fprintf(f, "soak checks: passed (rollbacks within the window; network healed at %.1f s, frame %" PRId32
                   "; longest wait for a frame after it %.2f s; last frame %.1f s later)\n",
                r->heal_s, r->heal_frame, wait, r->match_s - r->heal_s);
    else if (c->passed)
        fprintf(f, "soak checks: passed (rollbacks within the window; no network fault during the match; "
                   "longest wait for a frame %.2f s)\n", wait);
    else
        fprintf(f, "soak checks: FAILED - %s\n", c->why);
}

static bool p2p_csv(FILE *f, const void *ctx)
{
    return sim_csv_rows(f, ((const p2p_out *)ctx)->tl);
}

/* "4 players", "8 players on 4 machines", "... and a spectator". */
static void who_plays(const sim_options *o, char *buf, size_t size)
{
    int machines = sim_match_peers(o);
    int n = snprintf(buf, size, "%d player%s", o->players, o->players == 1 ? "" : "s");
    if (machines != o->players && n > 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, " on %d machine%s", machines, machines == 1 ? "" : "s");
    if (o->spectators > 0 && n > 0 && (size_t)n < size) {
        if (o->spectators == 1)
            snprintf(buf + n, size - (size_t)n, " and a spectator");
        else
            snprintf(buf + n, size - (size_t)n, " and %d spectators", o->spectators);
    }
}

static bool p2p_html(FILE *f, const void *ctx)
{
    const sim_options *o = ((const p2p_out *)ctx)->o;
    const sim_result *r = ((const p2p_out *)ctx)->r;
    char title[160], who[64], scenario[768];
    int links_overridden = o->num_links;
    who_plays(o, who, sizeof who);
    snprintf(title, sizeof title, "%s, %s%s, %.0f s", who, o->profile,
             links_overridden ? " + per-link profiles" : "", o->frames / 60.0);
    if (links_overridden == 1)
        snprintf(title, sizeof title, "%s, %s + %s%s, %.0f s", who, o->profile,
                 o->links[0].profile[0] ? o->links[0].profile : "a custom link",
                 o->links[0].custom && o->links[0].profile[0] ? " (changed)" : "", o->frames / 60.0);
    sim_describe(o, scenario, sizeof scenario);
    sim_report_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.title = title;
    meta.scenario = scenario;
    meta.command = o->command;
    char *html = sim_summary_html(o, r);
    meta.summary_html = html;
    meta.match_s = r->match_s;         /* the figure the terminal prints, not the last sample's time */
    meta.converged = r->converged;
    meta.desyncs = r->desyncs;
    meta.has_checks = true;
    for (int i = 0; i < r->nmach; i++) {
        meta.checks_made += r->peer[i].desync_checks;
        meta.checks_passed += r->peer[i].desync_checks_passed;
    }
    meta.players = sim_match_peers(o);
    meta.spectators = o->spectators;
    char why[200];
    meta.hostile = r->security.num_actors == 0 ? 0 : sim_security_failed(o, r, why, sizeof why) ? 2 : 1;
    sim_report_ctx page = {((const p2p_out *)ctx)->tl, &meta};
    bool ok = sim_report_page(f, &page);
    free(html);
    return ok;
}

int sim_p2p(const sim_options *o)
{
    int code;
    bool want_timeline = o->report_path || o->csv_path;
    sim_timeline tl;
    memset(&tl, 0, sizeof tl);
    progress pr = {isatty(STDERR_FILENO) != 0, 0};
    sim_result *r = calloc(1, sizeof *r);
    if (!r)
        return sim_usage_error("out of memory");
    code = sim_match_run(o, r, want_timeline ? &tl : NULL, o->quiet ? NULL : show_progress, &pr);
    if (code != SIM_EXIT_OK) {
        free(r);
        return code;
    }
    char why[256];
    bool passed = sim_soak_check(o, r, why, sizeof why);
    p2p_out c = {o, r, &tl, passed, why};
    sim_out w = {.ctx = &c, .text = p2p_text, .json = p2p_json, .html = p2p_html, .csv = p2p_csv};
    code = sim_out_write(o, &w);
    if (code == SIM_EXIT_OK && !passed)
        code = SIM_EXIT_MISMATCH;
    sim_timeline_free(&tl);
    free(r);
    return code;
}
