/* SPDX-License-Identifier: MIT */
/*
 * session_match.h — slots that take a player while the match runs (see
 * session_match.c). Internal: not installed.
 */
#ifndef TEMPO_SESSION_SESSION_MATCH_H
#define TEMPO_SESSION_SESSION_MATCH_H

#include <stdbool.h>

#include "session/session.h"

/* True if `player` names a declared slot whose player is absent: an empty
 * slot, or a player who was dropped. */
bool session_slot_free(const tempo_session *s, int player);

/* Put a player of `kind` (SYNC_LOCAL or SYNC_REMOTE) in the free slot
 * `player`, from the first frame the session holds no input of it for.
 * TEMPO_E_UNSUPPORTED outside local sessions; otherwise as sync_attach. */
tempo_result session_attach(tempo_session *s, int player, int kind);

#endif /* TEMPO_SESSION_SESSION_MATCH_H */
