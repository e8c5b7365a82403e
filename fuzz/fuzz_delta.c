/* SPDX-License-Identifier: MIT */
/*
 * fuzz_delta.c — the state delta decoder against arbitrary data.
 *
 * The input is 2 bytes of state size n (little endian), then the delta.
 * The base is fixed (byte i = i * 7 + 1). Properties: decoding never touches
 * a byte outside the data or the n-byte output (the buffers are exactly
 * sized, so ASan sees it); a delta that decodes, re-encoded, fits in
 * delta_bound(n) and decodes back to the same state; and encoding the first
 * n bytes of the data (when there are that many) round-trips too.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "wire/delta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t n = (size_t)(data[0] | data[1] << 8);
    data += 2, size -= 2;
    uint8_t *base = malloc(n ? n : 1), *out = malloc(n ? n : 1), *back = malloc(n ? n : 1);
    uint8_t *enc = malloc(delta_bound(n));
    if (base == NULL || out == NULL || back == NULL || enc == NULL)
        abort();
    for (size_t i = 0; i < n; i++)
        base[i] = (uint8_t)(i * 7 + 1);
    if (delta_decode(base, n, data, size, out)) {
        size_t k = delta_encode(base, out, n, enc, delta_bound(n));
        if (k == 0 || k > delta_bound(n) || !delta_decode(base, n, enc, k, back) ||
            (n != 0 && memcmp(back, out, n) != 0))
            abort();
    }
    if (size >= n) {
        size_t k = delta_encode(base, data, n, enc, delta_bound(n));
        if (k == 0 || !delta_decode(base, n, enc, k, back) || (n != 0 && memcmp(back, data, n) != 0))
            abort();
    }
    free(enc);
    free(back);
    free(out);
    free(base);
    return 0;
}
