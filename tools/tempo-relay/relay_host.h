/* SPDX-License-Identifier: MIT */
/*
 * relay_host.h — tempo-relay as a game server under a fleet manager
 * (Agones, and Edgegap's self-stop), beside its loop (docs/DEPLOY.md).
 *
 * Agones: Ready once the socket is bound; health every 2 s from the loop
 * (agones.h); many matches per process, with Agones' pattern for that: the
 * label agones.dev/sdk-gs-session-ready is "true" while the relay has
 * room for one more match and is not draining, and
 * agones.dev/sdk-matches-free says how many, both updated as matches start
 * and end, so an allocator selects an Allocated relay with room before a
 * Ready one. Each allocation (the agones.dev/last-allocated annotation
 * changes, read from the watch) is logged with the metadata the allocator
 * set, and holds one match of room for RESERVE_SECONDS or until a match
 * opens, so allocations made before their players arrive do not overfill
 * the relay. The GameServer's state follows what the relay holds: with
 * matches running it is Allocated (the relay asks for it if need be, so
 * Agones never deletes it under players); Allocated with no match for
 * idle_seconds it goes back to Ready, so the fleet can scale it down.
 *
 * Drain, on SIGTERM or when the GameServer turns Shutdown: no new match
 * is opened (tempo_relay_refuse_matches), the session-ready label turns
 * "false", the running matches play on until they end or drain_seconds
 * pass, then POST /shutdown and the relay exits 0. A second signal ends
 * the drain at once (POST /shutdown still goes, waited for 2 s at most).
 *
 * Edgegap (ARBITRIUM_DELETE_URL set): one container per match, so once
 * the matches it held have all ended (and none came for 10 s) the relay
 * calls the URL and exits 0, as after a drain.
 */
#ifndef TEMPO_RELAY_HOST_H
#define TEMPO_RELAY_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "tempo/relay.h"

#define RESERVE_SECONDS 30

typedef struct relay_host_config {
    const char *program;
    bool agones;           /* talk to Agones' SDK server */
    int agones_port;       /* its HTTP port */
    int drain_seconds;     /* the longest running matches are waited for */
    int idle_seconds;      /* Allocated and empty this long: back to Ready */
    int max_matches, max_members;
} relay_host_config;

typedef struct relay_host relay_host;

/* After the socket is bound: NULL when there is nothing to host for
 * (no Agones, no Edgegap), or on no memory (a message said so). *failed
 * tells the two apart. */
relay_host *relay_host_create(const relay_host_config *cfg, bool *failed);
void relay_host_destroy(relay_host *h);

/* One pass of the loop at now_us: talk to the SDK server, follow the
 * relay's matches, drain. False once the relay should exit (0). */
bool relay_host_update(relay_host *h, tempo_relay *r, uint64_t now_us);

/* A SIGTERM or Ctrl-C: the first starts the drain, a second one ends it. */
void relay_host_signal(relay_host *h, tempo_relay *r, uint64_t now_us);

#endif /* TEMPO_RELAY_HOST_H */
