/* SPDX-License-Identifier: MIT */
/*
 * fuzz_nat_msg.c — NAT traversal's messages (wire/nat_msg.h) against
 * arbitrary data.
 *
 * The input is 1 byte choosing the reader (byte % 3: INTRO, CANDIDATES,
 * a whole probe datagram), then the bytes. Properties: reading never
 * touches a byte outside them (they are copied into an exactly sized
 * buffer, so ASan sees it); what reads is canonical: written again it
 * gives exactly the same bytes; a probe verifies only under the secret it
 * was tagged with, and re-tagged under it is the same datagram.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "wire/nat_msg.h"

static uint8_t again[TEMPO_MAX_DATAGRAM];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int which = data[0] % 3;
    size_t n = size - 1;
    uint8_t *b = malloc(n ? n : 1);
    if (b == NULL)
        abort();
    if (n > 0)
        memcpy(b, data + 1, n);
    if (which == 0) {
        nat_intro in;
        if (nat_intro_read(b, n, &in)) {
            if (in.count < 0 || in.count >= NAT_MAX_MEMBERS || nat_intro_write(again, &in) != n ||
                memcmp(again, b, n) != 0)
                abort();
        }
    } else if (which == 1) {
        tempo_address c[NAT_MAX_LOCAL];
        int count = -1;
        if (nat_candidates_read(b, n, c, &count)) {
            if (count < 0 || count > NAT_MAX_LOCAL || nat_candidates_write(again, c, count) != n ||
                memcmp(again, b, n) != 0)
                abort();
        }
    } else {
        uint8_t secret[NAT_SECRET_SIZE];
        memset(secret, 0x5C, sizeof secret);
        nat_probe p;
        if (nat_probe_read(b, n, secret, &p, NULL)) {
            if (n != NAT_PROBE_SIZE || !nat_is_probe(b, n) || p.from == p.to || p.from > 7 ||
                p.to > 7 || nat_probe_write(again, &p, secret) != n || memcmp(again, b, n) != 0)
                abort();
            secret[0] ^= 1;
            if (nat_probe_read(b, n, secret, &p, NULL))
                abort();
        }
    }
    free(b);
    return 0;
}
