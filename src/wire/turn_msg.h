/* SPDX-License-Identifier: MIT */
/*
 * turn_msg.h — the messages of turn-based lockstep (types 30..35) and their
 * wire form, byte by byte (docs/PROTOCOL.md, section "Turn-based lockstep").
 * Every integer is little endian; a body is decoded as hostile data:
 * bounds-checked, range-checked, canonical, never allocating.
 *
 *   30 turn_hello        nonce u32 (not 0), config hash u32, player u8, ready u8 (0/1)
 *   31 turn_hello_reply  the same, echoing the request's nonce
 *   32 turn_start        empty: the host starts the match (turn 0)
 *   33 turns             the header below, then `lists` turn lists
 *   34 turn_leave        empty: the sender leaves the match
 *   35 turn_relay        relay to member (docs/RELAY.md "Lockstep turns"):
 *                        started u8 (0/1) | clock i32 (the relay's turn now,
 *                        negative before turn 0) | into_us u32 (microseconds
 *                        into that turn) | ack u32 (the first turn of the
 *                        member's player the relay lacks) | first u32 |
 *                        final u32 (first <= final: the lists of every turn
 *                        in first..final-1 the member needs are in this
 *                        message) | lists u8 | lists, as in turns
 *
 * turns header (34 bytes, and 4 more per lost player):
 *   ack u32        the first turn of the receiver's player the sender lacks
 *   sum_turn u32   a turn the sender executed, TURN_NONE for none ...
 *   sum u64        ... and the checksum of its state after it (0 with none)
 *   sim_us u32     the sender's mean cost of simulating one turn, us
 *   rtt_ms u16     the sender's largest smoothed round trip, TURN_RTT_UNKNOWN for none
 *   rttvar_ms u16  that link's deviation (0 with none)
 *   ping u32       0, or an id the receiver echoes as pong at its next poll
 *   pong u32       0, or the id of the receiver's newest ping
 *   lost u8        players whose machines the sender holds lost
 *   have u32       per player of `lost`, ascending: the first turn of its
 *                  list the sender lacks (0 .. INT32_MAX)
 *   lists u8       0 .. TURN_MSG_MAX_LISTS
 * then the lists, then the datagram ack (wire/ack.h, spelled in bytes):
 *   kind u8        0: none; 1: an ack, every one of the 32 before it
 *                  received; 2: an ack and its bits
 *   ack u8         (kind 1, 2) the low 8 bits of the newest sequence received
 *   delay u8       (kind 1, 2) ms from its arrival until this went, 255 for
 *                  255 or more (no round trip from it)
 *   bits u32       (kind 2) bit i: ack - 1 - i received; never all ones
 *
 * A turn list is one player's commands for one turn, self-contained so that
 * a relay can forward it unchanged (or mark it substituted):
 *   player u8      0 .. 7
 *   flags u8       bit 0: a length follows; bit 1: substituted (not the
 *                  player's own list: a relay stood in for a late player)
 *   turn u32       0 .. INT32_MAX
 *   length_ms u16  (bit 0 only) turns from this one on last this long, 1 ..
 *   count u8       commands, 0 .. TURN_MAX_COMMANDS
 *   count times:   size - 1 u8, then size bytes (a command is 1 .. 256 bytes)
 * The command bytes of one list total at most TURN_BUDGET.
 */
#ifndef TEMPO_WIRE_TURN_MSG_H
#define TEMPO_WIRE_TURN_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/ack.h"
#include "wire/drop.h"

#define TURN_MSG_HELLO 30
#define TURN_MSG_HELLO_REPLY 31
#define TURN_MSG_START 32
#define TURN_MSG_TURNS 33
#define TURN_MSG_LEAVE 34
#define TURN_MSG_FIRST 30
#define TURN_MSG_RELAY 35
#define TURN_MSG_LAST 35

#define TURN_MAX_COMMAND 256      /* bytes of one command */
#define TURN_MAX_COMMANDS 64      /* commands in one list */
#define TURN_BUDGET 1024          /* command bytes of one list */
/* A list's commands as stored and sent: one size byte per command. */
#define TURN_LIST_BYTES (TURN_BUDGET + TURN_MAX_COMMANDS)
#define TURN_MSG_MAX_LISTS 48     /* lists in one turns message */
#define TURN_HEADER_SIZE 34        /* with no lost player */
#define TURN_ACK_MAX 7            /* the datagram ack after the lists, at most */
#define TURN_ACK_DELAY_UNKNOWN 255
#define TURN_LIST_HEADER_MAX 9    /* a list's bytes before its commands, with a length */
#define TURN_NONE 0xFFFFFFFFu
#define TURN_RTT_UNKNOWN 0xFFFFu

#define TURN_LIST_HAS_LENGTH 1u
#define TURN_LIST_SUBSTITUTED 2u

typedef struct turn_hello {
    uint32_t nonce;
    uint32_t config_hash;
    uint8_t player;
    bool ready;
} turn_hello;

/* One player's list for one turn; cmds points into the decoded buffer (or
 * the sender's store when encoding). */
typedef struct turn_list {
    uint8_t player;
    uint8_t flags;            /* TURN_LIST_* */
    int32_t turn;
    uint16_t length_ms;       /* with TURN_LIST_HAS_LENGTH */
    uint8_t count;
    uint16_t cmds_size;       /* bytes at cmds, size bytes included */
    const uint8_t *cmds;
} turn_list;

typedef struct turn_turns {
    uint32_t ack;
    uint32_t sum_turn;
    uint64_t sum;
    uint32_t sim_us;
    uint16_t rtt_ms, rttvar_ms;
    uint32_t ping, pong;
    uint8_t lost;             /* players the sender holds lost */
    uint32_t have[8];         /* for each player of lost */
    int nlists;
    turn_list list[TURN_MSG_MAX_LISTS];
    wire_ack dack;            /* the sender's ack of the receiver's datagrams */
    uint8_t dack_delay_ms;    /* with an ack: how long it held it, TURN_ACK_DELAY_UNKNOWN */
} turn_turns;

/* A relay's final lists for one member (type 35). */
typedef struct turn_relay {
    bool started;
    int32_t clock;            /* the relay's turn now, negative before turn 0 */
    uint32_t into_us;         /* how far into that turn */
    int32_t ack;              /* the first turn of the member's list the relay lacks */
    int32_t first, final;     /* every needed list of first..final-1 is in `list` */
    int nlists;
    turn_list list[TURN_MSG_MAX_LISTS];
} turn_relay;

typedef struct turn_msg {
    uint8_t type;
    union {
        turn_hello hello;     /* HELLO, HELLO_REPLY */
        turn_turns turns;     /* TURNS */
        turn_relay relay;     /* RELAY */
    } u;                      /* START and LEAVE have no body */
} turn_msg;

/* The name of a type 30..35 ("turn_hello" ...), NULL for any other. */
const char *turn_msg_name(uint8_t type);

/* True if cmds[0..size) is exactly `count` well-formed commands within the
 * budget. */
bool turn_cmds_valid(const uint8_t *cmds, size_t size, int count);

/* Bytes list l takes on the wire. */
size_t turn_list_wire_size(const turn_list *l);

/* Encode m's body into buf. Returns its size (0 for START and LEAVE), or
 * TEMPO_E_INVALID_ARG (a NULL, an unknown type, a field out of range, a
 * list whose commands are not well formed), TEMPO_E_FULL (capacity). */
int turn_msg_encode(const turn_msg *m, uint8_t *buf, size_t capacity);

/* Decode a body of `type` (size bytes at data) into *out; list commands
 * point into data. TEMPO_OK, or TEMPO_E_MALFORMED with *reason (BAD_TYPE,
 * TRUNCATED, BAD_VALUE, TRAILING), TEMPO_E_INVALID_ARG for NULLs. Reads
 * nothing outside [data, data + size). */
int turn_msg_decode(uint8_t type, const uint8_t *data, size_t size, turn_msg *out,
                    tempo_drop_reason *reason);

#endif /* TEMPO_WIRE_TURN_MSG_H */
