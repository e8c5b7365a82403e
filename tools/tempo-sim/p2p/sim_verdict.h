/* SPDX-License-Identifier: MIT */
/*
 * sim_verdict.h — whether a match meets the "good" line of each chart of the
 * report, judged from the timeline alone, with the numbers that decided it.
 *
 * Each rule is a threshold written here once; the report prints the rule
 * under the chart's title and the verdict beside it, so the page cannot show
 * one rule and judge by another. Spectators are judged only where they have
 * data of their own (links and payload): they never roll back or stall.
 */
#ifndef TEMPO_SIM_VERDICT_H
#define TEMPO_SIM_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "sim_metrics.h"
#include "sim_timeline.h"

/* The "good" lines. */
#define SIM_GOOD_SKEW_FRAMES 1.0      /* true skew at or under this many frames ... */
#define SIM_GOOD_SKEW_SHARE 95        /* ... in at least this % of each player's samples */
#define SIM_GOOD_DELAY_CHANGES 2.0    /* input delay changes a minute, at most, per player */
#define SIM_GOOD_DEPTH_FRAMES 3       /* rollbacks this deep or less ... */
#define SIM_GOOD_DEPTH_SHARE 90       /* ... are at least this % of each player's */
#define SIM_GOOD_STALLS 1.0           /* stalls a second on average, at most, per player */
#define SIM_GOOD_LOSS_PCT 1.0         /* mean loss on every link, at most, % */
#define SIM_GOOD_RTT_SPREAD 1.5       /* a link's 95th-percentile RTT over its median, at most */
#define SIM_GOOD_RTT_SLACK_MS 10.0    /* ... or this many ms above the median, whichever is more */
#define SIM_GOOD_PAYLOAD 10000.0      /* median bytes/s sent, at most, per peer */
#define SIM_GOOD_TAIL_S 5.0           /* the match's last seconds ... */
#define SIM_GOOD_TAIL_RATIO 1.5       /* ... send at most this times the median (a burst has ended) */

enum { SIM_CHART_SKEW, SIM_CHART_DELAY, SIM_CHART_DEPTH, SIM_CHART_RATE, SIM_CHART_LINK,
       SIM_CHART_PAYLOAD, SIM_CHARTS };

/* The verdict of every chart for samples [0, count) of t, `peers` peers
 * (both already clamped to what t holds). */
void sim_verdicts_judge(const sim_timeline *t, int peers, int count, sim_verdict out[SIM_CHARTS]);

/* Peer `peer`'s name as every part of the report shows it: its own name,
 * "peer N" if it has none, and "(spectator)" if the name does not say so. */
void sim_verdict_peer_name(const sim_timeline *t, int peer, char *buf, size_t size);


#endif /* TEMPO_SIM_VERDICT_H */
