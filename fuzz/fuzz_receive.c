/* SPDX-License-Identifier: MIT */
/*
 * fuzz_receive.c — the receive pipeline every role calls (net/receive.h),
 * with valid keys, so the bytes past the seal reach the message codec.
 *
 * The first byte picks sealed or plain (sealed needs libsodium). The rest
 * is a script of steps, each starting with a byte k (k % 4 the kind, k / 4
 * milliseconds that pass):
 *   0  a genuine datagram: a sequence step (one byte, signed, scaled so a
 *      step can jump past the hold), a type, a body length and the body,
 *      built and sealed with the sender's keys: the fuzzer's bytes are
 *      decoded by the codec behind a seal that opens;
 *   1  the last genuine datagram with one byte XORed (position and value
 *      from the next two bytes): a forgery;
 *   2  the last genuine datagram again: a replay;
 *   3  a length and that many bytes, taken whole as a datagram.
 * Each goes through net_receive with the receiver's keys and window, the
 * decoder being the p2p codec's. Then:
 *   - a refusal has a reason in the list, and moves neither the replay
 *     window's highest nor the link's newest sequence;
 *   - an accepted datagram's sequence has the header's low 16 bits, its
 *     body lies inside it, the window's highest never goes down, and the
 *     same bytes once more are refused as a copy (DUPLICATE);
 *   - sealed, nothing is accepted but a genuine datagram, each at most
 *     once: a forgery, a replay and raw bytes never pass.
 * fuzz/regressions/receive holds a sealed script of each kind (a PING
 * taken, replayed, forged, then one far ahead held), so the replay test
 * reaches the codec behind an opened seal whatever the seed corpus.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_codec_ctx.h"
#include "fuzz_target.h"
#include "net/receive.h"
#include "wire/codec.h"

#define SID 0x0f0e0d0cu
#define MAX_SEEN 512

static const uint8_t KEY_S[SEAL_KEY_SIZE] = "fuzz_receive: the sender's key.";
static const uint8_t KEY_R[SEAL_KEY_SIZE] = "fuzz_receive: the receiver key.";

static void must(bool ok)
{
    if (!ok)
        abort();
}

typedef struct reader {
    const uint8_t *p;
    size_t left;
} reader;

static bool next(reader *r, uint8_t *out)
{
    if (r->left == 0)
        return false;
    *out = *r->p++;
    r->left--;
    return true;
}

typedef struct state {
    net_link link;
    tempo_replay replay;
    wire_keys send, recv;
    bool sealed;
    net_receiver rcv;
    tempo_codec_ctx ctx;
    tempo_msg msg;
    uint64_t now, next_seq;
    uint8_t last[TEMPO_MAX_DATAGRAM];
    size_t last_n;
    uint64_t last_seq;
    uint64_t accepted[MAX_SEEN];
    int naccepted;
} state;

static tempo_drop_reason decode(void *ctx, net_datagram *d)
{
    state *s = ctx;
    if (d->v.h.fragment)
        return TEMPO_DROP_FRAGMENT;
    tempo_drop_reason why = TEMPO_DROP_NONE;
    if (tempo_codec_decode_body(d->v.h.type, d->body, d->body_size, &s->ctx, &s->msg, &why) !=
        TEMPO_OK)
        return why != TEMPO_DROP_NONE ? why : TEMPO_DROP_BAD_VALUE;
    return TEMPO_DROP_NONE;
}

/* One datagram in; genuine: built by the sender, unaltered. */
static void deliver(state *s, const uint8_t *bytes, size_t n, bool genuine)
{
    static uint8_t buf[TEMPO_MAX_DATAGRAM + 1], copy[TEMPO_MAX_DATAGRAM + 1];
    memcpy(buf, bytes, n);
    memcpy(copy, bytes, n);
    uint64_t highest = replay_highest(&s->replay);
    bool any = s->link.recv_any;
    uint64_t newest = link_recv_newest(&s->link);
    net_datagram d;
    tempo_drop_reason why = net_receive(&s->rcv, s->now, buf, n, decode, s, &d);
    if (why != TEMPO_DROP_NONE) {
        must(why > TEMPO_DROP_NONE && why < TEMPO_DROP_REASON_COUNT_);
        must(replay_highest(&s->replay) == highest);
        must(s->link.recv_any == any && link_recv_newest(&s->link) == newest);
        return;
    }
    must((uint16_t)d.seq == d.v.h.sequence);
    must(d.body >= buf + PACKET_HEADER_SIZE && d.body + d.body_size <= buf + n);
    must(replay_highest(&s->replay) >= highest);
    if (s->sealed) {
        must(genuine);
        for (int i = 0; i < s->naccepted; i++)
            must(s->accepted[i] != d.seq);
        if (s->naccepted < MAX_SEEN)
            s->accepted[s->naccepted++] = d.seq;
    }
    tempo_drop_reason again = net_receive(&s->rcv, s->now, copy, n, decode, s, &d);
    must(again == TEMPO_DROP_DUPLICATE);
}

static void genuine(state *s, reader *r)
{
    uint8_t step, type, len;
    if (!next(r, &step) || !next(r, &type) || !next(r, &len))
        return;
    int8_t signed_step = (int8_t)step;
    int64_t delta = signed_step >= 100 || signed_step <= -100 ? (int64_t)signed_step * 8
                                                               : (int64_t)signed_step;
    if (delta < 0 && (uint64_t)-delta > s->next_seq)
        delta = 0;
    uint64_t seq = (uint64_t)((int64_t)s->next_seq + delta);
    s->next_seq = seq + 1;
    size_t body = len;
    if (body > r->left)
        body = r->left;
    if (body > PACKET_MAX_SEALED_BODY)
        body = PACKET_MAX_SEALED_BODY;
    tempo_packet_header h = {SID, (uint16_t)seq, (uint8_t)(type % PACKET_MAX_TYPE + 1), false, false};
    uint8_t *b = s->last;
    must(packet_write(&h, b, sizeof s->last) == PACKET_HEADER_SIZE);
    memcpy(b + PACKET_HEADER_SIZE, r->p, body);
    r->p += body;
    r->left -= body;
    size_t n = PACKET_HEADER_SIZE + body;
    if (s->sealed) {
        int sealed = seal_datagram(&s->send, seq, b, n, sizeof s->last);
        must(sealed > 0);
        n = (size_t)sealed;
    }
    s->last_n = n;
    s->last_seq = seq;
    deliver(s, b, n, true);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static state s;
    memset(&s, 0, sizeof s);
    reader r = {data, size};
    uint8_t mode = 0;
    (void)next(&r, &mode);
    s.sealed = (mode & 1u) && seal_available();
    if (s.sealed) {
        must(seal_keys_set(&s.send, KEY_S, KEY_R, SEAL_DIRECTION_LOW) == TEMPO_OK);
        must(seal_keys_set(&s.recv, KEY_R, KEY_S, SEAL_DIRECTION_HIGH) == TEMPO_OK);
    }
    link_config lc;
    link_config_default(&lc);
    lc.seq_jump = REPLAY_WINDOW / 2;
    lc.notify_us = 50000u;
    s.now = 1000000u;
    link_init(&s.link, &lc, s.now);
    net_receive_reset(&s.replay);
    s.rcv = (net_receiver){&s.link, &s.replay, s.sealed ? &s.recv : NULL, SID};
    fuzz_codec_ctx((int)(mode >> 1) % FUZZ_CODEC_CTX_COUNT, &s.ctx);
    uint8_t k;
    while (next(&r, &k)) {
        s.now += (uint64_t)(k >> 2) * 1000u;
        switch (k & 3u) {
        case 0:
            genuine(&s, &r);
            break;
        case 1: {
            uint8_t at, x;
            if (s.last_n == 0 || !next(&r, &at) || !next(&r, &x))
                break;
            static uint8_t forged[TEMPO_MAX_DATAGRAM];
            memcpy(forged, s.last, s.last_n);
            forged[at % s.last_n] ^= x;
            deliver(&s, forged, s.last_n, x == 0);
            break;
        }
        case 2:
            if (s.last_n > 0)
                deliver(&s, s.last, s.last_n, true);
            break;
        default: {
            uint8_t len;
            if (!next(&r, &len))
                break;
            size_t n = len < r.left ? len : r.left;
            deliver(&s, r.p, n, false);
            r.p += n;
            r.left -= n;
            break;
        }
        }
    }
    seal_keys_wipe(&s.send);
    seal_keys_wipe(&s.recv);
    return 0;
}
