/* SPDX-License-Identifier: MIT */
/*
 * spectator.c — the spectator backend: a network session with one peer,
 * the host, which sends every player's confirmed inputs. It declares every
 * player remote at that peer, never predicts (the engine runs with
 * max_prediction 0) and plays spectator_lead_frames behind what it holds,
 * catching up at most spectator_catchup_frames per tick.
 *
 * The peer machinery (handshake, receiving, acknowledging inputs and
 * checksums, liveness) is the one p2p sessions use (p2p.c, p2p_packets.c,
 * p2p_liveness.c, p2p_input.c, p2p_agree.c); there the host's role (P2P_ROLE_HOST) and the `spectating`
 * flag select what a spectator sends (acks only) and skips (time sync,
 * relays, the drop agreement: the host's word on drops is final).
 */
#include <string.h>

#include "p2p/network.h"

static tempo_result spectator_create(const session_host *host, const session_args *args, void **out)
{
    tempo_p2p *n;
    tempo_result r = p2p_open(host, args, &n);
    *out = n;
    if (r != TEMPO_OK)
        return r;
    n->spectating = true;
    uint32_t all = (1u << n->cfg->num_players) - 1u;
    p2p_peer_init(&n->peers[0], args->host_addr, P2P_ROLE_HOST, all);
    n->npeers = 1;
    for (int p = 0; p < n->cfg->num_players; p++) {
        n->player_peer[p] = 0;
        sync_set_player(n->sync, p, SYNC_REMOTE);
    }
    return p2p_rejoin_open(n); /* cfg.rejoin: it joins a running match late */
}

/* The frames to play this tick: none until the jitter buffer holds
 * spectator_lead_frames, then one a tick, more (bounded) when behind. */
static int spectator_frames(const tempo_p2p *n)
{
    int32_t c = sync_confirmed(n->sync);
    int64_t avail = (c == IQ_NO_FRAME ? (int64_t)n->sync->frame + 64 : (int64_t)c) - n->sync->frame;
    int lead = n->cfg->spectator_lead_frames;
    if (n->sync->frame == 0 && avail <= lead)
        return 0; /* fill the jitter buffer first */
    if (avail <= 0)
        return 0;
    if (avail > lead)
        return (int)(avail - lead < n->cfg->spectator_catchup_frames ? avail - lead
                                                                     : n->cfg->spectator_catchup_frames);
    return 1;
}

/* A tick with nothing to play is WAITING (for the host), not a stall. */
static tempo_result spectator_advance(void *b, tempo_tick *tick)
{
    tempo_p2p *n = b;
    tempo_result r;
    if (!p2p_tick_opens(n, tick, &r))
        return r;
    int want = spectator_frames(n);
    sync_plan_opts o;
    memset(&o, 0, sizeof o);
    o.frames_wanted = want;
    o.stall = want == 0;
    r = sync_plan(n->sync, &o, tick);
    n->host->planned(n->host->ctx, tick);
    if (want == 0 && tick->status == TEMPO_TICK_STALLED)
        tick->status = TEMPO_TICK_WAITING;
    p2p_tick_closes(n);
    return r;
}

/* Its one peer, the host, is index 0. */
static tempo_result spectator_host_stats(const void *b, int index, tempo_endpoint_stats *out)
{
    const tempo_p2p *n = b;
    if (index != 0)
        return TEMPO_E_PLAYER;
    p2p_peer_stats(&n->peers[0], out);
    return TEMPO_OK;
}

static const session_backend_ops spectator_ops = {
    .external_load = true,
    .confirmed_only = true,
    .create = spectator_create,
    .destroy = p2p_destroy,
    .poll = p2p_poll,
    .will_stall = p2p_will_stall,
    .advance = spectator_advance,
    .leave = p2p_leave,
    .state = p2p_state,
    .stats = p2p_stats,
    .endpoint_stats = p2p_player_stats,
    .spectator_stats = spectator_host_stats,
    .rejoin_state = p2p_rejoin_state,
};

tempo_result tempo_session_create_spectator(const tempo_config *cfg,
                                            const tempo_transport *transport,
                                            const tempo_address *host, tempo_session **out)
{
    if (!session_network_args_ok(cfg, transport) || !host || host->family == TEMPO_ADDRESS_NONE) {
        if (out)
            *out = NULL;
        return TEMPO_E_INVALID_ARG;
    }
    session_args args = {transport, host, NULL, NULL};
    return session_create(cfg, &spectator_ops, 0, &args, out);
}
