/* SPDX-License-Identifier: MIT */
/*
 * test_rejoin.c — a dropped machine coming back into a running p2p match
 * by state transfer, over simnet in virtual time. Three machines play a
 * small arena-mode game (player i on machine i). Machine 2 blacks out for
 * 10 s; its process is gone (the session destroyed) and starts again with
 * cfg.rejoin: it gets a confirmed state from machine 0, fast-forwards and
 * plays again from a frame every machine names alike, and the three agree
 * on every state after it, while the survivors never waited for the
 * transfer. A machine back after the window is refused and counted; forged
 * rejoin messages are refused and counted while the match plays on; the
 * tick path allocates nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tempo/secure.h"

#include "session/network.h"
#include "session/session.h"
#include "tempo/simnet.h"
#include "wire/packet.h"

#define N 3
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
    uint64_t samples;
    int waiting_ticks;             /* WAITING ticks since counting began */
    bool counting;
    int rejoined_events;
    int32_t rejoined_frame;
    int rejoined_player;
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

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 33);
}

/* Every session's allocator: counts what is taken once `counting` is set. */
static uint64_t allocs_counted;
static bool counting;

static void *counted_alloc(void *ctx, size_t size)
{
    (void)ctx;
    if (counting) {
        allocs_counted++;
    }
    return malloc(size);
}

static void counted_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static int log_frames = 1024; /* every session's input_log_frames */

static tempo_config base_cfg(const world *w)
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

static void make_session(world *w, int i, const tempo_config *base, bool rejoin)
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

static void world_init(world *w, uint32_t window_ms, bool keyed, uint64_t seed)
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

static void world_free(world *w)
{
    for (int i = 0; i < N + (w->spectator ? 1 : 0); i++)
        tempo_session_destroy(w->m[i].s);
    tempo_simnet_destroy(w->net);
}

/* The events of a poll, handled before the tick's input and advance. */
static void handle_events(machine *m)
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

static void tick(world *w, machine *m, int i)
{
    assert_int_equal(tempo_session_poll(m->s, w->now), TEMPO_OK);
    handle_events(m);
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

static void run_until(world *w, uint64_t until_us)
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
    }
}

/* Machine 2 goes dark at `at_us` for `dark_us`; its process is gone (the
 * session destroyed) and starts again, rejoining, when the dark ends. */
static void blackout_and_restart(world *w, uint64_t at_us, uint64_t dark_us)
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

static tempo_session_stats stats_of(const world *w, int i)
{
    tempo_session_stats st;
    assert_int_equal(tempo_session_get_stats(w->m[i].s, &st), TEMPO_OK);
    return st;
}

/* The running machines computed the same state after every frame from
 * `from` up to the frames all of them confirmed. Returns how many. */
static int32_t agreed_frames(const world *w, int32_t from)
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

static void rejoin_and_check(bool keyed)
{
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    world_init(&w, 15000, keyed, 7);
    blackout_and_restart(&w, 5000000u, 10000000u);
    int32_t frame_at_restart = tempo_session_frame(w.m[0].s);
    for (uint64_t t = 15000000u; t < 25000000u; t += 250000u) {
        run_until(&w, t);
        if (getenv("REJOIN_TRACE"))
            for (int i = 0; i < N; i++)
                printf("%llu m%d frame %d conf %d wait %d rej %d\n", (unsigned long long)t, i,
                       (int)tempo_session_frame(w.m[i].s), (int)tempo_session_confirmed_frame(w.m[i].s),
                       w.m[i].waiting_ticks, w.m[i].rejoined_frame);
    }
    run_until(&w, 25000000u);

    /* every machine names the same rejoin frame, after the restart */
    machine *r = &w.m[2];
    assert_int_equal(r->rejoined_events, 1);
    assert_int_equal(r->rejoined_player, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(w.m[i].rejoined_events, 1);
        assert_int_equal(w.m[i].rejoined_player, 2);
        assert_int_equal(w.m[i].rejoined_frame, r->rejoined_frame);
    }
    assert_true(r->rejoined_frame > frame_at_restart);
    /* the survivors kept playing: no waiting tick from the restart on */
    assert_int_equal(w.m[0].waiting_ticks, 0);
    assert_int_equal(w.m[1].waiting_ticks, 0);
    /* the rejoining machine fast-forwarded, flagged resimulating */
    tempo_session_stats s0 = stats_of(&w, 0), s1 = stats_of(&w, 1), s2 = stats_of(&w, 2);
    assert_int_equal(s0.rejoins, 1);
    assert_int_equal(s1.rejoins, 1);
    assert_int_equal(s0.rejoin_states_sent, 1);
    assert_int_equal(s1.rejoin_states_sent, 0);
    assert_true(s2.rejoin_frames_fast_forwarded > 0);
    assert_true((uint64_t)r->resim_advances >= s2.rejoin_frames_fast_forwarded);
    printf("rejoin frame %d, fast-forwarded %llu frames, survivors waited %d and %d ticks\n",
           (int)r->rejoined_frame, (unsigned long long)s2.rejoin_frames_fast_forwarded,
           w.m[0].waiting_ticks, w.m[1].waiting_ticks);
    /* and all agree: equal states, checksums compared, no desync */
    int32_t agreed = agreed_frames(&w, r->rejoined_frame);
    assert_true(agreed > 300);
    for (int i = 0; i < N; i++)
        assert_int_equal(w.m[i].desyncs, 0);
    assert_true(s2.desync_checks > 10);
    assert_int_equal(s2.desyncs, 0);
    /* the rejoined player's inputs are real again everywhere */
    uint8_t inputs[N * 2], status[N];
    int32_t f = r->rejoined_frame + 10;
    assert_int_equal(tempo_session_confirmed_inputs(w.m[0].s, f, inputs, sizeof inputs, status), TEMPO_OK);
    assert_int_equal(status[2], TEMPO_INPUT_CONFIRMED);
    assert_int_equal(inputs[2 * 2 + 1], 2);
    /* no session allocated from the restart on: not the transfer, not
     * the rejoining machine's restart of its engine */
    counting = false;
    assert_int_equal(allocs_counted, 0);
    if (keyed) { /* everything went sealed, nothing was refused as forged */
        assert_false(s2.unauthenticated);
        /* the datagrams of its earlier life, sealed under the old epoch's
         * keys, no longer open; nothing else was refused */
        assert_true(w.stale > 0);
        assert_int_equal(s2.dropped_forged, (uint64_t)w.stale);
        assert_int_equal(s0.dropped_forged + s1.dropped_forged, 0);
    }
    world_free(&w);
}

static void restarted_peer_rejoins_and_all_agree(void **state)
{
    (void)state;
    rejoin_and_check(false);
}

static void sealed_peer_rejoins_under_a_new_key_epoch(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip(); /* a build without libsodium seals nothing */
    rejoin_and_check(true);
}

/* The record machine `victim` keeps of machine `sender`. */
static p2p_peer *record_of(world *w, int victim, int sender)
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
static void send_crafted(world *w, int from, int to, tempo_msg *m)
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

static void rejoin_after_the_window_is_refused(void **state)
{
    (void)state;
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    world_init(&w, 5000, false, 11);
    blackout_and_restart(&w, 5000000u, 10000000u);
    int32_t before = tempo_session_frame(w.m[0].s);
    run_until(&w, 20000000u);
    tempo_session_stats s0 = stats_of(&w, 0), s1 = stats_of(&w, 1);
    /* every handshake of the restarted machine is refused, at both */
    assert_true(s0.rejoins_refused > 10);
    assert_true(s1.rejoins_refused > 10);
    assert_int_equal(s0.rejoins + s1.rejoins, 0);
    assert_int_equal(w.m[0].rejoined_events + w.m[1].rejoined_events + w.m[2].rejoined_events, 0);
    /* it never runs; the others play on without waiting */
    tempo_session_state st;
    assert_int_equal(tempo_session_get_state(w.m[2].s, &st), TEMPO_OK);
    assert_int_equal(st, TEMPO_SESSION_SYNCHRONIZING);
    assert_int_equal(tempo_session_frame(w.m[2].s), 0);
    assert_true(tempo_session_frame(w.m[0].s) - before > 250);
    assert_int_equal(w.m[0].waiting_ticks + w.m[1].waiting_ticks, 0);
    counting = false;
    world_free(&w);
}

static void forged_rejoin_messages_are_refused_and_counted(void **state)
{
    (void)state;
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    world_init(&w, 15000, false, 13);
    run_until(&w, 3000000u);
    uint8_t bytes[64] = {0}, prev[N * 2] = {0}; /* not a game's size: refused anyway */
    /* to machine 0, from machine 1's address: machine 2 (live) "rejoins",
     * machine 1 (live) asks for a state, and a state nobody asked for */
    tempo_msg m;
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_REJOIN_FRAME;
    m.u.rejoin_frame.player_mask = 1u << 2;
    m.u.rejoin_frame.frame = tempo_session_frame(w.m[0].s) + 30;
    send_crafted(&w, 1, 0, &m);
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_REJOIN_REQUEST;
    m.u.rejoin_request.player_mask = 1u << 1;
    send_crafted(&w, 1, 0, &m);
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_REJOIN_STATE;
    m.u.rejoin_state.frame = 100;
    m.u.rejoin_state.live_frame = 100;
    m.u.rejoin_state.rejoin_frame = 130;
    m.u.rejoin_state.player_mask = 1u << 0;
    m.u.rejoin_state.prev = prev;
    m.u.rejoin_state.prev_size = sizeof prev;
    m.u.rejoin_state.size = sizeof bytes;
    m.u.rejoin_state.data = bytes;
    send_crafted(&w, 1, 0, &m);
    run_until(&w, 6000000u);
    tempo_session_stats s0 = stats_of(&w, 0);
    assert_int_equal(s0.rejoins_refused, 3);
    assert_int_equal(s0.rejoins, 0);
    assert_int_equal(s0.rejoin_states_sent, 0);
    assert_int_equal(w.m[0].rejoined_events, 0);
    /* the honest match played on, every machine agreeing */
    assert_int_equal(s0.dropped_malformed, 0);
    assert_true(agreed_frames(&w, 0) > 300);
    for (int i = 0; i < N; i++)
        assert_int_equal(w.m[i].desyncs, 0);
    counting = false;
    world_free(&w);
}

/* While machine 2 waits for its state, machine 1 (not the one it asked)
 * sends it one: refused, and the honest state from machine 0 is the one
 * played. */
static void a_state_from_a_peer_not_asked_is_refused(void **state)
{
    (void)state;
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    world_init(&w, 15000, false, 7);
    blackout_and_restart(&w, 5000000u, 10000000u);
    tempo_p2p *r = w.m[2].s->net;
    while (r->rejoin.asked_peer < 0)
        run_until(&w, w.now + 1000u);
    assert_false(r->rejoin.loaded);
    uint8_t bytes[64], prev[N * 2] = {0}; /* refused before its size matters */
    memset(bytes, 0xAB, sizeof bytes);
    tempo_msg m;
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_REJOIN_STATE;
    m.u.rejoin_state.frame = tempo_session_frame(w.m[1].s) - 2;
    m.u.rejoin_state.live_frame = m.u.rejoin_state.frame;
    m.u.rejoin_state.rejoin_frame = m.u.rejoin_state.frame + 20;
    m.u.rejoin_state.player_mask = 1u << 2;
    m.u.rejoin_state.prev = prev;
    m.u.rejoin_state.prev_size = sizeof prev;
    m.u.rejoin_state.size = sizeof bytes;
    m.u.rejoin_state.data = bytes;
    (void)record_of(&w, 1, 2);
    send_crafted(&w, 1, 2, &m);
    run_until(&w, 22000000u);
    tempo_session_stats s2 = stats_of(&w, 2);
    assert_int_equal(s2.rejoins_refused, 1);
    assert_int_equal(w.m[2].rejoined_events, 1);
    assert_int_equal(w.m[2].rejoined_frame, w.m[0].rejoined_frame);
    assert_true(agreed_frames(&w, w.m[2].rejoined_frame) > 200);
    for (int i = 0; i < N; i++)
        assert_int_equal(w.m[i].desyncs, 0);
    counting = false;
    world_free(&w);
}

/* A spectator declared by machine 0 comes 10 s into the match: it gets a
 * state, catches up to the live frame and then agrees on every check. */
static void late_spectator_reaches_the_live_frame_and_agrees(void **state)
{
    (void)state;
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    log_frames = 128; /* the host's log no longer holds the first frames */
    world_init(&w, 15000, false, 17);
    machine *v = &w.m[N];
    v->addr = tempo_address_ipv4(10, 0, 0, 9, 7000);
    assert_int_equal(tempo_simnet_add_node(w.net, &v->addr, &v->node), TEMPO_OK);
    assert_int_equal(tempo_session_add_spectator(w.m[0].s, &v->addr), TEMPO_OK);
    run_until(&w, 10000000u);
    int32_t oldest, end_;
    assert_int_equal(tempo_session_input_log_range(w.m[0].s, &oldest, &end_), TEMPO_OK);
    assert_true(oldest > 400);
    tempo_config c = base_cfg(&w);
    c.arena = &v->g;
    c.arena_size = sizeof v->g;
    c.rejoin = true;
    tempo_address host = w.m[0].addr;
    counting = false;
    assert_int_equal(tempo_session_create_spectator(&c, &v->node, &host, &v->s), TEMPO_OK);
    counting = true;
    v->next_us = (double)w.now;
    w.spectator = true;
    w.m[0].counting = w.m[1].counting = w.m[2].counting = true;
    run_until(&w, 20000000u);
    counting = false;
    assert_int_equal(allocs_counted, 0);
    tempo_session_stats s0 = stats_of(&w, 0), sv;
    assert_int_equal(tempo_session_get_stats(v->s, &sv), TEMPO_OK);
    assert_int_equal(s0.rejoin_states_sent, 1);
    assert_int_equal(v->rejoined_events, 1);
    /* it plays near the live frame: its jitter buffer behind the players */
    int32_t gap = tempo_session_frame(w.m[0].s) - tempo_session_frame(v->s);
    assert_true(gap >= 0 && gap < 15);
    /* the same states as the players, and its checks passed */
    int32_t from = v->rejoined_frame;
    int32_t end = tempo_session_frame(v->s);
    assert_true(end - from > 400);
    for (int32_t f = from; f < end; f++)
        assert_true(v->hash_after[f] == w.m[0].hash_after[f]);
    assert_true(sv.desync_checks > 10);
    assert_int_equal(sv.desyncs, 0);
    assert_int_equal(v->desyncs, 0);
    assert_int_equal(w.m[0].waiting_ticks + w.m[1].waiting_ticks + w.m[2].waiting_ticks, 0);
    log_frames = 1024;
    world_free(&w);
}

/* Without an arena: machine 0's game gives its saved state when asked, the
 * restarted machine's game loads what came, and the match goes on as with
 * an arena. */
static void rejoin_without_an_arena_moves_the_state_through_the_games(void **state)
{
    (void)state;
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    w.no_arena = true; /* world_init keeps it: set again below */
    world_init(&w, 15000, false, 19);
    assert_true(w.no_arena);
    blackout_and_restart(&w, 5000000u, 10000000u);
    run_until(&w, 22000000u);
    assert_int_equal(w.m[0].states_given, 1);
    assert_int_equal(w.m[0].provided, TEMPO_OK);
    assert_int_equal(w.m[1].states_given, 0);
    assert_int_equal(w.m[2].states_loaded, 1);
    assert_int_equal(w.m[2].rejoined_events, 1);
    for (int i = 0; i < 2; i++)
        assert_int_equal(w.m[i].rejoined_frame, w.m[2].rejoined_frame);
    assert_int_equal(w.m[0].waiting_ticks + w.m[1].waiting_ticks, 0);
    assert_true(agreed_frames(&w, w.m[2].rejoined_frame) > 300);
    tempo_session_stats s2 = stats_of(&w, 2);
    assert_true(s2.desync_checks > 10);
    for (int i = 0; i < N; i++)
        assert_int_equal(w.m[i].desyncs, 0);
    counting = false;
    assert_int_equal(allocs_counted, 0);
    world_free(&w);
}

/* A rejoin frame about a dropped machine whose link no handshake revived
 * is refused. Unsealed, anyone can send a handshake from a dropped
 * machine's address: it revives the link, but nothing answers, so it is
 * lost again after the timeout; its player stays dropped as agreed and the
 * match never waits. */
static void a_forged_handshake_from_a_dropped_address_changes_nothing(void **state)
{
    (void)state;
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    world_init(&w, 30000, false, 23);
    run_until(&w, 3000000u);
    machine *d = &w.m[2];
    tempo_simnet_add_blackout(w.net, &d->addr, NULL, w.now, UINT64_MAX);
    tempo_simnet_add_blackout(w.net, NULL, &d->addr, w.now, UINT64_MAX);
    d->down = true;
    run_until(&w, 8000000u); /* dropped, and the drop final */
    assert_int_equal(w.m[0].disconnects, 1);
    w.m[0].counting = w.m[1].counting = true;
    /* machine 1 says machine 2 comes back, but no handshake of machine 2's
     * revived its link at machine 0: refused (it would wait for nobody) */
    tempo_msg m;
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_REJOIN_FRAME;
    m.u.rejoin_frame.player_mask = 1u << 2;
    m.u.rejoin_frame.frame = tempo_session_frame(w.m[0].s) + 30;
    send_crafted(&w, 1, 0, &m);
    run_until(&w, 8050000u);
    assert_int_equal(stats_of(&w, 0).rejoins_refused, 1);
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_SYNC_REQUEST;
    m.u.sync.nonce = 12345;
    m.u.sync.num_players = N;
    m.u.sync.input_size = 2;
    m.u.sync.player_mask = 1u << 2;
    for (int p = 0; p < N; p++)
        m.u.sync.rtt_ms[p] = 0xFFFF;
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = 2;
    ctx.num_players = N;
    m.session_id = 1;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    int size = tempo_codec_encode(&m, &ctx, buf, sizeof buf);
    assert_true(size > 0);
    /* from machine 2's address, past its blacked-out link */
    assert_int_equal(tempo_simnet_inject(w.net, &d->addr, &w.m[0].addr, buf, (size_t)size), TEMPO_OK);
    run_until(&w, 8150000u);
    assert_false(record_of(&w, 0, 2)->link.state == LINK_CLOSED); /* revived... */
    run_until(&w, 16000000u);
    assert_true(record_of(&w, 0, 2)->link.state == LINK_CLOSED); /* ...and lost again */
    tempo_session_stats s0 = stats_of(&w, 0);
    assert_int_equal(s0.rejoins, 0);
    assert_int_equal(w.m[0].rejoined_events, 0);
    assert_int_equal(w.m[0].disconnects, 1);
    assert_int_equal(w.m[0].waiting_ticks + w.m[1].waiting_ticks, 0);
    assert_true(agreed_frames(&w, 0) > 700);
    counting = false;
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(restarted_peer_rejoins_and_all_agree),
        cmocka_unit_test(sealed_peer_rejoins_under_a_new_key_epoch),
        cmocka_unit_test(rejoin_after_the_window_is_refused),
        cmocka_unit_test(forged_rejoin_messages_are_refused_and_counted),
        cmocka_unit_test(a_state_from_a_peer_not_asked_is_refused),
        cmocka_unit_test(late_spectator_reaches_the_live_frame_and_agrees),
        cmocka_unit_test(rejoin_without_an_arena_moves_the_state_through_the_games),
        cmocka_unit_test(a_forged_handshake_from_a_dropped_address_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
