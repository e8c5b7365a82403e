/*
 * session.c — the public session API: argument checks, players, the tick,
 * events and statistics, for local and synctest sessions. The rollback
 * decisions themselves live in sync.c.
 *
 * Every public entry validates its arguments and returns a tempo_result; no
 * caller mistake reaches an assert.
 */
#include "session/session.h"

#include <string.h>

#include "session/p2p.h"
#include "session/session_match.h"

void tempo_config_default(tempo_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->num_players = 2;
    cfg->input_size = 4;
    cfg->max_prediction = 8;
    cfg->save_policy = TEMPO_SAVE_EVERY_FRAME;
    cfg->log_level = TEMPO_LOG_WARN;
    cfg->desync_interval = 60;
    cfg->session_id = 1;
    cfg->disconnect_notify_ms = 500;
    cfg->disconnect_timeout_ms = 3000;
    cfg->max_spectators = 32;
    cfg->input_log_frames = 1024;
    cfg->spectator_lead_frames = 3;
    cfg->spectator_catchup_frames = 2;
    cfg->timesync.method = TEMPO_TIMESYNC_INVERSUS;
    cfg->timesync.lead_tolerance = 2.0;
    cfg->timesync.stall_threshold = 0.5;
    cfg->timesync.lead_cooldown_frames = 30;
    cfg->timesync.startup_delay = true;
    cfg->auto_delay.max_frames = 4;
    cfg->auto_delay.window_frames = 60;
    static const double raise[4] = {2.0, 3.0, 6.0, 8.0}, lower[4] = {1.0, 2.0, 5.0, 7.0};
    for (int k = 0; k < TEMPO_MAX_AUTO_DELAY; k++) {
        cfg->auto_delay.raise_at[k] = k < 4 ? raise[k] : 8.0 + 2.0 * (k - 3);
        cfg->auto_delay.lower_at[k] = k < 4 ? lower[k] : 7.0 + 2.0 * (k - 3);
    }
    cfg->frames_per_second = 60;
}

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
    if (cfg->desync_interval < 0)
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
    const tempo_timesync_config *ts = &cfg->timesync;
    if (ts->method < TEMPO_TIMESYNC_INVERSUS || ts->method > TEMPO_TIMESYNC_NONE ||
        ts->window_frames < 0 || ts->window_frames > 256 || !(ts->lead_tolerance > 0.0) ||
        !(ts->stall_threshold > 0.0) ||
        ts->lead_cooldown_frames < 0)
        return TEMPO_E_INVALID_ARG;
    const tempo_auto_delay_config *ad = &cfg->auto_delay;
    if (ad->max_frames < 0 || ad->max_frames > TEMPO_MAX_AUTO_DELAY ||
        ad->window_frames < 1 || (ad->enabled && ad->max_frames > tempo__max_i(cfg->max_prediction, 1)
                                                     && cfg->max_prediction > 0))
        return TEMPO_E_INVALID_ARG;
    for (int k = 0; k < ad->max_frames; k++)
        if (!(ad->lower_at[k] < ad->raise_at[k])) /* hysteresis needs a gap */
            return TEMPO_E_INVALID_ARG;
    if (cfg->frames_per_second < 1 || cfg->frames_per_second > 1000)
        return TEMPO_E_INVALID_ARG;
    return TEMPO_OK;
}

static tempo_result create(const tempo_config *cfg, session_kind kind, int check_distance,
                           const tempo_transport *tr, const tempo_address *host,
                           tempo_session **out)
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
    s->kind = kind;
    tempo_config engine = *cfg;
    if (kind == SESSION_SPECTATOR)
        engine.max_prediction = 0; /* spectators play confirmed frames only */
    r = sync_init(&s->sync, &engine, check_distance);
    if (r != TEMPO_OK) {
        tempo__free(&s->alloc, s);
        return r;
    }
    if (tr) {
        r = p2p_create(s, tr, host);
        if (r != TEMPO_OK) {
            tempo_session_destroy(s);
            return r;
        }
    }
    *out = s;
    return TEMPO_OK;
}

tempo_result tempo_session_create_local(const tempo_config *cfg, tempo_session **out)
{
    return create(cfg, SESSION_LOCAL, 0, NULL, NULL, out);
}

static bool network_args_ok(const tempo_config *cfg, const tempo_transport *tr)
{
    return cfg && tr && tr->send && tr->recv && cfg->session_id != 0 && cfg->start_frame == 0;
}

tempo_result tempo_session_create_p2p(const tempo_config *cfg, const tempo_transport *transport,
                                      tempo_session **out)
{
    if (!network_args_ok(cfg, transport)) {
        if (out)
            *out = NULL;
        return TEMPO_E_INVALID_ARG;
    }
    return create(cfg, SESSION_P2P, 0, transport, NULL, out);
}

tempo_result tempo_session_create_spectator(const tempo_config *cfg,
                                            const tempo_transport *transport,
                                            const tempo_address *host, tempo_session **out)
{
    if (!network_args_ok(cfg, transport) || !host || host->family == TEMPO_ADDRESS_NONE) {
        if (out)
            *out = NULL;
        return TEMPO_E_INVALID_ARG;
    }
    return create(cfg, SESSION_SPECTATOR, 0, transport, host, out);
}

tempo_result tempo_session_create_synctest(const tempo_config *cfg, int check_distance,
                                           tempo_session **out)
{
    if (!cfg || check_distance < 1 || check_distance > cfg->max_prediction) {
        if (out)
            *out = NULL;
        return TEMPO_E_INVALID_ARG;
    }
    tempo_result r = create(cfg, SESSION_SYNCTEST, check_distance, NULL, NULL, out);
    if (r == TEMPO_OK) /* every player is local: say so now, so delays can be set */
        for (int p = 0; p < cfg->num_players; p++)
            (*out)->sync.kind[p] = SYNC_LOCAL;
    return r;
}

void tempo_session_destroy(tempo_session *s)
{
    if (!s)
        return;
    tempo_allocator a = s->alloc;
    p2p_destroy(s);
    sync_free(&s->sync);
    tempo__free(&a, s);
}

/* ---- players ---------------------------------------------------------- */

static bool is_network(const tempo_session *s)
{
    return s->kind == SESSION_P2P || s->kind == SESSION_SPECTATOR;
}

/* Players and spectators are fixed once the match starts (first tick, or
 * for network sessions the first poll). */
static bool players_fixed(const tempo_session *s)
{
    return s->started || (s->net && s->net->started);
}

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
    if (s->kind == SESSION_SPECTATOR)
        return TEMPO_E_UNSUPPORTED;
    if (s->kind == SESSION_SYNCTEST) /* all local already: accepting it is kinder */
        return player >= 0 && player < s->sync.num_players ? TEMPO_OK : TEMPO_E_PLAYER;
    if (session_slot_free(s, player))
        return session_attach(s, player, SYNC_LOCAL);
    if (players_fixed(s))
        return too_late(s, player);
    return sync_set_player(&s->sync, player, SYNC_LOCAL);
}

tempo_result tempo_session_add_remote_player(tempo_session *s, int player, const tempo_address *addr)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    if (s->kind == SESSION_SYNCTEST || s->kind == SESSION_SPECTATOR)
        return TEMPO_E_UNSUPPORTED;
    if (session_slot_free(s, player))
        return session_attach(s, player, SYNC_REMOTE);
    if (players_fixed(s))
        return too_late(s, player);
    if (s->kind == SESSION_P2P)
        return p2p_add_remote(s, player, addr);
    /* a local session's caller delivers the inputs itself: addr unused */
    return sync_set_player(&s->sync, player, SYNC_REMOTE);
}

tempo_result tempo_session_add_spectator(tempo_session *s, const tempo_address *addr)
{
    if (!s || !addr)
        return TEMPO_E_INVALID_ARG;
    if (s->kind != SESSION_P2P)
        return TEMPO_E_UNSUPPORTED;
    if (players_fixed(s))
        return TEMPO_E_STATE;
    return p2p_add_spectator(s, addr);
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

static tempo_result start(tempo_session *s);

/* Move the session clock by the caller's step. A step forward longer than
 * the interruption time is this machine's own pause (sleep, breakpoint, a
 * long load): the network carried on without it, so it counts as one frame
 * and nobody's silence grows by it. A step back counts as no time. */
static void clock_step(tempo_session *s, uint64_t now_us)
{
    if (!s->has_time) {
        s->now_us = now_us;
    } else if (now_us < s->raw_us) {
        s->clock_jumps++;
        s->resumed_us = s->now_us;
    } else if (now_us - s->raw_us > (uint64_t)s->cfg.disconnect_notify_ms * 1000u) {
        s->now_us += 1000000u / (uint64_t)s->cfg.frames_per_second;
        s->clock_jumps++;
        s->resumed_us = s->now_us;
    } else {
        s->now_us += now_us - s->raw_us;
    }
    s->raw_us = now_us;
    s->has_time = true;
}

tempo_result tempo_session_poll(tempo_session *s, uint64_t now_us)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    clock_step(s, now_us);
    if (s->net) {
        if (!s->net->started) {
            tempo_result r = start(s);
            if (r != TEMPO_OK)
                return r;
        }
        p2p_poll(s);
    }
    return TEMPO_OK;
}

bool tempo_session_will_stall(const tempo_session *s)
{
    return s && s->net && s->net->decided && s->net->stall_next;
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
    if (s->kind != SESSION_LOCAL)
        return TEMPO_E_UNSUPPORTED;
    if (player < 0 || player >= s->sync.num_players || s->sync.kind[player] != SYNC_REMOTE)
        return TEMPO_E_PLAYER;
    if (frame < 0)
        return TEMPO_E_FRAME;
    return sync_add_remote_input(&s->sync, player, frame, input);
}

static tempo_result start(tempo_session *s)
{
    if (s->started)
        return TEMPO_OK;
    for (int p = 0; p < s->sync.num_players; p++) {
        if (s->sync.kind[p] != SYNC_NONE)
            continue;
        if (s->kind != SESSION_SYNCTEST)
            return TEMPO_E_STATE; /* every player must be declared */
        s->sync.kind[p] = SYNC_LOCAL;
    }
    s->started = true;
    return TEMPO_OK;
}

tempo_result session_plan(tempo_session *s, const sync_plan_opts *o, tempo_tick *tick);
static void note_waiting(tempo_session *s, const tempo_tick *t)
{
    bool waiting = t->status == TEMPO_TICK_WAITING;
    if (waiting == s->waiting)
        return;
    s->waiting = waiting;
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = waiting ? TEMPO_EVENT_WAITING : TEMPO_EVENT_WAITING_OVER;
    ev.player = -1;
    ev.u.waiting.players = t->waiting_for;
    session_push_event(s, &ev);
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
    if (!s->started) {
        tempo_result r = start(s);
        if (r != TEMPO_OK)
            return r;
    }
    /* Arena mode carries out SAVE/LOAD in tempo_session_next: skipping the
     * iteration would corrupt the state, so refuse. */
    if (s->sync.arena && s->sync.next_req < s->sync.nreqs)
        return TEMPO_E_STATE;
    if (s->kind == SESSION_SYNCTEST) {
        tempo_result r = sync_plan_synctest(&s->sync, tick);
        note_waiting(s, tick);
        return r;
    }
    if (is_network(s))
        return p2p_advance(s, tick);
    sync_plan_opts o;
    memset(&o, 0, sizeof o);
    return session_plan(s, &o, tick);
}

tempo_result session_plan(tempo_session *s, const sync_plan_opts *o, tempo_tick *tick)
{
    tempo_result r = sync_plan(&s->sync, o, tick);
    note_waiting(s, tick);
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
    if (s->kind == SESSION_SYNCTEST)
        return s->sync.frame;
    return tempo__min32(sync_confirmed(&s->sync), s->sync.frame);
}

int tempo_session_save_slots(const tempo_session *s)
{
    return s ? s->sync.nslots : TEMPO_E_INVALID_ARG;
}

tempo_result tempo_session_disconnect_player(tempo_session *s, int player)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    if (player < 0 || player >= s->sync.num_players || s->sync.kind[player] != SYNC_REMOTE ||
        s->kind == SESSION_SPECTATOR)
        return TEMPO_E_PLAYER;
    input_queue *q = &s->sync.q[player];
    if (s->kind == SESSION_P2P) {
        tempo_endpoint *e = &s->net->peers[s->net->player_peer[player]];
        if (e->disconnected || s->net->drop_state[player] != DROP_NONE)
            return TEMPO_E_ALREADY;
        p2p_lose_endpoint(s, e); /* the DISCONNECTED event comes once peers agree */
        return TEMPO_OK;
    }
    if (q->disconnect_frame != IQ_NO_FRAME)
        return TEMPO_E_ALREADY;
    session_disconnect(s, player, q->known_end);
    return TEMPO_OK;
}

/* ---- events and stats --------------------------------------------------- */

void session_disconnect(tempo_session *s, int player, int32_t frame)
{
    sync_disconnect(&s->sync, player, frame);
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TEMPO_EVENT_DISCONNECTED;
    ev.player = player;
    ev.u.disconnected.frame = s->sync.q[player].disconnect_frame;
    session_push_event(s, &ev);
}

void session_push_event(tempo_session *s, const tempo_event *ev)
{
    if (s->ev_count == SESSION_EVENT_QUEUE) {
        s->ev_head = (s->ev_head + 1) % SESSION_EVENT_QUEUE;
        s->ev_count--;
        s->sync.stats.events_dropped++;
    }
    s->events[(s->ev_head + s->ev_count) % SESSION_EVENT_QUEUE] = *ev;
    s->ev_count++;
}

int tempo_session_poll_event(tempo_session *s, tempo_event *ev)
{
    if (!s || !ev)
        return TEMPO_E_INVALID_ARG;
    if (s->ev_count == 0)
        return 0;
    *ev = s->events[s->ev_head];
    s->ev_head = (s->ev_head + 1) % SESSION_EVENT_QUEUE;
    s->ev_count--;
    return 1;
}

tempo_result tempo_session_get_stats(const tempo_session *s, tempo_session_stats *out)
{
    if (!s || !out)
        return TEMPO_E_INVALID_ARG;
    *out = s->sync.stats;
    out->frame = s->sync.frame;
    out->confirmed_frame = tempo_session_confirmed_frame(s);
    for (int p = 0; p < s->sync.num_players; p++)
        if (s->sync.kind[p] == SYNC_LOCAL && s->sync.delay[p] > out->input_delay)
            out->input_delay = s->sync.delay[p];
    if (s->net) {
        out->timesync_stalls = s->net->ts.stalls;
        out->frame_advantage = s->net->ts.advantage;
        out->startup_delay_ms = s->net->startup_delay_ms;
    }
    out->clock_jumps = s->clock_jumps;
    return TEMPO_OK;
}

tempo_result tempo_session_leave(tempo_session *s)
{
    if (!s)
        return TEMPO_E_INVALID_ARG;
    if (!is_network(s))
        return TEMPO_E_UNSUPPORTED;
    return p2p_leave(s);
}

tempo_result tempo_session_get_endpoint_stats(const tempo_session *s, int player,
                                              tempo_endpoint_stats *out)
{
    if (!s || !out)
        return TEMPO_E_INVALID_ARG;
    if (!is_network(s))
        return TEMPO_E_UNSUPPORTED;
    if (player < 0 || player >= s->sync.num_players || s->net->player_peer[player] < 0)
        return TEMPO_E_PLAYER;
    const tempo_endpoint *e = &s->net->peers[s->net->player_peer[player]];
    p2p_endpoint_stats(e, out);
    out->local_frame_lag = s->sync.frame - p2p_wanted_from(s, e);
    return TEMPO_OK;
}

tempo_result tempo_session_get_spectator_stats(const tempo_session *s, int index,
                                               tempo_endpoint_stats *out)
{
    if (!s || !out)
        return TEMPO_E_INVALID_ARG;
    if (!is_network(s))
        return TEMPO_E_UNSUPPORTED;
    const tempo_endpoint *e;
    if (s->kind == SESSION_SPECTATOR)
        e = index == 0 ? &s->net->peers[0] : NULL;
    else
        e = index >= 0 && index < s->net->nspecs ? &s->net->specs[index] : NULL;
    if (!e)
        return TEMPO_E_PLAYER;
    p2p_endpoint_stats(e, out);
    return TEMPO_OK;
}

tempo_result tempo_session_synctest_report(const tempo_session *s, tempo_synctest_report *out)
{
    if (!s || !out)
        return TEMPO_E_INVALID_ARG;
    if (s->kind != SESSION_SYNCTEST)
        return TEMPO_E_UNSUPPORTED;
    *out = s->sync.report;
    return TEMPO_OK;
}
