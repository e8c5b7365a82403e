/* SPDX-License-Identifier: MIT */
/*
 * siphash.h — SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast
 * short-input PRF", 2012): a keyed 64-bit pseudorandom function, the
 * message authentication code of the unsealed handshake's cookies
 * (net/gate.h), so that mode works in builds without libsodium.
 *
 * A 64-bit tag is forged with 2^64 guesses on average: enough for the
 * LAN and test games the unsealed mode is for. libsodium's
 * crypto_shorthash_siphash24 computes the same function (the tests
 * compare them where libsodium is present).
 */
#ifndef TEMPO_WIRE_SIPHASH_H
#define TEMPO_WIRE_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define SIPHASH_KEY_SIZE 16

/* SipHash-2-4 of data[0..size) under key; the 8 output bytes of the
 * reference implementation read as a little-endian integer. data may be
 * NULL when size is 0. */
uint64_t siphash24(const uint8_t key[SIPHASH_KEY_SIZE], const uint8_t *data, size_t size);

#endif /* TEMPO_WIRE_SIPHASH_H */
