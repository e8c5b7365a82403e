/* SPDX-License-Identifier: MIT */
/*
 * session.c — the public session API, a facade over the backends
 * (backend.h): it checks every argument, owns the config, the rollback
 * engine, the session clock, the event queue and the statistics, fixes the
 * players when play starts, and dispatches each call through the session's
 * ops table. The backends decide how inputs arrive and how a tick is
 * planned; the rollback decisions themselves live in rollback/sync.c. The
 * facade names only its own two kinds (local.c, synctest.c): every other
 * role's public constructor calls session_create with its ops table, so
 * nothing here depends on a role.
 *
 * Every public entry validates its arguments and returns a tempo_result; no
 * caller mistake reaches an assert. The facade calls backends only through
 * their ops; they reach it only through the session_host it gives them.
 */
#include "session/session.h"

#include <string.h>

#include "session/session_match.h"
#include "wire/seal.h"

tempo_result session_validate_config(const tempo_config *cfg)
{
    if (!cfg)
        return TEMPO_E_INVALID_ARG;
    if (cfg->num_players < 1 || cfg->num_players > TEMPO_MAX_PLAYERS)
        return TEMPO_E_INVALID_ARG;
    if (cfg->input_size < 1 || cfg->input_size > TEMPO_MAX_INPUT_SIZE)
        return TEMPO_E_INVALID_ARG;
    if (cfg->max_prediction < 0 || cfg->max_prediction > TEMPO_MAX_PREDICTION)
        return TEMPO_E_INVALID_ARG;
    if (cfg->save_policy != TEMPO_SAVE_EVERY_FRAME && cfg->save_policy != TEMPO_SAVE_SPARSE)
        return TEMPO_E_INVALID_ARG;
    if ((cfg->arena == NULL) != (cfg->arena_size == 0))
        return TEMPO_E_INVALID_ARG;
    if (cfg->desync_interval < 0 || cfg->desync_diff_max_bytes > TEMPO_DESYNC_DIFF_MAX)
        return TEMPO_E_INVALID_ARG;
    if ((cfg->allocator.alloc == NULL) != (cfg->allocator.free == NULL))
        return TEMPO_E_INVALID_ARG;
    if (cfg->log_level < TEMPO_LOG_ERROR || cfg->log_level > TEMPO_LOG_DEBUG)
        return TEMPO_E_INVALID_ARG;
    if (cfg->max_spectators < 0 || cfg->max_spectators > TEMPO_MAX_SPECTATORS)
        return TEMPO_E_INVALID_ARG;
    if (cfg->input_log_frames < 64 || cfg->input_log_frames > (1 << 20))
        return TEMPO_E_INVALID_ARG;
    if (cfg->start_frame < 0 || cfg->start_frame > (1 << 30))
        return TEMPO_E_INVALID_ARG;
    if (cfg->spectator_lead_frames < 0 || cfg->spectator_lead_frames > 600)
        return TEMPO_E_INVALID_ARG;
    if (cfg->spectator_catchup_frames < 1 || cfg->spectator_catchup_frames > 60)
        return TEMPO_E_INVALID_ARG;
    if (cfg->disconnect_notify_ms == 0 || cfg->disconnect_timeout_ms < cfg->disconnect_notify_ms)
        return TEMPO_E_INVALID_ARG;
    if (cfg->handshake_timeout_ms != 0 &&
        (cfg->handshake_timeout_ms < 1000u || cfg->handshake_timeout_ms > 3600000u))
        return TEMPO_E_INVALID_ARG;
    const tempo_timesync_config *ts = &cfg->timesync;
    if (ts->method < TEMPO_TIMESYNC_INVERSUS || ts->method > TEMPO_TIMESYNC_INVERSUS_ARTICLE ||
        ts->window_frames < 0 || ts->window_frames > 256 || !(ts->lead_tolerance > 0.0) ||
        !(ts->stall_threshold >= 0.0 && ts->stall_threshold <= 10.0) ||
        ts->lead_cooldown_frames < 0)
        return TEMPO_E_INVALID_ARG;
    const tempo_auto_delay_config *ad = &cfg->auto_delay;
    if (ad->signal != TEMPO_DELAY_HALF_RTT && ad->signal != TEMPO_DELAY_FRAME_LAG)
        return TEMPO_E_INVALID_ARG;
    if (ad->max_frames < 0 || ad->max_frames > TEMPO_MAX_AUTO_DELAY ||
        ad->window_frames < 1 || (ad->enabled && ad->max_frames > tempo__max_i(cfg->max_prediction, 1)
                                                     && cfg->max_prediction > 0))
        return TEMPO_E_INVALID_ARG;
    for (int k = 0; k < ad->max_frames; k++)
        if (!(ad->lower_at[k] < ad->raise_at[k])) /* hysteresis needs a gap */
            return TEMPO_E_INVALID_ARG;
    if (cfg->frames_per_second < 1 || cfg->frames_per_second > 1000)
        return TEMPO_E_INVALID_ARG;
    if (cfg->rejoin_window_ms != 0 &&
        (cfg->rejoin_window_ms < 1000u || cfg->rejoin_window_ms > 3600000u))
        return TEMPO_E_INVALID_ARG;
    if (cfg->rejoin && (cfg->rejoin_epoch > 255u || (cfg->has_match_key && cfg->rejoin_epoch == 0)))
        return TEMPO_E_INVALID_ARG;
    if (cfg->has_match_key) {
        uint8_t any = 0;
        for (size_t i = 0; i < sizeof cfg->match_key; i++)
            any |= cfg->match_key[i];
        if (any == 0) /* never filled in: sealing under it would protect nothing */
            return TEMPO_E_INVALID_ARG;
    }
    if (cfg->spectator_number < 0 || cfg->spectator_number >= TEMPO_MAX_SPECTATORS ||
        cfg->spectator_host_player < 0 || cfg->spectator_host_player >= cfg->num_players)
        return TEMPO_E_INVALID_ARG;
    return TEMPO_OK;
}

/* ---- the host: what backends may ask of the facade ----------------------- */

static void push_event(tempo_session *s, const tempo_event *ev)
{
    s->events[event_ring_push(&s->ev)] = *ev;
}

static void host_push_event(void *ctx, const tempo_event *ev)
{
    push_event(ctx, ev);
}

static void host_disconnect(void *ctx, int player, int32_t frame)
{
    tempo_session *s = ctx;
    sync_disconnect(&s->sync, player, frame);
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TEMPO_EVENT_DISCONNECTED;
    ev.player = player;
    ev.u.disconnected.frame = s->sync.q[player].disconnect_frame;
    push_event(s, &ev);
}

/* WAITING when a plan first finds the window full, WAITING_OVER when one
 * no longer does. */
static void host_planned(void *ctx, const tempo_tick *t)
{
    tempo_session *s = ctx;
    bool waiting = t->status == TEMPO_TICK_WAITING;
    if (waiting == s->waiting)
        return;
    s->waiting = waiting;
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = waiting ? TEMPO_EVENT_WAITING : TEMPO_EVENT_WAITING_OVER;
    ev.player = -1;
    ev.u.waiting.players = t->waiting_for;
    push_event(s, &ev);
}

/* ---- creation ------------------------------------------------------------ */

tempo_result session_create(const tempo_config *cfg, const session_backend_ops *ops,
                            int check_distance, const session_args *args, tempo_session **out)
{
    if (!out)
        return TEMPO_E_INVALID_ARG;
    *out = NULL;
    tempo_result r = session_validate_config(cfg);
    if (r != TEMPO_OK)
        return r;
    tempo_session *s = tempo__calloc(&cfg->allocator, 1, sizeof *s);
    if (!s)
        return TEMPO_E_NO_MEMORY;
    s->alloc = cfg->allocator;
    s->cfg = *cfg;
    s->ops = ops;
    if (args->transport)
        s->transport = *args->transport;
    tempo_config engine = *cfg;
    if (ops->confirmed_only)
        engine.max_prediction = 0;
    r = sync_init(&s->sync, &engine, check_distance);
    seal_wipe(engine.match_key, sizeof engine.match_key);
    if (r != TEMPO_OK) {
        seal_wipe(s->cfg.match_key, sizeof s->cfg.match_key);
        tempo__free(&s->alloc, s);
        return r;
    }
    event_ring_init(&s->ev, SESSION_EVENT_QUEUE);
    s->host.cfg = &s->cfg;
    s->host.sync = &s->sync;
    s->host.clock = &s->clock;
    s->host.ctx = s;
    s->host.push_event = host_push_event;
    s->host.disconnect = host_disconnect;
    s->host.planned = host_planned;
    r = ops->create(&s->host, args, &s->backend);
    if (r != TEMPO_OK) {
        tempo_session_destroy(s);
        return r;
    }
    *out = s;
    return TEMPO_OK;
}

void *session_backend_of(const tempo_session *s, const session_backend_ops *ops)
{
    return s && s->ops == ops ? s->backend : NULL;
}

tempo_result tempo_session_create_local(const tempo_config *cfg, tempo_session **out)
{
    session_args args = {NULL, NULL, NULL, NULL};
    return session_create(cfg, &session_local_ops, 0, &args, out);
}

bool session_network_args_ok(const tempo_config *cfg, const tempo_transport *tr)
{
    return cfg && tr && tr->send && tr->recv && cfg->session_id != 0 && cfg->start_frame == 0;
}

tempo_result tempo_session_create_synctest(const tempo_config *cfg, int check_distance,
                                           tempo_session **out)
{
    if (!cfg || check_distance < 1 || check_distance > cfg->max_prediction) {
        if (out)
            *out = NULL;
        return TEMPO_E_INVALID_ARG;
    }
    session_args args = {NULL, NULL, NULL, NULL};
    return session_create(cfg, &session_synctest_ops, check_distance, &args, out);
}

void tempo_session_destroy(tempo_session *s)
{
    if (!s)
        return;
    tempo_allocator a = s->alloc;
    if (s->ops->destroy && s->backend)
        s->ops->destroy(s->backend);
    sync_free(&s->sync);
    seal_wipe(s->cfg.match_key, sizeof s->cfg.match_key);
    tempo__free(&a, s);
}

/* ---- players ---------------------------------------------------------- */

/* Declaring a player once play started: a known one was declared already. */
static tempo_result too_late(const tempo_session *s, int player)
{
    if (player >= 0 && player < s->sync.num_players && s->sync.kind[player] != SYNC_NONE)
        return TEMPO_E_ALREADY;
    return player >= 0 && player < s->sync.num_players ? TEMPO_E_STATE : TEMPO_E_PLAYER;
}

tempo_result tempo_session_add_local_player(tempo_session *s, int player)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    if (!s->ops->add_local)
        return TEMPO_E_UNSUPPORTED;
    if (!s->ops->players_preset && session_slot_free(s, player))
        return session_attach(s, player, SYNC_LOCAL);
    if (s->started && !s->ops->players_preset)
        return too_late(s, player);
    return s->ops->add_local(s->backend, player);
}

tempo_result tempo_session_add_remote_player(tempo_session *s, int player, const tempo_address *addr)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    if (!s->ops->add_remote)
        return TEMPO_E_UNSUPPORTED;
    if (session_slot_free(s, player))
        return session_attach(s, player, SYNC_REMOTE);
    if (s->started)
        return too_late(s, player);
    return s->ops->add_remote(s->backend, player, addr);
}

tempo_result tempo_session_add_spectator(tempo_session *s, const tempo_address *addr)
{
    if (!s || !addr)
        return TEMPO_E_INVALID_ARG;
    if (!s->ops->add_spectator)
        return TEMPO_E_UNSUPPORTED;
    if (s->started)
        return TEMPO_E_STATE;
    return s->ops->add_spectator(s->backend, addr);
}

tempo_result tempo_session_set_input_delay(tempo_session *s, int player, int frames)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    return sync_set_delay(&s->sync, player, frames);
}

int tempo_session_input_delay(const tempo_session *s, int player)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    if (player < 0 || player >= s->sync.num_players || s->sync.kind[player] != SYNC_LOCAL)
        return TEMPO_E_PLAYER;
    return s->sync.delay[player];
}

/* ---- the tick --------------------------------------------------------- */

/* Play starts: every player must be declared, and none may be added after. */
static tempo_result start(tempo_session *s)
{
    if (s->started)
        return TEMPO_OK;
    for (int p = 0; p < s->sync.num_players; p++)
        if (s->sync.kind[p] == SYNC_NONE)
            return TEMPO_E_STATE;
    s->started = true;
    return TEMPO_OK;
}

tempo_result tempo_session_poll(tempo_session *s, uint64_t now_us)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    session_clock_step(&s->clock, now_us, s->cfg.disconnect_notify_ms, s->cfg.frames_per_second);
    if (s->ops->poll) {
        tempo_result r = start(s);
        if (r != TEMPO_OK)
            return r;
        s->ops->poll(s->backend);
        (void)tempo_transport_flush(&s->transport);
    }
    return TEMPO_OK;
}

bool tempo_session_will_stall(const tempo_session *s)
{
    return s && s->ops->will_stall && s->ops->will_stall(s->backend);
}

tempo_result tempo_session_add_local_input(tempo_session *s, int player, const void *input,
                                           size_t size)
{
    if (!s || !input || size != (size_t)s->cfg.input_size)
        return TEMPO_E_INVALID_ARG;
    if (player < 0 || player >= s->sync.num_players)
        return TEMPO_E_PLAYER;
    if (s->sync.kind[player] != SYNC_LOCAL)
        return TEMPO_E_PLAYER;
    sync_add_local_input(&s->sync, player, input);
    return TEMPO_OK;
}

tempo_result tempo_session_add_remote_input(tempo_session *s, int player, int32_t frame,
                                            const void *input, size_t size)
{
    if (!s || !input || size != (size_t)s->cfg.input_size)
        return TEMPO_E_INVALID_ARG;
    if (!s->ops->add_remote_input)
        return TEMPO_E_UNSUPPORTED;
    return s->ops->add_remote_input(s->backend, player, frame, input);
}

/* A tick that did nothing: no request, no frame, no input taken. */
static void tick_reset(const tempo_session *s, tempo_tick *tick)
{
    memset(tick, 0, sizeof *tick);
    tick->status = TEMPO_TICK_STALLED;
    tick->frame = s->sync.frame;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        tick->input_frame[p] = TEMPO_FRAME_NONE;
}

tempo_result tempo_session_advance(tempo_session *s, tempo_tick *tick)
{
    if (!s || !tick)
        return TEMPO_E_INVALID_ARG;
    tick_reset(s, tick);
    tempo_result r = start(s);
    if (r != TEMPO_OK)
        return r;
    /* Arena mode carries out SAVE/LOAD in tempo_session_next: skipping the
     * iteration would corrupt the state, so refuse. */
    if (s->sync.arena && s->sync.next_req < s->sync.nreqs)
        return TEMPO_E_STATE;
    r = s->ops->advance(s->backend, tick);
    (void)tempo_transport_flush(&s->transport);
    if (r == TEMPO_OK)
        s->tick_waiting = tick->status == TEMPO_TICK_WAITING;
    return r;
}

int tempo_session_next(tempo_session *s, const tempo_request **req)
{
    if (!s || !req)
        return TEMPO_E_INVALID_ARG;
    return sync_next(&s->sync, req);
}

/* ---- queries ----------------------------------------------------------- */

int32_t tempo_session_frame(const tempo_session *s)
{
    return s ? s->sync.frame : TEMPO_E_INVALID_ARG;
}

int32_t tempo_session_confirmed_frame(const tempo_session *s)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    if (s->ops->confirmed_frame)
        return s->ops->confirmed_frame(s->backend);
    return tempo__min32(sync_confirmed(&s->sync), s->sync.frame);
}

int tempo_session_save_slots(const tempo_session *s)
{
    return s ? s->sync.nslots : TEMPO_E_INVALID_ARG;
}

tempo_result tempo_session_get_state(const tempo_session *s, tempo_session_state *out)
{
    if (!s || !out)
        return TEMPO_E_INVALID_ARG;
    tempo_session_state st = s->ops->state ? s->ops->state(s->backend) : TEMPO_SESSION_RUNNING;
    if (st == TEMPO_SESSION_RUNNING && s->tick_waiting)
        st = TEMPO_SESSION_WAITING;
    *out = st;
    return TEMPO_OK;
}

tempo_result tempo_session_disconnect_player(tempo_session *s, int player)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    if (player < 0 || player >= s->sync.num_players || s->sync.kind[player] != SYNC_REMOTE ||
        !s->ops->disconnect_player)
        return TEMPO_E_PLAYER;
    tempo_result r = s->ops->disconnect_player(s->backend, player);
    (void)tempo_transport_flush(&s->transport);
    return r;
}

tempo_result tempo_session_leave(tempo_session *s)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    if (!s->ops->leave)
        return TEMPO_E_UNSUPPORTED;
    tempo_result r = s->ops->leave(s->backend);
    (void)tempo_transport_flush(&s->transport);
    return r;
}

/* ---- events and stats --------------------------------------------------- */

int tempo_session_poll_event(tempo_session *s, tempo_event *ev)
{
    if (!s || !ev)
        return TEMPO_E_INVALID_ARG;
    int i = event_ring_pop(&s->ev);
    if (i < 0)
        return 0;
    *ev = s->events[i];
    return 1;
}

tempo_result tempo_session_get_stats(const tempo_session *s, tempo_session_stats *out)
{
    if (!s || !out)
        return TEMPO_E_INVALID_ARG;
    *out = s->sync.stats;
    out->frame = s->sync.frame;
    out->confirmed_frame = tempo_session_confirmed_frame(s);
    out->events_dropped = s->ev.dropped;
    for (int p = 0; p < s->sync.num_players; p++)
        if (s->sync.kind[p] == SYNC_LOCAL && s->sync.delay[p] > out->input_delay)
            out->input_delay = s->sync.delay[p];
    if (s->ops->stats)
        s->ops->stats(s->backend, out);
    out->clock_jumps = s->clock.jumps;
    return TEMPO_OK;
}

tempo_result tempo_session_get_endpoint_stats(const tempo_session *s, int player,
                                              tempo_endpoint_stats *out)
{
    if (!s || !out)
        return TEMPO_E_INVALID_ARG;
    if (!s->ops->endpoint_stats)
        return TEMPO_E_UNSUPPORTED;
    if (player < 0 || player >= s->sync.num_players)
        return TEMPO_E_PLAYER;
    tempo_result r = s->ops->endpoint_stats(s->backend, player, out);
    tempo_path_info pi;
    if (r == TEMPO_OK && s->traversal && tempo_traversal_get_path(s->traversal, player, &pi) == TEMPO_OK) {
        out->path = pi.path;
        out->rtt_direct_ms = (double)pi.rtt_direct_us / 1000.0;
        out->rtt_relay_ms = (double)pi.rtt_relay_us / 1000.0;
    }
    return r;
}

tempo_result tempo_session_set_traversal(tempo_session *s, const tempo_traversal *t)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    s->traversal = t;
    return TEMPO_OK;
}

tempo_result tempo_session_get_spectator_stats(const tempo_session *s, int index,
                                               tempo_endpoint_stats *out)
{
    if (!s || !out)
        return TEMPO_E_INVALID_ARG;
    if (!s->ops->spectator_stats)
        return TEMPO_E_UNSUPPORTED;
    return s->ops->spectator_stats(s->backend, index, out);
}

tempo_result tempo_session_provide_state(tempo_session *s, int32_t frame, const void *state,
                                         size_t size)
{
    if (!s || !state || size == 0)
        return TEMPO_E_INVALID_ARG;
    if (!s->ops->provide_state)
        return TEMPO_E_UNSUPPORTED;
    tempo_result r = s->ops->provide_state(s->backend, frame, state, size);
    (void)tempo_transport_flush(&s->transport);
    return r;
}

tempo_result tempo_session_rejoin_state(const tempo_session *s, const void **state, size_t *size,
                                        int32_t *frame)
{
    if (!s || !state || !size || !frame)
        return TEMPO_E_INVALID_ARG;
    if (!s->ops->rejoin_state)
        return TEMPO_E_UNSUPPORTED;
    return s->ops->rejoin_state(s->backend, state, size, frame);
}

tempo_result tempo_session_desync_diff(const tempo_session *s, tempo_desync_diff *out)
{
    if (!s || !out)
        return TEMPO_E_INVALID_ARG;
    if (!s->ops->desync_diff)
        return TEMPO_E_UNSUPPORTED;
    return s->ops->desync_diff(s->backend, out);
}

int tempo_session_desync_diff_line(const tempo_session *s, int index, char *buf, size_t size)
{
    if (!s || (!buf && size > 0))
        return TEMPO_E_INVALID_ARG;
    if (!s->ops->desync_diff)
        return TEMPO_E_UNSUPPORTED;
    tempo_desync_diff d;
    tempo_result r = s->ops->desync_diff(s->backend, &d);
    if (r != TEMPO_OK)
        return r;
    if (index < 0 || index >= d.kept_ranges)
        return TEMPO_E_INVALID_ARG;
    return session_diff_line(&s->cfg, &d, index, buf, size);
}

tempo_result tempo_session_synctest_report(const tempo_session *s, tempo_synctest_report *out)
{
    if (!s || !out)
        return TEMPO_E_INVALID_ARG;
    if (!s->ops->synctest_report)
        return TEMPO_E_UNSUPPORTED;
    return s->ops->synctest_report(s->backend, out);
}
