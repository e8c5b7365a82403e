/* SPDX-License-Identifier: MIT */
/*
 * config.h — what a client-server match's two sides configure alike: the
 * match's shape (players, input size, tick rate), the state's bound (an
 * arena, or the largest state), the silence that ends a connection, and
 * the allocator. The server and the client check these with the same
 * ranges (tempo/server.h, tempo/client.h), here, so that a shape one side
 * takes the other takes too.
 * Internal: not installed.
 */
#ifndef TEMPO_CS_CONFIG_H
#define TEMPO_CS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/base.h"

/* Whether each is in its range: num_players 1..TEMPO_CS_MAX_PLAYERS,
 * input_size 1..TEMPO_MAX_INPUT_SIZE, frames_per_second 1..1000; with an
 * arena its size, else max_state_size, 1..TEMPO_CS_MAX_STATE;
 * disconnect_timeout_ms 100..600000; the allocator's two hooks both set or
 * both NULL. */
bool cs_config_common_ok(int num_players, int input_size, int frames_per_second,
                         const void *arena, size_t arena_size, size_t max_state_size,
                         uint32_t disconnect_timeout_ms, const tempo_allocator *allocator);

#endif /* TEMPO_CS_CONFIG_H */
