/* SPDX-License-Identifier: MIT */
/*
 * sim_compare.c — tempo-sim --compare: the same match (seed, profile, faults)
 * once per time sync method, per input delay, per prediction window or per
 * topology, side by side.
 *
 * Only the compared setting changes between runs, so every difference in the
 * table is that setting's doing (and the seed's luck: compare over several
 * seeds before concluding). Per-run numbers are totals over the live players'
 * peers, except skew and delay, which are means over them.
 *
 * input-delay: delays 0..4, then the automatic delay twice, following
 * INVERSUS's signal (half the round trip) and tempo's measured frame lag,
 * with the same thresholds. A match given no --profile and no --link is
 * played on lan, broadband, transatlantic and mobile in turn.
 *
 * topology: the match as a mesh and through the relay, one row per member
 * and topology: what the relay saves (waiting) and what it costs (rollback
 * depth, mispredicted frames, skew, bandwidth). Both run unsealed, as a
 * relay match must (sealing needs a backend's tokens), so their bytes
 * compare.
 *
 * rtt: the match of a scenario with a link step ("link A-B ... from
 * TIME"), its sessions measuring round trips from pings alone (every
 * 500 ms, the library's period) and from the acks every INPUT carries
 * (pings too): how long after the step each estimate came within 10% of
 * the new round trip and stayed, measured alike at every tick.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_out.h"
#include "sim_match.h"
#include "sim_net.h"

#define SIM_COMPARE_MAX 32

typedef struct compare_row {
    char label[32];
    sim_options o;
    sim_result r;
    double skew, depth_mean, mispredicted_per_s, delay_mean;
    uint64_t stall_ticks, timesync_stalls, waiting_ticks, rollbacks;
    int max_depth;
} compare_row;

static const char *compare_name(sim_compare k)
{
    return k == SIM_COMPARE_TIMESYNC      ? "timesync"
           : k == SIM_COMPARE_INPUT_DELAY ? "input-delay"
           : k == SIM_COMPARE_TOPOLOGY    ? "topology"
           : k == SIM_COMPARE_RTT         ? "rtt"
                                          : "max-prediction";
}

/* The first column's heading in the table and its key in the JSON rows. */
static const char *row_heading(sim_compare k, bool json)
{
    if (k == SIM_COMPARE_TIMESYNC)
        return "method";
    if (k == SIM_COMPARE_INPUT_DELAY)
        return json ? "input_delay" : "input delay";
    if (k == SIM_COMPARE_TOPOLOGY)
        return "topology";
    if (k == SIM_COMPARE_RTT)
        return json ? "round_trips_from" : "round trips from";
    return json ? "max_prediction" : "max prediction";
}

/* input-delay over several profiles: only for a match that names none. */
static bool sweeps_profiles(const sim_options *base)
{
    return base->compare == SIM_COMPARE_INPUT_DELAY && base->mode == SIM_MODE_MATCH && !base->profile_given &&
           base->num_links == 0;
}

static int delay_rows(const sim_options *base, const char *profile, compare_row *rows)
{
    int n = 0;
    for (int d = 0; d <= 6; d++, n++) {
        rows[n].o = *base;
        rows[n].o.profile = profile;
        rows[n].o.input_delay_auto = d >= 5;
        rows[n].o.input_delay = d >= 5 ? 0 : d;
        rows[n].o.delay_signal = d == 6 ? TEMPO_DELAY_FRAME_LAG : TEMPO_DELAY_HALF_RTT;
        if (d >= 5)
            snprintf(rows[n].label, sizeof rows[n].label, "auto, %s", d == 5 ? "half RTT" : "frame lag");
        else
            snprintf(rows[n].label, sizeof rows[n].label, "%d", d);
    }
    return n;
}

static int variants(const sim_options *base, compare_row *rows)
{
    int n = 0;
    if (base->compare == SIM_COMPARE_TIMESYNC) {
        static const tempo_timesync_method methods[] = {TEMPO_TIMESYNC_INVERSUS, TEMPO_TIMESYNC_INVERSUS_ARTICLE,
                                                        TEMPO_TIMESYNC_GGPO, TEMPO_TIMESYNC_LEAD,
                                                        TEMPO_TIMESYNC_NONE};
        for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++, n++) {
            rows[n].o = *base;
            rows[n].o.timesync = methods[m];
            snprintf(rows[n].label, sizeof rows[n].label, "%s", sim_timesync_name(methods[m]));
        }
        return n;
    }
    if (base->compare == SIM_COMPARE_MAX_PREDICTION) {
        /* Windows a fixed input delay fits in (the delay may not exceed it). */
        for (int w = 4; w <= 24; w += 4) {
            if (!base->input_delay_auto && base->input_delay > w)
                continue;
            rows[n].o = *base;
            rows[n].o.max_prediction = w;
            snprintf(rows[n].label, sizeof rows[n].label, "%d", w);
            n++;
        }
        return n;
    }
    if (base->compare == SIM_COMPARE_TOPOLOGY) {
        for (int t = 0; t <= 1; t++, n++) {
            rows[n].o = *base;
            rows[n].o.topology = t;
            rows[n].o.seal = 0;
            snprintf(rows[n].label, sizeof rows[n].label, "%s", t ? "relay" : "mesh");
        }
        return n;
    }
    if (base->compare == SIM_COMPARE_RTT) {
        for (int acks = 0; acks <= 1; acks++, n++) {
            rows[n].o = *base;
            rows[n].o.ping_only = !acks;
            snprintf(rows[n].label, sizeof rows[n].label, "%s", acks ? "acks and pings" : "pings alone");
        }
        return n;
    }
    if (!sweeps_profiles(base))
        return delay_rows(base, base->profile, rows);
    static const char *const profiles[] = {"lan", "broadband", "transatlantic", "mobile"};
    for (size_t k = 0; k < sizeof profiles / sizeof profiles[0]; k++)
        n += delay_rows(base, profiles[k], rows + n);
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
    row->skew = sim_mean(skew, (uint64_t)n_skew, NAN);
    row->delay_mean = sim_mean(delay, (uint64_t)n, NAN);
    row->depth_mean = sim_mean(depth_sum, row->rollbacks, 0.0);
    row->mispredicted_per_s = sim_per_s(mispredicted, r->match_s);
}

/* The slow machine of a topology comparison: the first with a link line
 * of its own (A-*), -1 if none. */
static int slow_peer(const sim_options *o)
{
    for (int k = 0; k < o->num_links; k++)
        if (o->links[k].b < 0)
            return o->links[k].a;
    return -1;
}

static void print_topology(FILE *f, const sim_options *base, const compare_row *rows, int n)
{
    static const char *const columns[] = {"topology", "peer", "waiting ticks", "stall ticks", "rollbacks/s",
                                          "rollback depth mean / max", "mispredicted frames", "frame skew",
                                          "up bytes/s", "down bytes/s"};
    sim_out_table_head(f, columns, 10);
    int slow = slow_peer(base);
    for (int k = 0; k < n; k++) {
        const sim_result *r = &rows[k].r;
        for (int i = 0; i < r->npeers; i++) {
            const sim_peer_result *p = &r->peer[i];
            if (p->spectator)
                continue;
            fprintf(f, "| %s | %d%s | %" PRIu64 " | %" PRIu64 " | %.2f | %.2f / %d | %" PRIu64
                       " | %.3f | %.0f | %.0f |\n",
                    rows[k].label, i, i == slow ? " (slow)" : p->dropped ? " (dropped)" : "", p->waiting_ticks,
                    p->stall_ticks, sim_per_s((double)p->rollbacks, p->match_seconds),
                    p->rollback_depth_mean, p->max_rollback_depth, p->mispredicted_frames,
                    p->frame_skew_abs_mean, p->payload_bytes_per_s, p->payload_in_bytes_per_s);
        }
        if (rows[k].o.topology == 1 && r->match_s > 0)
            fprintf(f, "| relay | the relay | - | - | - | - | - | - | %.0f | %.0f |\n",
                    (double)r->relay_bytes_out / r->match_s, (double)r->relay_bytes_in / r->match_s);
    }
    fprintf(f, "\nPer peer, measured from outside alike in both: waiting ticks (no frame for want of an "
               "input), stall ticks (time sync), rollbacks a second, rollback depth, mispredicted frames "
               "((player, frame) pairs first simulated with a wrong input), frame skew (true mean |own "
               "frame - another peer's|), payload sent and read, over the match part (the relay's own "
               "likewise). Both unsealed.\n");
    for (int k = 0; k < n; k++)
        fprintf(f, "%s: %s\n", rows[k].label,
                rows[k].r.converged && rows[k].r.desyncs == 0 ? "converged" : "DID NOT CONVERGE");
}

/* Bytes per datagram the peers sent over the whole run. */
static double bytes_per_datagram(const sim_result *r)
{
    uint64_t bytes = 0, packets = 0;
    for (int i = 0; i < r->npeers; i++)
        if (!r->peer[i].spectator) {
            bytes += r->peer[i].bytes_sent;
            packets += r->peer[i].packets_sent;
        }
    return sim_mean((double)bytes, packets, NAN);
}

static void print_rtt(FILE *f, const compare_row *rows, int n)
{
    static const char *const columns[] = {"round trips from", "network round trip (ms)", "estimate before (ms)",
                                          "target after (ms)", "time to within 10% (ms)",
                                          "RTTVAR at the end (ms)", "arrival jitter at the end (ms)",
                                          "bytes per datagram", "converged"};
    sim_out_table_head(f, columns, 9);
    for (int k = 0; k < n; k++) {
        const sim_result *r = &rows[k].r;
        char settle[32];
        if (isnan(r->step_settle_ms))
            snprintf(settle, sizeof settle, "never");
        else
            snprintf(settle, sizeof settle, "%.0f", r->step_settle_ms);
        fprintf(f, "| %s | %.0f -> %.0f | %.1f | %.1f | %s | %.1f | %.1f (link: %.1f) | %.1f | %s |\n",
                rows[k].label, r->step_old_ms, r->step_network_ms, r->step_before_ms, r->step_target_ms, settle,
                r->step_rttvar_ms, r->step_arrival_jitter_ms, r->step_jitter_truth_ms, bytes_per_datagram(r),
                r->converged && r->desyncs == 0 ? "yes" : "NO");
    }
    fprintf(f, "\nThe estimate is each session's smoothed round trip (tempo_endpoint_stats.rtt_ms, RFC "
               "6298), read at every tick of both machines of each pair the step changed. It holds the "
               "network's round trip and each end's wait for its next tick, which the step leaves as it "
               "was: so its target is the estimate just before the step moved by the network's change. "
               "The time runs from the step until the last of them came within 10%% of its target and "
               "stayed there to the end. RTTVAR: the round trip's mean deviation "
               "(tempo_endpoint_stats.jitter_ms, RFC 6298). Arrival jitter: "
               "tempo_endpoint_stats.arrival_jitter_ms (RFC 3550, over the INPUTs' arrivals, in both "
               "rows); the link's: what it should read, 2s/sqrt(pi) for the simulated link's standard "
               "deviation s (a scenario's jitter_ms). Bytes per datagram: the peers' UDP payload sent "
               "over the run.\n");
}

static void print_table(FILE *f, const sim_options *base, const compare_row *rows, int n)
{
    char desc[768];
    sim_describe(base, desc, sizeof desc);
    bool sweep = sweeps_profiles(base);
    if (sweep)
        fprintf(f, "tempo-sim --compare %s: %s; profiles lan, broadband, transatlantic, mobile in turn\n\n",
                compare_name(base->compare), desc);
    else
        fprintf(f, "tempo-sim --compare %s: %s\n\n", compare_name(base->compare), desc);
    if (base->compare == SIM_COMPARE_TOPOLOGY) {
        print_topology(f, base, rows, n);
        return;
    }
    if (base->compare == SIM_COMPARE_RTT) {
        print_rtt(f, rows, n);
        return;
    }
    bool profile_column = base->compare == SIM_COMPARE_INPUT_DELAY;
    const char *columns[] = {"profile", row_heading(base->compare, false), "frame skew (mean abs, frames)",
                             "stall ticks", "time-sync stalls", "waiting ticks", "rollbacks",
                             "mean rollback depth", "deepest rollback", "mispredicted frames/s",
                             "input delay used (mean)", "converged"};
    sim_out_table_head(f, columns + !profile_column, 12 - !profile_column);
    for (int k = 0; k < n; k++) {
        const compare_row *w = &rows[k];
        if (profile_column)
            fprintf(f, "| %s ", w->o.profile);
        fprintf(f, "| %s | %.3f | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %.2f | %d | %.1f | %.2f | %s |\n",
                w->label, w->skew, w->stall_ticks, w->timesync_stalls, w->waiting_ticks, w->rollbacks,
                w->depth_mean, w->max_depth, w->mispredicted_per_s, w->delay_mean,
                w->r.converged && w->r.desyncs == 0 ? "yes" : "NO");
    }
    fprintf(f, "\nTotals over the players' peers; frame skew and input delay are means over them.%s\n",
            base->compare == SIM_COMPARE_INPUT_DELAY
                ? " auto, half RTT: the automatic delay on half the worst round trip in frames "
                  "(INVERSUS's signal, the library's default); auto, frame lag: on the measured age of "
                  "arriving inputs (about one way plus 1.5 frames). Same thresholds, 2/3/6/8 up and "
                  "1/2/5/7 down."
                : "");
}

static void json_peers(sim_json *j, const sim_result *r)
{
    sim_json_begin_array(j, "peers");
    for (int i = 0; i < r->npeers; i++) {
        const sim_peer_result *p = &r->peer[i];
        if (p->spectator)
            continue;
        sim_json_begin_object(j, NULL);
        sim_json_int(j, "peer", i);
        sim_json_uint(j, "waiting_ticks", p->waiting_ticks);
        sim_json_uint(j, "stall_ticks", p->stall_ticks);
        sim_json_uint(j, "rollbacks", p->rollbacks);
        sim_json_double(j, "rollback_depth_mean", p->rollback_depth_mean);
        sim_json_int(j, "max_rollback_depth", p->max_rollback_depth);
        sim_json_uint(j, "mispredicted_frames", p->mispredicted_frames);
        sim_json_double(j, "frame_skew_abs_mean", p->frame_skew_abs_mean);
        sim_json_double(j, "payload_bytes_per_s", p->payload_bytes_per_s);
        sim_json_double(j, "payload_in_bytes_per_s", p->payload_in_bytes_per_s);
        sim_json_end_object(j);
    }
    sim_json_end_array(j);
}

/* What the writer's callbacks read (report/sim_out.h). */
typedef struct compare_out {
    const sim_options *base;
    const compare_row *rows;
    int n;
    double t0; /* wall clock when the runs began */
} compare_out;

/* How long the runs took, on stderr: the table stays the same run to run. */
static void compare_note(const void *ctx)
{
    const compare_out *c = ctx;
    fprintf(stderr, "%d runs in %.2f s wall\n", c->n, sim_wall_seconds() - c->t0);
}

static void compare_text(FILE *f, const void *ctx)
{
    const compare_out *c = ctx;
    print_table(f, c->base, c->rows, c->n);
}

static void compare_json(sim_json *j, const void *ctx)
{
    const sim_options *base = ((const compare_out *)ctx)->base;
    const compare_row *rows = ((const compare_out *)ctx)->rows;
    int n = ((const compare_out *)ctx)->n;
    bool all_ok = true;
    uint64_t desyncs = 0;
    for (int k = 0; k < n; k++) {
        all_ok = all_ok && rows[k].r.converged;
        desyncs += rows[k].r.desyncs;
    }
    sim_json_string(j, "mode", "p2p");
    sim_json_string(j, "compare", compare_name(base->compare));
    sim_json_string(j, "profile", sweeps_profiles(base) ? "lan,broadband,transatlantic,mobile" : base->profile);
    sim_json_int(j, "players", base->players);
    sim_json_int(j, "frames", base->frames);
    sim_json_uint(j, "seed", base->seed);
    sim_json_bool(j, "converged", all_ok);
    sim_json_uint(j, "desyncs", desyncs);
    sim_json_begin_array(j, "rows");
    for (int k = 0; k < n; k++) {
        const compare_row *w = &rows[k];
        sim_json_begin_object(j, NULL);
        sim_json_string(j, row_heading(base->compare, true), w->label);
        sim_json_string(j, "profile", w->o.profile);
        sim_json_double(j, "frame_skew_abs_mean", w->skew);
        sim_json_uint(j, "stall_ticks", w->stall_ticks);
        sim_json_uint(j, "timesync_stalls", w->timesync_stalls);
        sim_json_uint(j, "waiting_ticks", w->waiting_ticks);
        sim_json_int(j, "max_rollback_depth", w->max_depth);
        sim_json_uint(j, "rollbacks", w->rollbacks);
        sim_json_double(j, "rollback_depth_mean", w->depth_mean);
        sim_json_double(j, "mispredicted_frames_per_s", w->mispredicted_per_s);
        sim_json_double(j, "input_delay_mean", w->delay_mean);
        sim_json_bool(j, "converged", w->r.converged);
        sim_json_uint(j, "desyncs", w->r.desyncs);
        if (base->compare == SIM_COMPARE_RTT) {
            sim_json_double(j, "step_network_before_ms", w->r.step_old_ms);
            sim_json_double(j, "step_network_after_ms", w->r.step_network_ms);
            sim_json_double(j, "step_before_ms", w->r.step_before_ms);
            sim_json_double(j, "step_target_ms", w->r.step_target_ms);
            sim_json_double(j, "step_settle_ms", w->r.step_settle_ms);
            sim_json_double(j, "arrival_jitter_ms", w->r.step_arrival_jitter_ms);
            sim_json_double(j, "arrival_jitter_link_ms", w->r.step_jitter_truth_ms);
            sim_json_double(j, "rttvar_ms", w->r.step_rttvar_ms);
            sim_json_double(j, "bytes_per_datagram", bytes_per_datagram(&w->r));
        }
        if (base->compare == SIM_COMPARE_TOPOLOGY) {
            json_peers(j, &w->r);
            sim_json_uint(j, "relay_bytes_in", w->r.relay_bytes_in);
            sim_json_uint(j, "relay_bytes_out", w->r.relay_bytes_out);
        }
        sim_json_end_object(j);
    }
    sim_json_end_array(j);
    sim_json_begin_array(j, "runs");
    for (int k = 0; k < n; k++) {
        sim_json_begin_object(j, NULL);
        sim_json_string(j, "label", rows[k].label);
        sim_json_match(j, &rows[k].o, &rows[k].r);
        sim_json_end_object(j);
    }
    sim_json_end_array(j);
}

int sim_p2p_compare(const sim_options *o)
{
    if (o->compare == SIM_COMPARE_TOPOLOGY && o->spectators > 0) {
        fprintf(stderr, "tempo-sim: --compare topology: a relay match has no spectators (--spectators 0)\n");
        return SIM_EXIT_USAGE;
    }
    sim_link_override step;
    if (o->compare == SIM_COMPARE_RTT && !sim_net_last_step(o, &step)) {
        fprintf(stderr, "tempo-sim: --compare rtt: the scenario needs a link step (link A-B ... from TIME)\n");
        return SIM_EXIT_USAGE;
    }
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
    compare_out c = {o, rows, n, t0};
    sim_out w = {.ctx = &c, .text = compare_text, .json = compare_json, .note = compare_note};
    int written = sim_out_write(o, &w);
    if (written != SIM_EXIT_OK)
        code = written;
    free(rows);
    return code;
}
