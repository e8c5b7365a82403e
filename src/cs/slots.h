/* SPDX-License-Identifier: MIT */
/*
 * slots.h — a client's player slots are one contiguous run, first ..
 * first + count - 1; the public structures also show them as a 64-bit
 * mask of the slots below 64, for matches that small.
 */
#ifndef TEMPO_CS_SLOTS_H
#define TEMPO_CS_SLOTS_H

#include <stdint.h>

/* Bit p set for each slot p of first .. first + count - 1 below 64. */
static inline uint64_t cs_slot_mask(int first, int count)
{
    uint64_t m = 0;
    for (int p = first; p < first + count && p < 64; p++)
        m |= 1ull << p;
    return m;
}

#endif /* TEMPO_CS_SLOTS_H */
