/* SPDX-License-Identifier: MIT */
/*
 * connect.h — the four messages of the server handshake and the cookie,
 * byte by byte (docs/PROTOCOL.md, section 12; the exchange is net/gate.h's).
 *
 * Every message starts with the 8-byte packet header (wire/packet.h): no
 * fragment bit, session id the low 32 bits of the protocol id, type 16..19.
 * A plain message carries sequence 0 in its header. A sealed one carries,
 * right after the header, the sender's full 64-bit sequence in the clear
 * (bytes 8..15; the header's 16 bits are its low bits), so a receiver with
 * no state can make the nonce; the header and those 8 bytes are associated
 * data, and the nonce is wire/seal.h's (sequence, direction byte):
 *
 *   CONNECT_REQUEST (16), plain, always CONNECT_REQUEST_SIZE bytes:
 *     8 protocol id u64 | 16 mode (0 nonce, 1 token) | 17 slots 1..8 |
 *     18 token connect part (568 bytes) or client nonce (u64) | zeros
 *   CHALLENGE (17), server to client:
 *     sealed: 8 sequence u64 | 16 client id u64 | 24 ciphers u8 (the
 *             server's offer, wire/seal.h) | 25 cookie | tag, all after
 *             byte 16 encrypted under the server-to-client key (HIGH)
 *     plain:  8 client id u64 (the client's nonce) | 16 cookie
 *   CHALLENGE_RESPONSE (18), client to server:
 *     sealed: 8 sequence u64 | 16 ciphers u8 (the client's offer) |
 *             17 cookie | tag: nothing encrypted, the tag
 *             (client-to-server key, LOW) covers every byte before it
 *     plain:  8 cookie
 *   CONNECT_DENIED (19), server to client:
 *     sealed: 8 sequence u64 | 16 tag (server-to-client key, HIGH)
 *     plain:  8 client id u64
 *
 * A cookie is what the server will need once the client answers, sealed
 * under the server's cookie key with the client's address and the protocol
 * id as associated data, so only that server can open it and only for that
 * address:
 *
 *   0  8  cookie nonce u64 (the server's reply counter; clear)
 *   8  1  key generation (which cookie key; clear)
 *   9     client id u64 | issue time u64 (µs, the server's clock) |
 *         token expiry u64 (seconds) | slots u8 |
 *         sealed only: client-to-server key | server-to-client key |
 *         user data (256 bytes)
 *   then  sealed: the 16-byte tag (ChaCha20-Poly1305-IETF, the fields
 *         encrypted); plain: an 8-byte SipHash-2-4 tag (fields in clear)
 *
 * Readers never touch a byte outside [data, data + size), accept exactly
 * one size per message and mode, and say why they refused.
 */
#ifndef TEMPO_WIRE_CONNECT_H
#define TEMPO_WIRE_CONNECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/secure.h"
#include "wire/packet.h"

/* Message types (the codec names them, wire/codec.c; it decodes none). */
#define CONNECT_TYPE_REQUEST 16
#define CONNECT_TYPE_CHALLENGE 17
#define CONNECT_TYPE_RESPONSE 18
#define CONNECT_TYPE_DENIED 19

#define CONNECT_MODE_NONCE 0
#define CONNECT_MODE_TOKEN 1
#define CONNECT_MAX_SLOTS TEMPO_MAX_PLAYERS

/* CONNECT_REQUEST: one size whatever the mode, larger than any reply. */
#define CONNECT_REQUEST_SIZE 1024
#define CONNECT_AT_PROTOCOL 8
#define CONNECT_AT_MODE 16
#define CONNECT_AT_SLOTS 17
#define CONNECT_AT_PROOF 18

#define CONNECT_AT_SEQUENCE 8 /* sealed messages */
#define CONNECT_SEALED_AD 16  /* header and sequence */
#define CONNECT_TAG_SIZE 16

/* The cookie. */
#define COOKIE_CLEAR_SIZE 9
#define COOKIE_FIELDS_SIZE 25 /* client id, issue time, expiry, slots */
#define COOKIE_SECRET_SIZE (COOKIE_FIELDS_SIZE + 2 * TEMPO_KEY_SIZE + TEMPO_TOKEN_USER_DATA_SIZE)
#define COOKIE_SEALED_SIZE (COOKIE_CLEAR_SIZE + COOKIE_SECRET_SIZE + 16) /* 370 */
#define COOKIE_PLAIN_SIZE (COOKIE_CLEAR_SIZE + COOKIE_FIELDS_SIZE + 8)    /* 42 */

/* Whole messages, by mode. */
#define CONNECT_CHALLENGE_SEALED_SIZE \
    (CONNECT_SEALED_AD + 9 + COOKIE_SEALED_SIZE + CONNECT_TAG_SIZE) /* 411 */
#define CONNECT_CHALLENGE_PLAIN_SIZE (PACKET_HEADER_SIZE + 8 + COOKIE_PLAIN_SIZE) /* 58 */
#define CONNECT_RESPONSE_SEALED_SIZE \
    (CONNECT_SEALED_AD + 1 + COOKIE_SEALED_SIZE + CONNECT_TAG_SIZE) /* 403 */
#define CONNECT_RESPONSE_PLAIN_SIZE (PACKET_HEADER_SIZE + COOKIE_PLAIN_SIZE) /* 50 */
#define CONNECT_DENIED_SEALED_SIZE (CONNECT_SEALED_AD + CONNECT_TAG_SIZE) /* 32 */
#define CONNECT_DENIED_PLAIN_SIZE (PACKET_HEADER_SIZE + 8) /* 16 */

/* Why a handshake datagram was refused: one list for both sides. */
typedef enum connect_refusal {
    CONNECT_OK = 0,
    CONNECT_MALFORMED,      /* size, header, a field out of range, padding not zero */
    CONNECT_WRONG_PROTOCOL, /* another protocol id (header or body) */
    CONNECT_WRONG_MODE,     /* sealed where plain is expected, or the reverse */
    CONNECT_BAD_TOKEN,      /* the token does not open: altered, another key, out of range */
    CONNECT_EXPIRED,        /* the token's expiry has passed */
    CONNECT_WRONG_SERVER,   /* the token does not name this server */
    CONNECT_BAD_COOKIE,     /* the cookie does not open: forged, another address, a retired key */
    CONNECT_STALE_COOKIE,   /* the cookie is older than its lifetime, or issued in the future */
    CONNECT_FORGED,         /* a seal that does not verify; a plain message's id that is not ours */
    CONNECT_UNEXPECTED,     /* not a handshake message, or one this side never receives */
    CONNECT_NO_CIPHER,      /* the two ends' cipher offers share none (wire/seal.h) */
    CONNECT_REFUSAL_COUNT_
} connect_refusal;

/* Short name of a refusal ("bad_cookie"...), static; "unknown" out of range. */
const char *connect_refusal_name(connect_refusal r);

/* What a cookie carries (keys and user data zero in plain mode). */
typedef struct connect_cookie {
    uint64_t client_id;
    uint64_t issued_us;
    uint64_t expire_seconds;
    uint8_t slots;
    uint8_t client_to_server_key[TEMPO_KEY_SIZE];
    uint8_t server_to_client_key[TEMPO_KEY_SIZE];
    uint8_t user_data[TEMPO_TOKEN_USER_DATA_SIZE];
} connect_cookie;

/* A CONNECT_REQUEST as read: token points into the datagram. */
typedef struct connect_request {
    uint8_t mode;         /* CONNECT_MODE_NONCE or _TOKEN */
    uint8_t slots;        /* 1..CONNECT_MAX_SLOTS */
    const uint8_t *token; /* TEMPO_TOKEN_CONNECT_SIZE bytes (token mode) */
    uint64_t nonce;       /* nonce mode */
} connect_request;

/* The session id every handshake header carries. */
uint32_t connect_session_id(uint64_t protocol_id);

/* Header checks shared by every message: packet_read's, no fragment bit,
 * the session id of protocol_id, a type 16..19 (*type). */
connect_refusal connect_peek(const uint8_t *data, size_t size, uint64_t protocol_id,
                             uint8_t *type, bool *sealed);

/* Write a request into buf (at least CONNECT_REQUEST_SIZE bytes): token is
 * the token's connect part, or NULL for nonce mode. Returns
 * CONNECT_REQUEST_SIZE, or TEMPO_E_INVALID_ARG (NULL buf, slots out of range). */
int connect_request_write(uint8_t *buf, uint64_t protocol_id, uint8_t slots,
                          const uint8_t *token, uint64_t nonce);
/* Read a request whose header connect_peek accepted. */
connect_refusal connect_request_read(const uint8_t *data, size_t size, uint64_t protocol_id,
                                     connect_request *out);

/* Seal or write a cookie (connect_cookie_size(sealed) bytes at out).
 * Sealed needs libsodium: TEMPO_E_UNSUPPORTED without. Returns the size. */
size_t connect_cookie_size(bool sealed);
int connect_cookie_write(const uint8_t key[TEMPO_KEY_SIZE], uint8_t generation, uint64_t nonce,
                         bool sealed, const tempo_address *to, uint64_t protocol_id,
                         const connect_cookie *c, uint8_t *out);
/* The key generation a cookie names (its byte 8). */
uint8_t connect_cookie_generation(const uint8_t *cookie);
/* A cookie's nonce (its bytes 0..7): the sequence of the CHALLENGE that
 * carried it. */
uint64_t connect_cookie_sequence(const uint8_t *cookie);
/* Open a cookie made for address `from` under key: CONNECT_OK (out
 * filled), CONNECT_BAD_COOKIE (out wiped). */
connect_refusal connect_cookie_read(const uint8_t key[TEMPO_KEY_SIZE], bool sealed,
                                    const tempo_address *from, uint64_t protocol_id,
                                    const uint8_t *cookie, connect_cookie *out);

/* CHALLENGE. key: the server-to-client key, or NULL for a plain one.
 * ciphers: the server's offer (sealed only; SEAL_CIPHER_* bits, 1..3).
 * Returns the size, or TEMPO_E_FULL (cap), TEMPO_E_INVALID_ARG (sealed,
 * ciphers out of range), TEMPO_E_UNSUPPORTED (sealed, no libsodium). */
int connect_challenge_write(uint8_t *buf, size_t cap, uint64_t protocol_id, const uint8_t *key,
                            uint64_t sequence, uint64_t client_id, uint8_t ciphers,
                            const uint8_t *cookie);
/* Read (and open, sealed) a CHALLENGE whose header connect_peek accepted;
 * cookie receives connect_cookie_size(key != NULL) bytes, *ciphers the
 * server's offer (0 when plain). An offer out of range is MALFORMED. */
connect_refusal connect_challenge_read(const uint8_t *data, size_t size, const uint8_t *key,
                                       uint64_t *sequence, uint64_t *client_id, uint8_t *ciphers,
                                       uint8_t *cookie);

/* CHALLENGE_RESPONSE. key: the connection's client-to-server key
 * (connect_connection_keys), or NULL. ciphers: the client's offer (sealed
 * only, 1..3; TEMPO_E_INVALID_ARG otherwise). */
int connect_response_write(uint8_t *buf, size_t cap, uint64_t protocol_id, const uint8_t *key,
                           uint64_t sequence, uint8_t ciphers, const uint8_t *cookie);
/* The shape of a response (sizes, sequence bits, the offer's range):
 * where its cookie is, and the client's offer (0 when plain). The offer
 * counts only once connect_response_verify says the tag holds. */
connect_refusal connect_response_read(const uint8_t *data, size_t size, bool sealed,
                                      const uint8_t **cookie, uint64_t *sequence,
                                      uint8_t *ciphers);
/* A sealed response's tag under the connection's client-to-server key. */
bool connect_response_verify(const uint8_t *data, size_t size, const uint8_t *key);

/* The keys of the connection a sealed CHALLENGE starts: each of the
 * token's keys derived (crypto_kdf, context "tempoCON") with the
 * challenge's sequence as subkey id. The response, the denial and every
 * datagram of the connection use these, so two connections under one
 * token never share a key, and each may count its sequences from 0.
 * Returns TEMPO_OK, or TEMPO_E_UNSUPPORTED (no libsodium; outputs wiped). */
int connect_connection_keys(const uint8_t token_c2s[TEMPO_KEY_SIZE],
                            const uint8_t token_s2c[TEMPO_KEY_SIZE], uint64_t challenge_sequence,
                            uint8_t c2s[TEMPO_KEY_SIZE], uint8_t s2c[TEMPO_KEY_SIZE]);

/* CONNECT_DENIED. key: the connection's server-to-client key, or NULL (then client_id
 * is written in its place). */
int connect_denied_write(uint8_t *buf, size_t cap, uint64_t protocol_id, const uint8_t *key,
                         uint64_t sequence, uint64_t client_id);
connect_refusal connect_denied_read(const uint8_t *data, size_t size, const uint8_t *key,
                                    uint64_t *sequence, uint64_t *client_id);

#endif /* TEMPO_WIRE_CONNECT_H */
