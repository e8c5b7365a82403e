/* SPDX-License-Identifier: MIT */
/*
 * token.c — connect tokens (tempo/secure.h, layout in token.h), in the
 * spirit of netcode.io's: a public part for the client and a private part
 * only the backend's servers can open.
 *
 * Why XChaCha20-Poly1305 with a random nonce for the private part: tokens
 * are made by a backend that may run as many processes on many machines
 * with no counter they share, so the nonce has to be drawn at random, and
 * 192 random bits make a repeat under one private key negligible even after
 * billions of tokens (96 bits, the IETF nonce, would not be safe to draw at
 * random at that scale). The cost is one more HChaCha20 per token, nothing
 * beside a connection's set-up.
 *
 * The version, protocol id, creation and expiry times are associated data:
 * a server reads them in the clear to refuse a foreign or stale token
 * before decrypting anything, and any change to them breaks the seal.
 *
 * Invariant: plaintext private parts live only on the stack and are wiped
 * before every return; on an error the caller's output holds no key.
 */
#include "wire/token.h"

#include <string.h>

#include "tempo/base.h"
#include "wire/bytes.h"
#include "wire/seal.h"

#ifdef TEMPO_HAVE_SODIUM
#include <sodium.h>
_Static_assert(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES == TOKEN_NONCE_SIZE, "nonce size");
_Static_assert(crypto_aead_xchacha20poly1305_ietf_ABYTES == TOKEN_TAG_SIZE, "tag size");
_Static_assert(crypto_aead_xchacha20poly1305_ietf_KEYBYTES == TEMPO_KEY_SIZE, "key size");
#endif
_Static_assert(TOKEN_AT_PRIVATE + TOKEN_PRIVATE_SIZE == TEMPO_TOKEN_CONNECT_SIZE, "connect part");
_Static_assert(TOKEN_AT_SERVERS + TEMPO_TOKEN_MAX_SERVERS * TOKEN_SLOT_SIZE == TOKEN_AT_C2S,
               "server slots");
_Static_assert(TOKEN_AT_S2C + TEMPO_KEY_SIZE + 4 == TEMPO_TOKEN_SIZE, "public part");
_Static_assert(TOKEN_PLAIN_AT_USER + TEMPO_TOKEN_USER_DATA_SIZE == TOKEN_PLAIN_SIZE,
               "private part");

bool tempo_secure_available(void)
{
    return seal_available();
}

void tempo_wipe(void *data, size_t size)
{
    seal_wipe(data, size);
}

tempo_result tempo_key_generate(uint8_t key[TEMPO_KEY_SIZE])
{
    if (key == NULL)
        return TEMPO_E_INVALID_ARG;
    int rc = seal_start();
    if (rc != TEMPO_OK)
        return (tempo_result)rc;
#ifdef TEMPO_HAVE_SODIUM
    randombytes_buf(key, TEMPO_KEY_SIZE);
#endif
    return TEMPO_OK;
}

/* How many of an address's 16 bytes mean something; -1 for an address a
 * token cannot carry. */
static int address_bytes(const tempo_address *a)
{
    switch (a->family) {
    case TEMPO_ADDRESS_IPV4: return 4;
    case TEMPO_ADDRESS_IPV6: return 16;
    case TEMPO_ADDRESS_OPAQUE:
        return a->id_size >= 1 && a->id_size <= TEMPO_ADDRESS_ID_MAX ? a->id_size : -1;
    default: return -1;
    }
}

/* Write a's meaningful bytes into a zeroed slot. */
static bool put_address(uint8_t slot[TOKEN_SLOT_SIZE], const tempo_address *a)
{
    int n = address_bytes(a);
    if (n < 0)
        return false;
    slot[0] = a->family;
    slot[1] = a->family == TEMPO_ADDRESS_OPAQUE ? a->id_size : 0;
    memcpy(slot + 2, a->bytes, (size_t)n);
    slot[18] = (uint8_t)a->port;
    slot[19] = (uint8_t)(a->port >> 8);
    return true;
}

/* Read a slot, accepting only the one form put_address writes. */
static bool get_address(const uint8_t slot[TOKEN_SLOT_SIZE], tempo_address *a)
{
    memset(a, 0, sizeof *a);
    a->family = slot[0];
    a->id_size = slot[1];
    int n = address_bytes(a);
    if (n < 0 || (a->family != TEMPO_ADDRESS_OPAQUE && a->id_size != 0) ||
        !wire_all_zero(slot + 2 + n, (size_t)(16 - n))) {
        memset(a, 0, sizeof *a);
        return false;
    }
    memcpy(a->bytes, slot + 2, (size_t)n);
    a->port = (uint16_t)(slot[18] | slot[19] << 8);
    return true;
}

/* A server count byte, its zero padding and the 8 slots: count in range,
 * used slots valid, unused slots zero. Returns the count, or -1. */
static int get_servers(const uint8_t *count, size_t pad, const uint8_t *slots,
                       tempo_address out[TEMPO_TOKEN_MAX_SERVERS])
{
    int n = count[0];
    if (n < 1 || n > TEMPO_TOKEN_MAX_SERVERS || !wire_all_zero(count + 1, pad))
        return -1;
    for (int i = 0; i < TEMPO_TOKEN_MAX_SERVERS; i++) {
        const uint8_t *slot = slots + i * TOKEN_SLOT_SIZE;
        if (i < n ? !get_address(slot, &out[i]) : !wire_all_zero(slot, TOKEN_SLOT_SIZE))
            return -1;
    }
    return n;
}

/* ---- create --------------------------------------------------------- */

tempo_result tempo_token_create(const uint8_t private_key[TEMPO_KEY_SIZE], uint64_t protocol_id,
                                uint64_t client_id, uint64_t expire_seconds,
                                uint64_t now_seconds, const tempo_address *servers,
                                int num_servers, const uint8_t *user_data,
                                uint8_t out_token[TEMPO_TOKEN_SIZE])
{
    if (out_token != NULL)
        memset(out_token, 0, TEMPO_TOKEN_SIZE);
    if (private_key == NULL || servers == NULL || out_token == NULL || num_servers < 1 ||
        num_servers > TEMPO_TOKEN_MAX_SERVERS || expire_seconds <= now_seconds)
        return TEMPO_E_INVALID_ARG;
    uint8_t plain[TOKEN_PLAIN_SIZE] = {0};
    for (int i = 0; i < num_servers; i++)
        if (!put_address(plain + TOKEN_PLAIN_AT_SERVERS + i * TOKEN_SLOT_SIZE, &servers[i]))
            return TEMPO_E_ADDRESS; /* nothing secret written yet */
    int rc = seal_start();
    if (rc != TEMPO_OK)
        return (tempo_result)rc;
#ifdef TEMPO_HAVE_SODIUM
    wire_put64(plain, client_id);
    plain[TOKEN_PLAIN_AT_COUNT] = (uint8_t)num_servers;
    randombytes_buf(plain + TOKEN_PLAIN_AT_C2S, TEMPO_KEY_SIZE);
    randombytes_buf(plain + TOKEN_PLAIN_AT_S2C, TEMPO_KEY_SIZE);
    if (user_data != NULL)
        memcpy(plain + TOKEN_PLAIN_AT_USER, user_data, TEMPO_TOKEN_USER_DATA_SIZE);

    uint8_t *t = out_token;
    memcpy(t, TOKEN_VERSION, TOKEN_VERSION_SIZE);
    wire_put64(t + TOKEN_AT_PROTOCOL, protocol_id);
    wire_put64(t + TOKEN_AT_CREATE, now_seconds);
    wire_put64(t + TOKEN_AT_EXPIRE, expire_seconds);
    randombytes_buf(t + TOKEN_AT_NONCE, TOKEN_NONCE_SIZE);
    crypto_aead_xchacha20poly1305_ietf_encrypt_detached(
        t + TOKEN_AT_PRIVATE, t + TOKEN_AT_PRIVATE + TOKEN_PLAIN_SIZE, NULL, plain,
        TOKEN_PLAIN_SIZE, t, TOKEN_AD_SIZE, NULL, t + TOKEN_AT_NONCE, private_key);

    t[TOKEN_AT_COUNT] = (uint8_t)num_servers;
    memcpy(t + TOKEN_AT_SERVERS, plain + TOKEN_PLAIN_AT_SERVERS,
           TEMPO_TOKEN_MAX_SERVERS * TOKEN_SLOT_SIZE);
    memcpy(t + TOKEN_AT_C2S, plain + TOKEN_PLAIN_AT_C2S, TEMPO_KEY_SIZE);
    memcpy(t + TOKEN_AT_S2C, plain + TOKEN_PLAIN_AT_S2C, TEMPO_KEY_SIZE);
    seal_wipe(plain, sizeof plain);
    return TEMPO_OK;
#else
    (void)protocol_id;
    (void)client_id;
    (void)user_data;
    return TEMPO_E_UNSUPPORTED;
#endif
}

/* ---- read ----------------------------------------------------------- */

tempo_result tempo_token_read_public(const uint8_t *token, size_t size, tempo_token_public *out)
{
    if (out != NULL)
        memset(out, 0, sizeof *out);
    if (token == NULL || out == NULL)
        return TEMPO_E_INVALID_ARG;
    if (size < TEMPO_TOKEN_SIZE || memcmp(token, TOKEN_VERSION, TOKEN_VERSION_SIZE) != 0 ||
        !wire_all_zero(token + TOKEN_AT_S2C + TEMPO_KEY_SIZE, 4))
        return TEMPO_E_MALFORMED;
    int n = get_servers(token + TOKEN_AT_COUNT, 3, token + TOKEN_AT_SERVERS, out->servers);
    uint64_t create = wire_get64(token + TOKEN_AT_CREATE), expire = wire_get64(token + TOKEN_AT_EXPIRE);
    if (n < 0 || create >= expire) {
        memset(out, 0, sizeof *out);
        return TEMPO_E_MALFORMED;
    }
    out->protocol_id = wire_get64(token + TOKEN_AT_PROTOCOL);
    out->create_seconds = create;
    out->expire_seconds = expire;
    out->num_servers = n;
    memcpy(out->client_to_server_key, token + TOKEN_AT_C2S, TEMPO_KEY_SIZE);
    memcpy(out->server_to_client_key, token + TOKEN_AT_S2C, TEMPO_KEY_SIZE);
    return TEMPO_OK;
}

tempo_result tempo_token_open_private(const uint8_t private_key[TEMPO_KEY_SIZE],
                                      uint64_t protocol_id, uint64_t now_seconds,
                                      const tempo_address *self, const uint8_t *data,
                                      size_t size, tempo_token_private *out)
{
    if (out != NULL)
        seal_wipe(out, sizeof *out);
    if (private_key == NULL || data == NULL || out == NULL)
        return TEMPO_E_INVALID_ARG;
    int rc = seal_start();
    if (rc != TEMPO_OK)
        return (tempo_result)rc;
    /* Cheapest first: all of these read clear bytes. */
    if (size < TEMPO_TOKEN_CONNECT_SIZE || memcmp(data, TOKEN_VERSION, TOKEN_VERSION_SIZE) != 0)
        return TEMPO_E_MALFORMED;
    if (wire_get64(data + TOKEN_AT_PROTOCOL) != protocol_id)
        return TEMPO_E_PROTOCOL;
    uint64_t create = wire_get64(data + TOKEN_AT_CREATE), expire = wire_get64(data + TOKEN_AT_EXPIRE);
    if (now_seconds >= expire)
        return TEMPO_E_EXPIRED;
#ifdef TEMPO_HAVE_SODIUM
    uint8_t plain[TOKEN_PLAIN_SIZE];
    if (crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
            plain, NULL, data + TOKEN_AT_PRIVATE, TOKEN_PLAIN_SIZE,
            data + TOKEN_AT_PRIVATE + TOKEN_PLAIN_SIZE, data, TOKEN_AD_SIZE,
            data + TOKEN_AT_NONCE, private_key) != 0)
        return TEMPO_E_AUTH;
    /* Genuine from here on; the checks below catch a backend's own bugs. */
    int n = get_servers(plain + TOKEN_PLAIN_AT_COUNT, 7, plain + TOKEN_PLAIN_AT_SERVERS,
                        out->servers);
    tempo_result result = TEMPO_OK;
    if (n < 0 || create >= expire) {
        result = TEMPO_E_MALFORMED;
    } else {
        out->protocol_id = protocol_id;
        out->create_seconds = create;
        out->expire_seconds = expire;
        out->client_id = wire_get64(plain);
        out->num_servers = n;
        memcpy(out->client_to_server_key, plain + TOKEN_PLAIN_AT_C2S, TEMPO_KEY_SIZE);
        memcpy(out->server_to_client_key, plain + TOKEN_PLAIN_AT_S2C, TEMPO_KEY_SIZE);
        memcpy(out->user_data, plain + TOKEN_PLAIN_AT_USER, TEMPO_TOKEN_USER_DATA_SIZE);
        if (self != NULL) {
            result = TEMPO_E_ADDRESS;
            for (int i = 0; i < n; i++)
                if (tempo_address_equal(self, &out->servers[i]))
                    result = TEMPO_OK;
        }
    }
    seal_wipe(plain, sizeof plain);
    if (result != TEMPO_OK)
        seal_wipe(out, sizeof *out);
    return result;
#else
    (void)create;
    (void)self;
    return TEMPO_E_UNSUPPORTED;
#endif
}
