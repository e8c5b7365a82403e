/* SPDX-License-Identifier: MIT */
/*
 * local.c — the local backend: a rollback session whose remote inputs the
 * caller delivers itself (tempo_session_add_remote_input), over its own
 * transport or as a test of a game against late inputs. It has no state of
 * its own: the engine the facade owns is all it drives, so its state is
 * the host.
 */
#include <string.h>

#include "session/backend.h"

static const session_host *host_of(const void *b) { return b; }

static tempo_result local_create(const session_host *host, const session_args *args, void **out)
{
    (void)args;
    *out = (void *)host;
    return TEMPO_OK;
}

static tempo_result local_add_local(void *b, int player)
{
    return sync_set_player(host_of(b)->sync, player, SYNC_LOCAL);
}

static tempo_result local_add_remote(void *b, int player, const tempo_address *addr)
{
    (void)addr; /* the caller delivers the inputs itself */
    return sync_set_player(host_of(b)->sync, player, SYNC_REMOTE);
}

static tempo_result local_add_remote_input(void *b, int player, int32_t frame, const void *input)
{
    tempo_sync *sync = host_of(b)->sync;
    if (player < 0 || player >= sync->num_players || sync->kind[player] != SYNC_REMOTE)
        return TEMPO_E_PLAYER;
    if (frame < 0)
        return TEMPO_E_FRAME;
    return sync_add_remote_input(sync, player, frame, input);
}

/* Nobody else must agree: the player stops at the end of its real inputs. */
static tempo_result local_disconnect_player(void *b, int player)
{
    const session_host *h = host_of(b);
    const input_queue *q = &h->sync->q[player];
    if (q->disconnect_frame != IQ_NO_FRAME)
        return TEMPO_E_ALREADY;
    h->disconnect(h->ctx, player, q->known_end);
    return TEMPO_OK;
}

static tempo_result local_advance(void *b, tempo_tick *tick)
{
    const session_host *h = host_of(b);
    sync_plan_opts o;
    memset(&o, 0, sizeof o);
    tempo_result r = sync_plan(h->sync, &o, tick);
    h->planned(h->ctx, tick);
    return r;
}

const session_backend_ops session_local_ops = {
    .open_slots = true,
    .external_load = true,
    .create = local_create,
    .add_local = local_add_local,
    .add_remote = local_add_remote,
    .add_remote_input = local_add_remote_input,
    .disconnect_player = local_disconnect_player,
    .advance = local_advance,
};
