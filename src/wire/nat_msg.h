/* SPDX-License-Identifier: MIT */
/*
 * nat_msg.h — the messages of NAT traversal, byte by byte (docs/NAT.md,
 * "On the wire"): what a member and a relay say to introduce peers, what
 * the relay forwards for a pair with no direct path, and the probes peers
 * send each other to punch holes. Shared by the relay (relay/relay_peers.c)
 * and the traversal transport (net/traversal.c). Integers little-endian.
 *
 * Between a member and the relay (after the gate's handshake, in the
 * relay's framing: the 8-byte header, the body, the seal's tag when the
 * relay is sealed):
 *
 *   CANDIDATES (41), member to relay, until an INTRO says every player is in:
 *     count u8 (0..NAT_MAX_LOCAL) | count addresses (its local ones)
 *   INTRO (42), relay to member, the answer to each CANDIDATES:
 *     flags u8 (1: every player of the match is in) | slots u8 (the
 *     member's own players) | secret 32 (the match's, for probes) |
 *     count u8 | count entries of (slots u8 | public address |
 *     ncand u8 (0..NAT_MAX_LOCAL) | ncand addresses), one per other member
 *   FORWARD (43), either way: player u8 (to: the lowest player of the
 *     member it is for; from: the sender's lowest player) | payload
 *     (1..NAT_MAX_FORWARD bytes, the datagram the peer would have sent)
 *
 * An address is 19 bytes: family u8 (4 or 6) | 16 bytes (IPv4 in the first
 * four, the rest zero) | port u16 (not 0).
 *
 * Between peers, on the session's socket (or inside a FORWARD):
 *
 *   PROBE (44) and PROBE_ACK (45): the 8-byte header (session id the match
 *     secret's first 32 bits, sequence 0, not sealed) | from u8 | to u8 |
 *     flags u8 (1: the sender has a direct path to the receiver) |
 *     nonce u32 (a PROBE's own, an ACK's copy of the PROBE's) |
 *     tag 8 (SipHash-2-4 under the secret's first 16 bytes of every byte
 *     before it)
 *
 * A PROBE_ACK answers a PROBE whose tag verified, is the same size, and
 * goes back where the PROBE came from: nobody without the match's secret
 * makes a member send anything, and nothing a member sends before its
 * peer has proved the secret is larger than what it answers.
 */
#ifndef TEMPO_WIRE_NAT_MSG_H
#define TEMPO_WIRE_NAT_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/transport.h"
#include "wire/packet.h"

#define NAT_TYPE_CANDIDATES 41
#define NAT_TYPE_INTRO 42
#define NAT_TYPE_FORWARD 43
#define NAT_TYPE_PROBE 44
#define NAT_TYPE_PROBE_ACK 45

#define NAT_MAX_LOCAL 4          /* local addresses a member sends */
#define NAT_MAX_MEMBERS 8        /* members of one match (one per player at most) */
#define NAT_ADDRESS_SIZE 19
#define NAT_SECRET_SIZE 32
#define NAT_PROBE_BODY 15        /* from, to, flags, nonce, tag */
#define NAT_PROBE_SIZE (PACKET_HEADER_SIZE + NAT_PROBE_BODY)
#define NAT_FLAG_ALL_IN 1u       /* INTRO: every player is in */
#define NAT_FLAG_DIRECT 1u       /* PROBE: the sender has a direct path */
/* The join of a peer-to-peer match: a rollback join's fields, then its
 * flag byte at 17 (tempo/relay.h). */
#define NAT_JOIN_SIZE 18
/* Largest FORWARD payload: a sealed relay datagram less its header, tag
 * and the player byte. */
#define NAT_MAX_FORWARD (TEMPO_MAX_DATAGRAM - PACKET_HEADER_SIZE - PACKET_TAG_SIZE - 1)

typedef struct nat_member {
    uint8_t slots;
    tempo_address public_addr;
    int ncand;
    tempo_address cand[NAT_MAX_LOCAL];
} nat_member;

typedef struct nat_intro {
    uint8_t flags;
    uint8_t slots;
    uint8_t secret[NAT_SECRET_SIZE];
    int count;
    nat_member members[NAT_MAX_MEMBERS];
} nat_intro;

typedef struct nat_probe {
    uint8_t type;       /* NAT_TYPE_PROBE or NAT_TYPE_PROBE_ACK */
    uint8_t from, to;   /* players: the lowest of each member */
    uint8_t flags;
    uint32_t nonce;
} nat_probe;

/* An address that can go on the wire: IPv4 or IPv6 with a port. */
bool nat_address_ok(const tempo_address *a);

/* Writers put the body at `body` (room for the largest: PACKET_MAX_BODY)
 * and return its size; the caller checked every address with
 * nat_address_ok. */
size_t nat_candidates_write(uint8_t *body, const tempo_address *cand, int count);
size_t nat_intro_write(uint8_t *body, const nat_intro *in);
/* Readers: true if the body has exactly the right size and every field is
 * in range (out is then filled). */
bool nat_candidates_read(const uint8_t *body, size_t size, tempo_address *cand, int *count);
bool nat_intro_read(const uint8_t *body, size_t size, nat_intro *out);

/* The session id probes of a match carry. */
uint32_t nat_probe_session(const uint8_t secret[NAT_SECRET_SIZE]);
/* Write the whole probe datagram (NAT_PROBE_SIZE bytes) into out. */
size_t nat_probe_write(uint8_t *out, const nat_probe *p, const uint8_t secret[NAT_SECRET_SIZE]);
/* True if data is a probe datagram of this match with a tag that verifies
 * and fields in range (out is then filled). Else false, and *why (why may
 * be NULL) says which it is not: the header's reasons, BAD_TYPE, FRAGMENT,
 * SEALED, TRUNCATED or TRAILING (no probe's shape), SESSION (a probe of
 * another match: its session id is another secret's), FORGED (the tag does
 * not verify under this secret), BAD_VALUE (tagged, but a sequence or a
 * field out of range). */
bool nat_probe_read(const uint8_t *data, size_t size, const uint8_t secret[NAT_SECRET_SIZE],
                    nat_probe *out, tempo_drop_reason *why);
/* True if data's header reads and names a probe's type, whatever its
 * size, bits or tag: a receiver hands it to nat_probe_read, which says
 * what else is wrong with it, and counts it by that reason. */
bool nat_is_probe(const uint8_t *data, size_t size);

#endif /* TEMPO_WIRE_NAT_MSG_H */
