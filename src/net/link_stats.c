/* SPDX-License-Identifier: MIT */
/*
 * link_stats.c — a link's numbers in the units of the public statistics
 * (link_stats.h): times in milliseconds, counts as they stand.
 */
#include "net/link_stats.h"

net_link_stats link_stats(const net_link *l)
{
    net_link_stats s;
    s.interrupted = l->interrupted;
    s.rtt_ms = (double)link_rtt_us(l) / 1000.0;
    s.rttvar_ms = (double)link_rttvar_us(l) / 1000.0;
    s.arrival_jitter_ms = (double)link_jitter_us(l) / 1000.0;
    s.loss_in = link_loss_in(l);
    s.packets_sent = l->packets_sent;
    s.packets_received = l->packets_received;
    s.bytes_sent = l->bytes_sent;
    s.bytes_received = l->bytes_received;
    s.send_bytes_per_s = l->send_rate;
    s.held_jumps = l->seq_jumps;
    return s;
}
