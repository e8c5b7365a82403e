/* SPDX-License-Identifier: MIT */
/*
 * relay_send.c — one datagram from the relay to a member: the member's
 * next sequence, the header and the seal, the counters, the transport.
 * The relay (relay.c) and a lockstep match's turns (relay_turns.c) both
 * send through it, so neither calls up into the other.
 */
#include "relay/relay.h"

void relay_send_to(tempo_relay *r, relay_member *e, uint8_t type, size_t body)
{
    uint64_t seq = link_next_seq(&e->link);
    int n = relay_msg_finish(r->out, sizeof r->out, r->cfg.protocol_id, type, seq, body,
                             e->sealed ? &e->keys : NULL);
    if (n < 0) {
        r->st.send_errors++;
        return;
    }
    link_on_sent(&e->link, r->now_us, (size_t)n);
    e->last_send_us = r->now_us;
    e->st.datagrams_down++;
    e->st.bytes_down += (uint64_t)n;
    r->st.datagrams_out++;
    r->st.bytes_out += (uint64_t)n;
    if (r->transport.send(r->transport.ctx, &e->addr, r->out, (size_t)n) < 0)
        relay_send_failed(r, &e->addr);
}
