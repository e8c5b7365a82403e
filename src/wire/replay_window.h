/* SPDX-License-Identifier: MIT */
/*
 * replay_window.h — the replay window: each 64-bit sequence is accepted at most
 * once, and nothing older than the window is accepted at all.
 *
 * The window remembers the highest sequence accepted and, for the
 * REPLAY_WINDOW sequences ending at it, one bit each: was it accepted. A
 * sequence REPLAY_WINDOW or more below the highest is stale; one whose bit
 * is set is a duplicate; one above the highest is new. The bit of s is bit
 * s % REPLAY_WINDOW of a ring of words, as in RFC 6479 and WireGuard;
 * moving the highest on clears the bits of the sequences it passes (all of
 * them after a jump of a window or more), so a bit never speaks for a
 * sequence that left the window. Both checks and the update are O(1) and
 * the memory is fixed and small (48 bytes per link), so the windows of
 * many links stay in the cache.
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

#define REPLAY_WINDOW 256 /* a multiple of 64 */

typedef struct tempo_replay {
    uint64_t highest;          /* highest accepted; meaningful once any is */
    uint64_t seen[REPLAY_WINDOW / 64]; /* bit s % REPLAY_WINDOW: s accepted, for s in the window */
    bool any;                  /* a sequence has been accepted */
} tempo_replay;

void replay_init(tempo_replay *w);

/* Would `seq` be accepted now? TEMPO_DROP_NONE, TEMPO_DROP_DUPLICATE or
 * TEMPO_DROP_STALE. Changes nothing. UINT64_MAX is never accepted (stale:
 * no sender gets that far). */
tempo_drop_reason replay_check(const tempo_replay *w, uint64_t seq);

/* Check, and if acceptable record `seq` (it becomes the highest if it is).
 * Returns what replay_check returned. */
tempo_drop_reason replay_accept(tempo_replay *w, uint64_t seq);

/* The sequence to recover the next one against (0 before any). */
uint64_t replay_highest(const tempo_replay *w);

#endif /* TEMPO_WIRE_REPLAY_WINDOW_H */
