/* SPDX-License-Identifier: MIT */
/*
 * input_queue.c — one player's inputs by frame (see input_queue.h).
 *
 * Invariants: frames in [base, base + capacity) map to slot frame & (capacity
 * - 1); a slot's flags describe only the frame currently mapped to it (slots
 * are cleared when base moves past them); every frame in [base, known_end) is
 * IQ_REAL; a real input is never overwritten. A frame flagged
 * IQ_DISCONNECTED is also IQ_REAL, with a zero input.
 */
#include "rollback/input_queue.h"

#include <string.h>

static int slot_of(const input_queue *q, int32_t frame)
{
    return (int)((uint32_t)frame & (uint32_t)(q->capacity - 1));
}

tempo_result iq_init(input_queue *q, const tempo_allocator *a, int player, int input_size,
                     int capacity, tempo_predict_fn predict, void *predict_ctx)
{
    memset(q, 0, sizeof *q);
    TEMPO_ASSERT(capacity > 0 && (capacity & (capacity - 1)) == 0);
    q->player = player;
    q->input_size = input_size;
    q->capacity = capacity;
    q->disconnect_frame = IQ_NO_FRAME;
    q->predict = predict;
    q->predict_ctx = predict_ctx;
    q->inputs = tempo__calloc(a, (size_t)capacity, (size_t)input_size);
    q->guesses = tempo__calloc(a, (size_t)capacity, (size_t)input_size);
    q->flags = tempo__calloc(a, (size_t)capacity, 1);
    if (!q->inputs || !q->guesses || !q->flags) {
        iq_free(q, a);
        return TEMPO_E_NO_MEMORY;
    }
    return TEMPO_OK;
}

void iq_free(input_queue *q, const tempo_allocator *a)
{
    tempo__free(a, q->inputs);
    tempo__free(a, q->guesses);
    tempo__free(a, q->flags);
    q->inputs = q->guesses = q->flags = NULL;
}

void iq_start_at(input_queue *q, int32_t frame)
{
    TEMPO_ASSERT(frame >= 0);
    q->base = frame;
    q->known_end = frame;
}

void iq_restart_at(input_queue *q, int32_t frame)
{
    TEMPO_ASSERT(frame >= 0);
    memset(q->flags, 0, (size_t)q->capacity);
    q->disconnect_frame = IQ_NO_FRAME;
    q->base = frame;
    q->known_end = frame;
}

bool iq_holds(const input_queue *q, int32_t frame)
{
    return frame >= q->base && (int64_t)frame < (int64_t)q->base + q->capacity;
}

int iq_add(input_queue *q, int32_t frame, const uint8_t *input)
{
    if (!iq_holds(q, frame))
        return TEMPO_E_FRAME;
    if (frame >= q->disconnect_frame)
        return IQ_DUPLICATE;
    int s = slot_of(q, frame);
    if (q->flags[s] & IQ_REAL)
        return IQ_DUPLICATE;
    uint8_t *dst = q->inputs + (size_t)s * (size_t)q->input_size;
    iq_copy_input(dst, input, (size_t)q->input_size);
    int result = IQ_ADDED;
    if ((q->flags[s] & IQ_GUESSED) &&
        memcmp(dst, q->guesses + (size_t)s * (size_t)q->input_size, (size_t)q->input_size) != 0)
        result = IQ_MISPREDICTED;
    q->flags[s] = IQ_REAL;
    while (q->known_end < q->disconnect_frame && iq_holds(q, q->known_end) &&
           (q->flags[slot_of(q, q->known_end)] & IQ_REAL))
        q->known_end++;
    return result;
}

int iq_override(input_queue *q, int32_t frame, const uint8_t *input)
{
    if (!iq_holds(q, frame))
        return TEMPO_E_FRAME;
    if (frame >= q->disconnect_frame)
        return IQ_DUPLICATE;
    int s = slot_of(q, frame);
    if (!(q->flags[s] & IQ_REAL))
        return iq_add(q, frame, input);
    uint8_t *dst = q->inputs + (size_t)s * (size_t)q->input_size;
    if (memcmp(dst, input, (size_t)q->input_size) == 0)
        return IQ_DUPLICATE;
    iq_copy_input(dst, input, (size_t)q->input_size);
    return IQ_MISPREDICTED;
}

bool iq_real(const input_queue *q, int32_t frame, uint8_t *out)
{
    if (!iq_holds(q, frame) || frame >= q->disconnect_frame)
        return false;
    int s = slot_of(q, frame);
    if (!(q->flags[s] & IQ_REAL))
        return false;
    iq_copy_input(out, q->inputs + (size_t)s * (size_t)q->input_size, (size_t)q->input_size);
    return true;
}

bool iq_known(const input_queue *q, int32_t frame)
{
    if (frame >= q->disconnect_frame)
        return true;
    return iq_holds(q, frame) && (q->flags[slot_of(q, frame)] & IQ_REAL);
}

int32_t iq_known_end(const input_queue *q)
{
    /* Disconnected frames count as known once the real run reaches them. */
    if (q->known_end >= q->disconnect_frame)
        return IQ_NO_FRAME;
    return q->known_end;
}

int iq_get_other(input_queue *q, int32_t frame, uint8_t *out)
{
    size_t n = (size_t)q->input_size;
    if (frame >= q->disconnect_frame) {
        memset(out, 0, n);
        return TEMPO_INPUT_DISCONNECTED;
    }
    TEMPO_ASSERT(iq_holds(q, frame));
    int s = slot_of(q, frame);
    if (q->flags[s] & IQ_REAL) {
        iq_copy_input(out, q->inputs + (size_t)s * n, n);
        return q->flags[s] & IQ_DISCONNECTED ? TEMPO_INPUT_DISCONNECTED : TEMPO_INPUT_CONFIRMED;
    }
    /* Guess from the newest input of the contiguous real run. */
    uint8_t last[TEMPO_MAX_INPUT_SIZE];
    int32_t last_frame = q->known_end - 1;
    if (last_frame >= q->base && last_frame >= 0)
        iq_copy_input(last, q->inputs + (size_t)slot_of(q, last_frame) * n, n);
    else {
        memset(last, 0, n);
        if (last_frame < q->base)
            last_frame = -1;
    }
    uint8_t *guess = q->guesses + (size_t)s * n;
    if (q->predict)
        q->predict(q->predict_ctx, q->player, frame, last, last_frame, guess, q->input_size);
    else
        iq_copy_input(guess, last, n);
    q->flags[s] |= IQ_GUESSED;
    iq_copy_input(out, guess, n);
    return TEMPO_INPUT_PREDICTED;
}

int iq_known_input(const input_queue *q, int32_t frame, uint8_t *out)
{
    size_t n = (size_t)q->input_size;
    if (frame >= q->disconnect_frame) {
        memset(out, 0, n);
        return TEMPO_INPUT_DISCONNECTED;
    }
    int s = slot_of(q, frame);
    TEMPO_ASSERT(iq_holds(q, frame) && (q->flags[s] & IQ_REAL));
    iq_copy_input(out, q->inputs + (size_t)s * n, n);
    return q->flags[s] & IQ_DISCONNECTED ? TEMPO_INPUT_DISCONNECTED : TEMPO_INPUT_CONFIRMED;
}

int32_t iq_disconnect(input_queue *q, int32_t frame, int32_t simulated_end)
{
    TEMPO_ASSERT(frame >= q->base);
    q->disconnect_frame = frame;
    if (q->known_end > frame)
        q->known_end = frame;
    /* Frames from here on change status (and maybe input): any simulated one
     * must be simulated again. */
    return frame < simulated_end ? frame : IQ_NO_FRAME;
}

void iq_attach(input_queue *q, int32_t frame)
{
    TEMPO_ASSERT(q->disconnect_frame != IQ_NO_FRAME && frame >= q->disconnect_frame);
    TEMPO_ASSERT(iq_holds(q, frame));
    size_t n = (size_t)q->input_size;
    int32_t from = q->disconnect_frame > q->base ? q->disconnect_frame : q->base;
    /* Every slot from the disconnect frame on: below `frame` a stored
     * disconnection, from it on empty (inputs that came early before the
     * drop belong to the player who left). */
    for (int32_t f = from; f < q->base + q->capacity; f++) {
        int s = slot_of(q, f);
        q->flags[s] = f < frame ? (uint8_t)(IQ_REAL | IQ_DISCONNECTED) : 0;
        if (f < frame)
            memset(q->inputs + (size_t)s * n, 0, n);
    }
    q->disconnect_frame = IQ_NO_FRAME;
    q->known_end = frame;
}

void iq_discard_before(input_queue *q, int32_t frame)
{
    if (frame <= q->base)
        return;
    /* Only frames every player has confirmed are ever forgotten. */
    TEMPO_ASSERT(frame <= q->known_end || q->known_end >= q->disconnect_frame);
    int32_t stop = frame;
    if ((int64_t)stop - q->base > q->capacity)
        stop = q->base + q->capacity;
    for (int32_t f = q->base; f < stop; f++)
        q->flags[slot_of(q, f)] = 0;
    q->base = frame;
}
