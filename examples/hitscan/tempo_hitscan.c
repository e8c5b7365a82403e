/* SPDX-License-Identifier: MIT */
/*
 * tempo_hitscan.c — the hitscan demo without a window: a server and bot
 * clients on a simulated network, in virtual time, and a table of what
 * the players saw.
 *
 *   tempo-hitscan [--clients N] [--profile P] [--seconds S] [--seed S]
 *                 [--no-lagcomp] [--compare]
 *   tempo-hitscan --server --port P [--clients N] [--seconds S]
 *                 [--agones | --no-agones] [--drain-seconds S]
 *   tempo-hitscan --client --connect HOST:PORT [--clients N] [--seconds S]
 *
 * --compare plays the same match twice, with and without lag
 * compensation, and prints both rows. --server and --client play the
 * match over UDP, one process per machine (hitscan_net.h); the server is
 * a game server under Agones (--agones, the default when
 * AGONES_SDK_HTTP_PORT is set) or Edgegap (docs/DEPLOY.md).
 */
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agones.h"
#include "hitscan_net.h"
#include "options.h"
#include "platform.h"

typedef struct hs_cli {
    int clients;
    const char *profile;
    int seconds;
    uint64_t seed;
    bool no_lagcomp;
    bool compare;
    bool server, client, agones, no_agones;
    int port, drain_seconds;
    tempo_address connect;
    bool has_connect;
} hs_cli;

static bool parse_connect(void *field, const char *value, char *why, size_t why_size)
{
    hs_cli *o = field;
    o->has_connect = platform_resolve(value, TEMPO_ADDRESS_IPV4, &o->connect, why, why_size) &&
                     o->connect.port != 0;
    if (!o->has_connect && o->connect.port == 0)
        snprintf(why, why_size, "want host:port with a port 1..65535");
    return o->has_connect;
}

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
    {.name = "server", .kind = OPTION_FLAG, .offset = FIELD(server),
     .help = "serve one match over UDP on --port (real time)"},
    {.name = "client", .kind = OPTION_FLAG, .offset = FIELD(client),
     .help = "a bot playing against the server at --connect"},
    {.name = "port", .kind = OPTION_INT, .value = "P", .offset = FIELD(port), .min = 1,
     .max = 65535, .help = "server: its UDP port"},
    {.name = "connect", .kind = OPTION_CUSTOM, .value = "HOST:PORT", .parse = parse_connect,
     .range = "an IPv4 host and port", .help = "client: the server"},
    AGONES_OPTION_SPECS(FIELD(agones), FIELD(no_agones), FIELD(drain_seconds), "server: "),
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

static volatile sig_atomic_t signals;

static void on_signal(int sig)
{
    (void)sig;
    signals = signals + 1;
}

/* --server or --client: the match over UDP. */
static int run_net(const hs_cli *o, uint64_t given)
{
    static const char *const sim_only[] = {"profile", "compare", "no-lagcomp"};
    for (size_t i = 0; i < sizeof sim_only / sizeof sim_only[0]; i++)
        if (options_given(&command, given, sim_only[i]))
            return options_error(&command, "--%s: only without --server and --client",
                                 sim_only[i]);
    if (o->server && o->client)
        return options_error(&command, "--server or --client, not both");
    if (o->server && o->port == 0)
        return options_error(&command, "--server needs --port P");
    if (o->client && !o->has_connect)
        return options_error(&command, "--client needs --connect HOST:PORT");
    hs_net_options no;
    memset(&no, 0, sizeof no);
    no.ships = o->clients;
    no.port = o->port;
    no.connect = o->connect;
    no.seconds = o->seconds;
    no.seed = o->seed;
    no.lagcomp = true;
    no.host = (match_host_config){"tempo-hitscan", false, 0, o->drain_seconds};
    if (!agones_choose(o->agones, o->no_agones, "tempo-hitscan", &no.host.agones,
                       &no.host.agones_port))
        return 2;
    platform_on_interrupt(on_signal);
    return o->server ? hs_net_serve(&no, &signals) : hs_net_play(&no, &signals);
}

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
    hs_cli o = {.clients = 4, .profile = "transatlantic", .seconds = 60, .seed = 1,
                .drain_seconds = 600};
    uint64_t given = 0;
    option_status st = options_parse(&command, argc, argv, &o, &given);
    if (st != OPTIONS_OK)
        return st == OPTIONS_HELP ? 0 : 2;
    if (o.server || o.client)
        return run_net(&o, given);
    static const char *const net_only[] = {"port", "connect", "agones", "no-agones",
                                           "drain-seconds"};
    for (size_t i = 0; i < sizeof net_only / sizeof net_only[0]; i++)
        if (options_given(&command, given, net_only[i]))
            return options_error(&command, "--%s: only with --server or --client", net_only[i]);
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
