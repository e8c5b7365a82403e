/* SPDX-License-Identifier: MIT */
/*
 * bitpack.c — the bit writer and reader of bitpack.h.
 *
 * Invariant: w->bits <= w->capacity_bits and r->bits <= r->size_bits at all
 * times; every access goes through put()/peek(), which run only after the
 * bounds check, so no byte outside the buffer is ever touched. A failed call
 * sets the sticky error first and leaves the position where it was.
 */
#include "wire/bitpack.h"

#include <string.h>

/* put() and peek() are the whole cost of most calls: inlined into each. */
#if defined(__GNUC__) || defined(__clang__)
#define HOT static inline __attribute__((always_inline))
#else
#define HOT static inline
#endif

int tempo_bitpack_bits_required(uint32_t range)
{
#if defined(__GNUC__) || defined(__clang__)
    return range == 0 ? 0 : 32 - __builtin_clz(range);
#else
    int n = 0;
    while (range != 0) {
        n++;
        range >>= 1;
    }
    return n;
#endif
}

int tempo_bitpack_uvarint_bits(uint32_t value, int group)
{
    if (group < 1 || group > TEMPO_VARINT_MAX_GROUP)
        return 0;
    int groups = (tempo_bitpack_bits_required(value) + group - 1) / group;
    return (groups > 0 ? groups : 1) * (group + 1);
}

uint32_t tempo_bitpack_zigzag(int32_t v)
{
    /* Written without shifting a negative value (undefined in C). */
    return v < 0 ? ((~(uint32_t)v) << 1) | 1u : (uint32_t)v << 1;
}

int32_t tempo_bitpack_unzigzag(uint32_t u)
{
    int32_t half = (int32_t)(u >> 1); /* <= 2^31 - 1 */
    return (u & 1u) ? -half - 1 : half;
}

static bool group_ok(int group) { return group >= 1 && group <= TEMPO_VARINT_MAX_GROUP; }

/* ---- writer ---- */

void tempo_bitwriter_init(tempo_bitwriter *w, uint8_t *buf, size_t capacity)
{
    w->buf = buf;
    w->capacity_bits = capacity > SIZE_MAX / 8 ? SIZE_MAX / 8 * 8 : capacity * 8;
    w->bits = 0;
    w->failed = false;
}

/* Store the low n (0..32) bits of v (its higher bits zero) at the current
 * position, every byte the field reaches written in one pass. A byte is
 * assigned (not or-ed) when first reached, so stale buffer contents never
 * leak into the packet; the bits of the current byte above the position are
 * therefore zero, and or-ing into it is exact. Bounds already checked by the
 * caller. */
HOT void put(tempo_bitwriter *w, uint32_t v, int n)
{
    size_t pos = w->bits;
    w->bits += (size_t)n;
    if (w->buf == NULL || n == 0)
        return;
    uint8_t *p = w->buf + (pos >> 3);
    unsigned off = (unsigned)(pos & 7u), end = off + (unsigned)n; /* end: 1..39 */
    uint64_t acc = (uint64_t)v << off;
    if (off != 0)
        acc |= *p;
    p[0] = (uint8_t)acc;
    for (unsigned b = 8; b < end; b += 8)
        p[b >> 3] = (uint8_t)(acc >> b);
}

/* put() of up to 64 bits. */
static void put64(tempo_bitwriter *w, uint64_t v, int n)
{
    if (n > 32) {
        put(w, (uint32_t)v, 32);
        v >>= 32;
        n -= 32;
    }
    put(w, (uint32_t)v, n);
}

static bool wfail(tempo_bitwriter *w)
{
    w->failed = true;
    return false;
}

/* Room for n more bits? Poisons when not. */
static bool room(tempo_bitwriter *w, size_t n)
{
    if (w->failed || n > w->capacity_bits - w->bits)
        return wfail(w);
    return true;
}

bool tempo_bitwriter_bits(tempo_bitwriter *w, uint32_t value, int nbits)
{
    if (nbits < 1 || nbits > 32 || (nbits < 32 && (value >> nbits) != 0))
        return wfail(w);
    if (!room(w, (size_t)nbits))
        return false;
    put(w, value, nbits);
    return true;
}

bool tempo_bitwriter_ranged(tempo_bitwriter *w, int32_t value, int32_t min, int32_t max)
{
    if (min > max || value < min || value > max)
        return wfail(w);
    int n = tempo_bitpack_bits_required((uint32_t)((int64_t)max - min));
    if (!room(w, (size_t)n))
        return false;
    put(w, (uint32_t)((int64_t)value - min), n);
    return true;
}

bool tempo_bitwriter_uvarint(tempo_bitwriter *w, uint32_t value, int group)
{
    if (!group_ok(group))
        return wfail(w);
    /* The whole code first: at most 32 groups of 2 bits (group 1), 64 bits. */
    uint32_t mask = (1u << group) - 1u;
    uint64_t code = 0;
    int len = 0;
    do {
        uint32_t chunk = value & mask;
        value >>= group;
        code |= (uint64_t)(chunk | ((value != 0) ? 1u << group : 0u)) << len;
        len += group + 1;
    } while (value != 0);
    if (!room(w, (size_t)len))
        return false;
    put64(w, code, len);
    return true;
}

bool tempo_bitwriter_svarint(tempo_bitwriter *w, int32_t value, int group)
{
    return tempo_bitwriter_uvarint(w, tempo_bitpack_zigzag(value), group);
}

bool tempo_bitwriter_bytes(tempo_bitwriter *w, const uint8_t *data, size_t n)
{
    if ((data == NULL && n != 0) || n > SIZE_MAX / 8)
        return wfail(w);
    if (!room(w, n * 8))
        return false;
    if (w->buf != NULL && (w->bits & 7u) == 0 && n != 0) {
        memcpy(w->buf + (w->bits >> 3), data, n);
        w->bits += n * 8;
        return true;
    }
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        put(w, (uint32_t)data[i] | (uint32_t)data[i + 1] << 8 | (uint32_t)data[i + 2] << 16 |
                   (uint32_t)data[i + 3] << 24,
            32);
    for (; i < n; i++)
        put(w, data[i], 8);
    return true;
}

HOT uint32_t peek(const tempo_bitreader *r, size_t pos, int n);

bool tempo_bitwriter_copy(tempo_bitwriter *w, const uint8_t *src, size_t from, size_t nbits)
{
    if ((src == NULL && nbits != 0) || from > SIZE_MAX - nbits || from + nbits > SIZE_MAX - 7)
        return wfail(w);
    if (!room(w, nbits))
        return false;
    /* The source read as a reader over exactly the bytes holding the bits. */
    tempo_bitreader r = {src, (from + nbits + 7) / 8 * 8, from, TEMPO_BITREAD_OK};
    size_t pos = from, end = from + nbits;
    for (; end - pos >= 32; pos += 32)
        put(w, peek(&r, pos, 32), 32);
    put(w, peek(&r, pos, (int)(end - pos)), (int)(end - pos));
    return true;
}

size_t tempo_bitwriter_bits_written(const tempo_bitwriter *w) { return w->bits; }

size_t tempo_bitwriter_bytes_written(const tempo_bitwriter *w) { return (w->bits + 7) / 8; }

/* ---- reader ---- */

void tempo_bitreader_init(tempo_bitreader *r, const uint8_t *data, size_t size)
{
    r->buf = data;
    r->size_bits = (data == NULL || size > SIZE_MAX / 8) ? 0 : size * 8;
    r->bits = 0;
    r->error = (data == NULL && size != 0) ? TEMPO_BITREAD_RANGE : TEMPO_BITREAD_OK;
}

bool tempo_bitreader_fail(tempo_bitreader *r, tempo_bitread_error error)
{
    if (r->error == TEMPO_BITREAD_OK)
        r->error = error != TEMPO_BITREAD_OK ? (int)error : TEMPO_BITREAD_RANGE;
    return false;
}

/* Fail a read that already took bits: back to `start`, poisoned with error. */
static bool unread(tempo_bitreader *r, size_t start, tempo_bitread_error error)
{
    r->bits = start;
    return tempo_bitreader_fail(r, error);
}

/* Read n (0..32) bits at position pos without moving; bounds checked by the
 * caller. Eight bytes at once where the buffer holds them past pos (the
 * shifts compile to one load on little-endian machines), else only the
 * bytes the field reaches. */
HOT uint32_t peek(const tempo_bitreader *r, size_t pos, int n)
{
    if (n == 0)
        return 0;
    const uint8_t *p = r->buf + (pos >> 3);
    unsigned off = (unsigned)(pos & 7u), end = off + (unsigned)n; /* end: 1..39 */
    uint64_t acc;
    if ((r->size_bits >> 3) - (pos >> 3) >= 8) {
        acc = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
              (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
              (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
    } else {
        acc = p[0];
        for (unsigned b = 8; b < end; b += 8)
            acc |= (uint64_t)p[b >> 3] << b;
    }
    return (uint32_t)((acc >> off) & ((UINT64_C(1) << n) - 1u));
}

/* Take n (0..32) bits into *out, or poison with END. */
static bool get(tempo_bitreader *r, int n, uint32_t *out)
{
    *out = 0;
    if (r->error != TEMPO_BITREAD_OK)
        return false;
    if ((size_t)n > r->size_bits - r->bits)
        return tempo_bitreader_fail(r, TEMPO_BITREAD_END);
    *out = peek(r, r->bits, n);
    r->bits += (size_t)n;
    return true;
}

bool tempo_bitreader_bits(tempo_bitreader *r, int nbits, uint32_t *out)
{
    if (nbits < 1 || nbits > 32) {
        *out = 0;
        return tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
    }
    return get(r, nbits, out);
}

bool tempo_bitreader_ranged(tempo_bitreader *r, int32_t min, int32_t max, int32_t *out)
{
    *out = 0;
    if (min > max)
        return tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
    uint32_t range = (uint32_t)((int64_t)max - min), raw;
    int n = tempo_bitpack_bits_required(range);
    if (!get(r, n, &raw))
        return false;
    if (raw > range)
        return unread(r, r->bits - (size_t)n, TEMPO_BITREAD_RANGE);
    *out = (int32_t)((int64_t)min + raw);
    return true;
}

bool tempo_bitreader_uvarint(tempo_bitreader *r, int group, uint32_t *out)
{
    *out = 0;
    if (!group_ok(group))
        return tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
    if (r->error != TEMPO_BITREAD_OK)
        return false;
    /* The position moves only once the whole value is read and checked. */
    uint64_t value = 0;
    size_t pos = r->bits;
    int width = group + 1;
    for (int shift = 0;; shift += group) {
        if ((size_t)width > r->size_bits - pos)
            return tempo_bitreader_fail(r, TEMPO_BITREAD_END);
        uint32_t g = peek(r, pos, width);
        pos += (size_t)width;
        uint32_t chunk = g & ((1u << group) - 1u);
        bool more = (g >> group) != 0;
        value |= (uint64_t)chunk << shift;
        /* One spelling per value: no trailing zero group, nothing past 32 bits. */
        if (value > UINT32_MAX || (shift > 0 && !more && chunk == 0) ||
            (more && shift + group >= 32))
            return tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
        if (!more)
            break;
    }
    r->bits = pos;
    *out = (uint32_t)value;
    return true;
}

bool tempo_bitreader_svarint(tempo_bitreader *r, int group, int32_t *out)
{
    uint32_t u;
    bool ok = tempo_bitreader_uvarint(r, group, &u);
    *out = ok ? tempo_bitpack_unzigzag(u) : 0;
    return ok;
}

bool tempo_bitreader_bytes(tempo_bitreader *r, uint8_t *out, size_t n)
{
    if ((out == NULL && n != 0) || n > SIZE_MAX / 8)
        return tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
    if (r->error != TEMPO_BITREAD_OK || n * 8 > r->size_bits - r->bits) {
        if (n != 0)
            memset(out, 0, n);
        return tempo_bitreader_fail(r, TEMPO_BITREAD_END);
    }
    if ((r->bits & 7u) == 0 && n != 0) {
        memcpy(out, r->buf + (r->bits >> 3), n);
    } else {
        size_t i = 0;
        for (; i + 4 <= n; i += 4) {
            uint32_t v = peek(r, r->bits + i * 8, 32);
            out[i] = (uint8_t)v, out[i + 1] = (uint8_t)(v >> 8);
            out[i + 2] = (uint8_t)(v >> 16), out[i + 3] = (uint8_t)(v >> 24);
        }
        for (; i < n; i++)
            out[i] = (uint8_t)peek(r, r->bits + i * 8, 8);
    }
    r->bits += n * 8;
    return true;
}

size_t tempo_bitreader_bits_read(const tempo_bitreader *r) { return r->bits; }

size_t tempo_bitreader_bits_left(const tempo_bitreader *r) { return r->size_bits - r->bits; }

bool tempo_bitreader_at_end(const tempo_bitreader *r)
{
    size_t left = r->size_bits - r->bits;
    return left < 8 && (left == 0 || peek(r, r->bits, (int)left) == 0);
}
