/* SPDX-License-Identifier: MIT */
/*
 * lockstep.h — turn-based lockstep (RTS style): every machine runs the same
 * deterministic simulation from the same commands, turn by turn
 * (docs/LOCKSTEP.md tells the whole loop, the rule and its sources).
 *
 * Game time is cut into turns of a length in milliseconds that has nothing
 * to do with the game's frame rate. The game adds commands (byte blobs)
 * whenever it likes; those collected during turn N are sent to every other
 * machine and execute on every machine at turn N + execution_delay. A turn
 * never executes before every player's commands for it are here: if one is
 * late, every machine waits (a freeze). The game asks each tick which turns
 * are ready, executes them in order, and reports a checksum of its state
 * after each, which the machines compare (desync detection). The host (the
 * lowest player) may change the turn length for a later turn (Age of
 * Empires' adaptive turns); every machine switches at the same turn. When a
 * machine leaves, the others agree on the last turn of its commands and go
 * on without it.
 *
 * One player per machine; player numbers 0..num_players-1 are agreed by the
 * match setup. A lockstep object is single-threaded, never reads a clock
 * (every time is an argument, in microseconds, never going back) and
 * allocates only in tempo_lockstep_create.
 *
 * The loop:
 *   tempo_lockstep_poll(ls, now);                 network in and out, events
 *   while (tempo_lockstep_next_event(ls, &ev) == 1) ...;
 *   tempo_lockstep_add_command(ls, cmd, size);    zero or more, any time
 *   while (tempo_lockstep_next_turn(ls, now, &turn) == 1) {
 *       execute turn.player[p]'s commands for every p, in player order;
 *       tempo_lockstep_turn_done(ls, turn.turn, checksum, cost_us);
 *   }
 *   tempo_lockstep_render(ls, now, &blend);       draw between two states
 */
#ifndef TEMPO_LOCKSTEP_H
#define TEMPO_LOCKSTEP_H

#include "tempo/base.h"
#include "tempo/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEMPO_LOCKSTEP_MAX_COMMAND 256    /* bytes of one command */
#define TEMPO_LOCKSTEP_MAX_COMMANDS 64    /* commands of one player in one turn */
#define TEMPO_LOCKSTEP_TURN_BUDGET 1024   /* command bytes of one player in one turn */
#define TEMPO_LOCKSTEP_MAX_DELAY 16       /* largest execution delay, turns */
#define TEMPO_LOCKSTEP_HISTORY 64         /* turn-length changes remembered */

typedef struct tempo_lockstep tempo_lockstep;

typedef struct tempo_lockstep_config {
    int num_players;              /* 1..TEMPO_MAX_PLAYERS */
    int local_player;             /* 0..num_players-1: the player this machine hosts */
    uint32_t session_id;          /* any; both sides must use the same */
    uint32_t turn_ms;             /* first turn length, min_turn_ms..max_turn_ms; default 100 */
    uint32_t min_turn_ms;         /* 10..max_turn_ms; default 50 */
    uint32_t max_turn_ms;         /* min_turn_ms..2000; default 500 */
    int execution_delay;          /* turns, 2..TEMPO_LOCKSTEP_MAX_DELAY; default 2 */
    bool adaptive;                /* the host adapts the turn length; default true */
    int adapt_every;              /* turns between the host's decisions, 1..1000; default 10 */
    uint32_t disconnect_timeout_ms; /* silence before a machine is gone, 100..60000; default 5000 */
    uint64_t random_seed;         /* handshake nonces; default 1 */
    /* Seal every datagram (ChaCha20-Poly1305) with keys derived from
     * match_key as a p2p session does (docs/SECURITY.md); every machine of
     * the match must hold the same key. Default false. */
    bool has_match_key;
    uint8_t match_key[32];
    /* The AEAD of sealed datagrams (tempo_cipher, base.h): AUTO (default)
     * takes AES-256-GCM with every machine (or the relay) that also offers
     * it, else ChaCha20-Poly1305; CHACHA20 or AES256GCM force one. Each
     * pair agrees in its turn_hello handshake (a relay member in the
     * connect handshake); settings that share no cipher never connect
     * (counted in tempo_lockstep_stats.dropped_malformed).
     * TEMPO_E_INVALID_ARG outside the enum, TEMPO_E_UNSUPPORTED for
     * AES256GCM where tempo_cipher_aes_available() is false. */
    tempo_cipher cipher;
    tempo_allocator allocator;    /* NULL hooks: malloc/free */
    tempo_log_fn log;             /* may be NULL */
    void *log_ctx;
} tempo_lockstep_config;

/* Fill cfg with the defaults above: 2 players, local player 0, session 0. */
TEMPO_API void tempo_lockstep_config_default(tempo_lockstep_config *cfg);

/* Create a lockstep object speaking through `transport` (copied; it must
 * outlive the object). Allocates every buffer it will use.
 * Errors: TEMPO_E_INVALID_ARG (NULL, a field out of its range),
 * TEMPO_E_UNSUPPORTED (has_match_key in a build without libsodium),
 * TEMPO_E_NO_MEMORY (*out is then NULL and nothing is leaked).
 * Free with tempo_lockstep_destroy. */
TEMPO_API tempo_result tempo_lockstep_create(const tempo_lockstep_config *cfg,
                                             const tempo_transport *transport,
                                             tempo_lockstep **out);

/* Create a lockstep object that plays through the relay at relay_address
 * (tempo/relay.h; docs/RELAY.md, "Lockstep turns") instead of a full mesh:
 * it sends its own lists to the relay only, and executes the lists the
 * relay makes final, including the relay's substitutes for lists that
 * missed their deadline (tempo_lockstep_turn.player[p].substituted, for
 * its own player too: its commands for that turn are then replaced). No
 * peer is added (tempo_lockstep_add_peer answers TEMPO_E_STATE); every
 * machine of the match names the same session_id (the match id, not 0),
 * num_players, turn_ms and execution_delay. The turn length stays turn_ms
 * (adaptive is ignored), the relay starts the match and its clock paces
 * it; the relay compares the machines' checksums and counts differences
 * in its match stats (tempo_relay_match_stats.desyncs): no DESYNC event.
 * token: the TEMPO_TOKEN_SIZE bytes the backend gave (copied), whose user
 * data is a tempo_relay_join naming this match and player; everything is
 * then sealed with its keys. NULL: an unsealed relay (protocol id
 * TEMPO_RELAY_PLAIN_PROTOCOL); the machine sends the join itself.
 * has_match_key must be false. The relay refusing the join, or being
 * silent for disconnect_timeout_ms, ends the match
 * (TEMPO_LOCKSTEP_DISCONNECTED). Errors as tempo_lockstep_create, and
 * TEMPO_E_INVALID_ARG (NULL or empty relay_address, session_id 0,
 * has_match_key), TEMPO_E_MALFORMED (a token that does not read),
 * TEMPO_E_UNSUPPORTED (a token in a build without libsodium). Free with
 * tempo_lockstep_destroy (which tells the relay it leaves). */
TEMPO_API tempo_result tempo_lockstep_create_relay_member(const tempo_lockstep_config *cfg,
                                                          const tempo_transport *transport,
                                                          const tempo_address *relay_address,
                                                          const uint8_t *token,
                                                          tempo_lockstep **out);

/* Tell the other machines we leave (one datagram each, stamped with the
 * last time polled) and free everything; keys are wiped. NULL is allowed. */
TEMPO_API void tempo_lockstep_destroy(tempo_lockstep *ls);

/* The machine of remote `player` is at addr. Every remote player must be
 * added before the first poll. Errors: TEMPO_E_INVALID_ARG (NULL or empty
 * address), TEMPO_E_PLAYER (out of range, or the local player),
 * TEMPO_E_ALREADY (player or address already added), TEMPO_E_STATE (after
 * the first poll). */
TEMPO_API tempo_result tempo_lockstep_add_peer(tempo_lockstep *ls, int player,
                                               const tempo_address *addr);

/* Receive and handle every datagram waiting (at most 4096), run the
 * handshake and liveness, start the match when every machine is connected
 * (the host decides), and send the turn lists not yet acknowledged to
 * every machine. Errors: TEMPO_E_INVALID_ARG (NULL), TEMPO_E_STATE (a
 * remote player was never added). Datagrams that fail are dropped and
 * counted, never errors. */
TEMPO_API tempo_result tempo_lockstep_poll(tempo_lockstep *ls, uint64_t now_us);

/* Add one command (size bytes, 1..TEMPO_LOCKSTEP_MAX_COMMAND, copied) to the
 * turn being collected; it executes execution_delay turns later on every
 * machine. Allowed from create on. Errors: TEMPO_E_INVALID_ARG (NULL, size
 * out of range), TEMPO_E_FULL (the turn already holds
 * TEMPO_LOCKSTEP_MAX_COMMANDS commands or this one would pass
 * TEMPO_LOCKSTEP_TURN_BUDGET bytes: add it next turn), TEMPO_E_STATE (the
 * match ended). */
TEMPO_API tempo_result tempo_lockstep_add_command(tempo_lockstep *ls, const void *data,
                                                  size_t size, uint64_t now_us);

/* One turn to execute: its number, its length, and each player's commands,
 * as a packed list walked with tempo_lockstep_turn_command. The pointers
 * stay valid until tempo_lockstep_turn_done for this turn. */
typedef struct tempo_lockstep_turn {
    int32_t turn;
    uint32_t length_ms;
    int num_players;
    struct {
        const uint8_t *list;  /* count commands, each a size - 1 byte then size bytes */
        uint32_t list_size;
        int count;
        bool substituted;     /* a relay stood in for this player (never in p2p) */
    } player[TEMPO_MAX_PLAYERS];
} tempo_lockstep_turn;

/* The next turn, if it is due at now_us and every player's commands for it
 * are here: returns 1 and fills *out; the game executes it and calls
 * tempo_lockstep_turn_done before asking again. Returns 0 when none is
 * ready (the match is not running yet, the turn is not due, or a player's
 * commands are missing: a WAITING event names whom).
 * Errors: TEMPO_E_INVALID_ARG (NULL), TEMPO_E_STATE (the previous turn was
 * not reported done, or the match has ended). */
TEMPO_API int tempo_lockstep_next_turn(tempo_lockstep *ls, uint64_t now_us,
                                       tempo_lockstep_turn *out);

/* Walk a player's commands: *cursor starts at 0. Returns 1 with *data and
 * *size set to the next command (pointing into the turn's list), 0 after
 * the last. Errors: TEMPO_E_INVALID_ARG (NULL, player out of range). */
TEMPO_API int tempo_lockstep_turn_command(const tempo_lockstep_turn *t, int player,
                                          size_t *cursor, const uint8_t **data, size_t *size);

/* The game executed `turn` (the one next_turn returned): its state now has
 * this checksum (compared with every other machine's; a mismatch is a
 * DESYNC event), and simulating it took cost_us (the host's rule reads the
 * slowest machine's mean). Errors: TEMPO_E_INVALID_ARG (NULL),
 * TEMPO_E_STATE (no turn outstanding), TEMPO_E_FRAME (not the outstanding
 * turn). */
TEMPO_API tempo_result tempo_lockstep_turn_done(tempo_lockstep *ls, int32_t turn,
                                                uint64_t checksum, uint64_t cost_us);

/* Where to render at now_us: blend the state after turn `from` toward the
 * state after turn `to` by `alpha` (0..1). to is the newest turn executed,
 * from the one before (-1: the state before turn 0); alpha grows over to's
 * length and stays at 1 while the next turn is late. */
typedef struct tempo_lockstep_blend {
    int32_t from, to;
    double alpha;
} tempo_lockstep_blend;

/* Errors: TEMPO_E_INVALID_ARG (NULL), TEMPO_E_STATE (no turn executed yet). */
TEMPO_API tempo_result tempo_lockstep_render(const tempo_lockstep *ls, uint64_t now_us,
                                             tempo_lockstep_blend *out);

typedef enum tempo_lockstep_event_kind {
    TEMPO_LOCKSTEP_CONNECTED = 1,    /* handshake with player's machine done (through a
                                        relay: with the relay, player -1) */
    TEMPO_LOCKSTEP_RUNNING,          /* turn 0 scheduled, or a freeze ended (u.running) */
    TEMPO_LOCKSTEP_WAITING,          /* a turn is due, some players' commands missing (u.waiting) */
    TEMPO_LOCKSTEP_DISCONNECTED,     /* player's machine left or went silent (or another
                                        machine says so): the survivors agree on its last
                                        turn and go on without it, its lists after that
                                        empty and substituted; if player is this machine
                                        (the others dropped it), or the match had not
                                        started, the match ends; through a relay: the
                                        relay refused or denied us (our own player) or
                                        fell silent (-1), and the match ends */
    TEMPO_LOCKSTEP_DESYNC,           /* checksums differ (u.desync); once per machine, at
                                        the first turn found differing */
    TEMPO_LOCKSTEP_TURN_LENGTH       /* the turn length changes at u.length.turn */
} tempo_lockstep_event_kind;

typedef struct tempo_lockstep_event {
    tempo_lockstep_event_kind kind;
    int player;                      /* the player concerned; -1 for none */
    union {
        struct { uint64_t frozen_us; } running;        /* 0 at the start */
        struct { int32_t turn; uint32_t missing_mask; } waiting;
        struct { int32_t turn; uint64_t ours, theirs; } desync;
        struct { int32_t turn; uint32_t ms; } length;
    } u;
} tempo_lockstep_event;

/* Pop the oldest event: 1 and *out filled, 0 if none. The queue holds 64;
 * older events are dropped first and counted (stats.events_dropped).
 * Errors: TEMPO_E_INVALID_ARG (NULL). */
TEMPO_API int tempo_lockstep_next_event(tempo_lockstep *ls, tempo_lockstep_event *out);

typedef struct tempo_lockstep_stats {
    bool running;
    int32_t turn;                 /* newest turn executed, -1 before turn 0 */
    uint32_t turn_ms;             /* length of the current turn */
    uint64_t freezes;             /* turns that were due while a player's commands were missing */
    uint64_t frozen_us;           /* total time spent so */
    double freezes_per_minute;    /* over the running time */
    uint64_t commands_executed;   /* local commands that executed */
    uint64_t latency_mean_us;     /* add_command to execution, local commands */
    uint64_t latency_max_us;
    uint64_t sim_mean_us;         /* this machine's mean turn cost (as reported) */
    uint64_t bytes_sent, bytes_received, packets_sent, packets_received;
    uint64_t dropped_unknown;     /* from no machine of the match */
    uint64_t dropped_session;     /* another session id */
    uint64_t dropped_malformed;   /* bad header, body, fragment or a list no honest machine sends */
    uint64_t dropped_forged;      /* did not open under the pair key, or plain in a sealed match */
    uint64_t dropped_replay;      /* copies and datagrams too old to tell */
    uint64_t held_jumps;          /* datagrams far ahead of a machine's sequence, held unused
                                     (docs/SECURITY.md 9.1) */
    uint64_t unbacked_claims;     /* machines dropped for claiming a lost player's lists they
                                     did not forward within disconnect_timeout_ms */
    uint64_t reports_missing;     /* machines dropped for giving no believable report of a
                                     lost player within disconnect_timeout_ms */
    uint64_t desyncs;             /* DESYNC events */
    uint64_t length_changes;      /* turn-length switches applied */
    uint64_t events_dropped;
    uint64_t lists_substituted;   /* lists executed that a relay stood in for (any player) */
} tempo_lockstep_stats;

/* Errors: TEMPO_E_INVALID_ARG (NULL). */
TEMPO_API tempo_result tempo_lockstep_get_stats(const tempo_lockstep *ls,
                                                tempo_lockstep_stats *out);

/* The turn-length history: for each switch applied (turn 0's length
 * first), the turn it applied from and the length. Fills up to max entries
 * (the oldest first; past TEMPO_LOCKSTEP_HISTORY switches the oldest are
 * forgotten) and returns how many it filled. Errors: TEMPO_E_INVALID_ARG
 * (NULL with max > 0, max < 0). */
TEMPO_API int tempo_lockstep_length_history(const tempo_lockstep *ls, int32_t *turns,
                                            uint32_t *ms, int max);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_LOCKSTEP_H */
