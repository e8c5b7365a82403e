/* SPDX-License-Identifier: MIT */
/*
 * arena_replay.h — recording an arena match to a replay file and playing
 * one back, for tempo-arena and tempo-arena-sdl (--record, --replay).
 *
 * The recorder keeps a shadow game that steps each frame once it is
 * confirmed, with the confirmed inputs: that gives the file a checksum at
 * every check frame and a stored state at every state mark, which a live
 * peer's predicted arena cannot (its state may still be rolled back). The
 * settings blob names the board: "arena" ‖ players ‖ seed (u64 LE).
 */
#ifndef ARENA_ARENA_REPLAY_H
#define ARENA_ARENA_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "tempo/replay.h"

#define ARENA_REPLAY_CHECK_FRAMES 60  /* a checksum every second */
#define ARENA_REPLAY_STATE_FRAMES 600 /* a state every ten seconds, for seeking */

typedef struct arena_recorder {
    FILE *f;
    tempo_replay_writer *w;
    arena_state shadow; /* the state of frame `next`, from confirmed inputs */
    int32_t next;
    bool failed;
} arena_recorder;

/* Start recording a match of `players` on the board of `seed` to `path`.
 * False (and a reason in why) if the file cannot be written. */
bool arena_record_open(arena_recorder *r, const char *path, int players, uint64_t seed,
                       char *why, size_t why_size);
/* After a tick: append the frames the session confirmed since, up to
 * `limit` (exclusive). False once writing failed. */
bool arena_record_tick(arena_recorder *r, const tempo_session *s, int32_t limit);
/* Finish the file (when complete) and close it. False if writing failed. */
bool arena_record_close(arena_recorder *r, bool complete);

/* A replay file read into memory, its board set up. */
typedef struct arena_replay {
    uint8_t *data;
    size_t size;
    tempo_replay *file;
    int players;
    uint64_t seed;
    int32_t end;        /* one past the last frame */
} arena_replay;

/* Read and check `path`: a tempo replay recorded by an arena. False (and a
 * reason) otherwise. */
bool arena_replay_load(arena_replay *rp, const char *path, char *why, size_t why_size);
void arena_replay_free(arena_replay *rp);
/* A replay session over rp->file playing into `game` (arena mode),
 * game set to the board's start. */
tempo_result arena_replay_session(arena_replay *rp, arena_state *game, tempo_session **out);

#endif /* ARENA_ARENA_REPLAY_H */
