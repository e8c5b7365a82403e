/* SPDX-License-Identifier: MIT */
/*
 * intake.c — the bounded receive loop (intake.h).
 */
#include "net/intake.h"

#include <string.h>

net_intake_end net_intake(const tempo_transport *t, uint8_t *buf, size_t cap, int budget,
                          net_intake_fn take, void *ctx)
{
    for (int i = 0; i < budget; i++) {
        tempo_address from;
        memset(&from, 0, sizeof from);
        int got = t->recv(t->ctx, &from, buf, cap);
        if (got <= 0)
            return NET_INTAKE_DRAINED;
        if (!take(ctx, &from, buf, (size_t)got))
            return NET_INTAKE_STOPPED;
    }
    return NET_INTAKE_BUDGET;
}
