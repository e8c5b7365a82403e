/* SPDX-License-Identifier: MIT */
/*
 * seal.h — sealing a datagram and opening it again (docs/SECURITY.md,
 * "Sealed datagrams"; docs/PROTOCOL.md, section 2.2).
 *
 * A sealed datagram is the 8-byte header with the S bit set, the body
 * encrypted with the link's AEAD (ChaCha20-Poly1305-IETF or AES-256-GCM,
 * both with a 96-bit nonce and a 16-byte tag), and the tag after it:
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
 * Which AEAD: a link's keys start with ChaCha20-Poly1305 and take the
 * cipher its handshake agreed (seal_keys_use). Whatever the link agreed,
 * the handshake's own types (seal_type_fixed: SYNC_REQUEST, SYNC_REPLY,
 * turn_hello, turn_hello_reply, REJOIN_REFUSED) are always sealed with
 * ChaCha20-Poly1305, because they travel before, or without, the
 * agreement; the type byte is associated data, so nobody can move a
 * datagram from one rule to the other. The two AEADs share the nonce rule
 * above under one key: a sequence is used once per direction whichever
 * AEAD seals it, so no nonce repeats under either.
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
#define SEAL_NONCE_SIZE 12 /* ChaCha20-Poly1305-IETF and AES-256-GCM */
#define SEAL_AES_STATE_SIZE 512 /* crypto_aead_aes256gcm_state (checked in seal.c) */

/* Ciphers, as bits of an offer (what an end can and may use) and as the
 * one a link uses. */
#define SEAL_CIPHER_CHACHA20 0x01u
#define SEAL_CIPHER_AES256GCM 0x02u
#define SEAL_CIPHERS_ALL 0x03u

/* The direction byte of the nonce. Client and server: the client sends
 * with LOW, the server with HIGH. Two peers: the one with the lower
 * identity (wire/keys.h) sends with LOW. */
#define SEAL_DIRECTION_LOW 0u
#define SEAL_DIRECTION_HIGH 1u

/* One link's keys: what it seals with and what it opens with. ready is
 * set by seal_keys_set (or a function that derives keys) and cleared by
 * seal_keys_wipe; sealing and opening refuse keys that are not ready.
 * With AES-256-GCM each direction's key is expanded once, into aes_send
 * and aes_recv, by seal_keys_use; libsodium wants those 16-byte aligned,
 * which _Alignas gives any wire_keys the compiler places. One in memory a
 * game's allocator aligned less is still correct: sealing then expands
 * the key per datagram instead (slower, never misaligned). A copy of a
 * wire_keys (a struct assignment) carries its expanded keys with it. */
typedef struct wire_keys {
    _Alignas(16) uint8_t aes_send[SEAL_AES_STATE_SIZE];
    _Alignas(16) uint8_t aes_recv[SEAL_AES_STATE_SIZE];
    uint8_t send_key[SEAL_KEY_SIZE];
    uint8_t recv_key[SEAL_KEY_SIZE];
    uint8_t send_direction; /* SEAL_DIRECTION_LOW or _HIGH */
    uint8_t recv_direction; /* the other one */
    uint8_t cipher;         /* SEAL_CIPHER_CHACHA20 (after seal_keys_set) or _AES256GCM */
    bool agreed;            /* seal_keys_use set cipher (the handshake agreed it) */
    bool ready;
} wire_keys;

/* Whether this process can seal with AES-256-GCM: built with libsodium,
 * the CPU has the instructions, and no test hid them. */
bool seal_aes_available(void);

/* Tests only: make seal_aes_available() false (hide = true) or true again
 * where the CPU has AES, for offers computed from now on: a test builds a
 * machine without AES (a browser page) beside native ones. Not thread
 * safe. */
void seal_test_hide_aes(bool hide);

/* The offer of an end whose configuration says `cipher`
 * (tempo_cipher: 0 AUTO, 1 CHACHA20, 2 AES256GCM): a mask of
 * SEAL_CIPHER_* bits, 0 when the setting cannot be met here (AES256GCM
 * without AES) or is out of range. */
uint8_t seal_offer(int cipher);

/* The check a create function makes of a configuration's cipher:
 * TEMPO_OK, TEMPO_E_INVALID_ARG (not a tempo_cipher),
 * TEMPO_E_UNSUPPORTED (AES256GCM where seal_aes_available() is false). */
int seal_cipher_check(int cipher);

/* The cipher two offers agree on: AES-256-GCM if both have it, else
 * ChaCha20-Poly1305 if both have it, else 0 (the handshake fails). Bits
 * outside SEAL_CIPHERS_ALL are ignored. Symmetric in a and b. */
uint8_t seal_choose(uint8_t a, uint8_t b);

/* Whether datagrams of this type byte (its low 7 bits) are sealed with
 * ChaCha20-Poly1305 whatever the link agreed: the handshakes' types. */
bool seal_type_fixed(uint8_t type_byte);

/* Make k seal and open with `cipher` (SEAL_CIPHER_CHACHA20 or
 * _AES256GCM), expanding the AES keys once here, and mark it agreed.
 * TEMPO_OK, TEMPO_E_INVALID_ARG (NULL, another value), TEMPO_E_STATE (k
 * not ready), TEMPO_E_UNSUPPORTED (AES where seal_aes_available() is
 * false; k is then unchanged). */
int seal_keys_use(wire_keys *k, uint8_t cipher);

/* A handshake message (authenticated under k) brought the peer's offer:
 * the first one makes k use seal_choose(ours, theirs); each later one must
 * choose the same. False, with k unchanged, when the offers share no
 * cipher, choose another than the one agreed, or k is not ready: the
 * caller drops the message and counts it. */
bool seal_keys_agree(wire_keys *k, uint8_t ours, uint8_t theirs);

/* Whether this build can seal (it was built with libsodium). */
bool seal_available(void);

/* Start libsodium once per process (thread-safe, cheap after the first
 * call). TEMPO_OK, or TEMPO_E_UNSUPPORTED (no libsodium in this build, or
 * it could not start: no source of randomness). Every function that makes
 * keys calls it, so sealing and opening need not. */
int seal_start(void);

/* Fill k from two raw keys (copied) and the send direction; the receive
 * direction is the other one. The cipher is ChaCha20-Poly1305, not yet
 * agreed. TEMPO_OK, TEMPO_E_INVALID_ARG (a NULL, a
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

/* Seal the plain datagram buf[0..size) in place with k's cipher (or
 * ChaCha20-Poly1305 for a seal_type_fixed type): set the header's S bit,
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
 * header and the encrypted body with k's receive key, its cipher (as
 * seal_datagram chooses it), and the nonce of
 * `sequence` (the receiver's recovery of the header's 16 bits) and
 * decrypt the body. The header is left as it came (S = 1). Returns the
 * size without the tag (size - 16: the body is data[8..size - 16)), or
 *   TEMPO_E_MALFORMED    *reason (if reason is not NULL) says why:
 *                        TOO_SHORT (under 24 bytes), TOO_LONG (over
 *                        TEMPO_MAX_DATAGRAM), FORGED (the tag does not
 *                        verify: altered, another key, another direction,
 *                        another cipher, or a sequence recovered wrongly); the body's
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
