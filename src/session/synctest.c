/* SPDX-License-Identifier: MIT */
/*
 * synctest.c — the synctest backend: every player is local from creation
 * and each tick runs the synctest planner (rollback/synctest.c), which
 * rolls back check_distance frames, resimulates and compares checksums.
 * This file owns only the session side: declaring the players, the tick,
 * the confirmed frame (every frame ran, so all are) and the report. Like
 * the local backend it keeps no state beyond the engine: its state is the
 * host.
 */
#include "session/backend.h"

static const session_host *host_of(const void *b) { return b; }

/* Every player is local: say so now, so that input delays can be set
 * before the first tick. */
static tempo_result synctest_create(const session_host *host, const session_args *args, void **out)
{
    (void)args;
    for (int p = 0; p < host->cfg->num_players; p++)
        host->sync->kind[p] = SYNC_LOCAL;
    *out = (void *)host;
    return TEMPO_OK;
}

/* Declared already: accepting it again is kinder than an error. */
static tempo_result synctest_add_local(void *b, int player)
{
    return player >= 0 && player < host_of(b)->sync->num_players ? TEMPO_OK : TEMPO_E_PLAYER;
}

static tempo_result synctest_advance(void *b, tempo_tick *tick)
{
    const session_host *h = host_of(b);
    tempo_result r = sync_plan_synctest(h->sync, tick);
    h->planned(h->ctx, tick);
    return r;
}

static int32_t synctest_confirmed_frame(const void *b)
{
    return host_of(b)->sync->frame;
}

static tempo_result synctest_report(const void *b, tempo_synctest_report *out)
{
    *out = host_of(b)->sync->report;
    return TEMPO_OK;
}

const session_backend_ops session_synctest_ops = {
    .players_preset = true,
    .create = synctest_create,
    .add_local = synctest_add_local,
    .advance = synctest_advance,
    .confirmed_frame = synctest_confirmed_frame,
    .synctest_report = synctest_report,
};
