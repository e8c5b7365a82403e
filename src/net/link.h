/* SPDX-License-Identifier: MIT */
/*
 * link.h — what we know about one remote machine, whatever its role: the
 * sequences on datagrams both ways and which of ours it acknowledged, round
 * trip time and jitter, loss both ways, liveness, the quiet-time throttle,
 * the send rate and the handshake (handshake.h). It knows nothing of
 * players, frames or game messages: a session, relay or server keeps those
 * in its own struct beside a link.
 *
 * A link is a plain struct the caller embeds; it never allocates, sends,
 * decodes or reads a clock. The caller drives it with the time in
 * microseconds and asks it what to do:
 *
 *   sending     seq = link_next_seq(l); ack = link_ack_out(l, ...);
 *               build and send the datagram; link_on_sent(l, now, bytes)
 *   receiving   recover the full 64-bit sequence from the wire's low bits
 *               (outside the link), then link_on_datagram(l, now, seq, bytes)
 *               and link_on_ack(l, now, ack, bits) with the ack it carries
 *   each tick   link_update(l, now) for liveness events and the windows;
 *               link_handshake_due / link_ping_due say what to send
 *
 * Times passed in never go back (a step back is taken as no time). Every
 * value that came from the network is checked: a wrong one is counted and
 * ignored, never trusted.
 */
#ifndef TEMPO_NET_LINK_H
#define TEMPO_NET_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/handshake.h"

#define LINK_SENT_RING 128   /* our datagrams remembered until acked or judged lost */
#define LINK_ACK_BITS 32     /* sequences before the ack an ack field covers */
#define LINK_RECV_HISTORY 64 /* sequences before the newest we can tell duplicates in */
#define LINK_PINGS 4         /* pings awaiting a pong at once */

typedef struct link_config {
    uint64_t notify_us;            /* silence before INTERRUPTED */
    uint64_t timeout_us;           /* silence before TIMED_OUT */
    uint64_t quiet_us;             /* silence before the throttle starts */
    uint64_t quiet_send_us;        /* while throttled, one datagram per this */
    uint64_t ping_us;              /* ping period once established */
    uint64_t window_us;            /* loss and rate windows */
    uint64_t seq_jump;             /* largest believable step ahead in its sequence */
    bool rtt_from_acks;            /* acked datagrams give RTT samples too */
    int handshake_rounds;          /* replies that complete the handshake */
    uint64_t handshake_retry_us;   /* an unanswered request goes again after this */
    uint64_t handshake_timeout_us; /* give up if not complete by then; 0: never */
    uint32_t config_hash;          /* what the remote's must equal */
} link_config;

/* Events link_update reports, as bits. */
enum {
    LINK_EV_INTERRUPTED = 1u << 0,      /* silent for notify_us */
    LINK_EV_RESUMED = 1u << 1,          /* heard again after INTERRUPTED */
    LINK_EV_TIMED_OUT = 1u << 2,        /* silent for timeout_us: the link is closed */
    LINK_EV_HANDSHAKE_FAILED = 1u << 3  /* not complete by handshake_timeout_us: closed */
};

/* What link_on_datagram made of a sequence. */
typedef enum link_rx {
    LINK_RX_CLOSED = -1,  /* the link is closed: nothing recorded */
    LINK_RX_NEWEST = 0,   /* newer than any before: state it carries is current */
    LINK_RX_LATE = 1,     /* older than the newest, first copy */
    LINK_RX_DUPLICATE = 2,/* a copy of one already received */
    LINK_RX_TOO_OLD = 3,  /* older than LINK_RECV_HISTORY: cannot tell if a copy */
    LINK_RX_JUMP = 4      /* implausibly far ahead: held, not to be used, until a neighbour
                           * confirms it after the remote's silence in its old range */
} link_rx;

typedef enum link_state {
    LINK_HANDSHAKING = 0,
    LINK_ESTABLISHED = 1,
    LINK_CLOSED = 2
} link_state;

struct net_link {
    link_config cfg;
    link_state state;
    uint64_t start_us;          /* silence and the handshake timeout count from here */
    uint64_t epoch_us;          /* RTT samples from measurements begun earlier are dropped */
    link_handshake hs;

    /* liveness */
    bool heard;
    bool interrupted;
    bool resumed_pending;       /* heard while interrupted; reported by link_update */
    uint64_t last_recv_us;
    uint64_t newest_us;         /* when its newest sequence last moved on */
    uint64_t leap_us;           /* our own pause not counted as its silence, unless ... */
    uint64_t leap_at_us;        /* ... nothing of its comes within notify_us after */
    uint64_t unheard_us;        /* pauses of ours it was silent through, added to its silence */
    uint64_t last_send_us;

    /* our sequences and the remote's acks of them */
    uint64_t send_seq;          /* the sequence the next datagram carries */
    bool acked_any;
    uint32_t acked_seen;        /* bit i: an ack already named acked_max - 1 - i */
    uint64_t acked_max;         /* newest sequence of ours it acknowledged */
    uint64_t judge_next;        /* our oldest datagram not yet judged acked or lost */

    /* its sequences */
    bool recv_any;
    uint64_t recv_max;          /* newest sequence received */
    uint64_t recv_bits;         /* bit i: recv_max - 1 - i was received */
    bool expect_any;
    uint64_t expect_first;      /* with expect_any: its first sequence, before any came */
    bool jump_pending;
    uint64_t jump_seq;          /* a far-ahead sequence awaiting a neighbour to confirm it */
    bool jump_confirmed;        /* the last datagram confirmed jump_seq: both are now accepted */

    /* round trips, RFC 6298 in Jacobson's scaled integers */
    bool has_rtt;
    int64_t srtt8;              /* 8 * SRTT, us */
    int64_t rttvar4;            /* 4 * RTTVAR, us */
    uint64_t rtt_samples;
    /* interarrival jitter, RFC 3550 6.4.1 and A.8 */
    bool has_transit;
    int64_t last_transit;       /* arrival minus the sender's stamp, us */
    int64_t jitter16;           /* 16 * J, us */

    /* pings */
    uint64_t next_ping_us;
    uint32_t ping_id_next;
    uint32_t ping_id[LINK_PINGS];       /* 0: a free slot */
    uint64_t ping_sent_us[LINK_PINGS];

    /* windows: inbound loss from gaps, outbound loss from acks, rates */
    uint64_t window_start_us;
    uint64_t in_first;          /* first sequence the inbound window expects */
    uint64_t in_received, out_acked, out_lost;   /* in the current window */
    uint64_t bytes_window_sent, bytes_window_recv;
    bool has_window;            /* one full window closed */
    uint64_t last_in_expected, last_in_received; /* the last closed window */
    uint64_t last_out_judged, last_out_lost;
    double send_rate, recv_rate;   /* bytes per second, the last closed window */

    /* totals */
    uint64_t packets_sent, packets_received, bytes_sent, bytes_received;
    uint64_t acked_total, lost_total;  /* our datagrams judged */
    uint64_t duplicates, too_old, seq_jumps;
    uint64_t acks_invalid;      /* acks of sequences we never sent */
    uint64_t acks_stale;        /* acks behind one already taken (link_on_ack_low) */
    uint64_t ack_rtt_samples;   /* RTT samples that came from acks */
    uint64_t pongs_ignored;     /* pongs matching no outstanding ping */

    /* Our datagrams judge_next .. send_seq - 1 (at most LINK_SENT_RING),
     * by seq % LINK_SENT_RING: when each went and its state (LINK_SENT_*
     * in link.c). A slot's sequence is the one in that range with its
     * residue (link.c), so it is not stored; last in the struct, so the
     * fields above, which every datagram touches, share fewer cache
     * lines. */
    uint64_t sent_us[LINK_SENT_RING];
    uint8_t sent_state[LINK_SENT_RING];
};

/* Defaults: notify 500 ms, timeout 3 s, throttle after 1 s of silence to 4
 * datagrams a second (INVERSUS), ping every 500 ms, 1 s windows, a jump of
 * 1024, RTT from acks on, 5 handshake rounds retried every 200 ms, no
 * handshake timeout, hash 0. */
void link_config_default(link_config *cfg);
/* Start a link at `now`, handshaking. cfg is copied. */
void link_init(net_link *l, const link_config *cfg, uint64_t now);

/* ---- datagrams ----------------------------------------------------------- */

/* The sequence the next datagram we send will carry. */
uint64_t link_next_seq(const net_link *l);
/* The next datagram carries `seq` (from a fresh link only): a link that
 * goes on numbering where another one under the same keys stopped. */
void link_start_at(net_link *l, uint64_t seq);
/* A datagram of `bytes` carrying link_next_seq went out at `now`. Returns its
 * sequence; the next one follows. */
uint64_t link_on_sent(net_link *l, uint64_t now, size_t bytes);
/* A datagram with the full sequence `seq` came at `now`. */
link_rx link_on_datagram(net_link *l, uint64_t now, uint64_t seq, size_t bytes);
/* True if link_on_datagram would hold `seq` at `now` as a jump (or a copy
 * of the held one): more than cfg.seq_jump past the newest, and not a
 * neighbour confirming the held one after notify_us of silence. Changes
 * nothing. */
bool link_would_hold(const net_link *l, uint64_t now, uint64_t seq);
/* The remote's sequences start at `first` (not yet received): before any
 * datagram came, a step ahead of `first` is judged as one ahead of the
 * newest, so the first datagram taken cannot be a stranger's far ahead. */
void link_expect_first(net_link *l, uint64_t first);
/* The ack to put on a datagram: the newest sequence received and bit i for
 * ack - 1 - i. False before anything was received. */
bool link_ack_out(const net_link *l, uint64_t *ack, uint32_t *bits);
/* The remote acknowledged `ack` and the sequences bits name. False (and
 * counted in acks_invalid) if it names a sequence we never sent. */
bool link_on_ack(net_link *l, uint64_t now, uint64_t ack, uint32_t bits);
/* An ack as the wire carries it: the low `width` bits (1..32) of the
 * remote's newest sequence of ours, taken from a datagram newer than any
 * before it (so acks never go back). It is recovered as the newest
 * sequence we sent with those low bits, then taken as link_on_ack does;
 * `delay_us` is how long the remote held it before its datagram went
 * (link_ack_delay_us), taken off the round trip (a delay longer than the
 * round trip gives no sample; UINT64_MAX: none). False, and counted, if
 * it cannot be ours: before our first datagram or none sent
 * (acks_invalid), or behind an ack already taken (acks_stale: the remote's
 * newest never goes back, so only a forgery or one aliased by 2^width of
 * our datagrams lost in a row can). */
bool link_on_ack_low(net_link *l, uint64_t now, uint32_t low, unsigned width, uint32_t bits,
                     uint64_t delay_us);
/* How long ago its newest sequence came (what an ack sent now has waited),
 * 0 before any. */
uint64_t link_ack_delay_us(const net_link *l, uint64_t now);

/* ---- time ---------------------------------------------------------------- */

/* Liveness, the handshake timeout and the windows at `now`: LINK_EV_* bits. */
unsigned link_update(net_link *l, uint64_t now);
/* True if a datagram may go now: always, unless it has been silent for
 * quiet_us; then at most one per quiet_send_us. */
bool link_may_send(const net_link *l, uint64_t now);
/* Microseconds since we last heard from it (since the start if never),
 * our own pauses it was silent through included (link_on_clock_jump). */
uint64_t link_silence_us(const net_link *l, uint64_t now);
/* Microseconds since its sequence last moved on (since the start if
 * never): copies and stragglers behind the newest do not count. */
uint64_t link_stalled_us(const net_link *l, uint64_t now);
/* Our clock leapt (the caller paused): measurements begun before `now` give
 * no round trip. `unseen_us`: the pause, which the caller's clock did not
 * count as time. If the network carried the remote on meanwhile, its
 * datagrams were waiting for us and come within notify_us; if nothing of
 * its comes by then, it was silent through our pause as well, and the
 * pause is added to its silence. */
void link_on_clock_jump(net_link *l, uint64_t now, uint64_t unseen_us);
/* Close the link (the remote said it leaves). Later datagrams are ignored. */
void link_close(net_link *l);

/* ---- round trips and jitter ----------------------------------------------- */

/* Of n outstanding requests (ids[i] 0: a free slot; sent_us[i] when sent):
 * the slot a new one takes, the first free one, else the oldest, whose
 * answer is not coming back. Pings and handshake nonces both keep theirs so. */
int link_slot_to_reuse(const uint32_t *ids, const uint64_t *sent_us, int n);
/* A ping is due: established, the period passed, the throttle allows. */
bool link_ping_due(const net_link *l, uint64_t now);
/* A ping goes out at `now`: returns the id it carries (never 0). */
uint32_t link_ping_sent(net_link *l, uint64_t now);
/* A pong carrying `id` came: true if it matched an outstanding ping. */
bool link_on_pong(net_link *l, uint64_t now, uint32_t id);
/* A measured round trip (RFC 6298: SRTT and RTTVAR). */
void link_rtt_sample(net_link *l, uint64_t rtt_us);
/* A datagram of a steady stream came at `now` stamped `stamp_us` by its
 * sender (its own clock, or its place in the stream times the period):
 * feeds RFC 3550's interarrival jitter. */
void link_on_stamp(net_link *l, uint64_t now, uint64_t stamp_us);

static inline bool link_has_rtt(const net_link *l) { return l->has_rtt; }
/* Smoothed RTT, its mean deviation, RFC 6298's RTO (SRTT + 4 RTTVAR, no
 * floor), RFC 3550's interarrival jitter; all in us, 0 before a sample. */
uint64_t link_rtt_us(const net_link *l);
uint64_t link_rttvar_us(const net_link *l);
uint64_t link_rto_us(const net_link *l);
uint64_t link_jitter_us(const net_link *l);
/* The RTT as a ping mesh entry: ms, at most 65534, LINK_MESH_UNKNOWN if none. */
uint16_t link_mesh_ms(const net_link *l);

/* ---- loss and rates --------------------------------------------------------- */

/* Fraction of its datagrams lost on the way to us, and of ours on the way to
 * it, over the last closed window; 0 before one closed. */
double link_loss_in(const net_link *l);
double link_loss_out(const net_link *l);

/* The newest sequence it sent that we took (0 before any): the wire's
 * low bits are recovered against it. */
static inline uint64_t link_recv_newest(const net_link *l) { return l->recv_any ? l->recv_max : 0; }

static inline bool link_established(const net_link *l) { return l->state == LINK_ESTABLISHED; }
static inline bool link_closed(const net_link *l) { return l->state == LINK_CLOSED; }

#endif /* TEMPO_NET_LINK_H */
