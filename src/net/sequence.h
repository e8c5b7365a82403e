/* SPDX-License-Identifier: MIT */
/*
 * sequence.h — what a datagram's sequence does to the receiver, the rule
 * every role's receive path shares (p2p peers, lockstep machines, relay
 * members, the relay, client-server channels): the replay window
 * (wire/replay_window.h) says whether the sequence was taken already, the
 * link (link.h) whether it is believable, and both record it only once
 * the datagram proved genuine.
 *
 *   check   seq recovered from the wire's low bits; net_sequence_check:
 *           REPLAY: drop it before any costly work; HELD: far ahead (its
 *           body will not be used); TAKE: go on
 *   open    the seal, when the link has keys; decode the body (no effect)
 *   take    net_sequence_take: LINK_RX_NEWEST, LATE and TOO_OLD: use the
 *           body; DUPLICATE: a copy of the held jump, count it as a
 *           replay; JUMP: held, its body is never used; CLOSED: drop it
 *
 * A sequence more than the link's seq_jump ahead of the newest is held:
 * the window does not move, it is no sign of life, its body is not used.
 * A datagram just after it, once the remote has been silent in its old
 * range for the link's notify time, shows the remote really moved on (a
 * long outage): both are then recorded and the link follows. So one
 * datagram far ahead, or two, sent by someone else while the real sender
 * keeps speaking (an off-path spoofer of an unsealed link, which cannot
 * see the real sequences), cannot make every later genuine datagram look
 * old. seq_jump must stay below REPLAY_WINDOW: a step the window cannot
 * hold would otherwise be taken.
 */
#ifndef TEMPO_NET_SEQUENCE_H
#define TEMPO_NET_SEQUENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/link.h"
#include "wire/replay_window.h"

typedef enum net_sequence {
    NET_SEQUENCE_TAKE = 0,   /* acceptable: open, decode, then take it */
    NET_SEQUENCE_REPLAY = 1, /* a copy, or too old to tell: drop it */
    NET_SEQUENCE_HELD = 2    /* far ahead: only net_sequence_take it (held), never use the body */
} net_sequence;

/* What `seq` from l's remote comes to at now (see above). Changes nothing. */
net_sequence net_sequence_check(const net_link *l, const tempo_replay *w, uint64_t now,
                                uint64_t seq);

/* A genuine datagram (its seal opened, or the link is plain) of `bytes`
 * with sequence `seq` came at now, after net_sequence_check said TAKE or
 * HELD: the link takes it (link_on_datagram) and the window records it,
 * unless the link holds it as a jump; a confirmed jump records the held
 * sequence too. Returns the link's answer. */
link_rx net_sequence_take(net_link *l, tempo_replay *w, uint64_t now, uint64_t seq, size_t bytes);

/* A connection begins: the remote's sequences start at `first`
 * (link_expect_first). taken: `first` itself already came and proved
 * genuine (a handshake response the gate opened), so the link and the
 * window record it as received. */
void net_sequence_start(net_link *l, tempo_replay *w, uint64_t now, uint64_t first, bool taken);

/* True for the answers whose datagram's body is to be used. */
static inline bool net_sequence_usable(link_rx rx)
{
    return rx == LINK_RX_NEWEST || rx == LINK_RX_LATE || rx == LINK_RX_TOO_OLD;
}

#endif /* TEMPO_NET_SEQUENCE_H */
