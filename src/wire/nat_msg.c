/* SPDX-License-Identifier: MIT */
/*
 * nat_msg.c — NAT traversal's messages (layouts in nat_msg.h), serialized
 * by hand, each reader checking the size before it reads a field.
 */
#include "wire/nat_msg.h"

#include <string.h>

#include "wire/siphash.h"

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool nat_address_ok(const tempo_address *a)
{
    if (!a || a->port == 0)
        return false;
    if (a->family == TEMPO_ADDRESS_IPV4) {
        for (int i = 4; i < 16; i++)
            if (a->bytes[i] != 0)
                return false;
        return true;
    }
    return a->family == TEMPO_ADDRESS_IPV6;
}

static void addr_put(uint8_t *p, const tempo_address *a)
{
    p[0] = a->family;
    memcpy(p + 1, a->bytes, 16);
    put16(p + 17, a->port);
}

static bool addr_get(const uint8_t *p, tempo_address *out)
{
    tempo_address a;
    memset(&a, 0, sizeof a);
    a.family = p[0];
    memcpy(a.bytes, p + 1, 16);
    a.port = get16(p + 17);
    if (!nat_address_ok(&a))
        return false;
    *out = a;
    return true;
}

size_t nat_candidates_write(uint8_t *body, const tempo_address *cand, int count)
{
    body[0] = (uint8_t)count;
    for (int i = 0; i < count; i++)
        addr_put(body + 1 + (size_t)i * NAT_ADDRESS_SIZE, &cand[i]);
    return 1 + (size_t)count * NAT_ADDRESS_SIZE;
}

bool nat_candidates_read(const uint8_t *body, size_t size, tempo_address *cand, int *count)
{
    if (size < 1 || body[0] > NAT_MAX_LOCAL || size != 1 + (size_t)body[0] * NAT_ADDRESS_SIZE)
        return false;
    for (int i = 0; i < body[0]; i++)
        if (!addr_get(body + 1 + (size_t)i * NAT_ADDRESS_SIZE, &cand[i]))
            return false;
    *count = body[0];
    return true;
}

size_t nat_intro_write(uint8_t *body, const nat_intro *in)
{
    size_t n = 0;
    body[n++] = in->flags;
    body[n++] = in->slots;
    memcpy(body + n, in->secret, NAT_SECRET_SIZE);
    n += NAT_SECRET_SIZE;
    body[n++] = (uint8_t)in->count;
    for (int i = 0; i < in->count; i++) {
        const nat_member *m = &in->members[i];
        body[n++] = m->slots;
        addr_put(body + n, &m->public_addr);
        n += NAT_ADDRESS_SIZE;
        body[n++] = (uint8_t)m->ncand;
        for (int k = 0; k < m->ncand; k++) {
            addr_put(body + n, &m->cand[k]);
            n += NAT_ADDRESS_SIZE;
        }
    }
    return n;
}

bool nat_intro_read(const uint8_t *body, size_t size, nat_intro *out)
{
    nat_intro in;
    memset(&in, 0, sizeof in);
    size_t n = 0;
    if (size < 3 + NAT_SECRET_SIZE)
        return false;
    in.flags = body[n++];
    in.slots = body[n++];
    memcpy(in.secret, body + n, NAT_SECRET_SIZE);
    n += NAT_SECRET_SIZE;
    in.count = body[n++];
    if (in.flags & ~NAT_FLAG_ALL_IN || in.slots == 0 || in.count >= NAT_MAX_MEMBERS)
        return false;
    uint8_t seen = in.slots;
    for (int i = 0; i < in.count; i++) {
        nat_member *m = &in.members[i];
        if (size - n < 1 + NAT_ADDRESS_SIZE + 1)
            return false;
        m->slots = body[n++];
        if (m->slots == 0 || (m->slots & seen) != 0)
            return false; /* a player named twice */
        seen |= m->slots;
        if (!addr_get(body + n, &m->public_addr))
            return false;
        n += NAT_ADDRESS_SIZE;
        m->ncand = body[n++];
        if (m->ncand > NAT_MAX_LOCAL || size - n < (size_t)m->ncand * NAT_ADDRESS_SIZE)
            return false;
        for (int k = 0; k < m->ncand; k++) {
            if (!addr_get(body + n, &m->cand[k]))
                return false;
            n += NAT_ADDRESS_SIZE;
        }
    }
    if (n != size)
        return false;
    *out = in;
    return true;
}

uint32_t nat_probe_session(const uint8_t secret[NAT_SECRET_SIZE])
{
    return get32(secret + SIPHASH_KEY_SIZE);
}

static uint64_t probe_tag(const uint8_t *data, const uint8_t secret[NAT_SECRET_SIZE])
{
    return siphash24(secret, data, NAT_PROBE_SIZE - 8);
}

size_t nat_probe_write(uint8_t *out, const nat_probe *p, const uint8_t secret[NAT_SECRET_SIZE])
{
    tempo_packet_header h;
    memset(&h, 0, sizeof h);
    h.session_id = nat_probe_session(secret);
    h.type = p->type;
    (void)packet_write(&h, out, PACKET_HEADER_SIZE);
    uint8_t *b = out + PACKET_HEADER_SIZE;
    b[0] = p->from;
    b[1] = p->to;
    b[2] = p->flags;
    put32(b + 3, p->nonce);
    uint64_t tag = probe_tag(out, secret);
    for (int i = 0; i < 8; i++)
        b[7 + i] = (uint8_t)(tag >> (8 * i));
    return NAT_PROBE_SIZE;
}

/* Why data is no probe of this match, its tag aside: TEMPO_DROP_NONE if
 * it is one (its header in *v). */
static tempo_drop_reason probe_shape(const uint8_t *data, size_t size, tempo_packet_view *v)
{
    tempo_drop_reason why = TEMPO_DROP_NONE;
    if (packet_read(data, size, v, &why) != TEMPO_OK)
        return why != TEMPO_DROP_NONE ? why : TEMPO_DROP_TOO_SHORT;
    if (v->h.type != NAT_TYPE_PROBE && v->h.type != NAT_TYPE_PROBE_ACK)
        return TEMPO_DROP_BAD_TYPE;
    if (v->h.fragment)
        return TEMPO_DROP_FRAGMENT;
    if (v->h.sealed)
        return TEMPO_DROP_SEALED; /* probes travel in the clear, under their tag */
    if (size < NAT_PROBE_SIZE)
        return TEMPO_DROP_TRUNCATED;
    if (size > NAT_PROBE_SIZE)
        return TEMPO_DROP_TRAILING;
    return TEMPO_DROP_NONE;
}

bool nat_is_probe(const uint8_t *data, size_t size)
{
    tempo_packet_view v;
    return packet_read(data, size, &v, NULL) == TEMPO_OK &&
           (v.h.type == NAT_TYPE_PROBE || v.h.type == NAT_TYPE_PROBE_ACK);
}

bool nat_probe_read(const uint8_t *data, size_t size, const uint8_t secret[NAT_SECRET_SIZE],
                    nat_probe *out, tempo_drop_reason *why)
{
    tempo_drop_reason w;
    if (why == NULL)
        why = &w;
    tempo_packet_view v;
    *why = probe_shape(data, size, &v);
    if (*why != TEMPO_DROP_NONE)
        return false;
    if (v.h.session_id != nat_probe_session(secret)) {
        *why = TEMPO_DROP_SESSION; /* another match's secret */
        return false;
    }
    const uint8_t *b = data + PACKET_HEADER_SIZE;
    uint64_t tag = 0;
    for (int i = 0; i < 8; i++)
        tag |= (uint64_t)b[7 + i] << (8 * i);
    /* compared whole, not byte by byte with an early exit */
    if ((tag ^ probe_tag(data, secret)) != 0) {
        *why = TEMPO_DROP_FORGED;
        return false;
    }
    if (v.h.sequence != 0 || b[0] >= 8 || b[1] >= 8 || b[0] == b[1] ||
        (b[2] & ~NAT_FLAG_DIRECT) != 0) {
        *why = TEMPO_DROP_BAD_VALUE; /* tagged by the match's secret, but out of range */
        return false;
    }
    out->type = v.h.type;
    out->from = b[0];
    out->to = b[1];
    out->flags = b[2];
    out->nonce = get32(b + 3);
    return true;
}
