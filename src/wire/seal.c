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
 * Why AES-256-GCM beside it: where the CPU has AES and carry-less
 * multiply instructions it seals tempo's small datagrams in a third to a
 * half of ChaCha20-Poly1305's time (docs/PERFORMANCE.md, bench_seal), and
 * its expanded key (crypto_aead_aes256gcm_beforenm) is made once per
 * direction when the link agrees on it, never per datagram. Without those
 * instructions libsodium has no AES-GCM at all (a browser's build), so
 * ChaCha20-Poly1305 stays the default and the fallback.
 *
 * Invariant: buffers are worked on in place; on any refusal before the
 * AEAD runs, nothing is written.
 */
#include "wire/seal.h"

#include <string.h>

#include "tempo/base.h"
#include "tempo/transport.h"
#include "wire/codec.h"
#include "wire/packet.h"
#include "wire/turn_msg.h"

#ifdef TEMPO_HAVE_SODIUM
#include <sodium.h>
_Static_assert(crypto_aead_chacha20poly1305_ietf_KEYBYTES == SEAL_KEY_SIZE, "key size");
_Static_assert(crypto_aead_chacha20poly1305_ietf_ABYTES == SEAL_TAG_SIZE, "tag size");
_Static_assert(crypto_aead_chacha20poly1305_ietf_NPUBBYTES == SEAL_NONCE_SIZE, "nonce size");
_Static_assert(crypto_aead_aes256gcm_KEYBYTES == SEAL_KEY_SIZE, "AES key size");
_Static_assert(crypto_aead_aes256gcm_ABYTES == SEAL_TAG_SIZE, "AES tag size");
_Static_assert(crypto_aead_aes256gcm_NPUBBYTES == SEAL_NONCE_SIZE, "AES nonce size");
_Static_assert(sizeof(crypto_aead_aes256gcm_state) == SEAL_AES_STATE_SIZE, "AES state size");
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

static bool aes_hidden;

bool seal_aes_available(void)
{
#ifdef TEMPO_HAVE_SODIUM
    /* is_available needs sodium_init's CPU probe first */
    return !aes_hidden && seal_start() == TEMPO_OK && crypto_aead_aes256gcm_is_available() == 1;
#else
    return false;
#endif
}

bool tempo_cipher_aes_available(void)
{
    return seal_aes_available();
}

void seal_test_hide_aes(bool hide)
{
    aes_hidden = hide;
}

uint8_t seal_offer(int cipher)
{
    bool aes = seal_aes_available();
    switch (cipher) {
    case TEMPO_CIPHER_AUTO:
        return (uint8_t)(SEAL_CIPHER_CHACHA20 | (aes ? SEAL_CIPHER_AES256GCM : 0u));
    case TEMPO_CIPHER_CHACHA20:
        return SEAL_CIPHER_CHACHA20;
    case TEMPO_CIPHER_AES256GCM:
        return aes ? SEAL_CIPHER_AES256GCM : 0u;
    default:
        return 0;
    }
}

int seal_cipher_check(int cipher)
{
    if (cipher < TEMPO_CIPHER_AUTO || cipher > TEMPO_CIPHER_AES256GCM)
        return TEMPO_E_INVALID_ARG;
    return seal_offer(cipher) != 0 ? TEMPO_OK : TEMPO_E_UNSUPPORTED;
}

uint8_t seal_choose(uint8_t a, uint8_t b)
{
    uint8_t both = (uint8_t)(a & b & SEAL_CIPHERS_ALL);
    if (both & SEAL_CIPHER_AES256GCM)
        return SEAL_CIPHER_AES256GCM;
    return (uint8_t)(both & SEAL_CIPHER_CHACHA20);
}

bool seal_type_fixed(uint8_t type_byte)
{
    switch (type_byte & 0x7Fu) {
    case TEMPO_MSG_SYNC_REQUEST:
    case TEMPO_MSG_SYNC_REPLY:
    case TURN_MSG_HELLO:
    case TURN_MSG_HELLO_REPLY:
    case TEMPO_MSG_REJOIN_REFUSED:
        return true;
    default:
        return false;
    }
}

#ifdef TEMPO_HAVE_SODIUM
/* The expanded key at p, or NULL where p is not 16-byte aligned (a game's
 * allocator gave less): then each datagram expands the raw key. */
static const void *aes_state(const uint8_t *p)
{
    return ((uintptr_t)p & 15u) == 0 ? (const void *)p : NULL;
}
#endif

int seal_keys_use(wire_keys *k, uint8_t cipher)
{
    if (k == NULL || (cipher != SEAL_CIPHER_CHACHA20 && cipher != SEAL_CIPHER_AES256GCM))
        return TEMPO_E_INVALID_ARG;
    if (!k->ready)
        return TEMPO_E_STATE;
    if (cipher == SEAL_CIPHER_AES256GCM && !seal_aes_available())
        return TEMPO_E_UNSUPPORTED;
    seal_wipe(k->aes_send, sizeof k->aes_send);
    seal_wipe(k->aes_recv, sizeof k->aes_recv);
#ifdef TEMPO_HAVE_SODIUM
    if (cipher == SEAL_CIPHER_AES256GCM && aes_state(k->aes_send) != NULL) {
        crypto_aead_aes256gcm_beforenm((crypto_aead_aes256gcm_state *)(void *)k->aes_send,
                                       k->send_key);
        crypto_aead_aes256gcm_beforenm((crypto_aead_aes256gcm_state *)(void *)k->aes_recv,
                                       k->recv_key);
    }
#endif
    k->cipher = cipher;
    k->agreed = true;
    return TEMPO_OK;
}

bool seal_keys_agree(wire_keys *k, uint8_t ours, uint8_t theirs)
{
    uint8_t c = seal_choose(ours, theirs);
    if (k == NULL || c == 0)
        return false;
    return k->agreed ? k->cipher == c : seal_keys_use(k, c) == TEMPO_OK;
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
    k->cipher = SEAL_CIPHER_CHACHA20;
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
    unsigned long long body_size = (unsigned long long)(size - PACKET_HEADER_SIZE);
    if (k->cipher == SEAL_CIPHER_AES256GCM && !seal_type_fixed(buf[7])) {
        const void *st = aes_state(k->aes_send);
        if (st != NULL)
            crypto_aead_aes256gcm_encrypt_detached_afternm(
                body, buf + size, NULL, body, body_size, buf, PACKET_HEADER_SIZE, NULL, nonce,
                (const crypto_aead_aes256gcm_state *)st);
        else
            crypto_aead_aes256gcm_encrypt_detached(body, buf + size, NULL, body, body_size, buf,
                                                   PACKET_HEADER_SIZE, NULL, nonce, k->send_key);
    } else {
        crypto_aead_chacha20poly1305_ietf_encrypt_detached(body, buf + size, NULL, body,
                                                           body_size, buf, PACKET_HEADER_SIZE,
                                                           NULL, nonce, k->send_key);
    }
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
    unsigned long long body_size = (unsigned long long)(plain - PACKET_HEADER_SIZE);
    int rc;
    /* libsodium checks the tag before it decrypts a byte, with either AEAD. */
    if (k->cipher == SEAL_CIPHER_AES256GCM && !seal_type_fixed(data[7])) {
        const void *st = aes_state(k->aes_recv);
        if (st != NULL)
            rc = crypto_aead_aes256gcm_decrypt_detached_afternm(
                body, NULL, body, body_size, data + plain, data, PACKET_HEADER_SIZE, nonce,
                (const crypto_aead_aes256gcm_state *)st);
        else
            rc = crypto_aead_aes256gcm_decrypt_detached(body, NULL, body, body_size,
                                                        data + plain, data, PACKET_HEADER_SIZE,
                                                        nonce, k->recv_key);
    } else {
        rc = crypto_aead_chacha20poly1305_ietf_decrypt_detached(
            body, NULL, body, body_size, data + plain, data, PACKET_HEADER_SIZE, nonce,
            k->recv_key);
    }
    if (rc != 0)
        return refuse(reason, TEMPO_DROP_FORGED);
    return (int)plain;
#else
    return TEMPO_E_UNSUPPORTED;
#endif
}
