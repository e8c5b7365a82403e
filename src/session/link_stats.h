/* SPDX-License-Identifier: MIT */
/*
 * link_stats.h — the part of the public endpoint statistics a link knows,
 * shared by every backend that keeps a link per remote machine.
 * Internal: not installed.
 */
#ifndef TEMPO_SESSION_LINK_STATS_H
#define TEMPO_SESSION_LINK_STATS_H

#include "net/link.h"
#include "tempo/session.h"

/* Zero *out, then fill what `l` measured: interrupted, RTT and its
 * deviation, inbound loss, packet and byte counts, the send rate. The
 * backend fills the rest (synchronized, players, frame lags). */
void session_link_stats(const net_link *l, tempo_endpoint_stats *out);

#endif /* TEMPO_SESSION_LINK_STATS_H */
