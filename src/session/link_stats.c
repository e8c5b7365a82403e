/* SPDX-License-Identifier: MIT */
/*
 * link_stats.c — a link's numbers as public endpoint statistics
 * (link_stats.h).
 */
#include "session/link_stats.h"

#include <string.h>

void session_link_stats(const net_link *l, tempo_endpoint_stats *out)
{
    memset(out, 0, sizeof *out);
    out->interrupted = l->interrupted;
    out->rtt_ms = (double)link_rtt_us(l) / 1000.0;
    out->jitter_ms = (double)link_rttvar_us(l) / 1000.0;
    out->arrival_jitter_ms = (double)link_jitter_us(l) / 1000.0;
    out->loss = link_loss_in(l);
    out->packets_sent = l->packets_sent;
    out->packets_received = l->packets_received;
    out->bytes_sent = l->bytes_sent;
    out->bytes_received = l->bytes_received;
    out->send_bytes_per_s = l->send_rate;
    out->held_jumps = l->seq_jumps;
}
