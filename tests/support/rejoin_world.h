/* SPDX-License-Identifier: MIT */
/*
 * rejoin_world.h — N p2p machines (three, unless the test defines N first)
 * over simnet in virtual time playing a small arena-mode game (player i on
 * machine i, a 40 KB state), for the tests of machines that leave a running
 * match and come back: the world, its ticks, a machine's process stopped
 * and started again, and what the machines agree on. One more machine
 * (m[N]) may be a spectator of machine 0's. Every session allocates through a counter, so a test can
 * check that nothing is allocated from some moment on.
 */
#ifndef TEMPO_TESTS_REJOIN_WORLD_H
#define TEMPO_TESTS_REJOIN_WORLD_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "p2p/network.h"
#include "session/session.h"
#include "tempo/simnet.h"
#include "wire/packet.h"

#ifndef N
#define N 3
#endif
#define TICK_US 16667u
#define MAX_FRAMES 4096

typedef struct game {
    uint64_t hash;
    int32_t frame;
    uint8_t pad[40000]; /* a state of 35 fragments: the transfer spans several ticks */
} game;

typedef struct machine {
    tempo_session *s;
    tempo_address addr;
    tempo_transport node;
    game g;                        /* the arena */
    uint64_t hash_after[MAX_FRAMES];
    bool down;                     /* not ticking: its process is gone */
    bool port_closed;              /* down, and what arrives for it is lost */
    bool cut;                      /* its network to the others went (split_world.h) */
    uint64_t samples;
    int waiting_ticks;             /* WAITING ticks since counting began */
    bool counting;
    int rejoined_events;
    int32_t rejoined_frame;
    int rejoined_player;
    uint64_t rejoined_us;          /* world time of the last REJOINED event */
    int dropped_events;            /* DROPPED: the others dropped it */
    tempo_dropped_reason dropped_reason;
    bool dropped_rejoining;
    uint32_t dropped_epoch;
    int auth_events;               /* AUTH_FAILED */
    tempo_auth_failure auth_kind;
    int desyncs;
    int disconnects;
    int resim_advances;
    double next_us;
    /* Without an arena: the game saves and loads its state itself. */
    game slot[TEMPO_MAX_PREDICTION + 2];
    int states_given, states_loaded;
    tempo_result provided;
} machine;

typedef struct world {
    tempo_simnet *net;
    machine m[N + 1];   /* m[N]: a spectator of machine 0's, when there is one */
    bool spectator;     /* m[N] ticks */
    uint64_t now;
    uint64_t seed;
    uint32_t window_ms;
    bool keyed;
    uint32_t epoch;     /* the restarted machine's key epoch */
    bool no_arena;      /* the games keep their states themselves */
    int stale;          /* datagrams to the old process still waiting at the restart */
} world;

static inline uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 33);
}

/* Every session's allocator: counts what is taken once `counting` is set. */
static uint64_t allocs_counted;
static bool counting;

static inline void *counted_alloc(void *ctx, size_t size)
{
    (void)ctx;
    if (counting) {
        allocs_counted++;
    }
    return malloc(size);
}

static inline void counted_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static int log_frames = 1024; /* every session's input_log_frames */

static inline tempo_config base_cfg(const world *w)
{
    tempo_config c;
    tempo_config_default(&c);
    c.allocator.alloc = counted_alloc;
    c.allocator.free = counted_free;
    if (w->keyed) {
        c.has_match_key = true;
        for (int i = 0; i < 32; i++)
            c.match_key[i] = (uint8_t)(i * 7 + 1);
    }
    c.num_players = N;
    c.input_size = 2;
    c.max_prediction = 8;
    c.desync_interval = 30;
    c.rejoin_window_ms = w->window_ms;
    c.input_log_frames = log_frames;
    return c;
}

static inline void make_session(world *w, int i, const tempo_config *base, bool rejoin)
{
    machine *m = &w->m[i];
    memset(&m->g, 0, sizeof m->g);
    tempo_config c = *base;
    c.arena = w->no_arena ? NULL : &m->g;
    c.arena_size = w->no_arena ? 0 : sizeof m->g;
    c.rejoin = rejoin;
    c.rejoin_epoch = rejoin ? w->epoch : 0;
    c.random_seed = w->seed * 31u + (uint64_t)i + (rejoin ? 1000u : 0u);
    assert_int_equal(tempo_session_create_p2p(&c, &m->node, &m->s), TEMPO_OK);
    for (int p = 0; p < N; p++) {
        if (p == i) {
            assert_int_equal(tempo_session_add_local_player(m->s, p), TEMPO_OK);
        } else {
            tempo_address a = w->m[p].addr;
            assert_int_equal(tempo_session_add_remote_player(m->s, p, &a), TEMPO_OK);
        }
    }
}

static inline void world_init(world *w, uint32_t window_ms, bool keyed, uint64_t seed)
{
    bool no_arena = w->no_arena;
    counting = false;
    allocs_counted = 0;
    memset(w, 0, sizeof *w);
    w->no_arena = no_arena;
    w->seed = seed;
    w->window_ms = window_ms;
    w->keyed = keyed;
    w->epoch = 1;
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.seed = seed;
    assert_int_equal(tempo_link_profile("broadband", &nc.default_link), TEMPO_OK);
    assert_int_equal(tempo_simnet_create(&nc, &w->net), TEMPO_OK);
    tempo_config c = base_cfg(w);
    for (int i = 0; i < N; i++) {
        w->m[i].addr = tempo_address_ipv4(10, 0, 0, (uint8_t)(i + 1), 7000);
        w->m[i].next_us = (double)(mix(seed, (uint64_t)i) % TICK_US);
        assert_int_equal(tempo_simnet_add_node(w->net, &w->m[i].addr, &w->m[i].node), TEMPO_OK);
    }
    for (int i = 0; i < N; i++)
        make_session(w, i, &c, false);
}

static inline void world_free(world *w)
{
    for (int i = 0; i < N + (w->spectator ? 1 : 0); i++)
        tempo_session_destroy(w->m[i].s);
    tempo_simnet_destroy(w->net);
}

/* The events of a poll, handled before the tick's input and advance. */
static inline void handle_events(machine *m)
{
    tempo_event ev;
    while (tempo_session_poll_event(m->s, &ev) > 0) {
        if (ev.kind == TEMPO_EVENT_REJOINED) {
            m->rejoined_events++;
            m->rejoined_frame = ev.u.rejoined.frame;
            m->rejoined_player = ev.player;
        }
        if (ev.kind == TEMPO_EVENT_DESYNC)
            m->desyncs++;
        if (ev.kind == TEMPO_EVENT_DROPPED) {
            m->dropped_events++;
            m->dropped_reason = ev.u.dropped.reason;
            m->dropped_rejoining = ev.u.dropped.rejoining;
            m->dropped_epoch = ev.u.dropped.epoch;
        }
        if (ev.kind == TEMPO_EVENT_AUTH_FAILED) {
            m->auth_events++;
            m->auth_kind = ev.u.auth_failed.kind;
        }
        if (ev.kind == TEMPO_EVENT_DISCONNECTED)
            m->disconnects++;
        if (ev.kind == TEMPO_EVENT_REJOIN_STATE && ev.u.rejoin_state.wanted) {
            const game *g = &m->slot[ev.u.rejoin_state.slot];
            assert_int_equal(g->frame, ev.u.rejoin_state.frame);
            m->provided = tempo_session_provide_state(m->s, ev.u.rejoin_state.frame, g, sizeof *g);
            m->states_given++;
        } else if (ev.kind == TEMPO_EVENT_REJOIN_STATE) {
            const void *st;
            size_t size;
            int32_t frame;
            assert_int_equal(tempo_session_rejoin_state(m->s, &st, &size, &frame), TEMPO_OK);
            assert_int_equal(size, sizeof m->g);
            assert_int_equal(frame, ev.u.rejoin_state.frame);
            memcpy(&m->g, st, size);
            assert_int_equal(m->g.frame, frame);
            m->states_loaded++;
        }
    }
}

static inline void tick(world *w, machine *m, int i)
{
    assert_int_equal(tempo_session_poll(m->s, w->now), TEMPO_OK);
    int rejoined = m->rejoined_events;
    handle_events(m);
    if (m->rejoined_events != rejoined)
        m->rejoined_us = w->now;
    uint8_t in[2] = {(uint8_t)mix(w->seed + (uint64_t)i, m->samples / 7u), (uint8_t)i};
    if (i < N)
        tempo_session_add_local_input(m->s, i, in, sizeof in);
    m->samples++;
    tempo_tick t;
    assert_int_equal(tempo_session_advance(m->s, &t), TEMPO_OK);
    if (t.status == TEMPO_TICK_WAITING && m->counting)
        m->waiting_ticks++;
    const tempo_request *r;
    while (tempo_session_next(m->s, &r) > 0) {
        if (r->kind == TEMPO_REQUEST_SAVE) {
            assert_true(w->no_arena);
            assert_int_equal(r->frame, m->g.frame);
            m->slot[r->slot] = m->g;
            *r->checksum = tempo_checksum(&m->g, sizeof m->g);
            continue;
        }
        if (r->kind == TEMPO_REQUEST_LOAD) {
            assert_true(w->no_arena);
            m->g = m->slot[r->slot];
            assert_int_equal(r->frame, m->g.frame);
            continue;
        }
        assert_int_equal(r->frame, m->g.frame);
        uint64_t h = mix(m->g.hash, (uint64_t)r->frame);
        for (int k = 0; k < N * 2; k++)
            h = mix(h, r->inputs[k]);
        for (int p = 0; p < N; p++)
            h = mix(h, r->status[p] == TEMPO_INPUT_DISCONNECTED);
        m->g.hash = h;
        m->g.pad[r->frame % sizeof m->g.pad] ^= (uint8_t)h;
        m->g.frame++;
        m->resim_advances += r->resimulating;
        assert_true(r->frame < MAX_FRAMES);
        m->hash_after[r->frame] = h;
    }
}

static inline void run_until(world *w, uint64_t until_us)
{
    for (; w->now < until_us; w->now += 1000) {
        tempo_simnet_set_time(w->net, w->now);
        for (int i = 0; i < N + (w->spectator ? 1 : 0); i++) {
            machine *m = &w->m[i];
            if ((double)w->now < m->next_us)
                continue;
            m->next_us += TICK_US;
            if (!m->down)
                tick(w, m, i);
        }
        for (int i = 0; i < N; i++) { /* the operating system drops what comes to a closed port */
            machine *m = &w->m[i];
            uint8_t buf[TEMPO_MAX_DATAGRAM];
            tempo_address from;
            while (m->down && m->port_closed && m->node.recv(m->node.ctx, &from, buf, sizeof buf) > 0) {
            }
        }
    }
}

/* Machine 2 goes dark at `at_us` for `dark_us`; its process is gone (the
 * session destroyed) and starts again, rejoining, when the dark ends. */
static inline void blackout_and_restart(world *w, uint64_t at_us, uint64_t dark_us)
{
    run_until(w, at_us);
    machine *m = &w->m[2];
    tempo_simnet_add_blackout(w->net, &m->addr, NULL, at_us, at_us + dark_us);
    tempo_simnet_add_blackout(w->net, NULL, &m->addr, at_us, at_us + dark_us);
    m->down = true;
    tempo_session_destroy(m->s);
    m->s = NULL;
    run_until(w, at_us + dark_us + 1000u); /* the dark is over */
    /* What was sent to the old process and never read waits for the new
     * one: counted, and sent again by the same machines, so it reaches the
     * new session with the datagrams of the new life. */
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    tempo_address from;
    int got;
    while ((got = m->node.recv(m->node.ctx, &from, buf, sizeof buf)) > 0)
        for (int i = 0; i < 2; i++)
            if (tempo_address_equal(&from, &w->m[i].addr)) {
                w->m[i].node.send(w->m[i].node.ctx, &m->addr, buf, (size_t)got);
                w->stale++;
            }
    tempo_config c = base_cfg(w);
    counting = false; /* creating allocates; from its first tick on, nothing may */
    make_session(w, 2, &c, true);
    counting = true;
    m->down = false;
    m->samples = 0;
    memset(m->hash_after, 0, sizeof m->hash_after);
    w->m[0].counting = w->m[1].counting = true;
}

/* Machine i's process ends at `stop_us` (its session destroyed, its port
 * closed: what arrives meanwhile is lost) and starts again at the same
 * address `delay_us` later, rejoining at key epoch `epoch` (keyed
 * worlds). Nothing else happens to the network: the others learn of it
 * only from what the new process sends. */
static inline void restart_in_place(world *w, int i, uint64_t stop_us, uint64_t delay_us, uint32_t epoch)
{
    run_until(w, stop_us);
    machine *m = &w->m[i];
    m->down = m->port_closed = true;
    tempo_session_destroy(m->s);
    m->s = NULL;
    run_until(w, stop_us + delay_us);
    tempo_config c = base_cfg(w);
    w->epoch = epoch;
    counting = false; /* creating allocates; from its first tick on, nothing may */
    make_session(w, i, &c, true);
    counting = true;
    m->down = m->port_closed = false;
    m->samples = 0;
    memset(m->hash_after, 0, sizeof m->hash_after);
    for (int k = 0; k < N; k++)
        w->m[k].counting = true;
}

/* Machine i's process is stopped at `at_us` for `for_us` (no ticks, no
 * polls; what arrives waits for it), then goes on with the time it polls
 * with leapt forward. */
static inline void pause_machine(world *w, int i, uint64_t at_us, uint64_t for_us)
{
    run_until(w, at_us);
    w->m[i].down = true;
    run_until(w, at_us + for_us);
    w->m[i].down = false;
}

static inline tempo_session_stats stats_of(const world *w, int i)
{
    tempo_session_stats st;
    assert_int_equal(tempo_session_get_stats(w->m[i].s, &st), TEMPO_OK);
    return st;
}

/* The running machines computed the same state after every frame from
 * `from` up to the frames all of them confirmed. Returns how many. */
static inline int32_t agreed_frames(const world *w, int32_t from)
{
    int32_t c = INT32_MAX;
    for (int i = 0; i < N; i++) {
        int32_t k = tempo_session_confirmed_frame(w->m[i].s);
        if (!w->m[i].down && k < c)
            c = k;
    }
    for (int32_t f = from; f < c; f++)
        for (int i = 1; i < N; i++)
            if (!w->m[i].down && w->m[i].hash_after[f] != w->m[0].hash_after[f])
                return -1 - f;
    return c - from;
}

/* The record machine `victim` keeps of machine `sender`. */
static inline p2p_peer *record_of(world *w, int victim, int sender)
{
    tempo_p2p *n = w->m[victim].s->net;
    for (int i = 0; i < n->npeers; i++)
        if (tempo_address_equal(&n->peers[i].addr, &w->m[sender].addr))
            return &n->peers[i];
    fail_msg("machine %d has no record of machine %d", victim, sender);
    return NULL;
}

/* Send m from machine `from` to `to` as from's next datagram to it would
 * go (its own datagrams move on past the sequence). */
static inline void send_crafted(world *w, int from, int to, tempo_msg *m)
{
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = 2;
    ctx.num_players = N;
    m->session_id = 1;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    int n = tempo_codec_encode(m, &ctx, buf, sizeof buf);
    assert_true(n > 0);
    m->sequence = (uint16_t)link_on_sent(&record_of(w, from, to)->link, w->now, (size_t)n);
    buf[5] = (uint8_t)m->sequence; /* the header's sequence bits (PROTOCOL.md 2) */
    buf[6] = (uint8_t)(m->sequence >> 8);
    assert_int_equal(w->m[from].node.send(w->m[from].node.ctx, &w->m[to].addr, buf, (size_t)n), 0);
}

/* A SYNC_REQUEST (or SYNC_REPLY) such as a new process of machine `as`
 * would send machine `to`, numbered `seq`, nonce `nonce`, injected from
 * machine `as`'s address by an off-path forger: it knows the match's
 * settings but no sequence, nonce or key. Keyed, it comes sealed with a
 * tag that cannot verify. */
static inline void forge_sync(world *w, int as, int to, uint8_t type, uint32_t nonce, uint16_t seq)
{
    const tempo_p2p *victim = w->m[to].s->net;
    tempo_msg m;
    memset(&m, 0, sizeof m);
    m.type = type;
    m.u.sync.nonce = nonce;
    m.u.sync.config_hash = victim->config_hash;
    m.u.sync.num_players = N;
    m.u.sync.input_size = 2;
    m.u.sync.player_mask = (uint8_t)(1u << as);
    for (int p = 0; p < N; p++)
        m.u.sync.rtt_ms[p] = 0xFFFF;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    tempo_packet_header h = {1, seq, type, false, w->keyed};
    assert_int_equal(packet_write(&h, buf, sizeof buf), PACKET_HEADER_SIZE);
    int body = tempo_codec_encode_body(&m, NULL, buf + PACKET_HEADER_SIZE, sizeof buf - PACKET_HEADER_SIZE - 16);
    assert_true(body > 0);
    size_t size = PACKET_HEADER_SIZE + (size_t)body;
    if (w->keyed) { /* a tag nobody without the key can make */
        memset(buf + size, 0xA5, 16);
        size += 16;
    }
    assert_int_equal(tempo_simnet_inject(w->net, &w->m[as].addr, &w->m[to].addr, buf, size), TEMPO_OK);
}

#endif /* TEMPO_TESTS_REJOIN_WORLD_H */
