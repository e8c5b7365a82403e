/* SPDX-License-Identifier: MIT */
/*
 * flips.h — one input coded against the one before it, as the bits that
 * flipped: the delta coding INPUT messages (docs/PROTOCOL.md) and replay
 * files (docs/REPLAY.md) share. Two spellings, and the caller writes which:
 *   sparse: uvarint(flips - 1) in the caller's group width, then each
 *           flipped bit's position (byte * 8 + bit), strictly ascending,
 *           in `posw` bits;
 *   dense:  per byte, a 0 bit if unchanged, or a 1 bit and the byte's XOR
 *           (never 0).
 * Readers refuse what a writer never writes (positions out of order or out
 * of range, a dense form with no changed byte or a zero XOR).
 */
#ifndef TEMPO_WIRE_FLIPS_H
#define TEMPO_WIRE_FLIPS_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/bitpack.h"

/* Bits set in v (v < 2^32). */
int flips_popcount(uint32_t v);

/* The size in bits of each spelling of cur against prev (is bytes), and
 * how many bits and bytes differ. */
typedef struct flips_cost {
    int flips, bytes;
    int sparse, dense; /* bits of each spelling, selector bits not counted */
} flips_cost;
flips_cost flips_measure(const uint8_t *prev, const uint8_t *cur, int is, int group, int posw);

void flips_put_sparse(tempo_bitwriter *w, const uint8_t *prev, const uint8_t *cur, int is, int group,
                      int posw);
void flips_put_dense(tempo_bitwriter *w, const uint8_t *prev, const uint8_t *cur, int is);

/* Apply the coded flips to cur (which holds the previous input). False,
 * with the reader's error set, on anything a writer never writes. */
bool flips_get_sparse(tempo_bitreader *r, uint8_t *cur, int is, int group, int posw);
bool flips_get_dense(tempo_bitreader *r, uint8_t *cur, int is);

#endif /* TEMPO_WIRE_FLIPS_H */
