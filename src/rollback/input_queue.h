/* SPDX-License-Identifier: MIT */
/*
 * input_queue.h — one player's inputs, real and predicted, by frame.
 *
 * A ring of `capacity` frames starting at `base`. Real inputs may arrive out
 * of order; `known_end` is the end of the contiguous run of real inputs
 * (every frame below it is real). A frame the game simulated without its real
 * input remembers the guess it was given, so when the real input arrives the
 * queue can say whether the guess was wrong. Real inputs never change once
 * stored. From `disconnect_frame` on, the player's input is zero and
 * DISCONNECTED. A player attached at frame A after a drop (or to a slot that
 * was open) keeps the frames before A as stored zero inputs flagged
 * IQ_DISCONNECTED, so they read DISCONNECTED forever while later frames are
 * real again. The one exception to "never change": iq_override, for a
 * relay's substitute of a local input (member/relay_member.c), before the
 * frame is confirmed.
 */
#ifndef TEMPO_ROLLBACK_INPUT_QUEUE_H
#define TEMPO_ROLLBACK_INPUT_QUEUE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/common.h"
#include "tempo/config.h"

#define IQ_NO_FRAME INT32_MAX

typedef struct input_queue {
    int input_size;
    int capacity;             /* power of two */
    int32_t base;             /* oldest frame held */
    int32_t known_end;        /* frames below are all real */
    int32_t disconnect_frame; /* IQ_NO_FRAME while connected */
    uint8_t *inputs;          /* capacity * input_size: real inputs */
    uint8_t *guesses;         /* capacity * input_size: the prediction last used */
    uint8_t *flags;           /* capacity: IQ_REAL | IQ_GUESSED */
    tempo_predict_fn predict;
    void *predict_ctx;
    int player;
} input_queue;

enum { IQ_REAL = 1, IQ_GUESSED = 2, IQ_DISCONNECTED = 4 };

/* What iq_add found. */
typedef enum iq_add_result {
    IQ_ADDED = 0,      /* stored */
    IQ_DUPLICATE = 1,  /* frame already held (or disconnected): ignored */
    IQ_MISPREDICTED = 2 /* stored, and the guess the game used for it was wrong */
} iq_add_result;

/* Allocate the ring. Returns TEMPO_OK or TEMPO_E_NO_MEMORY. */
tempo_result iq_init(input_queue *q, const tempo_allocator *a, int player, int input_size,
                     int capacity, tempo_predict_fn predict, void *predict_ctx);
void iq_free(input_queue *q, const tempo_allocator *a);

/* Make `frame` the first frame held and known_end: a session that starts
 * there (nothing stored yet). */
void iq_start_at(input_queue *q, int32_t frame);
/* Forget every input and the disconnection: the queue starts again at
 * `frame` (a session rejoining a match), allocating nothing. */
void iq_restart_at(input_queue *q, int32_t frame);

/* Store the real input of `frame`. Returns an iq_add_result, or
 * TEMPO_E_FRAME if the frame is below base or beyond base + capacity. */
int iq_add(input_queue *q, int32_t frame, const uint8_t *input);

/* Store `input` as the real input of `frame` even if a different one is
 * stored (a relay replaced it). Returns IQ_ADDED (was empty), IQ_DUPLICATE
 * (the same input, or a disconnected frame), IQ_MISPREDICTED (replaced: a
 * game that simulated the frame simulated the wrong input), or
 * TEMPO_E_FRAME (not held). */
int iq_override(input_queue *q, int32_t frame, const uint8_t *input);

/* True if the queue can hold `frame` (base <= frame < base + capacity). */
bool iq_holds(const input_queue *q, int32_t frame);

/* Copy one input: the common sizes as fixed-size copies (single moves
 * instead of a call to memcpy), since this runs for every player of every
 * frame simulated, resimulated or logged. */
static inline void iq_copy_input(uint8_t *dst, const uint8_t *src, size_t size)
{
    switch (size) {
    case 1: dst[0] = src[0]; break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    default: memcpy(dst, src, size); break;
    }
}

/* iq_get of a frame that is not simply real: disconnected or guessed. */
int iq_get_other(input_queue *q, int32_t frame, uint8_t *out);

/* The input the game should use at `frame` (base <= frame): real,
 * disconnected (zero) or a guess, which is remembered. Returns the
 * tempo_input_status. A real input, what a resimulation mostly reads, is
 * copied here without a call. */
static inline int iq_get(input_queue *q, int32_t frame, uint8_t *out)
{
    if (frame < q->disconnect_frame) {
        uint32_t slot = (uint32_t)frame & (uint32_t)(q->capacity - 1);
        uint8_t flags = q->flags[slot];
        if ((flags & (IQ_REAL | IQ_DISCONNECTED)) == IQ_REAL && frame >= q->base) {
            size_t n = (size_t)q->input_size;
            iq_copy_input(out, q->inputs + slot * n, n);
            return TEMPO_INPUT_CONFIRMED;
        }
    }
    return iq_get_other(q, frame, out);
}

/* The input of a known frame (iq_known), as the game plays it: copies it
 * and returns TEMPO_INPUT_CONFIRMED or TEMPO_INPUT_DISCONNECTED. */
int iq_known_input(const input_queue *q, int32_t frame, uint8_t *out);

/* The stored real input of frame, if any (for sending and delta references). */
bool iq_real(const input_queue *q, int32_t frame, uint8_t *out);

/* True if `frame` counts as known: real, or at/after the disconnect frame. */
bool iq_known(const input_queue *q, int32_t frame);

/* End of the contiguous known frames, counting disconnected frames as known
 * (IQ_NO_FRAME if every frame from here on is known). */
int32_t iq_known_end(const input_queue *q);

/* Mark the player disconnected from `frame` (>= base). Returns the first frame
 * the game simulated with a guess that is now wrong, or IQ_NO_FRAME. */
int32_t iq_disconnect(input_queue *q, int32_t frame, int32_t simulated_end);

/* Give a disconnected player (or an open slot, disconnected from its first
 * frame) real inputs again from `frame` on: the frames from the disconnect
 * frame up to `frame` stay zero and DISCONNECTED, inputs stored beyond them
 * before the drop are forgotten, and known_end becomes `frame`. `frame` must
 * be at least the disconnect frame and held (iq_holds). */
void iq_attach(input_queue *q, int32_t frame);

/* Forget frames below `frame` (they will never be read again). */
void iq_discard_before(input_queue *q, int32_t frame);

#endif /* TEMPO_ROLLBACK_INPUT_QUEUE_H */
