/* SPDX-License-Identifier: MIT */
/*
 * config.h — what a rollback session is made of and answers with, below
 * the session API: its configuration and defaults, the tick and its
 * requests, the statistics, the synctest report and the opaque session
 * handle. The rollback engine and time sync work in these types without
 * the session API above them; tempo/session.h includes this header, so a
 * game never needs to include it by name.
 */
#ifndef TEMPO_CONFIG_H
#define TEMPO_CONFIG_H

#include "tempo/base.h"

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
    /* p2p sessions: INPUT and INPUT_ACK carry acks of the peer's datagrams
     * (docs/PROTOCOL.md "Datagram acks"), so every tick measures the round
     * trip and the link's loss both ways; pings still go every 500 ms.
     * false: no ack is sent and the round trip comes from pings alone (a
     * peer of either setting plays with the other). Default true. */
    bool datagram_acks;
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

/* A rollback session (tempo/session.h creates them). Opaque. */
typedef struct tempo_session tempo_session;

/* ---- the tick ----------------------------------------------------------- */

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
    uint64_t held_jumps;        /* datagrams far ahead of their sender's sequence, held
                                   unused until it shows it moved on (docs/SECURITY.md
                                   9.1); each peer's part is its tempo_endpoint_stats' */
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

/* What a synctest session found (tempo_session_synctest_report). */
typedef struct tempo_synctest_report {
    uint64_t checks;           /* checksums compared */
    uint64_t mismatches;       /* comparisons that differed */
    int32_t first_mismatch_frame; /* state whose checksum first differed; -1 if none */
    uint64_t first_checksum;   /* its checksum when first computed */
    uint64_t resim_checksum;   /* its checksum when resimulated */
} tempo_synctest_report;

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_CONFIG_H */
