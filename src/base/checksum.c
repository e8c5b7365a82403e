/* SPDX-License-Identifier: MIT */
/*
 * checksum.c — tempo_checksum: XXH3-64 with seed 0, from xxHash used as a
 * header-only library, so nothing extra is linked.
 */
#include "base/common.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t tempo_checksum(const void *data, size_t size)
{
    if (!data || size == 0)
        return XXH3_64bits("", 0);
    return XXH3_64bits(data, size);
}
