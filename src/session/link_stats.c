/* SPDX-License-Identifier: MIT */
/*
 * link_stats.c — a link's numbers as public endpoint statistics
 * (link_stats.h).
 */
#include "session/link_stats.h"

#include <string.h>

#include "net/link_stats.h"

void session_link_stats(const net_link *l, tempo_endpoint_stats *out)
{
    const net_link_stats ls = link_stats(l);
    memset(out, 0, sizeof *out);
    out->interrupted = ls.interrupted;
    out->rtt_ms = ls.rtt_ms;
    out->jitter_ms = ls.rttvar_ms;
    out->arrival_jitter_ms = ls.arrival_jitter_ms;
    out->loss = ls.loss_in;
    out->packets_sent = ls.packets_sent;
    out->packets_received = ls.packets_received;
    out->bytes_sent = ls.bytes_sent;
    out->bytes_received = ls.bytes_received;
    out->send_bytes_per_s = ls.send_bytes_per_s;
    out->held_jumps = ls.held_jumps;
}
