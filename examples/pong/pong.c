/* SPDX-License-Identifier: MIT */
/*
 * pong.c — the rules of Pong: bands, paddles, the ball's flight, walls,
 * returns, points and serves, and the bot.
 *
 * Invariant: everything the game knows is in the pong_state handed in; a
 * step reads (state, inputs, status) and nothing else, paddles first in
 * player order, then the ball, with integer arithmetic only. Every paddle's
 * body stays inside its band, and the ball's centre stays inside the
 * field's height less the ball's half.
 *
 * A return is found by sweeping: the ball's leading edge must cross a
 * side's face line during the frame, and the ball's centre where it
 * crosses must be within a paddle's reach. A fast ball cannot pass through
 * a paddle between two frames, whatever its speed. The angle rule is the
 * arcade one (Atari's Pong, 1972): the farther from the paddle's centre the
 * ball hits, the steeper it leaves, while its horizontal speed grows a
 * little with each return.
 */
#include "pong.h"

#include <stddef.h>
#include <string.h>

/* The rules are integer-only: the compiler rejects the floating types here
 * (and CMakeLists.txt makes an implicit float-to-int conversion an error). */
#if defined(__GNUC__)
#pragma GCC poison float double
#endif

/* ---- layout checks ------------------------------------------------------ */

/* No padding anywhere, so every byte tempo copies and checksums is a byte
 * the game wrote. */
_Static_assert(sizeof(tempo_rng) == 16, "tempo_rng is two uint64_t");
_Static_assert(sizeof(pong_paddle) == 4 * 4 + 2 * 2 + 4, "pong_paddle has padding");
_Static_assert(sizeof(pong_ball) == 5 * 4, "pong_ball has padding");
_Static_assert(offsetof(pong_state, ball) == 16 + 5 * 4 + 2 * 2 + 2 + 1 + 1,
               "pong_state header has padding");
_Static_assert(sizeof(pong_state) == offsetof(pong_state, ball) + sizeof(pong_ball) +
                                         PONG_MAX_PLAYERS * sizeof(pong_paddle),
               "pong_state has padding");
_Static_assert(PONG_MAX_PLAYERS <= TEMPO_MAX_PLAYERS, "more players than tempo carries");
_Static_assert(PONG_INPUT_SIZE <= TEMPO_MAX_INPUT_SIZE, "input larger than tempo carries");

/* ---- tuning (per frame at 60 frames a second) ---------------------------- */

#define SERVE_SPEED (5 * PONG_UNIT)       /* 300 pixels a second */
#define SPEED_STEP (PONG_UNIT / 4)        /* added by each return */
#define MAX_SPEED (12 * PONG_UNIT)        /* 720 pixels a second */
#define STEEP_NUM 5                       /* a ball off the paddle's end */
#define STEEP_DEN 4                       /*   leaves at |vy| = 5/4 |vx| */
#define SERVE_SLOPE_PCT 50                /* a serve's |vy| is at most half its |vx| */
#define RNG_STREAM 0x706f6e67u            /* "pong" */

/* Half a paddle's height by how many paddles share its side: one paddle
 * spans 64 pixels, four share 360 pixels with 40 each. */
static const int32_t paddle_half_h[4] = {32 * PONG_UNIT, 28 * PONG_UNIT, 24 * PONG_UNIT,
                                         20 * PONG_UNIT};

/* A paddle fits its band with room to move; a ball cannot cross a band in
 * one frame. */
_Static_assert(2 * 32 * PONG_UNIT < PONG_FIELD_H, "one paddle is taller than the field");
_Static_assert(2 * 20 * PONG_UNIT < PONG_FIELD_H / 4, "four paddles do not fit a side");
_Static_assert(MAX_SPEED * STEEP_NUM / STEEP_DEN < PONG_FIELD_H / 4, "ball too fast");
_Static_assert(MAX_SPEED < PONG_FIELD_W / 4, "ball too fast");

/* ---- helpers ------------------------------------------------------------ */

static int32_t clamp32(int32_t v, int32_t lo, int32_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

int32_t pong_face_x(int side)
{
    return side == PONG_LEFT ? PONG_PADDLE_MARGIN + PONG_PADDLE_W
                             : PONG_FIELD_W - PONG_PADDLE_MARGIN - PONG_PADDLE_W;
}

const pong_paddle *pong_player(const pong_state *s, int player)
{
    if (!s || player < 0 || (uint32_t)player >= s->num_players ||
        s->num_players > PONG_MAX_PLAYERS)
        return NULL;
    return &s->paddles[player];
}

int32_t pong_paddle_jump(const pong_state *a, const pong_state *b, int player)
{
    const pong_paddle *pa = pong_player(a, player), *pb = pong_player(b, player);
    if (!pa || !pb)
        return 0;
    int32_t d = pa->y - pb->y;
    return d < 0 ? -d : d;
}

/* Players on a side: the left gets the odd one out. */
static int side_players(uint32_t players, int side)
{
    return side == PONG_LEFT ? (int)(players + 1) / 2 : (int)players / 2;
}

/* Ball back in the centre, waiting to be served toward `side`. The serve's
 * height and angle are drawn when it leaves. */
static void ball_wait(pong_state *s, int side)
{
    s->ball.x = PONG_FIELD_W / 2;
    s->ball.y = PONG_FIELD_H / 2;
    s->ball.vx = 0;
    s->ball.vy = 0;
    s->ball.speed = SERVE_SPEED;
    s->serve_timer = PONG_SERVE_FRAMES;
    s->serve_side = (uint8_t)side;
    s->rally = 0;
}

static void serve(pong_state *s)
{
    int32_t spread = SERVE_SPEED * SERVE_SLOPE_PCT / 100;
    s->ball.y = tempo_rng_range(&s->rng, PONG_FIELD_H / 4, PONG_FIELD_H * 3 / 4);
    s->ball.vx = s->serve_side == PONG_LEFT ? -SERVE_SPEED : SERVE_SPEED;
    s->ball.vy = tempo_rng_range(&s->rng, -spread, spread);
    s->launches++;
}

/* ---- simulation ---------------------------------------------------------- */

tempo_result pong_init(pong_state *s, int players, uint64_t seed)
{
    if (!s || players < PONG_MIN_PLAYERS || players > PONG_MAX_PLAYERS)
        return TEMPO_E_INVALID_ARG;
    memset(s, 0, sizeof *s);
    tempo_rng_seed(&s->rng, seed, RNG_STREAM);
    s->num_players = (uint32_t)players;
    for (int p = 0; p < players; p++) {
        pong_paddle *pd = &s->paddles[p];
        int side = p & 1, lanes = side_players((uint32_t)players, side), lane = p / 2;
        pd->side = (uint8_t)side;
        pd->lane = (uint8_t)lane;
        pd->lanes = (uint8_t)lanes;
        pd->half_h = paddle_half_h[lanes - 1];
        pd->band_top = PONG_FIELD_H / lanes * lane;
        pd->band_bottom = lane == lanes - 1 ? PONG_FIELD_H : PONG_FIELD_H / lanes * (lane + 1);
        pd->y = (pd->band_top + pd->band_bottom) / 2;
    }
    ball_wait(s, (int)(tempo_rng_next(&s->rng) & 1u));
    return TEMPO_OK;
}

static void move_paddles(pong_state *s, const uint8_t *inputs, const uint8_t *status)
{
    for (uint32_t p = 0; p < s->num_players; p++) {
        if (status && status[p] == TEMPO_INPUT_DISCONNECTED)
            continue;
        pong_paddle *pd = &s->paddles[p];
        uint8_t in = inputs[p * PONG_INPUT_SIZE];
        int up = (in & PONG_INPUT_UP) != 0, down = (in & PONG_INPUT_DOWN) != 0;
        if (up == down)
            continue;
        int32_t y = pd->y + (down ? PONG_PADDLE_SPEED : -PONG_PADDLE_SPEED);
        pd->y = clamp32(y, pd->band_top + pd->half_h, pd->band_bottom - pd->half_h);
    }
}

/* The player whose band on `side` holds height y (the top band above the
 * field, the bottom one below it). */
static int band_owner(const pong_state *s, int side, int32_t y)
{
    int lane = side_players(s->num_players, side) - 1;
    while (lane > 0 && y < s->paddles[2 * lane + side].band_top)
        lane--;
    return 2 * lane + side;
}

/* The ball's leading edge went from lead0 to lead1 this frame (ball centre
 * from (x0, y0)). If it crossed `side`'s face, return it off the paddle in
 * reach or count the miss. */
static void sweep_face(pong_state *s, int side, int32_t x0, int32_t y0)
{
    pong_ball *b = &s->ball;
    int32_t face = pong_face_x(side);
    int32_t lead0 = side == PONG_LEFT ? x0 - PONG_BALL_HALF : x0 + PONG_BALL_HALF;
    int32_t lead1 = side == PONG_LEFT ? b->x - PONG_BALL_HALF : b->x + PONG_BALL_HALF;
    int crossed = side == PONG_LEFT ? lead0 >= face && lead1 < face : lead0 <= face && lead1 > face;
    if (!crossed)
        return;
    /* Height of the centre when the edge met the face, on the straight
     * line of this frame. */
    int64_t num = (int64_t)(lead0 - face) * (b->y - y0);
    int32_t y_hit = y0 + (int32_t)(num / (lead0 - lead1));
    for (uint32_t p = (uint32_t)side; p < s->num_players; p += 2) {
        pong_paddle *pd = &s->paddles[p];
        int32_t off = y_hit - pd->y, reach = pd->half_h + PONG_BALL_HALF;
        if (off < -reach || off > reach)
            continue;
        b->speed = b->speed + SPEED_STEP > MAX_SPEED ? MAX_SPEED : b->speed + SPEED_STEP;
        b->vx = side == PONG_LEFT ? b->speed : -b->speed;
        b->vy = (int32_t)((int64_t)b->speed * off * STEEP_NUM / ((int64_t)reach * STEEP_DEN));
        /* The rest of the frame's travel, mirrored off the face. */
        b->x += 2 * (face - lead1);
        pd->hits++;
        s->launches++;
        s->rally++;
        if (s->rally > s->longest_rally)
            s->longest_rally = s->rally;
        return;
    }
    s->paddles[band_owner(s, side, y_hit)].misses++;
}

static void move_ball(pong_state *s)
{
    pong_ball *b = &s->ball;
    int32_t x0 = b->x, y0 = b->y;
    b->x += b->vx;
    b->y += b->vy;
    if (b->vx < 0)
        sweep_face(s, PONG_LEFT, x0, y0);
    else if (b->vx > 0)
        sweep_face(s, PONG_RIGHT, x0, y0);
    /* Walls: the travel past one is mirrored back. */
    int32_t top = PONG_BALL_HALF, bottom = PONG_FIELD_H - PONG_BALL_HALF;
    if (b->y < top) {
        b->y = 2 * top - b->y;
        b->vy = -b->vy;
    } else if (b->y > bottom) {
        b->y = 2 * bottom - b->y;
        b->vy = -b->vy;
    }
    b->y = clamp32(b->y, top, bottom);
    /* Wholly out of the field: a point for the other side. */
    if (b->x < -PONG_BALL_HALF) {
        s->score[PONG_RIGHT]++;
        ball_wait(s, PONG_LEFT);
    } else if (b->x > PONG_FIELD_W + PONG_BALL_HALF) {
        s->score[PONG_LEFT]++;
        ball_wait(s, PONG_RIGHT);
    }
}

tempo_result pong_step(pong_state *s, const uint8_t *inputs, const uint8_t *status)
{
    if (!s || !inputs || s->num_players < PONG_MIN_PLAYERS || s->num_players > PONG_MAX_PLAYERS)
        return TEMPO_E_INVALID_ARG;
    move_paddles(s, inputs, status);
    if (s->serve_timer > 0) {
        if (--s->serve_timer == 0)
            serve(s);
    } else {
        move_ball(s);
    }
    s->frame++;
    return TEMPO_OK;
}

uint64_t pong_checksum(const pong_state *s) { return tempo_checksum(s, sizeof *s); }

/* ---- bot ----------------------------------------------------------------- */

/* The bot's reaction line is 40..80% of the field's width from its face;
 * its aim is off the paddle's centre by up to AIM_PCT of the paddle's
 * reach, so about one aim in five misses outright. */
#define REACT_MIN_PCT 40
#define REACT_SPAN_PCT 40
#define AIM_PCT 125

/* The splitmix64 finalizer (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014): one 64-bit value to a
 * well-mixed one. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Where the ball's centre will be when its leading edge reaches the face
 * `dist` units away, the walls folded in. */
static int32_t arrival_y(const pong_ball *b, int32_t dist)
{
    int32_t speed = b->vx < 0 ? -b->vx : b->vx;
    int64_t span = PONG_FIELD_H - 2 * PONG_BALL_HALF;
    int64_t y = (int64_t)b->y - PONG_BALL_HALF + (int64_t)b->vy * (dist / speed);
    y %= 2 * span;
    if (y < 0)
        y += 2 * span;
    if (y > span)
        y = 2 * span - y;
    return (int32_t)y + PONG_BALL_HALF;
}

uint8_t pong_bot_input(const pong_state *s, int player, uint64_t seed)
{
    const pong_paddle *pd = pong_player(s, player);
    if (!pd)
        return 0;
    const pong_ball *b = &s->ball;
    int32_t target = pd->band_top + (pd->band_bottom - pd->band_top) / 2;
    int32_t slack = (pd->band_bottom - pd->band_top) / 4; /* lazy between rallies */
    int toward = pd->side == PONG_LEFT ? b->vx < 0 : b->vx > 0;
    if (toward) {
        int32_t face = pong_face_x(pd->side);
        int32_t dist = pd->side == PONG_LEFT ? b->x - PONG_BALL_HALF - face
                                             : face - b->x - PONG_BALL_HALF;
        uint64_t h = mix64(seed ^ mix64((uint64_t)player * 0x9e3779b97f4a7c15u + s->launches));
        int32_t react = PONG_FIELD_W / 100 * (REACT_MIN_PCT + (int32_t)(h % REACT_SPAN_PCT));
        if (dist >= 0 && dist <= react) {
            int32_t reach = (pd->half_h + PONG_BALL_HALF) / 100 * AIM_PCT;
            int32_t aim = (int32_t)((h >> 16) % (uint64_t)(2 * reach + 1)) - reach;
            target = arrival_y(b, dist) - aim;
            slack = PONG_PADDLE_SPEED / 2;
        }
    }
    target = clamp32(target, pd->band_top + pd->half_h, pd->band_bottom - pd->half_h);
    if (target > pd->y + slack)
        return PONG_INPUT_DOWN;
    if (target < pd->y - slack)
        return PONG_INPUT_UP;
    return 0;
}
