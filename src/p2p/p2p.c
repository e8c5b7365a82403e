/* SPDX-License-Identifier: MIT */
/*
 * p2p.c — the p2p backend (its ops table is at the end) and the machinery
 * it shares with the spectator backend: the packet layer both ways,
 * dispatching messages, the handshake, start-up, liveness events, pings,
 * feeding time sync, the network part of each tick, and per-peer stats
 * (docs/NETWORK.md tells the whole behaviour).
 *
 * A session talks to each remote machine on its own, through that peer's
 * link (net/link.h): the link runs the handshake's bookkeeping (nonce round
 * trips, which also give the first RTT samples, and the configuration hash),
 * times pings and silences and reports liveness events; this file builds
 * and sends the messages, checks what only a game can (players, input size),
 * announces readiness with the ping mesh, and starts once every peer is
 * ready, held back by the start-up delay.
 *
 * Receiving follows docs/PROTOCOL.md section 7: datagrams from unknown
 * addresses are dropped before anything is parsed, then those with another
 * session id; the 16 sequence bits are recovered to 64 against the newest
 * the link accepted, and the replay window drops copies and datagrams too
 * old to tell before any cryptography. A keyed session then opens the seal
 * with the sender's pair key (docs/SECURITY.md); a datagram that does not
 * open is counted as forged and nothing else happens. Only a datagram that
 * opened and whose body decoded is recorded in the window and the link, so
 * a forged or malformed one moves no liveness timer, round trip or window.
 * Time sync decides once per tick, at the first poll after an advance, so
 * tempo_session_will_stall can answer before input is sampled.
 */
#include "p2p/network.h"

#include <string.h>

#include "session/link_stats.h"
#include "wire/keys.h"

int p2p_first_player(uint32_t mask)
{
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        if (mask & (1u << p))
            return p;
    return -1;
}

void p2p_event(tempo_p2p *n, tempo_event_kind kind, int player)
{
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = kind;
    ev.player = player;
    p2p_push_event(n, &ev);
}

static uint32_t config_hash(const tempo_config *c)
{
    /* What both sides must share for inputs and checksums to mean the same. */
    uint8_t b[16];
    uint32_t v[4] = {TEMPO_PROTOCOL_VERSION, (uint32_t)c->num_players, (uint32_t)c->input_size,
                     (uint32_t)c->desync_interval};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++)
            b[i * 4 + k] = (uint8_t)(v[i] >> (8 * k));
    return (uint32_t)tempo_checksum(b, sizeof b);
}

tempo_result p2p_open(const session_host *host, const session_args *args, tempo_p2p **out)
{
    const tempo_config *cfg = host->cfg;
    tempo_p2p *n = tempo__calloc(&cfg->allocator, 1, sizeof *n);
    *out = n;
    if (!n)
        return TEMPO_E_NO_MEMORY;
    n->host = host;
    n->cfg = cfg;
    n->sync = host->sync;
    n->clock = host->clock;
    n->transport = *args->transport;
    n->config_hash = config_hash(cfg);
    timesync_init(&n->ts, cfg);
    tempo_rng_seed(&n->rng, cfg->random_seed, cfg->session_id);
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        n->player_peer[p] = -1;
    for (int i = 0; i < P2P_MAX_PEERS; i++)
        for (int k = 0; k < P2P_PENDING_SUMS; k++)
            n->pending[i][k].frame = -1;
    for (int i = 0; i < P2P_SUM_LOG; i++)
        n->own_sums[i].frame = -1;
    for (int i = 0; i < 8; i++)
        n->desync_reported[i] = -1;
    n->offer = seal_offer((int)cfg->cipher);
    if (n->offer == 0)
        n->offer = SEAL_CIPHER_CHACHA20; /* the session's create refused such a cipher */
    if (cfg->has_match_key) {
        if (seal_start() != TEMPO_OK)
            return TEMPO_E_UNSUPPORTED; /* no libsodium: refuse rather than run open */
        n->keyed = true;
    } else {
        tempo__log(&n->sync->log, TEMPO_LOG_WARN,
                   "tempo: no match key: datagrams are not authenticated or encrypted");
    }
    return TEMPO_OK;
}

/* A peer: the spectators it may feed and the ring of confirmed inputs they
 * are fed from, both sized now. */
static tempo_result p2p_create(const session_host *host, const session_args *args, void **out)
{
    tempo_p2p *n;
    tempo_result r = p2p_open(host, args, &n);
    *out = n;
    if (r != TEMPO_OK)
        return r;
    r = p2p_diff_open(n);
    if (r != TEMPO_OK)
        return r;
    r = p2p_rejoin_open(n);
    if (r != TEMPO_OK)
        return r;
    n->max_specs = n->cfg->max_spectators;
    if (n->max_specs > 0) {
        n->specs = tempo__calloc(&n->cfg->allocator, (size_t)n->max_specs, sizeof *n->specs);
        if (!n->specs)
            return TEMPO_E_NO_MEMORY; /* the facade destroys what was made */
    }
    return TEMPO_OK;
}

void p2p_destroy(void *b)
{
    tempo_p2p *n = b;
    const tempo_allocator *a = &n->cfg->allocator;
    /* Keys and the last plaintext live in here: nothing of them outlives
     * the session. */
    if (n->specs)
        seal_wipe(n->specs, (size_t)n->max_specs * sizeof *n->specs);
    tempo__free(a, n->specs);
    p2p_diff_close(n);
    p2p_rejoin_close(n);
    seal_wipe(n, sizeof *n);
    tempo__free(a, n);
}

void p2p_peer_init(p2p_peer *e, const tempo_address *addr, p2p_role role, uint32_t players)
{
    memset(e, 0, sizeof *e);
    e->addr = *addr;
    e->role = role;
    e->players = players;
    e->sent_ack = -1;
    net_receive_reset(&e->replay);
}

/* The identity (wire/keys.h) of this machine, and of remote machine e;
 * `spec` is e's number among our spectators. */
static uint32_t self_identity(const tempo_p2p *n)
{
    if (n->spectating)
        return keys_identity_of_spectator((uint32_t)n->cfg->spectator_number);
    return keys_identity_at_epoch(keys_identity_of_players(n->local_mask), n->rejoin.epoch);
}

static uint32_t peer_identity(const tempo_p2p *n, const p2p_peer *e, int spec)
{
    switch (e->role) {
    case P2P_ROLE_SPECTATOR: return keys_identity_of_spectator((uint32_t)spec);
    case P2P_ROLE_HOST: return (uint32_t)n->cfg->spectator_host_player;
    case P2P_ROLE_PEER: break;
    }
    return keys_identity_at_epoch(keys_identity_of_players(e->players), e->epoch);
}

bool p2p_link_keys(const tempo_p2p *n, const p2p_peer *e, wire_keys *out)
{
    return keys_derive_link(n->cfg->match_key, n->cfg->session_id, self_identity(n),
                            peer_identity(n, e, 0), out) == TEMPO_OK;
}

/* Every link's pair keys, now that the local players are known. A link
 * whose keys cannot be made (this machine hosts no player, so it has no
 * identity) stays without: nothing goes to it or opens from it. */
static void derive_keys(tempo_p2p *n)
{
    bool failed = false;
    for (int i = 0; i < n->npeers + n->nspecs; i++) {
        p2p_peer *e = i < n->npeers ? &n->peers[i] : &n->specs[i - n->npeers];
        if (p2p_lost(e)) /* dropped by the game before the first poll */
            continue;
        if (keys_derive_link(n->cfg->match_key, n->cfg->session_id, self_identity(n),
                             peer_identity(n, e, i - n->npeers), &e->keys) != TEMPO_OK)
            failed = true;
    }
    if (failed)
        tempo__log(&n->sync->log, TEMPO_LOG_ERROR,
                   "tempo: cannot derive the keys of some links: they stay silent");
}

static void wipe_keys(tempo_p2p *n)
{
    for (int i = 0; i < n->npeers; i++)
        seal_keys_wipe(&n->peers[i].keys);
    for (int i = 0; i < n->nspecs; i++)
        seal_keys_wipe(&n->specs[i].keys);
}

/* The link of every machine starts at the first poll, so silence counts
 * from the moment the game starts polling, not from when it was declared. */
void p2p_start_links(tempo_p2p *n)
{
    n->rejoin.returning_us = n->clock->now_us;
    if (n->keyed)
        derive_keys(n);
    link_config lc;
    link_config_default(&lc);
    lc.notify_us = (uint64_t)n->cfg->disconnect_notify_ms * 1000u;
    lc.timeout_us = (uint64_t)n->cfg->disconnect_timeout_ms * 1000u;
    lc.seq_jump = P2P_SEQ_JUMP;
    lc.rtt_from_acks = false; /* no message carries acks of datagrams */
    lc.handshake_timeout_us = (uint64_t)n->cfg->handshake_timeout_ms * 1000u; /* 0: never */
    lc.config_hash = n->config_hash;
    for (int i = 0; i < n->npeers + n->nspecs; i++) {
        p2p_peer *e = i < n->npeers ? &n->peers[i] : &n->specs[i - n->npeers];
        bool lost = p2p_lost(e); /* dropped by the game before the first poll */
        link_init(&e->link, &lc, n->clock->now_us);
        /* a peer announces its readiness and mesh until the match runs; a
         * spectator announces itself until its host feeds it (p2p_input.c) */
        link_handshake_announce(&e->link, e->role != P2P_ROLE_SPECTATOR);
        if (lost)
            link_close(&e->link);
    }
}

static p2p_peer *find(tempo_p2p *n, const tempo_address *a, int *peer_index)
{
    *peer_index = -1;
    for (int i = 0; i < n->npeers; i++)
        if (tempo_address_equal(&n->peers[i].addr, a)) {
            *peer_index = i;
            return &n->peers[i];
        }
    for (int i = 0; i < n->nspecs; i++)
        if (tempo_address_equal(&n->specs[i].addr, a))
            return &n->specs[i];
    return NULL;
}

static tempo_result p2p_add_local(void *b, int player)
{
    tempo_p2p *n = b;
    return sync_set_player(n->sync, player, SYNC_LOCAL);
}

static tempo_result p2p_add_remote(void *b, int player, const tempo_address *addr)
{
    tempo_p2p *n = b;
    if (!addr || addr->family == TEMPO_ADDRESS_NONE)
        return TEMPO_E_INVALID_ARG;
    if (player < 0 || player >= n->cfg->num_players)
        return TEMPO_E_PLAYER;
    if (n->sync->kind[player] != SYNC_NONE)
        return TEMPO_E_ALREADY;
    int idx;
    p2p_peer *e = find(n, addr, &idx);
    if (e && idx < 0)
        return TEMPO_E_ALREADY; /* that address is a spectator */
    if (!e) {
        if (n->npeers == P2P_MAX_PEERS)
            return TEMPO_E_FULL;
        idx = n->npeers++;
        e = &n->peers[idx];
        p2p_peer_init(e, addr, P2P_ROLE_PEER, 0);
    }
    tempo_result r = sync_set_player(n->sync, player, SYNC_REMOTE);
    if (r != TEMPO_OK)
        return r;
    e->players |= 1u << player;
    n->player_peer[player] = idx;
    return TEMPO_OK;
}

static tempo_result p2p_add_spectator(void *b, const tempo_address *addr)
{
    tempo_p2p *n = b;
    if (!addr || addr->family == TEMPO_ADDRESS_NONE)
        return TEMPO_E_INVALID_ARG;
    int idx;
    if (find(n, addr, &idx))
        return TEMPO_E_ALREADY;
    if (n->nspecs >= n->max_specs)
        return TEMPO_E_FULL;
    p2p_peer_init(&n->specs[n->nspecs++], addr, P2P_ROLE_SPECTATOR, 0);
    return TEMPO_OK;
}

/* ---- sending ------------------------------------------------------------- */

bool p2p_send_msg_on(tempo_p2p *n, net_link *l, const wire_keys *keys, const tempo_address *to,
                     tempo_msg *msg, const tempo_codec_ctx *ctx)
{
    if (n->keyed && !keys->ready)
        return false;
    /* A sealed datagram's body leaves room for the tag. */
    int body = tempo_codec_encode_body(msg, ctx, n->buf + PACKET_HEADER_SIZE,
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

bool p2p_send(tempo_p2p *n, p2p_peer *e, tempo_msg *msg, const tempo_codec_ctx *ctx)
{
    return p2p_send_msg_on(n, &e->link, &e->keys, &e->addr, msg, ctx);
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
static void handshake(tempo_p2p *n, p2p_peer *e)
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
        handshake(n, e); /* the next round trip at once */
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
    return p2p_decode(n, x->e, &d->v, d->body, d->body_size);
}

static void on_datagram(tempo_p2p *n, const tempo_address *from, size_t size)
{
    if (size > TEMPO_MAX_DATAGRAM) {
        p2p_drop(n, TEMPO_DROP_TOO_LONG);
        return;
    }
    /* Strangers first: nothing of theirs is even parsed. */
    int peer;
    p2p_peer *e = find(n, from, &peer);
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
    if (p2p_lost(e) && (peer < 0 || !p2p_rejoin_revive(n, peer, &v, size))) {
        if (peer >= 0) /* its earlier life still talking: tell it it was dropped */
            p2p_dropped_refuse_lost(n, peer, &v, size);
        return;
    }
    /* A new process at a live peer's address (p2p_restart.c). */
    if (peer >= 0 && !p2p_lost(e) && p2p_restart_take(n, peer, &v, size))
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

static void receive_all(tempo_p2p *n)
{
    /* Bounded, so a flood cannot hold the game's tick hostage. */
    for (int i = 0; i < 4096; i++) {
        tempo_address from;
        memset(&from, 0, sizeof from);
        int got = n->transport.recv(n->transport.ctx, &from, n->buf, sizeof n->buf);
        if (got <= 0)
            break;
        on_datagram(n, &from, (size_t)got);
    }
}

/* ---- liveness and pings ------------------------------------------------------ */

/* What losing e means once its link is closed: its players are dropped (by
 * agreement), or a spectator's host is gone. */
static void peer_lost(tempo_p2p *n, p2p_peer *e, uint8_t how)
{
    bool is_peer = e >= n->peers && e < n->peers + P2P_MAX_PEERS;
    e->lost_how = how;
    e->lost_at_us = n->clock->now_us;
    /* Nothing more goes to it or comes from it; a peer machine's keys stay
     * while it may come back, to tell its earlier life it was dropped
     * (p2p_dropped.c): rejoin wipes them when its window ends. */
    if (!is_peer || e->role != P2P_ROLE_PEER || !n->rejoin.serving)
        seal_keys_wipe(&e->keys);
    if (is_peer) { /* its checksums are moot; it may come back */
        p2p_forget_sums(n, (int)(e - n->peers));
        p2p_rejoin_on_lost(n, (int)(e - n->peers));
    }
    if (e->role == P2P_ROLE_PEER && is_peer)
        timesync_peer_lost(&n->ts, (int)(e - n->peers));
    if (e->role == P2P_ROLE_PEER && p2p_rejoin_never_back(n, e)) {
        /* a revived link that never brought its machine back: its players
         * stay dropped as agreed, the survivors are the same */
    } else if (e->role == P2P_ROLE_PEER) {
        p2p_restart_drops(n); /* the survivors changed: agree again */
        for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
            if (e->players & (1u << p))
                p2p_begin_drop(n, p);
        p2p_dropped_check(n); /* everyone gone: were we the one dropped? */
    } else {
        tempo_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = TEMPO_EVENT_DISCONNECTED;
        ev.player = -1;
        ev.u.disconnected.frame = n->sync->frame;
        p2p_push_event(n, &ev);
    }
}

void p2p_lose_peer_as(tempo_p2p *n, p2p_peer *e, uint8_t how)
{
    if (p2p_lost(e))
        return;
    link_close(&e->link);
    peer_lost(n, e, how);
}

void p2p_lose_peer(tempo_p2p *n, p2p_peer *e)
{
    p2p_lose_peer_as(n, e, P2P_LOST_DROPPED);
}

/* The link's liveness events, as the game sees them. */
static void liveness(tempo_p2p *n, p2p_peer *e, unsigned ev_bits)
{
    int player = p2p_first_player(e->players);
    if (ev_bits & LINK_EV_HANDSHAKE_FAILED) { /* the link closed: nothing more goes to it */
        p2p_event(n, TEMPO_EVENT_HANDSHAKE_FAILED, player);
        peer_lost(n, e, P2P_LOST_TIMEOUT);
        return;
    }
    if (ev_bits & LINK_EV_RESUMED)
        p2p_event(n, TEMPO_EVENT_RESUMED, player);
    if (ev_bits & LINK_EV_TIMED_OUT) {
        peer_lost(n, e, P2P_LOST_TIMEOUT);
    } else if (ev_bits & LINK_EV_INTERRUPTED) {
        uint64_t silence = link_silence_us(&e->link, n->clock->now_us);
        uint64_t timeout = e->link.cfg.timeout_us;
        tempo_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = TEMPO_EVENT_INTERRUPTED;
        ev.player = player;
        ev.u.interrupted.disconnect_in_ms = (uint32_t)((timeout > silence ? timeout - silence : 0) / 1000u);
        p2p_push_event(n, &ev);
    }
}

static void ping(tempo_p2p *n, p2p_peer *e)
{
    if (!link_ping_due(&e->link, n->clock->now_us))
        return;
    n->msg.type = TEMPO_MSG_PING;
    n->msg.u.ping.id = link_ping_sent(&e->link, n->clock->now_us);
    p2p_send(n, e, &n->msg, NULL);
}

static void service(tempo_p2p *n, p2p_peer *e)
{
    unsigned ev_bits = link_update(&e->link, n->clock->now_us);
    handshake(n, e);
    liveness(n, e, ev_bits);
    ping(n, e);
}

/* Half the round trip between machines i and k (index npeers = us), in us:
 * ours from our own measurement, theirs from what they announced. */
static double owd_between(const tempo_p2p *n, int i, int k)
{
    if (i == k)
        return 0;
    if (i == n->npeers || k == n->npeers) {
        const p2p_peer *e = &n->peers[i == n->npeers ? k : i];
        return (double)link_rtt_us(&e->link) / 2.0;
    }
    const p2p_peer *a = &n->peers[i], *b = &n->peers[k];
    int pa = p2p_first_player(a->players), pb = p2p_first_player(b->players);
    double sum = 0;
    int count = 0;
    if (pb >= 0 && a->link.hs.mesh_ms[pb] != LINK_MESH_UNKNOWN)
        sum += a->link.hs.mesh_ms[pb], count++;
    if (pa >= 0 && b->link.hs.mesh_ms[pa] != LINK_MESH_UNKNOWN)
        sum += b->link.hs.mesh_ms[pa], count++;
    return count ? sum / count * 1000.0 / 2.0 : 0.0;
}

static double worst_rtt_ms(const tempo_p2p *n)
{
    double worst = 0;
    for (int i = 0; i < n->npeers; i++)
        if (!p2p_lost(&n->peers[i]) && (double)link_rtt_us(&n->peers[i].link) / 1000.0 > worst)
            worst = (double)link_rtt_us(&n->peers[i].link) / 1000.0;
    return worst;
}

static void input_delay_event(tempo_p2p *n, int frames)
{
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TEMPO_EVENT_INPUT_DELAY;
    ev.player = -1;
    ev.u.input_delay.frames = frames;
    p2p_push_event(n, &ev);
}

void p2p_start_running(tempo_p2p *n)
{
    n->running = true;
    for (int i = 0; i < n->npeers && !n->spectating; i++) /* nothing left to announce */
        link_handshake_announce(&n->peers[i].link, false);
    if (!n->spectating && n->cfg->auto_delay.enabled) {
        int d = timesync_initial_delay(&n->ts, worst_rtt_ms(n));
        for (int p = 0; p < n->cfg->num_players; p++)
            if (n->local_mask & (1u << p))
                sync_set_delay(n->sync, p, d);
        input_delay_event(n, d); /* the first value, even if it is 0 */
    }
    p2p_event(n, TEMPO_EVENT_RUNNING, -1);
}

/* Frames run once every peer is ready (synchronized with everyone), held
 * back by the start-up delay so that every machine starts at about the
 * moment the last one learns that everyone is ready. */
static void check_running(tempo_p2p *n)
{
    if (n->running)
        return;
    if (p2p_rejoin_waiting(n)) /* a rejoining machine runs once its state came */
        return;
    if (n->spectating) {
        if (p2p_synced(&n->peers[0]))
            p2p_start_running(n);
        return;
    }
    if (!n->ready) {
        for (int i = 0; i < n->npeers; i++)
            if (!p2p_synced(&n->peers[i]) && !p2p_lost(&n->peers[i]))
                return;
        n->ready = true;
        n->ready_us = n->clock->now_us;
        for (int i = 0; i < n->npeers; i++) /* announce it at once */
            link_handshake_resend_now(&n->peers[i].link);
    }
    if (!n->run_scheduled) {
        for (int i = 0; i < n->npeers; i++)
            if (!n->peers[i].link.hs.remote_ready && !p2p_lost(&n->peers[i]))
                return;
        uint64_t wait = 0;
        if (n->cfg->timesync.startup_delay && n->npeers > 0) {
            int m = n->npeers + 1;
            uint64_t heard[P2P_MAX_PEERS + 1];
            double owd[(P2P_MAX_PEERS + 1) * (P2P_MAX_PEERS + 1)];
            for (int i = 0; i < n->npeers; i++)
                heard[i] = p2p_lost(&n->peers[i]) ? n->ready_us : n->peers[i].link.hs.ready_heard_us;
            heard[n->npeers] = n->ready_us;
            for (int i = 0; i < m; i++)
                for (int k = 0; k < m; k++)
                    owd[i * m + k] = owd_between(n, i, k);
            wait = timesync_startup_wait(m, n->npeers, heard, owd, n->clock->now_us);
            if (wait > 2000000u) /* never hold a match back for long on bad data */
                wait = 2000000u;
        }
        n->run_scheduled = true;
        n->run_at_us = n->clock->now_us + wait;
        n->startup_delay_ms = (uint32_t)(wait / 1000u);
    }
    if (n->clock->now_us >= n->run_at_us)
        p2p_start_running(n);
}

/* GGPO's quality reports: our advantage estimate, once a second. */
static double ggpo_local_advantage(const tempo_p2p *n, const p2p_peer *e)
{
    double owd_frames = (double)link_rtt_us(&e->link) / 2.0 * n->cfg->frames_per_second / 1e6;
    return (double)e->remote_frame + owd_frames - (double)n->sync->frame;
}

static void send_quality(tempo_p2p *n)
{
    if (n->cfg->timesync.method != TEMPO_TIMESYNC_GGPO || n->spectating || n->clock->now_us < n->next_quality_us)
        return;
    n->next_quality_us = n->clock->now_us + 1000000u;
    for (int i = 0; i < n->npeers; i++) {
        p2p_peer *e = &n->peers[i];
        if (p2p_lost(e) || !p2p_synced(e))
            continue;
        double adv = ggpo_local_advantage(n, e) * 256.0;
        n->msg.type = TEMPO_MSG_QUALITY;
        n->msg.u.quality.advantage_q8 = (int16_t)(adv > 32767 ? 32767 : adv < -32768 ? -32768 : adv);
        p2p_send(n, e, &n->msg, NULL);
    }
}

int p2p_local_delay(const tempo_p2p *n)
{
    int d = 0;
    for (int p = 0; p < n->cfg->num_players; p++)
        if ((n->local_mask & (1u << p)) && n->sync->delay[p] > d)
            d = n->sync->delay[p];
    return d;
}

/* After each planned tick: feed the lags of every live peer to time sync
 * and let the automatic input delay move. */
static void timesync_after_tick(tempo_p2p *n)
{
    if (n->spectating)
        return;
    for (int i = 0; i < n->npeers; i++) {
        const p2p_peer *e = &n->peers[i];
        if (p2p_lost(e) || !p2p_synced(e) || !e->link.heard)
            continue;
        double local_lag = (double)n->sync->frame - (double)e->remote_frame;
        timesync_on_local(&n->ts, i, local_lag, ggpo_local_advantage(n, e));
        if (link_has_rtt(&e->link))
            timesync_on_rtt(&n->ts, i, (double)link_rtt_us(&e->link) / 1000.0);
    }
    if (!n->cfg->auto_delay.enabled)
        return;
    int before = p2p_local_delay(n);
    /* Lockstep: everyone waits for everyone, so the frame lag stays small
     * whatever the latency; the round trip sets the floor. */
    double floor = n->cfg->max_prediction == 0 ? timesync_rtt_lag(&n->ts, worst_rtt_ms(n)) : 0.0;
    int d = timesync_delay_tick(&n->ts, floor);
    if (d == before)
        return;
    for (int p = 0; p < n->cfg->num_players; p++)
        if (n->local_mask & (1u << p))
            sync_set_delay(n->sync, p, d);
    input_delay_event(n, d);
}

static void send_leaving(tempo_p2p *n);

void p2p_poll(void *b)
{
    tempo_p2p *n = b;
    if (!n->started) {
        n->started = true;
        n->clock_jumps = n->clock->jumps;
        for (int p = 0; p < n->cfg->num_players; p++)
            if (n->sync->kind[p] == SYNC_LOCAL)
                n->local_mask |= 1u << p;
        p2p_start_links(n);
    }
    if (n->clock->jumps != n->clock_jumps) {
        /* this machine paused: round trips begun before now measure the pause */
        n->clock_jumps = n->clock->jumps;
        for (int i = 0; i < n->npeers + n->nspecs; i++)
            link_on_clock_jump(i < n->npeers ? &n->peers[i].link : &n->specs[i - n->npeers].link,
                               n->clock->now_us, n->clock->leap_us);
    }
    if (n->left) {
        if (n->leave_repeats > 0) {
            n->leave_repeats--;
            send_leaving(n);
            if (n->leave_repeats == 0) /* the last word is said */
                wipe_keys(n);
        }
        return;
    }
    receive_all(n);
    for (int i = 0; i < n->npeers; i++)
        service(n, &n->peers[i]);
    for (int i = 0; i < n->nspecs; i++)
        service(n, &n->specs[i]);
    p2p_try_finalize(n);
    check_running(n);
    p2p_rejoin_poll(n);
    p2p_restart_poll(n);
    if (n->running && !n->decided && !n->spectating) {
        n->stall_next = timesync_decide(&n->ts, n->sync->frame);
        n->decided = true;
        if (n->stall_next) {
            tempo_event ev;
            memset(&ev, 0, sizeof ev);
            ev.kind = TEMPO_EVENT_TIMESYNC;
            ev.player = -1;
            ev.u.timesync.stall_frames = n->ts.stall_queue + 1;
            p2p_push_event(n, &ev);
        }
    }
    send_quality(n);
    if (n->running) {
        p2p_send_inputs(n, true);
        p2p_feed_spectators(n, true);
    }
}

bool p2p_will_stall(const void *b)
{
    const tempo_p2p *n = b;
    return n->decided && n->stall_next;
}

/* ---- the tick ------------------------------------------------------------------ */

bool p2p_tick_opens(tempo_p2p *n, tempo_tick *tick, tempo_result *r)
{
    *r = TEMPO_OK;
    if (n->left) {
        *r = TEMPO_E_STATE;
        return false;
    }
    if (!n->started)
        p2p_poll(n);
    if (!n->running) {
        sync_drop_held(n->sync); /* nothing runs before the match does */
        tick->status = TEMPO_TICK_SYNCHRONIZING;
        return false;
    }
    return true;
}

void p2p_tick_closes(tempo_p2p *n)
{
    p2p_take_checksums(n);
    p2p_send_inputs(n, false);
    p2p_send_relays(n);
    p2p_feed_spectators(n, false);
    p2p_send_checksums(n);
    p2p_diff_send(n);
}

/* Time sync decided at the tick's first poll whether this tick stalls. */
static tempo_result p2p_advance(void *b, tempo_tick *tick)
{
    tempo_p2p *n = b;
    tempo_result r;
    if (!p2p_tick_opens(n, tick, &r))
        return r;
    if (!n->decided) /* the game skipped poll: decide now */
        p2p_poll(n);
    sync_plan_opts o;
    memset(&o, 0, sizeof o);
    o.stall = n->stall_next;
    r = sync_plan(n->sync, &o, tick);
    n->host->planned(n->host->ctx, tick);
    p2p_rejoin_after_tick(n, tick);
    n->decided = false;
    n->stall_next = false;
    timesync_after_tick(n);
    p2p_tick_closes(n);
    return r;
}

static void send_leaving(tempo_p2p *n)
{
    for (int i = 0; i < n->npeers + n->nspecs; i++) {
        p2p_peer *e = i < n->npeers ? &n->peers[i] : &n->specs[i - n->npeers];
        if (p2p_lost(e))
            continue;
        n->msg.type = TEMPO_MSG_DISCONNECT;
        p2p_send(n, e, &n->msg, NULL);
    }
}

tempo_result p2p_leave(void *b)
{
    tempo_p2p *n = b;
    if (n->left)
        return TEMPO_E_STATE;
    p2p_send_relays(n); /* what only we hold of a dropped player goes first */
    send_leaving(n);
    n->left = true;
    n->leave_repeats = 2; /* again on the next polls: one loss burst must not eat all */
    return TEMPO_OK;
}

/* The public view of a peer: the link's numbers and the rollback fields. */
void p2p_peer_stats(const p2p_peer *e, tempo_endpoint_stats *out)
{
    const net_link *l = &e->link;
    session_link_stats(l, out);
    out->synchronized = p2p_synced(e);
    out->disconnected = p2p_lost(e);
    out->players = e->players;
    out->remote_frame_lag = e->remote_lag;
    out->acked_frame = e->remote_ack;
    out->auth_failures = e->auth_failures;
}

/* Remote players stop where the peers agree (p2p_agree.c): the
 * DISCONNECTED event comes then. */
static tempo_result p2p_disconnect_player(void *b, int player)
{
    tempo_p2p *n = b;
    p2p_peer *e = &n->peers[n->player_peer[player]];
    if (p2p_lost(e) || n->drop_state[player] != DROP_NONE)
        return TEMPO_E_ALREADY;
    p2p_lose_peer(n, e);
    return TEMPO_OK;
}

tempo_session_state p2p_state(const void *b)
{
    const tempo_p2p *n = b;
    if (n->left)
        return TEMPO_SESSION_ENDED;
    bool anyone = n->npeers == 0; /* without peers, only leaving ends it */
    for (int i = 0; i < n->npeers; i++)
        if (!p2p_lost(&n->peers[i]))
            anyone = true;
    if (!anyone || (n->rejoin.dropped && !n->rejoin.returning))
        return TEMPO_SESSION_ENDED; /* alone, or dropped by the others and not coming back */
    return n->running ? TEMPO_SESSION_RUNNING : TEMPO_SESSION_SYNCHRONIZING;
}

void p2p_stats(const void *b, tempo_session_stats *out)
{
    const tempo_p2p *n = b;
    out->desync_checks = n->count.desync_checks;
    out->desyncs = n->count.desyncs;
    out->dropped_malformed = n->count.dropped_malformed;
    out->dropped_unknown = n->count.dropped_unknown;
    out->dropped_session = n->count.dropped_session;
    out->dropped_replay = n->count.dropped_replay;
    out->dropped_forged = n->count.dropped_forged;
    out->held_jumps = n->count.held_jumps;
    out->unauthenticated = !n->keyed;
    out->send_errors = n->count.send_errors;
    out->desync_checks_missed = n->count.desync_checks_missed;
    out->checksums_ignored = n->count.checksums_ignored;
    out->acks_ignored = n->count.acks_ignored;
    out->claims_ignored = n->count.claims_ignored;
    out->pongs_ignored = 0;
    for (int i = 0; i < n->npeers + n->nspecs; i++)
        out->pongs_ignored += (i < n->npeers ? &n->peers[i] : &n->specs[i - n->npeers])->link.pongs_ignored;
    out->timesync_stalls = n->ts.stalls;
    out->frame_advantage = n->ts.advantage;
    out->startup_delay_ms = n->startup_delay_ms;
    out->diffs = n->diff.diffs;
    out->diffs_skipped = n->diff.skipped;
    out->diffs_ignored = n->diff.ignored;
    out->rejoins = n->rejoin.rejoins;
    out->rejoins_refused = n->rejoin.refused;
    out->rejoin_states_sent = n->rejoin.states_sent;
    out->rejoin_frames_fast_forwarded = n->rejoin.fast_forwarded;
    out->restarts = n->count.restarts;
    out->restarts_unproven = n->count.restarts_unproven;
    out->refusals_sent = n->rejoin.refusals_sent;
    out->dropped_early = n->count.dropped_early;
}

tempo_result p2p_player_stats(const void *b, int player, tempo_endpoint_stats *out)
{
    const tempo_p2p *n = b;
    if (n->player_peer[player] < 0)
        return TEMPO_E_PLAYER;
    const p2p_peer *e = &n->peers[n->player_peer[player]];
    p2p_peer_stats(e, out);
    out->local_frame_lag = n->sync->frame - p2p_wanted(n, e);
    return TEMPO_OK;
}

static tempo_result p2p_spectator_stats(const void *b, int index, tempo_endpoint_stats *out)
{
    const tempo_p2p *n = b;
    if (index < 0 || index >= n->nspecs)
        return TEMPO_E_PLAYER;
    p2p_peer_stats(&n->specs[index], out);
    return TEMPO_OK;
}

/* A state the game gives: a rejoining machine's, or a desync diff's. */
static tempo_result p2p_provide(void *b, int32_t frame, const void *state, size_t size)
{
    tempo_result r;
    if (p2p_rejoin_provide(b, frame, state, size, &r))
        return r;
    return p2p_diff_provide(b, frame, state, size);
}

static const session_backend_ops p2p_ops = {
    .external_load = true,
    .create = p2p_create,
    .destroy = p2p_destroy,
    .add_local = p2p_add_local,
    .add_remote = p2p_add_remote,
    .add_spectator = p2p_add_spectator,
    .disconnect_player = p2p_disconnect_player,
    .poll = p2p_poll,
    .will_stall = p2p_will_stall,
    .advance = p2p_advance,
    .leave = p2p_leave,
    .state = p2p_state,
    .stats = p2p_stats,
    .endpoint_stats = p2p_player_stats,
    .spectator_stats = p2p_spectator_stats,
    .provide_state = p2p_provide,
    .desync_diff = p2p_diff_get,
    .rejoin_state = p2p_rejoin_state,
};

tempo_result tempo_session_create_p2p(const tempo_config *cfg, const tempo_transport *transport,
                                      tempo_session **out)
{
    if (!session_network_args_ok(cfg, transport)) {
        if (out)
            *out = NULL;
        return TEMPO_E_INVALID_ARG;
    }
    session_args args = {transport, NULL, NULL, NULL};
    return session_create(cfg, &p2p_ops, 0, &args, out);
}
