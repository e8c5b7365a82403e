/*
 * endpoint.c — link bookkeeping for one remote machine (see endpoint.h).
 *
 * Loss is measured inbound, from gaps in the sender's 16-bit sequence
 * numbers, over one-second windows. RTT and jitter follow RFC 6298's
 * smoothing (alpha 1/8, beta 1/4). The send rate is counted over one-second
 * windows as well. None of this reads a clock.
 */
#include "net/endpoint.h"

#include <string.h>

void endpoint_init(tempo_endpoint *e, const tempo_address *addr, endpoint_role role,
                   uint32_t players)
{
    memset(e, 0, sizeof *e);
    e->addr = *addr;
    e->role = role;
    e->players = players;
    e->remote_lag = 0;
    e->sent_ack = -1;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        e->mesh_rtt_ms[p] = 0xFFFF;
}

void endpoint_on_receive(tempo_endpoint *e, uint64_t now, uint16_t seq, size_t bytes)
{
    e->heard = true;
    e->last_recv_us = now;
    e->packets_received++;
    e->bytes_received += bytes;
    if (!e->seq_started) {
        e->seq_started = true;
        e->seq_max = seq;
        e->window_first = seq;
        e->window_start_us = now;
        e->window_received = 1;
        e->fresh = true;
        return;
    }
    /* Unwrap against the newest seen. A jump of more than
     * ENDPOINT_SEQ_JUMP is no real peer's (it sends at most about 70
     * datagrams before a timeout drops it): such a datagram is used, but it
     * does not become the newest, so it cannot make every later one look
     * stale. */
    int16_t delta = (int16_t)(uint16_t)(seq - (uint16_t)e->seq_max);
    e->fresh = delta > 0 && delta <= ENDPOINT_SEQ_JUMP;
    if (e->fresh)
        e->seq_max += (uint32_t)delta;
    e->window_received++;
}

uint16_t endpoint_next_seq(tempo_endpoint *e)
{
    return e->send_seq++;
}

void endpoint_on_send(tempo_endpoint *e, uint64_t now, size_t bytes)
{
    e->last_send_us = now;
    e->packets_sent++;
    e->bytes_sent += bytes;
    e->rate_bytes += bytes;
}

void endpoint_rtt_sample(tempo_endpoint *e, uint64_t rtt_us)
{
    double r = (double)rtt_us;
    if (!e->has_rtt) {
        e->has_rtt = true;
        e->srtt_us = r;
        e->rttvar_us = r / 2;
        return;
    }
    double err = r - e->srtt_us;
    e->rttvar_us += ((err < 0 ? -err : err) - e->rttvar_us) / 4;
    e->srtt_us += err / 8;
}

void endpoint_update(tempo_endpoint *e, uint64_t now)
{
    if (e->seq_started && now - e->window_start_us >= ENDPOINT_LOSS_WINDOW_US) {
        uint32_t expected = e->seq_max - e->window_first + 1;
        if (expected > 0) {
            double got = (double)e->window_received / (double)expected;
            e->loss = got >= 1.0 ? 0.0 : 1.0 - got;
        }
        e->window_start_us = now;
        e->window_first = e->seq_max + 1;
        e->window_received = 0;
    }
    if (now - e->rate_start_us >= 1000000u) {
        double secs = (double)(now - e->rate_start_us) / 1e6;
        e->send_rate = e->rate_start_us ? (double)e->rate_bytes / secs : 0.0;
        e->rate_start_us = now;
        e->rate_bytes = 0;
    }
}

uint64_t endpoint_silence(const tempo_endpoint *e, uint64_t now, uint64_t start)
{
    uint64_t since = e->heard ? e->last_recv_us : start;
    return now > since ? now - since : 0;
}

bool endpoint_may_send(const tempo_endpoint *e, uint64_t now, uint64_t start)
{
    if (endpoint_silence(e, now, start) < ENDPOINT_QUIET_US)
        return true;
    return e->packets_sent == 0 || now - e->last_send_us >= ENDPOINT_QUIET_SEND_US;
}
