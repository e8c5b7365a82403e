/* SPDX-License-Identifier: MIT */
/*
 * arena_sdl.c — tempo-arena-sdl: play arena in a window, through tempo.
 *
 * You fly one ship; bots fly the others. Three ways to run it:
 *   - default: a local session. The bots are its "remote" players, and their
 *     inputs reach tempo through a simulated network (arena_lag.c) whose
 *     delay you change while playing: tempo predicts them, and rolls back
 *     and resimulates when a guess was wrong, so you see and feel rollback.
 *   - --synctest: a synctest session, which replays frames every tick and
 *     compares checksums: a visual determinism check.
 *   - --port/--peer: a p2p session over UDP with other copies of this program.
 *
 * demo_tick is README.md's loop: poll with the time, add the local inputs,
 * advance, carry out the requests. The simulation runs at a fixed 60 Hz from
 * an accumulator (run_window); drawing runs at the display's rate.
 *
 * Invariant: `game` is the only simulation state. Only ADVANCE requests
 * change it, and tempo saves and restores it (arena mode). The clock is read
 * here, by the program; the library only ever gets the time as an argument.
 */
#include "arena_sdl.h"
#include "arena_p2p.h"
#include "arena_replay.h"
#include "arena_sound.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot.h"
#include "tempo/udp.h"
#include "tokenfile.h"

/* Exit codes (also in --help). */
#define EXIT_OK 0
#define EXIT_ERROR 1
#define EXIT_USAGE 2
#define EXIT_DESYNC 3    /* a synctest mismatch or a desync with a peer */
#define EXIT_NO_VIDEO 77 /* no usable video driver; CTest reports a skip */

#define FRAME_US 16667u       /* one 60 Hz frame, microseconds */
#define MAX_BEHIND_US 100000u /* after a hitch, drop time rather than race */
#define SHAKE_TICKS 12
#define MESSAGE_TICKS 180     /* an event's message stays 3 s */
/* A correction smaller than this (arena units, about a pixel) is invisible
 * and not worth a flash. */
#define VISIBLE_CORRECTION 40

typedef struct demo {
    arena_options opt;
    arena_state game;       /* the one block tempo saves and loads */
    tempo_session *session;
    tempo_udp *udp;         /* p2p only */
    tempo_traversal *trav;  /* --p2p: the relay's introduction, each pair's path */
    arena_paths paths;
    bool local[ARENA_MAX_PLAYERS]; /* players whose input this machine gives */
    arena_bot bots[ARENA_MAX_PLAYERS];
    arena_lag lag;          /* the simulated network delay */
    int32_t next_sent;      /* local mode: the bots have sent every frame before this */
    bool running;           /* frames have started (p2p: after the handshake) */
    arena_ship shown[ARENA_MAX_PLAYERS]; /* the ships as drawn before this tick */
    uint32_t shown_frame;
    uint8_t rolled_back[60]; /* per tick of the last second: did it roll back */
    uint64_t ticks;
    arena_view view;
    /* One-shot effects under rollback (tempo/effects.h): the sounds and the
     * screen shake start once per (frame, event), a resimulation does not
     * start them again, and one a correction removed is stopped. */
    tempo_effects fx;
    bool resim_seen;        /* this tick's first resimulated frame was seen */
    uint64_t sounds_started, sounds_stopped;
    /* Drawing between frames (tempo/subframe.h): the newest frame's inputs
     * step a copy of the game part of a frame ahead of the last tick. */
    tempo_subframe sf;
    arena_state backup;
    uint8_t last_inputs[ARENA_MAX_PLAYERS * ARENA_INPUT_SIZE];
    uint8_t last_status[ARENA_MAX_PLAYERS];
    bool have_last;
    bool subframe_on;       /* F2 */
    uint64_t subframe_changed; /* renders after which the game was not as before */
    /* --record and --replay */
    arena_recorder rec;
    bool recording;
    arena_replay rp;
    int speed_q8;           /* replay: frames a tick * 256 */
    bool paused;
    uint64_t replay_desyncs;
} demo;

static bool ok(tempo_result r, const char *what)
{
    if (r >= 0)
        return true;
    fprintf(stderr, "tempo-arena-sdl: %s: %s\n", what, tempo_strerror(r));
    return false;
}

static uint64_t clock_us(void)
{
    return SDL_GetPerformanceCounter() * 1000000u / SDL_GetPerformanceFrequency();
}

/* ---- setting up -------------------------------------------------------------- */

/* Over the network: one UDP socket on --port, its sends delayed by the
 * lag line (by nothing unless --delay or [ ] ask); p2p: every --peer
 * player remote; through a relay: every player but yours at the relay,
 * sealed with the token if there is one. */
static tempo_result open_p2p(demo *d, tempo_config *cfg)
{
    const arena_options *o = &d->opt;
    tempo_address any = {.family = o->has_relay ? o->relay.family : o->peers[0].addr.family,
                         .port = (uint16_t)o->port};
    tempo_result r = tempo_udp_open(&any, NULL, &d->udp);
    if (r != TEMPO_OK)
        return r;
    tempo_transport tr = arena_lag_transport(&d->lag, tempo_udp_transport(d->udp));
    if (o->p2p) { /* the relay introduces the peers; then a plain p2p match over the traversal */
        uint8_t token[TEMPO_TOKEN_SIZE];
        if (o->token_file && !token_read_file("tempo-arena-sdl", o->token_file, token))
            return TEMPO_E_INVALID_ARG;
        arena_p2p_args a;
        memset(&a, 0, sizeof a);
        a.relay = o->relay;
        a.token = o->token_file ? token : NULL;
        a.match = o->match ? o->match : 1u;
        a.players = o->players;
        a.local = 1u << o->me;
        a.input_size = ARENA_INPUT_SIZE;
        a.fps = 60;
        a.direct = true;
        a.nonce = clock_us() ^ ((uint64_t)o->me << 56) ^ (uint64_t)(uintptr_t)&a;
        fprintf(stderr, "tempo-arena-sdl: joining the relay for a peer-to-peer match\n");
        bool met = arena_p2p_meet(&d->trav, d->udp, &a, clock_us() + 15000000u, "tempo-arena-sdl");
        tempo_wipe(token, sizeof token);
        if (!met)
            return TEMPO_E_STATE;
        tr = arena_lag_transport(&d->lag, tempo_traversal_transport(d->trav));
        cfg->random_seed = clock_us() ^ ((uint64_t)o->port << 40) ^ (uint64_t)(uintptr_t)&tr;
        cfg->auto_delay.enabled = o->auto_delay;
        cfg->has_match_key = tempo_traversal_match_key(d->trav, cfg->match_key) == TEMPO_OK;
        r = tempo_session_create_p2p(cfg, &tr, &d->session);
        tempo_wipe(cfg->match_key, sizeof cfg->match_key);
        if (r == TEMPO_OK)
            tempo_session_set_traversal(d->session, d->trav);
        for (int p = 0; p < o->players && r == TEMPO_OK; p++) {
            tempo_address at;
            d->local[p] = p == o->me;
            r = d->local[p] ? tempo_session_add_local_player(d->session, p)
                : tempo_traversal_peer_address(d->trav, p, &at) == TEMPO_OK
                    ? tempo_session_add_remote_player(d->session, p, &at)
                    : TEMPO_E_PLAYER;
        }
        return r;
    }
    /* handshake nonces; where the stack lies tells two windows apart */
    cfg->random_seed = clock_us() ^ ((uint64_t)o->port << 40) ^ (uint64_t)(uintptr_t)&tr;
    cfg->auto_delay.enabled = o->auto_delay; /* INVERSUS-style: delay follows the lag */
    if (o->has_relay) {
        uint8_t token[TEMPO_TOKEN_SIZE];
        if (o->token_file && !token_read_file("tempo-arena-sdl", o->token_file, token))
            return TEMPO_E_INVALID_ARG;
        char why[192];
        if (o->token_file && !token_check(token, &o->relay, NULL,
                                          (uint64_t)time(NULL), why, sizeof why))
            fprintf(stderr, "tempo-arena-sdl: warning: --token-file %s: %s; the relay will "
                            "refuse it\n",
                    o->token_file, why);
        cfg->session_id = (uint32_t)(o->match ? o->match : 1u);
        r = tempo_session_create_relay_member(cfg, &tr, &o->relay, o->token_file ? token : NULL,
                                              &d->session);
        tempo_wipe(token, sizeof token);
        for (int p = 0; p < o->players && r == TEMPO_OK; p++) {
            d->local[p] = p == o->me;
            if (d->local[p])
                r = tempo_session_add_local_player(d->session, p);
        }
        return r;
    }
    cfg->has_match_key = o->has_key;
    memcpy(cfg->match_key, o->key, sizeof cfg->match_key);
    r = tempo_session_create_p2p(cfg, &tr, &d->session);
    tempo_wipe(cfg->match_key, sizeof cfg->match_key); /* the session keeps its own copy */
    tempo_wipe(d->opt.key, sizeof d->opt.key);
    if (r != TEMPO_OK)
        return r;
    for (int p = 0; p < o->players && r == TEMPO_OK; p++) {
        const tempo_address *at = NULL;
        for (int i = 0; i < o->npeers; i++)
            if (o->peers[i].player == p)
                at = &o->peers[i].addr;
        d->local[p] = at == NULL;
        r = at ? tempo_session_add_remote_player(d->session, p, at)
               : tempo_session_add_local_player(d->session, p);
    }
    return r;
}

static void replay_status(demo *d);

/* Set up the game and the session. d must stay where it is while the
 * session lives: tempo keeps a pointer to d->game (arena mode). */
static bool demo_start(demo *d, const arena_options *o)
{
    memset(d, 0, sizeof *d);
    d->opt = *o;
    tempo_effects_init(&d->fx);
    tempo_subframe_init(&d->sf, &d->game, &d->backup, sizeof d->game);
    d->subframe_on = true;
    char why[256];
    if (o->mode == ARENA_MODE_REPLAY) {
        if (!arena_replay_load(&d->rp, o->replay, why, sizeof why)) {
            fprintf(stderr, "tempo-arena-sdl: %s\n", why);
            return false;
        }
        d->opt.players = d->rp.players;
        d->speed_q8 = 256;
        if (!ok(arena_replay_session(&d->rp, &d->game, &d->session), "replay session"))
            return false;
        d->view.game = &d->game;
        d->view.mode = o->mode;
        d->view.human = -1;
        d->view.overlay = true;
        d->view.max_prediction = o->max_prediction;
        replay_status(d);
        return true;
    }
    if (!ok(arena_init(&d->game, o->players, o->seed), "arena_init"))
        return false;
    if (o->record && !(d->recording = arena_record_open(&d->rec, o->record, o->players, o->seed,
                                                        why, sizeof why))) {
        fprintf(stderr, "tempo-arena-sdl: %s\n", why);
        return false;
    }
    for (int p = 0; p < o->players; p++)
        arena_bot_init(&d->bots[p], o->seed, p);
    arena_lag_init(&d->lag, o->seed, o->mode == ARENA_MODE_SYNCTEST ? 0 : o->delay_ms);

    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = o->players;
    cfg.input_size = ARENA_INPUT_SIZE;
    cfg.max_prediction = o->max_prediction;
    cfg.arena = &d->game; /* arena mode: tempo copies this block on SAVE/LOAD */
    cfg.arena_size = sizeof d->game;
    tempo_result r = TEMPO_OK;
    if (o->mode == ARENA_MODE_P2P) {
        r = open_p2p(d, &cfg);
    } else {
        /* A synctest plays every player here; a local session only player 0,
         * and this program delivers the bots' inputs (arena_lag.c). */
        bool synctest = o->mode == ARENA_MODE_SYNCTEST;
        r = synctest ? tempo_session_create_synctest(&cfg, o->check_distance, &d->session)
                     : tempo_session_create_local(&cfg, &d->session);
        for (int p = 0; p < o->players && r == TEMPO_OK; p++) {
            d->local[p] = synctest || p == 0;
            r = d->local[p] ? tempo_session_add_local_player(d->session, p)
                            : tempo_session_add_remote_player(d->session, p, NULL);
        }
    }
    for (int p = 0; p < o->players && r == TEMPO_OK && o->mode != ARENA_MODE_SYNCTEST; p++)
        if (d->local[p])
            r = tempo_session_set_input_delay(d->session, p, o->input_delay);
    if (!ok(r, o->mode == ARENA_MODE_P2P ? (o->has_relay && !o->p2p ? "relay member" : "p2p session") : "session"))
        return false;

    arena_view *v = &d->view;
    v->game = &d->game;
    v->mode = o->mode;
    v->relay = o->has_relay && !o->p2p; /* --p2p: peers, whatever the path */
    v->human = -1;
    v->overlay = true;
    v->max_prediction = o->max_prediction;
    v->check_distance = o->check_distance;
    return true;
}

static void demo_stop(demo *d)
{
    if (d->session && d->opt.mode == ARENA_MODE_P2P)
        tempo_session_leave(d->session); /* tell the peers, so they need not time out */
    if (d->recording && !arena_record_close(&d->rec, true))
        fprintf(stderr, "tempo-arena-sdl: writing the replay %s failed\n", d->opt.record);
    d->recording = false;
    tempo_session_destroy(d->session);
    if (d->trav)
        arena_p2p_paths(d->trav, &d->paths, d->opt.players, 1u << d->opt.me, true);
    tempo_traversal_destroy(d->trav);
    d->trav = NULL;
    if (d->opt.mode == ARENA_MODE_REPLAY)
        arena_replay_free(&d->rp);
    tempo_udp_close(d->udp);
    d->session = NULL;
    d->udp = NULL;
}

/* ---- one tick ------------------------------------------------------------------ */

/* After tempo replayed the frame that was on screen: tint every ship whose
 * replayed state differs from what was drawn, and remember how far the
 * correction moved it (the ghost then follows the ship at that offset, so it
 * shows the size of the correction, not where the ship flew since). */
static void mark_corrections(demo *d)
{
    for (uint32_t p = 0; p < d->game.num_players; p++) {
        const arena_ship *was = &d->shown[p], *now = &d->game.ships[p];
        int32_t dx = was->x - now->x, dy = was->y - now->y;
        if (abs(dx) + abs(dy) < VISIBLE_CORRECTION && was->state == now->state)
            continue;
        d->view.flash[p] = ARENA_FLASH_TICKS;
        d->view.ghost_dx[p] = dx;
        d->view.ghost_dy[p] = dy;
    }
}

/* Effect keys: what happened and to whom, the same however often the
 * frame is simulated. */
#define FX_SHOT(owner, dir, charged) (0x10000u | (uint32_t)(charged) << 12 | (uint32_t)(owner) << 4 | (dir))
#define FX_KILL(player) (0x20000u | (uint32_t)(player))

static void effect(demo *d, int32_t frame, uint32_t key, arena_sound_kind sound)
{
    if (tempo_effects_start(&d->fx, frame, key) != TEMPO_EFFECT_NEW)
        return; /* an earlier simulation of this frame started it */
    d->sounds_started++;
    tempo_effects_set_handle(&d->fx, frame, key, arena_sound_play(sound));
    if (sound == ARENA_SOUND_KILL)
        d->view.shake = SHAKE_TICKS;
}

/* Carry out one ADVANCE request (arena mode hands out nothing else). */
static void run_frame(demo *d, const tempo_request *r)
{
    arena_state before = d->game;
    arena_step(&d->game, r->inputs, r->status);
    if (r->resimulating && !d->resim_seen) {
        /* the state went back to this frame: effects from it on count only
         * if the resimulation starts them again */
        tempo_effects_rollback(&d->fx, r->frame);
        d->resim_seen = true;
    }
    for (int i = 0; i < ARENA_MAX_SHOTS; i++) {
        const arena_shot *was = &before.shots[i], *now = &d->game.shots[i];
        if (now->active && (!was->active || was->owner != now->owner || was->dir != now->dir))
            effect(d, r->frame, FX_SHOT(now->owner, now->dir, now->charged),
                   now->charged ? ARENA_SOUND_CHARGED : ARENA_SOUND_SHOT);
    }
    for (uint32_t p = 0; p < d->game.num_players; p++)
        if (d->game.ships[p].deaths > before.ships[p].deaths)
            effect(d, r->frame, FX_KILL(p), ARENA_SOUND_KILL);
    if (r->resimulating) {
        /* A frame the player already saw, replayed with corrected inputs. */
        if (r->frame + 1 == (int32_t)d->shown_frame)
            mark_corrections(d);
        return;
    }
    for (uint32_t p = 0; p < d->game.num_players; p++)
        d->view.predicted[p] = r->status[p] == TEMPO_INPUT_PREDICTED;
    size_t n = (size_t)d->game.num_players;
    memcpy(d->last_inputs, r->inputs, n * ARENA_INPUT_SIZE);
    memcpy(d->last_status, r->status, n);
    d->have_last = true;
}

static int32_t blend(int32_t a, int32_t b, uint32_t alpha)
{
    return a + (int32_t)(((int64_t)b - a) * (int64_t)alpha >> 16);
}

/* Draw the game `alpha` (Q16) of a frame past the last tick: step a copy
 * of it one frame with the newest inputs, draw what moved at alpha of the
 * way, and put the game back. A ship or shot that appeared, vanished or
 * jumped in that frame is drawn as it was. */
static void draw_between(demo *d, SDL_Renderer *ren, uint32_t alpha)
{
    if (!d->subframe_on || !d->have_last || alpha == 0 ||
        tempo_subframe_begin(&d->sf) != TEMPO_OK) {
        arena_draw(ren, &d->view);
        return;
    }
    uint64_t sum = arena_checksum(&d->game);
    arena_step(&d->game, d->last_inputs, d->last_status);
    const arena_state *b = &d->backup;
    for (uint32_t p = 0; p < d->game.num_players; p++) {
        arena_ship *s = &d->game.ships[p];
        const arena_ship *was = &b->ships[p];
        bool steady = s->state == was->state && abs(s->x - was->x) < ARENA_TILE && abs(s->y - was->y) < ARENA_TILE;
        s->x = steady ? blend(was->x, s->x, alpha) : was->x;
        s->y = steady ? blend(was->y, s->y, alpha) : was->y;
    }
    for (int i = 0; i < ARENA_MAX_SHOTS; i++) {
        arena_shot *s = &d->game.shots[i];
        const arena_shot *was = &b->shots[i];
        if (s->active && was->active && s->owner == was->owner && s->dir == was->dir) {
            s->x = blend(was->x, s->x, alpha);
            s->y = blend(was->y, s->y, alpha);
        } else {
            *s = *was;
        }
    }
    arena_draw(ren, &d->view);
    tempo_subframe_end(&d->sf);
    d->subframe_changed += arena_checksum(&d->game) != sum;
}

/* After the tick's requests: stop what a correction took away, and forget
 * the frames no rollback can reach. */
static void settle_effects(demo *d)
{
    tempo_effect e;
    while (tempo_effects_next_stop(&d->fx, &e)) {
        arena_sound_stop(e.handle);
        d->sounds_stopped++;
    }
    /* a synctest goes back check_distance frames behind its confirmed one */
    int32_t reach = tempo_session_confirmed_frame(d->session);
    if (d->opt.mode == ARENA_MODE_SYNCTEST)
        reach = tempo_session_frame(d->session) - d->opt.check_distance - 1;
    tempo_effects_forget_before(&d->fx, reach);
    d->resim_seen = false;
}

/* Local mode: the remote bots play on their own machines in step with ours
 * and, like us, with the input delay: by now they have sampled every frame
 * before frame + delay. Each of those inputs goes on the simulated wire. */
static tempo_result send_remote_inputs(demo *d)
{
    tempo_session *s = d->session;
    int32_t horizon = tempo_session_frame(s) + tempo_session_input_delay(s, d->opt.me);
    for (; d->next_sent < horizon; d->next_sent++)
        for (int p = 0; p < d->opt.players; p++) {
            uint8_t in[ARENA_INPUT_SIZE];
            if (d->local[p])
                continue;
            arena_bot_next(&d->bots[p], in);
            if (!arena_lag_send_input(&d->lag, p, d->next_sent, in)) {
                tempo_result r = tempo_session_add_remote_input(s, p, d->next_sent, in, sizeof in);
                if (r != TEMPO_OK)
                    return r;
            }
        }
    return TEMPO_OK;
}

/* Session events, as one line of text on the screen for a while. */
static void note_event(demo *d, const tempo_event *ev)
{
    arena_view *v = &d->view;
    int p = ev->player + 1; /* players are P1.. on screen */
    if (ev->kind == TEMPO_EVENT_DESYNC && d->opt.mode == ARENA_MODE_REPLAY)
        d->replay_desyncs++;
    switch (ev->kind) {
    case TEMPO_EVENT_CONNECTED: snprintf(v->message, sizeof v->message, "P%d CONNECTED", p); break;
    case TEMPO_EVENT_SYNCHRONIZING:
        snprintf(v->message, sizeof v->message, "SYNCING %d/%d", ev->u.sync.done, ev->u.sync.total);
        break;
    case TEMPO_EVENT_RUNNING: snprintf(v->message, sizeof v->message, "RUNNING"); break;
    case TEMPO_EVENT_INTERRUPTED: snprintf(v->message, sizeof v->message, "P%d SILENT", p); break;
    case TEMPO_EVENT_RESUMED: snprintf(v->message, sizeof v->message, "P%d IS BACK", p); break;
    case TEMPO_EVENT_DISCONNECTED: snprintf(v->message, sizeof v->message, "P%d LEFT", p); break;
    case TEMPO_EVENT_INPUT_DELAY:
        snprintf(v->message, sizeof v->message, "INPUT DELAY NOW %d", ev->u.input_delay.frames);
        break;
    case TEMPO_EVENT_DESYNC:
        snprintf(v->message, sizeof v->message, "DESYNC AT FRAME %d", (int)ev->u.desync.frame);
        break;
    default: return; /* waiting, time sync and the rest: the overlay shows them */
    }
    v->message_ticks = MESSAGE_TICKS;
}

/* The worst peer's round trip and loss (through a relay: the relay's), for
 * the overlay. */
static void note_peers(demo *d)
{
    arena_view *v = &d->view;
    v->ping_ms = 0;
    v->loss_pct = 0;
    tempo_relay_member_info mi;
    if (d->opt.has_relay && !d->opt.p2p && tempo_session_relay_info(d->session, &mi) == TEMPO_OK) {
        v->ping_ms = (int)mi.rtt_ms;
        return;
    }
    for (int p = 0; p < d->opt.players; p++) {
        tempo_endpoint_stats es;
        if (d->local[p] || tempo_session_get_endpoint_stats(d->session, p, &es) != TEMPO_OK)
            continue;
        if ((int)es.rtt_ms > v->ping_ms)
            v->ping_ms = (int)es.rtt_ms;
        if ((int)(es.loss * 100.0) > v->loss_pct)
            v->loss_pct = (int)(es.loss * 100.0);
    }
}

/* Fill the overlay's numbers from the tick and the session's counters. */
static void note_tick(demo *d, const tempo_tick *t)
{
    arena_view *v = &d->view;
    tempo_session_stats st;
    tempo_session_get_stats(d->session, &st);
    v->frame = st.frame;
    v->confirmed = st.confirmed_frame;
    v->desyncs = st.desyncs;
    v->sync_stalls = st.timesync_stalls;
    v->advantage = st.frame_advantage;
    v->status = t->status;
    d->running |= t->status != TEMPO_TICK_SYNCHRONIZING;
    d->rolled_back[d->ticks % 60] = t->rollback_depth > 0;
    v->rollbacks_per_s = 0;
    for (int i = 0; i < 60; i++)
        v->rollbacks_per_s += d->rolled_back[i];
    if (t->rollback_depth > 0)
        v->last_rollback_depth = t->rollback_depth;
    v->depth_history[v->history_pos] = (uint8_t)(t->rollback_depth < 255 ? t->rollback_depth : 255);
    v->history_pos = (v->history_pos + 1) % ARENA_VIEW_HISTORY;
    v->waiting_for = t->status == TEMPO_TICK_WAITING ? t->waiting_for : 0;
    v->waiting_ticks = t->status == TEMPO_TICK_WAITING && v->waiting_for ? v->waiting_ticks + 1 : 0;
    if (v->waiting_ticks > v->longest_wait)
        v->longest_wait = v->waiting_ticks;
    v->delay_ms = d->lag.delay_ms;
    v->jitter_ms = arena_lag_jitter_ms(&d->lag);
    int delay = tempo_session_input_delay(d->session, d->opt.me);
    v->input_delay = delay > 0 ? delay : 0;
    tempo_synctest_report rep;
    if (d->opt.mode == ARENA_MODE_SYNCTEST &&
        tempo_session_synctest_report(d->session, &rep) == TEMPO_OK) {
        v->synctest_checks = rep.checks;
        v->synctest_mismatches = rep.mismatches;
    }
    if (d->opt.mode == ARENA_MODE_P2P)
        note_peers(d);
    d->ticks++;
}

static void fade_effects(arena_view *v)
{
    for (int p = 0; p < ARENA_MAX_PLAYERS; p++)
        if (v->flash[p] > 0)
            v->flash[p]--;
    if (v->shake > 0)
        v->shake--;
    if (v->message_ticks > 0)
        v->message_ticks--;
}

/* One fixed-rate tick: README.md's loop. mine is the human's input, or
 * NULL for a bot to fly the human's ship. */
/* The replay's place and speed, for the top bar. */
static void replay_status(demo *d)
{
    int32_t frame = tempo_session_frame(d->session);
    if (d->paused)
        snprintf(d->view.replay_line, sizeof d->view.replay_line, "REPLAY %.1f / %.1f S  PAUSED",
                 frame / 60.0, d->rp.end / 60.0);
    else
        snprintf(d->view.replay_line, sizeof d->view.replay_line, "REPLAY %.1f / %.1f S  %gX",
                 frame / 60.0, d->rp.end / 60.0, d->speed_q8 / 256.0);
}

/* Replay keys: pause, speed, seek. A seek puts the game at a stored state
 * and fast-forwards, so the effects history starts over. */
static void replay_key(demo *d, SDL_Scancode key)
{
    int32_t frame = tempo_session_frame(d->session), to = -1;
    switch (key) {
    case SDL_SCANCODE_SPACE: d->paused = !d->paused; break;
    case SDL_SCANCODE_UP: if (d->speed_q8 < TEMPO_REPLAY_MAX_SPEED) d->speed_q8 *= 2; break;
    case SDL_SCANCODE_DOWN: if (d->speed_q8 > 32) d->speed_q8 /= 2; break;
    case SDL_SCANCODE_LEFT: to = frame > 600 ? frame - 600 : 0; break;
    case SDL_SCANCODE_RIGHT: to = frame + 600 < d->rp.end ? frame + 600 : d->rp.end; break;
    case SDL_SCANCODE_HOME: to = 0; break;
    default: return;
    }
    tempo_session_replay_set_speed(d->session, d->paused ? 0 : d->speed_q8);
    if (to >= 0 && tempo_session_replay_seek(d->session, to, NULL, NULL, NULL) == TEMPO_OK)
        tempo_effects_init(&d->fx);
    replay_status(d);
}

static tempo_result demo_tick(demo *d, const arena_input *mine, uint64_t now_us)
{
    tempo_session *s = d->session;
    tempo_result r = TEMPO_OK;
    fade_effects(&d->view);

    /* 1. The network, and the time. */
    d->lag.now_us = now_us;
    if (d->opt.mode == ARENA_MODE_LOCAL)
        r = arena_lag_deliver_inputs(&d->lag, s); /* the bots' inputs that arrived */
    else if (d->opt.mode == ARENA_MODE_P2P)
        arena_lag_flush(&d->lag); /* our datagrams that are due go out */
    if (d->trav) {
        tempo_traversal_update(d->trav, now_us);
        arena_p2p_paths(d->trav, &d->paths, d->opt.players, 1u << d->opt.me, false);
    }
    if (r == TEMPO_OK)
        r = tempo_session_poll(s, now_us);

    /* 2. This machine's inputs: the human's, and the bots' that play here.
     * When time sync has decided this tick makes no frame (p2p), skip it:
     * tempo would hold the input for the next tick anyway. */
    bool stall = tempo_session_will_stall(s);
    for (int p = 0; p < d->opt.players && r == TEMPO_OK && !stall; p++) {
        uint8_t in[ARENA_INPUT_SIZE];
        if (!d->local[p])
            continue;
        if (p == d->opt.me && mine)
            arena_input_pack(mine, in);
        else
            arena_bot_next(&d->bots[p], in);
        r = tempo_session_add_local_input(s, p, in, sizeof in);
    }
    if (!ok(r, "input"))
        return r;

    /* 3. Plan the tick (it may roll back), then carry out its requests. */
    memcpy(d->shown, d->game.ships, sizeof d->shown);
    d->shown_frame = d->game.frame;
    tempo_tick tick;
    r = tempo_session_advance(s, &tick);
    if (r != TEMPO_OK && r != TEMPO_E_DESYNC) { /* a synctest desync is counted, not fatal */
        ok(r, "advance");
        return r;
    }
    const tempo_request *req;
    while (tempo_session_next(s, &req) > 0)
        run_frame(d, req);
    settle_effects(d);
    tempo_event ev;
    while (tempo_session_poll_event(s, &ev) > 0)
        note_event(d, &ev);

    if (d->recording && !arena_record_tick(&d->rec, s, INT32_MAX)) {
        fprintf(stderr, "tempo-arena-sdl: writing the replay %s failed\n", d->opt.record);
        d->recording = false;
    }
    if (d->opt.mode == ARENA_MODE_REPLAY)
        replay_status(d);

    /* 4. Local mode: the remote bots answer over the simulated network. */
    if (d->opt.mode == ARENA_MODE_LOCAL && !ok(r = send_remote_inputs(d), "remote input"))
        return r;
    note_tick(d, &tick);
    return TEMPO_OK;
}

/* ---- keys that steer the demo ---------------------------------------------------- */

static void change_delay(demo *d, int delta_ms)
{
    int ms = d->lag.delay_ms + delta_ms;
    d->lag.delay_ms = ms < 0 ? 0 : ms > ARENA_MAX_DELAY_MS ? ARENA_MAX_DELAY_MS : ms;
}

/* Every player of this machine, and in local mode the bots too (they follow
 * player 0's delay, as matched peers would). */
static void change_input_delay(demo *d, int delta)
{
    int cap = d->opt.max_prediction < ARENA_MAX_INPUT_DELAY ? d->opt.max_prediction
                                                            : ARENA_MAX_INPUT_DELAY;
    int frames = tempo_session_input_delay(d->session, d->opt.me) + delta;
    for (int p = 0; p < d->opt.players && frames >= 0 && frames <= cap; p++)
        if (d->local[p])
            tempo_session_set_input_delay(d->session, p, frames);
}

static void on_key(demo *d, SDL_Scancode key, bool *running, bool *shot)
{
    bool synctest = d->opt.mode == ARENA_MODE_SYNCTEST || d->opt.mode == ARENA_MODE_REPLAY;
    if (d->opt.mode == ARENA_MODE_REPLAY)
        replay_key(d, key);
    switch (key) {
    case SDL_SCANCODE_ESCAPE: *running = false; break;
    case SDL_SCANCODE_F1: d->view.overlay = !d->view.overlay; break;
    case SDL_SCANCODE_F12: *shot = true; break;
    case SDL_SCANCODE_F2: d->subframe_on = !d->subframe_on; break;
    case SDL_SCANCODE_TAB: d->view.autopilot = !d->view.autopilot; break;
    case SDL_SCANCODE_LEFTBRACKET: if (!synctest) change_delay(d, -10); break;
    case SDL_SCANCODE_RIGHTBRACKET: if (!synctest) change_delay(d, 10); break;
    case SDL_SCANCODE_MINUS: if (!synctest) change_input_delay(d, -1); break;
    case SDL_SCANCODE_EQUALS: if (!synctest) change_input_delay(d, 1); break;
    default: break;
    }
}

/* ---- running it ------------------------------------------------------------------ */

static const char *mode_name(const arena_options *o)
{
    arena_mode m = o->mode;
    return m == ARENA_MODE_SYNCTEST ? "synctest"
           : m == ARENA_MODE_P2P    ? (o->p2p ? "p2p introduced by a relay" : o->has_relay ? "relay" : "p2p")
           : m == ARENA_MODE_REPLAY ? "replay"
                                    : "local rollback";
}

/* One summary on stdout; returns the exit code the run deserves. */
static int finish(const demo *d)
{
    tempo_session_stats st;
    tempo_session_get_stats(d->session, &st);
    printf("tempo-arena-sdl: %s, %d players, %llu ticks, frame %d, score %d:%d\n",
           mode_name(&d->opt), d->opt.players, (unsigned long long)d->ticks, (int)st.frame,
           arena_team_score(&d->game, 0), arena_team_score(&d->game, 1));
    if (tempo_subframe_renders(&d->sf) > 0)
        printf("  drawn between frames: %llu pictures, the game changed by %llu of them\n",
               (unsigned long long)tempo_subframe_renders(&d->sf),
               (unsigned long long)d->subframe_changed);
    printf("  effects: %llu started, %llu stopped by a correction, %llu not doubled by a "
           "resimulation\n",
           (unsigned long long)d->sounds_started, (unsigned long long)d->sounds_stopped,
           (unsigned long long)d->fx.restarted_skipped);
    printf("  rollbacks %llu, frames resimulated %llu, deepest %d, waiting ticks %llu (longest "
           "wait %d, spinner from %d)\n",
           (unsigned long long)st.rollbacks, (unsigned long long)st.resim_frames,
           st.max_rollback_depth, (unsigned long long)st.waiting_ticks, d->view.longest_wait,
           ARENA_SPINNER_TICKS);
    if (d->recording)
        printf("  recorded frames 0..%d to %s, state %016llx\n", (int)d->rec.next - 1, d->opt.record,
               (unsigned long long)arena_checksum(&d->rec.shadow));
    if (d->opt.mode == ARENA_MODE_REPLAY) {
        printf("  replay: frame %d of %d, state %016llx, %llu checksums differed\n", (int)st.frame,
               (int)d->rp.end, (unsigned long long)arena_checksum(&d->game),
               (unsigned long long)d->replay_desyncs);
        return d->replay_desyncs ? EXIT_DESYNC : EXIT_OK;
    }
    if (d->opt.mode == ARENA_MODE_SYNCTEST) {
        printf("  synctest: %llu checks, %llu mismatches\n",
               (unsigned long long)d->view.synctest_checks,
               (unsigned long long)d->view.synctest_mismatches);
        return d->view.synctest_mismatches ? EXIT_DESYNC : EXIT_OK;
    }
    if (d->opt.mode == ARENA_MODE_P2P) {
        printf("  %s: desync checks %llu, desyncs %llu, ping %d ms, time-sync stalls %llu\n",
               mode_name(&d->opt), (unsigned long long)st.desync_checks,
               (unsigned long long)st.desyncs, d->view.ping_ms,
               (unsigned long long)st.timesync_stalls);
        if (!d->running) {
            fprintf(stderr, "tempo-arena-sdl: %s\n",
                    d->opt.has_relay && !d->opt.p2p ? "the relay never started the match (is tempo-relay running "
                                       "there, and every player's member in?)"
                                     : "never synchronized with the peers");
            return EXIT_ERROR;
        }
        return st.desyncs ? EXIT_DESYNC : EXIT_OK;
    }
    return EXIT_OK;
}

/* Save what the renderer holds (call before SDL_RenderPresent). */
static bool save_screenshot(SDL_Renderer *r, const char *path)
{
    int w, h;
    if (SDL_GetRendererOutputSize(r, &w, &h) != 0)
        return false;
    SDL_Surface *shot = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGB888);
    bool saved = shot &&
                 SDL_RenderReadPixels(r, NULL, shot->format->format, shot->pixels, shot->pitch) == 0 &&
                 SDL_SaveBMP(shot, path) == 0;
    SDL_FreeSurface(shot);
    if (!saved)
        fprintf(stderr, "tempo-arena-sdl: screenshot %s: %s\n", path, SDL_GetError());
    return saved;
}

/* No window and no devices: bots fly every local ship, and one picture is
 * drawn at the end by SDL's software renderer into a plain surface, which
 * needs no video driver at all. Local and synctest runs use virtual time
 * (tick n happens at n * FRAME_US), so they repeat exactly; a p2p run talks
 * to real machines and keeps to the real clock. */
static int run_headless(const arena_options *o)
{
    if (SDL_Init(0) != 0) {
        fprintf(stderr, "tempo-arena-sdl: SDL_Init: %s\n", SDL_GetError());
        return EXIT_NO_VIDEO;
    }
    demo *d = calloc(1, sizeof *d); /* big (the lag lines): not on the stack */
    SDL_Surface *canvas =
        SDL_CreateRGBSurfaceWithFormat(0, ARENA_VIEW_W, ARENA_VIEW_H, 32, SDL_PIXELFORMAT_RGB888);
    SDL_Renderer *ren = canvas ? SDL_CreateSoftwareRenderer(canvas) : NULL;
    if (!ren)
        fprintf(stderr, "tempo-arena-sdl: software renderer: %s\n", SDL_GetError());
    int code = ren && d && demo_start(d, o) ? EXIT_OK : EXIT_ERROR;
    if (code == EXIT_OK && o->mode != ARENA_MODE_REPLAY) { /* your ship, flown by a bot */
        d->view.human = o->me;
        d->view.autopilot = true;
    }
    uint64_t start = o->mode == ARENA_MODE_P2P ? clock_us() : 0, next_render = start;
    for (int t = 1; t <= o->headless_frames && code == EXIT_OK; t++) {
        uint64_t at = start + (uint64_t)t * FRAME_US;
        while (o->mode == ARENA_MODE_P2P && clock_us() < at)
            SDL_Delay(1);
        if (demo_tick(d, NULL, at) != TEMPO_OK)
            code = EXIT_ERROR;
        /* --render-hz: the pictures a display of that rate would draw before
         * the next tick, each a partial step on a copy */
        for (; o->render_hz > 0 && code == EXIT_OK && next_render < at + FRAME_US;
             next_render += 1000000u / (uint64_t)o->render_hz)
            if (next_render >= at)
                draw_between(d, ren, tempo_subframe_alpha(at, FRAME_US, next_render));
    }
    if (code == EXIT_OK) {
        arena_draw(ren, &d->view);
        SDL_RenderPresent(ren);
        if (o->screenshot && SDL_SaveBMP(canvas, o->screenshot) != 0) {
            fprintf(stderr, "tempo-arena-sdl: %s: %s\n", o->screenshot, SDL_GetError());
            code = EXIT_ERROR;
        }
        code = code == EXIT_OK ? finish(d) : code;
    }
    if (d)
        demo_stop(d);
    free(d);
    if (ren)
        SDL_DestroyRenderer(ren);
    SDL_FreeSurface(canvas);
    SDL_Quit();
    return code;
}

static int run_window(const arena_options *o)
{
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_GAMECONTROLLER) != 0) {
        fprintf(stderr, "tempo-arena-sdl: no video: %s (try --headless --frames N)\n",
                SDL_GetError());
        return EXIT_NO_VIDEO;
    }
    int win_w = ARENA_VIEW_W, win_h = ARENA_VIEW_H;
    if (!o->screenshot) /* a screenshot keeps the canvas's own size */
        arena_window_fit(&win_w, &win_h);
    SDL_Window *win = SDL_CreateWindow("tempo arena", SDL_WINDOWPOS_CENTERED,
                                       SDL_WINDOWPOS_CENTERED, win_w, win_h,
                                       SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    SDL_Renderer *ren = win ? SDL_CreateRenderer(win, -1, SDL_RENDERER_PRESENTVSYNC) : NULL;
    if (win && !ren)
        ren = SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE);
    if (!ren) {
        fprintf(stderr, "tempo-arena-sdl: no window: %s\n", SDL_GetError());
        SDL_Quit();
        return EXIT_NO_VIDEO;
    }
    SDL_RendererInfo info;
    bool vsync = SDL_GetRendererInfo(ren, &info) == 0 && (info.flags & SDL_RENDERER_PRESENTVSYNC);
    SDL_RenderSetLogicalSize(ren, ARENA_VIEW_W, ARENA_VIEW_H);

    demo *d = calloc(1, sizeof *d); /* big (the lag lines): not on the stack */
    arena_controls pads;
    arena_controls_open(&pads);
    arena_sound_open(); /* silence if there is no audio device */
    int code = d && demo_start(d, o) ? EXIT_OK : EXIT_ERROR;
    if (code == EXIT_OK) {
        d->view.human = o->me;
        d->view.autopilot = o->autopilot;
    }
    uint64_t sim_us = clock_us(); /* the time the simulation has reached */
    for (bool running = code == EXIT_OK; running;) {
        bool shot = false;
        SDL_Event ev;
        while (SDL_PollEvent(&ev)) {
            if (ev.type == SDL_QUIT)
                running = false;
            else if (ev.type == SDL_KEYDOWN && !ev.key.repeat)
                on_key(d, ev.key.keysym.scancode, &running, &shot);
            arena_controls_handle_event(&pads, &ev);
        }
        /* Fixed timestep ("Fix Your Timestep!", Glenn Fiedler): run as many
         * 60 Hz ticks as the clock says are due, each at its own time. */
        uint64_t now = clock_us();
        if (now - sim_us > MAX_BEHIND_US)
            sim_us = now - MAX_BEHIND_US;
        arena_input mine = arena_controls_sample(&pads);
        while (running && now - sim_us >= FRAME_US) {
            sim_us += FRAME_US;
            if (demo_tick(d, d->view.autopilot ? NULL : &mine, sim_us) != TEMPO_OK) {
                code = EXIT_ERROR;
                running = false;
            }
            if (o->frames > 0 && d->ticks >= (uint64_t)o->frames)
                running = false;
        }
        d->view.has_pad = pads.pad != NULL;
        draw_between(d, ren, tempo_subframe_alpha(sim_us, FRAME_US, now));
        if (shot) {
            char path[64];
            snprintf(path, sizeof path, "tempo-arena-%llu.bmp", (unsigned long long)d->ticks);
            if (save_screenshot(ren, path))
                printf("tempo-arena-sdl: saved %s\n", path);
        }
        if (!running && o->screenshot && code == EXIT_OK && !save_screenshot(ren, o->screenshot))
            code = EXIT_ERROR;
        SDL_RenderPresent(ren);
        if (!vsync)
            SDL_Delay(1); /* no vsync to pace us: do not spin a core */
    }
    if (code == EXIT_OK)
        code = finish(d);
    if (d)
        demo_stop(d);
    free(d);
    arena_controls_close(&pads);
    SDL_DestroyRenderer(ren);
    SDL_DestroyWindow(win);
    arena_sound_close();
    SDL_Quit();
    return code;
}

int main(int argc, char **argv)
{
    arena_options o;
    switch (arena_options_parse(argc, argv, &o)) {
    case ARENA_OPTIONS_HELP: return EXIT_OK;
    case ARENA_OPTIONS_USAGE: return EXIT_USAGE;
    case ARENA_OPTIONS_RUN: break;
    }
    return o.headless_frames > 0 ? run_headless(&o) : run_window(&o);
}
