/* SPDX-License-Identifier: MIT */
/*
 * bench_codec.c — INPUT message sizes (bytes of UDP payload, header
 * included) and codec throughput, printed as markdown tables.
 *
 * Size model: the sending peer hosts 1, 4 or 8 players of a match of
 * min(8, hosted + 1) players, 4-byte inputs, and sends its unacknowledged
 * frames; ack = start + count / 2, sender_frame = start + count - 1. A
 * change is, with equal odds, one flipped bit (a button), one byte or two
 * bytes taking new values (a stick). Seeded: the same table every run.
 * Throughput: median of repeated runs; never a pass/fail on time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "wire/codec.h"
#include "tempo/rng.h"

#define SAMPLES 1000 /* messages per size cell */
#define RUNS 9       /* throughput runs, the median is printed */
#define POOL 64      /* distinct messages cycled through in a throughput run */
#define PER_RUN 200000

enum { CHANGE_EVERY_FRAME, CHANGE_EVERY_10, CHANGE_NEVER };

static bool reference(void *ctx, int player, int32_t frame, uint8_t *out)
{
    (void)ctx, (void)frame;
    for (int i = 0; i < 4; i++)
        out[i] = (uint8_t)(player * 31 + i);
    return true;
}

static void change(tempo_rng *rng, uint8_t *in)
{
    int b = (int)tempo_rng_below(rng, 4);
    switch (tempo_rng_below(rng, 3)) {
    case 0: in[b] ^= (uint8_t)(1u << tempo_rng_below(rng, 8)); break;
    case 1: in[b] ^= (uint8_t)tempo_rng_range(rng, 1, 255); break;
    default:
        in[b] ^= (uint8_t)tempo_rng_range(rng, 1, 255);
        in[(b + 1) % 4] ^= (uint8_t)tempo_rng_range(rng, 1, 255);
        break;
    }
}

/* One INPUT message of the size model. */
static void make_input(tempo_rng *rng, int hosted, int pattern, int count, int32_t start, tempo_msg *m)
{
    tempo_msg_input *in = &m->u.input;
    m->type = TEMPO_MSG_INPUT;
    m->session_id = tempo_rng_next(rng);
    m->sequence = (uint16_t)tempo_rng_next(rng);
    in->player_mask = (uint8_t)((1u << hosted) - 1u);
    in->start = start;
    in->count = count;
    in->ack = in->start + count / 2;
    in->sender_frame = in->start + count - 1;
    in->disconnected_mask = 0;
    for (int p = 0; p < hosted; p++) {
        uint8_t cur[4];
        reference(NULL, p, in->start - 1, cur);
        for (int f = 0; f < count; f++) {
            if (pattern == CHANGE_EVERY_FRAME ||
                (pattern == CHANGE_EVERY_10 && tempo_rng_below(rng, 10) == 0))
                change(rng, cur);
            memcpy(in->data + ((size_t)p * (size_t)count + (size_t)f) * 4, cur, 4);
        }
    }
}

static tempo_codec_ctx make_ctx(int hosted)
{
    tempo_codec_ctx ctx = {4, hosted + 1 > TEMPO_MAX_PLAYERS ? TEMPO_MAX_PLAYERS : hosted + 1, 0,
                           reference, NULL};
    return ctx;
}

static void size_table(tempo_msg *m)
{
    static const int hosted[] = {1, 4, 8}, counts[] = {1, 8, 20};
    static const char *const patterns[] = {"every frame", "every 10 frames", "never"};
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    printf("## bench_codec (tempo %s)\n\n", tempo_version_string());
    printf("INPUT message size, bytes of UDP payload (mean / max over %d seeded messages)\n\n", SAMPLES);
    printf("| players on sender (match) | input changes | 1 frame | 8 frames | 20 frames |\n");
    printf("|---|---|---|---|---|\n");
    for (int h = 0; h < 3; h++) {
        for (int pat = 0; pat < 3; pat++) {
            tempo_codec_ctx ctx = make_ctx(hosted[h]);
            printf("| %d (%d) | %s |", hosted[h], ctx.num_players, patterns[pat]);
            for (int c = 0; c < 3; c++) {
                tempo_rng rng;
                tempo_rng_seed(&rng, 1234, (uint64_t)(h * 9 + pat * 3 + c));
                long total = 0;
                int most = 0;
                for (int s = 0; s < SAMPLES; s++) {
                    make_input(&rng, hosted[h], pat, counts[c], tempo_rng_range(&rng, 1, 1000000), m);
                    int n = tempo_codec_encode(m, &ctx, buf, sizeof buf);
                    if (n <= 0) {
                        fprintf(stderr, "bench_codec: encode failed (%d)\n", n);
                        exit(1);
                    }
                    total += n;
                    most = n > most ? n : most;
                }
                printf(" %.1f / %d |", (double)total / SAMPLES, most);
            }
            printf("\n");
        }
    }
    printf("\n");
}

/* Median messages/s of encoding (or decoding) the pool round and round. */
static double throughput(tempo_msg *pool, uint8_t (*wire)[TEMPO_MAX_DATAGRAM], const int *len,
                         const tempo_codec_ctx *ctx, bool decode, tempo_msg *out)
{
    double rates[RUNS];
    for (int r = 0; r < RUNS; r++) {
        long sink = 0;
        double t0 = bench_now();
        for (int i = 0; i < PER_RUN; i++) {
            int k = i % POOL;
            if (decode)
                sink += tempo_codec_decode(wire[k], (size_t)len[k], ctx, out, NULL);
            else
                sink += tempo_codec_encode(&pool[k], ctx, wire[k], TEMPO_MAX_DATAGRAM);
        }
        double dt = bench_now() - t0;
        rates[r] = PER_RUN / dt;
        if (decode && sink != 0) {
            fprintf(stderr, "bench_codec: decode failed\n");
            exit(1);
        }
    }
    return bench_median(rates, RUNS);
}

static void throughput_table(tempo_msg *pool, tempo_msg *out)
{
    static const struct {
        const char *name;
        int hosted, pattern, count;
    } cases[] = {
        {"LAN: 1 player, 2 frames, unchanged", 1, CHANGE_NEVER, 2},
        {"target: 1 player, 8 frames, change every 10", 1, CHANGE_EVERY_10, 8},
        {"heavy: 8 players, 20 frames, change every frame", 8, CHANGE_EVERY_FRAME, 20},
    };
    static uint8_t wire[POOL][TEMPO_MAX_DATAGRAM];
    int len[POOL];
    printf("INPUT codec throughput (median of %d runs of %d messages)\n\n", RUNS, PER_RUN);
    printf("| message | bytes | encode msg/s | decode msg/s |\n|---|---|---|---|\n");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tempo_codec_ctx ctx = make_ctx(cases[c].hosted);
        tempo_rng rng;
        tempo_rng_seed(&rng, 99, c);
        long bytes = 0;
        for (int k = 0; k < POOL; k++) {
            make_input(&rng, cases[c].hosted, cases[c].pattern, cases[c].count, 500000 + 30 * k,
                       &pool[k]);
            len[k] = tempo_codec_encode(&pool[k], &ctx, wire[k], TEMPO_MAX_DATAGRAM);
            bytes += len[k];
        }
        ctx.frame_hint = 500000 + 30 * POOL / 2; /* every start of the pool unwraps from here */
        double enc = throughput(pool, wire, len, &ctx, false, out);
        double dec = throughput(pool, wire, len, &ctx, true, out);
        printf("| %s | %.1f | %.2f M | %.2f M |\n", cases[c].name, (double)bytes / POOL, enc / 1e6,
               dec / 1e6);
    }
    printf("\n");
}

int main(void)
{
    tempo_msg *pool = malloc((POOL + 1) * sizeof *pool);
    if (pool == NULL)
        return 1;
    size_table(pool);
    throughput_table(pool, pool + POOL);
    free(pool);
    return 0;
}
