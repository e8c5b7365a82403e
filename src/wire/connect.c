/* SPDX-License-Identifier: MIT */
/*
 * connect.c — the server handshake's messages and cookie (layouts in
 * connect.h, the exchange in net/gate.c), in the spirit of netcode.io's
 * connection request, challenge and response packets.
 *
 * Why a full sequence in the clear: the server answers strangers without
 * keeping anything about them, so it cannot recover 16 sequence bits the
 * way a link does; the 8 clear bytes are associated data, and an altered
 * sequence only gives another nonce, so the seal fails.
 *
 * Why two cookie forms: a sealed cookie carries the token's datagram keys
 * and user data, so it is encrypted (ChaCha20-Poly1305-IETF under the
 * cookie key, nonce from the server's reply counter with direction byte
 * COOKIE_DIRECTION, which no datagram uses). A plain cookie (unsealed
 * mode) carries nothing secret and must work without libsodium, so it is
 * the fields in the clear and a SipHash-2-4 tag. Either way the client's
 * address and the protocol id are associated data: a cookie copied to
 * another address does not open.
 *
 * Why connection keys: a token stays valid until it expires, and a client
 * may use it for more than one connection (the next server in its list, or
 * again after a denial or a drop). Each connection counts its sequences
 * from 0, so under the token's own keys two connections would seal with
 * the same nonces. Every CHALLENGE has its own sequence (the server's
 * reply counter, from a random point), so keys derived from the token's
 * and that sequence are new for each connection; only the CHALLENGE,
 * which the reply counter numbers, is sealed with the token's key.
 *
 * Invariant: readers check a message's exact size before reading a field;
 * plaintext keys live only on the stack and in the caller's outputs, and
 * the stack copies are wiped before returning.
 */
#include "wire/connect.h"

#include <string.h>

#include "wire/bytes.h"
#include "wire/seal.h"
#include "wire/siphash.h"

#ifdef TEMPO_HAVE_SODIUM
#include <sodium.h>
#endif

_Static_assert(CONNECT_TAG_SIZE == SEAL_TAG_SIZE, "one AEAD for datagrams and the handshake");
_Static_assert(CONNECT_AT_PROOF + TEMPO_TOKEN_CONNECT_SIZE <= CONNECT_REQUEST_SIZE, "token fits");
_Static_assert(CONNECT_CHALLENGE_SEALED_SIZE <= CONNECT_REQUEST_SIZE, "no amplification");
_Static_assert(CONNECT_REQUEST_SIZE <= TEMPO_MAX_DATAGRAM, "one datagram");

#define COOKIE_DIRECTION 2u /* the cookie's nonce byte: neither LOW nor HIGH */
#define ADDRESS_SLOT 20
#define COOKIE_AD_SIZE (ADDRESS_SLOT + 8 + COOKIE_CLEAR_SIZE)
#define TOP_BIT 0x8000000000000000ull /* server replies: sequences with it set */

const char *connect_refusal_name(connect_refusal r)
{
    switch (r) {
    case CONNECT_OK: return "ok";
    case CONNECT_MALFORMED: return "malformed";
    case CONNECT_WRONG_PROTOCOL: return "wrong_protocol";
    case CONNECT_WRONG_MODE: return "wrong_mode";
    case CONNECT_BAD_TOKEN: return "bad_token";
    case CONNECT_EXPIRED: return "expired";
    case CONNECT_WRONG_SERVER: return "wrong_server";
    case CONNECT_BAD_COOKIE: return "bad_cookie";
    case CONNECT_STALE_COOKIE: return "stale_cookie";
    case CONNECT_FORGED: return "forged";
    case CONNECT_UNEXPECTED: return "unexpected";
    default: return "unknown";
    }
}

uint32_t connect_session_id(uint64_t protocol_id) { return (uint32_t)protocol_id; }

/* The header, and for a sealed message the full sequence after it. */
static void put_header(uint8_t *buf, uint64_t protocol_id, uint8_t type, bool sealed,
                       uint64_t sequence)
{
    tempo_packet_header h = {connect_session_id(protocol_id), (uint16_t)(sealed ? sequence : 0),
                             type, false, sealed};
    (void)packet_write(&h, buf, PACKET_HEADER_SIZE);
    if (sealed)
        wire_put64(buf + CONNECT_AT_SEQUENCE, sequence);
}

connect_refusal connect_peek(const uint8_t *data, size_t size, uint64_t protocol_id,
                             uint8_t *type, bool *sealed)
{
    tempo_packet_view v;
    if (data == NULL || packet_read(data, size, &v, NULL) != TEMPO_OK || v.h.fragment)
        return CONNECT_MALFORMED;
    if (v.h.type < CONNECT_TYPE_REQUEST || v.h.type > CONNECT_TYPE_DENIED)
        return CONNECT_UNEXPECTED;
    if (v.h.session_id != connect_session_id(protocol_id))
        return CONNECT_WRONG_PROTOCOL;
    *type = v.h.type;
    *sealed = v.h.sealed;
    return CONNECT_OK;
}

/* A sealed message's sequence: the header's bits are its low 16, and it
 * lies in the sender's half (server replies: top bit set). */
static bool sequence_ok(const uint8_t *data, bool from_server, uint64_t *sequence)
{
    uint64_t s = wire_get64(data + CONNECT_AT_SEQUENCE);
    if ((uint16_t)s != (uint16_t)(data[5] | data[6] << 8) || ((s & TOP_BIT) != 0) != from_server)
        return false;
    *sequence = s;
    return true;
}

/* A plain message carries sequence bits 0. */
static bool plain_ok(const uint8_t *data)
{
    return (data[0] & 8u) == 0 && data[5] == 0 && data[6] == 0;
}

/* What every message after the request shares: the mode bit the reader
 * expects, the exact size of that mode, then for a plain message its
 * sequence bits 0 (*sequence 0), for a sealed one the full sequence, its
 * top bit saying it came from the server (from_server) or not. The body
 * is the caller's. */
static connect_refusal frame_read(const uint8_t *data, size_t size, bool sealed,
                                  size_t plain_size, size_t sealed_size, bool from_server,
                                  uint64_t *sequence)
{
    if ((data[0] & 8u) != (sealed ? 8u : 0u))
        return CONNECT_WRONG_MODE;
    if (size != (sealed ? sealed_size : plain_size))
        return CONNECT_MALFORMED;
    if (!sealed) {
        if (!plain_ok(data))
            return CONNECT_MALFORMED;
        *sequence = 0;
        return CONNECT_OK;
    }
    return sequence_ok(data, from_server, sequence) ? CONNECT_OK : CONNECT_MALFORMED;
}

/* Encrypt buf[ad..size) in place, buf[0..ad) associated data, the tag to
 * buf[size..size + 16); the nonce from the sequence at byte 8. */
static int seal_at(const uint8_t *key, uint8_t direction, uint8_t *buf, size_t ad, size_t size)
{
#ifdef TEMPO_HAVE_SODIUM
    if (seal_start() != TEMPO_OK)
        return TEMPO_E_UNSUPPORTED;
    uint8_t nonce[SEAL_NONCE_SIZE];
    seal_nonce(wire_get64(buf + CONNECT_AT_SEQUENCE), direction, nonce);
    crypto_aead_chacha20poly1305_ietf_encrypt_detached(buf + ad, buf + size, NULL, buf + ad,
                                                       (unsigned long long)(size - ad), buf, ad,
                                                       NULL, nonce, key);
    return (int)(size + CONNECT_TAG_SIZE);
#else
    (void)key, (void)direction, (void)buf, (void)ad, (void)size;
    return TEMPO_E_UNSUPPORTED;
#endif
}

/* Check the tag of data[0..size) (the last 16 bytes) and decrypt
 * data[ad..size - 16) into plain. */
static bool open_at(const uint8_t *key, uint8_t direction, const uint8_t *data, size_t ad,
                    size_t size, uint8_t *plain)
{
#ifdef TEMPO_HAVE_SODIUM
    if (seal_start() != TEMPO_OK)
        return false;
    uint8_t nonce[SEAL_NONCE_SIZE], none[1];
    seal_nonce(wire_get64(data + CONNECT_AT_SEQUENCE), direction, nonce);
    size_t body = size - CONNECT_TAG_SIZE - ad;
    return crypto_aead_chacha20poly1305_ietf_decrypt_detached(
               body != 0 ? plain : none, NULL, data + ad, (unsigned long long)body,
               data + size - CONNECT_TAG_SIZE, data, ad, nonce, key) == 0;
#else
    (void)key, (void)direction, (void)data, (void)ad, (void)size, (void)plain;
    return false;
#endif
}

/* ---- request -------------------------------------------------------- */

int connect_request_write(uint8_t *buf, uint64_t protocol_id, uint8_t slots,
                          const uint8_t *token, uint64_t nonce)
{
    if (buf == NULL || slots < 1 || slots > CONNECT_MAX_SLOTS)
        return TEMPO_E_INVALID_ARG;
    memset(buf, 0, CONNECT_REQUEST_SIZE);
    put_header(buf, protocol_id, CONNECT_TYPE_REQUEST, false, 0);
    wire_put64(buf + CONNECT_AT_PROTOCOL, protocol_id);
    buf[CONNECT_AT_MODE] = token != NULL ? CONNECT_MODE_TOKEN : CONNECT_MODE_NONCE;
    buf[CONNECT_AT_SLOTS] = slots;
    if (token != NULL)
        memcpy(buf + CONNECT_AT_PROOF, token, TEMPO_TOKEN_CONNECT_SIZE);
    else
        wire_put64(buf + CONNECT_AT_PROOF, nonce);
    return CONNECT_REQUEST_SIZE;
}

connect_refusal connect_request_read(const uint8_t *data, size_t size, uint64_t protocol_id,
                                     connect_request *out)
{
    if (size != CONNECT_REQUEST_SIZE || !plain_ok(data))
        return CONNECT_MALFORMED;
    if (wire_get64(data + CONNECT_AT_PROTOCOL) != protocol_id)
        return CONNECT_WRONG_PROTOCOL;
    uint8_t mode = data[CONNECT_AT_MODE], slots = data[CONNECT_AT_SLOTS];
    size_t proof = mode == CONNECT_MODE_TOKEN ? TEMPO_TOKEN_CONNECT_SIZE : 8;
    if ((mode != CONNECT_MODE_TOKEN && mode != CONNECT_MODE_NONCE) || slots < 1 ||
        slots > CONNECT_MAX_SLOTS ||
        !wire_all_zero(data + CONNECT_AT_PROOF + proof, size - CONNECT_AT_PROOF - proof))
        return CONNECT_MALFORMED;
    out->mode = mode;
    out->slots = slots;
    out->token = mode == CONNECT_MODE_TOKEN ? data + CONNECT_AT_PROOF : NULL;
    out->nonce = mode == CONNECT_MODE_NONCE ? wire_get64(data + CONNECT_AT_PROOF) : 0;
    return CONNECT_OK;
}

/* ---- cookie --------------------------------------------------------- */

size_t connect_cookie_size(bool sealed) { return sealed ? COOKIE_SEALED_SIZE : COOKIE_PLAIN_SIZE; }

uint8_t connect_cookie_generation(const uint8_t *cookie) { return cookie[8]; }

uint64_t connect_cookie_sequence(const uint8_t *cookie) { return wire_get64(cookie); }

/* The associated data: the address's meaningful bytes in a zeroed slot
 * (token.h's form), the protocol id, the cookie's clear bytes. */
static void cookie_ad(const tempo_address *a, uint64_t protocol_id, const uint8_t *clear,
                      uint8_t ad[COOKIE_AD_SIZE])
{
    memset(ad, 0, COOKIE_AD_SIZE);
    size_t n = a->family == TEMPO_ADDRESS_IPV4   ? 4
               : a->family == TEMPO_ADDRESS_IPV6 ? 16
               : a->family == TEMPO_ADDRESS_OPAQUE && a->id_size <= TEMPO_ADDRESS_ID_MAX
                   ? a->id_size
                   : 0;
    ad[0] = a->family;
    ad[1] = a->family == TEMPO_ADDRESS_OPAQUE ? a->id_size : 0;
    memcpy(ad + 2, a->bytes, n);
    ad[18] = (uint8_t)a->port;
    ad[19] = (uint8_t)(a->port >> 8);
    wire_put64(ad + ADDRESS_SLOT, protocol_id);
    memcpy(ad + ADDRESS_SLOT + 8, clear, COOKIE_CLEAR_SIZE);
}

/* The SipHash tag of a plain cookie: over the associated data and the
 * clear fields, keyed with the cookie key's first 16 bytes. */
static uint64_t plain_tag(const uint8_t *key, const uint8_t ad[COOKIE_AD_SIZE],
                          const uint8_t *fields)
{
    uint8_t m[COOKIE_AD_SIZE + COOKIE_FIELDS_SIZE];
    memcpy(m, ad, COOKIE_AD_SIZE);
    memcpy(m + COOKIE_AD_SIZE, fields, COOKIE_FIELDS_SIZE);
    return siphash24(key, m, sizeof m);
}

int connect_cookie_write(const uint8_t key[TEMPO_KEY_SIZE], uint8_t generation, uint64_t nonce,
                         bool sealed, const tempo_address *to, uint64_t protocol_id,
                         const connect_cookie *c, uint8_t *out)
{
    wire_put64(out, nonce);
    out[8] = generation;
    uint8_t *f = out + COOKIE_CLEAR_SIZE;
    wire_put64(f, c->client_id);
    wire_put64(f + 8, c->issued_us);
    wire_put64(f + 16, c->expire_seconds);
    f[24] = c->slots;
    uint8_t ad[COOKIE_AD_SIZE];
    cookie_ad(to, protocol_id, out, ad);
    if (!sealed) {
        wire_put64(f + COOKIE_FIELDS_SIZE, plain_tag(key, ad, f));
        return COOKIE_PLAIN_SIZE;
    }
#ifdef TEMPO_HAVE_SODIUM
    if (seal_start() != TEMPO_OK)
        return TEMPO_E_UNSUPPORTED;
    memcpy(f + COOKIE_FIELDS_SIZE, c->client_to_server_key, TEMPO_KEY_SIZE);
    memcpy(f + COOKIE_FIELDS_SIZE + TEMPO_KEY_SIZE, c->server_to_client_key, TEMPO_KEY_SIZE);
    memcpy(f + COOKIE_FIELDS_SIZE + 2 * TEMPO_KEY_SIZE, c->user_data, TEMPO_TOKEN_USER_DATA_SIZE);
    uint8_t n[SEAL_NONCE_SIZE];
    seal_nonce(nonce, COOKIE_DIRECTION, n);
    crypto_aead_chacha20poly1305_ietf_encrypt_detached(f, f + COOKIE_SECRET_SIZE, NULL, f,
                                                       COOKIE_SECRET_SIZE, ad, sizeof ad, NULL,
                                                       n, key);
    return COOKIE_SEALED_SIZE;
#else
    memset(out, 0, COOKIE_PLAIN_SIZE);
    return TEMPO_E_UNSUPPORTED;
#endif
}

connect_refusal connect_cookie_read(const uint8_t key[TEMPO_KEY_SIZE], bool sealed,
                                    const tempo_address *from, uint64_t protocol_id,
                                    const uint8_t *cookie, connect_cookie *out)
{
    memset(out, 0, sizeof *out);
    uint8_t ad[COOKIE_AD_SIZE];
    cookie_ad(from, protocol_id, cookie, ad);
    uint8_t f[COOKIE_SECRET_SIZE];
    if (!sealed) {
        uint64_t tag = plain_tag(key, ad, cookie + COOKIE_CLEAR_SIZE);
        /* compared without an early exit */
        if ((tag ^ wire_get64(cookie + COOKIE_CLEAR_SIZE + COOKIE_FIELDS_SIZE)) != 0)
            return CONNECT_BAD_COOKIE;
        memcpy(f, cookie + COOKIE_CLEAR_SIZE, COOKIE_FIELDS_SIZE);
    } else {
#ifdef TEMPO_HAVE_SODIUM
        uint8_t n[SEAL_NONCE_SIZE];
        seal_nonce(wire_get64(cookie), COOKIE_DIRECTION, n);
        if (seal_start() != TEMPO_OK ||
            crypto_aead_chacha20poly1305_ietf_decrypt_detached(
                f, NULL, cookie + COOKIE_CLEAR_SIZE, COOKIE_SECRET_SIZE,
                cookie + COOKIE_CLEAR_SIZE + COOKIE_SECRET_SIZE, ad, sizeof ad, n, key) != 0)
            return CONNECT_BAD_COOKIE;
        memcpy(out->client_to_server_key, f + COOKIE_FIELDS_SIZE, TEMPO_KEY_SIZE);
        memcpy(out->server_to_client_key, f + COOKIE_FIELDS_SIZE + TEMPO_KEY_SIZE, TEMPO_KEY_SIZE);
        memcpy(out->user_data, f + COOKIE_FIELDS_SIZE + 2 * TEMPO_KEY_SIZE,
               TEMPO_TOKEN_USER_DATA_SIZE);
#else
        (void)key;
        return CONNECT_BAD_COOKIE;
#endif
    }
    out->client_id = wire_get64(f);
    out->issued_us = wire_get64(f + 8);
    out->expire_seconds = wire_get64(f + 16);
    out->slots = f[24];
    seal_wipe(f, sizeof f);
    if (out->slots < 1 || out->slots > CONNECT_MAX_SLOTS) {
        seal_wipe(out, sizeof *out); /* genuine, so only a server's own bug */
        return CONNECT_BAD_COOKIE;
    }
    return CONNECT_OK;
}

/* ---- challenge ------------------------------------------------------ */

int connect_challenge_write(uint8_t *buf, size_t cap, uint64_t protocol_id, const uint8_t *key,
                            uint64_t sequence, uint64_t client_id, const uint8_t *cookie)
{
    bool sealed = key != NULL;
    size_t size = sealed ? CONNECT_CHALLENGE_SEALED_SIZE : CONNECT_CHALLENGE_PLAIN_SIZE;
    if (cap < size)
        return TEMPO_E_FULL;
    put_header(buf, protocol_id, CONNECT_TYPE_CHALLENGE, sealed, sequence);
    size_t at = sealed ? CONNECT_SEALED_AD : PACKET_HEADER_SIZE;
    wire_put64(buf + at, client_id);
    memcpy(buf + at + 8, cookie, connect_cookie_size(sealed));
    if (!sealed)
        return (int)size;
    return seal_at(key, SEAL_DIRECTION_HIGH, buf, CONNECT_SEALED_AD, size - CONNECT_TAG_SIZE);
}

connect_refusal connect_challenge_read(const uint8_t *data, size_t size, const uint8_t *key,
                                       uint64_t *sequence, uint64_t *client_id, uint8_t *cookie)
{
    bool sealed = key != NULL;
    uint64_t seq;
    connect_refusal why = frame_read(data, size, sealed, CONNECT_CHALLENGE_PLAIN_SIZE,
                                     CONNECT_CHALLENGE_SEALED_SIZE, true, &seq);
    if (why != CONNECT_OK)
        return why;
    if (!sealed) {
        *sequence = 0;
        *client_id = wire_get64(data + PACKET_HEADER_SIZE);
        memcpy(cookie, data + PACKET_HEADER_SIZE + 8, COOKIE_PLAIN_SIZE);
        return CONNECT_OK;
    }
    uint8_t plain[8 + COOKIE_SEALED_SIZE];
    if (!open_at(key, SEAL_DIRECTION_HIGH, data, CONNECT_SEALED_AD, size, plain))
        return CONNECT_FORGED;
    *sequence = seq;
    *client_id = wire_get64(plain);
    memcpy(cookie, plain + 8, COOKIE_SEALED_SIZE);
    return CONNECT_OK;
}

/* ---- response ------------------------------------------------------- */

int connect_response_write(uint8_t *buf, size_t cap, uint64_t protocol_id, const uint8_t *key,
                           uint64_t sequence, const uint8_t *cookie)
{
    bool sealed = key != NULL;
    size_t size = sealed ? CONNECT_RESPONSE_SEALED_SIZE : CONNECT_RESPONSE_PLAIN_SIZE;
    if (cap < size)
        return TEMPO_E_FULL;
    if (sealed && (sequence & TOP_BIT) != 0)
        return TEMPO_E_INVALID_ARG;
    put_header(buf, protocol_id, CONNECT_TYPE_RESPONSE, sealed, sequence);
    size_t at = sealed ? CONNECT_SEALED_AD : PACKET_HEADER_SIZE;
    memcpy(buf + at, cookie, connect_cookie_size(sealed));
    if (!sealed)
        return (int)size;
    /* nothing to hide (the cookie is sealed already): all associated data */
    size_t body = size - CONNECT_TAG_SIZE;
    return seal_at(key, SEAL_DIRECTION_LOW, buf, body, body);
}

connect_refusal connect_response_read(const uint8_t *data, size_t size, bool sealed,
                                      const uint8_t **cookie, uint64_t *sequence)
{
    connect_refusal why = frame_read(data, size, sealed, CONNECT_RESPONSE_PLAIN_SIZE,
                                     CONNECT_RESPONSE_SEALED_SIZE, false, sequence);
    if (why == CONNECT_OK)
        *cookie = data + (sealed ? CONNECT_SEALED_AD : PACKET_HEADER_SIZE);
    return why;
}

bool connect_response_verify(const uint8_t *data, size_t size, const uint8_t *key)
{
    return size == CONNECT_RESPONSE_SEALED_SIZE &&
           open_at(key, SEAL_DIRECTION_LOW, data, size - CONNECT_TAG_SIZE, size, NULL);
}

/* ---- connection keys ------------------------------------------------ */

int connect_connection_keys(const uint8_t token_c2s[TEMPO_KEY_SIZE],
                            const uint8_t token_s2c[TEMPO_KEY_SIZE], uint64_t challenge_sequence,
                            uint8_t c2s[TEMPO_KEY_SIZE], uint8_t s2c[TEMPO_KEY_SIZE])
{
#ifdef TEMPO_HAVE_SODIUM
    static const char context[8] = {'t', 'e', 'm', 'p', 'o', 'C', 'O', 'N'};
    if (seal_start() == TEMPO_OK &&
        crypto_kdf_derive_from_key(c2s, TEMPO_KEY_SIZE, challenge_sequence, context,
                                   token_c2s) == 0 &&
        crypto_kdf_derive_from_key(s2c, TEMPO_KEY_SIZE, challenge_sequence, context,
                                   token_s2c) == 0)
        return TEMPO_OK;
#else
    (void)token_c2s, (void)token_s2c, (void)challenge_sequence;
#endif
    seal_wipe(c2s, TEMPO_KEY_SIZE);
    seal_wipe(s2c, TEMPO_KEY_SIZE);
    return TEMPO_E_UNSUPPORTED;
}

/* ---- denied --------------------------------------------------------- */

int connect_denied_write(uint8_t *buf, size_t cap, uint64_t protocol_id, const uint8_t *key,
                         uint64_t sequence, uint64_t client_id)
{
    bool sealed = key != NULL;
    size_t size = sealed ? CONNECT_DENIED_SEALED_SIZE : CONNECT_DENIED_PLAIN_SIZE;
    if (cap < size)
        return TEMPO_E_FULL;
    put_header(buf, protocol_id, CONNECT_TYPE_DENIED, sealed, sequence);
    if (!sealed) {
        wire_put64(buf + PACKET_HEADER_SIZE, client_id);
        return (int)size;
    }
    return seal_at(key, SEAL_DIRECTION_HIGH, buf, CONNECT_SEALED_AD, CONNECT_SEALED_AD);
}

connect_refusal connect_denied_read(const uint8_t *data, size_t size, const uint8_t *key,
                                    uint64_t *sequence, uint64_t *client_id)
{
    bool sealed = key != NULL;
    connect_refusal why = frame_read(data, size, sealed, CONNECT_DENIED_PLAIN_SIZE,
                                     CONNECT_DENIED_SEALED_SIZE, true, sequence);
    if (why != CONNECT_OK)
        return why;
    *client_id = sealed ? 0 : wire_get64(data + PACKET_HEADER_SIZE);
    if (!sealed)
        return CONNECT_OK;
    return open_at(key, SEAL_DIRECTION_HIGH, data, CONNECT_SEALED_AD, size, NULL)
               ? CONNECT_OK
               : CONNECT_FORGED;
}
