/* SPDX-License-Identifier: MIT */
/*
 * p2p_packets.c — the packet layer of the network backends, both ways:
 * a message encoded after a link's header and sealed with its keys; the
 * handshake's SYNC messages; a datagram's way in, and each message handed
 * to the part that handles it.
 *
 * Receiving follows docs/PROTOCOL.md section 7: datagrams from unknown
 * addresses are dropped before anything is parsed, then those with another
 * session id; which receiver a datagram is for (the peer, the rejoin of a
 * lost one, a new process at its address) is decided from its header; then
 * the one receive pipeline (net/receive.h) recovers the sequence, checks
 * the replay window before any cryptography, opens the seal with the
 * sender's pair key (docs/SECURITY.md) and decodes. A datagram that does
 * not open is counted as forged, and the game told (AUTH_FAILED); only a
 * datagram that opened and whose body decoded is recorded in the window
 * and the link, so a forged or malformed one moves no liveness timer,
 * round trip or window.
 */
#include "p2p/network.h"

#include <string.h>

#include "net/intake.h"

/* ---- sending ------------------------------------------------------------- */

/* The messages that carry the link's datagram ack (wire/ack.h), and where. */
static wire_ack *ack_field(tempo_msg *m)
{
    if (m->type == TEMPO_MSG_INPUT)
        return &m->u.input.datagram_ack;
    if (m->type == TEMPO_MSG_INPUT_ACK)
        return &m->u.input_ack.datagram_ack;
    return NULL;
}

/* p2p_send_msg_on, an INPUT's middle part taken from `run` when it holds
 * it (wire/codec.h). */
static bool send_msg(tempo_p2p *n, net_link *l, const wire_keys *keys, const tempo_address *to,
                     tempo_msg *msg, const tempo_codec_ctx *ctx, tempo_codec_run *run)
{
    if (n->keyed && !keys->ready)
        return false;
    wire_ack *a = ack_field(msg);
    if (a != NULL) {
        uint64_t ack = 0;
        uint32_t bits = 0;
        bool any = n->cfg->datagram_acks && link_ack_out(l, &ack, &bits);
        wire_ack_make(a, any, ack, bits);
    }
    /* A sealed datagram's body leaves room for the tag. */
    int body = tempo_codec_encode_body_run(msg, ctx, run, n->buf + PACKET_HEADER_SIZE,
                                           n->keyed ? PACKET_MAX_SEALED_BODY : PACKET_MAX_BODY);
    uint64_t seq = link_next_seq(l);
    tempo_packet_header h = {n->cfg->session_id, (uint16_t)seq, msg->type, false, false};
    if (body < 0 || packet_write(&h, n->buf, PACKET_HEADER_SIZE) != PACKET_HEADER_SIZE) {
        tempo__log(&n->sync->log, TEMPO_LOG_ERROR, "tempo: cannot encode message type %d: %s",
                   msg->type, tempo_strerror(body < 0 ? body : TEMPO_E_INVALID_ARG));
        return false;
    }
    return p2p_send_on(n, l, keys, to, seq, PACKET_HEADER_SIZE + (size_t)body);
}

bool p2p_send_msg_on(tempo_p2p *n, net_link *l, const wire_keys *keys, const tempo_address *to,
                     tempo_msg *msg, const tempo_codec_ctx *ctx)
{
    return send_msg(n, l, keys, to, msg, ctx, NULL);
}

bool p2p_send(tempo_p2p *n, p2p_peer *e, tempo_msg *msg, const tempo_codec_ctx *ctx)
{
    return send_msg(n, &e->link, &e->keys, &e->addr, msg, ctx, NULL);
}

bool p2p_send_run(tempo_p2p *n, p2p_peer *e, tempo_msg *msg, const tempo_codec_ctx *ctx,
                  tempo_codec_run *run)
{
    return send_msg(n, &e->link, &e->keys, &e->addr, msg, ctx, run);
}

bool p2p_send_on(tempo_p2p *n, net_link *l, const wire_keys *keys, const tempo_address *to,
                 uint64_t seq, size_t size)
{
    if (n->keyed && !keys->ready)
        return false;
    if (n->keyed) {
        int sealed = seal_datagram(keys, seq, n->buf, size, sizeof n->buf);
        if (sealed < 0) { /* the body was sized to leave room: not expected */
            n->count.send_errors++;
            return false;
        }
        size = (size_t)sealed;
    }
    link_on_sent(l, n->clock->now_us, size);
    if (n->transport.send(n->transport.ctx, to, n->buf, size) < 0) {
        n->count.send_errors++;
        return false;
    }
    return true;
}

bool p2p_send_datagram(tempo_p2p *n, p2p_peer *e, uint64_t seq, size_t size)
{
    return p2p_send_on(n, &e->link, &e->keys, &e->addr, seq, size);
}

void p2p_fill_sync(const tempo_p2p *n, tempo_msg *m, uint8_t type, uint32_t nonce)
{
    memset(&m->u.sync, 0, sizeof m->u.sync);
    m->type = type;
    tempo_msg_sync *y = &m->u.sync;
    y->nonce = nonce;
    y->config_hash = n->config_hash;
    y->num_players = (uint8_t)n->cfg->num_players;
    y->input_size = (uint8_t)n->cfg->input_size;
    y->player_mask = (uint8_t)n->local_mask;
    y->ciphers = n->offer;
    bool ready = true;
    uint8_t ready_mask = (uint8_t)n->local_mask;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        y->rtt_ms[p] = 0xFFFF;
    for (int i = 0; i < n->npeers; i++) {
        const p2p_peer *e = &n->peers[i];
        if (p2p_synced(e))
            ready_mask |= (uint8_t)e->players;
        else if (!p2p_lost(e))
            ready = false;
        for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
            if (e->players & (1u << p))
                y->rtt_ms[p] = link_mesh_ms(&e->link);
    }
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        if (n->local_mask & (1u << p))
            y->rtt_ms[p] = 0;
    y->ready_mask = ready_mask;
    y->ready = ready;
}

/* SYNC_REQUESTs when the link says one is due: the handshake's round trips,
 * then, from a peer until the match runs, announcements of our readiness
 * and our round trips (the ping mesh). */
void p2p_handshake(tempo_p2p *n, p2p_peer *e)
{
    if (!link_handshake_due(&e->link, n->clock->now_us))
        return;
    uint32_t nonce = link_handshake_request(&e->link, n->clock->now_us, &n->rng);
    p2p_fill_sync(n, &n->msg, TEMPO_MSG_SYNC_REQUEST, nonce);
    p2p_send(n, e, &n->msg, NULL);
}

/* ---- receiving ------------------------------------------------------------ */

void p2p_drop(tempo_p2p *n, tempo_drop_reason why)
{
    n->drops[why]++;
    if (net_drop_counter_of(why) == NET_COUNT_EARLY)
        n->count.dropped_early++;
    else
        NET_DROP_COUNT(&n->count, why);
}

/* Datagrams from e's address that do not authenticate: counted for it, and
 * the game told (rate-limited): a different match key, or a key on one
 * side only, looks like a missing peer otherwise. Quiet while this machine
 * comes back and has not finished its handshake with e: e may still be
 * talking to its earlier life, under keys the return changed. */
static void auth_failed(tempo_p2p *n, p2p_peer *e, tempo_auth_failure kind)
{
    e->auth_failures++;
    uint64_t now = n->clock->now_us;
    uint64_t timeout = (uint64_t)n->cfg->disconnect_timeout_ms * 1000u;
    if (n->rejoin.returning && !n->rejoin.loaded && !p2p_synced(e) &&
        now - n->rejoin.returning_us < timeout)
        return;
    if (e->auth_event_us != 0 && now - e->auth_event_us < P2P_AUTH_EVENT_US)
        return;
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TEMPO_EVENT_AUTH_FAILED;
    ev.player = e->role == P2P_ROLE_PEER ? p2p_first_player(e->players) : -1;
    ev.u.auth_failed.address = e->addr;
    ev.u.auth_failed.datagrams = e->auth_failures - e->auth_reported;
    ev.u.auth_failed.kind = kind;
    e->auth_reported = e->auth_failures;
    e->auth_event_us = now ? now : 1;
    p2p_push_event(n, &ev);
}

/* Not authenticated: counted apart, and nothing else of it is used. */
static void forged(tempo_p2p *n, p2p_peer *e, tempo_drop_reason why, tempo_auth_failure kind)
{
    p2p_drop(n, why);
    auth_failed(n, e, kind);
}

/* What only the game can check in a SYNC message; the configuration hash is
 * the link's to compare. */
bool p2p_sync_fits(const tempo_p2p *n, const p2p_peer *e, const tempo_msg_sync *y)
{
    if (y->num_players != n->cfg->num_players || y->input_size != n->cfg->input_size)
        return false;
    switch (e->role) {
    case P2P_ROLE_PEER: return y->player_mask == e->players;
    case P2P_ROLE_SPECTATOR: return y->player_mask == 0;
    case P2P_ROLE_HOST: return y->player_mask != 0;
    }
    return false;
}

static void settings_differ(tempo_p2p *n)
{
    tempo__log(&n->sync->log, TEMPO_LOG_WARN,
               "tempo: handshake from a machine whose match settings differ; ignored");
    p2p_drop(n, TEMPO_DROP_BAD_VALUE);
}

/* Keyed: the link's cipher from the two offers (the SYNC was opened under
 * the pair key, so the offer is the peer's). The first SYNC of a link's
 * keys decides; a later one must agree. False: no common cipher, or a
 * machine that changed its offer: ignored and counted, and the handshake
 * cannot finish. */
static bool agree_cipher(tempo_p2p *n, p2p_peer *e, const tempo_msg_sync *y)
{
    if (!n->keyed || !e->keys.ready || seal_keys_agree(&e->keys, n->offer, y->ciphers))
        return true;
    tempo__log(&n->sync->log, TEMPO_LOG_WARN,
               "tempo: handshake from a machine whose cipher setting shares no cipher with "
               "ours (tempo_config.cipher); ignored");
    p2p_drop(n, TEMPO_DROP_BAD_VALUE);
    return false;
}

static void on_sync(tempo_p2p *n, p2p_peer *e, const tempo_msg *m)
{
    const tempo_msg_sync *y = &m->u.sync;
    if (!p2p_sync_fits(n, e, y)) {
        settings_differ(n);
        return;
    }
    if (!agree_cipher(n, e, y))
        return;
    link_sync ls = {m->type == TEMPO_MSG_SYNC_REPLY, y->nonce, y->config_hash, y->ready,
                    y->rtt_ms, TEMPO_MAX_PLAYERS};
    tempo_event ev;
    switch (link_on_sync(&e->link, n->clock->now_us, &ls)) {
    case LINK_SYNC_MISMATCH:
        settings_differ(n);
        return;
    case LINK_SYNC_IGNORED: /* a repeat, or not ours */
        return;
    case LINK_SYNC_ANSWER:
        p2p_fill_sync(n, &n->msg, TEMPO_MSG_SYNC_REPLY, y->nonce);
        p2p_send(n, e, &n->msg, NULL);
        return;
    case LINK_SYNC_ROUND:
    case LINK_SYNC_COMPLETE:
        break;
    }
    memset(&ev, 0, sizeof ev);
    ev.kind = TEMPO_EVENT_SYNCHRONIZING;
    ev.player = p2p_first_player(e->players);
    ev.u.sync.done = e->link.hs.rounds_done;
    ev.u.sync.total = e->link.cfg.handshake_rounds;
    p2p_push_event(n, &ev);
    if (p2p_synced(e))
        p2p_event(n, TEMPO_EVENT_SYNCHRONIZED, p2p_first_player(e->players));
    else
        p2p_handshake(n, e); /* the next round trip at once */
}

static void on_message(tempo_p2p *n, p2p_peer *e, int peer, tempo_msg *m, bool fresh)
{
    switch ((tempo_msg_type)m->type) {
    case TEMPO_MSG_SYNC_REQUEST:
    case TEMPO_MSG_SYNC_REPLY:
        on_sync(n, e, m);
        break;
    case TEMPO_MSG_INPUT:
        p2p_on_input(n, e, &m->u.input, fresh);
        break;
    case TEMPO_MSG_INPUT_ACK:
        p2p_on_input_ack(n, e, &m->u.input_ack);
        break;
    case TEMPO_MSG_PING: {
        uint32_t id = m->u.ping.id;
        n->msg.type = TEMPO_MSG_PONG;
        n->msg.u.ping.id = id;
        p2p_send(n, e, &n->msg, NULL);
        break;
    }
    case TEMPO_MSG_PONG: /* a round trip if it answers a ping still outstanding */
        (void)link_on_pong(&e->link, n->clock->now_us, m->u.ping.id);
        break;
    case TEMPO_MSG_CHECKSUM:
        p2p_on_checksum(n, e, peer, &m->u.checksum);
        break;
    case TEMPO_MSG_DISCONNECT:
        p2p_lose_peer_as(n, e, P2P_LOST_LEFT);
        break;
    case TEMPO_MSG_QUALITY:
        if (peer >= 0 && e->role == P2P_ROLE_PEER)
            timesync_on_quality(&n->ts, peer, m->u.quality.advantage_q8 / 256.0);
        break;
    case TEMPO_MSG_DESYNC_STATE:
        p2p_diff_on_state(n, peer, &m->u.state);
        break;
    case TEMPO_MSG_REJOIN_REQUEST:
        p2p_rejoin_on_request(n, e, peer, &m->u.rejoin_request);
        break;
    case TEMPO_MSG_REJOIN_STATE:
        p2p_rejoin_on_state(n, peer, &m->u.rejoin_state);
        break;
    case TEMPO_MSG_REJOIN_FRAME:
        p2p_rejoin_on_frame(n, peer, &m->u.rejoin_frame);
        break;
    case TEMPO_MSG_REJOIN_REFUSED:
        p2p_dropped_on_refused(n, e, peer, &m->u.rejoin_refused);
        break;
    case TEMPO_MSG_TYPE_COUNT_:
        break;
    }
}

tempo_drop_reason p2p_decode(tempo_p2p *n, const p2p_peer *e, const tempo_packet_view *v,
                             const uint8_t *body, size_t body_size)
{
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = n->cfg->input_size;
    ctx.num_players = n->cfg->num_players;
    ctx.frame_hint = p2p_wanted(n, e);
    ctx.reference = p2p_reference;
    ctx.reference_ctx = n;
    tempo_drop_reason why = TEMPO_DROP_NONE;
    if (tempo_codec_decode_body(v->h.type, body, body_size, &ctx, &n->msg, &why) != TEMPO_OK &&
        why == TEMPO_DROP_NONE)
        why = TEMPO_DROP_BAD_VALUE;
    return why;
}

/* A peer's datagram as the receive pipeline decodes it. Until our
 * handshake with it is complete, only the handshake is taken from a
 * machine: anything else belongs to a conversation this process was never
 * part of (a peer still talking to our earlier life, before it learns we
 * restarted), and recording it would set the window's place from that
 * conversation's sequences (EARLY). A leave or a refusal among those is
 * still used, unrecorded (`early_use`). A fragment of a state goes to its
 * reassembler; only a whole message is decoded. */
typedef struct peer_rx {
    tempo_p2p *n;
    p2p_peer *e;
    int peer;
    bool early_use;
} peer_rx;

static tempo_drop_reason decode_peer(void *ctx, net_datagram *d)
{
    peer_rx *x = ctx;
    tempo_p2p *n = x->n;
    uint8_t type = d->v.h.type;
    if (!p2p_synced(x->e) && type != TEMPO_MSG_SYNC_REQUEST && type != TEMPO_MSG_SYNC_REPLY) {
        x->early_use = (type == TEMPO_MSG_DISCONNECT || type == TEMPO_MSG_REJOIN_REFUSED) &&
                       !d->v.h.fragment &&
                       p2p_decode(n, x->e, &d->v, d->body, d->body_size) == TEMPO_DROP_NONE;
        return TEMPO_DROP_EARLY;
    }
    if (d->v.h.fragment) {
        tempo_drop_reason why = TEMPO_DROP_NONE;
        size_t size = d->body_size;
        const uint8_t *body = d->body;
        int got = type == TEMPO_MSG_REJOIN_STATE
                      ? p2p_rejoin_fragment(n, x->peer, &body, &size, &why)
                      : p2p_diff_fragment(n, x->peer, type, &body, &size, &why);
        if (got < 0)
            return why != TEMPO_DROP_NONE ? why : TEMPO_DROP_FRAG_BAD;
        if (got == 0) {
            d->whole = false;
            return TEMPO_DROP_NONE;
        }
        d->body = body;
        d->body_size = size;
    }
    tempo_drop_reason why = p2p_decode(n, x->e, &d->v, d->body, d->body_size);
    wire_ack *a = why == TEMPO_DROP_NONE ? ack_field(&n->msg) : NULL;
    if (a != NULL && a->present) /* the pipeline gives it to the link at the take */
        d->ack = (net_ack){true, WIRE_ACK_WIDTH, a->ack, a->bits, 0};
    return why;
}

static void on_datagram(tempo_p2p *n, const tempo_address *from, size_t size)
{
    if (size > TEMPO_MAX_DATAGRAM) {
        p2p_drop(n, TEMPO_DROP_TOO_LONG);
        return;
    }
    /* Strangers first: nothing of theirs is even parsed. */
    int peer;
    p2p_peer *e = p2p_find(n, from, &peer);
    if (!e) {
        p2p_drop(n, TEMPO_DROP_UNKNOWN);
        return;
    }
    if (p2p_lost(e) && !n->rejoin.serving)
        return;
    /* Which receiver the datagram is for (the peer, the rejoin of a lost
     * one, a new process at its address) depends on its header. */
    uint32_t sid;
    tempo_drop_reason why = TEMPO_DROP_NONE;
    tempo_packet_view v;
    if (packet_peek_session(n->buf, size, &sid, &why) != TEMPO_OK) {
        p2p_drop(n, why);
        return;
    }
    if (sid != n->cfg->session_id) {
        p2p_drop(n, TEMPO_DROP_SESSION);
        return;
    }
    if (packet_read(n->buf, size, &v, &why) != TEMPO_OK) {
        p2p_drop(n, why);
        return;
    }
    /* A lost machine speaks again: a fresh handshake within the rejoin
     * window revives its link (p2p_rejoin.c); anything else is ignored. */
    if (p2p_lost(e)) {
        bool used = false;
        if (peer < 0 || !p2p_rejoin_revive(n, peer, &v, size, &used)) {
            if (peer >= 0) /* its earlier life still talking: tell it it was dropped */
                p2p_dropped_refuse_lost(n, peer, &v, size);
            return;
        }
        if (used)
            return;
    }
    /* A new process at a live peer's address (p2p_restart.c). */
    if (peer >= 0 && !p2p_lost(e) && p2p_restart_take(n, peer, &v, size))
        return;
    /* A machine that came back beside this one, at a key epoch not known
     * here yet (p2p_rejoin.c). */
    if (peer >= 0 && p2p_rejoin_rekey(n, peer, &v, size))
        return;
    net_receiver r = {&e->link, &e->replay, n->keyed ? &e->keys : NULL, n->cfg->session_id};
    peer_rx x = {n, e, peer, false};
    net_datagram d;
    bool first = !e->link.heard;
    why = net_receive(&r, n->clock->now_us, n->buf, size, decode_peer, &x, &d);
    switch (why) {
    case TEMPO_DROP_NONE:
        break;
    case TEMPO_DROP_SEALED: /* nothing to open it with */
        forged(n, e, why, TEMPO_AUTH_SEALED);
        return;
    case TEMPO_DROP_PLAIN: /* a keyed match sends nothing in the clear */
        forged(n, e, why, TEMPO_AUTH_PLAIN);
        return;
    case TEMPO_DROP_FORGED:
        forged(n, e, why, TEMPO_AUTH_FORGED);
        return;
    case TEMPO_DROP_EARLY:
        if (x.early_use)
            on_message(n, e, peer, &n->msg, false);
        else
            p2p_drop(n, why);
        return;
    default:
        p2p_drop(n, why);
        return;
    }
    if (first)
        p2p_event(n, TEMPO_EVENT_CONNECTED, p2p_first_player(e->players));
    if (d.whole)
        on_message(n, e, peer, &n->msg, d.rx == LINK_RX_NEWEST);
}

static bool take(void *ctx, const tempo_address *from, uint8_t *data, size_t size)
{
    (void)data; /* n->buf, which on_datagram reads */
    on_datagram(ctx, from, size);
    return true;
}

void p2p_receive_all(tempo_p2p *n)
{
    /* Bounded, so a flood cannot hold the game's tick hostage. */
    (void)net_intake(&n->transport, n->buf, sizeof n->buf, 4096, take, n);
}

