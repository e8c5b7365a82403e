/* SPDX-License-Identifier: MIT */
/*
 * arena_lag.c — the simulated network delay of tempo-arena-sdl.
 *
 * A local session's remote players get their inputs from the game, through
 * tempo_session_add_remote_input; here they first wait in a delay line, as
 * if they had crossed a network. In a p2p session the same idea wraps the
 * real transport: outgoing datagrams wait before the UDP socket sends them,
 * so two windows on one machine can feel like two continents.
 *
 * Invariant: an item leaves the line at the first tick whose time is at or
 * past its due time, and never before; the line only ever holds what it can
 * fit, and a sender that finds it full sends at once (late is better than
 * never: a lost input would stall a local session for good). Time moves in
 * ticks, so delays are rounded up to the next 60 Hz tick.
 */
#include "arena_sdl.h"

#include <string.h>

void arena_lag_init(arena_lag *l, uint64_t seed, int delay_ms)
{
    l->delay_ms = delay_ms;
    l->now_us = 0;
    l->ninputs = 0;
    l->ndatagrams = 0;
    tempo_rng_seed(&l->rng, seed, 0x6c6167u /* "lag" */);
}

int arena_lag_jitter_ms(const arena_lag *l) { return l->delay_ms / 4; }

/* When an item sent now is due: the delay plus or minus half the jitter. */
static uint64_t due_time(arena_lag *l)
{
    int half = arena_lag_jitter_ms(l) / 2;
    int ms = l->delay_ms + (half > 0 ? tempo_rng_range(&l->rng, -half, half) : 0);
    return l->now_us + (uint64_t)ms * 1000u;
}

bool arena_lag_send_input(arena_lag *l, int player, int32_t frame,
                          const uint8_t input[ARENA_INPUT_SIZE])
{
    if (l->ninputs == ARENA_LAG_INPUTS)
        return false;
    arena_lag_input *in = &l->inputs[l->ninputs++];
    in->arrive_us = due_time(l);
    in->frame = frame;
    in->player = player;
    memcpy(in->input, input, ARENA_INPUT_SIZE);
    return true;
}

tempo_result arena_lag_deliver_inputs(arena_lag *l, tempo_session *s)
{
    int kept = 0;
    for (int i = 0; i < l->ninputs; i++) {
        const arena_lag_input *in = &l->inputs[i];
        if (in->arrive_us > l->now_us) {
            l->inputs[kept++] = *in;
            continue;
        }
        tempo_result r =
            tempo_session_add_remote_input(s, in->player, in->frame, in->input, ARENA_INPUT_SIZE);
        if (r != TEMPO_OK)
            return r;
    }
    l->ninputs = kept;
    return TEMPO_OK;
}

/* ---- the delaying transport ----------------------------------------------- */

static int lag_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    arena_lag *l = ctx;
    if (l->delay_ms == 0 || l->ndatagrams == ARENA_LAG_DATAGRAMS || size > TEMPO_MAX_DATAGRAM)
        return l->inner.send(l->inner.ctx, to, data, size);
    arena_lag_datagram *d = &l->datagrams[l->ndatagrams++];
    d->due_us = due_time(l);
    d->to = *to;
    d->size = size;
    memcpy(d->data, data, size);
    return 0; /* queued: as good as sent, and UDP promises no more */
}

static int lag_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    arena_lag *l = ctx;
    return l->inner.recv(l->inner.ctx, from, buf, capacity);
}

/* What the line sent at once (no delay, or the line full) may wait in
 * the inner transport's batch: the round of sends ends there too. */
static int lag_flush(void *ctx)
{
    arena_lag *l = ctx;
    return tempo_transport_flush(&l->inner);
}

tempo_transport arena_lag_transport(arena_lag *l, tempo_transport inner)
{
    l->inner = inner;
    return (tempo_transport){lag_send, lag_recv, l, lag_flush};
}

void arena_lag_flush(arena_lag *l)
{
    int kept = 0;
    for (int i = 0; i < l->ndatagrams; i++) {
        const arena_lag_datagram *d = &l->datagrams[i];
        if (d->due_us > l->now_us) {
            if (kept != i)
                l->datagrams[kept] = *d;
            kept++;
            continue;
        }
        /* A failed send is a lost datagram, which tempo is built to survive. */
        l->inner.send(l->inner.ctx, &d->to, d->data, d->size);
    }
    l->ndatagrams = kept;
    (void)tempo_transport_flush(&l->inner);
}
