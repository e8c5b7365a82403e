/* SPDX-License-Identifier: MIT */
/*
 * client.h — a client of an authoritative server (server.h): prediction of
 * its own players, reconciliation with the server, and tick sync.
 *
 * The client runs the game through the same request contract as a rollback
 * session. Each tick it takes the input of its players, applies it at once
 * (prediction: the game steps a frame with it, no waiting for the server)
 * and sends it to the server, with every input the server has not
 * acknowledged yet. When a snapshot arrives (the server's state at tick T
 * and the last tick of this client's input it processed), the client
 * reconciles: it puts the server's state in place as the state of T and
 * resimulates T..F-1 with the inputs it kept, the request flagged
 * resimulating (move replay). Other players' inputs, in prediction and
 * replay, are the newest the server reported, with status PREDICTED: a game
 * that steps every player with them predicts the whole world; one that
 * steps only the players a PREDICTED status does not mark predicts only
 * its own.
 *
 * Tick sync. The client runs ahead of the server by about half a round
 * trip plus a margin, so its input for a tick reaches the server just
 * before the server runs that tick. The server reports how early the
 * inputs arrive; the client steers to the margin by making its ticks
 * slightly longer or shorter (time dilation, within max_dilation), and
 * jumps only when far off (at the start, after a hitch). The game sleeps
 * until tempo_client_next_tick_at: a deadline that runs on by the dilated
 * tick length from the previous deadline, not from when the loop woke, so
 * a sleep that returns late costs nothing on the next tick.
 *
 * The loop, once per tick:
 *
 *     tempo_client_poll(c, now_us());
 *     while (tempo_client_poll_event(c, &ev)) ...
 *     tempo_client_add_local_input(c, player, &input, sizeof input);   each local player
 *     tempo_client_advance(c, &tick);
 *     carry out tick.requests in order (LOAD, ADVANCE, as in session.h);
 *     sleep_until(tempo_client_next_tick_at(c));
 *
 * Do not sleep until "the tick's start + tempo_client_tick_us(c)": every
 * oversleep of the sleep would add up, the client would fall behind the
 * server faster than tick sync can steer, and its inputs would come late.
 *
 * A LOAD request of a client has state != NULL: the game loads those
 * state_size bytes (the server's state, as the server's game wrote them).
 * In arena mode tempo copies the state into the arena itself and hands out
 * no LOAD.
 *
 * Times are microseconds of the caller's monotonic clock; tempo reads no
 * clock. Not thread-safe: one thread drives a client.
 */
#ifndef TEMPO_CLIENT_H
#define TEMPO_CLIENT_H

#include "tempo/base.h"
#include "tempo/secure.h"
#include "tempo/config.h"
#include "tempo/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the client does with a snapshot. REPLAY is the real thing; the other
 * two exist to show why it is needed (tempo-sim --compare reconciliation,
 * the Pong demo's key). */
typedef enum tempo_reconcile_mode {
    /* Load the server's state at its tick and replay the kept inputs after
     * it: the local player sees its input at once and no snap-back. Default. */
    TEMPO_RECONCILE_REPLAY = 0,
    /* Predict, but take each snapshot's state as it is, without replay: the
     * local player snaps back by a round trip on every snapshot. */
    TEMPO_RECONCILE_NONE = 1,
    /* No prediction: show the server's newest state only (a "dumb"
     * client); the local player sees its input a round trip late. */
    TEMPO_RECONCILE_DUMB = 2
} tempo_reconcile_mode;

/* How far a corrected state is from what the client had predicted, for
 * the statistics: 0 for equal states, larger for worse corrections, in the
 * game's units (e.g. the distance a paddle jumped). Arena mode only. */
typedef double (*tempo_correction_fn)(void *ctx, const void *predicted, const void *corrected,
                                      size_t size);

typedef struct tempo_client_config {
    /* The server's num_players, input_size and frames_per_second (checked
     * in the handshake). Defaults 2, 4 and 60. */
    int num_players;
    int input_size;
    int frames_per_second;
    /* Player slots to ask for, 1..num_players and at most 8 (the
     * handshake's limit, TEMPO_MAX_PLAYERS); default 1. */
    int slots;
    tempo_reconcile_mode reconcile;
    /* Arena mode: tempo copies each snapshot into this block (arena_size
     * bytes, 1..TEMPO_CS_MAX_STATE, equal to the server's) and hands out no
     * LOAD. NULL: LOAD requests carry the state, at most max_state_size
     * bytes (1..TEMPO_CS_MAX_STATE, default 4096; ignored with an arena). */
    void *arena;
    size_t arena_size;
    size_t max_state_size;
    /* Arena mode: measures corrections (NULL: the number of bytes that
     * differ). */
    tempo_correction_fn correction;
    void *correction_ctx;
    /* Ticks of own input kept for replay, 8..128; default 64. The lead
     * never exceeds it: at this many ticks ahead of the newest snapshot the
     * client stalls instead of predicting further. */
    int input_history;
    /* Largest change of the tick length, 0..0.25 (fraction); default 0.05. */
    double max_dilation;
    /* Lead error, in ticks, beyond which the client jumps instead of
     * dilating, 2..64; default 8. */
    double snap_ticks;
    /* Bounds of the target margin (how early inputs should reach the
     * server), ticks: 0.25 <= min <= max <= 32; defaults 1 and 8. */
    double min_margin_ticks;
    double max_margin_ticks;
    /* Tag on every datagram: the server's. Default 0. */
    uint32_t session_id;
    /* The server's protocol id (a token must carry the same); default 0. */
    uint64_t protocol_id;
    /* A connect token from the game's backend (secure.h), all
     * TEMPO_TOKEN_SIZE bytes. Without one the client connects in the clear,
     * which only a server without a private key accepts. */
    bool has_token;
    uint8_t token[TEMPO_TOKEN_SIZE];
    /* Give up connecting after this long, 100..600000 ms; default 10000. */
    uint32_t handshake_timeout_ms;
    /* Silence of the server before the client gives up, 100..600000 ms;
     * default 5000. */
    uint32_t disconnect_timeout_ms;
    /* Seed of the client's draws (handshake nonce); 0 draws from the
     * system. Without a token the nonce is the client's id at the server:
     * give every client its own seed. */
    uint64_t random_seed;
    tempo_allocator allocator; /* both hooks set, or both NULL (malloc) */
    tempo_log_fn log;          /* NULL: no logging */
    void *log_ctx;
    tempo_log_level log_level; /* default TEMPO_LOG_WARN */
} tempo_client_config;

/* Fill cfg with the defaults above. */
TEMPO_API void tempo_client_config_default(tempo_client_config *cfg);

typedef struct tempo_client tempo_client;

/* Create a client of the server at `server` (with a token: one of the
 * token's servers), talking through `transport` (copied; its ctx must
 * outlive the client). It starts connecting at the first poll. Allocates
 * everything now. Errors: TEMPO_E_INVALID_ARG (NULL, a field out of
 * range), TEMPO_E_MALFORMED (a token that does not read),
 * TEMPO_E_UNSUPPORTED (a token in a build without libsodium),
 * TEMPO_E_NO_MEMORY. *out is NULL on error. */
TEMPO_API tempo_result tempo_client_create(const tempo_client_config *cfg,
                                           const tempo_transport *transport,
                                           const tempo_address *server, tempo_client **out);
/* Free the client and wipe its keys. NULL is allowed. Sends nothing: call
 * tempo_client_disconnect first to tell the server. */
TEMPO_API void tempo_client_destroy(tempo_client *c);

/* Receive what is waiting, run the handshake, take snapshots, send inputs
 * and acknowledgements. Errors: TEMPO_E_INVALID_ARG (NULL). */
TEMPO_API tempo_result tempo_client_poll(tempo_client *c, uint64_t now_us);

/* How long the coming tick should last, microseconds: 1e6 /
 * frames_per_second, dilated by tick sync. To pace a loop use
 * tempo_client_next_tick_at, which adds it to a running deadline. 0 for
 * NULL. */
TEMPO_API uint64_t tempo_client_tick_us(const tempo_client *c);

/* When the next tick is due, on the caller's clock (the times given to
 * tempo_client_poll): the time the previous tick was due plus the
 * tempo_client_tick_us of that tick, however late the loop ran it. Sleep
 * until then; if it has passed, run the next tick at once (a loop that
 * overslept catches up). Each tempo_client_advance moves it one tick on;
 * before the first advance it is the time of the last poll. A loop that
 * falls behind by snap_ticks ticks or more (a hitch, a suspended process)
 * is not asked to race through the backlog: the deadline starts again
 * from the last poll and tick sync jumps the lead instead. 0 for NULL. */
TEMPO_API uint64_t tempo_client_next_tick_at(const tempo_client *c);

/* The player slots the server gave this client (bit p: slot p); 0 until
 * connected. */
TEMPO_API uint64_t tempo_client_local_players(const tempo_client *c);

/* The input of local player `player` for the coming tick (`size` bytes,
 * which must be the config's input_size; copied), as
 * tempo_session_add_local_input takes it. A second call before the
 * advance replaces the first; a player with no input for a tick plays
 * zeros. An advance that steps no tick (a stall) keeps the input for the
 * next tick it steps. Errors: TEMPO_E_INVALID_ARG (c or input NULL, size
 * not input_size), TEMPO_E_PLAYER (not one of this client's slots),
 * TEMPO_E_STATE (not connected). */
TEMPO_API tempo_result tempo_client_add_local_input(tempo_client *c, int player,
                                                    const void *input, size_t size);

typedef enum tempo_client_state {
    TEMPO_CLIENT_CONNECTING = 0,
    TEMPO_CLIENT_CONNECTED = 1,    /* running ticks */
    TEMPO_CLIENT_DENIED = 2,       /* the server is full or refused the token */
    TEMPO_CLIENT_TIMED_OUT = 3,    /* no handshake in time, or the server fell silent */
    TEMPO_CLIENT_DISCONNECTED = 4  /* the server said goodbye or kicked us, or we left */
} tempo_client_state;

typedef struct tempo_client_tick {
    tempo_client_state state;
    const tempo_request *requests; /* valid until the next call on the client */
    int num_requests;
    int32_t frame;           /* the client's tick once the requests are carried out */
    int frames_advanced;     /* new ticks stepped: 0 (not connected, a stall), 1, or more after a jump */
    int resimulated;         /* ticks replayed after a snapshot */
    bool corrected;          /* a snapshot's state was put in place this tick */
} tempo_client_tick;

/* Plan the tick: the reconciliation of a new snapshot, if one came, then
 * the new tick's ADVANCE with the local inputs. Before the client is
 * connected the tick is empty. Errors: TEMPO_E_INVALID_ARG (NULL). */
TEMPO_API tempo_result tempo_client_advance(tempo_client *c, tempo_client_tick *tick);

/* Switch what the client does with snapshots from now on (a demo's
 * "reconciliation off" key): the next advance puts the newest snapshot in
 * place under the new mode. Errors: TEMPO_E_INVALID_ARG (NULL, a mode out
 * of range). */
TEMPO_API tempo_result tempo_client_set_reconcile(tempo_client *c, tempo_reconcile_mode mode);

/* Tell the server we leave (a few redundant goodbyes) and stop. Errors:
 * TEMPO_E_INVALID_ARG (NULL), TEMPO_E_STATE (not connected). */
TEMPO_API tempo_result tempo_client_disconnect(tempo_client *c);

typedef enum tempo_client_event_kind {
    TEMPO_CLIENT_EVENT_CONNECTED = 1,     /* admitted: slots */
    TEMPO_CLIENT_EVENT_DENIED = 2,        /* refused (full, or the token) */
    TEMPO_CLIENT_EVENT_TIMED_OUT = 3,     /* handshake or server silence */
    TEMPO_CLIENT_EVENT_DISCONNECTED = 4,  /* the server ended it */
    TEMPO_CLIENT_EVENT_SNAP = 5           /* tick sync jumped: ticks (+ ahead, - back) */
} tempo_client_event_kind;

typedef struct tempo_client_event {
    tempo_client_event_kind kind;
    uint64_t slots; /* CONNECTED: bit p, slot p */
    int ticks;      /* SNAP: the jump */
} tempo_client_event;

/* Take the oldest event: 1 and *ev filled, or 0 if none (or c or ev
 * NULL). The queue holds 64 events; when it is full, a new event drops the
 * oldest. */
TEMPO_API int tempo_client_poll_event(tempo_client *c, tempo_client_event *ev);

typedef struct tempo_client_stats {
    tempo_client_state state;
    int32_t frame;              /* the client's tick */
    int32_t server_frame;       /* the newest snapshot taken, -1 none: the state as a
                                   LOAD of this frame holds it, before the server's
                                   ADVANCE of this tick (after that of the tick before) */
    double lead_ticks;          /* frame minus the server's tick now (estimated) */
    double margin_ticks;        /* target earliness of inputs at the server */
    double earliness_ticks;     /* how early they arrive, as the server reports */
    double dilation;            /* current tick-length change, [-max, +max] */
    uint64_t snaps;             /* jumps of tick sync */
    /* The server's link: smoothed round trip (RFC 6298, from the acks every
     * message carries); RFC 3550's interarrival jitter of its snapshots,
     * its tick as their timestamp (not the round trip's deviation, which
     * tempo_endpoint_stats.jitter_ms is); its datagrams lost on the way. */
    double rtt_ms, jitter_ms, loss;
    uint64_t snapshots;         /* snapshots taken */
    uint64_t full_snapshots;    /* of which not delta-coded */
    uint64_t snapshots_dropped; /* stale, incomplete or without their baseline */
    uint64_t corrections;       /* snapshots whose state differed from the prediction */
    double correction_sum;      /* arena mode: sum of the correction measure */
    double correction_max;
    double correction_last;
    uint64_t resim_frames;      /* ticks replayed */
    uint64_t late_inputs;       /* ticks the server played one of our inputs late */
    uint64_t stall_ticks;       /* ticks not stepped (history full, a jump back) */
    uint64_t bytes_sent, bytes_received, packets_sent, packets_received;
    uint64_t dropped_malformed, dropped_unknown, dropped_session, dropped_forged, dropped_replay;
    uint64_t held_jumps;        /* datagrams far ahead of the server's sequence, held unused
                                   (docs/SECURITY.md 9.1) */
    bool unauthenticated;       /* no token: nothing is sealed */
} tempo_client_stats;

/* Errors: TEMPO_E_INVALID_ARG (NULL). */
TEMPO_API tempo_result tempo_client_get_stats(const tempo_client *c, tempo_client_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_CLIENT_H */
