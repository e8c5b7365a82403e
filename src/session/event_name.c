/* SPDX-License-Identifier: MIT */
/*
 * event_name.c — tempo_event_kind as text, for logs and tools.
 *
 * The switch lists every kind and has no default, so the compiler's
 * -Wswitch names any kind added to tempo_event_kind without a name here.
 */
#include "tempo/session.h"

const char *tempo_event_name(tempo_event_kind kind)
{
    switch (kind) {
    case TEMPO_EVENT_CONNECTED: return "connected";
    case TEMPO_EVENT_SYNCHRONIZING: return "synchronizing";
    case TEMPO_EVENT_SYNCHRONIZED: return "synchronized";
    case TEMPO_EVENT_RUNNING: return "running";
    case TEMPO_EVENT_INTERRUPTED: return "interrupted";
    case TEMPO_EVENT_RESUMED: return "resumed";
    case TEMPO_EVENT_DISCONNECTED: return "disconnected";
    case TEMPO_EVENT_DESYNC: return "desync";
    case TEMPO_EVENT_WAITING: return "waiting";
    case TEMPO_EVENT_WAITING_OVER: return "waiting_over";
    case TEMPO_EVENT_TIMESYNC: return "timesync";
    case TEMPO_EVENT_INPUT_DELAY: return "input_delay";
    case TEMPO_EVENT_HANDSHAKE_FAILED: return "handshake_failed";
    case TEMPO_EVENT_DESYNC_DIFF: return "desync_diff";
    case TEMPO_EVENT_REJOINED: return "rejoined";
    case TEMPO_EVENT_REJOIN_STATE: return "rejoin_state";
    case TEMPO_EVENT_DROPPED: return "dropped";
    case TEMPO_EVENT_AUTH_FAILED: return "auth_failed";
    }
    return "unknown";
}
