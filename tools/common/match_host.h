/* SPDX-License-Identifier: MIT */
/*
 * match_host.h — the life of a game server that hosts one match per
 * process under a fleet manager (tempo-pong --server, tempo-hitscan
 * --server; docs/DEPLOY.md), beside the program's own loop.
 *
 * Agones: Ready once the socket is bound, then wait for Allocated (an
 * allocator's GameServerAllocation, or POST /allocate), refusing players
 * who come before (match_host_refusal says why); play; at the match's
 * end POST /shutdown and exit. Health every 2 s from the loop, the
 * allocation's labels and annotations logged. A signal (SIGTERM, Ctrl-C)
 * before the allocation ends the process at once; during the match it
 * lets the match finish within drain_seconds; a second signal, the bound
 * passing, or the GameServer turning Shutdown ends the match at once.
 *
 * Edgegap (ARBITRIUM_DELETE_URL set): at the match's end the DELETE goes
 * to that URL with the token (edgegap.h).
 *
 * With neither, every call is a no-op: players are welcome at once and
 * nothing waits.
 */
#ifndef TOOLS_MATCH_HOST_H
#define TOOLS_MATCH_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "agones.h"
#include "edgegap.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct match_host_config {
    const char *program;
    bool agones;            /* talk to Agones' SDK server */
    int agones_port;        /* its HTTP port, 1..65535 */
    int drain_seconds;      /* a signal lets the match run on this long, 1..86400 */
} match_host_config;

typedef struct match_host {
    match_host_config cfg;
    agones *ag;             /* NULL without Agones */
    edgegap_stop eg;
    bool has_eg;
    bool allocated;         /* players may play (at once without Agones) */
    bool signalled;         /* a first signal came */
    bool cut;               /* the match must end now */
    bool ended;             /* match_host_end was called */
    uint64_t drain_until_us;
    uint64_t seen_version;
    char refusal[96];
} match_host;

/* After the socket is bound: start talking to the SDK server (POST /ready
 * goes at the first update) and read Edgegap's variables. False only when
 * memory runs out (a message says so). */
bool match_host_start(match_host *h, const match_host_config *cfg);
void match_host_close(match_host *h);

/* One pass of the loop at now_us (at least every 50 ms, health rides on it). */
void match_host_update(match_host *h, uint64_t now_us);

/* Why a player who connects now is refused ("this game server is not
 * allocated yet (GameServer Ready)"), or NULL when players are welcome. */
const char *match_host_refusal(const match_host *h);

/* Whether the process should end without a match: a signal before the
 * allocation, or the GameServer turned Shutdown. */
bool match_host_quit(const match_host *h);

/* Whether the running match must end now (a second signal, the drain
 * bound, the GameServer turned Shutdown). */
bool match_host_cut(const match_host *h, uint64_t now_us);

/* A SIGTERM or Ctrl-C. */
void match_host_signal(match_host *h, uint64_t now_us);

/* The match is over (or never came): POST /shutdown, the Edgegap DELETE,
 * then wait, updating, until the SDK server answered or 10 s passed. */
void match_host_end(match_host *h, uint64_t now_us);

#ifdef __cplusplus
}
#endif

#endif /* TOOLS_MATCH_HOST_H */
