/* SPDX-License-Identifier: MIT */
/*
 * p2p.c — the p2p backend (its ops table is at the end) and what it shares
 * with the spectator backend: the state made and freed, remote machines
 * and their keys, the poll's order of work, the tick's network part
 * around planning, leaving, and the statistics. The packet layer is
 * p2p_packets.c, liveness p2p_liveness.c, start-up and time sync
 * p2p_pace.c (docs/NETWORK.md tells the whole behaviour).
 *
 * A session talks to each remote machine on its own, through that peer's
 * link (net/link.h): the link runs the handshake's bookkeeping (nonce round
 * trips, which also give the first RTT samples, and the configuration hash),
 * times pings and silences and reports liveness events. Time sync decides
 * once per tick, at the first poll after an advance, so
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

bool p2p_link_keys_as(const tempo_p2p *n, const p2p_peer *e, uint32_t self_epoch, wire_keys *out)
{
    uint32_t self = keys_identity_at_epoch(keys_identity_of_players(n->local_mask), self_epoch);
    return keys_derive_link(n->cfg->match_key, n->cfg->session_id, self, peer_identity(n, e, 0), out) == TEMPO_OK;
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
    /* INPUT and INPUT_ACK carry the link's acks: a round trip per tick
     * rather than per ping (without them, pings alone measure it). */
    lc.rtt_from_acks = n->cfg->datagram_acks;
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

p2p_peer *p2p_find(tempo_p2p *n, const tempo_address *a, int *peer_index)
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
    p2p_peer *e = p2p_find(n, addr, &idx);
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
    if (p2p_find(n, addr, &idx))
        return TEMPO_E_ALREADY;
    if (n->nspecs >= n->max_specs)
        return TEMPO_E_FULL;
    p2p_peer_init(&n->specs[n->nspecs++], addr, P2P_ROLE_SPECTATOR, 0);
    return TEMPO_OK;
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
    p2p_receive_all(n);
    for (int i = 0; i < n->npeers; i++)
        p2p_service(n, &n->peers[i]);
    for (int i = 0; i < n->nspecs; i++)
        p2p_service(n, &n->specs[i]);
    p2p_try_finalize(n);
    p2p_check_running(n);
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
    p2p_send_quality(n);
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
    p2p_timesync_after_tick(n);
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
