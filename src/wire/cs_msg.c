/* SPDX-License-Identifier: MIT */
/*
 * cs_msg.c — the client-server messages (cs_msg.h; docs/PROTOCOL.md section
 * 14). Fixed-width little-endian fields written and read through a cursor
 * that refuses to step past its end, in the manner of netcode.io's
 * write/read helpers.
 */
#include "wire/cs_msg.h"

#include <string.h>

typedef struct cur {
    const uint8_t *p;
    size_t left;
    bool bad;
} cur;

static uint64_t get(cur *c, int n)
{
    if (c->bad || c->left < (size_t)n) {
        c->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)c->p[i] << (8 * i);
    c->p += n;
    c->left -= (size_t)n;
    return v;
}

static const uint8_t *take(cur *c, size_t n)
{
    if (c->bad || c->left < n) {
        c->bad = true;
        return NULL;
    }
    const uint8_t *p = c->p;
    c->p += n;
    c->left -= n;
    return p;
}

static uint8_t *put(uint8_t *o, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        o[i] = (uint8_t)(v >> (8 * i));
    return o + n;
}

void cs_msg_put_prefix(uint8_t *out, const cs_msg_prefix *p)
{
    out = put(out, p->has_ack ? 1u : 0u, 1);
    out = put(out, p->has_ack ? p->ack : 0u, 2);
    put(out, p->has_ack ? p->ack_bits : 0u, 4);
}

bool cs_msg_get_prefix(const uint8_t *data, size_t size, cs_msg_prefix *p)
{
    cur c = {data, size, false};
    uint64_t flags = get(&c, 1);
    p->ack = (uint16_t)get(&c, 2);
    p->ack_bits = (uint32_t)get(&c, 4);
    p->has_ack = flags == 1;
    if (c.bad || flags > 1 || (!p->has_ack && (p->ack != 0 || p->ack_bits != 0)))
        return false;
    return true;
}

size_t cs_msg_write_accept(uint8_t *out, size_t cap, const cs_msg_prefix *p, const cs_msg_accept *a)
{
    const size_t n = CS_MSG_ACCEPT_SIZE;
    if (cap < n)
        return 0;
    cs_msg_put_prefix(out, p);
    uint8_t *o = out + CS_MSG_PREFIX_SIZE;
    o = put(o, a->client, 2);
    o = put(o, a->first_slot, 2);
    o = put(o, a->num_slots, 1);
    o = put(o, a->num_players, 2);
    o = put(o, a->input_size, 1);
    o = put(o, a->frames_per_second, 2);
    o = put(o, (uint32_t)a->server_frame, 4);
    put(o, a->snapshot_interval, 1);
    return n;
}

tempo_drop_reason cs_msg_read_accept(const uint8_t *data, size_t size, cs_msg_accept *a)
{
    cs_msg_prefix p;
    if (!cs_msg_get_prefix(data, size, &p))
        return size < CS_MSG_PREFIX_SIZE ? TEMPO_DROP_TRUNCATED : TEMPO_DROP_BAD_VALUE;
    cur c = {data + CS_MSG_PREFIX_SIZE, size - CS_MSG_PREFIX_SIZE, false};
    a->client = (uint16_t)get(&c, 2);
    a->first_slot = (uint16_t)get(&c, 2);
    a->num_slots = (uint8_t)get(&c, 1);
    a->num_players = (uint16_t)get(&c, 2);
    a->input_size = (uint8_t)get(&c, 1);
    a->frames_per_second = (uint16_t)get(&c, 2);
    uint32_t f = (uint32_t)get(&c, 4);
    a->snapshot_interval = (uint8_t)get(&c, 1);
    if (c.bad)
        return TEMPO_DROP_TRUNCATED;
    if (c.left != 0)
        return TEMPO_DROP_TRAILING;
    if (f > CS_MSG_MAX_TICK || a->num_slots == 0 || a->num_slots > CS_MSG_MAX_SLOTS ||
        (uint32_t)a->first_slot + a->num_slots > a->num_players || a->snapshot_interval == 0)
        return TEMPO_DROP_BAD_VALUE;
    a->server_frame = (int32_t)f;
    return TEMPO_DROP_NONE;
}

size_t cs_msg_write_input(uint8_t *out, size_t cap, const cs_msg_prefix *p, int32_t snapshot_ack,
                          int32_t first, int count, const uint8_t *inputs, size_t input_bytes)
{
    const size_t n = CS_MSG_PREFIX_SIZE + CS_MSG_INPUT_HEAD + input_bytes;
    if (cap < n || count < 0 || count > CS_MSG_MAX_TICKS || first < 0)
        return 0;
    cs_msg_put_prefix(out, p);
    uint8_t *o = out + CS_MSG_PREFIX_SIZE;
    o = put(o, (uint32_t)snapshot_ack, 4);
    o = put(o, (uint32_t)first, 4);
    o = put(o, (uint32_t)count, 1);
    if (input_bytes > 0)
        memcpy(o, inputs, input_bytes);
    return n;
}

tempo_drop_reason cs_msg_read_input(const uint8_t *data, size_t size, int slots, int input_size,
                                    cs_msg_input *in)
{
    cs_msg_prefix p;
    if (!cs_msg_get_prefix(data, size, &p))
        return size < CS_MSG_PREFIX_SIZE ? TEMPO_DROP_TRUNCATED : TEMPO_DROP_BAD_VALUE;
    cur c = {data + CS_MSG_PREFIX_SIZE, size - CS_MSG_PREFIX_SIZE, false};
    uint32_t ack = (uint32_t)get(&c, 4);
    uint32_t first = (uint32_t)get(&c, 4);
    uint32_t count = (uint32_t)get(&c, 1);
    if (c.bad)
        return TEMPO_DROP_TRUNCATED;
    if ((ack > CS_MSG_MAX_TICK && ack != UINT32_MAX) || first > CS_MSG_MAX_TICK ||
        count > CS_MSG_MAX_TICKS ||
        slots < 1 || input_size < 1)
        return TEMPO_DROP_BAD_VALUE;
    size_t want = (size_t)count * (size_t)slots * (size_t)input_size;
    in->inputs = take(&c, want);
    if (c.bad)
        return TEMPO_DROP_TRUNCATED;
    if (c.left != 0)
        return TEMPO_DROP_TRAILING;
    in->snapshot_ack = ack == UINT32_MAX ? -1 : (int32_t)ack;
    in->first = (int32_t)first;
    in->count = (int)count;
    return TEMPO_DROP_NONE;
}

size_t cs_msg_players_size(int num_players, int input_size)
{
    return (size_t)num_players * (size_t)(1 + input_size);
}

bool cs_msg_players_valid(const uint8_t *players, int num_players, int input_size)
{
    uint8_t worst = 0;
    for (int i = 0; i < num_players; i++) {
        uint8_t st = players[(size_t)i * (size_t)(1 + input_size)];
        worst = st > worst ? st : worst;
    }
    return worst <= 2;
}

size_t cs_msg_write_snapshot_head(uint8_t *out, size_t cap, const cs_msg_prefix *p,
                                  const cs_msg_snapshot *s)
{
    const size_t n = CS_MSG_PREFIX_SIZE + CS_MSG_SNAPSHOT_HEAD;
    if (cap < n)
        return 0;
    cs_msg_put_prefix(out, p);
    uint8_t *o = out + CS_MSG_PREFIX_SIZE;
    o = put(o, (uint32_t)s->tick, 4);
    o = put(o, (uint32_t)s->baseline, 4);
    o = put(o, (uint32_t)s->input_ack, 4);
    o = put(o, (uint16_t)s->earliness_q8, 2);
    o = put(o, (uint32_t)s->num_players, 2);
    put(o, s->state_size, 4);
    return n;
}

tempo_drop_reason cs_msg_read_snapshot(const uint8_t *data, size_t size, int num_players,
                                       size_t max_state, cs_msg_snapshot *s)
{
    cs_msg_prefix p;
    if (!cs_msg_get_prefix(data, size, &p))
        return size < CS_MSG_PREFIX_SIZE ? TEMPO_DROP_TRUNCATED : TEMPO_DROP_BAD_VALUE;
    cur c = {data + CS_MSG_PREFIX_SIZE, size - CS_MSG_PREFIX_SIZE, false};
    uint32_t tick = (uint32_t)get(&c, 4);
    uint32_t base = (uint32_t)get(&c, 4);
    uint32_t iack = (uint32_t)get(&c, 4);
    s->earliness_q8 = (int16_t)(uint16_t)get(&c, 2);
    uint32_t players = (uint32_t)get(&c, 2);
    if (c.bad)
        return TEMPO_DROP_TRUNCATED;
    if (tick > CS_MSG_MAX_TICK || (base != UINT32_MAX && base >= tick) ||
        (iack != UINT32_MAX && iack > CS_MSG_MAX_TICK) || players != (uint32_t)num_players)
        return TEMPO_DROP_BAD_VALUE;
    s->state_size = (uint32_t)get(&c, 4);
    if (c.bad)
        return TEMPO_DROP_TRUNCATED;
    if (s->state_size == 0 || s->state_size > max_state)
        return TEMPO_DROP_BAD_VALUE;
    s->tick = (int32_t)tick;
    s->baseline = base == UINT32_MAX ? -1 : (int32_t)base;
    s->input_ack = iack == UINT32_MAX ? -1 : (int32_t)iack;
    s->num_players = (int)players;
    s->delta = c.p;
    s->delta_size = c.left;
    if (s->delta_size == 0)
        return TEMPO_DROP_TRUNCATED;
    return TEMPO_DROP_NONE;
}
