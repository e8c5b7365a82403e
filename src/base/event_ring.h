/* SPDX-License-Identifier: MIT */
/*
 * event_ring.h — the queue of events an object keeps until its caller
 * polls them: first in, first out, of a fixed capacity; when it is full a
 * new event pushes the oldest out, and that loss is counted. The client's,
 * the server's, the sessions' and lockstep's event queues are all one.
 *
 * The ring holds positions, not events: its owner keeps a typed array of
 * `cap` events beside it, writes an event into the slot a push hands out
 * and reads one from the slot a pop hands out. So one ring serves every
 * event type, copies nothing through void pointers, and allocates nothing.
 * Internal: not installed.
 */
#ifndef TEMPO_BASE_EVENT_RING_H
#define TEMPO_BASE_EVENT_RING_H

#include <stdint.h>

typedef struct event_ring {
    int cap;          /* slots in the owner's array, >= 1 */
    int head;         /* slot of the oldest event held */
    int count;        /* events held, 0..cap */
    uint64_t dropped; /* events pushed out by newer ones, since init */
} event_ring;

/* An empty ring over an array of cap slots (cap >= 1). */
void event_ring_init(event_ring *r, int cap);

/* The slot the newest event goes to, which the caller fills at once. A
 * full ring first drops its oldest event (dropped + 1). */
int event_ring_push(event_ring *r);

/* Take the oldest event off the ring: its slot, or -1 when the ring is
 * empty. The slot keeps the event until the next push. */
int event_ring_pop(event_ring *r);

#endif /* TEMPO_BASE_EVENT_RING_H */
