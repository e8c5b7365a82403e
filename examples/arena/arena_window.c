/* SPDX-License-Identifier: MIT */
/*
 * arena_window.c — the first size of a demo's window: its canvas, made
 * smaller when the screen is (the arena's 1312 x 652 canvas and a window's
 * borders do not fit a 1280 x 800 laptop). SDL scales the canvas to
 * whatever size the window has (SDL_RenderSetLogicalSize), so only the
 * window shrinks, never the picture's layout. Shared by the three windows.
 */
#include "arena_sdl.h"

void arena_window_fit(int *w, int *h)
{
    SDL_Rect usable;
    if (SDL_GetDisplayUsableBounds(0, &usable) != 0 || usable.w <= 0 || usable.h <= 0)
        return;
    /* leave room for the window's title bar and borders */
    double sx = 0.94 * usable.w / *w, sy = 0.90 * usable.h / *h;
    double s = sx < sy ? sx : sy;
    if (s >= 1.0)
        return;
    *w = (int)(*w * s);
    *h = (int)(*h * s);
}
