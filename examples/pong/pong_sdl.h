/* SPDX-License-Identifier: MIT */
/*
 * pong_sdl.h — the pieces of tempo-pong-sdl, Pong's SDL2 window, shared
 * between its files:
 *   pong_sdl.c   the main loop, the keys, the client (start reading here)
 *   pong_draw.c  the picture: field, paddles, ball, score, overlay
 * Letters come from arena's 5x7 font (examples/arena/arena_font.c).
 *
 * Invariant: drawing never touches the simulation. The renderer reads a
 * pong_state and numbers about the netcode gathered in a pong_view; only
 * tempo's ADVANCE requests change the game.
 */
#ifndef PONG_SDL_H
#define PONG_SDL_H

#include <stdbool.h>
#include <stdint.h>

#include <SDL.h>

#include "pong.h"
#include "tempo/client.h"

/* The logical canvas: the field at twice its pixel size. SDL scales it to
 * the window (SDL_RenderSetLogicalSize). */
#define PONG_VIEW_SCALE 2
#define PONG_VIEW_W (PONG_FIELD_W / PONG_UNIT * PONG_VIEW_SCALE)
#define PONG_VIEW_H (PONG_FIELD_H / PONG_UNIT * PONG_VIEW_SCALE)

/* Everything the picture shows besides the game itself. */
typedef struct pong_view {
    const pong_state *game;     /* what the player sees: predicted ahead */
    const pong_state *server;   /* the newest snapshot as it came, or NULL */
    int me;                     /* our paddle, -1: none yet */
    bool overlay;               /* F1 */
    bool bot;                   /* a bot plays our paddle (B) */
    bool local;                 /* --local: no server, no netcode numbers */
    const char *status;         /* a line in the middle ("CONNECTING"), or NULL */
    tempo_reconcile_mode reconcile;
    /* The netcode, as the overlay tells it (client only). */
    double ping_ms;
    double lead_ticks;          /* ticks we run ahead of the server */
    double dilation;            /* tick-length change, a fraction */
    int corrections_per_s;      /* snapshots that moved the state, last second */
    double correction_mean_px;  /* how far they moved our paddle, on average */
    uint64_t late_inputs;       /* ticks the server played our input late */
    int32_t tick, server_tick;
    uint64_t bytes_per_s;       /* received, last second */
} pong_view;

/* Draw one picture of v on the logical canvas and leave it unpresented. */
void pong_draw(SDL_Renderer *r, const pong_view *v);

/* arena's font (examples/arena/arena_font.c): each font pixel a scale x
 * scale square in the draw colour, glyphs 6 * scale apart. */
int arena_text(SDL_Renderer *r, int x, int y, int scale, const char *text);
int arena_text_width(const char *text, int scale);
/* The window's first size, shrunk to fit the screen (arena_window.c). */
void arena_window_fit(int *w, int *h);

#endif /* PONG_SDL_H */
