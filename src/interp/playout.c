/* SPDX-License-Identifier: MIT */
/*
 * playout.c — how long the playout delay should be (see playout.h).
 *
 * FIXED is Source's model: a delay set by the player (cl_interp 0.1 s, or
 * cl_interp_ratio 2 snapshot intervals), whatever the network does.
 *
 * PONGBAT is the jitter buffer rule of the Pongbat article, kept exact: the
 * client keeps its last 20 round-trip times; when more than 2 s have passed
 * since the last decision it takes their mean, sizes the buffer
 * ceil(mean / tick) + 1 ticks, caps it, and switches the buffer off while
 * the mean is 100 ms or more. The ceiling of the real-valued mean is taken
 * in integers, ceil(sum / (n * tick)), so no rounding differs from the
 * original. Before the first decision the buffer is one tick.
 *
 * ADAPTIVE is tempo's rule. To blend through a render time just past tick k
 * the client needs the next snapshot after k, which was sent one snapshot
 * interval I later and arrives j later than the fastest path (its jitter,
 * measured against the window's smallest offset). So it needs
 *     delay >= I + j,  and one more I for every snapshot lost in a row.
 * Reordering is not loss: a missing snapshot counts as lost only once
 * PLAYOUT_REORDER_DEPTH snapshots past it have arrived (TCP takes three
 * duplicate acks, three segments past a hole, as its sign of loss: RFC
 * 5681 section 3.2). One overtaken by one or two later ones is a late
 * arrival, and its lateness counts in the jitter below. Nor is a tick
 * that may have arrived before the window began (at or below the highest
 * tick that has left it) judged lost.
 * The target is therefore
 *     I * (1 + min(L, max_loss_cover)) + J + margin,
 * clamped to [min_delay, max_delay], where, over the window of recent
 * arrivals: I is the smallest tick gap between snapshots (the server's send
 * interval: losses only widen gaps), L the longest run of missing
 * snapshots (a gap of g intervals loses g - 1) with at least
 * PLAYOUT_REORDER_DEPTH arrivals past it, and J the jitter that all
 * but late_percent % of arrivals stayed within (the arrival at rank
 * ceil(n * (100 - late_percent) / 100) of n, smallest first). Covering loss
 * runs one interval each follows Valve's advice for cl_interp_ratio
 * (ratio 3 survives one dropped packet, 4 two in a row). The target is
 * taken at once when it is higher, so a spike costs at most the arrivals
 * before it is measured; a lower one waits until every target for
 * shrink_hold_us has been lower (2 s by default, Pongbat's decision
 * period), then the highest of them is taken, so the delay does not breathe
 * with each arrival.
 */
#include "interp/playout.h"

#include <string.h>

void playout_init(playout *pl, const tempo_interp_config *cfg)
{
    memset(pl, 0, sizeof *pl);
    pl->mode = cfg->mode;
    pl->tick_us = cfg->tick_us;
    pl->fixed_ticks = cfg->fixed_ticks;
    pl->pongbat_max_ticks = cfg->pongbat_max_ticks;
    pl->late_percent = cfg->late_percent;
    pl->max_loss_cover = cfg->max_loss_cover;
    pl->margin_us = cfg->margin_us;
    pl->min_delay_us = cfg->min_delay_us;
    pl->max_delay_us = cfg->max_delay_us;
    pl->shrink_hold_us = cfg->shrink_hold_us;
    pl->buffer_on = true;
    switch (pl->mode) {
    case TEMPO_PLAYOUT_FIXED:
        pl->delay_us = (uint32_t)pl->fixed_ticks * pl->tick_us;
        break;
    case TEMPO_PLAYOUT_PONGBAT:
        pl->delay_us = pl->tick_us;
        break;
    case TEMPO_PLAYOUT_ADAPTIVE:
        pl->delay_us = (uint32_t)pl->fixed_ticks * pl->tick_us;
        if (pl->delay_us < pl->min_delay_us)
            pl->delay_us = pl->min_delay_us;
        if (pl->delay_us > pl->max_delay_us)
            pl->delay_us = pl->max_delay_us;
        break;
    }
}

static void set_delay(playout *pl, uint32_t d)
{
    if (d != pl->delay_us)
        pl->changes++;
    pl->delay_us = d;
}

static void sort_i32(int32_t *a, int n)
{
    for (int i = 1; i < n; i++) {
        int32_t x = a[i];
        int k = i;
        for (; k > 0 && a[k - 1] > x; k--)
            a[k] = a[k - 1];
        a[k] = x;
    }
}

static void sort_i64(int64_t *a, int n)
{
    for (int i = 1; i < n; i++) {
        int64_t x = a[i];
        int k = i;
        for (; k > 0 && a[k - 1] > x; k--)
            a[k] = a[k - 1];
        a[k] = x;
    }
}

uint32_t playout_adaptive_target(const playout *pl, const int32_t *ticks, const int64_t *offsets,
                                 int n, int64_t base, int32_t left, int32_t *scratch_t, int64_t *scratch_j,
                                 uint32_t *jitter_us, uint32_t *interval_ticks, int *loss_run)
{
    TEMPO_ASSERT(n >= 1);
    memcpy(scratch_t, ticks, (size_t)n * sizeof *ticks);
    sort_i32(scratch_t, n);
    int64_t interval = 0;
    for (int i = 1; i < n; i++) {
        int64_t gap = (int64_t)scratch_t[i] - scratch_t[i - 1];
        if (gap > 0 && (interval == 0 || gap < interval))
            interval = gap;
    }
    if (interval == 0)
        interval = 1;
    int64_t run = 0;
    for (int i = 1; i <= n - PLAYOUT_REORDER_DEPTH; i++) { /* n - i arrivals at or past the gap */
        int64_t gap = (int64_t)scratch_t[i] - (scratch_t[i - 1] > left ? scratch_t[i - 1] : left);
        int64_t lost = (gap + interval - 1) / interval - 1;
        if (lost > run)
            run = lost;
    }

    for (int i = 0; i < n; i++)
        scratch_j[i] = offsets[i] - base;
    sort_i64(scratch_j, n);
    int64_t rank = ((int64_t)n * (100 - pl->late_percent) + 99) / 100; /* 1-based */
    if (rank < 1)
        rank = 1;
    int64_t jitter = scratch_j[rank - 1];

    int64_t cover = run < pl->max_loss_cover ? run : pl->max_loss_cover;
    int64_t target = interval * (int64_t)pl->tick_us * (1 + cover) + jitter + pl->margin_us;
    if (target < pl->min_delay_us)
        target = pl->min_delay_us;
    if (target > pl->max_delay_us)
        target = pl->max_delay_us;
    *jitter_us = jitter > UINT32_MAX ? UINT32_MAX : (uint32_t)jitter;
    *interval_ticks = interval > UINT32_MAX ? UINT32_MAX : (uint32_t)interval;
    *loss_run = run > INT32_MAX ? INT32_MAX : (int)run;
    return (uint32_t)target;
}

void playout_on_arrival(playout *pl, const int32_t *ticks, const int64_t *offsets, int n,
                        int64_t base, int32_t left, uint64_t now_us, int32_t *scratch_t,
                        int64_t *scratch_j)
{
    if (pl->mode != TEMPO_PLAYOUT_ADAPTIVE || n < 1)
        return;
    uint32_t t = playout_adaptive_target(pl, ticks, offsets, n, base, left, scratch_t, scratch_j,
                                         &pl->jitter_us, &pl->interval_ticks, &pl->loss_run);
    if (!pl->measured) {
        pl->measured = true;
        pl->delay_us = t;
        return;
    }
    if (t >= pl->delay_us) {
        set_delay(pl, t);
        pl->pending = false;
        return;
    }
    if (!pl->pending) {
        pl->pending = true;
        pl->pending_since = now_us;
        pl->pending_max = t;
    } else if (t > pl->pending_max) {
        pl->pending_max = t;
    }
    if (now_us >= pl->pending_since && now_us - pl->pending_since >= pl->shrink_hold_us) {
        set_delay(pl, pl->pending_max);
        pl->pending = false;
    }
}

void playout_add_ping(playout *pl, uint32_t rtt_us)
{
    pl->pings[pl->ping_next] = rtt_us;
    pl->ping_next = (pl->ping_next + 1) % PLAYOUT_PONGBAT_PINGS;
    if (pl->ping_count < PLAYOUT_PONGBAT_PINGS)
        pl->ping_count++;
}

void playout_on_frame(playout *pl, uint64_t now_us)
{
    if (pl->mode != TEMPO_PLAYOUT_PONGBAT || pl->ping_count == 0)
        return;
    if (pl->decided && now_us - pl->decided_us <= PLAYOUT_PONGBAT_PERIOD_US)
        return;
    pl->decided = true;
    pl->decided_us = now_us;
    uint64_t sum = 0;
    for (int i = 0; i < pl->ping_count; i++)
        sum += pl->pings[i];
    uint64_t n = (uint64_t)pl->ping_count;
    uint64_t per = n * pl->tick_us;
    uint64_t ticks = (sum + per - 1) / per + 1;
    if (ticks > (uint64_t)pl->pongbat_max_ticks)
        ticks = (uint64_t)pl->pongbat_max_ticks;
    pl->ping_mean_us = (uint32_t)(sum / n);
    pl->buffer_on = sum < (uint64_t)PLAYOUT_PONGBAT_OFF_US * n;
    set_delay(pl, pl->buffer_on ? (uint32_t)ticks * pl->tick_us : 0);
}
