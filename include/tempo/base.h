/* SPDX-License-Identifier: MIT */
/*
 * base.h — what every part of tempo shares: the version, the limits, result
 * codes and their strings, the allocation and logging hooks, and the
 * checksum. Every other public header includes it.
 */
#ifndef TEMPO_BASE_H
#define TEMPO_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- version ---------------------------------------------------------- */

/* Releases with the same MAJOR keep the API; the ABI (struct layouts) is kept
 * only between releases with the same MAJOR.MINOR while MAJOR is 0. */
#define TEMPO_VERSION_MAJOR 0
#define TEMPO_VERSION_MINOR 1
#define TEMPO_VERSION_PATCH 0
#define TEMPO_VERSION_NUMBER \
    ((TEMPO_VERSION_MAJOR << 16) | (TEMPO_VERSION_MINOR << 8) | TEMPO_VERSION_PATCH)

/* The version of the library actually linked, as TEMPO_VERSION_NUMBER. */
TEMPO_API uint32_t tempo_version(void);
/* The same as "MAJOR.MINOR.PATCH"; a static string, never NULL. */
TEMPO_API const char *tempo_version_string(void);

/* ---- limits ----------------------------------------------------------- */

#define TEMPO_MAX_PLAYERS 8      /* players in a match */
#define TEMPO_MAX_INPUT_SIZE 64  /* bytes of input per player per frame */
#define TEMPO_MAX_PREDICTION 64  /* largest prediction window, frames */
#define TEMPO_MAX_SPECTATORS 64  /* largest value of config.max_spectators */
#define TEMPO_CS_MAX_PLAYERS 1024 /* player slots of a client-server match */
#define TEMPO_CS_MAX_CLIENTS 1024 /* clients of one server */
#define TEMPO_CS_MAX_STATE 65536 /* bytes of state in one snapshot */

/* ---- results ---------------------------------------------------------- */

/* One list makes the enum, the names and the messages, so they cannot drift.
 * Every public function returning tempo_result returns TEMPO_OK (0) or one of
 * these negative codes; functions returning int use >= 0 for success. */
#define TEMPO_RESULT_LIST(X)                                                        \
    X(OK, 0, "success")                                                             \
    X(E_INVALID_ARG, -1, "invalid argument")                                        \
    X(E_NO_MEMORY, -2, "out of memory")                                             \
    X(E_STATE, -3, "not allowed in the session's current state")                    \
    X(E_PLAYER, -4, "no such player, or the player is of the wrong kind")           \
    X(E_FRAME, -5, "frame outside the range the session holds")                     \
    X(E_DESYNC, -6, "checksum mismatch: the simulation is not deterministic")       \
    X(E_ALREADY, -7, "already done")                                                \
    X(E_UNSUPPORTED, -8, "not supported by this kind of session, or by this build")  \
    X(E_FULL, -9, "no room left (players, spectators or buffer)")                   \
    X(E_ADDRESS, -10, "malformed or unusable address")                              \
    X(E_TRANSPORT, -11, "the transport failed to send or receive")                  \
    X(E_MALFORMED, -12, "malformed data")                                           \
    X(E_TRUNCATED, -13, "the data ends early: a file cut short")                    \
    X(E_FOREIGN, -14, "not data of the expected kind (another file format)")        \
    X(E_VERSION, -15, "a format version this build cannot read")                    \
    X(E_IO, -16, "the caller's write callback failed")                              \
    X(E_EXPIRED, -17, "expired: the token's expiry time has passed")                \
    X(E_AUTH, -18, "authentication failed: forged, altered or sealed with another key") \
    X(E_PROTOCOL, -19, "made for another protocol id")

typedef enum tempo_result {
#define TEMPO_RESULT_ENUM_(name, value, text) TEMPO_##name = value,
    TEMPO_RESULT_LIST(TEMPO_RESULT_ENUM_)
#undef TEMPO_RESULT_ENUM_
    TEMPO_RESULT_MIN_ = -19
} tempo_result;

/* A sentence describing r; "unknown result" for a value not in the list.
 * Static storage, never NULL. */
TEMPO_API const char *tempo_strerror(int r);
/* The code's name, e.g. "TEMPO_E_STATE"; "TEMPO_UNKNOWN" if not in the list. */
TEMPO_API const char *tempo_result_name(int r);

/* ---- allocation and logging hooks -------------------------------------- */

/* Allocation hooks. Both NULL means malloc/free. alloc returns NULL on
 * failure; tempo then frees what it took and returns TEMPO_E_NO_MEMORY.
 * Allocation happens only in *_create functions, never while ticking. */
typedef struct tempo_allocator {
    void *(*alloc)(void *ctx, size_t size);
    void (*free)(void *ctx, void *ptr);
    void *ctx;
} tempo_allocator;

typedef enum tempo_log_level {
    TEMPO_LOG_ERROR = 0,
    TEMPO_LOG_WARN = 1,
    TEMPO_LOG_INFO = 2,
    TEMPO_LOG_DEBUG = 3
} tempo_log_level;

/* Receives one formatted line (no trailing newline, at most 511 bytes: a
 * longer line is cut). The string is valid only during the call. Called
 * from inside tempo functions, never concurrently. */
typedef void (*tempo_log_fn)(void *ctx, tempo_log_level level, const char *message);

/* ---- datagram ciphers ------------------------------------------------- */

/* Which AEAD seals a link's datagrams (docs/SECURITY.md, "Choosing the
 * cipher"). Every role's configuration has a `cipher` field of this type;
 * 0 (AUTO) is the default. Each end offers what its setting and its CPU
 * allow; the handshake takes AES-256-GCM when both ends offer it, else
 * ChaCha20-Poly1305, and fails (counted) when the two offers share none.
 *   AUTO       offer both where the CPU has AES instructions
 *              (libsodium's crypto_aead_aes256gcm_is_available), else
 *              ChaCha20-Poly1305 only;
 *   CHACHA20   offer ChaCha20-Poly1305-IETF only (always available);
 *   AES256GCM  offer AES-256-GCM only: a create function refuses it with
 *              TEMPO_E_UNSUPPORTED where the CPU or the build lacks it,
 *              and the handshake fails against an end that cannot.
 * Any other value is TEMPO_E_INVALID_ARG at create. Unsealed sessions
 * ignore the field. */
typedef enum tempo_cipher {
    TEMPO_CIPHER_AUTO = 0,
    TEMPO_CIPHER_CHACHA20 = 1,
    TEMPO_CIPHER_AES256GCM = 2
} tempo_cipher;

/* Whether this build, on this CPU, can seal with AES-256-GCM. */
TEMPO_API bool tempo_cipher_aes_available(void);

/* ---- checksums -------------------------------------------------------- */

/* 64-bit checksum of size bytes (XXH3-64, seed 0): what arena mode uses, and
 * a good choice for a game's own SAVE checksums. data may be NULL if size is 0. */
TEMPO_API uint64_t tempo_checksum(const void *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_BASE_H */
