/* SPDX-License-Identifier: MIT */
/*
 * bench_scale.c — how the cost per machine grows with the machines.
 *
 * 1. N p2p peers (N = 2, 4, 8), one player each, in this process on UDP
 *    sockets on loopback, every peer talking to every other. Each tick every
 *    peer polls, adds its input, advances and carries out its requests, with
 *    clocks advancing 1/60 s per tick (virtual time, as bench_net), so every
 *    timer behaves as at 60 Hz while the run takes as long as the CPU needs.
 *    Printed per peer per frame: the process's CPU time (user and system,
 *    so not what other processes of a busy machine took; the game is a
 *    hash of the inputs, a few ns), the system calls made to send and to
 *    receive (counted by the UDP transport, tempo_udp_stats: a sendmmsg of
 *    many datagrams is one), and the mean UDP payload of a datagram.
 * 2. One server and C clients (C = 8, 64, 256), each client on its own socket:
 *    the server's CPU time per client per tick (in tempo_server_poll and
 *    tempo_server_advance, by this thread's clock), its send system calls
 *    per tick, and the mean datagram it sends. The clients' CPU is not
 *    counted.
 * Every row runs open and sealed (a match key; for the server, connect
 * tokens), and with the transport sending each datagram at once (sendto)
 * or batching them until the end of the round (batch_send: one sendmmsg).
 * The rows of one size alternate within each repetition so all see the
 * same machine; the medians are printed. No pass/fail.
 */
#include <string.h>

#include "bench_play.h"
#include "tempo/tempo.h"
#include "tempo/udp.h"

#define REPS 5
#define P2P_SETTLE 60 /* frames before the measured window */
#define P2P_FRAMES 600
#define CS_SETTLE 120
#define CS_TICKS 300
#define MAX_PEERS 8
#define MAX_CLIENTS TEMPO_CS_MAX_CLIENTS
#define TICK_US 16667u

typedef struct result {
    double us;         /* CPU per peer per frame, or per client per tick */
    double send_calls; /* per peer per frame, or per server tick */
    double recv_calls;
    double datagram;   /* mean payload bytes of a datagram sent */
} result;

static void open_socket(bool batch, tempo_udp **u, tempo_address *addr)
{
    tempo_address any;
    tempo_address_parse(&any, "127.0.0.1:0");
    tempo_udp_options o;
    memset(&o, 0, sizeof o);
    o.batch_send = batch;
    if (tempo_udp_open_ex(&any, &o, NULL, u) != TEMPO_OK ||
        tempo_udp_local_address(*u, addr) != TEMPO_OK) {
        fprintf(stderr, "bench_scale: cannot open a UDP socket on loopback\n");
        exit(1);
    }
}

/* ---- p2p ------------------------------------------------------------------ */

typedef struct peer {
    bench_peer p;
    tempo_udp *udp;
    tempo_address addr;
    tempo_transport tr;
} peer;

static void udp_totals(tempo_udp *const *u, int n, tempo_udp_stats *sum)
{
    memset(sum, 0, sizeof *sum);
    for (int i = 0; i < n; i++) {
        tempo_udp_stats st;
        tempo_udp_get_stats(u[i], &st);
        sum->sent += st.sent;
        sum->bytes_sent += st.bytes_sent;
        sum->send_calls += st.send_calls;
        sum->recv_calls += st.recv_calls;
    }
}

static result p2p_run(int n, bool sealed, bool batch)
{
    peer pr[MAX_PEERS];
    tempo_udp *socks[MAX_PEERS];
    memset(pr, 0, sizeof pr);
    for (int i = 0; i < n; i++) {
        open_socket(batch, &pr[i].udp, &pr[i].addr);
        pr[i].tr = tempo_udp_transport(pr[i].udp);
        socks[i] = pr[i].udp;
        tempo_rng_seed(&pr[i].p.rng, 7, (uint64_t)i);
    }
    for (int i = 0; i < n; i++) {
        tempo_config cfg;
        tempo_config_default(&cfg);
        cfg.num_players = n;
        cfg.random_seed = (uint64_t)i + 1;
        cfg.has_match_key = sealed;
        for (int k = 0; k < 32; k++)
            cfg.match_key[k] = (uint8_t)(k * 37 + 11);
        if (tempo_session_create_p2p(&cfg, &pr[i].tr, &pr[i].p.s) != TEMPO_OK)
            exit(1);
        for (int p = 0; p < n; p++) {
            tempo_result r = p == i ? tempo_session_add_local_player(pr[i].p.s, p)
                                    : tempo_session_add_remote_player(pr[i].p.s, p, &pr[p].addr);
            if (r != TEMPO_OK)
                exit(1);
        }
    }
    double cpu0 = 0, cpu1 = 0;
    int32_t first = -1, last = -1;
    tempo_udp_stats before, after;
    memset(&before, 0, sizeof before);
    for (uint64_t k = 0; k < 100000; k++) {
        uint64_t now = k * TICK_US;
        for (int i = 0; i < n; i++) /* the machines' ticks spread over the 16.7 ms */
            (void)bench_peer_tick(&pr[i].p, now + (uint64_t)i * (TICK_US / (unsigned)n), i);
        int32_t f = tempo_session_frame(pr[0].p.s);
        if (first < 0 && f >= P2P_SETTLE) {
            first = f;
            udp_totals(socks, n, &before);
            cpu0 = bench_cpu_now();
        } else if (first >= 0 && f - first >= P2P_FRAMES) {
            cpu1 = bench_cpu_now();
            last = f;
            break;
        }
    }
    if (last < 0) {
        fprintf(stderr, "bench_scale: %d peers never ran %d frames\n", n, P2P_FRAMES);
        exit(1);
    }
    udp_totals(socks, n, &after);
    for (int i = 0; i < n; i++) {
        tempo_session_destroy(pr[i].p.s);
        tempo_udp_close(pr[i].udp);
    }
    double per = (double)n * (double)(last - first);
    result r;
    r.us = (cpu1 - cpu0) * 1e6 / per;
    r.send_calls = (double)(after.send_calls - before.send_calls) / per;
    r.recv_calls = (double)(after.recv_calls - before.recv_calls) / per;
    r.datagram = (double)(after.bytes_sent - before.bytes_sent) / (double)(after.sent - before.sent);
    return r;
}

/* ---- client-server -------------------------------------------------------- */

/* The CPU time of this thread: the server's calls alone, the clients
 * (ticking in the same thread between them) not counted. */
static double thread_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static result cs_run(int clients, bool sealed, bool batch)
{
    enum { STATE = 4096 };
    static uint8_t arena[STATE], carena[MAX_CLIENTS][STATE];
    memset(arena, 0, sizeof arena);
    memset(carena, 0, sizeof carena);
    tempo_udp *su;
    tempo_address sa;
    open_socket(batch, &su, &sa);
    tempo_transport st = tempo_udp_transport(su);
    tempo_server *s = bench_server_open(arena, STATE, clients, 5, sealed, &sa, &st);
    tempo_udp *cu[MAX_CLIENTS];
    tempo_client *c[MAX_CLIENTS];
    for (int i = 0; i < clients; i++) {
        tempo_address ca;
        open_socket(false, &cu[i], &ca);
        tempo_transport ct = tempo_udp_transport(cu[i]);
        c[i] = bench_client_open(carena[i], STATE, clients, i, 5, sealed, &sa, &ct);
    }
    const size_t stride = STATE / (size_t)clients;
    double spent = 0;
    tempo_udp_stats before, after;
    memset(&before, 0, sizeof before);
    for (int f = 0; f < CS_SETTLE + CS_TICKS; f++) {
        uint64_t now = (uint64_t)f * TICK_US;
        if (f == CS_SETTLE)
            tempo_udp_get_stats(su, &before);
        double t0 = thread_cpu_now();
        tempo_server_poll(s, now);
        tempo_server_tick t;
        tempo_server_advance(s, &t);
        if (f >= CS_SETTLE)
            spent += thread_cpu_now() - t0;
        bench_server_game(arena, stride, clients, &t, f);
        bench_clients_tick(c, clients, now + TICK_US / 2, f);
    }
    tempo_udp_get_stats(su, &after);
    tempo_server_stats ss;
    tempo_server_get_stats(s, &ss);
    if (ss.clients != clients) {
        fprintf(stderr, "bench_scale: %d of %d clients connected\n", ss.clients, clients);
        exit(1);
    }
    for (int i = 0; i < clients; i++) {
        tempo_client_destroy(c[i]);
        tempo_udp_close(cu[i]);
    }
    tempo_server_destroy(s);
    tempo_udp_close(su);
    result r;
    r.us = spent * 1e6 / CS_TICKS / clients;
    r.send_calls = (double)(after.send_calls - before.send_calls) / CS_TICKS;
    r.recv_calls = (double)(after.recv_calls - before.recv_calls) / CS_TICKS;
    r.datagram = (double)(after.bytes_sent - before.bytes_sent) / (double)(after.sent - before.sent);
    return r;
}

/* ---- the tables ----------------------------------------------------------- */

/* Modes of a row: open/sealed x sendto/batched, in this order. */
#define MODES 4
static const char *mode_name(int m)
{
    static const char *names[MODES] = {"open, sendto", "open, batched", "sealed, sendto",
                                       "sealed, batched"};
    return names[m];
}

typedef result (*run_fn)(int size, bool sealed, bool batch);

/* REPS repetitions of every mode of one size, alternating; medians into out. */
static void measure(run_fn fn, int size, int modes, result out[MODES])
{
    double v[MODES][4][REPS];
    for (int r = 0; r < REPS; r++)
        for (int m = 0; m < modes; m++) {
            result x = fn(size, m >= 2, m % 2 == 1);
            v[m][0][r] = x.us, v[m][1][r] = x.send_calls, v[m][2][r] = x.recv_calls;
            v[m][3][r] = x.datagram;
        }
    for (int m = 0; m < modes; m++) {
        out[m].us = bench_median(v[m][0], REPS);
        out[m].send_calls = bench_median(v[m][1], REPS);
        out[m].recv_calls = bench_median(v[m][2], REPS);
        out[m].datagram = bench_median(v[m][3], REPS);
    }
}

int main(void)
{
    printf("## bench_scale (tempo %s)\n", tempo_version_string());
    bench_machine_line();
    int modes = tempo_secure_available() ? 4 : 2;

    printf("\n### p2p: N peers on loopback, per peer per frame (median of %d runs of %d frames)\n\n",
           REPS, P2P_FRAMES);
    printf("| peers | mode | CPU us | vs 2 peers | send calls | recv calls | bytes per datagram |\n");
    printf("|---:|---|---:|---:|---:|---:|---:|\n");
    static const int peers[] = {2, 4, 8};
    result r[3][MODES];
    for (int k = 0; k < 3; k++) {
        measure(p2p_run, peers[k], modes, r[k]);
        for (int m = 0; m < modes; m++)
            printf("| %d | %s | %.2f | %.2fx | %.2f | %.2f | %.1f |\n", peers[k], mode_name(m),
                   r[k][m].us, r[k][m].us / r[0][m].us, r[k][m].send_calls, r[k][m].recv_calls,
                   r[k][m].datagram);
    }
    if (modes == 4)
        printf("\nsealed / open CPU: sendto 2 peers %.2fx, 8 peers %.2fx; batched 2 peers %.2fx, "
               "8 peers %.2fx\n",
               r[0][2].us / r[0][0].us, r[2][2].us / r[2][0].us, r[0][3].us / r[0][1].us,
               r[2][3].us / r[2][1].us);

    printf("\n### Server: C clients on loopback, a snapshot every tick (median of %d runs of %d "
           "ticks)\n\n",
           REPS, CS_TICKS);
    printf("| clients | mode | server CPU us per client per tick | server send calls per tick | "
           "recv calls per tick | bytes per datagram |\n");
    printf("|---:|---|---:|---:|---:|---:|\n");
    static const int clients[] = {8, 64, 256};
    result c[3][MODES];
    for (int k = 0; k < 3; k++) {
        measure(cs_run, clients[k], modes, c[k]);
        for (int m = 0; m < modes; m++)
            printf("| %d | %s | %.2f | %.2f | %.2f | %.1f |\n", clients[k], mode_name(m), c[k][m].us,
                   c[k][m].send_calls, c[k][m].recv_calls, c[k][m].datagram);
    }
    printf("\nper client, 256 clients / 64 clients:");
    for (int m = 0; m < modes; m++)
        printf("%s %s %.2fx", m == 0 ? "" : ";", mode_name(m), c[2][m].us / c[1][m].us);
    printf("\n");
    printf("\nA server admits at most %d clients (TEMPO_CS_MAX_CLIENTS).\n", TEMPO_CS_MAX_CLIENTS);
    if (modes == 2)
        printf("This build has no libsodium: the sealed rows are missing.\n");
    return 0;
}
