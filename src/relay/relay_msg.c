/* SPDX-License-Identifier: MIT */
/*
 * relay_msg.c — the relay's messages (layouts in relay_msg.h) and the join
 * fields of a token's user data (tempo/relay.h). Serialized by hand,
 * little-endian, each reader checking the exact size first.
 */
#include "relay/relay_msg.h"

#include <string.h>

#include "base/common.h"
#include "wire/bytes.h"
#include "wire/connect.h"

/* A frame number on the wire: 0..2^31-1. */
static bool frame_ok(uint32_t v) { return v <= (uint32_t)INT32_MAX; }

/* ---- the join fields ------------------------------------------------------ */

static bool join_valid(const tempo_relay_join *j)
{
    bool common = j->match_id != 0 && j->num_players >= 1 &&
                  j->num_players <= TEMPO_MAX_PLAYERS && j->slots != 0 &&
                  (j->slots >> j->num_players) == 0;
    if (j->peer_to_peer && j->turn_ms != 0)
        return false;
    if (j->turn_ms != 0) /* lockstep: one player per member, no frames */
        return common && j->turn_ms >= 10 && j->turn_ms <= 2000 && j->execution_delay >= 2 &&
               j->execution_delay <= 16 && (j->slots & (j->slots - 1u)) == 0 &&
               j->input_size == 0 && j->frames_per_second == 0;
    return common && j->input_size >= 1 && j->input_size <= TEMPO_MAX_INPUT_SIZE &&
           j->frames_per_second >= 1 && j->frames_per_second <= 1000 && j->execution_delay == 0;
}

static void join_put(uint8_t *p, const tempo_relay_join *j)
{
    wire_put64(p, j->match_id);
    p[8] = j->slots;
    p[9] = (uint8_t)j->num_players;
    p[10] = (uint8_t)j->input_size;
    wire_put16(p + 11, (uint16_t)j->frames_per_second);
    p[13] = TEMPO_RELAY_JOIN_VERSION;
    if (j->turn_ms != 0) {
        wire_put16(p + 14, (uint16_t)j->turn_ms);
        p[16] = (uint8_t)j->execution_delay;
    }
    p[17] = j->peer_to_peer ? 1 : 0;
}

/* p holds TEMPO_RELAY_JOIN_P2P_SIZE bytes (a shorter JOIN's last ones
 * are read as zero). */
static bool join_get(const uint8_t *p, tempo_relay_join *out)
{
    memset(out, 0, sizeof *out);
    tempo_relay_join j;
    j.match_id = wire_get64(p);
    j.slots = p[8];
    j.num_players = p[9];
    j.input_size = p[10];
    j.frames_per_second = wire_get16(p + 11);
    j.turn_ms = wire_get16(p + 14);
    j.execution_delay = p[16];
    j.peer_to_peer = p[17] == 1;
    if (p[13] != TEMPO_RELAY_JOIN_VERSION || p[17] > 1 || !join_valid(&j))
        return false;
    *out = j;
    return true;
}

tempo_result tempo_relay_join_write(const tempo_relay_join *join,
                                    uint8_t out[TEMPO_TOKEN_USER_DATA_SIZE])
{
    if (!out)
        return TEMPO_E_INVALID_ARG;
    memset(out, 0, TEMPO_TOKEN_USER_DATA_SIZE);
    if (!join || !join_valid(join))
        return TEMPO_E_INVALID_ARG;
    join_put(out, join);
    return TEMPO_OK;
}

tempo_result tempo_relay_join_read(const uint8_t data[TEMPO_TOKEN_USER_DATA_SIZE],
                                   tempo_relay_join *out)
{
    if (!data || !out) {
        if (out)
            memset(out, 0, sizeof *out);
        return TEMPO_E_INVALID_ARG;
    }
    for (int i = TEMPO_RELAY_JOIN_P2P_SIZE; i < TEMPO_TOKEN_USER_DATA_SIZE; i++)
        if (data[i] != 0) {
            memset(out, 0, sizeof *out);
            return TEMPO_E_MALFORMED;
        }
    return join_get(data, out) ? TEMPO_OK : TEMPO_E_MALFORMED;
}

/* ---- capacities ------------------------------------------------------------- */

#define BODY_ROOM (TEMPO_MAX_DATAGRAM - PACKET_HEADER_SIZE - PACKET_TAG_SIZE)

int relay_input_capacity(int nslots, int input_size, int nsums)
{
    size_t room = BODY_ROOM - RELAY_INPUT_HEAD - (size_t)nsums * 12u;
    size_t n = room / relay_input_frame_size(nslots, input_size);
    return n > RELAY_MAX_FRAMES ? RELAY_MAX_FRAMES : (int)n;
}

int relay_frames_capacity(int num_players, int input_size, bool desync)
{
    size_t room = BODY_ROOM - RELAY_FRAMES_HEAD - (desync ? RELAY_DESYNC_SIZE : 0);
    size_t n = room / relay_frames_frame_size(num_players, input_size);
    return n > RELAY_MAX_FRAMES ? RELAY_MAX_FRAMES : (int)n;
}

/* ---- writers ---------------------------------------------------------------- */

size_t relay_join_write(uint8_t *body, const tempo_relay_join *j)
{
    uint8_t full[TEMPO_RELAY_JOIN_P2P_SIZE];
    memset(full, 0, sizeof full);
    join_put(full, j);
    size_t n = j->peer_to_peer ? TEMPO_RELAY_JOIN_P2P_SIZE
               : j->turn_ms != 0 ? TEMPO_RELAY_JOIN_TURNS_SIZE
                                 : TEMPO_RELAY_JOIN_SIZE;
    memcpy(body, full, n);
    return n;
}

size_t relay_welcome_write(uint8_t *body, uint8_t slots, bool refused)
{
    body[0] = slots;
    body[1] = refused ? 1 : 0;
    return 2;
}

relay_acks relay_acks_of(const net_link *l)
{
    relay_acks a = {0, 0};
    uint64_t ack;
    uint32_t bits;
    if (link_ack_out(l, &ack, &bits)) {
        a.ack = (uint16_t)ack;
        a.bits = bits;
    }
    return a;
}

net_ack relay_acks_in(const relay_acks *a) { return (net_ack){true, 16, a->ack, a->bits, 0}; }

void relay_acks_take(net_link *l, uint64_t now, const relay_acks *a, bool newest)
{
    if (newest && l->packets_sent > 0) /* {0, 0} before we sent anything: nothing to take */
        (void)link_on_ack_low(l, now, a->ack, 16, a->bits, 0);
}

static void acks_put(uint8_t *p, const relay_acks *a)
{
    wire_put16(p, a->ack);
    wire_put32(p + 2, a->bits);
}

size_t relay_input_write(uint8_t *body, const relay_acks *a, int32_t frames_held, int32_t first,
                         uint8_t slots, int count, const uint8_t *inputs, size_t frame_size,
                         const relay_sum *sums, int nsums)
{
    acks_put(body, a);
    wire_put32(body + 6, (uint32_t)frames_held);
    wire_put32(body + 10, (uint32_t)first);
    body[14] = (uint8_t)count;
    body[15] = (uint8_t)nsums;
    body[16] = slots;
    size_t at = RELAY_INPUT_HEAD;
    size_t n = (size_t)count * frame_size;
    if (n > 0)
        memcpy(body + at, inputs, n);
    at += n;
    for (int i = 0; i < nsums; i++, at += 12) {
        wire_put32(body + at, (uint32_t)sums[i].frame);
        wire_put64(body + at + 4, sums[i].checksum);
    }
    return at;
}

size_t relay_frames_write(uint8_t *body, const relay_frames_msg *m, size_t frame_size)
{
    acks_put(body, &m->acks);
    body[6] = m->flags;
    wire_put32(body + 7, (uint32_t)m->clock);
    wire_put32(body + 11, (uint32_t)m->wanted);
    wire_put32(body + 15, (uint32_t)m->sum_held);
    wire_put32(body + 19, (uint32_t)m->first);
    body[23] = (uint8_t)m->count;
    size_t at = RELAY_FRAMES_HEAD;
    if (m->flags & RELAY_FLAG_DESYNC) {
        wire_put32(body + at, (uint32_t)m->desync_frame);
        wire_put64(body + at + 4, m->desync_sums[0]);
        wire_put64(body + at + 12, m->desync_sums[1]);
        at += RELAY_DESYNC_SIZE;
    }
    size_t n = (size_t)m->count * frame_size;
    if (n > 0 && m->frames != NULL)
        memcpy(body + at, m->frames, n);
    return at + n;
}

/* ---- readers ---------------------------------------------------------------- */

bool relay_join_read(const uint8_t *body, size_t size, tempo_relay_join *out)
{
    uint8_t full[TEMPO_RELAY_JOIN_P2P_SIZE];
    memset(full, 0, sizeof full);
    if (size != TEMPO_RELAY_JOIN_SIZE && size != TEMPO_RELAY_JOIN_TURNS_SIZE &&
        size != TEMPO_RELAY_JOIN_P2P_SIZE) {
        memset(out, 0, sizeof *out);
        return false;
    }
    memcpy(full, body, size);
    /* one form per match kind: a turns JOIN is never the short one, a
     * peer-to-peer one always the longest */
    return join_get(full, out) && (size == TEMPO_RELAY_JOIN_TURNS_SIZE) == (out->turn_ms != 0) &&
           (size == TEMPO_RELAY_JOIN_P2P_SIZE) == out->peer_to_peer;
}

bool relay_welcome_read(const uint8_t *body, size_t size, uint8_t *slots, bool *refused)
{
    if (size != 2 || body[1] > 1 || (body[1] == 1 && body[0] != 0))
        return false;
    *slots = body[0];
    *refused = body[1] == 1;
    return true;
}

bool relay_input_read(const uint8_t *body, size_t size, size_t frame_size, relay_input_msg *out)
{
    if (size < RELAY_INPUT_HEAD || frame_size == 0)
        return false;
    out->acks.ack = wire_get16(body);
    out->acks.bits = wire_get32(body + 2);
    uint32_t held = wire_get32(body + 6), first = wire_get32(body + 10);
    out->count = body[14];
    out->nsums = body[15];
    out->slots = body[16];
    if (!frame_ok(held) || !frame_ok(first) || out->count > RELAY_MAX_FRAMES ||
        out->nsums > RELAY_MAX_SUMS ||
        size != RELAY_INPUT_HEAD + (size_t)out->count * frame_size + (size_t)out->nsums * 12u ||
        (uint64_t)first + (uint64_t)out->count > (uint64_t)INT32_MAX)
        return false;
    out->frames_held = (int32_t)held;
    out->first = (int32_t)first;
    out->inputs = body + RELAY_INPUT_HEAD;
    const uint8_t *s = out->inputs + (size_t)out->count * frame_size;
    for (int i = 0; i < out->nsums; i++, s += 12) {
        uint32_t f = wire_get32(s);
        if (!frame_ok(f))
            return false;
        out->sums[i].frame = (int32_t)f;
        out->sums[i].checksum = wire_get64(s + 4);
    }
    return true;
}

bool relay_frames_read(const uint8_t *body, size_t size, size_t frame_size,
                       relay_frames_msg *out)
{
    if (size < RELAY_FRAMES_HEAD || frame_size == 0)
        return false;
    out->acks.ack = wire_get16(body);
    out->acks.bits = wire_get32(body + 2);
    out->flags = body[6];
    out->clock = (int32_t)wire_get32(body + 7);
    uint32_t wanted = wire_get32(body + 11), held = wire_get32(body + 15), first = wire_get32(body + 19);
    out->count = body[23];
    bool desync = (out->flags & RELAY_FLAG_DESYNC) != 0;
    size_t head = RELAY_FRAMES_HEAD + (desync ? RELAY_DESYNC_SIZE : 0);
    if ((out->flags & ~(RELAY_FLAG_STARTED | RELAY_FLAG_DESYNC)) != 0 || !frame_ok(wanted) ||
        !frame_ok(held) || !frame_ok(first) || out->count > RELAY_MAX_FRAMES ||
        size != head + (size_t)out->count * frame_size ||
        (uint64_t)first + (uint64_t)out->count > (uint64_t)INT32_MAX)
        return false;
    out->wanted = (int32_t)wanted;
    out->sum_held = (int32_t)held;
    out->first = (int32_t)first;
    out->desync_frame = -1;
    out->desync_sums[0] = out->desync_sums[1] = 0;
    if (desync) {
        uint32_t f = wire_get32(body + RELAY_FRAMES_HEAD);
        if (!frame_ok(f))
            return false;
        out->desync_frame = (int32_t)f;
        out->desync_sums[0] = wire_get64(body + RELAY_FRAMES_HEAD + 4);
        out->desync_sums[1] = wire_get64(body + RELAY_FRAMES_HEAD + 12);
    }
    out->frames = body + head;
    return true;
}

/* ---- framing ------------------------------------------------------------------ */

int relay_msg_finish(uint8_t *buf, size_t cap, uint64_t protocol_id, uint8_t type,
                     uint64_t sequence, size_t body_size, const wire_keys *keys)
{
    bool sealed = keys != NULL && keys->ready;
    tempo_packet_header h = {connect_session_id(protocol_id), (uint16_t)sequence, type, false,
                             false};
    if (PACKET_HEADER_SIZE + body_size > cap ||
        packet_write(&h, buf, PACKET_HEADER_SIZE) != PACKET_HEADER_SIZE)
        return TEMPO_E_FULL;
    size_t size = PACKET_HEADER_SIZE + body_size;
    if (!sealed)
        return (int)size;
    return seal_datagram(keys, sequence, buf, size, cap);
}
