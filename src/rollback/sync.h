/* SPDX-License-Identifier: MIT */
/*
 * sync.h — the rollback engine: input queues, prediction, saved frames and
 * the plan of each tick (which frames to load, resimulate, save and advance).
 *
 * It knows nothing of networks or clocks: inputs come in through
 * sync_add_local_input / sync_add_remote_input, and each sync_plan turns what
 * is known into an ordered list of tempo_requests. Invariants (checked by the
 * tests): a LOAD names a frame a SAVE filled and nothing overwrote since;
 * rollback depth never exceeds max_prediction; frame - confirmed never
 * exceeds max_prediction; real inputs never change once stored (but for a
 * relay's substitute of a local input, sync_override_input, before the
 * frame is confirmed); frames
 * enter the confirmed-input log once confirmed and simulated, and the
 * confirmed frame never goes back.
 */
#ifndef TEMPO_ROLLBACK_SYNC_H
#define TEMPO_ROLLBACK_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "base/common.h"
#include "tempo/config.h"
#include "rollback/input_log.h"
#include "rollback/input_queue.h"

/* What a player slot holds. SYNC_OPEN: nobody yet; its input is zero and
 * DISCONNECTED until a player is attached (sync_attach). */
enum { SYNC_NONE = 0, SYNC_LOCAL = 1, SYNC_REMOTE = 2, SYNC_OPEN = 3 };

/* Per-request bookkeeping the game does not see. */
enum {
    SYNC_REQ_NEED_SUM = 1,    /* the checksum of this SAVE will be read */
    SYNC_REQ_FINAL = 2,       /* ...and it is the checksum of a confirmed frame */
    SYNC_REQ_FIRST = 4,       /* synctest: the first computation of this state */
    SYNC_REQ_COMPARE = 8      /* synctest: compare with the first computation */
};

typedef struct sync_slot {
    int32_t frame; /* frame whose state the slot holds, -1 if none */
    uint64_t checksum;
    bool has_sum;
} sync_slot;

/* Checksums of confirmed frames waiting to be taken (desync detection): as
 * many as one plan can confirm (a resimulation and a catch-up, each up to
 * twice the largest window). */
#define SYNC_SUM_LOG 256
typedef struct sync_sum { int32_t frame; uint64_t checksum; } sync_sum;

/* Synctest: first checksums by frame, and what the comparisons found. */
#define SYNC_FIRST_RING 128
typedef struct sync_first { int32_t frame; uint64_t checksum; } sync_first;

typedef struct tempo_sync {
    tempo_allocator alloc;
    tempo_logger log;
    int num_players, input_size, max_pred;
    tempo_save_policy policy;
    uint8_t *arena;
    size_t arena_size;
    uint8_t *arena_store; /* nslots * arena_size, arena mode only */

    input_queue q[TEMPO_MAX_PLAYERS];
    uint8_t kind[TEMPO_MAX_PLAYERS];
    int delay[TEMPO_MAX_PLAYERS];
    uint8_t sample[TEMPO_MAX_PLAYERS][TEMPO_MAX_INPUT_SIZE];
    bool has_sample[TEMPO_MAX_PLAYERS];
    /* A waiting tick took this player's input one frame past its delay: the
     * next tick that runs a frame uses that one instead of its own. */
    bool wait_extra[TEMPO_MAX_PLAYERS];
    /* What the last plan did with the held inputs (copied into the tick). */
    uint32_t taken_mask;
    int32_t taken_frame[TEMPO_MAX_PLAYERS];

    int32_t start_frame;     /* the first frame: the game's state at creation is its state */
    int32_t frame;           /* next frame to simulate */
    int32_t first_incorrect; /* oldest simulated frame with a wrong guess, or IQ_NO_FRAME */
    /* External state (sync_load_state): the frame whose state the game holds
     * now, to save and resimulate from at the next plan, or IQ_NO_FRAME. */
    int32_t external_frame;
    /* No rollback reaches below this frame: the newest external state's
     * frame (start_frame before any); a correction below it is applied from
     * it, because the external state stands for everything before. */
    int32_t load_floor;

    int nslots;
    sync_slot *slots;
    int32_t sparse_frame;    /* sparse policy: newest saved confirmed frame, -1 none */

    /* This tick's requests. */
    int req_cap, nreqs, next_req;
    tempo_request *reqs;
    uint8_t *req_inputs, *req_status, *req_flags;
    uint64_t *req_sums;

    /* Desync detection. */
    int desync_interval;
    int32_t next_check;
    sync_sum sums[SYNC_SUM_LOG];
    int sums_head, sums_count;
    uint64_t checks_skipped;

    /* Synctest. */
    int check_distance;      /* 0: not a synctest */
    sync_first first[SYNC_FIRST_RING];
    tempo_synctest_report report;
    bool report_new_mismatch;

    /* ADVANCEs of frames below this are flagged resimulating: a session
     * that joined a running match fast-forwards up to it (0: none). */
    int32_t catch_up_end;

    input_log confirmed_log; /* confirmed frames, filled at the end of each plan */

    tempo_session_stats stats;
} tempo_sync;

typedef struct sync_plan_opts {
    bool stall;            /* time sync: no new frame this tick, inputs held */
    int frames_wanted;     /* without local players: frames to run (0: one) */
} sync_plan_opts;

/* sync_take_local's answer when no player is local. */
#define SYNC_NO_LOCAL INT32_MAX

/* Create the engine from a validated config. Returns TEMPO_OK or
 * TEMPO_E_NO_MEMORY (everything taken is freed). */
tempo_result sync_init(tempo_sync *s, const tempo_config *cfg, int check_distance);
void sync_free(tempo_sync *s);

/* Ring size of every input queue for this config. */
int sync_queue_capacity(int max_pred);

tempo_result sync_set_player(tempo_sync *s, int player, int kind);
tempo_result sync_set_delay(tempo_sync *s, int player, int frames);
/* Hold this tick's input of a local player (replacing one held before this
 * tick). The next plan takes it or drops it (sync_take_local). */
void sync_add_local_input(tempo_sync *s, int player, const uint8_t *input);
/* Drop every held input untaken: a tick that plans nothing (handshake). */
void sync_drop_held(tempo_sync *s);
/* A remote player's real input. Returns TEMPO_OK (also for repeats) or
 * TEMPO_E_FRAME. */
tempo_result sync_add_remote_input(tempo_sync *s, int player, int32_t frame, const uint8_t *input);
/* The relay's word on a local player's input (member/relay_member.c):
 * store it as real at `frame`, replacing a different one, and resimulate
 * from there if the game ran it. Only for frames not yet confirmed (the
 * relay's frame is what confirms them). TEMPO_OK, TEMPO_E_FRAME (not held,
 * or already confirmed). */
tempo_result sync_override_input(tempo_sync *s, int player, int32_t frame, const uint8_t *input);
/* Disconnect a player from `frame` on. */
void sync_disconnect(tempo_sync *s, int player, int32_t frame);
/* Declare `player` an open slot (before the first plan): zero and
 * DISCONNECTED from start_frame until attached. TEMPO_E_PLAYER or
 * TEMPO_E_ALREADY as sync_set_player. */
tempo_result sync_open_slot(tempo_sync *s, int player);
/* Attach a player of `kind` (SYNC_LOCAL or SYNC_REMOTE) to an open or
 * disconnected slot from `frame` on: its input before `frame` stays zero and
 * DISCONNECTED, from `frame` on it is real (given or predicted). A frame the
 * engine already simulated is resimulated at the next plan. Errors:
 * TEMPO_E_PLAYER (out of range, undeclared), TEMPO_E_ALREADY (the slot's
 * player is connected), TEMPO_E_FRAME (`frame` below the confirmed frame or
 * the slot's disconnect frame, or beyond what its queue holds). */
tempo_result sync_attach(tempo_sync *s, int player, int kind, int32_t frame);
/* The first frame sync_attach accepts for `player` now: the current frame,
 * or later if the player's inputs reach further. */
int32_t sync_attach_frame(const tempo_sync *s, int player);
/* The game's state becomes the external state of `frame`, in
 * [max(start_frame, F - max_prediction), F] for the current frame F: copied into the arena
 * in arena mode (state, arena_size bytes), already loaded by the game
 * otherwise (state NULL). The next plan saves it as `frame` and resimulates
 * to the current frame; no rollback reaches below it after. Returns TEMPO_OK
 * or TEMPO_E_FRAME. */
tempo_result sync_load_state(tempo_sync *s, int32_t frame, const void *state);

/* Start again at `frame` as if created with start_frame `frame`: every
 * input, saved state, checksum and logged frame is forgotten, the players
 * keep their kinds and delays (a disconnected or attached slot is a
 * connected one again). The game's state (the arena) must then be that of
 * `frame`. Allocates nothing. */
void sync_restart(tempo_sync *s, int32_t frame);

/* The confirmed frame count: every player's input is known below it (may be
 * ahead of the current frame when inputs arrive early). */
int32_t sync_confirmed(const tempo_sync *s);

/* Plan this tick into s->reqs and fill *tick. Collects the checksums the game
 * wrote during the previous tick first. */
tempo_result sync_plan(tempo_sync *s, const sync_plan_opts *opts, tempo_tick *tick);
/* Synctest planner (synctest.c): advance one frame, roll back
 * check_distance frames, resimulate, compare. */
tempo_result sync_plan_synctest(tempo_sync *s, tempo_tick *tick);

/* Append to the confirmed-input log every frame confirmed and simulated
 * since the last call (the end of each plan calls it). */
void sync_log_confirmed(tempo_sync *s, int32_t confirmed);

/* Hand out the next request (arena mode: carry out SAVE/LOAD here). */
int sync_next(tempo_sync *s, const tempo_request **out);

/* Take the oldest checksum of a confirmed frame; false if none. */
bool sync_take_checksum(tempo_sync *s, sync_sum *out);

/* Building blocks shared with synctest.c. */
void sync_begin(tempo_sync *s);
void sync_emit_save(tempo_sync *s, int32_t frame, int slot, int flags);
void sync_emit_load(tempo_sync *s, int32_t frame, int slot);
void sync_emit_advance(tempo_sync *s, int32_t frame, bool resim);
int sync_take_local(tempo_sync *s, int64_t room, bool stall, tempo_tick_status *status);
void sync_fill_tick(const tempo_sync *s, tempo_tick *tick, tempo_tick_status status, int advanced,
                    int depth, uint32_t waiting);

#endif /* TEMPO_ROLLBACK_SYNC_H */
