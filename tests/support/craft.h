/* SPDX-License-Identifier: MIT */
/*
 * craft.h — messages a test builds by hand and sends as one harness peer to
 * another: a forged INPUT or CHECKSUM from a real peer's address, numbered
 * in the sender's own sequence, as the sender's next datagram would be.
 *
 * Both ends' records of each other (peer_at) are read from the sessions'
 * internals, so a crafted message can name exactly the frames the receiver
 * wants next, and takes a sequence the sender then does not use again: the
 * receiver's replay window keeps it and the honest datagrams around it.
 */
#ifndef TEMPO_TESTS_CRAFT_H
#define TEMPO_TESTS_CRAFT_H

#include <stdint.h>
#include <string.h>

#include "p2p_harness.h"
#include "p2p/p2p.h"

/* The next number of a seeded sequence (splitmix over toy_mix). */
static inline uint64_t craft_rand(uint64_t *x)
{
    *x += 0x9e3779b97f4a7c15ULL;
    return toy_mix(*x, 0);
}

/* The reference inputs of a crafted INPUT's delta coding: all zero. */
static inline bool craft_zero_reference(void *ctx, int player, int32_t frame, uint8_t *out)
{
    (void)ctx;
    (void)player;
    (void)frame;
    memset(out, 0, TEMPO_MAX_INPUT_SIZE);
    return true;
}

/* The record peer `victim` keeps of peer `sender`. */
static inline p2p_peer *peer_at(harness *h, int victim, int sender)
{
    tempo_p2p *n = h->peer[victim].s->net;
    for (int i = 0; i < n->npeers; i++)
        if (tempo_address_equal(&n->peers[i].addr, &h->peer[sender].addr))
            return &n->peers[i];
    for (int i = 0; i < n->nspecs; i++)
        if (tempo_address_equal(&n->specs[i].addr, &h->peer[sender].addr))
            return &n->specs[i];
    fail_msg("peer %d has no record of peer %d", victim, sender);
    return NULL;
}

/* The sequence peer `from`'s next datagram to `to` would carry, taken from
 * its link as if it sent one of `bytes`: its own datagrams move on past it. */
static inline uint16_t craft_next_seq(harness *h, int from, int to, size_t bytes)
{
    net_link *l = &peer_at(h, from, to)->link;
    return (uint16_t)link_on_sent(l, h->now_us, bytes);
}

/* Encode `m` for the harness's match and send it from peer `from` to peer
 * `to`, numbered as from's next datagram to it. */
static inline void send_crafted(harness *h, int from, int to, tempo_msg *m)
{
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = h->cfg.input_size;
    ctx.num_players = h->players;
    ctx.reference = craft_zero_reference;
    m->session_id = h->cfg.session_id;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    int n = tempo_codec_encode(m, &ctx, buf, sizeof buf);
    assert_true(n > 0);
    m->sequence = craft_next_seq(h, from, to, (size_t)n);
    buf[5] = (uint8_t)m->sequence; /* the header's sequence bits (PROTOCOL.md 2) */
    buf[6] = (uint8_t)(m->sequence >> 8);
    assert_int_equal(h->peer[from].tr.send(h->peer[from].tr.ctx, &h->peer[to].addr, buf, (size_t)n), 0);
}

/* An INPUT without inputs, as peer `sender` would send it to `victim` next:
 * it starts at the frame the victim wants and acknowledges nothing. */
static inline void empty_input(harness *h, int victim, int sender, tempo_msg *m)
{
    memset(m, 0, sizeof *m);
    p2p_peer *e = peer_at(h, victim, sender);
    m->type = TEMPO_MSG_INPUT;
    m->u.input.start = p2p_wanted_from(h->peer[victim].s, e);
    m->u.input.ack = 0;
    m->u.input.sender_frame = m->u.input.start;
}

/* A CHECKSUM of `frame` (0: none, an ack alone) acknowledging `ack`
 * (send_crafted numbers it). */
static inline void crafted_sum(tempo_msg *m, int32_t frame, uint64_t sum, int32_t ack)
{
    memset(m, 0, sizeof *m);
    m->type = TEMPO_MSG_CHECKSUM;
    m->u.checksum.frame = frame;
    m->u.checksum.checksum = frame ? sum : 0;
    m->u.checksum.ack = ack;
}

#endif /* TEMPO_TESTS_CRAFT_H */
