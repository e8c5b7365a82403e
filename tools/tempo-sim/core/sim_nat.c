/* SPDX-License-Identifier: MIT */
/*
 * sim_nat.c — which pairs of a match behind NATs play through a relay,
 * and what that costs them, as an approximation (docs/NAT.md, "In
 * tempo-sim"): the path is the one tests/nat_lab.sh measured for the two
 * NAT types (direct for every pair but symmetric against symmetric or
 * port-restricted), and a relayed pair's link is its own link with
 * SIM_RELAY_DETOUR_MS more latency each way. Punching itself (a few
 * probes, tens of milliseconds) is not simulated.
 */
#include <string.h>

#include "sim.h"

static const char *const names[] = {"none", "fc", "arc", "prc", "sym"};

const char *sim_nat_name(int nat)
{
    return nat >= 0 && nat < (int)(sizeof names / sizeof names[0]) ? names[nat] : "none";
}

int sim_nat_parse(const char *s)
{
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

bool sim_nat_relayed(const sim_options *o, int a, int b)
{
    int x = o->nat[a], y = o->nat[b];
    return (x == SIM_NAT_SYMMETRIC && (y == SIM_NAT_SYMMETRIC || y == SIM_NAT_PORT)) ||
           (y == SIM_NAT_SYMMETRIC && x == SIM_NAT_PORT);
}

void sim_nat_link(const sim_options *o, int a, int b, tempo_link_params *out)
{
    memset(out, 0, sizeof *out);
    if (o->profile)
        (void)tempo_link_profile(o->profile, out);
    /* the link lines, later ones winning, as the match sets them */
    for (int k = 0; k < o->num_links; k++) {
        const sim_link_override *l = &o->links[k];
        if ((l->a == a && (l->b < 0 || l->b == b)) || (l->a == b && (l->b < 0 || l->b == a)))
            *out = l->params;
    }
    out->latency_us += (uint32_t)SIM_RELAY_DETOUR_MS * 1000u;
}
