/* SPDX-License-Identifier: MIT */
/*
 * arena.c — the rules of arena: board layout, ship movement, firing and
 * charging, shots that paint tiles, hits, score and respawn.
 *
 * Invariant: everything the game knows is in the arena_state handed in; a
 * step reads (state, inputs, status) and nothing else, in a fixed order,
 * with integer arithmetic only. Players are handled in index order, then
 * shots in slot order, so ties always break the same way.
 *
 * Trigonometry is a constant table: 256 values of sin in Q14, generated once
 * with `python3 -c "import math; print([round(16384 * math.sin(2 * math.pi *
 * i / 256)) for i in range(256)])"` and pasted below. The table is data, so
 * no platform's libm is involved; tests/test_arena.c checks it against sin().
 */
#include "arena.h"

#include <stddef.h>
#include <string.h>

/* The rules are integer-only: the compiler rejects the floating types here
 * (and CMakeLists.txt makes an implicit float-to-int conversion an error). */
#if defined(__GNUC__)
#pragma GCC poison float double
#endif

/* ---- layout checks ------------------------------------------------------ */

/* No padding anywhere: the sizes must equal the sum of the members, so every
 * byte tempo copies and checksums is a byte the game wrote. */
_Static_assert(sizeof(tempo_rng) == 16, "tempo_rng is two uint64_t");
_Static_assert(sizeof(arena_ship) == 4 + 4 + 2 + 2 + 2 + 8 + 2, "arena_ship has padding");
_Static_assert(sizeof(arena_shot) == 4 + 4 + 4, "arena_shot has padding");
_Static_assert(offsetof(arena_state, ships) == 24, "arena_state header has padding");
_Static_assert(sizeof(arena_state) ==
                   24 + ARENA_MAX_PLAYERS * sizeof(arena_ship) +
                       ARENA_MAX_SHOTS * sizeof(arena_shot) + ARENA_BOARD_W * ARENA_BOARD_H,
               "arena_state has padding");
_Static_assert(ARENA_MAX_PLAYERS <= TEMPO_MAX_PLAYERS, "more players than tempo carries");
_Static_assert(ARENA_INPUT_SIZE <= TEMPO_MAX_INPUT_SIZE, "input larger than tempo carries");

/* ---- tuning (per frame at 60 frames a second) ---------------------------- */

#define BOARD_W_UNITS (ARENA_BOARD_W * ARENA_TILE)
#define BOARD_H_UNITS (ARENA_BOARD_H * ARENA_TILE)
#define SHIP_SPEED 120        /* units a frame at full deflection: 7 tiles/s */
#define DEADZONE 24           /* stick magnitude below this is rest */
#define SHOT_SPEED 360        /* a plain shot: 21 tiles/s */
#define CHARGED_SPEED 480     /* a charged shot: 28 tiles/s */
#define SHOT_HALF 192         /* a plain shot's box, both axes */
#define CHARGED_HALF_LONG 256 /* a charged shot's box along its flight */
#define CHARGED_HALF_WIDE 1408 /* ...and across: nearly three lanes */
#define SPAWN_TRIES 6         /* random respawn places compared */
#define PILLAR_PAIRS 7        /* mirrored pillar pairs wanted on the board */
#define RNG_STREAM 0x6172656e61u /* "arena" */

/* Every tile crossed must hold the shot's centre for at least one frame, or
 * it would skip painting a tile or jump a pillar. */
_Static_assert(SHOT_SPEED < ARENA_TILE && CHARGED_SPEED < ARENA_TILE, "shots would skip tiles");
_Static_assert(SHIP_SPEED < ARENA_TILE - 2 * ARENA_SHIP_HALF, "ships would skip a tile line");

static const int16_t sin_q14[256] = {
    0,      402,    804,    1205,   1606,   2006,   2404,   2801,   3196,   3590,   3981,
    4370,   4756,   5139,   5520,   5897,   6270,   6639,   7005,   7366,   7723,   8076,
    8423,   8765,   9102,   9434,   9760,   10080,  10394,  10702,  11003,  11297,  11585,
    11866,  12140,  12406,  12665,  12916,  13160,  13395,  13623,  13842,  14053,  14256,
    14449,  14635,  14811,  14978,  15137,  15286,  15426,  15557,  15679,  15791,  15893,
    15986,  16069,  16143,  16207,  16261,  16305,  16340,  16364,  16379,  16384,  16379,
    16364,  16340,  16305,  16261,  16207,  16143,  16069,  15986,  15893,  15791,  15679,
    15557,  15426,  15286,  15137,  14978,  14811,  14635,  14449,  14256,  14053,  13842,
    13623,  13395,  13160,  12916,  12665,  12406,  12140,  11866,  11585,  11297,  11003,
    10702,  10394,  10080,  9760,   9434,   9102,   8765,   8423,   8076,   7723,   7366,
    7005,   6639,   6270,   5897,   5520,   5139,   4756,   4370,   3981,   3590,   3196,
    2801,   2404,   2006,   1606,   1205,   804,    402,    0,      -402,   -804,   -1205,
    -1606,  -2006,  -2404,  -2801,  -3196,  -3590,  -3981,  -4370,  -4756,  -5139,  -5520,
    -5897,  -6270,  -6639,  -7005,  -7366,  -7723,  -8076,  -8423,  -8765,  -9102,  -9434,
    -9760,  -10080, -10394, -10702, -11003, -11297, -11585, -11866, -12140, -12406, -12665,
    -12916, -13160, -13395, -13623, -13842, -14053, -14256, -14449, -14635, -14811, -14978,
    -15137, -15286, -15426, -15557, -15679, -15791, -15893, -15986, -16069, -16143, -16207,
    -16261, -16305, -16340, -16364, -16379, -16384, -16379, -16364, -16340, -16305, -16261,
    -16207, -16143, -16069, -15986, -15893, -15791, -15679, -15557, -15426, -15286, -15137,
    -14978, -14811, -14635, -14449, -14256, -14053, -13842, -13623, -13395, -13160, -12916,
    -12665, -12406, -12140, -11866, -11585, -11297, -11003, -10702, -10394, -10080, -9760,
    -9434,  -9102,  -8765,  -8423,  -8076,  -7723,  -7366,  -7005,  -6639,  -6270,  -5897,
    -5520,  -5139,  -4756,  -4370,  -3981,  -3590,  -3196,  -2801,  -2404,  -2006,  -1606,
    -1205,  -804,   -402,
};

/* Start tiles of team 0's players 0, 2, 4, 6; player 2k + 1 of team 1 starts
 * at the point mirror of player 2k's tile. */
static const uint8_t start_tile[4][2] = {{3, 4}, {3, 13}, {6, 8}, {1, 8}};

/* Shot directions, indexed by arena_shot.dir: up, down, left, right. */
static const int8_t dir_x[4] = {0, 0, -1, 1};
static const int8_t dir_y[4] = {-1, 1, 0, 0};

int32_t arena_sin_q14(uint8_t angle) { return sin_q14[angle]; }
int32_t arena_cos_q14(uint8_t angle) { return sin_q14[(uint8_t)(angle + 64u)]; }

void arena_input_pack(const arena_input *in, uint8_t out[ARENA_INPUT_SIZE])
{
    out[0] = in->angle;
    out[1] = in->magnitude;
    out[2] = in->buttons;
    out[3] = in->reserved;
}

void arena_input_unpack(const uint8_t in[ARENA_INPUT_SIZE], arena_input *out)
{
    out->angle = in[0];
    out->magnitude = in[1];
    out->buttons = in[2];
    out->reserved = in[3];
}

/* ---- board -------------------------------------------------------------- */

int arena_tile(const arena_state *s, int tx, int ty)
{
    if (tx < 0 || ty < 0 || tx >= ARENA_BOARD_W || ty >= ARENA_BOARD_H)
        return ARENA_TILE_SOLID;
    return s->tiles[ty][tx];
}

static int32_t tile_centre(int t) { return (int32_t)t * ARENA_TILE + ARENA_TILE / 2; }

/* The tile index holding a position; negative positions map below 0. */
static int tile_of(int32_t v) { return v >= 0 ? (int)(v / ARENA_TILE) : -1; }

/* Paint a tile a team's colour; pillars and off-board tiles stay. */
static void paint(arena_state *s, int tx, int ty, int team)
{
    if (arena_tile(s, tx, ty) != ARENA_TILE_SOLID)
        s->tiles[ty][tx] = (uint8_t)team;
}

static void start_of(int player, int *tx, int *ty)
{
    int k = player >> 1;
    *tx = start_tile[k][0];
    *ty = start_tile[k][1];
    if (player & 1) {
        *tx = ARENA_BOARD_W - 1 - *tx;
        *ty = ARENA_BOARD_H - 1 - *ty;
    }
}

/* True if a pillar of w x h at (tx, ty) keeps a clear tile all around it (so
 * pillars never touch, not even at a corner, and cannot close a pocket) and
 * stays off team 0's start tiles and their neighbours. */
static int pillar_fits(const arena_state *s, int tx, int ty, int w, int h)
{
    for (int y = ty - 1; y <= ty + h; y++)
        for (int x = tx - 1; x <= tx + w; x++)
            if (arena_tile(s, x, y) == ARENA_TILE_SOLID)
                return 0;
    for (int k = 0; k < 4; k++) {
        int sx = start_tile[k][0], sy = start_tile[k][1];
        if (sx >= tx - 1 && sx <= tx + w && sy >= ty - 1 && sy <= ty + h)
            return 0;
    }
    return 1;
}

/* Left half light, right half dark, and pillar pairs mirrored through the
 * centre so both teams get the same board. Pillars stay two tiles off the
 * edges and in columns 2..14, so a pillar and its mirror never meet. */
static void lay_out_board(arena_state *s)
{
    for (int y = 0; y < ARENA_BOARD_H; y++)
        for (int x = 0; x < ARENA_BOARD_W; x++)
            s->tiles[y][x] = x < ARENA_BOARD_W / 2 ? ARENA_TILE_LIGHT : ARENA_TILE_DARK;
    int placed = 0;
    for (int attempt = 0; attempt < 8 * PILLAR_PAIRS && placed < PILLAR_PAIRS; attempt++) {
        int w = tempo_rng_range(&s->rng, 1, 2);
        int h = tempo_rng_range(&s->rng, 1, 2);
        int tx = tempo_rng_range(&s->rng, 2, 15 - w);
        int ty = tempo_rng_range(&s->rng, 2, ARENA_BOARD_H - 2 - h);
        if (!pillar_fits(s, tx, ty, w, h))
            continue;
        for (int y = ty; y < ty + h; y++)
            for (int x = tx; x < tx + w; x++) {
                s->tiles[y][x] = ARENA_TILE_SOLID;
                s->tiles[ARENA_BOARD_H - 1 - y][ARENA_BOARD_W - 1 - x] = ARENA_TILE_SOLID;
            }
        placed++;
    }
}

/* ---- init and views --------------------------------------------------- */

static void place_ship(arena_ship *ship, int tx, int ty)
{
    ship->x = tile_centre(tx);
    ship->y = tile_centre(ty);
    ship->state = ARENA_SHIP_ALIVE;
    ship->timer = ARENA_SPAWN_SHIELD;
    ship->ammo = ARENA_AMMO_MAX;
    ship->ammo_timer = 0;
    ship->charge = 0;
    ship->fire_cooldown = 0;
}

tempo_result arena_init(arena_state *s, int num_players, uint64_t seed)
{
    if (!s || num_players < 1 || num_players > ARENA_MAX_PLAYERS)
        return TEMPO_E_INVALID_ARG;
    memset(s, 0, sizeof *s);
    tempo_rng_seed(&s->rng, seed, RNG_STREAM);
    s->num_players = (uint32_t)num_players;
    lay_out_board(s);
    for (int p = 0; p < num_players; p++) {
        arena_ship *ship = &s->ships[p];
        int tx, ty;
        start_of(p, &tx, &ty);
        ship->team = (uint8_t)(p & 1);
        ship->facing = (p & 1) ? 128 : 0; /* toward the other team */
        place_ship(ship, tx, ty);
    }
    return TEMPO_OK;
}

uint64_t arena_checksum(const arena_state *s) { return tempo_checksum(s, sizeof *s); }

const arena_ship *arena_player(const arena_state *s, int player)
{
    if (!s || player < 0 || (uint32_t)player >= s->num_players || player >= ARENA_MAX_PLAYERS)
        return NULL;
    return &s->ships[player];
}

int arena_team_score(const arena_state *s, int team)
{
    int sum = 0;
    for (int p = 0; p < ARENA_MAX_PLAYERS && (uint32_t)p < s->num_players; p++)
        if (s->ships[p].team == team)
            sum += s->ships[p].score;
    return sum;
}

/* ---- movement ----------------------------------------------------------- */

/* First and last tile a ship's box covers on one axis. */
static int box_lo(int32_t c) { return tile_of(c - ARENA_SHIP_HALF); }
static int box_hi(int32_t c) { return tile_of(c + ARENA_SHIP_HALF - 1); }

/* True if a ship of `team` moving from (ox, oy) to (x, y) would enter a tile
 * it may not fly over. Tiles its box already covered do not count, so a ship
 * whose ground was painted over under it can always fly out. */
static int blocked(const arena_state *s, int team, int32_t ox, int32_t oy, int32_t x, int32_t y)
{
    int ox0 = box_lo(ox), ox1 = box_hi(ox), oy0 = box_lo(oy), oy1 = box_hi(oy);
    for (int ty = box_lo(y); ty <= box_hi(y); ty++)
        for (int tx = box_lo(x); tx <= box_hi(x); tx++) {
            if (arena_tile(s, tx, ty) == team)
                continue;
            if (tx >= ox0 && tx <= ox1 && ty >= oy0 && ty <= oy1)
                continue;
            return 1;
        }
    return 0;
}

static int32_t clamp32(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Move a ship by delta along one axis (0 = x, 1 = y). If a tile line stops
 * it, it slides up to the line and, when `assist` is set and the lane its
 * centre is in continues past the line, is nudged toward that lane's middle:
 * the corner help that lets an analog stick thread one-tile corridors. */
static void move_axis(arena_state *s, arena_ship *ship, int axis, int32_t delta, int assist)
{
    if (delta == 0)
        return;
    int32_t *pos = axis ? &ship->y : &ship->x;
    int32_t limit = (axis ? BOARD_H_UNITS : BOARD_W_UNITS) - ARENA_SHIP_HALF;
    int32_t old = *pos;
    int32_t want = clamp32(old + delta, ARENA_SHIP_HALF, limit);
    int32_t nx = axis ? ship->x : want, ny = axis ? want : ship->y;
    if (!blocked(s, ship->team, ship->x, ship->y, nx, ny)) {
        *pos = want;
        return;
    }
    /* delta is under a tile, so exactly one new tile line is in the way:
     * stop with the box touching it. */
    int line;
    if (delta > 0) {
        line = box_hi(old) + 1;
        *pos = line * ARENA_TILE - ARENA_SHIP_HALF;
    } else {
        line = box_lo(old) - 1;
        *pos = (line + 1) * ARENA_TILE + ARENA_SHIP_HALF;
    }
    if (!assist)
        return;
    int32_t *side = axis ? &ship->x : &ship->y;
    int lane = tile_of(*side);
    int open = axis ? arena_tile(s, lane, line) : arena_tile(s, line, lane);
    if (open != ship->team)
        return;
    int32_t off = tile_centre(lane) - *side;
    int32_t step = delta < 0 ? -delta : delta;
    if (off > step)
        off = step;
    else if (off < -step)
        off = -step;
    move_axis(s, ship, !axis, off, 0);
}

static void steer(arena_state *s, arena_ship *ship, const arena_input *in)
{
    if (in->magnitude < DEADZONE)
        return;
    int32_t speed = SHIP_SPEED * in->magnitude / 255;
    if (in->buttons & ARENA_CHARGE)
        speed /= 2; /* charging slows you down: the cost of a big shot */
    /* C division truncates toward zero, the same for both signs, so the
     * motion is symmetric in every direction. */
    int32_t dx = arena_cos_q14(in->angle) * speed / 16384;
    int32_t dy = arena_sin_q14(in->angle) * speed / 16384;
    ship->facing = in->angle;
    move_axis(s, ship, 0, dx, 1);
    move_axis(s, ship, 1, dy, 1);
}

/* ---- firing ------------------------------------------------------------ */

static void spawn_shot(arena_state *s, int player, int dir, int charged)
{
    for (int i = 0; i < ARENA_MAX_SHOTS; i++) {
        arena_shot *shot = &s->shots[i];
        if (shot->active)
            continue;
        arena_ship *ship = &s->ships[player];
        shot->x = ship->x;
        shot->y = ship->y;
        shot->active = 1;
        shot->owner = (uint8_t)player;
        shot->dir = (uint8_t)dir;
        shot->charged = (uint8_t)charged;
        ship->ammo--;
        ship->charge = 0;
        ship->fire_cooldown = ARENA_FIRE_REPEAT;
        return;
    }
    /* Every slot in flight (only when most ships empty their rounds at
     * once): the trigger does nothing and the round is kept. */
}

/* A press fires at once; a held button repeats every ARENA_FIRE_REPEAT
 * frames. The charge button fills the meter while held and empties it when
 * let go; a shot fired with a full meter is a charged one. Several directions
 * at once: the lowest bit wins (up, down, left, right). */
static void trigger(arena_state *s, int player, const arena_input *in)
{
    arena_ship *ship = &s->ships[player];
    if (in->buttons & ARENA_CHARGE) {
        if (ship->charge < ARENA_CHARGE_FULL)
            ship->charge++;
    } else {
        ship->charge = 0;
    }
    if (ship->fire_cooldown > 0)
        ship->fire_cooldown--;
    if (ship->ammo < ARENA_AMMO_MAX) {
        if (++ship->ammo_timer >= ARENA_AMMO_REGEN) {
            ship->ammo++;
            ship->ammo_timer = 0;
        }
    } else {
        ship->ammo_timer = 0;
    }
    unsigned held = in->buttons & ARENA_FIRE_MASK;
    unsigned pressed = held & ~(unsigned)ship->prev_buttons;
    unsigned want = pressed ? pressed : (ship->fire_cooldown == 0 ? held : 0u);
    if (!want || ship->ammo == 0)
        return;
    int dir = 0;
    while (!(want & (1u << dir)))
        dir++;
    spawn_shot(s, player, dir, ship->charge >= ARENA_CHARGE_FULL);
}

/* ---- life and death ------------------------------------------------------ */

static int64_t nearest_enemy_d2(const arena_state *s, int team, int32_t x, int32_t y)
{
    int64_t best = INT64_MAX;
    for (uint32_t p = 0; p < s->num_players; p++) {
        const arena_ship *e = &s->ships[p];
        if (e->state != ARENA_SHIP_ALIVE || e->team == team)
            continue;
        int64_t dx = (int64_t)e->x - x, dy = (int64_t)e->y - y;
        int64_t d2 = dx * dx + dy * dy;
        if (d2 < best)
            best = d2;
    }
    return best;
}

/* Bring a dead ship back: of a few random open tiles, the one farthest from
 * any enemy, painted with a 3x3 patch of its colour so it can move. */
static void respawn(arena_state *s, int player)
{
    arena_ship *ship = &s->ships[player];
    int bx, by;
    start_of(player, &bx, &by);
    int64_t best = -1;
    for (int k = 0; k < SPAWN_TRIES; k++) {
        int tx = tempo_rng_range(&s->rng, 1, ARENA_BOARD_W - 2);
        int ty = tempo_rng_range(&s->rng, 1, ARENA_BOARD_H - 2);
        if (arena_tile(s, tx, ty) == ARENA_TILE_SOLID)
            continue;
        int64_t d2 = nearest_enemy_d2(s, ship->team, tile_centre(tx), tile_centre(ty));
        if (d2 > best) {
            best = d2;
            bx = tx;
            by = ty;
        }
    }
    for (int y = by - 1; y <= by + 1; y++)
        for (int x = bx - 1; x <= bx + 1; x++)
            paint(s, x, y, ship->team);
    place_ship(ship, bx, by);
}

static void kill(arena_state *s, int victim, int killer)
{
    arena_ship *ship = &s->ships[victim];
    ship->state = ARENA_SHIP_DEAD;
    ship->timer = ARENA_RESPAWN_FRAMES;
    ship->charge = 0;
    ship->deaths++;
    s->ships[killer].score++;
}

/* The player left: the ship and its shots leave the board for good. */
static void remove_player(arena_state *s, int player)
{
    arena_ship *ship = &s->ships[player];
    ship->state = ARENA_SHIP_GONE;
    ship->timer = 0;
    ship->ammo = 0;
    ship->ammo_timer = 0;
    ship->charge = 0;
    ship->fire_cooldown = 0;
    ship->prev_buttons = 0;
    for (int i = 0; i < ARENA_MAX_SHOTS; i++)
        if (s->shots[i].active && s->shots[i].owner == player)
            memset(&s->shots[i], 0, sizeof s->shots[i]);
}

/* ---- collision ------------------------------------------------------------ */

/* Did two boxes, each moving in a straight line over the frame, overlap at
 * some moment? Box A goes from a0 to a1, box B from b0 to b1; h is the sum of
 * their half sizes per axis. In B's frame A moves by d; per axis, the times t
 * in [0, 1] with |p + t d| < h form an interval, and the boxes met if the
 * intervals of both axes and [0, 1] share a point. Times are compared as
 * fractions by cross-multiplying, so no rounding is involved. */
static int swept_overlap(const int32_t a0[2], const int32_t a1[2], const int32_t b0[2],
                         const int32_t b1[2], const int32_t h[2])
{
    int64_t lo_n = 0, lo_d = 1, hi_n = 1, hi_d = 1;
    for (int k = 0; k < 2; k++) {
        int64_t p = (int64_t)a0[k] - b0[k];
        int64_t d = ((int64_t)a1[k] - a0[k]) - ((int64_t)b1[k] - b0[k]);
        int64_t r = (int64_t)h[k] - 1; /* touching edges is not a hit */
        if (d == 0) {
            if (p > r || p < -r)
                return 0;
            continue;
        }
        int64_t den = d > 0 ? d : -d;
        int64_t enter = d > 0 ? -r - p : p - r; /* t = enter / den */
        int64_t leave = d > 0 ? r - p : p + r;
        if (enter * lo_d > lo_n * den) {
            lo_n = enter;
            lo_d = den;
        }
        if (leave * hi_d < hi_n * den) {
            hi_n = leave;
            hi_d = den;
        }
    }
    return lo_n * hi_d <= hi_n * lo_d;
}

static void shot_half(const arena_shot *shot, int32_t h[2])
{
    int32_t along = shot->charged ? CHARGED_HALF_LONG : SHOT_HALF;
    int32_t across = shot->charged ? CHARGED_HALF_WIDE : SHOT_HALF;
    int vertical = shot->dir < 2;
    h[0] = vertical ? across : along;
    h[1] = vertical ? along : across;
}

/* What became of a shot this frame. */
#define SHOT_FLYING 0
#define SHOT_WALL 1      /* reached a pillar or the edge: still hits on the way */
#define SHOT_CANCELLED 2 /* met an enemy shot: hits nothing more */
#define SHOT_HIT 3       /* a plain shot that killed a ship */

/* Positions of shots and ships at the start and end of this frame, and what
 * became of each shot; lives on the stack of one step. */
typedef struct frame_paths {
    int32_t shot0[ARENA_MAX_SHOTS][2], shot1[ARENA_MAX_SHOTS][2];
    int32_t ship0[ARENA_MAX_PLAYERS][2];
    uint8_t fate[ARENA_MAX_SHOTS]; /* SHOT_*; anything but FLYING is removed */
} frame_paths;

/* Fly every shot one frame: paint the tiles under it (three lanes for a
 * charged shot). A shot whose centre leaves the board or enters a pillar is
 * spent, but still collides along the part of the path it flew. */
static void fly_shots(arena_state *s, frame_paths *fp)
{
    for (int i = 0; i < ARENA_MAX_SHOTS; i++) {
        arena_shot *shot = &s->shots[i];
        fp->fate[i] = SHOT_FLYING;
        if (!shot->active)
            continue;
        int team = s->ships[shot->owner].team;
        int32_t speed = shot->charged ? CHARGED_SPEED : SHOT_SPEED;
        fp->shot0[i][0] = shot->x;
        fp->shot0[i][1] = shot->y;
        shot->x += dir_x[shot->dir] * speed;
        shot->y += dir_y[shot->dir] * speed;
        fp->shot1[i][0] = shot->x;
        fp->shot1[i][1] = shot->y;
        int tx = tile_of(shot->x), ty = tile_of(shot->y);
        if (arena_tile(s, tx, ty) == ARENA_TILE_SOLID) { /* off the board too */
            fp->fate[i] = SHOT_WALL;
            continue;
        }
        paint(s, tx, ty, team);
        if (shot->charged) {
            int sx = dir_y[shot->dir] != 0, sy = !sx; /* the side lanes */
            paint(s, tx - sx, ty - sy, team);
            paint(s, tx + sx, ty + sy, team);
        }
    }
}

/* Enemy shots that meet cancel out; a charged shot survives a plain one. */
static void shots_meet(const arena_state *s, frame_paths *fp)
{
    for (int i = 0; i < ARENA_MAX_SHOTS; i++) {
        const arena_shot *a = &s->shots[i];
        if (!a->active)
            continue;
        for (int j = i + 1; j < ARENA_MAX_SHOTS && fp->fate[i] != SHOT_CANCELLED; j++) {
            const arena_shot *b = &s->shots[j];
            if (!b->active || fp->fate[j] == SHOT_CANCELLED ||
                s->ships[a->owner].team == s->ships[b->owner].team)
                continue;
            int32_t ha[2], hb[2], h[2];
            shot_half(a, ha);
            shot_half(b, hb);
            h[0] = ha[0] + hb[0];
            h[1] = ha[1] + hb[1];
            if (!swept_overlap(fp->shot0[i], fp->shot1[i], fp->shot0[j], fp->shot1[j], h))
                continue;
            if (a->charged <= b->charged)
                fp->fate[i] = SHOT_CANCELLED;
            if (b->charged <= a->charged)
                fp->fate[j] = SHOT_CANCELLED;
        }
    }
}

/* Shots against enemy ships. A plain shot stops at the first ship it kills;
 * a charged one goes on. */
static void shots_hit_ships(arena_state *s, frame_paths *fp)
{
    for (int i = 0; i < ARENA_MAX_SHOTS; i++) {
        const arena_shot *shot = &s->shots[i];
        if (!shot->active || fp->fate[i] == SHOT_CANCELLED)
            continue;
        int team = s->ships[shot->owner].team;
        int32_t h[2];
        shot_half(shot, h);
        h[0] += ARENA_SHIP_HALF;
        h[1] += ARENA_SHIP_HALF;
        for (uint32_t p = 0; p < s->num_players; p++) {
            const arena_ship *ship = &s->ships[p];
            if (ship->state != ARENA_SHIP_ALIVE || ship->timer > 0 || ship->team == team)
                continue;
            int32_t now[2] = {ship->x, ship->y};
            if (!swept_overlap(fp->shot0[i], fp->shot1[i], fp->ship0[p], now, h))
                continue;
            kill(s, (int)p, shot->owner);
            if (!shot->charged) {
                fp->fate[i] = SHOT_HIT;
                break;
            }
        }
    }
}

static void collide(arena_state *s, frame_paths *fp)
{
    shots_meet(s, fp);
    shots_hit_ships(s, fp);
    for (int i = 0; i < ARENA_MAX_SHOTS; i++)
        if (fp->fate[i] != SHOT_FLYING)
            memset(&s->shots[i], 0, sizeof s->shots[i]);
}

/* ---- the step ------------------------------------------------------------ */

/* One player's frame. `here` holds the ship's position before the frame and
 * is moved to a respawned ship's new place, so its sweep starts there. */
static void step_player(arena_state *s, int p, const arena_input *in, int32_t here[2])
{
    arena_ship *ship = &s->ships[p];
    if (ship->state == ARENA_SHIP_DEAD) {
        if (ship->timer > 0)
            ship->timer--;
        if (ship->timer == 0) {
            respawn(s, p);
            here[0] = ship->x;
            here[1] = ship->y;
        }
    } else if (ship->state == ARENA_SHIP_ALIVE) {
        if (ship->timer > 0)
            ship->timer--;
        steer(s, ship, in);
        trigger(s, p, in);
    }
    /* Kept through death too, so a button held while dead is no fresh press. */
    ship->prev_buttons = in->buttons;
}

tempo_result arena_step(arena_state *s, const uint8_t *inputs, const uint8_t *status)
{
    if (!s || !inputs || s->num_players < 1 || s->num_players > ARENA_MAX_PLAYERS)
        return TEMPO_E_INVALID_ARG;
    frame_paths fp;
    for (uint32_t p = 0; p < s->num_players; p++) {
        arena_ship *ship = &s->ships[p];
        fp.ship0[p][0] = ship->x;
        fp.ship0[p][1] = ship->y;
        if (ship->state == ARENA_SHIP_GONE)
            continue;
        if (status && status[p] == TEMPO_INPUT_DISCONNECTED) {
            remove_player(s, (int)p);
            continue;
        }
        arena_input in;
        arena_input_unpack(inputs + p * ARENA_INPUT_SIZE, &in);
        step_player(s, (int)p, &in, fp.ship0[p]);
    }
    fly_shots(s, &fp);
    collide(s, &fp);
    s->frame++;
    return TEMPO_OK;
}
