/*
 * endpoint.h — one remote machine as a session sees it: a peer hosting
 * players, a spectator we feed, or (on a spectator session) the host.
 *
 * It owns what can be said about the link without knowing the game: the
 * handshake's progress, when we last heard from it and sent to it, the
 * sequence numbers it used (for loss), round trips (for RTT and jitter), the
 * bytes we sent (for a recent rate), and what it last told us about inputs:
 * the next frame of ours it wants and its own current frame. Every function
 * takes the time as an argument.
 */
#ifndef TEMPO_NET_ENDPOINT_H
#define TEMPO_NET_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/common.h"
#include "tempo/transport.h"

#define ENDPOINT_SYNC_ROUNDS 5       /* handshake round trips before synchronized */
#define ENDPOINT_SYNC_RETRY_US 200000u /* resend an unanswered SYNC_REQUEST */
#define ENDPOINT_PING_US 500000u     /* PING period once synchronized */
#define ENDPOINT_QUIET_US 1000000u   /* silent this long: throttle sends to it */
#define ENDPOINT_QUIET_SEND_US 250000u /* ...to 4 datagrams a second (INVERSUS) */
#define ENDPOINT_LOSS_WINDOW_US 1000000u
#define ENDPOINT_NONCES 8            /* SYNC_REQUESTs awaiting an answer */
#define ENDPOINT_SEQ_JUMP 1024       /* largest believable step in a peer's sequence */

typedef enum endpoint_role {
    ENDPOINT_PEER = 1,      /* hosts players */
    ENDPOINT_SPECTATOR = 2, /* watches us */
    ENDPOINT_HOST = 3       /* we watch it */
} endpoint_role;

typedef struct tempo_endpoint {
    tempo_address addr;
    endpoint_role role;
    uint32_t players;          /* players it hosts */

    /* handshake */
    int sync_rounds;           /* round trips completed */
    bool synchronized;
    bool remote_ready;         /* it says it is synchronized with everyone */
    uint64_t ready_heard_us;   /* when we learned that */
    uint16_t mesh_rtt_ms[TEMPO_MAX_PLAYERS]; /* its round trips to each player's machine */
    /* Outstanding SYNC_REQUESTs: a reply to any of them counts, so a round
     * trip longer than the retry period still completes the handshake. */
    uint32_t nonces[ENDPOINT_NONCES]; /* 0: free */
    uint64_t nonce_sent_us[ENDPOINT_NONCES];
    uint64_t sync_sent_us;     /* newest request */

    /* liveness */
    bool heard;                /* anything received at all */
    uint64_t last_recv_us, last_send_us;
    bool interrupted, disconnected;

    /* sequence numbers, for inbound loss */
    uint16_t send_seq;
    bool seq_started;
    uint32_t seq_max;          /* highest sequence seen, unwrapped */
    uint64_t window_start_us;
    uint32_t window_first;     /* seq_max when the window started */
    uint32_t window_received;
    double loss;
    bool fresh;                /* the datagram just received is the newest so far */

    /* round trips */
    bool has_rtt;
    double srtt_us, rttvar_us;
    uint64_t next_ping_us;

    /* sending rate */
    uint64_t rate_start_us;
    uint64_t rate_bytes;
    double send_rate;          /* bytes per second over the last full window */

    /* inputs */
    int32_t remote_ack;        /* next frame of ours it wants */
    int32_t remote_frame;      /* its current frame, as last said */
    int32_t remote_lag;        /* frames of ours it was predicting, as last said */
    int32_t sent_ack;          /* the ack we last sent it */

    /* our checksums to it, resent until acknowledged (0: no frame yet) */
    int32_t sum_acked;         /* it holds every check frame of ours up to this */
    int32_t sum_next;          /* next check frame of ours to send it */
    int32_t sum_sent_max;      /* newest check frame of ours ever sent to it */
    uint64_t sum_timer_us;     /* when the oldest unacknowledged one was last sent */

    /* disconnect gossip it sent us */
    uint8_t gossip_mask;
    int32_t gossip_have[TEMPO_MAX_PLAYERS];

    uint64_t packets_sent, packets_received, bytes_sent, bytes_received;
} tempo_endpoint;

void endpoint_init(tempo_endpoint *e, const tempo_address *addr, endpoint_role role,
                   uint32_t players);

/* A datagram with sequence `seq` arrived at `now`. */
void endpoint_on_receive(tempo_endpoint *e, uint64_t now, uint16_t seq, size_t bytes);
/* We sent a datagram of `bytes`; returns the sequence number to put on it. */
uint16_t endpoint_next_seq(tempo_endpoint *e);
void endpoint_on_send(tempo_endpoint *e, uint64_t now, size_t bytes);
/* A round trip of `rtt_us` was measured (RFC 6298 smoothing). */
void endpoint_rtt_sample(tempo_endpoint *e, uint64_t rtt_us);
/* Roll the loss and rate windows forward to `now`. */
void endpoint_update(tempo_endpoint *e, uint64_t now);

/* Microseconds since we last heard from it (since `start` if never). */
uint64_t endpoint_silence(const tempo_endpoint *e, uint64_t now, uint64_t start);
/* True if a datagram may go to it now: always, unless it has been silent for
 * ENDPOINT_QUIET_US, then at most one per ENDPOINT_QUIET_SEND_US. */
bool endpoint_may_send(const tempo_endpoint *e, uint64_t now, uint64_t start);


#endif /* TEMPO_NET_ENDPOINT_H */
