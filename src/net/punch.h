/* SPDX-License-Identifier: MIT */
/*
 * punch.h — hole punching for one pair of machines, as a state machine
 * with no socket and no clock (docs/NAT.md): which candidate address of the
 * peer to probe now, what an acknowledged probe means, when punching gives
 * up, when a direct path has died. net/traversal.c sends and receives for
 * it.
 *
 *   WAITING --intro--> PROBING --first ack--> DIRECT
 *                         |                    |  ^
 *                  timeout|        no ack for  |  | an ack
 *                         v        dead_us     v  |
 *                       RELAYED <--------------+--+
 *
 * While PROBING, every candidate gets a probe each probe_us, all at once
 * (both sides do the same from the moment the relay introduced them: the
 * simultaneous open that lets each NAT see outgoing traffic before the
 * peer's arrives). The first candidate whose probe is acknowledged becomes
 * the path; the peer does the same on its side. Until then, and whenever
 * RELAYED, the pair's traffic goes through the relay, so the match never
 * waits for punching. RELAYED keeps probing every candidate each retry_us
 * (the upgrade); DIRECT probes the path each keepalive_us, which keeps the
 * NAT's mapping open and measures the direct RTT, and falls back to
 * RELAYED when no acknowledgement came for dead_us (sooner when the peer
 * has gone quiet on it: PUNCH_QUIET_US below). The relay path is
 * probed each keepalive_us too, for its RTT.
 *
 * A probe's nonce says which candidate it went to and when (in ms, 29
 * bits), so an acknowledgement needs no table of probes in flight.
 */
#ifndef TEMPO_NET_PUNCH_H
#define TEMPO_NET_PUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include "tempo/transport.h"
#include "wire/drop.h"

#define PUNCH_MAX_CANDS 6        /* the peer's public address, its local ones, one seen */
#define PUNCH_RELAY 7            /* the candidate index of the relay path in a nonce */
/* A direct path the peer sent datagrams on, but nothing for PUNCH_QUIET_US, is
 * suspect: probed every PUNCH_SUSPECT_PROBE_US, and dead once no probe
 * was answered for PUNCH_SUSPECT_DEAD_US, so a match whose path died
 * moves to the relay within about a second, not after dead_us (which is
 * for pairs that exchange nothing but probes). */
#define PUNCH_QUIET_US 300000u
#define PUNCH_SUSPECT_PROBE_US 200000u
#define PUNCH_SUSPECT_DEAD_US 900000u

typedef enum punch_path {
    PUNCH_WAITING = 0,           /* not introduced yet */
    PUNCH_PROBING = 1,           /* punching; traffic goes through the relay */
    PUNCH_DIRECT = 2,            /* a candidate answered: traffic goes to it */
    PUNCH_RELAYED = 3            /* no direct path now: the relay, retries in the background */
} punch_path;

typedef enum punch_kind {
    PUNCH_CAND_PUBLIC = 1,       /* where the relay sees the peer */
    PUNCH_CAND_LOCAL = 2,        /* an address the peer has on its own network */
    PUNCH_CAND_SEEN = 3          /* where an authenticated probe of the peer came from */
} punch_kind;

/* Events punch_update and punch_on_ack return (bits). */
#define PUNCH_EV_DIRECT 1u       /* a direct path was chosen (first, or an upgrade) */
#define PUNCH_EV_FALLBACK 2u     /* punching gave up: the pair plays through the relay */
#define PUNCH_EV_DIED 4u         /* the direct path stopped answering: back to the relay */

typedef struct punch_config {
    uint64_t probe_us;           /* between probes to one candidate while punching */
    uint64_t timeout_us;         /* punching gives up after this */
    uint64_t keepalive_us;       /* the direct path's (and the relay path's) probe */
    uint64_t dead_us;            /* a direct path without an ack this long has died */
    uint64_t retry_us;           /* relayed: between rounds of probes to every candidate */
} punch_config;

typedef struct punch_cand {
    tempo_address addr;
    uint8_t kind;                /* punch_kind */
    uint64_t sent_us;            /* last probe to it (0: none) */
    uint64_t acked_us;           /* last acknowledgement of one (0: none) */
    uint64_t heard_us;           /* last authenticated probe from it (0: none) */
    uint32_t rtt_us;             /* of the last acknowledged probe */
    uint32_t acked_ms;           /* the send time in the newest acknowledged nonce */
} punch_cand;

typedef struct punch_pair {
    punch_config cfg;
    uint8_t path;                /* punch_path */
    int ncand;
    punch_cand cand[PUNCH_MAX_CANDS];
    int chosen;                  /* DIRECT: the candidate in use; else -1 */
    uint64_t start_us;           /* introduced */
    uint64_t direct_after_us;    /* start to the first direct path (0: never) */
    uint64_t round_us;           /* RELAYED: the retry round now (0: none yet) ... */
    uint64_t next_round_us;      /* ... and when the next one starts */
    uint64_t in_us;              /* last datagram of the peer's on the direct path */
    uint64_t relay_sent_us, relay_acked_us;
    uint32_t relay_rtt_us;
    uint32_t relay_acked_ms;
    uint64_t upgrades, downgrades; /* moves to a direct path after the first, and back */
} punch_pair;

/* Defaults: probes every 50 ms, give up after 2.5 s, keepalive 1 s, dead
 * after 3.5 s, retries every 2 s. */
void punch_config_default(punch_config *c);

/* A pair waiting for its introduction. */
void punch_init(punch_pair *p, const punch_config *cfg);

/* Introduced at now_us: the peer's public address and its local ones
 * (count 0..4; duplicates and addresses that are not IPv4/IPv6 with a port
 * skipped). Local candidates come first. Starts PROBING (again, from a
 * new introduction: the candidates are replaced and the path restarts). */
void punch_start(punch_pair *p, uint64_t now_us, const tempo_address *public_addr,
                 const tempo_address *local, int nlocal);

/* The next probe due at now_us: fills *nonce and returns the candidate
 * index (0..ncand-1, or PUNCH_RELAY for a probe through the relay), or -1
 * when nothing is due. Call until -1; each call counts its probe as sent.
 * At most one probe per candidate per probe_us whatever the caller does. */
int punch_next_probe(punch_pair *p, uint64_t now_us, uint32_t *nonce);

/* An authenticated probe from the peer came from addr (not through the
 * relay) at now_us: remembered as heard; an address not among the
 * candidates is added as SEEN (replacing an earlier SEEN one). */
void punch_on_probe(punch_pair *p, uint64_t now_us, const tempo_address *addr);

/* Why an authenticated acknowledgement of our probe `nonce` coming at
 * now_us would not count: TEMPO_DROP_NONE if it would; DUPLICATE (the
 * newest one of that candidate again) or STALE (older than that, or than
 * 10 s: a replayed one cannot keep a dead path alive); BAD_VALUE (it names
 * a candidate we never probed); UNKNOWN (not introduced). */
tempo_drop_reason punch_ack_refusal(const punch_pair *p, uint64_t now_us, uint32_t nonce);

/* An authenticated acknowledgement of our probe `nonce` came at now_us:
 * taken unless punch_ack_refusal says why not. Returns PUNCH_EV_DIRECT
 * when it made a candidate the path, else 0. */
unsigned punch_on_ack(punch_pair *p, uint64_t now_us, uint32_t nonce);

/* A datagram of the peer's came on the direct path at now_us (its
 * session's, or a probe): the path is not quiet. */
void punch_on_direct_in(punch_pair *p, uint64_t now_us);

/* Timeouts at now_us: PUNCH_EV_FALLBACK, PUNCH_EV_DIED or 0. */
unsigned punch_update(punch_pair *p, uint64_t now_us);

/* The address data to the peer goes to: the chosen candidate when DIRECT,
 * else NULL (the relay). */
const tempo_address *punch_direct(const punch_pair *p);

/* Whether the nonce's send time (ms, 29 bits) is after `last` (0: none
 * yet), in serial arithmetic: how a receiver tells a replayed probe of a
 * sender's candidate from a new one. */
bool punch_nonce_newer(uint32_t nonce, uint32_t last);
/* The candidate index a nonce names (PUNCH_RELAY for the relay path). */
static inline int punch_nonce_index(uint32_t nonce) { return (int)(nonce >> 29); }

/* True if datagrams from addr are the peer's: a candidate it was heard
 * from or that acknowledged a probe. */
bool punch_owns(const punch_pair *p, const tempo_address *addr);

#endif /* TEMPO_NET_PUNCH_H */
