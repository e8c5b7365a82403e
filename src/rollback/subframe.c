/* SPDX-License-Identifier: MIT */
/*
 * subframe.c — the backup and restore behind tempo/subframe.h. With
 * asserts on, the checksum taken at begin proves the restore: what end
 * writes back must hash the same.
 */
#include "tempo/subframe.h"

#include <string.h>

#include "base/common.h"

tempo_result tempo_subframe_init(tempo_subframe *sf, void *state, void *backup, size_t size)
{
    if (!sf || !state || !backup || size == 0)
        return TEMPO_E_INVALID_ARG;
    const uint8_t *s = state, *b = backup;
    if (b < s + size && s < b + size)
        return TEMPO_E_INVALID_ARG;
    memset(sf, 0, sizeof *sf);
    sf->state = state;
    sf->backup = backup;
    sf->size = size;
    return TEMPO_OK;
}

uint32_t tempo_subframe_alpha(uint64_t frame_start_us, uint32_t frame_us, uint64_t now_us)
{
    if (frame_us == 0 || now_us <= frame_start_us)
        return 0;
    uint64_t past = now_us - frame_start_us;
    if (past >= frame_us)
        return 65535;
    return (uint32_t)((past << 16) / frame_us);
}

tempo_result tempo_subframe_begin(tempo_subframe *sf)
{
    if (!sf || !sf->state)
        return TEMPO_E_INVALID_ARG;
    if (sf->active)
        return TEMPO_E_STATE;
    memcpy(sf->backup, sf->state, sf->size);
#ifndef TEMPO_NO_ASSERT
    sf->checksum = tempo_checksum(sf->state, sf->size);
#endif
    sf->active = true;
    return TEMPO_OK;
}

tempo_result tempo_subframe_end(tempo_subframe *sf)
{
    if (!sf || !sf->state)
        return TEMPO_E_INVALID_ARG;
    if (!sf->active)
        return TEMPO_E_STATE;
    memcpy(sf->state, sf->backup, sf->size);
    TEMPO_ASSERT(tempo_checksum(sf->state, sf->size) == sf->checksum);
    sf->active = false;
    sf->renders++;
    return TEMPO_OK;
}

uint64_t tempo_subframe_renders(const tempo_subframe *sf)
{
    return sf ? sf->renders : 0;
}
