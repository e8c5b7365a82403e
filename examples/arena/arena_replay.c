/* SPDX-License-Identifier: MIT */
/*
 * arena_replay.c — the arena's replay files (arena_replay.h).
 */
#include "arena_replay.h"

#include <stdlib.h>
#include <string.h>

#define BLOB_SIZE 14 /* "arena" (5) + players (1) + seed (8) */

static int write_file(void *ctx, const void *data, size_t size)
{
    return fwrite(data, 1, size, (FILE *)ctx) == size ? 0 : -1;
}

static void blob_make(uint8_t *b, int players, uint64_t seed)
{
    memcpy(b, "arena", 5);
    b[5] = (uint8_t)players;
    for (int i = 0; i < 8; i++)
        b[6 + i] = (uint8_t)(seed >> (8 * i));
}

bool arena_record_open(arena_recorder *r, const char *path, int players, uint64_t seed,
                       char *why, size_t why_size)
{
    memset(r, 0, sizeof *r);
    r->f = fopen(path, "wb");
    if (!r->f) {
        snprintf(why, why_size, "cannot write %s", path);
        return false;
    }
    uint8_t blob[BLOB_SIZE];
    blob_make(blob, players, seed);
    tempo_replay_writer_config wc;
    tempo_replay_writer_config_default(&wc, NULL);
    wc.settings.num_players = players;
    wc.settings.input_size = ARENA_INPUT_SIZE;
    wc.settings.desync_interval = ARENA_REPLAY_CHECK_FRAMES;
    wc.settings.state_interval = ARENA_REPLAY_STATE_FRAMES;
    wc.settings.max_state_size = sizeof(arena_state);
    wc.settings.settings = blob;
    wc.settings.settings_size = sizeof blob;
    wc.write = write_file;
    wc.write_ctx = r->f;
    tempo_result res = tempo_replay_writer_create(&wc, &r->w);
    if (res != TEMPO_OK) {
        snprintf(why, why_size, "cannot start the replay %s: %s", path, tempo_strerror(res));
        fclose(r->f);
        r->f = NULL;
        return false;
    }
    arena_init(&r->shadow, players, seed);
    tempo_replay_writer_state(r->w, 0, &r->shadow, sizeof r->shadow);
    return true;
}

bool arena_record_tick(arena_recorder *r, const tempo_session *s, int32_t limit)
{
    int32_t oldest, end;
    if (r->failed || tempo_session_input_log_range(s, &oldest, &end) != TEMPO_OK)
        return !r->failed;
    if (end > limit)
        end = limit;
    uint8_t in[ARENA_MAX_PLAYERS * ARENA_INPUT_SIZE], st[ARENA_MAX_PLAYERS];
    size_t size = (size_t)r->shadow.num_players * ARENA_INPUT_SIZE;
    while (r->next < end) {
        if (tempo_session_confirmed_inputs(s, r->next, in, size, st) != TEMPO_OK ||
            tempo_replay_writer_add_frame(r->w, r->next, in, size, st) != TEMPO_OK) {
            r->failed = true;
            return false;
        }
        arena_step(&r->shadow, in, st);
        r->next++;
        /* state `next` is final now: every frame before it is written */
        if (r->next % ARENA_REPLAY_CHECK_FRAMES == 0)
            tempo_replay_writer_checksum(r->w, r->next, arena_checksum(&r->shadow));
        if (r->next % ARENA_REPLAY_STATE_FRAMES == 0)
            tempo_replay_writer_state(r->w, r->next, &r->shadow, sizeof r->shadow);
    }
    return true;
}

bool arena_record_close(arena_recorder *r, bool complete)
{
    bool ok = !r->failed;
    if (r->w && complete && ok)
        ok = tempo_replay_writer_finish(r->w) == TEMPO_OK;
    tempo_replay_writer_destroy(r->w);
    if (r->f && fclose(r->f) != 0)
        ok = false;
    memset(r, 0, sizeof *r);
    return ok;
}

bool arena_replay_load(arena_replay *rp, const char *path, char *why, size_t why_size)
{
    memset(rp, 0, sizeof *rp);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_size, "cannot read %s", path);
        return false;
    }
    size_t cap = 1 << 16;
    rp->data = malloc(cap);
    for (size_t got; rp->data && (got = fread(rp->data + rp->size, 1, cap - rp->size, f)) > 0;) {
        rp->size += got;
        if (rp->size == cap) {
            uint8_t *bigger = cap < TEMPO_REPLAY_MAX_STATE ? realloc(rp->data, cap * 2) : NULL;
            if (!bigger) {
                free(rp->data);
                rp->data = NULL;
                break;
            }
            rp->data = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (!rp->data) {
        snprintf(why, why_size, "%s is too large", path);
        return false;
    }
    tempo_result res = tempo_replay_open(rp->data, rp->size, NULL, &rp->file);
    if (res != TEMPO_OK) {
        snprintf(why, why_size, "%s: %s", path, tempo_strerror(res));
        arena_replay_free(rp);
        return false;
    }
    tempo_replay_settings set;
    tempo_replay_get_settings(rp->file, &set);
    const uint8_t *b = set.settings;
    if (set.settings_size != BLOB_SIZE || memcmp(b, "arena", 5) != 0 ||
        set.input_size != ARENA_INPUT_SIZE || b[5] != set.num_players ||
        set.num_players > ARENA_MAX_PLAYERS) {
        snprintf(why, why_size, "%s is not an arena replay", path);
        arena_replay_free(rp);
        return false;
    }
    rp->players = b[5];
    for (int i = 0; i < 8; i++)
        rp->seed |= (uint64_t)b[6 + i] << (8 * i);
    int32_t first;
    tempo_replay_frame_range(rp->file, &first, &rp->end);
    return true;
}

void arena_replay_free(arena_replay *rp)
{
    tempo_replay_close(rp->file);
    free(rp->data);
    memset(rp, 0, sizeof *rp);
}

tempo_result arena_replay_session(arena_replay *rp, arena_state *game, tempo_session **out)
{
    arena_init(game, rp->players, rp->seed);
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = rp->players;
    cfg.input_size = ARENA_INPUT_SIZE;
    cfg.desync_interval = ARENA_REPLAY_CHECK_FRAMES;
    cfg.arena = game;
    cfg.arena_size = sizeof *game;
    return tempo_session_create_replay(&cfg, rp->file, out);
}
