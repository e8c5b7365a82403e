/* SPDX-License-Identifier: MIT */
/*
 * sim_clock.c — a simulated machine's clock.
 *
 * A machine starts at virtual time start_us (its start skew plus a seeded
 * phase, since real machines' ticks are never in step) and its clock runs at
 * `rate` times virtual time (a quartz 1% slow has rate 0.99). The game on it
 * ticks whenever its own clock passes a multiple of 1/60 s, so a slow clock
 * ticks less often in virtual time. A clock jump (a scenario's clock-jump)
 * shifts what the clock reads from then on, as a wall clock set by hand or a
 * machine resumed from sleep does; the ticks keep their pace. Invariant:
 * tick_vt is increasing in k, and local_us is non-decreasing in vt between
 * jumps.
 */
#include <math.h>

#include "sim_clock.h"

void sim_clock_init(sim_clock *c, uint64_t start_us, double drift_pct)
{
    c->start_us = start_us;
    c->rate = 1.0 + drift_pct / 100.0;
    c->jump_us = 0;
}

uint64_t sim_clock_local_us(const sim_clock *c, uint64_t vt_us)
{
    if (vt_us <= c->start_us)
        return 0;
    int64_t local = (int64_t)((double)(vt_us - c->start_us) * c->rate) + c->jump_us;
    return local > 0 ? (uint64_t)local : 0;
}

uint64_t sim_clock_tick_vt(const sim_clock *c, uint64_t k)
{
    /* Rounded up: at that microsecond the local clock has reached the tick. */
    return c->start_us + (uint64_t)ceil((double)k * SIM_TICK_PERIOD_US / c->rate);
}

uint64_t sim_clock_first_tick_from(const sim_clock *c, uint64_t vt_us)
{
    if (vt_us <= c->start_us)
        return 0;
    uint64_t k = (uint64_t)((double)(vt_us - c->start_us) * c->rate / SIM_TICK_PERIOD_US);
    /* The estimate may be off by one either way through rounding: settle it. */
    while (k > 0 && sim_clock_tick_vt(c, k - 1) >= vt_us)
        k--;
    while (sim_clock_tick_vt(c, k) < vt_us)
        k++;
    return k;
}
