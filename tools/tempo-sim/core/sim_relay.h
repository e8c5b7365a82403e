/* SPDX-License-Identifier: MIT */
/*
 * sim_relay.h — the tempo relay as one more node of the simulated network
 * (sim_relay.c), shared by the p2p match (--topology relay) and the
 * lockstep comparisons (their relay rows).
 */
#ifndef TEMPO_SIM_RELAY_H
#define TEMPO_SIM_RELAY_H

#include "sim.h"
#include "tempo/relay.h"

#define SIM_RELAY_MATCH_ID 0x7e1a4u
#define SIM_RELAY_TICK_US 2000u /* the relay is updated this often */

typedef struct sim_relay_node {
    tempo_relay *relay;
    tempo_transport tr;
    tempo_address addr;
    uint64_t next_vt;         /* its next update */
} sim_relay_node;

/* The relay's address on the simulated network. */
tempo_address sim_relay_addr(void);
/* Add the relay to net and create it. Each machine's link to it takes the
 * machine's own link profile (a --link A-* line), else the default. machine_addr
 * gives machine i's address. Returns false with a message on stderr. */
bool sim_relay_node_create(sim_relay_node *n, tempo_simnet *net, const sim_options *o,
                           tempo_address (*machine_addr)(int), int machines);
/* Update the relay for every SIM_RELAY_TICK_US due up to vt. */
void sim_relay_node_step(sim_relay_node *n, tempo_simnet *net, uint64_t vt);
void sim_relay_node_destroy(sim_relay_node *n);

#endif /* TEMPO_SIM_RELAY_H */
