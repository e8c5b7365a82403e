/*
 * session.h — the session object behind the public API, shared by the
 * session kinds (local, synctest, and the network sessions built on them).
 * Internal: not installed.
 */
#ifndef TEMPO_SESSION_SESSION_H
#define TEMPO_SESSION_SESSION_H

#include "base/common.h"
#include "tempo/session.h"
#include "rollback/sync.h"

typedef enum session_kind {
    SESSION_LOCAL = 1,
    SESSION_SYNCTEST = 2,
    SESSION_P2P = 3,
    SESSION_SPECTATOR = 4
} session_kind;

struct tempo_p2p;

#define SESSION_EVENT_QUEUE 64

struct tempo_session {
    tempo_allocator alloc;
    tempo_config cfg;
    session_kind kind;
    tempo_sync sync;
    bool started;
    bool waiting;       /* last tick was WAITING (for WAITING_OVER) */
    uint64_t now_us;
    bool has_time;

    tempo_event events[SESSION_EVENT_QUEUE];
    int ev_head, ev_count;

    struct tempo_p2p *net; /* network sessions only */
};

/* Plan a tick with the engine and report waiting transitions as events. */
tempo_result session_plan(tempo_session *s, const sync_plan_opts *o, tempo_tick *tick);

/* Queue an event (dropping the oldest when full). */
void session_push_event(tempo_session *s, const tempo_event *ev);

/* Make `player` disconnected from `frame` on (the engine may move it to the
 * end of its real inputs) and raise TEMPO_EVENT_DISCONNECTED with the frame. */
void session_disconnect(tempo_session *s, int player, int32_t frame);

/* Check a config; TEMPO_OK or TEMPO_E_INVALID_ARG. */
tempo_result session_validate_config(const tempo_config *cfg);

#endif /* TEMPO_SESSION_SESSION_H */
