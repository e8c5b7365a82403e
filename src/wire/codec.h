/* SPDX-License-Identifier: MIT */
/*
 * codec.h — tempo's messages and their wire form (specified byte by byte in
 * docs/PROTOCOL.md).
 *
 * A datagram holds one message: the 8-byte packet header (wire/packet.h)
 * and a bit-packed body. One registry lists every message type with its name
 * and body codec; a type not in it is BAD_TYPE. Every byte that arrives is
 * hostile: the decoder is bounds-checked, never allocates, never reads past
 * the buffer, range-checks every field, and says why it rejected a datagram.
 *
 * Bodies can be coded alone (tempo_codec_encode_body / decode_body) for a
 * receiver that reads the header itself (replay window, seal, fragments);
 * tempo_codec_encode / decode do header and body together for one plain,
 * unfragmented datagram.
 *
 * Frames on the wire are relative: an INPUT message carries its base frame as
 * 16 bits, unwrapped by the receiver near a frame it expects, and every other
 * frame in the message as a small signed offset from the base.
 */
#ifndef TEMPO_WIRE_CODEC_H
#define TEMPO_WIRE_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/base.h"
#include "tempo/transport.h"
#include "wire/ack.h"
#include "wire/drop.h"
#include "wire/packet.h"

/* Most frames one INPUT message carries per player. */
#define TEMPO_MSG_MAX_FRAMES 64
/* Bytes of input one INPUT message holds at most (all players, all frames). */
#define TEMPO_MSG_MAX_INPUT_BYTES (TEMPO_MAX_PLAYERS * TEMPO_MSG_MAX_FRAMES * TEMPO_MAX_INPUT_SIZE)

typedef enum tempo_msg_type {
    TEMPO_MSG_SYNC_REQUEST = 1,
    TEMPO_MSG_SYNC_REPLY = 2,
    TEMPO_MSG_INPUT = 3,
    TEMPO_MSG_INPUT_ACK = 4,
    TEMPO_MSG_PING = 5,
    TEMPO_MSG_PONG = 6,
    TEMPO_MSG_QUALITY = 7,
    TEMPO_MSG_CHECKSUM = 8,
    TEMPO_MSG_DISCONNECT = 9,
    TEMPO_MSG_DESYNC_STATE = 46,
    TEMPO_MSG_REJOIN_REQUEST = 50,
    TEMPO_MSG_REJOIN_STATE = 51,
    TEMPO_MSG_REJOIN_FRAME = 52,
    TEMPO_MSG_REJOIN_REFUSED = 53,
    TEMPO_MSG_TYPE_COUNT_ = 54 /* one past the highest; the registry has room up to 127 */
} tempo_msg_type;

/* The relay's types (docs/RELAY.md): named by the registry, coded in
 * relay/relay_msg.c; 36..45 are the relay's, 41..45 still free. */
#define TEMPO_MSG_RELAY_FIRST 36
#define TEMPO_MSG_RELAY_LAST 45

/* SYNC_REQUEST / SYNC_REPLY: the handshake. The request carries a random
 * nonce; the reply echoes it. Both carry what start-up needs. */
typedef struct tempo_msg_sync {
    uint32_t nonce;
    uint32_t config_hash;  /* hash of the match settings both sides must share */
    uint8_t num_players;   /* 1..TEMPO_MAX_PLAYERS */
    uint8_t input_size;    /* 1..TEMPO_MAX_INPUT_SIZE */
    uint8_t player_mask;   /* players the sender hosts (0: a spectator) */
    uint8_t ready_mask;    /* players whose machines the sender has finished the handshake with */
    bool ready;            /* the sender has finished the handshake with everyone */
    uint8_t ciphers;       /* the sender's cipher offer, 0..3 (wire/seal.h's SEAL_CIPHER_* bits;
                              0, no cipher, is for unsealed sessions, which ignore it) */
    /* the sender's round-trip estimate to the machine of each player, in
     * milliseconds; 0xFFFF = unknown (the ping mesh for start-up). */
    uint16_t rtt_ms[TEMPO_MAX_PLAYERS];
} tempo_msg_sync;

/* INPUT: the sender's inputs for frames [start, start + count) of each player
 * in player_mask (ascending player order), plus acks and time-sync values. */
typedef struct tempo_msg_input {
    uint8_t player_mask;   /* players whose inputs follow; may be 0 (count must then be 0) */
    int32_t start;         /* first frame carried (the base frame of the message) */
    int count;             /* frames carried, 0..TEMPO_MSG_MAX_FRAMES */
    int32_t ack;           /* next frame the sender wants from the receiver */
    int32_t sender_frame;  /* the sender's current frame (time sync) */
    /* Disconnect gossip: bit p set if the sender holds player p disconnected;
     * disconnect_frame[p] is the first frame without p's input in the
     * sender's view, have_until[p] the end of p's inputs the sender holds. */
    uint8_t disconnected_mask;
    int32_t disconnect_frame[TEMPO_MAX_PLAYERS];
    int32_t have_until[TEMPO_MAX_PLAYERS];
    /* Inputs, players in ascending order, each player's frames in order:
     * input of the i-th player of the mask at frame start + f is at
     * data[(i * count + f) * input_size]. */
    uint8_t data[TEMPO_MSG_MAX_INPUT_BYTES];
    /* The sender's ack of the receiver's datagrams (wire/ack.h): its link's,
     * not the game's; the receive pipeline gives it to the link. */
    wire_ack datagram_ack;
} tempo_msg_input;

/* INPUT_ACK: acknowledgement without inputs (spectators, idle senders). */
typedef struct tempo_msg_input_ack {
    int32_t ack;
    int32_t sender_frame;
    wire_ack datagram_ack; /* as INPUT's */
} tempo_msg_input_ack;

/* PING carries an id the sender chooses; PONG echoes it, so the sender can
 * match the pong to its ping and time the round trip on its own clock. */
typedef struct tempo_msg_ping {
    uint32_t id;
} tempo_msg_ping;

/* QUALITY: the time-sync report of the sender. */
typedef struct tempo_msg_quality {
    int16_t advantage_q8;   /* sender's frame advantage over the receiver, frames * 256 */
} tempo_msg_quality;

/* CHECKSUM: the checksum of a check frame, for desync detection, and the
 * acknowledgement of the receiver's. frame 0 carries no checksum (checksum
 * must then be 0): an acknowledgement alone. */
typedef struct tempo_msg_checksum {
    int32_t frame;         /* a check frame of the sender's, or 0 */
    uint64_t checksum;     /* its checksum */
    int32_t ack;           /* the sender holds every check frame of the receiver's
                              up to this one (0: none yet) */
} tempo_msg_checksum;

/* DESYNC_STATE: the sender's state of a check frame whose checksums
 * differed with the receiver's (a desync diff), sent in fragments. With
 * carried false the state exceeds the sender's cap and no byte follows;
 * size still says how large it is. data points into the decoded buffer
 * (valid while it is) or, to encode, at size bytes of the caller's. */
#define TEMPO_MSG_STATE_MAX 65504u /* bytes of state one message carries at most */
typedef struct tempo_msg_desync_state {
    int32_t frame;         /* the check frame, > 0 */
    uint64_t checksum;     /* the sender's checksum of it */
    uint32_t size;         /* the state's size in bytes */
    bool carried;          /* the bytes follow (size <= TEMPO_MSG_STATE_MAX) */
    const uint8_t *data;
} tempo_msg_desync_state;

/* REJOIN_REQUEST: a machine back in a running match asks the receiver
 * for a state; player_mask: the players it hosts (0: a spectator joining
 * late). */
typedef struct tempo_msg_rejoin_request {
    uint8_t player_mask;
} tempo_msg_rejoin_request;

/* REJOIN_STATE: the state of confirmed frame `frame` for a rejoining
 * machine, sent in fragments. rejoin_frame: from it the machine's players
 * play again (> frame); live_frame: the sender's frame when it sent
 * (frame <= live_frame < rejoin_frame). disconnected_mask: other players
 * dropped for good, each from disconnect_frame[p]. prev and data point
 * into the decoded buffer, or to encode, at the caller's bytes. */
typedef struct tempo_msg_rejoin_state {
    int32_t frame;
    int32_t live_frame;
    int32_t rejoin_frame;
    uint8_t player_mask;        /* the rejoining machine's players (0: a spectator) */
    uint8_t disconnected_mask;
    int32_t disconnect_frame[TEMPO_MAX_PLAYERS];
    /* Every player's confirmed input of frame - 1, players in order
     * (num_players * input_size bytes; 0 when frame is 0): the reference
     * the first INPUT after the state is delta-coded against. */
    uint16_t prev_size;
    const uint8_t *prev;
    uint32_t size;              /* 1..TEMPO_MSG_STATE_MAX */
    const uint8_t *data;
} tempo_msg_rejoin_state;

/* REJOIN_FRAME: the players of player_mask (a rejoining machine's) have
 * real inputs again from `frame`; sent by the peer that sent the state to
 * every other live peer. */
typedef struct tempo_msg_rejoin_frame {
    uint8_t player_mask;
    int32_t frame;
} tempo_msg_rejoin_frame;

/* REJOIN_REFUSED: the sender does not take the receiver into the match.
 * DROPPED: it dropped the receiver's machine, whose traffic it refuses
 * (come back by state transfer); EPOCH: a handshake at a key epoch the
 * sender already knows the machine at (come back at a newer one). epoch:
 * the newest key epoch the sender knows the receiver's machine at (0 in
 * an open match). */
enum { TEMPO_REFUSED_DROPPED = 1, TEMPO_REFUSED_EPOCH = 2 };
typedef struct tempo_msg_rejoin_refused {
    uint8_t reason;             /* TEMPO_REFUSED_* */
    uint8_t epoch;
} tempo_msg_rejoin_refused;

typedef struct tempo_msg {
    uint32_t session_id;
    uint16_t sequence;
    uint8_t type; /* tempo_msg_type */
    union {
        tempo_msg_sync sync;            /* SYNC_REQUEST, SYNC_REPLY */
        tempo_msg_input input;          /* INPUT */
        tempo_msg_input_ack input_ack;  /* INPUT_ACK */
        tempo_msg_ping ping;            /* PING, PONG */
        tempo_msg_quality quality;      /* QUALITY */
        tempo_msg_checksum checksum;    /* CHECKSUM */
        tempo_msg_desync_state state;   /* DESYNC_STATE */
        tempo_msg_rejoin_request rejoin_request; /* REJOIN_REQUEST */
        tempo_msg_rejoin_state rejoin_state;     /* REJOIN_STATE */
        tempo_msg_rejoin_frame rejoin_frame;     /* REJOIN_FRAME */
        tempo_msg_rejoin_refused rejoin_refused; /* REJOIN_REFUSED */
    } u;                                /* DISCONNECT has no body: the sender leaves */
} tempo_msg;

/* What the receiver knows, needed to decode an INPUT message. */
typedef struct tempo_codec_ctx {
    int input_size;        /* bytes per player per frame, 1..TEMPO_MAX_INPUT_SIZE */
    int num_players;       /* players in the match; mask bits at or above are rejected */
    /* Frame near which a 16-bit base frame is unwrapped (the receiver's
     * expectation, e.g. the next frame it wants from the sender). */
    int32_t frame_hint;
    /* Fill out (input_size bytes) with the receiver's input of `player` at
     * `frame` (frame >= 0), the reference of the first delta-coded frame.
     * Return false if unknown: the datagram is dropped (NO_REFERENCE).
     * May be NULL when no INPUT message is expected. */
    bool (*reference)(void *ctx, int player, int32_t frame, uint8_t *out);
    void *reference_ctx;
} tempo_codec_ctx;

/* The registry: true if `type` is a message type of this version, and its
 * name ("input"...; "unknown" otherwise, static). The server handshake's
 * types 16..19 (wire/connect.h) and turn-based lockstep's 30..34
 * (wire/turn_msg.h) have names but are not known here: their bodies are
 * coded in those files, and a session drops them as BAD_TYPE. */
bool tempo_msg_type_known(uint8_t type);
const char *tempo_msg_type_name(uint8_t type);

/* Encode msg into buf (capacity bytes, at most TEMPO_MAX_DATAGRAM used): a
 * plain, unfragmented datagram, header and body.
 * For INPUT, `reference` gives the sender's input of each player at
 * start - 1 (the receiver already has it); if the inputs do not fit,
 * msg->u.input.count is reduced (the oldest frames are kept, data is
 * re-laid-out for the new count) and the message still encodes. An INPUT
 * with no player or no frame carries neither: player_mask and count are
 * both set to 0.
 * ctx is needed (valid, with a reference unless every carried frame starts
 * at 0) only for INPUT; other types ignore it. Every frame must be >= 0,
 * and INPUT frames within the receiver's unwrap window (PROTOCOL.md).
 * Returns the size written (> 0), or TEMPO_E_INVALID_ARG (a field out of
 * range, NULL, the reference unknown), TEMPO_E_FULL (even an empty message
 * does not fit). */
int tempo_codec_encode(tempo_msg *msg, const tempo_codec_ctx *ctx, uint8_t *buf, size_t capacity);

/* The body of msg alone (msg->type's codec; session_id and sequence are
 * not used) into buf, at most capacity bytes (and PACKET_MAX_BODY; for a
 * DESYNC_STATE, which goes in fragments, FRAG_MAX_PAYLOAD). Same
 * rules and errors as tempo_codec_encode; returns the body size, which is 0
 * for a message with no body. */
int tempo_codec_encode_body(tempo_msg *msg, const tempo_codec_ctx *ctx, uint8_t *buf,
                            size_t capacity);

/* An INPUT's receiver-independent part, coded once and reused for every
 * receiver sent the same frames in one round of sends. In an INPUT body
 * only the acknowledged frame (an offset after the base frame) and the
 * datagram ack (the last field) depend on the link; the fields between
 * them (sender frame, players, count, drops, the inputs as deltas) depend
 * only on the message's base frame, count, players, sender frame and drops
 * (its key) and on the inputs and references it carries. A sender's peers
 * that acknowledged the same frame get the same bits there, so they are
 * coded once and copied into each body: the bytes are the same as coding
 * each body whole.
 * Contract: between two resets (valid = false), every INPUT encoded with
 * the run under the same key carries the same inputs and the same
 * references (as when they are read from the same input queues within one
 * round of sends). Storage only: about 1.3 KB; no pointer into it is kept. */
typedef struct tempo_codec_run {
    bool valid; /* false: nothing coded yet (set it to start a round) */
    int32_t start, sender_frame;
    int count, input_size, num_players;
    uint8_t player_mask, disconnected_mask;
    int32_t disconnect_frame[TEMPO_MAX_PLAYERS], have_until[TEMPO_MAX_PLAYERS];
    size_t bits;                  /* the part's length */
    uint8_t part[PACKET_MAX_BODY]; /* its bits, from bit 0 */
} tempo_codec_run;

/* tempo_codec_encode_body, for an INPUT with `run` (may be NULL: the plain
 * encoder; other types ignore it): a key the run holds is copied from it,
 * fetching no reference; otherwise the body is coded whole and, if its
 * inputs were not cut to fit, its part kept in the run under its key
 * (replacing what it held). Same bytes, rules and errors as
 * tempo_codec_encode_body, under the contract above. */
int tempo_codec_encode_body_run(tempo_msg *msg, const tempo_codec_ctx *ctx, tempo_codec_run *run,
                                uint8_t *buf, size_t capacity);

/* Decode one plain, unfragmented datagram into *out (a sealed one is
 * SEALED, a fragment FRAGMENT). Returns TEMPO_OK, or TEMPO_E_MALFORMED with
 * *reason set (reason may be NULL). ctx may be NULL when no INPUT message is
 * expected: an INPUT is then dropped as NO_REFERENCE. TEMPO_E_INVALID_ARG for
 * NULL data (with size > 0) or out, or a ctx with fields out of range.
 * Never reads outside [data, data + size), never allocates. Only the fields
 * of out's type are written, and of INPUT data only the bytes carried. */
int tempo_codec_decode(const uint8_t *data, size_t size, const tempo_codec_ctx *ctx,
                       tempo_msg *out, tempo_drop_reason *reason);

/* Decode a body of `type` (size bytes at data; a reassembled payload may be
 * up to FRAG_MAX_PAYLOAD) into *out: out->type is set, session_id and
 * sequence are left alone. Errors as tempo_codec_decode's body checks,
 * BAD_TYPE for a type not in the registry. */
int tempo_codec_decode_body(uint8_t type, const uint8_t *data, size_t size,
                            const tempo_codec_ctx *ctx, tempo_msg *out, tempo_drop_reason *reason);

/* Read only the header (session id, sequence, type) without the body.
 * Same errors as tempo_codec_decode, except those only the body shows. */
int tempo_codec_peek_header(const uint8_t *data, size_t size, uint32_t *session_id,
                            uint16_t *sequence, uint8_t *type, tempo_drop_reason *reason);

/* True if a and b carry the same message: the fields the wire carries for
 * their type (SYNC rtt_ms only below num_players, INPUT data only the bytes
 * carried, input_size per player and frame). For tests and fuzzers. */
bool tempo_codec_msg_equal(const tempo_msg *a, const tempo_msg *b, int input_size);

#endif /* TEMPO_WIRE_CODEC_H */
