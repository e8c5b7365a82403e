/* SPDX-License-Identifier: MIT */
/*
 * traversal.h — NAT traversal for peer-to-peer matches: a transport that
 * finds, for each other machine of the match, a direct path through the
 * home routers between them, and carries the traffic through a tempo-relay
 * when there is none (docs/NAT.md).
 *
 * A member joins a peer-to-peer match at a relay (with a connect token, or
 * unsealed), tells it its local addresses, and hears back, sealed, where
 * the relay sees every other member and their local addresses, with the
 * match's secret that authenticates probes. Then each pair probes every
 * candidate address at once; the first that is acknowledged both ways
 * carries the pair's traffic. Until then, and for a pair with no direct
 * path, the traffic goes through the relay, so a match never waits for
 * punching. A relayed pair keeps trying in the background and moves to a
 * direct path when one works; a direct path that stops answering falls
 * back to the relay.
 *
 * Use: create it over the game's socket (tempo/udp.h), call
 * tempo_traversal_update every tick with the time, and once
 * tempo_traversal_status says READY, create the p2p session with
 * tempo_traversal_transport as its transport and, as every remote
 * player's address, tempo_traversal_peer_address. The session then never
 * sees a real address: a pair can change paths under it.
 *
 * Nothing here reads a clock (time is an argument) or allocates after
 * create. Not thread safe: one traversal, one thread.
 */
#ifndef TEMPO_TRAVERSAL_H
#define TEMPO_TRAVERSAL_H

#include <stdbool.h>
#include <stdint.h>

#include "tempo/base.h"
#include "tempo/secure.h"
#include "tempo/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEMPO_TRAVERSAL_MAX_LOCAL 4

typedef struct tempo_traversal_config {
    /* The socket every path shares (copied; its ctx must outlive the
     * traversal). Required. */
    tempo_transport transport;
    /* The relay's address (IPv4 or IPv6 with a port). Required. */
    tempo_address relay;
    /* With a token (TEMPO_TOKEN_SIZE bytes, copied; from tempo-token
     * --p2p, or tempo_token_create with tempo_relay_join_write's user data
     * of a join with peer_to_peer set), protocol_id is the token's; without
     * (NULL), the relay is unsealed, protocol_id is TEMPO_RELAY_PLAIN_PROTOCOL
     * and `join` says the match. */
    const uint8_t *token;
    uint64_t protocol_id;
    /* The AEAD offered to a sealed relay (tempo_cipher, base.h; AUTO by
     * default, see tempo_config.cipher). TEMPO_E_INVALID_ARG outside the
     * enum, TEMPO_E_UNSUPPORTED for AES256GCM without AES. */
    tempo_cipher cipher;
    /* Unsealed: the member's id, drawn at random by the caller, not 0. */
    uint64_t nonce;
    /* Unsealed: tempo_relay_join_write's bytes of this member's join
     * (peer_to_peer set). Ignored with a token. */
    uint8_t join[TEMPO_TOKEN_USER_DATA_SIZE];
    /* Players this machine hosts: 1..8 (the relay checks it against the
     * token or the join). Default 1. */
    int players;
    /* This machine's own addresses with the socket's port (a LAN address
     * behind a home router), 0..TEMPO_TRAVERSAL_MAX_LOCAL, IPv4 or IPv6
     * with a port: members behind the same NAT reach each other there. */
    tempo_address local[TEMPO_TRAVERSAL_MAX_LOCAL];
    int nlocal;
    /* false: no probing, every pair plays through the relay. Default true. */
    bool direct;
    /* While punching, one probe per candidate every probe_ms: 10..1000,
     * default 50. */
    uint32_t probe_ms;
    /* Punching gives up (the pair plays through the relay, retrying in the
     * background): 100..60000 ms, default 2500. */
    uint32_t punch_timeout_ms;
    /* A direct path (and the relay path) is probed this often, which keeps
     * the NAT's mapping open and measures its RTT: 100..25000 ms, default
     * 1000 (home routers drop idle UDP mappings after 30 s or more). */
    uint32_t keepalive_ms;
    /* A direct path with no answer this long has died: 2 * keepalive_ms
     * .. 60000 ms, default 3500. */
    uint32_t dead_ms;
    /* A relayed pair retries every candidate this often: 100..60000 ms,
     * default 2000. */
    uint32_t retry_ms;
    /* The relay's handshake gives up after this: 100..600000 ms, default
     * 5000. */
    uint32_t connect_timeout_ms;
    tempo_allocator allocator; /* both hooks set, or both NULL (malloc) */
} tempo_traversal_config;

typedef struct tempo_traversal tempo_traversal;

typedef enum tempo_traversal_state {
    TEMPO_TRAVERSAL_CONNECTING = 0, /* the relay's handshake */
    TEMPO_TRAVERSAL_WAITING = 1,    /* in the match: not every player is in yet */
    TEMPO_TRAVERSAL_READY = 2,      /* every player's machine is known: create the session */
    TEMPO_TRAVERSAL_FAILED = 3      /* the relay refused us, or never answered */
} tempo_traversal_state;

typedef struct tempo_traversal_status {
    tempo_traversal_state state;
    uint8_t local_players;          /* this machine's players (bit p), once in */
    uint8_t remote_players;         /* the other members' players, as introduced */
    int members;                    /* other members introduced */
} tempo_traversal_status;

typedef enum tempo_path {
    TEMPO_PATH_NONE = 0,            /* not introduced */
    TEMPO_PATH_PUNCHING = 1,        /* probing; traffic goes through the relay meanwhile */
    TEMPO_PATH_DIRECT = 2,          /* straight to the peer */
    TEMPO_PATH_RELAYED = 3          /* through the relay, retrying direct in the background */
} tempo_path;

typedef struct tempo_path_info {
    tempo_path path;
    tempo_address direct;           /* the peer's address in use, when DIRECT */
    tempo_address public_addr;      /* where the relay sees the peer */
    uint32_t direct_after_ms;       /* introduction to the first direct path (0: never) */
    uint32_t rtt_direct_us;         /* last probe round trip on the direct path (0: none) */
    uint32_t rtt_relay_us;          /* last probe round trip through the relay (0: none) */
    uint64_t upgrades;              /* moves from the relay to a direct path after the first */
    uint64_t downgrades;            /* direct paths that died */
} tempo_path_info;

typedef struct tempo_traversal_stats {
    uint64_t probes_sent, acks_sent, probes_in, acks_in;
    uint64_t acks_limited;          /* probes not answered: over the rate a peer may ask */
    uint64_t forwarded_out, forwarded_in; /* datagrams through the relay */
    uint64_t direct_out, direct_in;       /* datagrams straight to and from peers */
    /* Every datagram refused is counted in exactly one of the six below,
     * by the reasons and names every role's statistics share
     * (docs/SECURITY.md), or in dropped_queue. */
    uint64_t dropped_unknown;       /* from an address no member owns, a probe naming a
                                       player no member has, or one before the introduction */
    uint64_t dropped_session;       /* a probe of another match (another secret), a relay
                                       datagram for another protocol id */
    uint64_t dropped_malformed;     /* a header, size, type or field out of range (a probe
                                       tagged with the secret included), or from the relay
                                       before the handshake's challenge */
    uint64_t dropped_forged;        /* a probe whose tag does not verify, a relay datagram
                                       whose seal does not open or in the clear when sealed */
    uint64_t dropped_replay;        /* a copy of a probe or an acknowledgement already taken,
                                       or older than the newest (a replay); a relay datagram
                                       copied or too old */
    uint64_t held_jumps;            /* the relay's datagrams far ahead of its sequence, held
                                       unused (docs/SECURITY.md 9.1) */
    uint64_t dropped_queue;         /* arrived while the queue for the session was full */
    uint64_t send_errors;           /* the socket refused, or too large to forward */
    uint64_t relay_reconnects;      /* sealed: the relay went silent (our address moved?)
                                       and we connected to it again with the token */
} tempo_traversal_stats;

/* Fill cfg with the defaults above (no transport, no relay: fill them in). */
TEMPO_API void tempo_traversal_config_default(tempo_traversal_config *cfg);

/* Create a traversal at now_us; it starts the relay's handshake at its
 * first update. Returns TEMPO_OK and *out, or TEMPO_E_INVALID_ARG (a NULL,
 * a field out of range, no transport, a relay or local address that is
 * not IPv4/IPv6 with a port, unsealed with nonce 0 or a join that does not
 * read as a peer-to-peer one), TEMPO_E_MALFORMED or TEMPO_E_PROTOCOL (a
 * token that does not read, or for another protocol id),
 * TEMPO_E_UNSUPPORTED (a token in a build without libsodium),
 * TEMPO_E_NO_MEMORY. */
TEMPO_API tempo_result tempo_traversal_create(const tempo_traversal_config *cfg, uint64_t now_us,
                                              tempo_traversal **out);

/* Tell the relay we leave (one datagram), wipe the keys and free. NULL is
 * a no-op. */
TEMPO_API void tempo_traversal_destroy(tempo_traversal *t);

/* Everything due at now_us (microseconds, never going back): datagrams
 * read from the socket (the session's queued for its recv), the relay's
 * handshake, the introduction, probes, timeouts. Call every tick, before
 * the session's poll. TEMPO_OK, or TEMPO_E_INVALID_ARG (NULL). */
TEMPO_API tempo_result tempo_traversal_update(tempo_traversal *t, uint64_t now_us);

/* The transport the session uses: its addresses are the ones
 * tempo_traversal_peer_address gives. Datagrams to a pair with a direct
 * path go straight to the peer; the others through the relay (at most
 * 1175 bytes: a larger one is refused with TEMPO_E_FULL). */
TEMPO_API tempo_transport tempo_traversal_transport(tempo_traversal *t);

/* Where things stand. TEMPO_OK, or TEMPO_E_INVALID_ARG (a NULL). */
TEMPO_API tempo_result tempo_traversal_get_status(const tempo_traversal *t,
                                                  tempo_traversal_status *out);

/* The session's address for the machine hosting `player` (the same for
 * every player of one machine). TEMPO_OK, or TEMPO_E_INVALID_ARG (a NULL,
 * a player out of 0..7), TEMPO_E_PLAYER (no member introduced hosts it:
 * ours, or not in yet). */
TEMPO_API tempo_result tempo_traversal_peer_address(const tempo_traversal *t, int player,
                                                    tempo_address *out);

/* The path to the machine hosting `player` and what it costs. Same
 * returns as tempo_traversal_peer_address. */
TEMPO_API tempo_result tempo_traversal_get_path(const tempo_traversal *t, int player,
                                                tempo_path_info *out);

/* With a token (a sealed relay), once READY: a match key for the
 * session's config (has_match_key, match_key), the same on every member,
 * derived from the match's secret the relay sent each one sealed, so the
 * members' own datagrams are authenticated and encrypted on every path.
 * TEMPO_OK, or TEMPO_E_INVALID_ARG (a NULL), TEMPO_E_STATE (not READY, or
 * an unsealed relay: its secret crossed the network in the clear, so no
 * key is made from it). */
TEMPO_API tempo_result tempo_traversal_match_key(const tempo_traversal *t,
                                                 uint8_t key[TEMPO_KEY_SIZE]);

/* The counters above. TEMPO_OK, or TEMPO_E_INVALID_ARG (a NULL). */
TEMPO_API tempo_result tempo_traversal_get_stats(const tempo_traversal *t,
                                                 tempo_traversal_stats *out);

/* The path's name: "none", "punching", "direct", "relayed". */
TEMPO_API const char *tempo_path_name(tempo_path path);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_TRAVERSAL_H */
