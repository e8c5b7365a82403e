/* SPDX-License-Identifier: MIT */
/*
 * bitpack.h — bounds-checked bit writer and reader, the layer under the codec.
 *
 * Bits are packed least significant first: bit i of the stream is bit (i % 8)
 * of byte i / 8, and a field's low bit goes first. A 32-bit field written at a
 * byte boundary is therefore its little-endian bytes.
 *
 * Invariant: neither side ever touches a byte outside its buffer. The first
 * failure POISONS the object: a write past capacity, a read past the end, a
 * value out of range or a bad argument makes that call and every later call
 * fail (false, and 0 in the output), so a decoder may check once at the end.
 *
 * Field kinds:
 *   bits     n = 1..32 bits, unsigned.
 *   ranged   an integer in [min, max] sent as value - min in
 *            tempo_bitpack_bits_required(max - min) bits (0 bits when min == max);
 *            a read above max fails.
 *   uvarint  unsigned 32-bit value in groups of `group` bits (1..16), low
 *            group first, each followed by one "more" bit (1 = another group
 *            follows). Canonical only: a last group of zero after the first,
 *            a group past bit 31, or a value above 2^32 - 1 fails the read.
 *   svarint  signed 32-bit value, zigzag-mapped (0, -1, 1, -2 ... -> 0, 1, 2,
 *            3 ...) then sent as a uvarint.
 *   bytes    a run of n bytes, 8 bits each, at any bit position.
 */
#ifndef TEMPO_WIRE_BITPACK_H
#define TEMPO_WIRE_BITPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TEMPO_VARINT_MAX_GROUP 16

typedef struct tempo_bitwriter {
    uint8_t *buf;         /* NULL: measure only (count bits, write nothing) */
    size_t capacity_bits; /* writes past this poison the writer */
    size_t bits;          /* bits written so far */
    bool failed;
} tempo_bitwriter;

/* Why a reader is poisoned. */
typedef enum tempo_bitread_error {
    TEMPO_BITREAD_OK = 0,
    TEMPO_BITREAD_END = 1,   /* a read went past the end of the data */
    TEMPO_BITREAD_RANGE = 2  /* a value out of range, non-canonical, or a bad argument */
} tempo_bitread_error;

typedef struct tempo_bitreader {
    const uint8_t *buf;
    size_t size_bits;
    size_t bits;  /* bits consumed so far */
    int error;    /* tempo_bitread_error; sticky once set */
} tempo_bitreader;

/* Bits needed to hold every value 0..range (0 for range 0, 32 for 2^32 - 1). */
int tempo_bitpack_bits_required(uint32_t range);
/* Bits a uvarint of `value` with `group`-bit groups takes (group 1..16). */
int tempo_bitpack_uvarint_bits(uint32_t value, int group);
/* Zigzag mapping of a signed value and its inverse. */
uint32_t tempo_bitpack_zigzag(int32_t v);
int32_t tempo_bitpack_unzigzag(uint32_t u);

/* ---- writer ---- */

/* Start writing into buf (capacity bytes; buf NULL measures only, capacity
 * still bounds it). Bytes are written whole as bits reach them, so the
 * padding bits of the last byte are zero; bytes not reached are untouched. */
void tempo_bitwriter_init(tempo_bitwriter *w, uint8_t *buf, size_t capacity);
/* Write the low nbits (1..32) of value; value must fit in nbits. */
bool tempo_bitwriter_bits(tempo_bitwriter *w, uint32_t value, int nbits);
/* Write value in [min, max] (min <= max). */
bool tempo_bitwriter_ranged(tempo_bitwriter *w, int32_t value, int32_t min, int32_t max);
bool tempo_bitwriter_uvarint(tempo_bitwriter *w, uint32_t value, int group);
bool tempo_bitwriter_svarint(tempo_bitwriter *w, int32_t value, int group);
/* Write n bytes from data (data may be NULL when n is 0). */
bool tempo_bitwriter_bytes(tempo_bitwriter *w, const uint8_t *data, size_t n);
/* Write the nbits bits of src that start at bit `from` (bit i of src is bit
 * i % 8 of src[i / 8], as the writer lays them), e.g. part of another
 * writer's output; src must hold them and must not overlap the writer's
 * buffer. */
bool tempo_bitwriter_copy(tempo_bitwriter *w, const uint8_t *src, size_t from, size_t nbits);
/* Bits written so far, and the bytes they occupy (rounded up). */
size_t tempo_bitwriter_bits_written(const tempo_bitwriter *w);
size_t tempo_bitwriter_bytes_written(const tempo_bitwriter *w);

/* ---- reader ---- */

/* Start reading size bytes at data (data may be NULL when size is 0). */
void tempo_bitreader_init(tempo_bitreader *r, const uint8_t *data, size_t size);
bool tempo_bitreader_bits(tempo_bitreader *r, int nbits, uint32_t *out);
bool tempo_bitreader_ranged(tempo_bitreader *r, int32_t min, int32_t max, int32_t *out);
bool tempo_bitreader_uvarint(tempo_bitreader *r, int group, uint32_t *out);
bool tempo_bitreader_svarint(tempo_bitreader *r, int group, int32_t *out);
/* Read n bytes into out (zeroed on failure). */
bool tempo_bitreader_bytes(tempo_bitreader *r, uint8_t *out, size_t n);
/* Poison the reader with `error` (a caller's own range check); returns false. */
bool tempo_bitreader_fail(tempo_bitreader *r, tempo_bitread_error error);
size_t tempo_bitreader_bits_read(const tempo_bitreader *r);
size_t tempo_bitreader_bits_left(const tempo_bitreader *r);
/* True if fewer than 8 bits are left and all of them are zero: the body
 * ended exactly at its padding. Does not consume or poison. */
bool tempo_bitreader_at_end(const tempo_bitreader *r);

#endif /* TEMPO_WIRE_BITPACK_H */
