/* SPDX-License-Identifier: MIT */
/*
 * replay.h — replay files: a streaming writer that records a match as its
 * frames are confirmed, and a reader that validates a file and hands back
 * its settings, every frame's inputs and statuses, the checksums of check
 * frames and the states stored for seeking. docs/REPLAY.md gives the format
 * byte by byte.
 *
 * A replay holds what determines the simulation (the match settings and
 * every confirmed input), so a deterministic game replays the match exactly
 * from its start state; checksums let the player of a file notice when the
 * game no longer simulates the same, and stored states let it seek.
 *
 * Frames, states and checksums mean what they mean in tempo.h: state f is
 * the state at the start of frame f, and the checksum of frame f is the
 * checksum of state f.
 *
 * Thread safety: a writer or reader is used from one thread at a time;
 * distinct objects are independent. Neither reads a clock or does I/O of
 * its own: the writer writes through a callback, the reader reads a buffer.
 */
#ifndef TEMPO_REPLAY_H
#define TEMPO_REPLAY_H

#include "tempo/base.h"
#include "tempo/config.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEMPO_REPLAY_VERSION 1               /* the format version written */
#define TEMPO_REPLAY_MAX_SETTINGS 4096       /* bytes of the game's settings blob */
#define TEMPO_REPLAY_MAX_STATE (1u << 26)    /* bytes of one stored state (64 MiB) */
#define TEMPO_REPLAY_MAX_CHUNK_FRAMES 4096   /* frames of one inputs chunk */
#define TEMPO_REPLAY_MAX_INTERVAL (1 << 30)  /* desync_interval and state_interval */

/* What a replay records about its match: everything that must be equal for
 * the inputs to replay the same simulation. */
typedef struct tempo_replay_settings {
    int num_players;        /* 1..TEMPO_MAX_PLAYERS */
    int input_size;         /* 1..TEMPO_MAX_INPUT_SIZE bytes per player per frame */
    int frames_per_second;  /* 1..1000 */
    int32_t start_frame;    /* 0..2^30: the first frame recorded */
    /* Check frames: every frame f > start_frame with f % desync_interval == 0
     * may carry a checksum. 0..TEMPO_REPLAY_MAX_INTERVAL; 0: no checksums. */
    int32_t desync_interval;
    /* State marks: start_frame, and every frame f > start_frame with
     * f % state_interval == 0, may carry a stored state of at most
     * max_state_size bytes. 0..TEMPO_REPLAY_MAX_INTERVAL; 0: no states
     * (max_state_size 0 too); otherwise max_state_size is
     * 1..TEMPO_REPLAY_MAX_STATE. */
    int32_t state_interval;
    size_t max_state_size;
    /* The game's own match settings (map, mode, seed, game version...),
     * opaque to tempo, 0..TEMPO_REPLAY_MAX_SETTINGS bytes. Writer: read
     * during tempo_replay_writer_create only. Reader: points into the
     * reader's buffer. NULL allowed when the size is 0. */
    const void *settings;
    size_t settings_size;
    /* Filled by tempo (the writer ignores what the caller puts here):
     * tempo_checksum of the settings blob, and tempo_replay_config_hash of
     * all the fields above. Two files with equal config hashes were
     * recorded with the same match settings. */
    uint64_t settings_hash;
    uint64_t config_hash;
} tempo_replay_settings;

/* The hash naming a set of match settings: tempo_checksum over the
 * settings' fields as docs/REPLAY.md lists them ("config hash"), the
 * settings blob entering through its hash (computed here, not taken from
 * s->settings_hash). Returns 0 if s is NULL, or its settings pointer is
 * NULL with a nonzero size. */
TEMPO_API uint64_t tempo_replay_config_hash(const tempo_replay_settings *s);

/* ---- writer -------------------------------------------------------------- */

/* Where the writer's bytes go: write `size` bytes (1 or more) at `data`
 * (valid during the call only), appending to what came before. Return 0 on
 * success, anything else on failure (the writer then stops: TEMPO_E_IO). */
typedef int (*tempo_replay_write_fn)(void *ctx, const void *data, size_t size);

typedef struct tempo_replay_writer_config {
    tempo_replay_settings settings;
    /* Frames per inputs chunk, 1..TEMPO_REPLAY_MAX_CHUNK_FRAMES, default
     * 256. A chunk is written when it is full (and by finish), so this
     * bounds the writer's memory and how much a reader decodes to reach a
     * frame at random; each chunk restarts its delta coding (a few bytes). */
    int frames_per_chunk;
    tempo_replay_write_fn write; /* required */
    void *write_ctx;
    tempo_allocator allocator;   /* both hooks set, or both NULL (malloc) */
} tempo_replay_writer_config;

/* Fill cfg with defaults: the match settings of session_cfg (num_players,
 * input_size, frames_per_second, start_frame, desync_interval; no settings
 * blob, no states), 256 frames per chunk, the session's allocator, no
 * write callback. session_cfg NULL: those of tempo_config_default. */
TEMPO_API void tempo_replay_writer_config_default(tempo_replay_writer_config *cfg,
                                                  const tempo_config *session_cfg);

typedef struct tempo_replay_writer tempo_replay_writer;

/* Create a writer and write the file's header through cfg->write (the
 * settings blob is copied into it). Memory is allocated here only: about
 * frames_per_chunk times the worst-case bytes of one frame, plus room for
 * the states still waiting to be confirmed (a few times max_state_size);
 * nothing is allocated per frame. On success *out owns the writer; free
 * it with tempo_replay_writer_destroy.
 * Errors: TEMPO_E_INVALID_ARG (cfg, out or write NULL, a field out of the
 * ranges of tempo_replay_settings or above, one allocator hook without the
 * other), TEMPO_E_NO_MEMORY, TEMPO_E_IO (the header's write failed;
 * nothing is created). */
TEMPO_API tempo_result tempo_replay_writer_create(const tempo_replay_writer_config *cfg,
                                                  tempo_replay_writer **out);

/* Free the writer. It writes nothing more: a file without
 * tempo_replay_writer_finish is truncated, and readers say so. NULL is
 * allowed. */
TEMPO_API void tempo_replay_writer_destroy(tempo_replay_writer *w);

/* Append the next frame, tempo_replay_writer_end(w): every player's input
 * (num_players * input_size bytes, player 0 first; `size` must be exactly
 * that) and status (num_players values, each TEMPO_INPUT_CONFIRMED or
 * TEMPO_INPUT_DISCONNECTED; a DISCONNECTED player's input must be all
 * zero). Both are read during the call only.
 * Errors: TEMPO_E_INVALID_ARG (w, inputs or status NULL, size wrong, a
 * status value not allowed or a DISCONNECTED input not zero), TEMPO_E_FRAME
 * (frame is not tempo_replay_writer_end(w), or the file reached 2^31 - 1),
 * TEMPO_E_STATE (finished), TEMPO_E_IO (the callback failed). A failure
 * that leaves the file incomplete (TEMPO_E_IO here, TEMPO_E_FRAME from
 * feed) stops the writer: every later call returns that code. Nothing is
 * appended on error. */
TEMPO_API tempo_result tempo_replay_writer_add_frame(tempo_replay_writer *w, int32_t frame,
                                                     const void *inputs, size_t size,
                                                     const uint8_t *status);

/* Append every frame the session confirmed since the last call, from its
 * confirmed-input log (tempo_session_input_log_range), and commit the
 * checksums and states offered for frames that are now final. Call it once
 * per tick, after carrying out the tick's requests. The session must have
 * the writer's num_players, input_size and start_frame.
 * Errors: TEMPO_E_INVALID_ARG (w or s NULL, the session's inputs of another
 * size), TEMPO_E_FRAME (the log no longer holds the writer's next frame:
 * the writer fell more than input_log_frames behind; the writer stops),
 * TEMPO_E_IO, TEMPO_E_STATE as tempo_replay_writer_add_frame. */
TEMPO_API tempo_result tempo_replay_writer_feed(tempo_replay_writer *w, const tempo_session *s);

/* Offer the checksum of state `frame`, from the game's SAVE handling (the
 * checksum it writes to *request->checksum), for a check frame. A state is
 * final once every frame before it is in the writer (frame <=
 * tempo_replay_writer_end(w)); until then the newest offer for a frame
 * wins (a rollback saves the frame again), and the feed that makes it
 * final commits it; an offer for a state already final is committed at
 * once. Offers for frames that are no check frame, or at or
 * before the last committed check frame, are ignored (a rollback's saves of
 * earlier frames, a sparse save). Returns 1 if kept, 0 if ignored.
 * Errors: TEMPO_E_INVALID_ARG (w NULL), TEMPO_E_FULL (more check frames
 * waiting to be confirmed than TEMPO_MAX_PREDICTION + 8: the game offers
 * frames far ahead of what it feeds), TEMPO_E_STATE as add_frame. */
TEMPO_API int tempo_replay_writer_checksum(tempo_replay_writer *w, int32_t frame,
                                           uint64_t checksum);

/* Offer state `frame` (size 1..max_state_size bytes at data, copied) for a
 * state mark, from the game's SAVE handling, under the rule of
 * tempo_replay_writer_checksum: the newest offer wins until the state is
 * final, and a final state is written at once. Returns 1 if kept, 0 if
 * ignored (no mark, no states configured, or at or before the last state
 * written). With the SAVE_SPARSE policy a mark may never be saved; a file
 * then lacks that state and readers seek from an earlier one.
 * Errors: TEMPO_E_INVALID_ARG (w or data NULL, size 0 or above
 * max_state_size), TEMPO_E_FULL (every waiting slot holds another mark
 * not yet final), TEMPO_E_IO, TEMPO_E_STATE as add_frame. */
TEMPO_API int tempo_replay_writer_state(tempo_replay_writer *w, int32_t frame, const void *data,
                                        size_t size);

/* Arena mode, where the game sees no SAVE: after the tick's requests (and
 * tempo_replay_writer_feed), the arena holds state tempo_session_frame(s).
 * When that state is final (the session's confirmed frame equals its
 * frame, as in a session whose players are all local, or in lockstep),
 * this offers its checksum (tempo_checksum of the arena, as the session
 * computes it) for a check frame and the arena itself for a state mark.
 * When it is not, nothing is offered: a predicted state may still change.
 * Returns the number of offers kept (0..2).
 * Errors: TEMPO_E_INVALID_ARG (w, s or arena NULL), and those of
 * tempo_replay_writer_checksum and _state (arena_size counts as the
 * state's size). */
TEMPO_API int tempo_replay_writer_capture_arena(tempo_replay_writer *w, const tempo_session *s,
                                                const void *arena, size_t arena_size);

/* Write what is buffered and the end chunk (frame count, trailer checksum):
 * the file is complete. Offers not yet final are dropped. Later calls
 * return TEMPO_E_STATE; destroy the writer after.
 * Errors: TEMPO_E_INVALID_ARG (w NULL), TEMPO_E_IO, TEMPO_E_STATE (already
 * finished), or the code that stopped the writer earlier. */
TEMPO_API tempo_result tempo_replay_writer_finish(tempo_replay_writer *w);

/* The next frame to append: start_frame + the frames written so far.
 * TEMPO_E_INVALID_ARG if w is NULL. */
TEMPO_API int32_t tempo_replay_writer_end(const tempo_replay_writer *w);
/* Bytes handed to the write callback so far (0 if w is NULL). */
TEMPO_API uint64_t tempo_replay_writer_bytes(const tempo_replay_writer *w);

/* ---- reader -------------------------------------------------------------- */

typedef struct tempo_replay tempo_replay;

/* Open the replay file in data[0..size). The file is hostile: every size,
 * count, frame, value and checksum is checked, every frame decoded once,
 * and nothing is read outside the buffer. The buffer is not copied: it must
 * stay valid and unchanged until tempo_replay_close. Memory: one block for
 * an index of the file's chunks (at most about a byte per byte of file).
 * On success *out owns the reader; free it with tempo_replay_close.
 * allocator: NULL or both hooks NULL for malloc.
 * Errors (on error *out is NULL):
 *   TEMPO_E_INVALID_ARG  out NULL, data NULL with size > 0, one hook only;
 *   TEMPO_E_FOREIGN      the bytes do not begin with the replay magic: not a
 *                        tempo replay (a prefix of the magic is TRUNCATED);
 *   TEMPO_E_VERSION      a tempo replay of another format version;
 *   TEMPO_E_TRUNCATED    the file ends before its end chunk: cut short (or a
 *                        length field corrupted to run past the end);
 *   TEMPO_E_MALFORMED    anything else wrong: a checksum, a value out of
 *                        range, a non-canonical coding, frames out of order,
 *                        bytes after the end chunk;
 *   TEMPO_E_NO_MEMORY. */
TEMPO_API tempo_result tempo_replay_open(const void *data, size_t size,
                                         const tempo_allocator *allocator, tempo_replay **out);

/* Free the reader (not the buffer). NULL is allowed. */
TEMPO_API void tempo_replay_close(tempo_replay *r);

/* The file's settings (settings->settings points into the buffer).
 * Errors: TEMPO_E_INVALID_ARG (r or out NULL). */
TEMPO_API tempo_result tempo_replay_get_settings(const tempo_replay *r,
                                                 tempo_replay_settings *out);

/* The frames the file holds: [*first, *end), first = start_frame (equal
 * when the file holds no frame). Errors: TEMPO_E_INVALID_ARG (a NULL). */
TEMPO_API tempo_result tempo_replay_frame_range(const tempo_replay *r, int32_t *first,
                                                int32_t *end);

/* Copy frame `frame`'s inputs (num_players * input_size bytes; `size` must
 * be exactly that) and, unless status is NULL, its statuses (num_players
 * values, CONFIRMED or DISCONNECTED). Reading frames in order costs one
 * frame's decoding each; any other frame decodes from the start of its
 * chunk (at most frames_per_chunk frames). Buffers belong to the caller.
 * Errors: TEMPO_E_INVALID_ARG (r or inputs NULL, size wrong), TEMPO_E_FRAME
 * (frame outside the range); nothing is written on error. */
TEMPO_API tempo_result tempo_replay_inputs(tempo_replay *r, int32_t frame, void *inputs,
                                           size_t size, uint8_t *status);

/* The checksum recorded for state `frame`: returns 1 and sets *out, or 0
 * if the file has none for it (not a check frame, or not recorded).
 * Errors: TEMPO_E_INVALID_ARG (r or out NULL). */
TEMPO_API int tempo_replay_checksum(const tempo_replay *r, int32_t frame, uint64_t *out);
/* Checksums recorded (0..), and the i-th in frame order: *frame and *out.
 * Errors: TEMPO_E_INVALID_ARG (a NULL pointer), TEMPO_E_FRAME (i out of
 * range). */
TEMPO_API int tempo_replay_checksum_count(const tempo_replay *r);
TEMPO_API tempo_result tempo_replay_checksum_at(const tempo_replay *r, int i, int32_t *frame,
                                                uint64_t *out);

/* The stored state nearest at or before `frame`: *state_frame, and *data
 * and *size pointing into the buffer (valid while the reader is open).
 * To seek to `frame`, load it and play the inputs of [*state_frame, frame).
 * Errors: TEMPO_E_INVALID_ARG (a NULL pointer), TEMPO_E_FRAME (no state at
 * or before frame). */
TEMPO_API tempo_result tempo_replay_state_at_or_before(const tempo_replay *r, int32_t frame,
                                                       int32_t *state_frame, const void **data,
                                                       size_t *size);
/* States stored (0..). Errors: TEMPO_E_INVALID_ARG (r NULL). */
TEMPO_API int tempo_replay_state_count(const tempo_replay *r);

/* ---- playback ------------------------------------------------------------ */

/* Create a session that plays the file `replay` back through the request
 * contract of tempo_session_advance. Every player is declared already (none
 * may be added) and nothing is predicted: each advance hands out the
 * ADVANCE of the file's next frame, with its recorded inputs and statuses
 * (CONFIRMED or DISCONNECTED, never PREDICTED). Before the ADVANCE of a
 * frame the file holds a checksum for (and after the last frame, for the
 * end state) it asks for a SAVE whose checksum the game writes (arena
 * mode: tempo computes it); the next advance compares it with the file's
 * and raises TEMPO_EVENT_DESYNC (u.desync: the frame, the game's checksum
 * as `local`, the file's as `remote`) when they differ. The game starts
 * from its state at the file's start frame. Once the file's last frame is
 * handed out, tempo_session_get_state reports TEMPO_SESSION_ENDED and each
 * advance returns TEMPO_OK with status TEMPO_TICK_WAITING and no request.
 * The reader is used by the session (it is not const: reading moves its
 * decoding position) and must stay open until the session is destroyed;
 * use it for nothing else meanwhile. cfg's other fields (arena, allocator,
 * save policy...) mean what they mean for any session.
 * Errors: TEMPO_E_INVALID_ARG (cfg, replay or out NULL, a config field out
 * of range), TEMPO_E_FOREIGN (cfg's num_players, input_size, start_frame
 * or desync_interval differ from the file's settings: the file was not
 * recorded with this config), TEMPO_E_NO_MEMORY. *out is NULL on error. */
TEMPO_API tempo_result tempo_session_create_replay(const tempo_config *cfg, tempo_replay *replay,
                                                   tempo_session **out);

/* Seek a replay session to `frame` (start_frame..end of the file): the
 * session takes the file's stored state nearest at or before `frame`, of
 * frame *state_frame, and from the next advance fast-forwards to `frame`
 * with ADVANCE requests flagged resimulating (a SAVE asked for at check
 * frames on the way, as in play), at most a few dozen frames a tick;
 * tempo_session_frame is *state_frame right after the call. Call it
 * between ticks, every request of the last tick carried out (those
 * requests' checksums are not compared).
 * The state reaches the game this way: in arena mode tempo copies it into
 * the arena; otherwise the game must load it itself, *size bytes at
 * *state (inside the reader's buffer), as its state *state_frame, before
 * carrying out the next tick's requests. state, size and state_frame may
 * each be NULL (in arena mode they are optional).
 * Errors: TEMPO_E_INVALID_ARG (s NULL), TEMPO_E_UNSUPPORTED (not a replay
 * session), TEMPO_E_STATE (arena mode, and the last tick's requests were
 * not all taken with tempo_session_next), TEMPO_E_FRAME (frame outside the
 * file's frames, or the file stores no state at or before it),
 * TEMPO_E_MALFORMED (arena mode, and the stored state's size is not the
 * arena's). Nothing changes on error. */
TEMPO_API tempo_result tempo_session_replay_seek(tempo_session *s, int32_t frame,
                                                 const void **state, size_t *size,
                                                 int32_t *state_frame);

/* Fastest playback speed: 8 frames a tick. */
#define TEMPO_REPLAY_MAX_SPEED 2048

/* Set how fast a replay session plays: speed_q8 / 256 frames per tick,
 * carried over from tick to tick (128: a frame every other tick; 512: two
 * a tick; 0: paused). A tick that runs no frame is TEMPO_TICK_STALLED with
 * no request. A seek's fast-forward is not slowed. Default 256. Errors:
 * TEMPO_E_INVALID_ARG (s NULL, speed_q8 outside 0..TEMPO_REPLAY_MAX_SPEED),
 * TEMPO_E_UNSUPPORTED (not a replay session). */
TEMPO_API tempo_result tempo_session_replay_set_speed(tempo_session *s, int speed_q8);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_REPLAY_H */
