/* SPDX-License-Identifier: MIT */
/*
 * clock.h — the session clock: monotonic time built from the steps of the
 * caller's clock between polls, on which every timer of a session runs.
 *
 * A step back counts as no time; a leap forward longer than the interruption
 * time (disconnect_notify_ms) is this machine's own pause and counts as one
 * frame (tempo_session_poll documents the behaviour callers see).
 * Internal: not installed.
 */
#ifndef TEMPO_SESSION_CLOCK_H
#define TEMPO_SESSION_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

typedef struct session_clock {
    uint64_t now_us;     /* session time: what every timer reads */
    uint64_t raw_us;     /* the caller's time at the last step */
    bool has_time;       /* a step happened */
    uint64_t resumed_us; /* session time of the last jump: round trips begun
                            before it measure nothing */
    uint64_t jumps;      /* steps back and leaps forward */
    uint64_t leap_us;    /* of the last jump, the caller's time not counted (0: a step back) */
} session_clock;

/* Move the clock by the caller's step to now_us. A leap is a step forward
 * longer than notify_ms; it counts as one frame at frames_per_second. */
void session_clock_step(session_clock *c, uint64_t now_us, uint32_t notify_ms,
                        int frames_per_second);

/* True if something sent at session time `sent_us` was in flight across a
 * step of the caller's clock that the session did not count as time. */
static inline bool session_clock_spans_jump(const session_clock *c, uint64_t sent_us)
{
    return sent_us < c->resumed_us;
}

#endif /* TEMPO_SESSION_CLOCK_H */
