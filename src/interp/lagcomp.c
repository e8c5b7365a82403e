/* SPDX-License-Identifier: MIT */
/*
 * lagcomp.c — the server's history of player hit volumes and the
 * rewind-test-restore query (Source's lag compensation).
 *
 * A ring of history_ticks records, tick t in record t % history_ticks,
 * each holding every player's volume (volume_size bytes the game defines)
 * and whether the player existed. Ticks [oldest, newest] are held; a tick
 * skipped by record is held as "nobody present", so the ring is always
 * contiguous. A query checks the view against max_rewind_ticks and the
 * held range before touching anything, saves the live volume of each
 * player it rewinds, writes the rewound volume in its place, runs the
 * game's hit test, and copies the saved volumes back: the live state after
 * a query is bit for bit the state before it.
 *
 * Only players are rewound, as in Source: rewinding every physics object
 * costs too much, so doors, projectiles and movers stay where they are now.
 * The shooter is judged on what they saw, which is fair to the shooter
 * and not to the target: a target that has just stepped behind a wall on
 * its own screen can still be hit by a shooter who saw it in the open, a
 * fraction of a second later ("shot around the corner"). Source chose that
 * over players who seem bulletproof.
 */
#include <string.h>

#include "base/common.h"
#include "tempo/interp.h"

struct tempo_lagcomp {
    tempo_lagcomp_config cfg;
    size_t rec;            /* bytes per record: max_players volumes */
    uint8_t *volumes;      /* history_ticks * rec */
    uint8_t *present;      /* history_ticks * max_players */
    uint8_t *saved;        /* rec: live volumes during a query */
    int32_t first;         /* first tick recorded (-1: none) */
    int32_t newest;        /* newest tick recorded (-1: none) */
};

void tempo_lagcomp_config_default(tempo_lagcomp_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->max_players = TEMPO_MAX_PLAYERS;
    cfg->volume_size = sizeof(tempo_hit_box);
    cfg->history_ticks = 64;
    cfg->max_rewind_ticks = 30;
}

tempo_result tempo_lagcomp_create(const tempo_lagcomp_config *cfg, tempo_lagcomp **out)
{
    if (!cfg || !out)
        return TEMPO_E_INVALID_ARG;
    *out = NULL;
    if (cfg->max_players < 1 || cfg->max_players > 256 || cfg->volume_size < 1 ||
        cfg->volume_size > 4096 || cfg->history_ticks < 2 || cfg->history_ticks > 4096 ||
        cfg->max_rewind_ticks < 0 || cfg->max_rewind_ticks > cfg->history_ticks - 1 ||
        (!cfg->lerp && cfg->volume_size % 4 != 0) ||
        (cfg->allocator.alloc == NULL) != (cfg->allocator.free == NULL))
        return TEMPO_E_INVALID_ARG;
    size_t rec = (size_t)cfg->max_players * cfg->volume_size;
    size_t hist = (size_t)cfg->history_ticks;
    size_t head = (sizeof(tempo_lagcomp) + 15) & ~(size_t)15;
    size_t size = head + hist * rec + rec + hist * (size_t)cfg->max_players;
    uint8_t *block = tempo__calloc(&cfg->allocator, 1, size);
    if (!block)
        return TEMPO_E_NO_MEMORY;
    tempo_lagcomp *lc = (tempo_lagcomp *)(void *)block;
    lc->cfg = *cfg;
    lc->rec = rec;
    lc->volumes = block + head;
    lc->saved = lc->volumes + hist * rec;
    lc->present = lc->saved + rec;
    lc->first = lc->newest = -1;
    *out = lc;
    return TEMPO_OK;
}

void tempo_lagcomp_destroy(tempo_lagcomp *lc)
{
    if (!lc)
        return;
    tempo_allocator a = lc->cfg.allocator;
    tempo__free(&a, lc);
}

int32_t tempo_lagcomp_newest(const tempo_lagcomp *lc)
{
    return lc ? lc->newest : -1;
}

static size_t slot(const tempo_lagcomp *lc, int32_t tick)
{
    return (size_t)((uint32_t)tick % (uint32_t)lc->cfg.history_ticks);
}

static uint8_t *volume_at(const tempo_lagcomp *lc, int32_t tick, int player)
{
    return lc->volumes + slot(lc, tick) * lc->rec + (size_t)player * lc->cfg.volume_size;
}

static uint8_t *present_at(const tempo_lagcomp *lc, int32_t tick)
{
    return lc->present + slot(lc, tick) * (size_t)lc->cfg.max_players;
}

/* Make tick the newest, clearing the presence of ticks skipped. */
static tempo_result begin(tempo_lagcomp *lc, int32_t tick)
{
    if (tick < 0)
        return TEMPO_E_INVALID_ARG;
    if (lc->newest >= 0 && tick <= lc->newest)
        return TEMPO_E_FRAME;
    if (lc->newest < 0) {
        lc->first = tick;
    } else {
        int64_t skipped = (int64_t)tick - lc->newest - 1;
        if (skipped > lc->cfg.history_ticks)
            skipped = lc->cfg.history_ticks;
        for (int64_t i = 1; i <= skipped; i++)
            memset(present_at(lc, (int32_t)(lc->newest + i)), 0, (size_t)lc->cfg.max_players);
    }
    lc->newest = tick;
    return TEMPO_OK;
}

tempo_result tempo_lagcomp_record(tempo_lagcomp *lc, int32_t tick, const void *base, size_t stride,
                                  const uint8_t *present)
{
    if (!lc || !base || stride < lc->cfg.volume_size)
        return TEMPO_E_INVALID_ARG;
    tempo_result r = begin(lc, tick);
    if (r != TEMPO_OK)
        return r;
    uint8_t *pr = present_at(lc, tick);
    for (int p = 0; p < lc->cfg.max_players; p++) {
        pr[p] = (uint8_t)(present == NULL || present[p] != 0);
        memcpy(volume_at(lc, tick, p), (const uint8_t *)base + (size_t)p * stride, lc->cfg.volume_size);
    }
    return TEMPO_OK;
}

tempo_result tempo_lagcomp_capture(tempo_lagcomp *lc, int32_t tick, tempo_lagcomp_fill_fn fill, void *ctx)
{
    if (!lc || !fill)
        return TEMPO_E_INVALID_ARG;
    tempo_result r = begin(lc, tick);
    if (r != TEMPO_OK)
        return r;
    uint8_t *pr = present_at(lc, tick);
    for (int p = 0; p < lc->cfg.max_players; p++)
        pr[p] = (uint8_t)fill(ctx, p, volume_at(lc, tick, p));
    return TEMPO_OK;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

void tempo_lagcomp_lerp_i32(void *ctx, const void *a, const void *b, uint32_t frac, void *out, size_t size)
{
    (void)ctx;
    for (size_t off = 0; off + 4 <= size; off += 4) {
        int32_t x, y;
        memcpy(&x, (const uint8_t *)a + off, 4);
        memcpy(&y, (const uint8_t *)b + off, 4);
        int64_t v = x + floor_div(((int64_t)y - x) * (int64_t)frac + 32768, 65536);
        int32_t z = (int32_t)v;
        memcpy((uint8_t *)out + off, &z, 4);
    }
}

tempo_result tempo_lagcomp_query(tempo_lagcomp *lc, int32_t view_tick, uint32_t view_frac, int shooter,
                                 void *live, size_t live_stride, tempo_lagcomp_hit_fn hit, void *ctx,
                                 int *result)
{
    if (!lc || !live || !hit || live_stride < lc->cfg.volume_size || shooter < -1 ||
        shooter >= lc->cfg.max_players || view_frac > 65535)
        return TEMPO_E_INVALID_ARG;
    if (lc->newest < 0 || view_tick > lc->newest || (view_tick == lc->newest && view_frac != 0))
        return TEMPO_E_FRAME;
    int64_t oldest = (int64_t)lc->newest - lc->cfg.history_ticks + 1;
    if (oldest < lc->first)
        oldest = lc->first;
    if ((int64_t)lc->newest - view_tick > lc->cfg.max_rewind_ticks || view_tick < oldest)
        return TEMPO_E_FRAME;

    uint8_t who[256];
    const uint8_t *pr0 = present_at(lc, view_tick);
    const uint8_t *pr1 = view_frac != 0 ? present_at(lc, view_tick + 1) : NULL;
    size_t vs = lc->cfg.volume_size;
    tempo_lagcomp_lerp_fn lerp = lc->cfg.lerp ? lc->cfg.lerp : tempo_lagcomp_lerp_i32;
    for (int p = 0; p < lc->cfg.max_players; p++) {
        uint8_t *mine = (uint8_t *)live + (size_t)p * live_stride;
        if (p == shooter) {
            who[p] = TEMPO_LAGCOMP_LIVE;
        } else if (!pr0[p]) {
            who[p] = TEMPO_LAGCOMP_ABSENT;
        } else {
            who[p] = TEMPO_LAGCOMP_REWOUND;
            memcpy(lc->saved + (size_t)p * vs, mine, vs);
            if (pr1 && pr1[p])
                lerp(lc->cfg.lerp_ctx, volume_at(lc, view_tick, p), volume_at(lc, view_tick + 1, p),
                     view_frac, mine, vs);
            else
                memcpy(mine, volume_at(lc, view_tick, p), vs);
        }
    }
    int r = hit(ctx, who);
    for (int p = 0; p < lc->cfg.max_players; p++)
        if (who[p] == TEMPO_LAGCOMP_REWOUND)
            memcpy((uint8_t *)live + (size_t)p * live_stride, lc->saved + (size_t)p * vs, vs);
    if (result)
        *result = r;
    return TEMPO_OK;
}

/* t = num / den with den > 0; a/b > c/d */
static bool frac_gt(int64_t a, int64_t b, int64_t c, int64_t d)
{
    return a * d > c * b;
}

bool tempo_hit_box_segment(const tempo_hit_box *b, const int32_t p0[3], const int32_t p1[3])
{
    if (!b || !p0 || !p1)
        return false;
    int64_t lo_n = 0, lo_d = 1, hi_n = 1, hi_d = 1; /* entry and exit parameters */
    for (int i = 0; i < 3; i++) {
        int64_t d = (int64_t)p1[i] - p0[i];
        int64_t en, ex, den;
        if (d == 0) {
            if (p0[i] < b->min[i] || p0[i] > b->max[i])
                return false;
            continue;
        }
        if (d > 0) {
            en = (int64_t)b->min[i] - p0[i];
            ex = (int64_t)b->max[i] - p0[i];
            den = d;
        } else {
            en = (int64_t)p0[i] - b->max[i];
            ex = (int64_t)p0[i] - b->min[i];
            den = -d;
        }
        if (frac_gt(en, den, lo_n, lo_d)) {
            lo_n = en;
            lo_d = den;
        }
        if (frac_gt(hi_n, hi_d, ex, den)) {
            hi_n = ex;
            hi_d = den;
        }
        if (frac_gt(lo_n, lo_d, hi_n, hi_d))
            return false;
    }
    return true;
}

bool tempo_hit_sphere_segment(const tempo_hit_sphere *s, const int32_t p0[3], const int32_t p1[3])
{
    if (!s || !p0 || !p1)
        return false;
    double d[3], f[3], dd = 0, fd = 0;
    for (int i = 0; i < 3; i++) {
        d[i] = (double)p1[i] - p0[i];
        f[i] = (double)p0[i] - s->center[i];
        dd += d[i] * d[i];
        fd += f[i] * d[i];
    }
    double t = dd > 0 ? -fd / dd : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double dist = 0;
    for (int i = 0; i < 3; i++) {
        double c = f[i] + t * d[i];
        dist += c * c;
    }
    return dist <= (double)s->radius * s->radius;
}
