/*
 * arena_options.c — tempo-arena-sdl's command line.
 *
 * Invariant: a parse that returns true leaves options tempo will accept:
 * every number in range, and in p2p mode every player either this machine's
 * or a peer's, exactly once.
 */
#include "arena_sdl.h"

#include <stdlib.h>
#include <string.h>

void arena_options_usage(FILE *f)
{
    fprintf(f,
            "usage: tempo-arena-sdl [options]\n"
            "  Play arena against bots through a tempo session (docs/DEMO.md).\n"
            "  --synctest            synctest session (replays frames, compares checksums)\n"
            "  --players N           ships, 2..8 (default 4: you and 3 bots; p2p: 2)\n"
            "  --seed S              board and bots (default 1); peers must agree\n"
            "  --delay MS            simulated one-way network delay, 0..200 (default 80;\n"
            "                        p2p: added to outgoing datagrams, default 0)\n"
            "  --input-delay F       input delay in frames, 0..10 (default 1)\n"
            "  --max-prediction F    prediction window, 1..64 (default 16)\n"
            "  --check-distance F    synctest frames replayed per tick (default 7)\n"
            "  --frames N            quit after N frames\n"
            "  --headless-frames N   no window: bots fly every local ship, N frames, then exit\n"
            "  --screenshot FILE     write the last picture as a BMP\n"
            "  --autopilot           a bot flies your ship (Tab toggles)\n"
            "  peer to peer over UDP:\n"
            "  --port P              local UDP port (p2p mode when --peer is given)\n"
            "  --peer I=ADDR         player I plays at ADDR (a.b.c.d:port or [v6]:port);\n"
            "                        repeat per remote player; the rest play here\n"
            "  --player I            the player you fly (default 0)\n"
            "  --auto-delay          tempo sets the input delay from the measured lag\n"
            "exit: 0 ok, 1 error, 2 usage, 3 desync or synctest mismatch, 77 no video driver\n");
}

static bool int_arg(const char *text, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

static bool seed_arg(const char *text, uint64_t *out)
{
    char *end;
    unsigned long long v = strtoull(text, &end, 0);
    *out = v;
    return *text != '\0' && *text != '-' && *end == '\0';
}

/* "I=ADDR": player I at ADDR. */
static bool peer_arg(const char *text, arena_options *o)
{
    const char *eq = strchr(text, '=');
    char index[8];
    if (!eq || eq == text || (size_t)(eq - text) >= sizeof index ||
        o->npeers == ARENA_MAX_PLAYERS)
        return false;
    memcpy(index, text, (size_t)(eq - text));
    index[eq - text] = '\0';
    arena_peer *p = &o->peers[o->npeers];
    if (!int_arg(index, 0, ARENA_MAX_PLAYERS - 1, &p->player) ||
        tempo_address_parse(&p->addr, eq + 1) != TEMPO_OK || p->addr.port == 0)
        return false;
    o->npeers++;
    return true;
}

/* One option without a value; false if it is not one. */
static bool flag(const char *name, arena_options *o)
{
    if (strcmp(name, "--synctest") == 0)
        o->mode = ARENA_MODE_SYNCTEST;
    else if (strcmp(name, "--autopilot") == 0)
        o->autopilot = true;
    else if (strcmp(name, "--auto-delay") == 0)
        o->auto_delay = true;
    else
        return false;
    return true;
}

/* One option with a value; false if unknown or out of range. */
static bool option(const char *name, const char *val, arena_options *o, bool *players_given)
{
    if (strcmp(name, "--players") == 0) {
        *players_given = true;
        return int_arg(val, 2, ARENA_MAX_PLAYERS, &o->players);
    }
    if (strcmp(name, "--seed") == 0)
        return seed_arg(val, &o->seed);
    if (strcmp(name, "--delay") == 0)
        return int_arg(val, 0, ARENA_MAX_DELAY_MS, &o->delay_ms);
    if (strcmp(name, "--input-delay") == 0)
        return int_arg(val, 0, ARENA_MAX_INPUT_DELAY, &o->input_delay);
    if (strcmp(name, "--max-prediction") == 0)
        return int_arg(val, 1, TEMPO_MAX_PREDICTION, &o->max_prediction);
    if (strcmp(name, "--check-distance") == 0)
        return int_arg(val, 1, TEMPO_MAX_PREDICTION, &o->check_distance);
    if (strcmp(name, "--frames") == 0)
        return int_arg(val, 1, 100000000, &o->frames);
    if (strcmp(name, "--headless-frames") == 0)
        return int_arg(val, 1, 100000000, &o->headless_frames);
    if (strcmp(name, "--screenshot") == 0) {
        o->screenshot = val;
        return true;
    }
    if (strcmp(name, "--port") == 0)
        return int_arg(val, 1, 65535, &o->port);
    if (strcmp(name, "--peer") == 0)
        return peer_arg(val, o);
    if (strcmp(name, "--player") == 0)
        return int_arg(val, 0, ARENA_MAX_PLAYERS - 1, &o->me);
    return false;
}

/* p2p: every peer's player in range, distinct, and not ours; one address
 * family (one socket speaks one). */
static bool peers_valid(const arena_options *o)
{
    uint32_t seen = 1u << o->me;
    for (int i = 0; i < o->npeers; i++) {
        int p = o->peers[i].player;
        if (p >= o->players || (seen >> p) & 1u ||
            o->peers[i].addr.family != o->peers[0].addr.family)
            return false;
        seen |= 1u << p;
    }
    return o->port > 0;
}

bool arena_options_parse(int argc, char **argv, arena_options *o)
{
    *o = (arena_options){.mode = ARENA_MODE_LOCAL, .players = 4, .seed = 1, .delay_ms = 80,
                         .input_delay = 1, .max_prediction = 16, .check_distance = 7};
    bool players_given = false, delay_given = false;
    for (int i = 1; i < argc; i++) {
        if (flag(argv[i], o))
            continue;
        delay_given |= strcmp(argv[i], "--delay") == 0;
        if (i + 1 >= argc || !option(argv[i], argv[i + 1], o, &players_given)) {
            fprintf(stderr, "tempo-arena-sdl: bad option %s%s%s\n", argv[i],
                    i + 1 < argc ? " " : "", i + 1 < argc ? argv[i + 1] : "");
            return false;
        }
        i++;
    }
    if (o->npeers > 0 && o->mode == ARENA_MODE_SYNCTEST) {
        fprintf(stderr, "tempo-arena-sdl: --synctest runs alone, without --peer\n");
        return false;
    }
    if (o->npeers > 0) {
        o->mode = ARENA_MODE_P2P;
        if (!players_given)
            o->players = 2;
        if (!delay_given)
            o->delay_ms = 0; /* the network brings its own */
    }
    if (o->me >= o->players || (o->mode != ARENA_MODE_P2P && o->me != 0)) {
        fprintf(stderr, "tempo-arena-sdl: --player needs p2p mode and a player below --players\n");
        return false;
    }
    if (o->mode == ARENA_MODE_P2P && !peers_valid(o)) {
        fprintf(stderr, "tempo-arena-sdl: p2p needs --port and one --peer per remote player,"
                        " each below --players and not --player\n");
        return false;
    }
    /* tempo checks these too; saying so here gives a clearer message. */
    if (o->input_delay > o->max_prediction || o->check_distance > o->max_prediction) {
        fprintf(stderr, "tempo-arena-sdl: input delay and check distance must fit the"
                        " prediction window\n");
        return false;
    }
    return true;
}
