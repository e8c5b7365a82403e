/* SPDX-License-Identifier: MIT */
/*
 * session_match.c — the public API of a match that is not fixed at its
 * first frame: external states (tempo_session_load_state), the
 * confirmed-input log's readers, and slots that take a player while the
 * match runs. The engine does the work (sync.c, input_log.c); this file
 * checks arguments and decides which session kinds may use each opening.
 *
 * Network sessions refuse to put a player in a slot while running: every
 * peer must first agree on the frame the player starts at, as they agree on
 * a drop frame (p2p_agree.c), and that agreement does not exist yet.
 */
#include "session/session_match.h"

#include <string.h>

tempo_result tempo_session_load_state(tempo_session *s, int32_t frame, const void *state,
                                      size_t size)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    if (s->sync.arena ? (!state || size != s->sync.arena_size) : (state || size != 0))
        return TEMPO_E_INVALID_ARG;
    if (!s->ops->external_load)
        return TEMPO_E_UNSUPPORTED;
    /* Arena mode copies into the arena: the last tick's SAVEs must have
     * taken the state they name first. */
    if (s->sync.arena && s->sync.next_req < s->sync.nreqs)
        return TEMPO_E_STATE;
    return sync_load_state(&s->sync, frame, state);
}

tempo_result tempo_session_input_log_range(const tempo_session *s, int32_t *oldest, int32_t *end)
{
    if (!s || !oldest || !end)
        return TEMPO_E_INVALID_ARG;
    *oldest = input_log_oldest(&s->sync.confirmed_log);
    *end = s->sync.confirmed_log.end;
    return TEMPO_OK;
}

tempo_result tempo_session_confirmed_inputs(const tempo_session *s, int32_t frame, void *inputs,
                                            size_t size, uint8_t *status)
{
    if (!s || !inputs)
        return TEMPO_E_INVALID_ARG;
    const input_log *log = &s->sync.confirmed_log;
    if (size != (size_t)log->num_players * (size_t)log->input_size)
        return TEMPO_E_INVALID_ARG;
    const uint8_t *in = input_log_input(log, frame, 0);
    if (!in)
        return TEMPO_E_FRAME;
    memcpy(inputs, in, size); /* the players' inputs are contiguous in a record */
    if (status)
        memcpy(status, input_log_status(log, frame), (size_t)log->num_players);
    return TEMPO_OK;
}

tempo_result tempo_session_add_empty_slot(tempo_session *s, int player)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    if (!s->ops->open_slots)
        return TEMPO_E_UNSUPPORTED;
    if (s->started) {
        if (player < 0 || player >= s->sync.num_players)
            return TEMPO_E_PLAYER;
        return s->sync.kind[player] != SYNC_NONE ? TEMPO_E_ALREADY : TEMPO_E_STATE;
    }
    return sync_open_slot(&s->sync, player);
}

bool session_slot_free(const tempo_session *s, int player)
{
    return player >= 0 && player < s->sync.num_players && s->sync.kind[player] != SYNC_NONE &&
           s->sync.q[player].disconnect_frame != IQ_NO_FRAME;
}

tempo_result session_attach(tempo_session *s, int player, int kind)
{
    if (!s->ops->open_slots)
        return TEMPO_E_UNSUPPORTED;
    return sync_attach(&s->sync, player, kind, sync_attach_frame(&s->sync, player));
}
