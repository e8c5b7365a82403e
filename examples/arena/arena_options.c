/* SPDX-License-Identifier: MIT */
/*
 * arena_options.c — tempo-arena-sdl's command line, as a table for the
 * shared option parser (tools/common/options.h).
 *
 * Invariant: a parse that returns ARENA_OPTIONS_RUN leaves options tempo
 * will accept: every number in range, and in p2p mode every player either
 * this machine's or a peer's, exactly once, all peers of one address family.
 */
#include "arena_sdl.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "keyfile.h"
#include "options.h"
#include "platform.h"

/* --peer I=HOST:PORT, appended to o->peers. */
static bool parse_peer(void *field, const char *value, char *why, size_t why_size)
{
    arena_options *o = field;
    char *end;
    long k = strtol(value, &end, 10);
    if (end == value || *end != '=' || k < 0 || k >= ARENA_MAX_PLAYERS) {
        snprintf(why, why_size, "want I=HOST:PORT with a player I in 0..%d",
                 ARENA_MAX_PLAYERS - 1);
        return false;
    }
    for (int i = 0; i < o->npeers; i++)
        if (o->peers[i].player == (int)k) {
            snprintf(why, why_size, "player %ld already has a --peer", k);
            return false;
        }
    arena_peer *p = &o->peers[o->npeers];
    if (!platform_resolve_port(end + 1, "peer", &p->addr, why, why_size))
        return false;
    p->player = (int)k;
    o->npeers++;
    return true;
}

/* --relay HOST:PORT: the relay every player not yours plays through. */
static bool parse_relay(void *field, const char *value, char *why, size_t why_size)
{
    arena_options *o = field;
    o->has_relay = platform_resolve_port(value, "relay", &o->relay, why, why_size);
    return o->has_relay;
}

/* --input-delay D|auto. */
static bool parse_input_delay(void *field, const char *value, char *why, size_t why_size)
{
    arena_options *o = field;
    return options_input_delay(value, ARENA_MAX_INPUT_DELAY, &o->input_delay, &o->auto_delay, why,
                               why_size);
}

/* --headless-frames N, the old spelling of --headless --frames N. */
static bool parse_headless_frames(void *field, const char *value, char *why, size_t why_size)
{
    arena_options *o = field;
    char *end;
    long n = strtol(value, &end, 10);
    if (end == value || *end || n < 1 || n > 100000000) {
        snprintf(why, why_size, "want 1..100000000");
        return false;
    }
    o->headless = true;
    o->frames = (int)n;
    return true;
}

/* --key HEX: the match key. */
static bool parse_key(void *field, const char *value, char *why, size_t why_size)
{
    arena_options *o = field;
    if (!key_from_hex(value, strlen(value), o->key)) {
        snprintf(why, why_size, "want 64 hex digits (32 bytes)");
        return false;
    }
    o->has_key = true;
    return true;
}

#define FIELD(f) offsetof(arena_options, f)
static const option_spec sdl_specs[] = {
    {.name = "synctest", .kind = OPTION_FLAG, .offset = FIELD(synctest),
     .help = "synctest session (replays frames, compares checksums)"},
    {.name = "players", .kind = OPTION_INT, .value = "N", .offset = FIELD(players), .min = 2,
     .max = ARENA_MAX_PLAYERS, .help = "ships, default 4: you and 3 bots (p2p: 2)"},
    {.name = "seed", .kind = OPTION_U64, .value = "S", .offset = FIELD(seed),
     .range = "0..2^64-1", .help = "board and bots, default 1; peers must agree"},
    {.name = "delay", .kind = OPTION_INT, .value = "MS", .offset = FIELD(delay_ms), .min = 0,
     .max = ARENA_MAX_DELAY_MS,
     .help = "simulated one-way network delay, default 80\n(p2p: added to outgoing datagrams, "
             "default 0)"},
    {.name = "input-delay", .kind = OPTION_CUSTOM, .value = "D|auto", .parse = parse_input_delay,
     .range = "0..10 or auto",
     .help = "input delay in frames, default 1; auto (p2p):\ntempo sets it from the measured lag"},
    {.name = "max-prediction", .kind = OPTION_INT, .value = "P", .offset = FIELD(max_prediction),
     .min = 1, .max = TEMPO_MAX_PREDICTION, .help = "prediction window, default 16"},
    {.name = "check-distance", .kind = OPTION_INT, .value = "D", .offset = FIELD(check_distance),
     .min = 1, .max = TEMPO_MAX_PREDICTION,
     .help = "synctest frames replayed per tick, default 7"},
    {.name = "frames", .kind = OPTION_INT, .value = "N", .offset = FIELD(frames), .min = 1,
     .max = 100000000, .help = "quit after N frames"},
    {.name = "headless", .kind = OPTION_FLAG, .offset = FIELD(headless),
     .help = "no window: bots fly every local ship for --frames N\nframes, then exit"},
    {.name = "headless-frames", .kind = OPTION_CUSTOM, .value = "N", .parse = parse_headless_frames,
     .range = "1..100000000", .flags = OPTION_HIDDEN,
     .help = "the old spelling of --headless --frames N"},
    {.name = "render-hz", .kind = OPTION_INT, .value = "N", .offset = FIELD(render_hz), .min = 1,
     .max = 1000,
     .help = "headless: also draw N pictures a second between\nframes (each steps a copy ahead, then restores)"},
    {.name = "screenshot", .kind = OPTION_TEXT, .value = "FILE", .offset = FIELD(screenshot),
     .help = "write the last picture as a BMP"},
    {.name = "bot", .kind = OPTION_FLAG, .offset = FIELD(autopilot),
     .help = "a bot flies your ship (Tab toggles)"},
    {.name = "port", .kind = OPTION_INT, .value = "P", .offset = FIELD(port), .min = 1,
     .max = 65535, .help = "p2p: local UDP port (p2p mode when --peer is given;\nwith --relay "
                           "default any)"},
    {.name = "peer", .kind = OPTION_CUSTOM, .value = "I=HOST:PORT", .parse = parse_peer,
     .range = "HOST a name, a.b.c.d or [v6]", .flags = OPTION_REPEAT,
     .help = "p2p: player I plays at HOST:PORT; once per remote\n"
             "player; the rest play here"},
    {.name = "relay", .kind = OPTION_CUSTOM, .value = "HOST:PORT", .parse = parse_relay,
     .range = "HOST a name, a.b.c.d or [v6]",
     .help = "play through the tempo-relay at HOST:PORT: every\nplayer not yours is at the "
             "relay (docs/RELAY.md)"},
    {.name = "token-file", .kind = OPTION_TEXT, .value = "F", .offset = FIELD(token_file),
     .help = "--relay: join sealed with this token (tempo-token\n--match ID --players N "
             "--player I --out F)"},
    {.name = "match", .kind = OPTION_U64, .value = "ID", .offset = FIELD(match), .min = 1,
     .range = "1..2^64-1", .help = "--relay without a token: the match, default 1"},
    {.name = "p2p", .kind = OPTION_FLAG, .offset = FIELD(p2p),
     .help = "--relay: a peer-to-peer match the relay introduces:\nthe peers punch through their "
             "NATs and play\ndirectly, the relay forwarding for pairs that\ncannot (docs/NAT.md; "
             "a token from tempo-token\n--p2p)"},
    {.name = "player", .kind = OPTION_INT, .value = "I", .offset = FIELD(me), .min = 0,
     .max = ARENA_MAX_PLAYERS - 1, .help = "p2p, relay: the player you fly, default 0"},
    {.name = "auto-delay", .kind = OPTION_FLAG, .offset = FIELD(auto_delay),
     .flags = OPTION_HIDDEN, .help = "the old spelling of --input-delay auto"},
    {.name = "record", .kind = OPTION_TEXT, .value = "FILE", .offset = FIELD(record),
     .help = "write the match's replay to FILE (docs/REPLAY.md)"},
    {.name = "replay", .kind = OPTION_TEXT, .value = "FILE", .offset = FIELD(replay),
     .help = "play FILE back: Space pauses, Up/Down change the\nspeed, Left/Right seek 10 s, Home restarts"},
    {.name = "key", .kind = OPTION_CUSTOM, .value = "HEX", .parse = parse_key,
     .range = "64 hex digits",
     .help = "p2p: the match key, the same on every peer: every\ndatagram is then authenticated and encrypted"},
    {.name = "key-file", .kind = OPTION_TEXT, .value = "F", .offset = FIELD(key_file),
     .help = "p2p: the match key from file F: 32 raw bytes or\n64 hex digits"},
};

static const option_alias sdl_aliases[] = {{"autopilot", "bot"}};

static const option_command sdl_command = {
    .program = "tempo-arena-sdl",
    .synopsis = "  Play arena against bots through a tempo session (docs/DEMO.md).",
    .specs = sdl_specs,
    .count = (int)(sizeof sdl_specs / sizeof sdl_specs[0]),
    .epilogue = "examples (docs/DEMO.md has more):\n"
                "  tempo-arena-sdl                         you against 3 bots, 80 ms away\n"
                "  tempo-arena-sdl --players 2 --player 0 --port 7000 --peer 1=HOST:7001\n"
                "  tempo-arena-sdl --players 3 --player 0 --relay HOST:40000\n"
                "exit: 0 ok, 1 error, 2 usage, 3 desync or synctest mismatch, 77 no video driver\n",
    .aliases = sdl_aliases,
    .alias_count = (int)(sizeof sdl_aliases / sizeof sdl_aliases[0]),
};

/* p2p: every peer's player below --players, distinct, not ours; one address
 * family (one socket speaks one). Prints the first problem. */
static bool peers_valid(const arena_options *o)
{
    for (int i = 0; i < o->npeers; i++) {
        int p = o->peers[i].player;
        if (p >= o->players) {
            options_error(&sdl_command, "--peer %d=...: want a player below --players, 0..%d", p,
                          o->players - 1);
            return false;
        }
        if (p == o->me) {
            options_error(&sdl_command, "--peer %d=...: player %d is yours (--player)", p, p);
            return false;
        }
        if (o->peers[i].addr.family != o->peers[0].addr.family) {
            options_error(&sdl_command, "--peer: mixed IPv4 and IPv6 addresses; one socket "
                                        "speaks one family, give all peers in one");
            return false;
        }
    }
    if (o->port == 0) {
        options_error(&sdl_command, "--peer needs --port, this machine's UDP port (1..65535)");
        return false;
    }
    return true;
}

arena_options_result arena_options_parse(int argc, char **argv, arena_options *o)
{
    *o = (arena_options){.mode = ARENA_MODE_LOCAL, .players = 4, .seed = 1, .delay_ms = 80,
                         .input_delay = 1, .max_prediction = 16, .check_distance = 7};
    uint64_t given;
    option_status st = options_parse(&sdl_command, argc, argv, o, &given);
    if (st == OPTIONS_HELP)
        return ARENA_OPTIONS_HELP;
    if (st != OPTIONS_OK)
        return ARENA_OPTIONS_USAGE;
    if (o->synctest)
        o->mode = ARENA_MODE_SYNCTEST;
    if (o->headless && !o->frames) {
        options_error(&sdl_command, "--headless needs --frames N, how long to play");
        return ARENA_OPTIONS_USAGE;
    }
    if (o->headless)
        o->headless_frames = o->frames;
    if (o->replay) {
        if (o->synctest || o->npeers > 0 || o->record) {
            options_error(&sdl_command, "--replay plays a file alone: no --synctest, --peer or --record");
            return ARENA_OPTIONS_USAGE;
        }
        o->mode = ARENA_MODE_REPLAY;
        return ARENA_OPTIONS_RUN;
    }
    if ((o->npeers > 0 || o->has_relay) && o->mode == ARENA_MODE_SYNCTEST) {
        options_error(&sdl_command, "--synctest runs alone, without --peer or --relay");
        return ARENA_OPTIONS_USAGE;
    }
    if ((o->token_file || o->match) && !o->has_relay) {
        options_error(&sdl_command, "--%s is for a match through a relay: give --relay HOST:PORT",
                      o->token_file ? "token-file" : "match");
        return ARENA_OPTIONS_USAGE;
    }
    if (o->p2p && !o->has_relay) {
        options_error(&sdl_command, "--p2p is for a match a relay introduces: give --relay HOST:PORT");
        return ARENA_OPTIONS_USAGE;
    }
    if (o->has_relay) {
        if (o->npeers > 0) {
            options_error(&sdl_command, "--relay and --peer: through a relay every player not "
                                        "yours is at the relay; give no --peer");
            return ARENA_OPTIONS_USAGE;
        }
        if (o->has_key || o->key_file) {
            options_error(&sdl_command, "--relay: a relay match is sealed by its --token-file, "
                                        "not a match key");
            return ARENA_OPTIONS_USAGE;
        }
        if (o->token_file && o->match) {
            options_error(&sdl_command, "--token-file and --match: the token names the match");
            return ARENA_OPTIONS_USAGE;
        }
        if (o->record) {
            options_error(&sdl_command, "--relay: no --record (a relay match is recorded by "
                                        "tempo-arena --record only in p2p)");
            return ARENA_OPTIONS_USAGE;
        }
        o->mode = ARENA_MODE_P2P;
        if (!options_given(&sdl_command, given, "players"))
            o->players = 2;
        if (!options_given(&sdl_command, given, "delay"))
            o->delay_ms = 0;
    }
    if (o->npeers > 0) {
        o->mode = ARENA_MODE_P2P;
        if (!options_given(&sdl_command, given, "players"))
            o->players = 2;
        if (!options_given(&sdl_command, given, "delay"))
            o->delay_ms = 0; /* the network brings its own */
    }
    if (o->mode != ARENA_MODE_P2P && o->me != 0) {
        options_error(&sdl_command,
                      "--player %d: only a network match (--peer, --relay) flies another ship than 0",
                      o->me);
        return ARENA_OPTIONS_USAGE;
    }
    if (o->me >= o->players) {
        options_error(&sdl_command, "--player %d: want a player below --players, 0..%d", o->me,
                      o->players - 1);
        return ARENA_OPTIONS_USAGE;
    }
    if (o->mode == ARENA_MODE_P2P && !o->has_relay && !peers_valid(o))
        return ARENA_OPTIONS_USAGE;
    if ((o->has_key || o->key_file) && o->mode != ARENA_MODE_P2P) {
        options_error(&sdl_command, "--key and --key-file seal a p2p match: give --peer too");
        return ARENA_OPTIONS_USAGE;
    }
    if (o->has_key && o->key_file) {
        options_error(&sdl_command, "--key and --key-file: give the match key once");
        return ARENA_OPTIONS_USAGE;
    }
    char why[128];
    if (o->key_file && !key_read_file(o->key_file, o->key, why, sizeof why)) {
        options_error(&sdl_command, "--key-file %s: %s", o->key_file, why);
        return ARENA_OPTIONS_USAGE;
    }
    o->has_key = o->has_key || o->key_file != NULL;
    /* tempo checks these too; saying so here gives a clearer message. */
    if (o->input_delay > o->max_prediction || o->check_distance > o->max_prediction) {
        options_error(&sdl_command, "--input-delay (%d) and --check-distance (%d) must fit the "
                                    "prediction window, --max-prediction %d",
                      o->input_delay, o->check_distance, o->max_prediction);
        return ARENA_OPTIONS_USAGE;
    }
    return ARENA_OPTIONS_RUN;
}
