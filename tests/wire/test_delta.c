/* SPDX-License-Identifier: MIT */
/*
 * test_delta.c — the state delta coder: round trips over random states and
 * random sparse changes, exact sizes of unchanged and lightly changed
 * states, the worst case against delta_bound, the example of
 * docs/PROTOCOL.md and its vector lines byte for byte, both ways, every truncation and every single-byte
 * mutation of real encodings (buffers sized exactly, so ASan sees any
 * access outside), the sizes 0, 1 and 65536, and what the decoder refuses.
 *
 * `test_delta --write-corpus DIR` writes seed inputs for fuzz_delta to
 * DIR/delta instead of running the tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "doc_vectors.h"
#include "wire/delta.h"
#include "tempo/rng.h"

#ifdef _WIN32 /* Windows' mkdir takes no mode */
#include <direct.h>
#define mkdir(path, mode) ((void)(mode), _mkdir(path))
#endif

#define SEEDS 2000
#define MAX_N 4096

static void fill_random(tempo_rng *rng, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)tempo_rng_next(rng);
}

/* Change cur the way a tick changes a game state: a few bytes take new
 * values, or a few little-endian 32-bit fields move by small amounts. */
static void sparse_change(tempo_rng *rng, uint8_t *cur, size_t n)
{
    if (n == 0)
        return;
    uint32_t k = tempo_rng_range(rng, 1, 1 + (int32_t)(n / 32));
    for (uint32_t c = 0; c < k; c++) {
        size_t at = tempo_rng_below(rng, (uint32_t)n);
        if (tempo_rng_below(rng, 2) == 0 || at + 4 > n) {
            cur[at] = (uint8_t)tempo_rng_next(rng);
        } else {
            uint32_t v = (uint32_t)cur[at] | (uint32_t)cur[at + 1] << 8 | (uint32_t)cur[at + 2] << 16 |
                         (uint32_t)cur[at + 3] << 24;
            v += (uint32_t)tempo_rng_range(rng, -20, 20);
            for (int b = 0; b < 4; b++)
                cur[at + (size_t)b] = (uint8_t)(v >> (8 * b));
        }
    }
}

/* Encode into a buffer of exactly delta_bound(n) bytes, decode into one of
 * exactly n bytes, and compare. Returns the encoded size. */
static size_t round_trip(const uint8_t *base, const uint8_t *cur, size_t n)
{
    size_t cap = delta_bound(n);
    uint8_t *enc = malloc(cap);
    uint8_t *out = malloc(n ? n : 1);
    assert_non_null(enc);
    assert_non_null(out);
    size_t size = delta_encode(base, cur, n, enc, cap);
    assert_true(size > 0);
    assert_true(size <= cap);
    assert_true(delta_decode(base, n, enc, size, out));
    if (n > 0)
        assert_memory_equal(out, cur, n);
    free(out);
    free(enc);
    return size;
}

static void random_states_and_sparse_changes_round_trip(void **state)
{
    (void)state;
    static uint8_t base[MAX_N], cur[MAX_N];
    size_t sparse_total = 0, sparse_states = 0;
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, 77, seed);
        size_t n = tempo_rng_below(&rng, MAX_N + 1);
        fill_random(&rng, base, n);
        /* unrelated random states, against a base and against zeros */
        fill_random(&rng, cur, n);
        round_trip(base, cur, n);
        round_trip(NULL, cur, n);
        /* a state a tick later */
        memcpy(cur, base, n);
        sparse_change(&rng, cur, n);
        sparse_total += round_trip(base, cur, n);
        sparse_states += n;
    }
    /* sparse changes cost a small part of the state */
    assert_true(sparse_total * 4 < sparse_states);
}

static void a_base_of_null_is_a_base_of_zeros(void **state)
{
    (void)state;
    uint8_t zeros[300] = {0}, cur[300], a[400], b[400];
    tempo_rng rng;
    tempo_rng_seed(&rng, 5, 0);
    fill_random(&rng, cur, sizeof cur);
    memset(cur + 100, 0, 50);
    size_t na = delta_encode(NULL, cur, sizeof cur, a, sizeof a);
    size_t nb = delta_encode(zeros, cur, sizeof cur, b, sizeof b);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
}

static void an_unchanged_state_costs_the_varint_of_its_size(void **state)
{
    (void)state;
    static uint8_t s[65536];
    uint8_t out[8];
    tempo_rng rng;
    tempo_rng_seed(&rng, 9, 0);
    fill_random(&rng, s, sizeof s);
    const struct {
        size_t n, size;
        uint8_t bytes[3];
    } cases[] = {{1, 1, {0x01}}, {127, 1, {0x7f}}, {128, 2, {0x80, 0x01}},
                 {1000, 2, {0xe8, 0x07}}, {65536, 3, {0x80, 0x80, 0x04}}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t size = delta_encode(s, s, cases[c].n, out, sizeof out);
        assert_int_equal(size, cases[c].size);
        assert_memory_equal(out, cases[c].bytes, size);
    }
}

static void a_few_changed_fields_cost_their_bytes_and_two_per_field(void **state)
{
    (void)state;
    uint8_t base[1000], cur[1000], out[1100];
    tempo_rng rng;
    tempo_rng_seed(&rng, 11, 0);
    fill_random(&rng, base, sizeof base);
    memcpy(cur, base, sizeof cur);
    /* one byte in the middle: zero run 500 (2), literal 1 (1), 1 byte, zero run 499 (2) */
    cur[500] ^= 0x40;
    assert_int_equal(delta_encode(base, cur, sizeof cur, out, sizeof out), 6);
    /* a 32-bit position at 100 moves by +3 from 0x000000fe: XOR ff 01 00 00;
     * zero run 100 (1), literal 2 (1), 2 bytes, zero run 898 (2), then the
     * byte at 500 as before with zero runs 398 (2) and 499 (2) */
    cur[100] = 0xfe, cur[101] = 0, cur[102] = 0, cur[103] = 0;
    memcpy(base + 100, cur + 100, 4);
    cur[100] = 0x01, cur[101] = 0x01; /* 0x00000101 */
    assert_int_equal(delta_encode(base, cur, sizeof cur, out, sizeof out), 1 + 1 + 2 + 2 + 1 + 1 + 2);
    /* gaps of one or two equal bytes stay inside the literal run */
    memcpy(cur, base, sizeof cur);
    cur[10] ^= 1, cur[12] ^= 1, cur[15] ^= 1;
    static const uint8_t merged[] = {0x0a, 0x06, 1, 0, 1, 0, 0, 1, 0xd8, 0x07};
    assert_int_equal(delta_encode(base, cur, sizeof cur, out, sizeof out), sizeof merged);
    assert_memory_equal(out, merged, sizeof merged);
    /* a gap of three splits it */
    cur[15] ^= 1, cur[16] ^= 1;
    assert_int_equal(delta_encode(base, cur, sizeof cur, out, sizeof out), 1 + 1 + 3 + 1 + 1 + 1 + 2);
}

/* The example of docs/PROTOCOL.md ("State deltas"). */
static void the_protocol_example_is_what_the_encoder_writes(void **state)
{
    (void)state;
    uint8_t base[64], cur[64], out[80], back[64];
    for (int i = 0; i < 64; i++)
        base[i] = (uint8_t)i;
    memcpy(cur, base, sizeof cur);
    cur[10] = 0x1a, cur[11] = 0x0a, cur[40] = 0x29;
    static const uint8_t expect[] = {0x0a, 0x02, 0x10, 0x01, 0x1c, 0x01, 0x01, 0x17};
    size_t size = delta_encode(base, cur, sizeof cur, out, sizeof out);
    assert_int_equal(size, sizeof expect);
    assert_memory_equal(out, expect, sizeof expect);
    assert_true(delta_decode(base, sizeof base, expect, sizeof expect, back));
    assert_memory_equal(back, cur, sizeof cur);
}

/* The "delta NAME HEX" lines of docs/PROTOCOL.md, encoded and decoded. */
static void the_vectors_in_protocol_md_are_what_the_coder_writes_and_reads(void **state)
{
    (void)state;
    FILE *f = fopen(TEMPO_SOURCE_DIR "/docs/PROTOCOL.md", "r");
    assert_non_null(f);
    char line[512], name[64];
    const char *hex;
    int seen = 0;
    static uint8_t base[1000], cur[1000], back[1000];
    while ((hex = doc_next(f, "delta", line, sizeof line, name)) != NULL) {
        uint8_t want[64], got[64];
        int len = from_hex(hex, want, sizeof want);
        assert_true(len > 0);
        size_t n;
        memset(base, 0, sizeof base);
        if (strcmp(name, "example") == 0) {
            n = 64;
            for (size_t i = 0; i < n; i++)
                base[i] = (uint8_t)i;
            memcpy(cur, base, n);
            cur[10] = 0x1a, cur[11] = 0x0a, cur[40] = 0x29;
        } else if (strcmp(name, "unchanged_1000") == 0) {
            n = 1000;
            for (size_t i = 0; i < n; i++)
                base[i] = (uint8_t)(i * 13);
            memcpy(cur, base, n);
        } else if (strcmp(name, "changed_1") == 0) {
            n = 1;
            base[0] = 0x42, cur[0] = 0x43;
        } else if (strcmp(name, "empty") == 0) {
            n = 0;
        } else {
            fail_msg("unknown delta vector %s", name);
            return;
        }
        assert_int_equal(delta_encode(base, cur, n, got, sizeof got), (size_t)len);
        assert_memory_equal(got, want, (size_t)len);
        assert_true(delta_decode(base, n, want, (size_t)len, back));
        if (n > 0)
            assert_memory_equal(back, cur, n);
        seen++;
    }
    fclose(f);
    assert_int_equal(seen, 4);
}

static void the_worst_case_stays_within_delta_bound(void **state)
{
    (void)state;
    static uint8_t base[MAX_N], cur[MAX_N];
    memset(base, 0, sizeof base);
    /* every byte changed: exactly the bound */
    memset(cur, 0xff, sizeof cur);
    assert_int_equal(round_trip(base, cur, 1000), delta_bound(1000));
    assert_int_equal(delta_bound(1000), 1003);
    /* patterns that make the most runs: changed/equal periods of 1..5 bytes */
    for (size_t on = 1; on <= 5; on++) {
        for (size_t off = 1; off <= 5; off++) {
            for (size_t i = 0; i < MAX_N; i++)
                cur[i] = (uint8_t)(i % (on + off) < on ? 0x5a : 0);
            for (size_t n = 0; n <= 40; n++)
                assert_true(round_trip(base, cur, n) <= delta_bound(n));
            assert_true(round_trip(base, cur, MAX_N) <= delta_bound(MAX_N));
        }
    }
    /* random states with random density */
    for (uint64_t seed = 0; seed < 300; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, 13, seed);
        size_t n = tempo_rng_below(&rng, 600);
        uint32_t density = tempo_rng_range(&rng, 1, 100);
        for (size_t i = 0; i < n; i++)
            cur[i] = tempo_rng_below(&rng, 100) < density ? (uint8_t)tempo_rng_range(&rng, 1, 255) : 0;
        assert_true(round_trip(base, cur, n) <= delta_bound(n));
    }
}

static void a_small_buffer_gives_zero_and_the_exact_one_fits(void **state)
{
    (void)state;
    uint8_t base[200], cur[200], out[300], back[200];
    tempo_rng rng;
    tempo_rng_seed(&rng, 17, 0);
    fill_random(&rng, base, sizeof base);
    memcpy(cur, base, sizeof cur);
    sparse_change(&rng, cur, sizeof cur);
    size_t need = delta_encode(base, cur, sizeof cur, out, sizeof out);
    assert_true(need > 0);
    for (size_t cap = 0; cap < need; cap++) {
        memset(out, 0xcc, sizeof out);
        assert_int_equal(delta_encode(base, cur, sizeof cur, out, cap), 0);
        for (size_t i = cap; i < sizeof out; i++)
            assert_int_equal(out[i], 0xcc); /* nothing written past cap */
    }
    assert_int_equal(delta_encode(base, cur, sizeof cur, out, need), need);
    assert_true(delta_decode(base, sizeof base, out, need, back));
    assert_memory_equal(back, cur, sizeof cur);
    /* the all-literal fallback also fits exactly */
    fill_random(&rng, cur, sizeof cur);
    assert_int_equal(delta_encode(base, cur, sizeof cur, out, delta_bound(200) - 1), 0);
    assert_int_equal(delta_encode(base, cur, sizeof cur, out, delta_bound(200)), delta_bound(200));
}

/* Encodings to attack: sparse, dense, unchanged, against zeros. */
static size_t make_encoding(int which, uint8_t *base, uint8_t *cur, size_t *n, uint8_t *enc, size_t cap)
{
    tempo_rng rng;
    tempo_rng_seed(&rng, 23, (uint64_t)which);
    *n = which == 3 ? 1 : 300;
    fill_random(&rng, base, *n);
    memcpy(cur, base, *n);
    if (which == 0)
        sparse_change(&rng, cur, *n);
    else if (which == 1)
        fill_random(&rng, cur, *n);
    else if (which == 3)
        cur[0] ^= 0x80;
    return delta_encode(which == 4 ? NULL : base, cur, *n, enc, cap);
}

static void every_truncation_of_an_encoding_is_refused(void **state)
{
    (void)state;
    uint8_t base[300], cur[300], enc[400];
    for (int which = 0; which < 5; which++) {
        size_t n, size = make_encoding(which, base, cur, &n, enc, sizeof enc);
        assert_true(size > 0);
        for (size_t cut = 0; cut < size; cut++) {
            uint8_t *data = malloc(cut ? cut : 1);
            uint8_t *out = malloc(n);
            assert_non_null(data);
            assert_non_null(out);
            memcpy(data, enc, cut);
            assert_false(delta_decode(which == 4 ? NULL : base, n, data, cut, out));
            free(out);
            free(data);
        }
    }
}

static void every_single_byte_mutation_decodes_to_n_bytes_or_is_refused(void **state)
{
    (void)state;
    uint8_t base[300], cur[300], enc[400];
    for (int which = 0; which < 5; which++) {
        size_t n, size = make_encoding(which, base, cur, &n, enc, sizeof enc);
        const uint8_t *b = which == 4 ? NULL : base;
        /* mutate at most the first and last 40 bytes of the long ones, every value */
        for (size_t at = 0; at < size; at++) {
            if (at >= 40 && at + 40 < size)
                continue;
            for (int v = 0; v < 256; v++) {
                if (v == enc[at])
                    continue;
                uint8_t *data = malloc(size);
                uint8_t *out = malloc(n);
                assert_non_null(data);
                assert_non_null(out);
                memcpy(data, enc, size);
                data[at] = (uint8_t)v;
                if (delta_decode(b, n, data, size, out)) {
                    /* what decoded re-encodes to something that decodes the same */
                    uint8_t again[400], back[300];
                    size_t k = delta_encode(b, out, n, again, sizeof again);
                    assert_true(k > 0);
                    assert_true(delta_decode(b, n, again, k, back));
                    assert_memory_equal(back, out, n);
                }
                free(out);
                free(data);
            }
        }
    }
    /* a mutated literal byte always decodes, to a state differing in that one byte */
    static const uint8_t ex[] = {0x0a, 0x02, 0x10, 0x01, 0x1c, 0x01, 0x01, 0x17};
    uint8_t b64[64], o1[64], o2[64], m[sizeof ex];
    for (int i = 0; i < 64; i++)
        b64[i] = (uint8_t)i;
    assert_true(delta_decode(b64, 64, ex, sizeof ex, o1));
    memcpy(m, ex, sizeof ex);
    m[6] ^= 0x33; /* the literal at state byte 40 */
    assert_true(delta_decode(b64, 64, m, sizeof m, o2));
    int differing = 0;
    for (int i = 0; i < 64; i++)
        differing += o1[i] != o2[i];
    assert_int_equal(differing, 1);
    assert_int_equal(o1[40] ^ o2[40], 0x33);
}

static void sizes_zero_one_and_65536(void **state)
{
    (void)state;
    uint8_t out[8], one = 0;
    /* n = 0: one byte, 00; nothing else is a delta of 0 bytes */
    assert_int_equal(delta_encode(NULL, NULL, 0, out, sizeof out), 1);
    assert_int_equal(out[0], 0x00);
    assert_int_equal(delta_bound(0), 2);
    static const uint8_t z[] = {0x00, 0x00}, one_run[] = {0x01};
    assert_true(delta_decode(NULL, 0, z, 1, NULL));
    assert_false(delta_decode(NULL, 0, z, 0, NULL));
    assert_false(delta_decode(NULL, 0, z, 2, NULL));
    assert_false(delta_decode(NULL, 0, one_run, 1, NULL));
    /* n = 1: unchanged 01; changed 00 01 x */
    uint8_t b1 = 0x42, c1 = 0x43;
    assert_int_equal(delta_encode(&b1, &b1, 1, out, sizeof out), 1);
    assert_int_equal(out[0], 0x01);
    assert_int_equal(delta_encode(&b1, &c1, 1, out, sizeof out), 3);
    static const uint8_t e1[] = {0x00, 0x01, 0x01};
    assert_memory_equal(out, e1, 3);
    assert_true(delta_decode(&b1, 1, e1, 3, &one));
    assert_int_equal(one, 0x43);
    /* n = 65536: random states, sparse changes, all changed */
    static uint8_t base[65536], cur[65536];
    tempo_rng rng;
    tempo_rng_seed(&rng, 29, 0);
    fill_random(&rng, base, sizeof base);
    memcpy(cur, base, sizeof cur);
    sparse_change(&rng, cur, sizeof cur);
    assert_true(round_trip(base, cur, sizeof cur) < 65536 / 4);
    fill_random(&rng, cur, sizeof cur);
    assert_int_equal(round_trip(base, cur, sizeof cur), delta_bound(65536));
    assert_int_equal(delta_bound(65536), 65540);
    assert_true(round_trip(NULL, cur, sizeof cur) <= delta_bound(65536));
}

static void malformed_deltas_are_refused(void **state)
{
    (void)state;
    uint8_t base[16] = {0}, out[16];
    static const struct {
        const char *what;
        size_t n, size;
        uint8_t bytes[8];
    } bad[] = {
        {"empty", 4, 0, {0}},
        {"zero run past the end", 4, 1, {0x05}},
        {"literal run past the end", 4, 6, {0x00, 0x05, 1, 2, 3, 4}},
        {"literal bytes missing", 4, 4, {0x00, 0x04, 1, 2}},
        {"empty literal run", 4, 3, {0x02, 0x00, 0x02}},
        {"empty zero run after a literal", 4, 7, {0x00, 0x01, 7, 0x00, 0x01, 8, 0x02}},
        {"non-canonical varint", 4, 2, {0x84, 0x00}},
        {"unterminated varint", 4, 1, {0x84}},
        {"varint above 32 bits", 4, 5, {0xff, 0xff, 0xff, 0xff, 0x7f}},
        {"bytes after the end", 4, 2, {0x04, 0x00}},
        {"runs short of n", 4, 3, {0x01, 0x01, 0x09}},
    };
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        uint8_t *data = malloc(bad[c].size ? bad[c].size : 1);
        assert_non_null(data);
        memcpy(data, bad[c].bytes, bad[c].size);
        bool ok = delta_decode(base, bad[c].n, data, bad[c].size, out);
        free(data);
        if (ok)
            fail_msg("accepted: %s", bad[c].what);
    }
    /* the same shapes, well formed, are accepted */
    static const uint8_t good[] = {0x00, 0x01, 7, 0x03};
    assert_true(delta_decode(base, 4, good, sizeof good, out));
    assert_int_equal(out[0], 7);
    /* states above DELTA_MAX_STATE are refused both ways */
    assert_int_equal(delta_encode(NULL, base, DELTA_MAX_STATE + 1, out, sizeof out), 0);
    assert_false(delta_decode(NULL, DELTA_MAX_STATE + 1, good, sizeof good, out));
}

/* Seeds for fuzz_delta: 2 bytes of n (little endian), then a delta against
 * the fuzz target's base (byte i = i * 7 + 1). */
static int write_corpus(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/delta", dir);
    mkdir(path, 0755);
    static uint8_t base[4096], cur[4096], rec[2 + 4096 + 8];
    for (int s = 0; s < 16; s++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, 31, (uint64_t)s);
        size_t n = s == 0 ? 0 : tempo_rng_below(&rng, 4096);
        for (size_t i = 0; i < n; i++)
            base[i] = (uint8_t)(i * 7 + 1);
        memcpy(cur, base, n);
        if (s % 2)
            sparse_change(&rng, cur, n);
        else if (s % 4 == 2)
            fill_random(&rng, cur, n / 2);
        rec[0] = (uint8_t)n, rec[1] = (uint8_t)(n >> 8);
        size_t size = delta_encode(base, cur, n, rec + 2, sizeof rec - 2);
        snprintf(path, sizeof path, "%s/delta/seed-%02d", dir, s);
        FILE *f = fopen(path, "wb");
        if (f == NULL || fwrite(rec, 1, size + 2, f) != size + 2) {
            if (f)
                fclose(f);
            return 1;
        }
        fclose(f);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0)
        return write_corpus(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_states_and_sparse_changes_round_trip),
        cmocka_unit_test(a_base_of_null_is_a_base_of_zeros),
        cmocka_unit_test(an_unchanged_state_costs_the_varint_of_its_size),
        cmocka_unit_test(a_few_changed_fields_cost_their_bytes_and_two_per_field),
        cmocka_unit_test(the_protocol_example_is_what_the_encoder_writes),
        cmocka_unit_test(the_vectors_in_protocol_md_are_what_the_coder_writes_and_reads),
        cmocka_unit_test(the_worst_case_stays_within_delta_bound),
        cmocka_unit_test(a_small_buffer_gives_zero_and_the_exact_one_fits),
        cmocka_unit_test(every_truncation_of_an_encoding_is_refused),
        cmocka_unit_test(every_single_byte_mutation_decodes_to_n_bytes_or_is_refused),
        cmocka_unit_test(sizes_zero_one_and_65536),
        cmocka_unit_test(malformed_deltas_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
