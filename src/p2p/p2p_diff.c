/* SPDX-License-Identifier: MIT */
/*
 * p2p_diff.c — desync diffs: when a peer's checksum of check frame F differs
 * from ours (p2p_agree.c), each machine sends the other its state of F in
 * one DESYNC_STATE message (docs/PROTOCOL.md section 15), fragmented
 * (wire/fragment.h) and sealed like every datagram of the session, and
 * compares the state that comes back with its own: the byte ranges that
 * differ go to the game in TEMPO_EVENT_DESYNC_DIFF. Godot Rollback
 * Netcode's log inspector, which shows two peers' states of the frame that
 * went wrong side by side, is the model; tempo does the exchange itself.
 *
 * Where our state comes from. In arena mode, when a check frame's checksum
 * becomes final, the arena saved in the engine's slot for that frame is
 * copied into a ring of the P2P_DIFF_KEEP newest (the copy is verified
 * against the checksum, so a slot already reused is never sent). Without an
 * arena the DESYNC event asks the game, and tempo_session_provide_state
 * hands the state over.
 *
 * Limits, each a bound on what a peer can make us do. One frame is
 * exchanged at a time, for P2P_DIFF_HOLD_US: desyncs of other frames
 * meanwhile are skipped (counted). Our state goes to each peer at most once
 * per frame, P2P_DIFF_FRAGS_PER_TICK fragments per tick, so inputs and
 * checksums keep their room. A state is accepted from a peer only for a
 * check frame whose checksum we hold and which differs from the one the
 * message carries, once per peer and frame, no larger than our own cap
 * (fragments announcing more are refused before reassembly), and one peer's
 * fragments at a time; anything else is ignored and counted. Nothing is
 * resent: a lost fragment loses that diff.
 */
#include "p2p/network.h"

#include <string.h>

tempo_result p2p_diff_open(tempo_p2p *n)
{
    p2p_diff *d = &n->diff;
    const tempo_config *cfg = n->cfg;
    memset(d, 0, sizeof *d);
    d->frame = -1;
    d->remote_peer = -1;
    d->frag_peer = -1;
    for (int i = 0; i < TEMPO_MAX_PLAYERS; i++)
        d->got_frame[i] = 0;
    for (int k = 0; k < P2P_DIFF_KEEP; k++)
        d->keep_frame[k] = -1;
    d->cap = cfg->desync_interval > 0 ? cfg->desync_diff_max_bytes : 0;
    if (d->cap == 0)
        return TEMPO_OK;
    const tempo_allocator *a = &cfg->allocator;
    if (cfg->arena) {
        d->keep_each = cfg->arena_size <= d->cap ? cfg->arena_size : 0;
        d->keep_slots = d->keep_each ? P2P_DIFF_KEEP : 0;
    } else {
        d->keep_each = d->cap;
        d->keep_slots = 1;
    }
    if (d->keep_slots > 0) {
        d->keep = tempo__calloc(a, (size_t)d->keep_slots, d->keep_each);
        if (!d->keep)
            return TEMPO_E_NO_MEMORY;
    }
    d->out = tempo__calloc(a, 1, d->cap + P2P_DIFF_HEAD);
    d->remote = tempo__calloc(a, 1, d->cap);
    d->shown_local = tempo__calloc(a, 1, d->cap);
    d->shown_remote = tempo__calloc(a, 1, d->cap);
    d->frag_mem = tempo__calloc(a, 1, frag_memory_size(1));
    if (!d->out || !d->remote || !d->shown_local || !d->shown_remote || !d->frag_mem)
        return TEMPO_E_NO_MEMORY;
    if (frag_init(&d->frag, 1, P2P_DIFF_FRAG_TIMEOUT_US, d->frag_mem, frag_memory_size(1)) != TEMPO_OK)
        return TEMPO_E_NO_MEMORY;
    return TEMPO_OK;
}

void p2p_diff_close(tempo_p2p *n)
{
    p2p_diff *d = &n->diff;
    const tempo_allocator *a = &n->cfg->allocator;
    tempo__free(a, d->keep);
    tempo__free(a, d->out);
    tempo__free(a, d->remote);
    tempo__free(a, d->shown_local);
    tempo__free(a, d->shown_remote);
    tempo__free(a, d->frag_mem);
    d->keep = d->out = d->remote = d->shown_local = d->shown_remote = d->frag_mem = NULL;
}

/* ---- our state ---------------------------------------------------------------- */

static int kept(const p2p_diff *d, int32_t frame)
{
    for (int k = 0; k < d->keep_slots; k++)
        if (d->keep_frame[k] == frame)
            return k;
    return -1;
}

void p2p_diff_capture(tempo_p2p *n, int32_t frame, uint64_t checksum)
{
    p2p_diff *d = &n->diff;
    const tempo_sync *s = n->sync;
    if (d->cap == 0 || !s->arena || d->keep_slots == 0)
        return;
    for (int k = 0; k < s->nslots; k++) {
        if (s->slots[k].frame != frame)
            continue;
        const uint8_t *state = s->arena_store + (size_t)k * s->arena_size;
        if (tempo_checksum(state, s->arena_size) != checksum)
            continue; /* the slot was reused since */
        int at = d->keep_next;
        d->keep_next = (d->keep_next + 1) % d->keep_slots;
        memcpy(d->keep + (size_t)at * d->keep_each, state, s->arena_size);
        d->keep_frame[at] = frame;
        d->keep_size[at] = s->arena_size;
        return;
    }
}

/* ---- the exchange ---------------------------------------------------------------- */

static void diff_event(tempo_p2p *n, int peer, int32_t frame, tempo_diff_status status)
{
    p2p_diff *d = &n->diff;
    if (d->reported & (1u << peer))
        return; /* one event per peer and frame: both our state and its may be too large */
    d->reported |= 1u << peer;
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TEMPO_EVENT_DESYNC_DIFF;
    ev.player = p2p_first_player(n->peers[peer].players);
    ev.u.diff.frame = frame;
    ev.u.diff.status = status;
    if (status == TEMPO_DIFF_DONE) {
        ev.u.diff.num_ranges = d->num_ranges;
        for (int i = 0; i < d->num_ranges && i < TEMPO_DIFF_INLINE_RANGES; i++)
            ev.u.diff.ranges[i] = d->ranges[i];
    }
    d->diffs++;
    p2p_push_event(n, &ev);
}

/* The exchange is free for `frame`: none under way, the same frame, or
 * the one under way has had its time. */
static bool take_frame(tempo_p2p *n, int32_t frame)
{
    p2p_diff *d = &n->diff;
    if (d->frame == frame)
        return true;
    if (d->frame >= 0 && n->clock->now_us - d->since_us < P2P_DIFF_HOLD_US)
        return false;
    d->frame = frame;
    d->since_us = n->clock->now_us;
    d->sent_to = d->want_from = d->reported = 0;
    d->out_ready = false;
    d->remote_peer = -1;
    return true;
}

/* Code our state of d->frame (size bytes at state, or none when too large)
 * as the DESYNC_STATE body every peer gets. */
static void prepare_out(tempo_p2p *n, const uint8_t *state, size_t size)
{
    p2p_diff *d = &n->diff;
    uint64_t sum = 0;
    (void)p2p_own_sum(n, d->frame, &sum);
    tempo_msg m;
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_DESYNC_STATE;
    m.u.state.frame = d->frame;
    m.u.state.checksum = sum;
    m.u.state.size = (uint32_t)size;
    m.u.state.carried = state != NULL && size <= d->cap;
    m.u.state.data = state;
    int body = tempo_codec_encode_body(&m, NULL, d->out, d->cap + P2P_DIFF_HEAD);
    d->out_ready = body > 0;
    d->out_size = body > 0 ? (size_t)body : 0;
}

static void send_to(tempo_p2p *n, int peer)
{
    p2p_diff *d = &n->diff;
    if (d->sent_to & (1u << peer))
        return;
    d->sent_to |= 1u << peer;
    d->out_next[peer] = 0;
    d->out_id[peer]++;
}

/* Both states of d->frame are here (ours, and the peer's in d->remote):
 * compare them and raise the event. */
static void compare_states(tempo_p2p *n, const uint8_t *local, size_t local_size)
{
    p2p_diff *d = &n->diff;
    int peer = d->remote_peer;
    d->remote_peer = -1;
    memcpy(d->shown_local, local, local_size);
    memcpy(d->shown_remote, d->remote, d->remote_size);
    d->shown_local_size = local_size;
    d->shown_remote_size = d->remote_size;
    d->shown_frame = d->frame;
    d->shown_player = p2p_first_player(n->peers[peer].players);
    d->shown_local_player = p2p_first_player(n->local_mask);
    d->shown = true;
    size_t common = local_size < d->remote_size ? local_size : d->remote_size;
    size_t longest = local_size > d->remote_size ? local_size : d->remote_size;
    d->num_ranges = 0;
    int total = 0;
    for (size_t i = 0; i < common;) {
        if (local[i] == d->remote[i]) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < common && local[i] != d->remote[i])
            i++;
        if (total < TEMPO_DIFF_MAX_RANGES)
            d->ranges[total] = (tempo_diff_range){(uint32_t)start, (uint32_t)(i - start)};
        total++;
    }
    if (longest > common) { /* the longer state's tail */
        if (total < TEMPO_DIFF_MAX_RANGES)
            d->ranges[total] = (tempo_diff_range){(uint32_t)common, (uint32_t)(longest - common)};
        total++;
    }
    d->num_ranges = total;
    diff_event(n, peer, d->frame, TEMPO_DIFF_DONE);
}

/* Our state of d->frame if we hold it (size in *size). */
static const uint8_t *own_state(const p2p_diff *d, size_t *size)
{
    int k = kept(d, d->frame);
    if (k < 0)
        return NULL;
    *size = d->keep_size[k];
    return d->keep + (size_t)k * d->keep_each;
}

static void try_compare(tempo_p2p *n)
{
    p2p_diff *d = &n->diff;
    size_t size = 0;
    const uint8_t *local = own_state(d, &size);
    if (d->remote_peer >= 0 && local)
        compare_states(n, local, size);
}

bool p2p_diff_on_desync(tempo_p2p *n, int peer, int32_t frame)
{
    p2p_diff *d = &n->diff;
    if (d->cap == 0)
        return false;
    if (!take_frame(n, frame)) {
        d->skipped++;
        return false;
    }
    if (d->sent_to & (1u << peer))
        return false;
    size_t size = 0;
    const uint8_t *local = own_state(d, &size);
    if (n->sync->arena && !local) {
        if (n->cfg->arena_size > d->cap) { /* the peer is told, and nothing is sent */
            if (!d->out_ready)
                prepare_out(n, NULL, n->cfg->arena_size);
            send_to(n, peer);
            diff_event(n, peer, frame, TEMPO_DIFF_TOO_LARGE);
        } else {
            d->sent_to |= 1u << peer;
            d->skipped++;
            diff_event(n, peer, frame, TEMPO_DIFF_NO_STATE);
        }
        return false;
    }
    if (!local) { /* the game gives it: tempo_session_provide_state */
        d->want_from |= 1u << peer;
        return true;
    }
    if (!d->out_ready)
        prepare_out(n, local, size);
    send_to(n, peer);
    return false;
}

tempo_result p2p_diff_provide(void *b, int32_t frame, const void *state, size_t size)
{
    tempo_p2p *n = b;
    p2p_diff *d = &n->diff;
    if (d->cap == 0 || n->sync->arena)
        return TEMPO_E_UNSUPPORTED;
    if (frame != d->frame || d->want_from == 0)
        return TEMPO_E_FRAME;
    uint32_t peers = d->want_from;
    d->want_from = 0;
    if (size > d->cap) {
        prepare_out(n, NULL, size);
        for (int i = 0; i < n->npeers; i++)
            if (peers & (1u << i)) {
                send_to(n, i);
                diff_event(n, i, frame, TEMPO_DIFF_TOO_LARGE);
            }
        return TEMPO_E_FULL;
    }
    memcpy(d->keep, state, size);
    d->keep_frame[0] = frame;
    d->keep_size[0] = size;
    prepare_out(n, d->keep, size);
    for (int i = 0; i < n->npeers; i++)
        if (peers & (1u << i))
            send_to(n, i);
    try_compare(n);
    return TEMPO_OK;
}

/* A state from a peer is taken only for an exchange it could honestly
 * start: a check frame whose checksum we hold and that differs from its. */
static bool state_believable(tempo_p2p *n, int peer, const tempo_msg_desync_state *m)
{
    p2p_diff *d = &n->diff;
    uint64_t own;
    if (d->cap == 0 || peer < 0 || n->peers[peer].role != P2P_ROLE_PEER)
        return false;
    if (m->frame % n->cfg->desync_interval != 0 || m->frame <= d->got_frame[peer])
        return false;
    if (m->carried && m->size > d->cap)
        return false;
    return p2p_own_sum(n, m->frame, &own) && own != m->checksum;
}

void p2p_diff_on_state(tempo_p2p *n, int peer, const tempo_msg_desync_state *m)
{
    p2p_diff *d = &n->diff;
    if (!state_believable(n, peer, m) || !take_frame(n, m->frame) ||
        (d->remote_peer >= 0 && d->remote_peer != peer)) {
        d->ignored++;
        return;
    }
    d->got_frame[peer] = m->frame;
    if (!m->carried) {
        diff_event(n, peer, m->frame, TEMPO_DIFF_TOO_LARGE);
        return;
    }
    memcpy(d->remote, m->data, m->size);
    d->remote_size = m->size;
    d->remote_peer = peer;
    try_compare(n);
}

/* ---- fragments ---------------------------------------------------------------------- */

int p2p_diff_fragment(tempo_p2p *n, int peer, uint8_t type, const uint8_t **body, size_t *size,
                      tempo_drop_reason *why)
{
    p2p_diff *d = &n->diff;
    *why = TEMPO_DROP_NONE;
    if (type != TEMPO_MSG_DESYNC_STATE) { /* no other message is fragmented */
        *why = TEMPO_DROP_FRAGMENT;
        return TEMPO_E_MALFORMED;
    }
    if (*size < FRAG_HEADER_SIZE) {
        *why = TEMPO_DROP_TRUNCATED;
        return TEMPO_E_MALFORMED;
    }
    /* Refused before reassembly: diffs off, not a peer, more fragments than
     * our cap can fill, or another peer's state is being put together. */
    int most = frag_count(d->cap + P2P_DIFF_HEAD);
    if (d->cap == 0 || peer < 0 || (*body)[3] > most) {
        d->ignored++;
        return 0;
    }
    frag_expire(&d->frag, n->clock->now_us);
    if (frag_pending(&d->frag) > 0 && d->frag_peer != peer) {
        d->ignored++;
        return 0;
    }
    d->frag_peer = peer;
    tempo_frag_message msg;
    int r = frag_receive(&d->frag, n->clock->now_us, type, *body, *size, &msg, why);
    if (r < 0)
        return TEMPO_E_MALFORMED;
    if (r == 0)
        return 0;
    *body = msg.data;
    *size = msg.size;
    return 1;
}

void p2p_diff_send(tempo_p2p *n)
{
    p2p_diff *d = &n->diff;
    if (d->cap == 0 || !d->out_ready)
        return;
    int count = frag_count(d->out_size);
    for (int i = 0; i < n->npeers; i++) {
        p2p_peer *e = &n->peers[i];
        if (!(d->sent_to & (1u << i)) || p2p_lost(e) || !p2p_synced(e))
            continue;
        int last = count == 0 ? 1 : count;
        for (int k = 0; k < P2P_DIFF_FRAGS_PER_TICK && d->out_next[i] < last; k++) {
            uint64_t seq = link_next_seq(&e->link);
            tempo_packet_header h = {n->cfg->session_id, (uint16_t)seq, TEMPO_MSG_DESYNC_STATE, false,
                                     false};
            int size;
            if (count == 0) { /* one datagram holds it */
                size = packet_write(&h, n->buf, sizeof n->buf);
                if (size == PACKET_HEADER_SIZE) {
                    memcpy(n->buf + PACKET_HEADER_SIZE, d->out, d->out_size);
                    size += (int)d->out_size;
                }
            } else {
                size = frag_write(&h, d->out_id[i], d->out, d->out_size, d->out_next[i], n->buf,
                                  sizeof n->buf);
            }
            d->out_next[i]++;
            if (size > 0)
                (void)p2p_send_datagram(n, e, seq, (size_t)size);
        }
    }
}

tempo_result p2p_diff_get(const void *b, tempo_desync_diff *out)
{
    const tempo_p2p *n = b;
    const p2p_diff *d = &n->diff;
    if (!d->shown)
        return TEMPO_E_STATE;
    memset(out, 0, sizeof *out);
    out->frame = d->shown_frame;
    out->player = d->shown_player;
    out->local_player = d->shown_local_player;
    out->num_ranges = d->num_ranges;
    out->kept_ranges = d->num_ranges < TEMPO_DIFF_MAX_RANGES ? d->num_ranges : TEMPO_DIFF_MAX_RANGES;
    out->ranges = d->ranges;
    out->local = d->shown_local;
    out->remote = d->shown_remote;
    out->local_size = d->shown_local_size;
    out->remote_size = d->shown_remote_size;
    return TEMPO_OK;
}
