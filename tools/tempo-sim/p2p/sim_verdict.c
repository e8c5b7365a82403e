/* SPDX-License-Identifier: MIT */
/*
 * sim_verdict.c — each chart's "good" line as a rule over the timeline, and
 * the verdict with its numbers (sim_verdict.h).
 *
 * A verdict compares the number it prints, rounded as printed, with the
 * threshold: a page never says "misses: 95% (good: 95%)". It names the peer
 * or link furthest from the line, so a reader knows where to look.
 */
#include "sim_verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_verdict_peer_name(const sim_timeline *t, int peer, char *buf, size_t size)
{
    const char *name = t->peer_names[peer];
    char fallback[16];
    if (memchr(name, '\0', sizeof t->peer_names[peer]) == NULL || name[0] == '\0') {
        snprintf(fallback, sizeof fallback, "peer %d", peer);
        name = fallback;
    }
    bool says = strncmp(name, "spectator", 9) == 0;
    snprintf(buf, size, "%.31s%s", name, t->is_spectator[peer] && !says ? " (spectator)" : "");
}

/* The mean of the finite values in [from, to), from clamped at 0. */
static double mean_of(const float *v, int from, int to, int *finite)
{
    double sum = 0.0;
    *finite = 0;
    for (int i = from < 0 ? 0 : from; v != NULL && i < to; i++)
        if (isfinite(v[i])) {
            sum += v[i];
            (*finite)++;
        }
    return *finite > 0 ? sum / *finite : 0.0;
}

#if defined(__GNUC__)
static void set(sim_verdict *v, bool meets, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#endif

static void set(sim_verdict *v, bool meets, const char *fmt, ...)
{
    v->kind = meets ? SIM_VERDICT_MEETS : SIM_VERDICT_MISSES;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->numbers, sizeof v->numbers, fmt, ap);
    va_end(ap);
}

static void none(sim_verdict *v, const char *why)
{
    v->kind = SIM_VERDICT_NONE;
    snprintf(v->numbers, sizeof v->numbers, "%s", why);
}

/* ---------------------------------------------------------------- the rules */

typedef struct judge {
    const sim_timeline *t;
    int peers, count;
    double dt;
    float *buf;               /* count values, for sorting */
} judge;

static void judge_skew(const judge *j, sim_verdict *v)
{
    snprintf(v->good, sizeof v->good, "every player's line at or under the dashed %.0f-frame line in "
             "at least %d%% of its samples, and flat.", SIM_GOOD_SKEW_FRAMES, SIM_GOOD_SKEW_SHARE);
    int worst = -1, worst_pct = 101, peak_peer = -1;
    double peak = 0.0;
    for (int q = 0; q < j->peers; q++) {
        const float *s = j->t->peer[q].frame_skew;
        if (j->t->is_spectator[q] || s == NULL)
            continue;
        uint64_t under = 0, finite = 0;
        for (int i = 0; i < j->count; i++) {
            if (!isfinite(s[i]))
                continue;
            finite++;
            under += s[i] <= SIM_GOOD_SKEW_FRAMES;
            if (peak_peer < 0 || s[i] > peak) {
                peak = s[i];
                peak_peer = q;
            }
        }
        int pct = sim_pct_rounded(under, finite);
        if (finite > 0 && pct < worst_pct) {
            worst_pct = pct;
            worst = q;
        }
    }
    if (worst < 0) {
        none(v, "no skew samples of a player");
        return;
    }
    char a[64], b[64];
    sim_verdict_peer_name(j->t, worst, a, sizeof a);
    sim_verdict_peer_name(j->t, peak_peer, b, sizeof b);
    set(v, worst_pct >= SIM_GOOD_SKEW_SHARE,
        "%s: at or under %.0f frame in %d%% of its samples, the fewest of any player (good: %d%%); "
        "peak %.2f frames (%s).", a, SIM_GOOD_SKEW_FRAMES, worst_pct, SIM_GOOD_SKEW_SHARE, peak, b);
}

static void judge_delay(const judge *j, sim_verdict *v)
{
    snprintf(v->good, sizeof v->good, "low and steady: at most %.0f changes a minute for every "
             "player; it steps up only when latency grows, and back down after.", SIM_GOOD_DELAY_CHANGES);
    double minutes = j->count > 1 ? (j->count - 1) * j->dt / 60.0 : 0.0;
    int worst = -1, most = -1;
    for (int q = 0; q < j->peers; q++) {
        const float *s = j->t->peer[q].input_delay;
        if (j->t->is_spectator[q] || s == NULL)
            continue;
        int changes = 0, finite = 0;
        float last = NAN;
        for (int i = 0; i < j->count; i++) {
            if (!isfinite(s[i]))
                continue;
            changes += finite > 0 && s[i] != last;
            last = s[i];
            finite++;
        }
        if (finite > 0 && changes > most) {
            most = changes;
            worst = q;
        }
    }
    if (worst < 0 || !(minutes > 0.0)) {
        none(v, "no input delay samples of a player");
        return;
    }
    char a[64];
    sim_verdict_peer_name(j->t, worst, a, sizeof a);
    double rate = sim_shown(most / minutes, 1);
    set(v, rate <= SIM_GOOD_DELAY_CHANGES,
        "%s changed its input delay the most: %d time%s, %.1f a minute (good: at most %.0f).",
        a, most, most == 1 ? "" : "s", rate, SIM_GOOD_DELAY_CHANGES);
}

static void judge_depth(const judge *j, sim_verdict *v)
{
    snprintf(v->good, sizeof v->good, "at least %d%% of every player's rollbacks inside the band "
             "(0\xE2\x80\x93%d frames deep).", SIM_GOOD_DEPTH_SHARE, SIM_GOOD_DEPTH_FRAMES);
    int worst = -1, worst_pct = 101, deepest = 0, players = 0;
    for (int q = 0; q < j->peers; q++) {
        if (j->t->is_spectator[q])
            continue;
        players++;
        uint64_t total = 0, shallow = 0;
        for (int d = 0; d < SIM_MAX_DEPTH; d++) {
            uint64_t c = j->t->depth_hist[q][d];
            total += c;
            shallow += d <= SIM_GOOD_DEPTH_FRAMES ? c : 0;
            deepest = c > 0 && d > deepest ? d : deepest;
        }
        int pct = sim_pct_rounded(shallow, total);
        if (total > 0 && pct < worst_pct) {
            worst_pct = pct;
            worst = q;
        }
    }
    if (players == 0) {
        none(v, "no players");
        return;
    }
    if (worst < 0) {
        set(v, true, "no player rolled back.");
        return;
    }
    char a[64];
    sim_verdict_peer_name(j->t, worst, a, sizeof a);
    set(v, worst_pct >= SIM_GOOD_DEPTH_SHARE,
        "%s: %d%% of its rollbacks inside the band, the fewest of any player (good: %d%%); "
        "the deepest of all: %d frames.", a, worst_pct, SIM_GOOD_DEPTH_SHARE, deepest);
}

static void judge_rate(const judge *j, sim_verdict *v)
{
    snprintf(v->good, sizeof v->good, "every player averages at most %.0f stall a second, "
             "with bursts only around network events (markers). Rollbacks follow latency; "
             "their depth is what players see.", SIM_GOOD_STALLS);
    int worst = -1;
    double most = -1.0;
    for (int q = 0; q < j->peers; q++) {
        int finite;
        double m = mean_of(j->t->peer[q].stalls_per_s, 0, j->count, &finite);
        if (!j->t->is_spectator[q] && finite > 0 && m > most) {
            most = m;
            worst = q;
        }
    }
    if (worst < 0) {
        none(v, "no stall samples of a player");
        return;
    }
    char a[64];
    sim_verdict_peer_name(j->t, worst, a, sizeof a);
    double rate = sim_shown(most, 2);
    set(v, rate <= SIM_GOOD_STALLS, "%s stalls the most: %.2f a second on average (good: at most %.0f).",
        a, rate, SIM_GOOD_STALLS);
}

/* How far above its median a link's 95th-percentile RTT may go: a share of
 * the median, but never less than a few milliseconds, which no player feels
 * (on a LAN 1 ms against 5 ms is jitter nobody sees). */
static double rtt_allowance(double median)
{
    double share = (SIM_GOOD_RTT_SPREAD - 1.0) * median;
    return share > SIM_GOOD_RTT_SLACK_MS ? share : SIM_GOOD_RTT_SLACK_MS;
}

static void judge_link(const judge *j, sim_verdict *v)
{
    snprintf(v->good, sizeof v->good, "loss at most %.0f%% on every link, and flat RTT: its 95th "
             "percentile at most %.1f\xC3\x97 its median (or %.0f ms above it, whichever is more). "
             "Spikes are jitter, gaps are blackouts.", SIM_GOOD_LOSS_PCT, SIM_GOOD_RTT_SPREAD,
             SIM_GOOD_RTT_SLACK_MS);
    int la = -1, lb = -1, sa = -1, sb = -1;
    double loss_most = -1.0, use_most = -1.0, p95_most = 0.0, median_most = 0.0;
    for (int a = 0; a < j->peers; a++) {
        for (int b = 0; b < j->peers; b++) {
            if (a == b)
                continue;
            int finite;
            double loss = 100.0 * mean_of(j->t->loss[a][b], 0, j->count, &finite);
            if (finite > 0 && loss > loss_most) {
                loss_most = loss;
                la = a;
                lb = b;
            }
            int n = sim_sorted_finite(j->t->rtt_ms[a][b], 0, j->count, j->buf);
            if (n == 0)
                continue;
            double median = sim_shown(sim_quantile(j->buf, n, 0.5), 1), p95 = sim_shown(sim_quantile(j->buf, n, 0.95), 1);
            double use = (p95 - median) / rtt_allowance(median);   /* over 1: misses */
            if (use > use_most) {
                use_most = use;
                p95_most = p95;
                median_most = median;
                sa = a;
                sb = b;
            }
        }
    }
    if (la < 0 && sa < 0) {
        none(v, "no link measurements");
        return;
    }
    char loss_text[160] = "", spread_text[200] = "", x[48], y[48];
    double loss = la >= 0 ? sim_shown(loss_most, 1) : 0.0;
    if (la >= 0) {
        sim_verdict_peer_name(j->t, la, x, sizeof x);
        sim_verdict_peer_name(j->t, lb, y, sizeof y);
        snprintf(loss_text, sizeof loss_text, "%s \xE2\x86\x92 %s loses the most: %.1f%% (good: at most %.0f%%)",
                 x, y, loss, SIM_GOOD_LOSS_PCT);
    }
    if (sa >= 0) {
        sim_verdict_peer_name(j->t, sa, x, sizeof x);
        sim_verdict_peer_name(j->t, sb, y, sizeof y);
        snprintf(spread_text, sizeof spread_text, "%s \xE2\x86\x92 %s varies the most: RTT 95th percentile "
                 "%.1f ms over a %.1f ms median (good: at most %.1f ms)", x, y, p95_most, median_most,
                 median_most + rtt_allowance(median_most));
    }
    /* two rules in one verdict: each part says whether it meets, the one
     * that misses first, so a red verdict never reads as a green figure */
    bool loss_ok = loss <= SIM_GOOD_LOSS_PCT, spread_ok = use_most <= 1.0 + 1e-9;
    if (la >= 0 && sa >= 0) {
        const char *first = loss_ok && !spread_ok ? spread_text : loss_text;
        const char *second = first == loss_text ? spread_text : loss_text;
        bool first_ok = first == loss_text ? loss_ok : spread_ok;
        bool second_ok = first == loss_text ? spread_ok : loss_ok;
        set(v, loss_ok && spread_ok, "%s, %s; %s, %s.", first, first_ok ? "meets" : "misses", second,
            second_ok ? "meets" : "misses");
        return;
    }
    set(v, loss_ok && spread_ok, "%s%s.", loss_text, spread_text);
}

static void judge_payload(const judge *j, sim_verdict *v)
{
    snprintf(v->good, sizeof v->good, "small and steady: every peer's median under %.0f kB/s, and "
             "its last %.0f s at most %.1f\xC3\x97 that median (a burst after a blackout is resends "
             "catching up, and it ends).", SIM_GOOD_PAYLOAD / 1000.0, SIM_GOOD_TAIL_S, SIM_GOOD_TAIL_RATIO);
    int tail_n = (int)ceil(SIM_GOOD_TAIL_S / j->dt);
    bool tail = j->count >= 2 * tail_n;   /* a tail only when the match is twice as long */
    int hi_peer = -1, tail_peer = -1;
    double hi = -1.0, lo = -1.0, ratio_most = -1.0;
    for (int q = 0; q < j->peers; q++) {
        const float *s = j->t->peer[q].payload_bytes_per_s;
        int n = sim_sorted_finite(s, 0, j->count, j->buf);
        if (n == 0)
            continue;
        double median = sim_quantile(j->buf, n, 0.5);
        if (median > hi) {
            hi = median;
            hi_peer = q;
        }
        lo = lo < 0.0 || median < lo ? median : lo;
        int finite;
        double end = mean_of(s, j->count - tail_n, j->count, &finite);
        if (tail && finite > 0 && median > 0.0 && end / median > ratio_most) {
            ratio_most = end / median;
            tail_peer = q;
        }
    }
    if (hi_peer < 0) {
        none(v, "no payload samples");
        return;
    }
    char a[48], b[48], tail_text[200] = "";
    sim_verdict_peer_name(j->t, hi_peer, a, sizeof a);
    double top = sim_shown(hi / 1000.0, 1), ratio = tail_peer >= 0 ? sim_shown(ratio_most, 1) : 0.0;
    if (tail_peer >= 0) {
        sim_verdict_peer_name(j->t, tail_peer, b, sizeof b);
        snprintf(tail_text, sizeof tail_text, "; the last %.0f s at most %.1f\xC3\x97 the median, "
                 "highest %s (good: at most %.1f\xC3\x97)", SIM_GOOD_TAIL_S, ratio, b, SIM_GOOD_TAIL_RATIO);
    }
    set(v, top < SIM_GOOD_PAYLOAD / 1000.0 && ratio <= SIM_GOOD_TAIL_RATIO,
        "medians %.1f\xE2\x80\x93%.1f kB/s, highest %s (good: under %.0f kB/s)%s.",
        sim_shown(lo / 1000.0, 1), top, a, SIM_GOOD_PAYLOAD / 1000.0, tail_text);
}

void sim_verdicts_judge(const sim_timeline *t, int peers, int count, sim_verdict out[SIM_CHARTS])
{
    memset(out, 0, SIM_CHARTS * sizeof *out);
    judge j = {t, peers, count, isfinite(t->interval_s) && t->interval_s > 0.0 ? t->interval_s : 1.0,
               malloc((size_t)(count > 0 ? count : 1) * sizeof(float))};
    judge_skew(&j, &out[SIM_CHART_SKEW]);
    judge_delay(&j, &out[SIM_CHART_DELAY]);
    judge_depth(&j, &out[SIM_CHART_DEPTH]);
    judge_rate(&j, &out[SIM_CHART_RATE]);
    if (j.buf != NULL) {
        judge_link(&j, &out[SIM_CHART_LINK]);
        judge_payload(&j, &out[SIM_CHART_PAYLOAD]);
    } else {
        none(&out[SIM_CHART_LINK], "out of memory");
        none(&out[SIM_CHART_PAYLOAD], "out of memory");
    }
    free(j.buf);
}
