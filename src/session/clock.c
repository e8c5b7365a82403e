/* SPDX-License-Identifier: MIT */
/*
 * clock.c — the session clock (clock.h): a monotonic time made of the
 * caller's steps, so that a machine that sleeps, stops in a debugger or has
 * its clock set back ends no match the network carried.
 */
#include "session/clock.h"

void session_clock_step(session_clock *c, uint64_t now_us, uint32_t notify_ms,
                        int frames_per_second)
{
    if (!c->has_time) {
        c->now_us = now_us;
    } else if (now_us < c->raw_us) {
        c->jumps++;
        c->resumed_us = c->now_us;
        c->leap_us = 0;
    } else if (now_us - c->raw_us > (uint64_t)notify_ms * 1000u) {
        /* this machine's own pause: the network carried on without it, so
         * it counts as one frame and nobody's silence grows by it (unless
         * nothing of a peer's waited for us: net/link.c) */
        uint64_t frame = 1000000u / (uint64_t)frames_per_second;
        c->now_us += frame;
        c->jumps++;
        c->resumed_us = c->now_us;
        c->leap_us = now_us - c->raw_us > frame ? now_us - c->raw_us - frame : 0;
    } else {
        c->now_us += now_us - c->raw_us;
    }
    c->raw_us = now_us;
    c->has_time = true;
}
