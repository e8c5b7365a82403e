/* SPDX-License-Identifier: MIT */
/*
 * packet.c — the datagram header (packet.h; docs/PROTOCOL.md section 2).
 *
 * Why these bytes, in this order:
 * - The protocol byte comes first so anything that is not tempo, or not
 *   this version, costs one byte of reading. Four magic bits leave one bit
 *   to say "sealed" and three for the version; today's version-2 byte 0xB2
 *   reads as magic 1011, plain, version 2, so old builds are told apart.
 * - The session id comes next, at a fixed offset, so a receiver can route
 *   or drop by it before parsing, and later before opening the seal.
 * - 16 sequence bits: the full counter is 64 bits so a sealing nonce never
 *   repeats, but sending it whole would cost 6 more bytes on every datagram.
 *   16 bits recover it across 32767 datagrams of loss or reordering (over
 *   nine minutes at 60 per second); 8 bits would misread a two-second
 *   blackout, and 24 would cost a byte the INPUT size target cannot spare.
 * - The type byte last: seven bits of type (127 types) and the fragment flag,
 *   so a fragment's type is authenticated like a whole message's.
 * All multi-byte fields are little endian, as the bit-packed bodies are.
 */
#include "wire/packet.h"

#include "tempo/base.h"

#define FRAGMENT_BIT 0x80u  /* bit 7 of byte 7 */

int packet_write(const tempo_packet_header *h, uint8_t *buf, size_t capacity)
{
    if (h == NULL || buf == NULL || h->type == 0 || h->type > PACKET_MAX_TYPE)
        return TEMPO_E_INVALID_ARG;
    if (capacity < PACKET_HEADER_SIZE)
        return TEMPO_E_FULL;
    buf[0] = packet_protocol_byte(h->sealed);
    for (int i = 0; i < 4; i++)
        buf[1 + i] = (uint8_t)(h->session_id >> (8 * i));
    buf[5] = (uint8_t)h->sequence;
    buf[6] = (uint8_t)(h->sequence >> 8);
    buf[7] = (uint8_t)(h->type | (h->fragment ? FRAGMENT_BIT : 0u));
    return PACKET_HEADER_SIZE;
}

/* The checks every reader makes first, in the order PROTOCOL.md lists. */
static tempo_drop_reason check_front(const uint8_t *data, size_t size)
{
    if (size > TEMPO_MAX_DATAGRAM)
        return TEMPO_DROP_TOO_LONG;
    if (size < PACKET_HEADER_SIZE)
        return TEMPO_DROP_TOO_SHORT;
    if ((data[0] >> 4) != PACKET_MAGIC)
        return TEMPO_DROP_BAD_MAGIC;
    if ((data[0] & 7u) != TEMPO_PROTOCOL_VERSION)
        return TEMPO_DROP_BAD_VERSION;
    return TEMPO_DROP_NONE;
}

static uint32_t session_of(const uint8_t *data)
{
    return (uint32_t)data[1] | (uint32_t)data[2] << 8 | (uint32_t)data[3] << 16 |
           (uint32_t)data[4] << 24;
}

int packet_read(const uint8_t *data, size_t size, tempo_packet_view *out, tempo_drop_reason *reason)
{
    tempo_drop_reason unused;
    if (reason == NULL)
        reason = &unused;
    *reason = TEMPO_DROP_NONE;
    if (out == NULL || (data == NULL && size != 0))
        return TEMPO_E_INVALID_ARG;
    *reason = check_front(data, size);
    if (*reason != TEMPO_DROP_NONE)
        return TEMPO_E_MALFORMED;
    tempo_packet_view v;
    v.h.sealed = (data[0] & PACKET_SEALED_BIT) != 0;
    v.h.session_id = session_of(data);
    v.h.sequence = (uint16_t)(data[5] | data[6] << 8);
    v.h.fragment = (data[7] & FRAGMENT_BIT) != 0;
    v.h.type = (uint8_t)(data[7] & PACKET_MAX_TYPE);
    if (v.h.sealed && size < PACKET_HEADER_SIZE + PACKET_TAG_SIZE) {
        *reason = TEMPO_DROP_TOO_SHORT;
        return TEMPO_E_MALFORMED;
    }
    if (v.h.type == 0) {
        *reason = TEMPO_DROP_BAD_TYPE;
        return TEMPO_E_MALFORMED;
    }
    v.body = PACKET_HEADER_SIZE;
    v.body_size = size - PACKET_HEADER_SIZE - (v.h.sealed ? PACKET_TAG_SIZE : 0u);
    v.tag = v.h.sealed ? size - PACKET_TAG_SIZE : 0u;
    *out = v;
    return TEMPO_OK;
}

int packet_peek_session(const uint8_t *data, size_t size, uint32_t *session_id,
                        tempo_drop_reason *reason)
{
    tempo_drop_reason unused;
    if (reason == NULL)
        reason = &unused;
    *reason = TEMPO_DROP_NONE;
    if (session_id == NULL || (data == NULL && size != 0))
        return TEMPO_E_INVALID_ARG;
    *reason = check_front(data, size);
    if (*reason != TEMPO_DROP_NONE)
        return TEMPO_E_MALFORMED;
    *session_id = session_of(data);
    return TEMPO_OK;
}

uint64_t packet_sequence_recover(uint16_t low, uint64_t highest)
{
    /* signed distance from highest's low bits, in [-32768, 32767] */
    int32_t d = (int32_t)((uint32_t)(uint16_t)(low - (uint16_t)highest));
    if (d >= 0x8000)
        d -= 0x10000;
    if (d < 0 && highest < (uint64_t)-d)
        return highest + (uint64_t)(d + 0x10000); /* no negative sequences */
    if (d > 0 && highest > UINT64_MAX - (uint64_t)d)
        return highest - (uint64_t)(0x10000 - d);  /* no wrap past 2^64 - 1 */
    return d < 0 ? highest - (uint64_t)-d : highest + (uint64_t)d;
}
