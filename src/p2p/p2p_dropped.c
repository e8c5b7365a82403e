/* SPDX-License-Identifier: MIT */
/*
 * p2p_dropped.c — a machine the others dropped from a running match: how
 * they tell it, how it learns it, and how it comes back by itself.
 *
 * Survivors. A dropped machine may not know it was dropped: it was
 * paused (a stopped process, a debugger) past the disconnect timeout, or
 * its traffic stopped reaching us for a while. What it sends afterwards
 * reaches a link we closed. If it is the earlier life's own traffic
 * (game messages passing the old replay window, opening under the pair
 * keys kept for the rejoin window) we answer it with REJOIN_REFUSED
 * (DROPPED), at most every P2P_REFUSE_US; keyed, a handshake that opens
 * only under the key epoch we already know the machine at (a process
 * started again at an epoch it used before, or without rejoining) is
 * answered with REJOIN_REFUSED (EPOCH). Both carry the key epoch we know
 * it at, the one they are sealed under, so it comes back at the next one by
 * itself (a refusal naming another is a lie, ignored and counted). We answer
 * only a lost machine, or a revived one that plays a match of its own
 * from before its drop (a process started again without rejoining, in an
 * open match: its INPUTs say so): nothing goes to a live one that its
 * earlier or forged datagrams could provoke.
 *
 * The dropped machine. Machines cut off together (two paused at nearly the
 * same moment, a switch that went with two of them) still hear each other
 * when they wake: with live peers left, a machine learns it was dropped
 * when it and its live peers are not the match (why_minority): no more
 * than the peers lost in the latest losses (by silence or refusal, within
 * disconnect_notify_ms of each other, or after its own pause without a
 * word since), and on a tie not holding the lowest player of them. It
 * says so as a lone machine would (REFUSED if one of them refused it,
 * PAUSED after its own pause, CUT_OFF otherwise); without rejoin it ends
 * and closes the links to the peers still with it (they are on the same
 * side and learn the same). A lone machine learns it was dropped when it
 * has no live peer left and one of these holds:
 *   - a peer refused it (REJOIN_REFUSED): reason REFUSED;
 *   - every peer live before this machine's last pause (a leap of the
 *     caller's clock, session/clock.h) was lost by silence after it, none
 *     heard later than disconnect_notify_ms after it (what waited for us
 *     or was on its way is read on waking): PAUSED (they timed it out
 *     while it was away);
 *   - two or more peers were lost by silence within disconnect_notify_ms
 *     of each other: CUT_OFF (its own network went; one silent peer alone
 *     proves nothing: that machine may be the one gone).
 * A machine that never ran yet (it started into a match that runs without
 * it) takes the first refusal as enough. It raises TEMPO_EVENT_DROPPED
 * once: what it ran alone is not the match. With rejoin_window_ms > 0 it
 * then comes back by itself, as a machine started with cfg.rejoin would:
 * keyed at the key epoch above its own (the one the others know it at),
 * every link started afresh (keyed: new keys, sequences from 0; open: the
 * numbering goes on, so a peer that revived it already takes the new
 * handshake on the same link), its engine left as it is until a peer's
 * state restarts it (p2p_rejoin.c). Its spectators are dropped: what they
 * were fed since the others dropped it was its own play. Without rejoin
 * the session is ENDED. A refusal that reaches a machine already coming
 * back makes it move to the next key epoch (keyed, twice at most per
 * return) or is ignored.
 *
 * Known limit: two peers that fail together (two processes of one host)
 * look like this machine's network going; with rejoin it then waits in
 * SYNCHRONIZING for a match nobody serves, and the game decides how long.
 */
#include "p2p/network.h"

#include <string.h>

#include "wire/keys.h"

static void refuse(tempo_p2p *n, p2p_peer *e, uint8_t reason)
{
    uint64_t now = n->clock->now_us;
    if (e->refused_us != 0 && now - e->refused_us < P2P_REFUSE_US)
        return;
    e->refused_us = now ? now : 1;
    n->msg.type = TEMPO_MSG_REJOIN_REFUSED;
    n->msg.u.rejoin_refused.reason = reason;
    n->msg.u.rejoin_refused.epoch = (uint8_t)e->epoch;
    if (p2p_send(n, e, &n->msg, NULL))
        n->rejoin.refusals_sent++;
}

void p2p_dropped_refuse_lost(tempo_p2p *n, int peer, const tempo_packet_view *v, size_t size)
{
    p2p_peer *e = &n->peers[peer];
    bool recently = e->refused_us != 0 && n->clock->now_us - e->refused_us < P2P_REFUSE_US;
    if (!n->rejoin.serving || e->role != P2P_ROLE_PEER || v->h.sealed != n->keyed ||
        e->lost_how == P2P_LOST_LEFT || recently)
        return;
    uint8_t type = v->h.type;
    if (type == TEMPO_MSG_SYNC_REQUEST) {
        /* Keyed only: a new process at an epoch already used here. Open, a
         * handshake is refused only for a while (the drop being agreed, the
         * window over) and says so to nobody. */
        if (n->keyed && net_receive_would_pass(&e->keys, NULL, 0, n->buf, size))
            refuse(n, e, TEMPO_REFUSED_EPOCH);
        return;
    }
    if (type == TEMPO_MSG_SYNC_REPLY || type == TEMPO_MSG_DISCONNECT || type == TEMPO_MSG_REJOIN_REFUSED)
        return;
    /* Game traffic of its earlier life: newer than what its window took,
     * and (keyed) opening under its keys. Nothing of it is recorded. */
    if (!net_receive_would_pass(n->keyed ? &e->keys : NULL, &e->replay, link_recv_newest(&e->link),
                                n->buf, size))
        return;
    refuse(n, e, TEMPO_REFUSED_DROPPED);
}

bool p2p_dropped_runs_alone(tempo_p2p *n, p2p_peer *e, int32_t sender_frame)
{
    if (e->role != P2P_ROLE_PEER || !e->rejoining || !p2p_rejoin_never_back(n, e))
        return false;
    /* A machine coming back runs from a state at or past its drop. */
    for (int p = 0; p < n->cfg->num_players; p++)
        if ((e->players & (1u << p)) && sender_frame >= n->sync->q[p].disconnect_frame)
            return false;
    refuse(n, e, TEMPO_REFUSED_DROPPED);
    return true;
}

/* Whether the peers lost now show that this machine was the one dropped,
 * and how; 0 if not. */
static tempo_dropped_reason why_alone(const tempo_p2p *n)
{
    uint64_t now = n->clock->now_us;
    uint64_t notify = (uint64_t)n->cfg->disconnect_notify_ms * 1000u;
    uint64_t recent = (uint64_t)n->cfg->disconnect_timeout_ms * 1000u + notify;
    uint64_t resumed = n->clock->resumed_us;
    bool paused = n->clock->jumps > 0;
    int since_pause = 0;
    uint64_t last = 0;
    for (int i = 0; i < n->npeers; i++) {
        const p2p_peer *e = &n->peers[i];
        if (e->role != P2P_ROLE_PEER)
            continue;
        if (e->lost_how == P2P_LOST_REFUSED && now - e->lost_at_us <= recent)
            return TEMPO_DROPPED_REFUSED;
        if (e->lost_at_us > last)
            last = e->lost_at_us;
        if (e->lost_at_us < resumed)
            continue; /* gone before the pause: says nothing about it */
        since_pause++;
        /* What it sent before it dropped us may be read when we wake (it
         * waited in the socket, or was still on its way): only later
         * traffic shows it kept us. */
        bool spoke = e->link.heard && e->link.last_recv_us > resumed + notify;
        if (e->lost_how != P2P_LOST_TIMEOUT || spoke)
            paused = false; /* it left, we dropped it, or it spoke well after the pause */
    }
    if (paused && since_pause > 0)
        return TEMPO_DROPPED_PAUSED;
    /* Cut off: the latest losses were two or more silences at once, and
     * nothing else was lost among them. */
    int silences = 0, others = 0;
    for (int i = 0; i < n->npeers; i++) {
        const p2p_peer *e = &n->peers[i];
        if (e->role != P2P_ROLE_PEER || e->lost_at_us + notify < last)
            continue;
        if (e->lost_how == P2P_LOST_TIMEOUT)
            silences++;
        else
            others++;
    }
    if (silences >= 2 && others == 0)
        return TEMPO_DROPPED_CUT_OFF;
    return (tempo_dropped_reason)0;
}

/* Come back by itself (see the top): every link afresh, waiting for a state. */
static void come_back(tempo_p2p *n, uint32_t epoch)
{
    p2p_rejoin *j = &n->rejoin;
    j->returning = true;
    j->loaded = false;
    j->catching_up = false;
    j->asked_us = 0;
    j->asked_peer = -1;
    j->out_to = NULL;
    j->wanted_for = NULL;
    j->announce_mask = 0;
    j->epoch = epoch;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++) {
        j->lost_us[p] = j->revived_us[p] = 0;
        j->closed_beside[p] = j->learned[p] = false;
        j->attached_at[p] = 0;
        j->held_to[p] = IQ_NO_FRAME;
        n->drop_state[p] = DROP_NONE;
        n->drop_frame[p] = 0;
        n->drop_reported[p] = 0;
        n->drop_waiting_since[p] = n->drop_pending_since[p] = 0;
    }
    n->running = n->ready = n->run_scheduled = false;
    n->decided = n->stall_next = false;
    timesync_init(&n->ts, n->cfg);
    /* Its own checksums are of its solo frames: none is compared. */
    for (int i = 0; i < P2P_SUM_LOG; i++)
        n->own_sums[i].frame = -1;
    n->own_newest = 0;
    for (int i = 0; i < P2P_MAX_PEERS; i++) {
        for (int k = 0; k < P2P_PENDING_SUMS; k++)
            n->pending[i][k].frame = -1;
        memset(&n->sum_in[i], 0, sizeof n->sum_in[i]);
    }
    for (int i = 0; i < 8; i++)
        n->desync_reported[i] = -1;
    p2p_restart_clear(n);
    for (int i = 0; i < n->nspecs; i++)
        p2p_lose_peer(n, &n->specs[i]);
    uint64_t next_seq[P2P_MAX_PEERS];
    for (int i = 0; i < n->npeers; i++) {
        p2p_peer *e = &n->peers[i];
        tempo_address addr = e->addr;
        uint32_t players = e->players, their_epoch = e->epoch;
        next_seq[i] = link_next_seq(&e->link);
        seal_keys_wipe(&e->keys);
        p2p_peer_init(e, &addr, P2P_ROLE_PEER, players);
        e->epoch = their_epoch;
    }
    p2p_start_links(n);
    /* Open, the numbering goes on: a peer that took this machine back
     * keeps its window, and the handshake goes on where it left off.
     * Keyed, new keys number from 0. */
    if (!n->keyed)
        for (int i = 0; i < n->npeers; i++)
            link_start_at(&n->peers[i].link, next_seq[i]);
}

/* This machine was dropped (why): say so, and come back if it may. */
static void dropped(tempo_p2p *n, tempo_dropped_reason why)
{
    p2p_rejoin *j = &n->rejoin;
    uint32_t epoch = n->keyed ? j->epoch + 1u : 0u;
    bool back = j->can_return && n->cfg->rejoin_window_ms > 0 && !n->spectating &&
                (!n->keyed || epoch <= KEYS_MAX_EPOCH);
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TEMPO_EVENT_DROPPED;
    ev.player = -1;
    ev.u.dropped.frame = n->sync->frame;
    ev.u.dropped.reason = why;
    ev.u.dropped.rejoining = back;
    ev.u.dropped.epoch = back ? epoch : j->epoch;
    j->dropped = true;
    tempo__log(&n->sync->log, TEMPO_LOG_WARN, "tempo: the others dropped this machine at frame %d%s",
               (int)n->sync->frame, back ? "; it comes back by itself" : "");
    p2p_push_event(n, &ev);
    if (back) {
        j->epoch_moves = 0;
        come_back(n, epoch);
        return;
    }
    /* Ended: the peers still with it were cut off with it, and it plays
     * with them no more. */
    for (int i = 0; i < n->npeers; i++)
        if (n->peers[i].role == P2P_ROLE_PEER)
            p2p_lose_peer(n, &n->peers[i]);
}

/* Whether a peer lost at some time belongs to the latest losses: lost by
 * silence (or refused) within disconnect_notify_ms of the latest one, or,
 * when the latest loss itself came of this machine's own pause, lost
 * because of that pause too: both within the disconnect timeout (and
 * notify time) of waking, without a word from it since. A loss long after
 * the pause has its own cause, and the peers lost before it are not on
 * the other side of it. */
static bool in_latest_losses(const tempo_p2p *n, const p2p_peer *e, uint64_t last)
{
    uint64_t notify = (uint64_t)n->cfg->disconnect_notify_ms * 1000u;
    uint64_t timeout = (uint64_t)n->cfg->disconnect_timeout_ms * 1000u;
    uint64_t resumed = n->clock->resumed_us;
    if (e->role != P2P_ROLE_PEER || !p2p_lost(e) ||
        (e->lost_how != P2P_LOST_TIMEOUT && e->lost_how != P2P_LOST_REFUSED))
        return false;
    if (e->lost_at_us + notify >= last)
        return true;
    bool spoke = e->link.heard && e->link.last_recv_us > resumed + notify;
    uint64_t woke_until = resumed + timeout + notify;
    return n->clock->jumps > 0 && e->lost_at_us >= resumed && e->lost_at_us <= woke_until &&
           last <= woke_until && !spoke;
}

/* Whether the machines still together (this one and its live peers, two or
 * more) are not the match, and how this machine knows; 0 if they are. The
 * match is the side holding more than half of the machines playing just
 * before the latest losses, or exactly half with the lowest player of
 * them: both sides of a clean cut count the same machines, so exactly one
 * side plays on (docs/NETWORK.md, "Which side is the match"). */
static tempo_dropped_reason why_minority(const tempo_p2p *n)
{
    uint64_t last = 0;
    for (int i = 0; i < n->npeers; i++) {
        const p2p_peer *e = &n->peers[i];
        if (e->role == P2P_ROLE_PEER && p2p_lost(e) && e->lost_at_us > last &&
            (e->lost_how == P2P_LOST_TIMEOUT || e->lost_how == P2P_LOST_REFUSED))
            last = e->lost_at_us;
    }
    int ours = 1, theirs = 0, refused = 0;
    uint32_t our_players = n->local_mask, their_players = 0;
    for (int i = 0; i < n->npeers; i++) {
        const p2p_peer *e = &n->peers[i];
        if (e->role != P2P_ROLE_PEER)
            continue;
        if (!p2p_lost(e)) {
            ours++;
            our_players |= e->players;
        } else if (last != 0 && in_latest_losses(n, e, last)) {
            theirs++;
            their_players |= e->players;
            refused += e->lost_how == P2P_LOST_REFUSED;
        }
    }
    if (ours > theirs)
        return (tempo_dropped_reason)0;
    /* Players are numbered from 0, so the lower mask bit wins the tie. */
    if (ours == theirs && (our_players & (0u - our_players)) < (their_players & (0u - their_players)))
        return (tempo_dropped_reason)0;
    if (refused > 0)
        return TEMPO_DROPPED_REFUSED;
    return n->clock->jumps > 0 && last >= n->clock->resumed_us ? TEMPO_DROPPED_PAUSED : TEMPO_DROPPED_CUT_OFF;
}

void p2p_dropped_check(tempo_p2p *n)
{
    p2p_rejoin *j = &n->rejoin;
    if (n->spectating || n->left || j->dropped || n->npeers == 0 || !n->running)
        return;
    int live = 0;
    for (int i = 0; i < n->npeers; i++)
        live += n->peers[i].role == P2P_ROLE_PEER && !p2p_lost(&n->peers[i]);
    tempo_dropped_reason why = live == 0 ? why_alone(n) : why_minority(n);
    if (why != 0)
        dropped(n, why);
}

void p2p_dropped_on_refused(tempo_p2p *n, p2p_peer *e, int peer, const tempo_msg_rejoin_refused *m)
{
    p2p_rejoin *j = &n->rejoin;
    /* Keyed, an honest refusal names the epoch it was sealed under: ours. */
    if (peer < 0 || n->spectating || e->role != P2P_ROLE_PEER || (n->keyed && m->epoch != j->epoch)) {
        n->count.claims_ignored++;
        return;
    }
    if (j->returning && !j->loaded) {
        /* Coming back, refused: keyed, at an epoch used before. One move is
         * all an honest match needs; a second is allowed (its process
         * restarted once more meanwhile), no more: a lying participant
         * could otherwise push it past the epochs the others try. */
        if (n->keyed && j->epoch_moves < 2 && j->epoch + 1u <= KEYS_MAX_EPOCH) {
            tempo__log(&n->sync->log, TEMPO_LOG_INFO,
                       "tempo: key epoch %u was used in this match before: coming back at %u",
                       (unsigned)j->epoch, (unsigned)j->epoch + 1u);
            j->epoch_moves++;
            come_back(n, j->epoch + 1u);
        } else {
            n->count.claims_ignored++;
        }
        return;
    }
    if (!n->running) { /* it started into a match that runs without it */
        if (!j->dropped)
            dropped(n, TEMPO_DROPPED_REFUSED);
        return;
    }
    p2p_lose_peer_as(n, e, P2P_LOST_REFUSED);
}
