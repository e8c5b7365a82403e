/* SPDX-License-Identifier: MIT */
/*
 * effects.h — one-shot effects (sounds, particles, rumble) that stay right
 * under rollback.
 *
 * A rollback resimulates frames the player already saw. A sound started by
 * a shot at frame 100 must not start again when frame 100 is resimulated,
 * and a sound whose cause a correction removed (the shot never happened
 * once the real input arrived) should stop. The game cannot tell these
 * apart from inside its step function; this helper remembers which effects
 * it started, by the frame that started them and a key the game chooses
 * (INVERSUS keeps the same kind of history, of its last 128 sounds).
 *
 * Use, beside the request contract:
 *   - LOAD(frame) request, or tempo_session_load_state(frame):
 *         tempo_effects_rollback(&fx, frame);
 *   - inside ADVANCE(frame), where the simulation triggers an effect:
 *         if (tempo_effects_start(&fx, frame, key) == TEMPO_EFFECT_NEW)
 *             start it, and keep its handle: tempo_effects_set_handle(...);
 *   - after carrying out every request of the tick:
 *         while (tempo_effects_next_stop(&fx, &e)) stop e.handle;
 *         tempo_effects_forget_before(&fx, tempo_session_confirmed_frame(s));
 *
 * The same (frame, key) may start several times in one simulation of a
 * frame (two identical shots): the n-th start in a resimulation matches
 * the n-th remembered one.
 *
 * The struct is the caller's (embed it, no allocation); its fields are
 * private. Single-threaded; no clock.
 */
#ifndef TEMPO_EFFECTS_H
#define TEMPO_EFFECTS_H

#include <stdbool.h>
#include <stdint.h>

#include "tempo/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Effects remembered at once. When full, the oldest frame's is forgotten:
 * if that frame is resimulated later, its effect starts again. 128 covers
 * two effects a frame over a 64-frame prediction window; forget_before
 * frees room as frames are confirmed. */
#define TEMPO_EFFECTS_HISTORY 128

typedef struct tempo_effect {
    int32_t frame;   /* the frame whose simulation started it */
    uint32_t key;    /* the game's name for it (kind, player, object...) */
    uint64_t handle; /* what the game stored with tempo_effects_set_handle, else 0 */
} tempo_effect;

typedef struct tempo_effects {
    /* private */
    tempo_effect live[TEMPO_EFFECTS_HISTORY];
    uint8_t pending[TEMPO_EFFECTS_HISTORY]; /* rolled back, not started again yet */
    int count;
    tempo_effect stop[TEMPO_EFFECTS_HISTORY];
    int stops;
    uint64_t started, restarted_skipped, stopped, forgotten;
} tempo_effects;

/* What tempo_effects_start says. */
enum {
    TEMPO_EFFECT_PLAYING = 0, /* an earlier simulation of this frame started it: leave it be */
    TEMPO_EFFECT_NEW = 1      /* start it now */
};

/* Empty the history. Errors: TEMPO_E_INVALID_ARG (NULL). */
TEMPO_API tempo_result tempo_effects_init(tempo_effects *fx);

/* The game's state goes back to `frame` and frames from it on will be
 * simulated again: every effect started by a frame at or after it is kept
 * only if the resimulation starts it again. Errors: TEMPO_E_INVALID_ARG
 * (NULL). */
TEMPO_API tempo_result tempo_effects_rollback(tempo_effects *fx, int32_t frame);

/* The simulation of `frame` triggers the effect `key`. Returns
 * TEMPO_EFFECT_NEW (start it; it is remembered) or TEMPO_EFFECT_PLAYING (a
 * resimulation met an effect the first simulation started), or
 * TEMPO_E_INVALID_ARG (NULL). */
TEMPO_API int tempo_effects_start(tempo_effects *fx, int32_t frame, uint32_t key);

/* Remember `handle` with the newest effect started as (frame, key), to get
 * it back when the effect must stop. Errors: TEMPO_E_INVALID_ARG (NULL),
 * TEMPO_E_FRAME (no such effect remembered). */
TEMPO_API tempo_result tempo_effects_set_handle(tempo_effects *fx, int32_t frame, uint32_t key,
                                                uint64_t handle);

/* After the tick's requests are carried out: the next effect to stop (its
 * cause was rolled away and not simulated again), 1 and *out filled, or 0
 * when there is none (or fx or out is NULL). A stopped effect is
 * forgotten. */
TEMPO_API int tempo_effects_next_stop(tempo_effects *fx, tempo_effect *out);

/* Forget the effects of frames before `frame` (they are confirmed: no
 * rollback reaches them). Errors: TEMPO_E_INVALID_ARG (NULL). */
TEMPO_API tempo_result tempo_effects_forget_before(tempo_effects *fx, int32_t frame);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_EFFECTS_H */
