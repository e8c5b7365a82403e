/* SPDX-License-Identifier: MIT */
/*
 * ack.h — the datagram ack a bit-packed message carries (p2p INPUT and
 * INPUT_ACK, lockstep's turns): which of the receiver's datagrams the
 * sender has received, so the receiver's link learns its round trip and
 * its outbound loss from the stream that already flows (docs/PROTOCOL.md,
 * "Datagram acks").
 *
 * As reliable.io does, an ack names the newest sequence received and a
 * bitfield of the 32 before it; unlike it, the field costs 1 bit when
 * there is nothing to ack, and 10 when nothing before the ack was lost:
 *
 *   present  u1: 0 = nothing received yet; nothing follows
 *   ack      u8: the low 8 bits of the newest sequence received; the
 *            receiver recovers it against its own newest sent (link.h)
 *   gaps     u1: 0 = every one of the 32 sequences before ack arrived
 *   bits     u32, only with gaps = 1: bit i for ack - 1 - i (never all ones)
 *
 * 8 bits suffice because the receiver keeps its sent datagrams for 128
 * sequences (LINK_SENT_RING): an ack further behind than that is of no
 * use, and one 256 behind aliases only if 256 of the receiver's datagrams
 * in a row were lost, beyond any link's timeout at 60 a second.
 */
#ifndef TEMPO_WIRE_ACK_H
#define TEMPO_WIRE_ACK_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/bitpack.h"

#define WIRE_ACK_WIDTH 8 /* bits of the acked sequence on the wire */

typedef struct wire_ack {
    bool present;   /* false: the sender has received nothing yet (ack, bits 0) */
    uint8_t ack;    /* low WIRE_ACK_WIDTH bits of the newest sequence received */
    uint32_t bits;  /* bit i: ack - 1 - i was received */
} wire_ack;

/* The ack of a sender whose newest received sequence is `newest` (full
 * 64 bits) with `bits` (bit i: newest - 1 - i received), or none when
 * `any` is false. Bits naming no sequence (below 0) are set: they carry
 * nothing, and all ones is the short form. */
void wire_ack_make(wire_ack *a, bool any, uint64_t newest, uint32_t bits);
/* Write a as the field above (1, 10 or 42 bits). */
void wire_ack_put(tempo_bitwriter *w, const wire_ack *a);
/* Read the field into a. False, with the reader poisoned (its error says
 * why: the end, or BAD_VALUE for a gaps field of all ones, which a writer
 * never sends), and a cleared. */
bool wire_ack_get(tempo_bitreader *r, wire_ack *a);
/* The field's size in bits. */
int wire_ack_size_bits(const wire_ack *a);
/* Equal as the wire sees them. */
bool wire_ack_equal(const wire_ack *a, const wire_ack *b);

#endif /* TEMPO_WIRE_ACK_H */
