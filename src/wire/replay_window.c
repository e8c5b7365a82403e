/* SPDX-License-Identifier: MIT */
/*
 * replay_window.c — the replay window (replay_window.h).
 *
 * Invariant: for every s with highest - REPLAY_WINDOW < s <= highest, bit
 * s % REPLAY_WINDOW of seen is set exactly when s was accepted. Raising the
 * highest from h to n clears the bits of h + 1 .. n - 1 and sets n's:
 * those positions last stood for h + 1 - REPLAY_WINDOW .. n - REPLAY_WINDOW,
 * which have just left the window. In order (n = h + 1) that is one bit
 * set.
 */
#include "wire/replay_window.h"

#include <string.h>

#define WORD_BITS 64

void replay_init(tempo_replay *w)
{
    w->highest = 0;
    memset(w->seen, 0, sizeof w->seen);
    w->any = false;
}

static bool seen_bit(const tempo_replay *w, uint64_t seq)
{
    unsigned pos = (unsigned)(seq % REPLAY_WINDOW);
    return (w->seen[pos / WORD_BITS] >> (pos % WORD_BITS)) & 1u;
}

/* Clear `count` (< REPLAY_WINDOW) bits from position `pos` on, wrapping. */
static void clear_bits(tempo_replay *w, unsigned pos, unsigned count)
{
    while (count > 0) {
        unsigned off = pos % WORD_BITS;
        unsigned n = WORD_BITS - off < count ? WORD_BITS - off : count;
        uint64_t mask = n == WORD_BITS ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1) << off;
        w->seen[pos / WORD_BITS] &= ~mask;
        pos = (pos + n) % REPLAY_WINDOW;
        count -= n;
    }
}

tempo_drop_reason replay_check(const tempo_replay *w, uint64_t seq)
{
    if (seq == UINT64_MAX)
        return TEMPO_DROP_STALE;
    if (!w->any || seq > w->highest)
        return TEMPO_DROP_NONE;
    if (w->highest - seq >= REPLAY_WINDOW)
        return TEMPO_DROP_STALE;
    return seen_bit(w, seq) ? TEMPO_DROP_DUPLICATE : TEMPO_DROP_NONE;
}

tempo_drop_reason replay_accept(tempo_replay *w, uint64_t seq)
{
    tempo_drop_reason why = replay_check(w, seq);
    if (why != TEMPO_DROP_NONE)
        return why;
    if (!w->any || (seq > w->highest && seq - w->highest >= REPLAY_WINDOW)) {
        memset(w->seen, 0, sizeof w->seen);
        w->highest = seq;
    } else if (seq > w->highest) {
        /* seq's own bit is set below: clear the ones between */
        if (seq - w->highest > 1)
            clear_bits(w, (unsigned)((w->highest + 1) % REPLAY_WINDOW),
                       (unsigned)(seq - w->highest - 1));
        w->highest = seq;
    }
    w->any = true;
    unsigned pos = (unsigned)(seq % REPLAY_WINDOW);
    w->seen[pos / WORD_BITS] |= (uint64_t)1 << (pos % WORD_BITS);
    return TEMPO_DROP_NONE;
}

uint64_t replay_highest(const tempo_replay *w) { return w->any ? w->highest : 0; }
