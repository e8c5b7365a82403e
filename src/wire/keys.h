/* SPDX-License-Identifier: MIT */
/*
 * keys.h — a peer-to-peer match's keys: one per ordered pair of machines,
 * derived from the match key (docs/SECURITY.md, "Key derivation").
 *
 * The game hands every machine of a match the same 32-byte match key (its
 * matchmaker made it and shared it with each participant). From it, each
 * machine derives the key of every ordered pair (from, to) it is part of:
 *
 *   key(from, to) = crypto_kdf_derive_from_key(32 bytes,
 *                       subkey_id = session_id << 32 | from << 16 | to,
 *                       context   = "tempoP2P", match key)
 *
 * crypto_kdf is keyed BLAKE2b: without the match key nobody can compute a
 * pair key, and one pair key tells nothing about another or about the match
 * key. So A, holding key(A,B), key(B,A), key(A,C) and key(C,A), cannot seal
 * a datagram that C would open as coming from B: that needs key(B,C).
 *
 * A machine's identity is a number both ends agree on from the match setup
 * alone, before any datagram:
 *   - a machine hosting players: its lowest player slot (0..7);
 *   - a spectator: TEMPO_MAX_PLAYERS + its spectator number (0..63) as the
 *     match setup numbers spectators.
 * No two machines host the same player, so two player machines never share
 * a lowest slot; spectator identities start above every player slot and
 * are distinct by their numbering. (A player mask would not do: every
 * spectator's mask is 0.) Identities are 16-bit, the session id 32-bit, so
 * the subkey id is one-to-one with (session id, from, to): distinct ordered
 * pairs, and the same pair in another session, get unrelated keys.
 */
#ifndef TEMPO_WIRE_KEYS_H
#define TEMPO_WIRE_KEYS_H

#include <stdint.h>

#include "wire/seal.h"

#define KEYS_MATCH_KEY_SIZE 32
#define KEYS_MAX_IDENTITY 0xFFFFu

/* The identity of a machine hosting the players in player_mask (bit p:
 * player p): its lowest player; UINT32_MAX (refused by keys_derive) for 0. */
uint32_t keys_identity_of_players(uint32_t player_mask);
/* The identity of spectator number n (0.. as the match setup numbers them). */
uint32_t keys_identity_of_spectator(uint32_t n);
/* Key epochs: a machine that rejoins a match after its process restarted
 * must not seal under the keys it used before (it would reuse their
 * nonces from sequence 0). It comes back at a new epoch e (1..255) and its
 * identity becomes identity + KEYS_EPOCH_STEP * e: above every player and
 * spectator identity, so every pair it is part of gets unrelated keys. */
#define KEYS_EPOCH_STEP 0x100u
#define KEYS_MAX_EPOCH 255u
uint32_t keys_identity_at_epoch(uint32_t identity, uint32_t epoch);

/* The key of datagrams from `from` to `to` in session `session_id`.
 * TEMPO_OK, TEMPO_E_INVALID_ARG (NULL, from == to, an identity above
 * KEYS_MAX_IDENTITY), TEMPO_E_UNSUPPORTED (built without libsodium; out is
 * then zeroed). */
int keys_derive(const uint8_t match_key[KEYS_MATCH_KEY_SIZE], uint32_t session_id,
                uint32_t from, uint32_t to, uint8_t out[SEAL_KEY_SIZE]);

/* The keys of this machine (`self`) for its link to `peer`: it seals with
 * key(self, peer), opens with key(peer, self), and sends with direction
 * LOW when self < peer. Same errors as keys_derive; on an error *out is
 * left wiped. */
int keys_derive_link(const uint8_t match_key[KEYS_MATCH_KEY_SIZE], uint32_t session_id,
                     uint32_t self, uint32_t peer, wire_keys *out);

#endif /* TEMPO_WIRE_KEYS_H */
