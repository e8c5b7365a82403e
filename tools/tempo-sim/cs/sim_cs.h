/* SPDX-License-Identifier: MIT */
/*
 * sim_cs.h — tempo-sim's client-server mode: a server (server.h) and N bot
 * clients (client.h) in one process, over simnet, in virtual time, each
 * machine on its own clock, measured from outside.
 *
 *   sim_cs_game.c    the games a match can run (the walkers game built in,
 *                    Pong when it is built) behind one table of functions
 *   sim_cs_pong.c    Pong's entry in that table
 *   sim_cs.c         the match: machines, the event loop, what is measured
 *   sim_cs_report.c  the summary, the --compare reconciliation table, the
 *                    JSON keys and the verdicts
 *   sim_cs_html.c    the HTML report and its charts
 *
 * Machine 0 is the server, machines 1..N the clients; client i plays player
 * slot i - 1's bot. What a client "presents" is its arena after the requests
 * of a tick were carried out: what a player would see on screen.
 *
 * Measuring input-to-response from outside. Each input carries, after the
 * game's own bytes, a 16-bit count of the changes its bot made so far, and
 * the state carries a header in front of the game's state: per player, the
 * count of the input the last step played. A change made at a client's tick
 * k is visible at the first tick k' whose presented state shows that count
 * (or a later one) for that client's player: the response took k' - k
 * ticks. The game never sees the count; the header is part of the state, so
 * server and clients step it alike.
 */
#ifndef TEMPO_SIM_CS_H
#define TEMPO_SIM_CS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"
#include "sim_metrics.h"
#include "sim_out.h"

/* tempo-sim's client-server matches: the games and the report are sized
 * for 64 clients (the library takes TEMPO_CS_MAX_CLIENTS); sim_settings.c
 * states the same bound. */
#define SIM_CS_MAX_CLIENTS 64
#define SIM_CS_SEQ_BYTES 2          /* the change count after the game's input */
#define SIM_CS_SETTLE_TICKS 180     /* after the match: bots hold still, then states are compared */
#define SIM_CS_LATE_SETTLE_S 3.0    /* late inputs "after settling" count from here */
#define SIM_CS_SNAP_GRACE_S 1.0     /* tick-sync jumps this soon after connecting are the start-up's */
#define SIM_CS_MAX_SAMPLES 4000     /* per series; long matches are sampled less often */
#define SIM_CS_SHOWN 9              /* clients drawn in the report's charts */
#define SIM_CS_MAX_MARKS 256        /* snaps and faults in the report */

/* The "good" lines of the verdicts. */
#define SIM_CS_GOOD_LATE_PER_MIN 1.0   /* late inputs a minute per client after settling, at most */
#define SIM_CS_GOOD_DILATION_SLACK 0.001 /* measured tick length over the bound: microsecond rounding */

/* ---- games (sim_cs_game.c) ----------------------------------------------------------- */

#define SIM_CS_BOT_BYTES 64 /* room for one bot's state */

/* A deterministic game as the match runs it: plain-data state of
 * state_size bytes, stepped by every player's input. */
typedef struct sim_cs_game {
    const char *name;
    int min_players, max_players;
    int input_size;                /* the game's own bytes per player */
    size_t state_size;
    const char *correction_unit;   /* what correction sizes count ("px") */
    bool (*init)(void *state, int players, uint64_t seed);
    /* inputs: players * input_size bytes; status: players tempo_input_status */
    void (*step)(void *state, const uint8_t *inputs, const uint8_t *status, int players);
    /* A bot in SIM_CS_BOT_BYTES bytes; next writes input_size bytes. */
    void (*bot_init)(void *bot, uint64_t seed, int player);
    void (*bot_next)(void *bot, const void *state, int player, uint8_t *input);
    /* How far apart two states are, in correction_unit (0: equal): the
     * largest jump of any piece but player skip's (-1: every piece). */
    double (*correction)(const void *predicted, const void *corrected, int players, int skip);
    /* How far player p's own piece (a walker, a paddle) is apart in two
     * states, in correction_unit. */
    double (*player_distance)(const void *a, const void *b, int player);
} sim_cs_game;

/* The game the options ask for (auto: Pong for 2..8 clients when built,
 * walkers otherwise), or NULL with the reason in why. */
const sim_cs_game *sim_cs_game_pick(const sim_options *o, char *why, size_t size);

/* The built-in walkers game: every player walks a 1000 x 1000 field. */
extern const sim_cs_game sim_cs_walkers;
#ifdef SIM_HAVE_PONG
extern const sim_cs_game sim_cs_pong;
#endif

/* ---- results ---------------------------------------------------------------------------- */

typedef struct sim_cs_client_result {
    bool connected;                /* it was admitted */
    bool lost;                     /* denied, timed out or disconnected */
    double connect_s;              /* virtual time it was admitted */
    /* input-to-response, ticks */
    uint64_t changes;              /* input changes its bot made in the match part */
    uint64_t responses;            /* of which its presented state showed */
    double response_mean;
    int response_max;
    uint64_t snapbacks;            /* visible corrections that moved its own player's piece */
    uint64_t snapbacks_after;      /* of which after SIM_CS_LATE_SETTLE_S */
    /* visible corrections, measured from outside: the state shown last tick
     * against the state held for that moment once a snapshot is in place */
    uint64_t visible;
    double visible_per_min, visible_mean, visible_max;
    /* the visible corrections split: those that moved its own piece (own,
     * the snap-backs) and those that moved anything else (others: other
     * players' pieces, the ball); one may be both. Sizes: the largest jump
     * of the pieces counted. */
    double own_per_min, own_mean, own_max;
    uint64_t others;
    double others_per_min, others_mean, others_max;
    /* reconciliation, from the client's stats */
    uint64_t corrections;
    double corrections_per_min;
    double correction_mean, correction_max;
    uint64_t resim_frames, stall_ticks;
    /* the server's count of this client's late inputs */
    uint64_t late_inputs, late_after;
    double late_per_min, late_after_per_min;
    /* tick sync */
    double lead_mean, lead_min, lead_max; /* its own estimate, ticks, sampled after the grace */
    double true_lead_mean;         /* its last step's tick minus the server's, at the same samples */
    double dilation_max;           /* largest |tick length / nominal - 1| seen */
    uint64_t snaps, snaps_after;   /* tick-sync jumps; of which after the grace */
    /* traffic at its transport, payload bytes (as UDP would carry them) */
    double up_bytes_per_s, down_bytes_per_s;
    double snapshot_bytes;         /* the server's bytes per snapshot to it */
    uint64_t snapshots, full_snapshots;
    double rtt_ms;
    /* the end: its presented state against the server's of the same tick */
    bool compared;
    bool agrees;
    int32_t compared_frame;
} sim_cs_client_result;

typedef struct sim_cs_result {
    const sim_cs_game *game;
    bool sealed;                   /* connect tokens, datagrams sealed */
    int clients;
    tempo_reconcile_mode reconcile;
    double max_dilation;           /* the clients' bound */
    sim_cs_client_result c[SIM_CS_MAX_CLIENTS];
    int connected;                 /* clients admitted */
    uint64_t server_ticks;
    double server_cpu_us;          /* wall time in poll + advance, all ticks */
    double cpu_us_per_client_tick; /* that over ticks x clients */
    double lib_us_per_client_tick; /* the same without simnet's send and receive */
    bool faults;                   /* a hiccup or blackout was injected */
    double match_s, wall_s;
    /* over all clients */
    double response_mean;
    int response_max;
    uint64_t snapbacks, snapbacks_after, corrections, resim_frames, snaps_after, visible, others;
    double visible_per_min, visible_mean, visible_max;
    double own_per_min, own_mean, own_max, others_per_min, others_mean, others_max;
    double corrections_per_min, correction_mean, correction_max;
    double late_per_min, late_after_per_min; /* per client */
    double dilation_max, up_bytes_per_s, down_bytes_per_s, snapshot_bytes;
    int agree;                     /* clients whose end state matched the server's */
    bool agreement_expected;       /* replay and dumb show the server's state; none does not */
    char problem[160];             /* why the run failed ("" if it did not) */
} sim_cs_result;

/* What the report draws: per client, one value per sample. */
typedef struct sim_cs_timeline {
    double interval_s;
    int count, capacity, clients;
    float *lead[SIM_CS_MAX_CLIENTS];        /* ticks, the client's estimate */
    float *true_lead[SIM_CS_MAX_CLIENTS];   /* ticks, from outside */
    float *dilation[SIM_CS_MAX_CLIENTS];    /* percent */
    float *corrections[SIM_CS_MAX_CLIENTS]; /* per second */
    float *late[SIM_CS_MAX_CLIENTS];        /* per second */
    float *up[SIM_CS_MAX_CLIENTS];          /* bytes per second */
    float *down[SIM_CS_MAX_CLIENTS];
    struct {
        double t_s;
        int client;                /* -1: the server */
        int kind;                  /* sim_marker_kind */
        char label[40];
    } marks[SIM_CS_MAX_MARKS];
    int num_marks;
} sim_cs_timeline;

bool sim_cs_timeline_init(sim_cs_timeline *t, int clients, int capacity, double interval_s);
void sim_cs_timeline_free(sim_cs_timeline *t);

/* ---- the match (sim_cs.c) --------------------------------------------------------------- */

/* Run one client-server match. tl, if not NULL, gets the timeline (freed
 * by the caller with sim_cs_timeline_free). Returns SIM_EXIT_OK after a run
 * (what it found is in *out), SIM_EXIT_USAGE with a message if it cannot be
 * set up. */
int sim_cs_run(const sim_options *o, sim_cs_result *out, sim_cs_timeline *tl);

/* ---- output (sim_cs_report.c, sim_cs_html.c) ---------------------------------------------- */

enum { SIM_CS_VERDICT_LATE, SIM_CS_VERDICT_DILATION, SIM_CS_VERDICT_SNAPS, SIM_CS_VERDICT_AGREE,
       SIM_CS_VERDICTS };

void sim_cs_judge(const sim_cs_result *r, sim_verdict out[SIM_CS_VERDICTS]);
/* One line describing the match ("2 clients, pong, transatlantic, 60 s, seed 1"). */
void sim_cs_describe(const sim_options *o, const sim_cs_result *r, char *buf, size_t size);
void sim_cs_print(FILE *f, const sim_options *o, const sim_cs_result *r);
void sim_cs_json(sim_json *j, const sim_options *o, const sim_cs_result *r);
const char *sim_cs_reconcile_name(tempo_reconcile_mode m);

/* --compare reconciliation (sim_cs_compare.c): dumb, none and replay on
 * the same match, for 1, 2 and 4 clients unless --clients names a count;
 * prints the table, writes the JSON; returns the exit code. */
int sim_cs_compare(const sim_options *o);
/* The HTML report page on f; false if it could not be made. */
bool sim_cs_html_page(FILE *f, const sim_options *o, const sim_cs_result *r, const sim_cs_timeline *tl);

#endif /* TEMPO_SIM_CS_H */
