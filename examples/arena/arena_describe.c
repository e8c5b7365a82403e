/* SPDX-License-Identifier: MIT */
/*
 * arena_describe.c — names the fields of arena_state by byte offset, so a
 * desync diff reads "ships[1].reserved[0] 0 vs 165" instead of "byte 72".
 * The table lists every member of the state and of its nested structs with
 * offsetof, so it follows the layout the compiler chose; arrays are
 * indexed from the offset. The struct has no padding (arena.c checks it),
 * so every byte belongs to exactly one field.
 */
#include "arena.h"

#include <stddef.h>
#include <stdio.h>

/* One member: name, offset within its struct, size of one element, and how
 * many elements (1 for a scalar). */
typedef struct member {
    const char *name;
    size_t offset, size, count;
} member;

#define MEMBER(type, field, elem, n) {#field, offsetof(type, field), sizeof(elem), n}

static const member ship_members[] = {
    MEMBER(arena_ship, x, int32_t, 1),
    MEMBER(arena_ship, y, int32_t, 1),
    MEMBER(arena_ship, timer, uint16_t, 1),
    MEMBER(arena_ship, score, uint16_t, 1),
    MEMBER(arena_ship, deaths, uint16_t, 1),
    MEMBER(arena_ship, state, uint8_t, 1),
    MEMBER(arena_ship, team, uint8_t, 1),
    MEMBER(arena_ship, ammo, uint8_t, 1),
    MEMBER(arena_ship, ammo_timer, uint8_t, 1),
    MEMBER(arena_ship, charge, uint8_t, 1),
    MEMBER(arena_ship, fire_cooldown, uint8_t, 1),
    MEMBER(arena_ship, prev_buttons, uint8_t, 1),
    MEMBER(arena_ship, facing, uint8_t, 1),
    MEMBER(arena_ship, reserved, uint8_t, 2),
};

static const member shot_members[] = {
    MEMBER(arena_shot, x, int32_t, 1),
    MEMBER(arena_shot, y, int32_t, 1),
    MEMBER(arena_shot, active, uint8_t, 1),
    MEMBER(arena_shot, owner, uint8_t, 1),
    MEMBER(arena_shot, dir, uint8_t, 1),
    MEMBER(arena_shot, charged, uint8_t, 1),
};

/* The member of table (n rows) holding byte `off` of its struct. */
static const member *find(const member *table, size_t n, size_t off)
{
    for (size_t i = 0; i < n; i++)
        if (off >= table[i].offset && off < table[i].offset + table[i].size * table[i].count)
            return &table[i];
    return NULL;
}

/* Name member m of element `index` of array `array` (the state's ships or
 * shots), holding byte `off` of that element. */
static bool in_array(const char *array, size_t base, size_t index, const member *m, size_t off,
                     char *name, size_t name_size, size_t *field_offset, size_t *field_size)
{
    size_t k = (off - m->offset) / m->size;
    if (m->count > 1)
        snprintf(name, name_size, "%s[%zu].%s[%zu]", array, index, m->name, k);
    else
        snprintf(name, name_size, "%s[%zu].%s", array, index, m->name);
    *field_offset = base + m->offset + k * m->size;
    *field_size = m->size;
    return true;
}

bool arena_describe(void *ctx, size_t offset, char *name, size_t name_size, size_t *field_offset,
                    size_t *field_size)
{
    (void)ctx;
    if (name == NULL || name_size == 0 || field_offset == NULL || field_size == NULL)
        return false;
    const size_t ships = offsetof(arena_state, ships), shots = offsetof(arena_state, shots);
    const size_t tiles = offsetof(arena_state, tiles);
    if (offset < offsetof(arena_state, rng) + sizeof(tempo_rng)) {
        size_t in = offset - offsetof(arena_state, rng);
        bool inc = in >= offsetof(tempo_rng, inc);
        snprintf(name, name_size, "rng.%s", inc ? "inc" : "state");
        *field_offset = offsetof(arena_state, rng) + (inc ? offsetof(tempo_rng, inc) : offsetof(tempo_rng, state));
        *field_size = sizeof(uint64_t);
        return true;
    }
    if (offset >= offsetof(arena_state, frame) && offset < offsetof(arena_state, frame) + sizeof(uint32_t)) {
        snprintf(name, name_size, "frame");
        *field_offset = offsetof(arena_state, frame);
        *field_size = sizeof(uint32_t);
        return true;
    }
    if (offset >= offsetof(arena_state, num_players) &&
        offset < offsetof(arena_state, num_players) + sizeof(uint32_t)) {
        snprintf(name, name_size, "num_players");
        *field_offset = offsetof(arena_state, num_players);
        *field_size = sizeof(uint32_t);
        return true;
    }
    if (offset >= ships && offset < ships + sizeof(arena_ship) * ARENA_MAX_PLAYERS) {
        size_t i = (offset - ships) / sizeof(arena_ship), in = (offset - ships) % sizeof(arena_ship);
        const member *m = find(ship_members, sizeof ship_members / sizeof *ship_members, in);
        return m && in_array("ships", ships + i * sizeof(arena_ship), i, m, in, name, name_size,
                             field_offset, field_size);
    }
    if (offset >= shots && offset < shots + sizeof(arena_shot) * ARENA_MAX_SHOTS) {
        size_t i = (offset - shots) / sizeof(arena_shot), in = (offset - shots) % sizeof(arena_shot);
        const member *m = find(shot_members, sizeof shot_members / sizeof *shot_members, in);
        return m && in_array("shots", shots + i * sizeof(arena_shot), i, m, in, name, name_size,
                             field_offset, field_size);
    }
    if (offset >= tiles && offset < tiles + sizeof(((arena_state *)0)->tiles)) {
        size_t k = offset - tiles;
        snprintf(name, name_size, "tiles[%zu][%zu]", k / ARENA_BOARD_W, k % ARENA_BOARD_W);
        *field_offset = offset;
        *field_size = 1;
        return true;
    }
    return false;
}
