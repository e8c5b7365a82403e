/*
 * arena_sdl.h — the pieces of tempo-arena-sdl, arena's SDL2 window, shared
 * between its files: what the renderer is shown (arena_view), how it draws
 * (arena_draw.c) and how keyboard and gamepad become arena input
 * (arena_controls.c). The main loop and the tempo session live in
 * arena_sdl.c.
 *
 * Invariant: nothing here touches the simulation. The renderer reads an
 * arena_state and numbers about the netcode; the controls produce the 4
 * bytes of arena_input. Only tempo's ADVANCE requests change the game.
 */
#ifndef ARENA_SDL_H
#define ARENA_SDL_H

#include <stdbool.h>
#include <stdint.h>

#include <SDL.h>

#include "arena.h"

/* The picture is laid out on a fixed logical canvas of this size; SDL scales
 * it to the window (SDL_RenderSetLogicalSize). */
#define ARENA_VIEW_W 1312
#define ARENA_VIEW_H 652

/* Ticks of rollback depth kept for the overlay's graph (2 s at 60 Hz). */
#define ARENA_VIEW_HISTORY 120
/* Ticks a ship stays tinted after a rollback moved it (a quarter second). */
#define ARENA_FLASH_TICKS 15

/* Everything the renderer draws besides the game state itself: presentation
 * effects and the netcode's numbers, filled by the main loop each tick. */
typedef struct arena_view {
    const arena_state *game;
    int human;            /* the player this machine's devices drive, -1: none */
    bool overlay;         /* F1: show what the netcode does, not just the game */
    bool synctest;        /* the session is a synctest */
    bool autopilot;       /* a bot flies the human's ship */

    /* Per ship, presentation only. */
    uint8_t flash[ARENA_MAX_PLAYERS];   /* ticks left of the "corrected" tint */
    int32_t ghost_dx[ARENA_MAX_PLAYERS]; /* where it was drawn before the */
    int32_t ghost_dy[ARENA_MAX_PLAYERS]; /* correction, relative, arena units */
    bool predicted[ARENA_MAX_PLAYERS];  /* its input in the newest frame is a guess */
    int shake;                          /* ticks of screen shake left */

    /* The netcode, as the overlay tells it. */
    int32_t frame, confirmed;
    int max_prediction;
    int rollbacks_per_s;
    int last_rollback_depth;
    int input_delay;
    int delay_ms, jitter_ms;            /* simulated one-way delay: delay_ms +- jitter_ms / 2 */
    uint32_t waiting_for;               /* bit p: the session waits for player p */
    uint8_t depth_history[ARENA_VIEW_HISTORY]; /* rollback depth per tick, a ring */
    int history_pos;                    /* next slot of depth_history */
    uint64_t synctest_checks, synctest_mismatches;
    int check_distance;
    bool has_pad;                       /* a gamepad is open */
} arena_view;

/* Draw one picture of v on the logical canvas (ARENA_VIEW_W x ARENA_VIEW_H)
 * and leave it unpresented. */
void arena_draw(SDL_Renderer *r, const arena_view *v);

/* Text in the built-in 5x7 font (arena_font.c): each font pixel is a
 * scale x scale square in the current draw colour; glyphs are 6 * scale
 * apart. Returns how far the pen moved. */
int arena_text(SDL_Renderer *r, int x, int y, int scale, const char *text);
/* The width of text's ink at that scale. */
int arena_text_width(const char *text, int scale);

/* ---- controls ----------------------------------------------------------- */

/* The devices of one player: the keyboard and at most one gamepad. */
typedef struct arena_controls {
    SDL_GameController *pad;
} arena_controls;

/* Turn a stick position (x right, y down, each -1..1) into arena's two stick
 * bytes: the angle 0..255 (0 right, 64 down) and the magnitude 0..255, with
 * a radial dead zone rescaled so the magnitude starts at 0 just past it. */
void arena_quantize_stick(float x, float y, uint8_t *angle, uint8_t *magnitude);

/* Open the first gamepad present, if any. */
void arena_controls_open(arena_controls *c);
/* Follow gamepads being plugged in and pulled out. */
void arena_controls_handle_event(arena_controls *c, const SDL_Event *ev);
/* Sample the keyboard and the gamepad now. */
arena_input arena_controls_sample(const arena_controls *c);
/* Close the gamepad. */
void arena_controls_close(arena_controls *c);

#endif /* ARENA_SDL_H */
