/* SPDX-License-Identifier: MIT */
/*
 * bytes.h — little-endian integers at a byte pointer, and a check that a
 * run of bytes is all zero: the fixed-layout codecs (connect messages and
 * cookies, tokens, the relay's messages, SipHash's words, replay files)
 * read and write their fields with these. The caller has checked the
 * room; nothing here bounds-checks.
 * Internal: not installed.
 */
#ifndef TEMPO_WIRE_BYTES_H
#define TEMPO_WIRE_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline void wire_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void wire_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void wire_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t wire_get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static inline uint32_t wire_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t wire_get64(const uint8_t *p)
{
    return (uint64_t)wire_get32(p) | (uint64_t)wire_get32(p + 4) << 32;
}

/* Whether p[0..n) is all zero, in time that depends on n only (padding
 * next to secrets, keys). */
static inline bool wire_all_zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

#endif /* TEMPO_WIRE_BYTES_H */
