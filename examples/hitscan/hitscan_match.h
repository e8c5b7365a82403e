/* SPDX-License-Identifier: MIT */
/*
 * hitscan_match.h — a whole hitscan match in one process: a tempo server
 * and its clients on a simulated network (tempo/simnet.h), in virtual
 * time. Each client is what a player's machine runs: prediction and
 * reconciliation of its own ship (tempo_client), the other ships drawn
 * from a snapshot buffer (tempo_interp), its own corrections smoothed
 * (tempo_smooth), bots (or the window's player) aiming at what is drawn.
 * tempo-hitscan (headless) and tempo-hitscan-sdl (the window) drive it.
 */
#ifndef HITSCAN_HITSCAN_MATCH_H
#define HITSCAN_HITSCAN_MATCH_H

#include "hitscan.h"

#define HS_SNAPS 64 /* snapshots a client keeps for drawing */

typedef struct hs_client {
    tempo_client *c;
    tempo_transport t;
    tempo_address addr;
    int me;                     /* its ship, -1 before the server said */
    hs_state g;                 /* the predicted game */
    hs_state snaps[HS_SNAPS];   /* the server's states, by tick % HS_SNAPS */
    tempo_interp *ip;
    tempo_smooth smooth;
    int32_t offset[2];          /* the smoothing offset drawn this frame */
    int32_t drawn[HS_MAX_SHIPS][2]; /* where it draws every ship */
    bool drawn_valid[HS_MAX_SHIPS]; /* it is up, and drawn[j] is where */
    bool drawn_down[HS_MAX_SHIPS];  /* it is down (drawn[j] is where it fell) */
    tempo_interp_sample view;   /* the last sample */
    uint64_t next_us;
    uint32_t rng;
    int dx, dy, move_ticks;
    hs_input human;             /* the window's player, when `human` */
    bool human_on;
    uint64_t claims;
} hs_client;

typedef struct hs_match_config {
    int clients;                /* 2..HS_MAX_SHIPS */
    const char *profile;        /* every link's simnet profile */
    uint64_t seed;
    bool lagcomp;               /* the server rewinds to the shooter's view */
} hs_match_config;

typedef struct hs_match {
    hs_match_config cfg;
    tempo_simnet *net;
    tempo_server *server;
    tempo_transport st;
    tempo_address saddr;
    hs_state sg;                /* the authoritative game */
    hs_judge judge;
    uint64_t now, next_server_us;
    hs_client cl[HS_MAX_SHIPS];
} hs_match;

/* The server of a match of `ships` over transport t (its ctx must outlive
 * it): false if tempo refuses. */
bool hs_server_start(tempo_server **out, const tempo_transport *t, int ships, uint64_t seed);
/* One server tick at now: network, the ADVANCE stepped on g (shots judged
 * by judge), the snapshot submitted when due. */
void hs_server_tick(tempo_server *server, hs_state *g, hs_judge *judge, uint64_t now);
/* Client k of a match of `ships` (a bot unless human_on), talking through
 * c->t (set first) to the server at `server`: false if tempo refuses. */
bool hs_client_start(hs_client *c, int ships, uint64_t seed, int k, const tempo_address *server);
/* One client tick at now: network, the bot's (or human's) input, the plan
 * carried out, the others drawn; adds the tick's length to c->next_us. */
void hs_client_tick(hs_client *c, uint64_t now);

/* Set up the server and the clients. False (with a message on stderr) on
 * failure. */
bool hs_match_start(hs_match *m, const hs_match_config *cfg);
void hs_match_stop(hs_match *m);
/* Run virtual time on to `until_us`. */
void hs_match_run(hs_match *m, uint64_t until_us);
/* Client k's view at its last render: set by hs_match_run each client tick. */

#endif /* HITSCAN_HITSCAN_MATCH_H */
