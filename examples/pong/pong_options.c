/* SPDX-License-Identifier: MIT */
/*
 * pong_options.c — the command lines of tempo-pong and tempo-pong-sdl, as
 * tables for the shared option parser (tools/common/options.h).
 *
 * Invariant: a parse that returns PONG_OPTIONS_RUN leaves one mode and
 * only options that mode uses: a server has a port, a client a server to
 * connect to, and every number is in the range tempo accepts.
 */
#include "pong_app.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "agones.h"
#include "options.h"
#include "platform.h"

const char *pong_reconcile_name(tempo_reconcile_mode mode)
{
    switch (mode) {
    case TEMPO_RECONCILE_REPLAY:
        return "replay";
    case TEMPO_RECONCILE_NONE:
        return "none";
    case TEMPO_RECONCILE_DUMB:
        return "dumb";
    }
    return "?";
}

/* HOST:PORT with a port other than 0 into *addr. */
static bool parse_address(tempo_address *addr, const char *value, char *why, size_t why_size)
{
    return platform_resolve_port(value, "server", addr, why, why_size);
}

static bool parse_connect(void *field, const char *value, char *why, size_t why_size)
{
    pong_options *o = field;
    o->has_connect = parse_address(&o->connect, value, why, why_size);
    return o->has_connect;
}

static bool parse_server_address(void *field, const char *value, char *why, size_t why_size)
{
    pong_options *o = field;
    o->has_address = parse_address(&o->address, value, why, why_size);
    return o->has_address;
}

static bool parse_reconcile(void *field, const char *value, char *why, size_t why_size)
{
    tempo_reconcile_mode *mode = field;
    static const tempo_reconcile_mode all[] = {TEMPO_RECONCILE_REPLAY, TEMPO_RECONCILE_NONE,
                                               TEMPO_RECONCILE_DUMB};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(value, pong_reconcile_name(all[i])) == 0) {
            *mode = all[i];
            return true;
        }
    snprintf(why, why_size, "want replay, none or dumb");
    return false;
}

#define FIELD(f) offsetof(pong_options, f)

/* Options both programs take, in the order their help lists them. */
#define SPEC_PLAYERS                                                                          \
    {.name = "players", .kind = OPTION_INT, .value = "N", .offset = FIELD(players),           \
     .min = PONG_MIN_PLAYERS, .max = PONG_MAX_PLAYERS,                                        \
     .help = "paddles, default 2 (even players left, odd right);\nclients give the server's"}
#define SPEC_CONNECT                                                                          \
    {.name = "connect", .kind = OPTION_CUSTOM, .value = "HOST:PORT", .parse = parse_connect,   \
     .range = "HOST a name, a.b.c.d or [v6]", .help = "client: the server"}
#define SPEC_TOKEN                                                                            \
    {.name = "token-file", .kind = OPTION_TEXT, .value = "F", .offset = FIELD(token_file),    \
     .help = "client: connect sealed with this connect token\n(tempo-token --out F)"}
#define SPEC_RECONCILE                                                                        \
    {.name = "reconcile", .kind = OPTION_CUSTOM, .value = "MODE", .offset = FIELD(reconcile), \
     .parse = parse_reconcile, .range = "replay, none or dumb",                               \
     .help = "client: what a snapshot does; replay (default)\n"                                \
             "predicts and replays, none snaps back, dumb\nonly shows the server's state"}
#define SPEC_CONNECT_TIMEOUT                                                                  \
    {.name = "connect-timeout", .kind = OPTION_INT, .value = "S",                              \
     .offset = FIELD(connect_timeout_s), .min = 1, .max = 3600,                               \
     .help = "client: give up when the server has not admitted\nus after S seconds; default 10"}

static const option_spec headless_specs[] = {
    {.name = "server", .kind = OPTION_FLAG, .offset = FIELD(server),
     .help = "run the authoritative game on --port"},
    {.name = "client", .kind = OPTION_FLAG, .offset = FIELD(client),
     .help = "play one paddle against the server at --connect"},
    {.name = "local", .kind = OPTION_FLAG, .offset = FIELD(local),
     .help = "no network: bots on every paddle, as fast as\nit computes"},
    {.name = "port", .kind = OPTION_INT, .value = "P", .offset = FIELD(port), .min = 1,
     .max = 65535, .help = "server: its UDP port; client: ours (default any)"},
    SPEC_PLAYERS,
    {.name = "frames", .kind = OPTION_INT, .value = "N", .offset = FIELD(frames), .min = 1,
     .max = 10000000,
     .help = "print the state of tick N and stop (the same N on\n"
             "the server and its clients); default: play on"},
    {.name = "seed", .kind = OPTION_U64, .value = "S", .offset = FIELD(seed),
     .range = "0..2^64-1", .help = "server, local: the serves; client: the bot's aim;\ndefault 1"},
    {.name = "key-file", .kind = OPTION_TEXT, .value = "F", .offset = FIELD(key_file),
     .help = "server: the backend's private key; admit only\n"
             "clients with a token made with it (tempo-token\n"
             "--new-key), and seal every datagram"},
    {.name = "address", .kind = OPTION_CUSTOM, .value = "HOST:PORT",
     .parse = parse_server_address, .range = "HOST a name, a.b.c.d or [v6]",
     .help = "server: its address as tokens name it, default\n127.0.0.1:P"},
    SPEC_CONNECT,
    {.name = "bot", .kind = OPTION_FLAG, .offset = FIELD(bot),
     .help = "client: a bot plays our paddle (without it the\npaddle stays still)"},
    SPEC_TOKEN,
    SPEC_RECONCILE,
    SPEC_CONNECT_TIMEOUT,
    {.name = "timeout", .kind = OPTION_INT, .value = "S", .offset = FIELD(timeout_s), .min = 1,
     .max = 86400,
     .help = "client: give up when tick N (--frames) has not\ncome S seconds after the start; "
             "default: the\ntime --frames takes at 60 Hz, plus 60 s"},
    {.name = "verbose", .kind = OPTION_FLAG, .offset = FIELD(verbose),
     .help = "also print tick sync jumps"},
    {.name = "quiet", .kind = OPTION_FLAG, .offset = FIELD(quiet),
     .help = "print only errors, the final line and the stats"},
    AGONES_OPTION_SPECS(FIELD(agones), FIELD(no_agones), FIELD(drain_seconds), "server: "),
};

static const option_alias headless_aliases[] = {{"private-key-file", "key-file"}};

static const option_command headless_command = {
    .program = "tempo-pong",
    .synopsis =
        "  Pong over tempo's client-server role, headless (docs/PONG.md). The server\n"
        "  runs the game at 60 ticks a second; clients predict their paddle and\n"
        "  reconcile with its snapshots. With --frames N every process prints\n"
        "  'final tick=N checksum=C', the state after the server's tick N - 1: the\n"
        "  server and all its clients print the same line.",
    .specs = headless_specs,
    .count = (int)(sizeof headless_specs / sizeof headless_specs[0]),
    .epilogue = "examples:\n"
                "  tempo-pong --server --port 7000 --players 2 --frames 600 &\n"
                "  tempo-pong --client --connect 127.0.0.1:7000 --bot --frames 600 &\n"
                "  tempo-pong --client --connect 127.0.0.1:7000 --bot --frames 600\n"
                "sealed: tempo-token --key-file k --new-key; give the server\n"
                "  --key-file k and each client a --token-file minted with\n"
                "  tempo-token --key-file k --client-id I --connect 127.0.0.1:7000\n"
                "  --expire-seconds 3600 --out tI\n"
                "exit: 0 done, 1 error, timeout or a lost server, 2 usage\n",
    .aliases = headless_aliases,
    .alias_count = (int)(sizeof headless_aliases / sizeof headless_aliases[0]),
};

static const option_spec sdl_specs[] = {
    SPEC_CONNECT,
    {.name = "local", .kind = OPTION_FLAG, .offset = FIELD(local),
     .help = "no network: you against bots on this machine"},
    {.name = "port", .kind = OPTION_INT, .value = "P", .offset = FIELD(port), .min = 1,
     .max = 65535, .help = "our UDP port, default any"},
    SPEC_PLAYERS,
    SPEC_TOKEN,
    SPEC_RECONCILE,
    {.name = "bot", .kind = OPTION_FLAG, .offset = FIELD(bot),
     .help = "a bot plays your paddle (B toggles)"},
    {.name = "seed", .kind = OPTION_U64, .value = "S", .offset = FIELD(seed),
     .range = "0..2^64-1", .help = "the bots' aim (local: also the serves), default 1"},
    {.name = "frames", .kind = OPTION_INT, .value = "N", .offset = FIELD(frames), .min = 1,
     .max = 100000000, .help = "quit after N ticks of play"},
    {.name = "screenshot", .kind = OPTION_TEXT, .value = "FILE", .offset = FIELD(screenshot),
     .help = "write the last picture as a BMP"},
    SPEC_CONNECT_TIMEOUT,
    {.name = "verbose", .kind = OPTION_FLAG, .offset = FIELD(verbose),
     .help = "also print tick sync jumps"},
};

/* --timeout S was the wait for a first tick to play: --connect-timeout. */
static const option_alias sdl_aliases[] = {{"timeout", "connect-timeout"}};

static const option_command sdl_command = {
    .program = "tempo-pong-sdl",
    .synopsis = "  Play Pong in a window against a tempo-pong server (docs/PONG.md).\n"
                "  Arrows or W/S move your paddle; R switches reconciliation between\n"
                "  replay and none; F1 hides the overlay; Esc quits.",
    .specs = sdl_specs,
    .count = (int)(sizeof sdl_specs / sizeof sdl_specs[0]),
    .epilogue = "example:\n"
                "  tempo-pong --server --port 7000 --players 2 &\n"
                "  tempo-pong --client --connect 127.0.0.1:7000 --bot &\n"
                "  tempo-pong-sdl --connect 127.0.0.1:7000\n"
                "exit: 0 ok, 1 error, 2 usage, 77 no video driver\n",
    .aliases = sdl_aliases,
    .alias_count = (int)(sizeof sdl_aliases / sizeof sdl_aliases[0]),
};

/* An option a mode does not use is a mistake worth saying. */
static bool only_for(const option_command *c, uint64_t given, const char *name, bool allowed,
                     const char *who)
{
    if (!allowed && options_given(c, given, name)) {
        options_error(c, "--%s: only for %s", name, who);
        return false;
    }
    return true;
}

pong_options_result pong_options_parse(pong_program program, int argc, char **argv,
                                       pong_options *o)
{
    memset(o, 0, sizeof *o);
    o->players = 2;
    o->seed = 1;
    o->connect_timeout_s = 10;
    o->reconcile = TEMPO_RECONCILE_REPLAY;
    o->drain_seconds = 600;
    const option_command *c = program == PONG_PROGRAM_SDL ? &sdl_command : &headless_command;
    uint64_t given = 0;
    option_status st = options_parse(c, argc, argv, o, &given);
    if (st == OPTIONS_HELP)
        return PONG_OPTIONS_HELP;
    if (st != OPTIONS_OK)
        return PONG_OPTIONS_USAGE;

    if (program == PONG_PROGRAM_SDL) {
        o->mode = o->local ? PONG_MODE_LOCAL : PONG_MODE_CLIENT;
        if (o->local && o->has_connect) {
            options_error(c, "--local plays without a server: no --connect");
            return PONG_OPTIONS_USAGE;
        }
        if (!o->local && !o->has_connect) {
            options_error(c, "--connect HOST:PORT is required (or --local, against bots)");
            return PONG_OPTIONS_USAGE;
        }
        bool client = o->mode == PONG_MODE_CLIENT;
        if (!only_for(c, given, "token-file", client, "--connect") ||
            !only_for(c, given, "reconcile", client, "--connect") ||
            !only_for(c, given, "connect-timeout", client, "--connect") ||
            !only_for(c, given, "port", client, "--connect"))
            return PONG_OPTIONS_USAGE;
        return PONG_OPTIONS_RUN;
    }

    int modes = (int)o->server + (int)o->client + (int)o->local;
    if (modes != 1) {
        options_error(c, modes ? "give one of --server, --client and --local"
                               : "--server, --client or --local is required");
        return PONG_OPTIONS_USAGE;
    }
    o->mode = o->server ? PONG_MODE_SERVER : o->client ? PONG_MODE_CLIENT : PONG_MODE_LOCAL;
    bool server = o->mode == PONG_MODE_SERVER, client = o->mode == PONG_MODE_CLIENT;
    if (!only_for(c, given, "key-file", server, "--server") ||
        !only_for(c, given, "address", server, "--server") ||
        !only_for(c, given, "connect", client, "--client") ||
        !only_for(c, given, "bot", client, "--client") ||
        !only_for(c, given, "token-file", client, "--client") ||
        !only_for(c, given, "reconcile", client, "--client") ||
        !only_for(c, given, "connect-timeout", client, "--client") ||
        !only_for(c, given, "timeout", client, "--client") ||
        !only_for(c, given, "port", !o->local, "--server and --client") ||
        !only_for(c, given, "agones", server, "--server") ||
        !only_for(c, given, "no-agones", server, "--server") ||
        !only_for(c, given, "drain-seconds", server, "--server"))
        return PONG_OPTIONS_USAGE;

    if (server && o->port == 0) {
        options_error(c, "--server needs --port P, its UDP port (1..65535)");
        return PONG_OPTIONS_USAGE;
    }
    if (client && !o->has_connect) {
        options_error(c, "--client needs --connect HOST:PORT, the server");
        return PONG_OPTIONS_USAGE;
    }
    if (server && !o->has_address) {
        o->address.family = TEMPO_ADDRESS_IPV4;
        o->address.bytes[0] = 127;
        o->address.bytes[3] = 1;
        o->address.port = (uint16_t)o->port;
    }
    if (client && !options_given(c, given, "timeout"))
        o->timeout_s = o->frames / 60 + 60;
    if (o->mode == PONG_MODE_LOCAL && o->frames == 0)
        o->frames = 600;
    return PONG_OPTIONS_RUN;
}

bool pong_udp_open(int family, int port, const char *program, tempo_udp **out,
                   tempo_transport *tr)
{
    tempo_address bind_addr = {.family = (tempo_address_family)family, .port = (uint16_t)port};
    tempo_udp_options uo = {.batch_send = true}; /* the server's snapshots: one system call a tick */
    if (tempo_udp_open_ex(&bind_addr, &uo, NULL, out) != TEMPO_OK) {
        fprintf(stderr, "%s: cannot bind %s port %d: %s\n", program,
                family == TEMPO_ADDRESS_IPV6 ? "IPv6" : "IPv4", port, strerror(errno));
        return false;
    }
    *tr = tempo_udp_transport(*out);
    return true;
}
