/*
 * common.c — results and their strings, version, allocation hooks, logging,
 * the assert handler, and the public checksum.
 */
#include "common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

uint32_t tempo_version(void) { return TEMPO_VERSION_NUMBER; }

#define TEMPO_STR2_(x) #x
#define TEMPO_STR_(x) TEMPO_STR2_(x)
const char *tempo_version_string(void)
{
    return TEMPO_STR_(TEMPO_VERSION_MAJOR) "." TEMPO_STR_(TEMPO_VERSION_MINOR) "." TEMPO_STR_(
        TEMPO_VERSION_PATCH);
}

const char *tempo_strerror(int r)
{
    switch (r) {
#define TEMPO_RESULT_TEXT_(name, value, text) \
    case value: return text;
        TEMPO_RESULT_LIST(TEMPO_RESULT_TEXT_)
#undef TEMPO_RESULT_TEXT_
    default: return "unknown result";
    }
}

const char *tempo_result_name(int r)
{
    switch (r) {
#define TEMPO_RESULT_NAME_(name, value, text) \
    case value: return "TEMPO_" #name;
        TEMPO_RESULT_LIST(TEMPO_RESULT_NAME_)
#undef TEMPO_RESULT_NAME_
    default: return "TEMPO_UNKNOWN";
    }
}

static void default_assert_handler(const char *expr, const char *file, int line)
{
    fprintf(stderr, "tempo: invariant failed: %s (%s:%d)\n", expr, file, line);
    abort();
}

static tempo_assert_fn assert_handler = default_assert_handler;

void tempo__set_assert_handler(tempo_assert_fn fn)
{
    assert_handler = fn ? fn : default_assert_handler;
}

void tempo__assert_fail(const char *expr, const char *file, int line)
{
    assert_handler(expr, file, line);
}

void *tempo__alloc(const tempo_allocator *a, size_t size)
{
    if (size == 0)
        size = 1;
    if (a && a->alloc)
        return a->alloc(a->ctx, size);
    return malloc(size);
}

void *tempo__calloc(const tempo_allocator *a, size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    void *p = tempo__alloc(a, bytes);
    if (p && bytes > 0)
        memset(p, 0, bytes);
    return p;
}

void tempo__free(const tempo_allocator *a, void *p)
{
    if (!p)
        return;
    if (a && a->free)
        a->free(a->ctx, p);
    else if (!(a && a->alloc))
        free(p);
}

void tempo__log(const tempo_logger *l, tempo_log_level level, const char *fmt, ...)
{
    if (!l || !l->fn || level > l->level)
        return;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    l->fn(l->ctx, level, line);
}

uint64_t tempo_checksum(const void *data, size_t size)
{
    if (!data || size == 0)
        return XXH3_64bits("", 0);
    return XXH3_64bits(data, size);
}
