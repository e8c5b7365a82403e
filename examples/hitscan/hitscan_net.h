/* SPDX-License-Identifier: MIT */
/*
 * hitscan_net.h — tempo-hitscan --server and --client: the match of
 * hitscan_match.h over real UDP, one process per machine, in real time.
 * The server hosts one match of `seconds` (a game server under Agones or
 * Edgegap, tools/common/match_host.h; docs/DEPLOY.md), then drops its
 * clients and prints
 *
 *   final ticks=N shots=S claims=C confirmed=K
 *
 * A client plays with a bot until the server ends the match (or `seconds`
 * and 10 more pass) and prints "played ticks=N rtt=R ms".
 */
#ifndef HITSCAN_HITSCAN_NET_H
#define HITSCAN_HITSCAN_NET_H

#include <signal.h>

#include "hitscan_match.h"
#include "match_host.h"

typedef struct hs_net_options {
    int ships;                  /* 2..HS_MAX_SHIPS: the server's and every client's */
    int port;                   /* server: its UDP port */
    tempo_address connect;      /* client: the server */
    int seconds;                /* the match's length */
    uint64_t seed;
    bool lagcomp;               /* server: rewind to the shooter's view */
    match_host_config host;     /* server: Agones, drain */
} hs_net_options;

/* Run the server; `signals` counts SIGTERM and Ctrl-C. Exit code: 0 done,
 * 1 an error. */
int hs_net_serve(const hs_net_options *o, volatile sig_atomic_t *signals);

/* Run a bot client. Exit code: 0 it played and the match ended, 1 it was
 * refused, timed out or never played. */
int hs_net_play(const hs_net_options *o, volatile sig_atomic_t *signals);

#endif /* HITSCAN_HITSCAN_NET_H */
