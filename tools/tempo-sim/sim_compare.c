/* SPDX-License-Identifier: MIT */
/*
 * sim_compare.c — tempo-sim --compare: the same match (seed, profile, faults)
 * once per time sync method, per input delay or per prediction window, side
 * by side.
 *
 * Only the compared setting changes between runs, so every difference in the
 * table is that setting's doing (and the seed's luck: compare over several
 * seeds before concluding). Per-run numbers are totals over the live players'
 * peers, except skew and delay, which are means over them.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_match.h"

#define SIM_COMPARE_MAX 6

typedef struct compare_row {
    char label[16];
    sim_options o;
    sim_result r;
    double skew, depth_mean, mispredicted_per_s, delay_mean;
    uint64_t stall_ticks, timesync_stalls, waiting_ticks, rollbacks;
    int max_depth;
} compare_row;

static const char *compare_name(sim_compare k)
{
    return k == SIM_COMPARE_TIMESYNC ? "timesync" : k == SIM_COMPARE_INPUT_DELAY ? "input-delay" : "max-prediction";
}

/* The first column's heading in the table and its key in the JSON rows. */
static const char *row_heading(sim_compare k, bool json)
{
    if (k == SIM_COMPARE_TIMESYNC)
        return "method";
    if (k == SIM_COMPARE_INPUT_DELAY)
        return json ? "input_delay" : "input delay";
    return json ? "max_prediction" : "max prediction";
}

static int variants(const sim_options *base, compare_row *rows)
{
    int n = 0;
    if (base->compare == SIM_COMPARE_TIMESYNC) {
        for (int m = TEMPO_TIMESYNC_INVERSUS; m <= TEMPO_TIMESYNC_NONE; m++, n++) {
            rows[n].o = *base;
            rows[n].o.timesync = (tempo_timesync_method)m;
            snprintf(rows[n].label, sizeof rows[n].label, "%s", sim_timesync_name(m));
        }
        return n;
    }
    if (base->compare == SIM_COMPARE_MAX_PREDICTION) {
        /* Windows a fixed input delay fits in (the delay may not exceed it). */
        for (int w = 4; w <= 24 && n < SIM_COMPARE_MAX; w += 4) {
            if (!base->input_delay_auto && base->input_delay > w)
                continue;
            rows[n].o = *base;
            rows[n].o.max_prediction = w;
            snprintf(rows[n].label, sizeof rows[n].label, "%d", w);
            n++;
        }
        return n;
    }
    for (int d = 0; d <= 5; d++, n++) {
        rows[n].o = *base;
        rows[n].o.input_delay_auto = d == 5;
        rows[n].o.input_delay = d == 5 ? 0 : d;
        if (d == 5)
            snprintf(rows[n].label, sizeof rows[n].label, "auto");
        else
            snprintf(rows[n].label, sizeof rows[n].label, "%d", d);
    }
    return n;
}

static void summarize(compare_row *row)
{
    const sim_result *r = &row->r;
    double skew = 0, delay = 0, depth_sum = 0, mispredicted = 0;
    int n = 0, n_skew = 0;
    for (int i = 0; i < r->npeers; i++) {
        const sim_peer_result *p = &r->peer[i];
        if (p->dropped)
            continue;
        n++;
        if (isfinite(p->frame_skew_abs_mean)) {
            skew += p->frame_skew_abs_mean;
            n_skew++;
        }
        delay += p->input_delay_mean;
        row->stall_ticks += p->stall_ticks;
        row->timesync_stalls += p->timesync_stalls;
        row->waiting_ticks += p->waiting_ticks;
        row->rollbacks += p->rollbacks;
        if (p->max_rollback_depth > row->max_depth)
            row->max_depth = p->max_rollback_depth;
        depth_sum += p->rollback_depth_mean * (double)p->rollbacks;
        mispredicted += (double)p->mispredicted_frames;
    }
    row->skew = n_skew ? skew / n_skew : NAN;
    row->delay_mean = n ? delay / n : NAN;
    row->depth_mean = row->rollbacks ? depth_sum / (double)row->rollbacks : 0.0;
    row->mispredicted_per_s = r->match_s > 0 ? mispredicted / r->match_s : 0.0;
}

static void print_table(FILE *f, const sim_options *base, const compare_row *rows, int n)
{
    char desc[768];
    sim_describe(base, desc, sizeof desc);
    fprintf(f, "tempo-sim --compare %s: %s\n\n", compare_name(base->compare), desc);
    fprintf(f, "| %s | frame skew (mean abs, frames) | stall ticks | time-sync stalls | waiting ticks "
               "| rollbacks | mean rollback depth | deepest rollback | mispredicted frames/s "
               "| input delay used (mean) | converged |\n",
            row_heading(base->compare, false));
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < n; k++) {
        const compare_row *w = &rows[k];
        fprintf(f, "| %s | %.3f | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %.2f | %d | %.1f | %.2f | %s |\n",
                w->label, w->skew, w->stall_ticks, w->timesync_stalls, w->waiting_ticks, w->rollbacks,
                w->depth_mean, w->max_depth, w->mispredicted_per_s, w->delay_mean,
                w->r.converged && w->r.desyncs == 0 ? "yes" : "NO");
    }
    fprintf(f, "\nTotals over the players' peers; frame skew and input delay are means over them.\n");
}

static bool write_json(const sim_options *base, const compare_row *rows, int n)
{
    sim_json j;
    if (!sim_json_open(&j, base->json_path))
        return false;
    bool all_ok = true;
    uint64_t desyncs = 0;
    for (int k = 0; k < n; k++) {
        all_ok = all_ok && rows[k].r.converged;
        desyncs += rows[k].r.desyncs;
    }
    sim_json_string(&j, "mode", "p2p");
    sim_json_string(&j, "compare", compare_name(base->compare));
    sim_json_string(&j, "profile", base->profile);
    sim_json_int(&j, "players", base->players);
    sim_json_int(&j, "frames", base->frames);
    sim_json_uint(&j, "seed", base->seed);
    sim_json_bool(&j, "converged", all_ok);
    sim_json_uint(&j, "desyncs", desyncs);
    sim_json_begin_array(&j, "rows");
    for (int k = 0; k < n; k++) {
        const compare_row *w = &rows[k];
        sim_json_begin_object(&j, NULL);
        sim_json_string(&j, row_heading(base->compare, true), w->label);
        sim_json_double(&j, "frame_skew_abs_mean", w->skew);
        sim_json_uint(&j, "stall_ticks", w->stall_ticks);
        sim_json_uint(&j, "timesync_stalls", w->timesync_stalls);
        sim_json_uint(&j, "waiting_ticks", w->waiting_ticks);
        sim_json_int(&j, "max_rollback_depth", w->max_depth);
        sim_json_uint(&j, "rollbacks", w->rollbacks);
        sim_json_double(&j, "rollback_depth_mean", w->depth_mean);
        sim_json_double(&j, "mispredicted_frames_per_s", w->mispredicted_per_s);
        sim_json_double(&j, "input_delay_mean", w->delay_mean);
        sim_json_bool(&j, "converged", w->r.converged);
        sim_json_uint(&j, "desyncs", w->r.desyncs);
        sim_json_end_object(&j);
    }
    sim_json_end_array(&j);
    sim_json_begin_array(&j, "runs");
    for (int k = 0; k < n; k++) {
        sim_json_begin_object(&j, NULL);
        sim_json_string(&j, "label", rows[k].label);
        sim_json_match(&j, &rows[k].o, &rows[k].r);
        sim_json_end_object(&j);
    }
    sim_json_end_array(&j);
    sim_json_close(&j);
    return true;
}

int sim_compare_run(const sim_options *o)
{
    compare_row *rows = calloc(SIM_COMPARE_MAX, sizeof *rows);
    if (!rows) {
        fprintf(stderr, "tempo-sim: out of memory\n");
        return SIM_EXIT_USAGE;
    }
    int n = variants(o, rows);
    bool tty = isatty(STDERR_FILENO) && !o->quiet;
    int code = SIM_EXIT_OK;
    double t0 = sim_wall_seconds();
    for (int k = 0; k < n; k++) {
        if (tty)
            fprintf(stderr, "\rtempo-sim: run %d of %d (%s)...   ", k + 1, n, rows[k].label);
        int rc = sim_match_run(&rows[k].o, &rows[k].r, NULL, NULL, NULL);
        if (rc != SIM_EXIT_OK) {
            free(rows);
            return rc;
        }
        summarize(&rows[k]);
        if (!rows[k].r.converged || rows[k].r.desyncs)
            code = SIM_EXIT_MISMATCH;
    }
    if (tty)
        fprintf(stderr, "\r%60s\r", "");
    if (!o->quiet) {
        print_table(stdout, o, rows, n);
        printf("%d runs in %.2f s wall\n", n, sim_wall_seconds() - t0);
    }
    if (o->json_path && !write_json(o, rows, n)) {
        fprintf(stderr, "tempo-sim: cannot write %s\n", o->json_path);
        code = SIM_EXIT_USAGE;
    }
    free(rows);
    return code;
}
