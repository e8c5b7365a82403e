/* SPDX-License-Identifier: MIT */
/*
 * receive.c — the one receive pipeline every role calls (receive.h).
 */
#include "net/receive.h"

#include <string.h>

#include "base/common.h"

tempo_drop_reason net_receive_open(const net_receiver *r, uint64_t now, uint8_t *data, size_t size,
                                   net_decode_fn decode, void *ctx, net_datagram *d)
{
    memset(d, 0, sizeof *d);
    d->size = size;
    if (size > TEMPO_MAX_DATAGRAM)
        return TEMPO_DROP_TOO_LONG;
    uint32_t sid;
    tempo_drop_reason why = TEMPO_DROP_NONE;
    if (packet_peek_session(data, size, &sid, &why) != TEMPO_OK)
        return why;
    if (sid != r->session_id)
        return TEMPO_DROP_SESSION;
    if (packet_read(data, size, &d->v, &why) != TEMPO_OK)
        return why;
    if (d->v.h.sealed && r->keys == NULL)
        return TEMPO_DROP_SEALED;
    if (!d->v.h.sealed && r->keys != NULL)
        return TEMPO_DROP_PLAIN;
    if (link_closed(r->link))
        return TEMPO_DROP_CLOSED;
    d->seq = packet_sequence_recover(d->v.h.sequence, link_recv_newest(r->link));
    why = replay_check(r->replay, d->seq);
    if (why != TEMPO_DROP_NONE)
        return why; /* a copy, or too old to tell: no cryptography spent on it */
    size_t opened = size;
    if (r->keys != NULL) {
        int n = seal_open(r->keys, d->seq, data, size, &why);
        if (n < 0)
            return why != TEMPO_DROP_NONE ? why : TEMPO_DROP_FORGED;
        opened = (size_t)n;
    }
    d->body = data + PACKET_HEADER_SIZE;
    d->body_size = opened - PACKET_HEADER_SIZE;
    if (link_would_hold(r->link, now, d->seq)) {
        /* Far ahead: recorded as held, its body never used. */
        why = net_receive_take(r, now, d);
        return why == TEMPO_DROP_NONE ? TEMPO_DROP_HELD : why;
    }
    d->whole = true;
    if (decode != NULL) {
        why = decode(ctx, d);
        if (why != TEMPO_DROP_NONE)
            return why;
    }
    return TEMPO_DROP_NONE;
}

tempo_drop_reason net_receive_take(const net_receiver *r, uint64_t now, net_datagram *d)
{
    TEMPO_ASSERT(r->link->cfg.seq_jump < REPLAY_WINDOW);
    link_rx rx = link_on_datagram(r->link, now, d->seq, d->size);
    d->rx = rx;
    switch (rx) {
    case LINK_RX_CLOSED: return TEMPO_DROP_CLOSED;
    case LINK_RX_DUPLICATE: return TEMPO_DROP_DUPLICATE;
    case LINK_RX_JUMP: return TEMPO_DROP_HELD;
    case LINK_RX_NEWEST:
    case LINK_RX_LATE:
    case LINK_RX_TOO_OLD: break;
    }
    if (r->link->jump_confirmed) /* the held one too: the sender moved on */
        (void)replay_accept(r->replay, r->link->jump_seq);
    (void)replay_accept(r->replay, d->seq);
    if (rx == LINK_RX_NEWEST && d->ack.present)
        d->ack_taken = link_on_ack_low(r->link, now, d->ack.low, d->ack.width, d->ack.bits,
                                        d->ack.delay_us);
    return TEMPO_DROP_NONE;
}

tempo_drop_reason net_receive(const net_receiver *r, uint64_t now, uint8_t *data, size_t size,
                              net_decode_fn decode, void *ctx, net_datagram *d)
{
    tempo_drop_reason why = net_receive_open(r, now, data, size, decode, ctx, d);
    return why != TEMPO_DROP_NONE ? why : net_receive_take(r, now, d);
}

bool net_receive_would_pass(const wire_keys *keys, const tempo_replay *replay, uint64_t newest,
                            const uint8_t *data, size_t size)
{
    tempo_packet_view v;
    if (packet_read(data, size, &v, NULL) != TEMPO_OK)
        return false;
    uint64_t seq = packet_sequence_recover(v.h.sequence, newest);
    if (replay != NULL && replay_check(replay, seq) != TEMPO_DROP_NONE)
        return false;
    if (keys == NULL)
        return true;
    if (!keys->ready || !v.h.sealed)
        return false;
    uint8_t copy[TEMPO_MAX_DATAGRAM];
    memcpy(copy, data, size);
    bool ok = seal_open(keys, seq, copy, size, NULL) >= 0;
    seal_wipe(copy, sizeof copy);
    return ok;
}

void net_receive_reset(tempo_replay *w) { replay_init(w); }

void net_receive_start(net_link *l, tempo_replay *w, uint64_t now, uint64_t first, bool taken)
{
    link_expect_first(l, first);
    replay_init(w);
    if (taken) {
        (void)link_on_datagram(l, now, first, 0);
        (void)replay_accept(w, first);
    }
}

net_drop_counter net_drop_counter_of(tempo_drop_reason why)
{
    switch (why) {
    case TEMPO_DROP_NONE: return NET_COUNT_NONE;
    case TEMPO_DROP_UNKNOWN:
    case TEMPO_DROP_CLOSED: return NET_COUNT_UNKNOWN;
    case TEMPO_DROP_SESSION: return NET_COUNT_SESSION;
    case TEMPO_DROP_FORGED:
    case TEMPO_DROP_PLAIN: return NET_COUNT_FORGED;
    case TEMPO_DROP_DUPLICATE:
    case TEMPO_DROP_STALE: return NET_COUNT_REPLAY;
    case TEMPO_DROP_HELD: return NET_COUNT_HELD;
    case TEMPO_DROP_EARLY: return NET_COUNT_EARLY;
    default: return NET_COUNT_MALFORMED;
    }
}

void net_drop_count_in(tempo_drop_reason why, uint64_t *unknown, uint64_t *session,
                       uint64_t *malformed, uint64_t *forged, uint64_t *replay, uint64_t *held)
{
    switch (net_drop_counter_of(why)) {
    case NET_COUNT_NONE: break;
    case NET_COUNT_UNKNOWN: (*unknown)++; break;
    case NET_COUNT_SESSION: (*session)++; break;
    case NET_COUNT_FORGED: (*forged)++; break;
    case NET_COUNT_REPLAY: (*replay)++; break;
    case NET_COUNT_HELD: (*held)++; break;
    case NET_COUNT_MALFORMED:
    case NET_COUNT_EARLY: (*malformed)++; break;
    }
}
