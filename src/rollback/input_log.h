/* SPDX-License-Identifier: MIT */
/*
 * input_log.h — the confirmed-input log: for each of the newest `capacity`
 * confirmed frames, every player's input and status (CONFIRMED or
 * DISCONNECTED), as the game played it.
 *
 * The engine appends a frame once it is confirmed (every input real or
 * disconnected) and simulated; nothing in the log ever changes after. Readers
 * (the public read API, the spectator feed, and later replays and relays)
 * take frames from [oldest, end); older frames were overwritten.
 */
#ifndef TEMPO_ROLLBACK_INPUT_LOG_H
#define TEMPO_ROLLBACK_INPUT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/common.h"

typedef struct input_log {
    int capacity;         /* frames held, >= 1 */
    uint32_t mask;        /* ring slots - 1: a power of two >= capacity, so a frame's
                             slot is a mask, not a division */
    int num_players, input_size;
    size_t stride;        /* bytes per frame: inputs of every player, then statuses */
    int32_t first;        /* the first frame the log ever held (the session's start) */
    int32_t end;          /* frames below are logged; the last `capacity` are held */
    uint8_t *data;        /* capacity * stride */
} input_log;

/* Allocate a log of `capacity` frames starting at frame `first`. Returns
 * TEMPO_OK or TEMPO_E_NO_MEMORY. */
tempo_result input_log_init(input_log *l, const tempo_allocator *a, int capacity, int num_players,
                            int input_size, int32_t first);
void input_log_free(input_log *l, const tempo_allocator *a);
/* Empty the log; it starts again at frame `first` (allocates nothing). */
void input_log_restart(input_log *l, int32_t first);

/* The oldest frame still held (end when the log is empty). */
int32_t input_log_oldest(const input_log *l);

/* True if frame lies in [oldest, end). */
bool input_log_holds(const input_log *l, int32_t frame);

/* The storage of frame `end`: inputs (num_players * input_size bytes) and
 * *status (num_players bytes). The caller fills both, then calls
 * input_log_commit. */
static inline uint8_t *input_log_begin(input_log *l, uint8_t **status)
{
    uint8_t *r = l->data + (size_t)((uint32_t)l->end & l->mask) * l->stride;
    *status = r + (size_t)l->num_players * (size_t)l->input_size;
    return r;
}
static inline void input_log_commit(input_log *l)
{
    l->end++;
}

/* A held frame's input of one player, or NULL if the frame is not held. */
const uint8_t *input_log_input(const input_log *l, int32_t frame, int player);
/* A held frame's statuses (num_players bytes), or NULL if not held. */
const uint8_t *input_log_status(const input_log *l, int32_t frame);

#endif /* TEMPO_ROLLBACK_INPUT_LOG_H */
