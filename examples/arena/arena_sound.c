/* SPDX-License-Identifier: MIT */
/*
 * arena_sound.c — eight voices of square waves and noise, mixed in SDL's
 * audio callback. The game thread starts and stops voices under the audio
 * device's lock.
 */
#include "arena_sound.h"

#include <SDL.h>
#include <stdio.h>
#include <string.h>

#include "platform.h"

#define VOICES 8
#define RATE 44100

typedef struct voice {
    uint64_t handle;   /* 0: free */
    int kind;
    int left, total;   /* samples */
    uint32_t phase, step, noise;
} voice;

static SDL_AudioDeviceID device;
static voice voices[VOICES];
static uint64_t next_handle = 1;

static void mix(void *ctx, Uint8 *stream, int len)
{
    (void)ctx;
    int16_t *out = (int16_t *)(void *)stream;
    int n = len / (int)sizeof *out;
    memset(stream, 0, (size_t)len);
    for (int v = 0; v < VOICES; v++) {
        voice *s = &voices[v];
        for (int i = 0; i < n && s->left > 0; i++, s->left--) {
            int amp = 2600 * s->left / s->total; /* a linear fade */
            int sample;
            if (s->kind == ARENA_SOUND_KILL) {
                s->noise = s->noise * 1103515245u + 12345u;
                sample = (int)(s->noise >> 16 & 0x7FFF) - 0x4000 > 0 ? amp : -amp;
            } else {
                s->phase += s->step;
                sample = s->phase & 0x80000000u ? amp : -amp;
            }
            int mixed = out[i] + sample;
            out[i] = (int16_t)(mixed > 32767 ? 32767 : mixed < -32768 ? -32768 : mixed);
        }
        if (s->left <= 0)
            s->handle = 0;
    }
}

bool arena_sound_open(void)
{
    /* Without a sound card the audio libraries under SDL print a page of
     * errors of their own; one line of ours says it better. */
    int quiet = platform_stderr_mute();
    device = 0;
    if (SDL_InitSubSystem(SDL_INIT_AUDIO) == 0) {
        SDL_AudioSpec want, got;
        memset(&want, 0, sizeof want);
        want.freq = RATE;
        want.format = AUDIO_S16SYS;
        want.channels = 1;
        want.samples = 512;
        want.callback = mix;
        device = SDL_OpenAudioDevice(NULL, 0, &want, &got, 0);
        if (device == 0)
            SDL_QuitSubSystem(SDL_INIT_AUDIO);
    }
    platform_stderr_unmute(quiet);
    if (device == 0) {
        fprintf(stderr, "tempo-arena-sdl: no sound (%s): playing silent\n", SDL_GetError());
        return false;
    }
    SDL_PauseAudioDevice(device, 0);
    return true;
}

void arena_sound_close(void)
{
    if (device == 0)
        return;
    SDL_CloseAudioDevice(device);
    SDL_QuitSubSystem(SDL_INIT_AUDIO);
    device = 0;
}

uint64_t arena_sound_play(arena_sound_kind kind)
{
    if (device == 0)
        return 0;
    static const int ms[3] = {70, 140, 260};
    static const int hz[3] = {1320, 520, 0};
    SDL_LockAudioDevice(device);
    int pick = 0;
    for (int v = 1; v < VOICES; v++) /* a free voice, else the one nearest its end */
        if (voices[v].left < voices[pick].left)
            pick = v;
    voice *s = &voices[pick];
    s->handle = next_handle++;
    s->kind = (int)kind;
    s->total = s->left = RATE * ms[kind] / 1000;
    s->phase = 0;
    s->step = (uint32_t)((uint64_t)hz[kind] * 4294967296ull / RATE);
    s->noise = (uint32_t)s->handle * 2654435761u;
    uint64_t h = s->handle;
    SDL_UnlockAudioDevice(device);
    return h;
}

void arena_sound_stop(uint64_t handle)
{
    if (device == 0 || handle == 0)
        return;
    SDL_LockAudioDevice(device);
    for (int v = 0; v < VOICES; v++)
        if (voices[v].handle == handle) {
            voices[v].left = 0;
            voices[v].handle = 0;
        }
    SDL_UnlockAudioDevice(device);
}
