/* SPDX-License-Identifier: MIT */
/*
 * receive.h — the one way a datagram comes in, for every role: p2p peers
 * and spectators, lockstep machines, the lockstep and rollback relay
 * members, the relay, and client-server channels. A datagram and the
 * receiver's state for its sender go in; the opened, decoded message, or
 * one drop reason from the one list (wire/drop.h), comes out. The steps,
 * each refusal named, nothing after a refusal read:
 *
 *   size          TOO_LONG
 *   session id    TOO_SHORT, BAD_MAGIC, BAD_VERSION; SESSION (another id)
 *   header        BAD_TYPE, TOO_SHORT (no room for the tag)
 *   seal mode     SEALED (sealed, and no key to open it); PLAIN (in the
 *                 clear on a link that seals)
 *   link          CLOSED
 *   sequence      the 16 bits recovered to 64 against the newest taken;
 *                 the replay window: DUPLICATE, STALE, before any
 *                 cryptography
 *   seal          FORGED (the tag does not verify under the receive key)
 *   far ahead     a sequence more than the link's seq_jump ahead: the link
 *                 holds it (HELD), or knows it as the held one's copy
 *                 (DUPLICATE); its body is never decoded or used
 *   decode        the role's decoder, given the opened body: its reason
 *                 (TRUNCATED, BAD_VALUE, FRAG_..., EARLY, ...)
 *   take          the link and the window record the sequence: only now,
 *                 so a forged, copied or malformed datagram moves no
 *                 window, liveness timer or round trip; CLOSED, or
 *                 DUPLICATE for a copy of a held jump
 *   ack           the datagram ack the decoder found (d->ack), given to
 *                 the link (link_on_ack_low) only from a datagram newer
 *                 than any before it: so acks never go back, and one
 *                 that cannot be ours is counted by the link, not used
 *
 * One far ahead is held, unused, until the sender shows it moved on (a
 * datagram just after it, once the remote was silent in its old range for
 * the link's notify time: a long outage); then both are recorded and the
 * link follows. So one or two datagrams far ahead from someone else while
 * the real sender keeps speaking (an off-path spoofer of an unsealed link)
 * cannot make every later genuine one look old. seq_jump stays below
 * REPLAY_WINDOW.
 *
 * This file is the only caller of the replay window and of seal_open: a
 * role that needs to know whether a datagram would pass (a rejoin's probe
 * of key epochs, a dropped machine's traffic told apart) asks
 * net_receive_would_pass. The connect handshake's messages (net/gate.h)
 * come before any link and are opened there, under their cookie.
 *
 * Every reason moves exactly one counter, with the same name in every
 * role's public statistics (NET_DROP_COUNT).
 *
 * No allocation, no clock: `now` is an argument.
 */
#ifndef TEMPO_NET_RECEIVE_H
#define TEMPO_NET_RECEIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/link.h"
#include "wire/drop.h"
#include "wire/packet.h"
#include "wire/replay_window.h"
#include "wire/seal.h"

/* The receiver's state for one sender. */
typedef struct net_receiver {
    net_link *link;          /* the sender's link: sequences, liveness */
    tempo_replay *replay;    /* the sender's replay window */
    const wire_keys *keys;   /* ready keys: the link seals; NULL: it is plain */
    uint32_t session_id;     /* what every datagram must carry */
} net_receiver;

/* The datagram ack a message carried, as the wire has it: the low `width`
 * bits of the newest of our sequences the sender received, and bit i for
 * that one - 1 - i (wire/ack.h, or 16 bits in the client-server and relay
 * messages), and how long the sender held it (0 where the message does
 * not say: its sender answers at once). */
typedef struct net_ack {
    bool present;
    uint8_t width;           /* 1..32 */
    uint32_t low;
    uint32_t bits;
    uint64_t delay_us;       /* UINT64_MAX: too long to give a round trip */
} net_ack;

/* A datagram on its way in. */
typedef struct net_datagram {
    tempo_packet_view v;     /* its header */
    uint64_t seq;            /* the sequence recovered */
    size_t size;             /* its size as received */
    const uint8_t *body;     /* the opened body (the decoder may point it at a
                              * reassembled message) */
    size_t body_size;
    bool whole;              /* the decoder's: a whole message was decoded
                              * (false: a fragment kept for reassembly) */
    link_rx rx;              /* after the take: NEWEST (fresh), LATE or TOO_OLD */
    net_ack ack;             /* the decoder's: the ack it carries (none on entry) */
    bool ack_taken;          /* after the take: the link took the ack */
} net_datagram;

/* A role's decoder: the opened body of d (d->v, d->body, d->body_size) as
 * its message, kept in ctx. Returns TEMPO_DROP_NONE, or why it refused.
 * It sets d->whole (true on entry) to false for a fragment that completes
 * nothing yet. It records nothing: the take comes after it. */
typedef tempo_drop_reason (*net_decode_fn)(void *ctx, net_datagram *d);

/* Every step above except the take: returns TEMPO_DROP_NONE with *d set,
 * or a reason (TEMPO_DROP_HELD or a DUPLICATE of a held one: the link
 * recorded it as held, nothing else). data is opened in place. decode may
 * be NULL (the body is taken as it is). */
tempo_drop_reason net_receive_open(const net_receiver *r, uint64_t now, uint8_t *data, size_t size,
                                   net_decode_fn decode, void *ctx, net_datagram *d);

/* The take, for a datagram net_receive_open passed: the link and the
 * window record it, and a NEWEST one's ack goes to the link (d->ack_taken
 * says whether the link took it). TEMPO_DROP_NONE (d->rx says NEWEST, LATE or TOO_OLD),
 * TEMPO_DROP_CLOSED, TEMPO_DROP_DUPLICATE (a copy of a held jump) or
 * TEMPO_DROP_HELD. */
tempo_drop_reason net_receive_take(const net_receiver *r, uint64_t now, net_datagram *d);

/* Both: the usual way in. */
tempo_drop_reason net_receive(const net_receiver *r, uint64_t now, uint8_t *data, size_t size,
                              net_decode_fn decode, void *ctx, net_datagram *d);

/* Whether the datagram of `size` at data would pass the window and the
 * seal: its sequence, recovered against `newest` (0: as a fresh link's
 * first), is no copy and not too old for `replay` (NULL: not asked), and
 * it opens under keys (NULL: not asked; a plain datagram never opens).
 * A copy is opened: data stays as it came; nothing is recorded. */
bool net_receive_would_pass(const wire_keys *keys, const tempo_replay *replay, uint64_t newest,
                            const uint8_t *data, size_t size);

/* An empty window, for a link that expects nothing of its sender's first
 * sequence (a peer met by a handshake of the link's own). */
void net_receive_reset(tempo_replay *w);

/* A connection begins: the remote's sequences start at `first`
 * (link_expect_first), the window empty. taken: `first` itself already
 * came and proved genuine (a handshake response the gate opened), so the
 * link and the window record it as received. */
void net_receive_start(net_link *l, tempo_replay *w, uint64_t now, uint64_t first, bool taken);

/* ---- counting ---- */

/* The counter a reason moves; every role's public statistics name them
 * the same (NET_DROP_COUNT). */
typedef enum net_drop_counter {
    NET_COUNT_NONE = 0,    /* TEMPO_DROP_NONE */
    NET_COUNT_UNKNOWN,     /* dropped_unknown: UNKNOWN, CLOSED (from no live peer of ours) */
    NET_COUNT_SESSION,     /* dropped_session: SESSION */
    NET_COUNT_MALFORMED,   /* dropped_malformed: the header, the body, fragments, SEALED */
    NET_COUNT_FORGED,      /* dropped_forged: FORGED, PLAIN */
    NET_COUNT_REPLAY,      /* dropped_replay: DUPLICATE, STALE */
    NET_COUNT_HELD,        /* held_jumps: HELD */
    NET_COUNT_EARLY        /* dropped_early: EARLY (p2p's alone) */
} net_drop_counter;

/* Which counter why moves. */
net_drop_counter net_drop_counter_of(tempo_drop_reason why);

/* Add one to the counter of why among the six a role's statistics hold
 * (EARLY, which only p2p produces, counts as malformed here). */
void net_drop_count_in(tempo_drop_reason why, uint64_t *unknown, uint64_t *session,
                       uint64_t *malformed, uint64_t *forged, uint64_t *replay, uint64_t *held);

/* Count why in st, any role's statistics record: every one has these six
 * fields by these names (a role without one does not compile). */
#define NET_DROP_COUNT(st, why)                                                              \
    net_drop_count_in((why), &(st)->dropped_unknown, &(st)->dropped_session,                 \
                      &(st)->dropped_malformed, &(st)->dropped_forged, &(st)->dropped_replay, \
                      &(st)->held_jumps)

#endif /* TEMPO_NET_RECEIVE_H */
