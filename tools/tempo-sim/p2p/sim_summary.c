/* SPDX-License-Identifier: MIT */
/*
 * sim_summary.c — a match's results for people and programs: the scenario in
 * one line, the per-peer table (terminal and HTML), and the JSON keys.
 *
 * Every number printed here comes from sim_result; nothing is recomputed, so
 * the terminal, the report and the JSON always say the same thing.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_out.h"
#include "sim_match.h"
#include "sim_svg.h"

void sim_describe(const sim_options *o, char *buf, size_t size)
{
    buf[0] = '\0';
    int peers = sim_match_peers(o);
    if (o->hosts_set) {
        sim_append(buf, size, "%d peers (", peers);
        for (int q = 0; q < peers; q++) {
            int n = 0;
            for (int p = 0; p < o->players; p++)
                n += sim_player_peer(o, p) == q;
            sim_append(buf, size, "%s%d", q ? "+" : "", n);
        }
        sim_append(buf, size, " players)");
    } else {
        sim_append(buf, size, "%d peers x %d player%s", peers, o->local_per_peer, o->local_per_peer > 1 ? "s" : "");
        if (peers * o->local_per_peer != o->players)
            sim_append(buf, size, " (%d players)", o->players);
    }
    if (o->topology == 1)
        sim_append(buf, size, " through a relay");
    if (o->spectators)
        sim_append(buf, size, " + %d spectator%s", o->spectators, o->spectators > 1 ? "s" : "");
    for (int k = 0; k < o->spectators; k++)
        if (o->spectator_host[k])
            sim_append(buf, size, " (spectator %d watches peer %d)", k, o->spectator_host[k]);
    sim_append(buf, size, ", %s", o->profile);
    for (int k = 0; k < o->num_links; k++) {
        const sim_link_override *l = &o->links[k];
        char what[48];
        snprintf(what, sizeof what, "%s%s", l->custom && !l->profile[0] ? "custom" : l->profile,
                 l->custom && l->profile[0] ? " (changed)" : "");
        if (l->b < 0)
            sim_append(buf, size, ", peer %d's links %s", l->a, what);
        else
            sim_append(buf, size, ", link %d-%d %s", l->a, l->b, what);
    }
    sim_append(buf, size, ", %d frames (%.0f s), seed %" PRIu64, o->frames, o->frames / 60.0, o->seed);
    if (o->input_delay_auto)
        sim_append(buf, size, "; input delay auto");
    else
        sim_append(buf, size, "; input delay %d", o->input_delay);
    sim_append(buf, size, ", time sync %s, max prediction %d, %s saving, desync checks every %d frames",
        sim_timesync_name(o->timesync), o->max_prediction,
        o->save_policy == TEMPO_SAVE_SPARSE ? "sparse" : "every-frame", o->desync_interval);
    for (int i = 0; i < SIM_MAX_MACHINES; i++) {
        if (o->clock_drift_pct[i] != 0.0)
            sim_append(buf, size, "; peer %d's clock %+g%%", i, o->clock_drift_pct[i]);
        if (o->start_skew_ms[i])
            sim_append(buf, size, "; peer %d starts %" PRIu32 " ms late", i, o->start_skew_ms[i]);
    }
    for (int k = 0; k < o->num_hiccups; k++)
        sim_append(buf, size, "; peer %d freezes %" PRIu32 " ms at frame %" PRId32, o->hiccups[k].peer,
            o->hiccups[k].ms, o->hiccups[k].frame);
    for (int k = 0; k < o->num_clock_jumps; k++)
        sim_append(buf, size, "; peer %d's clock jumps %+.3f s at frame %" PRId32, o->clock_jumps[k].peer,
            (double)o->clock_jumps[k].us / 1e6, o->clock_jumps[k].frame);
    for (int k = 0; k < o->num_drops; k++)
        sim_append(buf, size, "; peer %d drops at frame %" PRId32, o->drops[k].peer, o->drops[k].frame);
    for (int k = 0; k < o->num_blackouts; k++) {
        const sim_blackout *b = &o->blackouts[k];
        if (b->b < 0)
            sim_append(buf, size, "; machine %d's links dark", b->a);
        else
            sim_append(buf, size, "; link %d-%d dark", b->a, b->b);
        sim_append(buf, size, " %.2f-%.2f s", (double)b->from_us / 1e6, (double)b->to_us / 1e6);
    }
    if (o->desync_at >= 0)
        sim_append(buf, size, "; peer 1 corrupts its state at frame %" PRId32, o->desync_at);
}

/* ---- the table ---------------------------------------------------------------- */

/* What a spectator's row means, under the table (terminal and report). */
#define SIM_SPECTATOR_NOTE                                                                        \
    "a spectator plays only confirmed frames, about a round trip behind the players: its waiting\n" \
    "ticks are the ticks it had no new confirmed frame to show, its checks compare with its host."

/* One row's cells as text; spectators and dropped peers show what applies. */
typedef struct row_text {
    char name[40], delay[16], rollbacks[16], depth[16], mispredicted[16], stalls[16],
        waiting[16], skew[16], advantage[16], rtt[16], bytes[16], checks[48];
} row_text;

static void fmt_double(char *buf, size_t size, const char *fmt, double v)
{
    if (isfinite(v))
        snprintf(buf, size, fmt, v);
    else
        snprintf(buf, size, "-");
}

static void row_cells(const sim_result *r, int i, row_text *t)
{
    const sim_peer_result *p = &r->peer[i];
    memset(t, 0, sizeof *t);
    if (p->spectator)
        snprintf(t->name, sizeof t->name, "spectator %d", i - r->npeers);
    else
        snprintf(t->name, sizeof t->name, "peer %d%s", i, p->dropped ? " (dropped)" : p->cut_off ? " (cut off)" : "");
    double secs = p->match_seconds > 0 ? p->match_seconds : 1.0;
    if (p->spectator) {
        snprintf(t->delay, sizeof t->delay, "-");
        snprintf(t->rollbacks, sizeof t->rollbacks, "-");
        snprintf(t->depth, sizeof t->depth, "-");
        snprintf(t->mispredicted, sizeof t->mispredicted, "-");
        snprintf(t->stalls, sizeof t->stalls, "-");
    } else {
        snprintf(t->delay, sizeof t->delay, "%.2f / %d", p->input_delay_mean, p->input_delay_final);
        snprintf(t->rollbacks, sizeof t->rollbacks, "%.2f", (double)p->rollbacks / secs);
        snprintf(t->depth, sizeof t->depth, "%.2f / %d", p->rollback_depth_mean, p->max_rollback_depth);
        snprintf(t->mispredicted, sizeof t->mispredicted, "%" PRIu64, p->mispredicted_frames);
        snprintf(t->stalls, sizeof t->stalls, "%" PRIu64, p->stall_ticks);
    }
    snprintf(t->waiting, sizeof t->waiting, "%" PRIu64, p->waiting_ticks);
    fmt_double(t->skew, sizeof t->skew, "%.3f", p->frame_skew_abs_mean);
    fmt_double(t->advantage, sizeof t->advantage, "%+.2f", p->frame_advantage_mean);
    fmt_double(t->rtt, sizeof t->rtt, "%.1f", p->rtt_ms_mean);
    snprintf(t->bytes, sizeof t->bytes, "%.0f", p->payload_bytes_per_s);
    if (p->desync_checks_expected >= 0)
        snprintf(t->checks, sizeof t->checks, "%" PRIu64 " / %" PRIu64 " of %" PRId64, p->desync_checks_passed,
                 p->desync_checks, p->desync_checks_expected);
    else
        snprintf(t->checks, sizeof t->checks, "%" PRIu64 " / %" PRIu64, p->desync_checks_passed,
                 p->desync_checks);
}

/* Short headings: the report page is narrow and has its own per-peer table. */
static const char *const sim_headers[] = {
    "machine", "input delay mean / end", "rollbacks /s", "depth mean / max", "mispredicted",
    "stalls", "waiting", "true skew", "advantage (est.)", "RTT ms", "bytes /s", "checks passed / made of expected",
};

void sim_print_summary(FILE *f, const sim_options *o, const sim_result *r)
{
    char desc[768];
    sim_describe(o, desc, sizeof desc);
    fprintf(f, "tempo-sim: %s\n\n", desc);
    fprintf(f, "%-18s %-12s %-11s %-12s %-12s %-6s %-7s %-6s %-6s %-7s %-8s %s\n", "", "input delay",
            "rollbacks", "rollback", "mispredicted", "stall", "waiting", "frame", "frame", "RTT",
            "payload", "desync checks");
    fprintf(f, "%-18s %-12s %-11s %-12s %-12s %-6s %-7s %-6s %-6s %-7s %-8s %s\n", "machine",
            "mean / end", "per second", "depth mean/max", "frames", "ticks", "ticks", "skew",
            "adv.", "ms", "bytes/s", "passed / made of expected");
    for (int i = 0; i < r->nmach; i++) {
        row_text t;
        row_cells(r, i, &t);
        fprintf(f, "%-18s %-12s %-11s %-12s %-12s %-6s %-7s %-6s %-6s %-7s %-8s %s\n", t.name,
                t.delay, t.rollbacks, t.depth, t.mispredicted, t.stalls, t.waiting, t.skew,
                t.advantage, t.rtt, t.bytes, t.checks);
    }
    fprintf(f, "\nframe skew: true mean |own frame - another peer's| at the same instant, after a %u s\n"
               "warm-up; frame advantage: the library's own estimate; mispredicted frames: (player, frame)\n"
               "pairs first simulated with an input that proved wrong.\n",
            SIM_WARMUP_US / 1000000u);
    if (r->nmach > r->npeers)
        fprintf(f, "%s\n", SIM_SPECTATOR_NOTE);
    for (int i = r->npeers; i < r->nmach; i++) /* a spectator is not waited for: say if it fell off */
        if (!r->peer[i].dropped && r->peer[i].final_frame + 60 < o->frames)
            fprintf(f, "note: spectator %d played only %" PRId32 " of %d frames\n", i - r->npeers,
                    r->peer[i].final_frame, o->frames);
    if (o->has_nat) {
        fprintf(f, "\npaths behind NATs (a relayed pair's link goes %d ms further each way, docs/NAT.md):\n",
                SIM_RELAY_DETOUR_MS);
        for (int a = 0; a < r->npeers; a++)
            for (int b = a + 1; b < r->npeers; b++)
                fprintf(f, "  peer %d (%s) - peer %d (%s): %-8s RTT %.1f ms\n", a, sim_nat_name(o->nat[a]),
                        b, sim_nat_name(o->nat[b]), sim_nat_relayed(o, a, b) ? "relayed" : "direct",
                        r->peer[a].pair_rtt_ms[b]);
    }
    if (r->converged)
        fprintf(f, "\nconverged: yes - every live peer computed the same state for frames 1..%d "
                   "(spectators: every frame they played)\n", o->frames);
    else
        fprintf(f, "\nconverged: NO - %s\n", r->problem);
    if (r->checks_expected > 0) {
        uint64_t missed = 0;
        for (int i = 0; i < r->nmach; i++)
            missed += r->peer[i].desync_checks_missed;
        uint64_t made = r->checks_made < r->checks_expected ? r->checks_made : r->checks_expected;
        fprintf(f, "desync checks: %" PRIu64 " of the %" PRIu64 " the match owed were made (%.1f%%), %" PRIu64
                   " missed; %" PRIu64 " made in all, the drain's included\n",
                made, r->checks_expected, sim_pct(made, r->checks_expected), missed,
                r->checks_made);
    }
    fprintf(f, "desyncs: %" PRIu64 " DESYNC event%s", r->desyncs, r->desyncs == 1 ? "" : "s");
    for (int i = 0; i < r->nmach; i++)
        if (r->peer[i].first_desync_frame >= 0)
            fprintf(f, "%s peer %d first at frame %" PRId32, i ? "," : ";", i, r->peer[i].first_desync_frame);
    for (int i = 0; i < r->nmach; i++)
        if (r->peer[i].diff_line[0] != '\0')
            fprintf(f, "\ndesync diff: %s", r->peer[i].diff_line);
    fprintf(f, "\ntime: %.1f s of virtual time (match %.1f s) in %.2f s wall (%.0fx real time)\n",
            r->virtual_s, r->match_s, r->wall_s, r->wall_s > 0 ? r->virtual_s / r->wall_s : 0.0);
    sim_security_print(f, o, r);
}

char *sim_summary_html(const sim_options *o, const sim_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fputs("<table class=\"summary\">\n<tr>", f);
    for (size_t k = 0; k < sizeof sim_headers / sizeof sim_headers[0]; k++)
        fprintf(f, "<th>%s</th>", sim_headers[k]);
    fputs("</tr>\n", f);
    for (int i = 0; i < r->nmach; i++) {
        row_text t;
        row_cells(r, i, &t); /* numbers and fixed words only: nothing to escape */
        fprintf(f, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                   "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                t.name, t.delay, t.rollbacks, t.depth, t.mispredicted, t.stalls, t.waiting, t.skew,
                t.advantage, t.rtt, t.bytes, t.checks);
    }
    fputs("</table>\n", f);
    if (r->nmach > r->npeers)
        fprintf(f, "<p class=\"note\">%s</p>\n", SIM_SPECTATOR_NOTE);
    sim_security_html(f, o, r);
    for (int i = 0; i < r->nmach; i++)
        if (r->peer[i].diff_line[0] != '\0') {
            fputs("<p>desync diff: ", f);
            sim_svg_escape(f, r->peer[i].diff_line);
            fputs("</p>\n", f);
        }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ---- JSON ---------------------------------------------------------------------------- */

static void json_peer(sim_json *j, const sim_result *r, int i)
{
    const sim_peer_result *p = &r->peer[i];
    sim_json_begin_object(j, NULL);
    sim_json_int(j, "peer", i);
    sim_json_bool(j, "spectator", p->spectator);
    sim_json_bool(j, "dropped", p->dropped);
    sim_json_bool(j, "cut_off", p->cut_off);
    sim_json_int(j, "players", p->players);
    sim_json_uint(j, "rollbacks", p->rollbacks);
    sim_json_uint(j, "resim_frames", p->resim_frames);
    sim_json_int(j, "max_rollback_depth", p->max_rollback_depth);
    sim_json_uint(j, "mispredicted_frames", p->mispredicted_frames);
    sim_json_uint(j, "stalls", p->stall_ticks);
    sim_json_uint(j, "waiting_ticks", p->waiting_ticks);
    sim_json_int(j, "input_delay_final", p->input_delay_final);
    sim_json_double(j, "rtt_ms_mean", p->rtt_ms_mean);
    sim_json_uint(j, "bytes_sent", p->bytes_sent);
    sim_json_uint(j, "packets_sent", p->packets_sent);
    sim_json_double(j, "payload_bytes_per_s", p->payload_bytes_per_s);
    sim_json_double(j, "frame_skew_abs_mean", p->frame_skew_abs_mean);
    sim_json_double(j, "frame_advantage_mean", p->frame_advantage_mean);
    sim_json_uint(j, "stall_ticks", p->stall_ticks);
    sim_json_double(j, "input_delay_mean", p->input_delay_mean);
    sim_json_double(j, "rollback_depth_mean", p->rollback_depth_mean);
    sim_json_uint(j, "timesync_stalls", p->timesync_stalls);
    sim_json_uint(j, "desync_checks", p->desync_checks);
    sim_json_uint(j, "desync_checks_passed", p->desync_checks_passed);
    sim_json_index(j, "desync_checks_expected", p->desync_checks_expected);
    sim_json_uint(j, "desync_checks_missed", p->desync_checks_missed);
    sim_json_uint(j, "desyncs", p->desyncs);
    sim_json_index(j, "first_desync_frame", p->first_desync_frame);
    sim_json_int(j, "final_frame", p->final_frame);
    sim_json_int(j, "confirmed_frame", p->confirmed_frame);
    sim_json_double(j, "match_seconds", p->match_seconds);
    sim_json_uint(j, "startup_delay_ms", p->startup_delay_ms);
    sim_json_uint(j, "library_mispredicted_frames", p->lib_mispredicted_frames);
    sim_json_end_object(j);
}

void sim_json_match(sim_json *j, const sim_options *o, const sim_result *r)
{
    sim_json_string(j, "mode", "p2p");
    sim_json_string(j, "profile", o->profile);
    sim_json_int(j, "players", o->players);
    sim_json_int(j, "frames", o->frames);
    sim_json_uint(j, "seed", o->seed);
    sim_json_bool(j, "converged", r->converged);
    sim_json_uint(j, "desyncs", r->desyncs);
    sim_json_uint(j, "checks_made", r->checks_made);
    sim_json_uint(j, "checks_expected", r->checks_expected);
    if (o->hosts_set)
        sim_json_null(j, "local_per_peer");
    else
        sim_json_int(j, "local_per_peer", o->local_per_peer);
    sim_json_int(j, "spectators", o->spectators);
    sim_json_string(j, "timesync", sim_timesync_name(o->timesync));
    if (o->input_delay_auto)
        sim_json_string(j, "input_delay", "auto");
    else
        sim_json_int(j, "input_delay", o->input_delay);
    sim_json_int(j, "max_prediction", o->max_prediction);
    sim_json_string(j, "save_policy", o->save_policy == TEMPO_SAVE_SPARSE ? "sparse" : "every");
    sim_json_int(j, "desync_interval", o->desync_interval);
    sim_json_bool(j, "finished", r->finished);
    sim_json_int(j, "compared_states", r->compared_states);
    sim_json_index(j, "first_divergent_state", r->first_divergent_state);
    sim_json_text(j, "problem", r->problem);
    sim_json_double(j, "virtual_seconds", r->virtual_s);
    sim_json_double(j, "match_seconds", r->match_s);
    sim_json_double(j, "wall_seconds", r->wall_s);
    sim_security_json(j, o, r);
    sim_json_begin_array(j, "peers");
    for (int i = 0; i < r->nmach; i++)
        json_peer(j, r, i);
    sim_json_end_array(j);
}
