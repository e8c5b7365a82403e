/* SPDX-License-Identifier: MIT */
/*
 * p2p_agree.c — what the peers must agree on: the frame from which a
 * dropped player's input counts as "disconnected", and each confirmed
 * frame's checksum.
 *
 * Dropped players. Peers see a silent player's inputs stop at slightly
 * different frames. A peer that drops a player (timeout, leave, or news of
 * the drop from another peer) gossips, in every INPUT, how far its own
 * inputs of that player reach (its "have"). News of a drop is believed only
 * about a machine we have lost ourselves (silent for the disconnect
 * timeout): a claim about a machine whose authenticated traffic still
 * reaches us, or has only paused (silent for disconnect_notify_ms), or
 * about one of our own players, is ignored and counted (claims_ignored), so
 * one participant cannot make the others drop a third. Two machines that
 * accuse each other (the link between them is down) are told apart by their
 * lowest player: the lower one's claim is believed, so every third machine
 * keeps the same one. A pause is not enough to take the other side: a third
 * machine briefly deaf to the lower one when the higher one's claim arrives
 * would drop the lower one while the rest drop the higher, and the two
 * halves would then cut off each other's bystanders. A drop that stays
 * pending for the disconnect timeout (and the notify time, for the others'
 * own timeouts to come), because some survivor keeps hearing the player
 * and never reports it, drops that survivor instead: the machine that
 * lost contact with a peer everyone else hears is the one that leaves the
 * match. Once every live surviving peer has reported since the round
 * began, the drop is final at the largest have of a live survivor (our own
 * included): a frame someone alive can back with real inputs. A machine
 * coming back (revived, nothing from it run yet) is no survivor here: it
 * reports nothing until it runs and takes the final drops from its state. Peers holding fewer get the missing ones
 * relayed by a peer that has them, so no one rolls back into confirmed
 * frames. Every survivor computes the same frame: the peer with the largest
 * have reports it unchanged (relays only copy up to it), and everyone waits
 * for its report.
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
 * per frame and remote checksum: however many peers disagree with us alike,
 * one event, and a peer sending another value (a liar) cannot hide them.
 * Frames and acks no honest peer sends are ignored and counted.
 */
#include "p2p/network.h"

#include <string.h>

void p2p_begin_drop(tempo_p2p *n, int x)
{
    if (x < 0 || x >= n->cfg->num_players || n->drop_state[x] != DROP_NONE)
        return;
    n->drop_state[x] = DROP_PENDING;
    n->drop_pending_since[x] = n->clock->now_us;
    n->drop_frame[x] = p2p_rejoin_have(n, x);
    n->drop_reported[x] = 0;
    int h = n->player_peer[x];
    if (h >= 0 && !n->spectating)
        p2p_lose_peer(n, &n->peers[h]); /* and its other players with it */
}

void p2p_restart_drops(tempo_p2p *n)
{
    for (int x = 0; x < n->cfg->num_players; x++)
        if (n->drop_state[x] != DROP_NONE) {
            n->drop_reported[x] = 0;
            n->drop_pending_since[x] = n->clock->now_us;
            if (n->drop_state[x] == DROP_FINAL)
                n->drop_state[x] = DROP_PENDING;
        }
}

/* Whether we believe peer e's claim that player x is gone: we already drop
 * it, or its machine is lost to us too (a pause in its traffic is not
 * enough), or the two machines accuse each other (a link between them is
 * down) and x's machine is the one whose lowest player is higher: every
 * third machine keeps the same one of the two. Our own players are here. */
static bool drop_believable(const tempo_p2p *n, const p2p_peer *e, int x)
{
    if (n->drop_state[x] != DROP_NONE)
        return true;
    int h = n->player_peer[x];
    if (h < 0)
        return false; /* one of ours */
    const p2p_peer *accused = &n->peers[h];
    const net_link *l = &accused->link;
    if (link_closed(l) || !l->heard)
        return true;
    return (accused->claim_mask & e->players) != 0 &&
           p2p_first_player(accused->players) > p2p_first_player(e->players);
}

void p2p_on_gossip(tempo_p2p *n, int peer, const tempo_msg_input *m)
{
    p2p_peer *e = &n->peers[peer];
    e->claim_mask = m->disconnected_mask;
    uint8_t mask = 0;
    for (int x = 0; x < n->cfg->num_players; x++)
        if ((m->disconnected_mask & (1u << x)) && drop_believable(n, e, x))
            mask |= (uint8_t)(1u << x);
    if (mask != m->disconnected_mask)
        n->count.claims_ignored++;
    e->gossip_mask = mask;
    for (int x = 0; x < n->cfg->num_players; x++) {
        if (!(mask & (1u << x)))
            continue;
        e->gossip_have[x] = m->have_until[x];
        p2p_begin_drop(n, x);
        n->drop_reported[x] |= 1u << peer;
    }
    p2p_try_finalize(n);
}

/* A machine the agreement waits for and believes: a live peer that runs.
 * One coming back (revived, no input from it yet) reports nothing until it
 * runs, and learns the final drops from its state. */
static bool survivor(const p2p_peer *e)
{
    return e->role == P2P_ROLE_PEER && !p2p_lost(e) && !e->rejoining;
}

/* The frame a drop settles on: the largest have of a live survivor. */
static int32_t backed_frame(const tempo_p2p *n, int x)
{
    int32_t d = p2p_rejoin_have(n, x);
    for (int i = 0; i < n->npeers; i++) {
        const p2p_peer *e = &n->peers[i];
        if (survivor(e) && (n->drop_reported[x] & (1u << i)) &&
            e->gossip_have[x] > d)
            d = e->gossip_have[x];
    }
    return d;
}

/* A peer whose claimed inputs do not come within the disconnect timeout is
 * dropped: the round restarts without its claim. */
static void relay_watchdog(tempo_p2p *n, int x)
{
    if (n->sync->q[x].known_end >= n->drop_frame[x]) {
        n->drop_waiting_since[x] = 0;
        return;
    }
    if (n->drop_waiting_since[x] == 0) {
        n->drop_waiting_since[x] = n->clock->now_us ? n->clock->now_us : 1;
        return;
    }
    if (n->clock->now_us - n->drop_waiting_since[x] < (uint64_t)n->cfg->disconnect_timeout_ms * 1000u)
        return;
    n->drop_waiting_since[x] = 0;
    for (int i = 0; i < n->npeers; i++) {
        p2p_peer *e = &n->peers[i];
        if (survivor(e) && e->gossip_have[x] > n->sync->q[x].known_end) {
            tempo__log(&n->sync->log, TEMPO_LOG_WARN,
                       "tempo: a peer claimed inputs of dropped player %d it never relayed; dropping it", x);
            p2p_lose_peer(n, e);
        }
    }
}

/* A drop pending for the disconnect timeout and the notify time: the
 * survivors that never reported it still hear the player, and we cannot.
 * We are the odd one out with them: they are dropped, and the round
 * restarts without them. An honest survivor reports once its own link to
 * the player times out, a disconnect timeout after the last datagram it
 * got, which can come a little after ours (a leave it missed, a dying
 * machine's last datagrams): the notify time on top lets that report
 * arrive. */
static void pending_watchdog(tempo_p2p *n, int x)
{
    uint64_t wait_ms = (uint64_t)n->cfg->disconnect_timeout_ms + n->cfg->disconnect_notify_ms;
    if (n->clock->now_us - n->drop_pending_since[x] < wait_ms * 1000u)
        return;
    uint32_t reported = n->drop_reported[x]; /* losing a peer restarts the round */
    for (int i = 0; i < n->npeers; i++) {
        p2p_peer *e = &n->peers[i];
        if (survivor(e) && !(reported & (1u << i))) {
            tempo__log(&n->sync->log, TEMPO_LOG_WARN,
                       "tempo: a peer still hears dropped player %d and never agreed; dropping it", x);
            p2p_lose_peer(n, e);
        }
    }
}

void p2p_try_finalize(tempo_p2p *n)
{
    if (n->spectating)
        return;
    for (int x = 0; x < n->cfg->num_players; x++) {
        if (n->drop_state[x] == DROP_FINAL) {
            relay_watchdog(n, x);
            continue;
        }
        if (n->drop_state[x] != DROP_PENDING)
            continue;
        n->drop_frame[x] = backed_frame(n, x); /* the candidate, gossiped */
        bool all = true;
        for (int i = 0; i < n->npeers && all; i++) {
            const p2p_peer *e = &n->peers[i];
            if (survivor(e) && !(n->drop_reported[x] & (1u << i)))
                all = false;
        }
        if (!all) {
            pending_watchdog(n, x);
            continue;
        }
        n->drop_state[x] = DROP_FINAL;
        n->drop_waiting_since[x] = 0;
        if (n->sync->q[x].disconnect_frame == IQ_NO_FRAME) {
            p2p_disconnect(n, x, n->drop_frame[x]);
        } else if (n->drop_frame[x] != n->sync->q[x].disconnect_frame) {
            /* a later round moved it (lowered: a holder is gone) */
            sync_disconnect(n->sync, x, n->drop_frame[x]);
        }
        /* what the engine took (a machine that came back took the state's frame for the agreed one) */
        n->drop_frame[x] = tempo__min32(n->sync->q[x].disconnect_frame, n->rejoin.held_to[x]);
    }
}

void p2p_fill_gossip(const tempo_p2p *n, tempo_msg_input *m, bool final_only)
{
    m->disconnected_mask = 0;
    for (int x = 0; x < n->cfg->num_players; x++) {
        uint8_t st = n->drop_state[x];
        if (st == DROP_NONE || (final_only && st != DROP_FINAL))
            continue;
        m->disconnected_mask |= (uint8_t)(1u << x);
        m->disconnect_frame[x] = n->drop_frame[x];
        m->have_until[x] = p2p_rejoin_have(n, x);
    }
}

void p2p_send_relays(tempo_p2p *n)
{
    if (n->spectating)
        return;
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = n->cfg->input_size;
    ctx.num_players = n->cfg->num_players;
    ctx.reference = p2p_reference;
    ctx.reference_ctx = n;
    size_t size = (size_t)n->cfg->input_size;
    for (int x = 0; x < n->cfg->num_players; x++) {
        if (n->drop_state[x] == DROP_NONE || (n->local_mask & (1u << x)))
            continue;
        int32_t mine = tempo__min32(p2p_rejoin_have(n, x), n->drop_frame[x]);
        if (n->drop_state[x] == DROP_PENDING) /* relay all we hold: the frame may rise to it */
            mine = p2p_rejoin_have(n, x);
        for (int i = 0; i < n->npeers; i++) {
            p2p_peer *e = &n->peers[i];
            if (e->role != P2P_ROLE_PEER || p2p_lost(e) || !p2p_synced(e) ||
                !(e->gossip_mask & (1u << x)))
                continue;
            int32_t start = e->gossip_have[x];
            if (start < 0 || start >= mine || !link_may_send(&e->link, n->clock->now_us))
                continue;
            uint8_t tmp[TEMPO_MAX_INPUT_SIZE];
            if (start > 0 && !iq_real(&n->sync->q[x], start - 1, tmp))
                continue; /* we no longer hold its delta reference */
            int count = (int)tempo__min32(mine - start, TEMPO_MSG_MAX_FRAMES);
            tempo_msg_input *in = &n->msg.u.input;
            n->msg.type = TEMPO_MSG_INPUT;
            in->player_mask = (uint8_t)(1u << x);
            in->start = start;
            in->count = count;
            in->ack = p2p_wanted(n, e);
            in->sender_frame = n->sync->frame;
            for (int f = 0; f < count; f++)
                if (!iq_real(&n->sync->q[x], start + f, in->data + (size_t)f * size))
                    memset(in->data + (size_t)f * size, 0, size);
            p2p_fill_gossip(n, in, false);
            p2p_send(n, e, &n->msg, &ctx);
        }
    }
}

/* ---- desync checks ----------------------------------------------------------- */

static void compare(tempo_p2p *n, int peer, int32_t frame, uint64_t local, uint64_t remote)
{
    n->count.desync_checks++;
    if (local == remote)
        return;
    bool wanted = p2p_diff_on_desync(n, peer, frame);
    /* One event per frame and remote checksum: peers agreeing with each
     * other against us raise one, and a lying peer's checksum cannot hide
     * another peer's real disagreement of the same frame. */
    for (int i = 0; i < 8; i++)
        if (n->desync_reported[i] == frame && n->desync_remote[i] == remote)
            return;
    n->desync_remote[n->desync_head] = remote;
    n->desync_reported[n->desync_head] = frame;
    n->desync_head = (n->desync_head + 1) % 8;
    n->count.desyncs++;
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TEMPO_EVENT_DESYNC;
    ev.player = p2p_first_player(n->peers[peer].players);
    ev.u.desync.frame = frame;
    ev.u.desync.local = local;
    ev.u.desync.remote = remote;
    ev.u.desync.state_wanted = wanted;
    p2p_push_event(n, &ev);
}

static sync_sum *own_slot(tempo_p2p *n, int32_t frame)
{
    int interval = n->cfg->desync_interval;
    return &n->own_sums[(frame / interval) % P2P_SUM_LOG];
}

bool p2p_own_sum(const tempo_p2p *n, int32_t frame, uint64_t *sum)
{
    int interval = n->cfg->desync_interval;
    if (interval <= 0 || frame <= 0 || frame % interval != 0)
        return false;
    const sync_sum *c = &n->own_sums[(frame / interval) % P2P_SUM_LOG];
    if (c->frame != frame)
        return false;
    *sum = c->checksum;
    return true;
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
static void own_sum_leaves(tempo_p2p *n, int32_t gone)
{
    int interval = n->cfg->desync_interval;
    for (int i = 0; i < n->npeers; i++) {
        p2p_sum_window *w = &n->sum_in[i];
        if (p2p_lost(&n->peers[i]) || is_held(w, gone, interval) || window_bit(w, gone, interval) < 0)
            continue;
        n->count.desync_checks_missed++;
        hold(w, gone, interval);
    }
}

void p2p_take_checksums(tempo_p2p *n)
{
    sync_sum c;
    while (sync_take_checksum(n->sync, &c)) {
        sync_sum *slot = own_slot(n, c.frame);
        if (slot->frame >= 0 && slot->frame != c.frame)
            own_sum_leaves(n, slot->frame);
        *slot = c;
        p2p_diff_capture(n, c.frame, c.checksum);
        if (c.frame > n->own_newest)
            n->own_newest = c.frame;
        for (int i = 0; i < n->npeers; i++)
            for (int k = 0; k < P2P_PENDING_SUMS && !p2p_lost(&n->peers[i]); k++) {
                p2p_pending_sum *ps = &n->pending[i][k];
                if (ps->frame < 0 || ps->frame > c.frame)
                    continue;
                if (ps->frame == c.frame)
                    compare(n, i, c.frame, c.checksum, ps->sum);
                else /* ours come in frame order: this one was never computed here */
                    n->count.desync_checks_missed++;
                ps->frame = -1;
            }
    }
}

void p2p_forget_sums(tempo_p2p *n, int peer)
{
    int interval = n->cfg->desync_interval;
    for (int k = 0; k < P2P_PENDING_SUMS; k++)
        if (n->pending[peer][k].frame >= 0) {
            /* a dropped peer's frames part from ours after the drop: its
             * checksums, even those that came before, prove nothing */
            n->count.desync_checks_missed++;
            n->pending[peer][k].frame = -1;
        }
    p2p_sum_window *w = &n->sum_in[peer];
    if (interval <= 0)
        return;
    /* it computed every check frame below the newest it sent */
    for (int32_t f = w->held + interval; f > 0 && f <= w->newest; f += interval)
        if (!is_held(w, f, interval))
            n->count.desync_checks_missed++;
    w->held = w->newest;
    memset(w->bits, 0, sizeof w->bits);
}

static void send_sum(tempo_p2p *n, p2p_peer *e, int peer, const sync_sum *c)
{
    n->msg.type = TEMPO_MSG_CHECKSUM;
    n->msg.u.checksum.frame = c ? c->frame : 0;
    n->msg.u.checksum.checksum = c ? c->checksum : 0;
    n->msg.u.checksum.ack = 0;
    if (peer >= 0) {
        n->msg.u.checksum.ack = n->sum_in[peer].held;
        n->sum_in[peer].ack_owed = false;
    }
    p2p_send(n, e, &n->msg, NULL);
}

/* Resend after the retransmission timeout of the link, at least 100 ms. */
static uint64_t resend_after(const p2p_peer *e)
{
    uint64_t rto = link_rto_us(&e->link);
    return rto > P2P_SUM_RESEND_US ? rto : P2P_SUM_RESEND_US;
}

/* Our checksums to e, in frame order from the oldest it has not
 * acknowledged, at most P2P_SUM_LOG check frames past its ack; when the
 * oldest has gone unacknowledged for resend_after(), all of them again.
 * Frames we never computed or no longer hold are skipped. */
static void send_sums_to(tempo_p2p *n, p2p_peer *e, int peer)
{
    int interval = n->cfg->desync_interval;
    if (e->sum_next < e->sum_acked + interval)
        e->sum_next = e->sum_acked + interval;
    if (e->sum_next > e->sum_acked + interval && n->clock->now_us - e->sum_timer_us >= resend_after(e)) {
        e->sum_next = e->sum_acked + interval; /* go back */
        e->sum_timer_us = n->clock->now_us;
    }
    int64_t limit = (int64_t)e->sum_acked + (int64_t)P2P_SUM_LOG * interval;
    int budget = P2P_SUMS_PER_TICK;
    while (budget > 0 && e->sum_next <= limit && e->sum_next <= n->own_newest) {
        const sync_sum *c = own_slot(n, e->sum_next);
        if (c->frame != e->sum_next) { /* overwritten, or never computed */
            int32_t oldest = c->frame - (P2P_SUM_LOG - 1) * interval;
            e->sum_next = c->frame > e->sum_next && oldest > e->sum_next ? oldest : e->sum_next + interval;
            continue;
        }
        if (e->sum_next == e->sum_acked + interval)
            e->sum_timer_us = n->clock->now_us;
        send_sum(n, e, peer, c);
        budget--;
        if (c->frame > e->sum_sent_max)
            e->sum_sent_max = c->frame;
        e->sum_next += interval;
    }
    if (peer >= 0 && n->sum_in[peer].ack_owed)
        send_sum(n, e, peer, NULL);
}

void p2p_send_checksums(tempo_p2p *n)
{
    if (n->cfg->desync_interval <= 0)
        return;
    for (int i = 0; i < n->npeers + n->nspecs; i++) {
        bool peer = i < n->npeers;
        p2p_peer *e = peer ? &n->peers[i] : &n->specs[i - n->npeers];
        if (p2p_lost(e) || !p2p_synced(e))
            continue;
        if (!n->spectating)
            send_sums_to(n, e, peer ? i : -1);
        else if (n->sum_in[i].ack_owed) /* a spectator only acknowledges */
            send_sum(n, e, i, NULL);
    }
}

/* The acknowledgement of our checksums in a CHECKSUM from e. */
static void on_sum_ack(tempo_p2p *n, p2p_peer *e, int32_t ack)
{
    if (ack == 0 || ack <= e->sum_acked)
        return;
    if (ack % n->cfg->desync_interval != 0 || ack > e->sum_sent_max) {
        n->count.checksums_ignored++;
        return;
    }
    e->sum_acked = ack;
    e->sum_timer_us = n->clock->now_us; /* the next oldest is timed from now */
}

void p2p_on_checksum(tempo_p2p *n, p2p_peer *e, int peer, const tempo_msg_checksum *m)
{
    int interval = n->cfg->desync_interval;
    if (interval <= 0) {
        n->count.checksums_ignored++;
        return;
    }
    on_sum_ack(n, e, m->ack);
    if (m->frame == 0)
        return;
    p2p_sum_window *w = peer >= 0 ? &n->sum_in[peer] : NULL;
    if (!w || m->frame % interval != 0 || (!is_held(w, m->frame, interval) && window_bit(w, m->frame, interval) < 0)) {
        n->count.checksums_ignored++; /* spectators send none; no honest peer sends these */
        return;
    }
    w->ack_owed = true;
    if (is_held(w, m->frame, interval))
        return; /* a repeat */
    if (m->frame > w->newest)
        w->newest = m->frame;
    const sync_sum *own = own_slot(n, m->frame);
    if (own->frame == m->frame) {
        compare(n, peer, m->frame, own->checksum, m->checksum);
        hold(w, m->frame, interval);
        return;
    }
    if (m->frame <= n->own_newest) { /* ours left the log, or was never computed */
        n->count.desync_checks_missed++;
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
