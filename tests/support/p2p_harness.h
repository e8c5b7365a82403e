/* SPDX-License-Identifier: MIT */
/*
 * p2p_harness.h — several tempo peers (and spectators) over simnet in
 * virtual time, each running the toy game, for network session tests.
 *
 * Peer i sits at 10.0.0.(i+1):7000 and hosts the players given to it; every
 * machine ticks at 60 Hz of its own clock. A test may make a machine's clock
 * jump (clock_offset_us) or make it deaf (its datagrams wait in the network).
 * After a run, harness_converged() checks that all live peers computed the
 * same state after every frame they all confirmed.
 */
#ifndef TEMPO_TESTS_P2P_HARNESS_H
#define TEMPO_TESTS_P2P_HARNESS_H

#include <stdlib.h>

#include "tempo/simnet.h"
#include "toy.h"

#define H_MAX 10
#define H_TICK_US 16667u

typedef struct h_peer {
    tempo_session *s;
    tempo_address addr;
    tempo_transport tr;    /* simnet's transport of the node */
    tempo_transport ears;  /* what the session uses: tr, unless deaf */
    bool deaf;             /* its session's receives find nothing */
    toy_driver *d;
    uint32_t local_mask;
    bool spectator;
    bool dead;             /* stopped ticking (its machine is gone) */
    double next_tick_us;   /* virtual time of its next tick */
    double period_us;      /* its tick period in virtual time (clock drift) */
    double skew_sum;       /* true |frame - others'| summed over samples */
    uint64_t skew_n;
    int stall_ticks, max_stalls_in_3;
    int recent_stalls;     /* bit history of the last ticks' stalls */
    int32_t hiccup_frame;  /* freeze when reaching this frame (-1: never) ... */
    uint64_t hiccup_us;    /* ... for this long */
    int64_t clock_offset_us; /* added to its clock: its jumps so far (negative: back) */
    int poll_errors;       /* polls that did not return TEMPO_OK */
    uint32_t samples;      /* inputs given so far */
    int delay;
    uint64_t corrupt_at;   /* >0: corrupt the state after ADVANCE of this frame */
    int desync_events, disconnect_events, waiting_ticks, running_events;
    int input_delay_events, last_input_delay; /* TEMPO_EVENT_INPUT_DELAY seen, and its value */
    bool delay_before_running;             /* one came before (or with) RUNNING */
    int32_t first_desync_frame;
    int first_desync_events; /* DESYNC events of first_desync_frame */
    int interrupted_events, handshake_failed_events;
    int dropped_events;    /* DROPPED: the others dropped this machine */
    tempo_tick last;
} h_peer;

typedef struct harness {
    tempo_simnet *net;
    h_peer peer[H_MAX];
    int npeers;
    int players;
    uint64_t seed;
    uint64_t now_us;
    uint64_t skew_from_us; /* 0: do not sample frame skew */
    tempo_config cfg;
} harness;

static inline tempo_address h_addr(int i)
{
    return tempo_address_ipv4(10, 0, 0, (uint8_t)(i + 1), 7000);
}

/* A network config for tests: `players` players, 4-byte inputs, window 8,
 * desync checks every 30 frames. */
static inline tempo_config harness_cfg(int players)
{
    tempo_config c;
    tempo_config_default(&c);
    c.num_players = players;
    c.input_size = 4;
    c.max_prediction = 8;
    c.desync_interval = 30;
    return c;
}

/* Peer i hosts player i. */
static inline void harness_one_each(uint32_t *mask, int n)
{
    for (int i = 0; i < n; i++)
        mask[i] = 1u << i;
}

/* The transport a harness session uses: the node's, deaf on demand. */
static inline int h_ears_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    h_peer *p = ctx;
    return p->tr.send(p->tr.ctx, to, data, size);
}

static inline int h_ears_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    h_peer *p = ctx;
    return p->deaf ? 0 : p->tr.recv(p->tr.ctx, from, buf, capacity);
}

/* players_of[i]: the player mask hosted by peer i. nspect: spectators after
 * the peers, watching peer 0. profile: link profile of every link. */
static inline void harness_init(harness *h, const tempo_config *cfg, int npeers,
                                const uint32_t *players_of, int nspect, const char *profile,
                                uint64_t seed)
{
    memset(h, 0, sizeof *h);
    h->cfg = *cfg;
    h->players = cfg->num_players;
    h->seed = seed;
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.seed = seed;
    assert_int_equal(tempo_link_profile(profile, &nc.default_link), TEMPO_OK);
    assert_int_equal(tempo_simnet_create(&nc, &h->net), TEMPO_OK);
    h->npeers = npeers + nspect;
    for (int i = 0; i < h->npeers; i++) {
        h_peer *p = &h->peer[i];
        p->addr = h_addr(i);
        p->first_desync_frame = -1;
        /* machines' ticks are not in phase */
        p->next_tick_us = (double)(toy_mix(seed, (uint64_t)i) % H_TICK_US);
        p->period_us = H_TICK_US;
        p->hiccup_frame = -1;
        assert_int_equal(tempo_simnet_add_node(h->net, &p->addr, &p->tr), TEMPO_OK);
        p->ears.send = h_ears_send;
        p->ears.recv = h_ears_recv;
        p->ears.ctx = p;
        p->d = calloc(1, sizeof *p->d);
        assert_non_null(p->d);
        toy_driver_init(p->d, h->players, cfg->input_size);
    }
    for (int i = 0; i < npeers; i++) {
        h_peer *p = &h->peer[i];
        tempo_config c = *cfg;
        c.random_seed = seed * 31 + (uint64_t)i;
        assert_int_equal(tempo_session_create_p2p(&c, &p->ears, &p->s), TEMPO_OK);
        p->local_mask = players_of[i];
        for (int pl = 0; pl < h->players; pl++) {
            if (players_of[i] & (1u << pl)) {
                assert_int_equal(tempo_session_add_local_player(p->s, pl), TEMPO_OK);
                continue;
            }
            for (int j = 0; j < npeers; j++)
                if (players_of[j] & (1u << pl)) {
                    tempo_address a = h_addr(j);
                    assert_int_equal(tempo_session_add_remote_player(p->s, pl, &a), TEMPO_OK);
                }
        }
    }
    for (int k = 0; k < nspect; k++) {
        h_peer *p = &h->peer[npeers + k];
        p->spectator = true;
        tempo_address host = h_addr(0);
        /* how a keyed spectator names its host and itself (the order added) */
        tempo_config c = *cfg;
        c.spectator_number = k;
        c.spectator_host_player = 0;
        while (c.spectator_host_player < 7 && !(players_of[0] & (1u << c.spectator_host_player)))
            c.spectator_host_player++;
        assert_int_equal(tempo_session_create_spectator(&c, &p->ears, &host, &p->s), TEMPO_OK);
        assert_int_equal(tempo_session_add_spectator(h->peer[0].s, &p->addr), TEMPO_OK);
    }
}

static inline void harness_free(harness *h)
{
    for (int i = 0; i < h->npeers; i++) {
        tempo_session_destroy(h->peer[i].s);
        free(h->peer[i].d);
    }
    tempo_simnet_destroy(h->net);
}

/* A machine's clock: virtual time scaled by its drift, plus its jumps (local µs). */
static inline uint64_t harness_clock(const h_peer *p, uint64_t now_us)
{
    return (uint64_t)((int64_t)((double)now_us * (H_TICK_US / p->period_us)) + p->clock_offset_us);
}

/* Make machine i's clock run `pct` percent fast (negative: slow). */
static inline void harness_drift(harness *h, int i, double pct)
{
    h->peer[i].period_us = H_TICK_US / (1.0 + pct / 100.0);
}

static inline void harness_tick(harness *h, h_peer *p)
{
    if (tempo_session_poll(p->s, harness_clock(p, h->now_us)) != TEMPO_OK)
        p->poll_errors++;
    for (int pl = 0; pl < h->players; pl++)
        if (p->local_mask & (1u << pl)) {
            uint8_t in[TEMPO_MAX_INPUT_SIZE];
            toy_true_input(h->seed, pl, (int32_t)p->samples, in, h->cfg.input_size);
            tempo_session_add_local_input(p->s, pl, in, (size_t)h->cfg.input_size);
        }
    p->samples++;
    tempo_tick t;
    assert_int_equal(tempo_session_advance(p->s, &t), TEMPO_OK);
    p->last = t;
    bool stalled = t.status == TEMPO_TICK_STALLED;
    p->stall_ticks += stalled;
    p->recent_stalls = ((p->recent_stalls << 1) | stalled) & 7;
    int in3 = (p->recent_stalls & 1) + ((p->recent_stalls >> 1) & 1) + ((p->recent_stalls >> 2) & 1);
    if (in3 > p->max_stalls_in_3)
        p->max_stalls_in_3 = in3;
    if (t.status == TEMPO_TICK_WAITING)
        p->waiting_ticks++;
    const tempo_request *r;
    while (tempo_session_next(p->s, &r) > 0) {
        toy_driver_do(p->d, r);
        if (r->kind == TEMPO_REQUEST_ADVANCE && p->corrupt_at && (uint64_t)r->frame + 1 == p->corrupt_at) {
            p->d->cur.hash ^= 0xdeadbeefULL; /* a deterministic bug on this peer only */
            p->d->hash_after[r->frame] = p->d->cur.hash;
        }
    }
    assert_int_equal(p->d->errors, 0);
    tempo_event ev;
    while (tempo_session_poll_event(p->s, &ev) > 0) {
        if (ev.kind == TEMPO_EVENT_DESYNC) {
            p->desync_events++;
            if (p->first_desync_frame < 0)
                p->first_desync_frame = ev.u.desync.frame;
            if (ev.u.desync.frame == p->first_desync_frame)
                p->first_desync_events++;
        }
        if (ev.kind == TEMPO_EVENT_INTERRUPTED)
            p->interrupted_events++;
        if (ev.kind == TEMPO_EVENT_HANDSHAKE_FAILED)
            p->handshake_failed_events++;
        if (ev.kind == TEMPO_EVENT_DROPPED)
            p->dropped_events++;
        if (ev.kind == TEMPO_EVENT_DISCONNECTED)
            p->disconnect_events++;
        if (ev.kind == TEMPO_EVENT_RUNNING)
            p->running_events++;
        if (ev.kind == TEMPO_EVENT_INPUT_DELAY) {
            p->input_delay_events++;
            p->last_input_delay = ev.u.input_delay.frames;
            if (p->running_events == 0)
                p->delay_before_running = true;
        }
    }
}

/* Machine i dies: it stops ticking and its links go dark for good. */
static inline void harness_kill(harness *h, int i)
{
    h->peer[i].dead = true;
    tempo_simnet_add_blackout(h->net, &h->peer[i].addr, NULL, h->now_us, UINT64_MAX);
    tempo_simnet_add_blackout(h->net, NULL, &h->peer[i].addr, h->now_us, UINT64_MAX);
}

/* True frame skew: each live player machine's |frame - others'| now. */
static inline void harness_sample_skew(harness *h)
{
    for (int i = 0; i < h->npeers; i++) {
        h_peer *p = &h->peer[i];
        if (p->dead || p->spectator)
            continue;
        double sum = 0;
        int n = 0;
        for (int j = 0; j < h->npeers; j++)
            if (j != i && !h->peer[j].dead && !h->peer[j].spectator) {
                int32_t d = tempo_session_frame(p->s) - tempo_session_frame(h->peer[j].s);
                sum += d < 0 ? -d : d;
                n++;
            }
        if (n) {
            p->skew_sum += sum / n;
            p->skew_n++;
        }
    }
}

/* Run until every live player machine (spectators tick along but are not
 * waited for) reached `frames`, or `max_us` of virtual time. Skew is sampled
 * every millisecond once `h->skew_from_us` has passed. */
typedef void (*harness_tick_fn)(harness *h, h_peer *p);

/* As harness_run, with each machine's tick done by `tick`. */
static inline void harness_run_with(harness *h, int32_t frames, uint64_t max_us, harness_tick_fn tick)
{
    for (; h->now_us < max_us; h->now_us += 1000) {
        tempo_simnet_set_time(h->net, h->now_us);
        bool all_done = true;
        for (int i = 0; i < h->npeers; i++) {
            h_peer *p = &h->peer[i];
            if (p->dead)
                continue;
            if ((double)h->now_us >= p->next_tick_us) {
                p->next_tick_us += p->period_us;
                tick(h, p);
                if (p->hiccup_frame >= 0 && tempo_session_frame(p->s) >= p->hiccup_frame) {
                    p->next_tick_us += (double)p->hiccup_us; /* the machine freezes */
                    p->hiccup_frame = -1;
                }
            }
            if (!p->spectator && tempo_session_frame(p->s) < frames)
                all_done = false;
        }
        if (h->skew_from_us && h->now_us >= h->skew_from_us)
            harness_sample_skew(h);
        if (all_done)
            return;
    }
}

static inline void harness_run(harness *h, int32_t frames, uint64_t max_us)
{
    harness_run_with(h, frames, max_us, harness_tick);
}

/* Frames every live peer (not spectators unless asked) has confirmed. */
static inline int32_t harness_common_confirmed(const harness *h, bool with_spectators)
{
    int32_t c = INT32_MAX;
    for (int i = 0; i < h->npeers; i++) {
        const h_peer *p = &h->peer[i];
        if (p->dead || (p->spectator && !with_spectators))
            continue;
        int32_t k = tempo_session_confirmed_frame(p->s);
        if (k < c)
            c = k;
    }
    return c;
}

/* All live peers agree on the state after every commonly confirmed frame. */
static inline bool harness_converged(const harness *h, bool with_spectators, int32_t *checked)
{
    int32_t c = harness_common_confirmed(h, with_spectators);
    *checked = c;
    const h_peer *ref = NULL;
    for (int i = 0; i < h->npeers; i++) {
        const h_peer *p = &h->peer[i];
        if (p->dead || (p->spectator && !with_spectators))
            continue;
        if (!ref) {
            ref = p;
            continue;
        }
        for (int32_t f = 0; f < c; f++)
            if (p->d->hash_after[f] != ref->d->hash_after[f])
                return false;
    }
    return c > 0;
}

#endif /* TEMPO_TESTS_P2P_HARNESS_H */
