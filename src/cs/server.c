/* SPDX-License-Identifier: MIT */
/*
 * server.c — the authoritative server of a client-server match
 * (tempo/server.h; docs/CLIENT-SERVER.md).
 *
 * A tick is one ADVANCE with every slot's input for that tick: the
 * client's input if it came (CONFIRMED), else the slot's last input
 * (PREDICTED, counted late), zeros for a slot without a client
 * (DISCONNECTED). Clients send each input redundantly until a snapshot
 * acknowledges it (input_ack), so one lost datagram costs nothing.
 *
 * Strangers go through the gate (net/gate.h): the server keeps nothing for
 * them until a fresh cookie comes back, and only then takes a client
 * record and slots, from memory allocated at create. The cookie key
 * changes every minute (the gate accepts the previous one too). A sealed
 * connection closed within the cookie lifetime of its admission leaves
 * its address and key in its record until the lifetime ends, so that a
 * copy of its response is refused (dropped_replay) rather than admitted
 * again under keys whose nonces were used; such a record is reused only
 * when no other is free. A datagram from a
 * client's address goes through its channel (cs/channel.h): session id,
 * replay window, seal, then the body, and every refusal is counted.
 * Inputs are checked against what the server knows: ticks beyond the
 * input window ahead or older than its ring are dropped and counted
 * (inputs_dropped); a message names only the sender's own slots (the
 * slot count is the server's, not the message's), so no client can write
 * another's input.
 *
 * Snapshots: after a tick whose snapshot is due, the next poll stores the
 * block of tick T in the history (every slot's status and input of tick
 * T - 1, then the state after ADVANCE(T - 1)) and sends each client its
 * snapshot, the block coded against the newest snapshot the client
 * acknowledged while that is still in the history (else against zeros: a
 * full state), fragmented when larger than a datagram. The coded block
 * depends only on the baseline, so clients sharing one share its bytes
 * (coded once, DELTA_CACHE baselines a tick); the head is each client's. The
 * earliness reported is how many ticks before the server ran them the
 * client's inputs arrived, the mean over the inputs that arrived since the
 * last snapshot (the client's tick sync averages reports itself and
 * expects each to describe its own interval, cs/ticksync.c); the
 * statistics show an exponential average (1/8 per input).
 *
 * Everything is allocated at create; poll, advance and submit allocate
 * nothing.
 */
#include "tempo/server.h"

#include <string.h>

#include "base/common.h"
#include "base/event_ring.h"
#include "cs/channel.h"
#include "cs/config.h"
#include "cs/server_input.h"
#include "cs/slots.h"
#include "cs/snapshot.h"
#include "net/addr_map.h"
#include "net/gate.h"
#include "net/intake.h"
#include "net/link_stats.h"
#include "net/receive.h"
#include "wire/cs_msg.h"
#include "wire/delta.h"
#include "wire/fragment.h"

#define EVENTS 256
#define RECV_PER_POLL 4096   /* datagrams taken in one poll at most */
#define ACCEPT_RETRY_US 100000u
#define COOKIE_ROTATE_US 60000000u /* a new cookie key each minute (cookies live 10 s) */
#define DELTA_CACHE 4        /* deltas of one snapshot kept for clients sharing a baseline */

typedef struct cs_client {
    bool used;
    uint64_t client_id;
    bool sealed;
    int first_slot, num_slots;   /* its slots: first_slot .. first_slot + num_slots - 1 */
    cs_channel ch;
    bool heard_input;            /* it sent an INPUT: the ACCEPT arrived */
    uint64_t accept_sent_us;
    int32_t acked_snapshot;      /* -1 none */
    int32_t input_ack;           /* all its inputs up to here are in (or played) */
    int32_t last_input_tick;     /* -1 none */
    uint64_t stamped;            /* bit i: tick last_input_tick - i stamped its arrival */
    bool has_earliness;
    double earliness;            /* smoothed, for the statistics */
    double early_sum;            /* since the last snapshot: its report is the mean */
    int early_count;
    double reported;             /* the last report */
    uint64_t late_inputs, inputs_dropped;
    uint64_t snapshots_sent, snapshot_bytes, full_snapshots;
    uint64_t admitted_us;
    /* A closed sealed connection younger than the cookie lifetime: a copy
     * of its response could still open the cookie, and must not bring it
     * back (same keys, sequences from 0). Kept until closed_until_us. */
    bool closed;
    uint64_t closed_until_us;
    tempo_address closed_addr;
    uint8_t closed_key[SEAL_KEY_SIZE]; /* the connection's client-to-server key */
} cs_client;

struct tempo_server {
    tempo_server_config cfg;
    tempo_transport tr;
    tempo_logger log;
    gate_server gate;
    uint64_t token_time;
    tempo_rng rng;               /* cookie keys when seeded */
    uint64_t rotated_us;
    uint64_t now_us, last_advance_us;
    uint64_t tick_us;

    cs_client *clients;
    addr_map by_addr;            /* a connected client's address -> its index */
    cs_slot_inputs *slot_in;     /* num_players */
    int *owner;                  /* num_players: client index, -1 none */

    cs_history hist;
    size_t state_cap;
    size_t players_size;         /* the players' part of a snapshot block */
    bool snapshot_pending;       /* the state of snapshot_tick is due to go out */
    bool state_in;               /* ... and it is in the history */
    int32_t snapshot_tick;
    int32_t newest_sent;         /* the newest snapshot sent, -1 none */

    int32_t frame;               /* the next tick */
    uint8_t *inputs;             /* num_players * input_size: the tick's */
    uint8_t *status;             /* num_players */
    uint8_t *played;             /* num_players * (1 + input_size): tick T - 1 for snapshots */
    tempo_request req;

    uint8_t *body;               /* a snapshot body */
    size_t body_cap;
    /* the current snapshot's deltas by baseline: most clients acknowledged
     * the same snapshot, and their deltas are coded once */
    uint8_t *cache;              /* DELTA_CACHE * delta_bound(state_cap) */
    size_t cache_stride;
    int32_t cache_base[DELTA_CACHE];
    size_t cache_size[DELTA_CACHE];
    int cache_used, cache_next;
    uint8_t dgram[TEMPO_MAX_DATAGRAM];
    uint8_t recv[TEMPO_MAX_DATAGRAM + 1];

    tempo_server_event events[EVENTS];
    event_ring ev;               /* which of events[] are held, oldest first */
    tempo_server_stats st;
};

void tempo_server_config_default(tempo_server_config *cfg)
{
    if (cfg == NULL)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->num_players = 2;
    cfg->input_size = 4;
    cfg->max_clients = 2;
    cfg->max_slots_per_client = 1;
    cfg->frames_per_second = 60;
    cfg->snapshot_interval = 1;
    cfg->max_state_size = 4096;
    cfg->snapshot_history = 32;
    cfg->input_window = 64;
    cfg->disconnect_timeout_ms = 5000;
    cfg->log_level = TEMPO_LOG_WARN;
}

static bool config_valid(const tempo_server_config *c)
{
    if (!cs_config_common_ok(c->num_players, c->input_size, c->frames_per_second, c->arena,
                             c->arena_size, c->max_state_size, c->disconnect_timeout_ms,
                             &c->allocator))
        return false;
    if (c->max_clients < 1 || c->max_clients > TEMPO_CS_MAX_CLIENTS || c->max_clients > c->num_players)
        return false;
    if (c->max_slots_per_client < 1 || c->max_slots_per_client > c->num_players)
        return false;
    if (c->snapshot_interval < 1 || c->snapshot_interval > 60)
        return false;
    if (c->snapshot_history < 2 || c->snapshot_history > CS_HISTORY_MAX)
        return false;
    if (c->input_window < 1 || c->input_window > 128)
        return false;
    return true;
}

static void push_event(tempo_server *s, const tempo_server_event *ev)
{
    s->events[event_ring_push(&s->ev)] = *ev;
}

/* A cookie key: from the seed when one is given (tests, replays), else
 * from the system (the seeded generator if the system has none). */
static void draw_key(tempo_server *s, uint8_t key[TEMPO_KEY_SIZE])
{
    if (s->cfg.random_seed == 0 && tempo_key_generate(key) == TEMPO_OK)
        return;
    for (int i = 0; i < TEMPO_KEY_SIZE; i++)
        key[i] = (uint8_t)tempo_rng_next(&s->rng);
}

void tempo_server_destroy(tempo_server *s)
{
    if (s == NULL)
        return;
    tempo_allocator a = s->cfg.allocator;
    gate_server_wipe(&s->gate);
    if (s->clients != NULL)
        seal_wipe(s->clients, (size_t)s->cfg.max_clients * sizeof *s->clients);
    tempo__free(&a, s->clients);
    tempo__free(&a, s->by_addr.e);
    if (s->slot_in != NULL)
        tempo__free(&a, s->slot_in[0].data);
    tempo__free(&a, s->slot_in);
    tempo__free(&a, s->hist.states);
    tempo__free(&a, s->inputs);
    tempo__free(&a, s->played);
    tempo__free(&a, s->owner);
    tempo__free(&a, s->status);
    tempo__free(&a, s->body);
    tempo__free(&a, s->cache);
    seal_wipe(s, sizeof *s);
    tempo__free(&a, s);
}

tempo_result tempo_server_create(const tempo_server_config *cfg, const tempo_transport *transport,
                                 tempo_server **out)
{
    if (out != NULL)
        *out = NULL;
    if (cfg == NULL || transport == NULL || out == NULL || transport->send == NULL ||
        transport->recv == NULL || !config_valid(cfg))
        return TEMPO_E_INVALID_ARG;
    if (cfg->has_private_key && !seal_available())
        return TEMPO_E_UNSUPPORTED;
    int crc = seal_cipher_check((int)cfg->cipher);
    if (crc != TEMPO_OK)
        return (tempo_result)crc;
    tempo_server *s = (tempo_server *)tempo__calloc(&cfg->allocator, 1, sizeof *s);
    if (s == NULL)
        return TEMPO_E_NO_MEMORY;
    s->cfg = *cfg;
    s->tr = *transport;
    s->log = tempo__logger(cfg->log, cfg->log_ctx, cfg->log_level);
    s->tick_us = 1000000u / (uint64_t)cfg->frames_per_second;
    s->state_cap = cfg->arena != NULL ? cfg->arena_size : cfg->max_state_size;
    const tempo_allocator *a = &s->cfg.allocator;
    const int np = cfg->num_players, is = cfg->input_size;
    s->clients = (cs_client *)tempo__calloc(a, (size_t)cfg->max_clients, sizeof *s->clients);
    s->by_addr.e = (addr_map_entry *)tempo__alloc(
        a, addr_map_entries(cfg->max_clients) * sizeof *s->by_addr.e);
    s->slot_in = (cs_slot_inputs *)tempo__calloc(a, (size_t)np, sizeof *s->slot_in);
    uint8_t *ring = (uint8_t *)tempo__calloc(a, (size_t)np * CS_INPUT_RING, (size_t)is);
    s->players_size = cs_msg_players_size(np, is);
    const size_t block_cap = s->players_size + s->state_cap;
    uint8_t *hist = (uint8_t *)tempo__alloc(a, (size_t)cfg->snapshot_history * block_cap);
    s->inputs = (uint8_t *)tempo__calloc(a, (size_t)np, (size_t)is);
    s->played = (uint8_t *)tempo__calloc(a, (size_t)np, (size_t)(1 + is));
    s->owner = (int *)tempo__calloc(a, (size_t)np, sizeof *s->owner);
    s->status = (uint8_t *)tempo__calloc(a, (size_t)np, 1);
    s->body_cap = CS_MSG_PREFIX_SIZE + CS_MSG_SNAPSHOT_HEAD + delta_bound(block_cap);
    s->body = (uint8_t *)tempo__alloc(a, s->body_cap);
    s->cache_stride = delta_bound(block_cap);
    s->cache = (uint8_t *)tempo__alloc(a, DELTA_CACHE * s->cache_stride);
    if (s->slot_in != NULL)
        s->slot_in[0].data = ring; /* freed through slot 0 even on failure */
    else
        tempo__free(a, ring);
    s->hist.states = hist;
    if (s->clients == NULL || s->by_addr.e == NULL || s->slot_in == NULL || ring == NULL || hist == NULL ||
        s->inputs == NULL || s->played == NULL || s->owner == NULL || s->status == NULL || s->body == NULL || s->cache == NULL) {
        tempo_server_destroy(s);
        return TEMPO_E_NO_MEMORY;
    }
    for (int p = 0; p < np; p++) {
        cs_slot_inputs_reset(&s->slot_in[p], ring + (size_t)p * CS_INPUT_RING * (size_t)is, is);
        s->owner[p] = -1;
        s->status[p] = TEMPO_INPUT_DISCONNECTED;
        s->played[(size_t)p * (size_t)(1 + is)] = TEMPO_INPUT_DISCONNECTED;
    }
    cs_history_init(&s->hist, cfg->snapshot_history, block_cap, hist);
    s->newest_sent = -1;
    event_ring_init(&s->ev, EVENTS);

    uint8_t key[TEMPO_KEY_SIZE];
    /* seeded: the same keys every run; else the address adds a little */
    tempo_rng_seed(&s->rng, cfg->random_seed != 0 ? cfg->random_seed : (uint64_t)(uintptr_t)s,
                   0x636f6f6b6965ull);
    draw_key(s, key);
    addr_map_init(&s->by_addr, s->by_addr.e, cfg->max_clients, key);
    draw_key(s, key);
    int r = gate_server_open(&s->gate, "server", cfg->protocol_id, cfg->has_private_key,
                             cfg->private_key, &cfg->self, seal_offer((int)cfg->cipher), key);
    seal_wipe(key, sizeof key);
    if (r != TEMPO_OK) {
        tempo_server_destroy(s);
        return r == TEMPO_E_UNSUPPORTED ? TEMPO_E_UNSUPPORTED : TEMPO_E_INVALID_ARG;
    }
    s->st.unauthenticated = !cfg->has_private_key;
    if (!cfg->has_private_key)
        tempo__log(&s->log, TEMPO_LOG_WARN,
                   "tempo server: no private key: clients connect without tokens and "
                   "datagrams travel unsealed");
    *out = s;
    return TEMPO_OK;
}

void tempo_server_set_token_time(tempo_server *s, uint64_t unix_seconds)
{
    if (s != NULL)
        s->token_time = unix_seconds;
}

/* ---- clients -------------------------------------------------------- */

static int find_client(const tempo_server *s, const tempo_address *from)
{
    return addr_map_find(&s->by_addr, from);
}

static void send_body(tempo_server *s, cs_client *c, uint8_t type, const uint8_t *body, size_t n)
{
    int sent = cs_channel_send(&c->ch, s->now_us, &s->tr, type, body, n, s->dgram);
    if (sent > 0)
        s->st.bytes_sent += (uint64_t)sent;
}

static void send_accept(tempo_server *s, int i)
{
    cs_client *c = &s->clients[i];
    cs_msg_prefix p = cs_channel_prefix(&c->ch);
    cs_msg_accept a = {(uint16_t)i, (uint16_t)c->first_slot, (uint8_t)c->num_slots,
                       (uint16_t)s->cfg.num_players, (uint8_t)s->cfg.input_size, (uint16_t)s->cfg.frames_per_second, s->frame,
                       (uint8_t)s->cfg.snapshot_interval};
    uint8_t body[64];
    size_t n = cs_msg_write_accept(body, sizeof body, &p, &a);
    send_body(s, c, CS_MSG_ACCEPT, body, n);
    c->accept_sent_us = s->now_us;
}

static void drop_client(tempo_server *s, int i, bool timed_out, bool say_bye)
{
    cs_client *c = &s->clients[i];
    if (say_bye) {
        uint8_t body[CS_MSG_PREFIX_SIZE];
        cs_channel_bye_body(&c->ch, body);
        for (int k = 0; k < CS_BYE_COPIES; k++)
            send_body(s, c, CS_MSG_BYE, body, sizeof body);
    }
    for (int p = c->first_slot; p < c->first_slot + c->num_slots; p++) {
        s->owner[p] = -1;
        cs_slot_inputs_reset(&s->slot_in[p], s->slot_in[p].data, s->cfg.input_size);
    }
    tempo_server_event ev = {TEMPO_SERVER_CLIENT_DISCONNECTED, i,
                             c->sealed ? c->client_id : 0, cs_slot_mask(c->first_slot, c->num_slots),
                             timed_out, c->first_slot, c->num_slots};
    push_event(s, &ev);
    s->st.disconnects++;
    if (timed_out)
        s->st.timeouts++;
    s->st.clients--;
    const bool linger = c->sealed && s->now_us - c->admitted_us < s->gate.cfg.cookie_lifetime_us;
    const uint64_t until = c->admitted_us + s->gate.cfg.cookie_lifetime_us;
    const tempo_address addr = c->ch.to;
    addr_map_remove(&s->by_addr, &addr);
    uint8_t key[SEAL_KEY_SIZE];
    memcpy(key, c->ch.keys.recv_key, sizeof key);
    cs_channel_wipe(&c->ch);
    seal_wipe(c, sizeof *c);
    if (linger) {
        c->closed = true;
        c->closed_until_us = until;
        c->closed_addr = addr;
        memcpy(c->closed_key, key, sizeof key);
    }
    seal_wipe(key, sizeof key);
}

/* Whether record c still guards a closed connection at now. */
static bool guards(const cs_client *c, uint64_t now) { return c->closed && now < c->closed_until_us; }

/* The gate admitted a client: take it, send its ACCEPT again (a copy of
 * its response), or deny it (full). */
static void admit(tempo_server *s, gate_admit *ad)
{
    for (int i = 0; i < s->cfg.max_clients; i++) {
        cs_client *c = &s->clients[i];
        if (ad->sealed && guards(c, s->now_us) && tempo_address_equal(&c->closed_addr, &ad->address) &&
            seal_key_equal(c->closed_key, ad->keys.recv_key)) {
            s->st.dropped_replay++; /* a copy of a closed connection's response */
            return;
        }
        if (c->used && c->client_id == ad->client_id) {
            if (tempo_address_equal(&c->ch.to, &ad->address) && !c->heard_input)
                send_accept(s, i);
            return; /* the same id elsewhere: one connection per token */
        }
    }
    /* the first run of ad->slots free slots: a client's slots are contiguous */
    int first = -1;
    if (ad->slots >= 1 && ad->slots <= s->cfg.max_slots_per_client)
        for (int p = 0, run = 0; p < s->cfg.num_players && first < 0; p++) {
            run = s->owner[p] < 0 ? run + 1 : 0;
            if (run == ad->slots)
                first = p + 1 - run;
        }
    /* a free record; one guarding a closed connection only if none is
     * free, the one whose guard ends first */
    int idx = -1;
    for (int i = 0; i < s->cfg.max_clients; i++) {
        const cs_client *c = &s->clients[i];
        if (c->used)
            continue;
        if (!guards(c, s->now_us)) {
            idx = i;
            break;
        }
        if (idx < 0 || c->closed_until_us < s->clients[idx].closed_until_us)
            idx = i;
    }
    /* another connection already speaks from this address: its datagrams
     * could not be told apart */
    if (idx < 0 || first < 0 ||
        addr_map_find(&s->by_addr, &ad->address) >= 0) {
        int n = gate_server_deny(&s->gate, ad, s->dgram, sizeof s->dgram);
        if (n > 0) {
            (void)s->tr.send(s->tr.ctx, &ad->address, s->dgram, (size_t)n);
            s->st.bytes_sent += (uint64_t)n;
        }
        s->st.denied_full++;
        return;
    }
    cs_client *c = &s->clients[idx];
    seal_wipe(c, sizeof *c);
    c->used = true;
    c->admitted_us = s->now_us;
    c->client_id = ad->client_id;
    c->sealed = ad->sealed;
    c->first_slot = first;
    c->num_slots = ad->slots;
    for (int p = first; p < first + ad->slots; p++) {
        s->owner[p] = idx;
        cs_slot_inputs_reset(&s->slot_in[p], s->slot_in[p].data, s->cfg.input_size);
    }
    cs_channel_init(&c->ch, s->now_us, &ad->address, s->cfg.session_id,
                    ad->sealed ? &ad->keys : NULL,
                    (uint64_t)s->cfg.disconnect_timeout_ms * 1000u);
    (void)addr_map_add(&s->by_addr, &ad->address, idx);
    if (ad->sealed) /* its datagrams go on from the response's sequence */
        net_receive_start(&c->ch.link, &c->ch.replay, s->now_us, ad->client_sequence, true);
    c->acked_snapshot = -1;
    c->input_ack = s->frame - 1;
    c->last_input_tick = -1;
    s->st.clients++;
    s->st.connects++;
    tempo_server_event ev = {TEMPO_SERVER_CLIENT_CONNECTED, idx, ad->sealed ? ad->client_id : 0,
                             cs_slot_mask(first, ad->slots), false, first, ad->slots};
    push_event(s, &ev);
    send_accept(s, idx);
}

/* ---- inputs ----------------------------------------------------------- */

/* RFC 3550's interarrival jitter of its INPUTs, its tick clock as their
 * timestamp: each tick's first arrival once, a straggler's too (within 64
 * ticks), so reordering is measured and not skipped. */
static void stamp_arrival(tempo_server *s, cs_client *c, int32_t tick)
{
    if (tick < 0 || tick > c->last_input_tick || c->last_input_tick - tick >= 64)
        return;
    uint64_t bit = 1ull << (c->last_input_tick - tick);
    if (c->stamped & bit)
        return;
    c->stamped |= bit;
    link_on_stamp(&c->ch.link, s->now_us, (uint64_t)tick * s->tick_us);
}

static void on_input(tempo_server *s, int ci, const uint8_t *body, size_t size)
{
    cs_client *c = &s->clients[ci];
    const int is = s->cfg.input_size;
    cs_msg_input in;
    if (cs_msg_read_input(body, size, c->num_slots, is, &in) != TEMPO_DROP_NONE) {
        s->st.dropped_malformed++;
        return;
    }
    c->heard_input = true;
    if (in.snapshot_ack > c->acked_snapshot && in.snapshot_ack <= s->newest_sent)
        c->acked_snapshot = in.snapshot_ack;
    const int32_t oldest = s->frame - 2 * CS_MSG_MAX_TICKS;
    const int32_t newest = s->frame + s->cfg.input_window;
    for (int k = 0; k < in.count; k++) {
        int32_t t = in.first + k;
        if (t < s->frame) { /* already played; far older ones are not believable */
            if (t < oldest) {
                c->inputs_dropped += (uint64_t)c->num_slots;
                s->st.inputs_dropped += (uint64_t)c->num_slots;
            }
            continue;
        }
        if (t > newest) {
            c->inputs_dropped += (uint64_t)c->num_slots;
            s->st.inputs_dropped += (uint64_t)c->num_slots;
            continue;
        }
        const uint8_t *src = in.inputs + (size_t)k * (size_t)c->num_slots * (size_t)is;
        for (int j = 0; j < c->num_slots; j++)
            (void)cs_slot_inputs_put(&s->slot_in[c->first_slot + j], t, src + (size_t)j * (size_t)is);
    }
    const int32_t newest_new = in.first + in.count - 1;
    if (in.count > 0 && newest_new > c->last_input_tick && newest_new <= newest) {
        /* a tick it never sent before: late ones count too (negative) */
        /* how early it came: whole ticks ahead of the next tick, plus the
         * part of the current tick not yet elapsed */
        uint64_t since = s->now_us >= s->last_advance_us ? s->now_us - s->last_advance_us : 0;
        if (since > s->tick_us)
            since = s->tick_us;
        double e = (double)(newest_new - s->frame) + (double)(s->tick_us - since) / (double)s->tick_us;
        c->early_sum += e;
        c->early_count++;
        if (!c->has_earliness) {
            c->earliness = e;
            c->has_earliness = true;
        } else {
            c->earliness += (e - c->earliness) / 8.0;
        }
        uint64_t step = c->last_input_tick < 0 ? 64 : (uint64_t)(newest_new - c->last_input_tick);
        c->stamped = step >= 64 ? 0 : c->stamped << step;
        c->last_input_tick = newest_new;
    }
    stamp_arrival(s, c, in.count > 0 ? newest_new : -1);
    while (c->input_ack < newest &&
           cs_slot_inputs_get(&s->slot_in[c->first_slot], c->input_ack + 1) != NULL)
        c->input_ack++;
}

/* ---- receiving -------------------------------------------------------- */

static void on_datagram(tempo_server *s, const tempo_address *from, uint8_t *data, size_t size)
{
    s->st.bytes_received += size;
    tempo_packet_view v;
    if (size > TEMPO_MAX_DATAGRAM || packet_read(data, size, &v, NULL) != TEMPO_OK) {
        s->st.dropped_malformed++;
        return;
    }
    if (v.h.type >= CONNECT_TYPE_REQUEST && v.h.type <= CONNECT_TYPE_DENIED) {
        gate_admit ad;
        size_t reply = 0;
        gate_outcome o = gate_server_on_datagram(&s->gate, s->now_us, s->token_time, from, data,
                                                 size, s->dgram, sizeof s->dgram, &reply, &ad);
        if (o == GATE_REPLY && reply > 0) {
            (void)s->tr.send(s->tr.ctx, from, s->dgram, reply);
            s->st.bytes_sent += reply;
        } else if (o == GATE_ADMIT) {
            admit(s, &ad);
            seal_keys_wipe(&ad.keys);
        } else {
            char line[512];
            if (gate_server_refusal_note(&s->gate, s->now_us, from, line, sizeof line))
                tempo__log(&s->log, TEMPO_LOG_WARN, "tempo server: %s", line);
        }
        return;
    }
    if (v.h.session_id != s->cfg.session_id) {
        s->st.dropped_session++;
        return;
    }
    int ci = find_client(s, from);
    if (ci < 0) {
        s->st.dropped_unknown++;
        return;
    }
    cs_client *c = &s->clients[ci];
    net_datagram d;
    tempo_drop_reason why = cs_channel_receive(&c->ch, s->now_us, data, size, &d);
    if (why != TEMPO_DROP_NONE) {
        NET_DROP_COUNT(&s->st, why);
        return;
    }
    const uint8_t *body = d.body;
    size_t n = d.body_size;
    uint8_t type = d.v.h.type;
    bool frag = d.v.h.fragment;
    if (frag) { /* clients never fragment */
        s->st.dropped_malformed++;
        return;
    }
    if (type == CS_MSG_INPUT)
        on_input(s, ci, body, n);
    else if (type == CS_MSG_BYE)
        drop_client(s, ci, false, false);
    else
        s->st.dropped_unknown++;
}

static bool take(void *ctx, const tempo_address *from, uint8_t *data, size_t size)
{
    on_datagram(ctx, from, data, size);
    return true;
}

/* ---- snapshots --------------------------------------------------------- */

static void send_snapshot(tempo_server *s, int ci, const uint8_t *state, size_t n)
{
    cs_client *c = &s->clients[ci];
    size_t base_size = 0;
    const uint8_t *base = cs_history_get(&s->hist, c->acked_snapshot, &base_size);
    if (base != NULL && (base_size != n || c->acked_snapshot >= s->snapshot_tick))
        base = NULL;
    if (c->early_count > 0) {
        c->reported = c->early_sum / c->early_count;
        c->early_sum = 0;
        c->early_count = 0;
    }
    double e = c->reported;
    if (e > 127.0)
        e = 127.0;
    if (e < -127.0)
        e = -127.0;
    cs_msg_snapshot m;
    m.tick = s->snapshot_tick;
    m.baseline = base != NULL ? c->acked_snapshot : -1;
    m.input_ack = c->input_ack;
    m.earliness_q8 = (int16_t)(e * 256.0);
    m.num_players = s->cfg.num_players;
    m.state_size = (uint32_t)(n - s->players_size);
    cs_msg_prefix p = cs_channel_prefix(&c->ch);
    size_t head = cs_msg_write_snapshot_head(s->body, s->body_cap, &p, &m);
    const int32_t key = base != NULL ? c->acked_snapshot : -1;
    size_t d = 0;
    for (int i = 0; i < s->cache_used && d == 0; i++)
        if (s->cache_base[i] == key) {
            d = s->cache_size[i];
            memcpy(s->body + head, s->cache + (size_t)i * s->cache_stride, d);
        }
    if (d == 0 && head > 0) {
        d = delta_encode(base, state, n, s->body + head, s->body_cap - head);
        if (d > 0) {
            int i = s->cache_next;
            s->cache_next = (s->cache_next + 1) % DELTA_CACHE;
            if (s->cache_used < DELTA_CACHE)
                s->cache_used++;
            s->cache_base[i] = key;
            s->cache_size[i] = d;
            memcpy(s->cache + (size_t)i * s->cache_stride, s->body + head, d);
        }
    }
    if (d == 0 || head + d > FRAG_MAX_PAYLOAD) {
        tempo__log(&s->log, TEMPO_LOG_ERROR, "tempo server: a snapshot of %lu bytes does not fit",
                   (unsigned long)(n - s->players_size));
        return;
    }
    uint64_t before = s->st.bytes_sent;
    send_body(s, c, CS_MSG_SNAPSHOT, s->body, head + d);
    c->snapshots_sent++;
    c->snapshot_bytes += s->st.bytes_sent - before;
    if (base == NULL)
        c->full_snapshots++;
}

static void send_snapshots(tempo_server *s)
{
    if (!s->snapshot_pending)
        return;
    if (!s->state_in && s->cfg.arena != NULL) {
        uint8_t *dst = cs_history_put(&s->hist, s->snapshot_tick, s->players_size + s->cfg.arena_size);
        memcpy(dst, s->played, s->players_size);
        memcpy(dst + s->players_size, s->cfg.arena, s->cfg.arena_size);
        s->state_in = true;
    }
    if (!s->state_in)
        return; /* the game has not submitted it yet */
    s->snapshot_pending = false;
    size_t n = 0;
    const uint8_t *state = cs_history_get(&s->hist, s->snapshot_tick, &n);
    if (state == NULL)
        return;
    s->newest_sent = s->snapshot_tick;
    s->cache_used = s->cache_next = 0;
    for (int i = 0; i < s->cfg.max_clients; i++)
        if (s->clients[i].used)
            send_snapshot(s, i, state, n);
}

tempo_result tempo_server_poll(tempo_server *s, uint64_t now_us)
{
    if (s == NULL)
        return TEMPO_E_INVALID_ARG;
    if (now_us > s->now_us)
        s->now_us = now_us;
    (void)net_intake(&s->tr, s->recv, sizeof s->recv, RECV_PER_POLL, take, s);
    for (int i = 0; i < s->cfg.max_clients; i++) {
        cs_client *c = &s->clients[i];
        if (!c->used)
            continue;
        if (link_update(&c->ch.link, s->now_us) & LINK_EV_TIMED_OUT) {
            drop_client(s, i, true, false);
            continue;
        }
        if (!c->heard_input && s->now_us - c->accept_sent_us >= ACCEPT_RETRY_US)
            send_accept(s, i);
    }
    send_snapshots(s);
    if (s->now_us - s->rotated_us >= COOKIE_ROTATE_US) {
        uint8_t key[TEMPO_KEY_SIZE];
        draw_key(s, key);
        gate_server_rotate(&s->gate, key);
        seal_wipe(key, sizeof key);
        s->rotated_us = s->now_us;
    }
    (void)tempo_transport_flush(&s->tr); /* the tick's snapshots leave together */
    return TEMPO_OK;
}

/* ---- ticks ------------------------------------------------------------- */

tempo_result tempo_server_advance(tempo_server *s, tempo_server_tick *tick)
{
    if (s == NULL || tick == NULL)
        return TEMPO_E_INVALID_ARG;
    const int np = s->cfg.num_players, is = s->cfg.input_size;
    const int32_t f = s->frame;
    uint64_t late_mask = 0;
    for (int p = 0; p < np; p++) {
        uint8_t *dst = s->inputs + (size_t)p * (size_t)is;
        cs_slot_inputs *si = &s->slot_in[p];
        if (s->owner[p] < 0) {
            memset(dst, 0, (size_t)is);
            s->status[p] = TEMPO_INPUT_DISCONNECTED;
        } else {
            const uint8_t *in = cs_slot_inputs_get(si, f);
            if (in != NULL) {
                memcpy(si->last, in, (size_t)is);
                s->status[p] = TEMPO_INPUT_CONFIRMED;
            } else {
                s->status[p] = TEMPO_INPUT_PREDICTED;
                if (p < 64)
                    late_mask |= 1ull << p;
            }
            memcpy(dst, si->last, (size_t)is);
        }
        uint8_t *pl = s->played + (size_t)p * (size_t)(1 + is);
        pl[0] = s->status[p];
        memcpy(pl + 1, dst, (size_t)is);
    }
    for (int i = 0; i < s->cfg.max_clients; i++) {
        cs_client *c = &s->clients[i];
        if (!c->used)
            continue;
        bool late = false;
        for (int p = c->first_slot; p < c->first_slot + c->num_slots; p++)
            late |= s->status[p] == TEMPO_INPUT_PREDICTED;
        if (late && c->last_input_tick >= 0) { /* it has begun sending */
            c->late_inputs++;
            s->st.late_inputs++;
        }
        if (c->input_ack < f)
            c->input_ack = f;
    }
    memset(&s->req, 0, sizeof s->req);
    s->req.kind = TEMPO_REQUEST_ADVANCE;
    s->req.frame = f;
    s->req.slot = -1;
    s->req.inputs = s->inputs;
    s->req.status = s->status;
    tick->requests = &s->req;
    tick->num_requests = 1;
    tick->frame = f;
    tick->late_mask = late_mask;
    tick->snapshot_due = (f + 1) % s->cfg.snapshot_interval == 0;
    if (tick->snapshot_due) {
        s->snapshot_pending = true;
        s->state_in = false;
        s->snapshot_tick = f + 1;
    }
    s->frame = f + 1;
    s->st.ticks++;
    s->last_advance_us = s->now_us;
    return TEMPO_OK;
}

tempo_result tempo_server_submit_state(tempo_server *s, int32_t frame, const void *state,
                                       size_t size)
{
    if (s == NULL || state == NULL)
        return TEMPO_E_INVALID_ARG;
    if (s->cfg.arena != NULL)
        return TEMPO_E_STATE;
    if (size < 1 || size > s->cfg.max_state_size)
        return TEMPO_E_INVALID_ARG;
    if (frame != s->frame - 1 || s->frame == 0)
        return TEMPO_E_FRAME;
    if (s->newest_sent == frame + 1)
        return TEMPO_E_STATE; /* sent: clients decode later deltas against it */
    uint8_t *dst = cs_history_put(&s->hist, frame + 1, s->players_size + size);
    memcpy(dst, s->played, s->players_size); /* the inputs of `frame`, set by its advance */
    memcpy(dst + s->players_size, state, size);
    if (s->snapshot_pending && s->snapshot_tick == frame + 1)
        s->state_in = true;
    return TEMPO_OK;
}

/* ---- events, stats, kick ------------------------------------------------ */

int tempo_server_poll_event(tempo_server *s, tempo_server_event *ev)
{
    if (s == NULL || ev == NULL)
        return 0;
    int i = event_ring_pop(&s->ev);
    if (i < 0)
        return 0;
    *ev = s->events[i];
    return 1;
}

tempo_result tempo_server_get_stats(const tempo_server *s, tempo_server_stats *out)
{
    if (s == NULL || out == NULL)
        return TEMPO_E_INVALID_ARG;
    *out = s->st;
    out->frame = s->frame;
    out->handshake_refused = gate_server_refused(&s->gate);
    return TEMPO_OK;
}

tempo_result tempo_server_get_client_stats(const tempo_server *s, int client,
                                           tempo_server_client_stats *out)
{
    if (s == NULL || out == NULL)
        return TEMPO_E_INVALID_ARG;
    if (client < 0 || client >= s->cfg.max_clients)
        return TEMPO_E_PLAYER;
    memset(out, 0, sizeof *out);
    const cs_client *c = &s->clients[client];
    out->connected = c->used;
    out->acked_snapshot = -1;
    out->last_input_tick = -1;
    if (!c->used)
        return TEMPO_OK;
    const net_link_stats ls = link_stats(&c->ch.link);
    out->client_id = c->sealed ? c->client_id : 0;
    out->slots = cs_slot_mask(c->first_slot, c->num_slots);
    out->first_slot = c->first_slot;
    out->num_slots = c->num_slots;
    out->address = c->ch.to;
    out->rtt_ms = ls.rtt_ms;
    out->jitter_ms = ls.arrival_jitter_ms;
    out->loss = ls.loss_in;
    out->earliness_ticks = c->earliness;
    out->late_inputs = c->late_inputs;
    out->inputs_dropped = c->inputs_dropped;
    out->last_input_tick = c->last_input_tick;
    out->acked_snapshot = c->acked_snapshot;
    out->snapshots_sent = c->snapshots_sent;
    out->snapshot_bytes = c->snapshot_bytes;
    out->full_snapshots = c->full_snapshots;
    out->bytes_sent = ls.bytes_sent;
    out->bytes_received = ls.bytes_received;
    out->packets_sent = ls.packets_sent;
    out->packets_received = ls.packets_received;
    return TEMPO_OK;
}

tempo_result tempo_server_kick(tempo_server *s, int client)
{
    if (s == NULL)
        return TEMPO_E_INVALID_ARG;
    if (client < 0 || client >= s->cfg.max_clients || !s->clients[client].used)
        return TEMPO_E_PLAYER;
    drop_client(s, client, false, true);
    (void)tempo_transport_flush(&s->tr);
    return TEMPO_OK;
}
