/* SPDX-License-Identifier: MIT */
/*
 * backend.h — what a session backend is: the ops table the public facade
 * dispatches through, and the host, the narrow interface the facade hands
 * each backend.
 *
 * The facade (session.c) owns what every session has: argument checks, the
 * config, the rollback engine, the session clock, the event queue, the
 * statistics (a backend fills in only its own fields) and the tick's
 * bookkeeping (start, arena checks, waiting transitions, the state). A
 * backend (local.c and synctest.c here; each role in its own folder above:
 * p2p and spectator, the relay member, replay playback) owns how its kind
 * of session gets inputs and plans ticks. It sees the facade only through
 * its session_host: the config, the engine and the clock to read and
 * drive, and three calls back (push an event, mark a player disconnected,
 * report a planned tick); its public constructor calls session_create, and
 * its own public functions find their state with session_backend_of. It
 * never includes the facade's header and never reaches into tempo_session,
 * and the facade names no role, so the two cannot call each other in
 * circles, and a backend can be driven by a test host.
 *
 * Every op receives the backend's state (`b`, what create returned). An op
 * left NULL means the session kind does not do that: the facade answers
 * TEMPO_E_UNSUPPORTED, or the documented neutral value.
 * Internal: not installed.
 */
#ifndef TEMPO_SESSION_BACKEND_H
#define TEMPO_SESSION_BACKEND_H

#include "base/common.h"
#include "tempo/session.h"
#include "rollback/sync.h"
#include "session/clock.h"

/* The facade as a backend sees it. Lives as long as the session; the
 * pointers stay valid until the backend is destroyed. */
typedef struct session_host {
    const tempo_config *cfg;    /* the session's config, validated */
    tempo_sync *sync;           /* the rollback engine the backend drives */
    const session_clock *clock; /* the session clock every timer runs on */
    void *ctx;                  /* the facade's, passed back to each call */
    /* Queue an event for the game (the oldest is dropped when full). */
    void (*push_event)(void *ctx, const tempo_event *ev);
    /* Make `player` disconnected from `frame` on (the engine may move it to
     * the end of its real inputs) and raise TEMPO_EVENT_DISCONNECTED with
     * the frame the engine settled on. */
    void (*disconnect)(void *ctx, int player, int32_t frame);
    /* The engine planned this tick (sync_plan or sync_plan_synctest), before
     * the backend changes anything in it: the facade raises
     * TEMPO_EVENT_WAITING / WAITING_OVER on the transitions. */
    void (*planned)(void *ctx, const tempo_tick *tick);
} session_host;

/* What a backend is created from, besides the host. */
typedef struct session_args {
    const tempo_transport *transport; /* network backends: copied */
    const tempo_address *host_addr;   /* spectator: the machine it watches */
    struct tempo_replay *replay;      /* replay: the file played back */
    const uint8_t *token;             /* relay member: the connect token, or NULL */
} session_args;

typedef struct session_backend_ops {
    /* Every player is declared local at create (synctest): declaring a
     * player local again is accepted at any time. */
    bool players_preset;
    /* The engine never predicts (max_prediction 0 whatever the config):
     * the backend plays confirmed frames only (spectator). */
    bool confirmed_only;
    /* A player may take an empty or dropped slot while the match runs
     * (local: the caller alone decides; network backends need every peer
     * to agree on the frame first). */
    bool open_slots;
    /* tempo_session_load_state is allowed (not synctest, whose planner
     * rolls back on its own schedule). */
    bool external_load;

    /* Build the backend's state into *out: TEMPO_OK or TEMPO_E_NO_MEMORY.
     * On failure *out is NULL or a state destroy frees. */
    tempo_result (*create)(const session_host *host, const session_args *args, void **out);
    void (*destroy)(void *b); /* NULL: create allocated nothing */

    /* Players, before play starts (the facade refuses them after). */
    tempo_result (*add_local)(void *b, int player);
    tempo_result (*add_remote)(void *b, int player, const tempo_address *addr);
    tempo_result (*add_spectator)(void *b, const tempo_address *addr);
    /* The caller delivers a remote player's input (local sessions). The
     * facade checked size and pointers. */
    tempo_result (*add_remote_input)(void *b, int player, int32_t frame, const void *input);
    /* Drop remote player `player` (in range and remote: the facade checked).
     * NULL: TEMPO_E_PLAYER. */
    tempo_result (*disconnect_player)(void *b, int player);

    /* After each step of the session clock, once the players are fixed:
     * network in and out, timers, events. NULL: nothing to do, and the
     * players are fixed at the first advance rather than the first poll. */
    void (*poll)(void *b);
    /* True if the coming advance is a time-sync stall. NULL: never. */
    bool (*will_stall)(const void *b);
    /* Plan the tick into *tick (reset by the facade: a STALLED tick that
     * ran nothing), once the players are fixed and the game carried out
     * the previous tick. */
    tempo_result (*advance)(void *b, tempo_tick *tick);
    tempo_result (*leave)(void *b);

    /* The backend's part of the state: SYNCHRONIZING, RUNNING or ENDED
     * (the facade turns RUNNING into WAITING after a waiting tick).
     * NULL: always RUNNING. */
    tempo_session_state (*state)(const void *b);
    /* The confirmed frame count. NULL: the engine's, at most the frame. */
    int32_t (*confirmed_frame)(const void *b);
    /* Fill the backend's fields of the stats (the facade filled the rest). */
    void (*stats)(const void *b, tempo_session_stats *out);
    /* Stats of the endpoint hosting `player` (in range: the facade checked)
     * or of spectator `index`: TEMPO_OK or TEMPO_E_PLAYER. */
    tempo_result (*endpoint_stats)(const void *b, int player, tempo_endpoint_stats *out);
    tempo_result (*spectator_stats)(const void *b, int index, tempo_endpoint_stats *out);
    tempo_result (*synctest_report)(const void *b, tempo_synctest_report *out);
    /* Desync diffs (tempo_session_provide_state, tempo_session_desync_diff;
     * the facade checked the pointers and size). NULL: TEMPO_E_UNSUPPORTED. */
    tempo_result (*provide_state)(void *b, int32_t frame, const void *state, size_t size);
    tempo_result (*desync_diff)(const void *b, tempo_desync_diff *out);
    /* The state a rejoining session received (tempo_session_rejoin_state;
     * the facade checked the pointers). NULL: TEMPO_E_UNSUPPORTED. */
    tempo_result (*rejoin_state)(const void *b, const void **state, size_t *size, int32_t *frame);
} session_backend_ops;

/* The facade's own kinds; every other backend is its role's (p2p.c,
 * spectator.c, relay_member.c, replay_play.c), whose public constructor
 * hands session_create its ops table. */
extern const session_backend_ops session_local_ops;    /* local.c */
extern const session_backend_ops session_synctest_ops; /* synctest.c */

/* Create a session of the kind `ops` describes (session.c): the config
 * checked (TEMPO_E_INVALID_ARG), the engine set up (check_distance: the
 * synctest's, else 0), then ops->create with args. On success *out owns
 * the session; on failure *out is NULL and nothing is left allocated.
 * Errors: TEMPO_E_INVALID_ARG (out NULL, a config out of range),
 * TEMPO_E_NO_MEMORY, or what ops->create returned. */
tempo_result session_create(const tempo_config *cfg, const session_backend_ops *ops,
                            int check_distance, const session_args *args, tempo_session **out);
/* The backend state of s if s is of the kind `ops`, else NULL (s NULL too):
 * how a role's own public functions find their state. */
void *session_backend_of(const tempo_session *s, const session_backend_ops *ops);
/* What every network backend needs: a config and a transport that can
 * send and receive, a session id other than 0, and frame 0 to start at. */
bool session_network_args_ok(const tempo_config *cfg, const tempo_transport *tr);

#endif /* TEMPO_SESSION_BACKEND_H */
