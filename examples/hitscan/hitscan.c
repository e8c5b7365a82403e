/* SPDX-License-Identifier: MIT */
/*
 * hitscan.c — the rules of the hitscan demo (hitscan.h).
 */
#include "hitscan.h"

#include <math.h>
#include <string.h>

static int32_t aim_cos[256];
static bool aim_ready;

static void aim_table(void)
{
    if (aim_ready)
        return;
    for (int a = 0; a < 256; a++)
        aim_cos[a] = (int32_t)lround(cos(a * 6.283185307179586 / 256.0) * HS_UNIT);
    aim_ready = true;
}

void hs_aim_vector(uint8_t aim, int32_t *ux, int32_t *uy)
{
    aim_table();
    *ux = aim_cos[aim];
    *uy = aim_cos[(uint8_t)(aim - 64)];
}

static void ray_end(int32_t x, int32_t y, uint8_t aim, int32_t out[3])
{
    int32_t ux, uy;
    hs_aim_vector(aim, &ux, &uy);
    out[0] = x + (int32_t)((int64_t)ux * (HS_RANGE / HS_UNIT));
    out[1] = y + (int32_t)((int64_t)uy * (HS_RANGE / HS_UNIT));
    out[2] = 0;
}

bool hs_ray_hits(int32_t x, int32_t y, uint8_t aim, int32_t cx, int32_t cy)
{
    int32_t p0[3] = {x, y, 0}, p1[3];
    ray_end(x, y, aim, p1);
    tempo_hit_sphere s = {{cx, cy, 0}, HS_RADIUS};
    return tempo_hit_sphere_segment(&s, p0, p1);
}

void hs_input_pack(const hs_input *in, uint8_t out[HS_INPUT_SIZE])
{
    out[0] = (uint8_t)(int8_t)in->dx;
    out[1] = (uint8_t)(int8_t)in->dy;
    out[2] = (uint8_t)((in->fire ? 1u : 0u) | (in->claim ? 2u : 0u) | ((unsigned)in->claim_target & 7u) << 2);
    out[3] = in->aim;
    out[4] = (uint8_t)in->view_tick;
    out[5] = (uint8_t)(in->view_tick >> 8);
    out[6] = (uint8_t)in->view_frac;
    out[7] = (uint8_t)(in->view_frac >> 8);
}

void hs_input_unpack(const uint8_t in[HS_INPUT_SIZE], int32_t near_tick, hs_input *out)
{
    int8_t dx = (int8_t)in[0], dy = (int8_t)in[1];
    out->dx = dx < 0 ? -1 : dx > 0;
    out->dy = dy < 0 ? -1 : dy > 0;
    out->fire = in[2] & 1u;
    out->claim = (in[2] & 2u) != 0;
    out->claim_target = in[2] >> 2 & 7;
    out->aim = in[3];
    int32_t low = in[4] | in[5] << 8;
    int32_t t = (near_tick & ~0xFFFF) | low;
    if (t > near_tick + 0x8000)
        t -= 0x10000;
    else if (t < near_tick - 0x8000)
        t += 0x10000;
    out->view_tick = t;
    out->view_frac = (uint32_t)(in[6] | in[7] << 8);
}

static void spawn(hs_ship *s, int i, int32_t tick)
{
    s->alive = 1;
    s->hp = HS_HITS;
    s->x = (int32_t)((2 + (uint32_t)(i * 7 + tick * 13) % (HS_FIELD_W - 4)) * HS_UNIT);
    s->y = (int32_t)((2 + (uint32_t)(i * 5 + tick * 7) % (HS_FIELD_H - 4)) * HS_UNIT);
}

void hs_init(hs_state *g, int ships)
{
    memset(g, 0, sizeof *g);
    g->ships = ships;
    for (int i = 0; i < ships; i++)
        spawn(&g->s[i], i, i * 11);
}

static int32_t clamp(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

typedef struct shot_query {
    const hs_state *g;
    tempo_hit_sphere *live;
    int shooter;
    int32_t p0[3], p1[3];
    int hit;             /* the nearest ship the ray touches, or -1 */
} shot_query;

static int nearest_hit(void *ctx, const uint8_t *who)
{
    shot_query *q = ctx;
    int64_t best = INT64_MAX;
    q->hit = -1;
    for (int j = 0; j < q->g->ships; j++) {
        /* a ship gone now cannot be hit again, whatever the shooter saw */
        if (j == q->shooter || !q->g->s[j].alive || (who && who[j] == TEMPO_LAGCOMP_ABSENT))
            continue;
        if (!tempo_hit_sphere_segment(&q->live[j], q->p0, q->p1))
            continue;
        int64_t dx = q->live[j].center[0] - q->p0[0], dy = q->live[j].center[1] - q->p0[1];
        int64_t d = dx * dx + dy * dy;
        if (d < best) {
            best = d;
            q->hit = j;
        }
    }
    return q->hit;
}

static void spheres_of(const hs_state *g, tempo_hit_sphere *out, uint8_t *present)
{
    for (int j = 0; j < HS_MAX_SHIPS; j++) {
        out[j] = (tempo_hit_sphere){{g->s[j].x, g->s[j].y, 0}, HS_RADIUS};
        if (present)
            present[j] = j < g->ships && g->s[j].alive;
    }
}

static void shoot(hs_state *g, int i, const hs_input *in, hs_judge *judge)
{
    hs_ship *s = &g->s[i];
    s->cooldown = HS_COOLDOWN;
    s->tracer_tick = g->tick;
    int32_t end[3];
    ray_end(s->x, s->y, in->aim, end);
    s->tx = end[0];
    s->ty = end[1];
    if (in->claim)
        s->claims++;
    if (!judge)
        return; /* clients predict movement; the server judges shots */
    judge->shots++;
    judge->claims += in->claim;
    tempo_hit_sphere live[HS_MAX_SHIPS];
    spheres_of(g, live, NULL);
    shot_query q = {g, live, i, {s->x, s->y, 0}, {end[0], end[1], 0}, -1};
    if (!judge->lc || tempo_lagcomp_query(judge->lc, in->view_tick, in->view_frac, i, live,
                                          sizeof live[0], nearest_hit, &q, NULL) != TEMPO_OK)
        nearest_hit(&q, NULL); /* the present: no history, or a view too old */
    if (q.hit < 0) {
        judge->rejected_claims += in->claim;
        judge->claims_gone += in->claim && !g->s[in->claim_target].alive;
        return;
    }
    hs_ship *t = &g->s[q.hit];
    if (--t->hp <= 0) {
        t->alive = 0;
        t->respawn = HS_RESPAWN;
        t->deaths++;
    }
    s->score++;
    s->tx = t->x;
    s->ty = t->y;
    if (in->claim && in->claim_target == q.hit) {
        s->confirmed++;
        judge->confirmed++;
    } else {
        judge->rejected_claims += in->claim;
    }
}

void hs_step(hs_state *g, const uint8_t *inputs, const uint8_t *status, hs_judge *judge)
{
    hs_input in[HS_MAX_SHIPS];
    for (int i = 0; i < g->ships; i++) {
        hs_ship *s = &g->s[i];
        hs_input_unpack(inputs + i * HS_INPUT_SIZE, g->tick, &in[i]);
        if (s->cooldown > 0)
            s->cooldown--;
        if (!s->alive) {
            if (--s->respawn <= 0)
                spawn(s, i, g->tick);
            in[i].fire = false;
            continue;
        }
        if (status[i] == TEMPO_INPUT_DISCONNECTED) {
            in[i].fire = false;
            continue;
        }
        s->x = clamp(s->x + in[i].dx * HS_SPEED, HS_RADIUS, HS_FIELD_W * HS_UNIT - HS_RADIUS);
        s->y = clamp(s->y + in[i].dy * HS_SPEED, HS_RADIUS, HS_FIELD_H * HS_UNIT - HS_RADIUS);
    }
    /* shots after every move, in ship order */
    for (int i = 0; i < g->ships; i++)
        if (in[i].fire && g->s[i].alive && g->s[i].cooldown == 0)
            shoot(g, i, &in[i], judge);
    g->tick++;
}

tempo_result hs_lagcomp_create(tempo_lagcomp **out)
{
    tempo_lagcomp_config c;
    tempo_lagcomp_config_default(&c);
    c.max_players = HS_MAX_SHIPS;
    c.volume_size = sizeof(tempo_hit_sphere);
    c.history_ticks = 128;
    c.max_rewind_ticks = 60; /* 1 s, Source's cap */
    return tempo_lagcomp_create(&c, out);
}

tempo_result hs_record(tempo_lagcomp *lc, const hs_state *g)
{
    tempo_hit_sphere live[HS_MAX_SHIPS];
    uint8_t present[HS_MAX_SHIPS];
    spheres_of(g, live, present);
    return tempo_lagcomp_record(lc, g->tick, live, sizeof live[0], present);
}
