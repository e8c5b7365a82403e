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
 * 3. One relay and N members of one rollback match (N = 2, 4, 8), each on
 *    its own socket, batched: per member per frame its CPU time (the
 *    process's, as for the peers, less the relay's, which is this thread's
 *    clock around the relay's calls), its send and receive system calls,
 *    the relay's datagrams to it, the mean payloads up and down; and the
 *    relay's CPU per frame, per member, and its send calls per frame.
 * Every row runs open and sealed (a match key; for the server and the
 * relay, connect tokens); the peers and the server with each cipher the
 * machine has (ChaCha20-Poly1305, and AES-256-GCM where the CPU has AES:
 * the setting forced on every end), the relay with the cipher its ends
 * agree on; and the peers and the server with the transport sending each
 * datagram at once (sendto) or batching them until the end of the round
 * (batch_send: one sendmmsg).
 * Every row also runs its kernel floor (bench_floor.h) right after it:
 * plain system calls on as many fresh loopback sockets replaying, turn by
 * turn, the datagrams, bytes and send and receive calls the row's
 * transports counted in its measured window, timed by the row's own clock
 * (the process's CPU for the peers and members, this thread's around the
 * server's or the relay's turns). Printed beside the row: the floor, the
 * row above it (the library's own work and whatever its calls add; the
 * median of the repetitions' differences), and that against the smallest
 * size's.
 * The rows of one size alternate within each repetition so all see the
 * same machine; the medians are printed, and each sealed / open ratio is
 * the median of the ratios within one repetition. The first argument sets
 * the repetitions (default 5). No pass/fail; exit 1 when a row or its
 * floor cannot run (a socket, a send, a datagram lost).
 */
#ifdef __linux__
#define _GNU_SOURCE /* sendmmsg, recvmmsg for the floor; before any system header */
#endif
#include <string.h>

#include "bench_floor.h"
#include "bench_play.h"
#include "tempo/tempo.h"
#include "tempo/udp.h"

#define REPS 5      /* repetitions by default; the first argument may ask 1..MAX_REPS */
#define MAX_REPS 31
#define P2P_SETTLE 60 /* frames before the measured window */
#define P2P_FRAMES 600
#define CS_SETTLE 120
#define CS_TICKS 300
#define MAX_PEERS 8
#define MAX_CLIENTS TEMPO_CS_MAX_CLIENTS
#define TICK_US 16667u

typedef struct result {
    double us;         /* CPU per peer per frame, or per client per tick */
    double above;      /* us less floor_us (for medians: the median of the differences) */
    double send_calls; /* per peer per frame, or per server tick */
    double recv_calls;
    double datagram;   /* mean payload bytes of a datagram sent */
    double floor_us;   /* the kernel's floor for the same datagrams and calls, as us */
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

static result p2p_run(int n, tempo_cipher sealed, bool batch)
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
        cfg.has_match_key = sealed != TEMPO_CIPHER_AUTO;
        cfg.cipher = sealed;
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
    /* the floor: each peer's turn replayed, its datagrams to the others */
    bench_floor *fl = bench_floor_create(n, n, P2P_FRAMES + P2P_FRAMES / 2);
    for (int i = 0; i < n; i++) {
        bench_floor_step *st = &fl->step[i];
        st->sock = i, st->to_first = 0, st->to_count = n, st->batch = batch;
    }
    double cpu0 = 0, cpu1 = 0;
    int32_t first = -1, last = -1;
    int window = 0; /* the measured iterations so far */
    tempo_udp_stats before, after;
    memset(&before, 0, sizeof before);
    for (uint64_t k = 0; k < 100000; k++) {
        uint64_t now = k * TICK_US;
        for (int i = 0; i < n; i++) /* the machines' ticks spread over the 16.7 ms */
            (void)bench_peer_tick(&pr[i].p, now + (uint64_t)i * (TICK_US / (unsigned)n), i);
        if (first >= 0) {
            for (int i = 0; i < n; i++)
                bench_floor_record(fl, window, i, pr[i].udp);
            window++;
        }
        int32_t f = tempo_session_frame(pr[0].p.s);
        if (first < 0 && f >= P2P_SETTLE) {
            first = f;
            udp_totals(socks, n, &before);
            for (int i = 0; i < n; i++)
                bench_floor_begin(fl, i, pr[i].udp);
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
    bench_floor_result fr = bench_floor_run(fl);
    bench_floor_destroy(fl);
    r.floor_us = fr.process_s * 1e6 / per;
    return r;
}

/* ---- client-server -------------------------------------------------------- */

static result cs_run(int clients, tempo_cipher sealed, bool batch)
{
    enum { STATE = 4096 };
    static uint8_t arena[STATE], carena[MAX_CLIENTS][STATE];
    memset(arena, 0, sizeof arena);
    memset(carena, 0, sizeof carena);
    tempo_udp *su;
    tempo_address sa;
    open_socket(batch, &su, &sa);
    tempo_transport st = tempo_udp_transport(su);
    bench_cipher = sealed;
    tempo_server *s = bench_server_open(arena, STATE, clients, 5, sealed != TEMPO_CIPHER_AUTO, &sa,
                                        &st);
    tempo_udp *cu[MAX_CLIENTS];
    tempo_client *c[MAX_CLIENTS];
    for (int i = 0; i < clients; i++) {
        tempo_address ca;
        open_socket(false, &cu[i], &ca);
        tempo_transport ct = tempo_udp_transport(cu[i]);
        c[i] = bench_client_open(carena[i], STATE, clients, i, 5, sealed != TEMPO_CIPHER_AUTO, &sa,
                                 &ct);
    }
    /* the floor: the server's turn (timed), sending to the clients, then
     * each client's, sending to the server */
    bench_floor *fl = bench_floor_create(clients + 1, clients + 1, CS_TICKS);
    fl->step[0].to_first = 1, fl->step[0].to_count = clients;
    fl->step[0].batch = batch, fl->step[0].timed = true;
    for (int i = 1; i <= clients; i++)
        fl->step[i].sock = i, fl->step[i].to_first = 0, fl->step[i].to_count = 1;
    const size_t stride = STATE / (size_t)clients;
    double spent = 0;
    tempo_udp_stats before, after;
    memset(&before, 0, sizeof before);
    for (int f = 0; f < CS_SETTLE + CS_TICKS; f++) {
        uint64_t now = (uint64_t)f * TICK_US;
        if (f == CS_SETTLE) {
            tempo_udp_get_stats(su, &before);
            bench_floor_begin(fl, 0, su);
            for (int i = 0; i < clients; i++)
                bench_floor_begin(fl, i + 1, cu[i]);
        }
        double t0 = bench_thread_cpu_now();
        tempo_server_poll(s, now);
        tempo_server_tick t;
        tempo_server_advance(s, &t);
        if (f >= CS_SETTLE)
            spent += bench_thread_cpu_now() - t0;
        bench_server_game(arena, stride, clients, &t, f);
        bench_clients_tick(c, clients, clients, now + TICK_US / 2, f);
        if (f >= CS_SETTLE) {
            bench_floor_record(fl, f - CS_SETTLE, 0, su);
            for (int i = 0; i < clients; i++)
                bench_floor_record(fl, f - CS_SETTLE, i + 1, cu[i]);
        }
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
    bench_floor_result fr = bench_floor_run(fl);
    bench_floor_destroy(fl);
    r.floor_us = fr.timed_s * 1e6 / CS_TICKS / clients;
    return r;
}

/* ---- relay ------------------------------------------------------------------ */

/* One relay and N members of one rollback match, each on its own socket,
 * all batched. Each member's tick comes at its own point of the 16.7 ms,
 * and the relay updates just before each (as tempo-relay does when a
 * datagram arrives), so it finalizes a frame once its last input is in.
 * The relay's CPU is this thread's clock around its updates; the members'
 * is the process's CPU over the window, as the p2p rows measure it, less
 * the relay's. */
typedef struct relay_result {
    double member_us;          /* per member per frame */
    double send_calls, recv_calls; /* per member per frame */
    double up, down;           /* mean payload of a member's datagram, of the relay's */
    double datagrams_down;     /* the relay's datagrams per member per frame */
    double relay_us;           /* the relay's CPU per frame */
    double relay_send_calls;   /* per frame */
    double member_floor_us;    /* the kernel's floor under member_us */
    double relay_floor_us;     /* and under relay_us */
} relay_result;

#define RELAY_PROTOCOL 0x62656e6368ull
#define RELAY_MATCH 5u

static relay_result relay_run(int n, bool sealed)
{
    tempo_udp *ru;
    tempo_address ra;
    open_socket(true, &ru, &ra);
    tempo_transport rt = tempo_udp_transport(ru);
    tempo_relay_config rc;
    tempo_relay_config_default(&rc);
    memset(rc.cookie_key, 0x5a, sizeof rc.cookie_key);
    if (sealed) {
        rc.has_private_key = true;
        rc.protocol_id = RELAY_PROTOCOL;
        memcpy(rc.private_key, bench_backend_key, sizeof bench_backend_key);
        rc.self = ra;
    }
    tempo_relay *relay;
    if (tempo_relay_create(&rc, &rt, &relay) != TEMPO_OK)
        exit(1);
    peer pr[MAX_PEERS];
    tempo_udp *socks[MAX_PEERS];
    memset(pr, 0, sizeof pr);
    for (int i = 0; i < n; i++) {
        open_socket(true, &pr[i].udp, &pr[i].addr);
        pr[i].tr = tempo_udp_transport(pr[i].udp);
        socks[i] = pr[i].udp;
        tempo_rng_seed(&pr[i].p.rng, 7, (uint64_t)i);
        tempo_config cfg;
        tempo_config_default(&cfg);
        cfg.num_players = n;
        cfg.random_seed = (uint64_t)i + 1;
        cfg.session_id = RELAY_MATCH;
        uint8_t token[TEMPO_TOKEN_SIZE];
        if (sealed) {
            tempo_relay_join j = {RELAY_MATCH, (uint8_t)(1u << i), n, 4, 60, 0, 0, false};
            uint8_t ud[TEMPO_TOKEN_USER_DATA_SIZE];
            if (tempo_relay_join_write(&j, ud) != TEMPO_OK ||
                tempo_token_create(bench_backend_key, RELAY_PROTOCOL, 1 + (uint64_t)i, 100000, 1000,
                                   &ra, 1, ud, token) != TEMPO_OK)
                exit(1);
        }
        if (tempo_session_create_relay_member(&cfg, &pr[i].tr, &ra, sealed ? token : NULL,
                                              &pr[i].p.s) != TEMPO_OK ||
            tempo_session_add_local_player(pr[i].p.s, i) != TEMPO_OK)
            exit(1);
    }
    /* the floor: the relay's turn (timed, sending to the members) before
     * each member's (sending to the relay) */
    bench_floor *fl = bench_floor_create(n + 1, 2 * n, P2P_FRAMES + P2P_FRAMES / 2);
    for (int i = 0; i < n; i++) {
        bench_floor_step *rs = &fl->step[2 * i], *mb = &fl->step[2 * i + 1];
        rs->to_first = 1, rs->to_count = n, rs->batch = true, rs->timed = true;
        mb->sock = i + 1, mb->to_first = 0, mb->to_count = 1, mb->batch = true;
    }
    double cpu0 = 0, cpu1 = 0, relay_cpu = 0;
    int32_t first = -1, last = -1;
    int window = 0; /* the measured iterations so far */
    tempo_udp_stats before, after, rbefore, rafter;
    memset(&before, 0, sizeof before);
    memset(&rbefore, 0, sizeof rbefore);
    for (uint64_t k = 0; k < 100000 && last < 0; k++) {
        uint64_t now = k * TICK_US;
        bool measuring = first >= 0;
        for (int i = 0; i < n; i++) {
            uint64_t at = now + (uint64_t)i * (TICK_US / (unsigned)n);
            double t0 = bench_thread_cpu_now();
            (void)tempo_relay_update(relay, at, 1000 + at / 1000000u);
            if (measuring) {
                relay_cpu += bench_thread_cpu_now() - t0;
                bench_floor_record(fl, window, 2 * i, ru);
            }
            (void)bench_peer_tick(&pr[i].p, at, i);
            if (measuring)
                bench_floor_record(fl, window, 2 * i + 1, pr[i].udp);
        }
        window += measuring;
        int32_t f = tempo_session_frame(pr[0].p.s);
        if (first < 0 && f >= P2P_SETTLE) {
            first = f;
            udp_totals(socks, n, &before);
            tempo_udp_get_stats(ru, &rbefore);
            bench_floor_begin(fl, 0, ru);
            for (int i = 0; i < n; i++)
                bench_floor_begin(fl, i + 1, pr[i].udp);
            cpu0 = bench_cpu_now();
        } else if (first >= 0 && f - first >= P2P_FRAMES) {
            cpu1 = bench_cpu_now();
            last = f;
        }
    }
    if (last < 0) {
        fprintf(stderr, "bench_scale: %d relay members never ran %d frames\n", n, P2P_FRAMES);
        exit(1);
    }
    udp_totals(socks, n, &after);
    tempo_udp_get_stats(ru, &rafter);
    tempo_relay_match_stats ms;
    if (tempo_relay_get_match_stats(relay, RELAY_MATCH, &ms) != TEMPO_OK || ms.members != n) {
        fprintf(stderr, "bench_scale: the relay's match does not hold its %d members\n", n);
        exit(1);
    }
    for (int i = 0; i < n; i++) {
        tempo_session_destroy(pr[i].p.s);
        tempo_udp_close(pr[i].udp);
    }
    tempo_relay_destroy(relay);
    tempo_udp_close(ru);
    double frames = (double)(last - first), per = (double)n * frames;
    relay_result r;
    r.member_us = (cpu1 - cpu0 - relay_cpu) * 1e6 / per;
    r.send_calls = (double)(after.send_calls - before.send_calls) / per;
    r.recv_calls = (double)(after.recv_calls - before.recv_calls) / per;
    r.up = (double)(after.bytes_sent - before.bytes_sent) / (double)(after.sent - before.sent);
    r.down = (double)(rafter.bytes_sent - rbefore.bytes_sent) / (double)(rafter.sent - rbefore.sent);
    r.datagrams_down = (double)(rafter.sent - rbefore.sent) / per;
    r.relay_us = relay_cpu * 1e6 / frames;
    r.relay_send_calls = (double)(rafter.send_calls - rbefore.send_calls) / frames;
    bench_floor_result fr = bench_floor_run(fl);
    bench_floor_destroy(fl);
    r.member_floor_us = (fr.process_s - fr.timed_s) * 1e6 / per;
    r.relay_floor_us = fr.timed_s * 1e6 / frames;
    return r;
}

/* The relay's rows: 2, 4 and 8 members, open and sealed (alternating
 * within each repetition), medians of `runs` runs. */
static void relay_table(int modes, int runs)
{
    printf("\n### Relay: N members of one match on loopback, batched sends (median of %d runs of "
           "%d frames)\n\n",
           runs, P2P_FRAMES);
    printf("| members | mode | member CPU us per frame | vs 2 members | member floor us | member "
           "above floor us | above floor vs 2 members | member send calls | member recv calls | "
           "relay datagrams to a member | bytes up | bytes down | relay CPU us per frame | relay "
           "CPU us per member | relay floor us per member | relay above floor us per member | "
           "relay send calls per frame |\n");
    printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
           "\n");
    static const int members[] = {2, 4, 8};
    int rmodes = modes >= 4 ? 2 : 1; /* open, and sealed when libsodium is here */
    double two[2] = {0, 0}, two_above[2] = {0, 0};
    enum { COLS = 13 };
    for (int k = 0; k < 3; k++) {
        double v[2][COLS][MAX_REPS];
        for (int rep = 0; rep < runs; rep++)
            for (int m = 0; m < rmodes; m++) {
                relay_result x = relay_run(members[k], m == 1);
                int n = members[k];
                double f[COLS] = {x.member_us, x.member_floor_us, x.member_us - x.member_floor_us,
                                  x.send_calls, x.recv_calls, x.datagrams_down, x.up, x.down,
                                  x.relay_us, x.relay_us / n, x.relay_floor_us / n,
                                  (x.relay_us - x.relay_floor_us) / n, x.relay_send_calls};
                for (int c = 0; c < COLS; c++)
                    v[m][c][rep] = f[c];
            }
        for (int m = 0; m < rmodes; m++) {
            double med[COLS];
            for (int c = 0; c < COLS; c++)
                med[c] = bench_median(v[m][c], runs);
            if (k == 0)
                two[m] = med[0], two_above[m] = med[2];
            char cells[3][32];
            if (BENCH_FLOOR) {
                snprintf(cells[0], sizeof cells[0], "%.2f | %.2f | %.2fx", med[1], med[2],
                         med[2] / two_above[m]);
                snprintf(cells[1], sizeof cells[1], "%.2f", med[10]);
                snprintf(cells[2], sizeof cells[2], "%.2f", med[11]);
            } else {
                snprintf(cells[0], sizeof cells[0], "- | - | -");
                snprintf(cells[1], sizeof cells[1], "-");
                snprintf(cells[2], sizeof cells[2], "-");
            }
            printf("| %d | %s | %.2f | %.2fx | %s | %.2f | %.2f | %.2f | %.1f | %.1f | %.2f | "
                   "%.2f | %s | %s | %.2f |\n",
                   members[k], m == 1 ? "sealed" : "open", med[0], med[0] / two[m], cells[0],
                   med[3], med[4], med[5], med[6], med[7], med[8], med[9], cells[1], cells[2],
                   med[12]);
        }
    }
}

/* ---- the tables ----------------------------------------------------------- */

/* Modes of a row: open / sealed ChaCha20-Poly1305 / sealed AES-256-GCM x
 * sendto / batched, in this order (run_fn's `sealed`: TEMPO_CIPHER_AUTO
 * means open here). */
#define MODES 6
static const char *mode_name(int m)
{
    static const char *names[MODES] = {"open, sendto",          "open, batched",
                                       "ChaCha20, sendto",      "ChaCha20, batched",
                                       "AES-256-GCM, sendto",   "AES-256-GCM, batched"};
    return names[m];
}

static tempo_cipher mode_cipher(int m)
{
    return m < 2 ? TEMPO_CIPHER_AUTO : m < 4 ? TEMPO_CIPHER_CHACHA20 : TEMPO_CIPHER_AES256GCM;
}

typedef result (*run_fn)(int size, tempo_cipher sealed, bool batch);

static int reps = REPS;

/* The floor's three cells of a row: the floor, tempo above it, and that
 * against the smallest size's (dashes where there is no floor). */
static const char *floor_cells(const result *x, const result *smallest)
{
    static char cells[96];
    if (!BENCH_FLOOR)
        return "- | - | -";
    snprintf(cells, sizeof cells, "%.2f | %.2f | %.2fx", x->floor_us, x->above,
             x->above / smallest->above);
    return cells;
}

/* Each mode's CPU in each repetition, for ratios of the same repetition. */
typedef struct cpu_reps {
    double us[MODES][MAX_REPS];
} cpu_reps;

/* `reps` repetitions of every mode of one size, alternating; medians into
 * out, each repetition's CPU into *cpu. */
static void measure(run_fn fn, int size, int modes, result out[MODES], cpu_reps *cpu)
{
    double v[MODES][6][MAX_REPS];
    for (int r = 0; r < reps; r++)
        for (int m = 0; m < modes; m++) {
            result x = fn(size, mode_cipher(m), m % 2 == 1);
            v[m][0][r] = x.us, v[m][1][r] = x.send_calls, v[m][2][r] = x.recv_calls;
            v[m][3][r] = x.datagram, v[m][4][r] = x.floor_us, v[m][5][r] = x.us - x.floor_us;
            cpu->us[m][r] = x.us;
        }
    for (int m = 0; m < modes; m++) {
        out[m].us = bench_median(v[m][0], reps);
        out[m].send_calls = bench_median(v[m][1], reps);
        out[m].recv_calls = bench_median(v[m][2], reps);
        out[m].datagram = bench_median(v[m][3], reps);
        out[m].floor_us = bench_median(v[m][4], reps);
        out[m].above = bench_median(v[m][5], reps);
    }
}

/* Mode m's CPU over mode base's: the median of the ratios within each
 * repetition (the two ran back to back, so a busy machine's drift
 * cancels). */
static double paired_ratio(const cpu_reps *cpu, int m, int base)
{
    double q[MAX_REPS];
    for (int r = 0; r < reps; r++)
        q[r] = cpu->us[m][r] / cpu->us[base][r];
    return bench_median(q, reps);
}

/* The sealed / open lines of one table: for each cipher, sendto and
 * batched at the sizes named. */
static void ratio_lines(const char *what, const cpu_reps *a, const char *a_name,
                        const cpu_reps *b, const char *b_name, int modes)
{
    for (int m = 2; m < modes; m += 2)
        printf("\nsealed / open CPU, %s, %s (median of the runs' ratios): sendto %s %.2fx, %s "
               "%.2fx; batched %s %.2fx, %s %.2fx\n",
               m == 2 ? "ChaCha20-Poly1305" : "AES-256-GCM", what, a_name, paired_ratio(a, m, 0),
               b_name, paired_ratio(b, m, 0), a_name, paired_ratio(a, m + 1, 1), b_name,
               paired_ratio(b, m + 1, 1));
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        reps = atoi(argv[1]);
        if (reps < 1 || reps > MAX_REPS) {
            fprintf(stderr, "usage: bench_scale [repetitions 1..%d, default %d]\n", MAX_REPS,
                    REPS);
            return 2;
        }
    }
    printf("## bench_scale (tempo %s)\n", tempo_version_string());
    bench_machine_line();
    int modes = !tempo_secure_available() ? 2 : tempo_cipher_aes_available() ? 6 : 4;

    printf("\n### p2p: N peers on loopback, per peer per frame (median of %d runs of %d frames)\n\n",
           reps, P2P_FRAMES);
    printf("| peers | mode | CPU us | vs 2 peers | floor us | above floor us | above floor vs 2 "
           "peers | send calls | recv calls | bytes per datagram |\n");
    printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    static const int peers[] = {2, 4, 8};
    result r[3][MODES];
    static cpu_reps pc[3];
    for (int k = 0; k < 3; k++) {
        measure(p2p_run, peers[k], modes, r[k], &pc[k]);
        for (int m = 0; m < modes; m++)
            printf("| %d | %s | %.2f | %.2fx | %s | %.2f | %.2f | %.1f |\n", peers[k], mode_name(m),
                   r[k][m].us, r[k][m].us / r[0][m].us,
                   floor_cells(&r[k][m], &r[0][m]), r[k][m].send_calls,
                   r[k][m].recv_calls, r[k][m].datagram);
    }
    ratio_lines("p2p", &pc[0], "2 peers", &pc[2], "8 peers", modes);

    printf("\n### Server: C clients on loopback, a snapshot every tick (median of %d runs of %d "
           "ticks)\n\n",
           reps, CS_TICKS);
    printf("| clients | mode | server CPU us per client per tick | floor us | above floor us | "
           "above floor vs 8 clients | server send calls per tick | recv calls per tick | bytes "
           "per datagram |\n");
    printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    static const int clients[] = {8, 64, 256};
    static cpu_reps cc[3];
    result c[3][MODES];
    for (int k = 0; k < 3; k++) {
        measure(cs_run, clients[k], modes, c[k], &cc[k]);
        for (int m = 0; m < modes; m++)
            printf("| %d | %s | %.2f | %s | %.2f | %.2f | %.1f |\n", clients[k], mode_name(m),
                   c[k][m].us, floor_cells(&c[k][m], &c[0][m]), c[k][m].send_calls,
                   c[k][m].recv_calls, c[k][m].datagram);
    }
    ratio_lines("server", &cc[0], "8 clients", &cc[1], "64 clients", modes);
    printf("\nper client, 256 clients / 64 clients:");
    for (int m = 0; m < modes; m++)
        printf("%s %s %.2fx", m == 0 ? "" : ";", mode_name(m), c[2][m].us / c[1][m].us);
    printf("\n");
    if (BENCH_FLOOR) {
        printf("\nabove the floor per client, 256 clients / 64 clients:");
        for (int m = 0; m < modes; m++)
            printf("%s %s %.2fx", m == 0 ? "" : ";", mode_name(m), c[2][m].above / c[1][m].above);
        printf("\n");
    }
    printf("\nA server admits at most %d clients (TEMPO_CS_MAX_CLIENTS).\n", TEMPO_CS_MAX_CLIENTS);

    relay_table(modes, reps);
    if (modes == 2)
        printf("This build has no libsodium: the sealed rows are missing.\n");
    else if (modes == 4)
        printf("This CPU has no AES-256-GCM (libsodium): its rows are missing.\n");
    return 0;
}
