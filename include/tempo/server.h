/* SPDX-License-Identifier: MIT */
/*
 * server.h — the authoritative server of a client-server match.
 *
 * The server runs the game at a fixed tick through the same request
 * contract as a rollback session, but it never predicts and never rolls
 * back: each tick is one ADVANCE with every player's input for that tick.
 * Clients (client.h) connect through a challenge handshake (with connect
 * tokens when the server has a private key, secure.h), each taking one or
 * more player slots, and send their inputs ahead of time, redundantly.
 * A slot whose input for a tick is not here when the tick runs plays the
 * client's last input (status PREDICTED) and the input counts as late. A
 * slot with no client plays zeros (status DISCONNECTED).
 *
 * Every snapshot_interval ticks the server sends each client a snapshot:
 * the state, the tick it belongs to, the last input tick of that client it
 * processed, every player's latest input (so clients can predict the
 * others), and how early that client's inputs have been arriving (tick
 * sync). A snapshot is delta-coded against the newest snapshot the client
 * acknowledged and fragmented when large.
 *
 * The loop, once per tick of the server's fixed rate:
 *
 *     tempo_server_poll(s, now_us);            network in and out, timers
 *     while (tempo_server_poll_event(s, &ev)) ...
 *     tempo_server_advance(s, &tick);          one ADVANCE request
 *     step the game with tick.requests[0];
 *     (without an arena) if tick.snapshot_due:
 *         tempo_server_submit_state(s, tick.frame, state, size);
 *
 * The next poll sends the state of tick.frame (the state after the ADVANCE)
 * as a snapshot: in arena mode tempo reads the arena then.
 *
 * Times are microseconds of the caller's monotonic clock; tempo reads no
 * clock. Not thread-safe: one thread drives a server.
 */
#ifndef TEMPO_SERVER_H
#define TEMPO_SERVER_H

#include "tempo/base.h"
#include "tempo/config.h"
#include "tempo/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tempo_server_config {
    /* Player slots, 1..TEMPO_CS_MAX_PLAYERS; default 2. */
    int num_players;
    /* Bytes per player per tick, 1..TEMPO_MAX_INPUT_SIZE; default 4. */
    int input_size;
    /* Clients admitted at once, 1..TEMPO_CS_MAX_CLIENTS and at most
     * num_players (each client owns at least one slot); default num_players. */
    int max_clients;
    /* Slots one client may ask for, 1..num_players; default 1. A client
     * asks for at most 8 (the handshake's limit, TEMPO_MAX_PLAYERS). */
    int max_slots_per_client;
    /* Ticks per second, 1..1000; default 60. */
    int frames_per_second;
    /* Ticks between snapshots, 1..60; default 1 (every tick). */
    int snapshot_interval;
    /* Arena mode: tempo reads the game state from this block (arena_size
     * bytes, 1..TEMPO_CS_MAX_STATE) for each snapshot. NULL: the game hands
     * each snapshot's state to tempo_server_submit_state, at most
     * max_state_size bytes. */
    void *arena;
    size_t arena_size;
    /* Without an arena: the largest state submitted, 1..TEMPO_CS_MAX_STATE;
     * default 4096. Ignored with an arena. */
    size_t max_state_size;
    /* Snapshots kept as delta baselines, 2..64; default 32. A client whose
     * newest acknowledged snapshot is older gets a full state. */
    int snapshot_history;
    /* How far ahead of the server's tick a client's input may be, 1..128
     * ticks; default 64. Inputs further ahead are dropped and counted. */
    int input_window;
    /* Tag on every datagram; a datagram with another is dropped. Default 0. */
    uint32_t session_id;
    /* What connect tokens must name (secure.h); default 0. */
    uint64_t protocol_id;
    /* With a private key, clients must present a connect token made with it
     * and every datagram after the handshake is sealed with the token's
     * keys. Without one (LAN play, tests) the handshake still answers a
     * challenge but datagrams travel in the clear, and the server logs a
     * warning once. */
    bool has_private_key;
    uint8_t private_key[32];
    /* This server's address as tokens name it (tokens not listing it are
     * refused). Ignored without a private key. */
    tempo_address self;
    /* Silence before a client is dropped, 100..600000 ms; default 5000. */
    uint32_t disconnect_timeout_ms;
    /* Seed of the cookie key and other draws; 0 draws from the system. */
    uint64_t random_seed;
    tempo_allocator allocator; /* both hooks set, or both NULL (malloc) */
    tempo_log_fn log;          /* NULL: no logging */
    void *log_ctx;
    tempo_log_level log_level; /* default TEMPO_LOG_WARN */
} tempo_server_config;

/* Fill cfg with the defaults above. */
TEMPO_API void tempo_server_config_default(tempo_server_config *cfg);

typedef struct tempo_server tempo_server;

/* Create a server sending and receiving through `transport` (copied; its
 * ctx must outlive the server). Allocates everything it will need now:
 * nothing allocates afterwards. Errors: TEMPO_E_INVALID_ARG (NULL, a field
 * out of range), TEMPO_E_UNSUPPORTED (a private key in a build without
 * libsodium), TEMPO_E_NO_MEMORY. *out is NULL on error. */
TEMPO_API tempo_result tempo_server_create(const tempo_server_config *cfg,
                                           const tempo_transport *transport,
                                           tempo_server **out);
/* Free the server and wipe its keys. NULL is allowed. Sends nothing. */
TEMPO_API void tempo_server_destroy(tempo_server *s);

/* Unix time in seconds, for token expiry; needed only with a private key
 * (before the first poll, and whenever convenient after). */
TEMPO_API void tempo_server_set_token_time(tempo_server *s, uint64_t unix_seconds);

/* Receive every datagram waiting, run the handshake, drop silent clients,
 * and send what is due (the snapshot of the last tick, handshake replies,
 * keepalives). Errors: TEMPO_E_INVALID_ARG (NULL). */
TEMPO_API tempo_result tempo_server_poll(tempo_server *s, uint64_t now_us);

typedef struct tempo_server_tick {
    const tempo_request *requests; /* one ADVANCE; valid until the next call */
    int num_requests;
    int32_t frame;          /* the tick stepped */
    uint64_t late_mask;     /* bit p: slot p's input was late (PREDICTED) */
    bool snapshot_due;      /* the next poll sends the state after this tick */
} tempo_server_tick;

/* Run one tick: the ADVANCE of tick.frame with every slot's input.
 * Errors: TEMPO_E_INVALID_ARG (NULL). */
TEMPO_API tempo_result tempo_server_advance(tempo_server *s, tempo_server_tick *tick);

/* Without an arena: the state after tick `frame` (the last tick's
 * tick.frame), size bytes (1..max_state_size), copied. Call after carrying
 * out a tick whose snapshot_due was set. Errors: TEMPO_E_INVALID_ARG (NULL,
 * size out of range), TEMPO_E_STATE (an arena server, or this tick's
 * snapshot has already gone out: clients decode later deltas against the
 * state they were sent, so it cannot be replaced), TEMPO_E_FRAME (not the
 * last tick). */
TEMPO_API tempo_result tempo_server_submit_state(tempo_server *s, int32_t frame,
                                                 const void *state, size_t size);

typedef enum tempo_server_event_kind {
    TEMPO_SERVER_CLIENT_CONNECTED = 1,    /* a client was admitted: its slots */
    TEMPO_SERVER_CLIENT_DISCONNECTED = 2  /* it left or fell silent: its slots are free */
} tempo_server_event_kind;

typedef struct tempo_server_event {
    tempo_server_event_kind kind;
    int client;            /* 0..max_clients-1 */
    uint64_t client_id;    /* from its token; 0 without tokens */
    uint64_t slots;        /* bit p: player slot p */
    bool timed_out;        /* DISCONNECTED: silence, not a goodbye */
} tempo_server_event;

/* Take the oldest event: 1 and *ev filled, or 0 if none (or s or ev
 * NULL). The queue holds 256 events; when it is full, a new event drops
 * the oldest. */
TEMPO_API int tempo_server_poll_event(tempo_server *s, tempo_server_event *ev);

typedef struct tempo_server_client_stats {
    bool connected;
    uint64_t client_id;
    uint64_t slots;             /* bit p: player slot p */
    tempo_address address;
    /* Its link: smoothed round trip (RFC 6298, from the acks every message
     * carries); RFC 3550's interarrival jitter of its inputs, its tick as
     * their timestamp, as the server's updates see them arrive; its
     * datagrams lost on the way. */
    double rtt_ms, jitter_ms, loss;
    double earliness_ticks;     /* how early its inputs arrive, smoothed */
    uint64_t late_inputs;       /* ticks one of its slots played a late input */
    uint64_t inputs_dropped;    /* inputs outside the window or for slots it does not own */
    int32_t last_input_tick;    /* newest tick it sent an input for */
    int32_t acked_snapshot;     /* newest snapshot it acknowledged, -1 none */
    uint64_t snapshots_sent, snapshot_bytes, full_snapshots;
    uint64_t bytes_sent, bytes_received, packets_sent, packets_received;
} tempo_server_client_stats;

typedef struct tempo_server_stats {
    int32_t frame;               /* next tick to run */
    int clients;                 /* connected now */
    uint64_t ticks;
    uint64_t late_inputs;        /* over all clients */
    uint64_t inputs_dropped;
    uint64_t connects, disconnects, timeouts;
    uint64_t denied_full;        /* handshakes refused: no free slot */
    uint64_t handshake_refused;  /* bad token, stale or forged cookie, malformed request */
    uint64_t dropped_malformed, dropped_unknown, dropped_session, dropped_forged, dropped_replay;
    uint64_t held_jumps;         /* a client's datagrams far ahead of its sequence, held unused
                                    (docs/SECURITY.md 9.1) */
    uint64_t bytes_sent, bytes_received;
    bool unauthenticated;        /* no private key: nothing is sealed */
} tempo_server_stats;

/* Errors: TEMPO_E_INVALID_ARG (NULL), TEMPO_E_PLAYER (client out of range). */
TEMPO_API tempo_result tempo_server_get_stats(const tempo_server *s, tempo_server_stats *out);
TEMPO_API tempo_result tempo_server_get_client_stats(const tempo_server *s, int client,
                                                     tempo_server_client_stats *out);

/* Drop a client now (a kick): it is told, its slots free up at once.
 * Errors: TEMPO_E_INVALID_ARG (NULL), TEMPO_E_PLAYER (no such connected
 * client). */
TEMPO_API tempo_result tempo_server_kick(tempo_server *s, int client);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_SERVER_H */
