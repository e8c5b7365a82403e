/* SPDX-License-Identifier: MIT */
/*
 * fuzz_packet.c — the packet header and the replay window against arbitrary
 * bytes.
 *
 * The whole input is read as one datagram: a refusal has a reason; an
 * accepted header rewrites to the same 8 bytes, its parts tile the datagram,
 * and the session peek agrees. Then the input, two bytes at a time, is a
 * stream of received 16-bit sequences: each recovers to a value with those
 * low bits inside the window around the highest accepted (or, near 0, the
 * only non-negative candidate), and the replay
 * window accepts it exactly when its check said so, never twice, with a
 * highest that never decreases.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "wire/packet.h"
#include "wire/replay_window.h"

static void check_header(const uint8_t *data, size_t size)
{
    tempo_packet_view v;
    tempo_drop_reason why = TEMPO_DROP_REASON_COUNT_;
    int rc = packet_read(data, size, &v, &why);
    uint32_t sid;
    tempo_drop_reason peek_why;
    int peek = packet_peek_session(data, size, &sid, &peek_why);
    if (rc != TEMPO_OK) {
        if (rc != TEMPO_E_MALFORMED || why <= TEMPO_DROP_NONE || why > TEMPO_DROP_BAD_TYPE)
            abort();
        if (peek == TEMPO_OK && why != TEMPO_DROP_TOO_SHORT && why != TEMPO_DROP_BAD_TYPE)
            abort(); /* the peek passes only what packet_read refuses later */
        return;
    }
    if (why != TEMPO_DROP_NONE || peek != TEMPO_OK || sid != v.h.session_id)
        abort();
    if (v.body != PACKET_HEADER_SIZE ||
        v.body + v.body_size + (v.h.sealed ? PACKET_TAG_SIZE : 0u) != size ||
        (v.h.sealed && v.tag != v.body + v.body_size))
        abort();
    uint8_t again[PACKET_HEADER_SIZE];
    if (packet_write(&v.h, again, sizeof again) != PACKET_HEADER_SIZE ||
        memcmp(again, data, PACKET_HEADER_SIZE) != 0)
        abort();
}

static void check_replay(const uint8_t *data, size_t size)
{
    static tempo_replay w; /* 2 KiB: not on the stack */
    replay_init(&w);
    uint64_t highest = 0;
    for (size_t i = 0; i + 1 < size; i += 2) {
        uint16_t low = (uint16_t)(data[i] | data[i + 1] << 8);
        uint64_t seq = packet_sequence_recover(low, replay_highest(&w));
        uint64_t h = replay_highest(&w);
        /* past the window ahead only where the older candidate is negative */
        if ((uint16_t)seq != low || (seq > h && seq - h > PACKET_SEQ_AHEAD && seq >= 65536) ||
            (seq < h && h - seq > PACKET_SEQ_BEHIND))
            abort();
        tempo_drop_reason check = replay_check(&w, seq);
        tempo_drop_reason got = replay_accept(&w, seq);
        if (got != check)
            abort();
        if (got == TEMPO_DROP_NONE && replay_check(&w, seq) != TEMPO_DROP_DUPLICATE)
            abort();
        if (replay_highest(&w) < highest)
            abort();
        highest = replay_highest(&w);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_header(data, size);
    check_replay(data, size);
    return 0;
}
