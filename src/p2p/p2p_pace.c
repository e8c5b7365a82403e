/* SPDX-License-Identifier: MIT */
/*
 * p2p_pace.c — when frames run: the start (every peer ready, held back by
 * the start-up delay so every machine starts at about the moment the last
 * one learns everyone is ready), time sync fed after each tick, GGPO's
 * quality reports, and the automatic input delay.
 */
#include "p2p/network.h"

#include <string.h>

/* Half the round trip between machines i and k (index npeers = us), in us:
 * ours from our own measurement, theirs from what they announced. */
static double owd_between(const tempo_p2p *n, int i, int k)
{
    if (i == k)
        return 0;
    if (i == n->npeers || k == n->npeers) {
        const p2p_peer *e = &n->peers[i == n->npeers ? k : i];
        return (double)link_rtt_us(&e->link) / 2.0;
    }
    const p2p_peer *a = &n->peers[i], *b = &n->peers[k];
    int pa = p2p_first_player(a->players), pb = p2p_first_player(b->players);
    double sum = 0;
    int count = 0;
    if (pb >= 0 && a->link.hs.mesh_ms[pb] != LINK_MESH_UNKNOWN)
        sum += a->link.hs.mesh_ms[pb], count++;
    if (pa >= 0 && b->link.hs.mesh_ms[pa] != LINK_MESH_UNKNOWN)
        sum += b->link.hs.mesh_ms[pa], count++;
    return count ? sum / count * 1000.0 / 2.0 : 0.0;
}

static double worst_rtt_ms(const tempo_p2p *n)
{
    double worst = 0;
    for (int i = 0; i < n->npeers; i++)
        if (!p2p_lost(&n->peers[i]) && (double)link_rtt_us(&n->peers[i].link) / 1000.0 > worst)
            worst = (double)link_rtt_us(&n->peers[i].link) / 1000.0;
    return worst;
}

static void input_delay_event(tempo_p2p *n, int frames)
{
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TEMPO_EVENT_INPUT_DELAY;
    ev.player = -1;
    ev.u.input_delay.frames = frames;
    p2p_push_event(n, &ev);
}

void p2p_start_running(tempo_p2p *n)
{
    n->running = true;
    for (int i = 0; i < n->npeers && !n->spectating; i++) /* nothing left to announce */
        link_handshake_announce(&n->peers[i].link, false);
    if (!n->spectating && n->cfg->auto_delay.enabled) {
        int d = timesync_initial_delay(&n->ts, worst_rtt_ms(n));
        for (int p = 0; p < n->cfg->num_players; p++)
            if (n->local_mask & (1u << p))
                sync_set_delay(n->sync, p, d);
        input_delay_event(n, d); /* the first value, even if it is 0 */
    }
    p2p_event(n, TEMPO_EVENT_RUNNING, -1);
}

/* Frames run once every peer is ready (synchronized with everyone), held
 * back by the start-up delay so that every machine starts at about the
 * moment the last one learns that everyone is ready. */
void p2p_check_running(tempo_p2p *n)
{
    if (n->running)
        return;
    if (p2p_rejoin_waiting(n)) /* a rejoining machine runs once its state came */
        return;
    if (n->spectating) {
        if (p2p_synced(&n->peers[0]))
            p2p_start_running(n);
        return;
    }
    if (!n->ready) {
        for (int i = 0; i < n->npeers; i++)
            if (!p2p_synced(&n->peers[i]) && !p2p_lost(&n->peers[i]))
                return;
        n->ready = true;
        n->ready_us = n->clock->now_us;
        for (int i = 0; i < n->npeers; i++) /* announce it at once */
            link_handshake_resend_now(&n->peers[i].link);
    }
    if (!n->run_scheduled) {
        for (int i = 0; i < n->npeers; i++)
            if (!n->peers[i].link.hs.remote_ready && !p2p_lost(&n->peers[i]))
                return;
        uint64_t wait = 0;
        if (n->cfg->timesync.startup_delay && n->npeers > 0) {
            int m = n->npeers + 1;
            uint64_t heard[P2P_MAX_PEERS + 1];
            double owd[(P2P_MAX_PEERS + 1) * (P2P_MAX_PEERS + 1)];
            for (int i = 0; i < n->npeers; i++)
                heard[i] = p2p_lost(&n->peers[i]) ? n->ready_us : n->peers[i].link.hs.ready_heard_us;
            heard[n->npeers] = n->ready_us;
            for (int i = 0; i < m; i++)
                for (int k = 0; k < m; k++)
                    owd[i * m + k] = owd_between(n, i, k);
            wait = timesync_startup_wait(m, n->npeers, heard, owd, n->clock->now_us);
            if (wait > 2000000u) /* never hold a match back for long on bad data */
                wait = 2000000u;
        }
        n->run_scheduled = true;
        n->run_at_us = n->clock->now_us + wait;
        n->startup_delay_ms = (uint32_t)(wait / 1000u);
    }
    if (n->clock->now_us >= n->run_at_us)
        p2p_start_running(n);
}

/* GGPO's quality reports: our advantage estimate, once a second. */
static double ggpo_local_advantage(const tempo_p2p *n, const p2p_peer *e)
{
    double owd_frames = (double)link_rtt_us(&e->link) / 2.0 * n->cfg->frames_per_second / 1e6;
    return (double)e->remote_frame + owd_frames - (double)n->sync->frame;
}

void p2p_send_quality(tempo_p2p *n)
{
    if (n->cfg->timesync.method != TEMPO_TIMESYNC_GGPO || n->spectating || n->clock->now_us < n->next_quality_us)
        return;
    n->next_quality_us = n->clock->now_us + 1000000u;
    for (int i = 0; i < n->npeers; i++) {
        p2p_peer *e = &n->peers[i];
        if (p2p_lost(e) || !p2p_synced(e))
            continue;
        double adv = ggpo_local_advantage(n, e) * 256.0;
        n->msg.type = TEMPO_MSG_QUALITY;
        n->msg.u.quality.advantage_q8 = (int16_t)(adv > 32767 ? 32767 : adv < -32768 ? -32768 : adv);
        p2p_send(n, e, &n->msg, NULL);
    }
}

int p2p_local_delay(const tempo_p2p *n)
{
    int d = 0;
    for (int p = 0; p < n->cfg->num_players; p++)
        if ((n->local_mask & (1u << p)) && n->sync->delay[p] > d)
            d = n->sync->delay[p];
    return d;
}

/* After each planned tick: feed the lags of every live peer to time sync
 * and let the automatic input delay move. */
void p2p_timesync_after_tick(tempo_p2p *n)
{
    if (n->spectating)
        return;
    for (int i = 0; i < n->npeers; i++) {
        const p2p_peer *e = &n->peers[i];
        if (p2p_lost(e) || !p2p_synced(e) || !e->link.heard)
            continue;
        double local_lag = (double)n->sync->frame - (double)e->remote_frame;
        timesync_on_local(&n->ts, i, local_lag, ggpo_local_advantage(n, e));
        if (link_has_rtt(&e->link))
            timesync_on_rtt(&n->ts, i, (double)link_rtt_us(&e->link) / 1000.0);
    }
    if (!n->cfg->auto_delay.enabled)
        return;
    int before = p2p_local_delay(n);
    /* Lockstep: everyone waits for everyone, so the frame lag stays small
     * whatever the latency; the round trip sets the floor. */
    double floor = n->cfg->max_prediction == 0 ? timesync_rtt_lag(&n->ts, worst_rtt_ms(n)) : 0.0;
    int d = timesync_delay_tick(&n->ts, floor);
    if (d == before)
        return;
    for (int p = 0; p < n->cfg->num_players; p++)
        if (n->local_mask & (1u << p))
            sync_set_delay(n->sync, p, d);
    input_delay_event(n, d);
}

