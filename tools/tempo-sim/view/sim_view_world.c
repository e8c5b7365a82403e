/* SPDX-License-Identifier: MIT */
/*
 * sim_view_world.c — what the view comparisons share (sim_view.h): the
 * server's world of bots and their true positions, the two-node network
 * between the server and the client, the snapshot message, the pings that
 * give the client the server's clock, and the two ways a client turns
 * snapshots into what it draws (interpolated, dead reckoned). The
 * comparisons themselves: sim_view.c (interpolation, reckoning) and
 * sim_view_lagcomp.c (lag compensation).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_view.h"

double view_uniform(tempo_rng *r) { return (double)tempo_rng_next(r) / 4294967296.0; }

double view_gaussian(tempo_rng *r)
{
    double u = view_uniform(r), v = view_uniform(r);
    return sqrt(-2.0 * log(u > 1e-12 ? u : 1e-12)) * cos(6.283185307179586 * v);
}

int32_t view_q16(double m) { return (int32_t)lrint(m * V_UNIT); }

bool view_world_init(view_world *w, uint64_t seed, int frames)
{
    memset(w, 0, sizeof *w);
    tempo_rng_seed(&w->rng, seed, 77);
    for (int i = 0; i < V_BOTS; i++) {
        w->b[i].p[0] = 5.0 + view_uniform(&w->rng) * (V_FIELD_W - 10.0);
        w->b[i].p[1] = 5.0 + view_uniform(&w->rng) * (V_FIELD_H - 10.0);
    }
    w->ticks = frames + 1;
    w->truth = calloc((size_t)w->ticks, sizeof *w->truth);
    return w->truth != NULL;
}

void view_world_free(view_world *w) { free(w->truth); }

/* One 60 Hz step of every bot. */
static void world_step(view_world *w, int32_t tick)
{
    const double dt = V_TICK_US / 1e6;
    for (int i = 0; i < V_BOTS; i++) {
        view_bot *b = &w->b[i];
        if (tick >= b->turn_at) {
            double ang = view_uniform(&w->rng) * 6.283185307179586;
            double speed = V_SPEED * (0.5 + 0.5 * view_uniform(&w->rng));
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

/* The true position of bot i at server time t_us (between two ticks: the
 * straight line, off by under a millimetre at these speeds). */
void view_truth_at(const view_world *w, int i, double t_us, double out[2])
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

bool view_net_open(view_net *n, uint64_t seed, const tempo_link_params *down, const tempo_link_params *up)
{
    memset(n, 0, sizeof *n);
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
    for (int k = 0; k < 4; k++)
        b[k] = (uint8_t)(u >> (8 * k));
}

static int32_t get32(const uint8_t *b)
{
    return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
}

static void put64(uint8_t *b, uint64_t v)
{
    for (int k = 0; k < 8; k++)
        b[k] = (uint8_t)(v >> (8 * k));
}

static uint64_t get64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int k = 0; k < 8; k++)
        v |= (uint64_t)b[k] << (8 * k);
    return v;
}

#define V_SNAP_BYTES (5 + V_BOTS * 24)

void view_server_tick(view_world *w, view_net *n, int32_t tick)
{
    world_step(w, tick);
    uint8_t buf[V_SNAP_BYTES];
    buf[0] = V_MSG_SNAP;
    put32(buf + 1, tick);
    uint8_t *q = buf + 5;
    for (int i = 0; i < V_BOTS; i++) {
        w->truth[tick][i][0] = w->b[i].p[0];
        w->truth[tick][i][1] = w->b[i].p[1];
        for (int k = 0; k < 2; k++) {
            put32(q + 8 * k, view_q16(w->b[i].p[k]));
            put32(q + 8 * k + 4, view_q16(w->b[i].v[k]));
            put32(q + 16 + 4 * k, view_q16(w->b[i].a[k]));
        }
        q += 24;
    }
    n->server.send(n->server.ctx, &n->ca, buf, sizeof buf);
}

bool view_read_snap(const uint8_t *buf, int len, view_snap *s)
{
    if (len != V_SNAP_BYTES || buf[0] != V_MSG_SNAP)
        return false;
    s->tick = get32(buf + 1);
    const uint8_t *q = buf + 5;
    for (int i = 0; i < V_BOTS; i++) {
        for (int k = 0; k < 2; k++) {
            s->p[i][k] = get32(q + 8 * k);
            s->v[i][k] = get32(q + 8 * k + 4);
            s->a[i][k] = get32(q + 16 + 4 * k);
        }
        q += 24;
    }
    return true;
}

uint64_t view_next_time(view_net *n, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t t = a < b ? a : b, at;
    if (c < t)
        t = c;
    if (tempo_simnet_next_delivery(n->net, &at) == 1 && at < t)
        t = at;
    tempo_simnet_set_time(n->net, t);
    return t;
}

void view_send_ping(tempo_transport *tr, const tempo_address *to, uint64_t now_us)
{
    uint8_t ping[9] = {V_MSG_PING};
    put64(ping + 1, now_us);
    tr->send(tr->ctx, to, ping, sizeof ping);
}

void view_answer_ping(tempo_transport *tr, const tempo_address *to, uint64_t now_us, const uint8_t *buf, int len)
{
    if (len != 9 || buf[0] != V_MSG_PING)
        return;
    uint8_t pong[17] = {V_MSG_PONG};
    memcpy(pong + 1, buf + 1, 8);
    put64(pong + 9, now_us);
    tr->send(tr->ctx, to, pong, sizeof pong);
}

bool view_clock_pong(view_clock *c, const uint8_t *buf, int len, uint64_t client_us)
{
    if (len != 17 || buf[0] != V_MSG_PONG)
        return false;
    uint64_t sent = get64(buf + 1), server = get64(buf + 9);
    if (sent > client_us)
        return true;
    double rtt = (double)(client_us - sent);
    c->rtt_us = c->has ? c->rtt_us * 0.875 + rtt * 0.125 : rtt;
    c->rtt[c->head] = rtt;
    c->offset[c->head] = (int64_t)server + (int64_t)(rtt / 2.0) - (int64_t)client_us;
    c->head = (c->head + 1) % V_CLOCK_SAMPLES;
    if (c->n < V_CLOCK_SAMPLES)
        c->n++;
    int best = 0;
    for (int k = 1; k < c->n; k++)
        if (c->rtt[k] < c->rtt[best])
            best = k;
    c->best_offset = c->offset[best];
    c->has = true;
    return true;
}

int64_t view_clock_local(const view_clock *c, int64_t server_us) { return server_us - c->best_offset; }

void view_reckon_snapshot(tempo_reckon *rk, const view_clock *clock, const view_snap *s, uint64_t local_us)
{
    if (!clock->has)
        return; /* no idea yet of how old it is */
    /* valid at its tick's server time, on our clock; never in our future */
    int64_t at = view_clock_local(clock, (int64_t)s->tick * V_TICK_US);
    uint64_t state_us = at < 0 ? 0 : (uint64_t)at > local_us ? local_us : (uint64_t)at;
    for (int i = 0; i < V_BOTS; i++) {
        tempo_kinematic k;
        memset(&k, 0, sizeof k);
        for (int d = 0; d < 2; d++) {
            k.p[d] = s->p[i][d];
            k.v[d] = s->v[i][d];
            k.a[d] = s->a[i][d];
        }
        /* a stale update (reordered) is not news */
        if (rk[i].has_state && state_us <= rk[i].state_us)
            continue;
        tempo_reckon_update(&rk[i], &k, state_us, local_us);
    }
}

bool view_interp_draw(const view_snap *ring, const tempo_interp_sample *s, int i, double out[2])
{
    if (s->kind == TEMPO_INTERP_EMPTY)
        return false;
    const view_snap *a = &ring[s->from_handle], *b = &ring[s->to_handle];
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
