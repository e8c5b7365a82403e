/*
 * p2p_agree.c — what the peers must agree on: the frame from which a
 * dropped player's input counts as "disconnected", and each confirmed
 * frame's checksum.
 *
 * Dropped players. Peers see a silent player's inputs stop at slightly
 * different frames. Each peer freezes its own view (the end of the inputs it
 * holds) when it drops the player, and gossips, in every INPUT, the largest
 * view it has heard of and how far its own inputs reach. The drop becomes
 * final once every surviving peer has reported it: the agreed frame is then
 * the largest view of all. Peers holding fewer inputs than that get the
 * missing ones relayed by a peer that has them, so no one ever rolls back
 * into confirmed frames (a peer with more inputs never has to forget any).
 * A peer that receives news of a drop drops the player too, so a player one
 * peer can still hear is not kept by one and dropped by another.
 * Known limit: if the only peer holding the missing inputs drops out before
 * relaying them, the others wait for them until they time it out as well.
 *
 * Desync checks. Each peer sends the checksum of every desync_interval-th
 * confirmed frame (twice, for loss) to every endpoint; a received checksum
 * is compared with our own when both are known. A mismatch raises one DESYNC
 * event per frame, however many peers disagree.
 */
#include "p2p.h"

#include <string.h>

void p2p_begin_drop(tempo_session *s, int x)
{
    tempo_p2p *n = s->net;
    if (x < 0 || x >= s->cfg.num_players || n->drop_state[x] != DROP_NONE)
        return;
    n->drop_state[x] = DROP_PENDING;
    n->drop_frame[x] = s->sync.q[x].known_end; /* our view, frozen */
    n->drop_reported[x] = 0;
    int h = n->player_peer[x];
    if (h >= 0 && !n->spectating)
        p2p_lose_endpoint(s, &n->peers[h]); /* and its other players with it */
}

void p2p_on_gossip(tempo_session *s, int peer, const tempo_msg_input *m)
{
    tempo_p2p *n = s->net;
    tempo_endpoint *e = &n->peers[peer];
    e->gossip_mask = m->disconnected_mask;
    /* A view can only be of frames the match can hold (hostile bytes). */
    int32_t limit = s->sync.frame + sync_queue_capacity(s->cfg.max_prediction);
    for (int x = 0; x < s->cfg.num_players; x++) {
        if (!(m->disconnected_mask & (1u << x)))
            continue;
        e->gossip_frame[x] = m->disconnect_frame[x];
        e->gossip_have[x] = m->have_until[x];
        p2p_begin_drop(s, x);
        int32_t view = tempo__min32(m->disconnect_frame[x], limit);
        if (n->drop_state[x] == DROP_PENDING && view > n->drop_frame[x])
            n->drop_frame[x] = view;
        n->drop_reported[x] |= 1u << peer;
    }
    p2p_try_finalize(s);
}

void p2p_try_finalize(tempo_session *s)
{
    tempo_p2p *n = s->net;
    if (n->spectating)
        return;
    for (int x = 0; x < s->cfg.num_players; x++) {
        if (n->drop_state[x] != DROP_PENDING)
            continue;
        bool all = true;
        for (int i = 0; i < n->npeers && all; i++) {
            const tempo_endpoint *e = &n->peers[i];
            if (e->role == ENDPOINT_PEER && !e->disconnected &&
                !(n->drop_reported[x] & (1u << i)))
                all = false;
        }
        if (!all)
            continue;
        n->drop_state[x] = DROP_FINAL;
        session_disconnect(s, x, n->drop_frame[x]);
        n->drop_frame[x] = s->sync.q[x].disconnect_frame;
    }
}

void p2p_fill_gossip(const tempo_session *s, tempo_msg_input *m, bool final_only)
{
    const tempo_p2p *n = s->net;
    m->disconnected_mask = 0;
    for (int x = 0; x < s->cfg.num_players; x++) {
        uint8_t st = n->drop_state[x];
        if (st == DROP_NONE || (final_only && st != DROP_FINAL))
            continue;
        m->disconnected_mask |= (uint8_t)(1u << x);
        m->disconnect_frame[x] = n->drop_frame[x];
        m->have_until[x] = tempo__min32(s->sync.q[x].known_end, n->drop_frame[x]);
    }
}

void p2p_send_relays(tempo_session *s)
{
    tempo_p2p *n = s->net;
    if (n->spectating)
        return;
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = s->cfg.input_size;
    ctx.num_players = s->cfg.num_players;
    ctx.reference = p2p_reference;
    ctx.reference_ctx = s;
    size_t size = (size_t)s->cfg.input_size;
    for (int x = 0; x < s->cfg.num_players; x++) {
        if (n->drop_state[x] == DROP_NONE || (n->local_mask & (1u << x)))
            continue;
        int32_t mine = tempo__min32(s->sync.q[x].known_end, n->drop_frame[x]);
        for (int i = 0; i < n->npeers; i++) {
            tempo_endpoint *e = &n->peers[i];
            if (e->role != ENDPOINT_PEER || e->disconnected || !e->synchronized ||
                !(e->gossip_mask & (1u << x)))
                continue;
            int32_t start = e->gossip_have[x];
            if (start < 0 || start >= mine || !endpoint_may_send(e, s->now_us, n->start_us))
                continue;
            uint8_t tmp[TEMPO_MAX_INPUT_SIZE];
            if (start > 0 && !iq_real(&s->sync.q[x], start - 1, tmp))
                continue; /* we no longer hold its delta reference */
            int count = (int)tempo__min32(mine - start, TEMPO_MSG_MAX_FRAMES);
            tempo_msg_input *in = &n->msg.u.input;
            n->msg.type = TEMPO_MSG_INPUT;
            in->player_mask = (uint8_t)(1u << x);
            in->start = start;
            in->count = count;
            in->ack = p2p_wanted_from(s, e);
            in->sender_frame = s->sync.frame;
            for (int f = 0; f < count; f++)
                if (!iq_real(&s->sync.q[x], start + f, in->data + (size_t)f * size))
                    memset(in->data + (size_t)f * size, 0, size);
            p2p_fill_gossip(s, in, false);
            p2p_send(s, e, &n->msg, &ctx);
        }
    }
}

/* ---- desync checks ----------------------------------------------------------- */

static void compare(tempo_session *s, int peer, int32_t frame, uint64_t local, uint64_t remote)
{
    tempo_p2p *n = s->net;
    s->sync.stats.desync_checks++;
    if (local == remote)
        return;
    for (int i = 0; i < 8; i++)
        if (n->desync_reported[i] == frame)
            return; /* one event per frame */
    n->desync_reported[n->desync_head] = frame;
    n->desync_head = (n->desync_head + 1) % 8;
    s->sync.stats.desyncs++;
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TEMPO_EVENT_DESYNC;
    ev.player = p2p_first_player(n->peers[peer].players);
    ev.u.desync.frame = frame;
    ev.u.desync.local = local;
    ev.u.desync.remote = remote;
    session_push_event(s, &ev);
}

static sync_sum *own_slot(tempo_session *s, int32_t frame)
{
    int interval = s->cfg.desync_interval;
    return &s->net->own_sums[(frame / interval) % P2P_SUM_LOG];
}

void p2p_take_checksums(tempo_session *s)
{
    tempo_p2p *n = s->net;
    sync_sum c;
    while (sync_take_checksum(&s->sync, &c)) {
        *own_slot(s, c.frame) = c;
        if (!n->spectating) {
            int slot = 0; /* the free or oldest outbox entry */
            for (int i = 1; i < P2P_OUTBOX; i++)
                if (n->outbox[i].left < n->outbox[slot].left ||
                    (n->outbox[i].left == n->outbox[slot].left &&
                     n->outbox[i].frame < n->outbox[slot].frame))
                    slot = i;
            n->outbox[slot].frame = c.frame;
            n->outbox[slot].sum = c.checksum;
            n->outbox[slot].left = P2P_SUM_SENDS;
        }
        for (int i = 0; i < n->npeers; i++)
            for (int k = 0; k < P2P_PENDING_SUMS; k++) {
                p2p_pending_sum *ps = &n->pending[i][k];
                if (ps->frame != c.frame)
                    continue;
                compare(s, i, c.frame, c.checksum, ps->sum);
                if (c.frame > n->peers[i].checked_frame)
                    n->peers[i].checked_frame = c.frame;
                ps->frame = -1;
            }
    }
}

void p2p_send_checksums(tempo_session *s)
{
    tempo_p2p *n = s->net;
    for (int b = 0; b < P2P_OUTBOX; b++) {
        if (n->outbox[b].left <= 0)
            continue;
        n->outbox[b].left--;
        for (int i = 0; i < n->npeers + n->nspecs; i++) {
            tempo_endpoint *e = i < n->npeers ? &n->peers[i] : &n->specs[i - n->npeers];
            if (e->disconnected || !e->synchronized)
                continue;
            n->msg.type = TEMPO_MSG_CHECKSUM;
            n->msg.u.checksum.frame = n->outbox[b].frame;
            n->msg.u.checksum.checksum = n->outbox[b].sum;
            p2p_send(s, e, &n->msg, NULL);
        }
    }
}

void p2p_on_checksum(tempo_session *s, tempo_endpoint *e, int peer, const tempo_msg_checksum *m)
{
    tempo_p2p *n = s->net;
    int interval = s->cfg.desync_interval;
    if (interval <= 0 || m->frame <= e->checked_frame || m->frame <= 0 || m->frame % interval)
        return;
    const sync_sum *own = own_slot(s, m->frame);
    if (own->frame == m->frame) {
        compare(s, peer, m->frame, own->checksum, m->checksum);
        e->checked_frame = m->frame;
        return;
    }
    if (own->frame > m->frame)
        return; /* ours is gone from the log: too old to compare */
    int slot = 0; /* keep it until ours is final: a free or the oldest slot */
    for (int k = 0; k < P2P_PENDING_SUMS; k++) {
        if (n->pending[peer][k].frame == m->frame)
            return;
        if (n->pending[peer][k].frame < n->pending[peer][slot].frame)
            slot = k;
    }
    n->pending[peer][slot].frame = m->frame;
    n->pending[peer][slot].sum = m->checksum;
}
