/* SPDX-License-Identifier: MIT */
/*
 * seal.h — sealing a datagram and opening it again (docs/SECURITY.md,
 * "Sealed datagrams"; docs/PROTOCOL.md, section 2.2).
 *
 * A sealed datagram is the 8-byte header with the S bit set, the body
 * encrypted with ChaCha20-Poly1305 (IETF, 96-bit nonce), and the 16-byte
 * tag after it:
 *
 *   bytes 0..7    header, S = 1 (associated data: authenticated, not encrypted)
 *   bytes 8..n-17 body, encrypted
 *   last 16       tag over header and encrypted body
 *
 * The nonce is the sender's full 64-bit sequence, little endian, then one
 * direction byte, then three zero bytes. A link never sends two datagrams
 * with one sequence, and the two directions of a link use different
 * direction bytes, so no nonce repeats under a key as long as a key lives
 * no longer than one run of sequence numbers (a fresh key for each match,
 * and a new one whenever a sender's sequence starts again from 0).
 *
 * The keys of one link live in a wire_keys, owned by the link; sealing
 * uses the send half, opening the receive half. seal_keys_wipe clears it
 * with sodium_memzero when the link ends.
 *
 * Built without libsodium (TEMPO_HAVE_SODIUM unset: the mingw-w64 cross
 * build), every function returns TEMPO_E_UNSUPPORTED and seal_available()
 * is false; seal_keys_wipe and seal_wipe still clear memory.
 *
 * Nothing here allocates or reads a clock; sealing and opening work in
 * place in the caller's buffer.
 */
#ifndef TEMPO_WIRE_SEAL_H
#define TEMPO_WIRE_SEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/drop.h"

#define SEAL_KEY_SIZE 32
#define SEAL_TAG_SIZE 16   /* equals PACKET_TAG_SIZE (checked in seal.c) */
#define SEAL_NONCE_SIZE 12 /* ChaCha20-Poly1305-IETF */

/* The direction byte of the nonce. Client and server: the client sends
 * with LOW, the server with HIGH. Two peers: the one with the lower
 * identity (wire/keys.h) sends with LOW. */
#define SEAL_DIRECTION_LOW 0u
#define SEAL_DIRECTION_HIGH 1u

/* One link's keys: what it seals with and what it opens with. ready is
 * set by seal_keys_set (or a function that derives keys) and cleared by
 * seal_keys_wipe; sealing and opening refuse keys that are not ready. */
typedef struct wire_keys {
    uint8_t send_key[SEAL_KEY_SIZE];
    uint8_t recv_key[SEAL_KEY_SIZE];
    uint8_t send_direction; /* SEAL_DIRECTION_LOW or _HIGH */
    uint8_t recv_direction; /* the other one */
    bool ready;
} wire_keys;

/* Whether this build can seal (it was built with libsodium). */
bool seal_available(void);

/* Start libsodium once per process (thread-safe, cheap after the first
 * call). TEMPO_OK, or TEMPO_E_UNSUPPORTED (no libsodium in this build, or
 * it could not start: no source of randomness). Every function that makes
 * keys calls it, so sealing and opening need not. */
int seal_start(void);

/* Fill k from two raw keys (copied) and the send direction; the receive
 * direction is the other one. TEMPO_OK, TEMPO_E_INVALID_ARG (a NULL, a
 * direction other than LOW or HIGH), TEMPO_E_UNSUPPORTED (see seal_start;
 * k is then left wiped). */
int seal_keys_set(wire_keys *k, const uint8_t send_key[SEAL_KEY_SIZE],
                  const uint8_t recv_key[SEAL_KEY_SIZE], uint8_t send_direction);

/* Clear every byte of k (sodium_memzero: not optimised away). NULL is
 * allowed. Afterwards k is all zero and not ready. */
void seal_keys_wipe(wire_keys *k);

/* Clear size bytes at p so the compiler cannot drop the stores. */
void seal_wipe(void *p, size_t size);
/* Whether two keys are equal, in a time that does not depend on where
 * they differ. */
bool seal_key_equal(const uint8_t a[SEAL_KEY_SIZE], const uint8_t b[SEAL_KEY_SIZE]);

/* The nonce of the datagram with this sequence going this direction:
 * sequence little endian in bytes 0..7, direction in byte 8, zeros after. */
void seal_nonce(uint64_t sequence, uint8_t direction, uint8_t out[SEAL_NONCE_SIZE]);

/* Seal the plain datagram buf[0..size) in place: set the header's S bit,
 * encrypt the body and append the tag at buf[size..size + 16). `sequence`
 * is the full 64-bit sequence whose low 16 bits the header carries.
 * Returns the sealed size (size + SEAL_TAG_SIZE), or
 *   TEMPO_E_INVALID_ARG  k or buf NULL, size < 8, byte 0 is not the plain
 *                        protocol byte of this version, or the header's
 *                        sequence bits are not the low 16 of `sequence`;
 *   TEMPO_E_FULL         size + 16 exceeds capacity or TEMPO_MAX_DATAGRAM;
 *   TEMPO_E_STATE        k is not ready;
 *   TEMPO_E_UNSUPPORTED  built without libsodium.
 * On an error buf is unchanged. */
int seal_datagram(const wire_keys *k, uint64_t sequence, uint8_t *buf, size_t size,
                  size_t capacity);

/* Open the sealed datagram data[0..size) in place: check the tag over the
 * header and the encrypted body with k's receive key and the nonce of
 * `sequence` (the receiver's recovery of the header's 16 bits) and
 * decrypt the body. The header is left as it came (S = 1). Returns the
 * size without the tag (size - 16: the body is data[8..size - 16)), or
 *   TEMPO_E_MALFORMED    *reason (if reason is not NULL) says why:
 *                        TOO_SHORT (under 24 bytes), TOO_LONG (over
 *                        TEMPO_MAX_DATAGRAM), FORGED (the tag does not
 *                        verify: altered, another key, another direction,
 *                        or a sequence recovered wrongly); the body's
 *                        bytes are then unspecified;
 *   TEMPO_E_INVALID_ARG  k or data NULL, the S bit clear, or the header's
 *                        sequence bits are not the low 16 of `sequence`;
 *   TEMPO_E_STATE        k is not ready;
 *   TEMPO_E_UNSUPPORTED  built without libsodium.
 * A receiver opens after the header, session and replay checks and before
 * any decoding, and counts every refusal. */
int seal_open(const wire_keys *k, uint64_t sequence, uint8_t *data, size_t size,
              tempo_drop_reason *reason);

#endif /* TEMPO_WIRE_SEAL_H */
