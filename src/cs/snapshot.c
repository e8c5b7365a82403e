/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c — the history of states (snapshot.h). States go round the
 * ring in the order they are stored, so the newest `count` states are
 * held whatever the ticks between them; a lookup scans the ring (at most
 * CS_HISTORY_MAX entries).
 */
#include "cs/snapshot.h"

static int find(const cs_history *h, int32_t tick)
{
    if (tick < 0)
        return -1;
    for (int i = 0; i < h->count; i++)
        if (h->tick[i] == tick)
            return i;
    return -1;
}

void cs_history_init(cs_history *h, int count, size_t capacity, uint8_t *memory)
{
    h->count = count;
    h->capacity = capacity;
    h->states = memory;
    h->next = 0;
    for (int i = 0; i < CS_HISTORY_MAX; i++) {
        h->tick[i] = -1;
        h->size[i] = 0;
    }
}

uint8_t *cs_history_put(cs_history *h, int32_t tick, size_t size)
{
    if (size > h->capacity || tick < 0)
        return NULL;
    int i = find(h, tick);
    if (i < 0) {
        i = h->next;
        h->next = (h->next + 1) % h->count;
    }
    h->tick[i] = tick;
    h->size[i] = size;
    return h->states + (size_t)i * h->capacity;
}

const uint8_t *cs_history_get(const cs_history *h, int32_t tick, size_t *size)
{
    int i = find(h, tick);
    if (i < 0)
        return NULL;
    if (size != NULL)
        *size = h->size[i];
    return h->states + (size_t)i * h->capacity;
}

void cs_history_drop(cs_history *h, int32_t tick)
{
    int i = find(h, tick);
    if (i >= 0)
        h->tick[i] = -1;
}
