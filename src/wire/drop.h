/* SPDX-License-Identifier: MIT */
/*
 * drop.h — why a datagram was refused: one list for the packet header, the
 * replay window, fragment reassembly, the message codecs, the seal and the
 * receive pipeline every role runs (net/receive.h), so every receiver
 * counts every drop by the same reasons and names it with one function.
 *
 * A reason describes the datagram, never the receiver's state: every one of
 * them is a normal event on a hostile network, counted, never fatal.
 */
#ifndef TEMPO_WIRE_DROP_H
#define TEMPO_WIRE_DROP_H

typedef enum tempo_drop_reason {
    TEMPO_DROP_NONE = 0,
    /* packet header (wire/packet.h) */
    TEMPO_DROP_TOO_SHORT,      /* shorter than the header (and the tag, if sealed) */
    TEMPO_DROP_TOO_LONG,       /* longer than TEMPO_MAX_DATAGRAM */
    TEMPO_DROP_BAD_MAGIC,      /* not a tempo datagram */
    TEMPO_DROP_BAD_VERSION,    /* another protocol version */
    TEMPO_DROP_BAD_TYPE,       /* type 0, or not in the registry */
    TEMPO_DROP_SEALED,         /* sealed, and this receiver holds no key to open it */
    TEMPO_DROP_FRAGMENT,       /* a fragment offered to the whole-message decoder */
    /* message body (wire/codec.h) */
    TEMPO_DROP_TRUNCATED,      /* the body ends early */
    TEMPO_DROP_BAD_VALUE,      /* a field out of range */
    TEMPO_DROP_NO_REFERENCE,   /* INPUT delta base unknown to the receiver */
    TEMPO_DROP_TRAILING,       /* bytes left after the body */
    /* replay window (wire/replay_window.h) */
    TEMPO_DROP_DUPLICATE,      /* this sequence was already accepted */
    TEMPO_DROP_STALE,          /* older than the replay window */
    /* fragments (wire/fragment.h) */
    TEMPO_DROP_FRAG_BAD,       /* count, index, size or type inconsistent */
    TEMPO_DROP_FRAG_DUPLICATE, /* a fragment index already held */
    TEMPO_DROP_FRAG_BUSY,      /* every reassembly slot holds a newer message */
    /* seal (wire/seal.h) */
    TEMPO_DROP_FORGED,         /* sealed, but the tag does not verify under the receiver's key */
    /* the receiver (net/receive.h) */
    TEMPO_DROP_UNKNOWN,        /* from an address that is none of the receiver's */
    TEMPO_DROP_SESSION,        /* another session id */
    TEMPO_DROP_PLAIN,          /* in the clear, to a receiver whose link seals */
    TEMPO_DROP_CLOSED,         /* its sender's link is closed */
    TEMPO_DROP_HELD,           /* a sequence far ahead of its sender's: held, its body unused */
    TEMPO_DROP_EARLY,          /* before the handshake with its sender completed */
    TEMPO_DROP_REASON_COUNT_
} tempo_drop_reason;

/* Short name of a reason ("truncated"...), static; "unknown" out of range. */
const char *tempo_drop_reason_name(tempo_drop_reason r);

#endif /* TEMPO_WIRE_DROP_H */
