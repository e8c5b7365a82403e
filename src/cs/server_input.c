/* SPDX-License-Identifier: MIT */
/*
 * server_input.c — a slot's inputs keyed by tick (server_input.h). The
 * server bounds which ticks reach this ring (no further ahead than its
 * input window, no older than the tick it runs next), so a tick never
 * overwrites one the server still needs.
 */
#include "cs/server_input.h"

#include <string.h>

void cs_slot_inputs_reset(cs_slot_inputs *s, uint8_t *data, int input_size)
{
    for (int i = 0; i < CS_INPUT_RING; i++)
        s->tick[i] = -1;
    s->data = data;
    s->input_size = input_size;
    memset(s->last, 0, sizeof s->last);
}

bool cs_slot_inputs_put(cs_slot_inputs *s, int32_t tick, const uint8_t *input)
{
    int i = (int)(tick % CS_INPUT_RING);
    if (s->tick[i] == tick)
        return false;
    s->tick[i] = tick;
    memcpy(s->data + (size_t)i * (size_t)s->input_size, input, (size_t)s->input_size);
    return true;
}

const uint8_t *cs_slot_inputs_get(const cs_slot_inputs *s, int32_t tick)
{
    int i = (int)(tick % CS_INPUT_RING);
    return s->tick[i] == tick ? s->data + (size_t)i * (size_t)s->input_size : NULL;
}
