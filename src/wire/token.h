/* SPDX-License-Identifier: MIT */
/*
 * token.h — the byte layout of a connect token (tempo/secure.h; the table
 * is in docs/SECURITY.md, "Connect tokens"). Internal: the offsets tests
 * and tools name when they look inside a token.
 *
 * Public token, TEMPO_TOKEN_SIZE (800) bytes, integers little endian:
 *
 *   0    8    version "TEMPOTK1"            ]
 *   8    8    protocol id                   ] associated data of the seal
 *   16   8    creation time, seconds        ]
 *   24   8    expiry time, seconds          ]
 *   32   24   nonce (XChaCha20-Poly1305, random)
 *   56   512  sealed private part: 496 bytes encrypted, then the 16-byte tag
 *   ---- the first 568 bytes (TEMPO_TOKEN_CONNECT_SIZE) go to a server ----
 *   568  1    server count, 1..8
 *   569  3    zero
 *   572  160  8 address slots of 20 bytes (unused slots zero)
 *   732  32   client-to-server key
 *   764  32   server-to-client key
 *   796  4    zero
 *
 * Private part before sealing, 496 bytes:
 *
 *   0    8    client id
 *   8    1    server count, 1..8
 *   9    7    zero
 *   16   160  8 address slots
 *   176  32   client-to-server key
 *   208  32   server-to-client key
 *   240  256  user data
 *
 * Address slot, 20 bytes: family (0 none, 1 opaque, 4 IPv4, 6 IPv6), id
 * size (opaque: 1..16, else 0), 16 address bytes (IPv4 uses 4, opaque its
 * id size, the rest zero), port (u16).
 */
#ifndef TEMPO_WIRE_TOKEN_H
#define TEMPO_WIRE_TOKEN_H

#include "tempo/secure.h"

#define TOKEN_VERSION "TEMPOTK1"
#define TOKEN_VERSION_SIZE 8
#define TOKEN_AD_SIZE 32       /* version, protocol id, creation, expiry */
#define TOKEN_NONCE_SIZE 24
#define TOKEN_TAG_SIZE 16
#define TOKEN_SLOT_SIZE 20

#define TOKEN_AT_PROTOCOL 8
#define TOKEN_AT_CREATE 16
#define TOKEN_AT_EXPIRE 24
#define TOKEN_AT_NONCE 32
#define TOKEN_AT_PRIVATE 56
#define TOKEN_PRIVATE_SIZE 512 /* sealed: plain part and tag */
#define TOKEN_PLAIN_SIZE (TOKEN_PRIVATE_SIZE - TOKEN_TAG_SIZE)
#define TOKEN_AT_COUNT 568
#define TOKEN_AT_SERVERS 572
#define TOKEN_AT_C2S 732
#define TOKEN_AT_S2C 764

#define TOKEN_PLAIN_AT_COUNT 8
#define TOKEN_PLAIN_AT_SERVERS 16
#define TOKEN_PLAIN_AT_C2S 176
#define TOKEN_PLAIN_AT_S2C 208
#define TOKEN_PLAIN_AT_USER 240

#endif /* TEMPO_WIRE_TOKEN_H */
