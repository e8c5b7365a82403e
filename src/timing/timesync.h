/* SPDX-License-Identifier: MIT */
/*
 * timesync.h — keeping peers in step: frame advantage and stall planning
 * (INVERSUS, GGPO, lead-based), automatic input delay, start-up delay.
 *
 * It sees the network only through numbers the session feeds it:
 *   - at each tick, per live peer, the local lag L: our frame minus the frame
 *     that peer was on when it sent its newest input;
 *   - per INPUT received, the remote lag R: the sender's frame minus our frame
 *     as the sender last heard of it, and the frame lag (our frame minus the
 *     sender's frame at arrival) for the automatic input delay;
 *   - GGPO's quality reports.
 * L and R are measured in frames of simulation, not of input, so the input
 * delays of either side do not bias them; when both run in step, L - R
 * averages to 0 and half of it is how far ahead we are. INVERSUS keeps an L
 * sample only from a tick that brought news from that peer (see
 * timesync_on_local).
 */
#ifndef TEMPO_TIMING_TIMESYNC_H
#define TEMPO_TIMING_TIMESYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "base/common.h"
#include "tempo/config.h"

#define TIMESYNC_MAX_PEERS TEMPO_MAX_PLAYERS
#define TIMESYNC_WINDOW_MAX 256      /* largest averaging window, frames */
/* Lags beyond this are no real network's (frames): a lying or broken peer's
 * numbers, ignored. */
#define TIMESYNC_LAG_LIMIT (2 * TEMPO_MAX_PREDICTION + 64)
/* Most stalls one decision queues. The cadence spreads 8 one in every 3
 * ticks, so even a large correction (a machine that froze for a moment)
 * plays as a slow-down to two-thirds speed, never as a freeze; the rest
 * follows in the next decisions, which also bounds what one wrong estimate
 * costs. */
#define TIMESYNC_MAX_QUEUED 8
/* INPUTs from one peer whose R one poll keeps (more in one poll: stragglers). */
#define TIMESYNC_PENDING 8

typedef struct timesync_peer {
    bool live;
    bool news;                    /* an INPUT arrived since the last L sample */
    /* R samples of this poll, kept until timesync_decide knows our frame:
     * R and the frame lag, which together give our frame as the peer knew it. */
    float pend_remote[TIMESYNC_PENDING], pend_lag[TIMESYNC_PENDING];
    int npend;
    bool has_known;
    int64_t known;                /* the newest of our frames the peer had heard of */
    /* The newest window_frames samples of L and R, rings. */
    float win_local[TIMESYNC_WINDOW_MAX], win_remote[TIMESYNC_WINDOW_MAX];
    int n_local, n_remote;        /* samples held */
    int head_local, head_remote;  /* next slot to write */
    double ewma_local, ewma_remote; /* lead method */
    bool ewma_init;
    double ggpo_remote_adv;       /* its last quality report */
    bool has_quality;
    double ggpo_local[TIMESYNC_WINDOW_MAX]; /* our advantage samples, a ring */
    int ggpo_count, ggpo_head;
    float lags[TIMESYNC_WINDOW_MAX]; /* the delay signal's samples of the delay window */
    int lag_n;
    /* INVERSUS_ARTICLE: sums and counts of L and R over the current window */
    double art_local, art_remote;
    int art_local_n, art_remote_n;
} timesync_peer;

typedef struct tempo_timesync {
    tempo_timesync_config cfg;    /* window and threshold resolved */
    tempo_auto_delay_config ad;
    int fps;
    bool lockstep;                /* max_prediction 0: delay covers the whole lag */
    timesync_peer peer[TIMESYNC_MAX_PEERS];
    uint64_t ticks;
    int window_ticks;
    /* INVERSUS */
    int stall_queue;
    int since_stall;
    int32_t ggpo_next_frame;      /* GGPO: no recommendation before this frame */
    /* LEAD */
    int cooldown;
    double advantage;             /* estimate: frames we run ahead of the slowest peer */
    /* automatic input delay */
    int delay;
    int delay_ticks;
    int delay_want;               /* direction the last window wanted: -1, 0, 1 */
    uint64_t stalls;
} tempo_timesync;

void timesync_init(tempo_timesync *t, const tempo_config *cfg);

/* Per tick, for each live peer p: L, and GGPO's local advantage estimate.
 * INVERSUS's window takes L only if an INPUT from p arrived since the
 * previous call: on a tick without news, L is one frame larger than on the
 * tick before whatever the clocks do, so a loss burst or a late datagram
 * would read as running ahead. */
void timesync_on_local(tempo_timesync *t, int p, double local_lag, double ggpo_local_adv);
/* Per INPUT received from p. */
void timesync_on_remote(tempo_timesync *t, int p, double remote_lag, double frame_lag);
/* Per tick, for each live peer p with a round-trip estimate: the
 * automatic delay's TEMPO_DELAY_HALF_RTT signal. */
void timesync_on_rtt(tempo_timesync *t, int p, double rtt_ms);
/* GGPO quality report from p: its local advantage. */
void timesync_on_quality(tempo_timesync *t, int p, double remote_adv);
void timesync_peer_lost(tempo_timesync *t, int p);

/* Decide whether the coming tick stalls. Call once per tick. */
bool timesync_decide(tempo_timesync *t, int32_t frame);

/* Automatic input delay. timesync_initial_delay picks the first value from
 * the worst round trip (ms), read as the signal reads one; timesync_delay_tick
 * returns the delay wanted after this tick (evaluated once per window, on
 * the trimmed mean of the signal's samples: half round trips, or the frame
 * lags of arriving inputs; never below lag_floor, e.g. timesync_rtt_lag of
 * the worst round trip in lockstep, where everyone waits and the measured
 * lag cannot see the latency). */
int timesync_initial_delay(tempo_timesync *t, double worst_rtt_ms);
int timesync_delay_tick(tempo_timesync *t, double lag_floor);
/* The frame lag a round trip of rtt_ms implies: one way in frames plus 1.5. */
double timesync_rtt_lag(const tempo_timesync *t, double rtt_ms);

/* Start-up: machines 0..n-1 (one of them `self`). heard_us[i]: when we
 * learned machine i was ready (our clock; for self, when we became ready).
 * owd_us[i * n + k]: one-way delay between machines i and k (half the round
 * trip; 0 if unknown). Returns how long after `now_us` (when the last of them
 * was heard) to hold the first frame, so that every machine starts at the
 * moment the last one learns that everyone is ready. */
uint64_t timesync_startup_wait(int n, int self, const uint64_t *heard_us, const double *owd_us,
                               uint64_t now_us);

#endif /* TEMPO_TIMING_TIMESYNC_H */
