/* SPDX-License-Identifier: MIT */
/*
 * sim_metrics.h — the measurement vocabulary every tempo-sim mode shares:
 * one name and one implementation for each thing more than one mode
 * measures, so that "per minute", "mean / max", "kb/s" or a verdict mean
 * the same in the p2p match, client-server, the view comparisons and
 * lockstep (sim_metrics.c).
 *
 *   sim_stat      a running count, sum and maximum: rollback depth, a
 *                 command's latency (shown, final), input-to-response, the
 *                 size of a correction, a view's error
 *   rates         per second (bytes, rollbacks), per minute (freezes,
 *                 corrections, late inputs), kb/s (payload), a percentage
 *   quantiles     nearest rank over sorted samples (the links' RTT spread)
 *   verdicts      a rule ("good: ...") and whether a run meets it
 *
 * Every rate of a span that is empty is 0, every mean of no samples the
 * caller's `empty` value (0, or NAN where "no data" must show as such).
 */
#ifndef TEMPO_SIM_METRICS_H
#define TEMPO_SIM_METRICS_H

#include <stdbool.h>
#include <stdint.h>

/* ---- a running count, sum and maximum ------------------------------------------------ */

typedef struct sim_stat {
    uint64_t n;
    double sum;
    double max; /* 0 before the first sample: every quantity here is >= 0 */
} sim_stat;

void sim_stat_add(sim_stat *s, double v);
/* Fold `from` into `into` (a group of machines from each machine's). */
void sim_stat_merge(sim_stat *into, const sim_stat *from);
/* sum / n, or `empty` when there are no samples. */
double sim_stat_mean(const sim_stat *s, double empty);
/* sum / n for a sum and count kept apart, or `empty` when n is 0. */
double sim_mean(double sum, uint64_t n, double empty);

/* ---- rates ------------------------------------------------------------------------------ */

/* count a second over `seconds`; 0 for an empty span. */
double sim_per_s(double count, double seconds);
/* count a minute over `seconds`; 0 for an empty span. */
double sim_per_min(double count, double seconds);
/* count a minute over the virtual time from_vt..to_vt (microseconds); 0
 * for an empty span. */
double sim_per_min_vt(uint64_t count, uint64_t from_vt, uint64_t to_vt);
/* bytes over `seconds` as kilobits a second (1000 bits); 0 for an empty span. */
double sim_kbps(uint64_t bytes, double seconds);
/* part of whole, percent (not rounded); 0 when whole is 0. */
double sim_pct(uint64_t part, uint64_t whole);
/* part of whole as a whole percentage, rounded half up ("70%"): every share
 * a report prints as a whole number goes through here. */
int sim_pct_rounded(uint64_t part, uint64_t whole);

/* ---- quantiles --------------------------------------------------------------------------- */

/* The q-quantile (0..1) of n (> 0) sorted values, nearest rank. */
double sim_quantile(const float *sorted, int n, double q);
/* The finite values of v[from, to), sorted, into buf; returns how many. */
int sim_sorted_finite(const float *v, int from, int to, float *buf);

/* ---- verdicts ----------------------------------------------------------------------------- */

typedef enum sim_verdict_kind {
    SIM_VERDICT_NONE,         /* nothing to judge (no samples, no players) */
    SIM_VERDICT_MEETS,
    SIM_VERDICT_MISSES
} sim_verdict_kind;

/* A rule and a run's standing against it; the terminal, the JSON and the
 * report print these strings as they are, so they cannot disagree. */
typedef struct sim_verdict {
    int kind;                 /* sim_verdict_kind */
    char good[200];           /* the rule, a sentence of plain UTF-8 text */
    char numbers[400];        /* what decided it (plain text; may name machines) */
} sim_verdict;

/* x rounded to `decimals` places, as "%.*f" prints it: a verdict compares
 * the number it prints, so a page never says "misses: 95% (good: 95%)". */
double sim_shown(double x, int decimals);

#endif /* TEMPO_SIM_METRICS_H */
