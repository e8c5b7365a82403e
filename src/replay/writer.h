/* SPDX-License-Identifier: MIT */
/*
 * writer.h — the replay writer's record (writer.c), and the two calls a
 * writer fed from a session makes (playback/replay_feed.c, above the
 * session API that this layer does not see). Internal: not installed.
 */
#ifndef TEMPO_REPLAY_WRITER_H
#define TEMPO_REPLAY_WRITER_H

#include "replay/format.h"

#define PENDING_SUMS (TEMPO_MAX_PREDICTION + 8)
#define SUMS_PER_CHUNK 64

typedef struct pending_sum {
    int32_t frame;
    uint64_t sum;
} pending_sum;

struct tempo_replay_writer {
    tempo_allocator alloc;
    tempo_replay_settings set; /* settings pointer dropped after create */
    tempo_replay_write_fn write;
    void *write_ctx;
    int np, is, fpc;
    tempo_result error; /* sticky */
    bool finished;
    uint64_t bytes;
    uint64_t chain;
    int32_t end; /* next frame */

    /* the inputs chunk being filled: head, coded frames, room for the tail */
    uint8_t *chunk;
    size_t chunk_cap;
    tempo_bitwriter bw;
    int32_t chunk_first;
    int chunk_count;
    int run; /* frames repeating `ref` not yet written */
    uint8_t ref_in[TEMPO_MAX_PLAYERS * TEMPO_MAX_INPUT_SIZE];
    uint8_t ref_st[TEMPO_MAX_PLAYERS];
    uint8_t cur_in[TEMPO_MAX_PLAYERS * TEMPO_MAX_INPUT_SIZE];
    uint8_t cur_st[TEMPO_MAX_PLAYERS];

    /* checksums: offered and waiting; committed and not yet written */
    pending_sum pend[PENDING_SUMS];
    int npend;
    int32_t last_sum; /* newest committed check frame, -1 if none */
    uint8_t sums[RP_CHUNK_MIN + 2 + SUMS_PER_CHUNK * RP_SUM_ENTRY];
    int nsums;

    /* states: nslots waiting slots and one for final offers, each a whole
     * STATE chunk (head, frame, data, tail) so it is checksummed in place */
    int nslots;
    size_t slot_cap;
    uint8_t *slots;
    int32_t *slot_frame; /* -1: free */
    size_t *slot_size;
    int32_t last_state; /* newest state written, -1 if none */
};

/* The error a call on w returns before doing anything, or TEMPO_OK. */
tempo_result replay__writer_usable(const tempo_replay_writer *w);
/* Append frame w->end: its inputs (np * is bytes) and statuses (np), known
 * valid; the chunk is written when full. */
void replay__writer_append(tempo_replay_writer *w, const uint8_t *in, const uint8_t *st);

#endif /* TEMPO_REPLAY_WRITER_H */
