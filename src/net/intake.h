/* SPDX-License-Identifier: MIT */
/*
 * intake.h — the bounded receive loop every role runs in its poll: take
 * the datagrams that have arrived, one at a time into the role's buffer,
 * and hand each to the role's receive path, at most `budget` of them, so a
 * flood cannot hold the caller's tick hostage (what is left waits for the
 * next poll).
 * Internal: not installed.
 */
#ifndef TEMPO_NET_INTAKE_H
#define TEMPO_NET_INTAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/transport.h"

/* One datagram for the role: data is the buffer, size the datagram's
 * size as the transport gave it (above the buffer's capacity when it was
 * truncated: the receive path drops it as malformed); from was zeroed
 * before the transport filled it. False: stop taking (the role ended),
 * true: go on. */
typedef bool (*net_intake_fn)(void *ctx, const tempo_address *from, uint8_t *data, size_t size);

typedef enum net_intake_end {
    NET_INTAKE_DRAINED = 0, /* the transport had no more */
    NET_INTAKE_BUDGET,      /* budget datagrams taken: more may wait */
    NET_INTAKE_STOPPED      /* take said stop */
} net_intake_end;

/* Take up to budget datagrams from t into buf (cap bytes), each handed to
 * take(ctx, ...) before the next is read. */
net_intake_end net_intake(const tempo_transport *t, uint8_t *buf, size_t cap, int budget,
                          net_intake_fn take, void *ctx);

#endif /* TEMPO_NET_INTAKE_H */
