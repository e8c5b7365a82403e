/* SPDX-License-Identifier: MIT */
/*
 * simnet.h — a seeded, simulated network in virtual time.
 *
 * Every node gets a tempo_transport. Datagrams cross links whose behaviour is
 * set per direction: latency, jitter (with bursts), random and bursty loss
 * (Gilbert–Elliott), duplication, reordering, a bandwidth cap with a queue,
 * and blackout windows. The caller moves time forward with
 * tempo_simnet_set_time; nothing reads a clock. The same seed and the same
 * calls give the same deliveries, bit for bit.
 */
#ifndef TEMPO_SIMNET_H
#define TEMPO_SIMNET_H

#include "tempo/base.h"
#include "tempo/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How one direction of a link behaves. Zero everywhere is a perfect link
 * with no latency. Probabilities are 0..1. */
typedef struct tempo_link_params {
    uint32_t latency_us;      /* one-way base latency */
    uint32_t jitter_us;       /* standard deviation of the per-packet jitter */
    /* Jitter bursts: a two-state (calm/spike) Markov chain stepped per packet;
     * in the spike state each packet gets an extra delay uniform in
     * [0, spike_us]. */
    double spike_enter;       /* P(calm -> spike) per packet */
    double spike_exit;        /* P(spike -> calm) per packet */
    uint32_t spike_us;
    double loss;              /* independent loss probability (good state) */
    /* Gilbert–Elliott bursty loss: a good/bad chain stepped per packet; in the
     * bad state packets are lost with probability burst_loss. */
    double burst_enter;       /* P(good -> bad) per packet */
    double burst_exit;        /* P(bad -> good) per packet */
    double burst_loss;
    double duplicate;         /* probability a packet is delivered twice */
    double reorder;           /* probability a packet may overtake or be overtaken */
    uint32_t reorder_us;      /* extra delay range for reordered packets */
    uint32_t bandwidth_bps;   /* bits per second, 0 = unlimited */
    uint32_t queue_bytes;     /* bytes the bandwidth queue holds; overflow drops (0 = 64 KiB) */
} tempo_link_params;

/* Fill *out with a named profile: "perfect", "lan", "broadband", "continental",
 * "transatlantic", "mobile", "terrible" (latencies are one way; see
 * docs/SIMNET.md for every number). Returns TEMPO_OK or TEMPO_E_INVALID_ARG
 * for an unknown name. */
TEMPO_API tempo_result tempo_link_profile(const char *name, tempo_link_params *out);
/* The profile names, NULL-terminated, static. */
TEMPO_API const char *const *tempo_link_profile_names(void);

typedef struct tempo_simnet tempo_simnet;

typedef struct tempo_simnet_config {
    uint64_t seed;
    int max_nodes;            /* default 32, at most 1024; the links of every pair
                                 (max_nodes squared records of about 250 bytes)
                                 are allocated at create */
    int max_in_flight;        /* datagrams held at once (sent, not yet received),
                                 default 16384, at most 262144; each takes a
                                 TEMPO_MAX_DATAGRAM buffer allocated at create */
    tempo_link_params default_link; /* links not set explicitly; default perfect */
    tempo_allocator allocator;
} tempo_simnet_config;

/* Defaults: seed 1, 32 nodes, 16384 datagrams in flight, perfect links,
 * malloc. */
TEMPO_API void tempo_simnet_config_default(tempo_simnet_config *cfg);

/* Create a simulated network at time 0. Errors: TEMPO_E_INVALID_ARG (a limit
 * out of range, a probability outside 0..1 in default_link),
 * TEMPO_E_NO_MEMORY. Free with tempo_simnet_destroy. NULL is allowed there.
 *
 * Node transports: send to an address that is no node returns
 * TEMPO_E_ADDRESS; a datagram dropped by the link (loss, blackout, full queue
 * or full pool) still returns 0, as UDP would, and is counted. recv returns
 * the earliest delivered datagram for that node (ties in send order). */
TEMPO_API tempo_result tempo_simnet_create(const tempo_simnet_config *cfg, tempo_simnet **out);
TEMPO_API void tempo_simnet_destroy(tempo_simnet *net);

/* Add a node at addr and give its transport (valid for the net's life).
 * Errors: TEMPO_E_FULL, TEMPO_E_ALREADY (address taken), TEMPO_E_INVALID_ARG. */
TEMPO_API tempo_result tempo_simnet_add_node(tempo_simnet *net, const tempo_address *addr,
                                             tempo_transport *out);

/* Set the behaviour of the direction from -> to (both must be nodes). The
 * link keeps its counters, random stream and queue.
 * Errors: TEMPO_E_ADDRESS (not a node), TEMPO_E_INVALID_ARG (NULL, a
 * probability outside 0..1). */
TEMPO_API tempo_result tempo_simnet_set_link(tempo_simnet *net, const tempo_address *from,
                                             const tempo_address *to, const tempo_link_params *p);

/* Drop everything sent from -> to during [start_us, end_us). from or to may
 * be NULL for "any node". Up to 64 windows. Errors: TEMPO_E_FULL,
 * TEMPO_E_ADDRESS (not a node), TEMPO_E_INVALID_ARG (end_us < start_us). */
TEMPO_API tempo_result tempo_simnet_add_blackout(tempo_simnet *net, const tempo_address *from,
                                                 const tempo_address *to, uint64_t start_us,
                                                 uint64_t end_us);

/* Hand the node at `to` a datagram that claims to come from `from`, which
 * may be any address (a node's, to forge it, or none's): it crosses no link
 * (no latency, loss or blackout, no link counters) and is receivable at
 * the current time, after every datagram already receivable. For hostile
 * traffic in tests and tools. The bytes are copied.
 * Errors: TEMPO_E_INVALID_ARG (NULL, size 0 or above TEMPO_MAX_DATAGRAM, a
 * `from` of family NONE), TEMPO_E_ADDRESS (`to` is not a node),
 * TEMPO_E_FULL (max_in_flight datagrams are held: nothing is injected). */
TEMPO_API tempo_result tempo_simnet_inject(tempo_simnet *net, const tempo_address *from,
                                           const tempo_address *to, const uint8_t *data,
                                           size_t size);

/* Move virtual time forward (never back: an earlier time is ignored).
 * Datagrams whose delivery time has come become receivable. */
TEMPO_API void tempo_simnet_set_time(tempo_simnet *net, uint64_t now_us);
TEMPO_API uint64_t tempo_simnet_time(const tempo_simnet *net);

typedef struct tempo_link_stats {
    uint64_t sent, delivered, lost, duplicated, reordered, queue_dropped, blackout_dropped;
    uint64_t bytes_sent, bytes_delivered;
    uint64_t latency_us_sum;     /* over delivered datagrams */
    uint64_t latency_us_sq_sum;  /* for the standard deviation */
    uint64_t pool_dropped;       /* dropped because max_in_flight were held */
} tempo_link_stats;

/* sent counts datagrams handed to the link; each is then lost, blackout_,
 * queue_ or pool_dropped, or delivered (twice when duplicated: delivered and
 * the latency sums count both copies). reordered counts deliveries that came
 * after a datagram sent later on the same link. */

/* Counters of the direction from -> to. Errors: TEMPO_E_ADDRESS. */
TEMPO_API tempo_result tempo_simnet_link_stats(const tempo_simnet *net, const tempo_address *from,
                                               const tempo_address *to, tempo_link_stats *out);

/* A running 64-bit hash of every delivery (time, link, bytes): two runs with
 * the same seed and calls have the same value. */
TEMPO_API uint64_t tempo_simnet_trace_hash(const tempo_simnet *net);

/* When the next datagram becomes receivable: returns 1 and sets *at_us (a
 * time <= tempo_simnet_time when one is already waiting), or 0 when nothing
 * is in flight. For callers that sleep until then (tempo-netem). Errors:
 * TEMPO_E_INVALID_ARG. */
TEMPO_API int tempo_simnet_next_delivery(const tempo_simnet *net, uint64_t *at_us);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_SIMNET_H */
