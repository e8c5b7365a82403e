/* SPDX-License-Identifier: MIT */
/*
 * packet.h — the datagram header, the layer below the message codec
 * (docs/PROTOCOL.md, section 2, byte by byte).
 *
 *   byte 0     protocol byte: 1011 S VVV — magic 1011, S = sealed, version
 *   bytes 1-4  session id, little endian
 *   bytes 5-6  sequence, low 16 bits of the sender's 64-bit counter, LE
 *   byte 7     type byte: F TTTTTTT — F = fragment, T = message type 1..127
 *   bytes 8..  body (a message body, or a fragment: wire/fragment.h)
 *   last 16    the AEAD tag, present exactly when S = 1
 *
 * Every sender numbers its datagrams to one receiver 0, 1, 2 ... in 64 bits
 * and sends the low 16; the receiver recovers the full value against the
 * highest sequence it has accepted (packet_sequence_recover). The 8 header
 * bytes are whole so that a sealing layer can take them as associated data
 * and encrypt the body from byte 8 on.
 *
 * Invariant: readers never touch a byte outside [data, data + size) and
 * check every field before reporting it; a refusal names its reason.
 */
#ifndef TEMPO_WIRE_PACKET_H
#define TEMPO_WIRE_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/transport.h"
#include "wire/drop.h"

#define TEMPO_PROTOCOL_VERSION 4

#define PACKET_HEADER_SIZE 8
#define PACKET_TAG_SIZE 16     /* trailing AEAD tag of a sealed datagram */
#define PACKET_MAX_TYPE 127    /* types are 1..127; 0 is never valid */
#define PACKET_SEQ_BITS 16     /* sequence bits on the wire */
/* Recovery window: a sequence decodes right when it lies within
 * [highest - PACKET_SEQ_BEHIND, highest + PACKET_SEQ_AHEAD] of the highest
 * accepted so far (RFC 1982 half range; the tie goes to the older value). */
#define PACKET_SEQ_BEHIND 32768u
#define PACKET_SEQ_AHEAD 32767u
/* Largest body: the datagram less the header (and the tag when sealed). */
#define PACKET_MAX_BODY (TEMPO_MAX_DATAGRAM - PACKET_HEADER_SIZE)
#define PACKET_MAX_SEALED_BODY (TEMPO_MAX_DATAGRAM - PACKET_HEADER_SIZE - PACKET_TAG_SIZE)

typedef struct tempo_packet_header {
    uint32_t session_id;
    uint16_t sequence;  /* low 16 bits as sent; see packet_sequence_recover */
    uint8_t type;       /* 1..PACKET_MAX_TYPE */
    bool fragment;      /* the body is one fragment of a larger message */
    bool sealed;        /* a 16-byte AEAD tag ends the datagram */
} tempo_packet_header;

/* Where a read datagram's parts are: body at [body, body + body_size),
 * the tag (sealed only) right after it. */
typedef struct tempo_packet_view {
    tempo_packet_header h;
    size_t body;        /* offset of the body: always PACKET_HEADER_SIZE */
    size_t body_size;
    size_t tag;         /* offset of the tag when sealed, else 0 */
} tempo_packet_view;

#define PACKET_MAGIC 0xBu       /* 1011b: the high 4 bits of byte 0 */
#define PACKET_SEALED_BIT 0x08u  /* bit 3 of byte 0 */

/* The protocol byte of this version, plain or sealed (inline: sealing and
 * opening check it on every datagram). */
static inline uint8_t packet_protocol_byte(bool sealed)
{
    return (uint8_t)((PACKET_MAGIC << 4) | (sealed ? PACKET_SEALED_BIT : 0u) |
                     TEMPO_PROTOCOL_VERSION);
}

/* Write the 8 header bytes of h into buf (capacity bytes). Returns
 * PACKET_HEADER_SIZE, or TEMPO_E_INVALID_ARG (NULL, type 0 or above 127),
 * TEMPO_E_FULL (capacity < 8). The tag is not written: sealing appends it. */
int packet_write(const tempo_packet_header *h, uint8_t *buf, size_t capacity);

/* Read and check the header of a datagram of `size` bytes: size, magic,
 * version, type (1..127; whether the registry knows it is the codec's
 * question), and for a sealed one room for the tag. Returns TEMPO_OK, or
 * TEMPO_E_MALFORMED with *reason set (reason may be NULL), or
 * TEMPO_E_INVALID_ARG for NULL out or data (with size > 0). */
int packet_read(const uint8_t *data, size_t size, tempo_packet_view *out, tempo_drop_reason *reason);

/* The session id alone, checking only what it needs (size, magic, version):
 * a receiver routes or drops by session before reading anything else.
 * Same returns as packet_read. */
int packet_peek_session(const uint8_t *data, size_t size, uint32_t *session_id,
                        tempo_drop_reason *reason);

/* The full 64-bit sequence whose low 16 bits are `low`, nearest `highest`
 * (the highest accepted so far; pass 0 before anything was accepted):
 * within the window above, and never below 0 (near the start the only
 * non-negative candidate is taken). */
uint64_t packet_sequence_recover(uint16_t low, uint64_t highest);

#endif /* TEMPO_WIRE_PACKET_H */
