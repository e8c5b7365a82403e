/* SPDX-License-Identifier: MIT */
/*
 * test_bitpack.c — the bit writer and reader: random round trips of every
 * field kind, truncation at every length, poisoning, out-of-range values,
 * canonical varints, and never touching a byte outside the buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wire/bitpack.h"
#include "tempo/rng.h"

#define SEEDS 1000
#define MAX_FIELDS 40

enum { K_BITS, K_RANGED, K_UVARINT, K_SVARINT, K_BYTES, K_KINDS };

/* One field of a random stream: its kind, parameters and value. */
typedef struct field {
    int kind;
    int n;            /* bits: width; varints: group; bytes: count */
    int32_t min, max; /* ranged */
    uint32_t u;       /* bits, uvarint */
    int32_t s;        /* ranged, svarint */
    uint8_t bytes[8];
} field;

/* Values skewed towards the edges: 0, small, all ones, random. */
static uint32_t random_value(tempo_rng *rng, int bits)
{
    uint32_t mask = bits >= 32 ? UINT32_MAX : (1u << bits) - 1u;
    switch (tempo_rng_below(rng, 4)) {
    case 0: return 0;
    case 1: return tempo_rng_below(rng, 16) & mask;
    case 2: return mask;
    default: return tempo_rng_next(rng) & mask;
    }
}

static void random_field(tempo_rng *rng, field *f)
{
    memset(f, 0, sizeof *f);
    f->kind = (int)tempo_rng_below(rng, K_KINDS);
    switch (f->kind) {
    case K_BITS:
        f->n = tempo_rng_range(rng, 1, 32);
        f->u = random_value(rng, f->n);
        break;
    case K_RANGED: {
        int64_t a = (int32_t)tempo_rng_next(rng) >> tempo_rng_below(rng, 32);
        int64_t b = a + (int64_t)(tempo_rng_next(rng) >> tempo_rng_below(rng, 32));
        f->min = (int32_t)a;
        f->max = b > INT32_MAX ? INT32_MAX : (int32_t)b;
        f->s = (int32_t)(f->min + (int64_t)tempo_rng_below(rng, 4) * (f->max - (int64_t)f->min) / 3);
        break;
    }
    case K_UVARINT:
        f->n = tempo_rng_range(rng, 1, TEMPO_VARINT_MAX_GROUP);
        f->u = random_value(rng, tempo_rng_range(rng, 1, 32));
        break;
    case K_SVARINT:
        f->n = tempo_rng_range(rng, 1, TEMPO_VARINT_MAX_GROUP);
        f->s = (int32_t)random_value(rng, 32) >> tempo_rng_below(rng, 32);
        break;
    default:
        f->n = (int)tempo_rng_below(rng, sizeof f->bytes + 1);
        for (size_t i = 0; i < (size_t)f->n && i < sizeof f->bytes; i++)
            f->bytes[i] = (uint8_t)tempo_rng_next(rng);
        break;
    }
}

/* The exact size a field must take (the spec of each kind, in bitpack.h). */
static size_t field_bits(const field *f)
{
    switch (f->kind) {
    case K_BITS: return (size_t)f->n;
    case K_RANGED: return (size_t)tempo_bitpack_bits_required((uint32_t)((int64_t)f->max - f->min));
    case K_UVARINT: return (size_t)tempo_bitpack_uvarint_bits(f->u, f->n);
    case K_SVARINT: return (size_t)tempo_bitpack_uvarint_bits(tempo_bitpack_zigzag(f->s), f->n);
    default: return (size_t)f->n * 8;
    }
}

static bool write_field(tempo_bitwriter *w, const field *f)
{
    switch (f->kind) {
    case K_BITS: return tempo_bitwriter_bits(w, f->u, f->n);
    case K_RANGED: return tempo_bitwriter_ranged(w, f->s, f->min, f->max);
    case K_UVARINT: return tempo_bitwriter_uvarint(w, f->u, f->n);
    case K_SVARINT: return tempo_bitwriter_svarint(w, f->s, f->n);
    default: return tempo_bitwriter_bytes(w, f->bytes, (size_t)f->n);
    }
}

/* Read the field f describes; true if it read and equals f. */
static bool read_field(tempo_bitreader *r, const field *f, bool *ok)
{
    uint32_t u = 1;
    int32_t s = 1;
    uint8_t bytes[sizeof f->bytes];
    switch (f->kind) {
    case K_BITS: *ok = tempo_bitreader_bits(r, f->n, &u); return *ok && u == f->u;
    case K_RANGED: *ok = tempo_bitreader_ranged(r, f->min, f->max, &s); return *ok && s == f->s;
    case K_UVARINT: *ok = tempo_bitreader_uvarint(r, f->n, &u); return *ok && u == f->u;
    case K_SVARINT: *ok = tempo_bitreader_svarint(r, f->n, &s); return *ok && s == f->s;
    default:
        *ok = tempo_bitreader_bytes(r, bytes, (size_t)f->n);
        return *ok && memcmp(bytes, f->bytes, (size_t)f->n) == 0;
    }
}

/* A random stream of fields written into buf; returns the field count. */
static int random_stream(tempo_rng *rng, field *fields, uint8_t *buf, size_t cap, size_t *bits)
{
    int n = tempo_rng_range(rng, 1, MAX_FIELDS);
    tempo_bitwriter w;
    tempo_bitwriter_init(&w, buf, cap);
    *bits = 0;
    for (int i = 0; i < n; i++) {
        random_field(rng, &fields[i]);
        assert_true(write_field(&w, &fields[i]));
        *bits += field_bits(&fields[i]);
        assert_int_equal(tempo_bitwriter_bits_written(&w), *bits);
    }
    assert_false(w.failed);
    return n;
}

static void test_every_kind_round_trips_and_measures_over_many_seeds(void **state)
{
    (void)state;
    field fields[MAX_FIELDS];
    uint8_t buf[MAX_FIELDS * 8 + 8];
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 1);
        size_t bits;
        int n = random_stream(&rng, fields, buf, sizeof buf, &bits);
        size_t bytes = (bits + 7) / 8;
        tempo_bitreader r;
        tempo_bitreader_init(&r, buf, bytes);
        for (int i = 0; i < n; i++) {
            bool ok;
            assert_true(read_field(&r, &fields[i], &ok));
        }
        assert_int_equal(tempo_bitreader_bits_read(&r), bits);
        assert_int_equal(r.error, TEMPO_BITREAD_OK);
        assert_true(tempo_bitreader_at_end(&r)); /* padding written as zeros */
        /* a measuring writer (no buffer) counts the same bits */
        tempo_bitwriter m;
        tempo_bitwriter_init(&m, NULL, bytes);
        for (int i = 0; i < n; i++)
            assert_true(write_field(&m, &fields[i]));
        assert_int_equal(tempo_bitwriter_bits_written(&m), bits);
    }
}

/* Every prefix of a stream: the fields that fit read back, the first that
 * does not fails with END, and every later one fails too. The prefix is a
 * heap block of exactly that size, so ASan sees any read past it. */
static void test_truncated_stream_fails_at_every_length(void **state)
{
    (void)state;
    field fields[MAX_FIELDS];
    uint8_t buf[MAX_FIELDS * 8 + 8];
    for (uint64_t seed = 0; seed < SEEDS / 4; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 3);
        size_t bits;
        int n = random_stream(&rng, fields, buf, sizeof buf, &bits);
        for (size_t len = 0; len < (bits + 7) / 8; len++) {
            uint8_t *copy = malloc(len ? len : 1);
            assert_non_null(copy);
            memcpy(copy, buf, len);
            tempo_bitreader r;
            tempo_bitreader_init(&r, copy, len);
            size_t end = 0;
            for (int i = 0; i < n; i++) {
                end += field_bits(&fields[i]);
                bool ok, same = read_field(&r, &fields[i], &ok);
                assert_true(end <= len * 8 ? same : !ok);
            }
            assert_true(tempo_bitreader_bits_read(&r) <= len * 8);
            assert_int_equal(r.error, TEMPO_BITREAD_END);
            free(copy);
        }
    }
}

static void test_poisoned_reader_fails_every_later_read(void **state)
{
    (void)state;
    const uint8_t data[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
    tempo_bitreader r;
    tempo_bitreader_init(&r, data, sizeof data);
    int32_t s;
    uint32_t u;
    uint8_t b[2] = {9, 9};
    assert_false(tempo_bitreader_ranged(&r, 0, 5, &s)); /* 3 bits = 7 > 5 */
    assert_int_equal(r.error, TEMPO_BITREAD_RANGE);
    assert_int_equal(s, 0);
    size_t pos = tempo_bitreader_bits_read(&r);
    assert_int_equal(pos, 0); /* a failed read does not move */
    assert_false(tempo_bitreader_bits(&r, 1, &u));
    assert_int_equal(u, 0);
    assert_false(tempo_bitreader_uvarint(&r, 4, &u));
    assert_false(tempo_bitreader_svarint(&r, 4, &s));
    assert_false(tempo_bitreader_bytes(&r, b, 2));
    assert_int_equal(b[0], 0);
    assert_int_equal(tempo_bitreader_bits_read(&r), pos);
    assert_int_equal(r.error, TEMPO_BITREAD_RANGE); /* the first error stays */
}

static void test_ranged_read_above_max_is_out_of_range(void **state)
{
    (void)state;
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 4);
        int32_t min = tempo_rng_range(&rng, -100000, 100000);
        uint32_t range = tempo_rng_range(&rng, 1, 1 << 20);
        int bits = tempo_bitpack_bits_required(range);
        if (range == (1u << bits) - 1u)
            continue; /* every raw value is in range */
        uint32_t raw = tempo_rng_range(&rng, (int32_t)range + 1, (int32_t)((1u << bits) - 1u));
        uint8_t buf[4];
        tempo_bitwriter w;
        tempo_bitwriter_init(&w, buf, sizeof buf);
        assert_true(tempo_bitwriter_bits(&w, raw, bits));
        tempo_bitreader r;
        tempo_bitreader_init(&r, buf, sizeof buf);
        int32_t v;
        assert_false(tempo_bitreader_ranged(&r, min, (int32_t)(min + (int64_t)range), &v));
        assert_int_equal(r.error, TEMPO_BITREAD_RANGE);
    }
}

static void test_writer_rejects_values_that_do_not_fit(void **state)
{
    (void)state;
    uint8_t buf[16];
    tempo_bitwriter w;
    struct {
        int which;
        bool ok;
    } cases[] = {{0, false}, {1, false}, {2, false}, {3, false}, {4, false}, {5, true}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tempo_bitwriter_init(&w, buf, sizeof buf);
        bool ok;
        switch (cases[i].which) {
        case 0: ok = tempo_bitwriter_bits(&w, 8, 3); break;            /* too wide */
        case 1: ok = tempo_bitwriter_bits(&w, 0, 33); break;           /* bad width */
        case 2: ok = tempo_bitwriter_ranged(&w, 11, 0, 10); break;     /* above max */
        case 3: ok = tempo_bitwriter_ranged(&w, 0, 5, 4); break;       /* min > max */
        case 4: ok = tempo_bitwriter_uvarint(&w, 1, 17); break;        /* bad group */
        default: ok = tempo_bitwriter_ranged(&w, -3, -3, -3); break;  /* zero bits */
        }
        assert_int_equal(ok, cases[i].ok);
        assert_int_equal(w.failed, !cases[i].ok);
        assert_int_equal(tempo_bitwriter_bits(&w, 1, 1), cases[i].ok); /* poison sticks */
    }
}

/* Writing past capacity poisons and never touches the guard bytes after it. */
static void test_full_writer_poisons_and_stays_in_bounds(void **state)
{
    (void)state;
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 5);
        size_t cap = tempo_rng_below(&rng, 24);
        uint8_t buf[24 + 8];
        memset(buf, 0xA5, sizeof buf);
        tempo_bitwriter w;
        tempo_bitwriter_init(&w, buf, cap);
        size_t bits = 0;
        for (int i = 0; i < 200 && !w.failed; i++) {
            field f;
            random_field(&rng, &f);
            if (write_field(&w, &f))
                bits += field_bits(&f);
            else
                assert_true(bits + field_bits(&f) > cap * 8);
        }
        assert_true(w.failed);
        assert_false(tempo_bitwriter_bits(&w, 0, 1));
        assert_int_equal(tempo_bitwriter_bits_written(&w), bits);
        for (size_t i = cap; i < sizeof buf; i++)
            assert_int_equal(buf[i], 0xA5);
    }
}

/* Hand-written streams: group 4, each group followed by its "more" bit. */
static void test_varint_rejects_non_canonical_and_overlong(void **state)
{
    (void)state;
    struct {
        uint64_t stream; /* bits, low first */
        int nbits;
        int group;
        int error;
        uint32_t value;
    } cases[] = {
        {0x05, 5, 4, TEMPO_BITREAD_OK, 5},               /* 0101 0 */
        {0x15 | (0x00u << 5), 10, 4, TEMPO_BITREAD_RANGE, 0}, /* 0101 1, 0000 0: zero last group */
        {0x1F | (0x01u << 5), 10, 4, TEMPO_BITREAD_OK, 31}, /* 1111 1, 0001 0 */
        /* eight groups of 1111 with "more", then one more group: past bit 31 */
        {0xFFFFFFFFFFull, 40, 4, TEMPO_BITREAD_RANGE, 0},
        /* group 16: 0xFFFF and "more", then a group that again says "more" */
        {0x1FFFFull | (0x3FFFFull << 17), 34, 16, TEMPO_BITREAD_RANGE, 0},
        {0x1FFFFull | (0xFFFFull << 17), 34, 16, TEMPO_BITREAD_OK, UINT32_MAX},
        {0x1, 2, 4, TEMPO_BITREAD_END, 0}, /* ends inside the group */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t buf[8];
        for (int b = 0; b < 8; b++)
            buf[b] = (uint8_t)(cases[i].stream >> (8 * b));
        tempo_bitreader r;
        tempo_bitreader_init(&r, buf, (size_t)(cases[i].nbits + 7) / 8);
        r.size_bits = (size_t)cases[i].nbits; /* exact bit length for the END case */
        uint32_t v;
        bool ok = tempo_bitreader_uvarint(&r, cases[i].group, &v);
        assert_int_equal(r.error, cases[i].error);
        assert_int_equal(ok, cases[i].error == TEMPO_BITREAD_OK);
        assert_int_equal(v, cases[i].value);
    }
}

static void test_small_varints_are_cheap(void **state)
{
    (void)state;
    assert_int_equal(tempo_bitpack_uvarint_bits(0, 4), 5);
    assert_int_equal(tempo_bitpack_uvarint_bits(15, 4), 5);
    assert_int_equal(tempo_bitpack_uvarint_bits(16, 4), 10);
    assert_int_equal(tempo_bitpack_uvarint_bits(UINT32_MAX, 4), 40);
    assert_int_equal(tempo_bitpack_uvarint_bits(3, 2), 3);
    assert_int_equal(tempo_bitpack_uvarint_bits(UINT32_MAX, 16), 34);
    /* zigzag keeps small magnitudes small, either sign */
    int32_t v[] = {0, -1, 1, -2, 2, INT32_MIN, INT32_MAX};
    uint32_t z[] = {0, 1, 2, 3, 4, UINT32_MAX, UINT32_MAX - 1};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        assert_int_equal(tempo_bitpack_zigzag(v[i]), z[i]);
        assert_int_equal(tempo_bitpack_unzigzag(z[i]), v[i]);
    }
    assert_int_equal(tempo_bitpack_bits_required(0), 0);
    assert_int_equal(tempo_bitpack_bits_required(1), 1);
    assert_int_equal(tempo_bitpack_bits_required(255), 8);
    assert_int_equal(tempo_bitpack_bits_required(UINT32_MAX), 32);
}

static void test_fields_are_little_endian_lsb_first(void **state)
{
    (void)state;
    uint8_t buf[6];
    memset(buf, 0xFF, sizeof buf); /* stale bytes must not leak into the output */
    tempo_bitwriter w;
    tempo_bitwriter_init(&w, buf, sizeof buf);
    assert_true(tempo_bitwriter_bits(&w, 0x12345678u, 32));
    assert_true(tempo_bitwriter_bits(&w, 1, 1));
    assert_true(tempo_bitwriter_bits(&w, 2, 2));
    const uint8_t want[5] = {0x78, 0x56, 0x34, 0x12, 0x05};
    assert_memory_equal(buf, want, sizeof want);
    assert_int_equal(tempo_bitwriter_bytes_written(&w), 5);
    assert_int_equal(buf[5], 0xFF); /* not reached, not touched */
}

static void test_at_end_needs_short_zero_padding(void **state)
{
    (void)state;
    const uint8_t data[2] = {0x01, 0x00};
    tempo_bitreader r;
    uint32_t v;
    tempo_bitreader_init(&r, data, 2);
    assert_false(tempo_bitreader_at_end(&r)); /* 16 bits left */
    assert_true(tempo_bitreader_bits(&r, 4, &v));
    assert_false(tempo_bitreader_at_end(&r)); /* 12 left */
    assert_true(tempo_bitreader_bits(&r, 8, &v));
    assert_true(tempo_bitreader_at_end(&r)); /* 4 zero bits */
    const uint8_t dirty[1] = {0x81};
    tempo_bitreader_init(&r, dirty, 1);
    assert_true(tempo_bitreader_bits(&r, 1, &v));
    assert_false(tempo_bitreader_at_end(&r)); /* padding bit 7 set */
    tempo_bitreader_init(&r, NULL, 0);
    assert_true(tempo_bitreader_at_end(&r));
    assert_false(tempo_bitreader_bits(&r, 1, &v));
    assert_int_equal(r.error, TEMPO_BITREAD_END);
}

/* Byte runs at every bit offset, against a reference built bit by bit. */
static void test_byte_runs_at_any_offset(void **state)
{
    (void)state;
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 6);
        int lead = (int)tempo_rng_below(&rng, 8);
        uint8_t run[16], buf[24], back[16];
        size_t n = tempo_rng_below(&rng, sizeof run + 1);
        for (size_t i = 0; i < n; i++)
            run[i] = (uint8_t)tempo_rng_next(&rng);
        tempo_bitwriter w, ref;
        uint8_t refbuf[24];
        tempo_bitwriter_init(&w, buf, sizeof buf);
        tempo_bitwriter_init(&ref, refbuf, sizeof refbuf);
        if (lead > 0) {
            assert_true(tempo_bitwriter_bits(&w, 1, lead));
            assert_true(tempo_bitwriter_bits(&ref, 1, lead));
        }
        assert_true(tempo_bitwriter_bytes(&w, n ? run : NULL, n));
        for (size_t i = 0; i < n; i++)
            for (int b = 0; b < 8; b++)
                assert_true(tempo_bitwriter_bits(&ref, (run[i] >> b) & 1u, 1));
        size_t len = tempo_bitwriter_bytes_written(&w);
        assert_int_equal(len, tempo_bitwriter_bytes_written(&ref));
        assert_memory_equal(buf, refbuf, len);
        tempo_bitreader r;
        uint32_t v;
        tempo_bitreader_init(&r, buf, len);
        if (lead > 0)
            assert_true(tempo_bitreader_bits(&r, lead, &v));
        assert_true(tempo_bitreader_bytes(&r, n ? back : NULL, n));
        assert_memory_equal(back, run, n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_round_trips_and_measures_over_many_seeds),
        cmocka_unit_test(test_truncated_stream_fails_at_every_length),
        cmocka_unit_test(test_poisoned_reader_fails_every_later_read),
        cmocka_unit_test(test_ranged_read_above_max_is_out_of_range),
        cmocka_unit_test(test_writer_rejects_values_that_do_not_fit),
        cmocka_unit_test(test_full_writer_poisons_and_stays_in_bounds),
        cmocka_unit_test(test_varint_rejects_non_canonical_and_overlong),
        cmocka_unit_test(test_small_varints_are_cheap),
        cmocka_unit_test(test_fields_are_little_endian_lsb_first),
        cmocka_unit_test(test_at_end_needs_short_zero_padding),
        cmocka_unit_test(test_byte_runs_at_any_offset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
