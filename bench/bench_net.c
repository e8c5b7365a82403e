/* SPDX-License-Identifier: MIT */
/*
 * bench_net.c — what the network session costs.
 *
 * 1. Library CPU per frame for 2 players over real UDP on loopback, syscalls
 *    included: two p2p sessions in this process, each on its own socket,
 *    ticking alternately with their clocks advancing 1/60 s per tick (so
 *    every timer behaves as at 60 Hz). The time counted is spent inside
 *    tempo calls (poll, input, advance, next); the "game" is a hash. The
 *    same pair runs again with a match key (every datagram sealed and
 *    opened), interleaved with the open runs so both see the same machine;
 *    sealing should stay within 1.5 times the open cost.
 * 2. Payload bytes per second per direction for one pair of peers over
 *    simnet, a 4-byte input changing about every 8 frames, 60 s per profile.
 * Targets: <= 5 us CPU per frame; <= 900 payload bytes/s on lan (a
 * GGPO pair was measured at about 2,070 bytes/s under the same load).
 */
#include <string.h>

#include "bench_play.h"
#include "tempo/simnet.h"
#include "tempo/tempo.h"
#include "tempo/udp.h"

#define REPS 9
#define FRAMES 3600

static void make_pair(bench_peer *pr, const tempo_transport *tr, const tempo_address *addr, bool keyed)
{
    for (int i = 0; i < 2; i++) {
        tempo_config cfg;
        tempo_config_default(&cfg);
        cfg.random_seed = (uint64_t)i + 1;
        cfg.has_match_key = keyed;
        for (int k = 0; k < 32; k++)
            cfg.match_key[k] = (uint8_t)(k * 37 + 11);
        memset(&pr[i], 0, sizeof pr[i]);
        tempo_rng_seed(&pr[i].rng, 7, (uint64_t)i);
        if (tempo_session_create_p2p(&cfg, &tr[i], &pr[i].s) != TEMPO_OK)
            exit(1);
        tempo_session_add_local_player(pr[i].s, i);
        tempo_session_add_remote_player(pr[i].s, 1 - i, &addr[1 - i]);
    }
}

static double udp_run(bool keyed)
{
    tempo_udp *u[2];
    tempo_address addr[2];
    tempo_transport tr[2];
    for (int i = 0; i < 2; i++) {
        tempo_address any;
        tempo_address_parse(&any, "127.0.0.1:0");
        if (tempo_udp_open(&any, NULL, &u[i]) != TEMPO_OK)
            exit(1);
        tempo_udp_local_address(u[i], &addr[i]);
        tr[i] = tempo_udp_transport(u[i]);
    }
    bench_peer pr[2];
    make_pair(pr, tr, addr, keyed);
    double spent = 0;
    int32_t frames = 0;
    for (uint64_t k = 0; frames < FRAMES && k < 100000; k++) {
        uint64_t now = k * 16667u;
        double a = bench_peer_tick(&pr[0], now, 0), b = bench_peer_tick(&pr[1], now + 5000, 1);
        if (tempo_session_frame(pr[0].s) > 0) { /* count frames, not the handshake */
            spent += a + b;
            frames = tempo_session_frame(pr[0].s);
        }
    }
    for (int i = 0; i < 2; i++) {
        tempo_session_destroy(pr[i].s);
        tempo_udp_close(u[i]);
    }
    return spent / 2.0 / frames; /* per peer per frame */
}

/* The floor under any UDP netcode here: one send and one receive of a
 * 12-byte datagram through tempo's UDP transport, timed apart. */
static void syscall_floor(double *send_us, double *recv_us)
{
    tempo_udp *a, *b;
    tempo_address any, to;
    tempo_address_parse(&any, "127.0.0.1:0");
    if (tempo_udp_open(&any, NULL, &a) != TEMPO_OK || tempo_udp_open(&any, NULL, &b) != TEMPO_OK)
        exit(1);
    tempo_udp_local_address(b, &to);
    tempo_transport ta = tempo_udp_transport(a), tb = tempo_udp_transport(b);
    uint8_t msg[12] = {0}, buf[TEMPO_MAX_DATAGRAM + 1];
    enum { N = 20000 };
    double send_total = 0, recv_total = 0;
    for (int i = 0; i < N; i++) {
        tempo_address from;
        double t0 = bench_now();
        ta.send(ta.ctx, &to, msg, sizeof msg);
        double t1 = bench_now();
        tb.recv(tb.ctx, &from, buf, sizeof buf);
        tb.recv(tb.ctx, &from, buf, sizeof buf); /* "nothing more", as a tick asks */
        double t2 = bench_now();
        send_total += t1 - t0;
        recv_total += t2 - t1;
    }
    *send_us = send_total / N * 1e6;
    *recv_us = recv_total / N * 1e6;
    tempo_udp_close(a);
    tempo_udp_close(b);
}

typedef struct traffic {
    double bytes_per_s, packets_per_s, datagram_bytes;
} traffic;

static traffic simnet_run(const char *profile)
{
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.seed = 3;
    tempo_link_profile(profile, &nc.default_link);
    tempo_simnet *net;
    if (tempo_simnet_create(&nc, &net) != TEMPO_OK)
        exit(1);
    tempo_address addr[2] = {tempo_address_ipv4(10, 0, 0, 1, 7000), tempo_address_ipv4(10, 0, 0, 2, 7000)};
    tempo_transport tr[2];
    for (int i = 0; i < 2; i++)
        tempo_simnet_add_node(net, &addr[i], &tr[i]);
    bench_peer pr[2];
    make_pair(pr, tr, addr, false);
    uint64_t start_us = 0;
    for (uint64_t k = 0; k < 200000; k++) {
        uint64_t now = k * 1000u; /* 1 ms steps; each machine ticks every 16.667 ms */
        tempo_simnet_set_time(net, now);
        for (int i = 0; i < 2; i++)
            if ((k * 1000u + (uint64_t)i * 7000u) % 16667u < 1000u)
                bench_peer_tick(&pr[i], now, i);
        if (!start_us && tempo_session_frame(pr[0].s) > 0)
            start_us = now;
        if (start_us && now - start_us >= 60000000u)
            break;
    }
    tempo_endpoint_stats es;
    tempo_session_get_endpoint_stats(pr[0].s, 1, &es);
    traffic t;
    t.bytes_per_s = (double)es.bytes_sent / 60.0;
    t.packets_per_s = (double)es.packets_sent / 60.0;
    t.datagram_bytes = (double)es.bytes_sent / (double)es.packets_sent;
    for (int i = 0; i < 2; i++)
        tempo_session_destroy(pr[i].s);
    tempo_simnet_destroy(net);
    return t;
}

int main(void)
{
    printf("## bench_net (tempo %s)\n", tempo_version_string());
    bench_machine_line();
    double us[REPS], sealed_us[REPS], snd[REPS], rcv[REPS];
    bool can_seal = tempo_secure_available();
    for (int r = 0; r < REPS; r++) {
        us[r] = udp_run(false) * 1e6;
        sealed_us[r] = can_seal ? udp_run(true) * 1e6 : 0.0;
        syscall_floor(&snd[r], &rcv[r]);
    }
    double total = bench_median(us, REPS), s_us = bench_median(snd, REPS), r_us = bench_median(rcv, REPS);
    double sealed = bench_median(sealed_us, REPS);
    printf("\n### Library CPU per frame, 2 players over UDP on loopback (median of %d runs of %d frames)\n\n",
           REPS, FRAMES);
    printf("| measure | us per frame per peer |\n|---|---:|\n");
    printf("| poll + input + advance + requests, syscalls included | %.2f |\n", total);
    printf("| of which: one send of a 12-byte datagram (transport alone) | %.2f |\n", s_us);
    printf("| of which: receiving it and learning the socket is empty | %.2f |\n", r_us);
    printf("| tempo's own work (the rest) | %.2f |\n", total - s_us - r_us);
    if (can_seal)
        printf("| sealed: the same with a match key, syscalls included | %.2f (%.2fx open) |\n",
               sealed, sealed / total);
    else
        printf("| sealed: not measured, this build has no libsodium | - |\n");

    printf("\n### Payload per direction, one pair, 4-byte input changing every ~8 frames, 60 s\n\n");
    printf("| profile | payload bytes/s | datagrams/s | bytes per datagram |\n|---|---:|---:|---:|\n");
    const char *profiles[] = {"lan", "broadband", "transatlantic", "terrible"};
    for (int i = 0; i < 4; i++) {
        traffic t = simnet_run(profiles[i]);
        printf("| %s | %.0f | %.1f | %.1f |\n", profiles[i], t.bytes_per_s, t.packets_per_s,
               t.datagram_bytes);
    }
    return 0;
}
