/* SPDX-License-Identifier: MIT */
/*
 * cs_harness.h — a client-server match in virtual time for tests: one
 * server and up to 64 clients on a simnet, each running a toy game whose
 * state is plain integers (a position per player moved by its input, and
 * a shared counter every position feeds), driven by their own tick clocks.
 *
 * The server records a hash of its state at every tick; a client checks
 * every state it loads against it (load_mismatch), that its ADVANCEs
 * follow on from its state (errors), and that the input it gave for a tick
 * is what its next new ADVANCE carried (input_lag_violations).
 */
#ifndef TEMPO_TESTS_CS_HARNESS_H
#define TEMPO_TESTS_CS_HARNESS_H

#include <stdint.h>
#include <string.h>

#include "tempo/tempo.h"

#define CSH_MAX_CLIENTS 64
#define CSH_MAX_TICKS 20000
#define CSH_INPUT 4

typedef struct csh_game {
    int32_t tick;
    int32_t shared;
    int32_t pos[CSH_MAX_CLIENTS][2];
} csh_game;

static inline uint64_t csh_hash(const csh_game *g)
{
    const uint8_t *b = (const uint8_t *)g;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof *g; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* One step: each present player moves by its input's first two bytes
 * (signed); the shared counter adds every x. */
static inline void csh_step(csh_game *g, const uint8_t *inputs, const uint8_t *status, int players)
{
    for (int p = 0; p < players; p++) {
        if (status[p] == TEMPO_INPUT_DISCONNECTED)
            continue;
        g->pos[p][0] += (int8_t)inputs[p * CSH_INPUT];
        g->pos[p][1] += (int8_t)inputs[p * CSH_INPUT + 1];
        g->shared += g->pos[p][0];
    }
    g->tick++;
}

typedef struct csh_client {
    tempo_client *c;
    tempo_transport t;
    tempo_address addr;
    csh_game g;
    uint64_t next_us;
    bool running;
    uint8_t input[CSH_INPUT];
    uint32_t seed;
    int loads, load_mismatch, errors, input_lag_violations;
    int snap_events, snap_sum;    /* TEMPO_CLIENT_EVENT_SNAP: how many, ticks in all */
    int32_t last_load;
    uint8_t sent[CSH_MAX_TICKS][CSH_INPUT]; /* its input for each tick */
    bool moving;      /* false: its input stays zero */
    tempo_transport rec;          /* the client's transport: the simnet's, recording */
    uint8_t last_sent[TEMPO_MAX_DATAGRAM]; /* its newest datagram */
    size_t last_size;
    uint8_t last_recv[TEMPO_MAX_DATAGRAM]; /* the newest datagram it received */
    size_t last_recv_size;
    bool arena;       /* its game state is the client's arena */
} csh_client;

typedef struct csh {
    tempo_simnet *net;
    tempo_transport st;
    tempo_address saddr;
    tempo_server *server;
    tempo_server_config scfg;
    csh_game sg;
    uint64_t server_hash[CSH_MAX_TICKS];
    uint8_t server_used[CSH_MAX_TICKS][CSH_MAX_CLIENTS * CSH_INPUT]; /* inputs the server played */
    uint64_t now, next_server_us, tick_us;
    int n;
    csh_client cl[CSH_MAX_CLIENTS];
    tempo_client_config ccfg;
    /* called before each server tick, e.g. a hostile sender */
    void (*extra)(struct csh *h, void *ctx);
    void *extra_ctx;
} csh;

static inline int csh_rec_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    csh_client *k = (csh_client *)ctx;
    memcpy(k->last_sent, data, size);
    k->last_size = size;
    return k->t.send(k->t.ctx, to, data, size);
}

static inline int csh_rec_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    csh_client *k = (csh_client *)ctx;
    int n = k->t.recv(k->t.ctx, from, buf, capacity);
    if (n > 0) {
        memcpy(k->last_recv, buf, (size_t)n);
        k->last_recv_size = (size_t)n;
    }
    return n;
}

/* A simnet with every link `lp`, a server of `players` slots. */
static inline void csh_init(csh *h, uint64_t seed, const tempo_link_params *lp, int players,
                            const tempo_allocator *server_alloc)
{
    memset(h, 0, sizeof *h);
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.seed = seed;
    nc.max_nodes = CSH_MAX_CLIENTS + 4;
    nc.max_in_flight = 8192;
    if (lp != NULL)
        nc.default_link = *lp;
    if (tempo_simnet_create(&nc, &h->net) != TEMPO_OK)
        abort();
    h->saddr = tempo_address_ipv4(10, 0, 0, 1, 4000);
    if (tempo_simnet_add_node(h->net, &h->saddr, &h->st) != TEMPO_OK)
        abort();
    tempo_server_config_default(&h->scfg);
    h->scfg.num_players = players;
    h->scfg.input_size = CSH_INPUT;
    h->scfg.max_clients = players;
    h->scfg.max_state_size = sizeof(csh_game);
    h->scfg.random_seed = seed + 1;
    h->scfg.session_id = 77;
    if (server_alloc != NULL)
        h->scfg.allocator = *server_alloc;
    tempo_client_config_default(&h->ccfg);
    h->ccfg.num_players = players;
    h->ccfg.input_size = CSH_INPUT;
    h->ccfg.max_state_size = sizeof(csh_game);
    h->ccfg.session_id = 77;
    h->tick_us = 1000000u / 60u;
}

static inline int csh_start_server(csh *h)
{
    return tempo_server_create(&h->scfg, &h->st, &h->server);
}

/* Add a client with h->ccfg (its arena, when asked, is its game state). */
static inline int csh_add_client(csh *h, uint64_t start_us, bool moving, bool arena)
{
    csh_client *k = &h->cl[h->n];
    memset(k, 0, sizeof *k);
    k->addr = tempo_address_ipv4(10, 0, 1, (uint8_t)(h->n + 1), 5000);
    if (tempo_simnet_add_node(h->net, &k->addr, &k->t) != TEMPO_OK)
        return -1;
    tempo_client_config cc = h->ccfg;
    cc.random_seed = 1000u + (uint64_t)h->n;
    k->arena = arena;
    if (arena) {
        cc.arena = &k->g;
        cc.arena_size = sizeof k->g;
    }
    k->rec.send = csh_rec_send;
    k->rec.recv = csh_rec_recv;
    k->rec.ctx = k;
    int r = tempo_client_create(&cc, &k->rec, &h->saddr, &k->c);
    if (r != TEMPO_OK)
        return r;
    k->next_us = start_us;
    k->running = true;
    k->moving = moving;
    k->seed = 12345u + (uint32_t)h->n * 7919u;
    k->last_load = -1;
    h->n++;
    return TEMPO_OK;
}

static inline void csh_server_tick(csh *h)
{
    tempo_server_poll(h->server, h->now);
    tempo_server_tick t;
    tempo_server_advance(h->server, &t);
    const tempo_request *r = &t.requests[0];
    if (r->frame >= 0 && r->frame < CSH_MAX_TICKS)
        memcpy(h->server_used[r->frame], r->inputs, (size_t)h->scfg.num_players * CSH_INPUT);
    csh_step(&h->sg, r->inputs, r->status, h->scfg.num_players);
    if (h->sg.tick < CSH_MAX_TICKS)
        h->server_hash[h->sg.tick] = csh_hash(&h->sg);
    if (t.snapshot_due && h->scfg.arena == NULL)
        tempo_server_submit_state(h->server, t.frame, &h->sg, sizeof h->sg);
}

static inline void csh_client_tick(csh *h, csh_client *k)
{
    tempo_client_poll(k->c, h->now);
    tempo_client_event ev;
    while (tempo_client_poll_event(k->c, &ev))
        if (ev.kind == TEMPO_CLIENT_EVENT_SNAP) {
            k->snap_events++;
            k->snap_sum += ev.ticks;
        }
    uint64_t mine = tempo_client_local_players(k->c);
    if (k->moving && mine != 0) {
        k->seed = k->seed * 1103515245u + 12345u;
        if ((k->seed >> 16) % 8 == 0) { /* a new direction now and then */
            k->input[0] = (uint8_t)((int)((k->seed >> 8) % 5) - 2);
            k->input[1] = (uint8_t)((int)((k->seed >> 20) % 5) - 2);
        }
    }
    for (int p = 0; p < 64; p++)
        if (mine >> p & 1u)
            tempo_client_add_local_input(k->c, p, k->input, sizeof k->input);
    tempo_client_tick tk;
    tempo_client_advance(k->c, &tk);
    tempo_client_stats cs;
    tempo_client_get_stats(k->c, &cs);
    int slot = -1;
    for (int p = 0; p < 64 && slot < 0; p++)
        if (mine >> p & 1u)
            slot = p;
    for (int i = 0; i < tk.num_requests; i++) {
        const tempo_request *r = &tk.requests[i];
        if (r->kind == TEMPO_REQUEST_LOAD) {
            if (r->state_size != sizeof k->g) {
                k->errors++;
                continue;
            }
            memcpy(&k->g, r->state, sizeof k->g);
            k->loads++;
            k->last_load = r->frame;
            if (r->frame < CSH_MAX_TICKS && csh_hash(&k->g) != h->server_hash[r->frame])
                k->load_mismatch++;
        } else if (r->kind == TEMPO_REQUEST_ADVANCE) {
            if (h->ccfg.reconcile == TEMPO_RECONCILE_REPLAY && !k->arena && r->frame != k->g.tick)
                k->errors++;
            csh_step(&k->g, r->inputs, r->status, h->scfg.num_players);
        }
    }
    if (k->arena && tk.corrected && cs.server_frame >= 0 && cs.server_frame < CSH_MAX_TICKS) {
        k->loads++;
        k->last_load = cs.server_frame;
    }
    /* the input given for this tick is in the tick's newest ADVANCE */
    if (slot >= 0 && tk.frames_advanced > 0 && h->ccfg.reconcile != TEMPO_RECONCILE_DUMB) {
        const tempo_request *last = &tk.requests[tk.num_requests - 1];
        if (last->kind != TEMPO_REQUEST_ADVANCE || last->frame != tk.frame - 1 ||
            memcmp(last->inputs + slot * CSH_INPUT, k->input, CSH_INPUT) != 0)
            k->input_lag_violations++;
        else if (last->frame >= 0 && last->frame < CSH_MAX_TICKS)
            memcpy(k->sent[last->frame], k->input, CSH_INPUT);
    }
    k->next_us += tempo_client_tick_us(k->c);
}

/* Run until the server has stepped `ticks` ticks in all. */
static inline void csh_run(csh *h, int32_t ticks)
{
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    while (ss.frame < ticks) {
        uint64_t next = h->next_server_us;
        csh_client *who = NULL;
        for (int i = 0; i < h->n; i++)
            if (h->cl[i].running && h->cl[i].next_us < next) {
                next = h->cl[i].next_us;
                who = &h->cl[i];
            }
        h->now = next;
        tempo_simnet_set_time(h->net, h->now);
        if (who != NULL) {
            csh_client_tick(h, who);
        } else {
            if (h->extra != NULL)
                h->extra(h, h->extra_ctx);
            csh_server_tick(h);
            h->next_server_us += h->tick_us;
            tempo_server_get_stats(h->server, &ss);
        }
    }
}

static inline void csh_free(csh *h)
{
    for (int i = 0; i < h->n; i++)
        tempo_client_destroy(h->cl[i].c);
    tempo_server_destroy(h->server);
    tempo_simnet_destroy(h->net);
}

#endif /* TEMPO_TESTS_CS_HARNESS_H */
