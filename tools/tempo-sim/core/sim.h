/* SPDX-License-Identifier: MIT */
/*
 * sim.h — tempo-sim's shared pieces: options, the modes' entry points.
 *
 * tempo-sim runs the arena demo game with bots in virtual time and measures,
 * from outside, what players would have experienced. Each mode lives in its
 * own folder (p2p/, cs/, view/, lockstep/, soak/, hostile/, synctest/) over
 * core/ (this header, settings, scenario files, the network, the
 * measurement vocabulary of sim_metrics.h) and report/ (the one writer,
 * sim_out.h); tempo_sim.c parses the command line into a sim_options and
 * picks the mode.
 */
#ifndef TEMPO_SIM_H
#define TEMPO_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tempo/simnet.h"
#include "tempo/tempo.h"

/* Exit codes, as documented in --help. */
#define SIM_EXIT_OK 0
#define SIM_EXIT_USAGE 2
#define SIM_EXIT_MISMATCH 3

/* Machines in one simulated match: players' peers and spectators together
 * (the report's timeline holds this many). */
#define SIM_MAX_MACHINES 9
#define SIM_MAX_FAULTS 16    /* --hiccup and --drop-peer entries, each */
#define SIM_MAX_LINKS 48     /* link entries: every pair of 9 machines, and more */
#define SIM_MAX_BLACKOUTS 16 /* each takes two of simnet's 64 windows; drops take 2 each */
#define SIM_MAX_HOSTILES 8   /* spoofer, onpath and handshake-flood lines together */

typedef enum sim_mode {
    SIM_MODE_DEFAULT = 0, /* the default scenario (no scenario option given) */
    SIM_MODE_MATCH,       /* a network match described by the options */
    SIM_MODE_SYNCTEST,
    SIM_MODE_SOAK         /* --soak N: random scenarios, checked (sim_soak.c) */
} sim_mode;

typedef enum sim_compare {
    SIM_COMPARE_NONE = 0,
    SIM_COMPARE_TIMESYNC,   /* once per time sync method */
    SIM_COMPARE_INPUT_DELAY, /* delays 0..4 and auto on either signal */
    SIM_COMPARE_MAX_PREDICTION, /* prediction windows 4..24 frames */
    SIM_COMPARE_INTERPOLATION, /* playout delays: fixed 2 ticks, Pongbat, adaptive (sim_view.c) */
    SIM_COMPARE_RECKONING,     /* dead reckoning orders and corrections (sim_view.c) */
    SIM_COMPARE_LAGCOMP,       /* lag compensation on and off at 50/100/150 ms (sim_view.c) */
    SIM_COMPARE_RECONCILIATION, /* client-server: dumb, none, replay (sim_cs.c) */
    SIM_COMPARE_LOCKSTEP,      /* frame lockstep, 35 ms and adaptive turns, relay (sim_lockstep*.c) */
    SIM_COMPARE_TOPOLOGY,      /* the same rollback match as a mesh and through the relay (sim_compare.c) */
    SIM_COMPARE_RTT            /* round trips from pings alone and from datagram acks (sim_compare.c) */
} sim_compare;

/* Who talks to whom: peers of a rollback match, or a server and its clients. */
typedef enum sim_role {
    SIM_ROLE_P2P = 0,
    SIM_ROLE_CLIENT_SERVER
} sim_role;

/* The game of a client-server match (sim_cs_game.c): auto is Pong up to 8
 * clients when it is built, the built-in walkers game otherwise. */
typedef enum sim_cs_game_id {
    SIM_CS_GAME_AUTO = 0,
    SIM_CS_GAME_PONG,
    SIM_CS_GAME_WALKERS
} sim_cs_game_id;

/* A fault at a machine's frame: --hiccup PEER@FRAME:MS, --drop-peer PEER@FRAME. */
typedef struct sim_fault {
    int peer;
    int32_t frame;
    uint32_t ms; /* hiccups: how long the machine freezes */
} sim_fault;

/* A scenario's clock jump: when machine `peer` reaches `frame`, its clock
 * leaps by `us` (negative: back) between two of its ticks; it keeps ticking
 * at its pace and the network carries on. */
typedef struct sim_clock_jump {
    int peer;
    int32_t frame;
    int64_t us;
} sim_clock_jump;

/* --link A-B:PROFILE (or a scenario's link line); b < 0 means every other
 * machine ("A-*"). Both directions get params. */
typedef struct sim_link_override {
    int a, b;
    char profile[24];          /* the profile params start from; "" = none (all zero) */
    bool custom;               /* params were changed from the profile's */
    tempo_link_params params;  /* what the link does */
    uint64_t from_us;          /* 0: from the start; else from this virtual time on (a step) */
} sim_link_override;

/* A scenario's blackout: everything sent between a and b (b < 0: between a
 * and any machine), both ways, is dropped during [from_us, to_us) of
 * virtual time. */
typedef struct sim_blackout {
    int a, b;
    uint64_t from_us, to_us;
} sim_blackout;

/* A scenario's hostile actor (sim_hostile.c, docs/SCENARIOS.md), at work
 * during [from_us, to_us) of virtual time. */
typedef enum sim_hostile_kind {
    SIM_HOSTILE_SPOOFER, /* off-path, forging peers' source addresses */
    SIM_HOSTILE_ONPATH,  /* on the path from a to b: rewrites, drops, replays, duplicates, reorders */
    SIM_HOSTILE_FLOOD    /* handshake requests from many addresses */
} sim_hostile_kind;

typedef struct sim_hostile {
    int kind;            /* sim_hostile_kind */
    int a, b;            /* onpath: datagrams from machine a to machine b */
    double rate;         /* spoofer, flood: datagrams a second; onpath: the share of
                            passing datagrams it acts on (0..1) */
    uint64_t from_us, to_us;
} sim_hostile;

typedef struct sim_options {
    sim_mode mode;
    int players;
    int frames;
    uint64_t seed;
    tempo_save_policy save_policy;
    const char *json_path;       /* NULL: no JSON */
    bool quiet;

    /* synctest */
    int check_distance;
    int64_t nondeterministic_at; /* -1: off */

    /* network match */
    int local_per_peer;          /* players per peer machine (unless hosts_set) */
    bool hosts_set;              /* a scenario's peer lines: player_peer[] says who hosts whom */
    int8_t player_peer[TEMPO_MAX_PLAYERS];
    int spectators;
    int8_t spectator_host[SIM_MAX_MACHINES]; /* the peer spectator k watches (default 0) */
    const char *profile;         /* every link unless overridden */
    bool profile_given;          /* a --profile option or a scenario's profile line set it */
    sim_link_override links[SIM_MAX_LINKS];
    int num_links;
    int max_prediction;
    int input_delay;             /* fixed delay when !input_delay_auto */
    bool input_delay_auto;
    tempo_timesync_method timesync;
    tempo_delay_signal delay_signal; /* what --input-delay auto follows (the library's default) */
    int timesync_window;         /* 0: the library's default */
    double stall_threshold;      /* 0: the library's default */
    int desync_interval;
    int32_t desync_at;           /* -1: off; else peer 1 corrupts state after ADVANCE(at) */
    sim_fault drops[SIM_MAX_FAULTS];
    int num_drops;
    sim_fault hiccups[SIM_MAX_FAULTS];
    int num_hiccups;
    sim_clock_jump clock_jumps[SIM_MAX_FAULTS];
    int num_clock_jumps;
    double clock_drift_pct[SIM_MAX_MACHINES]; /* negative: slow clock */
    uint32_t start_skew_ms[SIM_MAX_MACHINES];
    sim_blackout blackouts[SIM_MAX_BLACKOUTS];
    int num_blackouts;
    /* `nat` lines (sim_nat.c): each machine's home router, SIM_NAT_*;
     * all SIM_NAT_NONE without one */
    uint8_t nat[SIM_MAX_MACHINES];
    bool has_nat;
    int seal;                    /* 1: every datagram sealed under a key drawn from the seed */
    sim_hostile hostiles[SIM_MAX_HOSTILES];
    int num_hostiles;
    int attack;                  /* --attack N: N forged datagrams at a sealed match (0: off) */
    sim_compare compare;
    /* client-server mode (sim_cs.c): machine 0 is the server, 1..clients the clients */
    sim_role role;
    int clients;
    bool clients_given;          /* a --clients option or a scenario's clients line set it */
    sim_cs_game_id game;
    tempo_reconcile_mode reconcile;
    int soak_count;              /* --soak N */
    int soak_frames;             /* --soak-frames F: every soak match this long (0: random) */
    double stuck_after_s;        /* a match part longer than this is stuck (0: 4x real time + 60 s) */
    bool soak_print;             /* --soak-print: every scenario drawn, with its verdict */
    const char *report_path;     /* NULL: no HTML report */
    const char *csv_path;        /* NULL: no CSV */
    const char *record_prefix;   /* NULL: no replay files; else PREFIX-peerN.rep per peer */
    const char *command;         /* the command line, for the report */

    /* lockstep and relay (sim_lockstep.h) */
    int topology;                /* 0: mesh; 1: every peer through one relay */
    bool ping_only;              /* sessions send no datagram acks: round trips from pings alone */
    int lockstep_turns;          /* turn length, ms, of the lockstep object; 0: not lockstep */
    bool lockstep_adaptive;      /* --lockstep-turns adaptive */
} sim_options;

/* ---- the modes, one folder each; each returns the exit code ---- */

/* synctest/: the arena under a synctest session. */
int sim_synctest(const sim_options *o);
/* soak/: N random scenarios from the seed, each checked. */
int sim_soak(const sim_options *o);
/* p2p/: the checks of a rollback match that need the machine count
 * (SIM_EXIT_OK, or SIM_EXIT_USAGE with a message); then one match, or the
 * same match once per setting compared (--compare timesync, input-delay,
 * max-prediction, topology). */
int sim_p2p_check(const sim_options *o);
int sim_p2p(const sim_options *o);
int sim_p2p_compare(const sim_options *o);
/* hostile/: --attack N, forged datagrams at a checked p2p match. */
int sim_attack(const sim_options *o);
/* cs/: a client-server match, or --compare reconciliation. */
int sim_cs(const sim_options *o);
/* view/: --compare interpolation | reckoning | lagcomp. */
int sim_view_compare(const sim_options *o);
/* lockstep/: --lockstep-turns (one match with the lockstep object) and
 * --compare lockstep (five ways of playing side by side). */
int sim_lockstep(const sim_options *o);
int sim_lockstep_compare(const sim_options *o);

/* "tempo-sim: WHAT (see --help)" on stderr; returns SIM_EXIT_USAGE. */
int sim_usage_error(const char *what);

/* The peer hosting player p (the scenario's split, or p / local_per_peer). */
int sim_player_peer(const sim_options *o, int player);

/* ---- scenario files (sim_scenario.c, format in docs/SCENARIOS.md) ---- */

/* Read a scenario file into *o, on top of what *o holds (tempo-sim's
 * defaults). Errors go to stderr as "FILE:LINE: message"; returns false on
 * any. Profile names in *o point to tempo_link_profile_names()'s static
 * strings, so *o owns nothing. */
bool sim_scenario_load(const char *path, sim_options *o);
/* The same from text in memory (name is used in messages). */
bool sim_scenario_parse(const char *text, const char *name, sim_options *o);
/* Write *o as a scenario file that sim_scenario_parse reads back into the
 * same match (every setting the runner uses, output options aside). */
void sim_scenario_write(FILE *f, const sim_options *o);

/* "inversus", "ggpo", "lead", "none" for a tempo_timesync_method; "?" else. */
const char *sim_timesync_name(int method);

/* Wall-clock seconds, for reporting how long a run took (tools may read the
 * clock; the library never does). */
double sim_wall_seconds(void);

/* Append printf-style text to the string in buf (size bytes in all), never
 * overflowing: what does not fit is cut. */
void sim_append(char *buf, size_t size, const char *fmt, ...);

/* splitmix64's finalizer (Steele, Lea and Flood): independent-looking
 * values from (seed, index), for every seeded draw of a match's setup
 * (clock phases, session seeds, keys). */
uint64_t sim_mix64(uint64_t x);
/* splitmix64 as a generator: the next value of the sequence *state walks
 * (the bots' and the soak's draws). */
uint64_t sim_next64(uint64_t *state);

/* ---- sim_nat.c: the path of each pair behind NATs (docs/NAT.md) ---- */
typedef enum sim_nat {
    SIM_NAT_NONE = 0, SIM_NAT_FULL_CONE, SIM_NAT_ADDRESS, SIM_NAT_PORT, SIM_NAT_SYMMETRIC
} sim_nat;
/* How much further a relayed pair's datagrams go, each way: through a
 * relay near both, not straight (an approximation: docs/NAT.md). */
#define SIM_RELAY_DETOUR_MS 15
/* The NAT's name in a `nat` line ("none", "fc", "arc", "prc", "sym"), and back (-1: none such). */
const char *sim_nat_name(int nat);
int sim_nat_parse(const char *s);
/* True if machines a and b have no direct path (symmetric against
 * symmetric or port-restricted): the pair plays through the relay. */
bool sim_nat_relayed(const sim_options *o, int a, int b);
/* The link a-b gets (its profile and link lines) with the relay's detour. */
void sim_nat_link(const sim_options *o, int a, int b, tempo_link_params *out);

#endif /* TEMPO_SIM_H */
