/* SPDX-License-Identifier: MIT */
/*
 * playout.h — the playout delay policies of the snapshot buffer: fixed,
 * Pongbat's ping rule, and tempo's adaptive rule from measured arrivals.
 *
 * A policy only says how long the delay should be (delay_us); the render
 * clock in interp.c moves towards it at a bounded rate. The buffer hands
 * the adaptive rule its arrival window: each arrival's tick and its offset
 * (arrival time minus tick * tick_us), whose minimum is the timebase, and
 * the highest tick that has left the window (a tick missing at or below it
 * may have arrived before the window began, so no loss is judged there).
 */
#ifndef TEMPO_INTERP_PLAYOUT_H
#define TEMPO_INTERP_PLAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/common.h"
#include "tempo/interp.h"

#define PLAYOUT_PONGBAT_PINGS 20           /* pings averaged */
#define PLAYOUT_PONGBAT_PERIOD_US 2000000u /* between decisions */
#define PLAYOUT_PONGBAT_OFF_US 100000u     /* mean ping that switches the buffer off */
#define PLAYOUT_REORDER_DEPTH 3            /* arrivals past a gap that make it a loss */

typedef struct playout {
    tempo_playout_mode mode;
    uint32_t tick_us;
    int fixed_ticks, pongbat_max_ticks, late_percent, max_loss_cover;
    uint32_t margin_us, min_delay_us, max_delay_us, shrink_hold_us;

    uint32_t delay_us;      /* the current delay */
    uint64_t changes;       /* times delay_us changed after the first setting */

    /* ADAPTIVE */
    bool measured;          /* delay_us comes from arrivals */
    bool pending;           /* targets below delay_us since pending_since */
    uint64_t pending_since;
    uint32_t pending_max;   /* the highest of them */
    uint32_t jitter_us, interval_ticks;
    int loss_run;

    /* PONGBAT */
    uint32_t pings[PLAYOUT_PONGBAT_PINGS];
    int ping_count, ping_next;
    bool decided;           /* a decision has been taken, at decided_us */
    uint64_t decided_us;
    uint32_t ping_mean_us;
    bool buffer_on;
} playout;

void playout_init(playout *pl, const tempo_interp_config *cfg);

/* ADAPTIVE: a snapshot arrived at now_us; the window holds n arrivals
 * (ticks and offsets, any order) whose smallest offset is base; `left` is
 * the highest tick that has left the window (-1 for none). scratch_t and
 * scratch_j hold n entries each. */
void playout_on_arrival(playout *pl, const int32_t *ticks, const int64_t *offsets, int n,
                        int64_t base, int32_t left, uint64_t now_us, int32_t *scratch_t,
                        int64_t *scratch_j);

/* PONGBAT: one round-trip time. */
void playout_add_ping(playout *pl, uint32_t rtt_us);

/* PONGBAT: a render frame at now_us; decides every PERIOD. */
void playout_on_frame(playout *pl, uint64_t now_us);

/* The adaptive target from one window (exposed for tests): writes the
 * parts it used. */
uint32_t playout_adaptive_target(const playout *pl, const int32_t *ticks, const int64_t *offsets,
                                 int n, int64_t base, int32_t left, int32_t *scratch_t, int64_t *scratch_j,
                                 uint32_t *jitter_us, uint32_t *interval_ticks, int *loss_run);

#endif /* TEMPO_INTERP_PLAYOUT_H */
