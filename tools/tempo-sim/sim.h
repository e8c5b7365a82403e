/*
 * sim.h — tempo-sim's shared pieces: options, the modes' entry points, the
 * JSON writer.
 *
 * tempo-sim runs the arena demo game with bots in virtual time and measures,
 * from outside, what players would have experienced. Each mode lives in its
 * own files (sim_synctest.c; the network match: sim_network.c and the
 * sim_match*.c / sim_measure.c / sim_summary.c / sim_compare.c family);
 * tempo_sim.c parses the command line into a sim_options.
 */
#ifndef TEMPO_SIM_H
#define TEMPO_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tempo/tempo.h"

/* Exit codes, as documented in --help. */
#define SIM_EXIT_OK 0
#define SIM_EXIT_USAGE 2
#define SIM_EXIT_MISMATCH 3

/* Machines in one simulated match: players' peers and spectators together
 * (the report's timeline holds this many). */
#define SIM_MAX_MACHINES 9
#define SIM_MAX_FAULTS 16 /* --hiccup and --drop-peer entries, each */
#define SIM_MAX_LINKS 16  /* --link entries */

typedef enum sim_mode {
    SIM_MODE_DEFAULT = 0, /* the default scenario (no scenario option given) */
    SIM_MODE_MATCH,       /* a network match described by the options */
    SIM_MODE_SYNCTEST
} sim_mode;

typedef enum sim_compare {
    SIM_COMPARE_NONE = 0,
    SIM_COMPARE_TIMESYNC,   /* once per time sync method */
    SIM_COMPARE_INPUT_DELAY /* delays 0..4 and auto */
} sim_compare;

/* A fault at a machine's frame: --hiccup PEER@FRAME:MS, --drop-peer PEER@FRAME. */
typedef struct sim_fault {
    int peer;
    int32_t frame;
    uint32_t ms; /* hiccups: how long the machine freezes */
} sim_fault;

/* --link A-B:PROFILE; b < 0 means every other machine ("A-*"). */
typedef struct sim_link_override {
    int a, b;
    char profile[24];
} sim_link_override;

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
    int local_per_peer;          /* players per peer machine */
    int spectators;              /* watching peer 0 */
    const char *profile;         /* every link unless overridden */
    sim_link_override links[SIM_MAX_LINKS];
    int num_links;
    int max_prediction;
    int input_delay;             /* fixed delay when !input_delay_auto */
    bool input_delay_auto;
    tempo_timesync_method timesync;
    int timesync_window;         /* 0: the library's default */
    double stall_threshold;      /* 0: the library's default */
    int desync_interval;
    int32_t desync_at;           /* -1: off; else peer 1 corrupts state after ADVANCE(at) */
    sim_fault drops[SIM_MAX_FAULTS];
    int num_drops;
    sim_fault hiccups[SIM_MAX_FAULTS];
    int num_hiccups;
    double clock_drift_pct[SIM_MAX_MACHINES]; /* negative: slow clock */
    uint32_t start_skew_ms[SIM_MAX_MACHINES];
    sim_compare compare;
    const char *report_path;     /* NULL: no HTML report */
    const char *csv_path;        /* NULL: no CSV */
    const char *command;         /* the command line, for the report */
} sim_options;

/* Run a synctest of the arena; returns the exit code. */
int sim_synctest(const sim_options *o);

/* Run a network match (or a comparison of several) as the options say:
 * validate what needs the machine count, run, print, write the files.
 * Returns the exit code. */
int sim_network(const sim_options *o);

/* "inversus", "ggpo", "lead", "none" for a tempo_timesync_method; "?" else. */
const char *sim_timesync_name(int method);

/* Minimal JSON writer: keys in order, numbers, strings, null. */
typedef struct sim_json {
    FILE *f;
    int depth;
    bool first[16];
} sim_json;

bool sim_json_open(sim_json *j, const char *path);
void sim_json_close(sim_json *j);
void sim_json_begin_object(sim_json *j, const char *key);
void sim_json_end_object(sim_json *j);
void sim_json_begin_array(sim_json *j, const char *key);
void sim_json_end_array(sim_json *j);
void sim_json_int(sim_json *j, const char *key, int64_t v);
void sim_json_uint(sim_json *j, const char *key, uint64_t v);
void sim_json_double(sim_json *j, const char *key, double v);
void sim_json_bool(sim_json *j, const char *key, bool v);
void sim_json_string(sim_json *j, const char *key, const char *v);
void sim_json_null(sim_json *j, const char *key);

/* Wall-clock seconds, for reporting how long a run took (tools may read the
 * clock; the library never does). */
double sim_wall_seconds(void);

#endif /* TEMPO_SIM_H */
