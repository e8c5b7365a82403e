/* SPDX-License-Identifier: MIT */
/*
 * replay_feed.c — a replay writer fed from a session (tempo/replay.h): the
 * session's confirmed-input log appended to the file frame by frame, and in
 * arena mode the arena's checksum and state offered at the frames the file
 * keeps them. It reads the session through its public API only, so the
 * writer below it (replay/writer.c) never sees a session.
 */
#include "replay/writer.h"

#include "tempo/session.h"

tempo_result tempo_replay_writer_feed(tempo_replay_writer *w, const tempo_session *s)
{
    if (w == NULL || s == NULL)
        return TEMPO_E_INVALID_ARG;
    tempo_result r = replay__writer_usable(w);
    if (r != TEMPO_OK)
        return r;
    int32_t oldest, lend;
    r = tempo_session_input_log_range(s, &oldest, &lend);
    if (r != TEMPO_OK)
        return r;
    if (lend <= w->end)
        return TEMPO_OK;
    size_t size = (size_t)w->np * (size_t)w->is;
    /* A session of another shape is the caller's mistake: refuse it before
     * anything can stop the writer. */
    r = tempo_session_confirmed_inputs(s, lend - 1, w->cur_in, size, w->cur_st);
    if (r == TEMPO_E_INVALID_ARG)
        return r;
    if (oldest > w->end)
        return w->error = TEMPO_E_FRAME; /* the frames between are lost: the file cannot be whole */
    while (w->end < lend && w->error == TEMPO_OK) {
        r = tempo_session_confirmed_inputs(s, w->end, w->cur_in, size, w->cur_st);
        if (r != TEMPO_OK)
            return r; /* another session's sizes: nothing appended */
        replay__writer_append(w, w->cur_in, w->cur_st);
    }
    return w->error;
}

int tempo_replay_writer_capture_arena(tempo_replay_writer *w, const tempo_session *s,
                                      const void *arena, size_t arena_size)
{
    if (w == NULL || s == NULL || arena == NULL)
        return TEMPO_E_INVALID_ARG;
    int32_t f = tempo_session_frame(s);
    if (f < 0)
        return f;
    if (tempo_session_confirmed_frame(s) != f)
        return 0; /* the arena holds a predicted state */
    int kept = 0;
    if (replay__is_check_frame(&w->set, f)) {
        int r = tempo_replay_writer_checksum(w, f, tempo_checksum(arena, arena_size));
        if (r < 0)
            return r;
        kept += r;
    }
    if (replay__is_state_mark(&w->set, f)) {
        int r = tempo_replay_writer_state(w, f, arena, arena_size);
        if (r < 0)
            return r;
        kept += r;
    }
    return kept;
}
