/* SPDX-License-Identifier: MIT */
/*
 * sim_net.h — the simulated network every mode with machines builds
 * (sim_net.c): one simnet seeded from the match, every link the --profile
 * unless a --link line says otherwise, a scenario's blackouts, and the
 * machines' addresses. Built alike for the p2p match, client-server and
 * lockstep, so a --link line means the same link in each.
 */
#ifndef TEMPO_SIM_NET_H
#define TEMPO_SIM_NET_H

#include "sim.h"

/* Machine i's address on the simulated network, by the mode's own rule. */
typedef tempo_address (*sim_addr_fn)(int machine);

/* The address of machine i (0..254) of a p2p or lockstep match. */
tempo_address sim_machine_addr(int i);

/* A simnet seeded with o->seed whose every link is o->profile; max_nodes
 * 0 keeps simnet's default. False if the profile is unknown or simnet
 * cannot be created. */
bool sim_net_create(const sim_options *o, int max_nodes, tempo_simnet **out);
/* Each --link line between machines 0..machines-1 (both directions; A-*:
 * every other machine) that holds from the start; lines naming a machine
 * outside are skipped. */
bool sim_net_links(tempo_simnet *net, const sim_options *o, int machines, sim_addr_fn addr);
/* The link lines of steps ("from TIME") due in (after_us, upto_us] of
 * virtual time, as sim_net_links sets them. */
bool sim_net_link_steps(tempo_simnet *net, const sim_options *o, int machines, sim_addr_fn addr,
                        uint64_t after_us, uint64_t upto_us);
/* The link between machines a and b from the start: the last link line
 * for the pair without a step, else the profile. */
void sim_net_link_before(const sim_options *o, int a, int b, tempo_link_params *out);
/* The scenario's last step (the latest "from"), into *out; false if none. */
bool sim_net_last_step(const sim_options *o, sim_link_override *out);
/* Each blackout of the scenario as simnet windows, both directions
 * (b < 0: between a and any machine). */
bool sim_net_blackouts(tempo_simnet *net, const sim_options *o, sim_addr_fn addr);

#endif /* TEMPO_SIM_NET_H */
