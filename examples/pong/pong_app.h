/* SPDX-License-Identifier: MIT */
/*
 * pong_app.h — what the two Pong programs (tempo-pong, headless, and
 * tempo-pong-sdl, the window) share:
 *   pong_options.c  the command line of both
 *   pong_server.c   the authoritative server: UDP, tempo_server in arena
 *                   mode, one pong_step per tick
 *   pong_client.c   a client: UDP, tempo_client in arena mode, the bot or
 *                   a person's input, the final snapshot
 *
 * Ticks and the final line. The state "of tick N" is the state after the
 * server's ADVANCE(N - 1), which is what the server's snapshot of tick N
 * carries; its pong_state.frame is N. With --frames N the server runs
 * ticks 0 .. N - 1 and prints the state of tick N; then the match is over:
 * the server keeps ticking (and sending snapshots) for its clients, but no
 * longer steps the game, so every later snapshot carries that same state,
 * frame N. A client prints the first snapshot it puts in place whose tick
 * is N or later, as it puts it in place, before replaying its own ticks on
 * top: a client that lost the snapshot of N, or skipped it (a client
 * applies only the newest), takes the next one. Both print
 *
 *   final tick=<N> checksum=<16 hex digits>
 *
 * (pong_checksum), so the lines of a server and all its clients match.
 *
 * The clock is read by the programs (tools/common/platform.h or SDL),
 * never by tempo: every call below takes the time as an argument.
 */
#ifndef PONG_APP_H
#define PONG_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pong.h"
#include "tempo/client.h"
#include "tempo/server.h"
#include "tempo/udp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The protocol id of Pong's server, clients and tokens: tempo-token's
 * default, so tokens minted without --protocol-id fit. */
#define PONG_PROTOCOL_ID 1u

/* ---- options (pong_options.c) ------------------------------------------- */

typedef enum pong_mode {
    PONG_MODE_SERVER = 1, /* the authoritative game for clients over UDP */
    PONG_MODE_CLIENT = 2, /* one paddle, predicted, against a server */
    PONG_MODE_LOCAL = 3   /* no network: bots on every paddle */
} pong_mode;

typedef enum pong_program {
    PONG_PROGRAM_HEADLESS, /* tempo-pong */
    PONG_PROGRAM_SDL       /* tempo-pong-sdl */
} pong_program;

typedef struct pong_options {
    pong_mode mode;
    bool server, client, local;   /* the mode flags as given */
    int port;                     /* server: its UDP port; client: ours, 0 any */
    int players;                  /* PONG_MIN_PLAYERS..PONG_MAX_PLAYERS */
    int frames;                   /* the final tick; 0: play on */
    uint64_t seed;                /* server and local: serves; client: the bot */
    const char *key_file;         /* server: the backend's private key (tempo-token --new-key) */
    tempo_address address;        /* server: its address as tokens name it */
    bool has_address;
    tempo_address connect;        /* client: the server */
    bool has_connect;
    bool bot;                     /* client: a bot plays our paddle */
    const char *token_file;       /* client: a connect token (tempo-token) */
    tempo_reconcile_mode reconcile;
    int connect_timeout_s;        /* client: give up when not admitted after this long */
    int timeout_s;                /* client with --frames: give up when not done after this long */
    bool quiet;
    bool verbose;
    bool agones, no_agones;       /* server: an Agones game server, or not (docs/DEPLOY.md) */
    int drain_seconds;            /* server under Agones: a signal lets the match run on */
    /* tempo-pong-sdl only */
    const char *screenshot;       /* BMP of the last picture */
} pong_options;

typedef enum pong_options_result {
    PONG_OPTIONS_RUN,   /* *o is filled and consistent */
    PONG_OPTIONS_HELP,  /* the usage went to stdout: exit 0 */
    PONG_OPTIONS_USAGE  /* the error went to stderr: exit 2 */
} pong_options_result;

/* Parse argv for `program` into *o (defaults first). */
pong_options_result pong_options_parse(pong_program program, int argc, char **argv,
                                       pong_options *o);

/* "replay", "none" or "dumb". */
const char *pong_reconcile_name(tempo_reconcile_mode mode);

/* A UDP socket of `family` on `port` (0: any), as a transport: false with
 * a message naming `program` on stderr if it cannot be bound. */
bool pong_udp_open(int family, int port, const char *program, tempo_udp **out,
                   tempo_transport *tr);

/* ---- the server (pong_server.c) ------------------------------------------- */

typedef struct pong_server {
    pong_state game;          /* the arena tempo reads for each snapshot */
    tempo_server *server;
    tempo_udp *udp;           /* NULL: the caller's transport */
    const char *program;      /* for messages */
    bool quiet;
    bool sealed;              /* clients need tokens; datagrams are sealed */
    int32_t tick;             /* ticks run; `game` is the state of this tick */
    int32_t final_tick;       /* > 0: the match ends at this tick, and `game`
                                 stays its state while ticks go on */
    const char *refuse;       /* non-NULL: clients that connect are dropped, this
                                 logged as the reason (not allocated yet) */
} pong_server;

/* Open the UDP port o->port and start the server on it
 * (pong_server_start). False with a message on stderr otherwise (then
 * nothing is left open). */
bool pong_server_open(pong_server *ps, const pong_options *o, const char *program);

/* Read the private key (if any) and create the server over a freshly
 * initialised game, talking through `transport` (its ctx must outlive the
 * server). tempo keeps a pointer to ps->game: ps stays where it is until
 * pong_server_close. False with a message on stderr otherwise. */
bool pong_server_start(pong_server *ps, const pong_options *o, const char *program,
                       const tempo_transport *transport);

/* One tick at time now_us: network in and out, events (printed unless
 * quiet), the ADVANCE of the next tick, carried out unless the match is
 * over (the state of final_tick is in `game`). */
void pong_server_tick(pong_server *ps, uint64_t now_us);

/* Before the match: the network only (no tick runs), clients that
 * connect while `refuse` is set dropped. */
void pong_server_wait(pong_server *ps, uint64_t now_us);

/* Whether every connected client acknowledged a snapshot of `tick` or a
 * later one. */
bool pong_server_all_acked(const pong_server *ps, int32_t tick);

/* One summary line of the server's statistics, then one per client. */
void pong_server_print_stats(const pong_server *ps, FILE *f);

void pong_server_close(pong_server *ps);

/* ---- a client (pong_client.c) --------------------------------------------- */

typedef struct pong_client {
    pong_state game;          /* the arena: the server's state, predicted ahead */
    pong_state server;        /* the newest snapshot as it came (placed_tick) */
    tempo_client *client;
    tempo_udp *udp;           /* NULL: the caller's transport */
    const char *program;
    bool quiet, verbose;
    bool bot;                 /* the bot plays our paddle (else the caller's input) */
    uint64_t bot_seed;
    int me;                   /* our player slot, -1 until connected */
    tempo_client_state state;
    char token_problem[192];  /* what the client saw wrong with its token, "" if nothing */
    bool sealed;              /* it came with a token */
    int connect_timeout_s;
    tempo_address connect;    /* the server */
    int32_t final_tick;       /* the tick to print, 0: none */
    bool have_final;          /* final_checksum is the state of final_tick */
    bool wrong_final;         /* a snapshot at or past final_tick held another
                                 tick's state: the server's final tick differs */
    uint64_t final_checksum;
    int32_t placed_tick;      /* the newest snapshot put in place, -1 none */
    uint64_t placed_checksum; /*   and its checksum */
    tempo_client_tick last;   /* the latest tick's plan */
} pong_client;

/* Open a UDP socket (port o->port, 0 any) and start the client on it
 * (pong_client_start). False with a message on stderr otherwise. */
bool pong_client_open(pong_client *pc, const pong_options *o, const char *program);

/* Read the token (if any) and create the client of the server at
 * o->connect, talking through `transport` (its ctx must outlive the
 * client). tempo keeps pointers into *pc (the arena, the correction
 * measure's context): pc stays where it is until pong_client_close. False
 * with a message on stderr otherwise. */
bool pong_client_start(pong_client *pc, const pong_options *o, const char *program,
                       const tempo_transport *transport);

/* One tick at time now_us: network, events, our input (the bot's, or
 * `input` when there is no bot), the plan, carried out on pc->game.
 * Returns the client's state after it. */
tempo_client_state pong_client_tick(pong_client *pc, uint64_t now_us, uint8_t input);

/* Why a client that timed out connecting was not admitted, as far as it
 * can tell: what it saw wrong with its token, or where to look. */
void pong_client_not_admitted(const pong_client *pc, char *buf, size_t size);

/* When the next tick is due, on the clock given to pong_client_tick
 * (tempo_client_next_tick_at: a running deadline, so late wake-ups do not
 * add up). */
uint64_t pong_client_next_tick_at(const pong_client *pc);

/* Switch reconciliation while running. */
tempo_result pong_client_set_reconcile(pong_client *pc, tempo_reconcile_mode mode);

/* One summary line of the client's statistics. */
void pong_client_print_stats(const pong_client *pc, FILE *f);

/* Say goodbye to the server (when connected) and free everything; now_us
 * is the time of the goodbyes. */
void pong_client_close(pong_client *pc, uint64_t now_us);

#ifdef __cplusplus
}
#endif

#endif /* PONG_APP_H */
