/* SPDX-License-Identifier: MIT */
/*
 * relay_rig.h — members of relay matches over simnet in virtual time: the
 * p2p harness's machines and toy game (p2p_harness.h), with relay member
 * sessions instead of p2p ones and a relay at 10.0.1.1:9000 updated every
 * millisecond.
 */
#ifndef TEMPO_TESTS_RELAY_RIG_H
#define TEMPO_TESTS_RELAY_RIG_H

#include "p2p_harness.h"
#include "tempo/relay.h"
#include "tempo/secure.h"

#define RELAY_ADDR tempo_address_ipv4(10, 0, 1, 1, 9000)

/* A test's look at every datagram a member sends: it may change the copy
 * (*size too, within TEMPO_MAX_DATAGRAM) and returns how many times to send
 * it (0: swallow it, 2: send a copy after it). NULL: sent as it is. */
typedef int (*rig_tap_fn)(h_peer *from, uint8_t *data, size_t *size);
static rig_tap_fn rig_tap;

static inline int rig_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    h_peer *p = ctx;
    if (!rig_tap)
        return p->tr.send(p->tr.ctx, to, data, size);
    uint8_t copy[TEMPO_MAX_DATAGRAM];
    memcpy(copy, data, size);
    int times = rig_tap(p, copy, &size);
    int r = 0;
    for (int i = 0; i < times; i++)
        r = p->tr.send(p->tr.ctx, to, copy, size);
    return r;
}
/* A test's look at every datagram a member receives (not changed). */
typedef void (*rig_recv_tap_fn)(h_peer *to, const uint8_t *data, size_t size);
static rig_recv_tap_fn rig_recv_tap;

static inline int rig_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    int n = h_ears_recv(ctx, from, buf, capacity);
    if (n > 0 && rig_recv_tap)
        rig_recv_tap((h_peer *)ctx, buf, (size_t)n);
    return n;
}
#define MATCH_ID 77u

typedef struct relay_rig {
    harness h;
    tempo_relay *relay;
    tempo_transport relay_tr;
    tempo_address relay_addr;
    int32_t frames_seen[H_MAX];
} relay_rig;

static inline tempo_relay_config relay_cfg(void)
{
    tempo_relay_config c;
    tempo_relay_config_default(&c);
    for (int i = 0; i < TEMPO_KEY_SIZE; i++)
        c.cookie_key[i] = (uint8_t)(i + 1);
    c.max_matches = 4;
    c.max_members = 16;
    return c;
}

/* n members, every link `profile`, the relay's config rc, no tokens
 * (unsealed). Member i joins match match_of[i] (NULL: all MATCH_ID) with
 * player player_of[i] (NULL: player i). */
static inline void rig_init_matches(relay_rig *g, const tempo_config *cfg, int n,
                                    const char *profile, const tempo_relay_config *rc,
                                    uint64_t seed, const uint32_t *match_of, const int *player_of)
{
    memset(g, 0, sizeof *g);
    harness *h = &g->h;
    h->cfg = *cfg;
    h->players = cfg->num_players;
    h->seed = seed;
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.seed = seed;
    assert_int_equal(tempo_link_profile(profile, &nc.default_link), TEMPO_OK);
    assert_int_equal(tempo_simnet_create(&nc, &h->net), TEMPO_OK);
    g->relay_addr = RELAY_ADDR;
    assert_int_equal(tempo_simnet_add_node(h->net, &g->relay_addr, &g->relay_tr), TEMPO_OK);
    assert_int_equal(tempo_relay_create(rc, &g->relay_tr, &g->relay), TEMPO_OK);
    h->npeers = n;
    for (int i = 0; i < n; i++) {
        h_peer *p = &h->peer[i];
        p->addr = h_addr(i);
        p->first_desync_frame = -1;
        p->next_tick_us = (double)(toy_mix(seed, (uint64_t)i) % H_TICK_US);
        p->period_us = H_TICK_US;
        p->hiccup_frame = -1;
        assert_int_equal(tempo_simnet_add_node(h->net, &p->addr, &p->tr), TEMPO_OK);
        p->ears.send = rig_send;
        p->ears.recv = rig_recv;
        p->ears.ctx = p;
        p->d = calloc(1, sizeof *p->d);
        assert_non_null(p->d);
        toy_driver_init(p->d, h->players, cfg->input_size);
        tempo_config c = *cfg;
        c.random_seed = seed * 31 + (uint64_t)i;
        if (match_of)
            c.session_id = match_of[i];
        int pl = player_of ? player_of[i] : i;
        assert_int_equal(
            tempo_session_create_relay_member(&c, &p->ears, &g->relay_addr, NULL, &p->s), TEMPO_OK);
        p->local_mask = 1u << pl;
        assert_int_equal(tempo_session_add_local_player(p->s, pl), TEMPO_OK);
    }
}

/* n members of match MATCH_ID, member i has player i. */
static inline void rig_init(relay_rig *g, const tempo_config *cfg, int n, const char *profile,
                            const tempo_relay_config *rc, uint64_t seed)
{
    rig_init_matches(g, cfg, n, profile, rc, seed, NULL, NULL);
}

static inline void rig_free(relay_rig *g)
{
    rig_tap = NULL;
    rig_recv_tap = NULL;
    tempo_relay_destroy(g->relay);
    harness_free(&g->h);
}

/* Run until every live member reached `frames`, or max_us of virtual time;
 * the relay updates every millisecond. */
static inline void rig_run(relay_rig *g, int32_t frames, uint64_t max_us)
{
    harness *h = &g->h;
    for (; h->now_us < max_us; h->now_us += 1000) {
        tempo_simnet_set_time(h->net, h->now_us);
        assert_int_equal(tempo_relay_update(g->relay, h->now_us, 1000), TEMPO_OK);
        bool done = true;
        for (int i = 0; i < h->npeers; i++) {
            h_peer *p = &h->peer[i];
            if (p->dead)
                continue;
            if ((double)h->now_us >= p->next_tick_us) {
                p->next_tick_us += p->period_us;
                harness_tick(h, p);
                if (p->hiccup_frame >= 0 && tempo_session_frame(p->s) >= p->hiccup_frame) {
                    p->next_tick_us += (double)p->hiccup_us; /* the machine freezes */
                    p->hiccup_frame = -1;
                }
            }
            if (tempo_session_frame(p->s) < frames)
                done = false;
        }
        if (done)
            return;
    }
}

/* Member i made (again) as a sealed member for player i of MATCH_ID, a
 * match of cfg->num_players, with token id 11 + i and cfg's settings (its
 * cipher too). */
static inline void rig_sealed_member(relay_rig *g, const tempo_relay_config *rc,
                                     const tempo_config *cfg, int i)
{
    h_peer *p = &g->h.peer[i];
    tempo_relay_join j = {MATCH_ID, (uint8_t)(1u << i), (uint8_t)cfg->num_players,
                          (uint8_t)cfg->input_size, 60, 0, 0, false};
    uint8_t ud[TEMPO_TOKEN_USER_DATA_SIZE], token[TEMPO_TOKEN_SIZE];
    assert_int_equal(tempo_relay_join_write(&j, ud), TEMPO_OK);
    assert_int_equal(tempo_token_create(rc->private_key, rc->protocol_id, 11 + (uint64_t)i, 2000,
                                        1000, &g->relay_addr, 1, ud, token),
                     TEMPO_OK);
    tempo_config c = *cfg;
    c.random_seed = 9 + (uint64_t)i;
    assert_int_equal(tempo_session_create_relay_member(&c, &p->ears, &g->relay_addr, token, &p->s),
                     TEMPO_OK);
    assert_int_equal(tempo_session_add_local_player(p->s, i), TEMPO_OK);
}

static inline tempo_config match_cfg(int players)
{
    tempo_config c = harness_cfg(players);
    c.session_id = MATCH_ID;
    c.max_prediction = 16;
    return c;
}

#endif /* TEMPO_TESTS_RELAY_RIG_H */
