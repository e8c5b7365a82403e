/* SPDX-License-Identifier: MIT */
/*
 * fuzz_bitpack.c — the bit reader driven by operations taken from the input.
 *
 * Input: byte 0 = number of operation bytes n, then n operation bytes, then
 * the bytes the reader reads. Operation byte: kind = op % 6 (bits, ranged,
 * uvarint, svarint, bytes, at_end), parameter = op / 6.
 *
 * Properties (abort when broken): the reader never passes its end; a failed
 * read does not move it and every later read fails; every successful read
 * written back with the writer reproduces the bits read exactly (all forms
 * are canonical), so bits written == bits read and the bytes agree.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "wire/bitpack.h"
#include "fuzz_target.h"

/* One operation: read with r, write what was read with w. */
static bool step(tempo_bitreader *r, tempo_bitwriter *w, int kind, int param)
{
    uint32_t u;
    int32_t s;
    uint8_t bytes[8];
    switch (kind) {
    case 0:
        return tempo_bitreader_bits(r, param % 32 + 1, &u) &&
               tempo_bitwriter_bits(w, u, param % 32 + 1);
    case 1: {
        int32_t min = param * 37 - 700;
        int64_t max = (int64_t)min + (int64_t)(UINT32_C(1) << (param % 32)) - 1;
        if (max > INT32_MAX)
            max = INT32_MAX;
        return tempo_bitreader_ranged(r, min, (int32_t)max, &s) &&
               tempo_bitwriter_ranged(w, s, min, (int32_t)max);
    }
    case 2:
        return tempo_bitreader_uvarint(r, param % TEMPO_VARINT_MAX_GROUP + 1, &u) &&
               tempo_bitwriter_uvarint(w, u, param % TEMPO_VARINT_MAX_GROUP + 1);
    case 3:
        return tempo_bitreader_svarint(r, param % TEMPO_VARINT_MAX_GROUP + 1, &s) &&
               tempo_bitwriter_svarint(w, s, param % TEMPO_VARINT_MAX_GROUP + 1);
    case 4:
        return tempo_bitreader_bytes(r, bytes, (size_t)(param % 9)) &&
               tempo_bitwriter_bytes(w, bytes, (size_t)(param % 9));
    default:
        if (tempo_bitreader_at_end(r) && tempo_bitreader_bits_left(r) >= 8)
            abort();
        return r->error == TEMPO_BITREAD_OK;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t nops = data[0] < size - 1 ? data[0] : size - 1;
    const uint8_t *ops = data + 1, *buf = data + 1 + nops;
    size_t len = size - 1 - nops;
    uint8_t *out = malloc(len + 1);
    if (out == NULL)
        return 0;
    tempo_bitreader r;
    tempo_bitwriter w;
    tempo_bitreader_init(&r, len ? buf : NULL, len);
    tempo_bitwriter_init(&w, out, len);
    bool poisoned = false;
    for (size_t i = 0; i < nops; i++) {
        size_t before = tempo_bitreader_bits_read(&r);
        bool ok = step(&r, &w, ops[i] % 6, ops[i] / 6);
        if (ok ? poisoned || w.failed : tempo_bitreader_bits_read(&r) != before)
            abort();
        poisoned = !ok;
        if (tempo_bitreader_bits_read(&r) > len * 8)
            abort();
    }
    size_t bits = tempo_bitreader_bits_read(&r);
    if (tempo_bitwriter_bits_written(&w) != bits || memcmp(out, buf, bits / 8) != 0 ||
        ((bits & 7u) && ((out[bits / 8] ^ buf[bits / 8]) & ((1u << (bits & 7u)) - 1u)) != 0))
        abort();
    free(out);
    return 0;
}
