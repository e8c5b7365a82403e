/* SPDX-License-Identifier: MIT */
/*
 * channel.c — one client-server connection's datagrams both ways
 * (channel.h). Receiving is every role's pipeline (net/receive.h): nothing
 * is decoded before the session id, the replay window and the seal have
 * passed; a sequence enters the replay window only once its seal opened
 * and its link prefix read, so a forged datagram cannot burn the sequence
 * of a real one; and one far ahead is held, never used, until the other
 * side shows it moved on.
 */
#include "cs/channel.h"

#include <string.h>

#include "net/receive.h"
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
    net_receive_start(&ch->link, &ch->replay, now, 0, false); /* each side counts from 0 */
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

/* The pipeline's decoder: a whole body's link prefix read, its ack handed
 * to the pipeline (taken from the newest datagram only); a fragment is the
 * caller's to reassemble. */
static tempo_drop_reason read_prefix(void *ctx, net_datagram *d)
{
    (void)ctx;
    if (d->v.h.fragment)
        return TEMPO_DROP_NONE;
    cs_msg_prefix p;
    if (!cs_msg_get_prefix(d->body, d->body_size, &p))
        return TEMPO_DROP_TRUNCATED;
    if (p.has_ack)
        d->ack = (net_ack){true, 16, p.ack, p.ack_bits, 0};
    return TEMPO_DROP_NONE;
}

tempo_drop_reason cs_channel_receive(cs_channel *ch, uint64_t now, uint8_t *data, size_t size,
                                     net_datagram *d)
{
    net_receiver r = {&ch->link, &ch->replay, ch->sealed ? &ch->keys : NULL, ch->session_id};
    return net_receive(&r, now, data, size, read_prefix, NULL, d);
}

bool cs_channel_on_body(cs_channel *ch, uint64_t now, const uint8_t *body, size_t size)
{
    cs_msg_prefix p;
    if (!cs_msg_get_prefix(body, size, &p))
        return false;
    /* A reassembled message's ack is as old as its first fragment: taken
     * only if no whole datagram since acked further. */
    uint64_t next = link_next_seq(&ch->link);
    uint64_t ack = packet_sequence_recover(p.ack, next > 0 ? next - 1 : 0);
    if (p.has_ack && ack < next && (!ch->link.acked_any || ack >= ch->link.acked_max))
        (void)link_on_ack(&ch->link, now, ack, p.ack_bits);
    return true;
}
