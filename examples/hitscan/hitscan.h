/* SPDX-License-Identifier: MIT */
/*
 * hitscan.h — a small top-down shooter for tempo's client-server role:
 * up to 8 ships on an open field fire instant rays ("hitscan") at each
 * other. The server runs the match (tempo/server.h); each client predicts
 * its own ship (tempo/client.h), draws everyone else between snapshots
 * (tempo_interp), smooths its own corrections (tempo_smooth), and its
 * shots are judged by the server against what the shooter saw
 * (tempo_lagcomp), or against the present to show why that is needed.
 *
 * The state is one struct of int32 without pointers (a snapshot is its
 * bytes). Movement is integer; only the server resolves shots, so a
 * client's prediction is exact for its own movement and corrected by the
 * server for hits.
 *
 * Units: Q16.16 metres; the field is HS_FIELD_W x HS_FIELD_H metres.
 */
#ifndef HITSCAN_HITSCAN_H
#define HITSCAN_HITSCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "tempo/tempo.h"

#define HS_MAX_SHIPS 8
#define HS_UNIT 65536
#define HS_FIELD_W 40
#define HS_FIELD_H 25
#define HS_SPEED (5 * HS_UNIT / 60)    /* 5 m/s at 60 ticks a second */
#define HS_RADIUS (HS_UNIT / 2)        /* a ship's hit circle */
#define HS_RANGE (30 * HS_UNIT)        /* a ray's length */
#define HS_COOLDOWN 20                 /* ticks between shots */
#define HS_RESPAWN 60                  /* ticks a downed ship is gone */
#define HS_HITS 3                      /* hits that down a ship */
#define HS_INPUT_SIZE 8

/* One ship. */
typedef struct hs_ship {
    int32_t x, y;
    int32_t alive, respawn, cooldown;
    int32_t hp;                 /* hits left before it goes down */
    int32_t score, deaths;      /* hits scored; times downed */
    int32_t claims, confirmed;  /* shots its client saw hit; of those, hits the server confirmed */
    int32_t tracer_tick;        /* tick of its last shot, and where the ray ended */
    int32_t tx, ty;
} hs_ship;

typedef struct hs_state {
    int32_t tick;
    int32_t ships;
    hs_ship s[HS_MAX_SHIPS];
} hs_state;

/* The 8 input bytes:
 *   [0] dx, [1] dy   -1, 0 or 1 (int8)
 *   [2] bit 0 fire; bit 1 the client saw the ray hit ship (bits 2..4)
 *   [3] aim angle, 0..255 for a full turn (0 = +x, 64 = +y)
 *   [4..5] the view tick's low 16 bits, [6..7] its fraction, Q16 (u16 LE)
 * The view is what the shooter drew (tempo_interp_sample.view_tick/frac). */
typedef struct hs_input {
    int dx, dy;
    bool fire, claim;
    int claim_target;
    uint8_t aim;
    int32_t view_tick;
    uint32_t view_frac;
} hs_input;

void hs_input_pack(const hs_input *in, uint8_t out[HS_INPUT_SIZE]);
/* view_tick is unwrapped near `near_tick`. */
void hs_input_unpack(const uint8_t in[HS_INPUT_SIZE], int32_t near_tick, hs_input *out);

void hs_init(hs_state *g, int ships);

/* The server's judge of shots: NULL on clients (they do not resolve
 * shots). With `lc` the targets are rewound to the shooter's view. */
typedef struct hs_judge {
    tempo_lagcomp *lc;          /* NULL: test against the present */
    uint64_t shots, claims, confirmed, rejected_claims;
    uint64_t claims_gone;       /* rejected claims whose target another shot had already downed */
} hs_judge;

/* One tick for every ship. inputs: ships * HS_INPUT_SIZE bytes. */
void hs_step(hs_state *g, const uint8_t *inputs, const uint8_t *status, hs_judge *judge);

/* The server records every tick's hit circles for lag compensation. */
tempo_result hs_record(tempo_lagcomp *lc, const hs_state *g);
/* A lag compensation history sized for this game. */
tempo_result hs_lagcomp_create(tempo_lagcomp **out);

/* Unit vector of an aim angle, Q16 (a table: the same on every machine). */
void hs_aim_vector(uint8_t aim, int32_t *ux, int32_t *uy);
/* Does the ray from (x, y) along aim, HS_RANGE long, pass within
 * HS_RADIUS of (cx, cy)? */
bool hs_ray_hits(int32_t x, int32_t y, uint8_t aim, int32_t cx, int32_t cy);

#endif /* HITSCAN_HITSCAN_H */
