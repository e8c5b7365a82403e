/* SPDX-License-Identifier: MIT */
/*
 * pong.h — the deterministic core of tempo's Pong, the client-server demo.
 *
 * Pong as Pongbat plays it: a server runs the authoritative game, each
 * client predicts its own paddle. Two to eight paddles share the field:
 * even players on the left, odd players on the right. When several share a
 * side, the side's height is cut into equal lanes (bands), one per paddle,
 * and a paddle never leaves its band. The ball bounces off the top and the
 * bottom walls; a paddle sends it back at an angle set by where it hit the
 * paddle (the centre returns it flat, the ends steep) and a little faster
 * each time. A ball that leaves the field scores a point for the other side
 * and is served again, toward the side that lost the point, after a pause.
 *
 * Determinism: the whole game is one struct without pointers or padding,
 * and pong_step is a pure function of (state, inputs, status) with integer
 * arithmetic only (no float anywhere). A copy made with memcpy steps to the
 * same bytes on every run and every little-endian platform, which is what
 * tempo's arena mode needs: the server reads the struct for its snapshots,
 * a client's copy is overwritten by them.
 *
 * Units: positions are in 1/256 of a pixel (PONG_UNIT) on a field of
 * PONG_FIELD_W x PONG_FIELD_H pixels, x to the right, y downward.
 * Velocities are position units per frame, at 60 frames a second.
 *
 * Thread safety: none needed; functions touch only what they are given.
 */
#ifndef PONG_PONG_H
#define PONG_PONG_H

#include <stdint.h>

#include "tempo/tempo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- field and limits -------------------------------------------------- */

#define PONG_MIN_PLAYERS 2
#define PONG_MAX_PLAYERS 8
#define PONG_UNIT 256                       /* position units per pixel */
#define PONG_FIELD_W (640 * PONG_UNIT)
#define PONG_FIELD_H (360 * PONG_UNIT)
#define PONG_PADDLE_W (8 * PONG_UNIT)       /* paddle thickness */
#define PONG_PADDLE_MARGIN (16 * PONG_UNIT) /* from the field's edge to the paddle */
#define PONG_BALL_HALF (4 * PONG_UNIT)      /* the ball is a square of 2 * this */
#define PONG_PADDLE_SPEED (6 * PONG_UNIT)   /* a moving paddle, per frame */
#define PONG_SERVE_FRAMES 60                /* pause before each serve */

/* Sides: 0 is the left (even players), 1 the right (odd players). */
#define PONG_LEFT 0
#define PONG_RIGHT 1

/* ---- input ------------------------------------------------------------- */

/* One byte per player per frame: bit 0 up, bit 1 down. Neither or both
 * keep the paddle still; the other bits are ignored, so every byte value is
 * valid input. */
#define PONG_INPUT_SIZE 1
#define PONG_INPUT_UP 0x01u
#define PONG_INPUT_DOWN 0x02u

/* ---- state ------------------------------------------------------------- */

/* Member order keeps every field at its natural alignment with no padding
 * (pong.c checks the sizes at compile time). */
typedef struct pong_paddle {
    int32_t y;             /* centre, position units */
    int32_t half_h;        /* half the paddle's height */
    int32_t band_top;      /* the paddle's band: its whole body stays in */
    int32_t band_bottom;   /*   band_top..band_bottom */
    uint16_t hits;         /* balls this paddle returned */
    uint16_t misses;       /* balls that passed it in its band */
    uint8_t side;          /* PONG_LEFT or PONG_RIGHT (player & 1) */
    uint8_t lane;          /* 0 is the top band of its side */
    uint8_t lanes;         /* bands on its side */
    uint8_t reserved;      /* always 0 */
} pong_paddle;

typedef struct pong_ball {
    int32_t x, y;          /* centre, position units */
    int32_t vx, vy;        /* per frame; both 0 while waiting to be served */
    int32_t speed;         /* |vx| of the next return */
} pong_ball;

typedef struct pong_state {
    tempo_rng rng;         /* serves */
    uint32_t frame;        /* frames stepped since init */
    uint32_t num_players;  /* PONG_MIN_PLAYERS..PONG_MAX_PLAYERS */
    uint32_t launches;     /* serves and returns since init */
    uint32_t rally;        /* returns since the last serve */
    uint32_t longest_rally;
    uint16_t score[2];     /* points of the left and right side */
    uint16_t serve_timer;  /* frames until the serve; 0 while in play */
    uint8_t serve_side;    /* the side the next serve goes toward */
    uint8_t reserved;      /* always 0 */
    pong_ball ball;
    pong_paddle paddles[PONG_MAX_PLAYERS]; /* slots past num_players all 0 */
} pong_state;

/* ---- simulation -------------------------------------------------------- */

/* Start a match: zero *s, give each player its side and band (paddles in
 * the middle of their bands), put the ball in the centre and the first
 * serve's side and angle in the rng seeded from seed. Errors:
 * TEMPO_E_INVALID_ARG (s NULL, players outside
 * PONG_MIN_PLAYERS..PONG_MAX_PLAYERS; *s is then untouched). */
tempo_result pong_init(pong_state *s, int players, uint64_t seed);

/* Step one frame. inputs holds num_players * PONG_INPUT_SIZE bytes, player
 * 0 first; status holds num_players tempo_input_status bytes, or is NULL
 * for all confirmed. A DISCONNECTED player's paddle stays where it is (it
 * still returns a ball that hits it); any other status plays the input. s
 * must come from pong_init and earlier steps (or a copy of one). Errors:
 * TEMPO_E_INVALID_ARG (s or inputs NULL, or s->num_players out of range;
 * *s is then untouched). */
tempo_result pong_step(pong_state *s, const uint8_t *inputs, const uint8_t *status);

/* tempo_checksum of the whole struct: what tempo's arena mode computes. */
uint64_t pong_checksum(const pong_state *s);

/* ---- views for renderers, bots and reports ----------------------------- */

/* The x of the face a ball bounces off for a side's paddles: the right edge
 * of the left paddles, the left edge of the right paddles. */
int32_t pong_face_x(int side);

/* The paddle of `player`, or NULL if player is outside 0..num_players-1.
 * The pointer is into *s. */
const pong_paddle *pong_player(const pong_state *s, int player);

/* How far the paddle of `player` is from where it is in `b`, position
 * units (0 if player is out of range): how much a correction moved it. */
int32_t pong_paddle_jump(const pong_state *a, const pong_state *b, int player);

/* ---- bot ----------------------------------------------------------------- */

/* The input a bot playing `player` gives for the next frame of *s. It
 * watches the ball only once the ball comes toward its side and has
 * crossed a reaction line, then heads for where the ball will meet its
 * face, aiming at a point of the paddle that can be off by a little more
 * than the paddle's reach: so it returns most balls, at varied angles, and
 * misses some. Between rallies it drifts back to its band's middle. The
 * reaction line and the aim are drawn from (seed, player, s->launches), so
 * the output depends only on the state, the player and the seed. Returns 0
 * (still) for a player out of range or a NULL state. */
uint8_t pong_bot_input(const pong_state *s, int player, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif /* PONG_PONG_H */
