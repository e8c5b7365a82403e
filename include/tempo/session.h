/* SPDX-License-Identifier: MIT */
/*
 * session.h — rollback sessions: creating them, players, the tick, events
 * and statistics. The configuration, the tick's requests and the counters'
 * types are in tempo/config.h, included here. tempo.h shows the loop a game
 * runs.
 */
#ifndef TEMPO_SESSION_H
#define TEMPO_SESSION_H

#include "tempo/base.h"
#include "tempo/config.h"
#include "tempo/rng.h"
#include "tempo/transport.h"
#include "tempo/traversal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sessions --------------------------------------------------------- */

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
     * heard since: they timed it out while it was away. Also: peers are
     * still with it, but it and they are not the match (fewer than the
     * peers lost after its pause; docs/NETWORK.md, "Which side is the
     * match"). */
    TEMPO_DROPPED_PAUSED = 2,
    /* Two or more peers were lost by silence at once (within
     * disconnect_notify_ms of each other): this machine's network went.
     * Also: peers are still with it, but it and they are not the match. */
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

/* What one remote endpoint (a peer machine or a spectator) looks like from
 * here. Times in milliseconds; rates over the last second or so. */
typedef struct tempo_endpoint_stats {
    bool synchronized;        /* handshake done */
    bool interrupted;         /* silent for disconnect_notify_ms */
    bool disconnected;        /* dropped */
    uint32_t players;         /* bit p: it hosts player p (0 for a spectator) */
    double rtt_ms;            /* smoothed round trip (RFC 6298 style) */
    double jitter_ms;         /* smoothed mean deviation of the round trip (RFC 6298's
                                 RTTVAR), not arrival_jitter_ms */
    /* Interarrival jitter of its INPUTs (RFC 3550 6.4.1): how much their
     * transit times vary, its frame clock as their timestamp; 0 before two
     * arrived. */
    double arrival_jitter_ms;
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
