/* SPDX-License-Identifier: MIT */
/*
 * channel.c — one client-server connection's datagrams both ways
 * (channel.h). The receive order is every role's (net/sequence.h): nothing
 * is decoded before the session id, the replay window and the seal have
 * passed; a sequence enters the replay window only once its seal opened,
 * so a forged datagram cannot burn the sequence of a real one; and one far
 * ahead is held, never used, until the other side shows it moved on.
 */
#include "cs/channel.h"

#include <string.h>

#include "net/sequence.h"
#include "tempo/base.h"
#include "wire/fragment.h"

void cs_channel_init(cs_channel *ch, uint64_t now, const tempo_address *to, uint32_t session_id,
                     const wire_keys *keys, uint64_t timeout_us)
{
    memset(ch, 0, sizeof *ch);
    link_config lc;
    link_config_default(&lc);
    lc.timeout_us = timeout_us;
    lc.notify_us = timeout_us / 4 > lc.notify_us ? lc.notify_us : timeout_us / 4;
    lc.seq_jump = REPLAY_WINDOW / 2;
    link_init(&ch->link, &lc, now);
    /* The gate ran the handshake: the link starts established, its RTT
     * measured from acks (both sides send every tick). */
    ch->link.state = LINK_ESTABLISHED;
    ch->link.heard = true;
    ch->link.last_recv_us = now;
    ch->link.next_ping_us = UINT64_MAX;
    replay_init(&ch->replay);
    net_sequence_start(&ch->link, &ch->replay, now, 0, false); /* each side counts from 0 */
    ch->session_id = session_id;
    ch->to = *to;
    if (keys != NULL && keys->ready) {
        ch->keys = *keys;
        ch->sealed = true;
    }
}

void cs_channel_wipe(cs_channel *ch) { seal_keys_wipe(&ch->keys); }

cs_msg_prefix cs_channel_prefix(const cs_channel *ch)
{
    cs_msg_prefix p = {false, 0, 0};
    uint64_t ack;
    uint32_t bits;
    if (link_ack_out(&ch->link, &ack, &bits)) {
        p.has_ack = true;
        p.ack = (uint16_t)ack;
        p.ack_bits = bits;
    }
    return p;
}

void cs_channel_bye_body(const cs_channel *ch, uint8_t body[CS_MSG_PREFIX_SIZE])
{
    cs_msg_prefix p = cs_channel_prefix(ch);
    cs_msg_put_prefix(body, &p);
}

/* Seal (when the channel has keys) and send one datagram of n bytes in
 * buf, numbered seq. Returns the bytes sent or a negative result. */
static int emit(cs_channel *ch, uint64_t now, const tempo_transport *t, uint64_t seq, uint8_t *buf,
                size_t n)
{
    if (ch->sealed) {
        int s = seal_datagram(&ch->keys, seq, buf, n, TEMPO_MAX_DATAGRAM);
        if (s < 0)
            return s;
        n = (size_t)s;
    }
    (void)t->send(t->ctx, &ch->to, buf, n); /* a failed send is a lost datagram */
    link_on_sent(&ch->link, now, n);
    return (int)n;
}

int cs_channel_send(cs_channel *ch, uint64_t now, const tempo_transport *t, uint8_t type,
                    const uint8_t *body, size_t size, uint8_t *scratch)
{
    tempo_packet_header h = {ch->session_id, 0, type, false, false};
    if (size <= FRAG_CHUNK) {
        uint64_t seq = link_next_seq(&ch->link);
        h.sequence = (uint16_t)seq;
        if (packet_write(&h, scratch, TEMPO_MAX_DATAGRAM) != PACKET_HEADER_SIZE)
            return TEMPO_E_INVALID_ARG;
        if (size > 0)
            memcpy(scratch + PACKET_HEADER_SIZE, body, size);
        return emit(ch, now, t, seq, scratch, PACKET_HEADER_SIZE + size);
    }
    int count = frag_count(size);
    if (count == 0)
        return TEMPO_E_INVALID_ARG;
    uint16_t id = ch->frag_id++;
    int total = 0;
    for (int i = 0; i < count; i++) {
        uint64_t seq = link_next_seq(&ch->link);
        h.sequence = (uint16_t)seq;
        int n = frag_write(&h, id, body, size, i, scratch, TEMPO_MAX_DATAGRAM);
        if (n < 0)
            return n;
        int s = emit(ch, now, t, seq, scratch, (size_t)n);
        if (s < 0)
            return s;
        total += s;
    }
    return total;
}

cs_rx cs_channel_receive(cs_channel *ch, uint64_t now, uint8_t *data, size_t size,
                         const uint8_t **body, size_t *body_size, uint8_t *type, bool *fragment)
{
    tempo_packet_view v;
    if (packet_read(data, size, &v, NULL) != TEMPO_OK)
        return CS_RX_MALFORMED;
    if (v.h.session_id != ch->session_id)
        return CS_RX_SESSION;
    if (link_closed(&ch->link))
        return CS_RX_CLOSED;
    uint64_t seq = packet_sequence_recover(v.h.sequence, link_recv_newest(&ch->link));
    if (net_sequence_check(&ch->link, &ch->replay, now, seq) == NET_SEQUENCE_REPLAY)
        return CS_RX_REPLAY;
    size_t n = size;
    if (ch->sealed) {
        if (!v.h.sealed)
            return CS_RX_FORGED;
        tempo_drop_reason r = TEMPO_DROP_NONE;
        int opened = seal_open(&ch->keys, seq, data, size, &r);
        if (opened < 0)
            return r == TEMPO_DROP_FORGED ? CS_RX_FORGED : CS_RX_MALFORMED;
        n = (size_t)opened;
    } else if (v.h.sealed) {
        return CS_RX_MALFORMED;
    }
    link_rx rx = net_sequence_take(&ch->link, &ch->replay, now, seq, size);
    if (rx == LINK_RX_CLOSED)
        return CS_RX_CLOSED;
    if (rx == LINK_RX_DUPLICATE)
        return CS_RX_REPLAY;
    if (rx == LINK_RX_JUMP)
        return CS_RX_HELD;
    *body = data + PACKET_HEADER_SIZE;
    *body_size = n - PACKET_HEADER_SIZE;
    *type = v.h.type;
    *fragment = v.h.fragment;
    if (!v.h.fragment && !cs_channel_on_body(ch, now, *body, *body_size))
        return CS_RX_MALFORMED;
    return CS_RX_OK;
}

bool cs_channel_on_body(cs_channel *ch, uint64_t now, const uint8_t *body, size_t size)
{
    cs_msg_prefix p;
    if (!cs_msg_get_prefix(body, size, &p))
        return false;
    if (p.has_ack) {
        uint64_t next = link_next_seq(&ch->link);
        uint64_t ack = packet_sequence_recover(p.ack, next > 0 ? next - 1 : 0);
        (void)link_on_ack(&ch->link, now, ack, p.ack_bits);
    }
    return true;
}
