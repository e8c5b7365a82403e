/* SPDX-License-Identifier: MIT */
/*
 * common.h — what every module of libtempo shares: the invariant assert,
 * allocation through the config's hooks, logging, small integer helpers.
 * Internal: not installed.
 */
#ifndef TEMPO_BASE_COMMON_H
#define TEMPO_BASE_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "tempo/base.h"

/* Invariants of tempo's own code (never the caller's mistakes, never network
 * data: those return errors). A failed assert calls the handler, which by
 * default prints and aborts; TEMPO_NO_ASSERT compiles them out. */
typedef void (*tempo_assert_fn)(const char *expr, const char *file, int line);
void tempo__set_assert_handler(tempo_assert_fn fn);
void tempo__assert_fail(const char *expr, const char *file, int line);
#ifdef TEMPO_NO_ASSERT
#define TEMPO_ASSERT(e) ((void)0)
#else
#define TEMPO_ASSERT(e) ((e) ? (void)0 : tempo__assert_fail(#e, __FILE__, __LINE__))
#endif

/* Allocation through a tempo_allocator (NULL hooks mean malloc/free).
 * tempo__calloc zeroes the block. Both return NULL on failure. */
void *tempo__alloc(const tempo_allocator *a, size_t size);
void *tempo__calloc(const tempo_allocator *a, size_t count, size_t size);
void tempo__free(const tempo_allocator *a, void *p);

/* A logger bound to a config's hook and level. */
typedef struct tempo_logger {
    tempo_log_fn fn;
    void *ctx;
    tempo_log_level level;
} tempo_logger;

/* The logger of a config's log, log_ctx and log_level fields. */
static inline tempo_logger tempo__logger(tempo_log_fn fn, void *ctx, tempo_log_level level)
{
    tempo_logger l = {fn, ctx, level};
    return l;
}

#if defined(__GNUC__)
#define TEMPO_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TEMPO_PRINTF(a, b)
#endif
void tempo__log(const tempo_logger *l, tempo_log_level level, const char *fmt, ...) TEMPO_PRINTF(3, 4);

/* Copy n bytes to storage that is not read again soon (an arena's saved
 * states): from TEMPO__COPY_STREAM_MIN bytes on, without pulling the
 * destination into the cache where the CPU can (copy.c). */
#define TEMPO__COPY_STREAM_MIN (256u * 1024u)
void tempo__copy_cold(void *dst, const void *src, size_t n);

static inline int tempo__min_i(int a, int b) { return a < b ? a : b; }
static inline int tempo__max_i(int a, int b) { return a > b ? a : b; }
static inline int32_t tempo__min32(int32_t a, int32_t b) { return a < b ? a : b; }
static inline int32_t tempo__max32(int32_t a, int32_t b) { return a > b ? a : b; }

#endif /* TEMPO_BASE_COMMON_H */
