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
 * confirmed frame, twice (on two ticks, for loss), to every endpoint, at
 * most a few per tick in frame order; a received checksum is compared with
 * our own when both are known. A mismatch raises one DESYNC event per frame,
 * however many peers disagree.
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

void p2p_take_checksums(tempo_session *s)
{
    tempo_p2p *n = s->net;
    sync_sum c;
    while (sync_take_checksum(&s->sync, &c)) {
        *own_slot(s, c.frame) = c;
        for (int i = 0; i < n->npeers; i++)
            for (int k = 0; k < P2P_PENDING_SUMS && !n->peers[i].disconnected; k++) {
                /* a dropped peer's frames part from ours after the drop:
                 * its checksums, even those that came before, prove nothing */
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

static void send_sum(tempo_session *s, tempo_endpoint *e, const sync_sum *c)
{
    tempo_p2p *n = s->net;
    n->msg.type = TEMPO_MSG_CHECKSUM;
    n->msg.u.checksum.frame = c->frame;
    n->msg.u.checksum.checksum = c->checksum;
    p2p_send(s, e, &n->msg, NULL);
}

/* Walk an endpoint's cursor over our log: send what is there, skip what was
 * overwritten before its turn, stop at what is not computed yet. */
static int send_from(tempo_session *s, tempo_endpoint *e, int32_t *cursor, int32_t stop, int budget)
{
    int interval = s->cfg.desync_interval;
    while (budget > 0 && *cursor < stop) {
        const sync_sum *c = own_slot(s, *cursor);
        if (c->frame < *cursor)
            break; /* not computed yet */
        if (c->frame > *cursor) { /* overwritten: on to the oldest still held */
            int32_t oldest = c->frame - (P2P_SUM_LOG - 1) * interval;
            *cursor = oldest > *cursor ? oldest : *cursor + interval;
            continue;
        }
        send_sum(s, e, c);
        budget--;
        *cursor += interval;
    }
    return budget;
}

void p2p_send_checksums(tempo_session *s)
{
    tempo_p2p *n = s->net;
    int interval = s->cfg.desync_interval;
    if (n->spectating || interval <= 0)
        return;
    for (int i = 0; i < n->npeers + n->nspecs; i++) {
        tempo_endpoint *e = i < n->npeers ? &n->peers[i] : &n->specs[i - n->npeers];
        if (e->disconnected || !e->synchronized)
            continue;
        if (e->sum_first == 0)
            e->sum_first = e->sum_second = interval;
        /* Each checksum twice, on two ticks: repeats first, then news. */
        int budget = send_from(s, e, &e->sum_second, e->sum_first, P2P_SUMS_PER_TICK);
        send_from(s, e, &e->sum_first, INT32_MAX - interval, budget);
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
    /* Keep it until ours is final: in a free slot, else over the newest (the
     * oldest is the one our engine reaches first). */
    int slot = -1, newest = 0;
    for (int k = 0; k < P2P_PENDING_SUMS; k++) {
        int32_t f = n->pending[peer][k].frame;
        if (f == m->frame)
            return;
        if (f < 0 && slot < 0)
            slot = k;
        if (f > n->pending[peer][newest].frame)
            newest = k;
    }
    if (slot < 0) {
        if (m->frame > n->pending[peer][newest].frame)
            return; /* newer than all we keep: it comes again */
        slot = newest;
    }
    n->pending[peer][slot].frame = m->frame;
    n->pending[peer][slot].sum = m->checksum;
}
