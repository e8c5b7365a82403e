/* SPDX-License-Identifier: MIT */
/*
 * sim_lockstep.h — tempo-sim's RTS-style matches (sim_lockstep.c): the
 * game of sim_rts.h played by bots, one player per machine, over simnet in
 * virtual time, in one of four ways, measured alike from outside:
 *
 *   frame lockstep   p2p rollback sessions in a mesh with no prediction
 *                    (max-prediction 0) and an input delay
 *   turns            the turn-based lockstep object, fixed or adaptive turns
 *                    in a mesh, or fixed turns through one tempo relay
 *   relay            rollback sessions through one tempo relay
 *   rollback mesh    rollback sessions, p2p
 */
#ifndef TEMPO_SIM_LOCKSTEP_H
#define TEMPO_SIM_LOCKSTEP_H

#include "sim.h"
#include "sim_metrics.h"
#include "sim_relay.h"

/* ---- sim_lockstep.c: the RTS-style match ---------------------------------- */

typedef enum sim_ls_kind {
    SIM_LS_FRAME_MESH, /* frame lockstep: p2p, max-prediction 0, input delay */
    SIM_LS_TURNS,      /* the lockstep object */
    SIM_LS_RELAY,      /* rollback through the relay */
    SIM_LS_ROLLBACK_MESH /* rollback, p2p */
} sim_ls_kind;

typedef struct sim_ls_way {
    sim_ls_kind kind;
    uint32_t turn_ms;      /* SIM_LS_TURNS: the first (fixed: every) turn's length */
    bool adaptive;         /* SIM_LS_TURNS: the host adapts it */
    bool via_relay;        /* SIM_LS_TURNS: through the relay (turn_ms fixed), not a mesh */
    char label[32];
} sim_ls_way;

#define SIM_LS_SERIES_S 0.25 /* turn-length samples, seconds apart */

/* What a group of machines saw (every machine but the slow one, or the
 * slow one alone). A command's latency runs from the tick its bot gave it
 * to the tick its own machine first drew its effect (shown: executed,
 * predicted or not) and to the tick the frame or turn holding it became
 * final there (final: confirmed). A command whose frame or turn became
 * final without it (the relay substituted the machine's late input or
 * turn list) is lost. */
typedef struct sim_ls_group {
    int machines;
    uint64_t waits, waits_slow; /* freezes, and those awaiting only the slow machine's commands */
    double waits_per_min;       /* per machine of the group */
    double shown_mean_ms, shown_max_ms, final_mean_ms, final_max_ms;
    uint64_t shown, finals, lost;
} sim_ls_group;

typedef struct sim_ls_result {
    sim_ls_way way;
    int machines;
    int slow;                   /* the slow machine (a --link A-* line), -1 if none */
    bool finished, converged;
    char problem[160];
    uint32_t dropped;           /* machines the relay dropped (bit i: machine i), left out of the check */
    int32_t compared;           /* turns (frames) whose checksums every machine agreed on */
    double match_s;             /* virtual seconds until every machine played the match */
    sim_ls_group others, slow_group; /* every machine but the slow one; the slow one (if any) */
    double up_kbps[SIM_MAX_MACHINES], down_kbps[SIM_MAX_MACHINES]; /* payload, kilobits a second */
    double relay_up_kbps, relay_down_kbps; /* the relay's own, when there is one */
    uint64_t lists, lists_substituted; /* turns through the relay: lists machine 0 executed,
                                          and those the relay substituted (late for its deadline) */
    /* turn lengths, machine 0's turns (frames: 1000/60 ms) */
    double turn_min_ms, turn_mean_ms, turn_max_ms;
    int switches;               /* turn-length changes */
    bool switches_agree;        /* every machine switched at the same turns to the same lengths */
    float *series;              /* machine 0's turn length every SIM_LS_SERIES_S (malloc'd) */
    int series_n;
} sim_ls_result;

/* Frame lockstep's input delay: --input-delay, else enough frames to cover
 * the slowest link one way (latency + 2 x jitter, + 1 frame); fixed turns'
 * length sized the same way, half that (a command's list has two turns to
 * arrive), rounded up to 10 ms, at least 35 ms. What a studio sizing them
 * for its worst player would pick. */
int sim_ls_frame_delay(const sim_options *o);
uint32_t sim_ls_turn_ms(const sim_options *o);

/* Run one match of o's players (one per machine) the way w says. Returns
 * SIM_EXIT_OK after a run (its verdict in *r), SIM_EXIT_USAGE with a
 * message on stderr if it cannot be set up. Free r->series after. */
int sim_ls_run(const sim_options *o, const sim_ls_way *w, sim_ls_result *r);


#endif /* TEMPO_SIM_LOCKSTEP_H */
