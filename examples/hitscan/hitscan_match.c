/* SPDX-License-Identifier: MIT */
/*
 * hitscan_match.c — a hitscan match in virtual time (hitscan_match.h).
 *
 * The server ticks at 60 Hz; each client ticks when its client says the
 * next tick is due (tempo_client_next_tick_at) and draws once per tick. Times are
 * the simnet's virtual microseconds.
 */
#include "hitscan_match.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TICK_US 16667u

static tempo_address addr_of(int host, uint16_t port)
{
    tempo_address a;
    memset(&a, 0, sizeof a);
    a.family = TEMPO_ADDRESS_IPV4;
    a.bytes[0] = 10;
    a.bytes[3] = (uint8_t)host;
    a.port = port;
    return a;
}

bool hs_match_start(hs_match *m, const hs_match_config *cfg)
{
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.seed = cfg->seed;
    nc.max_in_flight = 8192;
    if (tempo_link_profile(cfg->profile, &nc.default_link) != TEMPO_OK) {
        fprintf(stderr, "hitscan: unknown profile %s\n", cfg->profile);
        return false;
    }
    if (tempo_simnet_create(&nc, &m->net) != TEMPO_OK)
        return false;
    m->saddr = addr_of(1, 4000);
    tempo_simnet_add_node(m->net, &m->saddr, &m->st);
    hs_init(&m->sg, cfg->clients);
    if (!hs_server_start(&m->server, &m->st, cfg->clients, cfg->seed))
        return false;
    if (cfg->lagcomp && hs_lagcomp_create(&m->judge.lc) != TEMPO_OK)
        return false;
    for (int k = 0; k < cfg->clients; k++) {
        hs_client *c = &m->cl[k];
        c->addr = addr_of(10 + k, 5000);
        tempo_simnet_add_node(m->net, &c->addr, &c->t);
        if (!hs_client_start(c, cfg->clients, cfg->seed, k, &m->saddr))
            return false;
        c->next_us = 20000u * (uint64_t)k; /* the clients start a little apart */
    }
    return true;
}

bool hs_client_start(hs_client *c, int ships, uint64_t seed, int k, const tempo_address *server)
{
    c->me = -1;
    c->rng = (uint32_t)(seed * 2654435761u) + (uint32_t)k * 40503u + 1u;
    tempo_client_config cc;
    tempo_client_config_default(&cc);
    cc.num_players = ships;
    cc.input_size = HS_INPUT_SIZE;
    cc.max_state_size = sizeof(hs_state);
    cc.random_seed = seed * 31 + (uint64_t)k + 7;
    tempo_interp_config ic;
    tempo_interp_config_default(&ic);
    tempo_smooth_config mc;
    tempo_smooth_config_default(&mc);
    mc.dims = 2;
    return tempo_client_create(&cc, &c->t, server, &c->c) == TEMPO_OK &&
           tempo_interp_create(&ic, &c->ip) == TEMPO_OK &&
           tempo_smooth_init(&c->smooth, &mc) == TEMPO_OK;
}

bool hs_server_start(tempo_server **out, const tempo_transport *t, int ships, uint64_t seed)
{
    tempo_server_config sc;
    tempo_server_config_default(&sc);
    sc.num_players = ships;
    sc.max_clients = ships;
    sc.input_size = HS_INPUT_SIZE;
    sc.max_state_size = sizeof(hs_state);
    sc.random_seed = seed + 1;
    return tempo_server_create(&sc, t, out) == TEMPO_OK;
}

void hs_match_stop(hs_match *m)
{
    for (int k = 0; k < m->cfg.clients; k++) {
        tempo_client_destroy(m->cl[k].c);
        tempo_interp_destroy(m->cl[k].ip);
    }
    tempo_server_destroy(m->server);
    tempo_lagcomp_destroy(m->judge.lc);
    tempo_simnet_destroy(m->net);
    memset(m, 0, sizeof *m);
}

void hs_server_tick(tempo_server *server, hs_state *g, hs_judge *judge, uint64_t now)
{
    tempo_server_poll(server, now);
    tempo_server_event ev;
    while (tempo_server_poll_event(server, &ev))
        ;
    tempo_server_tick t;
    if (tempo_server_advance(server, &t) != TEMPO_OK || t.num_requests < 1)
        return;
    hs_step(g, t.requests[0].inputs, t.requests[0].status, judge);
    if (judge->lc)
        hs_record(judge->lc, g);
    if (t.snapshot_due)
        tempo_server_submit_state(server, t.frame, g, sizeof *g);
}

static uint32_t next_rand(hs_client *c)
{
    c->rng = c->rng * 1664525u + 1013904223u;
    return c->rng >> 8;
}

/* Where the client draws ship j: its own ship predicted plus the
 * smoothing offset; the others between two snapshots. */
static void draw_positions(hs_client *c)
{
    const tempo_interp_sample *v = &c->view;
    for (int j = 0; j < c->g.ships; j++) {
        c->drawn_valid[j] = false;
        c->drawn_down[j] = false;
        if (j == c->me) {
            c->drawn[j][0] = c->g.s[j].x + c->offset[0];
            c->drawn[j][1] = c->g.s[j].y + c->offset[1];
            c->drawn_valid[j] = c->g.s[j].alive != 0;
            c->drawn_down[j] = !c->drawn_valid[j];
            continue;
        }
        if (v->kind == TEMPO_INTERP_EMPTY)
            continue;
        const hs_ship *a = &c->snaps[v->from_handle].s[j], *b = &c->snaps[v->to_handle].s[j];
        int64_t f = v->kind == TEMPO_INTERP_BLEND ? v->frac : 0;
        if (v->kind == TEMPO_INTERP_EXTRAPOLATE) {
            a = b; /* hold the newest: ships turn too quickly to extrapolate */
            f = 0;
        }
        c->drawn[j][0] = a->x + (int32_t)(((int64_t)b->x - a->x) * f / 65536);
        c->drawn[j][1] = a->y + (int32_t)(((int64_t)b->y - a->y) * f / 65536);
        c->drawn_valid[j] = a->alive && b->alive;
        c->drawn_down[j] = !a->alive || !b->alive;
    }
}

/* A bot: wander, aim at the nearest ship it draws, fire when it can. */
static void bot_input(hs_client *c, hs_input *in)
{
    memset(in, 0, sizeof *in);
    if (c->move_ticks-- <= 0) {
        c->dx = (int)(next_rand(c) % 3) - 1;
        c->dy = (int)(next_rand(c) % 3) - 1;
        c->move_ticks = 20 + (int)(next_rand(c) % 60);
    }
    in->dx = c->dx;
    in->dy = c->dy;
    const hs_ship *me = &c->g.s[c->me];
    int best = -1;
    int64_t best_d = 0;
    for (int j = 0; j < c->g.ships; j++) {
        if (j == c->me || !c->drawn_valid[j])
            continue;
        int64_t dx = c->drawn[j][0] - me->x, dy = c->drawn[j][1] - me->y, d = dx * dx + dy * dy;
        if (best < 0 || d < best_d) {
            best = j;
            best_d = d;
        }
    }
    if (best < 0 || !me->alive)
        return;
    double ang = atan2((double)(c->drawn[best][1] - me->y), (double)(c->drawn[best][0] - me->x));
    int noise = (int)(next_rand(c) % 7) - 3; /* a few degrees of aim error */
    in->aim = (uint8_t)((int)lround(ang * 256.0 / 6.283185307179586) + noise);
    in->fire = me->cooldown == 0 && next_rand(c) % 12 == 0;
    in->claim_target = best;
}

void hs_client_tick(hs_client *c, uint64_t now)
{
    tempo_client_poll(c->c, now);
    tempo_client_event ev;
    while (tempo_client_poll_event(c->c, &ev))
        if (ev.kind == TEMPO_CLIENT_EVENT_CONNECTED)
            for (int p = 0; p < HS_MAX_SHIPS; p++)
                if (ev.slots >> p & 1u) {
                    c->me = p;
                    break;
                }
    tempo_interp_sample_at(c->ip, now, &c->view);
    draw_positions(c);
    if (c->me >= 0) {
        hs_input in;
        if (c->human_on)
            in = c->human;
        else
            bot_input(c, &in);
        in.view_tick = c->view.view_tick;
        in.view_frac = c->view.view_frac;
        /* what the player saw: the ray, from where this tick's move takes
         * the ship (a tick moves first, then shoots), touches the target
         * as drawn */
        int32_t sx = c->g.s[c->me].x + in.dx * HS_SPEED, sy = c->g.s[c->me].y + in.dy * HS_SPEED;
        sx = sx < HS_RADIUS ? HS_RADIUS : sx > HS_FIELD_W * HS_UNIT - HS_RADIUS ? HS_FIELD_W * HS_UNIT - HS_RADIUS : sx;
        sy = sy < HS_RADIUS ? HS_RADIUS : sy > HS_FIELD_H * HS_UNIT - HS_RADIUS ? HS_FIELD_H * HS_UNIT - HS_RADIUS : sy;
        in.claim = in.fire && c->drawn_valid[in.claim_target] && in.claim_target != c->me &&
                   hs_ray_hits(sx, sy, in.aim, c->drawn[in.claim_target][0], c->drawn[in.claim_target][1]);
        c->claims += in.claim;
        uint8_t bytes[HS_INPUT_SIZE];
        hs_input_pack(&in, bytes);
        tempo_client_add_local_input(c->c, c->me, bytes, sizeof bytes);
    }
    int32_t before[2] = {0, 0};
    if (c->me >= 0) {
        before[0] = c->g.s[c->me].x;
        before[1] = c->g.s[c->me].y;
    }
    tempo_client_tick t;
    tempo_client_advance(c->c, &t);
    bool replayed = false;
    for (int i = 0; i < t.num_requests; i++) {
        const tempo_request *r = &t.requests[i];
        if (r->kind == TEMPO_REQUEST_LOAD && r->state_size == sizeof(hs_state)) {
            memcpy(&c->g, r->state, sizeof c->g);
            int h = r->frame % HS_SNAPS;
            c->snaps[h] = c->g;
            uint32_t evicted;
            tempo_interp_push(c->ip, r->frame, now, (uint32_t)h, &evicted);
            continue;
        }
        if (r->kind != TEMPO_REQUEST_ADVANCE)
            continue;
        hs_step(&c->g, r->inputs, r->status, NULL);
        /* after the last replayed tick: the state the prediction had drawn */
        bool last_resim = r->resimulating && (i + 1 == t.num_requests || !t.requests[i + 1].resimulating);
        if (last_resim && c->me >= 0) {
            int32_t err[2] = {before[0] - c->g.s[c->me].x, before[1] - c->g.s[c->me].y};
            if (err[0] || err[1])
                tempo_smooth_correct(&c->smooth, err);
            replayed = true;
        }
    }
    (void)replayed;
    tempo_smooth_frame(&c->smooth, c->offset);
    c->next_us = tempo_client_next_tick_at(c->c);
}

void hs_match_run(hs_match *m, uint64_t until_us)
{
    while (m->now < until_us) {
        uint64_t next = m->next_server_us;
        hs_client *who = NULL;
        for (int k = 0; k < m->cfg.clients; k++)
            if (m->cl[k].next_us < next) {
                next = m->cl[k].next_us;
                who = &m->cl[k];
            }
        m->now = next;
        tempo_simnet_set_time(m->net, m->now);
        if (who) {
            hs_client_tick(who, m->now);
        } else {
            hs_server_tick(m->server, &m->sg, &m->judge, m->now);
            m->next_server_us += TICK_US;
        }
    }
}
