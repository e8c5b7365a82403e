/* SPDX-License-Identifier: MIT */
/*
 * secure.h — connect tokens for the server and relay roles, and the key
 * helpers around them (docs/SECURITY.md has every byte).
 *
 * The game's backend and its servers share a 32-byte private key. When a
 * player may join, the backend makes a connect token with
 * tempo_token_create and hands it to the client over a channel the client
 * already trusts (HTTPS). The token has two parts:
 *   - a public part the client reads (tempo_token_read_public): the expiry,
 *     the servers to try in order, and the two keys its datagrams will be
 *     sealed with (client to server, server to client);
 *   - a private part sealed with the backend's key (XChaCha20-Poly1305)
 *     that the client can neither read nor alter: its client id, the same
 *     keys, servers and expiry, and up to 256 bytes of the game's own data.
 * The client sends the first TEMPO_TOKEN_CONNECT_SIZE bytes of the token to
 * a server, which opens them with tempo_token_open_private: a token that is
 * expired, altered, made with another key, or made for another protocol id
 * or another server is refused with its own error.
 *
 * Times are seconds on a clock the backend and servers share (Unix time is
 * the usual choice), always passed in: tempo reads no clock. A token is
 * valid while now < expire.
 *
 * Built without libsodium (tempo_secure_available() is false: the mingw-w64
 * cross build), every function here returns TEMPO_E_UNSUPPORTED except
 * tempo_token_read_public (plain reading) and tempo_wipe (which still
 * clears memory).
 *
 * Thread safety: the functions keep no state of their own and may be called
 * from several threads at once on different buffers.
 */
#ifndef TEMPO_SECURE_H
#define TEMPO_SECURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/base.h"
#include "tempo/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEMPO_KEY_SIZE 32              /* every key: private, match, datagram */
#define TEMPO_TOKEN_SIZE 800           /* a whole connect token */
#define TEMPO_TOKEN_CONNECT_SIZE 568   /* its first bytes: what a client sends a server */
#define TEMPO_TOKEN_MAX_SERVERS 8      /* server addresses in a token */
#define TEMPO_TOKEN_USER_DATA_SIZE 256 /* the game's bytes in the private part */

/* What a client reads from its token. */
typedef struct tempo_token_public {
    uint64_t protocol_id;
    uint64_t create_seconds;
    uint64_t expire_seconds;
    int num_servers; /* 1..TEMPO_TOKEN_MAX_SERVERS; servers[num_servers..] are zero */
    tempo_address servers[TEMPO_TOKEN_MAX_SERVERS];
    uint8_t client_to_server_key[TEMPO_KEY_SIZE];
    uint8_t server_to_client_key[TEMPO_KEY_SIZE];
} tempo_token_public;

/* What a server learns from a token it opened. */
typedef struct tempo_token_private {
    uint64_t protocol_id;
    uint64_t create_seconds;
    uint64_t expire_seconds;
    uint64_t client_id;
    int num_servers;
    tempo_address servers[TEMPO_TOKEN_MAX_SERVERS];
    uint8_t client_to_server_key[TEMPO_KEY_SIZE];
    uint8_t server_to_client_key[TEMPO_KEY_SIZE];
    uint8_t user_data[TEMPO_TOKEN_USER_DATA_SIZE];
} tempo_token_private;

/* Whether this build seals (it was built with libsodium). */
TEMPO_API bool tempo_secure_available(void);

/* Fill key with 32 bytes from the operating system's secure random source
 * (a backend's private key, a match key). TEMPO_OK, TEMPO_E_INVALID_ARG
 * (NULL), TEMPO_E_UNSUPPORTED (no libsodium, or no random source). */
TEMPO_API tempo_result tempo_key_generate(uint8_t key[TEMPO_KEY_SIZE]);

/* Make a connect token for client_id, valid from now_seconds until
 * expire_seconds, naming the servers[0..num_servers) the client may try, in
 * order. The two datagram keys are drawn at random; user_data (NULL: all
 * zero) is TEMPO_TOKEN_USER_DATA_SIZE bytes that only servers can read.
 * Writes TEMPO_TOKEN_SIZE bytes to out_token.
 * Returns TEMPO_OK, or
 *   TEMPO_E_INVALID_ARG  private_key, servers or out_token NULL; num_servers
 *                        outside 1..TEMPO_TOKEN_MAX_SERVERS; expire_seconds
 *                        not after now_seconds;
 *   TEMPO_E_ADDRESS      a server address that is not IPv4, IPv6 or opaque,
 *                        or an opaque one whose id size is not 1..16 (only
 *                        an address's meaningful bytes are copied: the
 *                        rest of its 16 bytes and, except for opaque ones,
 *                        id_size are written as zero);
 *   TEMPO_E_UNSUPPORTED  no libsodium, or no random source.
 * On an error out_token is zeroed. */
TEMPO_API tempo_result tempo_token_create(const uint8_t private_key[TEMPO_KEY_SIZE],
                                          uint64_t protocol_id, uint64_t client_id,
                                          uint64_t expire_seconds, uint64_t now_seconds,
                                          const tempo_address *servers, int num_servers,
                                          const uint8_t *user_data,
                                          uint8_t out_token[TEMPO_TOKEN_SIZE]);

/* Read the public part of a token of `size` bytes (at least
 * TEMPO_TOKEN_SIZE; bytes after it are ignored). The client cannot check
 * that the backend made it: it trusts the channel it came through.
 * Returns TEMPO_OK, or
 *   TEMPO_E_INVALID_ARG  token or out NULL;
 *   TEMPO_E_MALFORMED    too short, not a tempo token of this version, a
 *                        server count out of range, a malformed address, or
 *                        a byte that must be zero is not.
 * On an error *out is zeroed. */
TEMPO_API tempo_result tempo_token_read_public(const uint8_t *token, size_t size,
                                               tempo_token_public *out);

/* For servers: check and open the token a client sent, data[0..size) (at
 * least TEMPO_TOKEN_CONNECT_SIZE bytes; the rest is ignored), with the
 * backend's private key. The token must name protocol_id, be valid at
 * now_seconds and, when self is not NULL, list self among its servers.
 * The checks run cheapest first, so a stale or foreign token costs no
 * decryption. Returns TEMPO_OK, or
 *   TEMPO_E_INVALID_ARG  private_key, data or out NULL;
 *   TEMPO_E_MALFORMED    too short, not a tempo token of this version, or
 *                        (after opening) contents out of range;
 *   TEMPO_E_PROTOCOL     made for another protocol id;
 *   TEMPO_E_EXPIRED      now_seconds is at or past its expiry;
 *   TEMPO_E_AUTH         the seal does not verify: altered (its expiry,
 *                        protocol id or creation time included), or made
 *                        with another private key;
 *   TEMPO_E_ADDRESS      self is not among its servers;
 *   TEMPO_E_UNSUPPORTED  built without libsodium.
 * On an error *out is wiped. *out holds keys: wipe it (tempo_wipe) once
 * they are copied where they are used. */
TEMPO_API tempo_result tempo_token_open_private(const uint8_t private_key[TEMPO_KEY_SIZE],
                                                uint64_t protocol_id, uint64_t now_seconds,
                                                const tempo_address *self, const uint8_t *data,
                                                size_t size, tempo_token_private *out);

/* Clear size bytes at data in a way the compiler cannot skip
 * (sodium_memzero): for keys and tokens the game holds. NULL is allowed. */
TEMPO_API void tempo_wipe(void *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_SECURE_H */
