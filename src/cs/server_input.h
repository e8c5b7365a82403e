/* SPDX-License-Identifier: MIT */
/*
 * server_input.h — the server's input of one player slot, keyed by tick: a
 * ring of CS_INPUT_RING ticks over memory the server allocated at create.
 * An entry holds the input of the tick it is tagged with; a tag of -1 or
 * of another tick means "not here". Redundant copies of an input are
 * ignored: the first copy of a tick stays.
 */
#ifndef TEMPO_CS_SERVER_INPUT_H
#define TEMPO_CS_SERVER_INPUT_H

#include <stdbool.h>
#include <stdint.h>

/* Ticks remembered per slot: more than the largest input window (128)
 * ahead plus the past a late copy may still name. */
#define CS_INPUT_RING 256

typedef struct cs_slot_inputs {
    int32_t tick[CS_INPUT_RING];
    uint8_t *data;          /* CS_INPUT_RING * input_size bytes, the server's */
    int input_size;
    uint8_t last[64];       /* the newest input played (TEMPO_MAX_INPUT_SIZE) */
} cs_slot_inputs;

/* Empty the ring over `data`; the last input becomes zeros. */
void cs_slot_inputs_reset(cs_slot_inputs *s, uint8_t *data, int input_size);
/* Store the input of `tick` (>= 0). False if that tick was already here. */
bool cs_slot_inputs_put(cs_slot_inputs *s, int32_t tick, const uint8_t *input);
/* The input of `tick`, or NULL if it is not here. */
const uint8_t *cs_slot_inputs_get(const cs_slot_inputs *s, int32_t tick);

#endif /* TEMPO_CS_SERVER_INPUT_H */
