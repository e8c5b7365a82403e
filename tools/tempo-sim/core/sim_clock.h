/* SPDX-License-Identifier: MIT */
/*
 * sim_clock.h — a simulated machine's clock (sim_clock.c), shared by every
 * mode whose machines tick at 60 Hz of their own clocks (p2p, client-server):
 * where it starts, how fast it runs, when its ticks fall in virtual time.
 *
 * Virtual time ("vt", microseconds) is the one true time; simnet runs on it.
 * A machine sees only its local time, which its clock derives from vt.
 */
#ifndef TEMPO_SIM_CLOCK_H
#define TEMPO_SIM_CLOCK_H

#include <stdint.h>

#define SIM_TICK_PERIOD_US (1e6 / 60.0) /* every machine ticks at 60 Hz of its own clock */
#define SIM_SAMPLE_S 0.25               /* timelines' interval (longer for very long matches) */

/* A machine's clock: local(vt) = (vt - start_us) * rate + jump_us for
 * vt >= start_us (never below 0), rate = 1 + drift / 100. Tick k falls at
 * (vt - start_us) * rate = k * SIM_TICK_PERIOD_US: jumps move what the clock
 * reads, not when the game ticks. */
typedef struct sim_clock {
    uint64_t start_us;
    double rate;
    int64_t jump_us;  /* the clock jumps so far (negative: back) */
} sim_clock;

void sim_clock_init(sim_clock *c, uint64_t start_us, double drift_pct);
/* The machine's local time at vt (0 before it started), microseconds. */
uint64_t sim_clock_local_us(const sim_clock *c, uint64_t vt_us);
/* The virtual time of tick k (rounded up to the microsecond). */
uint64_t sim_clock_tick_vt(const sim_clock *c, uint64_t k);
/* The first tick that falls at or after vt. */
uint64_t sim_clock_first_tick_from(const sim_clock *c, uint64_t vt_us);

#endif /* TEMPO_SIM_CLOCK_H */
