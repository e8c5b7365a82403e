/* SPDX-License-Identifier: MIT */
/*
 * turns.h — the arithmetic of turn-based lockstep (docs/LOCKSTEP.md): when
 * a turn is due, which turn a time falls in, where rendering stands between
 * two turns, and the adaptive rule that picks a turn length.
 *
 * A turn is a slice of game time of a length in milliseconds that has
 * nothing to do with the game's frame rate. Commands collected during turn
 * N execute at turn N + delay. Turn k + 1 is due one turn length after turn
 * k's anchor: the time k was due, or the time it did execute when it had to
 * wait for another machine's commands (so every machine falls in step with
 * the slowest instead of waiting again every turn) or when the game ran it
 * more than half a turn late (a slow machine starts a fresh schedule
 * instead of racing to catch up).
 *
 * The adaptive rule follows Age of Empires as the lecture "Consistency
 * Despite Latency" tells it: one machine picks the length; it must cover
 * what the slowest machine needs to simulate a turn and what the worst
 * round trip needs to deliver a turn's commands in the delay's slack; it
 * grows at once and shrinks only by a clear margin (hysteresis), in steps,
 * within the configured bounds. Pure functions: no state, no clock.
 */
#ifndef TEMPO_TIMING_TURNS_H
#define TEMPO_TIMING_TURNS_H

#include <stdbool.h>
#include <stdint.h>

#define TURNS_STEP_MS 10u          /* lengths the rule picks are multiples of this */
/* Delivery slack beyond half the round trip and two deviations: one 60 Hz
 * tick. A round trip measured between polls already holds, on average, the
 * receiver's wait for its next poll; this covers a wait longer than that. */
#define TURNS_MARGIN_US 10000u
#define TURNS_SIM_SHARE_PCT 50u    /* simulating a turn may take this share of it */
#define TURNS_SHRINK_PCT 80u       /* shrink only to at most this share of the current */

typedef struct turns_rule {
    uint32_t min_ms, max_ms;  /* bounds of the length, min <= max */
    int delay;                /* execution delay in turns, >= 2 */
} turns_rule;

/* What the deciding machine knows of the worst machine and link. */
typedef struct turns_load {
    uint64_t sim_us;          /* slowest machine's mean cost of simulating one turn */
    uint64_t rtt_us;          /* largest smoothed round trip any machine measured */
    uint64_t rttvar_us;       /* that link's round-trip deviation */
} turns_load;

/* When turn k + 1 is due: k was due at due_us and executed at exec_us
 * (>= due_us), after waiting for a machine's commands if `waited`; len_us
 * is turn k's length. */
uint64_t turns_next_due(uint64_t due_us, uint64_t exec_us, uint64_t len_us, bool waited);

/* The turn that time now_us falls in, on a schedule where turn `turn`
 * started at start_us and every turn lasts len_us (> 0); times before
 * start_us fall in `turn`. */
int64_t turns_index_at(int64_t turn, uint64_t start_us, uint64_t len_us, uint64_t now_us);

/* How far rendering at now_us stands between the state before a turn and
 * the state after it, when the turn was anchored at anchor_us and lasts
 * len_us: 0 .. 1, 1 once the turn's length has passed (the next is late). */
double turns_blend(uint64_t anchor_us, uint64_t len_us, uint64_t now_us);

/* The length (ms) the load needs, before hysteresis: at least
 * sim_us * 100 / TURNS_SIM_SHARE_PCT, and at least
 * (rtt_us / 2 + 2 * rttvar_us + TURNS_MARGIN_US) / (delay - 1): a list sent
 * one turn before it is needed has delay - 1 turns to arrive. Rounded up to
 * TURNS_STEP_MS, within [min_ms, max_ms]. */
uint32_t turns_need_ms(const turns_rule *rule, const turns_load *load);

/* The length to use next given the current one: the need if it is longer
 * (grow at once), the need if it is at most TURNS_SHRINK_PCT of the current
 * (shrink by a clear margin), the current otherwise. */
uint32_t turns_adapt(const turns_rule *rule, uint32_t current_ms, const turns_load *load);

#endif /* TEMPO_TIMING_TURNS_H */
