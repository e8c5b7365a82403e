/* SPDX-License-Identifier: MIT */
/*
 * test_bitpack_model.c — the bit writer and reader against a plain model of
 * bitpack.h's rules that moves one bit at a time: random sequences of every
 * call (the writer's copy of another stream's bits included) with valid and
 * invalid arguments (widths, groups, ranges, null data,
 * full buffers, poisoned objects, truncated and non-canonical streams) must
 * give the same return values, outputs, positions, errors and buffer bytes,
 * the bytes past the written ones included, after every call.
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

#define SEEDS 3000
#define OPS 48
#define CAP 64 /* bytes */

/* ---- the model ---- */

static int model_bits_required(uint32_t range)
{
    int n = 0;
    for (; range != 0; range >>= 1)
        n++;
    return n;
}

typedef struct mwriter {
    uint8_t *buf;
    size_t cap_bits, bits;
    bool failed;
} mwriter;

static bool mw_fail(mwriter *w)
{
    w->failed = true;
    return false;
}

static bool mw_room(mwriter *w, size_t n)
{
    if (w->failed || n > w->cap_bits - w->bits)
        return mw_fail(w);
    return true;
}

/* One bit; a byte is cleared when its first bit is written. */
static void mw_bit(mwriter *w, unsigned bit)
{
    if (w->buf != NULL) {
        if (w->bits % 8 == 0)
            w->buf[w->bits / 8] = 0;
        w->buf[w->bits / 8] |= (uint8_t)((bit & 1u) << (w->bits % 8));
    }
    w->bits++;
}

static void mw_put(mwriter *w, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        mw_bit(w, (unsigned)(v >> i) & 1u);
}

static bool mw_bits(mwriter *w, uint32_t v, int n)
{
    if (n < 1 || n > 32 || (n < 32 && (v >> n) != 0))
        return mw_fail(w);
    if (!mw_room(w, (size_t)n))
        return false;
    mw_put(w, v, n);
    return true;
}

static bool mw_ranged(mwriter *w, int32_t v, int32_t min, int32_t max)
{
    if (min > max || v < min || v > max)
        return mw_fail(w);
    int n = model_bits_required((uint32_t)((int64_t)max - min));
    if (!mw_room(w, (size_t)n))
        return false;
    mw_put(w, (uint32_t)((int64_t)v - min), n);
    return true;
}

static bool mw_uvarint(mwriter *w, uint32_t v, int group)
{
    if (group < 1 || group > TEMPO_VARINT_MAX_GROUP)
        return mw_fail(w);
    int groups = 0;
    for (uint32_t x = v; groups == 0 || x != 0; x >>= group)
        groups++;
    if (!mw_room(w, (size_t)groups * (size_t)(group + 1)))
        return false;
    for (int g = 0; g < groups; g++) {
        mw_put(w, (v >> (g * group)) & ((1u << group) - 1u), group);
        mw_bit(w, g + 1 < groups);
    }
    return true;
}

static uint32_t model_zigzag(int32_t v) { return v < 0 ? 2u * (uint32_t)(-(int64_t)v) - 1u : 2u * (uint32_t)v; }

static bool mw_bytes(mwriter *w, const uint8_t *d, size_t n)
{
    if (d == NULL && n != 0)
        return mw_fail(w);
    if (!mw_room(w, n * 8))
        return false;
    for (size_t i = 0; i < n; i++)
        mw_put(w, d[i], 8);
    return true;
}

static bool mw_copy(mwriter *w, const uint8_t *src, size_t from, size_t n)
{
    if (src == NULL && n != 0)
        return mw_fail(w);
    if (!mw_room(w, n))
        return false;
    for (size_t i = from; i < from + n; i++)
        mw_bit(w, (unsigned)(src[i / 8] >> (i % 8)) & 1u);
    return true;
}

typedef struct mreader {
    const uint8_t *buf;
    size_t size_bits, bits;
    int error;
} mreader;

static bool mr_fail(mreader *r, int error)
{
    if (r->error == TEMPO_BITREAD_OK)
        r->error = error;
    return false;
}

static uint64_t mr_peek(const mreader *r, size_t pos, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)((r->buf[(pos + (size_t)i) / 8] >> ((pos + (size_t)i) % 8)) & 1u) << i;
    return v;
}

static bool mr_get(mreader *r, int n, uint32_t *out)
{
    *out = 0;
    if (r->error != TEMPO_BITREAD_OK)
        return false;
    if ((size_t)n > r->size_bits - r->bits)
        return mr_fail(r, TEMPO_BITREAD_END);
    *out = (uint32_t)mr_peek(r, r->bits, n);
    r->bits += (size_t)n;
    return true;
}

static bool mr_bits(mreader *r, int n, uint32_t *out)
{
    if (n < 1 || n > 32) {
        *out = 0;
        return mr_fail(r, TEMPO_BITREAD_RANGE);
    }
    return mr_get(r, n, out);
}

static bool mr_ranged(mreader *r, int32_t min, int32_t max, int32_t *out)
{
    *out = 0;
    if (min > max)
        return mr_fail(r, TEMPO_BITREAD_RANGE);
    uint32_t range = (uint32_t)((int64_t)max - min), raw;
    int n = model_bits_required(range);
    if (!mr_get(r, n, &raw))
        return false;
    if (raw > range) {
        r->bits -= (size_t)n;
        return mr_fail(r, TEMPO_BITREAD_RANGE);
    }
    *out = (int32_t)((int64_t)min + raw);
    return true;
}

/* Groups in order; any failure leaves the position at the value's start. */
static bool mr_uvarint(mreader *r, int group, uint32_t *out)
{
    *out = 0;
    if (group < 1 || group > TEMPO_VARINT_MAX_GROUP)
        return mr_fail(r, TEMPO_BITREAD_RANGE);
    if (r->error != TEMPO_BITREAD_OK)
        return false;
    size_t pos = r->bits;
    uint64_t value = 0;
    for (int g = 0;; g++) {
        if ((size_t)group + 1 > r->size_bits - pos)
            return mr_fail(r, TEMPO_BITREAD_END);
        uint64_t chunk = mr_peek(r, pos, group);
        bool more = mr_peek(r, pos + (size_t)group, 1) != 0;
        pos += (size_t)group + 1;
        value += chunk << (g * group);
        bool last_zero = g > 0 && !more && chunk == 0;
        bool past_32 = more && (g + 1) * group >= 32;
        if (value > UINT32_MAX || last_zero || past_32)
            return mr_fail(r, TEMPO_BITREAD_RANGE);
        if (!more)
            break;
    }
    r->bits = pos;
    *out = (uint32_t)value;
    return true;
}

static bool mr_bytes(mreader *r, uint8_t *out, size_t n)
{
    if (out == NULL && n != 0)
        return mr_fail(r, TEMPO_BITREAD_RANGE);
    if (r->error != TEMPO_BITREAD_OK || n * 8 > r->size_bits - r->bits) {
        for (size_t i = 0; i < n; i++)
            out[i] = 0;
        return mr_fail(r, TEMPO_BITREAD_END);
    }
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)mr_peek(r, r->bits + i * 8, 8);
    r->bits += n * 8;
    return true;
}

static bool mr_at_end(const mreader *r)
{
    size_t left = r->size_bits - r->bits;
    return left < 8 && mr_peek(r, r->bits, (int)left) == 0;
}

/* ---- random arguments, skewed to the edges ---- */

static uint32_t value_of_width(tempo_rng *rng, int bits)
{
    uint32_t mask = bits >= 32 ? UINT32_MAX : (1u << bits) - 1u;
    switch (tempo_rng_below(rng, 5)) {
    case 0: return 0;
    case 1: return tempo_rng_below(rng, 16) & mask;
    case 2: return mask;
    case 3: return (mask >> 1) + 1u; /* the top bit alone */
    default: return tempo_rng_next(rng) & mask;
    }
}

static int width(tempo_rng *rng) /* 1..32, sometimes 0, 33 or -1 */
{
    uint32_t k = tempo_rng_below(rng, 40);
    return k == 0 ? 0 : k == 1 ? 33 : k == 2 ? -1 : tempo_rng_range(rng, 1, 32);
}

static int group(tempo_rng *rng) /* 1..16, sometimes 0 or 17 */
{
    uint32_t k = tempo_rng_below(rng, 40);
    return k == 0 ? 0 : k == 1 ? TEMPO_VARINT_MAX_GROUP + 1 : tempo_rng_range(rng, 1, 16);
}

static void range_of(tempo_rng *rng, int32_t *min, int32_t *max)
{
    int64_t a = (int32_t)tempo_rng_next(rng) >> tempo_rng_below(rng, 32);
    int64_t b = a + (int64_t)(tempo_rng_next(rng) >> tempo_rng_below(rng, 32));
    *min = (int32_t)a;
    *max = b > INT32_MAX ? INT32_MAX : (int32_t)b;
    if (tempo_rng_below(rng, 30) == 0) { /* inverted */
        int32_t t = *min;
        *min = *max == *min ? *min + 1 : *max;
        *max = t;
    }
}

static int32_t signed_value(tempo_rng *rng)
{
    return (int32_t)value_of_width(rng, 32) >> tempo_rng_below(rng, 32);
}

/* ---- the writer ---- */

static void check_writer(const tempo_bitwriter *w, const mwriter *m, const uint8_t *a,
                         const uint8_t *b)
{
    assert_int_equal(tempo_bitwriter_bits_written(w), m->bits);
    assert_int_equal(tempo_bitwriter_bytes_written(w), (m->bits + 7) / 8);
    assert_int_equal(w->failed, m->failed);
    if (a != NULL)
        assert_memory_equal(a, b, CAP);
}

static void writer_run(uint64_t seed, bool measure)
{
    tempo_rng rng;
    tempo_rng_seed(&rng, seed, measure ? 12 : 11);
    uint8_t got[CAP], want[CAP];
    uint8_t stale = (uint8_t)tempo_rng_next(&rng); /* old contents must not leak */
    memset(got, stale, sizeof got);
    memset(want, stale, sizeof want);
    size_t cap = tempo_rng_below(&rng, 4) == 0 ? tempo_rng_below(&rng, 9) : tempo_rng_below(&rng, CAP + 1);
    tempo_bitwriter w;
    tempo_bitwriter_init(&w, measure ? NULL : got, cap);
    mwriter m = {measure ? NULL : want, cap * 8, 0, false};
    for (int op = 0; op < OPS; op++) {
        bool a = false, b = false;
        switch (tempo_rng_below(&rng, 6)) {
        case 5: { /* a part of another stream, copied */
            uint8_t src[12];
            for (size_t i = 0; i < sizeof src; i++)
                src[i] = (uint8_t)tempo_rng_next(&rng);
            size_t from = tempo_rng_below(&rng, 97);
            size_t n = tempo_rng_below(&rng, (uint32_t)(96 - from + 1));
            size_t held = (from + n + 7) / 8; /* only the bytes holding the bits */
            uint8_t *exact = malloc(held ? held : 1);
            assert_non_null(exact);
            memcpy(exact, src, held);
            bool null = n == 0 && tempo_rng_below(&rng, 4) == 0;
            a = tempo_bitwriter_copy(&w, null ? NULL : exact, from, n);
            b = mw_copy(&m, null ? NULL : src, from, n);
            free(exact);
            break;
        }
        case 0: {
            int n = width(&rng);
            uint32_t v = value_of_width(&rng, n < 1 ? 32 : n);
            if (tempo_rng_below(&rng, 20) == 0)
                v |= 1u << (n > 0 && n < 32 ? n : 0); /* does not fit */
            a = tempo_bitwriter_bits(&w, v, n), b = mw_bits(&m, v, n);
            break;
        }
        case 1: {
            int32_t min, max;
            range_of(&rng, &min, &max);
            int64_t span = (int64_t)max - min;
            int64_t v = min + (span > 0 ? (int64_t)((uint64_t)tempo_rng_next(&rng) % (uint64_t)(span + 1)) : 0);
            if (tempo_rng_below(&rng, 3) == 0)
                v = tempo_rng_below(&rng, 2) ? max : min;
            if (tempo_rng_below(&rng, 20) == 0 && max < INT32_MAX)
                v = (int64_t)max + 1;
            a = tempo_bitwriter_ranged(&w, (int32_t)v, min, max);
            b = mw_ranged(&m, (int32_t)v, min, max);
            break;
        }
        case 2: {
            int g = group(&rng);
            uint32_t v = value_of_width(&rng, tempo_rng_range(&rng, 1, 32));
            a = tempo_bitwriter_uvarint(&w, v, g), b = mw_uvarint(&m, v, g);
            break;
        }
        case 3: {
            int g = group(&rng);
            int32_t v = signed_value(&rng);
            a = tempo_bitwriter_svarint(&w, v, g), b = mw_uvarint(&m, model_zigzag(v), g);
            break;
        }
        default: {
            uint8_t d[12];
            for (size_t i = 0; i < sizeof d; i++)
                d[i] = (uint8_t)tempo_rng_next(&rng);
            size_t n = tempo_rng_below(&rng, sizeof d + 1);
            bool null = tempo_rng_below(&rng, 20) == 0;
            a = tempo_bitwriter_bytes(&w, null ? NULL : d, n), b = mw_bytes(&m, null ? NULL : d, n);
            break;
        }
        }
        assert_int_equal(a, b);
        check_writer(&w, &m, measure ? NULL : got, want);
    }
}

static void test_writer_matches_the_model_over_many_seeds(void **state)
{
    (void)state;
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        writer_run(seed, false);
        writer_run(seed, true);
    }
}

/* ---- the reader ---- */

/* A stream worth reading: the model writer's random fields (so varints are
 * mostly canonical), random bytes, or mostly zero bytes, cut anywhere. */
static size_t random_data(tempo_rng *rng, uint8_t *data)
{
    switch (tempo_rng_below(rng, 3)) {
    case 0: {
        memset(data, 0, CAP);
        mwriter m = {data, CAP * 8, 0, false};
        while (!m.failed && m.bits < CAP * 8 - 64) {
            int g = tempo_rng_range(rng, 1, 16);
            switch (tempo_rng_below(rng, 3)) {
            case 0: mw_uvarint(&m, value_of_width(rng, tempo_rng_range(rng, 1, 32)), g); break;
            case 1: mw_bits(&m, tempo_rng_below(rng, 2), 1); break;
            default: mw_bits(&m, value_of_width(rng, g), g); break;
            }
        }
        break;
    }
    case 1:
        for (size_t i = 0; i < CAP; i++)
            data[i] = (uint8_t)tempo_rng_next(rng);
        break;
    default:
        for (size_t i = 0; i < CAP; i++)
            data[i] = tempo_rng_below(rng, 4) == 0 ? (uint8_t)tempo_rng_next(rng) : 0;
        break;
    }
    return tempo_rng_below(rng, 4) == 0 ? tempo_rng_below(rng, 9) : tempo_rng_below(rng, CAP + 1);
}

static void check_reader(const tempo_bitreader *r, const mreader *m)
{
    assert_int_equal(tempo_bitreader_bits_read(r), m->bits);
    assert_int_equal(tempo_bitreader_bits_left(r), m->size_bits - m->bits);
    assert_int_equal(r->error, m->error);
    assert_int_equal(tempo_bitreader_at_end(r), mr_at_end(m));
}

static void reader_run(uint64_t seed)
{
    tempo_rng rng;
    tempo_rng_seed(&rng, seed, 13);
    uint8_t data[CAP];
    size_t size = random_data(&rng, data);
    /* The reader gets its own copy of exactly `size` bytes, so ASan sees a
     * read past them. */
    uint8_t *copy = malloc(size ? size : 1);
    assert_non_null(copy);
    memcpy(copy, data, size);
    tempo_bitreader r;
    tempo_bitreader_init(&r, copy, size);
    mreader m = {data, size * 8, 0, TEMPO_BITREAD_OK};
    for (int op = 0; op < OPS; op++) {
        bool a = false, b = false;
        switch (tempo_rng_below(&rng, 6)) {
        case 0: {
            int n = width(&rng);
            uint32_t u = 7, v = 9;
            a = tempo_bitreader_bits(&r, n, &u), b = mr_bits(&m, n, &v);
            assert_int_equal(u, v);
            break;
        }
        case 1: {
            int32_t min, max, u = 7, v = 9;
            range_of(&rng, &min, &max);
            if (tempo_rng_below(&rng, 2) == 0) /* small ranges, so reads above max happen */
                max = min > INT32_MAX - 40 ? min : min + (int32_t)tempo_rng_below(&rng, 40);
            a = tempo_bitreader_ranged(&r, min, max, &u), b = mr_ranged(&m, min, max, &v);
            assert_int_equal(u, v);
            break;
        }
        case 2: {
            int g = group(&rng);
            uint32_t u = 7, v = 9;
            a = tempo_bitreader_uvarint(&r, g, &u), b = mr_uvarint(&m, g, &v);
            assert_int_equal(u, v);
            break;
        }
        case 3: {
            int g = group(&rng);
            int32_t u = 7;
            uint32_t v = 9;
            a = tempo_bitreader_svarint(&r, g, &u), b = mr_uvarint(&m, g, &v);
            int32_t half = (int32_t)(v >> 1);
            assert_int_equal(u, b ? ((v & 1u) ? -half - 1 : half) : 0);
            break;
        }
        case 4: {
            uint8_t u[12], v[12];
            memset(u, 0x5A, sizeof u);
            memset(v, 0x5A, sizeof v);
            size_t n = tempo_rng_below(&rng, sizeof u + 1);
            bool null = tempo_rng_below(&rng, 20) == 0;
            a = tempo_bitreader_bytes(&r, null ? NULL : u, null ? n + 1 : n);
            b = mr_bytes(&m, null ? NULL : v, null ? n + 1 : n);
            assert_memory_equal(u, v, sizeof u);
            break;
        }
        default:
            if (tempo_rng_below(&rng, 8) == 0) {
                int e = tempo_rng_below(&rng, 2) ? TEMPO_BITREAD_END : TEMPO_BITREAD_RANGE;
                a = tempo_bitreader_fail(&r, (tempo_bitread_error)e), b = mr_fail(&m, e);
            } else {
                uint32_t u = 7, v = 9;
                a = tempo_bitreader_bits(&r, 1, &u), b = mr_bits(&m, 1, &v);
                assert_int_equal(u, v);
            }
            break;
        }
        assert_int_equal(a, b);
        check_reader(&r, &m);
    }
    free(copy);
}

static void test_reader_matches_the_model_over_many_seeds(void **state)
{
    (void)state;
    for (uint64_t seed = 0; seed < SEEDS; seed++)
        reader_run(seed);
}

/* What the writer writes, the reader reads back, at every bit offset and
 * width: the word-at-a-time paths meet the byte-at-a-time ones. */
static void test_every_offset_and_width_round_trips(void **state)
{
    (void)state;
    tempo_rng rng;
    tempo_rng_seed(&rng, 1, 14);
    for (int off = 0; off < 16; off++)
        for (int n = 1; n <= 32; n++)
            for (int k = 0; k < 8; k++) {
                uint8_t buf[12], want[12];
                memset(buf, 0xEE, sizeof buf);
                memset(want, 0xEE, sizeof want);
                uint32_t v = value_of_width(&rng, n);
                size_t cap = ((size_t)off + (size_t)n + 7) / 8; /* exactly the bytes it needs */
                tempo_bitwriter w;
                tempo_bitwriter_init(&w, buf, cap);
                mwriter m = {want, cap * 8, 0, false};
                for (int i = 0; i < off; i++) {
                    assert_true(tempo_bitwriter_bits(&w, 0, 1));
                    assert_true(mw_bits(&m, 0, 1));
                }
                assert_true(tempo_bitwriter_bits(&w, v, n));
                assert_true(mw_bits(&m, v, n));
                assert_memory_equal(buf, want, sizeof buf);
                tempo_bitreader r;
                tempo_bitreader_init(&r, buf, cap);
                uint32_t skip, got;
                if (off > 0)
                    assert_true(tempo_bitreader_bits(&r, off, &skip));
                assert_true(tempo_bitreader_bits(&r, n, &got));
                assert_int_equal(got, v);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_matches_the_model_over_many_seeds),
        cmocka_unit_test(test_reader_matches_the_model_over_many_seeds),
        cmocka_unit_test(test_every_offset_and_width_round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
