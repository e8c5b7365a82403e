/* SPDX-License-Identifier: MIT */
/*
 * p2p_input.c — inputs on the wire: what we send each peer, what we take
 * from peers, and the spectator feed.
 *
 * Every INPUT to a peer carries all of our local inputs it has not
 * acknowledged (up to TEMPO_MSG_MAX_FRAMES), so a lost datagram costs no
 * retransmission round trip: the next one repeats it. Acks only move
 * forward; an ack past every frame we hold to send (our local inputs; for
 * a spectator, the confirmed-input log) is a lie, since no honest peer can
 * want the frame after one that does not exist yet: it is ignored and
 * counted, never clamped and believed, and the timing values of its
 * datagram are not used either. The host serves spectators from the
 * engine's confirmed-input log (the last input_log_frames confirmed frames
 * of every player), so a spectator that falls behind never holds the
 * match's input queues.
 */
#include "p2p/network.h"

#include <string.h>

int32_t p2p_local_end(const tempo_p2p *n)
{
    int32_t end = INT32_MAX;
    uint32_t all = (1u << n->cfg->num_players) - 1u;
    for (uint32_t m = n->local_mask & all; m != 0; m &= m - 1) {
        const input_queue *q = &n->sync->q[p2p_low_player(m)];
        if (q->known_end < end)
            end = q->known_end;
    }
    return end == INT32_MAX ? 0 : end;
}

int32_t p2p_wanted(const tempo_p2p *n, const p2p_peer *e)
{
    if (e->role == P2P_ROLE_SPECTATOR)
        return 0;
    int32_t want = INT32_MAX;
    uint32_t all = (1u << n->cfg->num_players) - 1u;
    for (uint32_t m = e->players & all; m != 0; m &= m - 1) {
        const input_queue *q = &n->sync->q[p2p_low_player(m)];
        if (q->known_end < q->disconnect_frame && q->known_end < want)
            want = q->known_end;
    }
    return want == INT32_MAX ? n->sync->frame : want;
}

bool p2p_reference(void *ctx, int player, int32_t frame, uint8_t *out)
{
    const tempo_p2p *n = ctx;
    if (player < 0 || player >= n->cfg->num_players)
        return false;
    const input_queue *q = &n->sync->q[player];
    if (frame >= q->disconnect_frame) { /* a dropped player's input is zero, as sent */
        memset(out, 0, (size_t)n->cfg->input_size);
        return true;
    }
    return iq_real(q, frame, out) || p2p_rejoin_reference(n, player, frame, out);
}

static bool log_reference(void *ctx, int player, int32_t frame, uint8_t *out)
{
    const tempo_p2p *n = ctx;
    const uint8_t *in = input_log_input(&n->sync->confirmed_log, frame, player);
    if (!in)
        return false;
    memcpy(out, in, (size_t)n->cfg->input_size);
    return true;
}

static void codec_ctx(const tempo_p2p *n, tempo_codec_ctx *ctx, bool from_log)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->input_size = n->cfg->input_size;
    ctx->num_players = n->cfg->num_players;
    ctx->reference = from_log ? log_reference : p2p_reference;
    ctx->reference_ctx = (void *)(uintptr_t)n;
}

/* Build an INPUT of `mask` players' inputs for [start, start + count). */
static void build_input(tempo_p2p *n, tempo_msg *m, uint32_t mask, int32_t start, int count,
                        int32_t ack, bool from_log)
{
    tempo_msg_input *in = &m->u.input;
    m->type = TEMPO_MSG_INPUT;
    in->player_mask = (uint8_t)mask;
    in->start = start;
    in->count = count;
    in->ack = ack < 0 ? 0 : ack;
    in->sender_frame = n->sync->frame;
    size_t size = (size_t)n->cfg->input_size;
    int i = 0;
    for (uint32_t left = mask & ((1u << n->cfg->num_players) - 1u); left != 0; left &= left - 1) {
        int p = p2p_low_player(left);
        for (int f = 0; f < count; f++) {
            uint8_t *dst = in->data + ((size_t)i * (size_t)count + (size_t)f) * size;
            if (from_log)
                memcpy(dst, input_log_input(&n->sync->confirmed_log, start + f, p), size);
            else if (!iq_real(&n->sync->q[p], start + f, dst))
                memset(dst, 0, size);
        }
        i++;
    }
    p2p_fill_gossip(n, in, from_log);
}

/* An INPUT (INPUT_ACK from a spectator) is due with news, and in any case
 * P2P_KEEPALIVE_US after the last one: its ack then goes again, so one
 * lost ack is replaced even while other messages (checksums, pings) keep
 * the link busy. */
static bool due(const tempo_p2p *n, const p2p_peer *e, bool keepalive_only, bool news)
{
    bool quiet = !e->input_sent || n->clock->now_us - e->input_sent_us >= P2P_KEEPALIVE_US;
    return keepalive_only ? quiet : (news || quiet);
}

static bool send_input(tempo_p2p *n, p2p_peer *e, const tempo_codec_ctx *ctx,
                       tempo_codec_run *run)
{
    if (!p2p_send_run(n, e, &n->msg, ctx, run))
        return false;
    e->input_sent = true;
    e->input_sent_us = n->clock->now_us;
    return true;
}

void p2p_send_inputs(tempo_p2p *n, bool keepalive_only)
{
    tempo_codec_ctx ctx;
    codec_ctx(n, &ctx, false);
    if (n->spectating) {
        p2p_peer *h = &n->peers[0];
        int32_t ack = p2p_wanted(n, h);
        /* Until the host feeds us its own handshake may be unfinished and
         * our acks nothing to it; they would also hold back the handshake
         * requests the link lets through one per quiet period while the
         * host is silent. A late spectator's acks after the state came say
         * where to feed it from, and go. */
        if (p2p_lost(h) || (h->link.hs.announcing && !n->rejoin.loaded) ||
            !due(n, h, keepalive_only, ack != h->sent_ack))
            return;
        n->msg.type = TEMPO_MSG_INPUT_ACK;
        n->msg.u.input_ack.ack = ack;
        n->msg.u.input_ack.sender_frame = n->sync->frame;
        if (send_input(n, h, &ctx, NULL))
            h->sent_ack = ack;
        return;
    }
    /* Peers that acknowledged the same frame get the same inputs: their
     * coded part is made once in this round (nothing below changes the
     * input queues). */
    tempo_codec_run run;
    run.valid = false;
    int32_t local_end = p2p_local_end(n);
    for (int i = 0; i < n->npeers; i++) {
        p2p_peer *e = &n->peers[i];
        if (p2p_lost(e) || !p2p_synced(e) || e->rejoining ||
            !link_may_send(&e->link, n->clock->now_us))
            continue;
        int32_t start = e->remote_ack < 0 ? 0 : e->remote_ack;
        int count = (int)(local_end - start);
        if (count > TEMPO_MSG_MAX_FRAMES)
            count = TEMPO_MSG_MAX_FRAMES;
        if (count < 0)
            count = 0;
        int32_t ack = p2p_wanted(n, e);
        if (!due(n, e, keepalive_only, count > 0 || ack != e->sent_ack))
            continue;
        build_input(n, &n->msg, count > 0 ? n->local_mask : 0, start, count, ack, false);
        if (send_input(n, e, &ctx, n->npeers > 1 ? &run : NULL))
            e->sent_ack = ack;
    }
}

/* A spectator takes the host's word for final drops, before the inputs of
 * the same datagram: the host sends zeros for a dropped player's frames, and
 * they must play as DISCONNECTED, not as real input. */
static void apply_host_drops(tempo_p2p *n, const tempo_msg_input *m)
{
    for (int x = 0; x < n->cfg->num_players; x++) {
        input_queue *q = &n->sync->q[x];
        if (!(m->disconnected_mask & (1u << x)) || q->disconnect_frame != IQ_NO_FRAME ||
            m->disconnect_frame[x] < q->known_end)
            continue; /* not news, or impossible: the host confirms nothing past it */
        p2p_disconnect(n, x, m->disconnect_frame[x]);
    }
}

void p2p_on_input(tempo_p2p *n, p2p_peer *e, const tempo_msg_input *m, bool fresh)
{
    if (e->role == P2P_ROLE_SPECTATOR)
        return; /* spectators only acknowledge */
    /* The host feeds only a spectator its own handshake has completed
     * with. Until then the spectator's acknowledgements are nothing to it
     * (it takes only the handshake), so the spectator goes on sending
     * handshake requests: they keep the host hearing it and draw replies
     * that keep the host's link alive while its own requests are lost. */
    if (e->role == P2P_ROLE_HOST)
        link_handshake_announce(&e->link, false);
    if (p2p_rejoin_waiting(n))
        return; /* a rejoining machine takes inputs once its state came */
    if (p2p_dropped_runs_alone(n, e, m->sender_frame))
        return; /* a match of its own from before its drop: refused */
    e->rejoining = false; /* a rejoined machine runs: inputs go to it again */
    if (e->role == P2P_ROLE_PEER)
        e->ran = true;
    uint32_t allowed = e->players;
    /* relays of dropped players come from anyone */
    if (e->role == P2P_ROLE_PEER && p2p_any_drop(n))
        for (int x = 0; x < n->cfg->num_players; x++)
            if (n->drop_state[x] != DROP_NONE && !(n->local_mask & (1u << x)))
                allowed |= 1u << x;
    if (m->player_mask & ~allowed) {
        p2p_drop(n, TEMPO_DROP_BAD_VALUE);
        return;
    }
    if (e->role == P2P_ROLE_HOST)
        apply_host_drops(n, m);
    size_t size = (size_t)n->cfg->input_size;
    int i = 0;
    for (uint32_t left = m->player_mask; left != 0; left &= left - 1) {
        int p = p2p_low_player(left); /* the codec took only players of the match */
        for (int f = 0; f < m->count; f++) {
            const uint8_t *in = m->data + ((size_t)i * (size_t)m->count + (size_t)f) * size;
            if (sync_add_remote_input(n->sync, p, m->start + f, in) != TEMPO_OK)
                break; /* beyond what we can hold: it comes again */
        }
        i++;
    }
    if (e->role == P2P_ROLE_HOST)
        return;
    int peer = (int)(e - n->peers);
    link_set_remote_ready(&e->link, n->clock->now_us); /* it runs, so it was ready */
    bool ack_ok = m->ack <= p2p_local_end(n);
    if (!ack_ok)
        n->count.acks_ignored++; /* it cannot hold a frame we do not have */
    else if (m->ack > e->remote_ack)
        e->remote_ack = m->ack;
    if (fresh && ack_ok) { /* timing from the newest datagram only, not from stragglers */
        /* Its frame clock is RFC 3550's timestamp: a frame stamped once,
         * at the first INPUT that shows it, so a stall is no delay. */
        if (m->sender_frame > e->remote_frame)
            link_on_stamp(&e->link, n->clock->now_us,
                          (uint64_t)m->sender_frame * 1000000u / (uint64_t)n->cfg->frames_per_second);
        e->remote_frame = m->sender_frame;
        int64_t lag = (int64_t)m->sender_frame - (int64_t)m->ack;
        e->remote_lag = (int32_t)(lag < -100000 ? -100000 : lag > 100000 ? 100000 : lag);
        /* R: its frame minus our frame as it last heard of it (when we send,
         * our inputs reach `delay` frames past our frame). */
        double remote = (double)m->sender_frame - ((double)m->ack - p2p_local_delay(n));
        /* Frame lag: the input's age in frames when we first simulate with
         * it, counting both ends: it was sampled on the sender's frame
         * sender_frame - 1 and we use it on our current frame. */
        double frame_lag = (double)n->sync->frame - (double)m->sender_frame + 2.0;
        timesync_on_remote(&n->ts, peer, remote, frame_lag); /* it ignores the absurd */
    }
    p2p_on_gossip(n, peer, m);
}

void p2p_on_input_ack(tempo_p2p *n, p2p_peer *e, const tempo_msg_input_ack *m)
{
    if (e->role != P2P_ROLE_SPECTATOR)
        return;
    if (m->ack > n->sync->confirmed_log.end) { /* past all we could feed it */
        n->count.acks_ignored++;
        return;
    }
    if (m->ack > e->remote_ack)
        e->remote_ack = m->ack;
    e->remote_frame = m->sender_frame;
}

void p2p_feed_spectators(tempo_p2p *n, bool keepalive_only)
{
    tempo_codec_ctx ctx;
    codec_ctx(n, &ctx, true);
    tempo_codec_run run; /* spectators fed from the same frame share it */
    run.valid = false;
    uint32_t all = (1u << n->cfg->num_players) - 1u;
    for (int i = 0; i < n->nspecs; i++) {
        p2p_peer *e = &n->specs[i];
        if (p2p_lost(e) || !p2p_synced(e) || !link_may_send(&e->link, n->clock->now_us))
            continue;
        int32_t start = e->remote_ack < 0 ? 0 : e->remote_ack;
        bool held = start >= n->sync->confirmed_log.end ||
                    (input_log_holds(&n->sync->confirmed_log, start) &&
                     (start == 0 || input_log_holds(&n->sync->confirmed_log, start - 1)));
        if (!held && n->rejoin.serving && start == 0)
            continue; /* it came late: it asks for a state (p2p_rejoin.c) */
        if (!held) {
            p2p_lose_peer(n, e); /* too far behind to serve */
            continue;
        }
        int count = (int)(n->sync->confirmed_log.end - start);
        if (count > TEMPO_MSG_MAX_FRAMES)
            count = TEMPO_MSG_MAX_FRAMES;
        if (count < 0)
            count = 0;
        if (!due(n, e, keepalive_only, count > 0))
            continue;
        build_input(n, &n->msg, count > 0 ? all : 0, start, count, 0, true);
        (void)send_input(n, e, &ctx, n->nspecs > 1 ? &run : NULL);
    }
}
