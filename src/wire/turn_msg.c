/* SPDX-License-Identifier: MIT */
/*
 * turn_msg.c — turn-based lockstep's message bodies (turn_msg.h has the
 * layout). Invariant: the encoder writes only what the decoder accepts, and
 * the decoder accepts one form per message: reserved bits clear, a missing
 * value written as its one "none" form, nothing after the last field.
 */
#include "wire/turn_msg.h"

#include <string.h>

#include "tempo/base.h"

static const char *const names[] = {"turn_hello", "turn_hello_reply", "turn_start", "turns",
                                    "turn_leave", "turn_relay"};

const char *turn_msg_name(uint8_t type)
{
    if (type < TURN_MSG_HELLO || type > TURN_MSG_RELAY)
        return NULL;
    return names[type - TURN_MSG_HELLO];
}

bool turn_cmds_valid(const uint8_t *cmds, size_t size, int count)
{
    if (count < 0 || count > TURN_MAX_COMMANDS || size > TURN_LIST_BYTES ||
        (cmds == NULL && size != 0))
        return false;
    size_t at = 0, data = 0;
    for (int i = 0; i < count; i++) {
        if (at >= size)
            return false;
        size_t n = (size_t)cmds[at] + 1u;
        if (n > size - at - 1u)
            return false;
        at += 1u + n;
        data += n;
    }
    return at == size && data <= TURN_BUDGET;
}

size_t turn_list_wire_size(const turn_list *l)
{
    return 7u + ((l->flags & TURN_LIST_HAS_LENGTH) ? 2u : 0u) + l->cmds_size;
}

/* ---- a cursor over the caller's buffer ---- */

typedef struct cur {
    uint8_t *w;           /* writing, or NULL */
    const uint8_t *r;     /* reading */
    size_t at, size;
    bool failed;
} cur;

static void put(cur *c, uint64_t v, int bytes)
{
    if (c->failed || c->size - c->at < (size_t)bytes) {
        c->failed = true;
        return;
    }
    for (int i = 0; i < bytes; i++)
        c->w[c->at++] = (uint8_t)(v >> (8 * i));
}

static uint64_t get(cur *c, int bytes)
{
    if (c->failed || c->size - c->at < (size_t)bytes) {
        c->failed = true;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)c->r[c->at++] << (8 * i);
    return v;
}

static bool list_ok(const turn_list *l)
{
    return l->player < 8 && (l->flags & ~(TURN_LIST_HAS_LENGTH | TURN_LIST_SUBSTITUTED)) == 0 &&
           l->turn >= 0 && (!(l->flags & TURN_LIST_HAS_LENGTH) || l->length_ms != 0) &&
           turn_cmds_valid(l->cmds, l->cmds_size, l->count);
}

static bool turns_ok(const turn_turns *t)
{
    if (t->nlists < 0 || t->nlists > TURN_MSG_MAX_LISTS)
        return false;
    if (t->sum_turn == TURN_NONE ? t->sum != 0 : t->sum_turn > INT32_MAX)
        return false;
    if (t->ack > INT32_MAX || (t->rtt_ms == TURN_RTT_UNKNOWN && t->rttvar_ms != 0))
        return false;
    for (int p = 0; p < 8; p++)
        if (((t->lost >> p) & 1u) && t->have[p] > INT32_MAX)
            return false;
    for (int i = 0; i < t->nlists; i++)
        if (!list_ok(&t->list[i]))
            return false;
    return true;
}

static bool relay_ok(const turn_relay *t)
{
    if (t->nlists < 0 || t->nlists > TURN_MSG_MAX_LISTS || t->ack < 0 || t->first < 0 ||
        t->final < t->first)
        return false;
    for (int i = 0; i < t->nlists; i++)
        if (!list_ok(&t->list[i]))
            return false;
    return true;
}

/* The list count, then the lists. */
static void put_lists(cur *c, const turn_list *list, int nlists)
{
    put(c, (uint64_t)nlists, 1);
    for (int i = 0; i < nlists; i++) {
        const turn_list *l = &list[i];
        put(c, l->player, 1);
        put(c, l->flags, 1);
        put(c, (uint32_t)l->turn, 4);
        if (l->flags & TURN_LIST_HAS_LENGTH)
            put(c, l->length_ms, 2);
        put(c, l->count, 1);
        if (!c->failed && c->size - c->at >= l->cmds_size) {
            if (l->cmds_size > 0)
                memcpy(c->w + c->at, l->cmds, l->cmds_size);
            c->at += l->cmds_size;
        } else {
            c->failed = true;
        }
    }
}

/* The datagram ack after a turns message's lists (turn_msg.h). */
static void put_ack(cur *c, const wire_ack *a, uint8_t delay_ms)
{
    bool gaps = a->present && a->bits != 0xFFFFFFFFu;
    put(c, !a->present ? 0u : gaps ? 2u : 1u, 1);
    if (!a->present)
        return;
    put(c, a->ack, 1);
    put(c, delay_ms, 1);
    if (gaps)
        put(c, a->bits, 4);
}

static tempo_drop_reason get_ack(cur *c, wire_ack *a, uint8_t *delay_ms)
{
    memset(a, 0, sizeof *a);
    *delay_ms = 0;
    uint8_t kind = (uint8_t)get(c, 1);
    if (kind != 0 && !c->failed) {
        a->present = true;
        a->ack = (uint8_t)get(c, 1);
        *delay_ms = (uint8_t)get(c, 1);
        a->bits = kind == 2 ? (uint32_t)get(c, 4) : 0xFFFFFFFFu;
    }
    if (c->failed)
        return TEMPO_DROP_TRUNCATED;
    if (kind > 2 || (kind == 2 && a->bits == 0xFFFFFFFFu)) /* the short form says that */
        return TEMPO_DROP_BAD_VALUE;
    return TEMPO_DROP_NONE;
}

int turn_msg_encode(const turn_msg *m, uint8_t *buf, size_t capacity)
{
    if (m == NULL || (buf == NULL && capacity != 0))
        return TEMPO_E_INVALID_ARG;
    cur c = {buf, NULL, 0, capacity, false};
    switch (m->type) {
    case TURN_MSG_HELLO:
    case TURN_MSG_HELLO_REPLY: {
        const turn_hello *h = &m->u.hello;
        if (h->nonce == 0 || h->player >= 8)
            return TEMPO_E_INVALID_ARG;
        put(&c, h->nonce, 4);
        put(&c, h->config_hash, 4);
        put(&c, h->player, 1);
        put(&c, h->ready ? 1u : 0u, 1);
        break;
    }
    case TURN_MSG_START:
    case TURN_MSG_LEAVE: break;
    case TURN_MSG_TURNS: {
        const turn_turns *t = &m->u.turns;
        if (!turns_ok(t))
            return TEMPO_E_INVALID_ARG;
        put(&c, t->ack, 4);
        put(&c, t->sum_turn, 4);
        put(&c, t->sum, 8);
        put(&c, t->sim_us, 4);
        put(&c, t->rtt_ms, 2);
        put(&c, t->rttvar_ms, 2);
        put(&c, t->ping, 4);
        put(&c, t->pong, 4);
        put(&c, t->lost, 1);
        for (int p = 0; p < 8; p++)
            if ((t->lost >> p) & 1u)
                put(&c, t->have[p], 4);
        put_lists(&c, t->list, t->nlists);
        put_ack(&c, &t->dack, t->dack_delay_ms);
        break;
    }
    case TURN_MSG_RELAY: {
        const turn_relay *t = &m->u.relay;
        if (!relay_ok(t))
            return TEMPO_E_INVALID_ARG;
        put(&c, t->started ? 1u : 0u, 1);
        put(&c, (uint32_t)t->clock, 4);
        put(&c, t->into_us, 4);
        put(&c, (uint32_t)t->ack, 4);
        put(&c, (uint32_t)t->first, 4);
        put(&c, (uint32_t)t->final, 4);
        put_lists(&c, t->list, t->nlists);
        break;
    }
    default: return TEMPO_E_INVALID_ARG;
    }
    return c.failed ? TEMPO_E_FULL : (int)c.at;
}

/* A list's commands: walked to find where they end, checked on the way. */
static tempo_drop_reason get_cmds(cur *c, turn_list *l)
{
    size_t start = c->at, data = 0;
    for (int i = 0; i < l->count; i++) {
        size_t n = (size_t)get(c, 1) + 1u;
        if (c->failed)
            return TEMPO_DROP_TRUNCATED;
        if (c->size - c->at < n)
            return TEMPO_DROP_TRUNCATED;
        c->at += n;
        data += n;
    }
    if (data > TURN_BUDGET)
        return TEMPO_DROP_BAD_VALUE;
    l->cmds = c->r + start;
    l->cmds_size = (uint16_t)(c->at - start);
    return TEMPO_DROP_NONE;
}

/* The list count, then the lists, each checked. */
static tempo_drop_reason get_lists(cur *c, turn_list *list, int *nlists)
{
    *nlists = (int)get(c, 1);
    if (c->failed)
        return TEMPO_DROP_TRUNCATED;
    if (*nlists > TURN_MSG_MAX_LISTS)
        return TEMPO_DROP_BAD_VALUE;
    for (int i = 0; i < *nlists; i++) {
        turn_list *l = &list[i];
        l->player = (uint8_t)get(c, 1);
        l->flags = (uint8_t)get(c, 1);
        uint32_t turn = (uint32_t)get(c, 4);
        l->length_ms = (l->flags & TURN_LIST_HAS_LENGTH) ? (uint16_t)get(c, 2) : 0;
        l->count = (uint8_t)get(c, 1);
        if (c->failed)
            return TEMPO_DROP_TRUNCATED;
        if (turn > INT32_MAX || l->count > TURN_MAX_COMMANDS)
            return TEMPO_DROP_BAD_VALUE;
        l->turn = (int32_t)turn;
        tempo_drop_reason why = get_cmds(c, l);
        if (why != TEMPO_DROP_NONE)
            return why;
    }
    return TEMPO_DROP_NONE;
}

static tempo_drop_reason get_relay(cur *c, turn_relay *t)
{
    uint8_t started = (uint8_t)get(c, 1);
    t->started = started == 1;
    t->clock = (int32_t)(uint32_t)get(c, 4);
    t->into_us = (uint32_t)get(c, 4);
    uint32_t ack = (uint32_t)get(c, 4), first = (uint32_t)get(c, 4), fin = (uint32_t)get(c, 4);
    if (c->failed)
        return TEMPO_DROP_TRUNCATED;
    if (started > 1 || ack > INT32_MAX || first > INT32_MAX || fin > INT32_MAX)
        return TEMPO_DROP_BAD_VALUE;
    t->ack = (int32_t)ack;
    t->first = (int32_t)first;
    t->final = (int32_t)fin;
    tempo_drop_reason why = get_lists(c, t->list, &t->nlists);
    if (why != TEMPO_DROP_NONE)
        return why;
    return relay_ok(t) ? TEMPO_DROP_NONE : TEMPO_DROP_BAD_VALUE;
}

static tempo_drop_reason get_turns(cur *c, turn_turns *t)
{
    t->ack = (uint32_t)get(c, 4);
    t->sum_turn = (uint32_t)get(c, 4);
    t->sum = get(c, 8);
    t->sim_us = (uint32_t)get(c, 4);
    t->rtt_ms = (uint16_t)get(c, 2);
    t->rttvar_ms = (uint16_t)get(c, 2);
    t->ping = (uint32_t)get(c, 4);
    t->pong = (uint32_t)get(c, 4);
    t->lost = (uint8_t)get(c, 1);
    for (int p = 0; p < 8; p++) {
        t->have[p] = (t->lost >> p) & 1u ? (uint32_t)get(c, 4) : 0;
        if (t->have[p] > INT32_MAX)
            return TEMPO_DROP_BAD_VALUE;
    }
    tempo_drop_reason why = get_lists(c, t->list, &t->nlists);
    if (why == TEMPO_DROP_NONE)
        why = get_ack(c, &t->dack, &t->dack_delay_ms);
    if (why != TEMPO_DROP_NONE)
        return why;
    return turns_ok(t) ? TEMPO_DROP_NONE : TEMPO_DROP_BAD_VALUE;
}

int turn_msg_decode(uint8_t type, const uint8_t *data, size_t size, turn_msg *out,
                    tempo_drop_reason *reason)
{
    tempo_drop_reason unused;
    if (reason == NULL)
        reason = &unused;
    *reason = TEMPO_DROP_NONE;
    if (out == NULL || (data == NULL && size != 0))
        return TEMPO_E_INVALID_ARG;
    cur c = {NULL, data, 0, size, false};
    tempo_drop_reason why = TEMPO_DROP_NONE;
    out->type = type;
    switch (type) {
    case TURN_MSG_HELLO:
    case TURN_MSG_HELLO_REPLY: {
        turn_hello *h = &out->u.hello;
        h->nonce = (uint32_t)get(&c, 4);
        h->config_hash = (uint32_t)get(&c, 4);
        h->player = (uint8_t)get(&c, 1);
        uint8_t ready = (uint8_t)get(&c, 1);
        h->ready = ready == 1;
        if (c.failed)
            why = TEMPO_DROP_TRUNCATED;
        else if (h->nonce == 0 || h->player >= 8 || ready > 1)
            why = TEMPO_DROP_BAD_VALUE;
        break;
    }
    case TURN_MSG_START:
    case TURN_MSG_LEAVE: break;
    case TURN_MSG_TURNS: why = get_turns(&c, &out->u.turns); break;
    case TURN_MSG_RELAY: why = get_relay(&c, &out->u.relay); break;
    default: why = TEMPO_DROP_BAD_TYPE; break;
    }
    if (why == TEMPO_DROP_NONE && c.at != size)
        why = TEMPO_DROP_TRAILING;
    *reason = why;
    return why == TEMPO_DROP_NONE ? TEMPO_OK : TEMPO_E_MALFORMED;
}
