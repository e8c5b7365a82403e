/* SPDX-License-Identifier: MIT */
/*
 * session.h — rollback sessions: the configuration, players, the tick and
 * its requests, events and statistics. tempo.h shows the loop a game runs.
 */
#ifndef TEMPO_SESSION_H
#define TEMPO_SESSION_H

#include "tempo/base.h"
#include "tempo/rng.h"
#include "tempo/transport.h"
#include "tempo/traversal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- configuration ---------------------------------------------------- */

typedef enum tempo_save_policy {
    /* Save every frame into a ring of max_prediction + 2 slots; a rollback
     * loads the first wrong frame. Most saves, shortest resimulation. */
    TEMPO_SAVE_EVERY_FRAME = 0,
    /* Save only confirmed frames (at most about one save per tick); a rollback
     * loads the newest confirmed frame and resimulates from there. Fewest
     * saves, longer resimulation: for games whose save is expensive. */
    TEMPO_SAVE_SPARSE = 1
} tempo_save_policy;

/* Input predictor hook. Fill out (input_size bytes) with the guess for
 * `player` at `frame`. last_input is the player's newest real input, from
 * last_frame (last_frame is -1 and last_input all zero if none arrived yet).
 * Must be deterministic: the same arguments give the same guess. */
typedef void (*tempo_predict_fn)(void *ctx, int player, int32_t frame,
                                 const uint8_t *last_input, int32_t last_frame,
                                 uint8_t *out, int input_size);

/* Names the field of the game's state at byte `offset` (tempo_config.
 * describe_state): write its name, NUL-terminated, into name (name_size
 * bytes, at least 1), e.g. "ships[2].x", and its first byte and size into
 * *field_offset and *field_size (field_offset <= offset < field_offset +
 * field_size). Return false if no field is there (padding, past the end).
 * Called from tempo_session_desync_diff_line only, with the session's
 * state of the diff unchanged. */
/* Largest tempo_config.desync_diff_max_bytes: a state and its message
 * header fill at most the 64 KiB a fragmented message carries. */
#define TEMPO_DESYNC_DIFF_MAX 65504u

typedef bool (*tempo_describe_state_fn)(void *ctx, size_t offset, char *name, size_t name_size,
                                        size_t *field_offset, size_t *field_size);

/* How a network session keeps peers in step (docs/TIMESYNC.md compares them). */
typedef enum tempo_timesync_method {
    /* INVERSUS: average both sides' frame lag over a window; when this
     * machine is ahead by more than stall_threshold frames, stall about half
     * the difference, spreading the stalls out so nobody notices. Default. */
    TEMPO_TIMESYNC_INVERSUS = 0,
    /* GGPO: 40-frame window; recommend (remote - local) / 2 stall frames when
     * that is at least 3, at most every 240 frames; stalls are consecutive. */
    TEMPO_TIMESYNC_GGPO = 1,
    /* Lead-based slowdown: rolling averages of this machine's lead over each
     * remote and of the lead it reports; stall one frame when ours exceeds
     * theirs by lead_tolerance, then cool down. */
    TEMPO_TIMESYNC_LEAD = 2,
    TEMPO_TIMESYNC_NONE = 3,
    /* INVERSUS as its article writes it, to compare tempo's version with:
     * both sides' lags summed with every message over a fixed window
     * (default 100 frames), the plain means subtracted at its end, half the
     * largest advantage over any peer stalled (round, at least one) when it
     * is stall_threshold or more (default 0.75); stalls spread out as in
     * INVERSUS above. docs/TIMESYNC.md measures both. */
    TEMPO_TIMESYNC_INVERSUS_ARTICLE = 4
} tempo_timesync_method;

typedef struct tempo_timesync_config {
    tempo_timesync_method method;  /* one of the five above; default TEMPO_TIMESYNC_INVERSUS */
    /* Averaging window, 1..256 frames; 0: the method's own (INVERSUS 40,
     * sliding; GGPO 40; LEAD 60; INVERSUS_ARTICLE 100, fixed).
     * docs/TIMESYNC.md shows why tempo's INVERSUS default is shorter. */
    int window_frames;
    /* INVERSUS: stall when ahead by more than this many frames;
     * INVERSUS_ARTICLE: by this many or more. 0..10; 0 (the default): the
     * method's own, 0.5 for INVERSUS, 0.75 for INVERSUS_ARTICLE (see
     * docs/TIMESYNC.md). */
    double stall_threshold;
    double lead_tolerance;         /* LEAD: frames, > 0, default 2.0 */
    int lead_cooldown_frames;      /* LEAD: frames after a stall before the next, >= 0, default 30 */
    /* Before the first frame, delay the start by how much later the other
     * peers will learn that everyone is ready (from the ping mesh), so the
     * match starts with almost no advantage to correct. Default true. */
    bool startup_delay;
} tempo_timesync_config;

#define TEMPO_MAX_AUTO_DELAY 8

/* What the automatic input delay's thresholds are compared with, per peer
 * (the worst peer counts). */
typedef enum tempo_delay_signal {
    /* INVERSUS's: half the round trip, in frames (the link's smoothed RTT
     * / 2 x frames_per_second / 1000), sampled every tick. Default. */
    TEMPO_DELAY_HALF_RTT = 0,
    /* The frame lag of each arriving input: its age in frames when first
     * simulated, counting both ends (from the sender's frame when it was
     * sampled to our current frame), about the one-way latency in frames
     * plus 1.5, so with the same thresholds it picks a larger delay. */
    TEMPO_DELAY_FRAME_LAG = 1
} tempo_delay_signal;

/* Automatic input delay: a state machine with hysteresis over the worst
 * peer's lag (`signal` above), averaged over window_frames. Delay k rises to
 * k + 1 when the lag reaches raise_at[k]; delay k + 1 falls to k when it drops
 * to lower_at[k]; it moves one step at a time, and only when two windows in
 * a row agree. The lag of a window is a trimmed mean (jitter bursts do not
 * move it). In lockstep (max_prediction 0) a frame cannot run before every
 * input is in, so the delay covers the whole lag (its ceiling, never less
 * than the worst round trip implies; raise max_frames for long links) and
 * neither the signal nor the thresholds are used.
 * The first value comes from the worst ping of the handshake, read as the
 * signal reads a round trip. Changes follow
 * tempo_session_set_input_delay's rule. */
typedef struct tempo_auto_delay_config {
    bool enabled;                  /* default false: delays stay as set */
    tempo_delay_signal signal;     /* either value above; default TEMPO_DELAY_HALF_RTT */
    /* 0..TEMPO_MAX_AUTO_DELAY, default 4; when enabled and max_prediction > 0,
     * at most max_prediction. */
    int max_frames;
    int window_frames;             /* >= 1, default 60 */
    /* Frame lags, for k below max_frames: lower_at[k] < raise_at[k] (the
     * hysteresis needs a gap). Defaults 2, 3, 6, 8 and 1, 2, 5, 7 (INVERSUS),
     * then steps of 2. */
    double raise_at[TEMPO_MAX_AUTO_DELAY];
    double lower_at[TEMPO_MAX_AUTO_DELAY];
} tempo_auto_delay_config;

typedef struct tempo_config {
    int num_players;    /* 1..TEMPO_MAX_PLAYERS */
    int input_size;     /* bytes per player per frame, 1..TEMPO_MAX_INPUT_SIZE */
    /* 0..TEMPO_MAX_PREDICTION frames, default 16; 0 = lockstep. The game
     * must afford max_prediction + 1 frames of simulation in one tick (a
     * rollback of the whole window) and max_prediction + 2 saved states.
     * 16 rides out a jitter spike or loss burst of about 150 ms on a
     * 75 ms link without waiting (docs/TIMESYNC.md); a game whose frame
     * is too costly for that lowers it and waits more on such links. */
    int max_prediction;
    tempo_save_policy save_policy; /* either value above; default TEMPO_SAVE_EVERY_FRAME */

    /* Arena mode: when arena is non-NULL, tempo keeps the game state itself.
     * The game keeps ALL of its simulation state in this one block; tempo
     * copies it on SAVE, restores it on LOAD and checksums it with
     * tempo_checksum, and tempo_session_next hands the game only ADVANCE
     * requests. The block must stay valid for the session's life.
     * arena_size: its size in bytes, > 0 with an arena and 0 without. */
    void *arena;
    size_t arena_size;

    tempo_predict_fn predict; /* NULL: repeat the last real input */
    void *predict_ctx;

    tempo_allocator allocator; /* both hooks set, or both NULL */
    tempo_log_fn log; /* NULL: no logging */
    void *log_ctx;
    tempo_log_level log_level; /* one of tempo_log_level; default TEMPO_LOG_WARN */

    /* Desync detection: every desync_interval frames, the checksum of that
     * confirmed frame is compared across peers. >= 0; 0 turns it off.
     * Default 60. */
    int desync_interval;
    /* Desync diffs (p2p sessions; see "desync diffs" below): when a check
     * frame's checksums differ, the two machines exchange their states of
     * that frame, up to this many bytes, and each raises
     * TEMPO_EVENT_DESYNC_DIFF with the byte ranges that differ.
     * 0..TEMPO_DESYNC_DIFF_MAX; 0 turns it off. Default 16384. Memory when
     * on: about 4 times this (arena mode: plus 4 copies of the arena when
     * arena_size fits) and 64 KiB for reassembly. */
    size_t desync_diff_max_bytes;
    /* Names fields in diffs (NULL: byte offsets only); describe_ctx is
     * passed back. */
    tempo_describe_state_fn describe_state;
    void *describe_ctx;

    /* The first frame: frame numbers start here, and the game's state when
     * the session is created (in arena mode, the arena's content) is the
     * state of start_frame. A game joining a match in progress creates its
     * session at the frame of the state it was given. 0..2^30 (2^30 frames
     * are 207 days at 60 Hz, leaving int32 headroom for frame arithmetic),
     * default 0. Network sessions take only 0 for now: their handshake does
     * not carry it. */
    int32_t start_frame;
    /* Frames the confirmed-input log keeps (see "the confirmed-input log"
     * below): a p2p host serves its spectators from it, so a spectator that
     * falls further behind is dropped. 64..1048576, default 1024 (17 s at
     * 60 Hz); memory: this many times num_players * (input_size + 1) bytes. */
    int input_log_frames;

    /* ---- network sessions (ignored by local and synctest sessions) ---- */
    /* Every machine of a match uses the same id; datagrams carrying another
     * are dropped. Pick it at matchmaking (nonzero). Default 1. */
    uint32_t session_id;
    /* Seeds the handshake nonces. Give a random value (e.g. from the OS) in
     * real matches; tests pass a fixed one to be reproducible. */
    uint64_t random_seed;
    /* Silence before an INTERRUPTED event: >= 1, default 500. */
    uint32_t disconnect_notify_ms;
    /* Silence before the endpoint is dropped: >= disconnect_notify_ms,
     * default 3000. */
    uint32_t disconnect_timeout_ms;
    /* How long the handshake with an endpoint may take, from the session's
     * first poll: an endpoint not synchronized by then raises
     * TEMPO_EVENT_HANDSHAKE_FAILED and is dropped (nothing more is sent to
     * it; its players are dropped as if it timed out). 0 (the default):
     * never, the game decides how long to wait (a matchmaker knows when
     * every machine should be up; a human starting the other machine may
     * take minutes). Otherwise 1000..3600000. */
    uint32_t handshake_timeout_ms;
    int max_spectators;             /* 0..TEMPO_MAX_SPECTATORS, default 32 */
    /* Rejoin (p2p sessions; docs/NETWORK.md "Rejoin"): how long after a
     * peer machine was dropped it may come back, in milliseconds, counted
     * from the drop. Its players stay DISCONNECTED from the agreed frame;
     * a fresh handshake from its address within the window revives its
     * link, and when it asks, the live peer hosting the lowest player sends
     * it a confirmed state (arena mode) and every peer takes its inputs
     * again from a frame the sender picks (TEMPO_EVENT_REJOINED). In a
     * keyed session the machine comes back under fresh pair keys (see
     * rejoin_epoch). A new process at a live peer's address (it restarted
     * before the timeout) is recognised and taken back the same way. And
     * this machine, if the others drop it (it was paused past the
     * timeout, cut off, or started into a match that runs without it),
     * says so (TEMPO_EVENT_DROPPED) and comes back by itself as with
     * `rejoin`. The buffers that needs (a 64 KiB reassembly slot, and
     * without an arena a 64 KiB state buffer) are made at create.
     * 0 (the default): off. Otherwise 1000..3600000. */
    uint32_t rejoin_window_ms;
    /* This machine comes into a running match instead of starting one
     * (its peers need rejoin_window_ms > 0). A p2p session
     * declares the same players and peers as before it was dropped; it
     * stays SYNCHRONIZING until the live peer hosting the lowest player
     * sent it a confirmed state, then fast-forwards (ADVANCEs flagged
     * resimulating, up to the frame the sender had reached) and its local
     * players play again from the rejoin frame (TEMPO_EVENT_REJOINED; the
     * game adds their inputs every tick as usual). A spectator session
     * (one its host declared from the start) joins late the same way: it
     * asks its host for a state and follows the confirmed stream from it.
     * Without an arena the game loads the state itself (the REJOIN_STATE
     * event, tempo_session_rejoin_state). Default false. */
    bool rejoin;
    /* With rejoin in a keyed session: this machine's key epoch, 1..255,
     * one it never used in this match before (1 at the first rejoin, 2 at
     * the next...; a machine keeps the count, or the matchmaker hands it
     * out). Its pair keys are derived anew for the epoch, so nothing it
     * seals reuses a nonce of its earlier life (docs/SECURITY.md, "Rejoin
     * and key epochs"). The peers try the 4 epochs above the one they know;
     * a peer that knows this machine at the epoch given refuses it and the
     * machine moves to the next one by itself (an older epoch than its
     * last gets no answer). Ignored otherwise; default 0. */
    uint32_t rejoin_epoch;
    /* Spectator side: frames kept in hand before playing (a jitter buffer),
     * 0..600, default 3; and most frames played in one tick to catch up,
     * 1..60, default 2 (bounded so a catching-up spectator still plays
     * smoothly). */
    int spectator_lead_frames;
    int spectator_catchup_frames;
    tempo_timesync_config timesync;
    tempo_auto_delay_config auto_delay;
    /* The simulation's frame rate, for turning milliseconds into frames
     * (time sync, automatic delay). 1..1000, default 60. */
    int frames_per_second;

    /* ---- sealing (p2p and spectator sessions; docs/SECURITY.md) ---- */
    /* With has_match_key set, every datagram of the session, the handshake
     * included, is authenticated and encrypted under keys derived from
     * match_key for each ordered pair of machines, and a datagram that
     * fails to open is dropped before it is decoded. The matchmaker makes
     * the key (tempo_key_generate) and gives the same one to every machine
     * of the match, spectators too. An all-zero key is refused
     * (TEMPO_E_INVALID_ARG: a key never filled in); a build without
     * libsodium refuses a keyed config with TEMPO_E_UNSUPPORTED. The
     * session keeps a copy and wipes it, and every key derived from it,
     * when the session is destroyed; the caller wipes its own.
     * Without a key (the default) nothing is sealed: the session logs one
     * warning at create and tempo_session_stats.unauthenticated is true. */
    bool has_match_key;
    uint8_t match_key[32];
    /* Spectator sessions with a match key: both ends must name the pair's
     * keys alike before the first datagram. spectator_number is this
     * spectator's number at its host, 0.. in the order the host called
     * tempo_session_add_spectator (0..TEMPO_MAX_SPECTATORS - 1);
     * spectator_host_player the lowest player the host machine hosts
     * (0..num_players - 1). Default 0; ignored otherwise. */
    int spectator_number;
    int spectator_host_player;
} tempo_config;

/* Fill cfg with defaults: 2 players, 4-byte input, max_prediction 16, every-
 * frame saving, no arena, default predictor, malloc, no log, desync checks
 * every 60 frames; network: session id 1, interrupted after 500 ms,
 * disconnected after 3000 ms, no handshake timeout, up to 32 spectators.
 * Override fields, then create a session. */
TEMPO_API void tempo_config_default(tempo_config *cfg);

/* ---- sessions --------------------------------------------------------- */

typedef struct tempo_session tempo_session;

/* Create a rollback session whose remote inputs the caller delivers with
 * tempo_session_add_remote_input: use it to run tempo over your own transport,
 * or to test a game against delayed inputs without a network.
 * On success *out owns the session; free it with tempo_session_destroy.
 * Errors: TEMPO_E_INVALID_ARG (a config field out of range, NULL pointer),
 * TEMPO_E_NO_MEMORY. */
TEMPO_API tempo_result tempo_session_create_local(const tempo_config *cfg, tempo_session **out);

/* Create a synctest session: every player is local (declared already:
 * tempo_session_add_local_player is accepted and changes nothing, input
 * delays may be set at once); each tick advances one
 * frame, then rolls back check_distance frames (1..max_prediction), resimulates
 * and compares each state's checksum with the one first computed. A mismatch
 * makes tempo_session_advance return TEMPO_E_DESYNC and fills the report of
 * tempo_session_synctest_report. Checksums come from the game's SAVE handling
 * or, in arena mode, from tempo. Errors as tempo_session_create_local. */
TEMPO_API tempo_result tempo_session_create_synctest(const tempo_config *cfg, int check_distance,
                                                     tempo_session **out);

/* Create a peer-to-peer rollback session that talks through `transport`
 * (copied; its ctx must outlive the session). Declare local players, remote
 * players at their machines' addresses (players sharing an address share a
 * machine) and spectators; the first tempo_session_poll starts the handshake
 * with every endpoint. Frames run once every peer is synchronized (ticks
 * before say TEMPO_TICK_SYNCHRONIZING). Local players of one machine send
 * their inputs together: the frames sent are those every local player has.
 * With cfg.rejoin the machine comes back into a running match (see
 * tempo_config.rejoin). Errors as tempo_session_create_local, and
 * TEMPO_E_INVALID_ARG for a NULL transport, a zero session id, a
 * start_frame other than 0, or rejoin with a rejoin_epoch above 255 or,
 * in a keyed session, 0. */
TEMPO_API tempo_result tempo_session_create_p2p(const tempo_config *cfg,
                                                const tempo_transport *transport,
                                                tempo_session **out);

/* Create a spectator session: it declares no players, receives every
 * player's confirmed inputs from the machine at `host` (which added this one
 * with tempo_session_add_spectator) and plays them spectator_lead_frames
 * behind, catching up at most spectator_catchup_frames per tick. It never
 * predicts and never rolls back. Errors as tempo_session_create_p2p. */
TEMPO_API tempo_result tempo_session_create_spectator(const tempo_config *cfg,
                                                      const tempo_transport *transport,
                                                      const tempo_address *host,
                                                      tempo_session **out);

/* Free the session and everything it owns. NULL is allowed. Network
 * sessions send nothing more: call tempo_session_leave first to tell peers. */
TEMPO_API void tempo_session_destroy(tempo_session *s);

/* ---- players ---------------------------------------------------------- */

/* Players are numbered 0..num_players-1 and are declared before the first
 * tick (for network sessions, before the first poll). A local player's input
 * is given by this game; a remote player's input arrives from elsewhere.
 * An empty slot (tempo_session_add_empty_slot) or a dropped player's slot
 * takes a player at any time instead: see "players joining a running match"
 * below, which adds TEMPO_E_FRAME and TEMPO_E_UNSUPPORTED cases.
 * Errors: TEMPO_E_INVALID_ARG (s is NULL), TEMPO_E_PLAYER (out of range),
 * TEMPO_E_ALREADY (declared before, also once play started),
 * TEMPO_E_STATE (an undeclared player once play started),
 * TEMPO_E_UNSUPPORTED (a spectator session). A synctest session declares
 * every player local itself and answers TEMPO_OK. */
TEMPO_API tempo_result tempo_session_add_local_player(tempo_session *s, int player);
/* addr: where the player's machine is, for network sessions (copied); NULL
 * for a local session, whose caller delivers the inputs. Errors as above,
 * and TEMPO_E_INVALID_ARG if addr is NULL or of family NONE in a network
 * session, TEMPO_E_ALREADY if addr is a spectator's, TEMPO_E_UNSUPPORTED in
 * synctest and spectator sessions. */
TEMPO_API tempo_result tempo_session_add_remote_player(tempo_session *s, int player,
                                                       const tempo_address *addr);

/* Let the spectator at addr (copied) watch (p2p sessions, before the first
 * poll). A spectator that falls more than input_log_frames behind, or
 * goes silent, is dropped without slowing the match. Errors: TEMPO_E_FULL
 * (max_spectators reached), TEMPO_E_ALREADY (addr already in the match),
 * TEMPO_E_UNSUPPORTED (not a p2p session), TEMPO_E_STATE (after the first
 * poll), TEMPO_E_INVALID_ARG (s or addr NULL, addr of family NONE). */
TEMPO_API tempo_result tempo_session_add_spectator(tempo_session *s, const tempo_address *addr);

/* Input delay of a local player: input given at a tick applies `frames`
 * frames later. 0..max_prediction (a lockstep session, max_prediction 0,
 * accepts 0..TEMPO_MAX_PREDICTION). Callable at any time, including before
 * the first tick; the change never leaves a frame without input, never uses
 * an input twice and never drops one:
 *   - an increase by k makes the next k ticks stall (status STALLED, no
 *     ADVANCE) while the player's queue fills; their inputs are taken, one
 *     per tick. A delay k from the start works the same way: the first k
 *     ticks stall, and frames 0..k-1 get the inputs of those ticks;
 *   - a decrease by k leaves k inputs more queued than the delay needs: the
 *     next tick runs k + 1 frames at once, or, when the prediction window or
 *     another local player's queue allows fewer, the extra frames run over
 *     the next ticks, every queued input in order.
 * Other local players' inputs given during such a stall are not taken
 * (tempo_tick.inputs_taken says so).
 * Errors: TEMPO_E_INVALID_ARG (s NULL, frames out of range),
 * TEMPO_E_PLAYER (not a local player). */
TEMPO_API tempo_result tempo_session_set_input_delay(tempo_session *s, int player, int frames);
/* The delay in effect for a local player, or a negative tempo_result:
 * TEMPO_E_INVALID_ARG (s NULL), TEMPO_E_PLAYER (not a local player). */
TEMPO_API int tempo_session_input_delay(const tempo_session *s, int player);

/* ---- the tick --------------------------------------------------------- */

/* Give the session the current time (microseconds, any origin). Network
 * sessions receive what is waiting, run their timers, then send; a local
 * session only records the time. Call it every tick.
 * Pass a monotonic clock (CLOCK_MONOTONIC, QueryPerformanceCounter,
 * mach_absolute_time), never the wall clock. The session keeps its own
 * clock from the steps between polls, so that a clock that misbehaves ends
 * no match that the network carried:
 *   - a step forward longer than disconnect_notify_ms (the machine slept, a
 *     debugger stopped it, a load held the loop) counts as this machine's
 *     own pause: one frame of time passes, the datagrams that waited are
 *     heard first, and the pause adds nothing to the silence of a peer
 *     heard within disconnect_notify_ms after it (one nothing came from
 *     was silent through the pause too: the pause is added to its
 *     silence); round trips begun before it are not measured. If the
 *     machine really stopped, the others saw the silence: if it outlasted
 *     their disconnect_timeout_ms, they dropped this machine, and it
 *     learns so (TEMPO_EVENT_DROPPED) when they refuse it or when their
 *     silence reaches its timeout;
 *   - a step back counts as no time passing: the poll does its usual work
 *     and later steps are measured from the new value;
 * both are counted in tempo_session_stats.clock_jumps. Polls further apart
 * than disconnect_notify_ms thus slow every network timer down.
 * Errors: TEMPO_E_INVALID_ARG (s is NULL), TEMPO_E_STATE (a network
 * session with a player not declared). */
TEMPO_API tempo_result tempo_session_poll(tempo_session *s, uint64_t now_us);

/* After tempo_session_poll: true if the coming tempo_session_advance will be
 * a time-sync stall: no frame runs and no input is taken, so the game need
 * not sample input for it (an input given is dropped, and the tick says it
 * was not taken). False for stalls that fill a grown input delay: those
 * take input. False for a NULL session. */
TEMPO_API bool tempo_session_will_stall(const tempo_session *s);

/* Give this tick's input of a local player (size must equal input_size; the
 * bytes are copied). Call once per local player per tick, before
 * tempo_session_advance; a second call in the same tick replaces the first.
 * The next tempo_session_advance either takes the input or drops it, and
 * says which in tempo_tick.inputs_taken and tempo_tick.input_frame, so a
 * game can keep a short press for the next tick. One rule for every tick:
 *   - a tick that runs at least one new frame (ADVANCED) takes it, except
 *     the first such tick after a wait that took one (below): that tick
 *     plays the input taken during the wait and drops its own;
 *   - a tick that runs no frame (time-sync stall, WAITING, NEEDS_INPUT,
 *     SYNCHRONIZING) does not take it, with two exceptions: a player whose
 *     queue is shorter than its input delay (the delay grew, or the match
 *     starts with one) has its input taken while the queue fills; and the
 *     first WAITING tick of a wait takes the input of a player whose queue
 *     reaches no further than its delay, and sends it at once, because the
 *     other machines may be waiting for exactly that input (in lockstep,
 *     max_prediction 0, they always are);
 *   - a taken input lands on the frame after the player's previous one, so
 *     every frame of a local player gets exactly one input the game gave, in
 *     the order given.
 * A local player without input at advance time holds the session, unless
 * its queue already holds the frames to run: the tick yields no ADVANCE
 * (status TEMPO_TICK_NEEDS_INPUT).
 * Errors: TEMPO_E_INVALID_ARG (s or input NULL, size wrong),
 * TEMPO_E_PLAYER (not a local player). */
TEMPO_API tempo_result tempo_session_add_local_input(tempo_session *s, int player,
                                                     const void *input, size_t size);

/* Give a remote player's real input for one frame, for local sessions (with
 * network sessions the transport delivers them; calling this is
 * TEMPO_E_UNSUPPORTED). Inputs may come late, in bursts and out of order; a
 * repeat of a known frame is ignored. If the frame was already simulated with
 * a different prediction, the next advance rolls back to it.
 * Errors: TEMPO_E_PLAYER (not remote), TEMPO_E_FRAME (negative, older than
 * the history kept below the confirmed frame, or too far ahead to hold;
 * frames up to 3 * max_prediction + 192 past the current frame are always
 * held), TEMPO_E_INVALID_ARG (size, NULL). */
TEMPO_API tempo_result tempo_session_add_remote_input(tempo_session *s, int player, int32_t frame,
                                                      const void *input, size_t size);

typedef enum tempo_request_kind {
    TEMPO_REQUEST_SAVE = 1,
    TEMPO_REQUEST_LOAD = 2,
    TEMPO_REQUEST_ADVANCE = 3
} tempo_request_kind;

/* What the game used for a player's input in an ADVANCE. CONFIRMED and
 * PREDICTED are for presentation only (say, a "lagging" icon): the simulation
 * must play them the same, because a guess that proves right is never
 * resimulated. DISCONNECTED may change the simulation (remove the player). */
typedef enum tempo_input_status {
    TEMPO_INPUT_CONFIRMED = 0,   /* the player's real input */
    TEMPO_INPUT_PREDICTED = 1,   /* a guess; a rollback corrects it if wrong */
    TEMPO_INPUT_DISCONNECTED = 2 /* the player has left; input is all zero */
} tempo_input_status;

typedef struct tempo_request {
    tempo_request_kind kind;
    int32_t frame; /* SAVE/LOAD: the state's frame; ADVANCE: the frame stepped */
    /* SAVE/LOAD: where to keep the state, 0..tempo_session_save_slots()-1.
     * A LOAD names a slot that a SAVE of the same frame filled. */
    int slot;
    /* SAVE: write the checksum of the saved state here (or leave 0 if you do
     * not checksum; desync detection and synctest then see nothing). */
    uint64_t *checksum;
    /* ADVANCE: num_players * input_size bytes, player 0's input first. */
    const uint8_t *inputs;
    /* ADVANCE: num_players entries of tempo_input_status. */
    const uint8_t *status;
    /* ADVANCE: true when this frame is being resimulated by a rollback (mute
     * one-shot effects such as sounds that already played). */
    bool resimulating;
    /* LOAD from outside (a client-server client, client.h): state_size bytes
     * of state to load as the state of `frame`, owned by tempo and valid
     * until the next call on it; slot is -1. NULL for every other request. */
    const uint8_t *state;
    size_t state_size;
} tempo_request;

typedef enum tempo_tick_status {
    TEMPO_TICK_ADVANCED = 0,       /* one or more new frames */
    TEMPO_TICK_STALLED = 1,        /* no new frame: time sync or input delay growing */
    TEMPO_TICK_WAITING = 2,        /* no new frame: prediction window full (see waiting_for) */
    TEMPO_TICK_NEEDS_INPUT = 3,    /* no new frame: a local player gave no input */
    TEMPO_TICK_SYNCHRONIZING = 4   /* no new frame: handshake not finished */
} tempo_tick_status;

/* A frame number that names no frame (tempo_tick.input_frame). */
#define TEMPO_FRAME_NONE (-1)

typedef struct tempo_tick {
    tempo_tick_status status;
    /* The ordered requests of this tick, owned by the session, valid until
     * the next tempo_session_advance. In arena mode they include the SAVE and
     * LOAD that tempo carries out itself: iterate with tempo_session_next. */
    const tempo_request *requests;
    int num_requests;
    int frames_advanced;  /* new frames this tick (0 on a stall or wait) */
    int rollback_depth;   /* frames resimulated to correct a prediction, 0 if none */
    uint32_t waiting_for; /* WAITING: bit p set if player p's input is awaited */
    int32_t frame;        /* the current frame once the requests are carried out */
    /* What became of each local player's input given for this tick (see
     * tempo_session_add_local_input): bit p set if it was taken, and then
     * input_frame[p] is the frame it applies at (it is in this tick's
     * ADVANCE of that frame, or in a later tick's when input delay holds it
     * back). A local player's input that was given but not taken was
     * dropped; input_frame[p] is TEMPO_FRAME_NONE for it and for every
     * player who is not local or gave nothing. */
    uint32_t inputs_taken;
    int32_t input_frame[TEMPO_MAX_PLAYERS];
} tempo_tick;

/* Plan this tick: apply corrections that arrived (rollback), take or drop
 * the local inputs given since the last call, then advance. Fills *tick; the
 * requests stay valid until the next call. Every request of the previous
 * tick must have been carried out before this call.
 * Errors: TEMPO_E_INVALID_ARG (s or tick NULL; *tick untouched);
 * TEMPO_E_STATE (a player is undeclared, the session left the match, or in
 * arena mode the previous tick's requests were not all taken with
 * tempo_session_next): the call changes nothing, inputs given stay held,
 * and *tick says nothing ran (no request, no input taken, status STALLED);
 * TEMPO_E_DESYNC from a synctest session that found a mismatch in the
 * requests of the previous tick (see tempo_session_synctest_report; the
 * session stays usable): *tick says nothing ran and the inputs given were
 * not taken. */
TEMPO_API tempo_result tempo_session_advance(tempo_session *s, tempo_tick *tick);

/* Hand out the next request of this tick: returns 1 and sets *req, or 0 when
 * the tick's requests are all handed out. In arena mode SAVE and LOAD are
 * carried out here by tempo, so only ADVANCE requests come out; arena mode
 * games must iterate with this function. *req is valid until the next
 * tempo_session_advance. Errors: TEMPO_E_INVALID_ARG (s or req NULL). */
TEMPO_API int tempo_session_next(tempo_session *s, const tempo_request **req);

/* ---- state of the session ---------------------------------------------- */

/* The current frame: the next frame to simulate (state `frame` is current).
 * TEMPO_E_INVALID_ARG if s is NULL. */
TEMPO_API int32_t tempo_session_frame(const tempo_session *s);
/* The confirmed frame count: every frame below it has every player's real
 * input (or is disconnected) and will never be rolled back. At most the
 * current frame. TEMPO_E_INVALID_ARG if s is NULL. */
TEMPO_API int32_t tempo_session_confirmed_frame(const tempo_session *s);
/* How many SAVE slots the game needs (slot numbers are below this).
 * TEMPO_E_INVALID_ARG if s is NULL. */
TEMPO_API int tempo_session_save_slots(const tempo_session *s);

/* What a session is doing, as a game would show it to its players. Each
 * state is a fact about the calls made so far:
 *   - SYNCHRONIZING: a network session that runs no frame yet, from its
 *     creation until every peer (for a spectator: its host) has finished the
 *     handshake and the start-up delay has passed, that is until
 *     TEMPO_EVENT_RUNNING; tempo_session_advance answers
 *     TEMPO_TICK_SYNCHRONIZING meanwhile. Local and synctest sessions are
 *     never in it.
 *   - RUNNING: frames run when advanced: no tempo_session_advance was made
 *     since the match started running, or the last one that succeeded
 *     returned any status but TEMPO_TICK_WAITING (a stall or a tick that
 *     needs input is the game's normal pace, not a wait).
 *   - WAITING: the last tempo_session_advance that succeeded returned
 *     TEMPO_TICK_WAITING: no frame could run for want of remote input (the
 *     prediction window is full; a spectator has no confirmed frame to
 *     play). The next advance that returns another status ends it.
 *   - ENDED: a network session that has nobody left to play with: it left
 *     the match (tempo_session_leave; advance then fails with
 *     TEMPO_E_STATE), or every peer it had (a spectator: its host) was
 *     dropped, so nothing more will arrive from the network. Frames may
 *     still run: a dropped player's input is DISCONNECTED. A p2p session
 *     without remote players ends only by leaving. Nothing leaves ENDED. */
typedef enum tempo_session_state {
    TEMPO_SESSION_SYNCHRONIZING = 1,
    TEMPO_SESSION_RUNNING = 2,
    TEMPO_SESSION_WAITING = 3,
    TEMPO_SESSION_ENDED = 4
} tempo_session_state;

/* The session's state (see tempo_session_state) into *out.
 * Errors: TEMPO_E_INVALID_ARG (s or out NULL). */
TEMPO_API tempo_result tempo_session_get_state(const tempo_session *s, tempo_session_state *out);

/* Mark a remote player disconnected: from the first frame whose input has
 * not arrived, the player's input is zero with status DISCONNECTED. In a p2p
 * session the peers first agree on that frame; TEMPO_EVENT_DISCONNECTED
 * follows. Errors: TEMPO_E_INVALID_ARG (s NULL), TEMPO_E_PLAYER (local, out
 * of range, or a spectator session), TEMPO_E_ALREADY (already dropped or
 * being dropped). */
TEMPO_API tempo_result tempo_session_disconnect_player(tempo_session *s, int player);

/* Leave the match: tell every endpoint that this machine's players are gone
 * (sending first any inputs of a dropped player only we hold). The message
 * goes now and again on the next two polls (datagrams get lost: keep polling
 * a few ticks before destroying the session). The session then stops
 * ticking (TEMPO_E_STATE). Errors: TEMPO_E_INVALID_ARG (s NULL),
 * TEMPO_E_UNSUPPORTED (not a network session), TEMPO_E_STATE (already
 * left). */
TEMPO_API tempo_result tempo_session_leave(tempo_session *s);

/* ---- events ------------------------------------------------------------ */

typedef enum tempo_event_kind {
    TEMPO_EVENT_CONNECTED = 1,      /* first answer from an endpoint */
    TEMPO_EVENT_SYNCHRONIZING,      /* handshake progress: u.sync */
    TEMPO_EVENT_SYNCHRONIZED,       /* handshake with an endpoint done */
    TEMPO_EVENT_RUNNING,            /* every endpoint synchronized; frames start */
    TEMPO_EVENT_INTERRUPTED,        /* an endpoint went silent: u.interrupted */
    TEMPO_EVENT_RESUMED,            /* it spoke again */
    TEMPO_EVENT_DISCONNECTED,       /* a player left: u.disconnected */
    TEMPO_EVENT_DESYNC,             /* checksums differ: u.desync */
    TEMPO_EVENT_WAITING,            /* prediction window full: u.waiting */
    TEMPO_EVENT_WAITING_OVER,       /* frames run again */
    TEMPO_EVENT_TIMESYNC,           /* time sync decided to stall: u.timesync */
    TEMPO_EVENT_INPUT_DELAY,        /* automatic input delay set (at the start) or changed: u.input_delay */
    TEMPO_EVENT_HANDSHAKE_FAILED,   /* an endpoint did not synchronize within
                                       handshake_timeout_ms: it is dropped */
    TEMPO_EVENT_DESYNC_DIFF,        /* two states of a desync frame compared: u.diff */
    TEMPO_EVENT_REJOINED,           /* a dropped machine's players play again: u.rejoined */
    TEMPO_EVENT_REJOIN_STATE,       /* without an arena: a state to give or to load: u.rejoin_state */
    TEMPO_EVENT_DROPPED,            /* the others dropped this machine: u.dropped */
    TEMPO_EVENT_AUTH_FAILED         /* datagrams from an endpoint's address do not
                                       authenticate: u.auth_failed */
} tempo_event_kind;

/* How a machine learned that the others dropped it (u.dropped.reason). */
typedef enum tempo_dropped_reason {
    /* A peer refused it: its traffic reached a peer that had dropped this
     * machine, or its handshake reached a match that runs without it. */
    TEMPO_DROPPED_REFUSED = 1,
    /* Every peer was lost after this machine's own pause (a leap of the
     * time it polls with: a stopped process, a debugger), and none was
     * heard since: they timed it out while it was away. */
    TEMPO_DROPPED_PAUSED = 2,
    /* Two or more peers were lost by silence at once (within
     * disconnect_notify_ms of each other): this machine's network went. */
    TEMPO_DROPPED_CUT_OFF = 3
} tempo_dropped_reason;

/* What failed to authenticate (u.auth_failed.kind). */
typedef enum tempo_auth_failure {
    TEMPO_AUTH_FORGED = 1, /* sealed datagrams whose tag does not verify: another match key,
                              a machine whose keys are another key epoch's, or forgeries */
    TEMPO_AUTH_PLAIN = 2,  /* plain datagrams at a session with a match key: it has none */
    TEMPO_AUTH_SEALED = 3  /* sealed datagrams at a session without a match key: it has one */
} tempo_auth_failure;

/* One run of bytes that differ between two states. */
typedef struct tempo_diff_range {
    uint32_t offset;
    uint32_t length;
} tempo_diff_range;

/* Ranges a DESYNC_DIFF event carries inline (all: tempo_session_desync_diff). */
#define TEMPO_DIFF_INLINE_RANGES 4

/* What became of a desync diff (tempo_event.u.diff.status). */
typedef enum tempo_diff_status {
    TEMPO_DIFF_DONE = 0,      /* both states compared: the ranges say where they differ */
    TEMPO_DIFF_TOO_LARGE = 1, /* a state exceeds desync_diff_max_bytes (ours, or the
                                 peer's by its word): nothing was sent */
    TEMPO_DIFF_NO_STATE = 2   /* our state of the frame was no longer held (arena mode) */
} tempo_diff_status;

typedef struct tempo_event {
    tempo_event_kind kind;
    int player; /* the player concerned, or -1 (spectator or whole session) */
    union {
        struct { int done, total; } sync;
        struct { uint32_t disconnect_in_ms; } interrupted;
        /* DISCONNECTED of a player: the first frame whose input is
         * DISCONNECTED, raised when that frame is final (agreed by the
         * peers). Of a spectator (player -1): this session's frame when the
         * spectator was dropped. */
        struct { int32_t frame; } disconnected;
        /* DESYNC: state_wanted is true in a session without an arena and
         * with desync_diff_max_bytes > 0: the game answers with
         * tempo_session_provide_state for that frame. */
        struct { int32_t frame; uint64_t local, remote; bool state_wanted; } desync;
        /* DESYNC_DIFF, player: the first player of the peer compared with.
         * num_ranges counts every differing range (0 with a status other
         * than DONE); the first min(num_ranges, TEMPO_DIFF_INLINE_RANGES)
         * are in ranges. */
        struct {
            int32_t frame;
            tempo_diff_status status;
            int num_ranges;
            tempo_diff_range ranges[TEMPO_DIFF_INLINE_RANGES];
        } diff;
        struct { uint32_t players; } waiting; /* bit p: waiting for player p */
        struct { int stall_frames; } timesync;
        struct { int frames; } input_delay;
        /* REJOINED: `player` (the machine's first) has real inputs again
         * from `frame`; before it, DISCONNECTED. Raised on every machine,
         * the rejoining one included. */
        struct { int32_t frame; } rejoined;
        /* REJOIN_STATE, only without an arena. wanted: a machine (`player`,
         * its first) comes back and this one sends it the state of
         * confirmed frame `frame`, the one the game saved into `slot`: give
         * it with tempo_session_provide_state before the next advance.
         * Otherwise (player -1): this machine is the one coming back and the
         * state of `frame` (size bytes) came: load it from
         * tempo_session_rejoin_state before the next advance. */
        struct { int32_t frame; size_t size; int slot; bool wanted; } rejoin_state;
        /* DROPPED (player -1): the other machines dropped this one (reason
         * says how it knows), so what it ran alone and runs from `frame`
         * (its frame then) is not the match. Raised once per drop.
         * rejoining: it comes back by itself (this session has
         * rejoin_window_ms > 0; keyed, at key epoch `epoch`, the one above
         * its own, which the others know it at): it is SYNCHRONIZING until a peer sent it a
         * state, then TEMPO_EVENT_REJOINED, as with cfg.rejoin. Otherwise
         * the session is ENDED: its frames are its own. */
        struct {
            int32_t frame;
            tempo_dropped_reason reason;
            bool rejoining;
            uint32_t epoch;
        } dropped;
        /* AUTH_FAILED: datagrams from `address`, the machine of `player`
         * (-1: a spectator, or a spectator session's host), failed to
         * authenticate: `datagrams` of them since the last such event
         * about it (tempo_endpoint_stats.auth_failures counts all). Raised
         * at the first and then at most every 5 s while more come; not
         * while this machine comes back into a match and its handshake
         * with that one is unfinished (its earlier life's traffic fails
         * under the new keys) for the first disconnect_timeout_ms. */
        struct {
            tempo_address address;
            uint64_t datagrams;
            tempo_auth_failure kind;
        } auth_failed;
    } u;
} tempo_event;

/* Take the oldest pending event: returns 1 and fills *ev, or 0 if none.
 * The queue holds 64 events; when full, the oldest are dropped (counted in
 * tempo_session_stats.events_dropped). Errors: TEMPO_E_INVALID_ARG (s or ev
 * NULL). */
TEMPO_API int tempo_session_poll_event(tempo_session *s, tempo_event *ev);

/* ---- statistics -------------------------------------------------------- */

typedef struct tempo_session_stats {
    int32_t frame;             /* current frame */
    int32_t confirmed_frame;   /* see tempo_session_confirmed_frame */
    uint64_t ticks;            /* tempo_session_advance calls */
    uint64_t frames_advanced;  /* new frames (not resimulated) */
    uint64_t rollbacks;        /* ticks that rolled back */
    uint64_t resim_frames;     /* frames resimulated by rollbacks */
    int max_rollback_depth;    /* deepest correction */
    uint64_t rollback_depth_sum; /* sum of depths: mean = sum / rollbacks */
    uint64_t mispredicted_frames; /* (player, frame) pairs whose last guess, when the
                                     real input came, was wrong */
    uint64_t saves, loads;     /* SAVE and LOAD requests */
    uint64_t stall_ticks;      /* ticks stalled by time sync or delay changes */
    uint64_t waiting_ticks;    /* ticks waiting with a full prediction window */
    uint64_t events_dropped;   /* events lost to a full queue */
    /* network sessions */
    uint64_t desync_checks;    /* checksums compared with a peer's */
    uint64_t desyncs;          /* frames whose checksums differed */
    uint64_t dropped_malformed;   /* datagrams that failed to decode */
    uint64_t dropped_unknown;     /* datagrams from addresses not in the match */
    uint64_t dropped_session;     /* datagrams carrying another session id */
    uint64_t send_errors;         /* transport sends that failed */
    /* time sync */
    uint64_t timesync_stalls;  /* ticks stalled by time sync (part of stall_ticks) */
    double frame_advantage;    /* frames this machine runs ahead of the peer furthest
                                  behind, as estimated (the largest over peers) */
    int input_delay;           /* current delay of the local players (the largest) */
    uint32_t startup_delay_ms; /* how long the start was held back */
    uint64_t clock_jumps;      /* polls whose time went back or leapt forward (see
                                  tempo_session_poll) */
    /* desync checks, continued. Each check frame gives one comparison with
     * every peer (a spectator: with its host); desync_checks counts those
     * made, this those that became impossible: the peer's checksum came
     * after ours had left the log of the last 256 (or was never computed
     * here), ours left it before the peer's came, or the peer was dropped
     * while owing or holding one (docs/NETWORK.md, "Desync checks"). */
    uint64_t desync_checks_missed;
    uint64_t checksums_ignored; /* CHECKSUMs no honest peer sends (a frame that is no
                                   check frame or lies beyond what we can hold, an ack
                                   of a frame we never sent): that part is ignored */
    uint64_t dropped_replay;    /* datagrams already received, or too far behind the
                                   newest to tell (the replay window): not decoded */
    /* Sealing (tempo_config.has_match_key). dropped_forged counts datagrams
     * refused before decoding because they did not authenticate: a tag that
     * does not verify under the sender's key (altered, another key, another
     * pair, a sequence recovered wrongly), or a plain datagram at a keyed
     * session. unauthenticated is true for a network session without a
     * match key: anyone on the path can read and forge its datagrams. */
    uint64_t dropped_forged;
    bool unauthenticated;
    /* What a peer claimed that it cannot know (docs/SECURITY.md, "Lying
     * participants"); the claim is ignored, the rest of its datagram used.
     * acks_ignored: acks of inputs past every frame we hold to send (INPUT
     * from a peer, INPUT_ACK from a spectator; a CHECKSUM's ack of a frame
     * never sent counts in checksums_ignored). claims_ignored: datagrams
     * saying a player is dropped whose machine we have not lost ourselves
     * (heard within disconnect_timeout_ms), unless that machine accuses the
     * sender back and its lowest player is higher (or one of our own
     * players). pongs_ignored: PONGs answering no ping outstanding. */
    uint64_t acks_ignored;
    uint64_t claims_ignored;
    uint64_t pongs_ignored;
    /* Desync diffs. diffs: DESYNC_DIFF events raised. diffs_skipped:
     * desyncs not diffed (another diff in flight, or our state no longer
     * held). diffs_ignored: states a peer sent that were not used (a frame
     * with no desync with it, a repeat, above desync_diff_max_bytes, a
     * fragment while another peer's state is being reassembled, or diffs
     * off here). */
    uint64_t diffs;
    uint64_t diffs_skipped;
    uint64_t diffs_ignored;
    /* Rejoin and late join (tempo_config.rejoin). rejoins: machines that
     * came back (REJOINED events about a remote machine). rejoins_refused:
     * handshakes from a dropped machine not taken (window over or off; in
     * a keyed session, keys of no newer epoch open it), and rejoin
     * messages not used (a state not asked for or from another peer, a
     * request from a machine not dropped, a rejoin frame about a player
     * who never left or already confirmed here). rejoin_states_sent:
     * states sent to rejoining machines and late spectators. On the
     * machine that came back, rejoin_frames_fast_forwarded: the frames it
     * ran in the ticks after the state came, up to the first tick that ran
     * one frame or none (it had caught up). */
    uint64_t rejoins;
    uint64_t rejoins_refused;
    uint64_t rejoin_states_sent;
    uint64_t rejoin_frames_fast_forwarded;
    /* Restarts (rejoin_window_ms > 0; docs/NETWORK.md, "A process that
     * restarts"). restarts: new processes recognised at a live peer's
     * address, which proved it by answering our probes while the earlier
     * process stayed silent: the earlier one was dropped at once.
     * restarts_unproven: handshakes that looked like a new process's but
     * never proved it within disconnect_timeout_ms (forged, replayed, or
     * the earlier process kept sending). refusals_sent: REJOIN_REFUSED
     * sent to machines dropped here that still spoke as if in the match.
     * dropped_early: datagrams other than the handshake (a leave and a
     * refusal excepted) from a machine whose handshake with this one is
     * not finished: not used (a peer still talking to this machine's
     * earlier life, or one that finished its side first). */
    uint64_t restarts;
    uint64_t restarts_unproven;
    uint64_t refusals_sent;
    uint64_t dropped_early;
} tempo_session_stats;

/* What one remote endpoint (a peer machine or a spectator) looks like from
 * here. Times in milliseconds; rates over the last second or so. */
typedef struct tempo_endpoint_stats {
    bool synchronized;        /* handshake done */
    bool interrupted;         /* silent for disconnect_notify_ms */
    bool disconnected;        /* dropped */
    uint32_t players;         /* bit p: it hosts player p (0 for a spectator) */
    double rtt_ms;            /* smoothed round trip (RFC 6298 style) */
    double jitter_ms;         /* smoothed deviation of the round trip */
    double loss;              /* fraction of its datagrams that never arrived */
    uint64_t packets_sent, packets_received;
    uint64_t bytes_sent, bytes_received;        /* UDP payload bytes */
    double send_bytes_per_s;  /* payload bytes per second we send it, recent */
    int32_t local_frame_lag;  /* frames of its input we are predicting now */
    int32_t remote_frame_lag; /* frames of ours it was predicting, as it last said */
    int32_t acked_frame;      /* next frame of ours it asked for */
    uint64_t held_jumps;      /* datagrams "from" it far ahead of its sequence, held unused
                                 (docs/SECURITY.md 9.1) */
    /* Datagrams from its address that failed to authenticate (another
     * match key, a key on one side only, forgeries): see
     * TEMPO_EVENT_AUTH_FAILED. Part of stats.dropped_forged, except sealed
     * ones at a session without a key, which count in dropped_malformed. */
    uint64_t auth_failures;
    /* With a traversal (tempo_session_set_traversal): the path to it now
     * and the last probe round trip of each path, 0 when not measured;
     * TEMPO_PATH_NONE and zeros without one (docs/NAT.md). */
    tempo_path path;
    double rtt_direct_ms, rtt_relay_ms;
} tempo_endpoint_stats;

/* Stats of the endpoint hosting remote player `player`.
 * Errors: TEMPO_E_INVALID_ARG (s or out NULL), TEMPO_E_PLAYER (not a remote player),
 * TEMPO_E_UNSUPPORTED (not a network session). */
TEMPO_API tempo_result tempo_session_get_endpoint_stats(const tempo_session *s, int player,
                                                        tempo_endpoint_stats *out);
/* Tell a p2p session the traversal its transport is (tempo/traversal.h),
 * so tempo_session_get_endpoint_stats says per peer which path it uses
 * and what each costs; NULL forgets it. The traversal must outlive the
 * session or be forgotten first. Errors: TEMPO_E_INVALID_ARG (s NULL). */
TEMPO_API tempo_result tempo_session_set_traversal(tempo_session *s, const tempo_traversal *t);

/* Stats of spectator `index` (0.., in the order they were added); on a
 * spectator session, index 0 is its host. Errors: TEMPO_E_INVALID_ARG (s or out NULL),
 * TEMPO_E_PLAYER (no such spectator), TEMPO_E_UNSUPPORTED. */
TEMPO_API tempo_result tempo_session_get_spectator_stats(const tempo_session *s, int index,
                                                         tempo_endpoint_stats *out);

/* Copy the session's counters. Errors: TEMPO_E_INVALID_ARG (s or out NULL). */
TEMPO_API tempo_result tempo_session_get_stats(const tempo_session *s, tempo_session_stats *out);

/* ---- synctest ---------------------------------------------------------- */

typedef struct tempo_synctest_report {
    uint64_t checks;           /* checksums compared */
    uint64_t mismatches;       /* comparisons that differed */
    int32_t first_mismatch_frame; /* state whose checksum first differed; -1 if none */
    uint64_t first_checksum;   /* its checksum when first computed */
    uint64_t resim_checksum;   /* its checksum when resimulated */
} tempo_synctest_report;

/* The synctest findings so far. Errors: TEMPO_E_INVALID_ARG (s or out
 * NULL), TEMPO_E_UNSUPPORTED (not a synctest session). */
TEMPO_API tempo_result tempo_session_synctest_report(const tempo_session *s,
                                                     tempo_synctest_report *out);

/* ---- external states ---------------------------------------------------
 *
 * A session can start at any frame (tempo_config.start_frame) and can take
 * its state from outside while running: a server's snapshot that a client
 * reconciles to, a state a peer sent. */

/* Replace the game's state with an external state of `frame` and resimulate
 * from it: the next tempo_session_advance hands out, first, SAVE(frame) (the
 * state the game now holds becomes the saved state of `frame`), then SAVE
 * and ADVANCE, flagged resimulating, for every frame from `frame` up to the
 * current frame, with the inputs the session holds (real where known,
 * predicted otherwise), saving as the save policy says; then the tick's new
 * frames. No LOAD is handed out for it: the game loaded the state itself.
 *   - Arena mode: tempo copies `state` (size == arena_size bytes, owned by
 *     the caller, read during the call only) into the arena now.
 *     Otherwise the game has already put that state in place and passes
 *     state NULL and size 0.
 *   - `frame` lies in [max(start_frame, F - max_prediction), F], F the
 *     current frame (tempo_session_frame): every frame resimulated is one
 *     the session still holds inputs for, and the resimulation is no deeper
 *     than a rollback may be. `frame` == F replaces the current state and
 *     resimulates nothing. To jump ahead of F, create a session with
 *     start_frame at the state's frame: frames between would have no inputs.
 *   - The external state stands for every frame before it: from then on no
 *     rollback goes below `frame` (a late input that contradicts a guess
 *     there resimulates from `frame`), and the saved states of frames after
 *     it are replaced on the way. Inputs, the confirmed frame and the
 *     confirmed-input log are unchanged; desync checksums of check frames
 *     already compared are not sent again (in a p2p session, every peer
 *     must load the same state at the same frame, or the next check
 *     reports a desync).
 *   - Call it between ticks, after every request of the last tick was
 *     carried out. Until the next advance, the game's state is that of
 *     `frame` while tempo_session_frame still says F. A second call before
 *     the advance replaces the first.
 * Errors: TEMPO_E_INVALID_ARG (s NULL; arena mode and state NULL or size
 * not arena_size; otherwise state not NULL or size not 0), TEMPO_E_FRAME
 * (frame outside the range above), TEMPO_E_STATE (arena mode, and the last
 * tick's requests were not all taken with tempo_session_next),
 * TEMPO_E_UNSUPPORTED (a synctest session). The session is unchanged on
 * error. */
TEMPO_API tempo_result tempo_session_load_state(tempo_session *s, int32_t frame, const void *state,
                                                size_t size);

/* ---- the confirmed-input log -------------------------------------------
 *
 * Every session keeps, for the newest input_log_frames confirmed frames,
 * every player's input and status as the game played them: what a replay
 * writer, a relay or a spectator feed reads. A frame enters the log once it
 * is confirmed and simulated (at the end of tempo_session_advance), and its
 * entry never changes after; the log's end is the confirmed frame (for a
 * spectator session, the frame it played up to). */

/* The frames the log holds now: [*oldest, *end). *end is
 * tempo_session_confirmed_frame as of the last advance; *oldest is
 * max(start_frame, *end - input_log_frames). Both equal start_frame before
 * any frame is confirmed. Errors: TEMPO_E_INVALID_ARG (s, oldest or end
 * NULL). */
TEMPO_API tempo_result tempo_session_input_log_range(const tempo_session *s, int32_t *oldest,
                                                     int32_t *end);

/* Copy one logged frame: `inputs` gets num_players * input_size bytes
 * (`size` must be exactly that), player 0's input first; `status`, unless
 * NULL, gets num_players tempo_input_status values, each CONFIRMED or
 * DISCONNECTED (a player whose guessed input the game played as PREDICTED
 * and that proved right is CONFIRMED here: the input is the same). A
 * DISCONNECTED player's input is all zero, as the game got it. Both
 * buffers belong to the caller. Errors: TEMPO_E_INVALID_ARG (s or inputs
 * NULL, size wrong), TEMPO_E_FRAME (frame not in the range above: not
 * confirmed yet, or overwritten); nothing is written on error. */
TEMPO_API tempo_result tempo_session_confirmed_inputs(const tempo_session *s, int32_t frame,
                                                      void *inputs, size_t size, uint8_t *status);

/* ---- players joining a running match -------------------------------------
 *
 * A slot may be empty (nobody plays it yet) and a player may leave
 * (tempo_session_disconnect_player); either slot can take a player while
 * the match runs. In a local session, tempo_session_add_local_player and
 * tempo_session_add_remote_player do it at any time on such a slot: the
 * player plays from frame A, the first frame the session holds no input of
 * that slot for: the current frame (tempo_session_frame), or, for a dropped
 * remote player whose inputs had arrived beyond it, the frame after them.
 * Before A its input stays zero and DISCONNECTED (also in the log); from A
 * on it is real: a local player's input is needed every tick from the next
 * advance (TEMPO_TICK_NEEDS_INPUT otherwise, input delay 0 until set), a
 * remote player's inputs are delivered from frame A on
 * (tempo_session_add_remote_input; earlier frames are ignored as repeats)
 * and predicted until they come. The slot's player may change kind (a
 * dropped remote player's slot may go to a local player).
 * Errors of those two calls on such a slot: TEMPO_E_UNSUPPORTED in network
 * sessions (the peers must agree on the frame first; not yet provided), and
 * in a synctest session as before. On an occupied slot they answer as
 * before (TEMPO_E_ALREADY). */

/* Declare `player` an empty slot: nobody plays it; its input is zero with
 * status DISCONNECTED from start_frame until a player is added to it. Like
 * the other declarations, before the first tick.
 * Errors: TEMPO_E_INVALID_ARG (s NULL), TEMPO_E_PLAYER (out of range),
 * TEMPO_E_ALREADY (declared before), TEMPO_E_STATE (an undeclared player
 * once play started), TEMPO_E_UNSUPPORTED (synctest, p2p and spectator
 * sessions). */
TEMPO_API tempo_result tempo_session_add_empty_slot(tempo_session *s, int player);

/* ---- desync diffs ----------------------------------------------------------
 *
 * A desync says which frame's checksums differ; a diff says which bytes. When
 * desync_diff_max_bytes > 0 and the checksums of check frame F differ with a
 * peer, both machines send each other their state of F (sealed like all the
 * session's traffic, in fragments, a few per tick so inputs keep flowing),
 * once per frame and peer, and each raises TEMPO_EVENT_DESYNC_DIFF when it
 * holds both. One diff is in flight at a time: a desync of another frame
 * meanwhile is not diffed (later desyncs are usually the first one spreading).
 *   - Arena mode: tempo keeps copies of the newest check frames' arena and
 *     sends the one of F (TEMPO_DIFF_NO_STATE if it left the copies: the
 *     checksums came more than 4 check frames apart).
 *   - Without an arena: the DESYNC event has state_wanted set and the game
 *     calls tempo_session_provide_state with its state of F, so a game that
 *     wants diffs keeps a copy of each check frame's state (frame a
 *     multiple of desync_interval) until its check has passed.
 * Each state transfer is one datagram train; a lost fragment loses the diff
 * (nothing is resent). docs/DETERMINISM.md shows how to read one. */

/* The state of frame `frame` that a DESYNC event with state_wanted asked
 * for (size bytes at state, copied during the call; the caller keeps
 * ownership). It is sent to every peer whose checksum of that frame
 * differed, and compared with theirs when it arrives.
 * Errors: TEMPO_E_INVALID_ARG (s or state NULL, size 0),
 * TEMPO_E_UNSUPPORTED (not a p2p session, arena mode, or diffs off),
 * TEMPO_E_FRAME (no DESYNC event asked for this frame, or it was given
 * already), TEMPO_E_FULL (size above desync_diff_max_bytes: nothing is
 * sent, the peers are told, and DESYNC_DIFF with TEMPO_DIFF_TOO_LARGE
 * follows). */
TEMPO_API tempo_result tempo_session_provide_state(tempo_session *s, int32_t frame, const void *state,
                                                   size_t size);

/* ---- rejoin without an arena ------------------------------------------------
 *
 * A machine coming back (tempo_config.rejoin) gets a state from a peer.
 * With an arena tempo moves it both ways; without one, the sending game
 * gives its state of the frame a REJOIN_STATE event (wanted) names with
 * tempo_session_provide_state (above: the same call as for diffs; errors
 * there also TEMPO_E_FULL for a state above 65504 bytes with the inputs
 * before it, TEMPO_E_STATE when the machine is gone again), and the
 * receiving game loads what came when its REJOIN_STATE event says so. */

/* The state a rejoining session received (REJOIN_STATE event, not
 * wanted): *state points at *size bytes owned by the session, valid until
 * it is destroyed; *frame is its frame. The game puts it in place before
 * its next tempo_session_advance. Errors: TEMPO_E_INVALID_ARG (a NULL
 * pointer), TEMPO_E_UNSUPPORTED (not a rejoining p2p or spectator session
 * without an arena), TEMPO_E_STATE (no state came yet). */
TEMPO_API tempo_result tempo_session_rejoin_state(const tempo_session *s, const void **state,
                                                  size_t *size, int32_t *frame);

/* The newest diff (the one of the last DESYNC_DIFF event with status DONE):
 * the frame and the peer's first player, every differing range (at most
 * TEMPO_DIFF_MAX_RANGES are kept, in offset order; num_ranges counts them
 * all) and both states' bytes. Everything pointed to is owned by the
 * session and valid until the next DESYNC_DIFF event is raised or the
 * session is destroyed. Sizes may differ: the bytes past the shorter
 * state form the last range. */
#define TEMPO_DIFF_MAX_RANGES 64
typedef struct tempo_desync_diff {
    int32_t frame;
    int player;                     /* the peer's first player */
    int local_player;               /* this machine's first player */
    int num_ranges;                 /* every range; ranges holds the first kept */
    int kept_ranges;                /* min(num_ranges, TEMPO_DIFF_MAX_RANGES) */
    const tempo_diff_range *ranges;
    const uint8_t *local, *remote;  /* this machine's state and the peer's */
    size_t local_size, remote_size;
} tempo_desync_diff;

/* Fill *out with the newest diff. Errors: TEMPO_E_INVALID_ARG (s or out
 * NULL), TEMPO_E_UNSUPPORTED (not a p2p session), TEMPO_E_STATE (no diff
 * yet). */
TEMPO_API tempo_result tempo_session_desync_diff(const tempo_session *s, tempo_desync_diff *out);

/* Format range `index` (0..kept_ranges - 1) of the newest diff as one line
 * into buf (size bytes, always NUL-terminated when size > 0, truncated if
 * short), naming the field with the describer when there is one:
 *   "peer 1 vs peer 0 at frame 1020: ships[2].x 4410 vs 4412"
 * (this machine's first player and value first). A field of 1, 2, 4 or 8
 * bytes is printed as a little-endian unsigned integer, any other as hex
 * bytes (the first 16); without a describer, or where it names nothing,
 * the range is printed as "bytes 120..123" and hex bytes. Returns the
 * line's length (as snprintf: what it would take), or TEMPO_E_INVALID_ARG
 * (s NULL, buf NULL with size > 0, index outside 0..kept_ranges - 1),
 * TEMPO_E_UNSUPPORTED (not a p2p session), TEMPO_E_STATE (no diff yet).
 * The describer is called from here, with the game's own context. */
TEMPO_API int tempo_session_desync_diff_line(const tempo_session *s, int index, char *buf, size_t size);

/* ---- names --------------------------------------------------------------- */

/* The name of an event kind, lowercase without the prefix: "connected",
 * "synchronizing", ..., "waiting_over", "timesync", "input_delay", "handshake_failed",
 * "desync_diff", "rejoined", "rejoin_state", "dropped", "auth_failed"; "unknown"
 * for a value that is no tempo_event_kind. Static storage, never NULL. */
TEMPO_API const char *tempo_event_name(tempo_event_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_SESSION_H */
