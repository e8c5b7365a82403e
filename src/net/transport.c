/* SPDX-License-Identifier: MIT */
/*
 * transport.c — what every caller of a tempo_transport shares: the end of a
 * round of sends. A transport that holds datagrams (the UDP transport with
 * batch_send) hands them to the system in its flush; one without a flush
 * sent each datagram already.
 */
#include "base/common.h"
#include "tempo/transport.h"

int tempo_transport_flush(const tempo_transport *t)
{
    if (!t)
        return TEMPO_E_INVALID_ARG;
    return t->flush ? t->flush(t->ctx) : 0;
}
