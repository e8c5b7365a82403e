/* SPDX-License-Identifier: MIT */
/*
 * bench_simnet.c — what each simnet link profile measures like, and how fast
 * simnet runs. Prints the table docs/SIMNET.md quotes.
 *
 * Per profile, 100k packets node 0 -> node 1 of 16 bytes: once spaced one
 * second apart (no packet ever waits behind another: the delay distribution
 * itself), once at 60 Hz (a game's send rate: jitter now holds packets
 * behind slower ones, since a link keeps order, and the mean rises).
 * Speed: median of 5 runs of the terrible profile at 60 Hz, in ns per packet.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_common.h"
#include "tempo/simnet.h"

#define PACKETS 100000u

static tempo_link_stats run(const tempo_link_params *p, uint64_t seed, uint64_t spacing_us)
{
    tempo_simnet_config cfg;
    tempo_simnet_config_default(&cfg);
    cfg.seed = seed;
    cfg.max_nodes = 2;
    tempo_simnet *net = NULL;
    tempo_link_stats s;
    memset(&s, 0, sizeof s);
    if (tempo_simnet_create(&cfg, &net) != TEMPO_OK)
        return s;
    tempo_address a = tempo_address_ipv4(10, 0, 0, 1, 1), b = tempo_address_ipv4(10, 0, 0, 2, 1);
    tempo_transport ta, tb;
    tempo_simnet_add_node(net, &a, &ta);
    tempo_simnet_add_node(net, &b, &tb);
    tempo_simnet_set_link(net, &a, &b, p);
    uint8_t buf[TEMPO_MAX_DATAGRAM] = {0};
    tempo_address from;
    for (uint32_t i = 0; i <= PACKETS; i++) {
        /* Counters are taken at delivery time; recv only frees the slots. */
        tempo_simnet_set_time(net, (uint64_t)i * spacing_us);
        while (tb.recv(tb.ctx, &from, buf, sizeof buf) > 0) {
        }
        if (i < PACKETS)
            ta.send(ta.ctx, &b, buf, 16);
    }
    tempo_simnet_set_time(net, (uint64_t)(PACKETS + 100) * spacing_us + 10000000u);
    tempo_simnet_link_stats(net, &a, &b, &s);
    tempo_simnet_destroy(net);
    return s;
}

static double mean_ms(const tempo_link_stats *s)
{
    return s->delivered ? (double)s->latency_us_sum / (double)s->delivered / 1000.0 : 0.0;
}

static double sd_ms(const tempo_link_stats *s)
{
    if (!s->delivered)
        return 0.0;
    double m = (double)s->latency_us_sum / (double)s->delivered;
    double v = (double)s->latency_us_sq_sum / (double)s->delivered - m * m;
    return sqrt(v > 0 ? v : 0) / 1000.0;
}

int main(void)
{
    printf("## bench_simnet (tempo %s)\n\n", tempo_version_string());
    printf("simnet link profiles: %u packets each, seed 1; latencies one way, in ms\n\n",
           PACKETS);
    printf("| profile | nominal | loss nominal | loss measured | mean | jitter (sd) "
           "| mean @60 Hz | sd @60 Hz | duplicated | reordered @60 Hz |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    for (const char *const *name = tempo_link_profile_names(); *name; name++) {
        tempo_link_params p;
        tempo_link_profile(*name, &p);
        double bad = p.burst_enter > 0 ? p.burst_enter / (p.burst_enter + p.burst_exit) : 0;
        double loss = bad * p.burst_loss + (1 - bad) * p.loss;
        tempo_link_stats slow = run(&p, 1, 1000000u), game = run(&p, 1, 16667u);
        printf("| %s | %.1f ± %.1f | %.2f%% | %.2f%% | %.2f | %.2f | %.2f | %.2f | %.2f%% | %.2f%% |\n",
               *name, p.latency_us / 1000.0, p.jitter_us / 1000.0, loss * 100,
               100.0 * (double)slow.lost / (double)slow.sent, mean_ms(&slow), sd_ms(&slow),
               mean_ms(&game), sd_ms(&game), 100.0 * (double)slow.duplicated / (double)slow.sent,
               100.0 * (double)game.reordered / (double)game.sent);
    }

    tempo_link_params terrible;
    tempo_link_profile("terrible", &terrible);
    double runs[5];
    for (int r = 0; r < 5; r++) {
        double t0 = bench_now();
        run(&terrible, (uint64_t)r + 1, 16667u);
        runs[r] = (bench_now() - t0) * 1e9 / PACKETS;
    }
    printf("\nspeed: %.0f ns per packet sent, delivered and received (terrible, median of 5)\n",
           bench_median(runs, 5));
    return 0;
}
