/* SPDX-License-Identifier: MIT */
/*
 * client.c — a client of an authoritative server (tempo/client.h): the
 * connection (gate handshake, then the channel), snapshots in, inputs
 * out, events and statistics. The plan of each tick — reconciliation and
 * prediction — is client_reconcile.c's.
 *
 * Connecting: the gate (net/gate.h) sends the request and the response;
 * the server's first datagram after it, an ACCEPT on the channel, ends
 * the handshake and tells the slots. The round trip from the last
 * response to the ACCEPT is the first RTT sample, so the first snapshot
 * can already place the client's lead.
 *
 * Snapshots: a snapshot is taken only if it is newer than every one taken
 * and its baseline is one of the states kept (CS_CLIENT_STATES, the newest
 * received); it is decoded into that history, which is also what the
 * client acknowledges (the newest tick received whole) on each INPUT.
 *
 * Inputs: every INPUT carries each kept input the server has not
 * acknowledged (up to CS_MSG_MAX_TICKS ticks and one datagram), so a lost
 * datagram costs nothing while a later one arrives in time.
 *
 * Everything is allocated at create.
 */
#include <string.h>

#include "cs/client_impl.h"
#include "cs/config.h"
#include "net/intake.h"
#include "net/link_stats.h"
#include "wire/cs_msg.h"
#include "wire/delta.h"

#define RECV_PER_POLL 1024

void tempo_client_config_default(tempo_client_config *cfg)
{
    if (cfg == NULL)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->num_players = 2;
    cfg->input_size = 4;
    cfg->frames_per_second = 60;
    cfg->slots = 1;
    cfg->reconcile = TEMPO_RECONCILE_REPLAY;
    cfg->max_state_size = 4096;
    cfg->input_history = 64;
    cfg->max_dilation = 0.05;
    cfg->snap_ticks = 8;
    cfg->min_margin_ticks = 1;
    cfg->max_margin_ticks = 8;
    cfg->handshake_timeout_ms = 10000;
    cfg->disconnect_timeout_ms = 5000;
    cfg->log_level = TEMPO_LOG_WARN;
}

static bool config_valid(const tempo_client_config *c)
{
    if (!cs_config_common_ok(c->num_players, c->input_size, c->frames_per_second, c->arena,
                             c->arena_size, c->max_state_size, c->disconnect_timeout_ms,
                             &c->allocator))
        return false;
    if (c->slots < 1 || c->slots > c->num_players || c->slots > CONNECT_MAX_SLOTS)
        return false;
    if (c->reconcile < TEMPO_RECONCILE_REPLAY || c->reconcile > TEMPO_RECONCILE_DUMB)
        return false;
    if (c->input_history < 8 || c->input_history > 128)
        return false;
    if (!(c->max_dilation >= 0 && c->max_dilation <= 0.25))
        return false;
    if (!(c->snap_ticks >= 2 && c->snap_ticks <= 64))
        return false;
    if (!(c->min_margin_ticks >= 0.25 && c->min_margin_ticks <= c->max_margin_ticks &&
          c->max_margin_ticks <= 32))
        return false;
    if (c->handshake_timeout_ms < 100 || c->handshake_timeout_ms > 600000)
        return false;
    return true;
}

void cs_client_push_event(tempo_client *c, const tempo_client_event *ev)
{
    c->events[event_ring_push(&c->ev)] = *ev;
}

void tempo_client_destroy(tempo_client *c)
{
    if (c == NULL)
        return;
    tempo_allocator a = c->cfg.allocator;
    gate_client_wipe(&c->gate);
    cs_channel_wipe(&c->ch);
    frag_destroy(&c->frag);
    tempo__free(&a, c->states.states);
    tempo__free(&a, c->reported);
    tempo__free(&a, c->local);
    tempo__free(&a, c->kept);
    tempo__free(&a, c->kept_tick);
    tempo__free(&a, c->pred);
    tempo__free(&a, c->pred_tick);
    tempo__free(&a, c->req);
    tempo__free(&a, c->req_inputs);
    tempo__free(&a, c->req_status);
    seal_wipe(c, sizeof *c);
    tempo__free(&a, c);
}

tempo_result tempo_client_create(const tempo_client_config *cfg, const tempo_transport *transport,
                                 const tempo_address *server, tempo_client **out)
{
    if (out != NULL)
        *out = NULL;
    if (cfg == NULL || transport == NULL || server == NULL || out == NULL ||
        transport->send == NULL || transport->recv == NULL || !config_valid(cfg))
        return TEMPO_E_INVALID_ARG;
    if (cfg->has_token && !seal_available())
        return TEMPO_E_UNSUPPORTED;
    if (cfg->has_token) {
        tempo_token_public info;
        if (tempo_token_read_public(cfg->token, TEMPO_TOKEN_SIZE, &info) != TEMPO_OK)
            return TEMPO_E_MALFORMED;
    }
    tempo_client *c = (tempo_client *)tempo__calloc(&cfg->allocator, 1, sizeof *c);
    if (c == NULL)
        return TEMPO_E_NO_MEMORY;
    c->cfg = *cfg;
    c->tr = *transport;
    c->server = *server;
    c->log = tempo__logger(cfg->log, cfg->log_ctx, cfg->log_level);
    c->tick_us = 1000000u / (uint64_t)cfg->frames_per_second;
    c->state_cap = cfg->arena != NULL ? cfg->arena_size : cfg->max_state_size;
    const tempo_allocator *a = &c->cfg.allocator;
    const size_t np = (size_t)cfg->num_players, is = (size_t)cfg->input_size;
    const size_t h = (size_t)cfg->input_history;
    c->req_cap = 2 + 2 * cfg->input_history + CS_CLIENT_MAX_JUMP;
    uint8_t *st = (uint8_t *)tempo__alloc(a, CS_CLIENT_STATES * c->state_cap);
    c->states.states = st;
    c->reported = (uint8_t *)tempo__calloc(a, np, is);
    c->local = (uint8_t *)tempo__calloc(a, np, is);
    c->kept = (uint8_t *)tempo__calloc(a, h * (size_t)cfg->slots, is);
    c->kept_tick = (int32_t *)tempo__calloc(a, h, sizeof(int32_t));
    if (cfg->arena != NULL) {
        c->pred = (uint8_t *)tempo__alloc(a, h * cfg->arena_size);
        c->pred_tick = (int32_t *)tempo__calloc(a, h, sizeof(int32_t));
    }
    c->req = (tempo_request *)tempo__calloc(a, (size_t)c->req_cap, sizeof(tempo_request));
    c->req_inputs = (uint8_t *)tempo__calloc(a, (size_t)c->req_cap * np, is);
    c->req_status = (uint8_t *)tempo__calloc(a, (size_t)c->req_cap, np);
    int fr = frag_create(&c->frag, 2, 1000000u, a);
    if (st == NULL || c->reported == NULL || c->local == NULL || c->kept == NULL ||
        c->kept_tick == NULL || (cfg->arena != NULL && (c->pred == NULL || c->pred_tick == NULL)) ||
        c->req == NULL || c->req_inputs == NULL || c->req_status == NULL || fr != TEMPO_OK) {
        if (fr != TEMPO_OK)
            memset(&c->frag, 0, sizeof c->frag);
        tempo_client_destroy(c);
        return TEMPO_E_NO_MEMORY;
    }
    cs_history_init(&c->states, CS_CLIENT_STATES, c->state_cap, st);
    for (size_t i = 0; i < h; i++) {
        c->kept_tick[i] = -1;
        if (c->pred_tick != NULL)
            c->pred_tick[i] = -1;
    }
    for (int p = 0; p < cfg->num_players; p++)
        c->reported_status[p] = TEMPO_INPUT_PREDICTED;
    c->newest = c->applied = -1;
    c->input_ack = -1;
    c->client_index = -1;
    cs_ticksync_config tc;
    cs_ticksync_config_default(&tc);
    tc.frames_per_second = cfg->frames_per_second;
    tc.max_dilation = cfg->max_dilation;
    tc.snap_ticks = cfg->snap_ticks;
    tc.min_margin_ticks = cfg->min_margin_ticks;
    tc.max_margin_ticks = cfg->max_margin_ticks;
    cs_ticksync_init(&c->ts, &tc);
    event_ring_init(&c->ev, CS_CLIENT_EVENTS);
    c->state = TEMPO_CLIENT_CONNECTING;
    c->st.server_frame = -1;
    c->st.unauthenticated = !cfg->has_token;
    if (!cfg->has_token)
        tempo__log(&c->log, TEMPO_LOG_WARN,
                   "tempo client: no connect token: datagrams travel unsealed");
    *out = c;
    return TEMPO_OK;
}

/* ---- connecting --------------------------------------------------------- */

static void set_state(tempo_client *c, tempo_client_state s, tempo_client_event_kind ev)
{
    c->state = s;
    tempo_client_event e = {ev, 0, 0};
    cs_client_push_event(c, &e);
}

static bool gate_start(tempo_client *c)
{
    gate_client_config gc;
    memset(&gc, 0, sizeof gc);
    gc.protocol_id = c->cfg.protocol_id;
    gc.token = c->cfg.has_token ? c->cfg.token : NULL;
    tempo_rng r;
    /* the nonce names the client in the clear: seeded, the same every run;
     * else the time and the address make two clients differ */
    tempo_rng_seed(&r, c->cfg.random_seed != 0 ? c->cfg.random_seed
                                                : c->now_us ^ (uint64_t)(uintptr_t)c,
                   0x6e6f6e6365ull);
    gc.nonce = ((uint64_t)tempo_rng_next(&r) << 32 | tempo_rng_next(&r)) | 1u;
    gc.server = c->server;
    gc.slots = (uint8_t)c->cfg.slots;
    gc.timeout_us = (uint64_t)c->cfg.handshake_timeout_ms * 1000u;
    int rc = gate_client_init(&c->gate, &gc, c->now_us);
    if (rc != TEMPO_OK) {
        tempo__log(&c->log, TEMPO_LOG_ERROR, "tempo client: the handshake cannot start: %s%s",
                   tempo_strerror(rc),
                   rc == TEMPO_E_PROTOCOL ? " (the token's is not the config's protocol_id)" : "");
        set_state(c, TEMPO_CLIENT_DENIED, TEMPO_CLIENT_EVENT_DENIED);
        return false;
    }
    c->gate_up = true;
    return true;
}

static void on_accept(tempo_client *c, const uint8_t *body, size_t n)
{
    cs_msg_accept a;
    if (cs_msg_read_accept(body, n, &a) != TEMPO_DROP_NONE) {
        c->st.dropped_malformed++;
        return;
    }
    if (c->state != TEMPO_CLIENT_CONNECTING)
        return; /* a copy */
    if (a.num_players != c->cfg.num_players || a.input_size != c->cfg.input_size ||
        a.frames_per_second != c->cfg.frames_per_second) {
        tempo__log(&c->log, TEMPO_LOG_ERROR,
                   "tempo client: the server runs %d players, %d input bytes, %d ticks a second",
                   a.num_players, a.input_size, a.frames_per_second);
        set_state(c, TEMPO_CLIENT_DISCONNECTED, TEMPO_CLIENT_EVENT_DISCONNECTED);
        return;
    }
    if (a.num_players < 64 && (a.slots >> a.num_players) != 0) {
        c->st.dropped_malformed++;
        return;
    }
    (void)gate_client_connected(&c->gate);
    c->slots = a.slots;
    c->num_slots = 0;
    for (int p = 0; p < c->cfg.num_players; p++)
        c->num_slots += (int)(a.slots >> p & 1u);
    if (c->num_slots > c->cfg.slots) {
        c->st.dropped_malformed++;
        return;
    }
    c->client_index = a.client;
    if (c->now_us >= c->response_sent_us)
        link_rtt_sample(&c->ch.link, c->now_us - c->response_sent_us);
    c->state = TEMPO_CLIENT_CONNECTED;
    tempo_client_event e = {TEMPO_CLIENT_EVENT_CONNECTED, c->slots, 0};
    cs_client_push_event(c, &e);
}

/* ---- snapshots ------------------------------------------------------------ */

static void on_snapshot(tempo_client *c, const uint8_t *body, size_t n)
{
    const int np = c->cfg.num_players, is = c->cfg.input_size;
    cs_msg_snapshot m;
    if (cs_msg_read_snapshot(body, n, np, is, c->state_cap, &m) != TEMPO_DROP_NONE) {
        c->st.dropped_malformed++;
        return;
    }
    /* a believable tick: not further ahead of ours than the silence we
     * would wait through before giving up */
    const int32_t ahead = (int32_t)((uint64_t)c->cfg.disconnect_timeout_ms *
                                    (uint64_t)c->cfg.frames_per_second / 1000u) + 128;
    if (c->started && m.tick > c->frame + ahead) {
        c->st.snapshots_dropped++;
        return;
    }
    if (c->state != TEMPO_CLIENT_CONNECTED || m.tick <= c->newest ||
        (c->cfg.arena != NULL && m.state_size != c->cfg.arena_size)) {
        c->st.snapshots_dropped++;
        return;
    }
    const uint8_t *base = NULL;
    if (m.baseline >= 0) {
        size_t bs = 0;
        base = cs_history_get(&c->states, m.baseline, &bs);
        if (base == NULL || bs != m.state_size) {
            c->st.snapshots_dropped++;
            return;
        }
    }
    uint8_t *dst = cs_history_put(&c->states, m.tick, m.state_size);
    if (dst == NULL || dst == base ||
        !delta_decode(base, m.state_size, m.delta, m.delta_size, dst)) {
        cs_history_drop(&c->states, m.tick);
        c->st.snapshots_dropped++;
        return;
    }
    c->newest = m.tick;
    c->newest_us = c->now_us;
    c->st.server_frame = m.tick;
    c->st.snapshots++;
    if (m.baseline < 0)
        c->st.full_snapshots++;
    if (m.input_ack > c->input_ack)
        c->input_ack = m.input_ack;
    for (int p = 0; p < np; p++) {
        const uint8_t *pl = m.players + (size_t)p * (size_t)(1 + is);
        if (c->slots >> p & 1u) {
            if (pl[0] == TEMPO_INPUT_PREDICTED && c->started && m.tick - 1 >= c->first_tick)
                c->st.late_inputs++;
            continue;
        }
        c->reported_status[p] =
            pl[0] == TEMPO_INPUT_DISCONNECTED ? TEMPO_INPUT_DISCONNECTED : TEMPO_INPUT_PREDICTED;
        memcpy(c->reported + (size_t)p * (size_t)is, pl + 1, (size_t)is);
    }
    double e = (double)m.earliness_q8 / 256.0;
    c->st.earliness_ticks = e;
    if (c->started && m.input_ack >= c->report_from)
        cs_ticksync_on_report(&c->ts, e);
    link_on_stamp(&c->ch.link, c->now_us, (uint64_t)m.tick * c->tick_us);
}

/* ---- receiving ------------------------------------------------------------- */

static void on_body(tempo_client *c, uint8_t type, const uint8_t *body, size_t n)
{
    switch (type) {
    case CS_MSG_ACCEPT:
        on_accept(c, body, n);
        break;
    case CS_MSG_SNAPSHOT:
        on_snapshot(c, body, n);
        break;
    case CS_MSG_BYE:
        if (c->state == TEMPO_CLIENT_CONNECTED)
            set_state(c, TEMPO_CLIENT_DISCONNECTED, TEMPO_CLIENT_EVENT_DISCONNECTED);
        break;
    default:
        c->st.dropped_unknown++;
        break;
    }
}

static void on_datagram(tempo_client *c, const tempo_address *from, uint8_t *data, size_t size)
{
    c->st.bytes_received += size;
    c->st.packets_received++;
    tempo_packet_view v;
    if (size > TEMPO_MAX_DATAGRAM || packet_read(data, size, &v, NULL) != TEMPO_OK) {
        c->st.dropped_malformed++;
        return;
    }
    if (!tempo_address_equal(from, &c->server)) {
        c->st.dropped_unknown++;
        return;
    }
    if (v.h.type >= CONNECT_TYPE_REQUEST && v.h.type <= CONNECT_TYPE_DENIED) {
        if (!c->gate_up || c->state != TEMPO_CLIENT_CONNECTING)
            return;
        if (gate_client_on_datagram(&c->gate, c->now_us, from, data, size) == GATE_CLIENT_GOT_DENIED)
            set_state(c, TEMPO_CLIENT_DENIED, TEMPO_CLIENT_EVENT_DENIED);
        return;
    }
    if (v.h.session_id != c->cfg.session_id) {
        c->st.dropped_session++;
        return;
    }
    if (!c->channel_up) {
        /* the server's first datagram after our response: the keys and
         * the sequences come from the gate */
        if (!c->gate_up || c->gate.state != GATE_CLIENT_RESPONDING) {
            c->st.dropped_unknown++;
            return;
        }
        cs_channel_init(&c->ch, c->now_us, &c->server, c->cfg.session_id,
                        c->gate.sealed ? &c->gate.keys : NULL,
                        (uint64_t)c->cfg.disconnect_timeout_ms * 1000u);
    }
    net_datagram d;
    tempo_drop_reason why = cs_channel_receive(&c->ch, c->now_us, data, size, &d);
    if (!c->channel_up) {
        if (why != TEMPO_DROP_NONE || d.v.h.fragment || d.v.h.type != CS_MSG_ACCEPT) {
            cs_channel_wipe(&c->ch);
            /* anything but a forgery or a held jump is no datagram of this
             * connection yet */
            net_drop_counter k = net_drop_counter_of(why);
            NET_DROP_COUNT(&c->st, k == NET_COUNT_FORGED || k == NET_COUNT_HELD ? why
                                                                                : TEMPO_DROP_UNKNOWN);
            return;
        }
        c->channel_up = true;
        c->ch.link.send_seq = c->gate.next_sequence;
    }
    if (why != TEMPO_DROP_NONE) {
        NET_DROP_COUNT(&c->st, why);
        return;
    }
    const uint8_t *body = d.body;
    size_t n = d.body_size;
    uint8_t type = d.v.h.type;
    bool frag = d.v.h.fragment;
    if (frag) {
        tempo_frag_message m;
        int r = frag_receive(&c->frag, c->now_us, type, body, n, &m, NULL);
        if (r < 0) {
            c->st.dropped_malformed++;
            return;
        }
        if (r == 0)
            return;
        if (!cs_channel_on_body(&c->ch, c->now_us, m.data, m.size)) {
            c->st.dropped_malformed++;
            return;
        }
        on_body(c, m.type, m.data, m.size);
        return;
    }
    on_body(c, type, body, n);
}

static bool take(void *ctx, const tempo_address *from, uint8_t *data, size_t size)
{
    on_datagram(ctx, from, data, size);
    return true;
}

/* ---- sending ----------------------------------------------------------------- */

static void send_body(tempo_client *c, uint8_t type, const uint8_t *body, size_t n)
{
    int sent = cs_channel_send(&c->ch, c->now_us, &c->tr, type, body, n, c->dgram);
    if (sent > 0) {
        c->st.bytes_sent += (uint64_t)sent;
        c->st.packets_sent++;
    }
    c->last_send_us = c->now_us;
}

void cs_client_send_inputs(tempo_client *c)
{
    if (c->state != TEMPO_CLIENT_CONNECTED || !c->channel_up)
        return;
    const int h = c->cfg.input_history;
    const size_t per = (size_t)c->num_slots * (size_t)c->cfg.input_size;
    const size_t room = sizeof c->body - CS_MSG_PREFIX_SIZE - CS_MSG_INPUT_HEAD;
    int32_t last = c->frame - 1;
    int32_t first = c->input_ack + 1;
    if (first < c->frame - h)
        first = c->frame - h;
    int count = c->started && last >= first ? (int)(last - first + 1) : 0;
    if (count > CS_MSG_MAX_TICKS)
        count = CS_MSG_MAX_TICKS;
    if (per > 0 && (size_t)count * per > room)
        count = (int)(room / per);
    first = last - count + 1; /* the newest ticks go when not all fit */
    if (first < 0) {
        count += first;
        first = 0;
    }
    uint8_t inputs[TEMPO_MAX_DATAGRAM];
    for (int k = 0; k < count; k++) {
        int32_t t = first + k;
        int i = (int)(t % h);
        if (c->kept_tick[i] == t)
            memcpy(inputs + (size_t)k * per, c->kept + (size_t)i * per, per);
        else
            memset(inputs + (size_t)k * per, 0, per);
    }
    cs_msg_prefix p = cs_channel_prefix(&c->ch);
    size_t n = cs_msg_write_input(c->body, sizeof c->body, &p, c->newest, first < 0 ? 0 : first,
                                  count, inputs, (size_t)count * per);
    if (n > 0)
        send_body(c, CS_MSG_INPUT, c->body, n);
}

static void poll_once(tempo_client *c, uint64_t now_us)
{
    if (now_us > c->now_us)
        c->now_us = now_us;
    if (!c->gate_up && c->state == TEMPO_CLIENT_CONNECTING && !gate_start(c))
        return;
    (void)net_intake(&c->tr, c->recv, sizeof c->recv, RECV_PER_POLL, take, c);
    if (c->state == TEMPO_CLIENT_CONNECTING) {
        if (gate_client_update(&c->gate, c->now_us) == GATE_CLIENT_TIMED_OUT) {
            set_state(c, TEMPO_CLIENT_TIMED_OUT, TEMPO_CLIENT_EVENT_TIMED_OUT);
            return;
        }
        if (gate_client_due(&c->gate, c->now_us)) {
            bool responding = c->gate.state == GATE_CLIENT_RESPONDING;
            int n = gate_client_write(&c->gate, c->now_us, c->dgram, sizeof c->dgram);
            if (n > 0) {
                (void)c->tr.send(c->tr.ctx, &c->server, c->dgram, (size_t)n);
                c->st.bytes_sent += (uint64_t)n;
                c->st.packets_sent++;
                if (responding && !c->responded) {
                    c->responded = true; /* timed from the first: retries would shorten it */
                    c->response_sent_us = c->now_us;
                }
            }
        }
        return;
    }
    if (c->state != TEMPO_CLIENT_CONNECTED)
        return;
    if (link_update(&c->ch.link, c->now_us) & LINK_EV_TIMED_OUT) {
        set_state(c, TEMPO_CLIENT_TIMED_OUT, TEMPO_CLIENT_EVENT_TIMED_OUT);
        return;
    }
    /* acks and keepalive while no tick sends (waiting for the first
     * snapshot, stalled) */
    if (c->now_us - c->last_send_us >= c->tick_us)
        cs_client_send_inputs(c);
}

tempo_result tempo_client_poll(tempo_client *c, uint64_t now_us)
{
    if (c == NULL)
        return TEMPO_E_INVALID_ARG;
    poll_once(c, now_us);
    (void)tempo_transport_flush(&c->tr); /* the round of sends ends */
    return TEMPO_OK;
}

uint64_t tempo_client_tick_us(const tempo_client *c)
{
    if (c == NULL)
        return 0;
    if (!c->started)
        return c->tick_us;
    return cs_ticksync_tick_us(&c->ts);
}

/* Ticks are due on a running deadline, never from when the loop woke: a
 * loop whose sleeps return late gets the next tick that much sooner, so
 * its oversleeps never add up into a drift (at 60 Hz an average oversleep
 * of 1 ms is 6%, more than tick sync may dilate). A loop behind by
 * snap_ticks or more (a hitch, a suspended process) starts again from now
 * rather than race through the backlog: tick sync then jumps. */
void cs_client_schedule(tempo_client *c)
{
    const uint64_t len = tempo_client_tick_us(c);
    const uint64_t behind = (uint64_t)(c->cfg.snap_ticks * (double)c->tick_us);
    if (c->next_tick_at == 0 || c->now_us > c->next_tick_at + behind)
        c->next_tick_at = c->now_us;
    c->next_tick_at += len;
}

uint64_t tempo_client_next_tick_at(const tempo_client *c)
{
    if (c == NULL)
        return 0;
    return c->next_tick_at != 0 ? c->next_tick_at : c->now_us;
}

uint64_t tempo_client_local_players(const tempo_client *c)
{
    return c != NULL && c->state == TEMPO_CLIENT_CONNECTED ? c->slots : 0;
}

tempo_result tempo_client_add_local_input(tempo_client *c, int player, const void *input,
                                          size_t size)
{
    if (c == NULL || input == NULL || size != (size_t)c->cfg.input_size)
        return TEMPO_E_INVALID_ARG;
    if (c->state != TEMPO_CLIENT_CONNECTED)
        return TEMPO_E_STATE;
    if (player < 0 || player >= c->cfg.num_players || !(c->slots >> player & 1u))
        return TEMPO_E_PLAYER;
    memcpy(c->local + (size_t)player * (size_t)c->cfg.input_size, input,
           (size_t)c->cfg.input_size);
    return TEMPO_OK;
}

tempo_result tempo_client_set_reconcile(tempo_client *c, tempo_reconcile_mode mode)
{
    if (c == NULL || mode < TEMPO_RECONCILE_REPLAY || mode > TEMPO_RECONCILE_DUMB)
        return TEMPO_E_INVALID_ARG;
    c->cfg.reconcile = mode;
    c->applied = -1; /* the next plan puts the newest snapshot in place */
    return TEMPO_OK;
}

tempo_result tempo_client_disconnect(tempo_client *c)
{
    if (c == NULL)
        return TEMPO_E_INVALID_ARG;
    if (c->state != TEMPO_CLIENT_CONNECTED)
        return TEMPO_E_STATE;
    uint8_t body[CS_MSG_PREFIX_SIZE];
    cs_channel_bye_body(&c->ch, body);
    for (int k = 0; k < CS_BYE_COPIES; k++)
        send_body(c, CS_MSG_BYE, body, sizeof body);
    (void)tempo_transport_flush(&c->tr);
    c->state = TEMPO_CLIENT_DISCONNECTED;
    return TEMPO_OK;
}

int tempo_client_poll_event(tempo_client *c, tempo_client_event *ev)
{
    if (c == NULL || ev == NULL)
        return 0;
    int i = event_ring_pop(&c->ev);
    if (i < 0)
        return 0;
    *ev = c->events[i];
    return 1;
}

tempo_result tempo_client_get_stats(const tempo_client *c, tempo_client_stats *out)
{
    if (c == NULL || out == NULL)
        return TEMPO_E_INVALID_ARG;
    *out = c->st;
    out->state = c->state;
    out->frame = c->frame;
    out->margin_ticks = cs_ticksync_margin(&c->ts);
    out->dilation = c->started ? cs_ticksync_dilation(&c->ts) : 0.0;
    if (c->channel_up) {
        const net_link_stats ls = link_stats(&c->ch.link);
        out->rtt_ms = ls.rtt_ms;
        out->jitter_ms = ls.arrival_jitter_ms;
        out->loss = ls.loss_in;
    }
    if (c->started && c->newest >= 0) {
        double since = (double)(c->now_us - c->newest_us) / (double)c->tick_us;
        double half = out->rtt_ms * 500.0 / (double)c->tick_us;
        out->lead_ticks = (double)c->frame - ((double)c->newest + half + since);
    }
    return TEMPO_OK;
}
