/* SPDX-License-Identifier: MIT */
/*
 * count_malloc.h — counts every malloc, calloc and realloc of the program,
 * the library's direct calls and the C library's own (qsort's scratch
 * buffer) included, for "nothing allocates after create" checks that do not
 * depend on the config's allocator hook.
 *
 * Without AddressSanitizer, on glibc, the program's malloc, calloc and
 * realloc replace the C library's and count before forwarding to it. Under
 * AddressSanitizer (which brings its own malloc) a sanitizer malloc hook
 * counts instead. Elsewhere counting is unavailable: count_malloc_start()
 * returns false and count_malloc_unavailable says why.
 *
 * It defines malloc: include it in one translation unit of a program only.
 */
#ifndef TEMPO_TESTS_COUNT_MALLOC_H
#define TEMPO_TESTS_COUNT_MALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COUNT_MALLOC_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define COUNT_MALLOC_ASAN 1
#endif

static volatile uint64_t count_malloc_calls;

#if defined(COUNT_MALLOC_ASAN)
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));

static void count_malloc_hook(const volatile void *p, size_t size)
{
    (void)p;
    (void)size;
    count_malloc_calls++;
}

static void count_free_hook(const volatile void *p)
{
    (void)p;
}

static const char *const count_malloc_unavailable =
    "the AddressSanitizer malloc hook could not be installed";

static inline bool count_malloc_start(void)
{
    static int installed;
    if (!installed)
        installed = __sanitizer_install_malloc_and_free_hooks(count_malloc_hook, count_free_hook) > 0 ? 1 : -1;
    return installed > 0;
}
#elif defined(__GLIBC__)
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *p, size_t size);

void *malloc(size_t size)
{
    count_malloc_calls++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size)
{
    count_malloc_calls++;
    return __libc_calloc(count, size);
}

void *realloc(void *p, size_t size)
{
    count_malloc_calls++;
    return __libc_realloc(p, size);
}

static const char *const count_malloc_unavailable = "";

static inline bool count_malloc_start(void)
{
    return true;
}
#else
static const char *const count_malloc_unavailable =
    "malloc is counted only on glibc or under AddressSanitizer";

static inline bool count_malloc_start(void)
{
    return false;
}
#endif

/* Allocations made by the program so far (meaningful once started). */
static inline uint64_t count_malloc_total(void)
{
    return count_malloc_calls;
}

#endif /* TEMPO_TESTS_COUNT_MALLOC_H */
