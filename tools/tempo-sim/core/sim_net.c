/* SPDX-License-Identifier: MIT */
/*
 * sim_net.c — the simulated network of a match (sim_net.h). The network's
 * own randomness is drawn from the match's seed, so a seed names one
 * network as it names one set of bots.
 */
#include "sim_net.h"

#include <string.h>

tempo_address sim_machine_addr(int i)
{
    return tempo_address_ipv4(10, 0, 0, (uint8_t)(i + 1), 7000);
}

bool sim_net_create(const sim_options *o, int max_nodes, tempo_simnet **out)
{
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.seed = o->seed;
    if (max_nodes > 0)
        nc.max_nodes = max_nodes;
    return tempo_link_profile(o->profile, &nc.default_link) == TEMPO_OK &&
           tempo_simnet_create(&nc, out) == TEMPO_OK;
}

/* Link line l, both directions. */
static bool set_override(tempo_simnet *net, const sim_link_override *l, int machines, sim_addr_fn addr)
{
    for (int b = 0; b < machines; b++) {
        if (b == l->a || (l->b >= 0 && b != l->b) || l->a >= machines || l->b >= machines)
            continue;
        tempo_address x = addr(l->a), y = addr(b);
        if (tempo_simnet_set_link(net, &x, &y, &l->params) != TEMPO_OK ||
            tempo_simnet_set_link(net, &y, &x, &l->params) != TEMPO_OK)
            return false;
    }
    return true;
}

bool sim_net_links(tempo_simnet *net, const sim_options *o, int machines, sim_addr_fn addr)
{
    for (int k = 0; k < o->num_links; k++)
        if (o->links[k].from_us == 0 && !set_override(net, &o->links[k], machines, addr))
            return false;
    /* Behind NATs, a pair with no direct path plays through the relay:
     * its link, both ways, goes the detour's further (sim_nat.c). */
    for (int a = 0; o->has_nat && a < machines; a++)
        for (int b = a + 1; b < machines; b++) {
            if (!sim_nat_relayed(o, a, b))
                continue;
            tempo_link_params p;
            sim_nat_link(o, a, b, &p);
            tempo_address x = addr(a), y = addr(b);
            if (tempo_simnet_set_link(net, &x, &y, &p) != TEMPO_OK ||
                tempo_simnet_set_link(net, &y, &x, &p) != TEMPO_OK)
                return false;
        }
    return true;
}

bool sim_net_blackouts(tempo_simnet *net, const sim_options *o, sim_addr_fn addr)
{
    for (int k = 0; k < o->num_blackouts; k++) {
        const sim_blackout *b = &o->blackouts[k];
        tempo_address x = addr(b->a), y = addr(b->b);
        const tempo_address *other = b->b < 0 ? NULL : &y;
        if (tempo_simnet_add_blackout(net, &x, other, b->from_us, b->to_us) != TEMPO_OK ||
            tempo_simnet_add_blackout(net, other, &x, b->from_us, b->to_us) != TEMPO_OK)
            return false;
    }
    return true;
}

bool sim_net_link_steps(tempo_simnet *net, const sim_options *o, int machines, sim_addr_fn addr,
                        uint64_t after_us, uint64_t upto_us)
{
    for (int k = 0; k < o->num_links; k++) {
        const sim_link_override *l = &o->links[k];
        if (l->from_us > after_us && l->from_us <= upto_us && !set_override(net, l, machines, addr))
            return false;
    }
    return true;
}

bool sim_net_last_step(const sim_options *o, sim_link_override *out)
{
    bool any = false;
    for (int k = 0; k < o->num_links; k++)
        if (o->links[k].from_us != 0 && (!any || o->links[k].from_us >= out->from_us)) {
            *out = o->links[k];
            any = true;
        }
    return any;
}

void sim_net_link_before(const sim_options *o, int a, int b, tempo_link_params *out)
{
    memset(out, 0, sizeof *out);
    (void)tempo_link_profile(o->profile, out);
    for (int k = 0; k < o->num_links; k++) {
        const sim_link_override *l = &o->links[k];
        if (l->from_us == 0 && ((l->a == a && (l->b < 0 || l->b == b)) || (l->a == b && (l->b < 0 || l->b == a))))
            *out = l->params;
    }
}
