/* SPDX-License-Identifier: MIT */
/*
 * cs_msg.h — the client-server messages after the handshake, byte by byte
 * (docs/PROTOCOL.md, section 14). Types 20..29 are this file's; the codec
 * registry (wire/codec.c) names them, and only the client-server roles
 * decode them.
 *
 * Every body starts with the link prefix (7 bytes):
 *   0  u8   flags: bit 0 = an ack follows (the sender has received something)
 *   1  u16  ack: low 16 bits of the newest sequence received from the other side
 *   3  u32  ack bits: bit i = ack - 1 - i was received
 * then, by type (integers little endian; a tick is 0 .. CS_MSG_MAX_TICK,
 * or -1 as 0xFFFFFFFF where "none" is allowed, so a reader can add a
 * window to any tick without overflow):
 *   ACCEPT (20), server to client, the first datagram after an admission:
 *     u16 client index | u16 first slot | u8 slots (1..CS_MSG_MAX_SLOTS;
 *     the client's slots are first .. first + slots - 1) | u16 players |
 *     u8 input size | u16 ticks per second | u32 the server's next tick |
 *     u8 snapshot interval
 *   INPUT (21), client to server, every tick:
 *     i32 newest snapshot tick received whole (-1: none) | u32 first tick |
 *     u8 ticks (0..CS_MSG_MAX_TICKS) | count * slots * input size bytes: for
 *     each tick, the input of each of the client's slots in ascending order
 *   SNAPSHOT (22), server to client, fragmented when larger than a datagram:
 *     u32 tick T | i32 baseline tick (-1: coded against zeros) |
 *     i32 input ack (the client's inputs are all here up to this tick) |
 *     i16 earliness (ticks * 256, smoothed) | u16 players |
 *     u32 state size | the snapshot block coded against the baseline's
 *     (wire/delta.h). The block is players * (u8 status, input size
 *     bytes), the inputs of tick T - 1, then the state: inputs that did
 *     not change since the baseline cost nothing, and every client that
 *     acknowledged the same baseline gets the same bytes after the head.
 *   BYE (23), either way: the sender leaves (or kicks); the prefix alone.
 *
 * Readers never read outside [data, data + size), accept exactly the size
 * the fields announce, and range-check what the receiver can check alone;
 * the receiver checks the rest (slots, ticks) against what it knows.
 */
#ifndef TEMPO_WIRE_CS_MSG_H
#define TEMPO_WIRE_CS_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/drop.h"

#define CS_MSG_ACCEPT 20
#define CS_MSG_INPUT 21
#define CS_MSG_SNAPSHOT 22
#define CS_MSG_BYE 23
#define CS_MSG_FIRST 20
#define CS_MSG_LAST 29 /* the reserved range */

#define CS_MSG_MAX_TICK 0x3FFFFFFF /* ticks on the wire are below 2^30 (207 days at 60 Hz) */
#define CS_MSG_PREFIX_SIZE 7
#define CS_MSG_MAX_TICKS 64       /* ticks one INPUT carries at most */
#define CS_MSG_INPUT_HEAD 9       /* INPUT bytes after the prefix, before the inputs */
#define CS_MSG_SNAPSHOT_HEAD 20   /* SNAPSHOT bytes after the prefix, before the delta */
#define CS_MSG_ACCEPT_SIZE (CS_MSG_PREFIX_SIZE + 15)
#define CS_MSG_MAX_SLOTS 8        /* slots of one client (the handshake's limit) */

typedef struct cs_msg_prefix {
    bool has_ack;
    uint16_t ack;
    uint32_t ack_bits;
} cs_msg_prefix;

typedef struct cs_msg_accept {
    uint16_t client;
    uint16_t first_slot;
    uint8_t num_slots;
    uint16_t num_players;
    uint8_t input_size;
    uint16_t frames_per_second;
    int32_t server_frame;
    uint8_t snapshot_interval;
} cs_msg_accept;

/* INPUT as read: inputs points into the datagram. */
typedef struct cs_msg_input {
    int32_t snapshot_ack;
    int32_t first;
    int count;
    const uint8_t *inputs; /* count * slots * input_size bytes */
} cs_msg_input;

/* SNAPSHOT as read: the pointers point into the message. */
typedef struct cs_msg_snapshot {
    int32_t tick;
    int32_t baseline;
    int32_t input_ack;
    int16_t earliness_q8;
    int num_players;
    uint32_t state_size;     /* the game state's; the block is the players' before it */
    const uint8_t *delta;
    size_t delta_size;
} cs_msg_snapshot;

/* Little-endian writing and reading of the prefix. Writes CS_MSG_PREFIX_SIZE bytes. */
void cs_msg_put_prefix(uint8_t *out, const cs_msg_prefix *p);
/* False if fewer than CS_MSG_PREFIX_SIZE bytes or unknown flag bits. */
bool cs_msg_get_prefix(const uint8_t *data, size_t size, cs_msg_prefix *p);

/* Each writer writes the whole body (prefix included) into out (cap
 * bytes) and returns its size, or 0 if it does not fit. */
size_t cs_msg_write_accept(uint8_t *out, size_t cap, const cs_msg_prefix *p, const cs_msg_accept *a);
size_t cs_msg_write_input(uint8_t *out, size_t cap, const cs_msg_prefix *p, int32_t snapshot_ack,
                          int32_t first, int count, const uint8_t *inputs, size_t input_bytes);
/* The snapshot's head; the caller appends the delta of the block right
 * after (at the returned offset, CS_MSG_PREFIX_SIZE + CS_MSG_SNAPSHOT_HEAD). */
size_t cs_msg_write_snapshot_head(uint8_t *out, size_t cap, const cs_msg_prefix *p,
                                  const cs_msg_snapshot *s);
/* Bytes of the players' part of a snapshot block. */
size_t cs_msg_players_size(int num_players, int input_size);
/* Whether a decoded block's player statuses are all ones a server sends
 * (0 confirmed, 1 predicted, 2 no client). */
bool cs_msg_players_valid(const uint8_t *players, int num_players, int input_size);

/* Readers of the bodies (prefix included). They return TEMPO_DROP_NONE or
 * the reason: TRUNCATED, TRAILING, BAD_VALUE (for ACCEPT: no slot, more
 * than CS_MSG_MAX_SLOTS, or slots past the players). */
tempo_drop_reason cs_msg_read_accept(const uint8_t *data, size_t size, cs_msg_accept *a);
/* slots: how many slots the sender owns (the receiver knows); a count of
 * ticks whose inputs do not fill the body exactly is TRUNCATED or TRAILING. */
tempo_drop_reason cs_msg_read_input(const uint8_t *data, size_t size, int slots, int input_size,
                                    cs_msg_input *in);
/* num_players must equal the receiver's; state_size must be 1..max_state.
 * The delta is checked when it is decoded, and the players' statuses
 * after (cs_msg_players_valid). */
tempo_drop_reason cs_msg_read_snapshot(const uint8_t *data, size_t size, int num_players,
                                       size_t max_state, cs_msg_snapshot *s);

#endif /* TEMPO_WIRE_CS_MSG_H */
