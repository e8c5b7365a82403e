/* SPDX-License-Identifier: MIT */
/*
 * bench_play.h — the players the network benchmarks share: a p2p peer whose
 * game is a hash and whose input changes like a person's, timed inside
 * tempo's calls only; and a server with its clients, whose game moves one
 * counter per player, open or sealed (a backend key, a connect token per
 * client).
 */
#ifndef TEMPO_BENCH_PLAY_H
#define TEMPO_BENCH_PLAY_H

#include "bench_common.h"
#include "tempo/tempo.h"

/* ---- a p2p peer ------------------------------------------------------------ */

typedef struct bench_peer {
    tempo_session *s;
    uint64_t state;
    uint8_t input[4];
    tempo_rng rng;
} bench_peer;

/* A person-like input: changes about every 8 frames. */
static inline void bench_peer_input(bench_peer *p)
{
    if (tempo_rng_below(&p->rng, 8) == 0)
        p->input[tempo_rng_below(&p->rng, 4)] = (uint8_t)tempo_rng_next(&p->rng);
}

/* One tick of one peer at its clock `now`; returns the seconds spent inside
 * tempo (poll, input, advance, next), the game's step not counted. */
static inline double bench_peer_tick(bench_peer *p, uint64_t now, int player)
{
    bench_peer_input(p);
    double t0 = bench_now();
    tempo_session_poll(p->s, now);
    tempo_session_add_local_input(p->s, player, p->input, sizeof p->input);
    tempo_tick t;
    tempo_session_advance(p->s, &t);
    const tempo_request *r;
    double in_game = 0;
    while (tempo_session_next(p->s, &r) > 0) {
        double g0 = bench_now();
        if (r->kind == TEMPO_REQUEST_ADVANCE)
            for (int i = 0; i < TEMPO_MAX_PLAYERS; i++)
                p->state = p->state * 6364136223846793005ULL + r->inputs[i];
        else if (r->kind == TEMPO_REQUEST_SAVE)
            *r->checksum = p->state;
        in_game += bench_now() - g0;
    }
    tempo_event ev;
    while (tempo_session_poll_event(p->s, &ev) > 0) {
    }
    return bench_now() - t0 - in_game;
}

/* ---- a server and its clients ----------------------------------------------- */

static const uint8_t bench_backend_key[TEMPO_KEY_SIZE] = {9, 8, 7};

/* The cipher setting of the sealed servers and clients below (AUTO unless
 * a bench times one cipher against the other). */
static tempo_cipher bench_cipher = TEMPO_CIPHER_AUTO;

/* A server of `clients` players, one each, reading its state from arena. */
static inline tempo_server *bench_server_open(uint8_t *arena, size_t size, int clients,
                                              uint64_t seed, bool sealed,
                                              const tempo_address *self,
                                              const tempo_transport *tr)
{
    tempo_server_config sc;
    tempo_server_config_default(&sc);
    sc.num_players = clients;
    sc.max_clients = clients;
    sc.arena = arena;
    sc.arena_size = size;
    sc.random_seed = seed;
    if (sealed) {
        sc.has_private_key = true;
        sc.cipher = bench_cipher;
        memcpy(sc.private_key, bench_backend_key, sizeof bench_backend_key);
        sc.self = *self;
    }
    tempo_server *s;
    if (tempo_server_create(&sc, tr, &s) != TEMPO_OK)
        exit(1);
    tempo_server_set_token_time(s, 10);
    return s;
}

/* Client i of such a server. */
static inline tempo_client *bench_client_open(uint8_t *arena, size_t size, int clients, int i,
                                              uint64_t seed, bool sealed,
                                              const tempo_address *server,
                                              const tempo_transport *tr)
{
    tempo_client_config cc;
    tempo_client_config_default(&cc);
    cc.num_players = clients;
    cc.arena = arena;
    cc.arena_size = size;
    cc.random_seed = seed + (uint64_t)i + 1;
    if (sealed) {
        cc.has_token = true;
        cc.cipher = bench_cipher;
        if (tempo_token_create(bench_backend_key, 0, (uint64_t)i + 1, 100000, 1, server, 1, NULL,
                               cc.token) != TEMPO_OK)
            exit(1);
    }
    tempo_client *c;
    if (tempo_client_create(&cc, tr, server, &c) != TEMPO_OK)
        exit(1);
    return c;
}

/* The server's game for tick f: each of the first `active` players'
 * counters (every stride bytes of the arena) moves when its input says so
 * or every third tick; the other players stand still. */
static inline void bench_server_game(uint8_t *arena, size_t stride, int active,
                                     const tempo_server_tick *t, int f)
{
    for (int p = 0; p < active; p++)
        if (t->requests[0].inputs[p * 4] != 0 || (f + p) % 3 == 0)
            arena[(size_t)p * stride] = (uint8_t)(arena[(size_t)p * stride] + 1);
}

/* Every client's tick f at `now`: poll, its players' inputs, advance. The
 * first `active` clients' inputs change every 8 ticks; the others' stay
 * zero (players standing still). */
static inline void bench_clients_tick(tempo_client **c, int clients, int active, uint64_t now,
                                      int f)
{
    for (int i = 0; i < clients; i++) {
        tempo_client_poll(c[i], now);
        int first = 0, count = tempo_client_local_slots(c[i], &first, NULL);
        uint8_t in[4] = {(uint8_t)(i < active ? f / 8 : 0), 0, 0, 0};
        for (int p = first; p < first + count; p++)
            tempo_client_add_local_input(c[i], p, in, sizeof in);
        tempo_client_tick k;
        tempo_client_advance(c[i], &k);
    }
}

#endif /* TEMPO_BENCH_PLAY_H */
