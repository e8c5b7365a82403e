/* SPDX-License-Identifier: MIT */
/*
 * handshake.h — the part of a link that happens before traffic means
 * anything: nonce round trips, the shared configuration hash, readiness and
 * the ping mesh.
 *
 * A side sends a SYNC request carrying a fresh random nonce; the remote
 * answers with a reply carrying the same nonce. A reply counts only while its
 * nonce is outstanding, and only once, so a replayed, duplicated or invented
 * reply cannot complete the handshake; each counted reply is also a round
 * trip sample for the link's RTT. After `rounds` counted replies the link is
 * established. Both kinds of message also carry the sender's configuration
 * hash (which must equal ours), whether it is ready, and the round trips it
 * has measured to other machines (the ping mesh), indexed by a machine number
 * the caller chooses.
 *
 * The link only decides: when a request is due, which nonce it carries, and
 * what an arriving message means. The caller builds, sends and decodes the
 * messages. The functions live in handshake.c and take the whole link, since
 * a round trip feeds its RTT and the throttle applies to requests too.
 */
#ifndef TEMPO_NET_HANDSHAKE_H
#define TEMPO_NET_HANDSHAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "tempo/rng.h"

#define LINK_NONCES 8          /* requests awaiting a reply at once */
#define LINK_MESH_MAX 32       /* machines a ping mesh can name */
#define LINK_MESH_UNKNOWN 0xFFFFu /* no round trip known to that machine */

typedef struct net_link net_link;

typedef struct link_handshake {
    int rounds_done;           /* replies counted so far */
    bool complete;
    bool failed;               /* the handshake timeout passed first */
    bool announcing;           /* keep sending requests after completion */
    bool resend_now;           /* the next request is due at once */
    bool sent_any;
    uint64_t last_request_us;  /* newest request */
    uint32_t nonce[LINK_NONCES];       /* 0: a free slot */
    uint64_t nonce_sent_us[LINK_NONCES];

    /* what the remote told us */
    bool remote_ready;
    uint64_t ready_heard_us;   /* when it first said so */
    uint16_t mesh_ms[LINK_MESH_MAX];   /* its round trips, LINK_MESH_UNKNOWN if none */

    uint64_t replies_ignored;  /* replies whose nonce was not outstanding */
    uint64_t hash_mismatches;  /* messages with another configuration hash */
} link_handshake;

/* A SYNC request or reply, as decoded by the caller. */
typedef struct link_sync {
    bool reply;                /* false: a request */
    uint32_t nonce;
    uint32_t config_hash;
    bool ready;                /* the remote is established with every machine it needs */
    const uint16_t *mesh_ms;   /* its round trips in ms, LINK_MESH_UNKNOWN for none */
    int mesh_count;            /* entries in mesh_ms; more than LINK_MESH_MAX are ignored */
} link_sync;

typedef enum link_sync_result {
    LINK_SYNC_MISMATCH = -2,   /* another configuration: ignored and counted */
    LINK_SYNC_IGNORED = -1,    /* a reply to no outstanding request, or the link is closed */
    LINK_SYNC_ANSWER = 0,      /* a request: answer it with a reply carrying its nonce */
    LINK_SYNC_ROUND = 1,       /* a reply counted; the next request is due at once */
    LINK_SYNC_COMPLETE = 2     /* this reply completed the handshake */
} link_sync_result;

/* True if a request should be sent now: the handshake is not complete (or
 * the caller asked to keep announcing), the retry period has passed since
 * the last request (or a round just completed), and the throttle allows a
 * datagram. */
bool link_handshake_due(const net_link *l, uint64_t now);
/* A request is going out at `now`: returns its nonce (never 0), drawn from
 * rng and kept as outstanding (replacing the oldest if LINK_NONCES are). */
uint32_t link_handshake_request(net_link *l, uint64_t now, tempo_rng *rng);
/* A SYNC message arrived at `now`: checks the hash, records readiness and
 * the mesh, and counts a reply whose nonce is outstanding. */
link_sync_result link_on_sync(net_link *l, uint64_t now, const link_sync *m);
/* Keep sending requests after completion (to announce readiness and the
 * mesh until the caller no longer needs to), or stop. */
void link_handshake_announce(net_link *l, bool on);
/* Make the next request due at once (readiness changed: tell it now). */
void link_handshake_resend_now(net_link *l);
/* The remote showed by other means that it is ready (it sends game data). */
void link_set_remote_ready(net_link *l, uint64_t now);

#endif /* TEMPO_NET_HANDSHAKE_H */
