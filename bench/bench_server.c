/* SPDX-License-Identifier: MIT */
/*
 * bench_server.c — what the authoritative server costs.
 *
 * 64 clients connect to one server over simnet (30 ms each way, perfect
 * links); the game's state is an arena of S bytes in which each of the 64
 * players owns one 4-byte counter that moves a little every tick (the
 * rest stays), and the game's step is that and nothing else. After 5 s to
 * settle, 10 s are measured:
 *   - server CPU per client per tick: this thread's CPU time inside
 *     tempo_server_poll and tempo_server_advance (network in, the tick,
 *     snapshots out: delta coding, framing, the simnet's send), divided
 *     by 64 clients, the median of REPS runs;
 *   - bytes per client per second down: what the server put on the wire
 *     to one client (snapshots and headers), and the mean snapshot size.
 * Each size runs open and sealed (a backend key, a connect token per
 * client: every datagram after the handshake AEAD-sealed), side by side.
 * A second table puts 64 and 256 clients side by side on a 4096-byte state
 * (room for 256 counters), alternating within each repetition, with each
 * row's CPU per client over the 64-client row's: how the server's own work
 * grows with its clients, no kernel in it (bench_scale has the loopback
 * sockets). With 256 all moving, each client's snapshot carries four times
 * the players; a third row has 256 clients of which 64 move (the others'
 * inputs stay zero, their counters still), so a snapshot carries about
 * what it does with 64 and the ratio is the per-client cost alone.
 * No pass/fail: a table to compare builds and machines with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_play.h"
#include "tempo/simnet.h"
#include "tempo/tempo.h"

#define REPS 5
#define CLIENTS 64 /* the first table's */
#define MAX_CLIENTS 256
#define SETTLE 300
#define MEASURE 600

typedef struct run_result {
    double us_per_client_tick;
    double bytes_per_client_s;
    double snapshot_bytes;
} run_result;

/* One run: `clients` clients, the first `active` of them moving. */
static run_result run(size_t state_size, int clients, int active, uint64_t seed, bool sealed)
{
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.seed = seed;
    nc.max_nodes = clients + 1;
    nc.default_link.latency_us = 30000;
    tempo_simnet *net;
    if (tempo_simnet_create(&nc, &net) != TEMPO_OK)
        exit(1);
    tempo_address sa = tempo_address_ipv4(10, 0, 0, 1, 1);
    tempo_transport st;
    tempo_simnet_add_node(net, &sa, &st);
    uint8_t *arena = (uint8_t *)calloc(1, state_size);
    tempo_server *s = bench_server_open(arena, state_size, clients, seed, sealed, &sa, &st);
    tempo_client *c[MAX_CLIENTS];
    uint8_t *carena[MAX_CLIENTS];
    for (int i = 0; i < clients; i++) {
        tempo_address ca = tempo_address_ipv4(10, 0, (uint8_t)(1 + i / 200), (uint8_t)(1 + i % 200), 2);
        tempo_transport ct;
        tempo_simnet_add_node(net, &ca, &ct);
        carena[i] = (uint8_t *)calloc(1, state_size);
        c[i] = bench_client_open(carena[i], state_size, clients, i, seed, sealed, &sa, &ct);
    }
    const uint64_t tick = 1000000 / 60;
    const size_t stride = state_size / clients;
    double spent = 0;
    uint64_t bytes0 = 0, bytes1 = 0, snaps0 = 0, snaps1 = 0, sbytes0 = 0, sbytes1 = 0;
    for (int f = 0; f < SETTLE + MEASURE; f++) {
        uint64_t now = (uint64_t)f * tick;
        if (f == SETTLE || f == SETTLE + MEASURE - 1) {
            uint64_t b = 0, n = 0, sb = 0;
            for (int i = 0; i < clients; i++) {
                tempo_server_client_stats cs;
                tempo_server_get_client_stats(s, i, &cs);
                b += cs.bytes_sent;
                n += cs.snapshots_sent;
                sb += cs.snapshot_bytes;
            }
            if (f == SETTLE) {
                bytes0 = b, snaps0 = n, sbytes0 = sb;
            } else {
                bytes1 = b, snaps1 = n, sbytes1 = sb;
            }
        }
        tempo_simnet_set_time(net, now);
        double t0 = bench_thread_cpu_now();
        tempo_server_poll(s, now);
        tempo_server_tick t;
        tempo_server_advance(s, &t);
        double t1 = bench_thread_cpu_now();
        if (f >= SETTLE)
            spent += t1 - t0;
        bench_server_game(arena, stride, active, &t, f);
        tempo_simnet_set_time(net, now + tick / 2);
        bench_clients_tick(c, clients, active, now + tick / 2, f);
    }
    tempo_server_stats ss;
    tempo_server_get_stats(s, &ss);
    if (ss.clients != clients) {
        fprintf(stderr, "bench_server: %d clients connected\n", ss.clients);
        exit(1);
    }
    run_result r;
    r.us_per_client_tick = spent * 1e6 / MEASURE / clients;
    r.bytes_per_client_s = (double)(bytes1 - bytes0) / clients / ((MEASURE - 1) / 60.0);
    r.snapshot_bytes = (double)(sbytes1 - sbytes0) / (double)(snaps1 - snaps0);
    for (int i = 0; i < clients; i++) {
        tempo_client_destroy(c[i]);
        free(carena[i]);
    }
    tempo_server_destroy(s);
    free(arena);
    tempo_simnet_destroy(net);
    return r;
}

/* 64 and 256 clients on a 4096-byte state, and 256 of which only 64
 * move (so each client's snapshot carries what it does with 64: the
 * server's cost per client apart from the payload's growth); the rows of
 * a repetition one after the other; the ratios are medians of each
 * repetition's. */
#define ROWS 3
static void clients_table(bool seal)
{
    enum { STATE = 4096 };
    static const int clients[ROWS] = {CLIENTS, MAX_CLIENTS, MAX_CLIENTS};
    static const int active[ROWS] = {CLIENTS, MAX_CLIENTS, CLIENTS};
    int modes = seal ? 2 : 1;
    double cpu[2][ROWS][REPS], bps[2][ROWS][REPS], snap[ROWS][REPS], ratio[2][ROWS][REPS];
    for (int i = 0; i < REPS; i++)
        for (int m = 0; m < modes; m++)
            for (int k = 0; k < ROWS; k++) {
                run_result r = run(STATE, clients[k], active[k], 100 + (uint64_t)i, m == 1);
                cpu[m][k][i] = r.us_per_client_tick;
                bps[m][k][i] = r.bytes_per_client_s;
                if (m == 0)
                    snap[k][i] = r.snapshot_bytes;
                ratio[m][k][i] = cpu[m][k][i] / cpu[m][0][i];
            }
    printf("\n%d and %d clients, a %d-byte state, and %d clients of which %d move; median of %d "
           "runs of %d ticks, alternating.\n\n",
           CLIENTS, MAX_CLIENTS, STATE, MAX_CLIENTS, CLIENTS, REPS, MEASURE);
    printf("| clients | moving | server CPU us / client / tick, open | sealed | bytes / client / s "
           "down, open | sealed | mean snapshot bytes | per client vs %d, open | sealed |\n",
           CLIENTS);
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < ROWS; k++) {
        printf("| %d | %d | %.2f | ", clients[k], active[k], bench_median(cpu[0][k], REPS));
        if (seal)
            printf("%.2f", bench_median(cpu[1][k], REPS));
        else
            printf("-");
        printf(" | %.0f | ", bench_median(bps[0][k], REPS));
        if (seal)
            printf("%.0f", bench_median(bps[1][k], REPS));
        else
            printf("-");
        printf(" | %.0f | %.2fx | ", bench_median(snap[k], REPS), bench_median(ratio[0][k], REPS));
        if (seal)
            printf("%.2fx", bench_median(ratio[1][k], REPS));
        else
            printf("-");
        printf(" |\n");
    }
}

int main(void)
{
    static const size_t sizes[] = {512, 4096, 16384};
    printf("## bench_server (tempo %s)\n", tempo_version_string());
    bench_machine_line();
    printf("64 clients, 60 ticks/s, a snapshot every tick, each player's 4-byte counter moving;\n"
           "median of %d runs of %d ticks.\n\n",
           REPS, MEASURE);
    bool seal = tempo_secure_available();
    printf("| state bytes | server CPU us / client / tick, open | sealed | bytes / client / s down, "
           "open | sealed | mean snapshot bytes |\n");
    printf("|---:|---:|---:|---:|---:|---:|\n");
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        double cpu[2][REPS], bps[2][REPS], snap[REPS];
        for (int m = 0; m < (seal ? 2 : 1); m++)
            for (int i = 0; i < REPS; i++) {
                run_result r = run(sizes[k], CLIENTS, CLIENTS, 100 + (uint64_t)i, m == 1);
                cpu[m][i] = r.us_per_client_tick;
                bps[m][i] = r.bytes_per_client_s;
                if (m == 0)
                    snap[i] = r.snapshot_bytes;
            }
        printf("| %zu | %.2f | ", sizes[k], bench_median(cpu[0], REPS));
        if (seal)
            printf("%.2f", bench_median(cpu[1], REPS));
        else
            printf("-");
        printf(" | %.0f | ", bench_median(bps[0], REPS));
        if (seal)
            printf("%.0f", bench_median(bps[1], REPS));
        else
            printf("-");
        printf(" | %.0f |\n", bench_median(snap, REPS));
    }
    clients_table(seal);
    if (!seal)
        printf("\nThis build has no libsodium: the sealed columns are empty.\n");
    return 0;
}
