/* SPDX-License-Identifier: MIT */
/*
 * sim_attack.c — tempo-sim --attack N: a match (sealed unless --seal off)
 * under N forged datagrams, five in six from a spoofer (random bytes, plain
 * DISCONNECTs and far-ahead INPUT acks under peers' addresses, captured
 * datagrams mutated and replayed) and one in six a handshake flood from
 * strangers, spread from 1 s into the match to 1 s before its planned end
 * (sim_hostile.c). It prints what was sent by kind, what the sessions
 * accepted, whether the match was disturbed, and how long it took.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "sim_out.h"
#include "sim_match.h"

static bool write_json(const sim_options *o, const sim_result *r)
{
    sim_json j;
    if (!sim_json_open(&j, o->json_path))
        return false;
    sim_json_match(&j, o, r);
    sim_json_close(&j);
    return true;
}

int sim_attack(const sim_options *o)
{
    sim_result *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "tempo-sim: out of memory\n");
        return SIM_EXIT_USAGE;
    }
    double t0 = sim_wall_seconds();
    int code = sim_match_run(o, r, NULL, NULL, NULL);
    double wall = sim_wall_seconds() - t0;
    if (code != SIM_EXIT_OK) {
        free(r);
        return code;
    }
    const sim_security *sec = &r->security;
    char why[200];
    bool failed = sim_security_failed(o, r, why, sizeof why);
    if (!failed && sec->hostile.sent != (uint64_t)o->attack) {
        failed = true;
        snprintf(why, sizeof why, "only %" PRIu64 " of %d datagrams were sent", sec->hostile.sent, o->attack);
    }
    if (!o->quiet) {
        char desc[768];
        sim_describe(o, desc, sizeof desc);
        printf("tempo-sim --attack %d: %s\n", o->attack, desc);
        sim_security_print(stdout, o, r);
        printf("\n%-28s %12s %10s\n", "sent by kind", "datagrams", "accepted");
        uint64_t by[SIM_HW_COUNT] = {0}, acc[SIM_HW_COUNT] = {0};
        for (int k = 0; k < sec->num_actors; k++)
            for (int w = 0; w < SIM_HW_COUNT; w++) {
                by[w] += sec->actor[k].by[w].sent;
                acc[w] += sec->actor[k].by[w].accepted;
            }
        for (int w = 0; w < SIM_HW_COUNT; w++)
            if (by[w])
                printf("%-28s %12" PRIu64 " %10" PRIu64 "\n", sim_hostile_what_name(w), by[w], acc[w]);
        printf("%-28s %12" PRIu64 " %10" PRIu64 "\n", "all", sec->hostile.sent, sec->hostile.accepted);
        printf("\nsealed:               %s\n", sec->sealed ? "yes" : "NO");
        printf("accepted:             %" PRIu64 "\n", sec->hostile.accepted);
        printf("desyncs:              %" PRIu64 "\n", r->desyncs);
        printf("honest peers dropped: %" PRIu64 "\n", sec->honest_drops);
        printf("converged:            %s\n", r->converged ? "yes" : "NO");
        printf("counts add up:        %s\n", sec->sums_add_up ? "yes" : "NO");
        printf("time:                 %.2f s wall for %.1f s of virtual time (%.0f forged datagrams a second)\n",
               wall, r->virtual_s, wall > 0 ? (double)sec->hostile.sent / wall : 0.0);
        printf("attack: %s%s\n", failed ? "FAILED - " : "repelled", failed ? why : "");
    }
    if (o->json_path && !write_json(o, r)) {
        fprintf(stderr, "tempo-sim: cannot write %s\n", o->json_path);
        code = SIM_EXIT_USAGE;
    }
    if (code == SIM_EXIT_OK && failed)
        code = SIM_EXIT_MISMATCH;
    free(r);
    return code;
}
