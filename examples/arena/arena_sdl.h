/* SPDX-License-Identifier: MIT */
/*
 * arena_sdl.h — the pieces of tempo-arena-sdl, arena's SDL2 window, shared
 * between its files:
 *   arena_sdl.c       the main loop and the tempo session (start reading here)
 *   arena_options.c   the command line
 *   arena_lag.c       the simulated network delay
 *   arena_controls.c  keyboard and gamepad to arena input
 *   arena_draw.c      the picture; arena_font.c its letters
 *
 * Invariant: nothing here touches the simulation. The renderer reads an
 * arena_state and numbers about the netcode; the controls produce the 4
 * bytes of arena_input. Only tempo's ADVANCE requests change the game.
 */
#ifndef ARENA_SDL_H
#define ARENA_SDL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <SDL.h>

#include "arena.h"
#include "tempo/tempo.h"

/* ---- options (arena_options.c) ------------------------------------------ */

typedef enum arena_mode {
    ARENA_MODE_LOCAL,    /* local session; bots are remote behind a simulated delay */
    ARENA_MODE_SYNCTEST, /* synctest session; every player local */
    ARENA_MODE_P2P,      /* over UDP with other machines: p2p, or through a relay */
    ARENA_MODE_REPLAY    /* a replay file played back (--replay) */
} arena_mode;

typedef struct arena_peer {
    int player;
    tempo_address addr;
} arena_peer;

typedef struct arena_options {
    arena_mode mode;
    bool synctest;       /* --synctest given (mode says what runs) */
    int players;         /* 2..ARENA_MAX_PLAYERS */
    int me;              /* the player this machine's devices drive */
    uint64_t seed;       /* board and bots; peers must agree */
    int delay_ms;        /* simulated one-way delay at the start */
    int input_delay;     /* frames */
    int max_prediction;  /* frames */
    int check_distance;  /* synctest: frames replayed each tick */
    int frames;          /* window: quit after this many ticks; 0 = play on */
    bool headless;       /* --headless given */
    int headless_frames; /* > 0: no window, no devices, bots fly every local ship */
    int render_hz;       /* headless: pictures a second drawn between frames (0: none) */
    const char *screenshot; /* BMP written at the end */
    bool autopilot;      /* window: a bot flies your ship until Tab */
    bool auto_delay;     /* p2p: tempo picks the input delay from the lag */
    int port;            /* p2p: the local UDP port */
    int npeers;          /* p2p: the remote players */
    arena_peer peers[ARENA_MAX_PLAYERS];
    const char *record;  /* --record FILE: the match's replay */
    const char *replay;  /* --replay FILE: play one back */
    bool has_key;        /* p2p: --key or --key-file gave the match key */
    uint8_t key[32];
    const char *key_file;
    bool has_relay;      /* --relay: through a relay instead of --peer */
    tempo_address relay;
    const char *token_file; /* --relay: a member's token (tempo-token --match) */
    uint64_t match;      /* --relay without a token: the match id */
    bool p2p;            /* --p2p: peers the relay introduces (docs/NAT.md) */
} arena_options;

#define ARENA_MAX_DELAY_MS 500
#define ARENA_MAX_INPUT_DELAY 10

typedef enum arena_options_result {
    ARENA_OPTIONS_RUN,   /* *o is filled */
    ARENA_OPTIONS_HELP,  /* the usage went to stdout: exit 0 */
    ARENA_OPTIONS_USAGE  /* the error went to stderr: exit 2 */
} arena_options_result;

/* Parse argv into *o. */
arena_options_result arena_options_parse(int argc, char **argv, arena_options *o);

/* ---- the simulated network (arena_lag.c) --------------------------------- */

#define ARENA_LAG_INPUTS (ARENA_MAX_PLAYERS * 64)
#define ARENA_LAG_DATAGRAMS 1024

typedef struct arena_lag_input {
    uint64_t arrive_us;
    int32_t frame;
    int player;
    uint8_t input[ARENA_INPUT_SIZE];
} arena_lag_input;

typedef struct arena_lag_datagram {
    uint64_t due_us;
    tempo_address to;
    size_t size;
    uint8_t data[TEMPO_MAX_DATAGRAM];
} arena_lag_datagram;

/* A delay line. In a local session it carries the remote bots' inputs to
 * tempo; in a p2p session it holds back this machine's outgoing datagrams
 * before the real transport sends them. Each item is delayed by delay_ms
 * plus or minus half the jitter, so items also overtake each other. */
typedef struct arena_lag {
    int delay_ms;
    uint64_t now_us;  /* the time of the current tick */
    tempo_rng rng;    /* jitter, seeded: a headless run repeats exactly */
    arena_lag_input inputs[ARENA_LAG_INPUTS];
    int ninputs;
    arena_lag_datagram datagrams[ARENA_LAG_DATAGRAMS];
    int ndatagrams;
    tempo_transport inner; /* p2p: the real transport */
} arena_lag;

void arena_lag_init(arena_lag *l, uint64_t seed, int delay_ms);
/* The jitter that goes with the delay: a quarter of it, as on real links. */
int arena_lag_jitter_ms(const arena_lag *l);
/* Put a remote player's input on the line at l->now_us; false if full. */
bool arena_lag_send_input(arena_lag *l, int player, int32_t frame,
                          const uint8_t input[ARENA_INPUT_SIZE]);
/* Hand tempo every input that has arrived by l->now_us. */
tempo_result arena_lag_deliver_inputs(arena_lag *l, tempo_session *s);
/* A transport that delays what it sends through l, then sends it with inner
 * (receiving goes straight to inner). Valid while l is. */
tempo_transport arena_lag_transport(arena_lag *l, tempo_transport inner);
/* Send the datagrams due by l->now_us. */
void arena_lag_flush(arena_lag *l);

/* ---- the picture (arena_draw.c) ------------------------------------------ */

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
    arena_mode mode;
    bool relay;           /* ARENA_MODE_P2P through a relay */
    int human;            /* the player this machine's devices drive, -1: none */
    bool overlay;         /* F1: show what the netcode does, not just the game */
    bool autopilot;       /* a bot flies the human's ship */

    /* Per ship, presentation only. */
    uint8_t flash[ARENA_MAX_PLAYERS];    /* ticks left of the "corrected" tint */
    int32_t ghost_dx[ARENA_MAX_PLAYERS]; /* where it was drawn before the */
    int32_t ghost_dy[ARENA_MAX_PLAYERS]; /* correction, relative, arena units */
    bool predicted[ARENA_MAX_PLAYERS];   /* its input in the newest frame is a guess */
    int shake;                           /* ticks of screen shake left */

    /* The netcode, as the overlay tells it. */
    int32_t frame, confirmed;
    int max_prediction;
    int rollbacks_per_s;
    int last_rollback_depth;
    int input_delay;
    int delay_ms, jitter_ms;   /* simulated one-way delay: delay_ms +- jitter_ms / 2 */
    int ping_ms, loss_pct;     /* p2p: measured, worst peer */
    uint64_t desyncs;          /* p2p: checksums that differed from a peer's */
    uint64_t sync_stalls;      /* p2p: ticks time sync held back */
    double advantage;          /* p2p: frames we run ahead of the peers */
    tempo_tick_status status;  /* of the last tick */
    uint32_t waiting_for;      /* bit p: the session waits for player p */
    int waiting_ticks;         /* ticks in a row the session has waited */
    int longest_wait;          /* the most ticks in a row it waited */
    char replay_line[48];      /* replay mode: where it is, how fast */
    char message[40];          /* the latest session event, for a while */
    int message_ticks;
    uint8_t depth_history[ARENA_VIEW_HISTORY]; /* rollback depth per tick, a ring */
    int history_pos;           /* next slot of depth_history */
    uint64_t synctest_checks, synctest_mismatches;
    int check_distance;
    bool has_pad;              /* a gamepad is open */
} arena_view;

/* Ticks of waiting before the spinner shows (INVERSUS: 20 frames). */
#define ARENA_SPINNER_TICKS 20

/* Draw one picture of v on the logical canvas (ARENA_VIEW_W x ARENA_VIEW_H)
 * and leave it unpresented. */
void arena_draw(SDL_Renderer *r, const arena_view *v);

/* ---- the window (arena_window.c) ---------------------------------------- */

/* Shrink a canvas size (w x h) to fit the screen, keeping its shape, for
 * the window's first size; unchanged if it fits or SDL cannot tell. */
void arena_window_fit(int *w, int *h);

/* Text in the built-in 5x7 font (arena_font.c): each font pixel is a
 * scale x scale square in the current draw colour; glyphs are 6 * scale
 * apart. Returns how far the pen moved. */
int arena_text(SDL_Renderer *r, int x, int y, int scale, const char *text);
/* The width of text's ink at that scale. */
int arena_text_width(const char *text, int scale);

/* ---- controls (arena_controls.c) ----------------------------------------- */

/* The devices of one player: the keyboard and at most one gamepad. */
typedef struct arena_controls {
    SDL_GameController *pad;
} arena_controls;

/* Turn a stick position (x right, y down, each -1..1) into arena's two stick
 * bytes: the angle 0..255 (0 right, 64 down) and the magnitude 0..255. Inside
 * a radial dead zone both are 0; past it the magnitude starts at 24, where
 * arena's ships start moving, and reaches 255 at full tilt. */
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
