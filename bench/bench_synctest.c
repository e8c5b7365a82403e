/* SPDX-License-Identifier: MIT */
/*
 * bench_synctest.c — what the rollback path costs per resimulated frame.
 *
 * A synctest session (every player local) advances one frame per tick,
 * then loads the state check_distance frames back and resimulates to the
 * present: each tick is a rollback of that depth. The game's state is a
 * 64-bit hash of the inputs; SAVE stores it in the game's own ring, LOAD
 * reads it back. Printed: the process's CPU time per resimulated frame
 * (the whole tick divided by the frames resimulated), median of REPS runs.
 *
 * Uses the public API alone (tempo/tempo.h), so the same file builds
 * against an older tree to compare the two on one machine:
 * scripts/bench-against.sh <commit> bench_synctest <distance> alternates
 * runs of both builds.
 */
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "tempo/tempo.h"

#define REPS 15
#define TICKS 20000

static double run(int players, int distance)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = players;
    cfg.max_prediction = distance < 8 ? 8 : distance;
    cfg.desync_interval = 0;
    tempo_session *s;
    if (tempo_session_create_synctest(&cfg, distance, &s) != TEMPO_OK)
        exit(1);
    static uint64_t ring[256]; /* the game's saved states, by slot */
    uint64_t state = 0;
    long resimulated = 0;
    uint8_t in[4] = {0};
    double t0 = bench_cpu_now();
    for (int t = 0; t < TICKS; t++) {
        for (int p = 0; p < players; p++) {
            in[0] = (uint8_t)(t * 7 + p);
            tempo_session_add_local_input(s, p, in, sizeof in);
        }
        tempo_tick tick;
        if (tempo_session_advance(s, &tick) != TEMPO_OK) {
            fprintf(stderr, "bench_synctest: the hash game desynced\n");
            exit(1);
        }
        const tempo_request *r;
        while (tempo_session_next(s, &r) > 0) {
            if (r->kind == TEMPO_REQUEST_SAVE) {
                ring[r->slot & 255] = state;
                *r->checksum = state;
            } else if (r->kind == TEMPO_REQUEST_LOAD) {
                state = ring[r->slot & 255];
            } else {
                for (int p = 0; p < players; p++)
                    state = state * 6364136223846793005ULL + r->inputs[p * 4];
                resimulated += r->resimulating;
            }
        }
    }
    double secs = bench_cpu_now() - t0;
    tempo_session_destroy(s);
    return secs * 1e9 / (double)resimulated;
}

static double median_of(int players, int distance, int reps)
{
    double v[REPS];
    for (int r = 0; r < reps; r++)
        v[r] = run(players, distance);
    return bench_median(v, reps);
}

int main(int argc, char **argv)
{
    if (argc > 1) { /* one figure, for scripts: bench_synctest DISTANCE [PLAYERS] */
        int d = atoi(argv[1]), players = argc > 2 ? atoi(argv[2]) : 2;
        if (d < 1 || d > 16 || players < 1 || players > TEMPO_MAX_PLAYERS) {
            fprintf(stderr, "usage: bench_synctest [DISTANCE 1..16 [PLAYERS 1..8]]\n");
            return 2;
        }
        printf("%.1f\n", median_of(players, d, 5));
        return 0;
    }
    printf("## bench_synctest (tempo %s)\n", tempo_version_string());
    bench_machine_line();
    printf("\n### Synctest: CPU ns per resimulated frame (median of %d runs of %d ticks)\n\n",
           REPS, TICKS);
    printf("| players | distance 1 | distance 8 |\n|---:|---:|---:|\n");
    static const int players[] = {2, 4, 8};
    for (int i = 0; i < 3; i++)
        printf("| %d | %.1f | %.1f |\n", players[i], median_of(players[i], 1, REPS),
               median_of(players[i], 8, REPS));
    return 0;
}
