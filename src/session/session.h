/* SPDX-License-Identifier: MIT */
/*
 * session.h — the session object behind the public API: what every session
 * has (config, engine, clock, events, bookkeeping of the tick) and the
 * backend it dispatches to. Only the facade (session.c) and the inspection
 * seam for tests (inspect.c) see inside; backends see the session_host.
 * Internal: not installed.
 */
#ifndef TEMPO_SESSION_SESSION_H
#define TEMPO_SESSION_SESSION_H

#include "base/common.h"
#include "base/event_ring.h"
#include "tempo/session.h"
#include "rollback/sync.h"
#include "session/backend.h"
#include "session/clock.h"

struct tempo_p2p;

#define SESSION_EVENT_QUEUE 64

struct tempo_session {
    tempo_allocator alloc;
    tempo_config cfg;
    tempo_sync sync;          /* the rollback engine, driven by the backend */
    session_clock clock;
    session_host host;        /* what the backend sees of this session */
    const session_backend_ops *ops;
    const tempo_traversal *traversal; /* the transport's, for the path in endpoint stats */
    /* Network sessions: the backend's transport, flushed before every
     * public call that may have sent returns (the end of a round of sends);
     * zeroed for the others. */
    tempo_transport transport;
    union {
        void *backend;        /* the backend's state, handed to every op */
        /* The same pointer in p2p and spectator sessions. Tests inspect the
         * network state through it; the facade never does. */
        struct tempo_p2p *net;
    };
    bool started;             /* players fixed: first advance, or first poll
                                 of a backend that polls */
    bool waiting;             /* the engine's last plan was WAITING (events) */
    bool tick_waiting;        /* the last successful advance said WAITING (state) */

    tempo_event events[SESSION_EVENT_QUEUE];
    event_ring ev;            /* which of events[] are held, oldest first; its drops */
};

/* Range `index` of diff d as one line (diff_line.c; the format of
 * tempo_session_desync_diff_line, which checked the arguments). */
int session_diff_line(const tempo_config *cfg, const tempo_desync_diff *d, int index, char *buf,
                      size_t size);

/* Check a config; TEMPO_OK or TEMPO_E_INVALID_ARG. */
tempo_result session_validate_config(const tempo_config *cfg);

#endif /* TEMPO_SESSION_SESSION_H */
