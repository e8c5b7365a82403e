/* SPDX-License-Identifier: MIT */
/*
 * sim_cs_report.c — tempo-sim's client-server mode from the command line's
 * point of view: check the options, run one match (or hand --compare
 * reconciliation to sim_cs_compare.c), print the summary and the verdicts,
 * write the JSON and the HTML report, and turn the result into the exit
 * code.
 *
 * Each verdict's rule is written here once and printed with it, in the
 * terminal, the JSON and the report alike.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_out.h"
#include "sim_cs.h"

/* What only the client count can tell, and what this mode does not do. */
static int cs_validate(const sim_options *o)
{
    char msg[160];
    int machines = o->clients + 1;
    if (o->compare != SIM_COMPARE_NONE && o->compare != SIM_COMPARE_RECONCILIATION)
        return sim_usage_error("--mode client-server compares only reconciliation");
    if (o->num_drops > 0 || o->num_clock_jumps > 0)
        return sim_usage_error("--mode client-server has no drops or clock jumps (hiccups and blackouts it has)");
    if (o->num_hostiles > 0 || o->attack > 0)
        return sim_usage_error("--mode client-server has no hostile actors");
    if (o->csv_path || o->record_prefix)
        return sim_usage_error("--mode client-server writes no CSV and no replay files (--json, --report)");
    for (int k = 0; k < o->num_links; k++)
        if (o->links[k].a >= machines || o->links[k].b >= machines || o->links[k].a == o->links[k].b) {
            snprintf(msg, sizeof msg, "--link %d-%d: no such pair of machines (0 the server, 1..%d the clients)",
                     o->links[k].a, o->links[k].b, o->clients);
            return sim_usage_error(msg);
        }
    for (int k = 0; k < o->num_blackouts; k++) {
        const sim_blackout *b = &o->blackouts[k];
        if (b->a >= machines || b->b >= machines || b->a == b->b || b->to_us < b->from_us) {
            snprintf(msg, sizeof msg, "blackout %d-%d: no such pair of machines (0..%d)", b->a, b->b, machines - 1);
            return sim_usage_error(msg);
        }
    }
    for (int k = 0; k < o->num_hiccups; k++)
        if (o->hiccups[k].peer >= machines) {
            snprintf(msg, sizeof msg, "--hiccup names machine %d; there are %d", o->hiccups[k].peer, machines);
            return sim_usage_error(msg);
        }
    for (int i = machines; i < SIM_MAX_MACHINES; i++)
        if (o->clock_drift_pct[i] != 0.0 || o->start_skew_ms[i] != 0) {
            snprintf(msg, sizeof msg, "--clock-drift/--start-skew name machine %d; there are %d", i, machines);
            return sim_usage_error(msg);
        }
    return SIM_EXIT_OK;
}

const char *sim_cs_reconcile_name(tempo_reconcile_mode m)
{
    return m == TEMPO_RECONCILE_REPLAY ? "replay" : m == TEMPO_RECONCILE_NONE ? "none" : "dumb";
}

void sim_cs_describe(const sim_options *o, const sim_cs_result *r, char *buf, size_t size)
{
    snprintf(buf, size, "%d client%s, %s, %s%s, %.0f s (%d ticks), seed %" PRIu64 ", %s, reconcile %s",
             o->clients, o->clients == 1 ? "" : "s", r->game ? r->game->name : "?", o->profile,
             o->num_links ? " + per-link profiles" : "", o->frames / 60.0, o->frames, o->seed,
             r->sealed ? "sealed" : "unsealed", sim_cs_reconcile_name(o->reconcile));
}

/* ---- verdicts ------------------------------------------------------------------------------- */

static void cs_verdict(sim_verdict *v, int kind, const char *good)
{
    v->kind = kind;
    snprintf(v->good, sizeof v->good, "%s", good);
    v->numbers[0] = '\0';
}

void sim_cs_judge(const sim_cs_result *r, sim_verdict out[SIM_CS_VERDICTS])
{
    int worst = -1;
    for (int i = 0; i < r->clients; i++)
        if (r->c[i].connected && (worst < 0 || r->c[i].late_after_per_min > r->c[worst].late_after_per_min))
            worst = i;
    sim_verdict *v = &out[SIM_CS_VERDICT_LATE];
    cs_verdict(v, worst < 0 || r->faults ? SIM_VERDICT_NONE
                  : r->c[worst].late_after_per_min <= SIM_CS_GOOD_LATE_PER_MIN ? SIM_VERDICT_MEETS
                                                                               : SIM_VERDICT_MISSES,
               r->faults ? "at most 1 late input a minute per client after the first 3 s, unless a fault was "
                           "injected (one was)"
                         : "at most 1 late input a minute per client after the first 3 s");
    if (worst >= 0)
        snprintf(v->numbers, sizeof v->numbers,
                 "worst client %d: %.2f a minute after 3 s (%.2f over the whole match); mean over clients "
                 "%.2f after 3 s",
                 worst, r->c[worst].late_after_per_min, r->c[worst].late_per_min, r->late_after_per_min);

    v = &out[SIM_CS_VERDICT_DILATION];
    double bound = r->max_dilation + SIM_CS_GOOD_DILATION_SLACK;
    cs_verdict(v, r->connected == 0 ? SIM_VERDICT_NONE : r->dilation_max <= bound ? SIM_VERDICT_MEETS
                                                                                  : SIM_VERDICT_MISSES,
               "every tick a client ran was within the dilation bound of 60 Hz");
    snprintf(v->numbers, sizeof v->numbers, "largest change of a tick's length %.2f%% (bound %.2f%%)",
             r->dilation_max * 100.0, r->max_dilation * 100.0);

    v = &out[SIM_CS_VERDICT_SNAPS];
    if (r->faults) {
        cs_verdict(v, SIM_VERDICT_NONE, "no tick-sync jump later than 1 s after connecting, unless a fault "
                                        "was injected");
        snprintf(v->numbers, sizeof v->numbers, "a fault was injected; %" PRIu64 " jump%s after the first second",
                 r->snaps_after, r->snaps_after == 1 ? "" : "s");
    } else {
        cs_verdict(v, r->connected == 0 ? SIM_VERDICT_NONE : r->snaps_after == 0 ? SIM_VERDICT_MEETS
                                                                                 : SIM_VERDICT_MISSES,
                   "no tick-sync jump later than 1 s after connecting (no fault was injected)");
        snprintf(v->numbers, sizeof v->numbers, "%" PRIu64 " jump%s after the first second", r->snaps_after,
                 r->snaps_after == 1 ? "" : "s");
    }

    v = &out[SIM_CS_VERDICT_AGREE];
    if (r->agreement_expected)
        cs_verdict(v, r->agree == r->clients ? SIM_VERDICT_MEETS : SIM_VERDICT_MISSES,
                   "after the bots hold still, every client presents the server's state of the same tick");
    else
        cs_verdict(v, SIM_VERDICT_NONE, "reconcile none shows old snapshots stepped forward: no agreement "
                                        "is expected");
    snprintf(v->numbers, sizeof v->numbers, "%d of %d clients agree", r->agree, r->clients);
}

/* ---- the terminal ---------------------------------------------------------------------------- */

static const char *const cs_verdict_word[] = {"no verdict", "meets", "MISSES"};
static const char *const cs_verdict_title[SIM_CS_VERDICTS] = {"late inputs", "dilation", "tick-sync jumps",
                                                              "agreement"};

static void cs_row(FILE *f, const char *name, const sim_cs_client_result *c, bool all, const sim_cs_result *r)
{
    char resp[24], lead[24];
    double rm = all ? r->response_mean : c->response_mean;
    if (isnan(rm))
        snprintf(resp, sizeof resp, "-");
    else
        snprintf(resp, sizeof resp, "%.2f/%d", rm, all ? r->response_max : c->response_max);
    if (all || isnan(c->lead_mean))
        snprintf(lead, sizeof lead, "-");
    else
        snprintf(lead, sizeof lead, "%.1f..%.1f", c->lead_min, c->lead_max);
    fprintf(f, "%-6s %9s %5" PRIu64 " %7.1f %6.1f/%-6.1f %7.1f %6.1f/%-6.1f %6" PRIu64 " %6.2f %6.2f %10s %5.2f %4" PRIu64
               " %7.0f %7.0f %6.0f %s\n",
            name, resp, all ? r->snapbacks : c->snapbacks, all ? r->visible_per_min : c->visible_per_min,
            all ? r->visible_mean : c->visible_mean, all ? r->visible_max : c->visible_max,
            all ? r->corrections_per_min : c->corrections_per_min, all ? r->correction_mean : c->correction_mean,
            all ? r->correction_max : c->correction_max, all ? r->resim_frames : c->resim_frames,
            all ? r->late_per_min : c->late_per_min, all ? r->late_after_per_min : c->late_after_per_min, lead,
            (all ? r->dilation_max : c->dilation_max) * 100.0, all ? r->snaps_after : c->snaps_after,
            all ? r->up_bytes_per_s : c->up_bytes_per_s, all ? r->down_bytes_per_s : c->down_bytes_per_s,
            all ? r->snapshot_bytes : c->snapshot_bytes,
            all ? (r->agree == r->clients ? "all" : "NOT ALL") : !c->compared ? "-" : c->agrees ? "yes" : "NO");
}

void sim_cs_print(FILE *f, const sim_options *o, const sim_cs_result *r)
{
    char desc[256];
    sim_cs_describe(o, r, desc, sizeof desc);
    fprintf(f, "tempo-sim client-server: %s\n", desc);
    fprintf(f, "%d of %d clients connected; %.1f s of match time in %.2f s\n\n", r->connected, r->clients,
            r->match_s, r->wall_s);
    fprintf(f, "client response  snap-  visible corrections  library corrections  resim  late/min      lead ticks "
               "dil.%% snap     up    down  snap.  agrees\n"
               "       ticks    backs   /min   mean/max       /min   mean/max      ticks  all    >3 s  (after 1 s) "
               " max >1 s    B/s     B/s  bytes\n");
    int shown = r->clients <= 16 ? r->clients : 0;
    for (int i = 0; i < shown; i++) {
        char name[16];
        snprintf(name, sizeof name, "%d", i);
        cs_row(f, name, &r->c[i], false, r);
    }
    cs_row(f, "all", NULL, true, r);
    fprintf(f, "\nresponse: ticks from a bot's input change to the first tick its client presents it (mean/max)\n"
               "visible corrections: the state shown against the same moment once a snapshot is in place, "
               "measured from outside;\nlibrary corrections: the client's stats (its prediction of a snapshot's "
               "tick against the server's); sizes in %s\n"
               "'all': means over clients per minute and per second, totals of counts, largest of maxima\n",
            r->game ? r->game->correction_unit : "");
    if (shown == 0)
        fprintf(f, "(%d clients: per-client rows are in the JSON and the report)\n", r->clients);
#ifdef NDEBUG
    const char *build = "an optimised build";
#else
    const char *build = "a debug build: compare only a Release build's number";
#endif
    fprintf(f, "server: %" PRIu64 " ticks; CPU %.3f us per client per tick (poll + advance, the game's step "
               "left out), %.3f us without simnet's send and receive (%s)\n",
            r->server_ticks, r->cpu_us_per_client_tick, r->lib_us_per_client_tick, build);
    sim_verdict v[SIM_CS_VERDICTS];
    sim_cs_judge(r, v);
    fprintf(f, "verdicts:\n");
    for (int k = 0; k < SIM_CS_VERDICTS; k++)
        fprintf(f, "  %-16s %-10s %s (good: %s)\n", cs_verdict_title[k], cs_verdict_word[v[k].kind], v[k].numbers,
                v[k].good);
    if (r->problem[0])
        fprintf(f, "problem: %s\n", r->problem);
}

/* ---- JSON ------------------------------------------------------------------------------------- */

static void cs_json_totals(sim_json *j, const sim_cs_result *r)
{
    sim_json_double(j, "response_ticks_mean", r->response_mean);
    sim_json_int(j, "response_ticks_max", r->response_max);
    sim_json_uint(j, "snapbacks", r->snapbacks);
    sim_json_uint(j, "snapbacks_after_3s", r->snapbacks_after);
    sim_json_uint(j, "visible_corrections", r->visible);
    sim_json_double(j, "visible_corrections_per_min", r->visible_per_min);
    sim_json_double(j, "visible_correction_mean", r->visible_mean);
    sim_json_double(j, "visible_correction_max", r->visible_max);
    sim_json_uint(j, "corrections", r->corrections);
    sim_json_double(j, "corrections_per_min", r->corrections_per_min);
    sim_json_double(j, "correction_mean", r->correction_mean);
    sim_json_double(j, "correction_max", r->correction_max);
    sim_json_uint(j, "resim_frames", r->resim_frames);
    sim_json_double(j, "late_inputs_per_min", r->late_per_min);
    sim_json_double(j, "late_inputs_per_min_after_3s", r->late_after_per_min);
    sim_json_double(j, "dilation_max", r->dilation_max);
    sim_json_uint(j, "snaps_after_1s", r->snaps_after);
    sim_json_double(j, "up_bytes_per_s", r->up_bytes_per_s);
    sim_json_double(j, "down_bytes_per_s", r->down_bytes_per_s);
    sim_json_double(j, "snapshot_bytes", r->snapshot_bytes);
    sim_json_int(j, "clients_agreeing", r->agree);
}

void sim_cs_json(sim_json *j, const sim_options *o, const sim_cs_result *r)
{
    sim_json_string(j, "mode", "client-server");
    sim_json_string(j, "game", r->game ? r->game->name : "");
    sim_json_int(j, "clients", o->clients);
    sim_json_string(j, "profile", o->profile);
    sim_json_int(j, "frames", o->frames);
    sim_json_uint(j, "seed", o->seed);
    sim_json_string(j, "reconcile", sim_cs_reconcile_name(o->reconcile));
    sim_json_bool(j, "sealed", r->sealed);
    sim_json_int(j, "connected", r->connected);
    sim_json_double(j, "match_seconds", r->match_s);
    sim_json_double(j, "wall_seconds", r->wall_s);
    sim_json_uint(j, "server_ticks", r->server_ticks);
    sim_json_double(j, "server_cpu_us_per_client_tick", r->cpu_us_per_client_tick);
    sim_json_double(j, "server_cpu_us_per_client_tick_without_transport", r->lib_us_per_client_tick);
#ifdef NDEBUG
    sim_json_bool(j, "optimised_build", true);
#else
    sim_json_bool(j, "optimised_build", false);
#endif
    cs_json_totals(j, r);
    sim_json_text(j, "problem", r->problem);
    sim_verdict v[SIM_CS_VERDICTS];
    sim_cs_judge(r, v);
    static const char *const keys[SIM_CS_VERDICTS] = {"late_inputs", "dilation", "snaps", "agreement"};
    static const char *const words[] = {"none", "meets", "misses"};
    sim_json_begin_object(j, "verdicts");
    for (int k = 0; k < SIM_CS_VERDICTS; k++)
        sim_json_string(j, keys[k], words[v[k].kind]);
    sim_json_end_object(j);
    sim_json_begin_array(j, "clients_detail");
    for (int i = 0; i < r->clients; i++) {
        const sim_cs_client_result *c = &r->c[i];
        sim_json_begin_object(j, NULL);
        sim_json_int(j, "client", i);
        sim_json_bool(j, "connected", c->connected);
        sim_json_double(j, "connect_seconds", c->connect_s);
        sim_json_uint(j, "input_changes", c->changes);
        sim_json_uint(j, "responses", c->responses);
        sim_json_double(j, "response_ticks_mean", c->response_mean);
        sim_json_int(j, "response_ticks_max", c->response_max);
        sim_json_uint(j, "snapbacks", c->snapbacks);
        sim_json_uint(j, "snapbacks_after_3s", c->snapbacks_after);
        sim_json_uint(j, "visible_corrections", c->visible);
        sim_json_double(j, "visible_corrections_per_min", c->visible_per_min);
        sim_json_double(j, "visible_correction_mean", c->visible_mean);
        sim_json_double(j, "visible_correction_max", c->visible_max);
        sim_json_uint(j, "corrections", c->corrections);
        sim_json_double(j, "corrections_per_min", c->corrections_per_min);
        sim_json_double(j, "correction_mean", c->correction_mean);
        sim_json_double(j, "correction_max", c->correction_max);
        sim_json_uint(j, "resim_frames", c->resim_frames);
        sim_json_uint(j, "stall_ticks", c->stall_ticks);
        sim_json_uint(j, "late_inputs", c->late_inputs);
        sim_json_uint(j, "late_inputs_after_3s", c->late_after);
        sim_json_double(j, "late_inputs_per_min", c->late_per_min);
        sim_json_double(j, "late_inputs_per_min_after_3s", c->late_after_per_min);
        sim_json_double(j, "lead_ticks_mean", c->lead_mean);
        sim_json_double(j, "lead_ticks_min", c->lead_min);
        sim_json_double(j, "lead_ticks_max", c->lead_max);
        sim_json_double(j, "true_lead_ticks_mean", c->true_lead_mean);
        sim_json_double(j, "dilation_max", c->dilation_max);
        sim_json_uint(j, "snaps", c->snaps);
        sim_json_uint(j, "snaps_after_1s", c->snaps_after);
        sim_json_double(j, "up_bytes_per_s", c->up_bytes_per_s);
        sim_json_double(j, "down_bytes_per_s", c->down_bytes_per_s);
        sim_json_double(j, "snapshot_bytes", c->snapshot_bytes);
        sim_json_uint(j, "snapshots", c->snapshots);
        sim_json_uint(j, "full_snapshots", c->full_snapshots);
        sim_json_double(j, "rtt_ms", c->rtt_ms);
        if (c->compared) {
            sim_json_int(j, "compared_tick", c->compared_frame);
            sim_json_bool(j, "agrees", c->agrees);
        } else {
            sim_json_null(j, "compared_tick");
            sim_json_null(j, "agrees");
        }
        sim_json_end_object(j);
    }
    sim_json_end_array(j);
}

/* ---- the entry point ----------------------------------------------------------------------------- */

/* What the writer's callbacks read (report/sim_out.h). */
typedef struct cs_out {
    const sim_options *o;
    const sim_cs_result *r;
    const sim_cs_timeline *tl;
} cs_out;

static void cs_text(FILE *f, const void *ctx)
{
    sim_cs_print(f, ((const cs_out *)ctx)->o, ((const cs_out *)ctx)->r);
}

static void cs_json(sim_json *j, const void *ctx)
{
    sim_cs_json(j, ((const cs_out *)ctx)->o, ((const cs_out *)ctx)->r);
}

static bool cs_html(FILE *f, const void *ctx)
{
    const cs_out *c = ctx;
    return sim_cs_html_page(f, c->o, c->r, c->tl);
}

int sim_cs(const sim_options *o)
{
    int code = cs_validate(o);
    if (code != SIM_EXIT_OK)
        return code;
    if (o->compare == SIM_COMPARE_RECONCILIATION)
        return sim_cs_compare(o);
    sim_cs_result *r = calloc(1, sizeof *r);
    sim_cs_timeline *tl = o->report_path ? calloc(1, sizeof *tl) : NULL;
    if (!r || (o->report_path && !tl)) {
        free(r);
        free(tl);
        return sim_usage_error("out of memory");
    }
    code = sim_cs_run(o, r, tl);
    if (code == SIM_EXIT_OK) {
        cs_out c = {o, r, tl};
        sim_out w = {.ctx = &c, .text = cs_text, .json = cs_json, .html = cs_html};
        code = sim_out_write(o, &w);
        if (code == SIM_EXIT_OK && r->problem[0])
            code = SIM_EXIT_MISMATCH;
        if (tl)
            sim_cs_timeline_free(tl);
    }
    free(tl);
    free(r);
    return code;
}
