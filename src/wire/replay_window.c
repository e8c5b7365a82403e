/* SPDX-License-Identifier: MIT */
/*
 * replay_window.c — the replay window (replay_window.h).
 *
 * Invariant: for every accepted s with s + REPLAY_WINDOW > highest,
 * slot[s % REPLAY_WINDOW] == s. A later accepted sequence only overwrites a
 * slot with a larger value of the same residue, and that can only happen
 * once the old one has left the window; so "slot holds seq" is exactly
 * "seq was accepted" inside the window.
 */
#include "wire/replay_window.h"

void replay_init(tempo_replay *w)
{
    w->highest = 0;
    w->any = false;
    for (int i = 0; i < REPLAY_WINDOW; i++)
        w->slot[i] = REPLAY_EMPTY;
}

tempo_drop_reason replay_check(const tempo_replay *w, uint64_t seq)
{
    if (seq == REPLAY_EMPTY)
        return TEMPO_DROP_STALE;
    if (w->any && seq < w->highest && w->highest - seq >= REPLAY_WINDOW)
        return TEMPO_DROP_STALE;
    if (w->slot[seq % REPLAY_WINDOW] == seq)
        return TEMPO_DROP_DUPLICATE;
    return TEMPO_DROP_NONE;
}

tempo_drop_reason replay_accept(tempo_replay *w, uint64_t seq)
{
    tempo_drop_reason why = replay_check(w, seq);
    if (why != TEMPO_DROP_NONE)
        return why;
    w->slot[seq % REPLAY_WINDOW] = seq;
    if (!w->any || seq > w->highest)
        w->highest = seq;
    w->any = true;
    return TEMPO_DROP_NONE;
}

uint64_t replay_highest(const tempo_replay *w) { return w->any ? w->highest : 0; }
