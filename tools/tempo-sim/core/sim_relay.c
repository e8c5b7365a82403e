/* SPDX-License-Identifier: MIT */
/*
 * sim_relay.c — the tempo relay as one more node of the simulated network,
 * for --topology relay and the relay row of --compare lockstep.
 *
 * The relay is unsealed (members join without tokens, match id
 * SIM_RELAY_MATCH_ID) and keeps the library's defaults otherwise: 100 ms
 * tolerance before it substitutes a late input. A player's link to the
 * relay is the player's own link (its --link A-* line), so a player on a
 * terrible connection is terrible to reach in a mesh and through the relay
 * alike. The relay is updated every SIM_RELAY_TICK_US of virtual time.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_relay.h"

tempo_address sim_relay_addr(void)
{
    return tempo_address_ipv4(10, 0, 1, 1, 9000);
}

bool sim_relay_node_create(sim_relay_node *n, tempo_simnet *net, const sim_options *o,
                           tempo_address (*machine_addr)(int), int machines)
{
    memset(n, 0, sizeof *n);
    n->addr = sim_relay_addr();
    if (tempo_simnet_add_node(net, &n->addr, &n->tr) != TEMPO_OK) {
        fprintf(stderr, "tempo-sim: cannot add the relay to the network\n");
        return false;
    }
    for (int k = 0; k < o->num_links; k++) {
        const sim_link_override *l = &o->links[k];
        if (l->b >= 0 || l->a >= machines)
            continue;
        tempo_address a = machine_addr(l->a);
        if (tempo_simnet_set_link(net, &a, &n->addr, &l->params) != TEMPO_OK ||
            tempo_simnet_set_link(net, &n->addr, &a, &l->params) != TEMPO_OK) {
            fprintf(stderr, "tempo-sim: cannot set machine %d's link to the relay\n", l->a);
            return false;
        }
    }
    tempo_relay_config c;
    tempo_relay_config_default(&c);
    for (int i = 0; i < TEMPO_KEY_SIZE; i++)
        c.cookie_key[i] = (uint8_t)(o->seed >> (8 * (i % 8))) ^ (uint8_t)(0x5A + i);
    c.max_matches = 1;
    c.max_members = SIM_MAX_MACHINES;
    c.max_frame_bytes = TEMPO_MAX_PLAYERS * TEMPO_MAX_INPUT_SIZE;
    tempo_result r = tempo_relay_create(&c, &n->tr, &n->relay);
    if (r != TEMPO_OK) {
        fprintf(stderr, "tempo-sim: cannot create the relay: %s\n", tempo_strerror(r));
        return false;
    }
    return true;
}

void sim_relay_node_step(sim_relay_node *n, tempo_simnet *net, uint64_t vt)
{
    while (n->relay && n->next_vt <= vt) {
        tempo_simnet_set_time(net, n->next_vt);
        tempo_relay_update(n->relay, n->next_vt, 1000000u + n->next_vt / 1000000u);
        n->next_vt += SIM_RELAY_TICK_US;
    }
    tempo_simnet_set_time(net, vt);
}

void sim_relay_node_destroy(sim_relay_node *n)
{
    tempo_relay_destroy(n->relay);
    n->relay = NULL;
}
