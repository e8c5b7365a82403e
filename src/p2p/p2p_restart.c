/* SPDX-License-Identifier: MIT */
/*
 * p2p_restart.c — a peer machine whose process ends and starts again at the
 * same address, told from its earlier process while that one is still a
 * live peer here (it crashed a moment ago, and we have not timed it out).
 *
 * The two processes share an address and nothing else: the new one numbers
 * its datagrams from 0 again (under new keys, at a new key epoch, in a
 * keyed match), knows none of our sequences, and starts with a handshake.
 * The earlier one never sends a handshake request once it has run the
 * match (it sent an INPUT). So a SYNC_REQUEST from a peer's address that
 * its link cannot take (too old or a copy for the replay window, or sent
 * after the peer ran; keyed: one that opens only under the pair keys of a
 * newer key epoch, p2p_rejoin.c) may be a new process's. It may also be a
 * forgery (in an open match anyone can send one from any address) or a
 * replay, so it changes nothing about the live peer by itself: it starts
 * a successor, a link of its own numbered from 0 (or from where the last
 * successor under the same keys stopped: no nonce is used twice), which
 * probes the address with handshake requests of its own. Only a process
 * that hears that numbering from scratch answers them: the earlier process
 * drops them as too old or copies (its window holds our sequences far
 * past them), keyed it cannot open them, and an off-path forger never
 * sees their nonces. While probing, the successor answers no request of
 * the new process, so the new process cannot finish a handshake with us
 * while the earlier one's traffic may still reach it.
 *
 * Once the new process answered a probe and the earlier one's sequence has
 * not moved for disconnect_notify_ms (it is gone: a live peer sends every
 * tick), the earlier process is lost here at once, as if it had left, and
 * the drop of its players is agreed as for any loss (p2p_agree.c). When
 * rejoin may take the machine back (its drops final, the window open), the
 * successor becomes the peer's link, keys and window, handshake progress
 * included, and the machine rejoins by state transfer (p2p_rejoin.c).
 * Revived there on a fresh link before any probe was answered, the
 * machine's link replaces the successor of the same key epoch, which stops
 * (the new process's replies would open under its keys too). A
 * successor not answered, or whose earlier process keeps sending, is given
 * up after disconnect_timeout_ms and counted (restarts_unproven): a forged
 * handshake costs a few probes and nothing else.
 *
 * Known limit: in an open match, anyone on the path sees the probes and
 * can answer them; with the earlier process silent for disconnect_notify_ms
 * that drops it 2.5 s sooner than the timeout would (docs/SECURITY.md).
 */
#include "p2p/network.h"

#include <string.h>

#include "wire/keys.h"

/* Start (or keep) the successor of `peer` at key epoch `epoch` with `keys`
 * (keyed); false if an older epoch than one already probed. */
static bool start(tempo_p2p *n, int peer, uint32_t epoch, const wire_keys *keys)
{
    p2p_successor *s = &n->next[peer];
    p2p_peer *e = &n->peers[peer];
    if (s->used && epoch < s->epoch)
        return false;
    if (s->active && epoch == s->epoch)
        return true;
    /* Numbering goes on where the last successor under these keys stopped. */
    uint64_t floor = s->used && epoch == s->epoch ? link_next_seq(&s->link) : 0;
    link_init(&s->link, &e->link.cfg, n->clock->now_us);
    link_start_at(&s->link, floor);
    net_receive_reset(&s->replay);
    seal_keys_wipe(&s->keys);
    if (n->keyed)
        s->keys = *keys;
    s->epoch = epoch;
    s->active = s->used = true;
    s->since_us = n->clock->now_us;
    return true;
}

/* Whether a SYNC_REQUEST could be the earlier process's: its link would
 * take it (not too old, not a copy; keyed, it opens under the pair keys),
 * and that process has not run the match yet. */
static bool from_earlier_process(const tempo_p2p *n, const p2p_peer *e, size_t size)
{
    if (e->ran)
        return false;
    return net_receive_would_pass(n->keyed ? &e->keys : NULL, &e->replay, link_recv_newest(&e->link),
                                  n->buf, size);
}

/* The successor's datagram as the receive pipeline decodes it: a whole
 * handshake message whose settings fit. */
typedef struct successor_rx {
    tempo_p2p *n;
    const p2p_peer *e;
} successor_rx;

static tempo_drop_reason decode_sync(void *ctx, net_datagram *d)
{
    successor_rx *x = ctx;
    if (d->v.h.fragment)
        return TEMPO_DROP_FRAGMENT;
    tempo_drop_reason why = p2p_decode(x->n, x->e, &d->v, d->body, d->body_size);
    if (why != TEMPO_DROP_NONE)
        return why;
    return p2p_sync_fits(x->n, x->e, &x->n->msg.u.sync) ? TEMPO_DROP_NONE : TEMPO_DROP_BAD_VALUE;
}

/* The successor's part of a datagram it took: its window, the seal, the
 * body, the handshake. */
static void receive(tempo_p2p *n, int peer, size_t size)
{
    p2p_successor *s = &n->next[peer];
    net_receiver r = {&s->link, &s->replay, n->keyed ? &s->keys : NULL, n->cfg->session_id};
    successor_rx x = {n, &n->peers[peer]};
    net_datagram d;
    tempo_drop_reason why = net_receive_open(&r, n->clock->now_us, n->buf, size, decode_sync, &x, &d);
    if (why != TEMPO_DROP_NONE) {
        p2p_drop(n, why);
        return;
    }
    /* A request is not answered while the earlier process is a peer here:
     * the new one finishes its handshake only once nothing of the earlier
     * conversation goes to its address any more. Nor is it recorded:
     * anyone can send one, and only an answer to a probe's nonce shows
     * where the new process's numbering is. */
    if (n->msg.type != TEMPO_MSG_SYNC_REPLY)
        return;
    const tempo_msg_sync *y = &n->msg.u.sync;
    /* the new process's offer, authentic under these keys: the cipher the
     * link keeps when it is taken back */
    if (n->keyed && !seal_keys_agree(&s->keys, n->offer, y->ciphers)) {
        p2p_drop(n, TEMPO_DROP_BAD_VALUE);
        return;
    }
    link_sync ls = {true, y->nonce, y->config_hash, y->ready, y->rtt_ms, TEMPO_MAX_PLAYERS};
    link_sync_result res = link_on_sync(&s->link, n->clock->now_us, &ls);
    if (res != LINK_SYNC_ROUND && res != LINK_SYNC_COMPLETE)
        return;
    (void)net_receive_take(&r, n->clock->now_us, &d);
}

bool p2p_restart_take(tempo_p2p *n, int peer, const tempo_packet_view *v, size_t size)
{
    p2p_peer *e = &n->peers[peer];
    p2p_successor *s = &n->next[peer];
    uint8_t type = v->h.type;
    if (!n->rejoin.serving || !n->running || e->role != P2P_ROLE_PEER || v->h.sealed != n->keyed ||
        (type != TEMPO_MSG_SYNC_REQUEST && type != TEMPO_MSG_SYNC_REPLY))
        return false;
    if (type == TEMPO_MSG_SYNC_REPLY) { /* an answer to a probe, or the earlier process's */
        uint64_t newest = link_recv_newest(&s->link);
        bool probe_s = s->active && (n->keyed ? net_receive_would_pass(&s->keys, NULL, newest, n->buf, size)
                                              : !from_earlier_process(n, e, size));
        if (!probe_s)
            return false;
        receive(n, peer, size);
        return true;
    }
    if (from_earlier_process(n, e, size))
        return false;
    /* Keyed: a machine revived here but not back in play that starts its
     * links again at a newer key epoch (a refusal moved it on): its link
     * holds nothing of the match, so it is revived again at once. */
    bool used = false;
    if (n->keyed && p2p_rejoin_never_back(n, e))
        return p2p_rejoin_revive(n, peer, v, size, &used) ? used : true;
    if (n->keyed) {
        wire_keys keys;
        uint32_t epoch;
        memset(&keys, 0, sizeof keys);
        bool fresh = !(s->active &&
                       net_receive_would_pass(&s->keys, NULL, link_recv_newest(&s->link), n->buf, size));
        if (fresh && !p2p_rejoin_newer_epoch(n, e, v, size, &keys, &epoch, NULL))
            return false; /* the earlier process's copy, or a forgery: the usual way counts it */
        bool ok = !fresh || start(n, peer, epoch, &keys);
        seal_keys_wipe(&keys);
        if (!ok) {
            n->count.restarts_unproven++;
            return true;
        }
    } else if (!start(n, peer, 0, NULL)) {
        return false;
    }
    receive(n, peer, size);
    return true;
}

/* A probe: a handshake request on the successor's link. */
static void probe(tempo_p2p *n, int peer)
{
    p2p_successor *s = &n->next[peer];
    if (!link_handshake_due(&s->link, n->clock->now_us))
        return;
    uint32_t nonce = link_handshake_request(&s->link, n->clock->now_us, &n->rng);
    p2p_fill_sync(n, &n->msg, TEMPO_MSG_SYNC_REQUEST, nonce);
    (void)p2p_send_msg_on(n, &s->link, &s->keys, &n->peers[peer].addr, &n->msg, NULL);
}

void p2p_restart_poll(tempo_p2p *n)
{
    uint64_t now = n->clock->now_us;
    uint64_t notify = (uint64_t)n->cfg->disconnect_notify_ms * 1000u;
    uint64_t timeout = (uint64_t)n->cfg->disconnect_timeout_ms * 1000u;
    for (int i = 0; i < n->npeers; i++) {
        p2p_successor *s = &n->next[i];
        p2p_peer *e = &n->peers[i];
        if (!s->active)
            continue;
        bool answered = s->link.hs.rounds_done > 0;
        if (p2p_lost(e)) {
            /* The earlier process is gone here: the new one is taken back
             * as soon as rejoin allows (or another one's handshake does). */
            if (answered && p2p_rejoin_may_revive(n, i) && p2p_restart_adopt(n, i, s->epoch))
                p2p_rejoin_revived(n, i);
            else if (now - s->since_us >= timeout + (uint64_t)n->cfg->rejoin_window_ms * 1000u)
                s->active = false;
            continue;
        }
        if (now - s->since_us >= timeout) {
            s->active = false; /* nobody new answered, or the earlier one still talks */
            n->count.restarts_unproven++;
            continue;
        }
        probe(n, i);
        if (answered && link_stalled_us(&e->link, now) >= notify) {
            tempo__log(&n->sync->log, TEMPO_LOG_INFO,
                       "tempo: a new process answers at player %d's address: its earlier one is dropped",
                       p2p_first_player(e->players));
            n->count.restarts++;
            p2p_lose_peer(n, e);
        }
    }
}

bool p2p_restart_adopt(tempo_p2p *n, int peer, uint32_t epoch)
{
    p2p_successor *s = &n->next[peer];
    p2p_peer *e = &n->peers[peer];
    if (!s->active || s->link.hs.rounds_done == 0 || s->epoch != epoch)
        return false;
    tempo_address addr = e->addr;
    uint32_t players = e->players;
    p2p_peer_init(e, &addr, P2P_ROLE_PEER, players);
    e->epoch = s->epoch;
    e->link = s->link;
    e->replay = s->replay;
    e->keys = s->keys;
    seal_keys_wipe(&s->keys);
    s->active = false; /* used stays: no later successor goes below this epoch */
    return true;
}

void p2p_restart_superseded(tempo_p2p *n, int peer, uint32_t epoch)
{
    p2p_successor *s = &n->next[peer];
    if (s->active && s->epoch == epoch)
        s->active = false; /* used stays: its numbers and epoch still bound the next */
}

bool p2p_restart_seq_floor(const tempo_p2p *n, int peer, uint32_t epoch, uint64_t *floor)
{
    const p2p_successor *s = &n->next[peer];
    *floor = s->used && s->epoch == epoch ? link_next_seq(&s->link) : 0;
    return !n->keyed || !s->used || epoch >= s->epoch;
}

void p2p_restart_clear(tempo_p2p *n)
{
    for (int i = 0; i < P2P_MAX_PEERS; i++) {
        seal_keys_wipe(&n->next[i].keys);
        memset(&n->next[i], 0, sizeof n->next[i]);
    }
}
