/* SPDX-License-Identifier: MIT */
/*
 * relay.h — the relay ("packet server") of rollback matches, and the
 * session kind its members play through (docs/RELAY.md).
 *
 * Members of a match connect to one relay instead of to each other. Each
 * member sends only its own players' inputs; the relay keeps a frame clock
 * per match and, for each frame, once every player's input is in or at the
 * frame's deadline (its time plus a tolerance), finalizes the frame: a
 * missing input is replaced by that player's previous one and marked
 * substituted. Every member receives every finalized frame and plays
 * exactly those inputs: the relay's stream is the confirmation, so a slow
 * member never holds the others back. The idea is the lecture's "lockstep
 * with a packet server" and Photon Quantum's server-timed input
 * substitution.
 *
 * The relay carries turn-based lockstep matches too: members made with
 * tempo_lockstep_create_relay_member (tempo/lockstep.h) send their turn
 * lists, and a list late for its turn's deadline is replaced by the
 * player's previous one, marked substituted (docs/RELAY.md).
 *
 * Members are admitted through tempo's connect handshake (tempo/secure.h):
 * a token whose user data says which match and players the member has
 * (tempo_relay_join_write fills it), or, on a relay without a private key,
 * the same fields sent in the clear after admission.
 *
 * The relay keeps no game state, reads no clock (times are arguments),
 * allocates everything at create and nothing afterwards. Not thread safe:
 * one relay, one thread.
 */
#ifndef TEMPO_RELAY_H
#define TEMPO_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/base.h"
#include "tempo/secure.h"
#include "tempo/config.h"
#include "tempo/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The protocol id of relays and members without a private key (a member
 * without a token has no other way to learn it). */
#define TEMPO_RELAY_PLAIN_PROTOCOL 0x74656d706f72656cull /* "temporel" in ASCII */

/* ---- what a member joins: the token's user data ------------------------- */

/* A member's place in a match. In a token's user data it takes its first
 * TEMPO_RELAY_JOIN_SIZE bytes, little-endian:
 *   0  8  match_id (nonzero)
 *   8  1  slots: bit p set for each player p the member has (nonzero)
 *   9  1  num_players (1..TEMPO_MAX_PLAYERS; slots only below it)
 *  10  1  input_size (1..TEMPO_MAX_INPUT_SIZE)
 *  11  2  frames_per_second (1..1000)
 *  13  1  version, TEMPO_RELAY_JOIN_VERSION
 *  14  2  turn_ms: 0 for a rollback match; 10..2000 for a lockstep match
 *         (tempo/lockstep.h) whose turns last this long; input_size and
 *         frames_per_second are then 0 and slots names one player
 *  16  1  execution_delay: 0 for rollback; 2..16 with turn_ms
 *  17  1  peer_to_peer: 1 for a peer-to-peer match the relay introduces
 *         (tempo/traversal.h, docs/NAT.md): its members play rollback with
 *         each other, directly where they can, the relay forwarding for the
 *         pairs that cannot; turn_ms is then 0. 0 otherwise.
 * and the rest of the 256 bytes is zero. Every member of a match must
 * name the same num_players, input_size, frames_per_second, turn_ms,
 * execution_delay and peer_to_peer. A RELAY_JOIN body is the first
 * TEMPO_RELAY_JOIN_SIZE bytes for a rollback match,
 * TEMPO_RELAY_JOIN_TURNS_SIZE for lockstep, TEMPO_RELAY_JOIN_P2P_SIZE for
 * peer to peer. */
#define TEMPO_RELAY_JOIN_SIZE 14
#define TEMPO_RELAY_JOIN_TURNS_SIZE 17
#define TEMPO_RELAY_JOIN_P2P_SIZE 18
#define TEMPO_RELAY_JOIN_VERSION 1

typedef struct tempo_relay_join {
    uint64_t match_id;
    uint8_t slots;
    int num_players;
    int input_size;
    int frames_per_second;
    uint32_t turn_ms;           /* 0: rollback */
    int execution_delay;        /* with turn_ms */
    bool peer_to_peer;          /* introduced peers, not frames through the relay */
} tempo_relay_join;

/* Write join into out[0..TEMPO_TOKEN_USER_DATA_SIZE) (for
 * tempo_token_create's user_data). Returns TEMPO_OK, or TEMPO_E_INVALID_ARG
 * for a NULL or a field out of the ranges above (out is then zeroed). */
TEMPO_API tempo_result tempo_relay_join_write(const tempo_relay_join *join,
                                              uint8_t out[TEMPO_TOKEN_USER_DATA_SIZE]);
/* Read a join from user data. Returns TEMPO_OK, TEMPO_E_INVALID_ARG (NULL)
 * or TEMPO_E_MALFORMED (a field out of range, another version, a nonzero
 * byte after the fields); *out is zeroed on an error. */
TEMPO_API tempo_result tempo_relay_join_read(const uint8_t data[TEMPO_TOKEN_USER_DATA_SIZE],
                                             tempo_relay_join *out);

/* ---- the relay ----------------------------------------------------------- */

typedef struct tempo_relay_config {
    /* Tokens must name this protocol id. Without a private key it must be
     * TEMPO_RELAY_PLAIN_PROTOCOL (the default), the id tokenless members use. */
    uint64_t protocol_id;
    /* With a private key (the backend's, 32 bytes), members come with
     * tokens and every datagram after the handshake is sealed; without
     * (false, the default) nothing is sealed and anyone may join. */
    bool has_private_key;
    uint8_t private_key[TEMPO_KEY_SIZE];
    /* The AEAD of the members' sealed datagrams (tempo_cipher, base.h):
     * AUTO (default) takes AES-256-GCM with a member that also offers it
     * (a browser page never does: ChaCha20-Poly1305 with it), else
     * ChaCha20-Poly1305; CHACHA20 or AES256GCM force one (a member whose
     * offer shares none is refused, counted in handshake_refused).
     * TEMPO_E_INVALID_ARG outside the enum, TEMPO_E_UNSUPPORTED for
     * AES256GCM where tempo_cipher_aes_available() is false. */
    tempo_cipher cipher;
    /* Random bytes (tempo_key_generate) the handshake's cookies are sealed
     * or tagged with. All zero is refused. */
    uint8_t cookie_key[TEMPO_KEY_SIZE];
    /* The address tokens must name (family NONE: not checked). */
    tempo_address self;
    int max_matches;        /* matches at once, 1..65536, default 64 */
    int max_members;        /* members at once over all matches, 1..262144, default 512 */
    /* The largest num_players * input_size a match may use (a match asking
     * more is refused), 1..TEMPO_MAX_PLAYERS * TEMPO_MAX_INPUT_SIZE, default
     * 128. Memory per match: 256 frames of this many bytes. */
    int max_frame_bytes;
    /* Lockstep matches at once (members made with
     * tempo_lockstep_create_relay_member), 0..65536 (at most max_matches
     * are ever used), default 4; each
     * takes about 560 KiB at create (64 turns of 8 players' lists). */
    int max_turn_matches;
    /* How long after a frame's time the relay waits for a late input
     * before it substitutes it: 0..2000 ms, default 100. */
    uint32_t tolerance_ms;
    /* Silence after which a member is dropped (its players' inputs are
     * substituted from then on): 100..60000 ms, default 3000. */
    uint32_t timeout_ms;
    /* A match starts once every player's member is in, or this long after
     * its first member came (the missing players substituted from the
     * start): 0..600000 ms, default 10000. */
    uint32_t start_wait_ms;
    /* Between the start decision and frame 0, so members hear of it before
     * it begins: 0..5000 ms, default 200. */
    uint32_t start_delay_ms;
    tempo_allocator allocator; /* both hooks set, or both NULL (malloc) */
    /* Where the relay tells its operator what went wrong (NULL, the
     * default: nowhere), at WARN: a member's connect token refused
     * (expired, minted for another relay or with another key, missing, for
     * another protocol id), a member denied after the handshake (the relay
     * full, no match free, its token's user data not a join, its match's
     * settings disagreeing, its player taken, the match started), the
     * transport refusing datagrams; and at create, a relay without a
     * private key. At most one line per kind every 10 s, saying how many
     * it stands for, so a flood cannot flood the log; a member denied
     * while the relay drains (tempo_relay_refuse_matches) is told at INFO.
     * Lines come from inside tempo_relay_create and tempo_relay_update. */
    tempo_log_fn log;
    void *log_ctx;
    /* The most detailed level passed to log, TEMPO_LOG_ERROR..TEMPO_LOG_DEBUG;
     * default TEMPO_LOG_WARN. */
    tempo_log_level log_level;
} tempo_relay_config;

typedef struct tempo_relay tempo_relay;

/* Fill cfg with the defaults above (no private key, cookie key zero: fill
 * it in). */
TEMPO_API void tempo_relay_config_default(tempo_relay_config *cfg);

/* Create a relay that talks through `transport` (copied; its ctx must
 * outlive the relay). Everything it will ever use is allocated here.
 * Returns TEMPO_OK and *out, or TEMPO_E_INVALID_ARG (a NULL, a field out of
 * range, a log level out of range, an all-zero cookie key, a private key
 * with protocol id 0),
 * TEMPO_E_UNSUPPORTED (a private key in a build without libsodium),
 * TEMPO_E_NO_MEMORY. */
TEMPO_API tempo_result tempo_relay_create(const tempo_relay_config *cfg,
                                          const tempo_transport *transport, tempo_relay **out);
/* Free the relay (its keys wiped). NULL is allowed. */
TEMPO_API void tempo_relay_destroy(tempo_relay *r);

/* Receive the waiting datagrams, at most 1024 per call, run each match's
 * clock to now_us, finalize what is due and send every member what it
 * lacks. More waiting are read by the next calls: call it again at once
 * while the transport has datagrams (a readable socket), and at least once
 * per frame of the fastest match, so a backlog (a flood, a stall of the
 * process) is read in batches with the frames due sent between them.
 * While datagrams are left waiting, the relay is behind, not its members:
 * deadlines move back by as long as that has lasted, up to another
 * tolerance_ms, since a missing input may be among them. now_us: a monotonic clock in microseconds; now_seconds: the clock
 * tokens are dated on (Unix time). Returns TEMPO_OK or
 * TEMPO_E_INVALID_ARG. */
TEMPO_API tempo_result tempo_relay_update(tempo_relay *r, uint64_t now_us, uint64_t now_seconds);

/* Stop (refuse true) or resume opening matches, to drain a relay before
 * it stops (tempo-relay on SIGTERM under Agones): while refused, a member
 * whose match the relay does not hold is denied (counted in `denied`, and
 * told, as when the relay is full); the matches already open go on, and a
 * member may still join one that has not started. How many matches and
 * members remain is in tempo_relay_get_stats. Returns TEMPO_OK, or
 * TEMPO_E_INVALID_ARG for a NULL relay. */
TEMPO_API tempo_result tempo_relay_refuse_matches(tempo_relay *r, bool refuse);

/* The relay's counters since create. Every datagram refused is counted in
 * exactly one dropped_* field or handshake_refused. */
typedef struct tempo_relay_stats {
    int matches, members;           /* in use now */
    uint64_t datagrams_in, datagrams_out;
    uint64_t bytes_in, bytes_out;
    uint64_t frames_finalized;      /* over every match */
    uint64_t substitutions;         /* player inputs substituted */
    uint64_t late_inputs;           /* real inputs for finalized frames, dropped */
    uint64_t admitted, denied;      /* members admitted / refused after the handshake */
    uint64_t handshake_refused;     /* handshake datagrams the gate refused */
    uint64_t dropped_unknown;       /* from a member whose link is closed */
    uint64_t dropped_session;       /* another session id than the relay's protocol's */
    uint64_t dropped_malformed;     /* a header, size or field out of range */
    uint64_t dropped_forged;        /* a seal that did not open, a plain one at a sealed relay */
    uint64_t dropped_replay;        /* copies, or too old to tell */
    uint64_t held_jumps;            /* a member's datagrams far ahead of its sequence, held
                                       unused (docs/SECURITY.md 9.1) */
    uint64_t dropped_not_owned;     /* inputs for players the member does not have */
    uint64_t dropped_far;           /* inputs too far ahead of the match's clock */
    uint64_t dropped_unbound;       /* inputs from a member not yet in a match */
    uint64_t members_timed_out;
    uint64_t members_behind;        /* dropped: further behind than the frames kept (192) */
    uint64_t send_errors;
    /* peer-to-peer matches (docs/NAT.md) */
    uint64_t introductions;         /* INTROs sent */
    uint64_t forwarded;             /* datagrams forwarded between members of a match */
    uint64_t moved;                 /* a member's new connection with its token (a new
                                       address) took the place of its old one */
} tempo_relay_stats;

typedef struct tempo_relay_match_stats {
    uint64_t match_id;
    bool started;
    int members;                    /* connected now */
    int32_t clock_frame;            /* the frame clock now (negative before frame 0) */
    int32_t finalized;              /* frames finalized: 0..finalized-1 */
    uint64_t substitutions[TEMPO_MAX_PLAYERS]; /* per player */
    uint64_t late_inputs[TEMPO_MAX_PLAYERS];   /* per player */
    uint64_t early_finalized;       /* frames finalized with every input in */
    uint64_t checksums, desyncs;    /* check frames compared, found different */
} tempo_relay_match_stats;

typedef struct tempo_relay_member_stats {
    uint64_t client_id;
    tempo_address address;
    uint64_t match_id;              /* 0: not yet in a match */
    uint8_t slots;
    bool sealed;
    uint64_t bytes_up, bytes_down;  /* payload bytes from it / to it */
    uint64_t datagrams_up, datagrams_down;
    uint64_t substitutions;         /* its players' inputs substituted */
    uint64_t late_inputs;           /* its real inputs that came too late */
    double rtt_ms;                  /* 0 before a sample */
    int32_t acked;                  /* frames it holds: 0..acked-1 */
} tempo_relay_member_stats;

/* Copy the relay's counters. TEMPO_OK or TEMPO_E_INVALID_ARG. */
TEMPO_API tempo_result tempo_relay_get_stats(const tempo_relay *r, tempo_relay_stats *out);
/* Stats of the match with this id: TEMPO_OK, TEMPO_E_INVALID_ARG (NULL),
 * TEMPO_E_PLAYER (no such match now). */
TEMPO_API tempo_result tempo_relay_get_match_stats(const tempo_relay *r, uint64_t match_id,
                                                   tempo_relay_match_stats *out);
/* Stats of the member hosting `player` in match `match_id`: TEMPO_OK,
 * TEMPO_E_INVALID_ARG (NULL), TEMPO_E_PLAYER (no such match, or nobody has
 * that player now). */
TEMPO_API tempo_result tempo_relay_get_member_stats(const tempo_relay *r, uint64_t match_id,
                                                    int player, tempo_relay_member_stats *out);

/* ---- members ------------------------------------------------------------- */

/* A member is a rollback session: the calls that drive it are the session
 * API's (tempo/session.h, which tempo.h includes with this header). */

/* Create a rollback session that plays through the relay at relay_address,
 * over `transport` (copied; its ctx must outlive the session). Declare the
 * players this machine has (at least one) with
 * tempo_session_add_local_player before the first poll; every other player
 * is remote, at the relay (no need to declare them: declaring one with
 * tempo_session_add_remote_player is accepted and changes nothing; a
 * session without a local player ends at its first poll). The game loop
 * is unchanged: poll, add local inputs, advance, carry out the requests.
 *
 * token: the TEMPO_TOKEN_SIZE bytes the backend gave (copied), whose user
 * data names the match and the local players; the session seals
 * everything with its keys. NULL: an unsealed relay; the match id is
 * cfg->session_id, the players those declared local, the protocol id
 * TEMPO_RELAY_PLAIN_PROTOCOL.
 *
 * Every input the session confirms is the relay's: a remote input comes
 * from the relay's finalized frames, and a local input the relay had to
 * substitute (it came too late) is replaced by the substitute, with a
 * rollback. Inputs are CONFIRMED either way; tempo_session_relay_info
 * says how many were substituted. The session is SYNCHRONIZING until the
 * relay starts the match, RUNNING after, ENDED once refused, timed out
 * (TEMPO_EVENT_HANDSHAKE_FAILED), left, or the relay fell silent for
 * disconnect_timeout_ms (the remote players are then disconnected after
 * the last frame the relay finalized). Desync checks go through the relay, which
 * compares every member's checksums (TEMPO_EVENT_DESYNC).
 *
 * Errors as tempo_session_create_p2p, and TEMPO_E_INVALID_ARG for a NULL
 * relay_address, TEMPO_E_MALFORMED (a token that does not read),
 * TEMPO_E_UNSUPPORTED (a token in a build without libsodium). */
TEMPO_API tempo_result tempo_session_create_relay_member(const tempo_config *cfg,
                                                         const tempo_transport *transport,
                                                         const tempo_address *relay_address,
                                                         const uint8_t *token,
                                                         tempo_session **out);

/* What a member session saw of the relay. */
typedef struct tempo_relay_member_info {
    bool connected;                  /* admitted by the relay */
    bool started;                    /* the relay's clock started */
    int32_t relay_frame;             /* the relay's clock, as last heard, estimated now */
    int32_t finalized;               /* relay frames taken: 0..finalized-1 */
    uint64_t substituted[TEMPO_MAX_PLAYERS]; /* inputs the relay substituted, per player */
    uint64_t overridden;             /* own inputs replaced by the relay's substitute */
    uint64_t stalls;                 /* ticks stalled to stay near the relay's clock */
    uint64_t skipped;                /* frames its inputs jumped to catch up with the relay's
                                        clock (its last input repeated over them) */
    uint64_t bytes_up, bytes_down;   /* payload bytes sent to / received from the relay */
    double rtt_ms;
} tempo_relay_member_info;

/* Fill *out for a relay member session. TEMPO_OK, TEMPO_E_INVALID_ARG
 * (NULL), TEMPO_E_UNSUPPORTED (another kind of session). */
TEMPO_API tempo_result tempo_session_relay_info(const tempo_session *s,
                                                tempo_relay_member_info *out);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_RELAY_H */
