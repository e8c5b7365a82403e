/* SPDX-License-Identifier: MIT */
/*
 * keys.c — per-ordered-pair keys from a match key (keys.h), with
 * libsodium's crypto_kdf (keyed BLAKE2b).
 *
 * Invariant: every intermediate key is wiped before returning, and on an
 * error the caller's output holds no key material.
 */
#include "wire/keys.h"

#include <string.h>

#include "tempo/base.h"

#ifdef TEMPO_HAVE_SODIUM
#include <sodium.h>
_Static_assert(crypto_kdf_KEYBYTES == KEYS_MATCH_KEY_SIZE, "match key size");
_Static_assert(crypto_kdf_CONTEXTBYTES == 8, "context size");
#endif

/* crypto_kdf's context: 8 bytes naming what the subkeys are for, so these
 * keys differ from anything else a game derives from the same match key. */
static const char KDF_CONTEXT[8] = {'t', 'e', 'm', 'p', 'o', 'P', '2', 'P'};

uint32_t keys_identity_of_players(uint32_t player_mask)
{
    if (player_mask == 0)
        return UINT32_MAX; /* no identity: keys_derive refuses it */
    uint32_t p = 0;
    while (p < 31 && (player_mask & (1u << p)) == 0)
        p++;
    return p;
}

uint32_t keys_identity_of_spectator(uint32_t n)
{
    return TEMPO_MAX_PLAYERS + n;
}

uint32_t keys_identity_at_epoch(uint32_t identity, uint32_t epoch)
{
    return identity + KEYS_EPOCH_STEP * epoch;
}

int keys_derive(const uint8_t match_key[KEYS_MATCH_KEY_SIZE], uint32_t session_id,
                uint32_t from, uint32_t to, uint8_t out[SEAL_KEY_SIZE])
{
    if (match_key == NULL || out == NULL || from == to || from > KEYS_MAX_IDENTITY ||
        to > KEYS_MAX_IDENTITY)
        return TEMPO_E_INVALID_ARG;
    int rc = seal_start();
    if (rc != TEMPO_OK) {
        seal_wipe(out, SEAL_KEY_SIZE);
        return rc;
    }
#ifdef TEMPO_HAVE_SODIUM
    uint64_t id = (uint64_t)session_id << 32 | (uint64_t)from << 16 | to;
    if (crypto_kdf_derive_from_key(out, SEAL_KEY_SIZE, id, KDF_CONTEXT, match_key) != 0) {
        seal_wipe(out, SEAL_KEY_SIZE);
        return TEMPO_E_UNSUPPORTED;
    }
    return TEMPO_OK;
#else
    (void)KDF_CONTEXT;
    (void)session_id;
    return TEMPO_E_UNSUPPORTED;
#endif
}

int keys_derive_link(const uint8_t match_key[KEYS_MATCH_KEY_SIZE], uint32_t session_id,
                     uint32_t self, uint32_t peer, wire_keys *out)
{
    if (out == NULL)
        return TEMPO_E_INVALID_ARG;
    seal_keys_wipe(out);
    uint8_t send[SEAL_KEY_SIZE], recv[SEAL_KEY_SIZE];
    int rc = keys_derive(match_key, session_id, self, peer, send);
    if (rc == TEMPO_OK)
        rc = keys_derive(match_key, session_id, peer, self, recv);
    if (rc == TEMPO_OK)
        rc = seal_keys_set(out, send, recv,
                           self < peer ? SEAL_DIRECTION_LOW : SEAL_DIRECTION_HIGH);
    seal_wipe(send, sizeof send);
    seal_wipe(recv, sizeof recv);
    if (rc != TEMPO_OK)
        seal_keys_wipe(out);
    return rc;
}
