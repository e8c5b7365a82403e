/* SPDX-License-Identifier: MIT */
/*
 * bench_delta.c — the state delta coder (wire/delta): encoded bytes and
 * encode / decode time for 1 KB and 8 KB states with 1%, 10% and 100% of
 * their bytes changed, printed as a markdown table.
 *
 * Change model: the state is random; a tick changes the given share of its
 * bytes, each chosen at random (so changes are scattered, the unfriendly
 * case), plus a "moves" row where 1% of the 32-bit fields move by -20..20
 * (positions, the friendly case). Seeded: the same bytes every run. Time:
 * median over RUNS runs, in the process's CPU time (a machine shared with
 * other work stretches wall time, not this); never a pass/fail on time.
 */
#include "bench_common.h"
#include "wire/delta.h"
#include "tempo/base.h"
#include "tempo/rng.h"

#define RUNS 9
#define POOL 16 /* distinct changed states cycled through */

static uint8_t base[8192], cur[POOL][8192], enc[POOL][8192 + 16], out[8192];

static void make_states(size_t n, int percent, bool moves, uint64_t seed)
{
    tempo_rng rng;
    tempo_rng_seed(&rng, 4242, seed);
    for (size_t i = 0; i < n; i++)
        base[i] = (uint8_t)tempo_rng_next(&rng);
    for (int k = 0; k < POOL; k++) {
        memcpy(cur[k], base, n);
        if (moves) {
            size_t fields = n / 4, m = fields / 100 ? fields / 100 : 1;
            for (size_t c = 0; c < m; c++) {
                uint8_t *f = cur[k] + 4 * tempo_rng_below(&rng, (uint32_t)fields);
                uint32_t v = (uint32_t)f[0] | (uint32_t)f[1] << 8 | (uint32_t)f[2] << 16 |
                             (uint32_t)f[3] << 24;
                v += (uint32_t)tempo_rng_range(&rng, -20, 20);
                for (int b = 0; b < 4; b++)
                    f[b] = (uint8_t)(v >> (8 * b));
            }
        } else if (percent == 100) {
            for (size_t i = 0; i < n; i++)
                cur[k][i] = (uint8_t)(base[i] ^ tempo_rng_range(&rng, 1, 255));
        } else {
            size_t m = n * (size_t)percent / 100;
            for (size_t c = 0; c < m; c++) {
                size_t i = tempo_rng_below(&rng, (uint32_t)n);
                cur[k][i] = (uint8_t)(base[i] ^ tempo_rng_range(&rng, 1, 255));
            }
        }
    }
}

/* Median ns per call of encoding (or decoding) the pool round and round. */
static double time_ns(size_t n, const size_t *len, bool decode)
{
    int per_run = n > 4096 ? 4000 : 20000;
    double ns[RUNS];
    for (int r = 0; r < RUNS; r++) {
        uint64_t sink = 0;
        double t0 = bench_cpu_now();
        for (int i = 0; i < per_run; i++) {
            int k = i % POOL;
            if (decode)
                sink += delta_decode(base, n, enc[k], len[k], out) ? out[k] : 1000;
            else
                sink += delta_encode(base, cur[k], n, enc[k], sizeof enc[k]);
        }
        ns[r] = (bench_cpu_now() - t0) * 1e9 / per_run;
        bench_keep(sink);
    }
    return bench_median(ns, RUNS);
}

int main(void)
{
    static const struct {
        size_t n;
        int percent;
        bool moves;
    } cases[] = {
        {1024, 1, false},  {1024, 10, false}, {1024, 100, false}, {1024, 1, true},
        {8192, 1, false},  {8192, 10, false}, {8192, 100, false}, {8192, 1, true},
    };
    printf("## bench_delta (tempo %s)\n\n", tempo_version_string());
    bench_machine_line();
    printf("\nState deltas: bytes and CPU time per call (median of %d runs, %d states per case)\n\n",
           RUNS, POOL);
    printf("| state | changed | encoded bytes (mean) | bound | encode ns | decode ns |\n");
    printf("|---|---|---|---|---|---|\n");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t n = cases[c].n, len[POOL], total = 0;
        make_states(n, cases[c].percent, cases[c].moves, c);
        for (int k = 0; k < POOL; k++) {
            len[k] = delta_encode(base, cur[k], n, enc[k], sizeof enc[k]);
            uint8_t check[8192];
            if (len[k] == 0 || !delta_decode(base, n, enc[k], len[k], check) ||
                memcmp(check, cur[k], n) != 0) {
                fprintf(stderr, "bench_delta: round trip failed\n");
                return 1;
            }
            total += len[k];
        }
        double enc_ns = time_ns(n, len, false), dec_ns = time_ns(n, len, true);
        char changed[48];
        if (cases[c].moves)
            snprintf(changed, sizeof changed, "1%% of int32 fields move");
        else
            snprintf(changed, sizeof changed, "%d%% of bytes", cases[c].percent);
        printf("| %zu B | %s | %.1f | %zu | %.0f | %.0f |\n", n, changed, (double)total / POOL,
               delta_bound(n), enc_ns, dec_ns);
    }
    printf("\n");
    return 0;
}
