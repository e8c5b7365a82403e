/* SPDX-License-Identifier: MIT */
/*
 * arena_web.c — the arena in a web page: one relay member played from
 * JavaScript (arena_page.js), built to WebAssembly by `make wasm`.
 *
 * The page calls web_start once, then web_tick on its own 60 Hz schedule
 * with performance.now(): the same loop as tempo-arena --relay (poll, the
 * local input, advance, carry out the requests), over the browser
 * transport (tempo_ws.h). The local player is flown by the keyboard
 * (web_keys) or, with ?bot=SEED, by the same deterministic bot as
 * tempo-arena's (bot.h, seeded by (seed, player)), so a page and native
 * processes with the same seed play the same match and print the same
 * final line once frame F is confirmed:
 *
 *   final frame=<F> checksum=<16 hex digits>
 *
 * web_view fills an array the page draws from and shows as the netcode
 * overlay; tempo's own work per tick (poll, input, advance and taking the
 * requests, without the game's step) is timed with emscripten_get_now.
 */
#include <emscripten.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "arena_web.h"
#include "bot.h"
#include "tempo/relay.h"
#include "tempo/secure.h"
#include "tempo_ws.h"

enum { WEB_CONNECTING = 0, WEB_RUNNING = 1, WEB_DONE = 2, WEB_FAILED = 3 };

/* The view's layout (web_view): a header, then ships, shots and tiles. */
#define VIEW_HEAD 16
#define VIEW_SHIP 8
#define VIEW_SHOT 5
#define VIEW_SHIPS VIEW_HEAD
#define VIEW_SHOTS (VIEW_SHIPS + ARENA_MAX_PLAYERS * VIEW_SHIP)
#define VIEW_TILES (VIEW_SHOTS + ARENA_MAX_SHOTS * VIEW_SHOT)
#define VIEW_SIZE (VIEW_TILES + ARENA_BOARD_W * ARENA_BOARD_H)

static struct web {
    tempo_session *s;
    arena_state game;
    arena_bot bot;
    uint8_t next[ARENA_INPUT_SIZE]; /* the bot's input, offered until taken */
    int32_t bot_frame;              /* the frame it is for */
    uint8_t keys[ARENA_INPUT_SIZE];
    int players, player, frames;
    bool use_bot;
    int status;
    int leave_polls;                /* polls left to say goodbye */
    uint64_t final_checksum;
    int last_rollback, max_rollback;
    uint32_t waiting;
    double tempo_ms, step_ms, js_ms; /* summed over the ticks */
    uint32_t ticks;
    float tick_us[1 << 15];         /* tempo's work per tick, the first 32768 */
    float own_us[1 << 15];          /*   less its time in the browser's WebSocket calls */
    char final_line[96];
    char why[160];
    int32_t view[VIEW_SIZE];
} w;

EMSCRIPTEN_KEEPALIVE int web_start(int players, int player, double match, int frames, double seed,
                                   int use_bot, int input_delay, double nonce,
                                   const uint8_t *token, int token_size)
{
    memset(&w, 0, sizeof w);
    if (players < 2 || players > ARENA_MAX_PLAYERS || player < 0 || player >= players ||
        frames < 1 || match < 1 || match > 4294967295.0 ||
        (token_size != 0 && token_size != TEMPO_TOKEN_SIZE)) {
        snprintf(w.why, sizeof w.why, "players 2..8, player below players, match 1..2^32-1, "
                                      "a token of %d bytes",
                 TEMPO_TOKEN_SIZE);
        return TEMPO_E_INVALID_ARG;
    }
    w.players = players;
    w.player = player;
    w.frames = frames;
    w.use_bot = use_bot != 0;
    uint64_t s64 = (uint64_t)seed;
    arena_init(&w.game, players, s64);
    arena_bot_init(&w.bot, s64, player);
    arena_bot_next(&w.bot, w.next);
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = players;
    cfg.input_size = ARENA_INPUT_SIZE;
    cfg.arena = &w.game;
    cfg.arena_size = sizeof w.game;
    cfg.session_id = (uint32_t)match;
    cfg.random_seed = (uint64_t)nonce;
    tempo_address relay;
    tempo_address_opaque(&relay, (const uint8_t *)"relay", 5, 0);
    tempo_transport tr = tempo_ws_transport(&relay);
    tempo_result r = tempo_session_create_relay_member(&cfg, &tr, &relay,
                                                       token_size ? token : NULL, &w.s);
    if (r != TEMPO_OK) {
        snprintf(w.why, sizeof w.why, "cannot create the session: %s%s", tempo_strerror(r),
                 r == TEMPO_E_UNSUPPORTED ? " (this page was built without libsodium: no token)"
                                          : "");
        return r;
    }
    tempo_session_add_local_player(w.s, player);
    tempo_session_set_input_delay(w.s, player, input_delay);
    return 0;
}

EMSCRIPTEN_KEEPALIVE void web_keys(int angle, int magnitude, int buttons)
{
    arena_input in = {(uint8_t)angle, (uint8_t)magnitude, (uint8_t)buttons, 0};
    arena_input_pack(&in, w.keys);
}

static void take_events(void)
{
    tempo_event ev;
    while (tempo_session_poll_event(w.s, &ev) > 0) {
        if (ev.kind == TEMPO_EVENT_RUNNING && w.status == WEB_CONNECTING)
            w.status = WEB_RUNNING;
        if (ev.kind == TEMPO_EVENT_DROPPED && ev.player == w.player) {
            w.status = WEB_FAILED;
            snprintf(w.why, sizeof w.why, "dropped from the match at frame %" PRId32,
                     ev.u.dropped.frame);
        }
    }
}

EMSCRIPTEN_KEEPALIVE int web_tick(double now_ms)
{
    if (!w.s)
        return WEB_FAILED;
    uint64_t now = (uint64_t)(now_ms * 1000.0);
    if (w.status == WEB_DONE || w.status == WEB_FAILED) {
        if (w.leave_polls > 0) { /* the goodbye goes out on the next polls */
            w.leave_polls--;
            tempo_session_poll(w.s, now);
        }
        return w.status;
    }
    double t0 = emscripten_get_now(), step = 0, js0 = tempo_ws_spent_ms();
    tempo_session_poll(w.s, now);
    take_events();
    tempo_session_state state = TEMPO_SESSION_RUNNING;
    if (tempo_session_get_state(w.s, &state) == TEMPO_OK && state == TEMPO_SESSION_ENDED &&
        w.status != WEB_FAILED) {
        w.status = WEB_FAILED;
        snprintf(w.why, sizeof w.why, "the relay ended the session (refused, full, or silent)");
    }
    if (w.status == WEB_FAILED)
        return w.status;
    if (!tempo_session_will_stall(w.s))
        tempo_session_add_local_input(w.s, w.player, w.use_bot ? w.next : w.keys,
                                      ARENA_INPUT_SIZE);
    tempo_tick tick;
    tempo_session_advance(w.s, &tick);
    /* the bot's count follows its inputs as they land: a member that
     * fell behind the relay's clock skips frames (tempo-arena does the same) */
    if (tick.inputs_taken >> w.player & 1u) {
        if (tick.input_frame[w.player] > w.bot_frame)
            w.bot_frame = tick.input_frame[w.player];
        arena_bot_next(&w.bot, w.next);
        w.bot_frame++;
    }
    const tempo_request *r;
    while (tempo_session_next(w.s, &r) > 0) {
        double a = emscripten_get_now();
        arena_step(&w.game, r->inputs, r->status);
        if (r->frame == w.frames - 1)
            w.final_checksum = arena_checksum(&w.game);
        step += emscripten_get_now() - a;
    }
    w.last_rollback = tick.rollback_depth;
    if (tick.rollback_depth > w.max_rollback)
        w.max_rollback = tick.rollback_depth;
    w.waiting = tick.status == TEMPO_TICK_WAITING ? tick.waiting_for : 0;
    if (tempo_session_confirmed_frame(w.s) >= w.frames) {
        w.status = WEB_DONE;
        snprintf(w.final_line, sizeof w.final_line, "final frame=%d checksum=%016" PRIx64,
                 w.frames, w.final_checksum);
        if (tempo_session_leave(w.s) == TEMPO_OK)
            w.leave_polls = 2;
    }
    double spent = emscripten_get_now() - t0;
    if (w.status == WEB_RUNNING || w.status == WEB_DONE) {
        w.tempo_ms += spent - step;
        w.step_ms += step;
        w.js_ms += tempo_ws_spent_ms() - js0;
        if (w.ticks < sizeof w.tick_us / sizeof w.tick_us[0]) {
            w.tick_us[w.ticks] = (float)((spent - step) * 1000.0);
            w.own_us[w.ticks] = (float)((spent - step - (tempo_ws_spent_ms() - js0)) * 1000.0);
        }
        w.ticks++;
    }
    return w.status;
}

EMSCRIPTEN_KEEPALIVE const char *web_final(void)
{
    return w.final_line;
}

EMSCRIPTEN_KEEPALIVE const char *web_why(void)
{
    return w.why;
}

static int by_value(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

EMSCRIPTEN_KEEPALIVE double web_cost_us(int which)
{
    if (!w.ticks)
        return 0.0;
    if (which != 2 && which != 4)
        return (which == 0 ? w.tempo_ms : which == 1 ? w.step_ms : w.js_ms) * 1000.0 / w.ticks;
    static float sorted[sizeof w.tick_us / sizeof w.tick_us[0]];
    uint32_t n = w.ticks < sizeof sorted / sizeof sorted[0] ? w.ticks
                                                           : sizeof sorted / sizeof sorted[0];
    memcpy(sorted, which == 2 ? w.tick_us : w.own_us, n * sizeof sorted[0]);
    qsort(sorted, n, sizeof sorted[0], by_value);
    return sorted[n / 2];
}

EMSCRIPTEN_KEEPALIVE const int32_t *web_view(void)
{
    int32_t *v = w.view;
    memset(v, 0, sizeof w.view);
    v[0] = w.status;
    if (!w.s)
        return v;
    v[1] = tempo_session_frame(w.s);
    v[2] = tempo_session_confirmed_frame(w.s);
    tempo_relay_member_info mi;
    if (tempo_session_relay_info(w.s, &mi) == TEMPO_OK) {
        v[3] = (int32_t)(mi.rtt_ms * 10.0);
        for (int p = 0; p < w.players; p++)
            v[9] += (int32_t)mi.substituted[p];
        v[10] = (int32_t)mi.overridden;
        v[12] = (int32_t)mi.stalls;
        v[13] = (int32_t)mi.skipped;
    }
    v[4] = w.last_rollback;
    v[5] = w.max_rollback;
    v[6] = (int32_t)w.waiting;
    v[7] = w.players;
    v[8] = w.player;
    v[11] = (int32_t)w.ticks;
    for (int p = 0; p < ARENA_MAX_PLAYERS; p++) {
        const arena_ship *sh = &w.game.ships[p];
        int32_t *o = v + VIEW_SHIPS + p * VIEW_SHIP;
        o[0] = sh->state;
        o[1] = sh->team;
        o[2] = sh->x;
        o[3] = sh->y;
        o[4] = sh->facing;
        o[5] = sh->score;
        o[6] = sh->timer;
        o[7] = sh->ammo;
    }
    for (int i = 0; i < ARENA_MAX_SHOTS; i++) {
        const arena_shot *sh = &w.game.shots[i];
        int32_t *o = v + VIEW_SHOTS + i * VIEW_SHOT;
        o[0] = sh->active;
        o[1] = sh->x;
        o[2] = sh->y;
        o[3] = sh->dir + 4 * sh->charged;
        o[4] = sh->owner;
    }
    for (int y = 0; y < ARENA_BOARD_H; y++)
        for (int x = 0; x < ARENA_BOARD_W; x++)
            v[VIEW_TILES + y * ARENA_BOARD_W + x] = w.game.tiles[y][x];
    return v;
}
