/* SPDX-License-Identifier: MIT */
/*
 * tempo_hitscan.c — the hitscan demo without a window: a server and bot
 * clients on a simulated network, in virtual time, and a table of what
 * the players saw.
 *
 *   tempo-hitscan [--clients N] [--profile P] [--seconds S] [--seed S]
 *                 [--no-lagcomp] [--compare]
 *
 * --compare plays the same match twice, with and without lag
 * compensation, and prints both rows.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hitscan_match.h"
#include "options.h"

typedef struct hs_cli {
    int clients;
    const char *profile;
    int seconds;
    uint64_t seed;
    bool no_lagcomp;
    bool compare;
} hs_cli;

#define FIELD(f) offsetof(hs_cli, f)
static const option_spec specs[] = {
    {.name = "clients", .kind = OPTION_INT, .value = "N", .offset = FIELD(clients), .min = 2,
     .max = HS_MAX_SHIPS, .help = "players, each a client with a bot, default 4"},
    {.name = "profile", .kind = OPTION_CUSTOM, .value = "NAME", .offset = FIELD(profile),
     .parse = options_parse_profile, .range = "a profile listed below",
     .help = "every link's simnet profile, default transatlantic"},
    {.name = "seconds", .kind = OPTION_INT, .value = "S", .offset = FIELD(seconds), .min = 1,
     .max = 3600, .help = "match length, default 60"},
    {.name = "seed", .kind = OPTION_U64, .value = "S", .offset = FIELD(seed), .range = "0..2^64-1",
     .help = "network and bots, default 1"},
    {.name = "no-lagcomp", .kind = OPTION_FLAG, .offset = FIELD(no_lagcomp),
     .help = "the server judges shots against the present"},
    {.name = "compare", .kind = OPTION_FLAG, .offset = FIELD(compare),
     .help = "the same match with and without lag compensation"},
};
static const option_command command = {
    .program = "tempo-hitscan",
    .synopsis = "  A client-server shooter on a simulated network: predicted own ship,\n"
                "  interpolated others, shots judged by the server with lag compensation.",
    .specs = specs,
    .count = (int)(sizeof specs / sizeof specs[0]),
    .epilogue = "example:\n  tempo-hitscan --compare --profile mobile\n"
                "exit: 0 done, 1 error, 2 usage\n",
    .more_help = options_list_profiles,
};

typedef struct row {
    bool lagcomp;
    hs_judge judge;
    uint64_t client_claims;
    double delay_ms, underruns_min, extrapolating, corrections_min, smooth_snaps, rtt_ms, lead,
        dilation;
    bool agree;
} row;

static bool play(const hs_cli *o, bool lagcomp, row *out)
{
    static hs_match m;
    hs_match_config cfg = {o->clients, o->profile, o->seed, lagcomp};
    if (!hs_match_start(&m, &cfg))
        return false;
    hs_match_run(&m, (uint64_t)o->seconds * 1000000u);
    memset(out, 0, sizeof *out);
    out->lagcomp = lagcomp;
    out->judge = m.judge;
    out->judge.lc = NULL;
    double minutes = o->seconds / 60.0;
    out->agree = true;
    for (int k = 0; k < o->clients; k++) {
        hs_client *c = &m.cl[k];
        tempo_interp_stats is;
        tempo_interp_stats_get(c->ip, &is);
        tempo_client_stats cs;
        tempo_client_get_stats(c->c, &cs);
        out->client_claims += c->claims;
        out->delay_ms += is.delay_us / 1000.0 / o->clients;
        out->underruns_min += (double)is.underruns / minutes / o->clients;
        out->extrapolating += (double)is.extrapolated_us / 1e6 / o->seconds * 100.0 / o->clients;
        out->corrections_min += (double)c->smooth.corrections / minutes / o->clients;
        out->smooth_snaps += (double)c->smooth.snaps;
        out->rtt_ms += cs.rtt_ms / o->clients;
        out->lead += cs.lead_ticks / o->clients;
        out->dilation += cs.dilation / o->clients;
        out->agree = out->agree && cs.state == TEMPO_CLIENT_CONNECTED && c->me >= 0;
    }
    hs_match_stop(&m);
    return true;
}

static void print_row(const row *r)
{
    const hs_judge *j = &r->judge;
    uint64_t fair = j->claims - j->claims_gone; /* claims on a target still up on the server */
    printf("| %s | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %.1f %% | %.0f | %.1f "
           "| %.1f %% | %.1f | %.1f | %.2f |\n",
           r->lagcomp ? "rewound" : "present", j->shots, j->claims, j->claims_gone, j->confirmed,
           j->rejected_claims - j->claims_gone, fair ? 100.0 * (double)j->confirmed / (double)fair : 0.0,
           r->delay_ms, r->underruns_min, r->extrapolating, r->corrections_min, r->rtt_ms, r->lead);
}

int main(int argc, char **argv)
{
    hs_cli o = {.clients = 4, .profile = "transatlantic", .seconds = 60, .seed = 1};
    option_status st = options_parse(&command, argc, argv, &o, NULL);
    if (st != OPTIONS_OK)
        return st == OPTIONS_HELP ? 0 : 2;
    printf("tempo-hitscan: %d clients, %s links, %d s, seed %" PRIu64 "\n\n", o.clients, o.profile,
           o.seconds, o.seed);
    printf("| server judges | shots | hits on the shooter's screen | target already down | confirmed "
           "| rejected | confirmed share | playout delay (ms) | underruns/min | extrapolating "
           "| own corrections/min | RTT (ms) | lead (ticks) |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int runs = o.compare ? 2 : 1;
    bool ok = true;
    for (int i = 0; i < runs; i++) {
        row r;
        bool lagcomp = o.compare ? i == 0 : !o.no_lagcomp;
        if (!play(&o, lagcomp, &r)) {
            fprintf(stderr, "tempo-hitscan: the match could not be set up\n");
            return 1;
        }
        print_row(&r);
        ok = ok && r.agree;
    }
    printf("\nA hit on the shooter's screen: its ray touched the ship as the client drew it, between\n"
           "two snapshots. The server confirms it when its own test agrees: rewound to that view\n"
           "(lag compensation), or against the present. A target another shot downed first is not\n"
           "hit again; the confirmed share counts the others. Own corrections: the reconciliations\n"
           "that moved the client's own ship (smoothed, tempo_smooth). Means over the clients.\n");
    if (!ok) {
        fprintf(stderr, "tempo-hitscan: a client did not stay connected\n");
        return 1;
    }
    return 0;
}
