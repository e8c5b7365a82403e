/* SPDX-License-Identifier: MIT */
/*
 * p2p_rejoin.c — a dropped machine coming back into a running p2p match by
 * state transfer, in the manner of INVERSUS's and GGPO's successors: the
 * match never waits for it.
 *
 * Survivors. A peer machine lost (timeout, leave) keeps its slot: its
 * players are DISCONNECTED from the frame the survivors agreed on
 * (p2p_agree.c). For rejoin_window_ms after the loss, a SYNC_REQUEST from
 * its address revives the link: a fresh link and replay window, as if the
 * machine were new (a restarted process starts its sequences again), once
 * the drop of each of its players is final. Nothing but the handshake,
 * pings and the rejoin messages goes to it until it runs. A revived link
 * whose handshake does not complete within the disconnect timeout is
 * closed again, and its players stay dropped.
 *
 * The rejoining machine (cfg.rejoin) handshakes with every peer as at a
 * start, then asks the synchronized peer hosting the lowest player for a
 * state (REJOIN_REQUEST, again every P2P_REJOIN_ASK_US until one comes).
 * The asked peer answers only if it is itself the live peer hosting the
 * lowest player and every player of the machine is finally dropped: it
 * takes the newest saved state of a confirmed, simulated frame F (not
 * below the machine's drop frames; without an arena the game gives it,
 * asked by a REJOIN_STATE event, as for desync diffs), picks the rejoin frame
 * R = its frame + half a second + two round trips (time for the state to
 * cross and the machine to catch up; every survivor confirms frames only a
 * little behind its own, so R is still ahead of all of them when they
 * hear of it), attaches the players from R (rollback/sync.h: before R
 * DISCONNECTED, from R real) and sends REJOIN_STATE (F, its live frame, R,
 * the other players dropped for good, the state) in fragments, and
 * REJOIN_FRAME (R) to every other live peer until its frame reaches R.
 * Each of those attaches the players from R too: every machine plays the
 * same inputs, so every state agrees.
 *
 * The rejoining machine restarts its engine at F with the state (nothing
 * allocated; without an arena the game loads it, told by a REJOIN_STATE
 * event), its own players DISCONNECTED up to R and local from R, and
 * runs: the peers send their inputs from F as to any peer that asks for
 * them, and the engine runs every frame it has inputs for, its ADVANCEs
 * flagged resimulating up to the sender's live frame (the fast-forward).
 * A lost fragment loses the state; the machine asks again and gets the
 * same one, until it plays (if that is after R, the others wait for its
 * inputs at R until it has caught up).
 *
 * Machines dropped together come back one after the other. The state says
 * only who is dropped, not who plays again from a later frame, so a peer
 * gives none while another drop is being agreed, and none of a frame
 * before a rejoin frame it knows (another machine's, or its own when it
 * came back itself): the asker asks again. A machine that loads a state
 * naming a peer dropped keeps that peer's link if the two handshook since
 * they came back (it is coming back too: as if its handshake had revived
 * the link here, so the announcement of its rejoin frame attaches it);
 * one not heard yet is closed with its rejoin window open, so its
 * handshake revives it as at any survivor, on a link numbered past the
 * closed one's (that machine heard its handshake requests). Keyed, each
 * comes back at an epoch the other does not know: a machine coming back
 * tries a handshake its keys do not open under the peer's newer epochs,
 * and under keys naming itself at the epochs it had (receive-only: it
 * learns the peer's epoch and answers under its own), p2p_rejoin_rekey.
 *
 * Keyed sessions: a restarted machine seals from sequence 0 again, so
 * under its old pair keys it would reuse their nonces. It comes back at a
 * key epoch it never used (cfg.rejoin_epoch) and every pair key it is part
 * of is derived for that epoch (wire/keys.h). A survivor opens a handshake
 * from a lost machine with the keys of the next P2P_REJOIN_EPOCHS epochs
 * (in a copy, a bounded number per poll); the first that opens it is
 * adopted with the revived link, and the old keys are gone. Datagrams of
 * its earlier life no longer open (docs/SECURITY.md, "Rejoin and key
 * epochs"). A new process knows every other machine at epoch 0; one
 * that came back before at a later epoch revives its link by trying the
 * handshake under keys naming itself at its earlier epochs too, as for two
 * machines dropped together. Known limit: a player dropped for good after
 * F is taken as dropped from F by the rejoining machine.
 *
 * Once it runs, a machine that came back reports, as its have of a player
 * the state named dropped, the frame the survivors agreed on (held_to): its
 * queue of that player begins at F as if every input before were real,
 * and a survivor still agreeing on that drop must settle where the others
 * did.
 */
#include "p2p/network.h"

#include <string.h>

#include "wire/keys.h"

tempo_result p2p_rejoin_open(tempo_p2p *n)
{
    p2p_rejoin *j = &n->rejoin;
    memset(j, 0, sizeof *j);
    j->asked_peer = -1;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        j->held_to[p] = IQ_NO_FRAME;
    const tempo_config *c = n->cfg;
    j->serving = c->rejoin_window_ms > 0 && !n->spectating;
    j->returning = c->rejoin;
    j->epoch = c->rejoin ? c->rejoin_epoch : 0u;
    /* A peer of a match that takes machines back may have to come back
     * itself (dropped while paused, cut off): what that needs is made now. */
    j->can_return = c->rejoin || j->serving;
    if (j->serving) {
        j->out = tempo__calloc(&c->allocator, 1, FRAG_MAX_PAYLOAD);
        if (!j->out)
            return TEMPO_E_NO_MEMORY;
    }
    if (j->can_return && c->arena == NULL) { /* where the state waits for the game */
        j->in = tempo__calloc(&c->allocator, 1, TEMPO_MSG_STATE_MAX);
        if (!j->in)
            return TEMPO_E_NO_MEMORY;
    }
    if (j->can_return) {
        if (frag_create(&j->frag, 1, 2000000u, &c->allocator) != TEMPO_OK)
            return TEMPO_E_NO_MEMORY;
        j->assembling = true;
    }
    return TEMPO_OK;
}

int32_t p2p_rejoin_have(const tempo_p2p *n, int x)
{
    return tempo__min32(n->sync->q[x].known_end, n->rejoin.held_to[x]);
}

void p2p_rejoin_close(tempo_p2p *n)
{
    p2p_rejoin *j = &n->rejoin;
    tempo__free(&n->cfg->allocator, j->out);
    j->out = NULL;
    tempo__free(&n->cfg->allocator, j->in);
    j->in = NULL;
    if (j->assembling)
        frag_destroy(&j->frag);
    j->assembling = false;
}

/* The window counts from the first loss: a revived link lost again does
 * not extend it; a machine taken back starts afresh (attach). */
void p2p_rejoin_on_lost(tempo_p2p *n, int peer)
{
    if (n->rejoin.lost_us[peer] == 0)
        n->rejoin.lost_us[peer] = n->clock->now_us ? n->clock->now_us : 1;
}

bool p2p_rejoin_never_back(const tempo_p2p *n, const p2p_peer *e)
{
    if (!e->rejoining)
        return false;
    for (int p = 0; p < n->cfg->num_players; p++)
        if ((e->players & (1u << p)) && n->sync->q[p].disconnect_frame == IQ_NO_FRAME)
            return false;
    return true;
}

/* Every player of e is dropped for good (or already attached again): no
 * drop of one is still being agreed. */
static bool drops_final(const tempo_p2p *n, const p2p_peer *e)
{
    for (int p = 0; p < n->cfg->num_players; p++)
        if ((e->players & (1u << p)) && n->drop_state[p] != DROP_FINAL &&
            (n->drop_state[p] == DROP_PENDING || n->sync->q[p].disconnect_frame != IQ_NO_FRAME))
            return false;
    return true;
}

/* Keyed: the pair keys of the first epoch above e's (at most
 * P2P_REJOIN_EPOCHS above) under which the datagram opens, into *keys and
 * *epoch; with `stale`, also naming us at an epoch we had (two machines
 * that came back together each know the other at its old epoch until one
 * hears the other). The datagram is opened in a copy: n->buf stays as it
 * came. Only *keys of our own epoch ever leave: nothing is sealed under an
 * epoch we had. */
bool p2p_rejoin_newer_epoch(tempo_p2p *n, const p2p_peer *e, const tempo_packet_view *v, size_t size,
                            wire_keys *keys, uint32_t *epoch, bool *stale)
{
    p2p_rejoin *j = &n->rejoin;
    if (!v->h.sealed || j->tries >= P2P_REJOIN_TRIES_PER_POLL)
        return false;
    j->tries++;
    p2p_peer probe = *e;
    uint32_t lowest = j->epoch;
    if (stale)
        lowest = j->epoch > P2P_REJOIN_EPOCHS ? j->epoch - P2P_REJOIN_EPOCHS : 0u;
    bool found = false;
    uint32_t self = j->epoch + 1u;
    /* An epoch learned since we came back is the peer's new one: its
     * handshakes under it revive its lost link (no earlier life used it). */
    bool learned = p2p_lost(e) && e >= n->peers && e < n->peers + P2P_MAX_PEERS && j->learned[e - n->peers];
    uint32_t first = learned ? e->epoch : e->epoch + 1u;
    while (!found && self-- > lowest) {
        for (uint32_t k = first; k <= e->epoch + P2P_REJOIN_EPOCHS && k <= KEYS_MAX_EPOCH; k++) {
            probe.epoch = k;
            if (!p2p_link_keys_as(n, &probe, self, keys))
                break;
            if (net_receive_would_pass(keys, NULL, 0, n->buf, size)) { /* as a fresh link's first */
                *epoch = k;
                found = true;
                break;
            }
        }
    }
    if (stale)
        *stale = found && self != j->epoch;
    if (found && self != j->epoch) { /* the keys to answer with name us as we are */
        probe.epoch = *epoch;
        found = p2p_link_keys(n, &probe, keys);
    }
    seal_keys_wipe(&probe.keys);
    if (!found)
        seal_keys_wipe(keys);
    return found;
}

bool p2p_rejoin_rekey(tempo_p2p *n, int peer, const tempo_packet_view *v, size_t size)
{
    p2p_peer *e = &n->peers[peer];
    uint8_t type = v->h.type;
    if (!n->keyed || !n->rejoin.returning || e->role != P2P_ROLE_PEER || p2p_synced(e) ||
        (type != TEMPO_MSG_SYNC_REQUEST && type != TEMPO_MSG_SYNC_REPLY) ||
        net_receive_would_pass(&e->keys, &e->replay, link_recv_newest(&e->link), n->buf, size))
        return false;
    wire_keys keys;
    uint32_t epoch = e->epoch;
    bool stale = false;
    memset(&keys, 0, sizeof keys);
    if (!p2p_rejoin_newer_epoch(n, e, v, size, &keys, &epoch, &stale))
        return false; /* a copy or a forgery: received as usual, and counted */
    seal_keys_wipe(&e->keys);
    e->keys = keys;
    e->epoch = epoch;
    seal_keys_wipe(&keys);
    n->rejoin.learned[peer] = true;
    n->rejoin.rekeyed++;
    return stale;
}

bool p2p_rejoin_may_revive(const tempo_p2p *n, int peer)
{
    const p2p_rejoin *j = &n->rejoin;
    const p2p_peer *e = &n->peers[peer];
    bool in_window = j->lost_us[peer] != 0 && n->cfg->rejoin_window_ms > 0 &&
                     n->clock->now_us - j->lost_us[peer] <= (uint64_t)n->cfg->rejoin_window_ms * 1000u;
    /* Lost, or revived but none of its players back yet (it started its
     * links again: a new key epoch, or its process restarted once more). */
    bool out = p2p_lost(e) || p2p_rejoin_never_back(n, e);
    return j->serving && in_window && e->role == P2P_ROLE_PEER && out && drops_final(n, e);
}

void p2p_rejoin_revived(tempo_p2p *n, int peer)
{
    p2p_peer *e = &n->peers[peer];
    link_handshake_announce(&e->link, false);
    e->rejoining = true;
    n->rejoin.revived_us[peer] = n->clock->now_us;
}

bool p2p_rejoin_revive(tempo_p2p *n, int peer, const tempo_packet_view *v, size_t size, bool *used)
{
    p2p_rejoin *j = &n->rejoin;
    *used = false;
    if (v->h.type != TEMPO_MSG_SYNC_REQUEST)
        return false;
    p2p_peer *e = &n->peers[peer];
    if (!p2p_rejoin_may_revive(n, peer)) {
        j->refused++;
        return false;
    }
    wire_keys keys;
    uint32_t epoch = e->epoch;
    memset(&keys, 0, sizeof keys);
    uint64_t floor = 0;
    if ((n->keyed && !p2p_rejoin_newer_epoch(n, e, v, size, &keys, &epoch, used)) ||
        !p2p_restart_seq_floor(n, peer, epoch, &floor)) {
        seal_keys_wipe(&keys);
        j->refused++; /* the old epoch's keys, a forgery, tries used up, or below one probed */
        return false;
    }
    /* The new process that answered our probes at this epoch, if any, keeps
     * its link; otherwise a fresh one, numbered past what any probe of
     * ours sent under these keys. */
    if (!p2p_restart_adopt(n, peer, epoch)) {
        link_config lc = e->link.cfg;
        tempo_address addr = e->addr;
        uint32_t players = e->players;
        /* A machine coming back beside us heard the closed link's
         * handshake requests: its window would take nothing older, so the
         * numbering goes on past them (fresh keys or not, no number is
         * used twice). Any other starts from the floor: a new process
         * holds a number far ahead of nothing as suspect. */
        bool same_keys = n->keyed && epoch == e->epoch; /* an epoch learned: no number twice under them */
        if ((j->closed_beside[peer] || same_keys) && link_next_seq(&e->link) > floor)
            floor = link_next_seq(&e->link);
        j->closed_beside[peer] = false;
        p2p_peer_init(e, &addr, P2P_ROLE_PEER, players);
        e->epoch = epoch;
        e->keys = keys;
        link_init(&e->link, &lc, n->clock->now_us);
        link_start_at(&e->link, floor);
    }
    seal_keys_wipe(&keys);
    p2p_rejoin_revived(n, peer);
    return true;
}

int p2p_rejoin_fragment(tempo_p2p *n, int peer, const uint8_t **body, size_t *size,
                        tempo_drop_reason *why)
{
    p2p_rejoin *j = &n->rejoin;
    *why = TEMPO_DROP_NONE;
    if (*size < FRAG_HEADER_SIZE) {
        *why = TEMPO_DROP_TRUNCATED;
        return TEMPO_E_MALFORMED;
    }
    if (j->assembling && j->loaded && peer == j->asked_peer)
        return 0; /* the rest of a copy sent again when we asked twice */
    if (!j->returning || !j->assembling || j->loaded || peer < 0) { /* nobody here asked for a state */
        j->refused++;
        return 0;
    }
    frag_expire(&j->frag, n->clock->now_us);
    tempo_frag_message msg;
    int r = frag_receive(&j->frag, n->clock->now_us, TEMPO_MSG_REJOIN_STATE, *body, *size, &msg, why);
    if (r <= 0)
        return r < 0 ? TEMPO_E_MALFORMED : 0;
    *body = msg.data;
    *size = msg.size;
    return 1;
}

/* The live peer hosting the lowest player, other than the one rejoining:
 * us (-1) or a peer index. */
static int lowest_live(const tempo_p2p *n, int except)
{
    int best = -1, best_player = p2p_first_player(n->local_mask);
    for (int i = 0; i < n->npeers; i++) {
        const p2p_peer *e = &n->peers[i];
        if (i == except || e->role != P2P_ROLE_PEER || p2p_lost(e) || e->rejoining)
            continue;
        int first = p2p_first_player(e->players);
        if (best_player < 0 || (first >= 0 && first < best_player)) {
            best = i;
            best_player = first;
        }
    }
    return best;
}

/* Our newest saved state of a confirmed, simulated frame, not below
 * `floor`: its slot, or -1. */
static int confirmed_slot(const tempo_p2p *n, int32_t floor)
{
    const tempo_sync *s = n->sync;
    int32_t top = tempo__min32(s->confirmed_log.end, s->frame);
    if (s->first_incorrect != IQ_NO_FRAME && s->first_incorrect < top)
        top = s->first_incorrect; /* states past a wrong guess are not final yet */
    int best = -1;
    for (int i = 0; i < s->nslots; i++) {
        int32_t f = s->slots[i].frame;
        if (f >= floor && f >= s->load_floor && f <= top && (best < 0 || f > s->slots[best].frame))
            best = i;
    }
    return best;
}

static void rejoined_event(tempo_p2p *n, int player, int32_t frame)
{
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TEMPO_EVENT_REJOINED;
    ev.player = player;
    ev.u.rejoined.frame = frame;
    p2p_push_event(n, &ev);
}

/* Attach e's players from `frame` on: they play again. False if the engine
 * refuses (the frame is already confirmed here). */
static bool attach(tempo_p2p *n, p2p_peer *e, int32_t frame)
{
    for (int p = 0; p < n->cfg->num_players; p++)
        if ((e->players & (1u << p)) && sync_attach_frame(n->sync, p) > frame)
            return false;
    for (int p = 0; p < n->cfg->num_players; p++) {
        if (!(e->players & (1u << p)))
            continue;
        if (sync_attach(n->sync, p, SYNC_REMOTE, frame) != TEMPO_OK)
            return false;
        n->drop_state[p] = DROP_NONE;
        n->drop_waiting_since[p] = 0;
        n->rejoin.attached_at[p] = frame;
        n->rejoin.held_to[p] = IQ_NO_FRAME;
    }
    for (int i = 0; i < n->npeers; i++) { /* nobody's old news of the drop stands */
        n->peers[i].claim_mask &= (uint8_t)~e->players;
        n->peers[i].gossip_mask &= (uint8_t)~e->players;
    }
    if (e >= n->peers && e < n->peers + P2P_MAX_PEERS) /* a later drop opens a new window */
        n->rejoin.lost_us[e - n->peers] = 0;
    n->rejoin.rejoins++;
    rejoined_event(n, p2p_first_player(e->players), frame);
    return true;
}

/* Build the REJOIN_STATE of frame `frame` (the state: size bytes at
 * state) for e, attach a rejoining peer's players, and start sending.
 * TEMPO_OK, or TEMPO_E_FULL (the state does not fit a message),
 * TEMPO_E_FRAME (the inputs before it or the rejoin frame are out of
 * reach); counted refused then. */
static tempo_result send_state(tempo_p2p *n, p2p_peer *e, int32_t frame, const void *state,
                               size_t size)
{
    p2p_rejoin *j = &n->rejoin;
    bool rejoining = e->role == P2P_ROLE_PEER;
    /* A spectator follows the confirmed stream from the state on; a
     * rejoining peer plays again from a frame far enough ahead. */
    int fps = n->cfg->frames_per_second;
    int32_t rtt_frames = (int32_t)((int64_t)link_rtt_us(&e->link) * fps / 1000000);
    int32_t rejoin = rejoining ? n->sync->frame + fps / 2 + 2 * rtt_frames + 1 : n->sync->frame + 1;
    tempo_msg *msg = &n->msg;
    memset(&msg->u.rejoin_state, 0, sizeof msg->u.rejoin_state);
    msg->type = TEMPO_MSG_REJOIN_STATE;
    tempo_msg_rejoin_state *s = &msg->u.rejoin_state;
    s->frame = frame;
    s->live_frame = n->sync->frame;
    s->rejoin_frame = rejoin;
    s->player_mask = (uint8_t)e->players;
    for (int p = 0; p < n->cfg->num_players; p++) {
        int32_t d = n->sync->q[p].disconnect_frame;
        if (!(e->players & (1u << p)) && d != IQ_NO_FRAME) {
            s->disconnected_mask |= (uint8_t)(1u << p);
            s->disconnect_frame[p] = d;
        }
    }
    s->size = (uint32_t)size;
    s->data = state;
    size_t is = (size_t)n->cfg->input_size;
    if (frame > 0) { /* the inputs of the frame before: the log holds every confirmed one */
        for (int p = 0; p < n->cfg->num_players; p++) {
            const uint8_t *in = input_log_input(&n->sync->confirmed_log, frame - 1, p);
            if (!in) {
                j->refused++;
                return TEMPO_E_FRAME;
            }
            memcpy(j->prev + (size_t)p * is, in, is);
        }
        s->prev = j->prev;
        s->prev_size = (uint16_t)((size_t)n->cfg->num_players * is);
    }
    int body = size <= TEMPO_MSG_STATE_MAX ? tempo_codec_encode_body(msg, NULL, j->out, FRAG_MAX_PAYLOAD)
                                           : TEMPO_E_FULL;
    if (body <= 0) {
        j->refused++;
        return TEMPO_E_FULL;
    }
    if (rejoining && !attach(n, e, rejoin)) {
        j->refused++;
        return TEMPO_E_FRAME;
    }
    j->out_size = (size_t)body;
    j->out_to = e;
    j->out_next = 0;
    j->out_id++;
    j->states_sent++;
    if (rejoining) {
        j->announce_mask = (uint8_t)e->players;
        j->announce_frame = rejoin;
        j->announce_us = 0;
    }
    return TEMPO_OK;
}

void p2p_rejoin_on_request(tempo_p2p *n, p2p_peer *e, int peer, const tempo_msg_rejoin_request *m)
{
    p2p_rejoin *j = &n->rejoin;
    bool spectator = peer < 0 && e->role == P2P_ROLE_SPECTATOR;
    bool rejoining = peer >= 0 && e->role == P2P_ROLE_PEER && e->rejoining;
    if (!j->serving || !n->running || !p2p_synced(e) || (!spectator && !rejoining) ||
        m->player_mask != e->players || (rejoining && lowest_live(n, peer) != -1) ||
        (j->out_to != NULL && j->out_to != e) || (j->wanted_for != NULL && j->wanted_for != e)) {
        j->refused++;
        return;
    }
    if (j->out_to == e) { /* asked again: the same state once more */
        j->out_next = 0;
        j->out_id++;
        return;
    }
    if (j->wanted_for == e)
        return; /* asked again: the game has not given the state yet */
    if (rejoining && !drops_final(n, e)) {
        j->refused++;
        return;
    }
    /* The state names who is dropped: not while another drop is still
     * being agreed (machines dropped together come back one by one). */
    for (int p = 0; p < n->cfg->num_players; p++)
        if (!(e->players & (1u << p)) && n->drop_state[p] == DROP_PENDING) {
            j->refused++;
            return;
        }
    int32_t floor = 0;
    for (int p = 0; p < n->cfg->num_players; p++) {
        if ((e->players & (1u << p)) && n->sync->q[p].disconnect_frame != IQ_NO_FRAME &&
            n->sync->q[p].disconnect_frame > floor)
            floor = n->sync->q[p].disconnect_frame;
        /* Another machine taken back (two dropped together come back one
         * after the other): the state says only who is dropped, so it must
         * be of a frame where that one plays again. Until one is
         * confirmed, the machine asks again. */
        if (!(e->players & (1u << p)) && n->rejoin.attached_at[p] > floor)
            floor = n->rejoin.attached_at[p];
    }
    int slot = confirmed_slot(n, floor);
    if (slot < 0) {
        j->refused++;
        return;
    }
    int32_t frame = n->sync->slots[slot].frame;
    if (n->sync->arena) {
        (void)send_state(n, e, frame, n->sync->arena_store + (size_t)slot * n->cfg->arena_size,
                         n->cfg->arena_size);
        return;
    }
    /* The game holds the state: it gives it with tempo_session_provide_state. */
    j->wanted_for = e;
    j->wanted_frame = frame;
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TEMPO_EVENT_REJOIN_STATE;
    ev.player = p2p_first_player(e->players);
    ev.u.rejoin_state.frame = frame;
    ev.u.rejoin_state.wanted = true;
    ev.u.rejoin_state.slot = slot;
    p2p_push_event(n, &ev);
}

bool p2p_rejoin_provide(tempo_p2p *n, int32_t frame, const void *state, size_t size,
                        tempo_result *r)
{
    p2p_rejoin *j = &n->rejoin;
    if (j->wanted_for == NULL || frame != j->wanted_frame)
        return false;
    p2p_peer *e = j->wanted_for;
    j->wanted_for = NULL;
    /* Frames may have run since it was asked for; the inputs before it must
     * still be logged (send_state checks). */
    *r = p2p_lost(e) ? TEMPO_E_STATE : send_state(n, e, frame, state, size);
    return true;
}

void p2p_rejoin_on_frame(tempo_p2p *n, int peer, const tempo_msg_rejoin_frame *m)
{
    p2p_rejoin *j = &n->rejoin;
    int h = -1;
    for (int p = 0; p < n->cfg->num_players; p++)
        if (m->player_mask & (1u << p)) {
            h = n->player_peer[p];
            break;
        }
    if (peer < 0 || h < 0 || h == peer || n->peers[h].players != m->player_mask ||
        n->peers[peer].rejoining) {
        j->refused++;
        return;
    }
    p2p_peer *e = &n->peers[h];
    int first = p2p_first_player(e->players);
    if (n->sync->q[first].disconnect_frame == IQ_NO_FRAME) {
        if (j->attached_at[first] != m->frame) /* a player who never left, or another frame */
            j->refused++;
        return; /* otherwise a repeat: attached already */
    }
    /* Only once its handshake revived the link here: if the machine dies
     * again, losing the link restarts the drop agreement about it. A
     * repeat comes every P2P_REJOIN_ANNOUNCE_US until the frame. */
    if (p2p_lost(e) || !drops_final(n, e) || !attach(n, e, m->frame))
        j->refused++;
}

void p2p_rejoin_on_state(tempo_p2p *n, int peer, const tempo_msg_rejoin_state *m)
{
    p2p_rejoin *j = &n->rejoin;
    tempo_sync *s = n->sync;
    if (!j->returning || j->loaded || peer < 0 || peer != j->asked_peer ||
        m->player_mask != n->local_mask ||
        (s->arena && m->size != n->cfg->arena_size) || (m->disconnected_mask & n->local_mask) ||
        m->rejoin_frame - m->frame >= sync_queue_capacity(s->max_pred) / 2) {
        j->refused++;
        return;
    }
    if (m->prev_size != (m->frame > 0 ? (size_t)n->cfg->num_players * (size_t)n->cfg->input_size : 0u)) {
        j->refused++;
        return;
    }
    if (m->prev_size > 0)
        memcpy(j->prev, m->prev, m->prev_size);
    if (s->arena) {
        memcpy(s->arena, m->data, m->size);
    } else { /* the game loads it (tempo_session_rejoin_state) before its next advance */
        memcpy(j->in, m->data, m->size);
        j->in_size = m->size;
    }
    sync_restart(s, m->frame);
    s->catch_up_end = m->live_frame;
    j->loaded = true;
    j->catching_up = true;
    j->loaded_frame = m->frame;
    j->catch_up_end = m->live_frame;
    for (int p = 0; p < n->cfg->num_players; p++) {
        if (n->local_mask & (1u << p)) {
            sync_disconnect(s, p, m->frame);
            (void)sync_attach(s, p, SYNC_LOCAL, m->rejoin_frame);
            j->attached_at[p] = m->rejoin_frame; /* a state we give is of a frame past it */
        } else if (m->disconnected_mask & (1u << p)) {
            int h = n->player_peer[p];
            p2p_peer *e = h >= 0 && !n->spectating ? &n->peers[h] : NULL; /* a spectator's one peer is the host */
            if (e && j->serving && p2p_synced(e) && !p2p_lost(e)) {
                /* A machine that came back beside us (dropped with us) and
                 * handshook with our new life: as if its handshake had
                 * revived the link here, so the announcement of its own
                 * rejoin frame attaches it (on_frame). */
                e->rejoining = true;
                j->revived_us[h] = n->clock->now_us;
            } else if (e && !p2p_lost(e)) {
                /* Not heard yet: one dropped with us may still come back,
                 * and its handshake revives the link as at any survivor. */
                link_close(&e->link);
                j->closed_beside[h] = true;
                e->lost_how = P2P_LOST_DROPPED;
                e->lost_at_us = n->clock->now_us;
                j->lost_us[h] = n->clock->now_us ? n->clock->now_us : 1;
            }
            /* The survivors agreed on the drop frame, which this machine
             * cannot back: it holds no input of p from there (its queue
             * begins at the state's frame). It reports that frame, so a
             * survivor still agreeing on p's drop settles where the others
             * did, not on the state's frame. */
            n->drop_state[p] = DROP_FINAL;
            j->held_to[p] = tempo__min32(m->disconnect_frame[p], m->frame);
            n->drop_frame[p] = j->held_to[p];
            p2p_disconnect(n, p, m->frame);
        }
    }
    j->dropped = false; /* back in the match */
    p2p_start_running(n);
    if (!s->arena) {
        tempo_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = TEMPO_EVENT_REJOIN_STATE;
        ev.player = -1;
        ev.u.rejoin_state.frame = m->frame;
        ev.u.rejoin_state.size = m->size;
        p2p_push_event(n, &ev);
    }
    rejoined_event(n, p2p_first_player(n->local_mask), m->rejoin_frame);
}

static void send_fragments(tempo_p2p *n)
{
    p2p_rejoin *j = &n->rejoin;
    p2p_peer *e = j->out_to;
    if (e == NULL)
        return;
    int count = frag_count(j->out_size);
    int last = count == 0 ? 1 : count;
    if (p2p_lost(e) || j->out_next >= last)
        return;
    for (int k = 0; k < P2P_REJOIN_FRAGS_PER_TICK && j->out_next < last; k++) {
        uint64_t seq = link_next_seq(&e->link);
        tempo_packet_header h = {n->cfg->session_id, (uint16_t)seq, TEMPO_MSG_REJOIN_STATE, false, false};
        int size;
        if (count == 0) { /* one datagram holds it */
            size = packet_write(&h, n->buf, sizeof n->buf);
            if (size == PACKET_HEADER_SIZE) {
                memcpy(n->buf + PACKET_HEADER_SIZE, j->out, j->out_size);
                size += (int)j->out_size;
            }
        } else {
            size = frag_write(&h, j->out_id, j->out, j->out_size, j->out_next, n->buf, sizeof n->buf);
        }
        j->out_next++;
        if (size > 0)
            (void)p2p_send_datagram(n, e, seq, (size_t)size);
    }
}

static bool j_done_spectator(const tempo_p2p *n)
{
    const p2p_rejoin *j = &n->rejoin;
    if (j->out_to == NULL || j->out_to->role != P2P_ROLE_SPECTATOR)
        return false;
    int count = frag_count(j->out_size);
    return j->out_next >= (count == 0 ? 1 : count);
}

static void announce(tempo_p2p *n)
{
    p2p_rejoin *j = &n->rejoin;
    if (j->announce_mask == 0)
        return;
    if (n->sync->frame >= j->announce_frame) {
        j->announce_mask = 0;
        return;
    }
    if (j->announce_us != 0 && n->clock->now_us - j->announce_us < P2P_REJOIN_ANNOUNCE_US)
        return;
    j->announce_us = n->clock->now_us ? n->clock->now_us : 1;
    for (int i = 0; i < n->npeers; i++) {
        p2p_peer *e = &n->peers[i];
        if ((e->players & j->announce_mask) || e->role != P2P_ROLE_PEER || p2p_lost(e) || !p2p_synced(e) ||
            e->rejoining)
            continue;
        n->msg.type = TEMPO_MSG_REJOIN_FRAME;
        n->msg.u.rejoin_frame.player_mask = j->announce_mask;
        n->msg.u.rejoin_frame.frame = j->announce_frame;
        p2p_send(n, e, &n->msg, NULL);
    }
}

static void ask(tempo_p2p *n)
{
    p2p_rejoin *j = &n->rejoin;
    if (j->asked_us != 0 && n->clock->now_us - j->asked_us < P2P_REJOIN_ASK_US)
        return;
    int best = -1;
    for (int i = 0; i < n->npeers; i++) {
        const p2p_peer *e = &n->peers[i];
        if (p2p_lost(e) || !p2p_synced(e))
            continue;
        if (best < 0 || p2p_first_player(e->players) < p2p_first_player(n->peers[best].players))
            best = i;
    }
    if (best < 0)
        return;
    j->asked_us = n->clock->now_us ? n->clock->now_us : 1;
    j->asked_peer = best;
    n->msg.type = TEMPO_MSG_REJOIN_REQUEST;
    n->msg.u.rejoin_request.player_mask = (uint8_t)n->local_mask;
    p2p_send(n, &n->peers[best], &n->msg, NULL);
}

/* A revived link whose handshake does not complete within the disconnect
 * timeout (nobody is there: a stray or forged handshake) is closed again;
 * its players stay dropped as agreed. */
static void expire_revivals(tempo_p2p *n)
{
    uint64_t limit = (uint64_t)n->cfg->disconnect_timeout_ms * 1000u;
    for (int i = 0; i < n->npeers; i++) {
        p2p_peer *e = &n->peers[i];
        if (e->rejoining && !p2p_lost(e) && !p2p_synced(e) &&
            n->clock->now_us - n->rejoin.revived_us[i] >= limit)
            p2p_lose_peer(n, e);
    }
}

/* A lost peer machine's keys stay while it may come back (to refuse its
 * earlier life's traffic under them); past its window they go. */
static void forget_lost_keys(tempo_p2p *n)
{
    for (int i = 0; i < n->npeers; i++) {
        p2p_peer *e = &n->peers[i];
        if (p2p_lost(e) && e->keys.ready && n->rejoin.lost_us[i] != 0 &&
            n->clock->now_us - n->rejoin.lost_us[i] > (uint64_t)n->cfg->rejoin_window_ms * 1000u)
            seal_keys_wipe(&e->keys);
    }
}

void p2p_rejoin_poll(tempo_p2p *n)
{
    n->rejoin.tries = 0;
    if (n->rejoin.serving)
        expire_revivals(n);
    if (n->rejoin.serving)
        forget_lost_keys(n);
    if (n->rejoin.returning && !n->rejoin.loaded) {
        ask(n);
        return;
    }
    send_fragments(n);
    announce(n);
    /* The state stays at hand for a machine that asks again (every
     * fragment lost) until it plays (its first INPUT) or is lost; a
     * spectator's slot is free once its state went out whole. */
    p2p_peer *to = n->rejoin.out_to;
    if (to && (p2p_lost(to) || (to->role == P2P_ROLE_PEER && !to->rejoining) || j_done_spectator(n)))
        n->rejoin.out_to = NULL;
}

/* The catch-up: every frame run in the ticks after the state came, until
 * the first tick that runs one frame or none (the machine is live). */
void p2p_rejoin_after_tick(tempo_p2p *n, const tempo_tick *tick)
{
    p2p_rejoin *j = &n->rejoin;
    if (!j->catching_up)
        return;
    if (tick->frames_advanced > 1)
        j->fast_forwarded += (uint64_t)tick->frames_advanced;
    else
        j->catching_up = false;
}

bool p2p_rejoin_reference(const tempo_p2p *n, int player, int32_t frame, uint8_t *out)
{
    const p2p_rejoin *j = &n->rejoin;
    if (!j->loaded || j->loaded_frame == 0 || frame != j->loaded_frame - 1)
        return false;
    size_t is = (size_t)n->cfg->input_size;
    memcpy(out, j->prev + (size_t)player * is, is);
    return true;
}

tempo_result p2p_rejoin_state(const void *b, const void **state, size_t *size, int32_t *frame)
{
    const tempo_p2p *n = b;
    const p2p_rejoin *j = &n->rejoin;
    if (!j->can_return || n->sync->arena)
        return TEMPO_E_UNSUPPORTED;
    if (!j->loaded)
        return TEMPO_E_STATE;
    *state = j->in;
    *size = j->in_size;
    *frame = j->loaded_frame;
    return TEMPO_OK;
}

bool p2p_rejoin_waiting(const tempo_p2p *n)
{
    return n->rejoin.returning && !n->rejoin.loaded;
}
