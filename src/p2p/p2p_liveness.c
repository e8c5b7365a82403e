/* SPDX-License-Identifier: MIT */
/*
 * p2p_liveness.c — each remote machine's link serviced every poll (its
 * handshake's requests, its liveness events as the game sees them, pings),
 * and what losing a machine means: its players dropped by agreement, or a
 * spectator's host gone.
 */
#include "p2p/network.h"

#include <string.h>

/* What losing e means once its link is closed: its players are dropped (by
 * agreement), or a spectator's host is gone. */
static void peer_lost(tempo_p2p *n, p2p_peer *e, uint8_t how)
{
    bool is_peer = e >= n->peers && e < n->peers + P2P_MAX_PEERS;
    e->lost_how = how;
    e->lost_at_us = n->clock->now_us;
    /* Nothing more goes to it or comes from it; a peer machine's keys stay
     * while it may come back, to tell its earlier life it was dropped
     * (p2p_dropped.c): rejoin wipes them when its window ends. */
    if (!is_peer || e->role != P2P_ROLE_PEER || !n->rejoin.serving)
        seal_keys_wipe(&e->keys);
    if (is_peer) { /* its checksums are moot; it may come back */
        p2p_forget_sums(n, (int)(e - n->peers));
        p2p_rejoin_on_lost(n, (int)(e - n->peers));
    }
    if (e->role == P2P_ROLE_PEER && is_peer)
        timesync_peer_lost(&n->ts, (int)(e - n->peers));
    if (e->role == P2P_ROLE_PEER && p2p_rejoin_never_back(n, e)) {
        /* a revived link that never brought its machine back: its players
         * stay dropped as agreed, the survivors are the same */
    } else if (e->role == P2P_ROLE_PEER) {
        p2p_restart_drops(n); /* the survivors changed: agree again */
        for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
            if (e->players & (1u << p))
                p2p_begin_drop(n, p);
        p2p_dropped_check(n); /* everyone gone: were we the one dropped? */
    } else {
        tempo_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = TEMPO_EVENT_DISCONNECTED;
        ev.player = -1;
        ev.u.disconnected.frame = n->sync->frame;
        p2p_push_event(n, &ev);
    }
}

void p2p_lose_peer_as(tempo_p2p *n, p2p_peer *e, uint8_t how)
{
    if (p2p_lost(e))
        return;
    link_close(&e->link);
    peer_lost(n, e, how);
}

void p2p_lose_peer(tempo_p2p *n, p2p_peer *e)
{
    p2p_lose_peer_as(n, e, P2P_LOST_DROPPED);
}

/* The link's liveness events, as the game sees them. */
static void liveness(tempo_p2p *n, p2p_peer *e, unsigned ev_bits)
{
    int player = p2p_first_player(e->players);
    if (ev_bits & LINK_EV_HANDSHAKE_FAILED) { /* the link closed: nothing more goes to it */
        p2p_event(n, TEMPO_EVENT_HANDSHAKE_FAILED, player);
        peer_lost(n, e, P2P_LOST_TIMEOUT);
        return;
    }
    if (ev_bits & LINK_EV_RESUMED)
        p2p_event(n, TEMPO_EVENT_RESUMED, player);
    if (ev_bits & LINK_EV_TIMED_OUT) {
        peer_lost(n, e, P2P_LOST_TIMEOUT);
    } else if (ev_bits & LINK_EV_INTERRUPTED) {
        uint64_t silence = link_silence_us(&e->link, n->clock->now_us);
        uint64_t timeout = e->link.cfg.timeout_us;
        tempo_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = TEMPO_EVENT_INTERRUPTED;
        ev.player = player;
        ev.u.interrupted.disconnect_in_ms = (uint32_t)((timeout > silence ? timeout - silence : 0) / 1000u);
        p2p_push_event(n, &ev);
    }
}

static void ping(tempo_p2p *n, p2p_peer *e)
{
    if (!link_ping_due(&e->link, n->clock->now_us))
        return;
    n->msg.type = TEMPO_MSG_PING;
    n->msg.u.ping.id = link_ping_sent(&e->link, n->clock->now_us);
    p2p_send(n, e, &n->msg, NULL);
}

void p2p_service(tempo_p2p *n, p2p_peer *e)
{
    unsigned ev_bits = link_update(&e->link, n->clock->now_us);
    p2p_handshake(n, e);
    liveness(n, e, ev_bits);
    ping(n, e);
}

