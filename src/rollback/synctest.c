/* SPDX-License-Identifier: MIT */
/*
 * synctest.c — the synctest planner: prove a game deterministic under
 * rollback without a network.
 *
 * Each tick advances the new frame(s) once, records the checksum of the state
 * reached (the "first" computation), then loads the state check_distance
 * frames back and resimulates to the present, checksumming every state again
 * and comparing. A nondeterminism in ADVANCE(n) shows as a mismatch of state
 * n + 1 within the same tick, so the reported frame lies in
 * [n, n + check_distance].
 *
 * Every-frame policy: states are saved in the ring and every resimulated state
 * is compared. Sparse policy: slot 0 holds the state the next tick rolls back
 * to and slot 1 a scratch save for the checksum of the newest state; only the
 * newest state is compared (three saves per tick instead of check_distance + 2).
 */
#include "rollback/sync.h"

static void plan_every(tempo_sync *s, int32_t F, int32_t end, int32_t back)
{
    int nslots = s->nslots;
    if (s->slots[F % nslots].frame != F)
        sync_emit_save(s, F, (int)(F % nslots), SYNC_REQ_NEED_SUM | SYNC_REQ_FIRST);
    for (int32_t f = F; f < end; f++) {
        if (f > F)
            sync_emit_save(s, f, (int)(f % nslots), SYNC_REQ_NEED_SUM | SYNC_REQ_FIRST);
        sync_emit_advance(s, f, false);
    }
    sync_emit_save(s, end, (int)(end % nslots), SYNC_REQ_NEED_SUM | SYNC_REQ_FIRST);
    sync_emit_load(s, back, (int)(back % nslots));
    for (int32_t f = back; f < end; f++) {
        if (f > back)
            sync_emit_save(s, f, (int)(f % nslots), SYNC_REQ_NEED_SUM | SYNC_REQ_COMPARE);
        sync_emit_advance(s, f, true);
    }
    sync_emit_save(s, end, (int)(end % nslots), SYNC_REQ_NEED_SUM | SYNC_REQ_COMPARE);
}

static void plan_sparse(tempo_sync *s, int32_t F, int32_t end, int32_t back)
{
    if (s->sparse_frame < 0) {
        sync_emit_save(s, F, 0, 0);
        s->sparse_frame = F;
    }
    for (int32_t f = F; f < end; f++)
        sync_emit_advance(s, f, false);
    sync_emit_save(s, end, 1, SYNC_REQ_NEED_SUM | SYNC_REQ_FIRST);
    int32_t from = s->sparse_frame;
    sync_emit_load(s, from, 0);
    for (int32_t f = from; f < end; f++) {
        if (f == back && f > from) { /* where the next tick rolls back to */
            sync_emit_save(s, f, 0, 0);
            s->sparse_frame = f;
        }
        sync_emit_advance(s, f, true);
    }
    sync_emit_save(s, end, 1, SYNC_REQ_NEED_SUM | SYNC_REQ_COMPARE);
}

tempo_result sync_plan_synctest(tempo_sync *s, tempo_tick *t)
{
    sync_begin(s);
    if (s->report_new_mismatch) {
        s->report_new_mismatch = false;
        sync_drop_held(s);
        sync_fill_tick(s, t, TEMPO_TICK_STALLED, 0, 0, 0);
        return TEMPO_E_DESYNC;
    }
    const int32_t F = s->frame;
    tempo_tick_status status = TEMPO_TICK_ADVANCED;
    int want = sync_take_local(s, INT64_MAX, false, &status);
    if (want == SYNC_NO_LOCAL)
        want = 1;
    if (want <= 0) {
        sync_fill_tick(s, t, status, 0, 0, 0);
        if (status == TEMPO_TICK_STALLED)
            s->stats.stall_ticks++;
        return TEMPO_OK;
    }
    int n = tempo__min_i(want, TEMPO_MAX_PREDICTION + 1);
    int32_t end = F + n;
    int32_t back = tempo__max32(s->start_frame, end - s->check_distance);
    int32_t from = back;
    if (s->policy == TEMPO_SAVE_SPARSE)
        from = s->sparse_frame < 0 ? F : s->sparse_frame;
    if (s->policy == TEMPO_SAVE_SPARSE)
        plan_sparse(s, F, end, back);
    else
        plan_every(s, F, end, back);

    s->stats.rollbacks++;
    s->stats.resim_frames += (uint64_t)(end - from);
    s->stats.rollback_depth_sum += (uint64_t)(end - back);
    if (end - back > s->stats.max_rollback_depth)
        s->stats.max_rollback_depth = end - back;
    s->frame = end;
    s->stats.frames_advanced += (uint64_t)n;

    sync_log_confirmed(s, sync_confirmed(s));
    /* The next tick rolls back to `back` at the earliest: forget older inputs
     * (but the one before, which a guess would repeat). */
    int32_t floor = back - 1;
    for (int p = 0; p < s->num_players && floor > 0; p++)
        iq_discard_before(&s->q[p], floor);
    sync_fill_tick(s, t, TEMPO_TICK_ADVANCED, n, end - back, 0);
    return TEMPO_OK;
}
