/* SPDX-License-Identifier: MIT */
/*
 * replay_window.h — the replay window: each 64-bit sequence is accepted at most
 * once, and nothing older than the window is accepted at all.
 *
 * As in netcode.io's standard ("replay protection"): the window remembers
 * the highest sequence accepted and, in slot s % REPLAY_WINDOW, the last
 * sequence accepted there. A sequence more than REPLAY_WINDOW - 1 below the
 * highest is stale; one whose slot already holds it is a duplicate. Both
 * checks and the update are O(1) and the memory is fixed (2 KiB per link).
 *
 * Checking and accepting are separate so a receiver can drop a replay
 * before the costly work (opening a seal, decoding) and accept only once
 * that work proved the datagram genuine: a forged datagram then moves
 * nothing.
 *
 * The highest accepted sequence is also what packet_sequence_recover
 * recovers the next one against.
 */
#ifndef TEMPO_WIRE_REPLAY_WINDOW_H
#define TEMPO_WIRE_REPLAY_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/drop.h"

#define REPLAY_WINDOW 256
#define REPLAY_EMPTY UINT64_MAX /* a slot that never held a sequence */

typedef struct tempo_replay {
    uint64_t highest;          /* highest accepted; meaningful once any is */
    bool any;                  /* a sequence has been accepted */
    uint64_t slot[REPLAY_WINDOW];
} tempo_replay;

void replay_init(tempo_replay *w);

/* Would `seq` be accepted now? TEMPO_DROP_NONE, TEMPO_DROP_DUPLICATE or
 * TEMPO_DROP_STALE. Changes nothing. UINT64_MAX is never accepted (it marks
 * empty slots; no sender gets that far). */
tempo_drop_reason replay_check(const tempo_replay *w, uint64_t seq);

/* Check, and if acceptable record `seq` (it becomes the highest if it is).
 * Returns what replay_check returned. */
tempo_drop_reason replay_accept(tempo_replay *w, uint64_t seq);

/* The sequence to recover the next one against (0 before any). */
uint64_t replay_highest(const tempo_replay *w);

#endif /* TEMPO_WIRE_REPLAY_WINDOW_H */
