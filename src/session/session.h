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
    /* The session clock: monotonic, advanced by each poll's step of the
     * caller's time, except that a step back counts as none and a leap
     * forward (see tempo_session_poll) as one frame. Every timer runs on it. */
    uint64_t now_us;
    uint64_t raw_us;       /* the caller's time at the last poll */
    bool has_time;
    uint64_t resumed_us;   /* session time of the last such step: round trips
                              begun before it measure nothing */
    uint64_t clock_jumps;

    tempo_event events[SESSION_EVENT_QUEUE];
    int ev_head, ev_count;

    struct tempo_p2p *net; /* network sessions only */
};

/* Plan a tick with the engine and report waiting transitions as events. */
tempo_result session_plan(tempo_session *s, const sync_plan_opts *o, tempo_tick *tick);

/* True if something sent at session time `sent_us` was in flight across a
 * step of the caller's clock that the session did not count as time. */
static inline bool session_spans_jump(const tempo_session *s, uint64_t sent_us)
{
    return sent_us < s->resumed_us;
}

/* Queue an event (dropping the oldest when full). */
void session_push_event(tempo_session *s, const tempo_event *ev);

/* Make `player` disconnected from `frame` on (the engine may move it to the
 * end of its real inputs) and raise TEMPO_EVENT_DISCONNECTED with the frame. */
void session_disconnect(tempo_session *s, int player, int32_t frame);

/* Check a config; TEMPO_OK or TEMPO_E_INVALID_ARG. */
tempo_result session_validate_config(const tempo_config *cfg);

#endif /* TEMPO_SESSION_SESSION_H */
