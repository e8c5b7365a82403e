/* SPDX-License-Identifier: MIT */
/*
 * replay_play.c — the replay backend: a session that plays a replay file
 * back through the request contract. Every player is remote and nobody
 * predicts: each tick hands out the ADVANCE of the file's next frame with
 * its recorded inputs and statuses (CONFIRMED or DISCONNECTED). Before the
 * ADVANCE of a frame the file holds a checksum for, it asks for a SAVE
 * with a checksum; the next tick compares what the game wrote with the
 * file's and raises TEMPO_EVENT_DESYNC on a mismatch.
 *
 * The playback speed (replay_play_set_speed) is a rate in 1/256 frames per
 * tick, accumulated from tick to tick: 128 plays a frame every other tick,
 * 512 two a tick, 0 pauses (STALLED ticks).
 *
 * A seek (replay_play_seek) puts the session at the file's stored state
 * nearest at or before the target; the following ticks fast-forward to the
 * target with resimulating ADVANCEs, as many a tick as the engine's request
 * buffers hold (a SAVE and an ADVANCE per frame).
 * Requests go into the engine's request buffers, so nothing is allocated
 * after create.
 */
#include <string.h>

#include "session/backend.h"
#include "tempo/replay.h"

typedef struct replay_play {
    const session_host *host;
    tempo_replay *file;
    int32_t end;       /* one past the file's last frame */
    int32_t target;    /* frames below it are a seek's fast-forward */
    int ff_frames;     /* fast-forward frames per tick */
    int speed_q8;      /* frames per tick in play, * 256 */
    int speed_acc;     /* fraction of a frame carried to the next tick, * 256 */
} replay_play;

static tempo_result replay_create(const session_host *host, const session_args *args, void **out)
{
    replay_play *rp = tempo__calloc(&host->cfg->allocator, 1, sizeof *rp);
    *out = rp;
    if (!rp)
        return TEMPO_E_NO_MEMORY;
    rp->host = host;
    rp->file = args->replay;
    int32_t first;
    tempo_replay_frame_range(rp->file, &first, &rp->end);
    rp->target = first;
    /* A SAVE and an ADVANCE per frame, and a trailing SAVE. */
    rp->ff_frames = (host->sync->req_cap - 1) / 2;
    rp->speed_q8 = 256;
    for (int p = 0; p < host->cfg->num_players; p++)
        sync_set_player(host->sync, p, SYNC_REMOTE);
    return TEMPO_OK;
}

static void replay_destroy(void *b)
{
    replay_play *rp = b;
    tempo__free(&rp->host->cfg->allocator, rp);
}

/* The file holds a checksum for state `frame`. */
static bool has_check(const replay_play *rp, int32_t frame, uint64_t *sum)
{
    return tempo_replay_checksum(rp->file, frame, sum) == 1;
}

static void emit_advance(replay_play *rp, int32_t frame, bool resim)
{
    tempo_sync *s = rp->host->sync;
    TEMPO_ASSERT(s->nreqs < s->req_cap);
    int i = s->nreqs++;
    tempo_request *r = &s->reqs[i];
    size_t per = (size_t)s->num_players * (size_t)s->input_size;
    uint8_t *in = s->req_inputs + (size_t)i * per;
    uint8_t *st = s->req_status + (size_t)i * (size_t)s->num_players;
    memset(r, 0, sizeof *r);
    r->kind = TEMPO_REQUEST_ADVANCE;
    r->frame = frame;
    s->req_flags[i] = 0;
    s->req_sums[i] = 0;
    tempo_result res = tempo_replay_inputs(rp->file, frame, in, per, st);
    TEMPO_ASSERT(res == TEMPO_OK);
    (void)res;
    r->inputs = in;
    r->status = st;
    r->resimulating = resim;
}

/* Compare the checksums the game wrote during the last tick. */
static void compare_sums(replay_play *rp)
{
    sync_sum got;
    while (sync_take_checksum(rp->host->sync, &got)) {
        uint64_t want;
        if (!has_check(rp, got.frame, &want) || want == got.checksum)
            continue;
        tempo_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = TEMPO_EVENT_DESYNC;
        ev.player = -1;
        ev.u.desync.frame = got.frame;
        ev.u.desync.local = got.checksum;
        ev.u.desync.remote = want;
        rp->host->push_event(rp->host->ctx, &ev);
    }
}

static tempo_result replay_advance(void *b, tempo_tick *tick)
{
    replay_play *rp = b;
    tempo_sync *s = rp->host->sync;
    sync_begin(s);
    compare_sums(rp);
    if (s->frame >= rp->end) {
        sync_fill_tick(s, tick, TEMPO_TICK_WAITING, 0, 0, 0);
        return TEMPO_OK;
    }
    int n = rp->ff_frames;
    if (s->frame >= rp->target) {
        rp->speed_acc += rp->speed_q8;
        n = rp->speed_acc / 256;
        rp->speed_acc %= 256;
        if (n > rp->ff_frames)
            n = rp->ff_frames;
        if (n == 0) {
            sync_fill_tick(s, tick, TEMPO_TICK_STALLED, 0, 0, 0);
            return TEMPO_OK;
        }
    }
    int done = 0;
    uint64_t sum;
    while (done < n && s->frame < rp->end) {
        int32_t f = s->frame;
        if (has_check(rp, f, &sum))
            sync_emit_save(s, f, 0, SYNC_REQ_NEED_SUM | SYNC_REQ_FINAL);
        emit_advance(rp, f, f < rp->target);
        s->frame = f + 1;
        done++;
        if (f + 1 == rp->target)
            break; /* the seek landed: play on at the playback speed */
    }
    if (s->frame == rp->end && has_check(rp, s->frame, &sum))
        sync_emit_save(s, s->frame, 0, SYNC_REQ_NEED_SUM | SYNC_REQ_FINAL);
    sync_fill_tick(s, tick, TEMPO_TICK_ADVANCED, done, 0, 0);
    return TEMPO_OK;
}

static tempo_session_state replay_state(const void *b)
{
    const replay_play *rp = b;
    return rp->host->sync->frame >= rp->end ? TEMPO_SESSION_ENDED : TEMPO_SESSION_RUNNING;
}

static int32_t replay_confirmed(const void *b)
{
    const replay_play *rp = b;
    return rp->host->sync->frame;
}

static tempo_result replay_play_seek(void *b, int32_t frame, const void **state, size_t *size,
                              int32_t *state_frame)
{
    replay_play *rp = b;
    tempo_sync *s = rp->host->sync;
    int32_t first, end, at;
    tempo_replay_frame_range(rp->file, &first, &end);
    if (frame < first || frame > end)
        return TEMPO_E_FRAME;
    const void *data;
    size_t n;
    if (tempo_replay_state_at_or_before(rp->file, frame, &at, &data, &n) != TEMPO_OK)
        return TEMPO_E_FRAME;
    if (s->arena) {
        if (n != s->arena_size)
            return TEMPO_E_MALFORMED;
        memcpy(s->arena, data, n);
    }
    /* The last tick's requests concern a state the game no longer holds. */
    s->nreqs = 0;
    s->next_req = 0;
    s->frame = at;
    rp->target = frame;
    if (state)
        *state = data;
    if (size)
        *size = n;
    if (state_frame)
        *state_frame = at;
    return TEMPO_OK;
}

static tempo_result replay_play_set_speed(void *b, int speed_q8)
{
    replay_play *rp = b;
    if (speed_q8 < 0 || speed_q8 > TEMPO_REPLAY_MAX_SPEED)
        return TEMPO_E_INVALID_ARG;
    rp->speed_q8 = speed_q8;
    rp->speed_acc = 0;
    return TEMPO_OK;
}

static const session_backend_ops replay_ops = {
    .confirmed_only = true,
    .create = replay_create,
    .destroy = replay_destroy,
    .advance = replay_advance,
    .state = replay_state,
    .confirmed_frame = replay_confirmed,
};

tempo_result tempo_session_create_replay(const tempo_config *cfg, tempo_replay *replay,
                                         tempo_session **out)
{
    if (out)
        *out = NULL;
    tempo_replay_settings st;
    if (!cfg || !out || tempo_replay_get_settings(replay, &st) != TEMPO_OK)
        return TEMPO_E_INVALID_ARG;
    if (cfg->num_players != st.num_players || cfg->input_size != st.input_size ||
        cfg->start_frame != st.start_frame || cfg->desync_interval != st.desync_interval)
        return TEMPO_E_FOREIGN;
    session_args args = {NULL, NULL, replay, NULL};
    return session_create(cfg, &replay_ops, 0, &args, out);
}

tempo_result tempo_session_replay_seek(tempo_session *s, int32_t frame, const void **state,
                                       size_t *size, int32_t *state_frame)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    replay_play *rp = session_backend_of(s, &replay_ops);
    if (!rp)
        return TEMPO_E_UNSUPPORTED;
    const tempo_sync *sync = rp->host->sync;
    if (sync->arena && sync->next_req < sync->nreqs)
        return TEMPO_E_STATE;
    return replay_play_seek(rp, frame, state, size, state_frame);
}

tempo_result tempo_session_replay_set_speed(tempo_session *s, int speed_q8)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    void *rp = session_backend_of(s, &replay_ops);
    if (!rp)
        return TEMPO_E_UNSUPPORTED;
    return replay_play_set_speed(rp, speed_q8);
}
