/* SPDX-License-Identifier: MIT */
/*
 * event_ring.c — a bounded FIFO of slot positions that drops its oldest
 * when full (event_ring.h). Invariant: 0 <= head < cap, 0 <= count <= cap;
 * the events held are the slots head, head + 1, ... count of them, modulo
 * cap, oldest first.
 */
#include "base/event_ring.h"

#include "base/common.h"

void event_ring_init(event_ring *r, int cap)
{
    TEMPO_ASSERT(cap >= 1);
    r->cap = cap;
    r->head = 0;
    r->count = 0;
    r->dropped = 0;
}

int event_ring_push(event_ring *r)
{
    if (r->count == r->cap) { /* the oldest goes */
        r->head = (r->head + 1) % r->cap;
        r->count--;
        r->dropped++;
    }
    int slot = (r->head + r->count) % r->cap;
    r->count++;
    return slot;
}

int event_ring_pop(event_ring *r)
{
    if (r->count == 0)
        return -1;
    int slot = r->head;
    r->head = (r->head + 1) % r->cap;
    r->count--;
    return slot;
}
