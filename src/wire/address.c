/* SPDX-License-Identifier: MIT */
/*
 * address.c — tempo_address as a value: compare, build. Only an opaque
 * address's first id_size bytes mean anything; the rest stay zero, so
 * equal addresses are also equal bytes. Connect tokens and cookies bind to
 * addresses here, below the transports; text forms are net/address.c's.
 */
#include "base/common.h"
#include "tempo/transport.h"

#include <string.h>

int tempo_address_opaque(tempo_address *out, const uint8_t *id, size_t size, uint16_t port)
{
    if (!out)
        return TEMPO_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!id || size == 0 || size > TEMPO_ADDRESS_ID_MAX)
        return TEMPO_E_INVALID_ARG;
    out->family = TEMPO_ADDRESS_OPAQUE;
    memcpy(out->bytes, id, size);
    out->id_size = (uint8_t)size;
    out->port = port;
    return TEMPO_OK;
}

bool tempo_address_equal(const tempo_address *a, const tempo_address *b)
{
    if (!a || !b)
        return a == b;
    if (a->family != b->family || a->port != b->port)
        return false;
    size_t len = a->family == TEMPO_ADDRESS_IPV4 ? 4 : a->family == TEMPO_ADDRESS_IPV6 ? 16 : 0;
    if (a->family == TEMPO_ADDRESS_OPAQUE) {
        if (a->id_size != b->id_size || a->id_size > TEMPO_ADDRESS_ID_MAX)
            return false;
        len = a->id_size;
    }
    return memcmp(a->bytes, b->bytes, len) == 0;
}

tempo_address tempo_address_ipv4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint16_t port)
{
    tempo_address addr;
    memset(&addr, 0, sizeof addr);
    addr.family = TEMPO_ADDRESS_IPV4;
    addr.bytes[0] = a;
    addr.bytes[1] = b;
    addr.bytes[2] = c;
    addr.bytes[3] = d;
    addr.port = port;
    return addr;
}
