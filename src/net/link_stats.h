/* SPDX-License-Identifier: MIT */
/*
 * link_stats.h — one link's numbers as the public statistics show them,
 * computed in one place for every role that keeps links: the client (its
 * server), the server (each client), the relay (each member) and the
 * sessions (each peer, spectator or relay). Each role copies into its own
 * public record the numbers it names there.
 *
 * Two numbers answer to "jitter", named apart here: the deviation of the
 * round trip (rttvar_ms, what tempo_endpoint_stats.jitter_ms shows) and
 * the interarrival jitter of RFC 3550 (arrival_jitter_ms, what
 * tempo_endpoint_stats.arrival_jitter_ms and the client-server records'
 * jitter_ms show). A simulated link's jitter (tempo_link_params.jitter_us)
 * is a third thing: the standard deviation of its delays.
 * Internal: not installed.
 */
#ifndef TEMPO_NET_LINK_STATS_H
#define TEMPO_NET_LINK_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "net/link.h"

typedef struct net_link_stats {
    bool interrupted;          /* silent for the link's notify time */
    double rtt_ms;             /* smoothed round trip (RFC 6298); 0 before a sample */
    double rttvar_ms;          /* its smoothed mean deviation */
    double arrival_jitter_ms;  /* interarrival jitter (RFC 3550), from stamped arrivals */
    double loss_in;            /* its datagrams lost on the way to us, last closed window */
    uint64_t packets_sent, packets_received;
    uint64_t bytes_sent, bytes_received;
    double send_bytes_per_s;   /* what we send it, last closed window */
    uint64_t held_jumps;       /* datagrams far ahead of its sequence, held unused */
} net_link_stats;

/* The numbers of link l now. */
net_link_stats link_stats(const net_link *l);

#endif /* TEMPO_NET_LINK_STATS_H */
