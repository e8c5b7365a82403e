/* SPDX-License-Identifier: MIT */
/*
 * sim_rts.c — the RTS-like game of tempo-sim's lockstep matches and its
 * bots (sim_rts.h). Units move at RTS_SPEED on each axis until they reach
 * their target; the state is integers only and its checksum is FNV-1a over
 * every field in a fixed order.
 */
#include <string.h>

#include "sim.h"
#include "sim_rts.h"

static uint64_t rts_rand(uint64_t *s) { return sim_next64(s); }

void rts_init(rts_state *s, int players, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->players = players;
    uint64_t r = seed ^ 0x5254535354415445ULL;
    for (int p = 0; p < players; p++)
        for (int u = 0; u < RTS_UNITS; u++) {
            rts_unit *n = &s->unit[p][u];
            n->x = n->tx = (int32_t)(rts_rand(&r) % RTS_MAP);
            n->y = n->ty = (int32_t)(rts_rand(&r) % RTS_MAP);
        }
}

static int32_t clamp_map(int32_t v)
{
    return v < 0 ? 0 : v >= RTS_MAP ? RTS_MAP - 1 : v;
}

void rts_command(rts_state *s, int player, const uint8_t cmd[RTS_CMD_SIZE])
{
    if (player < 0 || player >= s->players)
        return;
    rts_unit *n = &s->unit[player][cmd[0] % RTS_UNITS];
    n->tx = clamp_map((int32_t)(cmd[1] | cmd[2] << 8));
    n->ty = clamp_map((int32_t)(cmd[3] | cmd[4] << 8));
    s->commands++;
}

static int32_t approach(int32_t v, int32_t target, int64_t step)
{
    if (v < target)
        return target - v <= step ? target : (int32_t)(v + step);
    return v - target <= step ? target : (int32_t)(v - step);
}

void rts_step(rts_state *s, uint64_t dt_us)
{
    /* The step is counted in whole milliseconds of elapsed time so that
     * steps of any length move units the same distance in total. */
    uint64_t before_ms = s->elapsed_us / 1000u;
    s->elapsed_us += dt_us;
    int64_t step = (int64_t)(s->elapsed_us / 1000u - before_ms) * RTS_SPEED;
    s->steps++;
    for (int p = 0; p < s->players; p++)
        for (int u = 0; u < RTS_UNITS; u++) {
            rts_unit *n = &s->unit[p][u];
            n->x = approach(n->x, n->tx, step);
            n->y = approach(n->y, n->ty, step);
        }
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xFF;
        h *= 0x100000001B3ULL;
    }
    return h;
}

uint64_t rts_checksum(const rts_state *s)
{
    uint64_t h = 0xCBF29CE484222325ULL;
    h = fnv(h, (uint64_t)s->players);
    h = fnv(h, s->steps);
    h = fnv(h, s->elapsed_us);
    h = fnv(h, s->commands);
    for (int p = 0; p < s->players; p++)
        for (int u = 0; u < RTS_UNITS; u++) {
            const rts_unit *n = &s->unit[p][u];
            h = fnv(h, (uint64_t)(uint32_t)n->x << 32 | (uint32_t)n->y);
            h = fnv(h, (uint64_t)(uint32_t)n->tx << 32 | (uint32_t)n->ty);
        }
    return h;
}

uint16_t rts_command_seq(const uint8_t cmd[RTS_CMD_SIZE])
{
    return (uint16_t)(cmd[5] | cmd[6] << 8);
}

void rts_bot_init(rts_bot *b, uint64_t seed, int player, uint64_t start_us)
{
    memset(b, 0, sizeof *b);
    b->rng = seed * 0x100000001B3ULL + (uint64_t)player * 7919u + 1;
    b->next_us = start_us + 500000u + rts_rand(&b->rng) % 2000000u;
    b->left = 0;
}

int rts_bot_next(rts_bot *b, uint64_t now_us, uint8_t cmd[RTS_CMD_SIZE])
{
    if (now_us < b->next_us)
        return 0;
    if (b->left == 0) /* a burst begins */
        b->left = 3 + (int)(rts_rand(&b->rng) % 10);
    uint64_t r = rts_rand(&b->rng);
    uint32_t tx = (uint32_t)(r % RTS_MAP), ty = (uint32_t)((r >> 20) % RTS_MAP);
    cmd[0] = (uint8_t)((r >> 40) % RTS_UNITS);
    cmd[1] = (uint8_t)tx;
    cmd[2] = (uint8_t)(tx >> 8);
    cmd[3] = (uint8_t)ty;
    cmd[4] = (uint8_t)(ty >> 8);
    cmd[5] = (uint8_t)b->seq;
    cmd[6] = (uint8_t)(b->seq >> 8);
    b->seq++;
    /* within a burst 50..150 ms apart; between bursts 2..8 s of quiet */
    if (--b->left > 0)
        b->next_us += 50000u + rts_rand(&b->rng) % 100000u;
    else
        b->next_us += 2000000u + rts_rand(&b->rng) % 6000000u;
    return 1;
}
