/* SPDX-License-Identifier: MIT */
/*
 * effects.c — the history of one-shot effects behind tempo/effects.h.
 *
 * `live` holds the effects started and not yet forgotten, in the order they
 * started (so the n-th start of a (frame, key) in a resimulation meets the
 * n-th remembered one). A rollback marks the entries at or after its frame
 * pending; a start of the same (frame, key) clears the first pending match;
 * what is still pending when the game asks for stops moves to `stop`. At
 * most TEMPO_EFFECTS_HISTORY entries: every operation is a scan of at most
 * that many, which is cheaper than any sound API call it saves.
 */
#include "tempo/effects.h"

#include <string.h>

tempo_result tempo_effects_init(tempo_effects *fx)
{
    if (!fx)
        return TEMPO_E_INVALID_ARG;
    memset(fx, 0, sizeof *fx);
    return TEMPO_OK;
}

tempo_result tempo_effects_rollback(tempo_effects *fx, int32_t frame)
{
    if (!fx)
        return TEMPO_E_INVALID_ARG;
    for (int i = 0; i < fx->count; i++)
        if (fx->live[i].frame >= frame)
            fx->pending[i] = 1;
    return TEMPO_OK;
}

static void remove_at(tempo_effects *fx, int i)
{
    int tail = fx->count - i - 1;
    memmove(&fx->live[i], &fx->live[i + 1], (size_t)tail * sizeof fx->live[0]);
    memmove(&fx->pending[i], &fx->pending[i + 1], (size_t)tail);
    fx->count--;
}

/* Room for one more: forget the entry of the oldest frame (the first of
 * them in start order). */
static void make_room(tempo_effects *fx)
{
    if (fx->count < TEMPO_EFFECTS_HISTORY)
        return;
    int oldest = 0;
    for (int i = 1; i < fx->count; i++)
        if (fx->live[i].frame < fx->live[oldest].frame)
            oldest = i;
    remove_at(fx, oldest);
    fx->forgotten++;
}

int tempo_effects_start(tempo_effects *fx, int32_t frame, uint32_t key)
{
    if (!fx)
        return TEMPO_E_INVALID_ARG;
    for (int i = 0; i < fx->count; i++)
        if (fx->pending[i] && fx->live[i].frame == frame && fx->live[i].key == key) {
            fx->pending[i] = 0;
            fx->restarted_skipped++;
            return TEMPO_EFFECT_PLAYING;
        }
    make_room(fx);
    fx->live[fx->count] = (tempo_effect){ .frame = frame, .key = key, .handle = 0 };
    fx->pending[fx->count] = 0;
    fx->count++;
    fx->started++;
    return TEMPO_EFFECT_NEW;
}

tempo_result tempo_effects_set_handle(tempo_effects *fx, int32_t frame, uint32_t key,
                                      uint64_t handle)
{
    if (!fx)
        return TEMPO_E_INVALID_ARG;
    for (int i = fx->count - 1; i >= 0; i--)
        if (fx->live[i].frame == frame && fx->live[i].key == key) {
            fx->live[i].handle = handle;
            return TEMPO_OK;
        }
    return TEMPO_E_FRAME;
}

int tempo_effects_next_stop(tempo_effects *fx, tempo_effect *out)
{
    if (!fx || !out)
        return 0;
    if (fx->stops == 0) {
        int kept = 0;
        for (int i = 0; i < fx->count; i++) {
            if (fx->pending[i]) {
                fx->stop[fx->stops++] = fx->live[i];
                continue;
            }
            fx->live[kept] = fx->live[i];
            fx->pending[kept] = 0;
            kept++;
        }
        fx->count = kept;
    }
    if (fx->stops == 0)
        return 0;
    *out = fx->stop[--fx->stops]; /* newest first: the order to undo them in */
    fx->stopped++;
    return 1;
}

tempo_result tempo_effects_forget_before(tempo_effects *fx, int32_t frame)
{
    if (!fx)
        return TEMPO_E_INVALID_ARG;
    int kept = 0;
    for (int i = 0; i < fx->count; i++) {
        if (fx->live[i].frame < frame && !fx->pending[i])
            continue;
        fx->live[kept] = fx->live[i];
        fx->pending[kept] = fx->pending[i];
        kept++;
    }
    fx->count = kept;
    return TEMPO_OK;
}
