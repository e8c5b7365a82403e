/* SPDX-License-Identifier: MIT */
/*
 * interp.c — the snapshot buffer and its render clock.
 *
 * The buffer holds up to `capacity` snapshots' ticks and handles, sorted by
 * tick, distinct; the oldest is dropped when a newer one needs room. The
 * game keeps the states; tempo only names them.
 *
 * Timebase. Each arrival's offset is arrival_us - tick * tick_us: the
 * server-to-client latency plus that snapshot's jitter, plus the (constant)
 * difference of the two clocks. The smallest offset of the last `window`
 * arrivals is the timebase: the fastest path. A render time r (on the
 * server's timeline, tick * tick_us) is aimed at
 *     target(now) = now - timebase - delay
 * so a snapshot that takes the fastest path is shown `delay` after it
 * arrives.
 *
 * Render clock. r starts at target when the first sample follows the first
 * snapshot; from then on each sample adds the elapsed time dt plus a
 * correction towards target, clamped to +-dt * max_rate_ppm / 1e6. So r
 * never jumps and never goes back, and a new delay or timebase is reached
 * by running slightly fast or slow (Unity's Netcode for Entities limits its
 * interpolation delay the same way, to 10 % of the frame's ticks by
 * default). Between changes target moves with now exactly as r does, so r
 * stays on it.
 */
#include "interp/playout.h"

#include <string.h>

struct tempo_interp {
    tempo_interp_config cfg;
    tempo_allocator alloc;

    int n;                    /* snapshots held, sorted by tick */
    int32_t *snap_tick;
    uint32_t *snap_handle;

    int win_n, win_next;      /* arrival window ring */
    int32_t *win_tick;
    int64_t *win_off;
    int32_t *scratch_t;
    int64_t *scratch_j;
    int64_t base;             /* smallest offset in the window */
    int32_t left;             /* highest tick that has left the window, -1 for none */

    playout pl;

    bool started;
    int64_t r;                /* render time, server timeline */
    uint64_t last_now;
    tempo_interp_kind last_kind;
    int64_t last_lag;

    uint64_t underruns, extrapolated_us, pushed, late, evicted;
};

void tempo_interp_config_default(tempo_interp_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->tick_us = 16667;
    cfg->capacity = 32;
    cfg->window = 64;
    cfg->mode = TEMPO_PLAYOUT_ADAPTIVE;
    cfg->fixed_ticks = 2;
    cfg->pongbat_max_ticks = 8;
    cfg->late_percent = 2;
    cfg->max_loss_cover = 2;
    cfg->margin_us = 0;
    cfg->min_delay_us = 0;
    cfg->max_delay_us = 500000;
    cfg->shrink_hold_us = 2000000;
    cfg->max_rate_ppm = 100000;
    cfg->max_extrapolate_us = 250000;
}

static bool config_ok(const tempo_interp_config *c)
{
    return c->tick_us >= 100 && c->tick_us <= 1000000 && c->capacity >= 2 && c->capacity <= 1024 &&
           c->window >= 2 && c->window <= 256 &&
           (c->mode == TEMPO_PLAYOUT_FIXED || c->mode == TEMPO_PLAYOUT_PONGBAT ||
            c->mode == TEMPO_PLAYOUT_ADAPTIVE) &&
           c->fixed_ticks >= 0 && c->fixed_ticks <= 1024 && c->pongbat_max_ticks >= 1 &&
           c->pongbat_max_ticks <= 1024 && c->late_percent >= 0 && c->late_percent <= 50 &&
           c->max_loss_cover >= 0 && c->max_loss_cover <= 16 && c->margin_us <= 1000000 &&
           c->max_delay_us >= 1 && c->max_delay_us <= 10000000 && c->min_delay_us <= c->max_delay_us &&
           c->shrink_hold_us <= 60000000 && c->max_rate_ppm >= 1 && c->max_rate_ppm <= 500000 &&
           c->max_extrapolate_us <= 10000000 &&
           (c->allocator.alloc == NULL) == (c->allocator.free == NULL);
}

tempo_result tempo_interp_create(const tempo_interp_config *cfg, tempo_interp **out)
{
    if (!cfg || !out)
        return TEMPO_E_INVALID_ARG;
    *out = NULL;
    if (!config_ok(cfg))
        return TEMPO_E_INVALID_ARG;
    /* One block: the object, then the 64-bit arrays, then the 32-bit ones. */
    size_t cap = (size_t)cfg->capacity, win = (size_t)cfg->window;
    size_t head = (sizeof(tempo_interp) + 7) & ~(size_t)7;
    size_t size = head + 2 * win * sizeof(int64_t) + cap * (sizeof(int32_t) + sizeof(uint32_t)) +
                  2 * win * sizeof(int32_t);
    uint8_t *block = tempo__calloc(&cfg->allocator, 1, size);
    if (!block)
        return TEMPO_E_NO_MEMORY;
    tempo_interp *ip = (tempo_interp *)(void *)block;
    uint8_t *p = block + head;
    ip->win_off = (int64_t *)(void *)p;
    p += win * sizeof(int64_t);
    ip->scratch_j = (int64_t *)(void *)p;
    p += win * sizeof(int64_t);
    ip->snap_tick = (int32_t *)(void *)p;
    p += cap * sizeof(int32_t);
    ip->snap_handle = (uint32_t *)(void *)p;
    p += cap * sizeof(uint32_t);
    ip->win_tick = (int32_t *)(void *)p;
    p += win * sizeof(int32_t);
    ip->scratch_t = (int32_t *)(void *)p;
    ip->cfg = *cfg;
    ip->alloc = cfg->allocator;
    ip->left = -1;
    playout_init(&ip->pl, cfg);
    *out = ip;
    return TEMPO_OK;
}

void tempo_interp_destroy(tempo_interp *ip)
{
    if (!ip)
        return;
    tempo_allocator a = ip->alloc;
    tempo__free(&a, ip);
}

static int64_t tick_time(const tempo_interp *ip, int32_t tick)
{
    return (int64_t)tick * (int64_t)ip->cfg.tick_us;
}

tempo_result tempo_interp_push(tempo_interp *ip, int32_t tick, uint64_t arrival_us, uint32_t handle,
                               uint32_t *evicted)
{
    if (evicted)
        *evicted = TEMPO_INTERP_NO_HANDLE;
    if (!ip || tick < 0 || handle == TEMPO_INTERP_NO_HANDLE || arrival_us > (uint64_t)INT64_MAX / 2)
        return TEMPO_E_INVALID_ARG;
    /* the first held tick >= tick */
    int at = ip->n;
    while (at > 0 && ip->snap_tick[at - 1] >= tick)
        at--;
    if (at < ip->n && ip->snap_tick[at] == tick)
        return TEMPO_E_ALREADY;
    if (ip->n == ip->cfg.capacity) {
        if (at == 0)
            return TEMPO_E_FRAME;
        if (evicted)
            *evicted = ip->snap_handle[0];
        memmove(ip->snap_tick, ip->snap_tick + 1, (size_t)(ip->n - 1) * sizeof *ip->snap_tick);
        memmove(ip->snap_handle, ip->snap_handle + 1, (size_t)(ip->n - 1) * sizeof *ip->snap_handle);
        ip->n--;
        at--;
        ip->evicted++;
    }
    memmove(ip->snap_tick + at + 1, ip->snap_tick + at, (size_t)(ip->n - at) * sizeof *ip->snap_tick);
    memmove(ip->snap_handle + at + 1, ip->snap_handle + at,
            (size_t)(ip->n - at) * sizeof *ip->snap_handle);
    ip->snap_tick[at] = tick;
    ip->snap_handle[at] = handle;
    ip->n++;
    ip->pushed++;
    if (ip->started && tick_time(ip, tick) <= ip->r)
        ip->late++;

    if (ip->win_n == ip->cfg.window && ip->win_tick[ip->win_next] > ip->left)
        ip->left = ip->win_tick[ip->win_next];
    ip->win_tick[ip->win_next] = tick;
    ip->win_off[ip->win_next] = (int64_t)arrival_us - tick_time(ip, tick);
    ip->win_next = (ip->win_next + 1) % ip->cfg.window;
    if (ip->win_n < ip->cfg.window)
        ip->win_n++;
    int64_t base = ip->win_off[0];
    for (int i = 1; i < ip->win_n; i++)
        if (ip->win_off[i] < base)
            base = ip->win_off[i];
    ip->base = base;
    playout_on_arrival(&ip->pl, ip->win_tick, ip->win_off, ip->win_n, base, ip->left, arrival_us,
                       ip->scratch_t, ip->scratch_j);
    return TEMPO_OK;
}

tempo_result tempo_interp_add_ping(tempo_interp *ip, uint32_t rtt_us)
{
    if (!ip)
        return TEMPO_E_INVALID_ARG;
    playout_add_ping(&ip->pl, rtt_us);
    return TEMPO_OK;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Q16 of num / den for 0 <= num, 0 < den. */
static uint32_t q16(int64_t num, int64_t den)
{
    return (uint32_t)((num * 65536) / den);
}

static void advance_clock(tempo_interp *ip, uint64_t now_us)
{
    int64_t target = (int64_t)now_us - ip->base - (int64_t)ip->pl.delay_us;
    if (!ip->started) {
        ip->started = true;
        ip->r = target;
        ip->last_now = now_us;
        return;
    }
    int64_t dt = now_us > ip->last_now ? (int64_t)(now_us - ip->last_now) : 0;
    if (now_us > ip->last_now)
        ip->last_now = now_us;
    int64_t limit = dt * (int64_t)ip->cfg.max_rate_ppm / 1000000;
    int64_t err = target - (ip->r + dt);
    if (err > limit)
        err = limit;
    if (err < -limit)
        err = -limit;
    ip->r += dt + err;
}

tempo_result tempo_interp_sample_at(tempo_interp *ip, uint64_t now_us, tempo_interp_sample *out)
{
    if (!ip || !out || now_us > (uint64_t)INT64_MAX / 2)
        return TEMPO_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->from_handle = out->to_handle = TEMPO_INTERP_NO_HANDLE;
    playout_on_frame(&ip->pl, now_us);
    if (ip->n == 0) {
        out->kind = TEMPO_INTERP_EMPTY;
        return TEMPO_OK;
    }
    int64_t r_prev = ip->r;
    bool was_started = ip->started;
    advance_clock(ip, now_us);
    int64_t r = ip->r;
    ip->last_lag = (int64_t)ip->last_now - ip->base - r;
    out->render_us = r;

    int64_t shown;
    int newest = ip->n - 1;
    if (r < tick_time(ip, ip->snap_tick[0])) {
        out->kind = TEMPO_INTERP_HOLD;
        out->from_tick = out->to_tick = ip->snap_tick[0];
        out->from_handle = out->to_handle = ip->snap_handle[0];
        shown = tick_time(ip, ip->snap_tick[0]);
    } else if (r >= tick_time(ip, ip->snap_tick[newest])) {
        out->kind = TEMPO_INTERP_EXTRAPOLATE;
        int from = newest > 0 ? newest - 1 : newest;
        out->from_tick = ip->snap_tick[from];
        out->to_tick = ip->snap_tick[newest];
        out->from_handle = ip->snap_handle[from];
        out->to_handle = ip->snap_handle[newest];
        int64_t ahead = r - tick_time(ip, out->to_tick);
        if (ahead > (int64_t)ip->cfg.max_extrapolate_us)
            ahead = ip->cfg.max_extrapolate_us;
        out->extrapolate_us = (uint32_t)ahead;
        shown = tick_time(ip, out->to_tick) + ahead;
        if (from != newest)
            out->frac = q16(shown - tick_time(ip, out->from_tick),
                            tick_time(ip, out->to_tick) - tick_time(ip, out->from_tick));
        /* time past the newest snapshot, counted once */
        int64_t since = tick_time(ip, out->to_tick);
        if (was_started && r_prev > since)
            since = r_prev;
        if (r > since)
            ip->extrapolated_us += (uint64_t)(r - since);
        if (ip->last_kind == TEMPO_INTERP_BLEND || ip->last_kind == TEMPO_INTERP_HOLD)
            ip->underruns++;
    } else {
        int lo = 0, hi = newest; /* tick[lo] * T <= r < tick[hi] * T */
        while (hi - lo > 1) {
            int mid = lo + (hi - lo) / 2;
            if (tick_time(ip, ip->snap_tick[mid]) <= r)
                lo = mid;
            else
                hi = mid;
        }
        out->kind = TEMPO_INTERP_BLEND;
        out->from_tick = ip->snap_tick[lo];
        out->to_tick = ip->snap_tick[hi];
        out->from_handle = ip->snap_handle[lo];
        out->to_handle = ip->snap_handle[hi];
        out->frac = q16(r - tick_time(ip, out->from_tick),
                        tick_time(ip, out->to_tick) - tick_time(ip, out->from_tick));
        shown = r;
    }
    ip->last_kind = out->kind;
    int64_t t = ip->cfg.tick_us;
    int64_t vt = floor_div(shown, t);
    out->view_tick = vt < INT32_MIN ? INT32_MIN : vt > INT32_MAX ? INT32_MAX : (int32_t)vt;
    out->view_frac = q16(shown - vt * t, t);
    return TEMPO_OK;
}

tempo_result tempo_interp_stats_get(const tempo_interp *ip, tempo_interp_stats *out)
{
    if (!ip || !out)
        return TEMPO_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->delay_us = ip->pl.delay_us;
    out->render_lag_us = ip->last_lag;
    out->underruns = ip->underruns;
    out->extrapolated_us = ip->extrapolated_us;
    out->delay_changes = ip->pl.changes;
    out->pushed = ip->pushed;
    out->late = ip->late;
    out->evicted = ip->evicted;
    out->jitter_us = ip->pl.jitter_us;
    out->loss_run = ip->pl.loss_run;
    out->interval_ticks = ip->pl.interval_ticks;
    out->ping_us = ip->pl.ping_mean_us;
    out->buffer_on = ip->pl.buffer_on;
    return TEMPO_OK;
}
