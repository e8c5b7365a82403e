/* SPDX-License-Identifier: MIT */
/*
 * seal.c — sealed datagrams (seal.h): ChaCha20-Poly1305-IETF with the
 * header as associated data and a nonce made from the sequence.
 *
 * Why this AEAD: the nonce is a counter the link already keeps, never a
 * random value, so the 96-bit nonce of the IETF construction is plenty
 * (64 bits of sequence, a direction byte, three spare bytes), and it costs
 * one ChaCha20 block less per datagram than XChaCha20-Poly1305, whose
 * 192-bit nonce earns its cost only when nonces are drawn at random
 * (connect tokens, wire/token.c). netcode.io seals its packets the same
 * way, with a per-direction key and the sequence as nonce.
 *
 * Invariant: buffers are worked on in place; on any refusal before the
 * AEAD runs, nothing is written.
 */
#include "wire/seal.h"

#include <string.h>

#include "tempo/base.h"
#include "tempo/transport.h"
#include "wire/packet.h"

#ifdef TEMPO_HAVE_SODIUM
#include <sodium.h>
_Static_assert(crypto_aead_chacha20poly1305_ietf_KEYBYTES == SEAL_KEY_SIZE, "key size");
_Static_assert(crypto_aead_chacha20poly1305_ietf_ABYTES == SEAL_TAG_SIZE, "tag size");
_Static_assert(crypto_aead_chacha20poly1305_ietf_NPUBBYTES == SEAL_NONCE_SIZE, "nonce size");
#endif
_Static_assert(SEAL_TAG_SIZE == PACKET_TAG_SIZE, "the header's tag room is the AEAD's tag");

bool seal_available(void)
{
#ifdef TEMPO_HAVE_SODIUM
    return true;
#else
    return false;
#endif
}

int seal_start(void)
{
#ifdef TEMPO_HAVE_SODIUM
    /* 0: started now; 1: already started; -1: could not start */
    return sodium_init() < 0 ? TEMPO_E_UNSUPPORTED : TEMPO_OK;
#else
    return TEMPO_E_UNSUPPORTED;
#endif
}

bool seal_key_equal(const uint8_t a[SEAL_KEY_SIZE], const uint8_t b[SEAL_KEY_SIZE])
{
    uint8_t d = 0;
    for (int i = 0; i < SEAL_KEY_SIZE; i++)
        d |= (uint8_t)(a[i] ^ b[i]);
    return d == 0;
}

void seal_wipe(void *p, size_t size)
{
    if (p == NULL || size == 0)
        return;
#ifdef TEMPO_HAVE_SODIUM
    sodium_memzero(p, size);
#else
    volatile uint8_t *v = (volatile uint8_t *)p;
    for (size_t i = 0; i < size; i++)
        v[i] = 0;
#endif
}

void seal_keys_wipe(wire_keys *k)
{
    seal_wipe(k, sizeof *k);
}

int seal_keys_set(wire_keys *k, const uint8_t send_key[SEAL_KEY_SIZE],
                  const uint8_t recv_key[SEAL_KEY_SIZE], uint8_t send_direction)
{
    if (k == NULL || send_key == NULL || recv_key == NULL ||
        (send_direction != SEAL_DIRECTION_LOW && send_direction != SEAL_DIRECTION_HIGH))
        return TEMPO_E_INVALID_ARG;
    seal_keys_wipe(k);
    int rc = seal_start();
    if (rc != TEMPO_OK)
        return rc;
    memcpy(k->send_key, send_key, SEAL_KEY_SIZE);
    memcpy(k->recv_key, recv_key, SEAL_KEY_SIZE);
    k->send_direction = send_direction;
    k->recv_direction = (uint8_t)(send_direction ^ 1u);
    k->ready = true;
    return TEMPO_OK;
}

void seal_nonce(uint64_t sequence, uint8_t direction, uint8_t out[SEAL_NONCE_SIZE])
{
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(sequence >> (8 * i));
    out[8] = direction;
    out[9] = out[10] = out[11] = 0;
}

/* The header's 16 sequence bits (bytes 5..6) are the low bits of seq. */
static bool sequence_matches(const uint8_t *header, uint64_t seq)
{
    return (uint16_t)(header[5] | header[6] << 8) == (uint16_t)seq;
}

int seal_datagram(const wire_keys *k, uint64_t sequence, uint8_t *buf, size_t size,
                  size_t capacity)
{
    if (k == NULL || buf == NULL || size < PACKET_HEADER_SIZE ||
        buf[0] != packet_protocol_byte(false) || !sequence_matches(buf, sequence))
        return TEMPO_E_INVALID_ARG;
    if (size + SEAL_TAG_SIZE > capacity || size + SEAL_TAG_SIZE > TEMPO_MAX_DATAGRAM)
        return TEMPO_E_FULL;
    if (!k->ready)
        return TEMPO_E_STATE;
#ifdef TEMPO_HAVE_SODIUM
    uint8_t nonce[SEAL_NONCE_SIZE];
    seal_nonce(sequence, k->send_direction, nonce);
    /* The S bit is part of the associated data: set it first. */
    buf[0] = packet_protocol_byte(true);
    uint8_t *body = buf + PACKET_HEADER_SIZE;
    size_t body_size = size - PACKET_HEADER_SIZE;
    crypto_aead_chacha20poly1305_ietf_encrypt_detached(body, buf + size, NULL, body,
                                                       (unsigned long long)body_size, buf,
                                                       PACKET_HEADER_SIZE, NULL, nonce,
                                                       k->send_key);
    return (int)(size + SEAL_TAG_SIZE);
#else
    return TEMPO_E_UNSUPPORTED;
#endif
}

static int refuse(tempo_drop_reason *reason, tempo_drop_reason why)
{
    if (reason != NULL)
        *reason = why;
    return TEMPO_E_MALFORMED;
}

int seal_open(const wire_keys *k, uint64_t sequence, uint8_t *data, size_t size,
              tempo_drop_reason *reason)
{
    if (reason != NULL)
        *reason = TEMPO_DROP_NONE;
    if (k == NULL || data == NULL)
        return TEMPO_E_INVALID_ARG;
    if (size > TEMPO_MAX_DATAGRAM)
        return refuse(reason, TEMPO_DROP_TOO_LONG);
    if (size < PACKET_HEADER_SIZE + SEAL_TAG_SIZE)
        return refuse(reason, TEMPO_DROP_TOO_SHORT);
    if (data[0] != packet_protocol_byte(true) || !sequence_matches(data, sequence))
        return TEMPO_E_INVALID_ARG;
    if (!k->ready)
        return TEMPO_E_STATE;
#ifdef TEMPO_HAVE_SODIUM
    uint8_t nonce[SEAL_NONCE_SIZE];
    seal_nonce(sequence, k->recv_direction, nonce);
    size_t plain = size - SEAL_TAG_SIZE;
    uint8_t *body = data + PACKET_HEADER_SIZE;
    /* libsodium checks the tag before it decrypts a byte. */
    if (crypto_aead_chacha20poly1305_ietf_decrypt_detached(
            body, NULL, body, (unsigned long long)(plain - PACKET_HEADER_SIZE), data + plain,
            data, PACKET_HEADER_SIZE, nonce, k->recv_key) != 0)
        return refuse(reason, TEMPO_DROP_FORGED);
    return (int)plain;
#else
    return TEMPO_E_UNSUPPORTED;
#endif
}
