/* SPDX-License-Identifier: MIT */
/*
 * ack.c — the datagram ack field (ack.h).
 */
#include "wire/ack.h"

#include <string.h>

#define ALL_RECEIVED 0xFFFFFFFFu

void wire_ack_make(wire_ack *a, bool any, uint64_t newest, uint32_t bits)
{
    memset(a, 0, sizeof *a);
    if (!any)
        return;
    a->present = true;
    a->ack = (uint8_t)(newest & ((1u << WIRE_ACK_WIDTH) - 1u));
    if (newest < 32) /* bit i >= newest names a sequence below 0 */
        bits |= ALL_RECEIVED << newest;
    a->bits = bits;
}

void wire_ack_put(tempo_bitwriter *w, const wire_ack *a)
{
    tempo_bitwriter_bits(w, a->present ? 1u : 0u, 1);
    if (!a->present)
        return;
    tempo_bitwriter_bits(w, a->ack, WIRE_ACK_WIDTH);
    bool gaps = a->bits != ALL_RECEIVED;
    tempo_bitwriter_bits(w, gaps ? 1u : 0u, 1);
    if (gaps)
        tempo_bitwriter_bits(w, a->bits, 32);
}

bool wire_ack_get(tempo_bitreader *r, wire_ack *a)
{
    memset(a, 0, sizeof *a);
    uint32_t v = 0;
    if (!tempo_bitreader_bits(r, 1, &v))
        return false;
    if (v == 0)
        return true;
    uint32_t ack = 0, gaps = 0, bits = ALL_RECEIVED;
    tempo_bitreader_bits(r, WIRE_ACK_WIDTH, &ack);
    if (tempo_bitreader_bits(r, 1, &gaps) && gaps != 0 && tempo_bitreader_bits(r, 32, &bits) &&
        bits == ALL_RECEIVED)
        tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE); /* the short form says that */
    if (r->error != TEMPO_BITREAD_OK)
        return false;
    a->present = true;
    a->ack = (uint8_t)ack;
    a->bits = bits;
    return true;
}

int wire_ack_size_bits(const wire_ack *a)
{
    if (!a->present)
        return 1;
    return 1 + WIRE_ACK_WIDTH + 1 + (a->bits != ALL_RECEIVED ? 32 : 0);
}

bool wire_ack_equal(const wire_ack *a, const wire_ack *b)
{
    return a->present == b->present && (!a->present || (a->ack == b->ack && a->bits == b->bits));
}
