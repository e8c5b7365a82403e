/* SPDX-License-Identifier: MIT */
/*
 * link.c — one remote machine's link (see link.h); the handshake is in
 * handshake.c.
 *
 * Sequences are 64-bit and never wrap; the wire carries their low bits and
 * recovers the rest before calling here. Invariants:
 * - recv_bits bit i says recv_max - 1 - i arrived, so duplicates are told
 *   apart LINK_RECV_HISTORY sequences back, and the ack we send is recv_max
 *   with the low LINK_ACK_BITS of recv_bits (reliable.io puts an ack and 32
 *   bits on every packet header; here bit 0 is the sequence before the ack,
 *   so 33 sequences are covered).
 * - each of our datagrams is judged once, acked or lost: lost when the
 *   remote's newest ack has moved more than LINK_ACK_BITS past it without
 *   naming it (no later ack can), or when its ring slot is needed again.
 *   judge_next >= send_seq - LINK_SENT_RING, so judging is bounded.
 *   acked_seen remembers which sequences the acks up to acked_max named,
 *   so each ack marks only what it adds (usually nothing, or its newest).
 * - a step ahead of more than cfg.seq_jump in the remote's sequence is held
 *   (not used, no liveness) and does not become the newest, so one corrupt,
 *   stray or spoofed datagram cannot make every later one look old. The
 *   link follows only when the remote really moved on (a long outage): a
 *   second datagram just after the held one, while the remote has been
 *   silent in its old range for notify_us. A remote that keeps speaking in
 *   its range has not moved on, so two neighbours far ahead sent by someone
 *   else (an off-path spoofer of an unsealed link) are held too. Held, not
 *   used: a replay window cannot record a sequence that far ahead, so a
 *   held datagram replaced by another could otherwise be used again each
 *   time a copy of it came back.
 *
 * Round trips follow RFC 6298 section 2 (alpha 1/8, beta 1/4; the first
 * sample R sets SRTT = R and RTTVAR = R/2), kept as 8*SRTT and 4*RTTVAR in
 * integer microseconds as Jacobson's 1988 code does, so results are exact and
 * the same everywhere. Samples come from pongs, handshake replies and, if
 * cfg.rtt_from_acks, from the first ack of the datagram an ack names as its
 * newest (as reliable.io measures RTT from acked packets); such a sample also
 * holds the remote's wait until its next send, so a caller whose remote sends
 * rarely turns it off. Jitter is RFC 3550's interarrival estimator (6.4.1,
 * A.8): J += (|D| - J) / 16 over the change D in transit time between
 * consecutive stamped datagrams, kept as 16*J.
 *
 * Loss is counted over windows of cfg.window_us closed by link_update:
 * inbound from the gaps in the remote's sequences (first copies received
 * against the span of sequences the window saw), outbound from our
 * datagrams judged in the window.
 */
#include "net/link.h"

#include <string.h>

#include "base/common.h"

enum { LINK_SENT_EMPTY = 0, LINK_SENT_PENDING = 1, LINK_SENT_ACKED = 2, LINK_SENT_JUDGED = 3 };

#define LINK_MAX_RTT_US 60000000u /* a longer "round trip" is no measurement */
#define LINK_MAX_TRANSIT_STEP_US 60000000 /* |D| beyond this is clamped */

void link_config_default(link_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->notify_us = 500000u;
    cfg->timeout_us = 3000000u;
    cfg->quiet_us = 1000000u;
    cfg->quiet_send_us = 250000u;
    cfg->ping_us = 500000u;
    cfg->window_us = 1000000u;
    cfg->seq_jump = 1024u;
    cfg->rtt_from_acks = true;
    cfg->handshake_rounds = 5;
    cfg->handshake_retry_us = 200000u;
    cfg->handshake_timeout_us = 0;
    cfg->config_hash = 0;
}

void link_init(net_link *l, const link_config *cfg, uint64_t now)
{
    TEMPO_ASSERT(cfg->handshake_rounds >= 1);
    TEMPO_ASSERT(cfg->timeout_us >= cfg->notify_us);
    TEMPO_ASSERT(cfg->window_us > 0);
    memset(l, 0, sizeof *l);
    l->cfg = *cfg;
    l->state = LINK_HANDSHAKING;
    l->start_us = now;
    l->window_start_us = now;
    l->ping_id_next = 1;
    for (int i = 0; i < LINK_MESH_MAX; i++)
        l->hs.mesh_ms[i] = LINK_MESH_UNKNOWN;
}

/* ---- datagrams out and their acks ------------------------------------------- */

uint64_t link_next_seq(const net_link *l) { return l->send_seq; }

void link_start_at(net_link *l, uint64_t seq)
{
    TEMPO_ASSERT(l->packets_sent == 0);
    l->send_seq = seq;
    l->judge_next = seq;
}

/* Only sequences from judge_next to send_seq - 1 are judged or marked, and
 * link_on_sent judges a slot's datagram before the slot is written again
 * (judge_next > seq - LINK_SENT_RING once seq is written). So in that range
 * a slot is either its sequence's or was never written (EMPTY: numbering
 * began past it, send_seq set before the first datagram), and needs no
 * stored sequence to say whose it is. */
static void judge(net_link *l, uint64_t seq)
{
    TEMPO_ASSERT(seq < l->send_seq);
    uint8_t *state = &l->sent_state[seq % LINK_SENT_RING];
    if (*state == LINK_SENT_EMPTY || *state == LINK_SENT_JUDGED)
        return;
    if (*state == LINK_SENT_ACKED) {
        l->out_acked++;
        l->acked_total++;
    } else {
        l->out_lost++;
        l->lost_total++;
    }
    *state = LINK_SENT_JUDGED;
}

uint64_t link_on_sent(net_link *l, uint64_t now, size_t bytes)
{
    uint64_t seq = l->send_seq++;
    /* The slot's previous datagram goes out of memory: judge it now. */
    while (l->judge_next + LINK_SENT_RING <= seq)
        judge(l, l->judge_next++);
    l->sent_us[seq % LINK_SENT_RING] = now;
    l->sent_state[seq % LINK_SENT_RING] = LINK_SENT_PENDING;
    if (now > l->last_send_us)
        l->last_send_us = now;
    l->packets_sent++;
    l->bytes_sent += bytes;
    l->bytes_window_sent += bytes;
    return seq;
}

/* Marks seq acked; true if this is its first ack. */
static bool mark_acked(net_link *l, uint64_t seq)
{
    if (seq < l->judge_next)
        return false;
    TEMPO_ASSERT(seq < l->send_seq);
    uint8_t *state = &l->sent_state[seq % LINK_SENT_RING];
    if (*state != LINK_SENT_PENDING)
        return false;
    *state = LINK_SENT_ACKED;
    return true;
}

/* The acks of ack and the bits; a round trip from ack if it is newly
 * acked, less the remote's delay. */
static bool take_ack(net_link *l, uint64_t now, uint64_t ack, uint32_t bits, uint64_t delay_us)
{
    if (l->state == LINK_CLOSED)
        return false;
    if (ack >= l->send_seq) { /* we never sent it: corrupt or forged */
        l->acks_invalid++;
        return false;
    }
    /* The acks up to acked_max named it and the sequences of acked_seen,
     * and marked them then (a datagram once marked or judged never waits
     * for an ack again). An ack at or after acked_max marks only what it
     * adds: `seen` is what was named, in this ack's bit positions.
     * Consecutive acks mostly repeat each other, so that is usually
     * nothing. */
    uint64_t seen = 0;
    bool newest_seen = false;
    if (l->acked_any && ack >= l->acked_max) {
        uint64_t d = ack - l->acked_max;
        if (d == 0)
            seen = l->acked_seen, newest_seen = true;
        else if (d <= LINK_ACK_BITS)
            seen = ((uint64_t)l->acked_seen << d | 1ull << (d - 1)) & 0xFFFFFFFFu;
    }
    if (!newest_seen && mark_acked(l, ack) && l->cfg.rtt_from_acks) {
        uint64_t sent_us = l->sent_us[ack % LINK_SENT_RING];
        uint64_t rtt = now - sent_us;
        if (sent_us >= l->epoch_us && now >= sent_us && delay_us <= rtt &&
            rtt - delay_us <= LINK_MAX_RTT_US) {
            link_rtt_sample(l, rtt - delay_us);
            l->ack_rtt_samples++;
        }
    }
    uint64_t fresh = bits & ~seen;
    if (ack < LINK_ACK_BITS)
        fresh &= (1ull << ack) - 1u; /* bits before sequence 0 name nothing */
    for (uint64_t i = 0; fresh != 0; i++, fresh >>= 1)
        if (fresh & 1u)
            (void)mark_acked(l, ack - 1 - i);
    if (!l->acked_any || ack >= l->acked_max) {
        l->acked_any = true;
        l->acked_max = ack;
        l->acked_seen = (uint32_t)(bits | seen);
    }
    /* No later ack can name a datagram this far behind the newest. */
    while (l->judge_next + LINK_ACK_BITS < l->acked_max)
        judge(l, l->judge_next++);
    return true;
}

bool link_on_ack(net_link *l, uint64_t now, uint64_t ack, uint32_t bits)
{
    return take_ack(l, now, ack, bits, 0);
}

bool link_on_ack_low(net_link *l, uint64_t now, uint32_t low, unsigned width, uint32_t bits,
                     uint64_t delay_us)
{
    TEMPO_ASSERT(width >= 1 && width <= 32);
    if (l->state == LINK_CLOSED)
        return false;
    uint64_t first = l->send_seq - l->packets_sent; /* our first datagram's sequence */
    if (l->packets_sent == 0) {
        l->acks_invalid++;
        return false;
    }
    uint64_t top = l->send_seq - 1, mask = width == 32 ? 0xFFFFFFFFu : (1ull << width) - 1u;
    uint64_t back = (top - low) & mask; /* how far behind our newest */
    if (back > top - first) {
        l->acks_invalid++;
        return false;
    }
    uint64_t ack = top - back;
    if (l->acked_any && ack < l->acked_max) {
        l->acks_stale++;
        return false;
    }
    return take_ack(l, now, ack, bits, delay_us);
}

uint64_t link_ack_delay_us(const net_link *l, uint64_t now)
{
    return l->recv_any && now > l->newest_us ? now - l->newest_us : 0;
}

/* ---- datagrams in ------------------------------------------------------------- */

static void heard(net_link *l, uint64_t now)
{
    l->heard = true;
    l->leap_us = 0; /* the network carried it on while we were away */
    l->unheard_us = 0;
    if (now > l->last_recv_us)
        l->last_recv_us = now;
    if (l->interrupted) {
        l->interrupted = false;
        l->resumed_pending = true;
    }
}

/* seq, far ahead, confirms the held jump: just after it, and the remote
 * has gone silent in its old range. */
static bool jump_confirmed_by(const net_link *l, uint64_t now, uint64_t seq)
{
    return l->jump_pending && seq > l->jump_seq && seq - l->jump_seq <= LINK_ACK_BITS &&
           link_silence_us(l, now) >= l->cfg.notify_us;
}

/* Where a step ahead counts from: the newest sequence, or before any the
 * one the remote starts at (link_expect_first). False: anything goes. */
static bool jump_base(const net_link *l, uint64_t *base)
{
    if (l->recv_any)
        *base = l->recv_max;
    else if (l->expect_any)
        *base = l->expect_first;
    else
        return false;
    return true;
}

bool link_would_hold(const net_link *l, uint64_t now, uint64_t seq)
{
    uint64_t base;
    return l->state != LINK_CLOSED && jump_base(l, &base) && seq > base &&
           seq - base > l->cfg.seq_jump && !jump_confirmed_by(l, now, seq);
}

void link_expect_first(net_link *l, uint64_t first)
{
    l->expect_any = true;
    l->expect_first = first;
}

static link_rx receive_seq(net_link *l, uint64_t now, uint64_t seq)
{
    l->jump_confirmed = false;
    uint64_t base;
    if (jump_base(l, &base) && seq > base && seq - base > l->cfg.seq_jump) {
        if (l->jump_pending && seq == l->jump_seq)
            return LINK_RX_DUPLICATE; /* the pending jump again: no news */
        if (!jump_confirmed_by(l, now, seq)) {
            l->jump_pending = true;
            l->jump_seq = seq;
            l->seq_jumps++;
            return LINK_RX_JUMP;
        }
        /* Follow the remote past the gap. What the gap held cannot be
         * known, so the inbound window starts again at the jump. */
        l->recv_any = true;
        l->recv_bits = 1ull << (seq - 1 - l->jump_seq);
        l->recv_max = seq;
        l->in_first = l->jump_seq;
        l->in_received = 2;
        l->jump_pending = false;
        l->jump_confirmed = true;
        return LINK_RX_NEWEST;
    }
    if (!l->recv_any) {
        l->recv_any = true;
        l->recv_max = seq;
        l->recv_bits = 0;
        l->in_first = seq;
        l->in_received = 1;
        return LINK_RX_NEWEST;
    }
    if (seq > l->recv_max) {
        uint64_t d = seq - l->recv_max;
        uint64_t shifted = d >= LINK_RECV_HISTORY ? 0 : l->recv_bits << d;
        l->recv_bits = d > LINK_RECV_HISTORY ? 0 : shifted | (1ull << (d - 1));
        l->recv_max = seq;
        l->in_received++;
        return LINK_RX_NEWEST;
    }
    if (seq == l->recv_max) {
        l->duplicates++;
        return LINK_RX_DUPLICATE;
    }
    uint64_t k = l->recv_max - 1 - seq;
    if (k >= LINK_RECV_HISTORY) {
        l->too_old++;
        if (seq >= l->in_first)
            l->in_received++;
        return LINK_RX_TOO_OLD;
    }
    if (l->recv_bits & (1ull << k)) {
        l->duplicates++;
        return LINK_RX_DUPLICATE;
    }
    l->recv_bits |= 1ull << k;
    if (seq >= l->in_first)
        l->in_received++;
    return LINK_RX_LATE;
}

link_rx link_on_datagram(net_link *l, uint64_t now, uint64_t seq, size_t bytes)
{
    if (l->state == LINK_CLOSED)
        return LINK_RX_CLOSED;
    l->packets_received++;
    l->bytes_received += bytes;
    l->bytes_window_recv += bytes;
    link_rx rx = receive_seq(l, now, seq);
    /* A copy proves nothing about the remote being alive now: anyone who
     * saw the datagram can send it again; nor does a held jump, until a
     * neighbour confirms it. */
    if (rx != LINK_RX_DUPLICATE && rx != LINK_RX_JUMP)
        heard(l, now);
    if (rx == LINK_RX_NEWEST && now > l->newest_us)
        l->newest_us = now;
    return rx;
}

bool link_ack_out(const net_link *l, uint64_t *ack, uint32_t *bits)
{
    if (!l->recv_any)
        return false;
    *ack = l->recv_max;
    *bits = (uint32_t)(l->recv_bits & 0xFFFFFFFFu);
    return true;
}

/* ---- time ----------------------------------------------------------------------- */

uint64_t link_silence_us(const net_link *l, uint64_t now)
{
    uint64_t since = l->heard ? l->last_recv_us : l->start_us;
    return (now > since ? now - since : 0) + l->unheard_us;
}

uint64_t link_stalled_us(const net_link *l, uint64_t now)
{
    uint64_t since = l->recv_any ? l->newest_us : l->start_us;
    return now > since ? now - since : 0;
}

bool link_may_send(const net_link *l, uint64_t now)
{
    if (link_silence_us(l, now) < l->cfg.quiet_us)
        return true;
    return l->packets_sent == 0 ||
           (now >= l->last_send_us && now - l->last_send_us >= l->cfg.quiet_send_us);
}

static void close_window(net_link *l, uint64_t now)
{
    uint64_t expected = l->recv_any && l->recv_max >= l->in_first ? l->recv_max - l->in_first + 1 : 0;
    /* A window with no news keeps the last estimate: silence is liveness's
     * business, not loss. */
    if (expected > 0) {
        l->last_in_expected = expected;
        l->last_in_received = l->in_received < expected ? l->in_received : expected;
    }
    if (l->out_acked + l->out_lost > 0) {
        l->last_out_judged = l->out_acked + l->out_lost;
        l->last_out_lost = l->out_lost;
    }
    double secs = (double)(now - l->window_start_us) / 1e6;
    l->send_rate = (double)l->bytes_window_sent / secs;
    l->recv_rate = (double)l->bytes_window_recv / secs;
    l->has_window = true;
    l->window_start_us = now;
    if (l->recv_any)
        l->in_first = l->recv_max + 1;
    l->in_received = 0;
    l->out_acked = l->out_lost = 0;
    l->bytes_window_sent = l->bytes_window_recv = 0;
}

unsigned link_update(net_link *l, uint64_t now)
{
    if (l->state == LINK_CLOSED)
        return 0;
    if (now >= l->window_start_us && now - l->window_start_us >= l->cfg.window_us)
        close_window(l, now);
    unsigned ev = 0;
    if (l->state == LINK_HANDSHAKING) {
        if (l->cfg.handshake_timeout_us != 0 && now >= l->start_us &&
            now - l->start_us >= l->cfg.handshake_timeout_us) {
            l->state = LINK_CLOSED;
            l->hs.failed = true;
            ev |= LINK_EV_HANDSHAKE_FAILED;
        }
        return ev;
    }
    if (l->resumed_pending) {
        l->resumed_pending = false;
        ev |= LINK_EV_RESUMED;
    }
    if (l->leap_us != 0 && now - l->leap_at_us >= l->cfg.notify_us) {
        /* Nothing of its was waiting when we woke, nor came since: it was
         * silent through our pause too, and that counts. */
        l->unheard_us += l->leap_us;
        l->leap_us = 0;
    }
    uint64_t silence = link_silence_us(l, now);
    if (silence >= l->cfg.timeout_us) {
        l->state = LINK_CLOSED;
        l->interrupted = false;
        ev |= LINK_EV_TIMED_OUT;
    } else if (silence >= l->cfg.notify_us && !l->interrupted) {
        l->interrupted = true;
        ev |= LINK_EV_INTERRUPTED;
    }
    return ev;
}

void link_on_clock_jump(net_link *l, uint64_t now, uint64_t unseen_us)
{
    l->epoch_us = now;
    l->has_transit = false; /* arrival times across the leap say nothing */
    l->leap_us = unseen_us;
    l->leap_at_us = now;
}

void link_close(net_link *l)
{
    l->state = LINK_CLOSED;
    l->interrupted = false;
    l->resumed_pending = false;
}

/* ---- round trips and jitter ----------------------------------------------------- */

bool link_ping_due(const net_link *l, uint64_t now)
{
    return l->state == LINK_ESTABLISHED && now >= l->next_ping_us && link_may_send(l, now);
}

int link_slot_to_reuse(const uint32_t *ids, const uint64_t *sent_us, int n)
{
    int slot = 0;
    for (int i = 0; i < n; i++) {
        if (ids[i] == 0)
            return i;
        if (sent_us[i] < sent_us[slot])
            slot = i;
    }
    return slot;
}

uint32_t link_ping_sent(net_link *l, uint64_t now)
{
    uint32_t id = l->ping_id_next++;
    if (l->ping_id_next == 0)
        l->ping_id_next = 1;
    int slot = link_slot_to_reuse(l->ping_id, l->ping_sent_us, LINK_PINGS);
    l->ping_id[slot] = id;
    l->ping_sent_us[slot] = now;
    l->next_ping_us = now + l->cfg.ping_us;
    return id;
}

bool link_on_pong(net_link *l, uint64_t now, uint32_t id)
{
    for (int i = 0; i < LINK_PINGS && id != 0 && l->state != LINK_CLOSED; i++) {
        if (l->ping_id[i] != id)
            continue;
        l->ping_id[i] = 0; /* a second copy of this pong matches nothing */
        uint64_t sent = l->ping_sent_us[i];
        if (sent >= l->epoch_us && now >= sent)
            link_rtt_sample(l, now - sent);
        return true;
    }
    l->pongs_ignored++;
    return false;
}

void link_rtt_sample(net_link *l, uint64_t rtt_us)
{
    if (rtt_us > LINK_MAX_RTT_US)
        return;
    int64_t r = (int64_t)rtt_us;
    l->rtt_samples++;
    if (!l->has_rtt) {
        l->has_rtt = true;
        l->srtt8 = r * 8;
        l->rttvar4 = r * 2; /* RTTVAR = R / 2 */
        return;
    }
    int64_t m = r - l->srtt8 / 8; /* the error against the old SRTT */
    l->srtt8 += m;                /* SRTT += err / 8 */
    if (m < 0)
        m = -m;
    l->rttvar4 += m - l->rttvar4 / 4; /* RTTVAR += (|err| - RTTVAR) / 4 */
}

void link_on_stamp(net_link *l, uint64_t now, uint64_t stamp_us)
{
    /* Transit times are relative: the sender's clock offset cancels in D.
     * Unsigned differences keep hostile stamps from overflowing. */
    int64_t transit = (int64_t)(now - stamp_us);
    if (!l->has_transit) {
        l->has_transit = true;
        l->last_transit = transit;
        return;
    }
    int64_t d = (int64_t)((uint64_t)transit - (uint64_t)l->last_transit);
    l->last_transit = transit;
    if (d > LINK_MAX_TRANSIT_STEP_US || d < -LINK_MAX_TRANSIT_STEP_US)
        d = LINK_MAX_TRANSIT_STEP_US;
    else if (d < 0)
        d = -d;
    l->jitter16 += d - (l->jitter16 + 8) / 16;
}

uint64_t link_rtt_us(const net_link *l) { return l->has_rtt ? (uint64_t)((l->srtt8 + 4) / 8) : 0; }
uint64_t link_rttvar_us(const net_link *l) { return l->has_rtt ? (uint64_t)((l->rttvar4 + 2) / 4) : 0; }
uint64_t link_rto_us(const net_link *l) { return l->has_rtt ? (uint64_t)((l->srtt8 + 4) / 8 + l->rttvar4) : 0; }
uint64_t link_jitter_us(const net_link *l) { return (uint64_t)(l->jitter16 / 16); }

uint16_t link_mesh_ms(const net_link *l)
{
    if (!l->has_rtt)
        return LINK_MESH_UNKNOWN;
    uint64_t ms = link_rtt_us(l) / 1000u;
    return (uint16_t)(ms < 65534u ? ms : 65534u);
}

/* ---- loss -------------------------------------------------------------------------- */

double link_loss_in(const net_link *l)
{
    if (l->last_in_expected == 0)
        return 0.0;
    return (double)(l->last_in_expected - l->last_in_received) / (double)l->last_in_expected;
}

double link_loss_out(const net_link *l)
{
    if (l->last_out_judged == 0)
        return 0.0;
    return (double)l->last_out_lost / (double)l->last_out_judged;
}
