/* SPDX-License-Identifier: MIT */
/*
 * fuzz_fragment.c — fragment reassembly against arbitrary datagrams.
 *
 * The input is a stream of records: one byte of time step (in units of
 * 64 us), a 16-bit little-endian length, then that many bytes of datagram.
 * Each datagram goes through the packet header; fragments go to a
 * two-slot assembler with a 10 ms timeout. Properties: every result is
 * "stored", "complete" or a fragment refusal with its reason; a completed
 * message is larger than one chunk and at most 64 KiB, of the type its last
 * fragment carried; no more partial messages than slots, ever; and after
 * the timeout with nothing arriving, nothing is held.
 */
#include <stdlib.h>

#include "fuzz_target.h"
#include "wire/fragment.h"

#define SLOTS 2
#define TIMEOUT_US 10000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t memory[SLOTS * FRAG_MAX_PAYLOAD];
    tempo_frag_assembler a;
    if (frag_init(&a, SLOTS, TIMEOUT_US, memory, sizeof memory) != TEMPO_OK)
        abort();
    uint64_t now = 0;
    size_t at = 0;
    while (at + 3 <= size) {
        now += (uint64_t)data[at] * 64u;
        size_t n = (size_t)(data[at + 1] | data[at + 2] << 8);
        at += 3;
        if (n > size - at)
            n = size - at;
        const uint8_t *d = data + at;
        at += n;
        tempo_packet_view v;
        if (packet_read(d, n, &v, NULL) != TEMPO_OK || !v.h.fragment)
            continue;
        tempo_frag_message out;
        tempo_drop_reason why = TEMPO_DROP_NONE;
        int rc = frag_receive(&a, now, v.h.type, d + v.body, v.body_size, &out, &why);
        if (rc == 1) {
            if (out.size <= FRAG_CHUNK || out.size > FRAG_MAX_PAYLOAD || out.type != v.h.type ||
                out.data == NULL)
                abort();
        } else if (rc == TEMPO_E_MALFORMED) {
            if (why != TEMPO_DROP_FRAG_BAD && why != TEMPO_DROP_FRAG_DUPLICATE &&
                why != TEMPO_DROP_FRAG_BUSY)
                abort();
        } else if (rc != 0) {
            abort();
        }
        if (frag_pending(&a) > SLOTS)
            abort();
    }
    frag_expire(&a, now + TIMEOUT_US);
    if (frag_pending(&a) != 0)
        abort();
    return 0;
}
