/* SPDX-License-Identifier: MIT */
/*
 * delta.h — a state block (an opaque run of bytes, such as a server's
 * snapshot of the game) coded against an older one the receiver holds: the
 * XOR of the two, as alternating runs of zero bytes and literal bytes
 * (docs/PROTOCOL.md, "State deltas"):
 *
 *   delta = zero-run (literal-run zero-run)* [literal-run]
 *   zero-run    = uvarint g7 (LEB128): that many bytes equal to the base
 *   literal-run = uvarint g7, then that many XOR bytes
 *
 * The first zero run may be 0 bytes long, every other run is at least 1,
 * and the data ends exactly where the runs reach the state's size. A few
 * changed fields cost their bytes plus about two bytes each; the small moves
 * of a position leave zero high bytes in the XOR that the zero runs skip.
 * The encoder never writes more than the all-literal form, so
 * delta_bound(n) = n + 1 + (bytes of uvarint n) is a true worst case.
 *
 * The decoder treats the data as hostile: every length is checked against
 * the state and the data before a byte moves. No allocation, no clock.
 */
#ifndef TEMPO_WIRE_DELTA_H
#define TEMPO_WIRE_DELTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest state the coder takes (16 MiB; snapshots are at most 64 KiB). */
#define DELTA_MAX_STATE ((size_t)1 << 24)

/* Upper bound of the encoded size of a state of n bytes (worst case, for
 * buffers): n + 1 + the bytes of n as a uvarint g7. */
size_t delta_bound(size_t n);

/* Encode cur[0..n) against base[0..n) (base NULL: against all zeros) into
 * out (capacity cap). Returns the bytes written (> 0; an unchanged state
 * encodes to the 1..4 bytes of its length), or 0 if cap is too small, n is
 * above DELTA_MAX_STATE or cur/out is NULL where bytes are needed. Bytes of
 * out past the returned size may have been written. */
size_t delta_encode(const uint8_t *base, const uint8_t *cur, size_t n, uint8_t *out, size_t cap);

/* Decode data[0..size) against base[0..n) (NULL: zeros) into out[0..n)
 * (out may not alias base). Returns true if data is a well-formed delta for
 * exactly n bytes; false on anything else (a run past n, a zero-length run
 * after the first, a non-canonical or truncated varint, bytes after the
 * end, n above DELTA_MAX_STATE). Never reads or writes out of bounds; out's
 * content is unspecified on false. */
bool delta_decode(const uint8_t *base, size_t n, const uint8_t *data, size_t size, uint8_t *out);

#endif /* TEMPO_WIRE_DELTA_H */
