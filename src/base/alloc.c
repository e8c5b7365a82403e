/* SPDX-License-Identifier: MIT */
/*
 * alloc.c — allocation through a tempo_allocator (NULL hooks: malloc/free).
 * Only create functions allocate; the tick path never does.
 */
#include "base/common.h"

#include <stdlib.h>
#include <string.h>

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
