/* SPDX-License-Identifier: MIT */
/*
 * delta.c — the state delta coder of delta.h.
 *
 * Encoder: one pass over the state. A zero run is every byte equal to the
 * base from the current position; a literal run extends over differing
 * bytes and swallows gaps of 1 or 2 equal bytes (a gap kept apart costs at
 * least two bytes of lengths, a zero run's and the next literal run's, so
 * only gaps of 3 or more pay), and ends at a gap of 3 or more or at trailing
 * equal bytes. Equal bytes are skipped eight at a time. The output is bounded
 * by min(cap, all-literal size); past that the encoder writes the all-literal
 * form instead, which is what makes delta_bound a true worst case.
 *
 * Decoder invariant: pos (bytes of state decided) <= n and at (bytes of
 * data read) <= size at every step; a run's length is compared with what is
 * left of both before anything is copied. Varints of two bytes or more go
 * through bitpack's canonical uvarint g7 reader, which is LEB128 byte for
 * byte; a single byte below 0x80 is read inline (it is always canonical).
 */
#include "wire/delta.h"

#include <string.h>

#include "wire/bitpack.h"

#define GROUP 7   /* uvarint g7: one byte per 7 bits of a length */
#define MIN_GAP 3 /* shortest run of equal bytes kept apart inside a change */

static size_t varint_size(size_t v)
{
    size_t k = 1;
    while (v >= 0x80) {
        v >>= 7;
        k++;
    }
    return k;
}

size_t delta_bound(size_t n) { return n + 1 + varint_size(n); }

/* Bytes of the all-literal form: one empty zero run, then n literal bytes. */
static size_t literal_size(size_t n) { return n == 0 ? 1 : 1 + varint_size(n) + n; }

static bool differs(const uint8_t *base, const uint8_t *cur, size_t i)
{
    return base != NULL ? base[i] != cur[i] : cur[i] != 0;
}

/* First position at or after `at` where cur differs from base (n if none). */
static size_t next_change(const uint8_t *base, const uint8_t *cur, size_t at, size_t n)
{
    for (; at + 8 <= n; at += 8) {
        uint64_t a = 0, b;
        if (base != NULL)
            memcpy(&a, base + at, 8);
        memcpy(&b, cur + at, 8);
        if (a != b)
            break;
    }
    while (at < n && !differs(base, cur, at))
        at++;
    return at;
}

/* Append v as a uvarint g7 at out[*at], within limit bytes; false if it
 * does not fit. A length below 128 is its own single byte, written inline
 * (most runs of a sparse delta are that short); longer ones go through
 * bitpack. */
static bool put_varint(uint8_t *out, size_t limit, size_t *at, size_t v)
{
    if (v < 0x80) {
        if (*at == limit)
            return false;
        out[(*at)++] = (uint8_t)v;
        return true;
    }
    tempo_bitwriter w;
    tempo_bitwriter_init(&w, out + *at, limit - *at);
    if (v > UINT32_MAX || !tempo_bitwriter_uvarint(&w, (uint32_t)v, GROUP))
        return false;
    *at += tempo_bitwriter_bytes_written(&w);
    return true;
}

/* XOR of base and cur over [from, to) into out. */
static void put_xor(const uint8_t *base, const uint8_t *cur, size_t from, size_t to, uint8_t *out)
{
    if (base == NULL) {
        memcpy(out, cur + from, to - from);
        return;
    }
    for (size_t i = from; i < to; i++)
        *out++ = (uint8_t)(base[i] ^ cur[i]);
}

/* The run form within limit bytes; 0 if it does not fit. */
static size_t encode_runs(const uint8_t *base, const uint8_t *cur, size_t n, uint8_t *out, size_t limit)
{
    size_t at = 0, pos = 0;
    size_t zeros = next_change(base, cur, 0, n);
    for (;;) {
        if (!put_varint(out, limit, &at, zeros))
            return 0;
        pos += zeros;
        if (pos == n)
            return at;
        /* a literal run from pos, through short gaps */
        size_t end = pos;
        for (;;) {
            while (end < n && differs(base, cur, end))
                end++;
            if (end == n) {
                zeros = 0;
                break;
            }
            size_t gap = next_change(base, cur, end, n) - end;
            if (gap >= MIN_GAP || end + gap == n) {
                zeros = gap;
                break;
            }
            end += gap;
        }
        size_t len = end - pos;
        if (!put_varint(out, limit, &at, len) || len > limit - at)
            return 0;
        put_xor(base, cur, pos, end, out + at);
        at += len;
        pos = end;
        if (pos == n)
            return at;
    }
}

size_t delta_encode(const uint8_t *base, const uint8_t *cur, size_t n, uint8_t *out, size_t cap)
{
    if (n > DELTA_MAX_STATE || out == NULL || (cur == NULL && n != 0))
        return 0;
    size_t all = literal_size(n);
    size_t wrote = encode_runs(base, cur, n, out, cap < all ? cap : all);
    if (wrote != 0)
        return wrote;
    if (cap < all)
        return 0;
    size_t at = 0;
    put_varint(out, cap, &at, 0);
    put_varint(out, cap, &at, n);
    put_xor(base, cur, 0, n, out + at);
    return at + n;
}

bool delta_decode(const uint8_t *base, size_t n, const uint8_t *data, size_t size, uint8_t *out)
{
    if (n > DELTA_MAX_STATE || data == NULL || (out == NULL && n != 0))
        return false;
    if (n != 0) {
        if (base != NULL)
            memcpy(out, base, n);
        else
            memset(out, 0, n);
    }
    size_t at = 0, pos = 0;
    for (bool literal = false;; literal = !literal) {
        size_t len;
        if (at < size && data[at] < 0x80) {
            len = data[at++]; /* one byte, always canonical */
        } else {
            tempo_bitreader r;
            tempo_bitreader_init(&r, data + at, size - at);
            uint32_t v;
            if (!tempo_bitreader_uvarint(&r, GROUP, &v))
                return false;
            at += tempo_bitreader_bits_read(&r) / 8;
            len = v;
        }
        if (len > n - pos || (len == 0 && pos != 0) || (len == 0 && literal))
            return false;
        if (literal) {
            if (len > size - at)
                return false;
            for (size_t i = 0; i < len; i++)
                out[pos + i] ^= data[at + i];
            at += len;
        }
        pos += len;
        if (pos == n)
            return at == size;
    }
}
