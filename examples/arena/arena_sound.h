/* SPDX-License-Identifier: MIT */
/*
 * arena_sound.h — the arena's sounds: a few synthesized blips mixed by an
 * SDL audio callback. Which sounds start and stop is decided by tempo's
 * effects history (tempo/effects.h) in arena_sdl.c; this file only plays.
 */
#ifndef ARENA_ARENA_SOUND_H
#define ARENA_ARENA_SOUND_H

#include <stdbool.h>
#include <stdint.h>

typedef enum arena_sound_kind {
    ARENA_SOUND_SHOT = 0,
    ARENA_SOUND_CHARGED = 1,
    ARENA_SOUND_KILL = 2
} arena_sound_kind;

/* Open the audio device; false (and silence) if there is none. */
bool arena_sound_open(void);
void arena_sound_close(void);
/* Start a sound; returns its handle (never 0), or 0 when silent. */
uint64_t arena_sound_play(arena_sound_kind kind);
/* Stop the sound with that handle if it still plays. */
void arena_sound_stop(uint64_t handle);

#endif /* ARENA_ARENA_SOUND_H */
