/* SPDX-License-Identifier: MIT */
/*
 * sim_view.h — what tempo-sim's view comparisons share (sim_view.c:
 * interpolation and dead reckoning; sim_view_lagcomp.c: lag
 * compensation), written in sim_view_world.c: the server's world of bots
 * and its true positions, the two-node network, the snapshot message, and
 * the client's estimate of the server's clock.
 *
 * The server steps 8 bots at 60 Hz in a 60 x 40 m field: each runs at up
 * to 6 m/s towards a heading it changes every 0.5 to 2 s, turning with at
 * most 30 m/s^2, bouncing off the walls. Every tick it sends one client a
 * snapshot of every bot (position, velocity, acceleration, Q16.16 metres).
 * The server's clock is virtual time; the client's runs V_CLIENT_CLOCK_US
 * ahead of it, so nothing the client computes can use the server's clock
 * by accident: it knows server time only through its pings.
 */
#ifndef TEMPO_SIM_VIEW_H
#define TEMPO_SIM_VIEW_H

#include "sim.h"
#include "sim_metrics.h"

#define V_BOTS 8
#define V_TICK_US 16667u
#define V_RENDER_PHASE_US 7000u
#define V_UNIT 65536.0             /* Q16.16 metres */
#define V_FIELD_W 60.0
#define V_FIELD_H 40.0
#define V_SPEED 6.0                /* m/s */
#define V_ACCEL 30.0               /* m/s^2 */
#define V_RING 256                 /* snapshots the client keeps */
#define V_PING_US 100000u
#define V_CLIENT_CLOCK_US 7654321u /* the client's clock minus the server's */
#define V_CLOCK_SAMPLES 16         /* pings the clock estimate looks back over */

enum { V_MSG_SNAP = 1, V_MSG_PING = 2, V_MSG_PONG = 3, V_MSG_SHOT = 4 };

typedef struct view_bot {
    double p[2], v[2], a[2], tv[2];
    int32_t turn_at;
} view_bot;

typedef struct view_snap {
    int32_t tick;
    int32_t p[V_BOTS][2], v[V_BOTS][2], a[V_BOTS][2];
} view_snap;

typedef struct view_world {
    view_bot b[V_BOTS];
    tempo_rng rng;
    double (*truth)[V_BOTS][2];    /* position at each tick */
    int ticks;
} view_world;

typedef struct view_net {
    tempo_simnet *net;
    tempo_transport server, client;
    tempo_address sa, ca;
} view_net;

/* The client's estimate of the server's clock from its pings (Cristian's
 * rule with NTP's filter): each answer carries the server's time when it
 * answered; of the last V_CLOCK_SAMPLES, the one with the shortest round
 * trip gives the offset, server time = that time + half its round trip.
 * rtt_us is the smoothed round trip (7/8 old, 1/8 new) Pongbat's rule
 * reads. */
typedef struct view_clock {
    double rtt[V_CLOCK_SAMPLES];
    int64_t offset[V_CLOCK_SAMPLES]; /* server time minus client time */
    int n, head;
    int64_t best_offset;
    double rtt_us;
    bool has;
} view_clock;

double view_uniform(tempo_rng *r);
double view_gaussian(tempo_rng *r);
int32_t view_q16(double m);

/* The world from the seed, holding frames + 1 ticks of truth; false if
 * out of memory. Free with view_world_free. */
bool view_world_init(view_world *w, uint64_t seed, int frames);
void view_world_free(view_world *w);
/* The server's tick: step the bots, keep the truth, send the snapshot. */
void view_server_tick(view_world *w, view_net *n, int32_t tick);
/* The true position of bot i at server time t_us. */
void view_truth_at(const view_world *w, int i, double t_us, double out[2]);

/* Two simnet nodes, a link each way; false if it cannot be set up. */
bool view_net_open(view_net *n, uint64_t seed, const tempo_link_params *down, const tempo_link_params *up);
bool view_read_snap(const uint8_t *buf, int len, view_snap *s);

/* The next moment the loop has work: the earliest of the three times and
 * the network's next delivery; the network is set to it. */
uint64_t view_next_time(view_net *n, uint64_t a, uint64_t b, uint64_t c);

/* Pings. One side sends its clock; the other answers (through tr, to
 * `to`) with it and its own; the first feeds the answer to
 * view_clock_pong. */
void view_send_ping(tempo_transport *tr, const tempo_address *to, uint64_t now_us);
void view_answer_ping(tempo_transport *tr, const tempo_address *to, uint64_t now_us, const uint8_t *buf, int len);
/* Reads a PONG into the clock; false if buf is none. */
bool view_clock_pong(view_clock *c, const uint8_t *buf, int len, uint64_t client_us);
/* Server time t on the client's clock, as the client estimates it. */
int64_t view_clock_local(const view_clock *c, int64_t server_us);

/* A snapshot into the dead reckoning of every bot (rk[V_BOTS]): valid at
 * its tick's server time put on the client's clock (never later than
 * local_us), news only if newer than the state held; nothing before the
 * clock has a sample. */
void view_reckon_snapshot(tempo_reckon *rk, const view_clock *clock, const view_snap *s, uint64_t local_us);

/* What the client draws for bot i from a sample of the snapshot buffer
 * over the snapshots in ring (indexed by handle); false if nothing yet. */
bool view_interp_draw(const view_snap *ring, const tempo_interp_sample *s, int i, double out[2]);

/* --compare lagcomp (sim_view_lagcomp.c). */
int sim_view_lagcomp(const sim_options *o);

#endif /* TEMPO_SIM_VIEW_H */
