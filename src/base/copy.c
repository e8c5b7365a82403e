/* SPDX-License-Identifier: MIT */
/*
 * copy.c — copying a large block into storage that is not read soon: an
 * arena's SAVE into its ring of max_prediction + 2 slots.
 *
 * A plain memcpy to a destination that is not in the cache first reads
 * every line of it (to own it), then writes it back: twice the memory
 * traffic of the copy, and the ring's slots push the game's own state out
 * of the cache. Non-temporal stores write the lines without reading them
 * and without keeping them, which is what a save wants: a slot is read only
 * by a LOAD, after a rollback, when the ring has long left the cache
 * anyway. Measured with bench_engine (1 MiB arena: tempo's save against a
 * hot memcpy and against the same copy into a ring). Below
 * TEMPO__COPY_STREAM_MIN the destination may well stay in the cache and
 * memcpy is used; on CPUs other than x86-64 memcpy always.
 */
#include "base/common.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h> /* SSE2, part of every x86-64 CPU */

void tempo__copy_cold(void *dst, const void *src, size_t n)
{
    if (n < TEMPO__COPY_STREAM_MIN) {
        memcpy(dst, src, n);
        return;
    }
    uint8_t *d = dst;
    const uint8_t *s = src;
    size_t head = (size_t)(-(uintptr_t)d & 15u); /* to a 16-byte boundary */
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    size_t body = n & ~(size_t)63;
    for (size_t i = 0; i < body; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));
        _mm_stream_si128((__m128i *)(void *)(d + i), a);
        _mm_stream_si128((__m128i *)(void *)(d + i + 16), b);
        _mm_stream_si128((__m128i *)(void *)(d + i + 32), c);
        _mm_stream_si128((__m128i *)(void *)(d + i + 48), e);
    }
    _mm_sfence(); /* the streamed lines are visible before anything after */
    memcpy(d + body, s + body, n - body);
}
#else
void tempo__copy_cold(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
#endif
