/* SPDX-License-Identifier: MIT */
/*
 * input_log.c — the confirmed-input log (see input_log.h).
 *
 * Frame f lives in record f % capacity; a record holds the frame most
 * recently committed there, so [end - capacity, end) is held once the log
 * has wrapped and [first, end) before. Appending is a copy into a fixed
 * record: nothing is allocated after init.
 */
#include "rollback/input_log.h"

#include <string.h>

tempo_result input_log_init(input_log *l, const tempo_allocator *a, int capacity, int num_players,
                            int input_size, int32_t first)
{
    memset(l, 0, sizeof *l);
    TEMPO_ASSERT(capacity >= 1 && first >= 0);
    l->capacity = capacity;
    uint32_t slots = 1;
    while (slots < (uint32_t)capacity)
        slots <<= 1;
    l->mask = slots - 1;
    l->num_players = num_players;
    l->input_size = input_size;
    l->stride = (size_t)num_players * (size_t)input_size + (size_t)num_players;
    l->first = first;
    l->end = first;
    l->data = tempo__calloc(a, (size_t)slots, l->stride);
    return l->data ? TEMPO_OK : TEMPO_E_NO_MEMORY;
}

void input_log_free(input_log *l, const tempo_allocator *a)
{
    tempo__free(a, l->data);
    l->data = NULL;
}

void input_log_restart(input_log *l, int32_t first)
{
    TEMPO_ASSERT(first >= 0);
    l->first = first;
    l->end = first;
}

int32_t input_log_oldest(const input_log *l)
{
    int64_t oldest = (int64_t)l->end - l->capacity;
    return oldest > l->first ? (int32_t)oldest : l->first;
}

bool input_log_holds(const input_log *l, int32_t frame)
{
    return frame >= input_log_oldest(l) && frame < l->end;
}

static uint8_t *record(const input_log *l, int32_t frame)
{
    return l->data + (size_t)((uint32_t)frame & l->mask) * l->stride;
}

const uint8_t *input_log_input(const input_log *l, int32_t frame, int player)
{
    if (!input_log_holds(l, frame) || player < 0 || player >= l->num_players)
        return NULL;
    return record(l, frame) + (size_t)player * (size_t)l->input_size;
}

const uint8_t *input_log_status(const input_log *l, int32_t frame)
{
    if (!input_log_holds(l, frame))
        return NULL;
    return record(l, frame) + (size_t)l->num_players * (size_t)l->input_size;
}
