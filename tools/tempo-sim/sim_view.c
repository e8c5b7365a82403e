/* SPDX-License-Identifier: MIT */
/*
 * sim_view.c — tempo-sim --compare interpolation | reckoning | lagcomp:
 * how a client shows what it only hears about, measured from outside
 * against the server's true positions.
 *
 * A server steps 8 bots at 60 Hz in a 60 x 40 m field: each runs at up to
 * 6 m/s towards a heading it changes every 0.5 to 2 s, turning with at most
 * 30 m/s^2, bouncing off the walls. Every tick it sends a snapshot of every
 * bot (position, velocity, acceleration, Q16.16 metres) to one client over
 * a simnet link of the chosen profile; the client pings every 100 ms. The
 * client renders at 60 Hz, out of phase with the server's ticks, and each
 * variant of the comparison shows the bots its way:
 *
 *   interpolation  tempo_interp with a fixed 2-tick delay, Pongbat's rule
 *                  and the adaptive rule; drawn = the blend of the two
 *                  snapshots around the render time (past the newest: the
 *                  newest extrapolated by its velocity). Error: against the
 *                  true position at the render time. Added delay: server
 *                  time minus render time.
 *   reckoning      tempo_reckon, first and second order, each with snap,
 *                  blend and plan corrections (100 ms, or longer so a
 *                  correction adds at most 3 m/s); an update is valid
 *                  at its tick's server time, put on the client's clock
 *                  with the smallest transit seen (so a snapshot a jitter
 *                  spike delayed is known to be old).
 *                  Error: against the true position now.
 *   lagcomp        the client interpolates (adaptive) and shoots at a bot
 *                  every 0.3 to 1 s with a little aim error; its command
 *                  carries the view tick and fraction and goes out every
 *                  frame for 100 ms (loss). The server tests the shot with tempo_lagcomp
 *                  (rewound to the shooter's view) or without (the present),
 *                  at 50, 100 and 150 ms one way with 1 % loss.
 *
 * Everything runs in virtual time from the seed: the same command prints
 * the same table. A jump is a render-to-render move longer than the bots'
 * top speed allows (with 50 % slack).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "sim_match.h"
#include "sim_svg.h"

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
#define V_MAX_ROWS 8
#define V_SHOT_RADIUS 0.5          /* m: a bot's hit sphere */
#define V_AIM_SIGMA 0.3            /* m: aim error */
#define V_COVER_X0 27.0            /* a pillar in the middle of the field */
#define V_COVER_X1 33.0

enum { MSG_SNAP = 1, MSG_PING = 2, MSG_PONG = 3, MSG_SHOT = 4 };

typedef struct bot {
    double p[2], v[2], a[2], tv[2];
    int32_t turn_at;
} bot;

typedef struct snap {
    int32_t tick;
    int32_t p[V_BOTS][2], v[V_BOTS][2], a[V_BOTS][2];
} snap;

typedef struct view_row {
    char label[32];
    /* interpolation and reckoning */
    double err_sum, err_max, delay_sum;
    uint64_t samples, renders, jumps;
    double *errs;                  /* every sample, for the 99th percentile */
    double p99;
    uint64_t underruns, extrapolated_us;
    float *err_per_s, *delay_per_s; /* chart series, one value a second */
    /* lagcomp */
    int one_way_ms;
    bool compensate;
    uint64_t shots, on_screen, arrived, confirmed, after_cover;
} view_row;

typedef struct view_world {
    bot b[V_BOTS];
    tempo_rng rng;
    double (*truth)[V_BOTS][2];    /* position at each tick */
    int ticks;
} view_world;

static double uniform(tempo_rng *r) { return (double)tempo_rng_next(r) / 4294967296.0; }

static double gaussian(tempo_rng *r)
{
    double u = uniform(r), v = uniform(r);
    return sqrt(-2.0 * log(u > 1e-12 ? u : 1e-12)) * cos(6.283185307179586 * v);
}

static void world_init(view_world *w, uint64_t seed)
{
    tempo_rng_seed(&w->rng, seed, 77);
    for (int i = 0; i < V_BOTS; i++) {
        bot *b = &w->b[i];
        memset(b, 0, sizeof *b);
        b->p[0] = 5.0 + uniform(&w->rng) * (V_FIELD_W - 10.0);
        b->p[1] = 5.0 + uniform(&w->rng) * (V_FIELD_H - 10.0);
        b->turn_at = 0;
    }
}

/* One 60 Hz step of every bot. */
static void world_step(view_world *w, int32_t tick)
{
    const double dt = V_TICK_US / 1e6;
    for (int i = 0; i < V_BOTS; i++) {
        bot *b = &w->b[i];
        if (tick >= b->turn_at) {
            double ang = uniform(&w->rng) * 6.283185307179586;
            double speed = V_SPEED * (0.5 + 0.5 * uniform(&w->rng));
            b->tv[0] = speed * cos(ang);
            b->tv[1] = speed * sin(ang);
            b->turn_at = tick + 30 + (int32_t)tempo_rng_below(&w->rng, 91);
        }
        double dv[2] = {b->tv[0] - b->v[0], b->tv[1] - b->v[1]};
        double need = sqrt(dv[0] * dv[0] + dv[1] * dv[1]) / dt;
        double scale = need > V_ACCEL ? V_ACCEL / need : 1.0;
        for (int k = 0; k < 2; k++) {
            b->a[k] = need > 0 ? dv[k] / dt * scale : 0.0;
            b->v[k] += b->a[k] * dt;
            b->p[k] += b->v[k] * dt;
        }
        const double lim[2] = {V_FIELD_W, V_FIELD_H};
        for (int k = 0; k < 2; k++)
            if (b->p[k] < 0 || b->p[k] > lim[k]) {
                b->p[k] = b->p[k] < 0 ? -b->p[k] : 2 * lim[k] - b->p[k];
                b->v[k] = -b->v[k];
                b->tv[k] = -b->tv[k];
                b->a[k] = -b->a[k];
            }
    }
}

static int32_t q16(double m) { return (int32_t)lrint(m * V_UNIT); }

static void world_snap(const view_world *w, int32_t tick, snap *s)
{
    s->tick = tick;
    for (int i = 0; i < V_BOTS; i++)
        for (int k = 0; k < 2; k++) {
            s->p[i][k] = q16(w->b[i].p[k]);
            s->v[i][k] = q16(w->b[i].v[k]);
            s->a[i][k] = q16(w->b[i].a[k]);
        }
}

/* The true position of bot i at server time t_us (between two ticks: the
 * straight line, off by under a millimetre at these speeds). */
static void truth_at(const view_world *w, int i, double t_us, double out[2])
{
    double tk = t_us / V_TICK_US;
    if (tk < 0)
        tk = 0;
    int k0 = (int)tk;
    if (k0 >= w->ticks - 1) {
        out[0] = w->truth[w->ticks - 1][i][0];
        out[1] = w->truth[w->ticks - 1][i][1];
        return;
    }
    double f = tk - k0;
    for (int k = 0; k < 2; k++)
        out[k] = w->truth[k0][i][k] + (w->truth[k0 + 1][i][k] - w->truth[k0][i][k]) * f;
}

/* ---- the network: two simnet nodes ---------------------------------------- */

typedef struct view_net {
    tempo_simnet *net;
    tempo_transport server, client;
    tempo_address sa, ca;
} view_net;

static bool net_open(view_net *n, uint64_t seed, const tempo_link_params *down,
                     const tempo_link_params *up)
{
    tempo_simnet_config cfg;
    tempo_simnet_config_default(&cfg);
    cfg.seed = seed;
    cfg.max_in_flight = 4096;
    if (tempo_simnet_create(&cfg, &n->net) != TEMPO_OK)
        return false;
    tempo_address_parse(&n->sa, "10.0.0.1:1000");
    tempo_address_parse(&n->ca, "10.0.0.2:2000");
    return tempo_simnet_add_node(n->net, &n->sa, &n->server) == TEMPO_OK &&
           tempo_simnet_add_node(n->net, &n->ca, &n->client) == TEMPO_OK &&
           tempo_simnet_set_link(n->net, &n->sa, &n->ca, down) == TEMPO_OK &&
           tempo_simnet_set_link(n->net, &n->ca, &n->sa, up) == TEMPO_OK;
}

static void put32(uint8_t *b, int32_t v)
{
    uint32_t u = (uint32_t)v;
    b[0] = (uint8_t)u;
    b[1] = (uint8_t)(u >> 8);
    b[2] = (uint8_t)(u >> 16);
    b[3] = (uint8_t)(u >> 24);
}

static int32_t get32(const uint8_t *b)
{
    return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
}

static void send_snap(view_net *n, const snap *s)
{
    uint8_t buf[8 + V_BOTS * 24];
    buf[0] = MSG_SNAP;
    put32(buf + 1, s->tick);
    uint8_t *q = buf + 5;
    for (int i = 0; i < V_BOTS; i++)
        for (int k = 0; k < 2; k++) {
            put32(q, s->p[i][k]);
            put32(q + 8, s->v[i][k]);
            put32(q + 16, s->a[i][k]);
            q += 4;
            if (k == 1)
                q += 16;
        }
    n->server.send(n->server.ctx, &n->ca, buf, (size_t)(q - buf));
}

static bool read_snap(const uint8_t *buf, int len, snap *s)
{
    if (len != 5 + V_BOTS * 24 || buf[0] != MSG_SNAP)
        return false;
    s->tick = get32(buf + 1);
    const uint8_t *q = buf + 5;
    for (int i = 0; i < V_BOTS; i++)
        for (int k = 0; k < 2; k++) {
            s->p[i][k] = get32(q);
            s->v[i][k] = get32(q + 8);
            s->a[i][k] = get32(q + 16);
            q += 4;
            if (k == 1)
                q += 16;
        }
    return true;
}

/* The server's tick: step the bots, keep the truth, send the snapshot. */
static void server_tick(view_world *w, view_net *n, int32_t tick)
{
    world_step(w, tick);
    for (int i = 0; i < V_BOTS; i++) {
        w->truth[tick][i][0] = w->b[i].p[0];
        w->truth[tick][i][1] = w->b[i].p[1];
    }
    snap s;
    world_snap(w, tick, &s);
    send_snap(n, &s);
}

/* ---- interpolation and reckoning ------------------------------------------ */

typedef enum view_kind { VIEW_INTERP, VIEW_RECKON, VIEW_LAGCOMP } view_kind;

typedef struct view_variant {
    view_kind kind;
    tempo_playout_mode playout;
    int late_percent;       /* ADAPTIVE: 0 = the default */
    int order;
    tempo_reckon_correction correction;
} view_variant;

typedef struct view_client {
    snap ring[V_RING];
    bool have[V_RING];
    tempo_interp *ip;
    tempo_reckon rk[V_BOTS];
    double rtt_us;
    bool has_rtt;
    int64_t offset_us;      /* smallest arrival minus server time seen: the fastest path */
    bool has_offset;
    double last[V_BOTS][2];
    bool has_last;
} view_client;

static void view_free(view_world *w, view_net *n, view_client *c)
{
    tempo_interp_destroy(c ? c->ip : NULL);
    tempo_simnet_destroy(n->net);
    free(c);
    free(w->truth);
}

/* A rendered frame waiting for the world to pass its time. */
#define V_PENDING 8
typedef struct pending_render {
    double ref_us, delay_us;
    double drawn[V_BOTS][2];
} pending_render;

/* What the client draws for bot i from a sample of the snapshot buffer. */
static bool interp_draw(const view_client *c, const tempo_interp_sample *s, int i, double out[2])
{
    if (s->kind == TEMPO_INTERP_EMPTY)
        return false;
    const snap *a = &c->ring[s->from_handle], *b = &c->ring[s->to_handle];
    for (int k = 0; k < 2; k++) {
        double pa = a->p[i][k] / V_UNIT, pb = b->p[i][k] / V_UNIT;
        if (s->kind == TEMPO_INTERP_HOLD)
            out[k] = pa;
        else if (s->kind == TEMPO_INTERP_BLEND)
            out[k] = pa + (pb - pa) * (s->frac / 65536.0);
        else
            out[k] = pb + b->v[i][k] / V_UNIT * (s->extrapolate_us / 1e6);
    }
    return true;
}

static void row_sample(view_row *row, double err, double move, double dt_s)
{
    row->err_sum += err;
    if (err > row->err_max)
        row->err_max = err;
    row->errs[row->samples++] = err;
    if (move > V_SPEED * dt_s * 1.5 + 0.005)
        row->jumps++;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One match of `frames` ticks for one variant; false if something could
 * not be set up. */
static bool run_view(const sim_options *o, const view_variant *v, const tempo_link_params *link,
                     view_row *row)
{
    view_world w;
    world_init(&w, o->seed);
    w.ticks = o->frames + 1;
    w.truth = calloc((size_t)w.ticks, sizeof *w.truth);
    view_client *c = calloc(1, sizeof *c);
    view_net n;
    memset(&n, 0, sizeof n);
    bool ok = w.truth && c && net_open(&n, o->seed, link, link);
    tempo_interp_config ic;
    tempo_interp_config_default(&ic);
    ic.tick_us = V_TICK_US;
    ic.capacity = 128;
    ic.mode = v->playout;
    if (v->late_percent)
        ic.late_percent = v->late_percent;
    if (ok && v->kind == VIEW_INTERP)
        ok = tempo_interp_create(&ic, &c->ip) == TEMPO_OK;
    for (int i = 0; ok && i < V_BOTS && v->kind == VIEW_RECKON; i++) {
        tempo_reckon_config rc;
        tempo_reckon_config_default(&rc);
        rc.dims = 2;
        rc.order = v->order;
        rc.correction = v->correction;
        /* a correction may add at most half the bots' top speed */
        rc.max_correct_speed = (uint32_t)(V_SPEED / 2 * V_UNIT);
        ok = tempo_reckon_init(&c->rk[i], &rc) == TEMPO_OK;
    }
    size_t max_samples = (size_t)(o->frames + 2) * V_BOTS;
    row->errs = ok ? calloc(max_samples, sizeof *row->errs) : NULL;
    int seconds = o->frames / 60 + 2;
    row->err_per_s = calloc((size_t)seconds, sizeof(float));
    row->delay_per_s = calloc((size_t)seconds, sizeof(float));
    ok = ok && row->errs && row->err_per_s && row->delay_per_s;
    double sec_err = 0, sec_delay = 0;
    int sec_n = 0, sec_renders = 0, sec = 0, npend = 0;
    pending_render pend[V_PENDING];
    uint64_t next_tick = 0, next_render = V_RENDER_PHASE_US, next_ping = 0;
    int32_t tick = 0;
    const double render_s = V_TICK_US / 1e6;
    while (ok && tick <= o->frames) {
        uint64_t t = next_tick < next_render ? next_tick : next_render;
        if (next_ping < t)
            t = next_ping;
        uint64_t at;
        if (tempo_simnet_next_delivery(n.net, &at) == 1 && at < t)
            t = at;
        tempo_simnet_set_time(n.net, t);
        uint8_t buf[TEMPO_MAX_DATAGRAM];
        tempo_address from;
        int len;
        while ((len = n.server.recv(n.server.ctx, &from, buf, sizeof buf)) > 0)
            if (buf[0] == MSG_PING && len == 9) {
                buf[0] = MSG_PONG;
                n.server.send(n.server.ctx, &n.ca, buf, (size_t)len);
            }
        while ((len = n.client.recv(n.client.ctx, &from, buf, sizeof buf)) > 0) {
            if (buf[0] == MSG_PONG && len == 9) {
                uint64_t sent = 0;
                for (int k = 0; k < 8; k++)
                    sent |= (uint64_t)buf[1 + k] << (8 * k);
                double rtt = (double)(t - sent);
                c->rtt_us = c->has_rtt ? c->rtt_us * 0.875 + rtt * 0.125 : rtt;
                c->has_rtt = true;
                continue;
            }
            snap s;
            if (!read_snap(buf, len, &s))
                continue;
            int h = s.tick % V_RING;
            if (v->kind == VIEW_INTERP) {
                uint32_t evicted;
                if (tempo_interp_push(c->ip, s.tick, t, (uint32_t)h, &evicted) == TEMPO_OK) {
                    c->ring[h] = s;
                    c->have[h] = true;
                }
            } else {
                /* The snapshot's server time on our clock: its tick's time
                 * plus the fastest transit seen, so a delayed snapshot is
                 * known to be old rather than taken as news. */
                int64_t off = (int64_t)t - (int64_t)s.tick * V_TICK_US;
                if (!c->has_offset || off < c->offset_us)
                    c->offset_us = off;
                c->has_offset = true;
                int64_t st = (int64_t)s.tick * V_TICK_US + c->offset_us;
                uint64_t state_us = st > 0 ? (uint64_t)st : 0;
                for (int i = 0; i < V_BOTS; i++) {
                    tempo_kinematic k;
                    memset(&k, 0, sizeof k);
                    for (int d = 0; d < 2; d++) {
                        k.p[d] = s.p[i][d];
                        k.v[d] = s.v[i][d];
                        k.a[d] = s.a[i][d];
                    }
                    /* a stale update (reordered) is not news */
                    if (c->rk[i].has_state && state_us <= c->rk[i].state_us)
                        continue;
                    tempo_reckon_update(&c->rk[i], &k, state_us, t);
                }
            }
        }
        if (t == next_ping) {
            uint8_t ping[9] = {MSG_PING};
            for (int k = 0; k < 8; k++)
                ping[1 + k] = (uint8_t)(t >> (8 * k));
            n.client.send(n.client.ctx, &n.sa, ping, sizeof ping);
            next_ping += V_PING_US;
        }
        if (t == next_tick) {
            server_tick(&w, &n, tick++);
            next_tick += V_TICK_US;
        }
        if (t == next_render) {
            next_render += V_TICK_US;
            double drawn[V_BOTS][2];
            bool shown = true;
            double ref_us = (double)t, delay_us = 0;
            if (v->kind == VIEW_INTERP) {
                if (c->has_rtt)
                    tempo_interp_add_ping(c->ip, (uint32_t)c->rtt_us);
                tempo_interp_sample smp;
                tempo_interp_sample_at(c->ip, t, &smp);
                for (int i = 0; i < V_BOTS && shown; i++)
                    shown = interp_draw(c, &smp, i, drawn[i]);
                ref_us = (double)smp.render_us;
                delay_us = (double)t - ref_us;
            } else {
                for (int i = 0; i < V_BOTS && shown; i++) {
                    int32_t pos[2];
                    shown = tempo_reckon_position(&c->rk[i], t, pos) == TEMPO_OK;
                    drawn[i][0] = pos[0] / V_UNIT;
                    drawn[i][1] = pos[1] / V_UNIT;
                }
            }
            /* measured once the world has a tick past the render time */
            if (shown && npend < V_PENDING) {
                pend[npend].ref_us = ref_us;
                pend[npend].delay_us = delay_us;
                memcpy(pend[npend].drawn, drawn, sizeof drawn);
                npend++;
            }
        }
        while (npend > 0 && pend[0].ref_us <= (double)(tick - 1) * V_TICK_US) {
            for (int i = 0; i < V_BOTS; i++) {
                double tr[2];
                truth_at(&w, i, pend[0].ref_us, tr);
                double err = hypot(pend[0].drawn[i][0] - tr[0], pend[0].drawn[i][1] - tr[1]);
                double move = c->has_last ? hypot(pend[0].drawn[i][0] - c->last[i][0],
                                                  pend[0].drawn[i][1] - c->last[i][1])
                                          : 0.0;
                row_sample(row, err, move, render_s);
                sec_err += err;
                sec_n++;
                c->last[i][0] = pend[0].drawn[i][0];
                c->last[i][1] = pend[0].drawn[i][1];
            }
            c->has_last = true;
            row->renders++;
            row->delay_sum += pend[0].delay_us;
            sec_delay += pend[0].delay_us;
            sec_renders++;
            memmove(pend, pend + 1, (size_t)(--npend) * sizeof pend[0]);
        }
        {
            if (t >= (uint64_t)(sec + 1) * 1000000u) {
                row->err_per_s[sec] = sec_n ? (float)(sec_err / sec_n * 100.0) : NAN;
                row->delay_per_s[sec] = sec_renders ? (float)(sec_delay / sec_renders / 1000.0) : NAN;
                sec++;
                sec_err = sec_delay = 0;
                sec_n = sec_renders = 0;
            }
        }
    }
    if (ok && c->ip) {
        tempo_interp_stats st;
        tempo_interp_stats_get(c->ip, &st);
        row->underruns = st.underruns;
        row->extrapolated_us = st.extrapolated_us;
    }
    if (ok && row->samples) {
        double *sorted = malloc(row->samples * sizeof *sorted);
        if (sorted) {
            memcpy(sorted, row->errs, row->samples * sizeof *sorted);
            qsort(sorted, row->samples, sizeof *sorted, cmp_double);
            row->p99 = sorted[(size_t)((double)(row->samples - 1) * 0.99)];
            free(sorted);
        }
    }
    view_free(&w, &n, c);
    return ok;
}

/* ---- lag compensation -------------------------------------------------------- */

typedef struct shot {
    uint32_t id;
    int32_t view_tick;
    uint32_t view_frac;
    int target;
    int32_t p0[3], p1[3];
} shot;

typedef struct hit_query {
    const shot *s;
    tempo_hit_sphere *live;
    bool seen_in_cover;     /* where the test found the target: behind the pillar */
} hit_query;

static bool in_cover(const tempo_hit_sphere *s);

static int hit_test(void *ctx, const uint8_t *who)
{
    hit_query *q = ctx;
    (void)who;
    q->seen_in_cover = in_cover(&q->live[q->s->target]);
    return tempo_hit_sphere_segment(&q->live[q->s->target], q->s->p0, q->s->p1);
}

static void sphere_of(const double p[2], tempo_hit_sphere *s)
{
    s->center[0] = q16(p[0]);
    s->center[1] = q16(p[1]);
    s->center[2] = 0;
    s->radius = q16(V_SHOT_RADIUS);
}

static bool in_cover(const tempo_hit_sphere *s)
{
    double x = s->center[0] / V_UNIT;
    return x >= V_COVER_X0 && x <= V_COVER_X1;
}

/* The client's command: its newest shots (up to 3), oldest first. */
static void send_shots(view_net *n, const shot *recent, int count)
{
    uint8_t out[2 + 3 * sizeof(shot)];
    out[0] = MSG_SHOT;
    out[1] = (uint8_t)count;
    memcpy(out + 2, recent, (size_t)count * sizeof(shot));
    n->client.send(n->client.ctx, &n->sa, out, 2 + (size_t)count * sizeof(shot));
}

static bool run_lagcomp(const sim_options *o, view_row *row)
{
    tempo_link_params link;
    memset(&link, 0, sizeof link);
    link.latency_us = (uint32_t)row->one_way_ms * 1000u;
    link.jitter_us = 3000;
    link.loss = 0.01;
    view_world w;
    world_init(&w, o->seed);
    w.ticks = o->frames + 1;
    w.truth = calloc((size_t)w.ticks, sizeof *w.truth);
    view_client *c = calloc(1, sizeof *c);
    view_net n;
    memset(&n, 0, sizeof n);
    tempo_lagcomp *lc = NULL;
    bool ok = w.truth && c && net_open(&n, o->seed, &link, &link);
    tempo_interp_config ic;
    tempo_interp_config_default(&ic);
    ic.tick_us = V_TICK_US;
    ic.capacity = 128;
    ok = ok && tempo_interp_create(&ic, &c->ip) == TEMPO_OK;
    tempo_lagcomp_config lcc;
    tempo_lagcomp_config_default(&lcc);
    lcc.max_players = V_BOTS;
    lcc.volume_size = sizeof(tempo_hit_sphere);
    lcc.history_ticks = 128;
    lcc.max_rewind_ticks = 60; /* 1 s, Source's cap */
    ok = ok && tempo_lagcomp_create(&lcc, &lc) == TEMPO_OK;
    tempo_rng aim;
    tempo_rng_seed(&aim, o->seed, 91);
    shot recent[3];
    int nrecent = 0;
    uint32_t next_id = 1, seen_id = 0;
    uint64_t next_tick = 0, next_render = V_RENDER_PHASE_US;
    uint64_t next_shot = 1000000, last_shot_us = 0;
    int32_t tick = 0;
    tempo_hit_sphere live[V_BOTS];
    const int32_t shooter[3] = {q16(V_FIELD_W / 2), q16(-5.0), 0};
    while (ok && tick <= o->frames) {
        uint64_t t = next_tick < next_render ? next_tick : next_render;
        uint64_t at;
        if (tempo_simnet_next_delivery(n.net, &at) == 1 && at < t)
            t = at;
        tempo_simnet_set_time(n.net, t);
        uint8_t buf[TEMPO_MAX_DATAGRAM];
        tempo_address from;
        int len;
        /* the server: shots, tested against the volumes of the last tick */
        while ((len = n.server.recv(n.server.ctx, &from, buf, sizeof buf)) > 0) {
            if (buf[0] != MSG_SHOT || len != 2 + buf[1] * (int)sizeof(shot) || buf[1] > 3)
                continue;
            for (int k = 0; k < buf[1]; k++) {
                shot s;
                memcpy(&s, buf + 2 + k * sizeof s, sizeof s);
                if (s.id <= seen_id || s.target < 0 || s.target >= V_BOTS)
                    continue;
                seen_id = s.id;
                row->arrived++;
                hit_query q = {&s, live, false};
                int hit = 0;
                if (row->compensate) {
                    tempo_result r = tempo_lagcomp_query(lc, s.view_tick, s.view_frac, -1, live,
                                                         sizeof live[0], hit_test, &q, &hit);
                    if (r != TEMPO_OK)
                        hit = 0;
                } else {
                    hit = hit_test(&q, NULL);
                }
                if (hit) {
                    row->confirmed++;
                    /* the shooter saw it in the open; it is behind the pillar now */
                    if (row->compensate && !q.seen_in_cover && in_cover(&live[s.target]))
                        row->after_cover++;
                }
            }
        }
        while ((len = n.client.recv(n.client.ctx, &from, buf, sizeof buf)) > 0) {
            snap s;
            if (!read_snap(buf, len, &s))
                continue;
            int h = s.tick % V_RING;
            uint32_t evicted;
            if (tempo_interp_push(c->ip, s.tick, t, (uint32_t)h, &evicted) == TEMPO_OK)
                c->ring[h] = s;
        }
        if (t == next_tick) {
            server_tick(&w, &n, tick);
            for (int i = 0; i < V_BOTS; i++)
                sphere_of(w.b[i].p, &live[i]);
            tempo_lagcomp_record(lc, tick++, live, sizeof live[0], NULL);
            next_tick += V_TICK_US;
        }
        if (t == next_render) {
            next_render += V_TICK_US;
            tempo_interp_sample smp;
            tempo_interp_sample_at(c->ip, t, &smp);
            /* commands go every frame while a shot is fresh, as a game's
             * input stream would carry it: a lost one is late by a frame */
            if (nrecent > 0 && t - last_shot_us <= 100000u && t != last_shot_us)
                send_shots(&n, recent, nrecent);
            if (t < next_shot || smp.kind == TEMPO_INTERP_EMPTY)
                continue;
            next_shot = t + 300000 + tempo_rng_below(&aim, 700001);
            shot s;
            memset(&s, 0, sizeof s);
            s.id = next_id++;
            s.view_tick = smp.view_tick;
            s.view_frac = smp.view_frac;
            s.target = (int)tempo_rng_below(&aim, V_BOTS);
            double drawn[2], aimp[2];
            interp_draw(c, &smp, s.target, drawn);
            aimp[0] = drawn[0] + gaussian(&aim) * V_AIM_SIGMA;
            aimp[1] = drawn[1] + gaussian(&aim) * V_AIM_SIGMA;
            /* the ray from the shooter through the aim point, 100 m long */
            double dx = aimp[0] - V_FIELD_W / 2, dy = aimp[1] + 5.0, len_m = hypot(dx, dy);
            memcpy(s.p0, shooter, sizeof s.p0);
            s.p1[0] = q16(V_FIELD_W / 2 + dx / len_m * 100.0);
            s.p1[1] = q16(-5.0 + dy / len_m * 100.0);
            row->shots++;
            tempo_hit_sphere seen;
            sphere_of(drawn, &seen);
            if (!tempo_hit_sphere_segment(&seen, s.p0, s.p1))
                continue; /* a miss on the shooter's own screen: not sent */
            row->on_screen++;
            if (nrecent == 3)
                memmove(recent, recent + 1, 2 * sizeof recent[0]);
            else
                nrecent++;
            recent[nrecent - 1] = s;
            last_shot_us = t;
            send_shots(&n, recent, nrecent);
        }
    }
    tempo_lagcomp_destroy(lc);
    view_free(&w, &n, c);
    return ok;
}

/* ---- the table, JSON and report ---------------------------------------------- */

static const char *view_name(sim_compare k)
{
    return k == SIM_COMPARE_INTERPOLATION ? "interpolation" : k == SIM_COMPARE_RECKONING ? "reckoning" : "lagcomp";
}

static int view_variants(sim_compare k, view_variant *v, view_row *rows)
{
    int n = 0;
    if (k == SIM_COMPARE_INTERPOLATION) {
        const char *names[4] = {"fixed 2 ticks", "pongbat", "adaptive", "adaptive, 10 % late"};
        for (int m = 0; m < 4; m++, n++) {
            v[n] = (view_variant){.kind = VIEW_INTERP,
                                  .playout = (tempo_playout_mode)(m < 3 ? m : TEMPO_PLAYOUT_ADAPTIVE),
                                  .late_percent = m == 3 ? 10 : 0};
            snprintf(rows[n].label, sizeof rows[n].label, "%s", names[m]);
        }
    } else if (k == SIM_COMPARE_RECKONING) {
        const char *corr[3] = {"snap", "blend", "plan"};
        for (int order = 1; order <= 2; order++)
            for (int c = 0; c < 3; c++, n++) {
                v[n] = (view_variant){.kind = VIEW_RECKON, .order = order,
                                      .correction = (tempo_reckon_correction)c};
                snprintf(rows[n].label, sizeof rows[n].label, "order %d, %s", order, corr[c]);
            }
    } else {
        const int ms[3] = {50, 100, 150};
        for (int i = 0; i < 3; i++)
            for (int comp = 1; comp >= 0; comp--, n++) {
                v[n] = (view_variant){.kind = VIEW_LAGCOMP};
                rows[n].one_way_ms = ms[i];
                rows[n].compensate = comp;
                snprintf(rows[n].label, sizeof rows[n].label, "%d ms, %s", ms[i],
                         comp ? "rewound" : "not rewound");
            }
    }
    return n;
}

static double per_min(uint64_t count, double seconds) { return seconds > 0 ? count * 60.0 / seconds : 0; }

static void print_view(FILE *f, const sim_options *o, const view_row *rows, int n, double seconds)
{
    if (o->compare == SIM_COMPARE_LAGCOMP) {
        fprintf(f, "tempo-sim --compare lagcomp: 8 bots, one shooter interpolating them (adaptive), "
                   "%d frames, seed %" PRIu64 ", links one way as listed with 3 ms jitter and 1%% loss\n\n",
                o->frames, o->seed);
        fprintf(f, "| link, server | shots | hit on the shooter's screen | reached the server "
                   "| confirmed | confirmed share | hit after cover |\n|---|---|---|---|---|---|---|\n");
        for (int k = 0; k < n; k++) {
            const view_row *r = &rows[k];
            fprintf(f, "| %s | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %.1f %% | %" PRIu64 " |\n",
                    r->label, r->shots, r->on_screen, r->arrived, r->confirmed,
                    r->arrived ? 100.0 * (double)r->confirmed / (double)r->arrived : 0.0, r->after_cover);
        }
        fprintf(f, "\nConfirmed share: of the shots that hit on the shooter's screen and reached the server, "
                   "those the server confirmed. Hit after cover: confirmed while the target was, on the "
                   "server, already behind the pillar (x %.0f..%.0f m) though the shooter saw it in the "
                   "open - the price of rewinding.\n",
                V_COVER_X0, V_COVER_X1);
        return;
    }
    fprintf(f, "tempo-sim --compare %s: 8 bots (6 m/s, turning every 0.5-2 s), snapshots at 60 Hz, "
               "profile %s, %d frames, seed %" PRIu64 "\n\n",
            view_name(o->compare), o->profile, o->frames, o->seed);
    bool interp = o->compare == SIM_COMPARE_INTERPOLATION;
    fprintf(f, "| %s | mean error (cm) | p99 error (cm) | max error (cm) | jumps/min |%s\n",
            interp ? "playout delay" : "reckoning",
            interp ? " underruns/min | extrapolating | behind the server (ms) |" : "");
    fprintf(f, "|---|---|---|---|---|%s\n", interp ? "---|---|---|" : "");
    for (int k = 0; k < n; k++) {
        const view_row *r = &rows[k];
        double mean = r->samples ? r->err_sum / (double)r->samples : 0;
        fprintf(f, "| %s | %.1f | %.1f | %.1f | %.1f |", r->label, mean * 100, r->p99 * 100,
                r->err_max * 100, per_min(r->jumps, seconds));
        if (interp)
            fprintf(f, " %.1f | %.2f %% | %.1f |", per_min(r->underruns, seconds),
                    seconds > 0 ? (double)r->extrapolated_us / 1e6 / seconds * 100.0 : 0.0,
                    r->renders ? r->delay_sum / (double)r->renders / 1000.0 : 0.0);
        fputc('\n', f);
    }
    fprintf(f, "\nError: distance between what the client draws and the server's true position %s, "
               "over every bot and rendered frame. A jump: a render-to-render move longer than the "
               "bots' top speed allows (with 50%% slack).%s\n",
            interp ? "at the render time" : "now",
            interp ? " Behind the server: server time minus render time, the one-way latency "
                     "included; the playout delay is the part above the link's latency." : "");
}

static void write_view_json(const sim_options *o, const view_row *rows, int n, double seconds)
{
    sim_json j;
    if (!sim_json_open(&j, o->json_path)) {
        fprintf(stderr, "tempo-sim: cannot write %s\n", o->json_path);
        return;
    }
    sim_json_string(&j, "compare", view_name(o->compare));
    sim_json_string(&j, "profile", o->compare == SIM_COMPARE_LAGCOMP ? "fixed" : o->profile);
    sim_json_int(&j, "frames", o->frames);
    sim_json_uint(&j, "seed", o->seed);
    sim_json_begin_array(&j, "rows");
    for (int k = 0; k < n; k++) {
        const view_row *r = &rows[k];
        sim_json_begin_object(&j, NULL);
        sim_json_string(&j, "variant", r->label);
        if (o->compare == SIM_COMPARE_LAGCOMP) {
            sim_json_int(&j, "one_way_ms", r->one_way_ms);
            sim_json_bool(&j, "rewound", r->compensate);
            sim_json_uint(&j, "shots", r->shots);
            sim_json_uint(&j, "hit_on_screen", r->on_screen);
            sim_json_uint(&j, "reached_server", r->arrived);
            sim_json_uint(&j, "confirmed", r->confirmed);
            sim_json_uint(&j, "hit_after_cover", r->after_cover);
        } else {
            sim_json_double(&j, "mean_error_m", r->samples ? r->err_sum / (double)r->samples : 0);
            sim_json_double(&j, "p99_error_m", r->p99);
            sim_json_double(&j, "max_error_m", r->err_max);
            sim_json_double(&j, "jumps_per_min", per_min(r->jumps, seconds));
            sim_json_double(&j, "underruns_per_min", per_min(r->underruns, seconds));
            sim_json_double(&j, "extrapolating_s", (double)r->extrapolated_us / 1e6);
            sim_json_double(&j, "added_delay_ms", r->renders ? r->delay_sum / (double)r->renders / 1000.0 : 0);
        }
        sim_json_end_object(&j);
    }
    sim_json_end_array(&j);
    sim_json_close(&j);
}

/* The HTML report: the table, then the error (and, for interpolation, the
 * added delay) over time, one line per variant. */
static void write_view_report(const sim_options *o, const view_row *rows, int n, double seconds)
{
    FILE *f = fopen(o->report_path, "w");
    if (!f) {
        fprintf(stderr, "tempo-sim: cannot write %s\n", o->report_path);
        return;
    }
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
               "<title>tempo-sim --compare %s</title><style>body{font:14px sans-serif;margin:24px}"
               "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px}"
               "pre{white-space:pre-wrap}</style></head><body>\n<h1>tempo-sim --compare %s</h1>\n<pre>",
            view_name(o->compare), view_name(o->compare));
    FILE *m = tmpfile();
    if (m) {
        print_view(m, o, rows, n, seconds);
        rewind(m);
        char line[1024];
        while (fgets(line, sizeof line, m))
            sim_svg_escape(f, line);
        fclose(m);
    }
    fputs("</pre>\n", f);
    int count = (int)seconds;
    if (o->compare != SIM_COMPARE_LAGCOMP && count > 1) {
        for (int chart = 0; chart < (o->compare == SIM_COMPARE_INTERPOLATION ? 2 : 1); chart++) {
            fprintf(f, "<h2>%s, per second</h2>\n<svg viewBox=\"0 0 900 260\" width=\"900\" height=\"260\">\n",
                    chart == 0 ? "Mean error (cm)" : "Added delay (ms)");
            sim_svg_plot p = sim_svg_plot_at(f, 60, 10, 820, 200);
            double hi = 0;
            for (int k = 0; k < n; k++)
                for (int s = 0; s < count; s++) {
                    float val = chart == 0 ? rows[k].err_per_s[s] : rows[k].delay_per_s[s];
                    if (isfinite(val) && val > hi)
                        hi = val;
                }
            sim_svg_set_time(&p, seconds);
            sim_svg_set_y(&p, 0.0, hi, 1.0, 0.0);
            sim_svg_grid(&p, chart == 0 ? "cm" : "ms");
            int *scratch = calloc(4096, sizeof *scratch);
            for (int k = 0; k < n && scratch; k++)
                sim_svg_series(&p, scratch, chart == 0 ? rows[k].err_per_s : rows[k].delay_per_s, count,
                               1.0, k, false, 0.0, rows[k].label);
            free(scratch);
            sim_svg_axis_x(&p, true, "match time (s)");
            fputs("</svg>\n<p>", f);
            for (int k = 0; k < n; k++) {
                fprintf(f, "<span style=\"color:%s\">&#9632; ", sim_svg_colour(k));
                sim_svg_escape(f, rows[k].label);
                fputs("</span> &nbsp; ", f);
            }
            fputs("</p>\n", f);
        }
    }
    fputs("</body></html>\n", f);
    fclose(f);
}

int sim_view_compare(const sim_options *o)
{
    view_variant v[V_MAX_ROWS];
    view_row rows[V_MAX_ROWS];
    memset(rows, 0, sizeof rows);
    int n = view_variants(o->compare, v, rows);
    tempo_link_params link;
    if (o->compare != SIM_COMPARE_LAGCOMP && tempo_link_profile(o->profile, &link) != TEMPO_OK) {
        fprintf(stderr, "tempo-sim: unknown profile %s\n", o->profile);
        return SIM_EXIT_USAGE;
    }
    double seconds = o->frames * (V_TICK_US / 1e6);
    bool ok = true;
    for (int k = 0; k < n && ok; k++)
        ok = v[k].kind == VIEW_LAGCOMP ? run_lagcomp(o, &rows[k]) : run_view(o, &v[k], &link, &rows[k]);
    if (ok && !o->quiet)
        print_view(stdout, o, rows, n, seconds);
    if (ok && o->json_path)
        write_view_json(o, rows, n, seconds);
    if (ok && o->report_path)
        write_view_report(o, rows, n, seconds);
    for (int k = 0; k < n; k++) {
        free(rows[k].errs);
        free(rows[k].err_per_s);
        free(rows[k].delay_per_s);
    }
    if (!ok) {
        fprintf(stderr, "tempo-sim: out of memory\n");
        return SIM_EXIT_USAGE;
    }
    return SIM_EXIT_OK;
}
