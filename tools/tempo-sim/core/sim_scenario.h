/* SPDX-License-Identifier: MIT */
/*
 * sim_scenario.h — what tempo-sim's scenario reader (sim_scenario.c) and
 * writer (sim_scenario_write.c) share: the link parameters by name.
 * (Reading and writing themselves are declared in sim.h.)
 */
#ifndef TEMPO_SIM_SCENARIO_H
#define TEMPO_SIM_SCENARIO_H

#include <stddef.h>

#include "sim.h"

typedef enum sim_key_kind {
    SIM_KEY_TIME,  /* microseconds; named `<name>_ms` or `<name>_us` in files */
    SIM_KEY_PROB,  /* a probability 0..1 */
    SIM_KEY_COUNT  /* a whole number */
} sim_key_kind;

/* One field of tempo_link_params, by name. */
typedef struct sim_link_key {
    const char *name;
    size_t offset;
    sim_key_kind kind;
} sim_link_key;

#define SIM_NUM_LINK_KEYS 14

/* Every field of tempo_link_params, in the order files write them. */
extern const sim_link_key sim_link_keys[SIM_NUM_LINK_KEYS];

/* The field k of *p (uint32_t for times and counts, double for probabilities). */
uint32_t *sim_link_key_u32(tempo_link_params *p, const sim_link_key *k);
double *sim_link_key_double(tempo_link_params *p, const sim_link_key *k);

#endif /* TEMPO_SIM_SCENARIO_H */
