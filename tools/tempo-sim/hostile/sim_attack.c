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

/* What the writer's callbacks read (report/sim_out.h). */
typedef struct attack_out {
    const sim_options *o;
    const sim_result *r;
    double wall;
    bool failed;
    const char *why;
} attack_out;

static void attack_json(sim_json *j, const void *ctx)
{
    sim_json_match(j, ((const attack_out *)ctx)->o, ((const attack_out *)ctx)->r);
}

/* What was sent by kind, what got in, whether the match noticed. */
static void attack_text(FILE *f, const void *ctx)
{
    const attack_out *c = ctx;
    const sim_options *o = c->o;
    const sim_result *r = c->r;
    const sim_security *sec = &r->security;
    double wall = c->wall;
    bool failed = c->failed;
    const char *why = c->why;
    char desc[768];
    sim_describe(o, desc, sizeof desc);
    fprintf(f, "tempo-sim --attack %d: %s\n", o->attack, desc);
    sim_security_print(f, o, r);
    fprintf(f, "\n%-28s %12s %10s\n", "sent by kind", "datagrams", "accepted");
    uint64_t by[SIM_HW_COUNT] = {0}, acc[SIM_HW_COUNT] = {0};
    for (int k = 0; k < sec->num_actors; k++)
        for (int w = 0; w < SIM_HW_COUNT; w++) {
            by[w] += sec->actor[k].by[w].sent;
            acc[w] += sec->actor[k].by[w].accepted;
        }
    for (int w = 0; w < SIM_HW_COUNT; w++)
        if (by[w])
            fprintf(f, "%-28s %12" PRIu64 " %10" PRIu64 "\n", sim_hostile_what_name(w), by[w], acc[w]);
    fprintf(f, "%-28s %12" PRIu64 " %10" PRIu64 "\n", "all", sec->hostile.sent, sec->hostile.accepted);
    fprintf(f, "\nsealed:               %s\n", sec->sealed ? "yes" : "NO");
    fprintf(f, "accepted:             %" PRIu64 "\n", sec->hostile.accepted);
    fprintf(f, "desyncs:              %" PRIu64 "\n", r->desyncs);
    fprintf(f, "honest peers dropped: %" PRIu64 "\n", sec->honest_drops);
    fprintf(f, "converged:            %s\n", r->converged ? "yes" : "NO");
    fprintf(f, "counts add up:        %s\n", sec->sums_add_up ? "yes" : "NO");
    fprintf(f, "time:                 %.2f s wall for %.1f s of virtual time (%.0f forged datagrams a second)\n",
            wall, r->virtual_s, wall > 0 ? (double)sec->hostile.sent / wall : 0.0);
    fprintf(f, "attack: %s%s\n", failed ? "FAILED - " : "repelled", failed ? why : "");
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
    attack_out c = {o, r, wall, failed, why};
    sim_out w = {.ctx = &c, .text = attack_text, .json = attack_json};
    code = sim_out_write(o, &w);
    if (code == SIM_EXIT_OK && failed)
        code = SIM_EXIT_MISMATCH;
    free(r);
    return code;
}
