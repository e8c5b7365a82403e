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
 *
 * In a match the clients run in this process between the server's ticks,
 * and 256 clients sized for 256 players touch enough memory to push the
 * server's records out of the last-level cache before each tick, which 64
 * do not: the "in the match" columns then count the harness's clients as
 * much as the server. So every run also records what the server's
 * transport handed it each tick and plays that tape to a second server
 * of the same configuration and seed, alone (its sends go nowhere): the
 * same datagrams, the same work, nothing else between its ticks, as on a
 * machine that runs only the server. The replayed server must send
 * exactly the bytes the first one sent, or the bench stops.
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
    double us_per_client_tick;   /* in the match */
    double alone_us_per_client_tick; /* the same datagrams replayed to a server alone */
    double bytes_per_client_s;
    double snapshot_bytes;
} run_result;

/* The server's tick f at `now` (poll, advance: its thread CPU, returned),
 * then the game's step on arena. */
static double server_tick(tempo_server *s, uint64_t now, tempo_server_tick *k, uint8_t *arena,
                          size_t stride, int active, int f)
{
    double t0 = bench_thread_cpu_now();
    tempo_server_poll(s, now);
    tempo_server_advance(s, k);
    double t1 = bench_thread_cpu_now();
    bench_server_game(arena, stride, active, k, f);
    return t1 - t0;
}

/* ---- the server's datagrams on tape ------------------------------------------ */

/* Every datagram the server's transport handed it, in order, and where
 * each tick's end: records of an address, a u16 size and the bytes. */
typedef struct tape {
    uint8_t *data;
    size_t size, cap;
    size_t tick_end[SETTLE + MEASURE];
} tape;

/* A transport that hands the server what `inner` does and writes it on
 * the tape; or, with inner NULL, plays the tape (its sends go nowhere). */
typedef struct tape_transport {
    const tempo_transport *inner;
    tape *t;
    size_t pos, end;             /* playing: the next record, the tick's end */
    uint64_t bytes_sent;
} tape_transport;

#define TAPE_HEAD (sizeof(tempo_address) + 2)

static int tape_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    tape_transport *x = (tape_transport *)ctx;
    x->bytes_sent += size;
    return x->inner ? x->inner->send(x->inner->ctx, to, data, size) : 0;
}

static int tape_flush(void *ctx)
{
    tape_transport *x = (tape_transport *)ctx;
    return x->inner ? tempo_transport_flush(x->inner) : 0;
}

static int tape_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    tape_transport *x = (tape_transport *)ctx;
    tape *t = x->t;
    if (x->inner) {
        int n = x->inner->recv(x->inner->ctx, from, buf, capacity);
        if (n <= 0)
            return n;
        size_t kept = (size_t)n < capacity ? (size_t)n : capacity;
        if (t->size + TAPE_HEAD + kept > t->cap) {
            t->cap = (t->cap + TAPE_HEAD + kept) * 2;
            t->data = (uint8_t *)realloc(t->data, t->cap);
            if (!t->data)
                exit(1);
        }
        uint16_t n16 = (uint16_t)n;
        memcpy(t->data + t->size, from, sizeof *from);
        memcpy(t->data + t->size + sizeof *from, &n16, 2);
        memcpy(t->data + t->size + TAPE_HEAD, buf, kept);
        t->size += TAPE_HEAD + kept;
        return n;
    }
    if (x->pos >= x->end)
        return 0;
    uint16_t n16;
    memcpy(from, t->data + x->pos, sizeof *from);
    memcpy(&n16, t->data + x->pos + sizeof *from, 2);
    size_t kept = n16 < capacity ? n16 : capacity;
    memcpy(buf, t->data + x->pos + TAPE_HEAD, kept);
    x->pos += TAPE_HEAD + kept;
    return n16;
}

static tempo_transport tape_transport_of(tape_transport *x)
{
    tempo_transport tr = {tape_send, tape_recv, x, tape_flush};
    return tr;
}

/* A second server, alone, played the tape of `clients` clients' match:
 * its thread CPU per client per tick over the measured ticks. Its sends
 * must add up to `bytes_sent`, what the first server sent. */
static double replay_alone(tape *t, size_t state_size, int clients, int active, uint64_t seed,
                           bool sealed, const tempo_address *sa, uint64_t bytes_sent)
{
    tape_transport x = {NULL, t, 0, 0, 0};
    tempo_transport tr = tape_transport_of(&x);
    uint8_t *arena = (uint8_t *)calloc(1, state_size);
    tempo_server *s = bench_server_open(arena, state_size, clients, seed, sealed, sa, &tr);
    const uint64_t tick = 1000000 / 60;
    const size_t stride = state_size / clients;
    double spent = 0;
    for (int f = 0; f < SETTLE + MEASURE; f++) {
        uint64_t now = (uint64_t)f * tick;
        x.end = t->tick_end[f];
        tempo_server_tick k;
        double dt = server_tick(s, now, &k, arena, stride, active, f);
        if (f >= SETTLE)
            spent += dt;
        if (x.pos != x.end) {
            fprintf(stderr, "bench_server: the replayed server took other datagrams at tick %d\n", f);
            exit(1);
        }
    }
    if (x.bytes_sent != bytes_sent) {
        fprintf(stderr, "bench_server: the replayed server sent %llu bytes, the match's %llu\n",
                (unsigned long long)x.bytes_sent, (unsigned long long)bytes_sent);
        exit(1);
    }
    tempo_server_destroy(s);
    free(arena);
    return spent * 1e6 / MEASURE / clients;
}

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
    static tape t;
    t.size = 0;
    tape_transport rec = {&st, &t, 0, 0, 0};
    tempo_transport rt = tape_transport_of(&rec);
    uint8_t *arena = (uint8_t *)calloc(1, state_size);
    tempo_server *s = bench_server_open(arena, state_size, clients, seed, sealed, &sa, &rt);
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
        tempo_server_tick k;
        double dt = server_tick(s, now, &k, arena, stride, active, f);
        if (f >= SETTLE)
            spent += dt;
        t.tick_end[f] = t.size;
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
    r.alone_us_per_client_tick =
        replay_alone(&t, state_size, clients, active, seed, sealed, &sa, rec.bytes_sent);
    return r;
}

/* 64 and 256 clients on a 4096-byte state, and 256 of which only 64
 * move (so each client's snapshot carries what it does with 64: the
 * server's cost per client apart from the payload's growth); the rows of
 * a repetition one after the other; the ratios are medians of each
 * repetition's. */
#define ROWS 3

/* A table cell: the median of REPS values, or "-" when the mode did not run. */
static void cell(bool ran, const char *format, double *v)
{
    if (ran)
        printf(format, bench_median(v, REPS));
    else
        printf(" | -");
}

static void clients_table(bool seal)
{
    enum { STATE = 4096 };
    static const int clients[ROWS] = {CLIENTS, MAX_CLIENTS, MAX_CLIENTS};
    static const int active[ROWS] = {CLIENTS, MAX_CLIENTS, CLIENTS};
    int modes = seal ? 2 : 1;
    /* [where: 0 in the match, 1 alone][mode][row][rep] */
    static double cpu[2][2][ROWS][REPS], ratio[2][2][ROWS][REPS];
    double bps[2][ROWS][REPS], snap[ROWS][REPS];
    for (int i = 0; i < REPS; i++)
        for (int m = 0; m < modes; m++)
            for (int k = 0; k < ROWS; k++) {
                run_result r = run(STATE, clients[k], active[k], 100 + (uint64_t)i, m == 1);
                cpu[0][m][k][i] = r.us_per_client_tick;
                cpu[1][m][k][i] = r.alone_us_per_client_tick;
                bps[m][k][i] = r.bytes_per_client_s;
                if (m == 0)
                    snap[k][i] = r.snapshot_bytes;
                for (int w = 0; w < 2; w++)
                    ratio[w][m][k][i] = cpu[w][m][k][i] / cpu[w][m][0][i];
            }
    printf("\n%d and %d clients, a %d-byte state, and %d clients of which %d move; median of %d "
           "runs of %d ticks, alternating. Server CPU us per client per tick in the match (the "
           "clients run between its ticks) and alone (the match's datagrams replayed to a second "
           "server, nothing between its ticks).\n\n",
           CLIENTS, MAX_CLIENTS, STATE, MAX_CLIENTS, CLIENTS, REPS, MEASURE);
    printf("| clients | moving | in the match, open | sealed | alone, open | sealed | bytes / client "
           "/ s down, open | sealed | mean snapshot bytes | per client vs %d in the match, open | "
           "sealed | alone, open | sealed |\n",
           CLIENTS);
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < ROWS; k++) {
        printf("| %d | %d", clients[k], active[k]);
        for (int w = 0; w < 2; w++)
            for (int m = 0; m < 2; m++)
                cell(m < modes, " | %.2f", cpu[w][m][k]);
        for (int m = 0; m < 2; m++)
            cell(m < modes, " | %.0f", bps[m][k]);
        cell(true, " | %.0f", snap[k]);
        for (int w = 0; w < 2; w++)
            for (int m = 0; m < 2; m++)
                cell(m < modes, " | %.2fx", ratio[w][m][k]);
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
