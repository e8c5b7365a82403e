/* SPDX-License-Identifier: MIT */
/*
 * hook_count.h — an allocator hook for tests: it counts what is asked for,
 * can fail one chosen allocation, and knows how many blocks are still out,
 * so a test can prove a call allocates nothing or that every failure path
 * frees what it took.
 */
#ifndef TEMPO_TESTS_HOOK_COUNT_H
#define TEMPO_TESTS_HOOK_COUNT_H

#include <stdlib.h>

#include "tempo/base.h"

typedef struct hook_count {
    int fail_at; /* the allocation numbered so (0-based) fails; -1: none */
    int count;   /* allocations asked for, the failed one included */
    int live;    /* blocks handed out and not yet freed */
} hook_count;

static inline void *hc_alloc(void *ctx, size_t size)
{
    hook_count *c = (hook_count *)ctx;
    if (c->count++ == c->fail_at)
        return NULL;
    c->live++;
    return malloc(size);
}

static inline void hc_free(void *ctx, void *p)
{
    hook_count *c = (hook_count *)ctx;
    c->live--;
    free(p);
}

/* The hook as a tempo_allocator counting into c. */
static inline tempo_allocator hook_count_allocator(hook_count *c)
{
    tempo_allocator a = {hc_alloc, hc_free, c};
    return a;
}

#endif /* TEMPO_TESTS_HOOK_COUNT_H */
