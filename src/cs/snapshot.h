/* SPDX-License-Identifier: MIT */
/*
 * snapshot.h — a history of game states keyed by tick, over memory
 * allocated once: the server keeps the states it sent as delta baselines,
 * the client the states it received as the bases of the next deltas. A
 * state is coded against a baseline the receiver holds (wire/delta.h), or
 * against zeros (a full state) when there is none.
 */
#ifndef TEMPO_CS_SNAPSHOT_H
#define TEMPO_CS_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CS_HISTORY_MAX 64

typedef struct cs_history {
    int count;                   /* states held at most */
    size_t capacity;             /* bytes per state */
    int32_t tick[CS_HISTORY_MAX];/* -1: empty */
    size_t size[CS_HISTORY_MAX];
    uint8_t *states;             /* count * capacity bytes, the owner's */
    int next;                    /* the entry the next new tick takes */
} cs_history;

void cs_history_init(cs_history *h, int count, size_t capacity, uint8_t *memory);
/* Room for the state of `tick` (replacing the oldest), to fill with size
 * bytes; NULL if size is above the capacity. */
uint8_t *cs_history_put(cs_history *h, int32_t tick, size_t size);
/* The state of `tick` and its size, or NULL. */
const uint8_t *cs_history_get(const cs_history *h, int32_t tick, size_t *size);
/* Forget the state of `tick` (a state that did not decode). */
void cs_history_drop(cs_history *h, int32_t tick);

#endif /* TEMPO_CS_SNAPSHOT_H */
