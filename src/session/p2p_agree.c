/*
 * p2p_agree.c — what the peers must agree on: the frame from which a
 * dropped player's input counts as "disconnected", and each confirmed
 * frame's checksum.
 *
 * Dropped players. Peers see a silent player's inputs stop at slightly
 * different frames. A peer that drops a player (timeout, leave, or news of
 * the drop from another peer: a player one peer can still hear must not be
 * kept by one and dropped by another) gossips, in every INPUT, how far its
 * own inputs of that player reach (its "have"). Once every live surviving
 * peer has reported since the round began, the drop is final at the largest
 * have of a live survivor (our own included): a frame someone alive can back
 * with real inputs. Peers holding fewer get the missing ones relayed by a
 * peer that has them, so no one rolls back into confirmed frames. Every
 * survivor computes the same frame: the peer with the largest have reports
 * it unchanged (relays only copy up to it), and everyone waits for its
 * report.
 *
 * When a survivor is lost, the round starts again: the frame may drop to
 * what the remaining survivors can back, which is safe, since nobody
 * confirmed a frame it held no input for. A peer that claims inputs it does
 * not relay within the disconnect timeout (buggy or hostile) is dropped, so
 * a claim cannot wedge the match. Known limit: a relay still in flight when
 * its sender is lost can reach one survivor after another finalized without
 * it; tempo_session_leave sends pending relays before leaving to make this
 * rarer.
 *
 * Desync checks. Each peer sends the checksum of every desync_interval-th
 * confirmed frame (a check frame) to every endpoint until it is
 * acknowledged: in frame order, at most a few per tick, never more than
 * P2P_SUM_LOG check frames past the acknowledged one, and when the oldest
 * unacknowledged one has waited an RTO (100 ms at least), all of them again
 * (go-back-N). Every CHECKSUM carries the receiver's cumulative ack: the
 * sender holds all its check frames up to that one. A peer owing an ack and
 * having no checksum to send sends the ack alone; spectators only ack.
 *
 * A received checksum is compared with our own once both are known, exactly
 * once per peer and frame: a window of held frames turns repeats away. A
 * comparison that can no longer happen (ours gone from the log of the last
 * P2P_SUM_LOG, never computed here, or the peer dropped) is counted as
 * missed, once, when that becomes known. A mismatch raises one DESYNC event
 * per frame, however many peers disagree. Frames and acks no honest peer
 * sends are ignored and counted.
 */
#include "session/p2p.h"

#include <string.h>

void p2p_begin_drop(tempo_session *s, int x)
{
    tempo_p2p *n = s->net;
    if (x < 0 || x >= s->cfg.num_players || n->drop_state[x] != DROP_NONE)
        return;
    n->drop_state[x] = DROP_PENDING;
    n->drop_frame[x] = s->sync.q[x].known_end;
    n->drop_reported[x] = 0;
    int h = n->player_peer[x];
    if (h >= 0 && !n->spectating)
        p2p_lose_endpoint(s, &n->peers[h]); /* and its other players with it */
}

void p2p_restart_drops(tempo_session *s)
{
    tempo_p2p *n = s->net;
    for (int x = 0; x < s->cfg.num_players; x++)
        if (n->drop_state[x] != DROP_NONE) {
            n->drop_reported[x] = 0;
            if (n->drop_state[x] == DROP_FINAL)
                n->drop_state[x] = DROP_PENDING;
        }
}

void p2p_on_gossip(tempo_session *s, int peer, const tempo_msg_input *m)
{
    tempo_p2p *n = s->net;
    tempo_endpoint *e = &n->peers[peer];
    e->gossip_mask = m->disconnected_mask;
    for (int x = 0; x < s->cfg.num_players; x++) {
        if (!(m->disconnected_mask & (1u << x)))
            continue;
        e->gossip_have[x] = m->have_until[x];
        p2p_begin_drop(s, x);
        n->drop_reported[x] |= 1u << peer;
    }
    p2p_try_finalize(s);
}

/* The frame a drop settles on: the largest have of a live survivor. */
static int32_t backed_frame(const tempo_session *s, int x)
{
    const tempo_p2p *n = s->net;
    int32_t d = s->sync.q[x].known_end;
    for (int i = 0; i < n->npeers; i++) {
        const tempo_endpoint *e = &n->peers[i];
        if (e->role == ENDPOINT_PEER && !e->disconnected && (n->drop_reported[x] & (1u << i)) &&
            e->gossip_have[x] > d)
            d = e->gossip_have[x];
    }
    return d;
}

/* A peer whose claimed inputs do not come within the disconnect timeout is
 * dropped: the round restarts without its claim. */
static void relay_watchdog(tempo_session *s, int x)
{
    tempo_p2p *n = s->net;
    if (s->sync.q[x].known_end >= n->drop_frame[x]) {
        n->drop_waiting_since[x] = 0;
        return;
    }
    if (n->drop_waiting_since[x] == 0) {
        n->drop_waiting_since[x] = s->now_us ? s->now_us : 1;
        return;
    }
    if (s->now_us - n->drop_waiting_since[x] < (uint64_t)s->cfg.disconnect_timeout_ms * 1000u)
        return;
    n->drop_waiting_since[x] = 0;
    for (int i = 0; i < n->npeers; i++) {
        tempo_endpoint *e = &n->peers[i];
        if (e->role == ENDPOINT_PEER && !e->disconnected && e->gossip_have[x] > s->sync.q[x].known_end) {
            tempo__log(&s->sync.log, TEMPO_LOG_WARN,
                       "tempo: a peer claimed inputs of dropped player %d it never relayed; dropping it", x);
            p2p_lose_endpoint(s, e);
        }
    }
}

void p2p_try_finalize(tempo_session *s)
{
    tempo_p2p *n = s->net;
    if (n->spectating)
        return;
    for (int x = 0; x < s->cfg.num_players; x++) {
        if (n->drop_state[x] == DROP_FINAL) {
            relay_watchdog(s, x);
            continue;
        }
        if (n->drop_state[x] != DROP_PENDING)
            continue;
        n->drop_frame[x] = backed_frame(s, x); /* the candidate, gossiped */
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
        n->drop_waiting_since[x] = 0;
        if (s->sync.q[x].disconnect_frame == IQ_NO_FRAME) {
            session_disconnect(s, x, n->drop_frame[x]);
        } else if (n->drop_frame[x] != s->sync.q[x].disconnect_frame) {
            /* a later round moved it (lowered: a holder is gone) */
            sync_disconnect(&s->sync, x, n->drop_frame[x]);
        }
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
        m->have_until[x] = s->sync.q[x].known_end;
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
        if (n->drop_state[x] == DROP_PENDING) /* relay all we hold: the frame may rise to it */
            mine = s->sync.q[x].known_end;
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

/* Window position of check frame f (f > w->held): 0 .. P2P_SUM_LOG - 1, or
 * -1 beyond the window. */
static int window_bit(const p2p_sum_window *w, int32_t f, int interval)
{
    int64_t k = ((int64_t)f - w->held) / interval - 1;
    return k < P2P_SUM_LOG ? (int)k : -1;
}

static bool is_held(const p2p_sum_window *w, int32_t f, int interval)
{
    if (f <= w->held)
        return true;
    int k = window_bit(w, f, interval);
    return k >= 0 && (w->bits[k / 64] >> (k % 64)) & 1u;
}

/* Hold check frame f (within the window), then move `held` over every
 * frame now held in a row. */
static void hold(p2p_sum_window *w, int32_t f, int interval)
{
    int k = window_bit(w, f, interval);
    if (f <= w->held || k < 0)
        return;
    w->bits[k / 64] |= (uint64_t)1u << (k % 64);
    while (w->bits[0] & 1u) {
        for (int i = 0; i < P2P_SUM_LOG / 64; i++)
            w->bits[i] = (w->bits[i] >> 1) | (i + 1 < P2P_SUM_LOG / 64 ? w->bits[i + 1] << 63 : 0);
        w->held += interval;
    }
}

static void unhold(p2p_sum_window *w, int32_t f, int interval)
{
    int k = window_bit(w, f, interval);
    if (f > w->held && k >= 0)
        w->bits[k / 64] &= ~((uint64_t)1u << (k % 64));
}

/* Our check frame `gone` leaves the log: every live peer that has not
 * delivered its checksum of that frame will never be compared with. */
static void own_sum_leaves(tempo_session *s, int32_t gone)
{
    tempo_p2p *n = s->net;
    int interval = s->cfg.desync_interval;
    for (int i = 0; i < n->npeers; i++) {
        p2p_sum_window *w = &n->sum_in[i];
        if (n->peers[i].disconnected || is_held(w, gone, interval) || window_bit(w, gone, interval) < 0)
            continue;
        s->sync.stats.desync_checks_missed++;
        hold(w, gone, interval);
    }
}

void p2p_take_checksums(tempo_session *s)
{
    tempo_p2p *n = s->net;
    sync_sum c;
    while (sync_take_checksum(&s->sync, &c)) {
        sync_sum *slot = own_slot(s, c.frame);
        if (slot->frame >= 0 && slot->frame != c.frame)
            own_sum_leaves(s, slot->frame);
        *slot = c;
        if (c.frame > n->own_newest)
            n->own_newest = c.frame;
        for (int i = 0; i < n->npeers; i++)
            for (int k = 0; k < P2P_PENDING_SUMS && !n->peers[i].disconnected; k++) {
                p2p_pending_sum *ps = &n->pending[i][k];
                if (ps->frame < 0 || ps->frame > c.frame)
                    continue;
                if (ps->frame == c.frame)
                    compare(s, i, c.frame, c.checksum, ps->sum);
                else /* ours come in frame order: this one was never computed here */
                    s->sync.stats.desync_checks_missed++;
                ps->frame = -1;
            }
    }
}

void p2p_forget_sums(tempo_session *s, int peer)
{
    tempo_p2p *n = s->net;
    int interval = s->cfg.desync_interval;
    for (int k = 0; k < P2P_PENDING_SUMS; k++)
        if (n->pending[peer][k].frame >= 0) {
            /* a dropped peer's frames part from ours after the drop: its
             * checksums, even those that came before, prove nothing */
            s->sync.stats.desync_checks_missed++;
            n->pending[peer][k].frame = -1;
        }
    p2p_sum_window *w = &n->sum_in[peer];
    if (interval <= 0)
        return;
    /* it computed every check frame below the newest it sent */
    for (int32_t f = w->held + interval; f > 0 && f <= w->newest; f += interval)
        if (!is_held(w, f, interval))
            s->sync.stats.desync_checks_missed++;
    w->held = w->newest;
    memset(w->bits, 0, sizeof w->bits);
}

static void send_sum(tempo_session *s, tempo_endpoint *e, int peer, const sync_sum *c)
{
    tempo_p2p *n = s->net;
    n->msg.type = TEMPO_MSG_CHECKSUM;
    n->msg.u.checksum.frame = c ? c->frame : 0;
    n->msg.u.checksum.checksum = c ? c->checksum : 0;
    n->msg.u.checksum.ack = 0;
    if (peer >= 0) {
        n->msg.u.checksum.ack = n->sum_in[peer].held;
        n->sum_in[peer].ack_owed = false;
    }
    p2p_send(s, e, &n->msg, NULL);
}

/* Resend after the retransmission timeout of the link, at least 100 ms. */
static uint64_t resend_after(const tempo_endpoint *e)
{
    double rto = e->has_rtt ? e->srtt_us + 4.0 * e->rttvar_us : 0.0;
    return rto > P2P_SUM_RESEND_US ? (uint64_t)rto : P2P_SUM_RESEND_US;
}

/* Our checksums to e, in frame order from the oldest it has not
 * acknowledged, at most P2P_SUM_LOG check frames past its ack; when the
 * oldest has gone unacknowledged for resend_after(), all of them again.
 * Frames we never computed or no longer hold are skipped. */
static void send_sums_to(tempo_session *s, tempo_endpoint *e, int peer)
{
    tempo_p2p *n = s->net;
    int interval = s->cfg.desync_interval;
    if (e->sum_next < e->sum_acked + interval)
        e->sum_next = e->sum_acked + interval;
    if (e->sum_next > e->sum_acked + interval && s->now_us - e->sum_timer_us >= resend_after(e)) {
        e->sum_next = e->sum_acked + interval; /* go back */
        e->sum_timer_us = s->now_us;
    }
    int64_t limit = (int64_t)e->sum_acked + (int64_t)P2P_SUM_LOG * interval;
    int budget = P2P_SUMS_PER_TICK;
    while (budget > 0 && e->sum_next <= limit && e->sum_next <= n->own_newest) {
        const sync_sum *c = own_slot(s, e->sum_next);
        if (c->frame != e->sum_next) { /* overwritten, or never computed */
            int32_t oldest = c->frame - (P2P_SUM_LOG - 1) * interval;
            e->sum_next = c->frame > e->sum_next && oldest > e->sum_next ? oldest : e->sum_next + interval;
            continue;
        }
        if (e->sum_next == e->sum_acked + interval)
            e->sum_timer_us = s->now_us;
        send_sum(s, e, peer, c);
        budget--;
        if (c->frame > e->sum_sent_max)
            e->sum_sent_max = c->frame;
        e->sum_next += interval;
    }
    if (peer >= 0 && n->sum_in[peer].ack_owed)
        send_sum(s, e, peer, NULL);
}

void p2p_send_checksums(tempo_session *s)
{
    tempo_p2p *n = s->net;
    if (s->cfg.desync_interval <= 0)
        return;
    for (int i = 0; i < n->npeers + n->nspecs; i++) {
        bool peer = i < n->npeers;
        tempo_endpoint *e = peer ? &n->peers[i] : &n->specs[i - n->npeers];
        if (e->disconnected || !e->synchronized)
            continue;
        if (!n->spectating)
            send_sums_to(s, e, peer ? i : -1);
        else if (n->sum_in[i].ack_owed) /* a spectator only acknowledges */
            send_sum(s, e, i, NULL);
    }
}

/* The acknowledgement of our checksums in a CHECKSUM from e. */
static void on_sum_ack(tempo_session *s, tempo_endpoint *e, int32_t ack)
{
    if (ack == 0 || ack <= e->sum_acked)
        return;
    if (ack % s->cfg.desync_interval != 0 || ack > e->sum_sent_max) {
        s->sync.stats.checksums_ignored++;
        return;
    }
    e->sum_acked = ack;
    e->sum_timer_us = s->now_us; /* the next oldest is timed from now */
}

void p2p_on_checksum(tempo_session *s, tempo_endpoint *e, int peer, const tempo_msg_checksum *m)
{
    tempo_p2p *n = s->net;
    int interval = s->cfg.desync_interval;
    if (interval <= 0) {
        s->sync.stats.checksums_ignored++;
        return;
    }
    on_sum_ack(s, e, m->ack);
    if (m->frame == 0)
        return;
    p2p_sum_window *w = peer >= 0 ? &n->sum_in[peer] : NULL;
    if (!w || m->frame % interval != 0 || (!is_held(w, m->frame, interval) && window_bit(w, m->frame, interval) < 0)) {
        s->sync.stats.checksums_ignored++; /* spectators send none; no honest peer sends these */
        return;
    }
    w->ack_owed = true;
    if (is_held(w, m->frame, interval))
        return; /* a repeat */
    if (m->frame > w->newest)
        w->newest = m->frame;
    const sync_sum *own = own_slot(s, m->frame);
    if (own->frame == m->frame) {
        compare(s, peer, m->frame, own->checksum, m->checksum);
        hold(w, m->frame, interval);
        return;
    }
    if (m->frame <= n->own_newest) { /* ours left the log, or was never computed */
        s->sync.stats.desync_checks_missed++;
        hold(w, m->frame, interval);
        return;
    }
    /* Keep it until ours is computed: in a free slot, else over the newest
     * (the oldest is the one our engine reaches first), which is then no
     * longer held and comes again. */
    int slot = -1, newest = 0;
    for (int k = 0; k < P2P_PENDING_SUMS; k++) {
        int32_t f = n->pending[peer][k].frame;
        if (f < 0 && slot < 0)
            slot = k;
        if (f > n->pending[peer][newest].frame)
            newest = k;
    }
    if (slot < 0) {
        if (m->frame > n->pending[peer][newest].frame)
            return; /* newer than all we keep: not held, so it comes again */
        slot = newest;
        unhold(w, n->pending[peer][slot].frame, interval);
    }
    n->pending[peer][slot].frame = m->frame;
    n->pending[peer][slot].sum = m->checksum;
    hold(w, m->frame, interval);
}
