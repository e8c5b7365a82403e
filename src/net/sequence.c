/* SPDX-License-Identifier: MIT */
/*
 * sequence.c — the receive rule for sequences every role shares
 * (sequence.h).
 */
#include "net/sequence.h"

#include "base/common.h"

net_sequence net_sequence_check(const net_link *l, const tempo_replay *w, uint64_t now,
                                uint64_t seq)
{
    if (replay_check(w, seq) != TEMPO_DROP_NONE)
        return NET_SEQUENCE_REPLAY;
    return link_would_hold(l, now, seq) ? NET_SEQUENCE_HELD : NET_SEQUENCE_TAKE;
}

link_rx net_sequence_take(net_link *l, tempo_replay *w, uint64_t now, uint64_t seq, size_t bytes)
{
    TEMPO_ASSERT(l->cfg.seq_jump < REPLAY_WINDOW);
    link_rx rx = link_on_datagram(l, now, seq, bytes);
    if (!net_sequence_usable(rx))
        return rx;
    if (l->jump_confirmed)
        (void)replay_accept(w, l->jump_seq);
    (void)replay_accept(w, seq);
    return rx;
}

void net_sequence_start(net_link *l, tempo_replay *w, uint64_t now, uint64_t first, bool taken)
{
    link_expect_first(l, first);
    if (taken) {
        (void)link_on_datagram(l, now, first, 0);
        (void)replay_accept(w, first);
    }
}
