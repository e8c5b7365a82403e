/* SPDX-License-Identifier: MIT */
/*
 * timesync.c — stall planning, automatic input delay, start-up delay
 * (see timesync.h for the signals).
 *
 * INVERSUS (Ryan Juckett, "Rollback Networking in INVERSUS", 2016): collect
 * L and R per peer over a window; at its end, the advantage over a peer is
 * mean(L) - mean(R), take the largest over peers and halve it (the other side
 * corrects the other half); at the threshold or more, queue round(advantage)
 * stalls (at least one). Stalls are spread out: with k queued, one in every
 * max(1, 11 - k) ticks stalls. tempo departs from the article's numbers,
 * measured in docs/TIMESYNC.md: the window (40 frames, not 100) slides and
 * is evaluated every third of its length, then forgotten once stalls are
 * queued (a long, fixed window lags the drift it measures by half its
 * length); the threshold is "more than 0.5 frames", not 0.75 (a stall moves
 * the skew by one whole frame, so it helps as soon as the skew passes half a
 * frame; and whole-frame lags read exactly 0.5 for two machines in step but
 * out of phase, which must not trigger); the mean is trimmed (robust to
 * jitter bursts); and L is sampled only on ticks that brought news from
 * the peer (a loss burst does not read as running ahead).
 *
 * INVERSUS_ARTICLE keeps the article's numbers, so the comparison is with
 * the article rather than with a retuning of it: L summed every tick (the
 * article: every input message sent) and R with every input message
 * received, over a fixed window of 100 frames; at its end the plain means
 * give each peer's advantage, the largest (never below 0) is halved, and
 * at 0.75 or more max(1, round(advantage)) stalls join the queue; then the
 * sums start again. The queue drains with INVERSUS's cadence above. What
 * it shares with tempo's version: L and R as timesync.h defines them, in
 * frames of simulation, and the bounds on believable lags (and so on the
 * queue: at most one window of stalls).
 *
 * GGPO (timesync.cpp / p2p.cpp): a 40-frame window of local advantages and
 * the peer's reported ones; recommend (remote - local) / 2 frames of sleep
 * when that is 3 or more, at most once every 240 frames; the stalls follow
 * each other (GGPO tells the game to sleep that long).
 *
 * LEAD ("slowing down for remote players"): exponential averages of our lead
 * over each peer and of the lead it reports; stall one frame when ours
 * exceeds its own by the tolerance, then wait lead_cooldown_frames. Every
 * remote is compared, so with three or more peers a machine ahead of any one
 * of them slows down.
 */
#include "timing/timesync.h"

#include <string.h>

void timesync_init(tempo_timesync *t, const tempo_config *cfg)
{
    memset(t, 0, sizeof *t);
    t->cfg = cfg->timesync;
    t->ad = cfg->auto_delay;
    t->fps = cfg->frames_per_second;
    t->lockstep = cfg->max_prediction == 0;
    if (t->cfg.window_frames <= 0) {
        static const int defaults[] = {40, 40, 60, 40, 100};
        t->cfg.window_frames = defaults[t->cfg.method];
    }
    if (t->cfg.window_frames > TIMESYNC_WINDOW_MAX)
        t->cfg.window_frames = TIMESYNC_WINDOW_MAX;
    if (t->cfg.stall_threshold <= 0.0)
        t->cfg.stall_threshold = t->cfg.method == TEMPO_TIMESYNC_INVERSUS_ARTICLE ? 0.75 : 0.5;
}

/* The automatic delay's lag samples come from the round trip, except in
 * lockstep, which covers the inputs' whole measured age. */
static bool delay_from_rtt(const tempo_timesync *t)
{
    return !t->lockstep && t->ad.signal == TEMPO_DELAY_HALF_RTT;
}

static void delay_sample(timesync_peer *x, double lag)
{
    if (x->lag_n < TIMESYNC_WINDOW_MAX)
        x->lags[x->lag_n++] = (float)(lag < 0 ? 0 : lag);
}

static void ring_put(float *ring, int *head, int *count, int cap, double v)
{
    ring[*head] = (float)v;
    *head = (*head + 1) % cap;
    if (*count < cap)
        (*count)++;
}

static bool believable(double lag)
{
    return lag > -TIMESYNC_LAG_LIMIT && lag < TIMESYNC_LAG_LIMIT;
}

void timesync_on_local(tempo_timesync *t, int p, double local_lag, double ggpo_local_adv)
{
    if (!believable(local_lag) || !believable(ggpo_local_adv))
        return;
    timesync_peer *x = &t->peer[p];
    x->live = true;
    /* Between two arrivals L only counts the frames since the newest one:
     * it measures the network's gap, not the clocks. A one-sided loss burst
     * or jitter spike fills the window with such ticks on the receiving
     * side only, which then stalls for skew that does not exist, and every
     * other machine stalls in turn to catch up with it. R is taken per
     * arrival already. */
    bool news = x->news;
    x->news = false;
    if (news)
        ring_put(x->win_local, &x->head_local, &x->n_local, t->cfg.window_frames, local_lag);
    x->art_local += local_lag;
    x->art_local_n++;
    double alpha = 2.0 / (t->cfg.window_frames + 1.0);
    if (x->ewma_init)
        x->ewma_local += alpha * (local_lag - x->ewma_local);
    if (t->cfg.method == TEMPO_TIMESYNC_GGPO) {
        x->ggpo_local[x->ggpo_head] = ggpo_local_adv;
        x->ggpo_head = (x->ggpo_head + 1) % t->cfg.window_frames;
        if (x->ggpo_count < t->cfg.window_frames)
            x->ggpo_count++;
    }
}

void timesync_on_remote(tempo_timesync *t, int p, double remote_lag, double frame_lag)
{
    if (!believable(remote_lag) || !believable(frame_lag))
        return;
    timesync_peer *x = &t->peer[p];
    x->live = true;
    x->news = true;
    if (t->cfg.method == TEMPO_TIMESYNC_INVERSUS) {
        if (x->npend < TIMESYNC_PENDING) {
            x->pend_remote[x->npend] = (float)remote_lag;
            x->pend_lag[x->npend] = (float)frame_lag;
            x->npend++;
        }
    } else {
        ring_put(x->win_remote, &x->head_remote, &x->n_remote, t->cfg.window_frames, remote_lag);
    }
    x->art_remote += remote_lag;
    x->art_remote_n++;
    double alpha = 2.0 / (t->cfg.window_frames + 1.0);
    if (!x->ewma_init) {
        x->ewma_init = true;
        x->ewma_local = remote_lag;
        x->ewma_remote = remote_lag;
    } else {
        x->ewma_remote += alpha * (remote_lag - x->ewma_remote);
    }
    if (!delay_from_rtt(t))
        delay_sample(x, frame_lag);
}

void timesync_on_rtt(tempo_timesync *t, int p, double rtt_ms)
{
    if (!delay_from_rtt(t) || !(rtt_ms >= 0.0 && rtt_ms < 60000.0))
        return;
    timesync_peer *x = &t->peer[p];
    x->live = true;
    delay_sample(x, rtt_ms / 2.0 * t->fps / 1000.0);
}

void timesync_on_quality(tempo_timesync *t, int p, double remote_adv)
{
    if (!believable(remote_adv))
        return;
    t->peer[p].ggpo_remote_adv = remote_adv;
    t->peer[p].has_quality = true;
}

void timesync_peer_lost(tempo_timesync *t, int p)
{
    memset(&t->peer[p], 0, sizeof t->peer[p]);
}

/* Insertion sort: windows hold at most 256 samples, and the C library's
 * qsort may allocate, which the tick path must not. */
static void sort_floats(float *v, int n)
{
    for (int i = 1; i < n; i++) {
        float x = v[i];
        int j = i - 1;
        for (; j >= 0 && v[j] > x; j--)
            v[j + 1] = v[j];
        v[j + 1] = x;
    }
}

/* Mean of the middle 60%: a burst of late datagrams on one direction of a
 * link (a jitter spike) must not look like a clock running ahead. */
static double trimmed_mean(float *v, int n)
{
    sort_floats(v, n);
    int cut = n / 5;
    double sum = 0;
    for (int i = cut; i < n - cut; i++)
        sum += v[i];
    return sum / (n - 2 * cut);
}

/* The trimmed mean works on a copy: the rings keep their order. */
static double window_mean(const float *ring, int n)
{
    float v[TIMESYNC_WINDOW_MAX];
    memcpy(v, ring, (size_t)n * sizeof *v);
    return trimmed_mean(v, n);
}

static void forget_window(tempo_timesync *t)
{
    for (int p = 0; p < TIMESYNC_MAX_PEERS; p++) {
        timesync_peer *x = &t->peer[p];
        x->n_local = x->n_remote = x->head_local = x->head_remote = 0;
    }
}

/* Every third of a window, over the newest window of samples, and only
 * once the queued stalls have run: samples taken before a stall describe a
 * lead the stall has changed (spread_stall forgets them), so counting them
 * again would correct the same advantage twice. */
static void inversus_decide(tempo_timesync *t)
{
    int need = t->cfg.window_frames / 2 > 0 ? t->cfg.window_frames / 2 : 1;
    double worst = -1e9;
    bool any = false;
    for (int p = 0; p < TIMESYNC_MAX_PEERS; p++) {
        const timesync_peer *x = &t->peer[p];
        if (!x->live || x->n_local < need || x->n_remote < need)
            continue;
        double adv = window_mean(x->win_local, x->n_local) - window_mean(x->win_remote, x->n_remote);
        if (adv > worst)
            worst = adv;
        any = true;
    }
    if (!any)
        return;
    double adv = worst / 2.0;
    t->advantage = adv;
    if (adv <= t->cfg.stall_threshold || t->stall_queue > 0)
        return;
    int n = (int)(adv + 0.5);
    t->stall_queue += n < 1 ? 1 : n > TIMESYNC_MAX_QUEUED ? TIMESYNC_MAX_QUEUED : n;
    forget_window(t);
}

/* At the end of each fixed window: the plain means, the largest advantage
 * over any peer (0 if none is ahead of us), halved; then a new window. */
static void article_decide(tempo_timesync *t)
{
    double best = 0.0;
    for (int p = 0; p < TIMESYNC_MAX_PEERS; p++) {
        timesync_peer *x = &t->peer[p];
        if (x->live && x->art_local_n > 0 && x->art_remote_n > 0) {
            double adv = x->art_local / x->art_local_n - x->art_remote / x->art_remote_n;
            if (adv > best)
                best = adv;
        }
        x->art_local = x->art_remote = 0.0;
        x->art_local_n = x->art_remote_n = 0;
    }
    double adv = 0.5 * best;
    t->advantage = adv;
    if (adv >= t->cfg.stall_threshold) {
        int n = (int)(adv + 0.5);
        t->stall_queue += n < 1 ? 1 : n;
        /* the article has no cap; one window's worth bounds what lags at
         * the edge of believable can queue */
        if (t->stall_queue > t->cfg.window_frames)
            t->stall_queue = t->cfg.window_frames;
    }
}

static bool spread_stall(tempo_timesync *t)
{
    if (t->stall_queue <= 0) {
        t->since_stall = 0;
        return false;
    }
    int period = 11 - t->stall_queue;
    if (period < 1)
        period = 1;
    if (++t->since_stall < period)
        return false;
    t->since_stall = 0;
    t->stall_queue--;
    return true;
}

/* GGPO asks every endpoint for its recommendation and takes the largest. */
static void ggpo_recommend(tempo_timesync *t, int32_t frame)
{
    if (frame < t->ggpo_next_frame)
        return;
    int best = 0;
    double worst_adv = -1e9;
    for (int p = 0; p < TIMESYNC_MAX_PEERS; p++) {
        const timesync_peer *x = &t->peer[p];
        if (!x->live || !x->has_quality || x->ggpo_count < t->cfg.window_frames)
            continue;
        double local = 0;
        for (int i = 0; i < x->ggpo_count; i++)
            local += x->ggpo_local[i];
        local /= x->ggpo_count;
        double remote = x->ggpo_remote_adv;
        if ((remote - local) / 2.0 > worst_adv)
            worst_adv = (remote - local) / 2.0;
        if (local >= remote)
            continue;
        int sleep = (int)((remote - local) / 2.0 + 0.5);
        if (sleep < 3) /* GGPO's MIN_FRAME_ADVANTAGE */
            continue;
        if (sleep > 9) /* ...and its MAX_FRAME_ADVANTAGE */
            sleep = 9;
        if (sleep > best)
            best = sleep;
    }
    if (worst_adv > -1e9)
        t->advantage = worst_adv;
    if (best > 0) {
        t->stall_queue += best; /* at most 9: GGPO's own cap */
        t->ggpo_next_frame = frame + 240; /* RECOMMENDATION_INTERVAL */
    }
}

static bool lead_decide(tempo_timesync *t)
{
    double worst = -1e9;
    for (int p = 0; p < TIMESYNC_MAX_PEERS; p++) {
        const timesync_peer *x = &t->peer[p];
        if (x->live && x->ewma_init && x->ewma_local - x->ewma_remote > worst)
            worst = x->ewma_local - x->ewma_remote;
    }
    if (worst > -1e9)
        t->advantage = worst / 2.0;
    if (t->cooldown > 0) {
        t->cooldown--;
        return false;
    }
    if (worst > t->cfg.lead_tolerance) {
        t->cooldown = t->cfg.lead_cooldown_frames;
        return true;
    }
    return false;
}

/* The R of an INPUT is the L its sender measured when it sent it, so it is
 * kept on the same terms as our L: only if the sender had news from us
 * since its previous INPUT, i.e. if the frame of ours it acknowledges
 * moved. That frame is the sender's frame minus R, and the sender's frame
 * is ours minus the frame lag plus 2 (p2p_input.c); our frame is the one
 * this tick decides on, since the INPUTs arrived in this tick's poll. */
static void take_pending(tempo_timesync *t, int32_t frame)
{
    for (int p = 0; p < TIMESYNC_MAX_PEERS; p++) {
        timesync_peer *x = &t->peer[p];
        for (int k = 0; k < x->npend; k++) {
            double sender = (double)frame - x->pend_lag[k] + 2.0;
            int64_t known = (int64_t)(sender - x->pend_remote[k] + (sender >= x->pend_remote[k] ? 0.5 : -0.5));
            if (x->has_known && known <= x->known)
                continue;
            x->has_known = true;
            x->known = known;
            ring_put(x->win_remote, &x->head_remote, &x->n_remote, t->cfg.window_frames, x->pend_remote[k]);
        }
        x->npend = 0;
    }
}

bool timesync_decide(tempo_timesync *t, int32_t frame)
{
    t->ticks++;
    if (t->cfg.method == TEMPO_TIMESYNC_INVERSUS)
        take_pending(t, frame);
    bool stall = false;
    switch (t->cfg.method) {
    case TEMPO_TIMESYNC_INVERSUS: {
        int step = t->cfg.window_frames / 3 > 0 ? t->cfg.window_frames / 3 : 1;
        if (++t->window_ticks >= step) {
            t->window_ticks = 0;
            inversus_decide(t);
        }
        stall = spread_stall(t);
        break;
    }
    case TEMPO_TIMESYNC_INVERSUS_ARTICLE:
        if (++t->window_ticks >= t->cfg.window_frames) {
            t->window_ticks = 0;
            article_decide(t);
        }
        stall = spread_stall(t);
        break;
    case TEMPO_TIMESYNC_GGPO:
        ggpo_recommend(t, frame);
        if (t->stall_queue > 0) {
            t->stall_queue--;
            stall = true;
        }
        break;
    case TEMPO_TIMESYNC_LEAD:
        stall = lead_decide(t);
        break;
    case TEMPO_TIMESYNC_NONE:
        break;
    }
    if (stall)
        t->stalls++;
    return stall;
}

/* ---- automatic input delay ------------------------------------------------ */

static double ceil_pos(double x)
{
    if (x <= 0)
        return 0;
    double i = (double)(int64_t)x;
    return i < x ? i + 1 : i;
}

static int delay_for(const tempo_timesync *t, int from, double lag)
{
    if (t->lockstep) {
        /* A frame without every input cannot run at all: cover the whole
         * lag (which counts both ends, hence the - 1), with half a frame of
         * hysteresis on the way down. */
        int up = (int)ceil_pos(lag - 1.0), down = (int)ceil_pos(lag - 0.5);
        int d = from;
        if (up > d)
            d = up;
        else if (down < d)
            d = down;
        return d < t->ad.max_frames ? d : t->ad.max_frames;
    }
    int d = from;
    while (d < t->ad.max_frames && lag >= t->ad.raise_at[d])
        d++;
    while (d > 0 && lag <= t->ad.lower_at[d - 1])
        d--;
    return d;
}

int timesync_initial_delay(tempo_timesync *t, double worst_rtt_ms)
{
    double lag = delay_from_rtt(t) ? worst_rtt_ms / 2.0 * t->fps / 1000.0 : timesync_rtt_lag(t, worst_rtt_ms);
    int d = delay_for(t, 0, lag);
    t->delay = d;
    return d;
}

double timesync_rtt_lag(const tempo_timesync *t, double rtt_ms)
{
    /* One way in frames, half a frame waiting for the receiver's tick, one
     * for each end's frame (the frame lag's definition, p2p_input.c). */
    return rtt_ms / 2.0 * t->fps / 1000.0 + 1.5;
}

int timesync_delay_tick(tempo_timesync *t, double lag_floor)
{
    if (++t->delay_ticks < t->ad.window_frames)
        return t->delay;
    t->delay_ticks = 0;
    double worst = -1;
    for (int p = 0; p < TIMESYNC_MAX_PEERS; p++) {
        timesync_peer *x = &t->peer[p];
        if (x->live && x->lag_n > 0) {
            int n = x->lag_n < TIMESYNC_WINDOW_MAX ? x->lag_n : TIMESYNC_WINDOW_MAX;
            double lag = trimmed_mean(x->lags, n);
            if (lag > worst)
                worst = lag;
        }
        x->lag_n = 0;
    }
    if (worst < 0)
        return t->delay;
    if (worst < lag_floor)
        worst = lag_floor;
    /* Move only when two windows in a row want the same direction, and one
     * step at a time: the other side moves too, give it time. */
    int target = delay_for(t, t->delay, worst);
    int dir = (target > t->delay) - (target < t->delay);
    if (dir != 0 && dir == t->delay_want) {
        t->delay += dir;
        t->delay_want = 0; /* the next step needs two windows of its own */
    } else {
        t->delay_want = dir;
    }
    return t->delay;
}

/* ---- start-up -------------------------------------------------------------- */

uint64_t timesync_startup_wait(int n, int self, const uint64_t *heard_us, const double *owd_us,
                               uint64_t now_us)
{
    /* When each machine became ready, on our clock: heard minus the trip. */
    double ready[TEMPO_MAX_PLAYERS + 1];
    for (int i = 0; i < n; i++)
        ready[i] = (double)heard_us[i] - (i == self ? 0.0 : owd_us[i * n + self]);
    /* Machine k learns that everyone is ready when the last news reaches it. */
    double latest = (double)now_us;
    for (int k = 0; k < n; k++) {
        double learns = 0;
        for (int i = 0; i < n; i++) {
            double at = ready[i] + (i == k ? 0.0 : owd_us[i * n + k]);
            if (at > learns)
                learns = at;
        }
        if (learns > latest)
            latest = learns;
    }
    return (uint64_t)(latest - (double)now_us);
}
