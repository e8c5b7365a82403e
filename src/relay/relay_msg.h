/* SPDX-License-Identifier: MIT */
/*
 * relay_msg.h — the relay's five messages, byte by byte (docs/PROTOCOL.md,
 * section 17), shared by the relay (relay.c) and its members
 * (member/relay_member.c).
 *
 * Every message is a datagram: the 8-byte packet header (wire/packet.h;
 * session id the low 32 bits of the protocol id, the link's sequence, type
 * 36..40), the body, and, between a member and a sealed relay, the 16-byte
 * tag (wire/seal.h; the member sends LOW, the relay HIGH, with the token's
 * keys). Integers are little-endian. Bodies:
 *
 *   JOIN (36), member to relay, until the relay says it is in a match:
 *     the 14 bytes of a tempo_relay_join (tempo/relay.h), 17 for a lockstep
 *     match (its turn_ms and execution_delay follow)
 *   WELCOME (37), relay to member, its first datagram and its answer to a
 *     repeated handshake response or a JOIN:
 *     slots u8 (0: not in a match yet) | refused u8 (1: the JOIN was
 *     refused, 0 otherwise)
 *   INPUT (38), member to relay:
 *     ack u16 | ack_bits u32 (the link's) | frames_held u32 (relay frames it
 *     holds, 0..frames_held-1) | first u32 | count u8 | sums u8 | slots u8
 *     (its players: the relay refuses an INPUT naming others) |
 *     count frames of (each of its players, lowest first: input_size bytes) |
 *     sums of (frame u32 | checksum u64)
 *   FRAMES (39), relay to member:
 *     ack u16 | ack_bits u32 | flags u8 (1 started, 2 a desync follows) |
 *     clock i32 (the match's frame clock when sent) | wanted u32 (its next
 *     input frame the relay lacks) | sum_held u32 (newest check frame of
 *     its the relay holds, 0 none) | first u32 | count u8 |
 *     [desync: frame u32 | checksum u64 | checksum u64 (two that differ)] |
 *     count frames of (substituted u8 | num_players * input_size bytes)
 *   LEAVE (40), member to relay: empty.
 *
 * An input blob is opaque here: a frame of a turn-based match could carry
 * a command list instead (docs/RELAY.md says how). Readers check the exact
 * size before reading a field and never read past the datagram.
 */
#ifndef TEMPO_RELAY_RELAY_MSG_H
#define TEMPO_RELAY_RELAY_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/relay.h"
#include "net/link.h"
#include "net/receive.h"
#include "wire/packet.h"
#include "wire/seal.h"

#define RELAY_TYPE_JOIN 36
#define RELAY_TYPE_WELCOME 37
#define RELAY_TYPE_INPUT 38
#define RELAY_TYPE_FRAMES 39
#define RELAY_TYPE_LEAVE 40

#define RELAY_MAX_FRAMES 32      /* frames in one INPUT or FRAMES */
#define RELAY_MAX_SUMS 4         /* checksums in one INPUT */
#define RELAY_INPUT_HEAD 17
#define RELAY_FRAMES_HEAD 24
#define RELAY_DESYNC_SIZE 20

#define RELAY_FLAG_STARTED 1u
#define RELAY_FLAG_DESYNC 2u

typedef struct relay_acks {
    uint16_t ack;       /* low bits of the newest sequence received */
    uint32_t bits;      /* bit i: ack - 1 - i received */
} relay_acks;

/* The acks a datagram to the other side carries: the link's record of
 * what came, {0, 0} before anything did. */
relay_acks relay_acks_of(const net_link *l);
/* The other side's acks in a datagram it sent, as the receive pipeline
 * gives them to the link at the take (net/receive.h: 16 bits, recovered
 * against our newest sequence, from the newest datagram only). */
net_ack relay_acks_in(const relay_acks *a);
/* The same for a datagram already taken (the relay decodes a member's
 * INPUT after the take): given to the link only if it was the newest;
 * one that cannot be ours is counted there. */
void relay_acks_take(net_link *l, uint64_t now, const relay_acks *a, bool newest);

typedef struct relay_sum {
    int32_t frame;
    uint64_t checksum;
} relay_sum;

/* An INPUT as read: inputs points into the datagram. */
typedef struct relay_input_msg {
    relay_acks acks;
    int32_t frames_held;
    int32_t first;
    int count;
    int nsums;
    uint8_t slots;
    const uint8_t *inputs;  /* count * nslots * input_size bytes */
    relay_sum sums[RELAY_MAX_SUMS];
} relay_input_msg;

/* A FRAMES as read: frames points into the datagram. */
typedef struct relay_frames_msg {
    relay_acks acks;
    uint8_t flags;
    int32_t clock;
    int32_t wanted;
    int32_t sum_held;
    int32_t first;
    int count;
    int32_t desync_frame;
    uint64_t desync_sums[2];
    const uint8_t *frames;  /* count * (1 + frame_bytes) bytes */
} relay_frames_msg;

/* Bytes one INPUT frame takes, and one FRAMES frame. */
static inline size_t relay_input_frame_size(int nslots, int input_size)
{
    return (size_t)nslots * (size_t)input_size;
}
static inline size_t relay_frames_frame_size(int num_players, int input_size)
{
    return 1u + (size_t)num_players * (size_t)input_size;
}

/* Most frames that fit one datagram (sealed or not: the tag's room is
 * always left), at most RELAY_MAX_FRAMES. */
int relay_input_capacity(int nslots, int input_size, int nsums);
int relay_frames_capacity(int num_players, int input_size, bool desync);

/* Writers put the body at buf + PACKET_HEADER_SIZE and return its size. */
size_t relay_join_write(uint8_t *body, const tempo_relay_join *j);
size_t relay_welcome_write(uint8_t *body, uint8_t slots, bool refused);
/* inputs: count * nslots * input_size bytes. */
size_t relay_input_write(uint8_t *body, const relay_acks *a, int32_t frames_held, int32_t first,
                         uint8_t slots, int count, const uint8_t *inputs, size_t frame_size,
                         const relay_sum *sums, int nsums);
/* m's fields; m->frames: count * (1 + frame_bytes) bytes, or NULL when the
 * caller wrote them in place after the head (RELAY_FRAMES_HEAD, plus
 * RELAY_DESYNC_SIZE with a desync report). */
size_t relay_frames_write(uint8_t *body, const relay_frames_msg *m, size_t frame_size);

/* Readers: true if the body has exactly the right size and every field is
 * in range. */
bool relay_join_read(const uint8_t *body, size_t size, tempo_relay_join *out);
bool relay_welcome_read(const uint8_t *body, size_t size, uint8_t *slots, bool *refused);
bool relay_input_read(const uint8_t *body, size_t size, size_t frame_size, relay_input_msg *out);
bool relay_frames_read(const uint8_t *body, size_t size, size_t frame_size,
                       relay_frames_msg *out);

/* Frame the body at buf + PACKET_HEADER_SIZE: write the header (type,
 * sequence's low bits, session id of protocol_id) and seal with keys when
 * they are ready. Returns the datagram's size, or a negative tempo_result. */
int relay_msg_finish(uint8_t *buf, size_t cap, uint64_t protocol_id, uint8_t type,
                     uint64_t sequence, size_t body_size, const wire_keys *keys);

#endif /* TEMPO_RELAY_RELAY_MSG_H */
