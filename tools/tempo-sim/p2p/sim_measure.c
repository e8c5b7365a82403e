/* SPDX-License-Identifier: MIT */
/*
 * sim_measure.c — what tempo-sim measures of a match, from outside the
 * library wherever it can: from the ticks and requests the sessions hand
 * the game, the frames every machine is on at each virtual instant, and the
 * bytes they hand the network. The library's own estimates (frame
 * advantage, RTT, desync checks) are recorded beside, never instead.
 *
 * Invariants: counters cover the match part only (m->m.end_vt == 0), except
 * desync events, which the drain may still raise; the true frame skew is an
 * exact time integral (frames are constant between events), not a sample.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "sim_match.h"

static bool measuring(const sim_machine *m) { return m->m.end_vt == 0 && !m->dead; }

void sim_measure_init(sim_machine *m)
{
    memset(&m->m, 0, sizeof m->m);
    m->m.first_desync_frame = -1;
    m->m.last_delay = -1;
    for (int i = 0; i < SIM_MISPREDICT_RING; i++)
        m->ring[i].frame = -1;
}

/* ---- true frame skew ------------------------------------------------------------ */

void sim_measure_advance(sim_match *mt, uint64_t vt)
{
    if (vt <= mt->vt)
        return;
    uint64_t from = mt->vt > mt->warm_vt ? mt->vt : mt->warm_vt;
    if (mt->in_match && mt->warm_vt != UINT64_MAX && vt > from) {
        double dt = (double)(vt - from);
        int live[SIM_MAX_MACHINES], n = 0;
        for (int i = 0; i < mt->npeers; i++)
            if (!mt->mach[i]->dead)
                live[n++] = i;
        /* Each peer's mean |own frame - other's frame| over the others. */
        for (int a = 0; a < n && n > 1; a++) {
            sim_machine *m = mt->mach[live[a]];
            int64_t sum = 0;
            for (int b = 0; b < n; b++) {
                int64_t d = (int64_t)m->frame - mt->mach[live[b]]->frame;
                sum += d < 0 ? -d : d;
            }
            m->m.skew_integral += (double)sum / (double)(n - 1) * dt;
            m->m.skew_time += dt;
        }
    }
    mt->vt = vt;
}

/* ---- ticks and requests --------------------------------------------------------- */

/* A frame leaving the ring is final: count the players whose input in its
 * first execution differs from the one it was last executed with. */
static void settle(sim_machine *m, sim_mispredict_slot *slot, int num_players)
{
    if (slot->frame >= 0 && slot->resimulated && slot->frame < m->sums_len)
        for (int p = 0; p < num_players; p++)
            if (memcmp(slot->first + p * ARENA_INPUT_SIZE, slot->last + p * ARENA_INPUT_SIZE,
                       ARENA_INPUT_SIZE) != 0)
                m->m.mispredicted_frames++;
    slot->frame = -1;
}

void sim_measure_advance_request(sim_machine *m, const tempo_request *r, int num_players)
{
    size_t bytes = (size_t)num_players * ARENA_INPUT_SIZE;
    sim_mispredict_slot *slot = &m->ring[r->frame % SIM_MISPREDICT_RING];
    if (slot->frame != r->frame) {
        settle(m, slot, num_players);
        slot->frame = r->frame;
        slot->resimulated = false;
        memcpy(slot->first, r->inputs, bytes);
    } else {
        slot->resimulated = true;
    }
    memcpy(slot->last, r->inputs, bytes);
    if (r->resimulating && measuring(m))
        m->m.resim_frames++;
}

void sim_measure_tick(sim_match *mt, sim_machine *m, const tempo_tick *tick)
{
    if (!measuring(m))
        return;
    sim_measure *mm = &m->m;
    mm->ticks++;
    if (tick->status == TEMPO_TICK_SYNCHRONIZING)
        return;
    mm->running_ticks++;
    if (tick->rollback_depth > 0) {
        mm->rollbacks++;
        mm->rollback_depth_sum += (uint64_t)tick->rollback_depth;
        if (tick->rollback_depth > mm->max_rollback_depth)
            mm->max_rollback_depth = tick->rollback_depth;
        if (mt->tl)
            mt->tl->depth_hist[m->index][tick->rollback_depth < SIM_MAX_DEPTH
                                             ? tick->rollback_depth : SIM_MAX_DEPTH - 1]++;
    }
    if (tick->status == TEMPO_TICK_STALLED)
        mm->stall_ticks++;
    else if (tick->status == TEMPO_TICK_WAITING)
        mm->waiting_ticks++;
    mm->delay_sum += m->delay > 0 ? m->delay : 0;
    /* A delay change is a marker: a 0.25 s sample could hide a short one. */
    if (m->num_local > 0 && mm->last_delay >= 0 && m->delay != mm->last_delay && mt->tl) {
        char label[48];
        snprintf(label, sizeof label, "now %d frames", m->delay);
        sim_timeline_mark(mt->tl, (double)mt->vt / 1e6, SIM_MARK_INPUT_DELAY, m->index, label);
    }
    mm->last_delay = m->delay;

    tempo_session_stats st;
    tempo_session_get_stats(m->s, &st);
    if (mt->warm_vt != UINT64_MAX && mt->vt >= mt->warm_vt && !m->spectator) {
        mm->advantage_sum += st.frame_advantage;
        mm->advantage_n++;
    }
    if (mt->tl)
        for (uint64_t k = m->lib_checks; k < st.desync_checks; k++)
            sim_timeline_mark(mt->tl, (double)mt->vt / 1e6, SIM_MARK_DESYNC_CHECK, m->index, NULL);
    m->lib_checks = st.desync_checks;
}

/* ---- events ----------------------------------------------------------------------- */

/* How many of m's comparisons of state `frame` disagreed: the library raises
 * one event per frame however many peers differ, so count the peers whose
 * recorded state differs (they are final: both sides confirmed it). */
static uint64_t failed_comparisons(const sim_match *mt, const sim_machine *m, int32_t frame)
{
    if (frame < 1 || frame > m->sums_len)
        return 1;
    uint64_t n = 0;
    for (int i = 0; i < mt->nmach; i++) {
        const sim_machine *o = mt->mach[i];
        bool compared = m->spectator ? i == m->host : (i != m->index && !o->spectator);
        if (compared && o->sums[frame - 1] != m->sums[frame - 1])
            n++;
    }
    return n > 0 ? n : 1;
}

void sim_measure_event(sim_match *mt, sim_machine *m, const tempo_event *ev)
{
    char label[48];
    switch (ev->kind) {
    case TEMPO_EVENT_RUNNING:
        m->running = true;
        if (mt->warm_vt == UINT64_MAX)
            mt->warm_vt = mt->vt + SIM_WARMUP_US;
        break;
    case TEMPO_EVENT_DESYNC:
        m->m.desync_events++;
        m->m.failed_checks += failed_comparisons(mt, m, ev->u.desync.frame);
        if (m->m.first_desync_frame < 0) {
            m->m.first_desync_frame = ev->u.desync.frame;
            snprintf(label, sizeof label, "at frame %" PRId32, ev->u.desync.frame);
            if (mt->tl)
                sim_timeline_mark(mt->tl, (double)mt->vt / 1e6, SIM_MARK_DESYNC, m->index, label);
        }
        break;
    case TEMPO_EVENT_DESYNC_DIFF:
        if (m->m.diff_line[0] == '\0' && ev->u.diff.status == TEMPO_DIFF_DONE && ev->u.diff.num_ranges > 0)
            (void)tempo_session_desync_diff_line(m->s, 0, m->m.diff_line, sizeof m->m.diff_line);
        break;
    default:
        break;
    }
}

/* ---- timeline samples ----------------------------------------------------------------- */

/* What `from` measures of the link to `to`; false if there is no such link
 * or it is not up. */
static bool link_stats(const sim_machine *from, const sim_machine *to, tempo_endpoint_stats *es)
{
    tempo_result r;
    if (from->spectator)
        r = to->index == from->host ? tempo_session_get_spectator_stats(from->s, 0, es) : TEMPO_E_PLAYER;
    else if (to->spectator)
        r = from->index == to->host ? tempo_session_get_spectator_stats(from->s, to->host_slot, es)
                                    : TEMPO_E_PLAYER;
    else
        r = tempo_session_get_endpoint_stats(from->s, to->first_player, es);
    return r == TEMPO_OK && es->synchronized && !es->disconnected;
}

/* Whether the step changed the link between a and b. */
static bool step_pair(const sim_link_override *st, int a, int b)
{
    return a != b && ((a == st->a && (st->b < 0 || b == st->b)) || (b == st->a && (st->b < 0 || a == st->b)));
}

/* The network's round trip after the step, and the change it made. */
static double step_network_ms(const sim_link_override *st)
{
    return 2.0 * (double)st->params.latency_us / 1000.0; /* the same latency both ways */
}

/* The round trip the pair's estimate should reach: what it read just
 * before the step, moved by the network's change. A session's round trip
 * holds, besides the network's, each end's wait until its next tick (up
 * to a frame each); the step does not change that share. Unmeasured
 * before: the network's. */
static double step_target_ms(const sim_match *mt, int a, int b)
{
    double before = mt->step_before_ms[a][b];
    double now = step_network_ms(&mt->step);
    return before > 0 ? before + (now - mt->step_old_ms) : now;
}

void sim_measure_step(sim_match *mt, const sim_machine *m)
{
    if (!mt->has_step || m->dead || !mt->in_match)
        return;
    for (int b = 0; b < mt->nmach; b++) {
        tempo_endpoint_stats es;
        if (!step_pair(&mt->step, m->index, b) || mt->mach[b]->dead || !link_stats(m, mt->mach[b], &es))
            continue;
        if (mt->vt < mt->step.from_us) {
            mt->step_before_ms[m->index][b] = es.rtt_ms; /* the latest before the step */
            continue;
        }
        double target = step_target_ms(mt, m->index, b);
        if (fabs(es.rtt_ms - target) > 0.1 * target) {
            mt->step_out_vt[m->index][b] = mt->vt;
            mt->step_in_vt[m->index][b] = 0;
        } else if (mt->step_in_vt[m->index][b] == 0) {
            mt->step_in_vt[m->index][b] = mt->vt;
        }
    }
}

/* The step's figures (sim_result): the slowest pair decides. */
static void step_finish(const sim_match *mt, sim_result *out)
{
    out->has_step = mt->has_step;
    if (!mt->has_step)
        return;
    out->step_network_ms = step_network_ms(&mt->step);
    out->step_old_ms = mt->step_old_ms;
    double before = 0, target = 0, jitter = 0, rttvar = 0, settle = 0;
    int n = 0;
    for (int a = 0; a < mt->nmach; a++)
        for (int b = 0; b < mt->nmach; b++) {
            tempo_endpoint_stats es;
            if (!step_pair(&mt->step, a, b) || mt->mach[a]->dead || mt->mach[b]->dead)
                continue;
            n++;
            before += mt->step_before_ms[a][b];
            target += step_target_ms(mt, a, b);
            if (link_stats(mt->mach[a], mt->mach[b], &es)) {
                jitter += es.arrival_jitter_ms;
                rttvar += es.jitter_ms;
            }
            uint64_t in = mt->step_in_vt[a][b];
            double t = in == 0 ? NAN : (double)(in - mt->step.from_us) / 1000.0;
            settle = isnan(settle) || isnan(t) ? NAN : fmax(settle, t);
        }
    out->step_before_ms = sim_mean(before, (uint64_t)n, NAN);
    out->step_target_ms = sim_mean(target, (uint64_t)n, NAN);
    out->step_arrival_jitter_ms = sim_mean(jitter, (uint64_t)n, NAN);
    out->step_rttvar_ms = sim_mean(rttvar, (uint64_t)n, NAN);
    out->step_jitter_truth_ms = 2.0 * (double)mt->step.params.jitter_us / 1000.0 / sqrt(3.14159265358979);
    out->step_settle_ms = n > 0 ? settle : NAN;
}

static float rate(const sim_match *mt, uint64_t now, uint64_t *prev)
{
    float v = (float)((double)(now - *prev) * 1e6 / (double)mt->sample_us);
    *prev = now;
    return v;
}

void sim_measure_sample(sim_match *mt)
{
    sim_timeline *tl = mt->tl;
    int i = tl && tl->count < tl->capacity ? tl->count : -1;
    for (int a = 0; a < mt->nmach; a++) {
        sim_machine *m = mt->mach[a];
        if (m->dead)
            continue;
        for (int b = 0; b < mt->nmach; b++) {
            tempo_endpoint_stats es;
            if (b == a || mt->mach[b]->dead || !link_stats(m, mt->mach[b], &es))
                continue;
            if (es.rtt_ms > 0) {
                m->m.rtt_sum += es.rtt_ms;
                m->m.rtt_n++;
                m->m.pair_rtt_sum[b] += es.rtt_ms;
                m->m.pair_rtt_n[b]++;
            }
            if (i >= 0) {
                tl->rtt_ms[a][b][i] = (float)es.rtt_ms;
                tl->loss[a][b][i] = (float)es.loss;
            }
        }
        if (i < 0)
            continue;
        sim_peer_series *s = &tl->peer[a];
        double dt = m->m.skew_time - m->prev_skew_time;
        if (dt > 0)
            s->frame_skew[i] = (float)((m->m.skew_integral - m->prev_skew_integral) / dt);
        m->prev_skew_time = m->m.skew_time;
        m->prev_skew_integral = m->m.skew_integral;
        s->rollbacks_per_s[i] = rate(mt, m->m.rollbacks, &m->prev_rollbacks);
        s->stalls_per_s[i] = rate(mt, m->m.stall_ticks, &m->prev_stalls);
        s->payload_bytes_per_s[i] = rate(mt, m->m.bytes_sent, &m->prev_bytes);
        if (m->running && !m->spectator) {
            tempo_session_stats st;
            tempo_session_get_stats(m->s, &st);
            s->input_delay[i] = (float)m->delay;
            s->frame_advantage[i] = (float)st.frame_advantage;
        }
    }
    if (i >= 0)
        tl->count++;
}

static void settle_all(sim_machine *m, int num_players)
{
    for (int k = 0; k < SIM_MISPREDICT_RING; k++)
        settle(m, &m->ring[k], num_players);
}

/* ---- desync checks made and expected ------------------------------------------------ */

/* The newest frame whose check m can have made: its state is confirmed (a
 * spectator: played) and was saved on the way through, which happens when
 * the frame is simulated, so the current frame's state is not yet checked. */
static int32_t checked_end(const sim_machine *m)
{
    int32_t c = tempo_session_confirmed_frame(m->s);
    return m->frame - 1 < c ? m->frame - 1 : c;
}

static bool partners(const sim_machine *m, const sim_machine *o)
{
    return m->spectator ? o->index == m->host : o != m && !o->spectator;
}

int64_t sim_measure_expected_checks(const sim_match *mt, int i)
{
    const sim_machine *m = mt->mach[i];
    int interval = mt->o->desync_interval;
    if (interval <= 0 || m->dead || m->cut_off)
        return -1;
    int64_t n = 0;
    if (mt->relay) { /* the relay compares every member's checksums: one partner */
        int32_t last = checked_end(m);
        for (int k = 0; k < mt->npeers; k++)
            if (!mt->mach[k]->dead && checked_end(mt->mach[k]) < last)
                last = checked_end(mt->mach[k]);
        return (last < mt->o->frames ? last : mt->o->frames) / interval;
    }
    for (int k = 0; k < mt->nmach; k++) {
        const sim_machine *o = mt->mach[k];
        if (!partners(m, o))
            continue;
        tempo_endpoint_stats es;
        if (o->dead || o->cut_off || !link_stats(m, o, &es) || !link_stats(o, m, &es))
            return -1; /* a partner gone or cut away: what was owed is unknowable */
        /* the match's frames only: the drain plays on, and its newest
         * checks are always in flight */
        int32_t a = checked_end(m), b = checked_end(o), end = mt->o->frames;
        int32_t last = a < b ? a : b;
        n += (last < end ? last : end) / interval;
    }
    return n;
}

bool sim_measure_checks_settled(const sim_match *mt)
{
    for (int i = 0; i < mt->nmach; i++) {
        int64_t want = sim_measure_expected_checks(mt, i);
        tempo_session_stats st;
        tempo_session_get_stats(mt->mach[i]->s, &st);
        if (want >= 0 && (int64_t)(st.desync_checks + st.desync_checks_missed) < want)
            return false;
    }
    return true;
}

/* ---- results ----------------------------------------------------------------------------- */

void sim_measure_finish(sim_match *mt, sim_result *out)
{
    step_finish(mt, out);
    for (int i = 0; i < mt->nmach; i++) {
        sim_machine *m = mt->mach[i];
        sim_peer_result *p = &out->peer[i];
        const sim_measure *mm = &m->m;
        settle_all(m, mt->o->players);
        tempo_session_stats st;
        tempo_session_get_stats(m->s, &st);
        p->spectator = m->spectator;
        p->dropped = m->dead;
        p->cut_off = m->cut_off;
        p->longest_wait_s = (double)m->longest_wait_us / 1e6;
        p->players = m->num_local;
        p->final_frame = m->frame;
        p->confirmed_frame = tempo_session_confirmed_frame(m->s);
        p->rollbacks = mm->rollbacks;
        p->resim_frames = mm->resim_frames;
        p->stall_ticks = mm->stall_ticks;
        p->waiting_ticks = mm->waiting_ticks;
        p->timesync_stalls = st.timesync_stalls;
        p->max_rollback_depth = mm->max_rollback_depth;
        p->rollback_depth_mean = sim_mean((double)mm->rollback_depth_sum, mm->rollbacks, 0.0);
        p->mispredicted_frames = mm->mispredicted_frames;
        p->lib_mispredicted_frames = st.mispredicted_frames;
        p->input_delay_final = m->delay > 0 ? m->delay : 0;
        p->input_delay_mean = sim_mean(mm->delay_sum, mm->running_ticks, 0.0);
        p->rtt_ms_mean = sim_mean(mm->rtt_sum, mm->rtt_n, NAN);
        for (int b = 0; b < SIM_MAX_MACHINES; b++)
            p->pair_rtt_ms[b] = sim_mean(mm->pair_rtt_sum[b], mm->pair_rtt_n[b], NAN);
        p->bytes_sent = mm->bytes_sent;
        p->packets_sent = mm->packets_sent;
        uint64_t end = mm->end_vt ? mm->end_vt : mt->vt;
        p->match_seconds = end > m->clock.start_us ? (double)(end - m->clock.start_us) / 1e6 : 0.0;
        p->payload_bytes_per_s = sim_per_s((double)mm->bytes_sent, p->match_seconds);
        p->payload_in_bytes_per_s = sim_per_s((double)mm->bytes_received, p->match_seconds);
        p->frame_skew_abs_mean = m->spectator || mm->skew_time <= 0 ? NAN : mm->skew_integral / mm->skew_time;
        p->frame_advantage_mean = sim_mean(mm->advantage_sum, mm->advantage_n, NAN);
        p->desync_checks = st.desync_checks;
        p->desync_checks_passed = st.desync_checks > mm->failed_checks ? st.desync_checks - mm->failed_checks : 0;
        p->desync_checks_expected = sim_measure_expected_checks(mt, i);
        p->desync_checks_missed = st.desync_checks_missed;
        if (p->desync_checks_expected >= 0) {
            out->checks_made += st.desync_checks;
            out->checks_expected += (uint64_t)p->desync_checks_expected;
        }
        p->desyncs = mm->desync_events;
        p->first_desync_frame = mm->first_desync_frame;
        memcpy(p->diff_line, mm->diff_line, sizeof p->diff_line);
        p->startup_delay_ms = st.startup_delay_ms;
        out->desyncs += mm->desync_events;
    }

}
