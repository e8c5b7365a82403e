/* SPDX-License-Identifier: MIT */
/*
 * ticksync.c — the client's tick-sync controller (ticksync.h).
 *
 * What it steers: the earliness the server reports, not the lead itself.
 * An input for tick X reaches the server about half an RTT after the
 * client ran X, so an earliness of `margin` puts the client about half an
 * RTT plus the margin ahead of the server — the rule Overwatch-style
 * clients, Unity Netcode for Entities and Lightyear follow, here without
 * estimating the one-way time at all: the server measures the sum.
 *
 * The margin: min_margin + 2 x jitter (the link's jitter in ticks) + the
 * loss cover, clamped to [min_margin, max_margin]. Inputs go out every tick
 * and every datagram repeats the unacknowledged ones, so one lost datagram
 * delays an input by one tick; the loss cover is the longest run of losses
 * more likely than 1 in 100, in ticks (1 above 1% loss, 2 above 10%, 3
 * above 21.5%).
 *
 * Why a predictor. A report describes inputs sent D ticks earlier, D = RTT
 * in ticks + half a report interval (the server averages the inputs that
 * arrived since its last report). A proportional controller on the raw
 * reports, e[k+1] = e[k] - g e[k-D], converges without overshoot only for
 * g < D^D / (D+1)^(D+1), about 1 / (2.72 (D+1)): at 200 ms and 60 Hz
 * (D = 13) g < 0.026 per tick, a time constant of 0.6 s that grows with
 * every millisecond of RTT; and a snap of k would be seen again in every
 * report for D ticks and snapped again. Instead every report is corrected
 * by what the client did since (a Smith predictor, O. J. M. Smith, 1957):
 * the client keeps `applied`, the sum of its corrections in ticks of
 * earliness (-dilation for each tick run, +k for a snap of k), per tick for
 * the last CS_TICKSYNC_HISTORY ticks; a report arriving at tick t is stored
 * as report - applied(t - D), and the earliness now is estimated as the
 * mean of the stored reports + applied(now). On that estimate the loop has
 * no delay: e[k+1] = (1 - g) e[k], monotone for any 0 < g < 1.
 *
 * The numbers. g = 2 / fps per tick (a time constant of half a second, 30
 * ticks at 60 Hz): an error of 1 tick asks for 2.5% dilation (the first
 * quarter tick is the dead band), 1.75 ticks or more for the full 5%, which moves the earliness by
 * 0.05 x 60 = 3 ticks a second. Errors within DEAD_BAND (a quarter of a
 * tick) leave the dilation at 0; outside it the dilation grows from 0 at the
 * band's edge, so there is no step to chatter on. A clock that drifts by
 * 1000 ppm needs a steady dilation of 0.001 and leaves an error of
 * 0.25 + 0.001 / g = 0.28 ticks. Jitter of 10 ms (0.6 tick at 60 Hz) moves
 * a report of 3 inputs by about 0.35 tick, the mean of 8 reports by 0.12,
 * and the dilation by 0.4% at most.
 *
 * Snaps. A snap goes by the median of the newest 3 reports (each
 * predicted to now), not by the window's mean: a step such as a hitch shows
 * in full after two reports, while the mean would cross snap_ticks halfway
 * up its ramp and snap twice. And only when those 3 agree within 1 tick +
 * the jitter: a server that smooths its reports over many inputs turns a
 * step into a ramp, and a snap in the middle of it would take half the step
 * and leave the rest for a second snap. Beyond snap_ticks the controller
 * answers -round(error) ticks at once and forgets the reports it held (they
 * may describe a world the hitch changed). If D is misjudged by d ticks, a
 * correction is counted d ticks too early or too late; after a snap of k
 * that is an error of k for d ticks, so after a snap the controller holds
 * (no dilation, no snap) for D + window x report interval ticks, until the
 * reports it averages were sent after the snap.
 */
#include "cs/ticksync.h"

#include <string.h>

#define DEAD_BAND 0.25     /* ticks of error that ask for no dilation */
#define JITTER_FACTOR 2.0  /* margin per tick of jitter */
#define GAIN_SECONDS 0.5   /* time constant of the dilation loop */
#define SNAP_REPORTS 3     /* a snap goes by the median of this many newest reports */
#define LIMIT 1e6          /* measurements beyond this are not numbers we use */
#define BELIEVABLE_S 10.0  /* reports beyond this many seconds of ticks are ignored */

static double clampd(double v, double lo, double hi)
{
    if (!(v >= lo)) /* also NaN */
        return lo;
    return v > hi ? hi : v;
}

void cs_ticksync_config_default(cs_ticksync_config *cfg)
{
    cfg->frames_per_second = 60;
    cfg->max_dilation = 0.05;
    cfg->snap_ticks = 8.0;
    cfg->min_margin_ticks = 1.0;
    cfg->max_margin_ticks = 10.0;
    cfg->window = 8;
}

void cs_ticksync_init(cs_ticksync *ts, const cs_ticksync_config *cfg)
{
    memset(ts, 0, sizeof *ts);
    if (cfg != NULL)
        ts->cfg = *cfg;
    else
        cs_ticksync_config_default(&ts->cfg);
    cs_ticksync_config *c = &ts->cfg;
    c->frames_per_second = c->frames_per_second < 1 ? 1 : c->frames_per_second > 1000 ? 1000 : c->frames_per_second;
    c->max_dilation = clampd(c->max_dilation, 0.0, 0.25);
    c->snap_ticks = clampd(c->snap_ticks, 1.0, 1000.0);
    c->min_margin_ticks = clampd(c->min_margin_ticks, 0.0, 100.0);
    c->max_margin_ticks = clampd(c->max_margin_ticks, c->min_margin_ticks, 100.0);
    c->window = c->window < 1 ? 1 : c->window > CS_TICKSYNC_MAX_WINDOW ? CS_TICKSYNC_MAX_WINDOW : c->window;
    ts->margin = c->min_margin_ticks;
    ts->report_interval = 1.0;
}

/* Ticks between sending an input and a report that describes it arriving. */
static uint64_t visible_delay(const cs_ticksync *ts)
{
    double d = ts->rtt_ticks + ts->report_interval / 2 + 0.5;
    return d >= CS_TICKSYNC_HISTORY - 1 ? CS_TICKSYNC_HISTORY - 1 : (uint64_t)d;
}

void cs_ticksync_on_report(cs_ticksync *ts, double earliness_ticks)
{
    double most = BELIEVABLE_S * ts->cfg.frames_per_second;
    if (!(earliness_ticks >= -most && earliness_ticks <= most)) /* also NaN */
        return;
    if (ts->reports > 0)
        ts->report_interval += ((double)(ts->tick - ts->last_report_tick) - ts->report_interval) / 8;
    uint64_t d = visible_delay(ts);
    double then = ts->tick >= d ? ts->history[(ts->tick - d) % CS_TICKSYNC_HISTORY] : 0.0;
    ts->window[ts->next_slot] = earliness_ticks - then;
    ts->next_slot = (ts->next_slot + 1) % ts->cfg.window;
    if (ts->reports_held < ts->cfg.window)
        ts->reports_held++;
    ts->last_report = earliness_ticks;
    ts->last_report_tick = ts->tick;
    ts->reports++;
}

void cs_ticksync_on_link(cs_ticksync *ts, double rtt_ms, double jitter_ms, double loss)
{
    double fps = ts->cfg.frames_per_second;
    ts->rtt_ticks = clampd(rtt_ms, 0.0, LIMIT) * fps / 1000.0;
    ts->jitter_ticks = clampd(jitter_ms, 0.0, LIMIT) * fps / 1000.0;
    ts->loss = clampd(loss, 0.0, 1.0);
    /* runs of losses more likely than 1 in 100 (bounded: 0.95^90 < 0.01) */
    double p = ts->loss > 0.95 ? 0.95 : ts->loss, run = p;
    int cover = 0;
    while (run > 0.01) {
        cover++;
        run *= p;
    }
    const cs_ticksync_config *c = &ts->cfg;
    ts->margin = clampd(c->min_margin_ticks + JITTER_FACTOR * ts->jitter_ticks + cover,
                        c->min_margin_ticks, c->max_margin_ticks);
}

double cs_ticksync_predicted_error(const cs_ticksync *ts)
{
    if (ts->reports_held == 0)
        return 0.0;
    double sum = 0.0;
    for (int i = 0; i < ts->reports_held; i++)
        sum += ts->window[i];
    return sum / ts->reports_held + ts->applied - ts->margin;
}

/* The median of the newest three stored reports (fewer if fewer are held),
 * predicted to now, minus the margin: what a snap goes by; *spread is how
 * far apart they are. */
static double recent_error(const cs_ticksync *ts, double *spread)
{
    int n = ts->reports_held < SNAP_REPORTS ? ts->reports_held : SNAP_REPORTS, w = ts->cfg.window;
    double v[SNAP_REPORTS] = {0.0, 0.0, 0.0};
    for (int i = 0; i < n; i++)
        v[i] = ts->window[(ts->next_slot - 1 - i + w) % w];
    double lo = v[0], hi = v[0], m = v[0];
    for (int i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    if (n == 2)
        m = (v[0] + v[1]) / 2;
    else if (n == 3)
        m = v[0] + v[1] + v[2] - lo - hi;
    *spread = hi - lo;
    return m + ts->applied - ts->margin;
}

int cs_ticksync_update(cs_ticksync *ts)
{
    const cs_ticksync_config *c = &ts->cfg;
    /* the tick since the last update ran with the dilation set then */
    ts->applied -= ts->dilation;
    ts->tick++;
    ts->dilation = 0.0;
    int snap = 0;
    int needed = c->window < SNAP_REPORTS ? c->window : SNAP_REPORTS;
    if (ts->reports_held >= needed && ts->tick >= ts->hold_until) {
        double spread, r = recent_error(ts, &spread), e = cs_ticksync_predicted_error(ts);
        if ((r > c->snap_ticks || r < -c->snap_ticks) && spread <= 1.0 + ts->jitter_ticks) {
            snap = (int)(r < 0 ? -r + 0.5 : -(r + 0.5)); /* -round(r); |r| is about 10 s of ticks at most */
            ts->applied += snap;
            ts->snaps++;
            /* reports from before the snap may describe a world it has changed */
            ts->reports_held = 0;
            ts->next_slot = 0;
            ts->hold_until = ts->tick + visible_delay(ts) + (uint64_t)(c->window * ts->report_interval) + 1;
        } else if (e > DEAD_BAND || e < -DEAD_BAND) {
            double g = 1.0 / (GAIN_SECONDS * c->frames_per_second);
            double over = e > 0 ? e - DEAD_BAND : e + DEAD_BAND;
            ts->dilation = clampd(g * over, -c->max_dilation, c->max_dilation);
        }
    }
    ts->history[ts->tick % CS_TICKSYNC_HISTORY] = ts->applied;
    return snap;
}

double cs_ticksync_dilation(const cs_ticksync *ts) { return ts->dilation; }

uint64_t cs_ticksync_tick_us(const cs_ticksync *ts)
{
    return (uint64_t)(1e6 / ts->cfg.frames_per_second * (1.0 + ts->dilation) + 0.5);
}

double cs_ticksync_margin(const cs_ticksync *ts) { return ts->margin; }

double cs_ticksync_error(const cs_ticksync *ts)
{
    return ts->reports > 0 ? ts->last_report - ts->margin : 0.0;
}

uint64_t cs_ticksync_snaps(const cs_ticksync *ts) { return ts->snaps; }
