/* SPDX-License-Identifier: MIT */
/*
 * subframe.h — drawing between frames: back up the state, step it part of
 * a frame towards the render time, draw, restore.
 *
 * A game that simulates at 60 Hz on a 144 Hz display shows each frame two
 * or three times, and motion judders. INVERSUS renders at the display's
 * rate anyway: before drawing it backs up the simulation, advances it by
 * the part of a frame the render time is past the last frame, draws, and
 * restores the backup, with the same save and load machinery rollback
 * uses. This helper does the backing up and restoring, and says how far
 * into the next frame the render time is:
 *
 *     alpha = tempo_subframe_alpha(last_frame_us, frame_us, now_us);
 *     tempo_subframe_begin(&sf);           state copied aside
 *     step the state by alpha (or step a whole frame with the newest
 *     inputs and blend what you draw between before and after by alpha)
 *     draw
 *     tempo_subframe_end(&sf);             state back, bit for bit
 *
 * Nothing between begin and end may reach the session: no input, no
 * advance. The state must be one block (arena mode's); the backup is the
 * caller's, as large. No allocation, no clock; single-threaded.
 */
#ifndef TEMPO_SUBFRAME_H
#define TEMPO_SUBFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tempo_subframe {
    /* private */
    void *state;
    void *backup;
    size_t size;
    bool active;
    uint64_t checksum;   /* of the state at begin */
    uint64_t renders;    /* begin/end pairs completed */
} tempo_subframe;

/* Use `backup` (size bytes, the caller's) to keep `state` (size bytes)
 * while drawing between frames. Errors: TEMPO_E_INVALID_ARG (NULL, size
 * 0, backup overlapping state). */
TEMPO_API tempo_result tempo_subframe_init(tempo_subframe *sf, void *state, void *backup,
                                           size_t size);

/* How far the render time now_us is past the frame that started at
 * frame_start_us, as a Q16 fraction of frame_us: 0 at the frame's start,
 * 65535 at most (a render time past the next frame is clamped; one before
 * the frame's start gives 0). frame_us 0 gives 0. */
TEMPO_API uint32_t tempo_subframe_alpha(uint64_t frame_start_us, uint32_t frame_us,
                                        uint64_t now_us);

/* Copy the state aside. Errors: TEMPO_E_INVALID_ARG (NULL), TEMPO_E_STATE
 * (already begun). */
TEMPO_API tempo_result tempo_subframe_begin(tempo_subframe *sf);

/* Put the state back as it was at begin. Errors: TEMPO_E_INVALID_ARG
 * (NULL), TEMPO_E_STATE (not begun). */
TEMPO_API tempo_result tempo_subframe_end(tempo_subframe *sf);

/* Begin/end pairs completed. */
TEMPO_API uint64_t tempo_subframe_renders(const tempo_subframe *sf);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_SUBFRAME_H */
