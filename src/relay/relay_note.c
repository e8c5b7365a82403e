/* SPDX-License-Identifier: MIT */
/*
 * relay_note.c — what the relay tells its operator through the config's
 * log hook: why it refused a member (the gate's note on a connect token,
 * relay.c's denials after the handshake) and a transport that refuses
 * datagrams. An operator who sees members fail to join learns why from
 * here, since a refused member hears nothing, or only "denied". Each kind
 * of line is told at most once per RELAY_NOTE_US, saying how many events
 * it stands for: a flood of bad requests costs one line per 10 s.
 */
#include "relay/relay.h"

static const char *note_text(relay_note kind)
{
    switch (kind) {
    case RELAY_NOTE_FULL: return "every member place is taken (max_members)";
    case RELAY_NOTE_NO_MATCH:
        return "no match is free to open (max_matches, or max_turn_matches for a lockstep match)";
    case RELAY_NOTE_DRAINING: return "the relay is draining: it opens no new match";
    case RELAY_NOTE_NOT_A_JOIN:
        return "its token's user data is not a join (tempo_relay_join_write), or names other "
               "players than the token's slots";
    case RELAY_NOTE_TOO_LARGE:
        return "its match's frame (players times input size) is larger than max_frame_bytes";
    case RELAY_NOTE_DISAGREES:
        return "its match is open with other settings (players, input size, frame rate, turns, "
               "peer to peer)";
    case RELAY_NOTE_TAKEN: return "another member has one of its players";
    case RELAY_NOTE_STARTED: return "its match has started";
    default: return "refused";
    }
}

void relay_tell(tempo_relay *r, relay_note kind, const tempo_address *who)
{
    if (kind <= RELAY_NOTE_NONE || kind >= RELAY_NOTE_COUNT_)
        return;
    tempo_log_level level = kind == RELAY_NOTE_DRAINING ? TEMPO_LOG_INFO : TEMPO_LOG_WARN;
    if (r->log.fn == NULL || level > r->log.level)
        return;
    uint64_t told = tempo__note(&r->notes[kind], r->now_us, RELAY_NOTE_US);
    if (told == 0)
        return;
    char at[TEMPO_ADDRESS_STRLEN];
    tempo_address_format(who, at, sizeof at);
    char times[64];
    tempo__note_times(times, sizeof times, told, RELAY_NOTE_US);
    if (kind == RELAY_NOTE_SEND)
        tempo__log(&r->log, level, "tempo relay: the transport refused a datagram to %s%s",
                   at, times);
    else
        tempo__log(&r->log, level, "tempo relay: denied a member at %s%s: %s", at, times,
                   note_text(kind));
}

void relay_send_failed(tempo_relay *r, const tempo_address *to)
{
    r->st.send_errors++;
    relay_tell(r, RELAY_NOTE_SEND, to);
}
