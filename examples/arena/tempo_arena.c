/* SPDX-License-Identifier: MIT */
/*
 * tempo_arena.c — one arena peer per process over real UDP, played by bots.
 *
 *   tempo-arena --players N --player I[,J...] --port P --peer I=HOST:PORT ...
 *               --frames F [--seed S] [--input-delay D|auto] ...
 *   tempo-arena --players N --player I[,J...] --relay HOST:PORT
 *               [--token-file F | --match ID] --frames F ...
 *   tempo-arena ... --relay ws://HOST:PORT[/path] ...
 *
 * (tempo-arena --help lists every option; docs/DEMO.md shows matches.)
 * Every player is either local (--player) or at a peer address (--peer;
 * players sharing an address share a machine); or, through a relay
 * (--relay, docs/RELAY.md), every player not local is at the relay, which
 * times the frames: a member session, sealed with the token a backend
 * minted (tempo-token --match), or in the clear in match --match; with a
 * ws:// address it reaches the relay over a WebSocket (tempo-relay
 * --ws-port), as a browser member does (docs/BROWSER.md). The
 * program opens one UDP
 * socket of the peers' family (IPv4 or IPv6), ticks at 60 Hz of the real
 * clock, feeds its bots' inputs to a tempo p2p session, runs the arena in
 * arena mode, and once frame F is confirmed (every peer's input for every
 * frame below it known, so no rollback can change it) prints
 *
 *   final frame=<F> checksum=<16 hex digits>
 *
 * the checksum of the game state at frame F, on stdout. Every peer of a
 * match must print the same line, and two matches with the same options
 * print the same line: the bot of player p gives frame f the f-th input of
 * a stream seeded by (seed, p), whatever the network did. Progress (the
 * handshake, peers going silent, desyncs) goes to stderr. It then lingers a
 * moment, still answering, so peers that lost a datagram can get its
 * repeat. Exit codes: 0 done, 1 runtime error or timeout, 2 usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arena.h"
#include "arena_p2p.h"
#include "arena_replay.h"
#include "bot.h"
#include "keyfile.h"
#include "options.h"
#include "platform.h"
#include "tempo/relay.h"
#include "tempo/secure.h"
#include "tempo/udp.h"
#include "tokenfile.h"
#include "ws_client.h"

#define MAX_INPUT_DELAY 8      /* the default prediction window */
#define FRAME_US 16667u        /* 60 Hz */
#define LINGER_US 1500000u     /* answering peers after the final frame */
#define WAITING_NOTE_US 2000000u /* how often "still waiting" is said */

typedef struct arena_cli {
    int players;
    uint32_t local;                        /* local player mask (--player) */
    tempo_address peer[ARENA_MAX_PLAYERS]; /* remote players' machines (--peer) */
    uint32_t remote;                       /* remote player mask */
    int port;
    tempo_address relay;                   /* --relay: the relay's address */
    bool has_relay;
    bool ws;                               /* --relay ws://...: over a WebSocket */
    char ws_host[128], ws_path[128];       /*   its Host and path */
    ws_client *ws_conn;                    /*   the connection, once made */
    const char *token_file;                /* --token-file: a relay member's token */
    uint64_t match;                        /* --match: an unsealed relay match's id */
    bool p2p;                              /* --p2p: peers the relay introduces (docs/NAT.md) */
    bool no_direct;                        /* --no-direct: with --p2p, every pair relayed */
    int frames;
    uint64_t seed;
    int input_delay;
    bool auto_delay;                       /* --input-delay auto */
    int timeout_s;
    int connect_timeout_s;
    bool headless;
    bool verbose;
    bool quiet;
    uint8_t key[TEMPO_KEY_SIZE];           /* the match key (--key, --key-file) */
    bool has_key;
    const char *key_file;
    const char *record;                    /* --record FILE */
    const char *replay;                    /* --replay FILE */
    int speed;                             /* --speed: playback, frames per tick * 256 */
    int rejoin_window_ms;                  /* --rejoin-window: a dropped peer may come back */
    bool rejoin;                           /* --rejoin: this process comes back into a match */
    int rejoin_epoch;                      /* --rejoin-epoch: its key epoch (sealed) */
} arena_cli;

/* --player I[,J...]: local players, by number. The count is checked later,
 * against --players, which may come after. */
static bool parse_player(void *out, const char *value, char *why, size_t why_size)
{
    arena_cli *o = out;
    return options_player_list(value, ARENA_MAX_PLAYERS, &o->local, why, why_size);
}

/* --peer I=HOST:PORT: player I plays on the machine at that address. */
static bool parse_peer(void *out, const char *value, char *why, size_t why_size)
{
    arena_cli *o = out;
    char *end;
    long k = strtol(value, &end, 10);
    if (end == value || *end != '=' || k < 0 || k >= ARENA_MAX_PLAYERS) {
        snprintf(why, why_size, "want I=HOST:PORT with a player I in 0..%d",
                 ARENA_MAX_PLAYERS - 1);
        return false;
    }
    if (o->remote & (1u << k)) {
        snprintf(why, why_size, "player %ld already has a --peer", k);
        return false;
    }
    if (!platform_resolve_port(end + 1, "peer", &o->peer[k], why, why_size))
        return false;
    o->remote |= 1u << k;
    return true;
}

/* --relay HOST:PORT: the relay every player not local plays through. */
static bool parse_relay(void *out, const char *value, char *why, size_t why_size)
{
    arena_cli *o = out;
    o->ws = strncmp(value, "ws://", 5) == 0;
    if (o->ws && !ws_url_split(value, o->ws_host, sizeof o->ws_host, o->ws_path,
                               sizeof o->ws_path)) {
        snprintf(why, why_size, "want ws://HOST:PORT[/path]");
        return false;
    }
    o->has_relay = platform_resolve_port(o->ws ? o->ws_host : value, "relay", &o->relay, why,
                                         why_size);
    return o->has_relay;
}

/* --input-delay D|auto: frames, or tempo picks them from the lag. */
static bool parse_input_delay(void *out, const char *value, char *why, size_t why_size)
{
    arena_cli *o = out;
    return options_input_delay(value, MAX_INPUT_DELAY, &o->input_delay, &o->auto_delay, why,
                               why_size);
}

/* --key HEX: the match key, 64 hex digits. */
static bool parse_key(void *field, const char *value, char *why, size_t why_size)
{
    arena_cli *o = field;
    if (!key_from_hex(value, strlen(value), o->key)) {
        snprintf(why, why_size, "want 64 hex digits (32 bytes)");
        return false;
    }
    o->has_key = true;
    return true;
}

/* A relay member's token from --token-file, and a warning for whatever
 * this machine can see is wrong with it (the relay refuses a bad token
 * without a word). False with a message on stderr. */
static bool read_token(const arena_cli *o, uint8_t token[TEMPO_TOKEN_SIZE])
{
    if (!token_read_file("tempo-arena", o->token_file, token))
        return false;
    char why[192];
    /* over a WebSocket the relay's address is its TCP one, not the token's */
    if (!token_check(token, o->ws ? NULL : &o->relay, NULL, (uint64_t)time(NULL), why,
                     sizeof why))
        fprintf(stderr, "tempo-arena: warning: --token-file %s: %s; the relay will refuse it\n",
                o->token_file, why);
    return true;
}

/* The match key from --key-file. False with a message on stderr. */
static bool read_key_file(arena_cli *o)
{
    char why[128];
    if (!key_read_file(o->key_file, o->key, why, sizeof why)) {
        fprintf(stderr, "tempo-arena: --key-file %s: %s\n", o->key_file, why);
        return false;
    }
    o->has_key = true;
    return true;
}

#define FIELD(f) offsetof(arena_cli, f)
static const option_spec arena_specs[] = {
    {.name = "players", .kind = OPTION_INT, .value = "N", .offset = FIELD(players), .min = 1,
     .max = ARENA_MAX_PLAYERS, .help = "players in the match, all machines together\n(required unless --replay)"},
    {.name = "player", .kind = OPTION_CUSTOM, .value = "I[,J...]", .parse = parse_player,
     .range = "players below --players", .flags = OPTION_REPEAT,
     .help = "the players of this machine (bots fly them;\nrequired unless --replay)"},
    {.name = "port", .kind = OPTION_INT, .value = "P", .offset = FIELD(port), .min = 1,
     .max = 65535, .help = "this machine's UDP port (required with --peer;\nwith --relay "
                           "default any)"},
    {.name = "peer", .kind = OPTION_CUSTOM, .value = "I=HOST:PORT", .parse = parse_peer,
     .range = "HOST a name, a.b.c.d or [v6]", .flags = OPTION_REPEAT,
     .help = "player I plays on the machine at HOST:PORT; once per\n"
             "remote player (players sharing an address share\n"
             "a machine)"},
    {.name = "relay", .kind = OPTION_CUSTOM, .value = "HOST:PORT", .parse = parse_relay,
     .range = "HOST a name, a.b.c.d or [v6]",
     .help = "play through the tempo-relay at HOST:PORT instead\nof with --peer: every "
             "player not this machine's\nis at the relay (docs/RELAY.md); ws://HOST:PORT:\n"
             "over a WebSocket, as a browser (tempo-relay\n--ws-port, docs/BROWSER.md)"},
    {.name = "token-file", .kind = OPTION_TEXT, .value = "F", .offset = FIELD(token_file),
     .help = "--relay: join sealed with this token (tempo-token\n--match ID --players N "
             "--player I --out F)"},
    {.name = "match", .kind = OPTION_U64, .value = "ID", .offset = FIELD(match), .min = 1,
     .range = "1..2^64-1",
     .help = "--relay without a token: the match to join,\ndefault 1; the same on every member"},
    {.name = "p2p", .kind = OPTION_FLAG, .offset = FIELD(p2p),
     .help = "--relay: a peer-to-peer match the relay introduces:\nthe peers punch through their "
             "NATs and play\ndirectly, the relay forwarding for pairs that\ncannot (docs/NAT.md; "
             "a token from tempo-token\n--p2p)"},
    {.name = "no-direct", .kind = OPTION_FLAG, .offset = FIELD(no_direct),
     .help = "--p2p: no hole punching, every pair through the\nrelay"},
    {.name = "frames", .kind = OPTION_INT, .value = "N", .offset = FIELD(frames), .min = 1,
     .max = 10000000, .help = "play until frame N is confirmed, then print\nits checksum (required unless --replay, which\nplays to the file's end by default)"},
    {.name = "seed", .kind = OPTION_U64, .value = "S", .offset = FIELD(seed), .min = 0, .max = 0,
     .range = "0..2^64-1", .help = "board and bots, default 1; the same on every\npeer"},
    {.name = "input-delay", .kind = OPTION_CUSTOM, .value = "D|auto", .parse = parse_input_delay,
     .range = "0..8 or auto",
     .help = "input delay in frames, default 0; auto: tempo\nsets it from the measured lag"},
    {.name = "auto-delay", .kind = OPTION_FLAG, .offset = FIELD(auto_delay),
     .flags = OPTION_HIDDEN, .help = "the old spelling of --input-delay auto"},
    {.name = "connect-timeout", .kind = OPTION_INT, .value = "S",
     .offset = FIELD(connect_timeout_s), .min = 1, .max = 3600,
     .help = "give up when the match has not started after\n"
             "S seconds, naming the peers that did not answer;\n"
             "default 10"},
    {.name = "timeout", .kind = OPTION_INT, .value = "S", .offset = FIELD(timeout_s), .min = 1,
     .max = 86400, .help = "give up when frame N is not confirmed S seconds\n"
                           "after the start; default: the time N frames\n"
                           "take at 60 Hz, plus 60 s"},
    {.name = "key", .kind = OPTION_CUSTOM, .value = "HEX", .parse = parse_key,
     .range = "64 hex digits",
     .help = "the match key, the same on every peer: every\n"
             "datagram is then authenticated and encrypted\n"
             "(without one, anyone on the path can forge them)"},
    {.name = "key-file", .kind = OPTION_TEXT, .value = "F", .offset = FIELD(key_file),
     .help = "the match key from file F: 32 raw bytes or\n64 hex digits"},
    {.name = "record", .kind = OPTION_TEXT, .value = "FILE", .offset = FIELD(record),
     .help = "write the match's replay to FILE (docs/REPLAY.md):\nevery confirmed frame up to N"},
    {.name = "replay", .kind = OPTION_TEXT, .value = "FILE", .offset = FIELD(replay),
     .help = "play FILE back instead of a match (no network),\nchecking its checksums, and print the same final\nline as the recorded match"},
    {.name = "speed", .kind = OPTION_INT, .value = "Q", .offset = FIELD(speed), .min = 1,
     .max = TEMPO_REPLAY_MAX_SPEED,
     .help = "--replay: frames per 60 Hz tick times 256 (512:\ndouble speed); default: as fast as it goes"},
    {.name = "rejoin-window", .kind = OPTION_INT, .value = "MS", .offset = FIELD(rejoin_window_ms),
     .min = 1000, .max = 3600000,
     .help = "a dropped peer may come back within MS\nmilliseconds of its drop (default: never)"},
    {.name = "rejoin", .kind = OPTION_FLAG, .offset = FIELD(rejoin),
     .help = "come back into the running match (after a\ncrash or restart): a peer sends the state"},
    {.name = "rejoin-epoch", .kind = OPTION_INT, .value = "N", .offset = FIELD(rejoin_epoch),
     .min = 1, .max = 255,
     .help = "with --rejoin and a key: a key epoch this\nmachine never used in the match (1 at the\nfirst restart, 2 at the next...)"},
    {.name = "verbose", .kind = OPTION_FLAG, .offset = FIELD(verbose),
     .help = "also print time sync, waiting and input delay events"},
    {.name = "quiet", .kind = OPTION_FLAG, .offset = FIELD(quiet),
     .help = "print only errors and the final line"},
    {.name = "headless", .kind = OPTION_FLAG, .offset = FIELD(headless),
     .help = "no window; always so (the window is\ntempo-arena-sdl)"},
};

static const option_command arena_command = {
    .program = "tempo-arena",
    .synopsis = "  One arena peer over UDP, played by bots; start one per machine (or port).\n"
                "  Prints 'final frame=N checksum=C' once frame N is confirmed: every peer\n"
                "  of a match, and every match with the same options, prints the same line.",
    .specs = arena_specs,
    .count = (int)(sizeof arena_specs / sizeof arena_specs[0]),
    .epilogue = "example, two peers on one machine (docs/DEMO.md has more):\n"
                "  tempo-arena --players 2 --player 0 --port 7000 \\\n"
                "              --peer 1=127.0.0.1:7001 --frames 600 &\n"
                "  tempo-arena --players 2 --player 1 --port 7001 \\\n"
                "              --peer 0=127.0.0.1:7000 --frames 600\n"
                "sealed: add --key-file match.key on both (one key per match,\n"
                "  e.g. head -c 32 /dev/urandom > match.key)\n"
                "exit: 0 done, 1 error or timeout, 2 usage\n",
};

/* A match through a relay: the relay holds every player not local, so no
 * --peer; the token (or nothing) seals it, so no match key; a relay
 * cannot hand a state over, so no rejoin. */
static option_status check_relay(const arena_cli *o)
{
    const option_command *c = &arena_command;
    if (o->remote)
        return options_error(c, "--relay and --peer: through a relay, every player not this "
                                "machine's is at the relay; give no --peer");
    if (o->has_key || o->key_file)
        return options_error(c, "--relay: a relay match is sealed by its --token-file, not a "
                                "match key (no --key or --key-file)");
    if (o->token_file && o->match)
        return options_error(c, "--token-file and --match: the token names the match");
    if (o->rejoin || o->rejoin_window_ms)
        return options_error(c, "--relay: a relay match has no rejoin (the relay keeps no state "
                                "to hand over)");
    if (o->no_direct && !o->p2p)
        return options_error(c, "--no-direct is for a --p2p match");
    if (o->p2p && o->ws)
        return options_error(c, "--p2p: peers punch over UDP; give the relay's UDP address, not ws://");
    for (int p = 0; p < ARENA_MAX_PLAYERS; p++)
        if ((o->local >> p & 1u) && p >= o->players)
            return options_error(c, "--player %d: want a player below --players, 0..%d", p,
                                 o->players - 1);
    if (o->local == (1u << o->players) - 1u)
        return options_error(c, "--relay: every player is this machine's; a relay match needs "
                                "another member (or play without --relay)");
    return OPTIONS_OK;
}

/* Checks the table cannot make: players against --players, each player
 * exactly once, one address family. */
static option_status check(const arena_cli *o)
{
    const option_command *c = &arena_command;
    if (o->replay) {
        if (o->players || o->local || o->remote || o->port || o->has_key || o->key_file ||
            o->record || o->has_relay)
            return options_error(c, "--replay plays a file: no --players, --player, --peer, "
                                    "--relay, --port, --key or --record with it");
        return OPTIONS_OK;
    }
    if (o->speed)
        return options_error(c, "--speed is for --replay");
    if ((o->p2p || o->no_direct) && !o->has_relay)
        return options_error(c, "--p2p and --no-direct are for a match a relay introduces: give "
                                "--relay HOST:PORT");
    if ((o->token_file || o->match) && !o->has_relay)
        return options_error(c, "--%s is for a match through a relay: give --relay HOST:PORT",
                             o->token_file ? "token-file" : "match");
    if (!o->players)
        return options_error(c, "--players N is required: how many players the match has "
                                "(or --replay FILE to play a recording)");
    if (!o->local)
        return options_error(c, "--player I is required: the players this machine has");
    if (!o->frames)
        return options_error(c, "--frames N is required: the frame to play to");
    if (!o->port && !o->has_relay)
        return options_error(c, o->remote ? "--port P is required: this machine's UDP port, "
                                            "the one the other peers' --peer names"
                                          : "name the other machines: --port P and --peer "
                                            "I=HOST:PORT for each other player, or --relay "
                                            "HOST:PORT (tempo-arena --help has examples)");
    if (o->has_relay)
        return check_relay(o);
    uint32_t all = (1u << o->players) - 1u;
    for (int p = 0; p < ARENA_MAX_PLAYERS; p++) {
        if ((o->local >> p & 1u) && p >= o->players)
            return options_error(c, "--player %d: want a player below --players, 0..%d", p,
                                 o->players - 1);
        if ((o->remote >> p & 1u) && p >= o->players)
            return options_error(c, "--peer %d=...: want a player below --players, 0..%d", p,
                                 o->players - 1);
        if ((o->local & o->remote) >> p & 1u)
            return options_error(c, "player %d is both a --player and at a --peer", p);
    }
    if ((o->local | o->remote) != all)
        for (int p = 0; p < o->players; p++)
            if (!((o->local | o->remote) >> p & 1u))
                return options_error(c,
                                     "player %d is neither a --player nor at a --peer: with "
                                     "--players %d, each of 0..%d must be one or the other",
                                     p, o->players, o->players - 1);
    if (o->has_key && o->key_file)
        return options_error(c, "--key and --key-file: give the match key once");
    int family = TEMPO_ADDRESS_NONE;
    for (int p = 0; p < o->players; p++)
        if (o->remote >> p & 1u) {
            if (family != TEMPO_ADDRESS_NONE && o->peer[p].family != family)
                return options_error(c, "--peer: mixed IPv4 and IPv6 addresses; one socket "
                                        "speaks one family, give all peers in one");
            family = o->peer[p].family;
        }
    return OPTIONS_OK;
}

/* "player 1 at 127.0.0.1:7001" or "players 1,3 at ...": everyone at the
 * address of remote player p. */
static const char *describe(const arena_cli *o, int p, char *buf, size_t size)
{
    char addr[TEMPO_ADDRESS_STRLEN], list[3 * ARENA_MAX_PLAYERS] = "";
    int n = 0;
    for (int q = 0; q < o->players; q++)
        if ((o->remote >> q & 1u) && tempo_address_equal(&o->peer[q], &o->peer[p])) {
            size_t len = strlen(list);
            snprintf(list + len, sizeof list - len, "%s%d", n ? "," : "", q);
            n++;
        }
    tempo_address_format(&o->peer[p], addr, sizeof addr);
    snprintf(buf, size, "player%s %s at %s", n > 1 ? "s" : "", list, addr);
    return buf;
}

/* Whether p is the first remote player at its address (one line per
 * machine, not per player). */
static bool first_at_address(const arena_cli *o, int p)
{
    for (int q = 0; q < p; q++)
        if ((o->remote >> q & 1u) && tempo_address_equal(&o->peer[q], &o->peer[p]))
            return false;
    return (o->remote >> p & 1u) != 0;
}

/* What the events said that the loop acts on. */
typedef struct arena_news {
    bool running;              /* RUNNING came */
    bool dropped;              /* the others dropped this machine and it does not come back */
    int32_t dropped_frame;
    uint32_t rejoined;         /* bit p: local player p plays again from a rejoin frame */
} arena_news;

static const char *const dropped_how[] = {
    [TEMPO_DROPPED_REFUSED] = "a peer refused it",
    [TEMPO_DROPPED_PAUSED] = "it was paused past the disconnect timeout",
    [TEMPO_DROPPED_CUT_OFF] = "its network went: every peer fell silent at once",
};

/* One line about datagrams that fail to authenticate, naming the likely cause. */
static void report_auth(const tempo_event *ev)
{
    char addr[TEMPO_ADDRESS_STRLEN];
    tempo_address_format(&ev->u.auth_failed.address, addr, sizeof addr);
    const char *what = ev->u.auth_failed.kind == TEMPO_AUTH_PLAIN
                           ? "are not sealed: no --key-file there?"
                       : ev->u.auth_failed.kind == TEMPO_AUTH_SEALED
                           ? "are sealed: a --key-file there, none here?"
                           : "fail authentication: different match key?";
    fprintf(stderr, "tempo-arena: datagrams from %s %s\n", addr, what);
}

/* Print what happened: the handshake, silences and desyncs always (unless
 * --quiet), time sync and waiting with --verbose; note in *news what the
 * loop must act on. */
static void report_events(tempo_session *s, const arena_cli *o, arena_news *news)
{
    tempo_event ev;
    char who[96] = "the session";
    if (o->has_relay) {
        char addr[TEMPO_ADDRESS_STRLEN];
        tempo_address_format(&o->relay, addr, sizeof addr);
        snprintf(who, sizeof who, "the relay at %s", addr);
    }
    while (tempo_session_poll_event(s, &ev) > 0) {
        if (ev.kind == TEMPO_EVENT_RUNNING)
            news->running = true;
        if (ev.kind == TEMPO_EVENT_REJOINED && ev.player >= 0 && (o->local >> ev.player & 1u))
            news->rejoined |= o->local;
        if (ev.kind == TEMPO_EVENT_DROPPED && !ev.u.dropped.rejoining) {
            news->dropped = true;
            news->dropped_frame = ev.u.dropped.frame;
        }
        if (ev.kind == TEMPO_EVENT_AUTH_FAILED) {
            if (!o->quiet)
                report_auth(&ev);
            continue;
        }
        if (ev.player >= 0 && ev.player < o->players && (o->remote >> ev.player & 1u))
            describe(o, ev.player, who, sizeof who);
        bool chatty = ev.kind == TEMPO_EVENT_WAITING || ev.kind == TEMPO_EVENT_WAITING_OVER ||
                      ev.kind == TEMPO_EVENT_TIMESYNC || ev.kind == TEMPO_EVENT_INPUT_DELAY;
        if (o->quiet || (chatty && !o->verbose))
            continue;
        fprintf(stderr, "tempo-arena: %s", tempo_event_name(ev.kind));
        switch (ev.kind) {
        case TEMPO_EVENT_CONNECTED:
        case TEMPO_EVENT_SYNCHRONIZED:
        case TEMPO_EVENT_RESUMED:
        case TEMPO_EVENT_HANDSHAKE_FAILED:
            fprintf(stderr, ": %s", who);
            break;
        case TEMPO_EVENT_SYNCHRONIZING:
            fprintf(stderr, " %d/%d: %s", ev.u.sync.done, ev.u.sync.total, who);
            break;
        case TEMPO_EVENT_RUNNING:
            fprintf(stderr, o->has_relay ? ": the relay started the match, frames start"
                                         : ": every peer is ready, frames start");
            break;
        case TEMPO_EVENT_INTERRUPTED:
            fprintf(stderr, ": %s is silent; dropped in %" PRIu32 " ms unless it speaks", who,
                    ev.u.interrupted.disconnect_in_ms);
            break;
        case TEMPO_EVENT_DISCONNECTED:
            fprintf(stderr, ": player %d, from frame %" PRId32, ev.player,
                    ev.u.disconnected.frame);
            break;
        case TEMPO_EVENT_REJOINED:
            fprintf(stderr, ": player %d plays again from frame %" PRId32, ev.player,
                    ev.u.rejoined.frame);
            break;
        case TEMPO_EVENT_REJOIN_STATE: /* arena mode: tempo moves the state itself */
        case TEMPO_EVENT_AUTH_FAILED:  /* printed above */
            break;
        case TEMPO_EVENT_DROPPED:
            fprintf(stderr, ": the others dropped this machine at frame %" PRId32 " (%s); what it "
                            "played alone is not the match; %s",
                    ev.u.dropped.frame, dropped_how[ev.u.dropped.reason],
                    ev.u.dropped.rejoining ? "it comes back by itself" : "no --rejoin-window: it stays out");
            if (ev.u.dropped.rejoining && o->has_key)
                fprintf(stderr, " at key epoch %" PRIu32, ev.u.dropped.epoch);
            break;
        case TEMPO_EVENT_DESYNC:
            fprintf(stderr, ": frame %" PRId32 " checksum %016" PRIx64 " here, %016" PRIx64
                            " at player %d",
                    ev.u.desync.frame, ev.u.desync.local, ev.u.desync.remote, ev.player);
            break;
        case TEMPO_EVENT_WAITING:
            fprintf(stderr, ": for players mask 0x%" PRIx32, ev.u.waiting.players);
            break;
        case TEMPO_EVENT_TIMESYNC:
            fprintf(stderr, ": stall %d frames", ev.u.timesync.stall_frames);
            break;
        case TEMPO_EVENT_INPUT_DELAY:
            fprintf(stderr, ": %d frames", ev.u.input_delay.frames);
            break;
        case TEMPO_EVENT_DESYNC_DIFF: {
            /* each differing field named by arena_describe */
            char line[160];
            fprintf(stderr, ": frame %" PRId32 ", %d range(s)", ev.u.diff.frame, ev.u.diff.num_ranges);
            for (int i = 0; i < ev.u.diff.num_ranges && i < TEMPO_DIFF_INLINE_RANGES; i++)
                if (tempo_session_desync_diff_line(s, i, line, sizeof line) >= 0)
                    fprintf(stderr, "\n  %s", line);
            break;
        }
        case TEMPO_EVENT_WAITING_OVER:
            break;
        }
        fputc('\n', stderr);
    }
}

/* The machines that have not finished the handshake, as one line
 * ("no answer from player 1 at ...; handshake unfinished with ..."); true
 * if datagrams from one of them failed to authenticate. */
static bool unfinished(tempo_session *s, const arena_cli *o, char *buf, size_t size)
{
    bool auth = false;
    size_t len = 0;
    buf[0] = '\0';
    for (int p = 0; p < o->players && len < size; p++) {
        tempo_endpoint_stats st;
        if (!first_at_address(o, p) || tempo_session_get_endpoint_stats(s, p, &st) != TEMPO_OK ||
            st.synchronized)
            continue;
        char who[96];
        const char *what = st.auth_failures     ? "datagrams that fail authentication from"
                           : st.packets_received ? "handshake unfinished with"
                                                 : "no answer from";
        int n = snprintf(buf + len, size - len, "%s%s %s", len ? "; " : "", what,
                         describe(o, p, who, sizeof who));
        len += n > 0 ? (size_t)n : 0;
        auth = auth || st.auth_failures > 0;
    }
    if (!buf[0])
        snprintf(buf, size, "every peer answered; waiting for them all to be ready");
    return auth;
}

/* Through a relay: where the start stands, as one line. udp: the socket,
 * which hears from nobody but the relay. */
static void relay_unfinished(tempo_session *s, const tempo_udp *udp, const arena_cli *o, char *buf,
                             size_t size)
{
    char addr[TEMPO_ADDRESS_STRLEN];
    tempo_address_format(&o->relay, addr, sizeof addr);
    tempo_relay_member_info mi;
    tempo_udp_stats us;
    tempo_session_state state = TEMPO_SESSION_ENDED;
    tempo_session_get_state(s, &state);
    bool heard = tempo_udp_get_stats(udp, &us) == TEMPO_OK && us.received > 0;
    if (o->ws_conn) {
        ws_client_stats ws;
        ws_client_get_stats(o->ws_conn, &ws);
        heard = ws.datagrams_in > 0;
    }
    bool connected = tempo_session_relay_info(s, &mi) == TEMPO_OK && mi.connected;
    if (!heard)
        snprintf(buf, size, "no answer from the relay at %s (is tempo-relay running there? %s)",
                 addr, o->token_file ? "a relay refuses a token it cannot take without a word: "
                                       "expired, made with another key, or naming another "
                                       "address than the relay's --bind"
                                     : "a relay with a --key-file answers only members with a "
                                       "--token-file");
    else if (!connected && state == TEMPO_SESSION_ENDED)
        snprintf(buf, size, "the relay at %s refused us: %s another member already has our "
                            "players, the members differ in --players, or the relay is full",
                 addr, o->token_file ? "the token is for other players than --player (a token "
                                       "names its players), or"
                                     : "");
    else if (!connected)
        snprintf(buf, size, "the relay at %s answers; the handshake goes on", addr);
    else if (!mi.started)
        snprintf(buf, size, "the relay at %s admitted us; it starts the match once every "
                            "player's member is in (or 10 s after the first came)",
                 addr);
    else
        snprintf(buf, size, "the relay at %s started the match; frames start soon", addr);
}

/* The bots: player p's input for frame f is the f-th output of the bot
 * seeded with (seed, p). A bot is asked for its next input only once the
 * session took the previous one, and a taken input lands on the frame after
 * the player's last, so inputs dropped by ticks that ran no frame (the
 * handshake, time-sync stalls, a full prediction window) leave the stream
 * untouched. */
typedef struct arena_bots {
    arena_bot bot[ARENA_MAX_PLAYERS];
    uint32_t anchor; /* bit p: the next input taken starts p's count there (a rejoin) */
    uint8_t next[ARENA_MAX_PLAYERS][ARENA_INPUT_SIZE]; /* offered until taken */
    int32_t frame[ARENA_MAX_PLAYERS];                  /* the frame next[p] is for */
} arena_bots;

static void bots_start(arena_bots *b, const arena_cli *o)
{
    for (int p = 0; p < o->players; p++)
        if (o->local >> p & 1u) {
            arena_bot_init(&b->bot[p], o->seed, p);
            arena_bot_next(&b->bot[p], b->next[p]);
            b->frame[p] = 0;
        }
}

/* After an advance: draw the next input of every player whose input was
 * taken. False if the session put one on another frame than the bot's
 * count (which would break the same-seed-same-match promise). Through a
 * relay an input may land later: a member that fell behind the relay's
 * clock skips frames, its previous input repeated over them (as the relay
 * would have substituted it), so the bot carries on from there; a relay
 * match keeps its promise only while nothing was skipped or substituted. */
static bool bots_after_tick(arena_bots *b, const arena_cli *o, const tempo_tick *tick)
{
    for (int p = 0; p < o->players; p++)
        if ((o->local >> p & 1u) && (tick->inputs_taken >> p & 1u)) {
            if ((o->rejoin && b->frame[p] == 0) || (b->anchor >> p & 1u)) /* back in a match */
                b->frame[p] = tick->input_frame[p];
            if (o->has_relay && tick->input_frame[p] > b->frame[p])
                b->frame[p] = tick->input_frame[p];
            b->anchor &= ~(1u << p);
            if (tick->input_frame[p] != b->frame[p])
                return false;
            arena_bot_next(&b->bot[p], b->next[p]);
            b->frame[p]++;
        }
    return true;
}

/* --replay: play the file through a replay session as fast as it goes (or
 * at --speed on the 60 Hz clock), checking its checksums, and print the
 * final line of the recorded match. */
static int play_replay(const arena_cli *o)
{
    static arena_replay rp;
    static arena_state game;
    char why[256];
    if (!arena_replay_load(&rp, o->replay, why, sizeof why)) {
        fprintf(stderr, "tempo-arena: %s\n", why);
        return 1;
    }
    int32_t frames = o->frames ? o->frames : rp.end;
    if (frames > rp.end) {
        fprintf(stderr, "tempo-arena: %s holds frames 0..%d, not %d\n", o->replay,
                (int)rp.end - 1, (int)frames);
        arena_replay_free(&rp);
        return 1;
    }
    tempo_session *s;
    tempo_result res = arena_replay_session(&rp, &game, &s);
    if (res != TEMPO_OK) {
        fprintf(stderr, "tempo-arena: cannot play %s: %s\n", o->replay, tempo_strerror(res));
        arena_replay_free(&rp);
        return 1;
    }
    if (o->speed)
        tempo_session_replay_set_speed(s, o->speed);
    int desyncs = 0;
    uint64_t next = platform_now_us();
    while (tempo_session_frame(s) < frames) {
        if (o->speed) {
            platform_sleep_until_us(next);
            next += FRAME_US;
        }
        tempo_tick tick;
        tempo_session_advance(s, &tick);
        const tempo_request *r;
        while (tempo_session_next(s, &r) > 0)
            arena_step(&game, r->inputs, r->status);
        tempo_event ev;
        while (tempo_session_poll_event(s, &ev) > 0)
            if (ev.kind == TEMPO_EVENT_DESYNC && desyncs++ == 0)
                fprintf(stderr, "tempo-arena: replay desync at frame %" PRId32
                                ": %016" PRIx64 " played, %016" PRIx64 " recorded\n",
                        ev.u.desync.frame, ev.u.desync.local, ev.u.desync.remote);
        if (tick.status == TEMPO_TICK_WAITING)
            break; /* the file ended */
    }
    /* the last checks compare at the next advance */
    tempo_tick tick;
    if (tempo_session_frame(s) == rp.end)
        tempo_session_advance(s, &tick);
    tempo_event ev;
    while (tempo_session_poll_event(s, &ev) > 0)
        desyncs += ev.kind == TEMPO_EVENT_DESYNC;
    int32_t at = tempo_session_frame(s);
    tempo_session_destroy(s);
    arena_replay_free(&rp);
    if (desyncs) {
        fprintf(stderr, "tempo-arena: %d checksums differ from the recording\n", desyncs);
        return 1;
    }
    if (!o->quiet)
        fprintf(stderr, "tempo-arena: replayed frames 0..%d, every checksum equal\n", (int)at - 1);
    printf("final frame=%d checksum=%016" PRIx64 "\n", (int)frames, arena_checksum(&game));
    return 0;
}

static int by_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted in place); 0 for none. */
static unsigned median_u32(uint32_t *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof v[0], by_u32);
    return v[n / 2];
}

/* One line on stderr at the end: what the session refused, by counter
 * (tempo_session_stats), and what the socket saw (tempo_udp_stats). */
static void print_drops(tempo_session *s, const tempo_udp *udp)
{
    tempo_session_stats ss;
    tempo_udp_stats us;
    if (tempo_session_get_stats(s, &ss) != TEMPO_OK || tempo_udp_get_stats(udp, &us) != TEMPO_OK)
        return;
    fprintf(stderr,
            "tempo-arena: dropped malformed=%" PRIu64 " unknown=%" PRIu64 " session=%" PRIu64
            " replay=%" PRIu64 " forged=%" PRIu64 "; udp received=%" PRIu64
            " kernel_drops=%" PRIu64 " recv_buffer=%" PRIu64 "\n",
            ss.dropped_malformed, ss.dropped_unknown, ss.dropped_session, ss.dropped_replay,
            ss.dropped_forged, us.received, us.kernel_drops, us.recv_buffer_bytes);
}

/* --p2p: join the relay (sealed with the token, or the unsealed match),
 * wait until it has introduced every member, and point each remote
 * player at its machine's traversal address; the rest of the match is a
 * plain p2p one (o->has_relay cleared). False after a message. */
static bool p2p_meet(arena_cli *o, tempo_udp *udp, uint8_t *token, tempo_traversal **out)
{
    arena_p2p_args a;
    memset(&a, 0, sizeof a);
    a.relay = o->relay;
    a.token = o->token_file ? token : NULL;
    a.match = o->match ? o->match : 1u;
    a.players = o->players;
    a.local = o->local;
    a.input_size = ARENA_INPUT_SIZE;
    a.fps = 60;
    a.direct = !o->no_direct;
    a.nonce = platform_now_us() ^ ((uint64_t)o->local << 56) ^ (uint64_t)(uintptr_t)&a;
    if (!o->quiet) {
        char addr[TEMPO_ADDRESS_STRLEN];
        tempo_address_format(&o->relay, addr, sizeof addr);
        fprintf(stderr, "tempo-arena: joining the relay at %s for a peer-to-peer match%s\n", addr,
                o->no_direct ? " (every pair through the relay: --no-direct)" : "");
    }
    uint64_t deadline = platform_now_us() + (uint64_t)o->connect_timeout_s * 1000000u;
    bool ok = arena_p2p_meet(out, udp, &a, deadline, "tempo-arena");
    tempo_wipe(token, TEMPO_TOKEN_SIZE);
    if (!ok)
        return false;
    for (int p = 0; p < o->players; p++)
        if (!(o->local >> p & 1u) && tempo_traversal_peer_address(*out, p, &o->peer[p]) == TEMPO_OK)
            o->remote |= 1u << p;
    tempo_traversal_status st;
    tempo_traversal_get_status(*out, &st);
    if (!o->quiet)
        fprintf(stderr, "tempo-arena: the relay introduced %d other machine(s); punching\n",
                st.members);
    o->has_relay = false;
    return true;
}

int main(int argc, char **argv)
{
    char why[512];
    arena_cli o = {.seed = 1, .connect_timeout_s = 10};
    uint64_t given = 0;
    option_status st = options_parse(&arena_command, argc, argv, &o, &given);
    if (st == OPTIONS_OK)
        st = check(&o);
    if (st != OPTIONS_OK)
        return st == OPTIONS_HELP ? 0 : 2;
    if (!options_given(&arena_command, given, "timeout"))
        o.timeout_s = o.frames / 60 + 60;
    if (o.key_file && !read_key_file(&o))
        return 2;
    if (o.replay)
        return play_replay(&o);
    static uint8_t token[TEMPO_TOKEN_SIZE];
    if (o.token_file && !read_token(&o, token))
        return 1;

    /* One socket speaks one family: the peers' (all the same, see check),
     * or the relay's. */
    tempo_address bind_addr = {.family = TEMPO_ADDRESS_IPV4, .port = (uint16_t)o.port};
    for (int p = 0; p < o.players; p++)
        if (o.remote >> p & 1u)
            bind_addr.family = o.peer[p].family;
    if (o.has_relay)
        bind_addr.family = o.relay.family;
    tempo_udp *udp;
    /* A tick's datagrams to every peer leave in one system call: the
     * session flushes the batch at the end of each poll and advance. */
    tempo_udp_options uo = {.batch_send = true};
    if (tempo_udp_open_ex(&bind_addr, &uo, NULL, &udp) != TEMPO_OK) {
        fprintf(stderr, "tempo-arena: cannot bind %s port %d: %s\n",
                bind_addr.family == TEMPO_ADDRESS_IPV6 ? "IPv6" : "IPv4", o.port, strerror(errno));
        return 1;
    }
    /* --p2p: the relay introduces the members; once every one is known,
     * the match is a plain p2p one over the traversal's transport. */
    tempo_traversal *trav = NULL;
    arena_paths paths;
    memset(&paths, 0, sizeof paths);
    if (o.p2p && !p2p_meet(&o, udp, token, &trav)) {
        tempo_udp_close(udp);
        return 1;
    }
    static arena_state game;
    arena_init(&game, o.players, o.seed);
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = o.players;
    cfg.input_size = ARENA_INPUT_SIZE;
    cfg.arena = &game;
    cfg.arena_size = sizeof game;
    cfg.describe_state = arena_describe; /* desync diffs name the fields */
    /* Handshake nonces only: they never reach the game. Where the stack
     * lies (placed at random) tells two processes started together apart. */
    cfg.random_seed = platform_now_us() ^ ((uint64_t)o.port << 32) ^ (uint64_t)(uintptr_t)&cfg;
    cfg.auto_delay.enabled = o.auto_delay;
    cfg.rejoin_window_ms = (uint32_t)o.rejoin_window_ms;
    cfg.rejoin = o.rejoin;
    cfg.rejoin_epoch = o.rejoin && o.has_key ? (uint32_t)(o.rejoin_epoch ? o.rejoin_epoch : 1) : 0u;
    cfg.has_match_key = o.has_key;
    memcpy(cfg.match_key, o.key, sizeof cfg.match_key);
    if (trav && tempo_traversal_match_key(trav, cfg.match_key) == TEMPO_OK)
        cfg.has_match_key = true; /* sealed end to end with the relay's secret */
    tempo_wipe(o.key, sizeof o.key); /* the session holds its own copy */
    tempo_transport tr = tempo_udp_transport(udp);
    if (o.ws) {
        o.ws_conn = ws_client_connect(&o.relay, o.ws_host, o.ws_path, NULL,
                                      (uint32_t)o.connect_timeout_s * 1000u, why, sizeof why);
        if (!o.ws_conn) {
            fprintf(stderr, "tempo-arena: --relay ws://%s%s: %s\n", o.ws_host, o.ws_path, why);
            tempo_udp_close(udp);
            return 1;
        }
        tr = ws_client_transport(o.ws_conn, &o.relay);
    }
    if (trav)
        tr = tempo_traversal_transport(trav);
    tempo_session *s;
    tempo_result cr;
    if (o.has_relay) {
        cfg.session_id = (uint32_t)(o.match ? o.match : 1u); /* the match, without a token */
        cr = tempo_session_create_relay_member(&cfg, &tr, &o.relay, o.token_file ? token : NULL,
                                               &s);
        tempo_wipe(token, sizeof token);
    } else {
        cr = tempo_session_create_p2p(&cfg, &tr, &s);
    }
    tempo_wipe(cfg.match_key, sizeof cfg.match_key);
    if (cr == TEMPO_OK && trav)
        tempo_session_set_traversal(s, trav); /* its endpoint stats say each peer's path */
    if (cr != TEMPO_OK) {
        tempo_traversal_destroy(trav);
        tempo_udp_close(udp);
        fprintf(stderr, "tempo-arena: cannot create the session: %s%s\n", tempo_strerror(cr),
                cr == TEMPO_E_UNSUPPORTED ? " (this build has no libsodium: no --key or --token-file)"
                                          : "");
        return 1;
    }
    if (!o.quiet)
        fprintf(stderr, "tempo-arena: %s\n",
                trav && cfg.has_match_key
                    ? "sealed: datagrams authenticated and encrypted with the key of the match the relay introduced"
                : trav             ? "no --token-file: the relay's introduction and the datagrams are NOT authenticated"
                : o.has_key        ? "sealed: datagrams authenticated and encrypted with the match key"
                : o.token_file     ? "sealed: datagrams authenticated and encrypted with the token's keys"
                : o.has_relay      ? "no --token-file: datagrams to the relay are NOT authenticated"
                                   : "no --key: datagrams are NOT authenticated");
    if (o.has_relay && !o.quiet) {
        char addr[TEMPO_ADDRESS_STRLEN];
        tempo_address_format(&o.relay, addr, sizeof addr);
        if (o.token_file)
            fprintf(stderr, "tempo-arena: joining the relay at %s with the token's match\n", addr);
        else
            fprintf(stderr, "tempo-arena: joining match %" PRIu64 " at the relay at %s\n",
                    o.match ? o.match : 1u, addr);
    }
    for (int p = 0; p < o.players; p++) {
        if (o.local >> p & 1u) {
            tempo_session_add_local_player(s, p);
            tempo_session_set_input_delay(s, p, o.input_delay);
        } else if (o.has_relay) {
            continue; /* at the relay */
        } else {
            tempo_session_add_remote_player(s, p, &o.peer[p]);
            if (!o.quiet && first_at_address(&o, p)) {
                char who[96];
                fprintf(stderr, "tempo-arena: connecting to %s\n", describe(&o, p, who, sizeof who));
            }
        }
    }
    static arena_bots bots;
    bots_start(&bots, &o);
    static arena_recorder rec;
    if (o.record && !arena_record_open(&rec, o.record, o.players, o.seed, why, sizeof why)) {
        fprintf(stderr, "tempo-arena: %s\n", why);
        tempo_session_destroy(s);
        tempo_udp_close(udp);
        return 1;
    }

    const uint64_t start = platform_now_us();
    const uint64_t deadline = start + (uint64_t)o.timeout_s * 1000000u;
    uint64_t connect_deadline = start + (uint64_t)o.connect_timeout_s * 1000000u;
    if (connect_deadline > deadline)
        connect_deadline = deadline;
    uint64_t next = start, next_note = start + WAITING_NOTE_US, linger_until = 0;
    uint64_t final_checksum = 0;
    bool have_final = false, failed = false;
    arena_news news = {0};
    uint64_t work_us = 0, work_ticks = 0; /* tempo's own work while the match runs */
    uint64_t rollbacks = 0, waits = 0;    /* ticks that rolled back, that waited */
    int deepest = 0;
    static uint32_t tick_work[1 << 15];   /* per tick, the first 32768, for the median */
    tempo_relay_member_info mi;
    memset(&mi, 0, sizeof mi);
    for (;;) {
        platform_sleep_until_us(next);
        next += FRAME_US;
        uint64_t now = platform_now_us();
        if (trav) {
            tempo_traversal_update(trav, now);
            if (!o.quiet)
                arena_p2p_paths(trav, &paths, o.players, o.local, false);
        }
        tempo_session_poll(s, now);
        uint64_t work = platform_now_us() - now; /* tempo's own work this tick */
        report_events(s, &o, &news);
        bots.anchor |= news.rejoined;
        news.rejoined = 0;
        if (news.dropped) { /* its frames from here are its own: no final line of the match */
            fprintf(stderr, "tempo-arena: dropped from the match at frame %" PRId32 "; no final line\n",
                    news.dropped_frame);
            failed = true;
            break;
        }
        if (have_final) { /* done: keep answering, stop simulating */
            if (now >= linger_until)
                break;
            continue;
        }
        tempo_session_state state = TEMPO_SESSION_RUNNING;
        if (o.has_relay && !news.running && tempo_session_get_state(s, &state) == TEMPO_OK &&
            state == TEMPO_SESSION_ENDED) {
            relay_unfinished(s, udp, &o, why, sizeof why);
            fprintf(stderr, "tempo-arena: %s\n", why);
            failed = true;
            break;
        }
        if (!news.running && now >= connect_deadline) {
            if (o.has_relay) {
                relay_unfinished(s, udp, &o, why, sizeof why);
                fprintf(stderr, "tempo-arena: the match did not start within %d s: %s\n",
                        (int)((connect_deadline - start) / 1000000u), why);
            } else {
                bool auth = unfinished(s, &o, why, sizeof why);
                fprintf(stderr, "tempo-arena: the match did not start within %d s: %s (%s)\n",
                        (int)((connect_deadline - start) / 1000000u), why,
                        auth ? "the same match key on every machine?"
                             : "is tempo-arena running there, with the same --players?");
            }
            failed = true;
            break;
        }
        if (now >= deadline) {
            fprintf(stderr, "tempo-arena: timed out after %d s, frame %d not confirmed\n",
                    o.timeout_s, o.frames);
            failed = true;
            break;
        }
        if (!news.running && now >= next_note) {
            next_note += WAITING_NOTE_US;
            if (o.has_relay)
                relay_unfinished(s, udp, &o, why, sizeof why);
            else
                (void)unfinished(s, &o, why, sizeof why);
            if (!o.quiet)
                fprintf(stderr, "tempo-arena: waiting (%d of %d s): %s\n",
                        (int)((now - start) / 1000000u), o.connect_timeout_s, why);
        }
        uint64_t w0 = platform_now_us();
        if (!tempo_session_will_stall(s))
            for (int p = 0; p < o.players; p++)
                if (o.local >> p & 1u)
                    tempo_session_add_local_input(s, p, bots.next[p], ARENA_INPUT_SIZE);
        tempo_tick tick;
        tempo_session_advance(s, &tick);
        work += platform_now_us() - w0;
        if (!bots_after_tick(&bots, &o, &tick)) {
            fprintf(stderr, "tempo-arena: a bot's input landed on another frame than its own\n");
            failed = true;
            break;
        }
        const tempo_request *r;
        for (;;) {
            w0 = platform_now_us();
            int more = tempo_session_next(s, &r);
            work += platform_now_us() - w0;
            if (more <= 0)
                break;
            arena_step(&game, r->inputs, r->status);
            if (r->frame == o.frames - 1) /* state F, as last (re)computed */
                final_checksum = arena_checksum(&game);
        }
        if (news.running && !have_final) {
            rollbacks += tick.rollback_depth > 0;
            deepest = tick.rollback_depth > deepest ? tick.rollback_depth : deepest;
            waits += tick.status == TEMPO_TICK_WAITING;
        }
        if (news.running) {
            work_us += work;
            if (work_ticks < sizeof tick_work / sizeof tick_work[0])
                tick_work[work_ticks] = (uint32_t)work;
            work_ticks++;
        }
        if (o.record && !arena_record_tick(&rec, s, o.frames)) {
            fprintf(stderr, "tempo-arena: writing the replay %s failed\n", o.record);
            failed = true;
            break;
        }
        if (tempo_session_confirmed_frame(s) >= o.frames) {
            have_final = true;
            linger_until = now + (o.has_relay ? 0 : LINGER_US); /* the relay keeps the frames */
            if (o.has_relay) /* what the match cost, before the linger adds frames */
                tempo_session_relay_info(s, &mi);
        }
    }
    if (o.has_relay && tempo_session_leave(s) == TEMPO_OK) {
        /* tell the relay we are gone (the goodbye goes on the next two
         * polls too), so it stops standing in for our player at once */
        for (int k = 0; k < 2; k++) {
            platform_sleep_until_us(platform_now_us() + FRAME_US);
            tempo_session_poll(s, platform_now_us());
        }
    }
    if (!o.quiet)
        print_drops(s, udp);
    if (!o.quiet && o.has_relay && (have_final || tempo_session_relay_info(s, &mi) == TEMPO_OK) &&
        mi.connected) {
        uint64_t subs = 0;
        for (int p = 0; p < o.players; p++)
            subs += mi.substituted[p];
        fprintf(stderr, "tempo-arena: relay: %" PRId32 " frames taken, %" PRIu64
                        " inputs substituted (%" PRIu64 " of ours), rtt %.1f ms, stalls %" PRIu64
                        ", skipped %" PRIu64 ", rollbacks %" PRIu64 " (deepest %d), waits %" PRIu64
                        ", tempo %.1f us per tick (median %u)\n",
                mi.finalized, subs, mi.overridden, mi.rtt_ms, mi.stalls, mi.skipped, rollbacks,
                deepest, waits,
                work_ticks ? (double)work_us / (double)work_ticks : 0.0,
                median_u32(tick_work, work_ticks < 32768 ? (size_t)work_ticks : 32768));
    }
    if (trav && !o.quiet) {
        arena_p2p_paths(trav, &paths, o.players, o.local, true);
        tempo_traversal_stats ts;
        tempo_traversal_get_stats(trav, &ts);
        fprintf(stderr, "tempo-arena: traversal: probes %" PRIu64 " sent, %" PRIu64
                        " answered; datagrams direct %" PRIu64 " out %" PRIu64 " in, relayed %"
                        PRIu64 " out %" PRIu64 " in; relay reconnects %" PRIu64
                        "; dropped unknown=%" PRIu64 " session=%" PRIu64 " malformed=%" PRIu64
                        " forged=%" PRIu64 " replay=%" PRIu64 "\n",
                ts.probes_sent, ts.acks_in, ts.direct_out, ts.direct_in, ts.forwarded_out,
                ts.forwarded_in, ts.relay_reconnects, ts.dropped_unknown, ts.dropped_session,
                ts.dropped_malformed, ts.dropped_forged, ts.dropped_replay);
    }
    tempo_session_destroy(s);
    tempo_traversal_destroy(trav);
    tempo_udp_close(udp);
    ws_client_close(o.ws_conn);
    if (o.record && !arena_record_close(&rec, !failed)) {
        fprintf(stderr, "tempo-arena: writing the replay %s failed\n", o.record);
        failed = true;
    }
    if (failed)
        return 1;
    printf("final frame=%d checksum=%016" PRIx64 "\n", o.frames, final_checksum);
    return 0;
}
