/*
 * sim.h — tempo-sim's shared pieces: options, the JSON writer, clocks.
 *
 * tempo-sim runs the arena demo game with bots in virtual time and measures,
 * from outside, what players would have experienced. Each mode lives in its
 * own file (sim_synctest.c, ...); tempo_sim.c parses the command line.
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

typedef struct sim_options {
    bool synctest;
    int players;
    int frames;
    int check_distance;
    uint64_t seed;
    tempo_save_policy save_policy;
    int64_t nondeterministic_at; /* -1: off */
    const char *json_path;       /* NULL: no JSON */
    bool quiet;
} sim_options;

/* Run a synctest of the arena; returns the exit code. */
int sim_synctest(const sim_options *o);

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
