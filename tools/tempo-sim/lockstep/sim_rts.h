/* SPDX-License-Identifier: MIT */
/*
 * sim_rts.h — a small deterministic RTS-like game for tempo-sim's lockstep
 * and relay matches, and the bots that order it about.
 *
 * Each player has RTS_UNITS units on a square map; a command orders one
 * unit to a target, and every step moves every unit toward its target at a
 * fixed speed. Integers only, so every machine computes the same state
 * from the same commands (the checksum says so). A command is RTS_CMD_SIZE
 * bytes: unit, target x and y (16 bits each), and the player's command
 * sequence number (16 bits), which lets the sim time each command from
 * its creation to its execution.
 *
 * The bots work like RTS players: a burst of orders (a few to a dozen,
 * 50 to 150 ms apart), then seconds of quiet.
 */
#ifndef TEMPO_SIM_RTS_H
#define TEMPO_SIM_RTS_H

#include <stdbool.h>
#include <stdint.h>

#include "tempo/base.h"

#define RTS_UNITS 8
#define RTS_MAP 4096            /* map side, in map units */
#define RTS_SPEED 1             /* map units a unit moves per millisecond, each axis */
#define RTS_CMD_SIZE 7

typedef struct rts_unit {
    int32_t x, y, tx, ty;       /* position and target, in map units */
} rts_unit;

/* Plain data, so a rollback session can save it by copying. */
typedef struct rts_state {
    int players;
    uint32_t steps;
    uint64_t elapsed_us;
    uint64_t commands;          /* commands executed, all players */
    rts_unit unit[TEMPO_MAX_PLAYERS][RTS_UNITS];
} rts_state;

void rts_init(rts_state *s, int players, uint64_t seed);
/* Carry out one command of `player` (out-of-range parts are clamped). */
void rts_command(rts_state *s, int player, const uint8_t cmd[RTS_CMD_SIZE]);
/* Move every unit for dt_us microseconds. */
void rts_step(rts_state *s, uint64_t dt_us);
uint64_t rts_checksum(const rts_state *s);
/* The sequence number a command carries. */
uint16_t rts_command_seq(const uint8_t cmd[RTS_CMD_SIZE]);

typedef struct rts_bot {
    uint64_t rng;
    uint64_t next_us;           /* when the next order is given */
    int left;                   /* orders left in this burst */
    uint16_t seq;               /* the next order's sequence number */
} rts_bot;

void rts_bot_init(rts_bot *b, uint64_t seed, int player, uint64_t start_us);
/* 1 and *cmd filled if the bot gives an order at or before now_us, else 0. */
int rts_bot_next(rts_bot *b, uint64_t now_us, uint8_t cmd[RTS_CMD_SIZE]);

#endif /* TEMPO_SIM_RTS_H */
