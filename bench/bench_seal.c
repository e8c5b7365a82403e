/* SPDX-License-Identifier: MIT */
/*
 * bench_seal.c — what sealing costs a datagram.
 *
 * For bodies of 5 (a p2p INPUT), 16, 64, 512 and 1176 bytes: nanoseconds
 * of CPU to seal (write the header, encrypt the body, append the tag) and
 * to open (read the header, check the tag, decrypt) through seal.c with
 * each cipher a link can agree (ChaCha20-Poly1305, and AES-256-GCM with
 * its keys expanded once by seal_keys_use where the CPU has AES), next to
 * the unsealed work the same datagram needs anyway (write the header; read
 * the header), and the bytes sealing adds. Medians
 * of repeated runs, each over a batch of datagrams with increasing
 * sequences, so every nonce is fresh as on a real link; the process's CPU
 * time (a busy machine's other processes do not count). Nothing allocates;
 * the table prints no pass or fail.
 *
 * A second table times the AEAD alone for the same sizes:
 * ChaCha20-Poly1305-IETF against AES-256-GCM with its key expanded once
 * (crypto_aead_aes256gcm_beforenm), where libsodium offers it (a CPU with
 * AES-NI and PCLMUL), alternating within each run. The 8-byte header is
 * the associated data of both.
 */
#include <string.h>

#include "bench_common.h"
#include "tempo/base.h"
#include "wire/packet.h"
#include "wire/seal.h"

#ifdef TEMPO_HAVE_SODIUM
#include <sodium.h>
#endif

#define RUNS 15
#define BATCH 256   /* datagrams sealed, then opened, per timing */
#define BATCHES 40  /* batches per run: 10240 datagrams */

static const uint8_t KEY_UP[SEAL_KEY_SIZE] = {7};
static const uint8_t KEY_DOWN[SEAL_KEY_SIZE] = {9};

typedef struct costs {
    double plain_write, plain_read, seal, open; /* ns per datagram */
} costs;

static uint8_t bufs[BATCH][TEMPO_MAX_DATAGRAM];

static void write_header(uint8_t *buf, uint64_t seq)
{
    tempo_packet_header h = {0x1234, (uint16_t)seq, 3, false, false};
    packet_write(&h, buf, PACKET_HEADER_SIZE);
}

static void fail(const char *what)
{
    fprintf(stderr, "bench_seal: %s failed\n", what);
    exit(1);
}

/* The costs for a body of body_size bytes. */
static costs measure(size_t body_size, const wire_keys *client, const wire_keys *server)
{
    double s_write[RUNS], s_read[RUNS], s_seal[RUNS], s_open[RUNS];
    size_t plain = PACKET_HEADER_SIZE + body_size, sealed = plain + SEAL_TAG_SIZE;
    uint64_t seq = 0, check = 0;
    memset(bufs, 0xA5, sizeof bufs);
    for (int r = 0; r < RUNS; r++) {
        double write = 0, read = 0, seal = 0, open = 0;
        for (int b = 0; b < BATCHES; b++) {
            /* unsealed: write the header, then read it back */
            double t0 = bench_cpu_now();
            for (int i = 0; i < BATCH; i++)
                write_header(bufs[i], seq + (uint64_t)i);
            double t1 = bench_cpu_now();
            for (int i = 0; i < BATCH; i++) {
                tempo_packet_view v;
                if (packet_read(bufs[i], plain, &v, NULL) != TEMPO_OK)
                    fail("packet_read");
                check += v.body_size;
            }
            double t2 = bench_cpu_now();
            /* sealed: write the header and seal; read the header and open */
            for (int i = 0; i < BATCH; i++, seq++) {
                write_header(bufs[i], seq);
                if (seal_datagram(client, seq, bufs[i], plain, TEMPO_MAX_DATAGRAM) != (int)sealed)
                    fail("seal");
            }
            double t3 = bench_cpu_now();
            seq -= BATCH;
            for (int i = 0; i < BATCH; i++, seq++) {
                tempo_packet_view v;
                if (packet_read(bufs[i], sealed, &v, NULL) != TEMPO_OK ||
                    seal_open(server, seq, bufs[i], sealed, NULL) != (int)plain)
                    fail("open");
                check += bufs[i][PACKET_HEADER_SIZE];
            }
            double t4 = bench_cpu_now();
            write += t1 - t0;
            read += t2 - t1;
            seal += t3 - t2;
            open += t4 - t3;
        }
        double per = 1e9 / (BATCH * BATCHES);
        s_write[r] = write * per;
        s_read[r] = read * per;
        s_seal[r] = seal * per;
        s_open[r] = open * per;
    }
    bench_keep(check);
    costs c = {bench_median(s_write, RUNS), bench_median(s_read, RUNS), bench_median(s_seal, RUNS),
               bench_median(s_open, RUNS)};
    return c;
}

#ifdef TEMPO_HAVE_SODIUM
/* ns per seal of a body of `size` bytes by each AEAD alone: *chacha for
 * ChaCha20-Poly1305-IETF, *aes for AES-256-GCM with the key expanded once;
 * the two alternate within each of the RUNS runs, medians of the process's
 * CPU time (a busy machine's other processes do not count). */
static void aead_ns(size_t size, const crypto_aead_aes256gcm_state *st, double *chacha,
                    double *aes)
{
    static uint8_t buf[TEMPO_MAX_DATAGRAM], tag[16];
    uint8_t nonce[SEAL_NONCE_SIZE] = {0}, ad[PACKET_HEADER_SIZE] = {1};
    double c[RUNS], a[RUNS];
    uint64_t seq = 0;
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_cpu_now();
        for (int i = 0; i < BATCH * BATCHES; i++, seq++) {
            seal_nonce(seq, SEAL_DIRECTION_LOW, nonce);
            crypto_aead_chacha20poly1305_ietf_encrypt_detached(buf, tag, NULL, buf, size, ad,
                                                               sizeof ad, NULL, nonce, KEY_UP);
        }
        double t1 = bench_cpu_now();
        for (int i = 0; i < BATCH * BATCHES; i++, seq++) {
            seal_nonce(seq, SEAL_DIRECTION_LOW, nonce);
            crypto_aead_aes256gcm_encrypt_detached_afternm(buf, tag, NULL, buf, size, ad,
                                                           sizeof ad, NULL, nonce, st);
        }
        double t2 = bench_cpu_now();
        c[r] = (t1 - t0) * 1e9 / (BATCH * BATCHES);
        a[r] = (t2 - t1) * 1e9 / (BATCH * BATCHES);
    }
    bench_keep(tag[0]);
    *chacha = bench_median(c, RUNS);
    *aes = bench_median(a, RUNS);
}

static void table_aead(void)
{
    printf("\n### The AEAD alone, CPU ns per seal (median of %d runs of %d)\n\n", RUNS,
           BATCH * BATCHES);
    if (!crypto_aead_aes256gcm_is_available()) {
        printf("AES-256-GCM: not offered by libsodium on this CPU (no AES-NI or PCLMUL)\n");
        return;
    }
    crypto_aead_aes256gcm_state st;
    crypto_aead_aes256gcm_beforenm(&st, KEY_UP);
    printf("| body bytes | ChaCha20-Poly1305-IETF | AES-256-GCM, key expanded once | ratio |\n");
    printf("|---:|---:|---:|---:|\n");
    static const size_t bodies[] = {5, 16, 64, 512, PACKET_MAX_SEALED_BODY};
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        double c, a;
        aead_ns(bodies[i], &st, &c, &a);
        printf("| %zu | %.0f | %.0f | %.2fx |\n", bodies[i], c, a, a / c);
    }
    sodium_memzero(&st, sizeof st);
}
#endif

int main(void)
{
    printf("## bench_seal (tempo %s)\n\n", tempo_version_string());
    bench_machine_line();
    if (!seal_available()) {
        printf("built without libsodium: nothing is sealed\n");
        return 0;
    }
    /* the two ends of a link under each cipher, as its handshake leaves them */
    static wire_keys client[2], server[2];
    int ciphers = seal_aes_available() ? 2 : 1;
    for (int k = 0; k < ciphers; k++) {
        uint8_t cipher = k == 0 ? SEAL_CIPHER_CHACHA20 : SEAL_CIPHER_AES256GCM;
        if (seal_keys_set(&client[k], KEY_UP, KEY_DOWN, SEAL_DIRECTION_LOW) != TEMPO_OK ||
            seal_keys_set(&server[k], KEY_DOWN, KEY_UP, SEAL_DIRECTION_HIGH) != TEMPO_OK ||
            seal_keys_use(&client[k], cipher) != TEMPO_OK ||
            seal_keys_use(&server[k], cipher) != TEMPO_OK)
            return 1;
    }
    printf("\nCPU per datagram, ns (median of %d runs of %d datagrams; unsealed = the 8-byte\n"
           "header written / read; seal = header written + body encrypted + tag; open = header\n"
           "read + tag checked + body decrypted; the two ciphers one after the other per size)\n\n",
           RUNS, BATCH * BATCHES);
    printf("| body bytes | datagram unsealed | datagram sealed | unsealed write | unsealed read "
           "| ChaCha20 seal | ChaCha20 open | AES-256-GCM seal | AES-256-GCM open | overhead |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    static const size_t bodies[] = {5, 16, 64, 512, PACKET_MAX_SEALED_BODY};
    (void)measure(bodies[2], &client[0], &server[0]); /* warm up: caches, clock speed */
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        costs c = measure(bodies[i], &client[0], &server[0]);
        size_t plain = PACKET_HEADER_SIZE + bodies[i];
        printf("| %zu | %zu | %zu | %.1f | %.1f | %.0f | %.0f |", bodies[i], plain,
               plain + SEAL_TAG_SIZE, c.plain_write, c.plain_read, c.seal, c.open);
        if (ciphers == 2) {
            costs a = measure(bodies[i], &client[1], &server[1]);
            printf(" %.0f | %.0f |", a.seal, a.open);
        } else {
            printf(" - | - |");
        }
        printf(" +%d B (%.1f%%) |\n", SEAL_TAG_SIZE, 100.0 * SEAL_TAG_SIZE / (double)plain);
    }
    if (ciphers == 1)
        printf("\nAES-256-GCM: not available on this CPU (libsodium needs AES-NI and PCLMUL).\n");
    printf("\nThe last row is the largest sealed datagram (%d bytes). Sealing adds the 16-byte tag\n"
           "and nothing else: the nonce comes from the sequence the header already carries.\n\n",
           TEMPO_MAX_DATAGRAM);
    for (int k = 0; k < 2; k++) {
        seal_keys_wipe(&client[k]);
        seal_keys_wipe(&server[k]);
    }
#ifdef TEMPO_HAVE_SODIUM
    table_aead();
#endif
    return 0;
}
