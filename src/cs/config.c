/* SPDX-License-Identifier: MIT */
/*
 * config.c — the ranges the server's and the client's configs share
 * (config.h).
 */
#include "cs/config.h"

bool cs_config_common_ok(int num_players, int input_size, int frames_per_second,
                         const void *arena, size_t arena_size, size_t max_state_size,
                         uint32_t disconnect_timeout_ms, const tempo_allocator *allocator)
{
    const size_t state = arena != NULL ? arena_size : max_state_size;
    return num_players >= 1 && num_players <= TEMPO_CS_MAX_PLAYERS && input_size >= 1 &&
           input_size <= TEMPO_MAX_INPUT_SIZE && frames_per_second >= 1 &&
           frames_per_second <= 1000 && state >= 1 && state <= TEMPO_CS_MAX_STATE &&
           disconnect_timeout_ms >= 100 && disconnect_timeout_ms <= 600000 &&
           (allocator->alloc == NULL) == (allocator->free == NULL);
}
