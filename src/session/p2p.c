/*
 * p2p.c — the p2p backend (its ops table is at the end) and the machinery
 * it shares with the spectator backend: endpoints, receiving and
 * dispatching datagrams, the handshake, start-up, liveness timers, pings,
 * feeding time sync, the network part of each tick, and per-endpoint stats
 * (docs/NETWORK.md tells the whole behaviour).
 *
 * A session talks to each remote machine (endpoint) on its own: it runs the
 * handshake (ENDPOINT_SYNC_ROUNDS nonce round trips, which also give the
 * first RTT samples), announces its readiness with the ping mesh, and starts
 * once every peer is ready, held back by the start-up delay. Datagrams from
 * unknown addresses are dropped before anything is parsed, then those with
 * another session id; a datagram that fails to decode is dropped and counted
 * by reason. Time sync decides once per tick, at the first poll after an
 * advance, so tempo_session_will_stall can answer before input is sampled.
 */
#include "session/network.h"

#include <string.h>

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
    tempo__free(a, n->specs);
    tempo__free(a, n);
}

static tempo_endpoint *find(tempo_p2p *n, const tempo_address *a, int *peer_index)
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
    tempo_endpoint *e = find(n, addr, &idx);
    if (e && idx < 0)
        return TEMPO_E_ALREADY; /* that address is a spectator */
    if (!e) {
        if (n->npeers == P2P_MAX_PEERS)
            return TEMPO_E_FULL;
        idx = n->npeers++;
        e = &n->peers[idx];
        endpoint_init(e, addr, ENDPOINT_PEER, 0);
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
    endpoint_init(&n->specs[n->nspecs++], addr, ENDPOINT_SPECTATOR, 0);
    return TEMPO_OK;
}

/* ---- sending ------------------------------------------------------------- */

bool p2p_send(tempo_p2p *n, tempo_endpoint *e, tempo_msg *msg, const tempo_codec_ctx *ctx)
{
    msg->session_id = n->cfg->session_id;
    msg->sequence = e->send_seq;
    int size = tempo_codec_encode(msg, ctx, n->buf, TEMPO_MAX_DATAGRAM);
    if (size <= 0) {
        tempo__log(&n->sync->log, TEMPO_LOG_ERROR, "tempo: cannot encode message type %d: %s",
                   msg->type, tempo_strerror(size));
        return false;
    }
    (void)endpoint_next_seq(e);
    endpoint_on_send(e, n->clock->now_us, (size_t)size);
    if (n->transport.send(n->transport.ctx, &e->addr, n->buf, (size_t)size) < 0) {
        n->count.send_errors++;
        return false;
    }
    return true;
}

static void fill_sync(tempo_p2p *n, tempo_msg *m, uint8_t type, uint32_t nonce)
{
    memset(&m->u.sync, 0, sizeof m->u.sync);
    m->type = type;
    tempo_msg_sync *y = &m->u.sync;
    y->nonce = nonce;
    y->config_hash = n->config_hash;
    y->num_players = (uint8_t)n->cfg->num_players;
    y->input_size = (uint8_t)n->cfg->input_size;
    y->player_mask = (uint8_t)n->local_mask;
    bool ready = true;
    uint8_t ready_mask = (uint8_t)n->local_mask;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        y->rtt_ms[p] = 0xFFFF;
    for (int i = 0; i < n->npeers; i++) {
        const tempo_endpoint *e = &n->peers[i];
        if (e->synchronized)
            ready_mask |= (uint8_t)e->players;
        else if (!e->disconnected)
            ready = false;
        for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
            if ((e->players & (1u << p)) && e->has_rtt) {
                double ms = e->srtt_us / 1000.0;
                y->rtt_ms[p] = (uint16_t)(ms < 65534.0 ? ms : 65534.0);
            }
    }
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        if (n->local_mask & (1u << p))
            y->rtt_ms[p] = 0;
    y->ready_mask = ready_mask;
    y->ready = ready;
}

/* SYNC_REQUESTs: the handshake's round trips, then, until the match runs,
 * announcements of our readiness and our round trips (the ping mesh). */
static void handshake(tempo_p2p *n, tempo_endpoint *e)
{
    if (e->disconnected || (e->synchronized && (n->running || e->role != ENDPOINT_PEER)))
        return;
    uint64_t now = n->clock->now_us;
    if (e->sync_sent_us != 0 && now - e->sync_sent_us < ENDPOINT_SYNC_RETRY_US)
        return;
    if (!endpoint_may_send(e, now, n->start_us))
        return;
    int slot = 0; /* a free slot, or the oldest request */
    for (int i = 1; i < ENDPOINT_NONCES; i++)
        if (e->nonce_sent_us[i] < e->nonce_sent_us[slot] || e->nonces[slot] != 0)
            if (e->nonces[i] == 0 || e->nonce_sent_us[i] < e->nonce_sent_us[slot])
                slot = i;
    uint32_t nonce;
    do
        nonce = tempo_rng_next(&n->rng);
    while (nonce == 0);
    e->nonces[slot] = nonce;
    e->nonce_sent_us[slot] = now;
    e->sync_sent_us = now > 0 ? now : 1;
    fill_sync(n, &n->msg, TEMPO_MSG_SYNC_REQUEST, nonce);
    p2p_send(n, e, &n->msg, NULL);
}

/* ---- receiving ------------------------------------------------------------ */

static void drop(tempo_p2p *n, tempo_drop_reason why)
{
    n->drops[why]++;
    n->count.dropped_malformed++;
}

static bool sync_fits(tempo_p2p *n, const tempo_endpoint *e, const tempo_msg_sync *y)
{
    if (y->num_players != n->cfg->num_players || y->input_size != n->cfg->input_size ||
        y->config_hash != n->config_hash)
        return false;
    switch (e->role) {
    case ENDPOINT_PEER: return y->player_mask == e->players;
    case ENDPOINT_SPECTATOR: return y->player_mask == 0;
    case ENDPOINT_HOST: return y->player_mask != 0;
    }
    return false;
}

static void on_sync(tempo_p2p *n, tempo_endpoint *e, const tempo_msg *m)
{
    const tempo_msg_sync *y = &m->u.sync;
    if (!sync_fits(n, e, y)) {
        tempo__log(&n->sync->log, TEMPO_LOG_WARN,
                   "tempo: handshake from an endpoint whose match settings differ; ignored");
        drop(n, TEMPO_DROP_BAD_VALUE);
        return;
    }
    if (y->ready && !e->remote_ready) {
        e->remote_ready = true;
        e->ready_heard_us = n->clock->now_us;
    }
    memcpy(e->mesh_rtt_ms, y->rtt_ms, sizeof e->mesh_rtt_ms);
    if (m->type == TEMPO_MSG_SYNC_REQUEST) {
        uint32_t nonce = y->nonce;
        fill_sync(n, &n->msg, TEMPO_MSG_SYNC_REPLY, nonce);
        p2p_send(n, e, &n->msg, NULL);
        return;
    }
    int slot = -1;
    for (int i = 0; i < ENDPOINT_NONCES && y->nonce != 0; i++)
        if (e->nonces[i] == y->nonce)
            slot = i;
    if (slot < 0 || e->synchronized)
        return; /* a repeat, or not ours */
    if (!session_clock_spans_jump(n->clock, e->nonce_sent_us[slot]))
        endpoint_rtt_sample(e, n->clock->now_us - e->nonce_sent_us[slot]);
    e->nonces[slot] = 0;
    e->sync_rounds++;
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TEMPO_EVENT_SYNCHRONIZING;
    ev.player = p2p_first_player(e->players);
    ev.u.sync.done = e->sync_rounds;
    ev.u.sync.total = ENDPOINT_SYNC_ROUNDS;
    p2p_push_event(n, &ev);
    if (e->sync_rounds >= ENDPOINT_SYNC_ROUNDS) {
        e->synchronized = true;
        e->next_ping_us = n->clock->now_us + ENDPOINT_PING_US;
        p2p_event(n, TEMPO_EVENT_SYNCHRONIZED, p2p_first_player(e->players));
    } else {
        e->sync_sent_us = 0; /* next round trip at once */
        handshake(n, e);
    }
}

static void on_message(tempo_p2p *n, tempo_endpoint *e, int peer, tempo_msg *m)
{
    switch ((tempo_msg_type)m->type) {
    case TEMPO_MSG_SYNC_REQUEST:
    case TEMPO_MSG_SYNC_REPLY:
        on_sync(n, e, m);
        break;
    case TEMPO_MSG_INPUT:
        p2p_on_input(n, e, &m->u.input);
        break;
    case TEMPO_MSG_INPUT_ACK:
        p2p_on_input_ack(n, e, &m->u.input_ack);
        break;
    case TEMPO_MSG_PING: {
        uint32_t t = m->u.ping.time_us;
        n->msg.type = TEMPO_MSG_PONG;
        n->msg.u.ping.time_us = t;
        p2p_send(n, e, &n->msg, NULL);
        break;
    }
    case TEMPO_MSG_PONG: {
        uint32_t rtt = (uint32_t)n->clock->now_us - m->u.ping.time_us;
        /* older than 10 s: a stray */
        if (rtt < 10000000u && !session_clock_spans_jump(n->clock, n->clock->now_us - rtt))
            endpoint_rtt_sample(e, rtt);
        break;
    }
    case TEMPO_MSG_CHECKSUM:
        p2p_on_checksum(n, e, peer, &m->u.checksum);
        break;
    case TEMPO_MSG_DISCONNECT:
        p2p_lose_endpoint(n, e);
        break;
    case TEMPO_MSG_QUALITY:
        if (peer >= 0 && e->role == ENDPOINT_PEER)
            timesync_on_quality(&n->ts, peer, m->u.quality.advantage_q8 / 256.0);
        break;
    case TEMPO_MSG_TYPE_COUNT_:
        break;
    }
}

static void on_datagram(tempo_p2p *n, const tempo_address *from, size_t size)
{
    if (size > TEMPO_MAX_DATAGRAM) {
        drop(n, TEMPO_DROP_TOO_LONG);
        return;
    }
    /* Strangers first: nothing of theirs is even parsed. */
    int peer;
    tempo_endpoint *e = find(n, from, &peer);
    if (!e) {
        n->count.dropped_unknown++;
        return;
    }
    if (e->disconnected)
        return;
    uint32_t sid;
    uint16_t seq;
    uint8_t type;
    tempo_drop_reason why = TEMPO_DROP_NONE;
    if (tempo_codec_peek_header(n->buf, size, &sid, &seq, &type, &why) != TEMPO_OK) {
        drop(n, why);
        return;
    }
    if (sid != n->cfg->session_id) {
        n->count.dropped_session++;
        return;
    }
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = n->cfg->input_size;
    ctx.num_players = n->cfg->num_players;
    ctx.frame_hint = p2p_wanted(n, e);
    ctx.reference = p2p_reference;
    ctx.reference_ctx = n;
    if (tempo_codec_decode(n->buf, size, &ctx, &n->msg, &why) != TEMPO_OK) {
        drop(n, why);
        return;
    }
    bool first = !e->heard;
    endpoint_on_receive(e, n->clock->now_us, seq, size);
    if (first)
        p2p_event(n, TEMPO_EVENT_CONNECTED, p2p_first_player(e->players));
    if (e->interrupted) {
        e->interrupted = false;
        p2p_event(n, TEMPO_EVENT_RESUMED, p2p_first_player(e->players));
    }
    on_message(n, e, peer, &n->msg);
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

/* ---- timers ----------------------------------------------------------------- */

void p2p_lose_endpoint(tempo_p2p *n, tempo_endpoint *e)
{
    if (e->disconnected)
        return;
    e->disconnected = true;
    e->interrupted = false;
    if (e >= n->peers && e < n->peers + P2P_MAX_PEERS) /* its checksums are moot */
        p2p_forget_sums(n, (int)(e - n->peers));
    if (e->role == ENDPOINT_PEER && e >= n->peers && e < n->peers + P2P_MAX_PEERS)
        timesync_peer_lost(&n->ts, (int)(e - n->peers));
    if (e->role == ENDPOINT_PEER) {
        p2p_restart_drops(n); /* the survivors changed: agree again */
        for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
            if (e->players & (1u << p))
                p2p_begin_drop(n, p);
    } else {
        tempo_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = TEMPO_EVENT_DISCONNECTED;
        ev.player = -1;
        ev.u.disconnected.frame = n->sync->frame;
        p2p_push_event(n, &ev);
    }
}

static void timers(tempo_p2p *n, tempo_endpoint *e)
{
    if (!e->synchronized || e->disconnected)
        return;
    uint64_t silence = endpoint_silence(e, n->clock->now_us, n->start_us);
    uint64_t notify = (uint64_t)n->cfg->disconnect_notify_ms * 1000u;
    uint64_t timeout = (uint64_t)n->cfg->disconnect_timeout_ms * 1000u;
    if (silence >= timeout) {
        p2p_lose_endpoint(n, e);
    } else if (silence >= notify && !e->interrupted) {
        e->interrupted = true;
        tempo_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = TEMPO_EVENT_INTERRUPTED;
        ev.player = p2p_first_player(e->players);
        ev.u.interrupted.disconnect_in_ms = (uint32_t)((timeout - silence) / 1000u);
        p2p_push_event(n, &ev);
    }
}

static void ping(tempo_p2p *n, tempo_endpoint *e)
{
    if (!e->synchronized || e->disconnected || n->clock->now_us < e->next_ping_us)
        return;
    if (!endpoint_may_send(e, n->clock->now_us, n->start_us))
        return;
    e->next_ping_us = n->clock->now_us + ENDPOINT_PING_US;
    n->msg.type = TEMPO_MSG_PING;
    n->msg.u.ping.time_us = (uint32_t)n->clock->now_us;
    p2p_send(n, e, &n->msg, NULL);
}

static void service(tempo_p2p *n, tempo_endpoint *e)
{
    endpoint_update(e, n->clock->now_us);
    handshake(n, e);
    timers(n, e);
    ping(n, e);
}

/* Half the round trip between machines i and k (index npeers = us), in us:
 * ours from our own measurement, theirs from what they announced. */
static double owd_between(const tempo_p2p *n, int i, int k)
{
    if (i == k)
        return 0;
    if (i == n->npeers || k == n->npeers) {
        const tempo_endpoint *e = &n->peers[i == n->npeers ? k : i];
        return e->has_rtt ? e->srtt_us / 2.0 : 0.0;
    }
    const tempo_endpoint *a = &n->peers[i], *b = &n->peers[k];
    int pa = p2p_first_player(a->players), pb = p2p_first_player(b->players);
    double sum = 0;
    int count = 0;
    if (pb >= 0 && a->mesh_rtt_ms[pb] != 0xFFFF)
        sum += a->mesh_rtt_ms[pb], count++;
    if (pa >= 0 && b->mesh_rtt_ms[pa] != 0xFFFF)
        sum += b->mesh_rtt_ms[pa], count++;
    return count ? sum / count * 1000.0 / 2.0 : 0.0;
}

static double worst_rtt_ms(const tempo_p2p *n)
{
    double worst = 0;
    for (int i = 0; i < n->npeers; i++)
        if (!n->peers[i].disconnected && n->peers[i].has_rtt && n->peers[i].srtt_us / 1000.0 > worst)
            worst = n->peers[i].srtt_us / 1000.0;
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

static void start_running(tempo_p2p *n)
{
    n->running = true;
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
    if (n->spectating) {
        if (n->peers[0].synchronized)
            start_running(n);
        return;
    }
    if (!n->ready) {
        for (int i = 0; i < n->npeers; i++)
            if (!n->peers[i].synchronized && !n->peers[i].disconnected)
                return;
        n->ready = true;
        n->ready_us = n->clock->now_us;
        for (int i = 0; i < n->npeers; i++) /* announce it at once */
            n->peers[i].sync_sent_us = 0;
    }
    if (!n->run_scheduled) {
        for (int i = 0; i < n->npeers; i++)
            if (!n->peers[i].remote_ready && !n->peers[i].disconnected)
                return;
        uint64_t wait = 0;
        if (n->cfg->timesync.startup_delay && n->npeers > 0) {
            int m = n->npeers + 1;
            uint64_t heard[P2P_MAX_PEERS + 1];
            double owd[(P2P_MAX_PEERS + 1) * (P2P_MAX_PEERS + 1)];
            for (int i = 0; i < n->npeers; i++)
                heard[i] = n->peers[i].disconnected ? n->ready_us : n->peers[i].ready_heard_us;
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
        start_running(n);
}

/* GGPO's quality reports: our advantage estimate, once a second. */
static double ggpo_local_advantage(const tempo_p2p *n, const tempo_endpoint *e)
{
    double owd_frames = e->has_rtt ? e->srtt_us / 2.0 * n->cfg->frames_per_second / 1e6 : 0.0;
    return (double)e->remote_frame + owd_frames - (double)n->sync->frame;
}

static void send_quality(tempo_p2p *n)
{
    if (n->cfg->timesync.method != TEMPO_TIMESYNC_GGPO || n->spectating || n->clock->now_us < n->next_quality_us)
        return;
    n->next_quality_us = n->clock->now_us + 1000000u;
    for (int i = 0; i < n->npeers; i++) {
        tempo_endpoint *e = &n->peers[i];
        if (e->disconnected || !e->synchronized)
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
        const tempo_endpoint *e = &n->peers[i];
        if (e->disconnected || !e->synchronized || !e->heard)
            continue;
        double local_lag = (double)n->sync->frame - (double)e->remote_frame;
        timesync_on_local(&n->ts, i, local_lag, ggpo_local_advantage(n, e));
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
        n->start_us = n->clock->now_us;
        for (int p = 0; p < n->cfg->num_players; p++)
            if (n->sync->kind[p] == SYNC_LOCAL)
                n->local_mask |= 1u << p;
    }
    if (n->left) {
        if (n->leave_repeats > 0) {
            n->leave_repeats--;
            send_leaving(n);
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
    n->decided = false;
    n->stall_next = false;
    timesync_after_tick(n);
    p2p_tick_closes(n);
    return r;
}

static void send_leaving(tempo_p2p *n)
{
    for (int i = 0; i < n->npeers + n->nspecs; i++) {
        tempo_endpoint *e = i < n->npeers ? &n->peers[i] : &n->specs[i - n->npeers];
        if (e->disconnected)
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

/* The public view of an endpoint. */
void p2p_endpoint_stats(const tempo_endpoint *e, tempo_endpoint_stats *out)
{
    memset(out, 0, sizeof *out);
    out->synchronized = e->synchronized;
    out->interrupted = e->interrupted;
    out->disconnected = e->disconnected;
    out->players = e->players;
    out->rtt_ms = e->has_rtt ? e->srtt_us / 1000.0 : 0.0;
    out->jitter_ms = e->has_rtt ? e->rttvar_us / 1000.0 : 0.0;
    out->loss = e->loss;
    out->packets_sent = e->packets_sent;
    out->packets_received = e->packets_received;
    out->bytes_sent = e->bytes_sent;
    out->bytes_received = e->bytes_received;
    out->send_bytes_per_s = e->send_rate;
    out->remote_frame_lag = e->remote_lag;
    out->acked_frame = e->remote_ack;
}

/* Remote players stop where the peers agree (p2p_agree.c): the
 * DISCONNECTED event comes then. */
static tempo_result p2p_disconnect_player(void *b, int player)
{
    tempo_p2p *n = b;
    tempo_endpoint *e = &n->peers[n->player_peer[player]];
    if (e->disconnected || n->drop_state[player] != DROP_NONE)
        return TEMPO_E_ALREADY;
    p2p_lose_endpoint(n, e);
    return TEMPO_OK;
}

tempo_session_state p2p_state(const void *b)
{
    const tempo_p2p *n = b;
    if (n->left)
        return TEMPO_SESSION_ENDED;
    bool anyone = n->npeers == 0; /* without peers, only leaving ends it */
    for (int i = 0; i < n->npeers; i++)
        if (!n->peers[i].disconnected)
            anyone = true;
    if (!anyone)
        return TEMPO_SESSION_ENDED;
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
    out->send_errors = n->count.send_errors;
    out->desync_checks_missed = n->count.desync_checks_missed;
    out->checksums_ignored = n->count.checksums_ignored;
    out->timesync_stalls = n->ts.stalls;
    out->frame_advantage = n->ts.advantage;
    out->startup_delay_ms = n->startup_delay_ms;
}

tempo_result p2p_player_stats(const void *b, int player, tempo_endpoint_stats *out)
{
    const tempo_p2p *n = b;
    if (n->player_peer[player] < 0)
        return TEMPO_E_PLAYER;
    const tempo_endpoint *e = &n->peers[n->player_peer[player]];
    p2p_endpoint_stats(e, out);
    out->local_frame_lag = n->sync->frame - p2p_wanted(n, e);
    return TEMPO_OK;
}

static tempo_result p2p_spectator_stats(const void *b, int index, tempo_endpoint_stats *out)
{
    const tempo_p2p *n = b;
    if (index < 0 || index >= n->nspecs)
        return TEMPO_E_PLAYER;
    p2p_endpoint_stats(&n->specs[index], out);
    return TEMPO_OK;
}

const session_backend_ops session_p2p_ops = {
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
};
