/* SPDX-License-Identifier: MIT */
/*
 * arena.h — the deterministic core of "arena", tempo's demo game.
 *
 * A small game after INVERSUS (Hypersect, 2017): up to 8 ships on a grid of
 * light and dark tiles. Even players are team 0 and fly over light tiles;
 * odd players are team 1 and fly over dark tiles. Shots fly in four
 * directions over any tile and paint the tiles they cross in the shooter's
 * colour, opening space for the shooter's team and walling in the other.
 * A shot kills an enemy ship it touches; the killer scores a point and the
 * dead ship comes back after a delay on a freshly painted patch. Holding the
 * charge button fills a meter; a shot fired with a full meter is wide (three
 * lanes), fast, and pierces ships and plain shots.
 *
 * Determinism: the whole game is one struct without pointers or padding,
 * zeroed at init; arena_step is a pure function of (state, inputs, status)
 * using integer and fixed-point math only (no float anywhere), so a state
 * copied with memcpy and stepped with the same inputs gives the same bytes on
 * every run and every platform of the same byte order (all targets tempo
 * supports are little-endian). That is what tempo's arena mode needs: it
 * copies the struct on SAVE, restores it on LOAD, and checksums its bytes.
 *
 * Units: positions are in 1/1024 of a tile (ARENA_TILE), x to the right,
 * y downward; the board is ARENA_BOARD_W x ARENA_BOARD_H tiles and its edge
 * is a wall. Angles are 0..255 for a full turn, 0 = right, 64 = down,
 * 128 = left, 192 = up (screen coordinates).
 *
 * Thread safety: none needed; functions touch only the state they are given.
 */
#ifndef ARENA_ARENA_H
#define ARENA_ARENA_H

#include <stdint.h>

#include "tempo/tempo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- board and limits -------------------------------------------------- */

#define ARENA_MAX_PLAYERS 8
#define ARENA_BOARD_W 32        /* tiles */
#define ARENA_BOARD_H 18        /* tiles */
#define ARENA_TILE 1024         /* position units per tile */
#define ARENA_MAX_SHOTS 48      /* shots in flight, all players together */
#define ARENA_SHIP_HALF 400     /* a ship is a square of 2 * this, under a tile */
#define ARENA_AMMO_MAX 5        /* shots a ship holds */
#define ARENA_AMMO_REGEN 30     /* frames for one round to come back */
#define ARENA_FIRE_REPEAT 15    /* frames between shots while fire is held */
#define ARENA_CHARGE_FULL 45    /* frames of holding charge for a charged shot */
#define ARENA_RESPAWN_FRAMES 120 /* frames a dead ship waits */
#define ARENA_SPAWN_SHIELD 90   /* frames a respawned ship cannot be hit */

/* Tile kinds: a team's ground is the tile kind equal to its team number. */
#define ARENA_TILE_LIGHT 0 /* team 0 flies here */
#define ARENA_TILE_DARK 1  /* team 1 flies here */
#define ARENA_TILE_SOLID 2 /* nobody flies, shots stop */

/* ---- input ------------------------------------------------------------- */

/* The wire form of one player's input is these 4 bytes in this order:
 *   [0] angle      stick direction, 0..255 (see Units above)
 *   [1] magnitude  stick deflection, 0..255; below 24 the ship stands still
 *                  (and the angle is then ignored)
 *   [2] buttons    bit 0..3: fire up, down, left, right (ARENA_FIRE_*);
 *                  bit 4: charge (ARENA_CHARGE); bits 5..7 ignored
 *   [3] reserved   ignored; senders put 0
 * Every value of every byte is valid input. Use arena_input_pack/unpack, not
 * the struct's memory layout. */
#define ARENA_INPUT_SIZE 4

#define ARENA_FIRE_UP 0x01u
#define ARENA_FIRE_DOWN 0x02u
#define ARENA_FIRE_LEFT 0x04u
#define ARENA_FIRE_RIGHT 0x08u
#define ARENA_FIRE_MASK 0x0Fu
#define ARENA_CHARGE 0x10u

typedef struct arena_input {
    uint8_t angle, magnitude, buttons, reserved;
} arena_input;

/* Write in's wire form to out[0..3]. */
void arena_input_pack(const arena_input *in, uint8_t out[ARENA_INPUT_SIZE]);
/* Read a wire form (any bytes) into *out. */
void arena_input_unpack(const uint8_t in[ARENA_INPUT_SIZE], arena_input *out);

/* ---- state ------------------------------------------------------------- */

/* Ship life cycle. */
#define ARENA_SHIP_EMPTY 0 /* slot not in the match (player >= num_players) */
#define ARENA_SHIP_ALIVE 1
#define ARENA_SHIP_DEAD 2  /* waiting to respawn */
#define ARENA_SHIP_GONE 3  /* the player disconnected: out of play for good */

/* Field order keeps every member at its natural alignment with no padding
 * (arena.c checks the sizes at compile time), so the struct's bytes are
 * fully determined by the game. */
typedef struct arena_ship {
    int32_t x, y;           /* centre, position units */
    uint16_t timer;         /* DEAD: frames to respawn; ALIVE: shield frames left */
    uint16_t score;         /* enemy ships this player destroyed */
    uint16_t deaths;
    uint8_t state;          /* ARENA_SHIP_* */
    uint8_t team;           /* player & 1 */
    uint8_t ammo;           /* 0..ARENA_AMMO_MAX */
    uint8_t ammo_timer;     /* frames until the next round comes back */
    uint8_t charge;         /* 0..ARENA_CHARGE_FULL */
    uint8_t fire_cooldown;  /* frames until a held fire button repeats */
    uint8_t prev_buttons;   /* last frame's buttons, to see presses */
    uint8_t facing;         /* angle of the last movement, for drawing */
    uint8_t reserved[2];    /* always 0 */
} arena_ship;

typedef struct arena_shot {
    int32_t x, y;           /* centre, position units */
    uint8_t active;         /* 0: free slot (all other fields 0) */
    uint8_t owner;          /* player who fired */
    uint8_t dir;            /* 0 up, 1 down, 2 left, 3 right */
    uint8_t charged;        /* 1: charged shot */
} arena_shot;

typedef struct arena_state {
    tempo_rng rng;          /* game randomness (respawn places) */
    uint32_t frame;         /* frames stepped since init */
    uint32_t num_players;   /* 1..ARENA_MAX_PLAYERS */
    arena_ship ships[ARENA_MAX_PLAYERS];
    arena_shot shots[ARENA_MAX_SHOTS];
    uint8_t tiles[ARENA_BOARD_H][ARENA_BOARD_W]; /* ARENA_TILE_* */
} arena_state;

/* ---- simulation -------------------------------------------------------- */

/* Start a match: zero *s, lay out the board (mirror-symmetric pillars placed
 * from seed; left half light, right half dark), place the ships at their
 * teams' starts. Errors: TEMPO_E_INVALID_ARG (s NULL, num_players outside
 * 1..ARENA_MAX_PLAYERS; *s is then untouched). */
tempo_result arena_init(arena_state *s, int num_players, uint64_t seed);

/* Step one frame. inputs holds num_players * ARENA_INPUT_SIZE bytes, player 0
 * first; status holds num_players tempo_input_status bytes, or is NULL for all
 * confirmed. CONFIRMED and PREDICTED play the same; DISCONNECTED removes the
 * player from play for good (ship GONE, its shots gone; later inputs and
 * statuses of that player are ignored); any other status value counts as
 * present. s must come from arena_init and earlier steps (or a copy of one).
 * Errors: TEMPO_E_INVALID_ARG (s or inputs NULL, or s->num_players out of
 * range; *s is then untouched). */
tempo_result arena_step(arena_state *s, const uint8_t *inputs, const uint8_t *status);

/* tempo_checksum of the whole struct: what tempo's arena mode computes. */
uint64_t arena_checksum(const arena_state *s);

/* ---- read-only views for renderers and reports -------------------------- */

/* sin and cos of an angle (0..255 = a full turn) in Q14 (16384 = 1.0), from
 * a constant table. */
int32_t arena_sin_q14(uint8_t angle);
int32_t arena_cos_q14(uint8_t angle);

/* The tile kind at (tx, ty); ARENA_TILE_SOLID outside the board. */
int arena_tile(const arena_state *s, int tx, int ty);

/* The ship of `player`, or NULL if player is outside 0..num_players-1. The
 * pointer is into *s. */
const arena_ship *arena_player(const arena_state *s, int player);

/* Team 0's and team 1's total score. */
int arena_team_score(const arena_state *s, int team);

/* The field of arena_state at byte `offset`, for tempo's desync diffs
 * (tempo_config.describe_state; ctx unused): its name as the C source
 * spells it ("ships[2].x", "tiles[4][17]", "rng.state") into name
 * (name_size bytes), its first byte and size into *field_offset and
 * *field_size. False past the end of the struct. arena_describe.c. */
bool arena_describe(void *ctx, size_t offset, char *name, size_t name_size, size_t *field_offset,
                    size_t *field_size);

#ifdef __cplusplus
}
#endif

#endif /* ARENA_ARENA_H */
