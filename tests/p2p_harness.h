/*
 * p2p_harness.h — several tempo peers (and spectators) over simnet in
 * virtual time, each running the toy game, for network session tests.
 *
 * Peer i sits at 10.0.0.(i+1):7000 and hosts the players given to it; every
 * machine ticks at 60 Hz of its own clock. After a run, harness_converged()
 * checks that all live peers computed the same state after every frame they
 * all confirmed.
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
    tempo_transport tr;
    toy_driver *d;
    uint32_t local_mask;
    bool spectator;
    bool dead;             /* stopped ticking (its machine is gone) */
    uint64_t next_tick_us;
    uint32_t samples;      /* inputs given so far */
    int delay;
    uint64_t corrupt_at;   /* >0: corrupt the state after ADVANCE of this frame */
    int desync_events, disconnect_events, waiting_ticks, running_events;
    int32_t first_desync_frame;
    tempo_tick last;
} h_peer;

typedef struct harness {
    tempo_simnet *net;
    h_peer peer[H_MAX];
    int npeers;
    int players;
    uint64_t seed;
    uint64_t now_us;
    tempo_config cfg;
} harness;

static inline tempo_address h_addr(int i)
{
    return tempo_address_ipv4(10, 0, 0, (uint8_t)(i + 1), 7000);
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
        p->next_tick_us = toy_mix(seed, (uint64_t)i) % H_TICK_US;
        assert_int_equal(tempo_simnet_add_node(h->net, &p->addr, &p->tr), TEMPO_OK);
        p->d = calloc(1, sizeof *p->d);
        assert_non_null(p->d);
        toy_driver_init(p->d, h->players, cfg->input_size);
    }
    for (int i = 0; i < npeers; i++) {
        h_peer *p = &h->peer[i];
        tempo_config c = *cfg;
        c.random_seed = seed * 31 + (uint64_t)i;
        assert_int_equal(tempo_session_create_p2p(&c, &p->tr, &p->s), TEMPO_OK);
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
        assert_int_equal(tempo_session_create_spectator(cfg, &p->tr, &host, &p->s), TEMPO_OK);
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

static inline void harness_tick(harness *h, h_peer *p)
{
    tempo_session_poll(p->s, h->now_us);
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
        }
        if (ev.kind == TEMPO_EVENT_DISCONNECTED)
            p->disconnect_events++;
        if (ev.kind == TEMPO_EVENT_RUNNING)
            p->running_events++;
    }
}

/* Run until every live player machine (spectators tick along but are not
 * waited for) reached `frames`, or `max_us` of virtual time. */
static inline void harness_run(harness *h, int32_t frames, uint64_t max_us)
{
    for (; h->now_us < max_us; h->now_us += 1000) {
        tempo_simnet_set_time(h->net, h->now_us);
        bool all_done = true;
        for (int i = 0; i < h->npeers; i++) {
            h_peer *p = &h->peer[i];
            if (p->dead)
                continue;
            if (h->now_us >= p->next_tick_us) {
                p->next_tick_us += H_TICK_US;
                harness_tick(h, p);
            }
            if (!p->spectator && tempo_session_frame(p->s) < frames)
                all_done = false;
        }
        if (all_done)
            return;
    }
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
